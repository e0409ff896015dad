//! A FIFO of packet ids for ports' pipes and drop-tail queues.
//!
//! `VecDeque<u32>` would do the same job in 32 bytes; this ring keeps its head and length
//! as `u32` beside a boxed power-of-two buffer, 24 bytes. A dumbbell of N flows has four
//! access ports per flow, each with a pipe and a queue, so the difference is 64 bytes per
//! flow. The buffer doubles when full, so steady state allocates nothing; it halves when a
//! pop leaves it a quarter full, so memory follows what a port holds rather than the worst
//! moment it had (the factor-four gap between growing and shrinking keeps a queue from
//! flapping between sizes).

use super::PacketId;

#[derive(Clone, Debug, Default)]
pub struct IdRing {
    /// Empty or a power-of-two length.
    buf: Box<[PacketId]>,
    head: u32,
    len: u32,
}

impl IdRing {
    pub fn new() -> Self {
        Self::default()
    }

    #[inline]
    pub fn len(&self) -> usize {
        self.len as usize
    }

    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Slots allocated.
    pub fn capacity(&self) -> usize {
        self.buf.len()
    }

    #[inline]
    fn slot(&self, i: u32) -> usize {
        (self.head.wrapping_add(i) as usize) & (self.buf.len() - 1)
    }

    #[inline]
    pub fn push_back(&mut self, id: PacketId) {
        if self.len as usize == self.buf.len() {
            self.grow();
        }
        let i = self.slot(self.len);
        self.buf[i] = id;
        self.len += 1;
    }

    #[inline]
    pub fn pop_front(&mut self) -> Option<PacketId> {
        if self.len == 0 {
            return None;
        }
        let id = self.buf[self.head as usize];
        self.head = ((self.head + 1) as usize & (self.buf.len() - 1)) as u32;
        self.len -= 1;
        if (self.len as usize) * 4 == self.buf.len() && self.buf.len() > SHRINK_ABOVE {
            self.shrink();
        }
        Some(id)
    }

    #[inline]
    pub fn pop_back(&mut self) -> Option<PacketId> {
        if self.len == 0 {
            return None;
        }
        self.len -= 1;
        Some(self.buf[self.slot(self.len)])
    }

    /// Ask the CPU to bring the front id's cache line in (a hint; see World::prefetch_next).
    #[inline(always)]
    pub fn prefetch_front(&self) {
        #[cfg(target_arch = "x86_64")]
        if self.len > 0 {
            // SAFETY: a prefetch reads nothing; the address is inside the buffer.
            unsafe {
                let p = self.buf.as_ptr().add(self.head as usize);
                std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(p.cast());
            }
        }
    }

    #[inline]
    pub fn front(&self) -> Option<PacketId> {
        (self.len > 0).then(|| self.buf[self.head as usize])
    }

    #[inline]
    pub fn back(&self) -> Option<PacketId> {
        (self.len > 0).then(|| self.buf[self.slot(self.len - 1)])
    }

    /// The id at position `i` from the front (`i < len`).
    #[inline]
    pub fn get(&self, i: usize) -> PacketId {
        debug_assert!(i < self.len as usize);
        self.buf[self.slot(i as u32)]
    }

    /// Put `id` at position `i` from the front (`i <= len`), moving the ids behind it back
    /// one place: a cost in the number of ids behind it (a multi-channel port's pipe puts a
    /// short packet ahead of the few longer ones still on other channels).
    pub fn insert(&mut self, i: usize, id: PacketId) {
        assert!(i <= self.len as usize, "insert at {i} in a ring of {}", self.len);
        if self.len as usize == self.buf.len() {
            self.grow();
        }
        let mut k = self.len;
        while k as usize > i {
            let (to, from) = (self.slot(k), self.slot(k - 1));
            self.buf[to] = self.buf[from];
            k -= 1;
        }
        let at = self.slot(i as u32);
        self.buf[at] = id;
        self.len += 1;
    }

    /// Oldest first.
    pub fn iter(&self) -> impl Iterator<Item = PacketId> + '_ {
        (0..self.len).map(move |i| self.buf[self.slot(i)])
    }

    #[cold]
    fn grow(&mut self) {
        let cap = (self.buf.len() * 2).max(4);
        assert!(cap <= u32::MAX as usize, "packet-id ring beyond 2^32 entries");
        self.move_to(cap);
    }

    #[cold]
    fn shrink(&mut self) {
        self.move_to(self.buf.len() / 2);
    }

    /// Copy the ids into a buffer of `cap` slots, the oldest at slot 0.
    fn move_to(&mut self, cap: usize) {
        let mut next = vec![0 as PacketId; cap].into_boxed_slice();
        for (k, id) in self.iter().enumerate() {
            next[k] = id;
        }
        self.buf = next;
        self.head = 0;
    }
}

/// Rings of this many slots or fewer are never shrunk (a port's usual few packets).
const SHRINK_ABOVE: usize = 64;

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::VecDeque;

    #[test]
    fn matches_a_vecdeque_through_wraps_and_growth() {
        let mut ring = IdRing::new();
        let mut model = VecDeque::new();
        let mut next = 0u32;
        // A fixed pattern of pushes and pops at both ends that wraps the head many times
        // and grows the buffer from 4 to 64.
        for step in 0..2000u32 {
            match step % 7 {
                0 | 1 | 3 | 5 => {
                    ring.push_back(next);
                    model.push_back(next);
                    next += 1;
                }
                2 | 4 => assert_eq!(ring.pop_front(), model.pop_front()),
                _ if step % 3 == 0 => assert_eq!(ring.pop_back(), model.pop_back()),
                _ => {}
            }
            if step % 500 == 499 {
                while let Some(id) = model.pop_front() {
                    assert_eq!(ring.pop_front(), Some(id));
                }
            }
            assert_eq!(ring.len(), model.len());
            assert_eq!(ring.front(), model.front().copied());
            assert_eq!(ring.back(), model.back().copied());
            assert!(ring.iter().eq(model.iter().copied()));
        }
        assert!(ring.capacity().is_power_of_two());
        assert_eq!(ring.pop_front(), model.pop_front());
    }

    #[test]
    fn shrinks_when_a_burst_has_drained_and_keeps_its_order() {
        let mut ring = IdRing::new();
        for id in 0..10_000 {
            ring.push_back(id);
        }
        assert_eq!(ring.capacity(), 16_384);
        for id in 0..9_990 {
            assert_eq!(ring.pop_front(), Some(id));
        }
        assert!(ring.capacity() <= 64, "{} slots for 10 ids", ring.capacity());
        assert!(ring.iter().eq(9_990..10_000));
        // Ten in, ten out, forever: no flapping between sizes.
        let cap = ring.capacity();
        for id in 10_000..20_000 {
            ring.push_back(id);
            assert_eq!(ring.pop_front(), Some(id - 10));
            assert_eq!(ring.capacity(), cap);
        }
    }

    #[test]
    fn insert_and_get_match_a_vecdeque_through_wraps() {
        let mut ring = IdRing::new();
        let mut model = VecDeque::new();
        for step in 0..3000u32 {
            match step % 5 {
                0 | 1 => {
                    // Near the back mostly, sometimes at the front or in the middle.
                    let at = match step % 11 {
                        0 => 0,
                        1 => model.len() / 2,
                        _ => model.len().saturating_sub((step % 3) as usize),
                    };
                    ring.insert(at, step);
                    model.insert(at, step);
                }
                2 => ring.push_back(step),
                _ => assert_eq!(ring.pop_front(), model.pop_front()),
            }
            if step % 5 == 2 {
                model.push_back(step);
            }
            assert_eq!(ring.len(), model.len());
            assert!((0..model.len()).all(|i| ring.get(i) == model[i]));
        }
    }

    #[test]
    fn empty_ring_holds_no_heap() {
        let mut ring = IdRing::new();
        assert_eq!(ring.capacity(), 0);
        assert_eq!((ring.pop_front(), ring.pop_back(), ring.front(), ring.back()), (None, None, None, None));
        ring.push_back(9);
        assert_eq!(ring.capacity(), 4);
        assert_eq!(std::mem::size_of::<IdRing>(), 24);
    }
}
