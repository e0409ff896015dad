//! NewReno: Reno with partial-ACK handling in fast recovery.
//!
//! Source: RFC 6582 (Henderson, Floyd, Gurtov, Nishida 2012), without SACK.
//! - third duplicate ACK, when the cumulative ACK is past `recover` (the guard against
//!   repeated fast retransmits after a timeout, RFC 6582 §3.2 step 2): recover = highest
//!   sequence sent, ssthresh = max(FlightSize/2, 2), retransmit, cwnd = ssthresh + 3;
//! - further duplicate ACKs inflate cwnd by one;
//! - a partial ACK (below `recover`) retransmits the first unacknowledged packet, deflates
//!   cwnd by the amount acknowledged and adds one back, and stays in recovery, so several
//!   losses in one window are repaired without a timeout;
//! - a full ACK ends recovery with cwnd = min(ssthresh, max(FlightSize, 1) + 1) (RFC 6582
//!   §3.2 step 3, first option, which avoids a burst);
//! - timeout: recover = highest sequence sent, ssthresh = max(FlightSize/2, 2), cwnd = 1.
//!
//! The sender restarts the retransmission timer on every new ACK, partial ones included
//! (RFC 6582's "Slow-but-Steady" variant).

use super::loss::{aimd_increase, half_flight, LossConfig};
use super::{AckInfo, AckResponse, Algorithm, CongestionControl, TimeoutInfo};
use crate::scenario::decode::Result;
use crate::scenario::params::Params;
use crate::transport::config::SenderConfig;

#[derive(Clone, Debug)]
pub struct NewReno {
    cwnd: f64,
    ssthresh: f64,
    max_window: f64,
    dupack_threshold: u32,
    in_recovery: bool,
    /// One past the highest sequence number sent when recovery began.
    recover: u64,
}

impl Algorithm for NewReno {
    const NAME: &'static str = "newreno";
    const SUMMARY: &'static str = "NewReno (RFC 6582, no SACK): Reno that repairs several losses per window in one recovery";
    type Config = LossConfig;

    fn sender_defaults() -> SenderConfig {
        super::reno::rfc6298_defaults()
    }

    fn decode(p: &mut Params, sender: &mut SenderConfig) -> Result<LossConfig> {
        LossConfig::decode(p, sender)
    }

    fn build(cfg: &LossConfig, max_window: u32) -> Self {
        NewReno {
            cwnd: cfg.initial_cwnd,
            ssthresh: max_window as f64,
            max_window: max_window as f64,
            dupack_threshold: cfg.dupack_threshold,
            in_recovery: false,
            recover: 0,
        }
    }
}

impl CongestionControl for NewReno {
    fn cwnd(&self) -> f64 {
        self.cwnd
    }
    fn ssthresh(&self) -> f64 {
        self.ssthresh
    }
    fn on_new_ack(&mut self, ack: &AckInfo) -> AckResponse {
        if !self.in_recovery {
            self.cwnd = aimd_increase(self.cwnd, self.ssthresh, self.max_window);
            return AckResponse::Nothing;
        }
        if ack.ack >= self.recover {
            // Full ACK: everything outstanding when loss was detected is acknowledged.
            let flight_after = ack.flight_before.saturating_sub(ack.newly_acked) as f64;
            self.cwnd = self.ssthresh.min(flight_after.max(1.0) + 1.0);
            self.in_recovery = false;
            AckResponse::Nothing
        } else {
            // Partial ACK: the next hole is lost too.
            self.cwnd = (self.cwnd - ack.newly_acked as f64 + 1.0).max(1.0);
            AckResponse::RetransmitFirstUnacked
        }
    }
    fn on_dup_ack(&mut self, count: u32, ack: &AckInfo) -> bool {
        if self.in_recovery {
            self.cwnd += 1.0;
            false
        } else if count == self.dupack_threshold && ack.ack >= self.recover {
            self.recover = ack.high_sent;
            self.ssthresh = half_flight(ack.flight_before);
            self.cwnd = self.ssthresh + self.dupack_threshold as f64;
            self.in_recovery = true;
            true
        } else {
            false
        }
    }
    fn on_timeout(&mut self, t: &TimeoutInfo) {
        self.recover = t.high_sent;
        self.ssthresh = half_flight(t.flight);
        self.cwnd = 1.0;
        self.in_recovery = false;
    }
}
