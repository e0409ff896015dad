//! Pieces shared by the loss-based window algorithms (JK, Reno, NewReno): their common
//! parameters, the slow-start / congestion-avoidance step and RFC 5681's halving.

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
        "respond to ECN marks (RFC 3168): an echoed CE halves the window as a loss would, at most once a window, without a retransmission",
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
