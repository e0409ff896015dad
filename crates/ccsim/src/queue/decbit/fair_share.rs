//! DecBit's fair share (Keshav 1991 §6.5's selective variant, spec keshav91-experiments.md
//! §3.3): the bytes each conversation offered over the measurement window, and the max-min
//! share of capacity_factor x line rate among them. Counters roll over lazily by epoch (the
//! gateway says which epoch it is), so nothing is allocated or hashed per packet in steady
//! state.

use crate::sim::SimTime;

/// Bytes offered by one conversation in the previous and the current measurement epoch.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Conv {
    epoch: u64,
    cur: u64,
    prev: u64,
    listed: bool,
}

impl Conv {
    #[inline]
    fn roll(&mut self, epoch: u64) {
        if self.epoch != epoch {
            self.prev = if self.epoch + 1 == epoch { self.cur } else { 0 };
            self.cur = 0;
            self.epoch = epoch;
        }
    }
}

/// Every conversation's demand, and the share last computed from them.
#[derive(Debug)]
pub(super) struct FairShare {
    pub(super) convs: Vec<Conv>,
    /// Conversations that may have a nonzero demand (pruned when the fair share is computed).
    pub(super) listed: Vec<u32>,
    scratch: Vec<u64>,
    /// Fair share in bytes over the window it was computed for; INFINITY: nobody is over.
    pub(super) share: f64,
    /// Total demand exceeded the capacity at the last computation.
    pub(super) overloaded: bool,
    /// When the share was last computed.
    pub(super) share_at: Option<SimTime>,
}

impl Default for FairShare {
    fn default() -> Self {
        FairShare { convs: Vec::new(), listed: Vec::new(), scratch: Vec::new(), share: f64::INFINITY, overloaded: false, share_at: None }
    }
}

impl FairShare {
    /// Conversation `conv` offered `bytes` in measurement epoch `epoch`.
    #[inline]
    pub(super) fn count(&mut self, conv: usize, bytes: u32, epoch: u64) {
        if conv >= self.convs.len() {
            self.convs.resize(conv + 1, Conv::default());
        }
        let c = &mut self.convs[conv];
        c.roll(epoch);
        c.cur += bytes as u64;
        if !c.listed {
            c.listed = true;
            self.listed.push(conv as u32);
        }
    }

    /// Bytes conversation `conv` offered in the window of epoch `epoch` (this one and the last).
    pub(super) fn demand(&mut self, conv: usize, epoch: u64) -> u64 {
        match self.convs.get_mut(conv) {
            Some(c) => {
                c.roll(epoch);
                c.prev + c.cur
            }
            None => 0,
        }
    }

    /// Recompute the share at `now` in epoch `epoch`: `capacity` bytes over the window.
    pub(super) fn refresh(&mut self, now: SimTime, epoch: u64, capacity: f64) {
        self.share_at = Some(now);
        self.scratch.clear();
        let mut total: u64 = 0;
        let mut i = 0;
        while i < self.listed.len() {
            let c = &mut self.convs[self.listed[i] as usize];
            c.roll(epoch);
            let d = c.prev + c.cur;
            if d == 0 {
                c.listed = false;
                self.listed.swap_remove(i);
            } else {
                self.scratch.push(d);
                total += d;
                i += 1;
            }
        }
        self.overloaded = total as f64 > capacity;
        self.share = if self.overloaded { max_min_share(&mut self.scratch, capacity) } else { f64::INFINITY };
    }

    pub(super) fn memory_bytes(&self) -> usize {
        self.convs.capacity() * std::mem::size_of::<Conv>() + self.listed.capacity() * 4 + self.scratch.capacity() * 8
    }
}

/// Max-min fair share of `capacity` among `demands` (reordered): conversations demanding less
/// than an equal share of what is left keep their demand; the rest split the remainder.
/// INFINITY when every demand fits.
pub(super) fn max_min_share(demands: &mut [u64], capacity: f64) -> f64 {
    demands.sort_unstable();
    let mut left = capacity;
    let mut n = demands.len();
    for &d in demands.iter() {
        let equal = left / n as f64;
        if (d as f64) < equal {
            left -= d as f64;
            n -= 1;
        } else {
            return equal;
        }
    }
    f64::INFINITY
}
