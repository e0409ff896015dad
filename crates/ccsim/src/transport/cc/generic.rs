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
//! - `retransmit` = "own_ack": every packet has its own timer, stopped by a cumulative ACK
//!   covering it or by the ACK that packet itself caused (the sink ACKs every packet and the
//!   ACK names it), so a packet received out of order behind a loss is not resent. This
//!   reading fits chapter 6 best (drop = retransmission rate in every G cell; S2 G/FCFS
//!   segregation and Telnet shut-out; S3 G/FCFS; the scores of both readings are in keshav91
//!   finding S2-generic-retransmission-reading). "expired": only cumulative ACKs stop timers,
//!   so the packets held by the sink behind a hole are resent too (S8's spurious
//!   retransmissions fit this one better); "go_back_n": one timer for the oldest packet and,
//!   when it expires, resend from the oldest unacknowledged packet onwards;
//! - `rtt_samples` = "every_acked": an ACK that newly acknowledges several packets gives one
//!   sample per packet, each from its own first transmission. After a repaired hole the
//!   packets the sink held behind it count with their whole wait, so each loss lengthens the
//!   timer several times over: Keshav's "retransmission timer backoff", which Table 6.4's
//!   G/FQ loss rates and Scenario 5's PP/G FQ row need; "one_per_ack" samples only the packet
//!   whose ACK it is (both measured in keshav91 finding S2-generic-rtt-samples);
//! - `sample_packet` = "cumulative": an ACK's own sample (the delay metric; the estimator too
//!   under "one_per_ack") times the packet its cumulative number names, the last one received
//!   in order, as a source does that keeps only a send time per window slot and looks it up
//!   by the ACK number (REAL's generic(), whose listing in the REAL 5.0 Programmer's Manual
//!   declares `time_sent[MWS]` and `last_ack`; spec G9: "the send time of the acknowledged
//!   packet"). The duplicate ACKs behind a hole then time the packet before it, which
//!   Table 6.4's G/FQ RTTs need; "echoed", the packet that caused the ACK, is the other
//!   reading (keshav91 finding S2-generic-rtt-samples).

use super::{AckInfo, AckResponse, Algorithm, CongestionControl, TimeoutInfo};
use crate::scenario::decode::Result;
use crate::scenario::params::Params;
use crate::sim::PS_PER_SEC;
use crate::transport::config::{Retransmit, PacingRtt, SenderConfig, TimerMode};
use crate::transport::rtt::{RtoConfig, RtoFormula, RttSamples, SampleFrom, SamplePacket};

#[derive(Clone, Debug)]
pub struct Generic {
    window: f64,
}

impl Generic {
    pub fn new(max_window: u32) -> Self {
        Generic { window: max_window as f64 }
    }
}

impl Algorithm for Generic {
    const NAME: &'static str = "generic";
    const SUMMARY: &'static str = "Keshav 1991 §6.5: a fixed window, recovery by timeout only";
    type Config = ();

    fn sender_defaults() -> SenderConfig {
        SenderConfig {
            rto: RtoConfig {
                formula: RtoFormula::Beta(2.0),
                sample_from: SampleFrom::First,
                sample_packet: SamplePacket::Cumulative,
                karn: false,
                samples: RttSamples::EveryAcked,
                backoff: false,
                initial_rto: 2 * PS_PER_SEC,
                min_rto: 0,
                max_rto: u64::MAX / 4,
                granularity: 0,
            },
            timers: TimerMode::PerPacket,
            own_ack_stops_timer: true,
            pacing: false,
            pacing_rtt: PacingRtt::Srtt,
            ecn: false,
            sack: None,
        }
    }

    fn decode(p: &mut Params, sender: &mut SenderConfig) -> Result<()> {
        sender.decode_beta(p, "beta", 0.0, "beta of timeout = beta x srtt")?;
        let r = p.choice(
            "retransmit",
            Retransmit::OwnAck,
            &[("expired", Retransmit::Expired), ("own_ack", Retransmit::OwnAck), ("go_back_n", Retransmit::GoBackN)],
            "which packets a timeout resends",
        )?;
        if p.given("retransmit") {
            r.apply(sender, TimerMode::PerPacket);
        }
        Ok(())
    }

    fn build(_cfg: &(), max_window: u32) -> Self {
        Generic::new(max_window)
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
    fn on_timeout(&mut self, _t: &TimeoutInfo) {}
}
