//! Packet buffering for Fair Queueing: the "bounded heap" of Keshav 1991, chapter 3, and its
//! four implementations.
//!
//! Source: Keshav, "Congestion Control in Computer Networks", UC Berkeley PhD thesis, 1991,
//! chapter 3 §3.3 ("Packet buffering"), §3.4 (the four alternatives), §3.5 (the cost metric
//! and the trace-driven evaluation) and appendix 3.A (the double heap); digested in
//! shared/specs/keshav91-fq-packet-pair.md, section M2.
//!
//! # The abstract type
//!
//! A bounded heap holds packets tagged with their FQ bid number. The thesis gives it two
//! operations, `insert(root, item, conversation_ID)`, which places the item and then, while the
//! size exceeds MAX, discards the item with the largest tag, and `get_min(root)`, which removes
//! and returns the item with the smallest tag. [`BoundedHeap`] splits the first into
//! [`BoundedHeap::insert`] (place only) and [`BoundedHeap::remove_max`] (discard the largest),
//! and offers the thesis's combined operation as [`BoundedHeap::insert_bounded`];
//! [`BoundedHeap::remove_min`] is `get_min`.
//!
//! # Cost, exactly as the chapter defines it
//!
//! §3.5 (thesis L805–811, L869): "constant work is needed to add or delete a single item at a
//! known position", so the unit of work is the work of *finding* positions: **one link
//! traversal** for the ordered list and the tree, **one exchange (swap) of two elements** for
//! the heaps. The average insertion cost is `# elementary operations / # insertions in the
//! trace`; an insertion includes the drops it triggers (the thesis's insert() does the drops).
//! Here every implementation keeps a running counter, [`BoundedHeap::cost`], of these
//! elementary operations, and the caller takes differences around each call. What counts as
//! one operation in each structure is stated in its file header:
//!
//! - LINK, TREE: each list or tree node reached by following a pointer (the tail or root
//!   pointer included) counts one. Splicing a node in or out is free.
//! - HEAP, PERC: each exchange of two heap positions counts one, including the exchange that
//!   moves a deleted element to the last position (appendix 3.A's `min_exchg(1, num)`); an
//!   exchange of a position with itself moves nothing and is not counted. Placing a new
//!   element in the free last slot is not an exchange.
//!
//! # Ties
//!
//! The thesis does not say how equal bids are ordered (spec gap A11). Every implementation here
//! orders items by the key `(bid, s)`, where `s` is the item's insertion sequence number,
//! counted by the structure itself: among equal bids the earliest inserted is removed first by
//! [`BoundedHeap::remove_min`] (FIFO) and the latest inserted is dropped first by
//! [`BoundedHeap::remove_max`]. Since all four count insertions the same way, they return the
//! same items in the same order on the same operation sequence (validation target V11).
//!
//! # Preconditions
//!
//! - Conversation ids are small dense integers (PERC indexes a table by them).
//! - PERC exploits §3.3's fact 2: within a conversation bids never decrease. It requires a new
//!   item's bid to be at least the bid of the conversation's last *queued* item (an empty
//!   conversation may restart anywhere). FQ bids always satisfy this; the other three
//!   structures do not need it.
//!
//! Storage is preallocated from the capacity given at construction (`with_capacity`) and nodes
//! are recycled through free lists, so steady-state operation does not allocate.

pub mod double_heap;
pub mod evaluation;
pub mod linked_list;
pub mod per_conversation;
pub mod tree;
pub mod workload;

pub use double_heap::DoubleHeap;
pub use linked_list::OrderedList;
pub use per_conversation::PerConversation;
pub use tree::BinaryTree;

/// A bid number (FQ's tag), in FQ's round units (`fq::UNITS_PER_BIT` per bit): exact
/// integers, so the structures order equal and unequal bids exactly as FQ did.
pub type Bid = u128;

/// What a bounded heap stores and returns.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Item {
    pub bid: Bid,
    pub conversation: u32,
    /// The caller's handle for the packet (e.g. a [`crate::net::PacketId`]).
    pub packet: u32,
}

/// Null index for the linked structures.
pub(crate) const NIL: u32 = u32::MAX;

/// Strict order on `(bid, insertion sequence)`: the tie rule described in the module header.
#[inline(always)]
pub(crate) fn key_lt(bid_a: Bid, seq_a: u64, bid_b: Bid, seq_b: u64) -> bool {
    bid_a < bid_b || (bid_a == bid_b && seq_a < seq_b)
}

/// Side of a [`TwinHeaps`]: the min-heap.
const MIN: usize = 0;
/// Side of a [`TwinHeaps`]: the max-heap.
const MAX: usize = 1;

/// Two array heaps over one set of entries, a min-heap (side [`MIN`]) and a max-heap (side
/// [`MAX`]), as HEAP and PERC keep them (appendix 3.A). The only move is `exchg`, which also
/// updates the owner's position records and counts the cost; HEAP and PERC differ in what an
/// entry is and in those records, and share the sifts written here. 0-based arrays: parent
/// `(k-1)/2`, sons `2k+1` and `2k+2`.
trait TwinHeaps {
    type Entry;
    /// An entry's key: bid, then insertion sequence (see [`key_lt`]).
    fn key(e: &Self::Entry) -> (Bid, u64);
    fn heap(&self, s: usize) -> &[Self::Entry];
    /// Appendix 3.A's `min_exchg` / `max_exchg`: swap two positions of heap `s`.
    fn exchg(&mut self, s: usize, a: usize, b: usize);

    /// True if `a` belongs nearer the root than `b` in heap `s`.
    #[inline(always)]
    fn before(s: usize, a: &Self::Entry, b: &Self::Entry) -> bool {
        let ((ba, sa), (bb, sb)) = (Self::key(a), Self::key(b));
        if s == MIN {
            key_lt(ba, sa, bb, sb)
        } else {
            key_lt(bb, sb, ba, sa)
        }
    }

    /// Moves the entry at `k` towards the root while it belongs there; returns where it ends.
    fn sift_up(&mut self, s: usize, mut k: usize) -> usize {
        while k > 0 {
            let p = (k - 1) / 2;
            if Self::before(s, &self.heap(s)[k], &self.heap(s)[p]) {
                self.exchg(s, k, p);
                k = p;
            } else {
                break;
            }
        }
        k
    }

    fn sift_down(&mut self, s: usize, mut k: usize) {
        let n = self.heap(s).len();
        loop {
            let l = 2 * k + 1;
            if l >= n {
                break;
            }
            let r = l + 1;
            let h = self.heap(s);
            let c = if r < n && Self::before(s, &h[r], &h[l]) { r } else { l };
            if Self::before(s, &h[c], &h[k]) {
                self.exchg(s, k, c);
                k = c;
            } else {
                break;
            }
        }
    }

    /// Appendix 3.A's `adjust`: move the entry at `k` up or down until the heap holds.
    fn adjust(&mut self, s: usize, k: usize) {
        if k < self.heap(s).len() && self.sift_up(s, k) == k {
            self.sift_down(s, k);
        }
    }

    /// Test support: both heaps are in order.
    #[cfg(test)]
    fn check_heap_order(&self) {
        for s in [MIN, MAX] {
            let h = self.heap(s);
            for k in 1..h.len() {
                assert!(!Self::before(s, &h[k], &h[(k - 1) / 2]), "heap order");
            }
        }
    }
}

/// The bounded heap of §3.3 (see the module header for the cost and tie rules).
pub trait BoundedHeap {
    /// Place an item (no drop; see [`BoundedHeap::insert_bounded`]).
    fn insert(&mut self, bid: Bid, conversation: u32, packet: u32);
    /// Remove and return the item with the smallest key (the thesis's `get_min`).
    fn remove_min(&mut self) -> Option<Item>;
    /// Remove and return the item with the largest key (the overflow drop).
    fn remove_max(&mut self) -> Option<Item>;
    fn len(&self) -> usize;
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Elementary operations done since construction or the last [`BoundedHeap::reset_cost`].
    fn cost(&self) -> u64;
    fn reset_cost(&mut self);
    /// The thesis's name for the structure: "LINK", "TREE", "HEAP" or "PERC".
    fn name(&self) -> &'static str;

    /// The thesis's `insert()`: place the item, then drop the largest while more than `max`
    /// items are held. The new item itself may be dropped. Each dropped item is passed to
    /// `on_drop`, largest first.
    fn insert_bounded<F: FnMut(Item)>(&mut self, bid: Bid, conversation: u32, packet: u32, max: usize, mut on_drop: F)
    where
        Self: Sized,
    {
        self.insert(bid, conversation, packet);
        while self.len() > max {
            match self.remove_max() {
                Some(it) => on_drop(it),
                None => break,
            }
        }
    }
}

/// The four alternatives of §3.4.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kind {
    /// Ordered doubly linked list, scanned from the tail.
    Link,
    /// Unbalanced binary search tree.
    Tree,
    /// Double heap (appendix 3.A).
    Heap,
    /// Per-conversation FIFOs plus a min-heap of heads and a max-heap of tails.
    Perc,
}

impl Kind {
    pub const ALL: [Kind; 4] = [Kind::Link, Kind::Tree, Kind::Heap, Kind::Perc];

    pub fn name(self) -> &'static str {
        match self {
            Kind::Link => "LINK",
            Kind::Tree => "TREE",
            Kind::Heap => "HEAP",
            Kind::Perc => "PERC",
        }
    }

    /// Index into arrays ordered as [`Kind::ALL`].
    pub fn index(self) -> usize {
        self as usize
    }

    /// A new, empty structure with room for `items` items and `conversations` conversations
    /// (both only hints: the structures grow past them, allocating).
    pub fn build(self, items: usize, conversations: usize) -> AnyBuffer {
        match self {
            Kind::Link => AnyBuffer::Link(OrderedList::with_capacity(items)),
            Kind::Tree => AnyBuffer::Tree(BinaryTree::with_capacity(items)),
            Kind::Heap => AnyBuffer::Heap(DoubleHeap::with_capacity(items)),
            Kind::Perc => AnyBuffer::Perc(PerConversation::with_capacity(items, conversations)),
        }
    }
}

/// Static dispatch over the four structures (an enum, not a `dyn`, for the per-packet path).
pub enum AnyBuffer {
    Link(OrderedList),
    Tree(BinaryTree),
    Heap(DoubleHeap),
    Perc(PerConversation),
}

macro_rules! each {
    ($self:ident, $b:ident => $e:expr) => {
        match $self {
            AnyBuffer::Link($b) => $e,
            AnyBuffer::Tree($b) => $e,
            AnyBuffer::Heap($b) => $e,
            AnyBuffer::Perc($b) => $e,
        }
    };
}

impl AnyBuffer {
    pub fn kind(&self) -> Kind {
        match self {
            AnyBuffer::Link(_) => Kind::Link,
            AnyBuffer::Tree(_) => Kind::Tree,
            AnyBuffer::Heap(_) => Kind::Heap,
            AnyBuffer::Perc(_) => Kind::Perc,
        }
    }
}

impl BoundedHeap for AnyBuffer {
    #[inline]
    fn insert(&mut self, bid: Bid, conversation: u32, packet: u32) {
        each!(self, b => b.insert(bid, conversation, packet))
    }
    #[inline]
    fn remove_min(&mut self) -> Option<Item> {
        each!(self, b => b.remove_min())
    }
    #[inline]
    fn remove_max(&mut self) -> Option<Item> {
        each!(self, b => b.remove_max())
    }
    #[inline]
    fn len(&self) -> usize {
        each!(self, b => b.len())
    }
    #[inline]
    fn cost(&self) -> u64 {
        each!(self, b => b.cost())
    }
    fn reset_cost(&mut self) {
        each!(self, b => b.reset_cost())
    }
    fn name(&self) -> &'static str {
        each!(self, b => b.name())
    }
}

/// Shared test machinery: a reference model (a sorted map) and a property-style driver.
#[cfg(test)]
pub(crate) mod testkit {
    use super::*;
    use crate::sim::Rng;
    use std::collections::BTreeMap;

    /// Reference bounded heap: a sorted map on (bid, insertion sequence).
    #[derive(Default)]
    pub struct Reference {
        map: BTreeMap<(i64, u64), (u32, u32)>,
        seq: u64,
    }

    impl Reference {
        pub fn insert(&mut self, bid: i64, conv: u32, pkt: u32) {
            self.map.insert((bid, self.seq), (conv, pkt));
            self.seq += 1;
        }
        fn to_item(k: (i64, u64), v: (u32, u32)) -> Item {
            Item { bid: k.0 as Bid, conversation: v.0, packet: v.1 }
        }
        pub fn remove_min(&mut self) -> Option<Item> {
            let (&k, _) = self.map.iter().next()?;
            let v = self.map.remove(&k).unwrap();
            Some(Self::to_item(k, v))
        }
        pub fn remove_max(&mut self) -> Option<Item> {
            let (&k, _) = self.map.iter().next_back()?;
            let v = self.map.remove(&k).unwrap();
            Some(Self::to_item(k, v))
        }
        pub fn len(&self) -> usize {
            self.map.len()
        }
    }

    /// Drive `make()` and the reference with `sequences` random operation sequences of up to
    /// `max_ops` operations each and require identical results after every operation.
    ///
    /// Bids are small integers (so ties are frequent). Within a conversation they never
    /// decrease while it has items queued (the FQ property PERC relies on); a conversation
    /// whose queue is empty restarts at a random bid, possibly lower than before. Operations:
    /// insert, insert_bounded (with a random MAX), remove_min, remove_max, in random mixes
    /// that let the structures grow, shrink and empty out.
    pub fn check_against_reference<H: BoundedHeap>(make: impl Fn() -> H, seed: u64, sequences: usize, max_ops: usize) {
        let mut rng = Rng::stream(seed, "fq_buffers/property");
        let below = |rng: &mut Rng, n: u64| rng.next_u64() % n;
        for s in 0..sequences {
            let mut h = make();
            let mut r = Reference::default();
            let n_conv = 1 + below(&mut rng, 12) as u32;
            let mut last_bid = vec![0i64; n_conv as usize];
            let mut queued = vec![0usize; n_conv as usize];
            // The mix drifts between growing and draining phases.
            let p_insert = 35 + below(&mut rng, 40);
            let ops = 1 + below(&mut rng, max_ops as u64) as usize;
            let mut pkt = 0u32;
            for step in 0..ops {
                let roll = below(&mut rng, 100);
                if roll < p_insert {
                    let c = below(&mut rng, n_conv as u64) as u32;
                    let bid =
                        if queued[c as usize] == 0 { below(&mut rng, 60) as i64 } else { last_bid[c as usize] + below(&mut rng, 4) as i64 };
                    last_bid[c as usize] = bid;
                    pkt += 1;
                    if below(&mut rng, 4) == 0 {
                        let max = below(&mut rng, 20) as usize;
                        r.insert(bid, c, pkt);
                        let mut want = Vec::new();
                        while r.len() > max {
                            want.push(r.remove_max().unwrap());
                        }
                        let mut got = Vec::new();
                        h.insert_bounded(bid as Bid, c, pkt, max, |it| got.push(it));
                        assert_eq!(got, want, "{}: sequence {s} step {step}: bounded insert drops", h.name());
                        queued[c as usize] += 1;
                        for it in &got {
                            queued[it.conversation as usize] -= 1;
                        }
                    } else {
                        r.insert(bid, c, pkt);
                        h.insert(bid as Bid, c, pkt);
                        queued[c as usize] += 1;
                    }
                } else {
                    let (got, want) = if roll < p_insert + (100 - p_insert) * 2 / 3 {
                        (h.remove_min(), r.remove_min())
                    } else {
                        (h.remove_max(), r.remove_max())
                    };
                    assert_eq!(got, want, "{}: sequence {s} step {step}", h.name());
                    if let Some(it) = got {
                        queued[it.conversation as usize] -= 1;
                    }
                }
                assert_eq!(h.len(), r.len(), "{}: sequence {s} step {step}: len", h.name());
            }
            // Drain in order.
            loop {
                let (got, want) = (h.remove_min(), r.remove_min());
                assert_eq!(got, want, "{}: sequence {s}: drain", h.name());
                if got.is_none() {
                    break;
                }
            }
            assert!(h.is_empty());
        }
    }

    /// Ties: equal bids leave FIFO by remove_min and LIFO by remove_max.
    pub fn check_ties<H: BoundedHeap>(mut h: H) {
        for (i, c) in [3u32, 1, 2, 0].iter().enumerate() {
            h.insert(7, *c, i as u32);
        }
        let order: Vec<u32> = std::iter::from_fn(|| h.remove_min()).map(|it| it.packet).collect();
        assert_eq!(order, vec![0, 1, 2, 3], "{}: FIFO among equal bids", h.name());
        for (i, c) in [3u32, 1, 2, 0].iter().enumerate() {
            h.insert(7, *c, i as u32);
        }
        let order: Vec<u32> = std::iter::from_fn(|| h.remove_max()).map(|it| it.packet).collect();
        assert_eq!(order, vec![3, 2, 1, 0], "{}: latest equal bid dropped first", h.name());
    }

    /// Cost of one call, as a difference of the running counter.
    pub fn cost_of<H: BoundedHeap, R>(h: &mut H, f: impl FnOnce(&mut H) -> R) -> u64 {
        let before = h.cost();
        f(h);
        h.cost() - before
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn all_four_agree_through_any_buffer() {
        for k in Kind::ALL {
            testkit::check_against_reference(|| k.build(4, 2), 99, 60, 200);
            assert_eq!(k.build(0, 0).name(), k.name());
            assert_eq!(k.build(0, 0).kind(), k);
        }
    }
}
