//! Per-sequence-number bookkeeping in rings indexed by `seq & mask`.
//!
//! The sender needs a little state for each outstanding packet (first transmission time,
//! per-packet deadline); the sink needs one bit for each packet received out of order. Both
//! windows slide, so a power-of-two ring that grows when the window outgrows it gives O(1)
//! access with no hashing and no allocation in steady state.

use crate::sim::SimTime;

#[derive(Clone, Copy, Debug, Default)]
pub struct SlotInfo {
    pub first_tx: SimTime,
    /// The most recent transmission (= first_tx until the packet is resent).
    pub last_tx: SimTime,
    pub deadline: SimTime,
}

/// Rings of this many slots or fewer are never shrunk.
pub const SHRINK_ABOVE: usize = 64;

/// Sender-side ring of [`SlotInfo`] for sequence numbers in `[base, base + capacity)`.
///
/// Optional parallel arrays hold a per-packet timer back-off exponent (Keshav 1991 §4.4:
/// a packet's timeout doubles on each of its expiries) and a per-packet "RTT sampled" mark
/// (`RttSamples::EachPacket`). They sit behind one optional box, and cost no heap and 8 bytes
/// of the sender, unless [`SlotRing::enable_backoff`] / [`SlotRing::enable_sampled`] was called:
/// a large topology has one ring per flow, and most flows use neither.
#[derive(Clone, Debug)]
pub struct SlotRing {
    /// Power-of-two length; `seq & (len - 1)` is a sequence number's slot.
    slots: Box<[SlotInfo]>,
    marks: Option<Box<SlotMarks>>,
}

/// The optional per-slot arrays, each empty unless enabled, and the per-packet timers' heap.
#[derive(Clone, Debug, Default)]
struct SlotMarks {
    backoff: Box<[u8]>,
    sampled: Box<[bool]>,
    deadlines: DeadlineHeap,
}

/// Per-packet timers' deadlines as (deadline, seq), earliest first, for the sender's timer
/// scan: entries go stale (the packet acknowledged, or its deadline moved) and are dropped
/// when they reach the top, so a timer event costs O(log n) per entry rather than a scan of
/// the window. Its vectors reach the size of the deadlines pending within one timeout and stay
/// there: no allocation in a steady state.
#[derive(Clone, Debug, Default)]
pub struct DeadlineHeap {
    heap: std::collections::BinaryHeap<std::cmp::Reverse<(SimTime, u64)>>,
    enabled: bool,
    /// Reused by the timer scan for the packets that expire together.
    scratch: Vec<u64>,
}

impl SlotRing {
    pub fn new(capacity: usize) -> Self {
        let cap = capacity.next_power_of_two().max(4);
        SlotRing { slots: vec![SlotInfo::default(); cap].into_boxed_slice(), marks: None }
    }

    #[inline]
    fn index(&self, seq: u64) -> usize {
        (seq & (self.slots.len() as u64 - 1)) as usize
    }

    fn marks_mut(&mut self) -> &mut SlotMarks {
        self.marks.get_or_insert_with(Default::default)
    }

    /// Keep a "sampled" mark per slot (all clear now).
    pub fn enable_sampled(&mut self) {
        let n = self.slots.len();
        self.marks_mut().sampled = vec![false; n].into_boxed_slice();
    }

    /// Whether `seq` has given its RTT sample (false when marks are not enabled).
    #[inline]
    pub fn sampled(&self, seq: u64) -> bool {
        self.marks.as_ref().and_then(|m| m.sampled.get(self.index(seq)).copied()).unwrap_or(false)
    }

    #[inline]
    pub fn set_sampled(&mut self, seq: u64, v: bool) {
        let i = self.index(seq);
        if let Some(b) = self.marks.as_mut().and_then(|m| m.sampled.get_mut(i)) {
            *b = v;
        }
    }

    /// Keep a heap of per-packet deadlines (`push_deadline`, `deadlines_mut`).
    pub fn enable_deadline_heap(&mut self) {
        self.marks_mut().deadlines.enabled = true;
    }

    /// Record that `seq`'s timer now runs to `deadline` (a heap is kept only if enabled).
    #[inline]
    pub fn push_deadline(&mut self, seq: u64, deadline: SimTime) {
        if let Some(m) = self.marks.as_mut().filter(|m| m.deadlines.enabled) {
            m.deadlines.heap.push(std::cmp::Reverse((deadline, seq)));
        }
    }

    /// The earliest deadline still running among `lo..hi` (its entry's deadline is the slot's
    /// own), dropping the stale entries above it; None when the heap is off or holds none.
    pub fn earliest_deadline(&mut self, lo: u64, hi: u64) -> Option<(SimTime, u64)> {
        loop {
            let m = self.marks.as_ref().filter(|m| m.deadlines.enabled)?;
            let std::cmp::Reverse((d, seq)) = *m.deadlines.heap.peek()?;
            if seq >= lo && seq < hi && self.slots[self.index(seq)].deadline == d {
                return Some((d, seq));
            }
            self.pop_deadline();
        }
    }

    /// Remove the heap's top entry (after `earliest_deadline` returned it).
    pub fn pop_deadline(&mut self) {
        if let Some(m) = self.marks.as_mut() {
            m.deadlines.heap.pop();
        }
    }

    /// The heap's scratch list (empty), for the caller to fill and hand back with `put_scratch`.
    pub fn take_scratch(&mut self) -> Vec<u64> {
        self.marks.as_mut().map(|m| std::mem::take(&mut m.deadlines.scratch)).unwrap_or_default()
    }

    pub fn put_scratch(&mut self, mut v: Vec<u64>) {
        v.clear();
        if let Some(m) = self.marks.as_mut() {
            m.deadlines.scratch = v;
        }
    }

    /// Keep a back-off exponent per slot (all zero now).
    pub fn enable_backoff(&mut self) {
        let n = self.slots.len();
        self.marks_mut().backoff = vec![0u8; n].into_boxed_slice();
    }

    /// Back-off exponent of `seq` (0 when back-off is not enabled).
    #[inline]
    pub fn backoff(&self, seq: u64) -> u8 {
        self.marks.as_ref().and_then(|m| m.backoff.get(self.index(seq)).copied()).unwrap_or(0)
    }

    #[inline]
    pub fn set_backoff(&mut self, seq: u64, shift: u8) {
        let i = self.index(seq);
        if let Some(b) = self.marks.as_mut().and_then(|m| m.backoff.get_mut(i)) {
            *b = shift;
        }
    }

    pub fn capacity(&self) -> u64 {
        self.slots.len() as u64
    }

    /// Make room for sequence numbers `lo..hi` (hi exclusive), keeping their contents.
    pub fn ensure(&mut self, lo: u64, hi: u64) {
        if hi - lo <= self.capacity() {
            return;
        }
        let mut cap = self.slots.len();
        while ((hi - lo) as usize) > cap {
            cap *= 2;
        }
        self.move_to(cap, lo, hi);
    }

    /// Give back room when `lo..hi`, what is outstanding now, fills a quarter of the ring or
    /// less: halve it (to at least [`SHRINK_ABOVE`] slots), so a sender holds memory for what it
    /// has in flight, not for the largest window it ever had. Growth doubles and this halves
    /// at a quarter, so a window that stays put never flaps between sizes.
    #[inline]
    pub fn shrink_to_fit(&mut self, lo: u64, hi: u64) {
        if self.slots.len() > SHRINK_ABOVE && (hi - lo) * 4 <= self.capacity() {
            self.shrink(lo, hi);
        }
    }

    #[cold]
    fn shrink(&mut self, lo: u64, hi: u64) {
        let mut cap = self.slots.len();
        while cap > SHRINK_ABOVE && (hi - lo) * 4 <= cap as u64 {
            cap /= 2;
        }
        self.move_to(cap, lo, hi);
    }

    /// Copy `lo..hi` into a ring of `cap` slots.
    fn move_to(&mut self, cap: usize, lo: u64, hi: u64) {
        let mut next = SlotRing::new(cap);
        if let Some(m) = self.marks.as_mut() {
            if !m.backoff.is_empty() {
                next.enable_backoff();
            }
            if !m.sampled.is_empty() {
                next.enable_sampled();
            }
            if m.deadlines.enabled {
                next.marks_mut().deadlines = std::mem::take(&mut m.deadlines); // keyed by seq
            }
        }
        for s in lo..hi.min(lo + self.capacity()) {
            *next.get_mut(s) = *self.get(s);
            next.set_backoff(s, self.backoff(s));
            next.set_sampled(s, self.sampled(s));
        }
        *self = next;
    }

    #[inline]
    pub fn get(&self, seq: u64) -> &SlotInfo {
        &self.slots[self.index(seq)]
    }

    #[inline]
    pub fn get_mut(&mut self, seq: u64) -> &mut SlotInfo {
        let i = self.index(seq);
        &mut self.slots[i]
    }

    pub fn memory_bytes(&self) -> usize {
        let marks = self
            .marks
            .as_ref()
            .map_or(0, |m| std::mem::size_of::<SlotMarks>() + m.backoff.len() + m.sampled.len() + m.deadlines.heap.capacity() * 16);
        self.slots.len() * std::mem::size_of::<SlotInfo>() + marks
    }
}

/// Sink-side set of sequence numbers above `base` received out of order.
#[derive(Clone, Debug)]
pub struct SeqBitmap {
    words: Vec<u64>,
    mask: u64,
}

impl SeqBitmap {
    pub fn new() -> Self {
        SeqBitmap { words: vec![0; 1], mask: 63 }
    }

    /// How many sequence numbers it can hold at once.
    pub fn bits(&self) -> u64 {
        self.mask + 1
    }

    /// Clear every bit.
    pub fn clear_all(&mut self) {
        self.words.fill(0);
    }

    /// Make `seq` addressable while `base` is the lowest sequence number that may be set.
    pub fn ensure(&mut self, base: u64, seq: u64) {
        if seq - base < self.bits() {
            return;
        }
        let mut bits = self.bits();
        while seq - base >= bits {
            bits *= 2;
        }
        let mut next = SeqBitmap { words: vec![0; (bits / 64) as usize], mask: bits - 1 };
        for s in base..base + self.bits() {
            if self.test(s) {
                next.set(s);
            }
        }
        *self = next;
    }

    #[inline]
    pub fn test(&self, seq: u64) -> bool {
        let i = seq & self.mask;
        self.words[(i >> 6) as usize] & (1 << (i & 63)) != 0
    }

    #[inline]
    pub fn set(&mut self, seq: u64) {
        let i = seq & self.mask;
        self.words[(i >> 6) as usize] |= 1 << (i & 63);
    }

    #[inline]
    pub fn clear(&mut self, seq: u64) {
        let i = seq & self.mask;
        self.words[(i >> 6) as usize] &= !(1 << (i & 63));
    }

    pub fn memory_bytes(&self) -> usize {
        self.words.capacity() * 8
    }
}

impl Default for SeqBitmap {
    fn default() -> Self {
        Self::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn ring_grows_and_keeps_contents() {
        let mut r = SlotRing::new(4);
        for s in 10..14 {
            r.get_mut(s).first_tx = s * 100;
        }
        r.ensure(10, 30);
        for s in 10..14 {
            assert_eq!(r.get(s).first_tx, s * 100);
        }
        assert!(r.capacity() >= 20);
    }
    #[test]
    fn ring_shrinks_to_what_is_outstanding_and_keeps_contents() {
        let mut r = SlotRing::new(4);
        r.enable_backoff();
        r.ensure(0, 100_000);
        assert_eq!(r.capacity(), 131_072);
        for s in 99_990..100_000 {
            r.get_mut(s).first_tx = s;
            r.set_backoff(s, (s % 7) as u8);
        }
        r.shrink_to_fit(99_990, 100_000);
        assert_eq!(r.capacity(), SHRINK_ABOVE as u64);
        for s in 99_990..100_000 {
            assert_eq!((r.get(s).first_tx, r.backoff(s)), (s, (s % 7) as u8));
        }
        // A window that fills more than a quarter keeps its ring.
        let mut r = SlotRing::new(256);
        r.shrink_to_fit(0, 65);
        assert_eq!(r.capacity(), 256);
    }
    #[test]
    fn backoff_array_is_optional_and_survives_growth() {
        let mut r = SlotRing::new(4);
        r.set_backoff(3, 5); // disabled: ignored
        assert_eq!(r.backoff(3), 0);
        r.enable_backoff();
        for s in 10..14 {
            r.set_backoff(s, s as u8);
        }
        r.ensure(10, 40);
        for s in 10..14 {
            assert_eq!(r.backoff(s), s as u8);
        }
        assert_eq!(r.backoff(20), 0);
    }
    #[test]
    fn sampled_marks_are_independent_of_backoff_and_survive_growth() {
        let mut r = SlotRing::new(4);
        r.enable_sampled();
        r.set_backoff(2, 7); // back-off not enabled: ignored even with marks present
        assert_eq!(r.backoff(2), 0);
        r.set_sampled(2, true);
        r.ensure(2, 20);
        assert!(r.sampled(2));
        assert!(!r.sampled(3));
        assert!(r.capacity() >= 18);
    }
    #[test]
    fn the_deadline_heap_drops_stale_entries_and_survives_growth() {
        let mut r = SlotRing::new(4);
        r.enable_deadline_heap();
        for (seq, d) in [(0u64, 50u64), (1, 30), (2, 40)] {
            r.get_mut(seq).deadline = d;
            r.push_deadline(seq, d);
        }
        assert_eq!(r.earliest_deadline(0, 3), Some((30, 1)));
        r.get_mut(1).deadline = 70; // resent: its old entry is stale
        r.push_deadline(1, 70);
        assert_eq!(r.earliest_deadline(0, 3), Some((40, 2)));
        r.ensure(0, 100); // growth carries the heap
        assert_eq!(r.earliest_deadline(0, 3), Some((40, 2)));
        assert_eq!(r.earliest_deadline(1, 2), Some((70, 1)), "0 and 2 acknowledged or not yet sent: skipped");
        r.pop_deadline();
        assert_eq!(r.earliest_deadline(1, 2), None);
        let mut off = SlotRing::new(4);
        off.push_deadline(0, 1);
        assert_eq!(off.earliest_deadline(0, 1), None, "no heap unless enabled");
    }

    #[test]
    fn bitmap_grows_and_keeps_bits() {
        let mut b = SeqBitmap::new();
        b.set(5);
        b.set(60);
        b.ensure(1, 500);
        b.set(500);
        assert!(b.test(5) && b.test(60) && b.test(500) && !b.test(6));
        b.clear(60);
        assert!(!b.test(60));
    }
}
