//! The trunk's channels' end times in a tournament tree: the earliest end is its root and the
//! lowest-index idle channel is found in log K steps (`mod.rs` explains the trunk).

use crate::sim::SimTime;

/// When each channel's line frees, in a tournament tree of minima: leaf `n + c` is channel
/// c's end time (padding leaves never free), each inner node the least of its two children.
pub(super) struct Lines {
    n: usize,
    t: Vec<SimTime>,
}

impl Lines {
    pub(super) fn new(channels: usize) -> Self {
        let n = channels.next_power_of_two();
        let mut t = vec![SimTime::MAX; 2 * n];
        t[n..n + channels].fill(0);
        for i in (1..n).rev() {
            t[i] = t[2 * i].min(t[2 * i + 1]);
        }
        Lines { n, t }
    }

    #[inline]
    pub(super) fn free_at(&self, c: usize) -> SimTime {
        self.t[self.n + c]
    }

    /// The earliest time a channel is free (in the past if one is idle).
    #[inline]
    pub(super) fn earliest(&self) -> SimTime {
        self.t[1]
    }

    #[inline]
    pub(super) fn set(&mut self, c: usize, at: SimTime) {
        let mut i = self.n + c;
        self.t[i] = at;
        while i > 1 {
            i /= 2;
            self.t[i] = self.t[2 * i].min(self.t[2 * i + 1]);
        }
    }

    /// Heap bytes held.
    pub(super) fn capacity_bytes(&self) -> usize {
        self.t.capacity() * 8
    }

    /// The lowest-index channel idle at `now`.
    #[inline]
    pub(super) fn lowest_idle(&self, now: SimTime) -> Option<usize> {
        if self.t[1] > now {
            return None;
        }
        let mut i = 1;
        while i < self.n {
            i = if self.t[2 * i] <= now { 2 * i } else { 2 * i + 1 };
        }
        Some(i - self.n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::Rng;

    #[test]
    fn the_tree_finds_the_lowest_idle_channel_and_the_earliest_end() {
        let mut rng = Rng::stream(7, "lines");
        for k in [1usize, 2, 3, 5, 8, 13, 64, 100] {
            let mut lines = Lines::new(k);
            let mut ends = vec![0u64; k];
            for step in 0..2000u64 {
                let c = (rng.next_u64() % k as u64) as usize;
                ends[c] = step + rng.next_u64() % 50;
                lines.set(c, ends[c]);
                let now = step + rng.next_u64() % 10;
                assert_eq!(lines.lowest_idle(now), ends.iter().position(|&e| e <= now), "k = {k}");
                assert_eq!(lines.earliest(), *ends.iter().min().unwrap());
            }
        }
    }
}
