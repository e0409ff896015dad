//! TCP Westwood+: Reno's increase, and at a loss a window sized to the bandwidth the ACKs
//! measured times the least RTT, not half of what it was.
//!
//! Source: Grieco and Mascolo, "Performance evaluation and comparison of Westwood+, New Reno,
//! and Vegas TCP congestion control", ACM CCR 34(2), 2004 (Mascolo et al., MobiCom 2001, for
//! Westwood), one of the TCPs Cui §2.2.3 reviews ("estimate the bandwidth by counting the ACKs.
//! If a packet is dropped, the Slow Start threshold is set at the maximum value between two and
//! the product of the estimated bandwidth and the minimum RTT"). Once a round trip the packets
//! acknowledged over its length give a sample b_k, filtered as BWE ← 0.9 BWE + 0.1 b_k
//! (Westwood+'s once-per-RTT sampling); a loss sets ssthresh = cwnd = max(2, BWE · RTT_min), a
//! timeout the same ssthresh (held at a repeated one) and cwnd = 1.
//!
//! Choices where the source is silent, each a parameter or stated here: a duplicate ACK counts
//! one packet delivered and the cumulative ACK that covers it counts that much less (Linux's
//! accounting), so the estimate goes on through a recovery; a round trip for the
//! sampling is the smoothed RTT, at least 50 ms (Linux's floor), from packets sent once; the
//! window a loss keeps is at most the window it found; before the first sample a loss halves
//! (Reno); loss recovery is SACK's (`sack_aimd.rs`).

use super::loss::LossConfig;
use super::sack_loss::{decode_loss, sack_sender_defaults};
use super::sack_aimd::{AckRtts, SackAimd, WindowRule};
use super::{AckInfo, Algorithm};
use crate::scenario::decode::Result;
use crate::scenario::params::Params;
use crate::sim::time::to_secs;
use crate::sim::SimTime;
use crate::transport::config::SenderConfig;

/// The least sampling period, seconds.
const MIN_PERIOD: f64 = 0.05;

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct WestwoodConfig {
    pub loss: LossConfig,
    /// The filter's weight on its past. 0.9.
    pub gain: f64,
}

impl Default for WestwoodConfig {
    fn default() -> Self {
        WestwoodConfig { loss: LossConfig::default(), gain: 0.9 }
    }
}

#[derive(Clone, Copy, Debug)]
pub struct WestwoodRule {
    gain: f64,
    rtts: AckRtts,
    /// Bandwidth estimate, packets per second (NaN before the first sample).
    bwe: f64,
    /// The sampling period under way: its start and the packets acknowledged in it.
    period_start: SimTime,
    acked: u64,
    /// Packets counted at duplicate ACKs that a later cumulative ACK will cover again.
    accounted: u64,
}

impl WestwoodRule {
    pub fn bandwidth(&self) -> f64 {
        self.bwe
    }

    /// `packets` more delivered at `now`; once a round trip, a sample into the estimate.
    fn count(&mut self, packets: u64, now: SimTime) {
        if self.period_start == SimTime::MAX {
            self.period_start = now;
        }
        self.acked += packets;
        let elapsed = to_secs(now.saturating_sub(self.period_start));
        let period = if self.rtts.srtt.is_nan() { MIN_PERIOD } else { self.rtts.srtt.max(MIN_PERIOD) };
        if elapsed >= period {
            let sample = self.acked as f64 / elapsed;
            self.bwe = if self.bwe.is_nan() { sample } else { self.gain * self.bwe + (1.0 - self.gain) * sample };
            self.period_start = now;
            self.acked = 0;
        }
    }
}

impl WindowRule for WestwoodRule {
    fn on_ack(&mut self, ack: &AckInfo, _recovering: bool) {
        self.rtts.sample(ack);
        // A cumulative ACK of several packets first pays back what duplicates counted.
        let newly = ack.newly_acked;
        let counted = if newly > 1 {
            let paid = self.accounted.min(newly - 1);
            self.accounted -= paid;
            newly - paid
        } else {
            newly
        };
        self.count(counted, ack.now);
    }
    fn on_dup_ack(&mut self, ack: &AckInfo) {
        // A duplicate ACK reports one more packet received (Westwood's dupack counting).
        self.accounted += 1;
        self.count(1, ack.now);
    }

    fn increase(&mut self, cwnd: f64, _now: SimTime) -> f64 {
        1.0 / cwnd
    }
    fn decrease(&mut self, cwnd: f64, _now: SimTime) -> f64 {
        if self.bwe.is_nan() || self.rtts.min.is_nan() {
            return cwnd / 2.0;
        }
        (self.bwe * self.rtts.min).clamp(2.0, cwnd.max(2.0))
    }
}

pub type Westwood = SackAimd<WestwoodRule>;

impl Algorithm for Westwood {
    const NAME: &'static str = "westwood";
    const SUMMARY: &'static str =
        "TCP Westwood+ (Grieco and Mascolo 2004; Cui §2.2.3 reviews it): Reno's increase; a loss sets the window to the ACK-measured bandwidth times the least RTT";
    type Config = WestwoodConfig;

    fn sender_defaults() -> SenderConfig {
        sack_sender_defaults()
    }

    fn decode(p: &mut Params, sender: &mut SenderConfig) -> Result<WestwoodConfig> {
        let loss = decode_loss(p, sender)?;
        let d = WestwoodConfig::default();
        Ok(WestwoodConfig {
            loss,
            gain: p.number("gain", d.gain, 0.0, 0.999, "the bandwidth filter's weight on its past estimate, once a round trip")?,
        })
    }

    fn build(cfg: &WestwoodConfig, max_window: u32) -> Self {
        let rule = WestwoodRule { gain: cfg.gain, rtts: AckRtts::default(), bwe: f64::NAN, period_start: SimTime::MAX, acked: 0, accounted: 0 };
        SackAimd::new(rule, cfg.loss.initial_cwnd, cfg.loss.dupack_threshold, max_window)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::PS_PER_SEC;

    #[test]
    fn a_loss_keeps_the_measured_bandwidth_times_the_least_rtt() {
        let cfg = WestwoodConfig::default();
        let mut r = WestwoodRule { gain: cfg.gain, rtts: AckRtts::default(), bwe: f64::NAN, period_start: SimTime::MAX, acked: 0, accounted: 0 };
        assert_eq!(r.decrease(40.0, 0), 20.0, "Reno before any estimate");
        // 1000 packets a second acknowledged one at a time, every RTT sample 100 ms.
        let ms = PS_PER_SEC / 1000;
        for i in 100..=5100u64 {
            let now = i * ms;
            r.on_ack(&AckInfo { now, echo_tx: now - 100 * ms, newly_acked: 1, ..AckInfo::default() }, false);
        }
        assert!((r.bandwidth() - 1000.0).abs() < 20.0, "{}", r.bandwidth());
        // A window of 300 (200 of them queued) falls to the pipe's 100, not to 150.
        assert!((r.decrease(300.0, 0) - 100.0).abs() < 2.0);
        assert!((r.decrease(60.0, 0) - 60.0).abs() < 1e-9, "never above the window it found");
        // Through a recovery: 9 duplicates then a cumulative ACK of 10 count 10 packets, not 19.
        let before = (r.acked, r.accounted);
        for _ in 0..9 {
            r.on_dup_ack(&AckInfo { now: 5_100 * ms, ..AckInfo::default() });
        }
        r.on_ack(&AckInfo { now: 5_100 * ms, echo_tx: 5_000 * ms, newly_acked: 10, ..AckInfo::default() }, false);
        assert_eq!((r.acked - before.0, r.accounted), (10, 0));
    }
}
