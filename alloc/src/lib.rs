//! The global allocator of the `ptxvk` binary and of the translation benchmark: mimalloc.
//!
//! The `mimalloc` crate passes every request to `mi_malloc_aligned`, whose fast path only
//! serves blocks of at most 1 KiB; a larger block whose size is not a power of two takes the
//! over-allocating fallback (`size + align - 1` bytes, and the page is marked as holding interior
//! pointers, which slows every later free on it). Rust asks for an alignment of 8 or less for
//! nearly everything, which every mimalloc block already has, so those requests go to
//! `mi_malloc`/`mi_realloc` here, as Rust's own `System` allocator does with `malloc`. Other
//! alignments keep mimalloc's aligned functions. `mi_free` frees both.

use std::alloc::{GlobalAlloc, Layout};
use std::ffi::c_void;

use libmimalloc_sys as mi;

/// Every block `mi_malloc` returns is aligned to at least this (mimalloc's block sizes are
/// multiples of the machine word; on 64-bit targets of two words).
const PLAIN_ALIGN: usize = std::mem::size_of::<usize>();

/// mimalloc, with requests of ordinary alignment on its plain (unaligned) path.
pub struct MiMalloc;

// SAFETY: every function forwards to mimalloc's allocation functions, which return memory of
// the requested size (or null) aligned as requested: by `PLAIN_ALIGN` on the plain path, by
// the explicit alignment otherwise. `mi_free` accepts blocks from either path.
unsafe impl GlobalAlloc for MiMalloc {
    #[inline]
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: mimalloc's allocation functions have no preconditions on these arguments.
        unsafe {
            if layout.align() <= PLAIN_ALIGN {
                mi::mi_malloc(layout.size()).cast()
            } else {
                mi::mi_malloc_aligned(layout.size(), layout.align()).cast()
            }
        }
    }

    #[inline]
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: as in `alloc`.
        unsafe {
            if layout.align() <= PLAIN_ALIGN {
                mi::mi_zalloc(layout.size()).cast()
            } else {
                mi::mi_zalloc_aligned(layout.size(), layout.align()).cast()
            }
        }
    }

    #[inline]
    unsafe fn dealloc(&self, ptr: *mut u8, _layout: Layout) {
        // SAFETY: `ptr` came from this allocator (the caller's contract), so from mimalloc.
        unsafe { mi::mi_free(ptr.cast::<c_void>()) }
    }

    #[inline]
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: `ptr` came from this allocator with `layout` (the caller's contract); the
        // new block keeps `layout`'s alignment on either path.
        unsafe {
            if layout.align() <= PLAIN_ALIGN {
                mi::mi_realloc(ptr.cast::<c_void>(), new_size).cast()
            } else {
                mi::mi_realloc_aligned(ptr.cast::<c_void>(), new_size, layout.align()).cast()
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Sizes around mimalloc's small-block limit (1 KiB) and its larger size classes, each with
    /// the alignments Rust asks for, up to a page: every block is aligned as asked, holds what
    /// was written, and keeps it through growing and shrinking.
    #[test]
    fn blocks_are_aligned_and_keep_their_contents() {
        let a = MiMalloc;
        let sizes = [1, 7, 8, 24, 100, 1000, 1025, 1500, 3000, 70_000, 1 << 20];
        for &size in &sizes {
            for align in [1, 2, 4, 8, 16, 32, 64, 4096] {
                let layout = Layout::from_size_align(size, align).expect("valid layout");
                for new in [size * 3 + 5, size / 2 + 1] {
                    // SAFETY: non-zero sizes; each block is used within its size and freed
                    // once, with the layout it has.
                    unsafe {
                        let p = a.alloc(layout);
                        assert!(!p.is_null());
                        assert_eq!(p as usize % align, 0, "size {size} align {align}");
                        for i in 0..size {
                            *p.add(i) = i as u8;
                        }
                        let q = a.realloc(p, layout, new);
                        assert_eq!(q as usize % align, 0, "realloc to {new} align {align}");
                        assert!((0..size.min(new)).all(|i| *q.add(i) == i as u8));
                        a.dealloc(q, Layout::from_size_align(new, align).expect("valid"));
                    }
                }
            }
        }
    }

    #[test]
    fn zeroed_blocks_are_zero() {
        let a = MiMalloc;
        for &(size, align) in &[(1, 1), (40, 8), (1500, 8), (5000, 64)] {
            let layout = Layout::from_size_align(size, align).expect("valid layout");
            // SAFETY: a non-zero size; read within it and freed once.
            unsafe {
                let p = a.alloc_zeroed(layout);
                assert_eq!(p as usize % align, 0);
                assert!((0..size).all(|i| *p.add(i) == 0));
                a.dealloc(p, layout);
            }
        }
    }
}
