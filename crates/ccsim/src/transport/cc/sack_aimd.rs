//! A window algorithm that grows and shrinks by rules of its own and repairs losses by SACK
//! (`sack_loss.rs`): slow start below ssthresh (+1 per ACK), then the rule's increase per ACK;
//! at a loss or an ECN mark the rule's decrease (ssthresh = cwnd = what it keeps, at least 2);
//! at a timeout ssthresh the same and cwnd = 1. Scalable TCP and HighSpeed TCP are such rules
//! (`stcp.rs`, `hstcp.rs`).

use super::sack_loss::{DupResponse, SackLoss};
use super::{AckInfo, AckResponse, CongestionControl, TimeoutInfo};

/// How a window grows in congestion avoidance and what a loss keeps of it.
pub trait WindowRule: Clone + std::fmt::Debug {
    /// Packets added to a window of `cwnd` by one ACK in congestion avoidance.
    fn increase(&self, cwnd: f64) -> f64;
    /// The window kept when a loss or an ECN mark finds it at `cwnd`.
    fn decrease(&self, cwnd: f64) -> f64;
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

    fn reduce(&mut self) {
        let w = self.cwnd.min(self.max_window);
        self.ssthresh = self.rule.decrease(w).max(2.0);
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
        if self.loss.on_new_ack(ack) {
            let step = if self.cwnd < self.ssthresh { 1.0 } else { self.rule.increase(self.cwnd) };
            self.cwnd = (self.cwnd + step).min(self.max_window);
        }
        AckResponse::Nothing
    }
    fn on_dup_ack(&mut self, count: u32, ack: &AckInfo) -> bool {
        match self.loss.on_dup_ack(count, ack) {
            DupResponse::None => false,
            DupResponse::Repair => true,
            DupResponse::Reduce => {
                self.reduce();
                true
            }
        }
    }
    fn on_ecn(&mut self, ack: &AckInfo) -> bool {
        let reduce = self.loss.on_ecn(ack);
        if reduce {
            self.reduce();
        }
        reduce
    }
    fn on_timeout(&mut self, t: &TimeoutInfo) {
        self.reduce();
        self.cwnd = 1.0;
        self.loss.on_timeout(t);
    }
}
