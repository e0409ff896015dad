//! Generic window flow control ("G").
//!
//! Source: Keshav 1991 §6.5 (keshav91-experiments.md §3.5): a sliding window of constant
//! size (the maximum window), no reaction to congestion, recovery purely by timeout:
//! "retransmits packets that have not been acknowledged before the timeout period has expired
//! and sets a new timeout period"; timeout = beta x rtt with beta ~ 2, rtt an exponential
//! average whose sample for a retransmitted packet runs from its *first* transmission (so
//! repeated losses inflate the timer: Keshav's "retransmission timer backoff"). No fast
//! retransmit.
//!
//! Choices where the source is silent (spec [REC], each a parameter in the scenario):
//! - `beta` = 2.0, srtt gain 1/8, first sample initialises srtt, initial timeout 2 s,
//!   no clamps (RFC 793's 1 s / 60 s bounds are available through min_rto / max_rto);
//! - `retransmit` = "expired": every packet has its own timer and exactly the expired ones
//!   are resent; "go_back_n" instead keeps one timer for the oldest packet and, when it
//!   expires, resends from the oldest unacknowledged packet onwards.

use super::{AckInfo, AckResponse, CongestionControl, TransportDefaults};
use crate::sim::PS_PER_SEC;
use crate::transport::rtt::{RtoConfig, RtoFormula, SampleFrom};
use crate::transport::sender::TimerMode;

#[derive(Clone, Debug)]
pub struct Generic {
    window: f64,
}

impl Generic {
    pub fn new(max_window: u32) -> Self {
        Generic { window: max_window as f64 }
    }

    pub fn defaults() -> TransportDefaults {
        TransportDefaults {
            rto: RtoConfig {
                formula: RtoFormula::Beta(2.0),
                sample_from: SampleFrom::First,
                karn: false,
                backoff: false,
                initial_rto: 2 * PS_PER_SEC,
                min_rto: 0,
                max_rto: u64::MAX / 4,
            },
            timers: TimerMode::PerPacket,
        }
    }
}

impl CongestionControl for Generic {
    fn cwnd(&self) -> f64 {
        self.window
    }
    fn on_new_ack(&mut self, _ack: &AckInfo) -> AckResponse {
        AckResponse::Nothing
    }
    fn on_dup_ack(&mut self, _count: u32, _ack: &AckInfo) -> bool {
        false
    }
    fn on_timeout(&mut self, _flight: u64, _high_sent: u64) {}
}
