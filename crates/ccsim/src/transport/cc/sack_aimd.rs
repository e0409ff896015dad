//! A window algorithm that grows and shrinks by rules of its own and repairs losses by SACK
//! (`sack_loss.rs`): slow start below ssthresh (+1 per ACK, or the rule's step, never past
//! ssthresh but by Reno's one packet), then the rule's increase per ACK;
//! at a loss or an ECN mark the rule's decrease (ssthresh = cwnd = what it keeps, at least 2);
//! at a timeout ssthresh the same (held when the same packet times out again, RFC 5681 §3.1)
//! and cwnd = 1. CUBIC, BIC, Scalable TCP, HighSpeed TCP, H-TCP, TCP Hybla and TCP Westwood+
//! are such rules (`cubic.rs`, `bic.rs`, `stcp.rs`, `hstcp.rs`, `htcp.rs`,
//! `hybla.rs`, `westwood.rs`).

use super::sack_loss::{DupResponse, SackLoss};
use super::{AckInfo, AckResponse, CongestionControl, TimeoutInfo};
use crate::sim::time::to_secs;
use crate::sim::SimTime;

/// How a window grows in congestion avoidance and what a loss keeps of it.
pub trait WindowRule: Clone + std::fmt::Debug {
    /// Every new ACK, before the window moves (for rules that measure RTTs or rates);
    /// `recovering`: a loss recovery is under way.
    fn on_ack(&mut self, _ack: &AckInfo, _recovering: bool) {}
    /// Every duplicate ACK the sender counts (one that reports a packet not known received).
    fn on_dup_ack(&mut self, _ack: &AckInfo) {}
    /// Packets added to a window of `cwnd` by one ACK in slow start. 1.
    fn slow_start(&self, _cwnd: f64) -> f64 {
        1.0
    }
    /// Packets added to a window of `cwnd` by one ACK in congestion avoidance at `now` (CUBIC
    /// keeps its epoch's state here, so the rule may change).
    fn increase(&mut self, cwnd: f64, now: SimTime) -> f64;
    /// The window kept when a loss or an ECN mark finds it at `cwnd` at `now` (also at a
    /// timeout, which then restarts from 1; not at a repeated one, which keeps ssthresh).
    fn decrease(&mut self, cwnd: f64, now: SimTime) -> f64;
    /// A timeout at `now` (after `decrease`, unless it is a repeated one).
    fn on_timeout(&mut self, _now: SimTime) {}
}

/// RTTs a rule measures from the ACKs of packets sent once: smoothed (gain 1/8), least, and
/// largest since `reset_max`; seconds, NaN before the first sample.
#[derive(Clone, Copy, Debug)]
pub struct AckRtts {
    pub srtt: f64,
    pub min: f64,
    pub max: f64,
}

impl Default for AckRtts {
    fn default() -> Self {
        AckRtts { srtt: f64::NAN, min: f64::NAN, max: f64::NAN }
    }
}

impl AckRtts {
    /// The ACK's sample, if it has one.
    pub fn sample(&mut self, ack: &AckInfo) -> Option<f64> {
        if ack.echo_retx || ack.now <= ack.echo_tx {
            return None;
        }
        let r = to_secs(ack.now - ack.echo_tx);
        self.srtt = if self.srtt.is_nan() { r } else { self.srtt + (r - self.srtt) / 8.0 };
        self.min = self.min.min(r); // NaN.min(r) is r
        self.max = self.max.max(r);
        Some(r)
    }

    /// Start measuring the largest RTT afresh.
    pub fn reset_max(&mut self) {
        self.max = f64::NAN;
    }
}

#[derive(Clone, Debug)]
pub struct SackAimd<R> {
    pub(super) rule: R,
    pub(super) cwnd: f64,
    pub(super) ssthresh: f64,
    max_window: f64,
    loss: SackLoss,
}

impl<R: WindowRule> SackAimd<R> {
    pub fn new(rule: R, initial_cwnd: f64, dupack_threshold: u32, max_window: u32) -> Self {
        let max_window = max_window as f64;
        SackAimd { rule, cwnd: initial_cwnd.min(max_window), ssthresh: max_window, max_window, loss: SackLoss::new(dupack_threshold) }
    }

    fn reduce(&mut self, now: SimTime) {
        let w = self.cwnd.min(self.max_window);
        self.ssthresh = self.rule.decrease(w, now).max(2.0);
        self.cwnd = self.ssthresh;
    }
}

impl<R: WindowRule> CongestionControl for SackAimd<R> {
    fn cwnd(&self) -> f64 {
        self.cwnd
    }
    fn ssthresh(&self) -> f64 {
        self.ssthresh
    }
    fn recover_point(&self) -> u64 {
        self.loss.recover_point()
    }
    fn on_new_ack(&mut self, ack: &AckInfo) -> AckResponse {
        self.rule.on_ack(ack, self.loss.in_recovery());
        if self.loss.on_new_ack(ack) {
            self.cwnd = if self.cwnd < self.ssthresh {
                // A rule's larger slow-start step (Hybla's 2^rho - 1) stops at ssthresh.
                (self.cwnd + self.rule.slow_start(self.cwnd)).min(self.ssthresh.max(self.cwnd + 1.0))
            } else {
                self.cwnd + self.rule.increase(self.cwnd, ack.now)
            }
            .min(self.max_window);
        }
        AckResponse::Nothing
    }
    fn on_dup_ack(&mut self, count: u32, ack: &AckInfo) -> bool {
        self.rule.on_dup_ack(ack);
        let response = self.loss.on_dup_ack(count, ack);
        if response == DupResponse::Reduce {
            self.reduce(ack.now);
        }
        response.retransmits()
    }
    fn on_ecn(&mut self, ack: &AckInfo) -> bool {
        let reduce = self.loss.on_ecn(ack);
        if reduce {
            self.reduce(ack.now);
        }
        reduce
    }
    fn on_timeout(&mut self, t: &TimeoutInfo) {
        // The same packet timing out again keeps ssthresh and the rule's memory of the loss:
        // RFC 5681 §3.1, by analogy (RFC 9438 §4.8 has CUBIC follow Reno at a timeout but for
        // its beta), as Linux's tcp_enter_loss does. Linux also keeps ssthresh at a first
        // timeout during a fast recovery; that is not modelled (the window is reduced again).
        if !t.repeated {
            self.reduce(t.now);
        }
        self.rule.on_timeout(t.now);
        self.cwnd = 1.0;
        self.loss.on_timeout(t);
    }
}
