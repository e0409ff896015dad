//! LINK: the ordered linked list of Keshav 1991 §3.4 ("Ordered list").
//!
//! Source: thesis chapter 3 §3.4 and §3.5 (Table 3.1: best O(1), worst O(B), average O(B) on a
//! uniformly random workload); spec keshav91-fq-packet-pair.md M2.2.
//!
//! One list of all buffered packets sorted by bid. Bids rise over time within each
//! conversation, so insertion scans "linearly ... from the largest tag value": the scan starts
//! at the tail and walks towards the head to the insertion point. `get_min` takes the head and
//! the overflow drop takes the tail, both O(1).
//!
//! Choices where the text is silent:
//! - The list is doubly linked (the backward scan and the tail removal need `prev` links).
//! - Cost: one unit per node reached during the insertion scan (the first through the tail
//!   pointer, the others through `prev` links). Inserting into an empty list costs 0;
//!   appending after the tail costs 1 (the tail is examined); inserting before all k nodes
//!   costs k. remove_min and remove_max reach their node through the head or tail pointer
//!   and splice it out: "a single item at a known position", cost 0.
//! - Ties (module header): the scan stops at the first node whose bid is <= the new bid, so a
//!   new item goes after all items of equal bid.
//! - Nodes live in one vector and are recycled through a free list: no allocation per
//!   operation once the list has reached its largest size.

use super::{Bid, BoundedHeap, Item, NIL};

#[derive(Clone, Copy)]
struct Node {
    bid: Bid,
    conversation: u32,
    packet: u32,
    prev: u32,
    /// Next node in the list; for a free node, the next free node.
    next: u32,
}

pub struct OrderedList {
    nodes: Vec<Node>,
    free: u32,
    head: u32,
    tail: u32,
    len: usize,
    ops: u64,
}

impl OrderedList {
    pub fn with_capacity(items: usize) -> Self {
        OrderedList { nodes: Vec::with_capacity(items), free: NIL, head: NIL, tail: NIL, len: 0, ops: 0 }
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

    /// Splice node `i` out and put it on the free list.
    fn unlink(&mut self, i: u32) -> Item {
        let n = self.nodes[i as usize];
        if n.prev != NIL {
            self.nodes[n.prev as usize].next = n.next;
        } else {
            self.head = n.next;
        }
        if n.next != NIL {
            self.nodes[n.next as usize].prev = n.prev;
        } else {
            self.tail = n.prev;
        }
        self.nodes[i as usize].next = self.free;
        self.free = i;
        self.len -= 1;
        Item { bid: n.bid, conversation: n.conversation, packet: n.packet }
    }
}

impl BoundedHeap for OrderedList {
    fn insert(&mut self, bid: Bid, conversation: u32, packet: u32) {
        // Scan from the tail for the last node with bid <= the new bid.
        let mut at = self.tail;
        while at != NIL {
            self.ops += 1;
            if self.nodes[at as usize].bid <= bid {
                break;
            }
            at = self.nodes[at as usize].prev;
        }
        // Insert after `at` (or at the head if the scan ran off the front).
        let next = if at == NIL { self.head } else { self.nodes[at as usize].next };
        let i = self.alloc(Node { bid, conversation, packet, prev: at, next });
        if at == NIL {
            self.head = i;
        } else {
            self.nodes[at as usize].next = i;
        }
        if next == NIL {
            self.tail = i;
        } else {
            self.nodes[next as usize].prev = i;
        }
        self.len += 1;
    }

    fn remove_min(&mut self) -> Option<Item> {
        (self.head != NIL).then(|| self.unlink(self.head))
    }

    fn remove_max(&mut self) -> Option<Item> {
        (self.tail != NIL).then(|| self.unlink(self.tail))
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
        "LINK"
    }
}

#[cfg(test)]
mod tests {
    use super::super::testkit::{check_against_reference, check_ties, cost_of};
    use super::*;

    #[test]
    fn matches_reference_sort() {
        check_against_reference(|| OrderedList::with_capacity(8), 1, 400, 300);
    }

    #[test]
    fn ties_are_fifo_for_min_and_lifo_for_max() {
        check_ties(OrderedList::with_capacity(0));
    }

    #[test]
    fn hand_computed_costs() {
        let mut l = OrderedList::with_capacity(8);
        assert_eq!(cost_of(&mut l, |l| l.insert(10, 0, 0)), 0); // empty list
        assert_eq!(cost_of(&mut l, |l| l.insert(20, 0, 1)), 1); // after the tail
        assert_eq!(cost_of(&mut l, |l| l.insert(30, 0, 2)), 1);
        assert_eq!(cost_of(&mut l, |l| l.insert(15, 1, 3)), 3); // 30, 20, then 10 <= 15
        assert_eq!(cost_of(&mut l, |l| l.insert(5, 2, 4)), 4); // all four examined
        assert_eq!(cost_of(&mut l, |l| l.insert(30, 3, 5)), 1); // tie with the tail: after it
        assert_eq!(cost_of(&mut l, |l| assert_eq!(l.remove_min().unwrap().packet, 4)), 0);
        assert_eq!(cost_of(&mut l, |l| assert_eq!(l.remove_max().unwrap().packet, 5)), 0);
        assert_eq!(l.cost(), 10);
        l.reset_cost();
        assert_eq!(l.cost(), 0);
    }

    #[test]
    fn steady_state_does_not_allocate() {
        let mut l = OrderedList::with_capacity(4);
        for round in 0..100u32 {
            for k in 0..4 {
                l.insert((round * 4 + k) as Bid, k, k);
            }
            for _ in 0..4 {
                l.remove_min();
            }
        }
        assert_eq!(l.nodes.capacity(), 4);
    }
}
