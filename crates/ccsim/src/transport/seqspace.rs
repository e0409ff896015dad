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

/// Sender-side ring of [`SlotInfo`] for sequence numbers in `[base, base + capacity)`.
///
/// Optional parallel arrays hold a per-packet timer back-off exponent (Keshav 1991 §4.4:
/// a packet's timeout doubles on each of its expiries) and a per-packet "RTT sampled" mark
/// (`RttSamples::EachPacket`). They are empty, and cost no heap, unless
/// [`SlotRing::enable_backoff`] / [`SlotRing::enable_sampled`] was called.
#[derive(Clone, Debug)]
pub struct SlotRing {
    slots: Vec<SlotInfo>,
    mask: u64,
    backoff: Box<[u8]>,
    sampled: Box<[bool]>,
}

impl SlotRing {
    pub fn new(capacity: usize) -> Self {
        let cap = capacity.next_power_of_two().max(4);
        SlotRing { slots: vec![SlotInfo::default(); cap], mask: cap as u64 - 1, backoff: Box::default(), sampled: Box::default() }
    }

    /// Keep a "sampled" mark per slot (all clear now).
    pub fn enable_sampled(&mut self) {
        self.sampled = vec![false; self.slots.len()].into_boxed_slice();
    }

    /// Whether `seq` has given its RTT sample (false when marks are not enabled).
    #[inline]
    pub fn sampled(&self, seq: u64) -> bool {
        self.sampled.get((seq & self.mask) as usize).copied().unwrap_or(false)
    }

    #[inline]
    pub fn set_sampled(&mut self, seq: u64, v: bool) {
        if let Some(b) = self.sampled.get_mut((seq & self.mask) as usize) {
            *b = v;
        }
    }

    /// Keep a back-off exponent per slot (all zero now).
    pub fn enable_backoff(&mut self) {
        self.backoff = vec![0u8; self.slots.len()].into_boxed_slice();
    }

    /// Back-off exponent of `seq` (0 when back-off is not enabled).
    #[inline]
    pub fn backoff(&self, seq: u64) -> u8 {
        self.backoff.get((seq & self.mask) as usize).copied().unwrap_or(0)
    }

    #[inline]
    pub fn set_backoff(&mut self, seq: u64, shift: u8) {
        if let Some(b) = self.backoff.get_mut((seq & self.mask) as usize) {
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
        let mut next = SlotRing::new(cap);
        if !self.backoff.is_empty() {
            next.enable_backoff();
        }
        if !self.sampled.is_empty() {
            next.enable_sampled();
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
        &self.slots[(seq & self.mask) as usize]
    }

    #[inline]
    pub fn get_mut(&mut self, seq: u64) -> &mut SlotInfo {
        &mut self.slots[(seq & self.mask) as usize]
    }

    pub fn memory_bytes(&self) -> usize {
        self.slots.capacity() * std::mem::size_of::<SlotInfo>() + self.backoff.len() + self.sampled.len()
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

    fn bits(&self) -> u64 {
        self.mask + 1
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
