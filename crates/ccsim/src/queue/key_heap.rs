//! An indexed binary min-heap of conversation ids, for Fair Queueing's three orders over
//! conversations (active ones by F^α, backlogged ones by head bid, drop candidates by victim
//! key) and Virtual Clock's two (backlogged ones by head stamp, drop candidates).
//!
//! Source: none in the thesis beyond §3.3's remark that the round-number computation keeps
//! the finish numbers "in a heap" (O(log N_ac) per step). The heap is ours: keys are stored
//! inline beside the id (no indirection on a comparison), and each conversation records its
//! own position in each heap, in a field a [`Slot`] names, so that a key can change and an
//! entry can leave in O(log n) without a search and without hashing. Ties between equal keys
//! go to the smaller id: the order is total, so runs are reproducible.

/// Position value of a conversation that is not in a heap.
pub(crate) const NONE: u32 = u32::MAX;

/// Where an item keeps its position in one particular heap.
pub(crate) trait Slot {
    type Item;
    fn pos(item: &mut Self::Item) -> &mut u32;
}

/// Binary min-heap of ids (indices into a slice of items) keyed by `K`, ties broken by id.
pub(crate) struct KeyHeap<K> {
    v: Vec<(K, u32)>,
}

impl<K: Ord + Copy> KeyHeap<K> {
    pub(crate) fn new() -> Self {
        KeyHeap { v: Vec::new() }
    }

    #[inline]
    pub(crate) fn len(&self) -> usize {
        self.v.len()
    }

    /// The id with the smallest key.
    #[inline]
    pub(crate) fn top(&self) -> Option<u32> {
        self.v.first().map(|e| e.1)
    }

    /// The smallest key and its id.
    #[inline]
    pub(crate) fn top_entry(&self) -> Option<&(K, u32)> {
        self.v.first()
    }

    #[inline]
    fn place<S: Slot>(&mut self, items: &mut [S::Item], i: usize, e: (K, u32)) {
        self.v[i] = e;
        *S::pos(&mut items[e.1 as usize]) = i as u32;
    }

    /// Returns the final position.
    #[inline]
    fn sift_up<S: Slot>(&mut self, items: &mut [S::Item], mut i: usize) -> usize {
        let e = self.v[i];
        while i > 0 {
            let p = (i - 1) / 2;
            if e < self.v[p] {
                let pe = self.v[p];
                self.place::<S>(items, i, pe);
                i = p;
            } else {
                break;
            }
        }
        self.place::<S>(items, i, e);
        i
    }

    #[inline]
    fn sift_down<S: Slot>(&mut self, items: &mut [S::Item], mut i: usize) {
        let e = self.v[i];
        let n = self.v.len();
        loop {
            let l = 2 * i + 1;
            if l >= n {
                break;
            }
            let c = if l + 1 < n && self.v[l + 1] < self.v[l] { l + 1 } else { l };
            if self.v[c] < e {
                let ce = self.v[c];
                self.place::<S>(items, i, ce);
                i = c;
            } else {
                break;
            }
        }
        self.place::<S>(items, i, e);
    }

    #[inline]
    fn fix<S: Slot>(&mut self, items: &mut [S::Item], i: usize) {
        if self.sift_up::<S>(items, i) == i {
            self.sift_down::<S>(items, i);
        }
    }

    #[inline]
    pub(crate) fn push<S: Slot>(&mut self, items: &mut [S::Item], id: u32, key: K) {
        self.v.push((key, id));
        let i = self.v.len() - 1;
        self.sift_up::<S>(items, i);
    }

    #[inline]
    pub(crate) fn remove<S: Slot>(&mut self, items: &mut [S::Item], id: u32) {
        let i = std::mem::replace(S::pos(&mut items[id as usize]), NONE) as usize;
        let last = self.v.pop().unwrap();
        if i < self.v.len() {
            self.v[i] = last;
            self.fix::<S>(items, i);
        }
    }

    /// Change the key of an id in the heap.
    #[inline]
    pub(crate) fn set<S: Slot>(&mut self, items: &mut [S::Item], id: u32, key: K) {
        let i = *S::pos(&mut items[id as usize]) as usize;
        self.v[i].0 = key;
        self.fix::<S>(items, i);
    }

    pub(crate) fn capacity_bytes(&self) -> usize {
        self.v.capacity() * std::mem::size_of::<(K, u32)>()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::Rng;

    struct Pos;
    impl Slot for Pos {
        type Item = u32;
        fn pos(item: &mut u32) -> &mut u32 {
            item
        }
    }

    #[test]
    fn keys_change_and_ids_leave_in_order() {
        // Against a plain list: random pushes, key changes and removals; the top is always the
        // smallest (key, id) and every recorded position points at its own entry.
        let mut rng = Rng::from_seed(5);
        let mut heap: KeyHeap<u64> = KeyHeap::new();
        let mut pos = vec![NONE; 50];
        let mut keys: Vec<Option<u64>> = vec![None; 50];
        for _ in 0..20_000 {
            let id = (rng.next_u64() % 50) as u32;
            let key = rng.next_u64() % 20;
            match (keys[id as usize], rng.next_u64() % 3) {
                (None, _) => heap.push::<Pos>(&mut pos, id, key),
                (Some(_), 0) => heap.remove::<Pos>(&mut pos, id),
                (Some(_), _) => heap.set::<Pos>(&mut pos, id, key),
            }
            keys[id as usize] = match (keys[id as usize], pos[id as usize]) {
                (_, NONE) => None,
                _ => Some(key),
            };
            let want = keys.iter().enumerate().filter_map(|(i, k)| k.map(|k| (k, i as u32))).min();
            assert_eq!(heap.top_entry().copied(), want);
            assert_eq!(heap.len(), keys.iter().flatten().count());
            for (i, &p) in pos.iter().enumerate() {
                if p != NONE {
                    assert_eq!(heap.v[p as usize].1, i as u32);
                }
            }
        }
    }
}
