//! Reno: slow start, congestion avoidance, fast retransmit and fast recovery.
//!
//! Source: RFC 5681 (Allman, Paxson, Blanton 2009), as 4.3BSD-Reno introduced it. Not in the
//! theses' own text; provided as the baseline every later thesis measures against.
//! - third duplicate ACK: ssthresh = max(FlightSize/2, 2), retransmit, cwnd = ssthresh + 3;
//!   each further duplicate ACK inflates cwnd by one; the next new ACK deflates cwnd to
//!   ssthresh and ends recovery (a partial ACK also ends it: that is Reno's weakness, which
//!   NewReno fixes);
//! - timeout: ssthresh = max(FlightSize/2, 2), cwnd = 1, go back to the oldest unACKed packet;
//! - RTO per RFC 6298 (srtt + 4 rttvar), Karn's rule, back-off; min RTO 200 ms as in Linux
//!   (RFC 6298's 1 s is available through `min_rto`).

use super::loss::{aimd_increase, half_flight, LossConfig};
use super::{AckInfo, AckResponse, Algorithm, CongestionControl, TimeoutInfo};
use crate::scenario::decode::Result;
use crate::scenario::params::Params;
use crate::sim::PS_PER_SEC;
use crate::transport::config::{SenderConfig, TimerMode};
use crate::transport::rtt::{RtoConfig, RtoFormula, RttSamples, SampleFrom, SamplePacket};

#[derive(Clone, Debug)]
pub struct Reno {
    cwnd: f64,
    ssthresh: f64,
    max_window: f64,
    dupack_threshold: u32,
    in_recovery: bool,
}

/// RFC 6298's timer with Linux's 200 ms floor (Reno and NewReno).
pub(crate) fn rfc6298_defaults() -> SenderConfig {
    SenderConfig {
        rto: RtoConfig {
            formula: RtoFormula::MeanDev(4.0),
            sample_from: SampleFrom::Last,
            sample_packet: SamplePacket::Echoed,
            karn: true,
            samples: RttSamples::OnePerAck,
            backoff: true,
            initial_rto: PS_PER_SEC,
            min_rto: PS_PER_SEC / 5,
            max_rto: 60 * PS_PER_SEC,
            granularity: 0,
        },
        timers: TimerMode::Single,
        own_ack_stops_timer: false,
    }
}

impl Algorithm for Reno {
    const NAME: &'static str = "reno";
    const SUMMARY: &'static str = "Reno (RFC 5681): slow start, congestion avoidance, fast retransmit and fast recovery";
    type Config = LossConfig;

    fn sender_defaults() -> SenderConfig {
        rfc6298_defaults()
    }

    fn decode(p: &mut Params, sender: &mut SenderConfig) -> Result<LossConfig> {
        LossConfig::decode(p, sender)
    }

    fn build(cfg: &LossConfig, max_window: u32) -> Self {
        Reno {
            cwnd: cfg.initial_cwnd,
            ssthresh: max_window as f64,
            max_window: max_window as f64,
            dupack_threshold: cfg.dupack_threshold,
            in_recovery: false,
        }
    }
}

impl CongestionControl for Reno {
    fn cwnd(&self) -> f64 {
        self.cwnd
    }
    fn ssthresh(&self) -> f64 {
        self.ssthresh
    }
    fn on_new_ack(&mut self, _ack: &AckInfo) -> AckResponse {
        if self.in_recovery {
            self.in_recovery = false;
            self.cwnd = self.ssthresh;
        } else {
            self.cwnd = aimd_increase(self.cwnd, self.ssthresh, self.max_window);
        }
        AckResponse::Nothing
    }
    fn on_dup_ack(&mut self, count: u32, ack: &AckInfo) -> bool {
        if self.in_recovery {
            self.cwnd += 1.0;
            false
        } else if count == self.dupack_threshold {
            self.ssthresh = half_flight(ack.flight_before);
            self.cwnd = self.ssthresh + self.dupack_threshold as f64;
            self.in_recovery = true;
            true
        } else {
            false
        }
    }
    fn on_timeout(&mut self, t: &TimeoutInfo) {
        self.ssthresh = half_flight(t.flight);
        self.cwnd = 1.0;
        self.in_recovery = false;
    }
}
