//! HEAP: the double heap of Keshav 1991 §3.4 and appendix 3.A.
//!
//! Source: thesis chapter 3 §3.4 ("Double heap"), appendix 3.A (the four arrays, `min_exchg`,
//! `min_insert`, `min_delete`, `min_adjust`), §3.5 (Table 3.1: O(log B) best, worst and
//! average); spec keshav91-fq-packet-pair.md M2.2 "Double heap details".
//!
//! Two array heaps over the same items, a min-heap (for `get_min`) and a max-heap (for the
//! overflow drop), with cross indices: `x[MIN][k]` is the position in the max-heap of the item
//! at min-heap position `k` (the thesis's `i_min`), `x[MAX][j]` the position in the min-heap
//! of the item at max-heap position `j` (`i_max`). As in the appendix, the exchange is the
//! only operation that moves an element, and it keeps the cross indices consistent.
//!
//! - insert: place the item in the last position of both heaps and sift it up in each.
//! - remove_min: exchange the root with the last position in the min-heap and the item's
//!   max-heap position with the last position in the max-heap, shrink both, then re-adjust
//!   both heaps at the positions that received a new element (appendix 3.A's `min_delete`,
//!   which overwrites the tags with +inf / -1 before exchanging; removing the last slot has
//!   the same effect). remove_max is the mirror image.
//!
//! Choices where the text is silent (the appendix code is a sketch: at the root `a/2` is 0 and
//! missing sons are read; the spec says to write a correct heap and match only the counting):
//! - 0-based arrays, parent `(k-1)/2`, sons `2k+1`, `2k+2`.
//! - Cost: one unit per exchange of two distinct positions, in either heap. A delete therefore
//!   costs up to two "move to the last slot" exchanges plus the re-adjustment exchanges; an
//!   insert costs the sift-up exchanges in both heaps (at most 2 floor(log2 n)). Placing the new
//!   item in the free last slot is not an exchange (the appendix writes it directly).
//! - Items are stored by value in both heaps (as the appendix does), with the tie-breaking
//!   insertion sequence (module header). The four vectors are preallocated; no allocation
//!   per operation below the capacity.

use super::{Bid, BoundedHeap, Item, TwinHeaps, MAX, MIN};

#[derive(Clone, Copy)]
pub(super) struct Entry {
    bid: Bid,
    seq: u64,
    conversation: u32,
    packet: u32,
}

pub struct DoubleHeap {
    /// `h[MIN]` is the min-heap, `h[MAX]` the max-heap.
    h: [Vec<Entry>; 2],
    /// `x[s][k]`: position in the other heap of the element at `h[s][k]`.
    x: [Vec<u32>; 2],
    seq: u64,
    ops: u64,
}

impl DoubleHeap {
    pub fn with_capacity(items: usize) -> Self {
        DoubleHeap {
            h: [Vec::with_capacity(items), Vec::with_capacity(items)],
            x: [Vec::with_capacity(items), Vec::with_capacity(items)],
            seq: 0,
            ops: 0,
        }
    }

    /// Remove the root of heap `s` and the same item from the other heap.
    fn remove_root(&mut self, s: usize) -> Option<Item> {
        let n = self.h[s].len();
        if n == 0 {
            return None;
        }
        let o = 1 - s;
        let last = n - 1;
        let e = self.h[s][0];
        let save = self.x[s][0] as usize;
        self.exchg(s, 0, last);
        self.exchg(o, save, last);
        for v in &mut self.h {
            v.pop();
        }
        for v in &mut self.x {
            v.pop();
        }
        self.adjust(s, 0);
        self.adjust(o, save);
        Some(Item { bid: e.bid, conversation: e.conversation, packet: e.packet })
    }

    #[cfg(test)]
    fn check_invariants(&self) {
        self.check_heap_order();
        for s in [MIN, MAX] {
            let h = &self.h[s];
            for (k, e) in h.iter().enumerate() {
                let j = self.x[s][k] as usize;
                assert_eq!(self.x[1 - s][j] as usize, k, "cross pointers");
                assert_eq!(self.h[1 - s][j].seq, e.seq, "same element");
            }
        }
    }
}

impl TwinHeaps for DoubleHeap {
    type Entry = Entry;

    #[inline(always)]
    fn key(e: &Entry) -> (Bid, u64) {
        (e.bid, e.seq)
    }

    #[inline(always)]
    fn heap(&self, s: usize) -> &[Entry] {
        &self.h[s]
    }

    /// Swaps two positions of heap `s` and the back-pointers that lead to them.
    #[inline]
    fn exchg(&mut self, s: usize, a: usize, b: usize) {
        if a == b {
            return;
        }
        self.ops += 1;
        self.h[s].swap(a, b);
        let (pa, pb) = (self.x[s][a] as usize, self.x[s][b] as usize);
        self.x[1 - s].swap(pa, pb);
        self.x[s].swap(a, b);
    }
}

impl BoundedHeap for DoubleHeap {
    fn insert(&mut self, bid: Bid, conversation: u32, packet: u32) {
        let n = self.h[MIN].len();
        let e = Entry { bid, seq: self.seq, conversation, packet };
        self.seq += 1;
        for s in [MIN, MAX] {
            self.h[s].push(e);
            self.x[s].push(n as u32);
        }
        self.sift_up(MIN, n);
        self.sift_up(MAX, n);
    }

    fn remove_min(&mut self) -> Option<Item> {
        self.remove_root(MIN)
    }

    fn remove_max(&mut self) -> Option<Item> {
        self.remove_root(MAX)
    }

    fn len(&self) -> usize {
        self.h[MIN].len()
    }
    fn cost(&self) -> u64 {
        self.ops
    }
    fn reset_cost(&mut self) {
        self.ops = 0;
    }
    fn name(&self) -> &'static str {
        "HEAP"
    }
}

#[cfg(test)]
mod tests {
    use super::super::testkit::{check_against_reference, check_ties, cost_of};
    use super::*;
    use crate::sim::Rng;

    #[test]
    fn matches_reference_sort() {
        check_against_reference(|| DoubleHeap::with_capacity(8), 3, 400, 300);
    }

    #[test]
    fn ties_are_fifo_for_min_and_lifo_for_max() {
        check_ties(DoubleHeap::with_capacity(0));
    }

    #[test]
    fn cross_pointers_stay_consistent() {
        let mut h = DoubleHeap::with_capacity(64);
        let mut rng = Rng::from_seed(5);
        for i in 0..3000u32 {
            match rng.next_u64() % 5 {
                0..=2 => h.insert((rng.next_u64() % 50) as Bid, 0, i),
                3 => {
                    h.remove_min();
                }
                _ => {
                    h.remove_max();
                }
            }
            h.check_invariants();
        }
    }

    #[test]
    fn hand_computed_costs() {
        let mut h = DoubleHeap::with_capacity(8);
        // min-heap [3], max-heap [3].
        assert_eq!(cost_of(&mut h, |h| h.insert(3, 0, 0)), 0);
        // 2 at position 1: rises above 3 in the min-heap (1 exchange); stays in the max-heap.
        assert_eq!(cost_of(&mut h, |h| h.insert(2, 0, 1)), 1);
        // min [2,3], max [3,2]. 1 at position 2: under 2 in the min-heap (1 exchange); under 3
        // in the max-heap (none).
        assert_eq!(cost_of(&mut h, |h| h.insert(1, 0, 2)), 1);
        // min [1,3,2], max [3,2,1]. 4 at position 3, whose parent is position 1: min-heap
        // parent 3 < 4 (none); max-heap parent 2 then root 3 (2 exchanges).
        assert_eq!(cost_of(&mut h, |h| h.insert(4, 0, 3)), 2);
        // min [1,3,2,4], max [4,3,1,2]. remove_min: min root <-> last (1), 4 sinks below 2
        // (1); in the max-heap item 1 sits at position 2, exchanged with last position 3 (1),
        // and the 2 that moved there stays (none). Total 3.
        h.check_invariants();
        assert_eq!(cost_of(&mut h, |h| assert_eq!(h.remove_min().unwrap().bid, 1)), 3);
        h.check_invariants();
        // min [2,3,4], max [4,3,2]. remove_max: max root <-> last (1), 2 sinks below 3 (1);
        // item 4 is last in the min-heap already (no exchange). Total 2.
        assert_eq!(cost_of(&mut h, |h| assert_eq!(h.remove_max().unwrap().bid, 4)), 2);
        h.check_invariants();
        assert_eq!(h.cost(), 9);
    }

    #[test]
    fn insert_costs_are_logarithmic() {
        // V12: at most one sift per heap, i.e. 2 floor(log2 n) exchanges.
        let mut h = DoubleHeap::with_capacity(1024);
        let mut rng = Rng::from_seed(9);
        for i in 0..1024u32 {
            let n = h.len() as f64 + 1.0;
            let c = cost_of(&mut h, |h| h.insert((rng.next_u64() % 10_000) as Bid, 0, i));
            assert!(c as f64 <= 2.0 * n.log2().floor(), "insert cost {c} at size {n}");
        }
    }

    #[test]
    fn steady_state_does_not_allocate() {
        let mut h = DoubleHeap::with_capacity(4);
        for round in 0..100u32 {
            for k in 0..4 {
                h.insert(((k * 7 + round) % 5) as Bid, k, k);
            }
            for _ in 0..2 {
                h.remove_min();
                h.remove_max();
            }
        }
        assert!(h.h.iter().all(|v| v.capacity() == 4) && h.x.iter().all(|v| v.capacity() == 4));
    }
}
