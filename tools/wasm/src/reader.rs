//! Reads frozen history lines written in the canonical form (lib/values/frozen-row.ts) into packed
//! values: per row its key sequence's id, and its numbers appended in key order. Only that form is
//! accepted: `{"key":number,...}` with no whitespace, keys without escapes or control characters,
//! numbers in JSON's grammar, and the strings "NaN", "Infinity", "-Infinity". Anything else (a
//! corrupt line, whitespace, an escape, `true`) makes `parse` return -1, and the caller reads the file
//! with JSON.parse instead, which accepts or refuses it with its usual message. Numbers go through
//! Rust's `str::parse::<f64>`, correctly rounded as JSON.parse is.
use alloc::vec::Vec;
use core::ptr::addr_of_mut;

/// Key sequences past this many make `parse` give up (the JavaScript reader bounds its own).
const MAX_SHAPES: usize = 10_000;
/// Key sequences compared first: a file interleaves a handful.
const RECENT: usize = 8;

/// No key sequence (a `follow` entry not yet known).
const NONE: u32 = u32::MAX;

/// A key sequence: its keys' bytes, each followed by a 0 byte, and where each key starts in them.
struct Shape { keys: Vec<u8>, width: u32, starts: Vec<u32> }

impl Shape {
    fn new(keys: &[u8], width: u32) -> Shape {
        let mut starts = Vec::with_capacity(width as usize + 1);
        starts.push(0);
        for (i, &c) in keys.iter().enumerate() {
            if c == 0 { starts.push(i as u32 + 1); }
        }
        Shape { keys: keys.to_vec(), width, starts }
    }
    /// Key `k`'s bytes (k < width).
    fn key(&self, k: u32) -> &[u8] { &self.keys[self.starts[k as usize] as usize..self.starts[k as usize + 1] as usize - 1] }
    /// The bytes of the first `k` keys (k <= width), separators included.
    fn prefix(&self, k: u32) -> &[u8] { &self.keys[..self.starts[k as usize] as usize] }
}

struct Reader {
    input: Vec<u8>,
    vals: Vec<f64>,
    rows: Vec<u32>,
    shapes: Vec<Shape>,
    recent: Vec<u32>,
    scratch: Vec<u8>,
    /// Per key sequence, the one the line after it had last (a file repeats a cycle of a few).
    follow: Vec<u32>,
    /// The last line's key sequence.
    last: u32,
}

static mut READER: Reader = Reader {
    input: Vec::new(),
    vals: Vec::new(),
    rows: Vec::new(),
    shapes: Vec::new(),
    recent: Vec::new(),
    scratch: Vec::new(),
    follow: Vec::new(),
    last: NONE,
};

fn reader() -> &'static mut Reader { unsafe { &mut *addr_of_mut!(READER) } }

/// The input buffer, at least `len` bytes (its address may change when it grows).
#[no_mangle]
pub extern "C" fn reader_input(len: usize) -> *mut u8 {
    let r = reader();
    if r.input.len() < len { r.input.resize(len, 0); }
    r.input.as_mut_ptr()
}
#[no_mangle]
pub extern "C" fn reader_vals_ptr() -> *const f64 { reader().vals.as_ptr() }
#[no_mangle]
pub extern "C" fn reader_vals_len() -> usize { reader().vals.len() }
#[no_mangle]
pub extern "C" fn reader_rows_ptr() -> *const u32 { reader().rows.as_ptr() }
#[no_mangle]
pub extern "C" fn reader_rows_len() -> usize { reader().rows.len() }
/// Forgets the values and rows read so far (the caller has copied them); key sequences are kept.
#[no_mangle]
pub extern "C" fn reader_clear() { let r = reader(); r.vals.clear(); r.rows.clear(); }
#[no_mangle]
pub extern "C" fn reader_shape_count() -> usize { reader().shapes.len() }
/// A key sequence's keys as UTF-8, each followed by a 0 byte (a key cannot hold one unescaped).
#[no_mangle]
pub extern "C" fn reader_shape_keys_ptr(s: usize) -> *const u8 { reader().shapes[s].keys.as_ptr() }
#[no_mangle]
pub extern "C" fn reader_shape_keys_len(s: usize) -> usize { reader().shapes[s].keys.len() }

/// Reads the whole lines of input[0..len): returns the bytes they take (0: no whole line yet), or -1
/// when a line is not in the canonical form (or holds too many key sequences).
#[no_mangle]
pub extern "C" fn reader_parse(len: usize) -> i64 {
    let r = reader();
    let b = &r.input[..len];
    let end = match b.iter().rposition(|&c| c == b'\n') { Some(p) => p + 1, None => return 0 };
    let b = &b[..end];
    let mut i = 0;
    while i < end {
        let cands = candidates(r);
        let s = match known_line(b, &mut i, &mut r.vals, &r.shapes, &cands) {
            Known::Shape(s) => s,
            Known::Bad => return -1,
            Known::From(part) => {
                r.scratch.clear();
                if let Some(s) = part.shape { r.scratch.extend_from_slice(r.shapes[s as usize].prefix(part.keys)); }
                let rest = if part.ended { close(b, &mut i, part.at, part.keys) } else { keys_from(b, &mut i, part.at, part.keys, &mut r.vals, &mut r.scratch) };
                let width = match rest { Some(w) => w, None => return -1 };
                match intern(&mut r.shapes, &mut r.recent, &r.scratch, width) {
                    Some(s) => {
                        if r.follow.len() < r.shapes.len() { r.follow.resize(r.shapes.len(), NONE); }
                        s
                    }
                    None => return -1,
                }
            }
        };
        r.rows.push(s);
        if r.last != NONE { r.follow[r.last as usize] = s; }
        r.last = s;
    }
    end as i64
}

/// The key sequences a line is tried against, most likely first: the one that followed the last
/// line's the last time, then the most recently met.
fn candidates(r: &Reader) -> ([u32; RECENT + 1], usize) {
    let mut out = [NONE; RECENT + 1];
    let mut n = 0;
    if r.last != NONE && r.follow[r.last as usize] != NONE {
        out[0] = r.follow[r.last as usize];
        n = 1;
    }
    for &s in &r.recent {
        if n == 0 || s != out[0] { out[n] = s; n += 1; }
    }
    (out, n)
}

/// Where a line stopped matching the known key sequences: at a key (or, `ended`, at its closing
/// brace), after the first `keys` keys of `shape` (none when no key sequence is known yet).
struct Part { at: usize, shape: Option<u32>, keys: u32, ended: bool }

/// A line read as a known key sequence, or not in the canonical form, or read that far.
enum Known { Shape(u32), Bad, From(Part) }

/// The line at `*i` matched against the candidate key sequences key by key: a key's bytes compared
/// whole with the candidate's (they were checked when it was first met), its value read; on a key
/// that differs, another candidate with the same keys so far takes over. `*i` moves past the line
/// only when it is a known one.
fn known_line(b: &[u8], i: &mut usize, vals: &mut Vec<f64>, shapes: &[Shape], cands: &([u32; RECENT + 1], usize)) -> Known {
    let cands = &cands.0[..cands.1];
    let mut at = *i;
    if b[at] != b'{' { return Known::Bad; }
    at += 1;
    let Some(&first) = cands.first() else { return Known::From(Part { at, shape: None, keys: 0, ended: b[at] == b'}' }) };
    if b[at] == b'}' { return Known::From(Part { at, shape: None, keys: 0, ended: true }); }
    let (mut s, mut k) = (first, 0u32);
    loop {
        let shape = &shapes[s as usize];
        if shape.width == 0 || !key_is(b, at, shape.key(k)) {
            match other(shapes, cands, s, k, |o| o.width > k && key_is(b, at, o.key(k))) {
                Some(o) => { s = o; continue; }
                None => return Known::From(Part { at, shape: Some(s), keys: k, ended: false }),
            }
        }
        at = match value(b, at + shapes[s as usize].key(k).len() + 3, vals) { Some(a) => a, None => return Known::Bad };
        k += 1;
        let ended = match b[at] { b',' => false, b'}' => true, _ => return Known::Bad };
        let fits = |o: &Shape| if ended { o.width == k } else { o.width > k };
        if !fits(&shapes[s as usize]) {
            match other(shapes, cands, s, k, fits) {
                Some(o) => s = o,
                None => return Known::From(Part { at: if ended { at } else { at + 1 }, shape: Some(s), keys: k, ended }),
            }
        }
        if ended {
            if b[at + 1] != b'\n' { return Known::Bad; }
            *i = at + 2;
            return Known::Shape(s);
        }
        at += 1;
    }
}

/// `"kb":` at `at`.
fn key_is(b: &[u8], at: usize, kb: &[u8]) -> bool {
    let n = kb.len();
    b.get(at) == Some(&b'"') && b.get(at + 1..at + 1 + n).is_some_and(|x| same(x, kb)) && b.get(at + 1 + n..at + 3 + n) == Some(b"\":".as_slice())
}

/// `a == b`, eight bytes at a time (slice equality calls a byte-by-byte memcmp in WebAssembly).
fn same(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() { return false; }
    let (wa, wb) = (a.chunks_exact(8), b.chunks_exact(8));
    let tails = wa.remainder() == wb.remainder();
    let word = |x: &[u8]| u64::from_le_bytes(x.try_into().unwrap_or([0; 8]));
    tails && wa.zip(wb).all(|(x, y)| word(x) == word(y))
}

/// A candidate other than `s` with the same first `k` keys as `s`, and `ok`.
fn other(shapes: &[Shape], cands: &[u32], s: u32, k: u32, ok: impl Fn(&Shape) -> bool) -> Option<u32> {
    let prefix = shapes[s as usize].prefix(k);
    cands.iter().copied().find(|&o| {
        let shape = &shapes[o as usize];
        o != s && shape.width >= k && same(shape.prefix(k), prefix) && ok(shape)
    })
}

/// One line's keys from `at` (at a key, after the first `width` keys), values into `vals`, keys into
/// `keys`; the line's number of keys, `*i` left after its newline.
fn keys_from(b: &[u8], i: &mut usize, mut at: usize, mut width: u32, vals: &mut Vec<f64>, keys: &mut Vec<u8>) -> Option<u32> {
    loop {
        at = key(b, at, keys)?;
        at = value(b, at, vals)?;
        width += 1;
        match b[at] { b',' => at += 1, b'}' => break, _ => return None }
    }
    close(b, i, at, width)
}

/// The closing brace at `at` of a line of `width` keys: `*i` left after its newline.
fn close(b: &[u8], i: &mut usize, at: usize, width: u32) -> Option<u32> {
    if b[at + 1] != b'\n' { return None; }
    *i = at + 2;
    Some(width)
}

/// `"key":` at `at`, its bytes appended to `keys` with a 0 after; the position after the colon.
fn key(b: &[u8], mut at: usize, keys: &mut Vec<u8>) -> Option<usize> {
    if b[at] != b'"' { return None; }
    at += 1;
    let from = at;
    while b[at] != b'"' {
        if b[at] == b'\\' || b[at] < 0x20 { return None; }
        at += 1;
    }
    keys.extend_from_slice(&b[from..at]);
    keys.push(0);
    if b[at + 1] != b':' { return None; }
    Some(at + 2)
}

/// A number or a non-finite marker at `at`, appended to `vals`; the position after it.
fn value(b: &[u8], at: usize, vals: &mut Vec<f64>) -> Option<usize> {
    if b[at] == b'"' {
        const MARKERS: [(&[u8], f64); 3] = [(b"\"NaN\"", f64::NAN), (b"\"Infinity\"", f64::INFINITY), (b"\"-Infinity\"", f64::NEG_INFINITY)];
        for (text, v) in MARKERS {
            if b[at..].starts_with(text) { vals.push(v); return Some(at + text.len()); }
        }
        return None;
    }
    let end = number_end(b, at)?;
    // The bytes are JSON's number grammar (checked above), so they are valid UTF-8 and parse.
    let text = core::str::from_utf8(&b[at..end]).ok()?;
    vals.push(text.parse::<f64>().ok()?);
    Some(end)
}

/// The end of a JSON number starting at `at` (`-? (0 | [1-9][0-9]*) (.[0-9]+)? ([eE][+-]?[0-9]+)?`).
fn number_end(b: &[u8], mut at: usize) -> Option<usize> {
    if b[at] == b'-' { at += 1; }
    match b[at] {
        b'0' => at += 1,
        b'1'..=b'9' => at = digits(b, at),
        _ => return None,
    }
    if b[at] == b'.' {
        if !b[at + 1].is_ascii_digit() { return None; }
        at = digits(b, at + 1);
    }
    if b[at] == b'e' || b[at] == b'E' {
        at += 1;
        if b[at] == b'+' || b[at] == b'-' { at += 1; }
        if !b[at].is_ascii_digit() { return None; }
        at = digits(b, at);
    }
    Some(at)
}

fn digits(b: &[u8], mut at: usize) -> usize {
    while b[at].is_ascii_digit() { at += 1; }
    at
}

/// The id of the key sequence `keys` of `width` keys, made on first sight; None past MAX_SHAPES.
fn intern(shapes: &mut Vec<Shape>, recent: &mut Vec<u32>, keys: &[u8], width: u32) -> Option<u32> {
    let same = |s: &Shape| s.width == width && s.keys == keys;
    if let Some(r) = recent.iter().position(|&s| same(&shapes[s as usize])) {
        let s = recent.remove(r);
        recent.insert(0, s);
        return Some(s);
    }
    let s = match shapes.iter().position(same) {
        Some(s) => s as u32,
        None => {
            if shapes.len() >= MAX_SHAPES { return None; }
            shapes.push(Shape::new(keys, width));
            (shapes.len() - 1) as u32
        }
    };
    recent.insert(0, s);
    recent.truncate(RECENT);
    Some(s)
}
