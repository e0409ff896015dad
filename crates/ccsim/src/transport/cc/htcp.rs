//! H-TCP: the increase grows with the time since the last loss, and the decrease follows the
//! ratio of the least to the largest RTT.
//!
//! Source: Leith and Shorten, "H-TCP: TCP for high-speed and long-distance networks", PFLDnet
//! 2004, and the Internet-Draft draft-leith-tcp-htcp-06 (2008), one of the TCPs Cui §2.2.3
//! reviews ("adjust the congestion window increasing rate based on the time since last loss").
//! Δ seconds after the last reduction, each ACK adds α/cwnd with
//!
//!   α(Δ) = 1 for Δ ≤ Δ_L,  1 + 10(Δ − Δ_L) + ((Δ − Δ_L)/2)² above,  Δ_L = 1 s,
//!
//! scaled to 2(1 − β) α(Δ) (the draft's adjustment for the backoff factor β); a loss keeps
//! β = RTT_min/RTT_max of the window, within [0.5, 0.8] (adaptive backoff).
//!
//! Choices where the sources are silent or offer options, each a parameter or stated here:
//! `delta_l` = 1 s; `adaptive_backoff` = true (false: β = 0.5); RTT_max is measured since the
//! last reduction and RTT_min over the whole flow, from packets sent once outside recoveries
//! (as Linux's module; its 20 ms step filter on RTT_max is not modelled); before any
//! sample, β = 0.5; not modelled: the draft's throughput-change test on β and its RTT scaling
//! of α; Δ counts from the flow's
//! first ACK until the first loss; loss recovery is SACK's (`sack_aimd.rs`).

use super::loss::LossConfig;
use super::sack_loss::{decode_loss, sack_sender_defaults};
use super::sack_aimd::{AckRtts, SackAimd, WindowRule};
use super::{AckInfo, Algorithm};
use crate::scenario::decode::Result;
use crate::scenario::params::Params;
use crate::sim::time::to_secs;
use crate::sim::SimTime;
use crate::transport::config::SenderConfig;

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct HtcpConfig {
    pub loss: LossConfig,
    /// Δ_L, the time after a reduction during which growth is Reno's. 1 s.
    pub delta_l: SimTime,
    pub adaptive_backoff: bool,
}

impl Default for HtcpConfig {
    fn default() -> Self {
        HtcpConfig { loss: LossConfig::default(), delta_l: crate::sim::PS_PER_SEC, adaptive_backoff: true }
    }
}

/// No reduction yet: Δ counts from the first ACK.
const NOT_YET: SimTime = SimTime::MAX;

#[derive(Clone, Copy, Debug)]
pub struct HtcpRule {
    delta_l: f64,
    adaptive_backoff: bool,
    rtts: AckRtts,
    /// When the last reduction (or the first ACK) was.
    epoch: SimTime,
    beta: f64,
}

impl HtcpRule {
    /// α(Δ), Δ seconds since the last reduction, before the 2(1 − β) scaling.
    pub fn alpha(&self, delta: f64) -> f64 {
        let over = delta - self.delta_l;
        if over <= 0.0 {
            1.0
        } else {
            1.0 + 10.0 * over + (over / 2.0).powi(2)
        }
    }
}

impl WindowRule for HtcpRule {
    fn on_ack(&mut self, ack: &AckInfo, recovering: bool) {
        // RTTs from outside recoveries only (as Linux's module measures in its Open state).
        if !recovering {
            self.rtts.sample(ack);
        }
        if self.epoch == NOT_YET {
            self.epoch = ack.now;
        }
    }
    fn increase(&mut self, cwnd: f64, now: SimTime) -> f64 {
        let delta = if self.epoch == NOT_YET { 0.0 } else { to_secs(now.saturating_sub(self.epoch)) };
        2.0 * (1.0 - self.beta) * self.alpha(delta) / cwnd
    }
    fn decrease(&mut self, cwnd: f64, now: SimTime) -> f64 {
        if self.adaptive_backoff && !self.rtts.max.is_nan() {
            self.beta = (self.rtts.min / self.rtts.max).clamp(0.5, 0.8);
        }
        self.rtts.reset_max();
        self.epoch = now;
        self.beta * cwnd
    }
    /// Every timeout restarts Δ, a repeated one too (which keeps ssthresh and β: Linux's
    /// module resets its time of the last congestion at every timeout).
    fn on_timeout(&mut self, now: SimTime) {
        self.epoch = now;
    }
}

pub type Htcp = SackAimd<HtcpRule>;

impl Algorithm for Htcp {
    const NAME: &'static str = "htcp";
    const SUMMARY: &'static str = "H-TCP (Leith and Shorten 2004; Cui §2.2.3 reviews it): the increase grows with the time since the last loss, the decrease is RTT_min/RTT_max";
    type Config = HtcpConfig;

    fn sender_defaults() -> SenderConfig {
        sack_sender_defaults()
    }

    fn decode(p: &mut Params, sender: &mut SenderConfig) -> Result<HtcpConfig> {
        let loss = decode_loss(p, sender)?;
        let d = HtcpConfig::default();
        Ok(HtcpConfig {
            loss,
            delta_l: p.duration("delta_l", d.delta_l, "time after a reduction during which the window grows as Reno's (Delta_L)")?,
            adaptive_backoff: p.flag("adaptive_backoff", d.adaptive_backoff, "a loss keeps RTT_min/RTT_max of the window, within [0.5, 0.8] (false: a half)")?,
        })
    }

    fn build(cfg: &HtcpConfig, max_window: u32) -> Self {
        let rule = HtcpRule { delta_l: to_secs(cfg.delta_l), adaptive_backoff: cfg.adaptive_backoff, rtts: AckRtts::default(), epoch: NOT_YET, beta: 0.5 };
        SackAimd::new(rule, cfg.loss.initial_cwnd, cfg.loss.dupack_threshold, max_window)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::PS_PER_SEC;
    use crate::transport::cc::{CongestionControl, TimeoutInfo};

    fn rule() -> HtcpRule {
        HtcpRule { delta_l: 1.0, adaptive_backoff: true, rtts: AckRtts::default(), epoch: 0, beta: 0.5 }
    }

    #[test]
    fn alpha_grows_with_the_time_since_the_last_loss() {
        let mut r = rule();
        assert_eq!((r.alpha(0.5), r.alpha(1.0)), (1.0, 1.0));
        assert_eq!(r.alpha(3.0), 1.0 + 20.0 + 1.0);
        // With beta 0.5 the scaled increase is alpha itself: 22 packets a window at 3 s.
        assert!((r.increase(100.0, 3 * PS_PER_SEC) * 100.0 - 22.0).abs() < 1e-9);
    }

    #[test]
    fn the_backoff_is_the_ratio_of_the_least_to_the_largest_rtt() {
        let mut r = rule();
        let ms = PS_PER_SEC / 1000;
        for rtt in [100, 150, 120] {
            r.on_ack(&AckInfo { now: 10_000 * ms, echo_tx: (10_000 - rtt) * ms, ..AckInfo::default() }, false);
        }
        assert!((r.decrease(90.0, 20 * PS_PER_SEC) - 60.0).abs() < 1e-9, "beta = 100/150");
        // A queue that triples the RTT: beta held at 0.5.
        r.on_ack(&AckInfo { now: 30_000 * ms, echo_tx: (30_000 - 400) * ms, ..AckInfo::default() }, false);
        assert_eq!(r.decrease(90.0, 31 * PS_PER_SEC), 45.0);
        // Samples during a recovery do not count: a 1 s one leaves beta where RTT_max gives it.
        r.on_ack(&AckInfo { now: 35_000 * ms, echo_tx: 34_000 * ms, ..AckInfo::default() }, true);
        // No queue at all: at most 0.8.
        r.on_ack(&AckInfo { now: 40_000 * ms, echo_tx: (40_000 - 100) * ms, ..AckInfo::default() }, false);
        assert!((r.decrease(100.0, 41 * PS_PER_SEC) - 80.0).abs() < 1e-9);
    }

    #[test]
    fn every_timeout_restarts_the_time_since_the_last_loss() {
        // A repeated timeout keeps ssthresh but, as Linux's module, restarts delta: 0.5 s after
        // it alpha is 1, where counting from the first timeout (3 s earlier) would give 22.
        let mut h = Htcp::build(&HtcpConfig::default(), 1000);
        h.cwnd = 100.0;
        h.on_timeout(&TimeoutInfo { now: 10 * PS_PER_SEC, high_sent: 50, ..TimeoutInfo::default() });
        let ssthresh = h.ssthresh();
        assert_eq!(ssthresh, 50.0, "beta 0.5 of 100");
        h.on_timeout(&TimeoutInfo { now: 13 * PS_PER_SEC, high_sent: 50, repeated: true, ..TimeoutInfo::default() });
        assert_eq!(h.ssthresh(), ssthresh);
        let step = h.rule.increase(100.0, 13 * PS_PER_SEC + PS_PER_SEC / 2);
        assert!((step * 100.0 - 1.0).abs() < 1e-9, "alpha {}", step * 100.0);
    }
}
