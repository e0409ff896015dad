//! Pieces shared by the loss-based window algorithms (JK, Reno, NewReno, JCC): their common
//! parameters, the slow-start / congestion-avoidance step, RFC 5681's halving and ns-2's guard
//! on fast retransmissions.

use super::super::config::SenderConfig;
use crate::scenario::decode::Result;
use crate::scenario::params::Params;

/// Parameters JK, Reno and NewReno share.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LossConfig {
    /// Congestion window at start, packets. 1.
    pub initial_cwnd: f64,
    /// Duplicate ACKs that trigger a fast retransmission. 3.
    pub dupack_threshold: u32,
}

impl Default for LossConfig {
    fn default() -> Self {
        LossConfig { initial_cwnd: 1.0, dupack_threshold: 3 }
    }
}

impl LossConfig {
    /// `rto_k`, `initial_cwnd` and `dupack_threshold`.
    pub fn decode(p: &mut Params, sender: &mut SenderConfig) -> Result<LossConfig> {
        sender.decode_rto_k(p)?;
        let d = LossConfig::default();
        Ok(LossConfig {
            initial_cwnd: p.number("initial_cwnd", d.initial_cwnd, 1.0, 1e6, "congestion window at start, packets")?,
            dupack_threshold: p.integer(
                "dupack_threshold",
                d.dupack_threshold as u64,
                1,
                1000,
                "duplicate ACKs that trigger a fast retransmission",
            )? as u32,
        })
    }
}

/// RFC 5681 eq. (4), shared by Reno and NewReno: ssthresh = max(FlightSize / 2, 2) packets,
/// FlightSize halved and rounded down to whole packets.
/// `ecn`: the algorithm responds to ECN marks (Reno and NewReno; RFC 3168 §6.1.2).
pub fn decode_ecn(p: &mut Params, sender: &mut SenderConfig) -> Result<()> {
    sender.ecn = p.flag(
        "ecn",
        sender.ecn,
        "respond to ECN marks (RFC 3168): an echoed CE reduces the window as a loss would (Reno's halving, or the algorithm's own decrease), at most once a window, without a retransmission",
    )?;
    Ok(())
}

pub fn half_flight(flight: u64) -> f64 {
    (flight as f64 / 2.0).floor().max(2.0)
}

/// Shared slow-start / congestion-avoidance step: +1 per ACK below ssthresh, else +1/cwnd;
/// never above `cap` (the maximum window: growth past it could not be used).
#[inline]
pub(crate) fn aimd_increase(cwnd: f64, ssthresh: f64, cap: f64) -> f64 {
    let next = if cwnd < ssthresh { cwnd + 1.0 } else { cwnd + 1.0 / cwnd };
    next.min(cap)
}

/// When a third duplicate ACK must wait for the cumulative ACK to pass `recover`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RecoverGuard {
    /// After a timeout only (ns-2's Reno: `bugFix_` and `allow_fast_retransmit`).
    Timeout,
    /// After any loss, fast retransmissions included.
    Always,
    /// Never.
    Off,
}

/// ns-2's `recover_` (one past the highest sequence number sent at the last loss) and whether
/// that loss was a fast retransmission, which decide under `rule` whether a third duplicate
/// ACK may start another. Reno's ns2 variant and JCC keep one each.
#[derive(Clone, Copy, Debug)]
pub struct Recover {
    rule: RecoverGuard,
    recover: u64,
    after_fast_retransmit: bool,
}

impl Recover {
    pub fn new(rule: RecoverGuard) -> Self {
        Recover { rule, recover: 0, after_fast_retransmit: false }
    }

    /// A third duplicate ACK with cumulative ACK `ack` may start a fast retransmission.
    #[inline]
    pub fn allows(&self, ack: u64) -> bool {
        match self.rule {
            RecoverGuard::Timeout => self.after_fast_retransmit || ack > self.recover,
            RecoverGuard::Always => ack > self.recover,
            RecoverGuard::Off => true,
        }
    }

    /// A fast retransmission, with `high_sent` the sender's next new sequence number.
    pub fn fast_retransmit(&mut self, high_sent: u64) {
        (self.recover, self.after_fast_retransmit) = (high_sent, true);
    }

    /// A timeout, with `high_sent` as above.
    pub fn timeout(&mut self, high_sent: u64) {
        (self.recover, self.after_fast_retransmit) = (high_sent, false);
    }
}
