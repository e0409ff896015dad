//! The round number R(t) of Fair Queueing: the bit-by-bit round robin (BR) that FQ emulates,
//! brought up to date by iterative deletion.
//!
//! Source: Keshav 1991, chapter 3 §3.3 ("Round number computation", Fig 3.1 and the worked
//! example of conversations A and B), chapter 2 §2.3 (weights: BR serves n_α bits of α per
//! round, so dR/dt = L/N with N = Σ n_α over active conversations). Digest:
//! shared/specs/keshav91-fq-packet-pair.md M1.4, §6 A10.
//!
//! A conversation is active while BR still has bits of it queued, i.e. while F^α > R. Between
//! events R grows at L/N; when it reaches the smallest F^α that conversation leaves, N falls
//! and R speeds up, which can make another one leave: Fig 3.1 deletes them one by one,
//! moving a checkpoint (t_chk, R_chk) to each deletion, until none is left to delete by t.
//! The active conversations are kept in a heap by F^α, as §3.3 suggests.
//!
//! # Arithmetic: exact integers, no drift, no division by zero
//! Round numbers are `u128` counts of *picobits* (10⁻¹² bit; [`UNITS_PER_BIT`]), and the
//! checkpoint is kept in the *work* domain w = t[ps]·L[b/s], which is also in picobits: the
//! line serves exactly w picobits in t. So
//! - a packet's size P·8·10¹² is an exact integer; F and B are exact sums of integers;
//! - the deletion test F ≤ R_chk + Δw/N is evaluated exactly as (F − R_chk)·N ≤ Δw;
//! - a deletion moves the checkpoint to exactly (w_chk + (F − R_chk)·N, F): no rounding;
//! - the only division, R(t) = R_chk + ⌊Δw/N⌋, keeps its remainder in the checkpoint
//!   (w_chk advances by ⌊Δw/N⌋·N, not to w), so the checkpoint is always a point exactly on
//!   the fluid R(w) line. The remainder (< N units of work) is rescaled only when N changes at
//!   an arrival that activates a conversation: that shifts the rest of the fluid schedule by
//!   less than n_α units of work (10⁻¹² bit), R only ever lags, and the error does not grow
//!   with R's magnitude (the long-run test in `tests.rs` checks BR's service against the
//!   line's).
//!
//! Why not f64: at 40 Gb/s, R passes 10¹³ bits within minutes, where an f64's resolution is
//! about 10⁻³ bit and the tests F ≤ R (activity, deletion) start to depend on rounding; a
//! rebase would have to rewrite every stored F and bid. u128 picobits overflow only after
//! 2⁶⁴ ps (the end of `SimTime`) on lines faster than 10¹⁹ b/s.
//!
//! When the last conversation goes inactive (N = 0, where Fig 3.1 divides by zero), R is held
//! at the last finish number and the checkpoint follows the clock ([REC] M1.4, A10); a later
//! arrival gets F = R + P, and every stored F^α is ≤ R, so old conversations stay inactive.
//! Activity at equality: a conversation with F^α = R is inactive (Fig 3.1's `≤`).

use crate::queue::key_heap::{KeyHeap, Slot, NONE};
use super::Conv;
use crate::sim::SimTime;

/// Round-number units per bit: round numbers, finish numbers and bids count picobits.
pub const UNITS_PER_BIT: u128 = 1_000_000_000_000;
/// Round-number units per byte.
pub const UNITS_PER_BYTE: u128 = 8 * UNITS_PER_BIT;

/// A conversation's position in the heap of active conversations.
pub(super) struct InActive;
impl Slot for InActive {
    type Item = Conv;
    #[inline]
    fn pos(c: &mut Conv) -> &mut u32 {
        &mut c.active_pos
    }
}

/// BR's state: the checkpoint and the active conversations.
pub(super) struct BitRoundRobin {
    line_bps: u128,
    /// Active conversations (BR has bits of theirs queued), by F^α.
    active: KeyHeap<u128>,
    /// Checkpoint: work w_chk = t·L (picobits) and R_chk = R at that work.
    w_chk: u128,
    r_chk: u128,
    /// N_ac: the sum of the weights of the active conversations.
    n_ac: u64,
}

impl BitRoundRobin {
    pub(super) fn new(line_bps: u64) -> Self {
        BitRoundRobin { line_bps: line_bps as u128, active: KeyHeap::new(), w_chk: 0, r_chk: 0, n_ac: 0 }
    }

    /// R as of the last [`BitRoundRobin::advance`], in round units, rounded down.
    #[inline]
    pub(super) fn round(&self) -> u128 {
        self.r_chk
    }

    /// N_ac, as of the last update.
    pub(super) fn active_weight(&self) -> u64 {
        self.n_ac
    }

    /// Bring the round number up to `now` by iterative deletion (Fig 3.1).
    #[inline]
    pub(super) fn advance(&mut self, convs: &mut [Conv], now: SimTime) {
        let w = now as u128 * self.line_bps;
        debug_assert!(w >= self.w_chk, "FQ: time went backwards");
        if w <= self.w_chk {
            return;
        }
        loop {
            let Some(&(f, top)) = self.active.top_entry() else {
                // Nothing active: R holds still (A10) and the checkpoint follows the clock.
                self.w_chk = w;
                return;
            };
            let n = self.n_ac as u128;
            let need = (f - self.r_chk) * n;
            let dw = w - self.w_chk;
            if need <= dw {
                // R reached F^top at work w_chk + need: top went inactive there.
                self.w_chk += need;
                self.r_chk = f;
                self.n_ac -= convs[top as usize].weight as u64;
                self.active.remove::<InActive>(convs, top);
            } else {
                let q = if dw <= u64::MAX as u128 { (dw as u64 / self.n_ac) as u128 } else { dw / n };
                self.r_chk += q;
                self.w_chk += q * n;
                return;
            }
        }
    }

    /// An arrival raised conversation `id`'s F^α to `f`: it stays active, or becomes so.
    #[inline]
    pub(super) fn raised(&mut self, convs: &mut [Conv], id: u32, f: u128) {
        let c = &convs[id as usize];
        if c.active_pos != NONE {
            self.active.set::<InActive>(convs, id, f);
        } else {
            self.n_ac += c.weight as u64;
            self.active.push::<InActive>(convs, id, f);
        }
    }

    /// An uncharged drop rolled conversation `id`'s F^α back: it leaves the active set if
    /// R has already passed the new F^α.
    pub(super) fn rolled_back(&mut self, convs: &mut [Conv], id: u32) {
        let c = &convs[id as usize];
        if c.active_pos != NONE {
            let (f, w) = (c.f, c.weight);
            if f <= self.r_chk {
                self.n_ac -= w as u64;
                self.active.remove::<InActive>(convs, id);
            } else {
                self.active.set::<InActive>(convs, id, f);
            }
        }
    }

    /// Conversation `c`'s weight is about to become `weight`.
    pub(super) fn reweighted(&mut self, c: &Conv, weight: u32) {
        if c.active_pos != NONE {
            self.n_ac = self.n_ac - c.weight as u64 + weight as u64;
        }
    }

    pub(super) fn capacity_bytes(&self) -> usize {
        self.active.capacity_bytes()
    }
}
