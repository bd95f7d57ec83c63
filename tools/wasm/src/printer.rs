//! Prints packed record rows as CSV lines (lib/export/packed-csv.ts): per row its leading cells (a
//! text of the table, or a number), then one cell per value column, empty where the row's key list
//! has no such key. Numbers print as ECMAScript's Number::toString (`ryu-js`: String(x)'s text, -0 as
//! "0"); NaN and ±Infinity as the texts the caller gives last (lib/export/export-cell.ts says which).
//! The caller sets the table up once, then for each batch of rows fills the row inputs and prints.
use alloc::vec::Vec;
use core::ptr::addr_of_mut;

struct Printer {
    /// The table's texts (CSV fields, quoted as needed), then NaN's, Infinity's and -Infinity's cells.
    texts: Vec<u8>,
    /// Where text t starts; it ends where text t + 1 starts.
    text_at: Vec<u32>,
    /// Per leading column: 0 a text (an index per row), 1 a number.
    lead: Vec<u8>,
    /// Per key list, per value column: the index of its key in the list, -1 when it has none.
    slots: Vec<i32>,
    width: usize,
    /// A batch: per row its text indexes, its leading numbers, its key list and its values.
    lead_text: Vec<u32>,
    lead_num: Vec<f64>,
    shape: Vec<u32>,
    vals: Vec<f64>,
    out: Vec<u8>,
}

static mut PRINTER: Printer = Printer {
    texts: Vec::new(),
    text_at: Vec::new(),
    lead: Vec::new(),
    slots: Vec::new(),
    width: 0,
    lead_text: Vec::new(),
    lead_num: Vec::new(),
    shape: Vec::new(),
    vals: Vec::new(),
    out: Vec::new(),
};

fn printer() -> &'static mut Printer { unsafe { &mut *addr_of_mut!(PRINTER) } }

/// Room for `count` texts of `bytes` bytes in all: returns where the bytes go (`printer_text_at` for the starts).
#[no_mangle]
pub extern "C" fn printer_texts(bytes: usize, count: usize) -> *mut u8 {
    let p = printer();
    p.texts.resize(bytes, 0);
    p.text_at.resize(count + 1, 0);
    p.texts.as_mut_ptr()
}
#[no_mangle]
pub extern "C" fn printer_text_at() -> *mut u32 { printer().text_at.as_mut_ptr() }
/// Room for the kinds of `count` leading columns.
#[no_mangle]
pub extern "C" fn printer_lead(count: usize) -> *mut u8 {
    let p = printer();
    p.lead.resize(count, 0);
    p.lead.as_mut_ptr()
}
/// Room for the slots of `shapes` key lists over `width` value columns.
#[no_mangle]
pub extern "C" fn printer_slots(shapes: usize, width: usize) -> *mut i32 {
    let p = printer();
    p.width = width;
    p.slots.resize(shapes * width, -1);
    p.slots.as_mut_ptr()
}
/// Room for a batch of `rows` rows holding `values` values in all (then fill the four inputs below).
#[no_mangle]
pub extern "C" fn printer_batch(rows: usize, values: usize) {
    let p = printer();
    let texts = p.lead.iter().filter(|&&k| k == 0).count();
    p.lead_text.resize(rows * texts, 0);
    p.lead_num.resize(rows * (p.lead.len() - texts), 0.0);
    p.shape.resize(rows, 0);
    p.vals.resize(values, 0.0);
}
#[no_mangle]
pub extern "C" fn printer_lead_text() -> *mut u32 { printer().lead_text.as_mut_ptr() }
#[no_mangle]
pub extern "C" fn printer_lead_num() -> *mut f64 { printer().lead_num.as_mut_ptr() }
#[no_mangle]
pub extern "C" fn printer_shape() -> *mut u32 { printer().shape.as_mut_ptr() }
#[no_mangle]
pub extern "C" fn printer_vals() -> *mut f64 { printer().vals.as_mut_ptr() }
#[no_mangle]
pub extern "C" fn printer_out() -> *const u8 { printer().out.as_ptr() }

/// Prints the batch's `rows` rows; the bytes written (at `printer_out`).
#[no_mangle]
pub extern "C" fn printer_print(rows: usize) -> usize {
    let p = printer();
    let Printer { texts, text_at, lead, slots, width, lead_text, lead_num, shape, vals, out } = p;
    let width = *width;
    let non_finite = text_at.len() - 4;
    let text = |t: usize| &texts[text_at[t] as usize..text_at[t + 1] as usize];
    let mut ryu = ryu_js::Buffer::new();
    let mut number = |out: &mut Vec<u8>, v: f64| {
        if v.is_finite() {
            // An integer below 2^53 prints as its digits in String(x) (-0 as "0"): written directly,
            // Ryu's shortest-digits search is for the others (a fifth to two fifths of the cells).
            if v.abs() < 9_007_199_254_740_992.0 && v == (v as i64) as f64 {
                push_int(out, v as i64);
            } else {
                out.extend_from_slice(ryu.format_finite(v).as_bytes());
            }
        } else {
            let t = non_finite + if v.is_nan() { 0 } else if v > 0.0 { 1 } else { 2 };
            out.extend_from_slice(text(t));
        }
    };
    let texts_per_row = lead.iter().filter(|&&k| k == 0).count();
    let nums_per_row = lead.len() - texts_per_row;
    out.clear();
    let mut base = 0;
    for r in 0..rows {
        let (mut t, mut n) = (r * texts_per_row, r * nums_per_row);
        for (c, &kind) in lead.iter().enumerate() {
            if c > 0 { out.push(b','); }
            if kind == 0 {
                out.extend_from_slice(text(lead_text[t] as usize));
                t += 1;
            } else {
                number(out, lead_num[n]);
                n += 1;
            }
        }
        if width > 0 && !lead.is_empty() { out.push(b','); }
        let slot = &slots[shape[r] as usize * width..][..width];
        let mut count = 0;
        for (c, &j) in slot.iter().enumerate() {
            if c > 0 { out.push(b','); }
            if j >= 0 {
                number(out, vals[base + j as usize]);
                count += 1;
            }
        }
        base += count;
        out.push(b'\n');
    }
    out.len()
}

/// The decimal digits of `n` (a minus sign first when negative).
fn push_int(out: &mut Vec<u8>, n: i64) {
    let mut digits = [0u8; 20];
    let mut at = digits.len();
    let mut m = n.unsigned_abs();
    loop {
        at -= 1;
        digits[at] = b'0' + (m % 10) as u8;
        m /= 10;
        if m == 0 { break; }
    }
    if n < 0 { out.push(b'-'); }
    out.extend_from_slice(&digits[at..]);
}
