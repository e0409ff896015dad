//! An allocator that backs large blocks with transparent huge pages (issue 22).
//!
//! At Cui's scale (10^5 flows, 10^6 packets in flight) nearly every packet a pipe hands on
//! was last touched tens of milliseconds of simulated time ago, so its slot is out of the
//! caches and, with 4 KiB pages, out of the TLB as well: the page walk costs as much as the
//! miss. Linux's transparent huge pages (2 MiB) cover a 64 MiB packet arena with 32 TLB
//! entries, but most systems enable them only for memory that asks (`madvise` mode), and Rust's
//! allocator never asks. This one does, for blocks of `HUGE_MIN` bytes and more: it aligns
//! them to 2 MiB, so every page of the block can be huge, and advises the kernel before the
//! block is first touched.
//!
//! Smaller blocks go to the system allocator, but its main heap is advised as well: per-flow
//! pieces (a pipe's ring, a sender's window, a boxed pacer) are small, and at 10^4-10^5 flows
//! they spread over tens of megabytes of 4 KiB pages, out of the TLB's reach. glibc would do
//! this itself with `GLIBC_TUNABLES=glibc.malloc.hugetlb=1`, but only when the variable is set
//! before the process starts, which a Python extension cannot arrange. So the first small
//! block from the heap asks glibc to grow the heap in large steps (`M_TOP_PAD`, so that a step's
//! pages are still untouched when advised), and whenever a block comes from beyond the part
//! already advised, the heap up to its current end is advised. A block from elsewhere (another
//! thread's arena, a block glibc maps on its own) is left as it is.
//!
//! Measured in docs/performance.md ("Huge pages"). A library does not choose the process's
//! allocator: the binaries do (`#[global_allocator]` in ccsim-py and the examples).

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

/// Blocks from this size up are huge-page backed: smaller ones would round up to a whole
/// 2 MiB page or share one with unrelated data.
pub const HUGE_MIN: usize = 4 << 20;
const HUGE_PAGE: usize = 2 << 20;

/// How much glibc's main heap grows by at a time once advised (untouched pages cost nothing).
const HEAP_STEP: usize = 64 << 20;

/// The main heap is advised below this address (0: not yet).
static HEAP_ADVISED_END: AtomicUsize = AtomicUsize::new(0);

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

    /// A small block at `ptr` came from the system allocator: if it lies in the main heap
    /// beyond the part advised, advise the heap up to its end (see the module header).
    #[inline(always)]
    fn note_small(ptr: *mut u8) {
        if (ptr as usize) >= HEAP_ADVISED_END.load(Ordering::Relaxed) {
            Self::advise_heap(ptr as usize);
        }
    }

    #[cold]
    #[inline(never)]
    fn advise_heap(at: usize) {
        #[cfg(all(target_os = "linux", target_env = "gnu"))]
        unsafe {
            let end = libc::sbrk(0) as usize;
            if at == 0 || at >= end || end == usize::MAX {
                return; // not from the main heap
            }
            let mut from = HEAP_ADVISED_END.load(Ordering::Relaxed);
            if from == 0 {
                libc::mallopt(libc::M_TOP_PAD, HEAP_STEP as libc::c_int);
                from = at;
            }
            let from = from & !(HUGE_PAGE - 1);
            libc::madvise(from as *mut libc::c_void, end - from, libc::MADV_HUGEPAGE);
            HEAP_ADVISED_END.store(end, Ordering::Relaxed);
        }
        #[cfg(not(all(target_os = "linux", target_env = "gnu")))]
        {
            let _ = at;
            HEAP_ADVISED_END.store(usize::MAX, Ordering::Relaxed);
        }
    }
}

unsafe impl GlobalAlloc for HugePageAlloc {
    #[inline]
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if layout.size() < HUGE_MIN {
            let p = System.alloc(layout);
            Self::note_small(p);
            return p;
        }
        let p = System.alloc(Self::real(layout));
        Self::advise(p, layout.size());
        p
    }

    #[inline]
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        if layout.size() < HUGE_MIN {
            let p = System.alloc_zeroed(layout);
            Self::note_small(p);
            return p;
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
            let p = System.realloc(ptr, layout, new_size);
            Self::note_small(p);
            return p;
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

    /// The VmFlags of the mapping holding `addr`, from /proc/self/smaps.
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    fn vm_flags(addr: usize) -> Option<String> {
        let smaps = std::fs::read_to_string("/proc/self/smaps").ok()?;
        let mut inside = false;
        for line in smaps.lines() {
            if let Some((range, _)) = line.split_once(' ') {
                if let Some((lo, hi)) = range.split_once('-') {
                    if let (Ok(lo), Ok(hi)) = (usize::from_str_radix(lo, 16), usize::from_str_radix(hi, 16)) {
                        inside = (lo..hi).contains(&addr);
                        continue;
                    }
                }
            }
            if inside {
                if let Some(flags) = line.strip_prefix("VmFlags:") {
                    return Some(flags.to_string());
                }
            }
        }
        None
    }

    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    #[test]
    fn the_main_heap_is_advised_up_to_its_end() {
        if !std::path::Path::new("/sys/kernel/mm/transparent_hugepage").exists() {
            return; // a kernel without THP refuses the advice
        }
        // Test threads allocate from arenas of their own, so name a block of the main heap
        // directly: the last page below its end.
        let end = unsafe { libc::sbrk(0) } as usize;
        let inside = end - 4096;
        HugePageAlloc::advise_heap(inside);
        let flags = vm_flags(inside).expect("the heap is mapped");
        assert!(flags.split_whitespace().any(|f| f == "hg"), "VmFlags: {flags}");
        assert!(HEAP_ADVISED_END.load(Ordering::Relaxed) >= end);
        // An address elsewhere (this thread's stack) changes nothing.
        let v = [0u8; 100];
        let before = HEAP_ADVISED_END.load(Ordering::Relaxed);
        HugePageAlloc::note_small(v.as_ptr() as *mut u8);
        assert!(HEAP_ADVISED_END.load(Ordering::Relaxed) >= before);
    }
}
