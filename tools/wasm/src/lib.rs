//! The project's WebAssembly (lib/wasm/): the reader of frozen history lines (reader.rs) and the
//! printer of packed CSV rows (printer.rs). One instance serves one file or one table and is dropped,
//! so memory is only ever grown (a bump allocator, no frees).
#![no_std]
extern crate alloc;

mod printer;
mod reader;


/// Memory grows and is never returned: an instance reads one file and is dropped (its buffers are
/// reused across the file's chunks, so they grow to the largest chunk's needs).
mod bump {
    use core::alloc::{GlobalAlloc, Layout};
    use core::arch::wasm32;
    pub struct Bump;
    static mut NEXT: usize = 0;
    static mut END: usize = 0;
    const PAGE: usize = 65536;
    unsafe impl GlobalAlloc for Bump {
        unsafe fn alloc(&self, l: Layout) -> *mut u8 {
            if END == 0 {
                END = wasm32::memory_size(0) * PAGE;
                NEXT = END;
            }
            let at = (NEXT + l.align() - 1) & !(l.align() - 1);
            let end = at + l.size();
            if end > END {
                let pages = (end - END + PAGE - 1) / PAGE;
                if wasm32::memory_grow(0, pages) == usize::MAX { return core::ptr::null_mut(); }
                END += pages * PAGE;
            }
            NEXT = end;
            at as *mut u8
        }
        unsafe fn dealloc(&self, _: *mut u8, _: Layout) {}
    }
}
#[global_allocator]
static ALLOC: bump::Bump = bump::Bump;

#[panic_handler]
fn panic(_: &core::panic::PanicInfo) -> ! { core::arch::wasm32::unreachable() }

