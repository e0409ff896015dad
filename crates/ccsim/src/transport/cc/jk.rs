//! JK: Jacobson-Karels congestion control as in 4.3BSD-Tahoe.
//!
//! Source: Keshav 1991 §6.5 and Scenario 3 (keshav91-experiments.md §3.6): Generic plus
//! adjustable windows, better timeout calculation and fast retransmit; the window "opens
//! exponentially, then linearly, until a loss drops it to one" (Tahoe: no fast recovery).
//! Details from Jacobson 1988 / 4.3BSD-Tahoe (spec [EXT]):
//! - cwnd starts at 1, ssthresh at the maximum window;
//! - each new ACK: cwnd += 1 below ssthresh, else cwnd += 1/cwnd;
//! - third duplicate ACK: fast retransmit, ssthresh = max(min(cwnd, maxwin)/2, 2), cwnd = 1
//!   (`ssthresh_from = "cwnd"`, 4.3BSD; "flight" halves the packets outstanding instead, as
//!   RFC 2581 does: a timeout that follows a fast retransmission then keeps about half the
//!   old window instead of 2. Measured on Keshav's scenarios in keshav91 finding
//!   S3-jkfq-slow-reopening);
//! - timeout: the same window change, RTO doubles, go back to the oldest unACKed packet;
//! - RTO = srtt + 2 x mean deviation (Keshav ch. 4's account of BSD; k = 4 via `rto_k`),
//!   Karn's rule, one timer per connection, continuous-time timers (spec §2.6 [REC]);
//! - a fast retransmission restarts the timer (`TimerMode::SingleBsd`), as 4.3BSD-Tahoe's
//!   `tcp_input` does (TCPT_REXMT cleared, re-armed by `tcp_output`). Without the restart,
//!   under FQ the retransmission waits behind the flow's own queue past the deadline of the
//!   last new ACK and is sent again, so Table 6.4's JK/FQ retransmission rate exceeds the
//!   drop rate, where the thesis has them equal;
//! - minimum RTO 1 s, 4.3BSD's TCPTV_MIN (two 500 ms ticks). The thesis is silent; without a
//!   floor, a Telnet's sparse samples drive srtt + 2 mdev below the next RTT and Scenario 1
//!   shows spurious retransmissions that Table 6.3 does not (`min_rto = "0s"` removes it).
//!
//! cwnd never grows past the maximum window (growth there could not be used).
//!
//! `fast_retransmit = false` leaves losses to the timeout: Liang 1991 reviews the scheme with
//! "Timeout is the only signal for packet loss" (§2.3.2) and has it add the third duplicate
//! ACK as a signal only in SEIF (§3.2.3), where Keshav's JK has fast retransmit.

use super::loss::{aimd_increase, LossConfig};
use super::{AckInfo, AckResponse, Algorithm, CongestionControl, TimeoutInfo};
use crate::scenario::decode::Result;
use crate::scenario::params::Params;
use crate::sim::PS_PER_SEC;
use crate::transport::config::{PacingRtt, SenderConfig, TimerMode};
use crate::transport::rtt::{RtoConfig, RtoFormula, RttSamples, SampleFrom, SamplePacket};

/// JK's parameters.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct JkConfig {
    pub loss: LossConfig,
    /// Halve the packets outstanding (true) rather than cwnd (false, 4.3BSD) on a loss.
    pub ssthresh_from_flight: bool,
    /// Retransmit at `dupack_threshold` duplicate ACKs. true (Keshav 1991).
    pub fast_retransmit: bool,
}

impl Default for JkConfig {
    fn default() -> Self {
        JkConfig { loss: LossConfig::default(), ssthresh_from_flight: false, fast_retransmit: true }
    }
}

#[derive(Clone, Debug)]
pub struct Jk {
    cwnd: f64,
    ssthresh: f64,
    max_window: f64,
    /// The duplicate ACK that triggers a fast retransmission (u32::MAX: none).
    dupack_threshold: u32,
    ssthresh_from_flight: bool,
}

impl Algorithm for Jk {
    const NAME: &'static str = "jk";
    const SUMMARY: &'static str = "Jacobson-Karels as in 4.3BSD-Tahoe (Keshav 1991 §6.5): slow start, congestion avoidance, fast retransmit";
    type Config = JkConfig;

    fn sender_defaults() -> SenderConfig {
        SenderConfig {
            rto: RtoConfig {
                formula: RtoFormula::MeanDev(2.0),
                sample_from: SampleFrom::Last,
                sample_packet: SamplePacket::Echoed,
                karn: true,
                samples: RttSamples::OnePerAck,
                backoff: true,
                initial_rto: 2 * PS_PER_SEC,
                min_rto: PS_PER_SEC,
                max_rto: 64 * PS_PER_SEC,
                granularity: 0,
            },
            timers: TimerMode::SingleBsd,
            own_ack_stops_timer: false,
            pacing: false,
            pacing_rtt: PacingRtt::Srtt,
            ecn: false,
            sack: None,
        }
    }

    fn decode(p: &mut Params, sender: &mut SenderConfig) -> Result<JkConfig> {
        let loss = LossConfig::decode(p, sender)?;
        let ssthresh_from_flight = p.choice(
            "ssthresh_from",
            false,
            &[("cwnd", false), ("flight", true)],
            "what a loss halves into ssthresh: cwnd (4.3BSD) or the packets outstanding (RFC 2581)",
        )?;
        let fast_retransmit = p.flag(
            "fast_retransmit",
            true,
            "retransmit at dupack_threshold duplicate ACKs (false: only a timeout signals a loss, as Liang 1991 §2.3 reviews Slow Start; dupack_threshold is then unused)",
        )?;
        Ok(JkConfig { loss, ssthresh_from_flight, fast_retransmit })
    }

    fn build(cfg: &JkConfig, max_window: u32) -> Self {
        Jk {
            cwnd: cfg.loss.initial_cwnd,
            ssthresh: max_window as f64,
            max_window: max_window as f64,
            dupack_threshold: if cfg.fast_retransmit { cfg.loss.dupack_threshold } else { u32::MAX },
            ssthresh_from_flight: cfg.ssthresh_from_flight,
        }
    }
}

impl Jk {
    fn collapse(&mut self, flight: u64) {
        let w = if self.ssthresh_from_flight { flight as f64 } else { self.cwnd };
        self.ssthresh = (w.min(self.max_window) / 2.0).floor().max(2.0);
        self.cwnd = 1.0;
    }
}

impl CongestionControl for Jk {
    fn cwnd(&self) -> f64 {
        self.cwnd
    }
    fn ssthresh(&self) -> f64 {
        self.ssthresh
    }
    fn on_new_ack(&mut self, _ack: &AckInfo) -> AckResponse {
        self.cwnd = aimd_increase(self.cwnd, self.ssthresh, self.max_window);
        AckResponse::Nothing
    }
    fn on_dup_ack(&mut self, count: u32, ack: &AckInfo) -> bool {
        if count == self.dupack_threshold {
            self.collapse(ack.flight_before);
            true
        } else {
            false
        }
    }
    fn on_timeout(&mut self, t: &TimeoutInfo) {
        self.collapse(t.flight);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dup(flight: u64) -> AckInfo {
        AckInfo { flight_before: flight, high_sent: flight, ..AckInfo::default() }
    }

    #[test]
    fn a_timeout_after_a_fast_retransmission() {
        // Window 40 full, a loss: fast retransmit halves to 20 either way; the timeout that
        // follows (cwnd back near 1, 37 packets still outstanding) takes ssthresh to 2 under
        // 4.3BSD's rule and to 18 under the flight-size rule.
        for (flight_rule, want) in [(false, 2.0), (true, 18.0)] {
            let loss = LossConfig { initial_cwnd: 40.0, dupack_threshold: 3 };
            let mut jk = Jk::build(&JkConfig { loss, ssthresh_from_flight: flight_rule, fast_retransmit: true }, 40);
            for n in 1..=3 {
                jk.on_dup_ack(n, &dup(40));
            }
            assert_eq!((jk.cwnd(), jk.ssthresh()), (1.0, 20.0));
            jk.on_timeout(&TimeoutInfo { flight: 37, high_sent: 40, ..TimeoutInfo::default() });
            assert_eq!((jk.cwnd(), jk.ssthresh()), (1.0, want), "flight rule {flight_rule}");
        }
    }

    #[test]
    fn without_fast_retransmit_only_a_timeout_cuts() {
        let cfg = JkConfig { fast_retransmit: false, ..JkConfig::default() };
        let mut jk = Jk::build(&JkConfig { loss: LossConfig { initial_cwnd: 20.0, dupack_threshold: 3 }, ..cfg }, 40);
        for n in 1..=10 {
            assert!(!jk.on_dup_ack(n, &dup(20)), "duplicate ACK {n} retransmits nothing");
        }
        assert_eq!(jk.cwnd(), 20.0);
        jk.on_timeout(&TimeoutInfo { flight: 20, high_sent: 20, ..TimeoutInfo::default() });
        assert_eq!((jk.cwnd(), jk.ssthresh()), (1.0, 10.0));
    }
}
