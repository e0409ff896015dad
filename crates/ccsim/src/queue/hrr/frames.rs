//! HRR's frames and slots (the discipline is `hrr/mod.rs`): a channel's count of bytes in its
//! level's current frame, and where in the frame its slots lie and when each may be used.

use crate::net::PacketId;
use crate::sim::SimTime;
use std::collections::VecDeque;

/// Level of a best-effort conversation.
pub(super) const BEST_EFFORT: u8 = u8::MAX;

pub(super) struct Chan {
    pub level: u8,
    /// a_c in bytes a frame.
    pub allotment: u64,
    /// Its slots' indices in the frame, ascending (empty under `positions = "any"`).
    pub slots: Vec<u32>,
    /// Bytes sent in frame `frame` (may exceed the allotment by one packet).
    pub used: u64,
    pub frame: u64,
    pub queue: VecDeque<(PacketId, u32)>,
    pub routed: bool,
}

impl Chan {
    pub fn new() -> Self {
        Chan { level: BEST_EFFORT, allotment: 0, slots: Vec::new(), used: 0, frame: 0, queue: VecDeque::new(), routed: false }
    }

    /// Its count in frame `k`: a new frame keeps only what the last one overdrew.
    #[inline]
    fn used_in(&self, k: u64) -> u64 {
        if k == self.frame {
            self.used
        } else if k == self.frame + 1 {
            self.used.saturating_sub(self.allotment)
        } else {
            0
        }
    }

    /// Bring the count to frame `k`.
    #[inline]
    pub fn roll_to(&mut self, k: u64) {
        self.used = self.used_in(k);
        self.frame = k;
    }
}

pub(super) struct Level {
    /// FT_i, picoseconds.
    pub frame: SimTime,
    /// n_i, and per slot the first slot from it on (cyclically) that no channel owns, as a
    /// disjoint-set forest, so placing many channels stays near linear (empty under
    /// `positions = "any"`).
    pub n: u32,
    pub free_from: Vec<u32>,
    /// Slots its channels may take (n_i - b_i), and those taken.
    pub slots: u64,
    pub taken: u64,
    /// Its channels, and where the round robin stands.
    pub chans: Vec<u32>,
    pub next: usize,
}

impl Level {
    /// Where slot `s` of frame `k` begins.
    #[inline]
    fn slot_start(&self, k: u64, s: u64) -> SimTime {
        k.saturating_mul(self.frame).saturating_add((self.frame as u128 * s as u128 / self.n as u128) as SimTime)
    }

    /// When, in frame `k`, the slot that would carry channel `c`'s next bytes (`used` of them
    /// sent in the frame) begins: the frame's start under `positions = "any"`.
    #[inline]
    pub fn slot_time(&self, c: &Chan, k: u64, used: u64, slot_bytes: u32) -> SimTime {
        let s = c.slots.get((used / slot_bytes as u64) as usize).map_or(0, |&s| s as u64);
        self.slot_start(k, s)
    }

    /// A slot the channel left unused while it lasted is lost (it may not make it up later in
    /// the frame): `used` moved past every slot of frame `k` that has ended by `now`.
    #[inline]
    pub fn skip_passed(&self, c: &Chan, k: u64, mut used: u64, now: SimTime, slot_bytes: u32) -> u64 {
        loop {
            let j = used / slot_bytes as u64;
            let Some(&s) = c.slots.get(j as usize) else { return used };
            if now < self.slot_start(k, s as u64 + 1) {
                return used;
            }
            used = (j + 1) * slot_bytes as u64;
        }
    }

    /// When backlogged channel `c` may send next: its next slot in this frame if it has bytes
    /// left, else the slot its bytes start in the next frame.
    pub fn next_send(&self, c: &Chan, now: SimTime, slot_bytes: u32) -> SimTime {
        let k = now / self.frame;
        let used = self.skip_passed(c, k, c.used_in(k), now, slot_bytes);
        if used < c.allotment {
            self.slot_time(c, k, used, slot_bytes)
        } else {
            self.slot_time(c, k + 1, used - c.allotment, slot_bytes)
        }
    }

    /// A new channel's slots: `count` distinct slots of the frame, each as near as the taken
    /// ones allow to an even spread (slot j at floor(j n / count) or the next free one,
    /// cyclically); none under `positions = "any"`. The caller has checked there is room.
    pub fn place(&mut self, count: u64) -> Vec<u32> {
        if self.free_from.is_empty() {
            return Vec::new();
        }
        let n = self.n as u64;
        let mut out: Vec<u32> = (0..count)
            .map(|j| {
                let s = self.first_free((j * n / count) as u32);
                self.free_from[s as usize] = (s + 1) % self.n;
                s
            })
            .collect();
        out.sort_unstable();
        out
    }

    /// The first slot from `s` on (cyclically) that no channel owns, compressing the path.
    fn first_free(&mut self, s: u32) -> u32 {
        let mut root = s;
        while self.free_from[root as usize] != root {
            root = self.free_from[root as usize];
        }
        let mut at = s;
        while at != root {
            let up = self.free_from[at as usize];
            self.free_from[at as usize] = root;
            at = up;
        }
        root
    }
}
