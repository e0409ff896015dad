//! FAST TCP: the window follows the queueing delay towards α packets queued per flow.
//!
//! Source: Cui, chapter 4 §4.2 (spec cui-buffers-fast-adpm.md §2.12, §2.14, §2.15), which
//! describes the ns-2 module the thesis's author wrote and ran; the module's source (read for
//! its semantics) settles what the text leaves out. The law, every other round trip:
//!
//!   w ← (1 − γ) w + γ (w_old · d / D + α)                                       (4.2)
//!
//! with d = baseRTT (the least RTT sample), D = avgRTT (an average of the samples), w_old the
//! window when the acknowledged packet was sent, clamped at 2 packets. At equilibrium each flow
//! keeps α packets queued (4.4) and sends α / (D − d) packets a second.
//! - RTT samples: every new ACK times the packet it acknowledges (now − its send time), or, for a
//!   retransmitted packet, reuses avgRTT (Karn's rule, as the module). avgRTT ← avgRTT + (s −
//!   avgRTT)/256, or /(w/3) once the window exceeds 768 packets (the module's scale).
//! - Rounds: a round ends at the first ACK more than one RTT sample after the last boundary; the
//!   update runs in every other round (`UPDATE_CWND_EVERY_OTHER_RTT`) and no sooner than
//!   `update_interval` after the previous one.
//! - Increases are paced: the whole-packet increase (target − w) is applied one packet per ACK,
//!   or spread over the ACKs of an `update_interval` when that is set (the module's `bc_spacing`);
//!   below 4 packets at once, but never more than doubling. Pacing needs baseRTT ≥ 4 ms, as in
//!   the module; below it a target above w is taken at once.
//! - Decreases (`decrease`): at once, as the module (the flow then sends nothing for the next
//!   w − target ACKs), or paced over one round by Algorithm 1 of §4.5.2 (cwnd ← cwnd − δW/W per
//!   ACK until the target is reached).
//! - `mi_threshold` > 0: while avgRTT − baseRTT is below it, +1 packet per ACK (multiplicative
//!   increase; the thesis's runs set 0, "pure FAST").
//! - `alpha_adjust` (§4.5.3): α halves when loss recovery starts (fast retransmit or timeout,
//!   never below α₀/100), once per episode (spec §6 item 23): a timeout during a fast recovery,
//!   or a backed-off timeout, does not halve it again (the first new ACK outside recovery
//!   ends the episode). α relaxes towards α₀ as α₀ − (α₀ − α) e^{−k Δt} at each update,
//!   k = `alpha_k` (0.1 /s in §4.5.4).
//! - `drain` (§4.4.2): the four-phase queue-draining algorithm, once per flow (drain.rs).
//! - Loss (`recovery`): NewReno's fast retransmit and recovery (`"newreno"`, the default: RFC
//!   6582, embedded and fed the duplicate and partial ACKs), as the thesis says ("transplanted
//!   from TCP NewReno"); FAST stands aside while it recovers and resumes from its window, and a
//!   window with several losses takes a round trip per loss. Or, as the module's revision
//!   history dates to its version 1.1 ("Add SACK function into Fast"), a SACK scoreboard
//!   (`"sack"`; the sender's part is `sender/sack.rs`): at the third duplicate ACK
//!   that reports new data, once the ACKs have passed the last response's `recover`, the
//!   window halves (ns-2's `slowdown`) and the sender resends the holes as its pipe estimate
//!   allows, the oldest again after 2 average RTTs (`rescue`), two at a partial ACK with
//!   `partial_ack` (ns-2's default is off). A timeout restarts from 2 packets (the module's
//!   `slowstart_`). `flight_reset` (off by default) adds the module's `newcwnd_` test: once a
//!   timeout has happened (the module's `newcwnd_` is 0 from then on), a new ACK outside
//!   recovery that follows more than three duplicates (the go-back-N after a timeout makes
//!   them, within its window, where no new recovery starts; duplicates count only from the
//!   first new ACK after the timeout, the module's `timeout_`) sets the window to the packets
//!   sent beyond that ACK plus two, or 1 when the ACK jumps past what the go-back-N has resent.
//!
//! Choices where the sources are silent, each a parameter: α = 200 packets (E4.1 and EB1),
//! γ = 0.5 (the module's default), `update_interval` 0 (the update gated by the rounds alone,
//! so increases go one packet per ACK, "enlarged by one packet per ACK" as §4.2.1 says).
//! w_old (`w_old`): the flight at the start of the round in which the acknowledged packet left
//! (`"round"`, the default); each packet's own, as the module stores it (`"packet"`: the
//! flight estimated at the last new ACK before the packet left, packets sent less the last
//! acknowledged in order, read for the packet the cumulative ACK names; `w_old.rs`); or the
//! window now (`"current"`, (4.2) as the thesis prints it). The sender: RFC 6298's timer with
//! ns-2's 200 ms floor and 10 ms tick, initial RTO 3 s.
//!
//! Trace columns: `base_rtt_s`, `avg_rtt_s`, `alpha` (packets) and `target` (the last
//! update's window).

mod config;
mod drain;
#[cfg(test)]
mod tests;
mod w_old;

use super::newreno::NewReno;
use super::{AckInfo, AckResponse, CongestionControl, TimeoutInfo};
use crate::sim::{time::to_secs, SimTime, PS_PER_SEC};
pub use config::{Decrease, FastConfig, Recovery, WOld};
use drain::{Drain, DrainInput};
use w_old::SentFlights;

/// No RTT measured yet.
const NONE: SimTime = SimTime::MAX;
/// Rounds of window history kept for w_old.
const HISTORY: usize = 4;
/// Pacing of increases needs a base RTT of at least this (the module's 0.004 s).
const PACE_MIN_BASE: SimTime = 4 * PS_PER_SEC / 1000;

#[derive(Clone, Debug)]
pub struct Fast {
    cfg: FastConfig,
    cwnd: f64,
    max_window: f64,
    alpha: f64,
    /// The loss fallback, and whether it is recovering (its window is then the one used).
    newreno: NewReno,
    in_recovery: bool,
    base_rtt: SimTime,
    /// avgRTT, ps (NaN before the first sample).
    avg_rtt: f64,
    /// The round: when it began, its ACKs so far and the last round's, and the toggle that
    /// lets the update run in every other round.
    round_start: SimTime,
    acks_round: u32,
    acks_last_round: u32,
    update_round: bool,
    last_update: SimTime,
    /// (first sequence number sent in a round, flight at its start): w_old of its packets.
    history: [(u64, f64); HISTORY],
    /// Whole packets still to add, ACKs between two of them, ACKs since the last one.
    increments: f64,
    spacing: u32,
    since_increment: u32,
    /// A paced decrease: the window it ends at, and the step per ACK (negative).
    decrease_to: f64,
    decrease_step: f64,
    last_target: f64,
    alpha_at: SimTime,
    /// Alpha was halved for the loss episode under way: a timeout inside a fast recovery, or
    /// a backed-off timeout, belongs to it (cleared by the first new ACK outside recovery).
    alpha_halved: bool,
    /// The four-phase algorithm's phase, and the average RTT when its reduction began.
    drain: Drain,
    drain_rtt_before: f64,
    /// SACK recovery: one past the highest sequence sent at the last loss response.
    recover: u64,
    /// `flight_reset`: a timeout has happened; duplicate ACKs counted since the last new ACK
    /// outside recovery; whether they are counted (not between a timeout and the next new
    /// ACK: the module's `timeout_`).
    timed_out: bool,
    dups_outside_recovery: u32,
    counting_dups: bool,
    /// `w_old = "packet"`: each packet's w_old, and the flight estimate new packets take.
    sent: SentFlights,
    flight_estimate: f64,
}

impl Fast {
    /// A new ACK's RTT sample (outside loss recovery, as the module): baseRTT and avgRTT.
    fn sample(&mut self, ack: &AckInfo) -> SimTime {
        let rtt = if ack.echo_retx && !self.avg_rtt.is_nan() { self.avg_rtt as SimTime } else { ack.now.saturating_sub(ack.echo_tx) };
        self.base_rtt = self.base_rtt.min(rtt);
        let scale = self.cwnd / 3.0;
        self.avg_rtt = if self.avg_rtt.is_nan() {
            rtt as f64
        } else if scale > 256.0 {
            ((scale - 1.0) * self.avg_rtt + rtt as f64) / scale
        } else {
            (255.0 * self.avg_rtt + rtt as f64) / 256.0
        };
        rtt
    }

    /// w_old: the flight at the start of the round in which packet `seq` was sent.
    fn window_when_sent(&self, seq: u64) -> f64 {
        self.history.iter().filter(|(first, _)| *first <= seq).max_by_key(|(first, _)| *first).map_or(self.cwnd, |&(_, w)| w)
    }

    /// (4.2) with the module's floor of 2 packets.
    fn target(&self, w_old: f64) -> f64 {
        let ratio = self.base_rtt as f64 / self.avg_rtt;
        ((1.0 - self.cfg.gamma) * self.cwnd + self.cfg.gamma * (w_old * ratio + self.alpha)).max(2.0)
    }

    /// §4.5.3's relaxation of alpha towards its configured value since the last update.
    fn relax_alpha(&mut self, now: SimTime) {
        if self.cfg.alpha_adjust {
            let dt = to_secs(now.saturating_sub(self.alpha_at));
            self.alpha = self.cfg.alpha - (self.cfg.alpha - self.alpha) * (-self.cfg.alpha_k * dt).exp();
        }
        self.alpha_at = now;
    }

    /// Loss recovery starts: §4.5.3 halves alpha (never below alpha0/100).
    fn on_loss(&mut self, now: SimTime) {
        if self.cfg.alpha_adjust && !self.alpha_halved {
            self.relax_alpha(now);
            self.alpha = (self.alpha / 2.0).max(self.cfg.alpha / 100.0);
            self.alpha_halved = true;
        }
        self.increments = 0.0;
        self.decrease_to = f64::NAN;
        if self.drain.active() {
            self.drain = Drain::Off;
        }
    }

    /// One ACK of the four-phase algorithm while it is under way.
    fn drain_step(&mut self, now: SimTime) {
        let x = DrainInput {
            now,
            base_rtt: self.base_rtt,
            avg_rtt: self.avg_rtt,
            alpha: self.alpha,
            r: if self.cfg.drain_r >= 1.0 { self.cfg.drain_r } else { self.alpha.max(1.0) },
            rtt_before: self.drain_rtt_before,
        };
        let mut restart_avg = false;
        let (w, next) = self.drain.step(self.cwnd, &x, &mut restart_avg);
        self.cwnd = w.min(self.max_window);
        self.drain = next;
        if restart_avg {
            self.avg_rtt = f64::NAN;
        }
        self.last_update = now;
    }

    /// The module's `fast_pace`: add `more` whole packets to the increments still to make,
    /// and make the one due at this ACK.
    fn pace_increase(&mut self, more: f64) {
        if more >= 1.0 {
            self.increments += more;
            let per_period = if self.cfg.update_interval > 0 && self.avg_rtt > 0.0 {
                self.acks_last_round as f64 * self.cfg.update_interval as f64 / self.avg_rtt
            } else {
                0.0
            };
            self.spacing = (per_period / self.increments) as u32;
            self.since_increment = 1;
        } else {
            self.since_increment += 1;
        }
        if self.increments < 1.0 {
            return;
        }
        if self.cwnd <= 4.0 {
            // Small windows take the increase at once, at most doubling per ACK.
            let step = self.increments.min(self.cwnd.floor().max(1.0));
            self.cwnd += step;
            self.increments -= step;
            self.since_increment = 0;
        } else if self.since_increment >= self.spacing {
            self.cwnd += 1.0;
            self.increments -= 1.0;
            self.since_increment = 0;
        }
        self.cwnd = self.cwnd.min(self.max_window);
    }

    /// One step of a paced decrease (Algorithm 1), if one is under way.
    fn pace_decrease(&mut self) {
        if self.decrease_to.is_nan() {
            return;
        }
        self.cwnd = (self.cwnd + self.decrease_step).max(self.decrease_to);
        if self.cwnd <= self.decrease_to {
            self.decrease_to = f64::NAN;
        }
    }

    /// A new ACK: the loss recovery's while it lasts, else FAST's own work.
    fn new_ack(&mut self, ack: &AckInfo) -> AckResponse {
        if self.in_recovery && self.cfg.recovery == Recovery::Sack {
            // The sender repairs; FAST stands aside until the ACKs pass `recover`.
            if ack.ack >= self.recover {
                self.in_recovery = false;
            }
            self.last_update = ack.now;
            return AckResponse::Nothing;
        }
        if self.in_recovery {
            let response = self.newreno.on_new_ack(ack);
            if !self.newreno.in_recovery() {
                self.in_recovery = false;
                self.cwnd = self.newreno.cwnd().min(self.max_window);
                self.last_update = ack.now;
            }
            return response;
        }
        self.alpha_halved = false;
        // The module's `avg_cwnd_last_RTT_`: packets sent less the last one acknowledged.
        let next_to_send = ack.ack - ack.newly_acked + ack.flight_before;
        if std::mem::take(&mut self.dups_outside_recovery) > self.cfg.loss.dupack_threshold && self.timed_out && self.cfg.flight_reset {
            self.reset_to_flight(next_to_send, ack.ack);
        }
        self.counting_dups = true;
        self.flight_estimate = (next_to_send + 1).saturating_sub(ack.ack) as f64;
        let rtt = self.sample(ack);
        self.congestion_control(ack, rtt);
        AckResponse::Nothing
    }

    /// The module's `newcwnd_` test passed: the window becomes the packets sent beyond the
    /// ACK's (the module's `t_seqno_ - seqno + 1` with its ACK numbering, the last packet
    /// received rather than the next expected; at least 1), and so does every packet's w_old.
    #[cold]
    fn reset_to_flight(&mut self, next_to_send: u64, ack: u64) {
        let last_received = ack - 1;
        self.cwnd = ((next_to_send.max(last_received) - last_received + 1) as f64).min(self.max_window);
        self.sent.fill(self.cwnd);
        for h in self.history.iter_mut() {
            h.1 = self.cwnd;
        }
    }

    /// FAST's work at a new ACK outside loss recovery (the module's `fast_cc`).
    fn congestion_control(&mut self, ack: &AckInfo, rtt: SimTime) {
        let now = ack.now;
        if self.round_start.saturating_add(rtt) < now {
            self.round_start = now;
            self.acks_last_round = self.acks_round;
            self.acks_round = 0;
            self.update_round = !self.update_round;
            self.history.rotate_right(1);
            self.history[0] = (ack.ack - ack.newly_acked + ack.flight_before, ack.flight_before as f64);
        }
        self.acks_round += 1;
        let queueing = self.avg_rtt - self.base_rtt as f64;
        if queueing < self.cfg.mi_threshold as f64 {
            self.cwnd = (self.cwnd + 1.0).min(self.max_window);
            self.last_update = now;
            return;
        }
        if self.drain.active() {
            self.drain_step(now);
            return;
        }
        let pace = self.base_rtt >= PACE_MIN_BASE;
        if now >= self.last_update.saturating_add(self.cfg.update_interval) && self.update_round {
            self.relax_alpha(now);
            let w_old = match self.cfg.w_old {
                WOld::Packet => self.sent.get(ack.ack - 1).unwrap_or(self.cwnd),
                WOld::Round => self.window_when_sent(ack.echo_seq),
                WOld::Current => self.cwnd,
            };
            let target = self.target(w_old).min(self.max_window);
            self.last_target = target;
            if self.drain == Drain::Waiting && (target - self.cwnd).abs() < self.cfg.drain_stable {
                // Settled: the four-phase algorithm takes over (its reduction starts now).
                self.drain_rtt_before = self.avg_rtt;
                self.drain = Drain::Reduction { until: now.saturating_add(self.avg_rtt as SimTime) };
                self.drain_step(now);
                return;
            }
            self.increments = 0.0;
            self.decrease_to = f64::NAN;
            if target >= self.cwnd && pace {
                self.pace_increase((target - self.cwnd).floor());
            } else if target < self.cwnd && self.cfg.decrease == Decrease::Paced {
                self.decrease_to = target;
                self.decrease_step = (target - self.cwnd) / self.cwnd;
                self.pace_decrease();
            } else {
                self.cwnd = target;
            }
            self.last_update = now;
        } else if pace {
            self.pace_increase(0.0);
            self.pace_decrease();
        }
    }

}

impl CongestionControl for Fast {
    fn cwnd(&self) -> f64 {
        if self.in_recovery && self.cfg.recovery == Recovery::NewReno {
            self.newreno.cwnd()
        } else {
            self.cwnd
        }
    }
    fn recover_point(&self) -> u64 {
        match self.cfg.recovery {
            Recovery::NewReno => self.newreno.recover_point(),
            Recovery::Sack => self.recover,
        }
    }
    fn average_rtt(&self) -> Option<SimTime> {
        (!self.avg_rtt.is_nan()).then_some(self.avg_rtt as SimTime)
    }
    fn code_for(&mut self, seq: u64, _retransmission: bool, code: u8) -> u8 {
        if self.cfg.w_old == WOld::Packet {
            self.sent.record(seq, self.flight_estimate);
        }
        code
    }
    fn on_new_ack(&mut self, ack: &AckInfo) -> AckResponse {
        let response = self.new_ack(ack);
        if self.cfg.w_old == WOld::Packet {
            self.sent.forget_below(ack.ack.saturating_sub(1));
        }
        response
    }
    fn on_dup_ack(&mut self, count: u32, ack: &AckInfo) -> bool {
        if self.cfg.recovery == Recovery::Sack {
            if !self.in_recovery && self.counting_dups {
                self.dups_outside_recovery = count;
            }
            // ns-2's `dupack_action`: only once the ACKs have passed the last response's
            // `recover`; the window and ssthresh halve (`slowdown`), nothing is inflated.
            if self.in_recovery || count != self.cfg.loss.dupack_threshold || ack.ack <= self.recover {
                return false;
            }
            self.in_recovery = true;
            self.recover = ack.high_sent;
            self.on_loss(ack.now);
            self.cwnd = (self.cwnd.min(self.max_window) / 2.0).max(1.0);
            return true;
        }
        let retransmit = self.newreno.on_dup_ack(count, ack);
        if retransmit && !self.in_recovery {
            self.in_recovery = true;
            self.on_loss(ack.now);
        }
        retransmit
    }
    fn on_timeout(&mut self, t: &TimeoutInfo) {
        self.timed_out = true;
        self.dups_outside_recovery = 0;
        self.counting_dups = false;
        self.newreno.on_timeout(t);
        self.recover = t.high_sent;
        self.in_recovery = false;
        self.on_loss(t.now);
        self.cwnd = 2.0f64.min(self.max_window);
        self.last_update = t.now;
    }
    fn trace_values(&self, out: &mut [f64]) {
        out[0] = if self.base_rtt == NONE { f64::NAN } else { to_secs(self.base_rtt) };
        out[1] = self.avg_rtt / PS_PER_SEC as f64;
        out[2] = self.alpha;
        out[3] = self.last_target;
    }
}
