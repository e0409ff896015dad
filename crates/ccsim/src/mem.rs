//! An allocator that backs large blocks with transparent huge pages (issue 22).
//!
//! At Cui's scale (10^5 flows, 10^6 packets in flight) nearly every packet a pipe hands on
//! was last touched tens of milliseconds of simulated time ago, so its slot is out of the
//! caches and, with 4 KiB pages, out of the TLB as well: the page walk costs as much as the
//! miss. Linux's transparent huge pages (2 MiB) cover a 64 MiB packet arena with 32 TLB
//! entries, but most systems enable them only for memory that asks (`madvise` mode), and Rust's
//! allocator never asks. This one does, for blocks of `HUGE_MIN` bytes and more: it aligns
//! them to 2 MiB, so every page of the block can be huge, and advises the kernel before the
//! block is first touched. Smaller blocks go to the system allocator unchanged.
//!
//! Measured in docs/performance.md ("Huge pages"). A library does not choose the process's
//! allocator: the binaries do (`#[global_allocator]` in ccsim-py and the examples).

use std::alloc::{GlobalAlloc, Layout, System};

/// Blocks from this size up are huge-page backed: smaller ones would round up to a whole
/// 2 MiB page or share one with unrelated data.
pub const HUGE_MIN: usize = 4 << 20;
const HUGE_PAGE: usize = 2 << 20;

pub struct HugePageAlloc;

impl HugePageAlloc {
    /// The layout a block of `layout` is really allocated with.
    #[inline]
    fn real(layout: Layout) -> Layout {
        if layout.size() >= HUGE_MIN && layout.align() < HUGE_PAGE {
            // Size and a power-of-two alignment that is larger: always a valid layout.
            Layout::from_size_align(layout.size(), HUGE_PAGE).unwrap_or(layout)
        } else {
            layout
        }
    }

    #[cold]
    fn advise(ptr: *mut u8, size: usize) {
        #[cfg(target_os = "linux")]
        if !ptr.is_null() {
            // Advice only: a kernel without THP, or with them off, refuses and nothing changes.
            unsafe {
                libc::madvise(ptr.cast(), size, libc::MADV_HUGEPAGE);
            }
        }
        #[cfg(not(target_os = "linux"))]
        let _ = (ptr, size);
    }
}

unsafe impl GlobalAlloc for HugePageAlloc {
    #[inline]
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if layout.size() < HUGE_MIN {
            return System.alloc(layout);
        }
        let p = System.alloc(Self::real(layout));
        Self::advise(p, layout.size());
        p
    }

    #[inline]
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        if layout.size() < HUGE_MIN {
            return System.alloc_zeroed(layout);
        }
        let p = System.alloc_zeroed(Self::real(layout));
        Self::advise(p, layout.size());
        p
    }

    #[inline]
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        System.dealloc(ptr, Self::real(layout))
    }

    #[inline]
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if layout.size() < HUGE_MIN && new_size < HUGE_MIN {
            return System.realloc(ptr, layout, new_size);
        }
        // Into or out of the huge class: a fresh block (advised before the copy touches it),
        // the contents copied, the old block freed. Growth is geometric, so this is rare.
        let Ok(new_layout) = Layout::from_size_align(new_size, layout.align()) else {
            return std::ptr::null_mut();
        };
        let p = self.alloc(new_layout);
        if !p.is_null() {
            std::ptr::copy_nonoverlapping(ptr, p, layout.size().min(new_size));
            self.dealloc(ptr, layout);
        }
        p
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn large_blocks_are_aligned_to_huge_pages_and_keep_their_contents() {
        let a = HugePageAlloc;
        unsafe {
            let small = Layout::from_size_align(1000, 8).unwrap();
            let p = a.alloc(small);
            assert!(!p.is_null());
            p.write_bytes(7, 1000);
            // Growing into the huge class copies and aligns.
            let q = a.realloc(p, small, HUGE_MIN + 10);
            assert_eq!(q as usize % HUGE_PAGE, 0);
            assert_eq!(*q.add(999), 7);
            let big = Layout::from_size_align(HUGE_MIN + 10, 8).unwrap();
            // Shrinking out of it copies back.
            let r = a.realloc(q, big, 500);
            assert_eq!(*r.add(499), 7);
            a.dealloc(r, Layout::from_size_align(500, 8).unwrap());
            let z = a.alloc_zeroed(big);
            assert_eq!(z as usize % HUGE_PAGE, 0);
            assert_eq!(*z.add(HUGE_MIN), 0);
            a.dealloc(z, big);
        }
    }
}
