//! TREE: the plain binary search tree of Keshav 1991 §3.4 ("Binary tree").
//!
//! Source: thesis chapter 3 §3.4 and §3.5 (Table 3.1: best O(1), worst O(B), average
//! O(log B) on a uniformly random workload); spec keshav91-fq-packet-pair.md M2.2.
//!
//! An unbalanced binary search tree on the bid. The thesis chose it as "simple to implement"
//! with "good average performance", and notes that nearly monotonic bids skew it so that
//! insertion "may become almost linear". It deliberately does not balance the tree
//! (self-balancing trees are taken to cost about as much as heaps).
//!
//! Choices where the text is silent:
//! - §3.5 says `get_min` costs a constant for trees. That holds only if the tree keeps a
//!   pointer to its smallest node, so this tree keeps pointers to both its smallest and its
//!   largest node (for the overflow drop), and parent links.
//! - Cost: one unit per node reached by following a pointer. insert() descends from the root:
//!   its cost is the number of nodes it compares against, i.e. the depth at which the new node
//!   lands (0 for an empty tree). remove_min() reaches the smallest node through its cached
//!   pointer (free), splices it out (free), then finds the new smallest node: either the
//!   leftmost node of the removed node's right subtree (one unit for the right link plus one
//!   per left link followed) or its parent (one unit). remove_max() mirrors this. These
//!   deletion costs are counted honestly although the thesis calls them constant; they are
//!   small on FQ workloads.
//! - Ties (module header): an item whose bid equals a node's goes to that node's right, so
//!   among equal bids the earliest inserted is leftmost. (The new item always has the largest
//!   insertion sequence, so comparing bids alone gives the `(bid, sequence)` order and the
//!   sequence need not be stored.)
//! - Nodes live in one vector and are recycled through a free list: no allocation per
//!   operation once the tree has reached its largest size.

use super::{Bid, BoundedHeap, Item, NIL};

#[derive(Clone, Copy)]
struct Node {
    bid: Bid,
    conversation: u32,
    packet: u32,
    left: u32,
    right: u32,
    /// Parent node; for a free node, the next free node.
    parent: u32,
}

pub struct BinaryTree {
    nodes: Vec<Node>,
    free: u32,
    root: u32,
    min: u32,
    max: u32,
    len: usize,
    ops: u64,
}

impl BinaryTree {
    pub fn with_capacity(items: usize) -> Self {
        BinaryTree { nodes: Vec::with_capacity(items), free: NIL, root: NIL, min: NIL, max: NIL, len: 0, ops: 0 }
    }

    fn alloc(&mut self, node: Node) -> u32 {
        if self.free != NIL {
            let i = self.free;
            self.free = self.nodes[i as usize].parent;
            self.nodes[i as usize] = node;
            i
        } else {
            self.nodes.push(node);
            (self.nodes.len() - 1) as u32
        }
    }

    fn release(&mut self, i: u32) -> Item {
        let n = self.nodes[i as usize];
        self.nodes[i as usize].parent = self.free;
        self.free = i;
        self.len -= 1;
        Item { bid: n.bid, conversation: n.conversation, packet: n.packet }
    }

    /// Make `new` take `old`'s place under `parent` (or as the root).
    fn replace_child(&mut self, parent: u32, old: u32, new: u32) {
        if parent == NIL {
            self.root = new;
        } else if self.nodes[parent as usize].left == old {
            self.nodes[parent as usize].left = new;
        } else {
            self.nodes[parent as usize].right = new;
        }
        if new != NIL {
            self.nodes[new as usize].parent = parent;
        }
    }

    /// Height of the tree in nodes (for tests and diagnostics; not counted, not hot).
    pub fn height(&self) -> usize {
        let mut best = 0;
        let mut stack = Vec::new();
        if self.root != NIL {
            stack.push((self.root, 1));
        }
        while let Some((i, d)) = stack.pop() {
            best = best.max(d);
            let n = self.nodes[i as usize];
            for c in [n.left, n.right] {
                if c != NIL {
                    stack.push((c, d + 1));
                }
            }
        }
        best
    }

    /// Removes the minimum (`max` false: the leftmost node) or the maximum (`max` true: the
    /// rightmost), mirror images of each other. The end node has no child on its own side; its
    /// other child takes its place, and the new end is the far end of that child's subtree
    /// or, without one, the parent. Cost: one unit per pointer followed to find the new end.
    fn remove_end(&mut self, max: bool) -> Option<Item> {
        let m = if max { self.max } else { self.min };
        if m == NIL {
            return None;
        }
        if self.len == 1 {
            self.root = NIL;
            self.min = NIL;
            self.max = NIL;
            return Some(self.release(m));
        }
        // (child toward the end, the other child)
        let sides = |n: &Node| if max { (n.right, n.left) } else { (n.left, n.right) };
        let n = self.nodes[m as usize];
        let (toward, away) = sides(&n);
        debug_assert_eq!(toward, NIL);
        self.replace_child(n.parent, m, away);
        self.ops += 1;
        let new_end = if away != NIL {
            let mut cur = away;
            while sides(&self.nodes[cur as usize]).0 != NIL {
                self.ops += 1;
                cur = sides(&self.nodes[cur as usize]).0;
            }
            cur
        } else {
            n.parent
        };
        if max {
            self.max = new_end;
        } else {
            self.min = new_end;
        }
        Some(self.release(m))
    }
}

impl BoundedHeap for BinaryTree {
    fn insert(&mut self, bid: Bid, conversation: u32, packet: u32) {
        let i = self.alloc(Node { bid, conversation, packet, left: NIL, right: NIL, parent: NIL });
        self.len += 1;
        if self.root == NIL {
            self.root = i;
            self.min = i;
            self.max = i;
            return;
        }
        let mut cur = self.root;
        loop {
            self.ops += 1;
            let c = &mut self.nodes[cur as usize];
            let slot = if bid < c.bid { &mut c.left } else { &mut c.right };
            if *slot == NIL {
                *slot = i;
                break;
            }
            cur = *slot;
        }
        self.nodes[i as usize].parent = cur;
        if bid < self.nodes[self.min as usize].bid {
            self.min = i;
        }
        if bid >= self.nodes[self.max as usize].bid {
            self.max = i;
        }
    }

    fn remove_min(&mut self) -> Option<Item> {
        self.remove_end(false)
    }

    fn remove_max(&mut self) -> Option<Item> {
        self.remove_end(true)
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
        "TREE"
    }
}

#[cfg(test)]
mod tests {
    use super::super::testkit::{check_against_reference, check_ties, cost_of};
    use super::*;

    #[test]
    fn matches_reference_sort() {
        check_against_reference(|| BinaryTree::with_capacity(8), 2, 400, 300);
    }

    #[test]
    fn ties_are_fifo_for_min_and_lifo_for_max() {
        check_ties(BinaryTree::with_capacity(0));
    }

    #[test]
    fn hand_computed_costs() {
        let mut t = BinaryTree::with_capacity(8);
        assert_eq!(cost_of(&mut t, |t| t.insert(10, 0, 0)), 0); // becomes the root
        assert_eq!(cost_of(&mut t, |t| t.insert(20, 0, 1)), 1); // 10 -> right
        assert_eq!(cost_of(&mut t, |t| t.insert(30, 0, 2)), 2); // 10, 20 -> right
        assert_eq!(cost_of(&mut t, |t| t.insert(15, 1, 3)), 2); // 10, 20 -> left
        assert_eq!(cost_of(&mut t, |t| t.insert(5, 2, 4)), 1); // 10 -> left

        // Smallest is 5, a leaf under 10: the new smallest is its parent (one link).
        assert_eq!(cost_of(&mut t, |t| assert_eq!(t.remove_min().unwrap().packet, 4)), 1);
        // Smallest is the root 10: the new smallest is the leftmost of its right subtree,
        // 20 then 15 (two links).
        assert_eq!(cost_of(&mut t, |t| assert_eq!(t.remove_min().unwrap().packet, 0)), 2);
        // Largest is 30, a leaf under 20: the new largest is its parent (one link).
        assert_eq!(cost_of(&mut t, |t| assert_eq!(t.remove_max().unwrap().packet, 2)), 1);
        assert_eq!(t.cost(), 10);
    }

    #[test]
    fn monotone_bids_make_a_linear_tree() {
        // §3.4: "monotonic tag values can skew the tree heavily to one side".
        let mut t = BinaryTree::with_capacity(100);
        let mut total = 0;
        for k in 0..100u32 {
            total += cost_of(&mut t, |t| t.insert(k as Bid, 0, k));
        }
        assert_eq!(t.height(), 100);
        assert_eq!(total, (0..100).sum::<u64>());
    }

    #[test]
    fn steady_state_does_not_allocate() {
        let mut t = BinaryTree::with_capacity(4);
        for round in 0..100u32 {
            for k in 0..4 {
                t.insert(((k * 7 + round) % 5) as Bid, k, k);
            }
            for _ in 0..2 {
                t.remove_min();
                t.remove_max();
            }
        }
        assert_eq!(t.nodes.capacity(), 4);
    }
}
