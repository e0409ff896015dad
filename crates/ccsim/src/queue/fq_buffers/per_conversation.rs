//! PERC: per-conversation queues plus heaps, Keshav 1991 §3.4 ("Per-conversation queue").
//!
//! Source: thesis chapter 3 §3.3 (fact 2: "within each conversation, the bid numbers are
//! strictly monotonically increasing"), §3.4, §3.5 (Table 3.1: O(log N) best, worst and
//! average, N the number of conversations); spec keshav91-fq-packet-pair.md M2.2.
//!
//! Packets are queued FIFO per conversation; since bids rise within a conversation, each
//! FIFO is sorted. Two heaps hold one entry per backlogged conversation: a min-heap keyed on
//! the bid of the conversation's head and a max-heap keyed on the bid of its tail. insert()
//! appends to the conversation's FIFO and updates the max-heap (and the min-heap when the
//! conversation was empty); get_min() takes the conversation at the root of the min-heap,
//! dequeues its head and re-keys it; the overflow drop takes the conversation at the root of
//! the max-heap and drops its tail. The heaps have at most N entries, hence O(log N).
//!
//! Choices where the text is silent:
//! - The thesis names the heaps and the FIFOs but not how they are linked. Here each heap is
//!   an array of (key, conversation) and each conversation records its position in both heaps
//!   (the same role as appendix 3.A's cross pointers), so an entry can be re-keyed or removed
//!   in place.
//! - Cost: one unit per exchange of two distinct heap positions, as for HEAP (same counting
//!   rules: re-keying sifts by exchanges; removing a conversation that has emptied exchanges
//!   its entry with the last one, then re-adjusts). FIFO appends and removals touch known
//!   positions and are free.
//! - A conversation becomes a heap entry when its FIFO becomes non-empty and leaves both heaps
//!   when it empties.
//! - The FIFOs are doubly linked lists in one shared node vector with a free list (the drop
//!   removes a tail); per-conversation records live in a vector indexed by conversation id,
//!   grown when a larger id first appears. No allocation per operation in steady state.
//! - Precondition (module header): a new item's bid is >= the bid of its conversation's last
//!   queued item (checked by `debug_assert`).

use super::{Bid, BoundedHeap, Item, TwinHeaps, MAX, MIN, NIL};

#[derive(Clone, Copy)]
struct Node {
    bid: Bid,
    seq: u64,
    packet: u32,
    prev: u32,
    /// Next node in the FIFO; for a free node, the next free node.
    next: u32,
}

#[derive(Clone, Copy)]
struct Conv {
    head: u32,
    tail: u32,
    /// Position in the min-heap and in the max-heap (NIL while the FIFO is empty).
    pos: [u32; 2],
}

const EMPTY: Conv = Conv { head: NIL, tail: NIL, pos: [NIL, NIL] };

#[derive(Clone, Copy)]
pub(super) struct HeapEntry {
    bid: Bid,
    seq: u64,
    conversation: u32,
}

pub struct PerConversation {
    nodes: Vec<Node>,
    free: u32,
    convs: Vec<Conv>,
    /// `h[MIN]` keyed on FIFO heads, `h[MAX]` keyed on FIFO tails.
    h: [Vec<HeapEntry>; 2],
    len: usize,
    seq: u64,
    ops: u64,
}

impl PerConversation {
    pub fn with_capacity(items: usize, conversations: usize) -> Self {
        PerConversation {
            nodes: Vec::with_capacity(items),
            free: NIL,
            convs: vec![EMPTY; conversations],
            h: [Vec::with_capacity(conversations), Vec::with_capacity(conversations)],
            len: 0,
            seq: 0,
            ops: 0,
        }
    }

    /// Number of backlogged conversations (entries in each heap).
    pub fn backlogged(&self) -> usize {
        self.h[MIN].len()
    }

    fn alloc(&mut self, node: Node) -> u32 {
        if self.free != NIL {
            let i = self.free;
            self.free = self.nodes[i as usize].next;
            self.nodes[i as usize] = node;
            i
        } else {
            self.nodes.push(node);
            (self.nodes.len() - 1) as u32
        }
    }

    fn release(&mut self, i: u32, conversation: u32) -> Item {
        let n = self.nodes[i as usize];
        self.nodes[i as usize].next = self.free;
        self.free = i;
        self.len -= 1;
        Item { bid: n.bid, conversation, packet: n.packet }
    }

    fn push(&mut self, s: usize, e: HeapEntry) {
        let n = self.h[s].len();
        self.h[s].push(e);
        self.convs[e.conversation as usize].pos[s] = n as u32;
        self.sift_up(s, n);
    }

    fn remove_at(&mut self, s: usize, p: usize) {
        let last = self.h[s].len() - 1;
        self.exchg(s, p, last);
        let gone = self.h[s].pop().unwrap();
        self.convs[gone.conversation as usize].pos[s] = NIL;
        self.adjust(s, p);
    }

    /// A conversation's FIFO has just emptied: take it out of both heaps.
    fn retire(&mut self, c: u32) {
        let conv = self.convs[c as usize];
        self.remove_at(MIN, conv.pos[MIN] as usize);
        let p = self.convs[c as usize].pos[MAX] as usize;
        self.remove_at(MAX, p);
    }

    #[cfg(test)]
    fn check_invariants(&self) {
        self.check_heap_order();
        for s in [MIN, MAX] {
            let h = &self.h[s];
            for (k, e) in h.iter().enumerate() {
                let c = self.convs[e.conversation as usize];
                assert_eq!(c.pos[s] as usize, k, "position index");
                let end = if s == MIN { c.head } else { c.tail };
                assert_eq!(self.nodes[end as usize].seq, e.seq, "key is the FIFO end");
            }
        }
    }
}

impl TwinHeaps for PerConversation {
    type Entry = HeapEntry;

    #[inline(always)]
    fn key(e: &HeapEntry) -> (Bid, u64) {
        (e.bid, e.seq)
    }

    #[inline(always)]
    fn heap(&self, s: usize) -> &[HeapEntry] {
        &self.h[s]
    }

    /// Swaps two positions of heap `s` and records the conversations' new positions.
    #[inline]
    fn exchg(&mut self, s: usize, a: usize, b: usize) {
        if a == b {
            return;
        }
        self.ops += 1;
        self.h[s].swap(a, b);
        self.convs[self.h[s][a].conversation as usize].pos[s] = a as u32;
        self.convs[self.h[s][b].conversation as usize].pos[s] = b as u32;
    }
}

impl BoundedHeap for PerConversation {
    fn insert(&mut self, bid: Bid, conversation: u32, packet: u32) {
        let c = conversation as usize;
        if c >= self.convs.len() {
            self.convs.resize(c + 1, EMPTY);
        }
        let seq = self.seq;
        self.seq += 1;
        let tail = self.convs[c].tail;
        let i = self.alloc(Node { bid, seq, packet, prev: tail, next: NIL });
        self.len += 1;
        let e = HeapEntry { bid, seq, conversation };
        if tail == NIL {
            self.convs[c].head = i;
            self.convs[c].tail = i;
            self.push(MIN, e);
            self.push(MAX, e);
        } else {
            debug_assert!(bid >= self.nodes[tail as usize].bid, "PERC needs non-decreasing bids within a conversation");
            self.nodes[tail as usize].next = i;
            self.convs[c].tail = i;
            let p = self.convs[c].pos[MAX] as usize;
            self.h[MAX][p] = e;
            self.sift_up(MAX, p);
        }
    }

    fn remove_min(&mut self) -> Option<Item> {
        let c = self.h[MIN].first()?.conversation;
        let i = self.convs[c as usize].head;
        let next = self.nodes[i as usize].next;
        self.convs[c as usize].head = next;
        if next == NIL {
            self.convs[c as usize].tail = NIL;
            self.retire(c);
        } else {
            self.nodes[next as usize].prev = NIL;
            let n = self.nodes[next as usize];
            self.h[MIN][0] = HeapEntry { bid: n.bid, seq: n.seq, conversation: c };
            self.sift_down(MIN, 0);
        }
        Some(self.release(i, c))
    }

    fn remove_max(&mut self) -> Option<Item> {
        let c = self.h[MAX].first()?.conversation;
        let i = self.convs[c as usize].tail;
        let prev = self.nodes[i as usize].prev;
        self.convs[c as usize].tail = prev;
        if prev == NIL {
            self.convs[c as usize].head = NIL;
            self.retire(c);
        } else {
            self.nodes[prev as usize].next = NIL;
            let n = self.nodes[prev as usize];
            self.h[MAX][0] = HeapEntry { bid: n.bid, seq: n.seq, conversation: c };
            self.sift_down(MAX, 0);
        }
        Some(self.release(i, c))
    }

    fn len(&self) -> usize {
        self.len
    }
    fn cost(&self) -> u64 {
        self.ops
    }
    fn reset_cost(&mut self) {
        self.ops = 0;
    }
    fn name(&self) -> &'static str {
        "PERC"
    }
}

#[cfg(test)]
mod tests {
    use super::super::testkit::{check_against_reference, check_ties, cost_of};
    use super::*;
    use crate::sim::Rng;

    #[test]
    fn matches_reference_sort() {
        check_against_reference(|| PerConversation::with_capacity(8, 2), 4, 400, 300);
    }

    #[test]
    fn ties_are_fifo_for_min_and_lifo_for_max() {
        check_ties(PerConversation::with_capacity(0, 0));
    }

    #[test]
    fn heaps_stay_consistent() {
        let mut p = PerConversation::with_capacity(64, 8);
        let mut rng = Rng::from_seed(6);
        let mut last = [0u64; 8];
        for i in 0..3000u32 {
            match rng.next_u64() % 5 {
                0..=2 => {
                    let c = (rng.next_u64() % 8) as usize;
                    last[c] += rng.next_u64() % 7;
                    p.insert(last[c] as Bid, c as u32, i);
                }
                3 => {
                    p.remove_min();
                }
                _ => {
                    p.remove_max();
                }
            }
            p.check_invariants();
        }
    }

    #[test]
    fn hand_computed_costs() {
        let mut p = PerConversation::with_capacity(8, 3);
        // Conversation 0 becomes backlogged: one entry in each heap, no exchange.
        assert_eq!(cost_of(&mut p, |p| p.insert(10, 0, 0)), 0);
        // Conversation 1 (head = tail = 5): rises in the min-heap (1), not in the max-heap.
        assert_eq!(cost_of(&mut p, |p| p.insert(5, 1, 1)), 1);
        // min [c1:5, c0:10], max [c0:10, c1:5]. Conversation 1's tail becomes 20: it rises to
        // the max-heap root (1); the min-heap is untouched.
        assert_eq!(cost_of(&mut p, |p| p.insert(20, 1, 2)), 1);
        // Same conversation again: already at the root, no exchange.
        assert_eq!(cost_of(&mut p, |p| p.insert(30, 1, 3)), 0);
        assert_eq!(p.backlogged(), 2);
        // get_min: c1's head 5 leaves; its new head 20 sinks below c0:10 (1).
        assert_eq!(cost_of(&mut p, |p| assert_eq!(p.remove_min().unwrap().packet, 1)), 1);
        // get_min: c0's only packet leaves; c0 is removed from the min-heap (root <-> last,
        // 1) and from the max-heap (it is at the last position there: none). Total 1.
        assert_eq!(cost_of(&mut p, |p| assert_eq!(p.remove_min().unwrap().packet, 0)), 1);
        assert_eq!(p.backlogged(), 1);
        // Drop: c1's tail 30 leaves; c1 stays backlogged with tail 20, a single entry.
        assert_eq!(cost_of(&mut p, |p| assert_eq!(p.remove_max().unwrap().packet, 3)), 0);
        p.check_invariants();
        assert_eq!(p.cost(), 4);
    }

    #[test]
    fn costs_depend_on_conversations_not_buffers() {
        // V12: with N conversations, an insert costs at most 2 floor(log2 N) exchanges, however
        // many packets are queued.
        let n = 16u32;
        let mut p = PerConversation::with_capacity(4096, n as usize);
        let mut rng = Rng::from_seed(10);
        let mut last = vec![0u64; n as usize];
        let mut worst = 0;
        for i in 0..4000u32 {
            let c = (rng.next_u64() % n as u64) as usize;
            last[c] += 1 + rng.next_u64() % 100;
            worst = worst.max(cost_of(&mut p, |p| p.insert(last[c] as Bid, c as u32, i)));
        }
        assert!(p.len() == 4000 && worst <= 2 * 4, "worst insert {worst}");
    }

    #[test]
    fn steady_state_does_not_allocate() {
        let mut p = PerConversation::with_capacity(4, 4);
        for round in 0..100u32 {
            for k in 0..4 {
                p.insert((round * 10 + k) as Bid, k, k);
            }
            for _ in 0..2 {
                p.remove_min();
                p.remove_max();
            }
        }
        assert!(p.nodes.capacity() == 4 && p.convs.capacity() == 4 && p.h.iter().all(|v| v.capacity() == 4));
    }
}
