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

struct Shape { keys: Vec<u8>, width: u32 }

struct Reader {
    input: Vec<u8>,
    vals: Vec<f64>,
    rows: Vec<u32>,
    shapes: Vec<Shape>,
    recent: Vec<u32>,
    scratch: Vec<u8>,
}

static mut READER: Reader = Reader { input: Vec::new(), vals: Vec::new(), rows: Vec::new(), shapes: Vec::new(), recent: Vec::new(), scratch: Vec::new() };

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
        r.scratch.clear();
        let width = match line(b, &mut i, &mut r.vals, &mut r.scratch) { Some(w) => w, None => return -1 };
        match intern(&mut r.shapes, &mut r.recent, &r.scratch, width) { Some(s) => r.rows.push(s), None => return -1 }
    }
    end as i64
}

/// One line from `*i` (left after its newline): its values into `vals`, its keys into `keys`; the number of keys.
fn line(b: &[u8], i: &mut usize, vals: &mut Vec<f64>, keys: &mut Vec<u8>) -> Option<u32> {
    let mut at = *i;
    if b[at] != b'{' { return None; }
    at += 1;
    let mut width = 0u32;
    if b[at] != b'}' {
        loop {
            at = key(b, at, keys)?;
            at = value(b, at, vals)?;
            width += 1;
            match b[at] { b',' => at += 1, b'}' => break, _ => return None }
        }
    }
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
            shapes.push(Shape { keys: keys.to_vec(), width });
            (shapes.len() - 1) as u32
        }
    };
    recent.insert(0, s);
    recent.truncate(RECENT);
    Some(s)
}
