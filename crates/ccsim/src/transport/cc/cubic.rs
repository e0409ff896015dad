//! CUBIC: the window grows as a cubic function of the time since the last reduction, flat
//! around the window where the last loss came and steep away from it.
//!
//! Source: RFC 9438 (Xu, Ha, Rhee, Goel and Eggert 2023; Ha, Rhee and Xu, "CUBIC: a new
//! TCP-friendly high-speed TCP variant", ACM SIGOPS OSR 42(5), 2008), one of the high-speed
//! TCPs Cui §2.2.3 reviews ("BIC/CUBIC TCP search a suitable window size between two limits";
//! all of them "decrease the window size by a factor when a loss occurs" and "revert to TCP
//! Reno at small window sizes"). In congestion avoidance, t seconds into the current epoch:
//!
//!   W_cubic(t) = C (t − K)³ + W_max,   K = ∛((W_max − cwnd_epoch) / C)              (RFC 9438 §4.2)
//!
//! each ACK moves cwnd by (target − cwnd)/cwnd towards target = W_cubic(t + RTT), held within
//! [cwnd, 1.5 cwnd]; where W_cubic(t) is below W_est, Reno's window estimated with the increase
//! α = 3(1 − β)/(1 + β) per window (1 once W_est reaches cwnd_prior, the window the last
//! reduction found), cwnd = W_est (§4.3, the
//! "Reno-friendly region"). A loss or an ECN mark: W_max = cwnd, or cwnd (1 + β)/2 if cwnd is
//! below the last W_max (fast convergence, §4.7); ssthresh = cwnd = max(β cwnd, 2) (§4.6).
//! Slow start below ssthresh, +1 per ACK. A timeout: ssthresh as at a loss (held, with W_max,
//! when the same packet times out again: `sack_aimd.rs`), cwnd = 1, and the first epoch after
//! it starts with K = 0 and W_max = its starting window (§4.8).
//!
//! Choices where the RFC leaves room, each a parameter or stated here:
//! - `c` = 0.4, `beta` = 0.7, `fast_convergence` = true, `reno_friendly` = true (the RFC's);
//! - loss recovery is SACK's, as ns-2's Sack1 (`sack_aimd.rs`, `sack_loss.rs`, the sender's
//!   scoreboard): one reduction per window of data, none inside the window of the last; the
//!   window does not grow during a recovery; the epoch starts at the first ACK of congestion
//!   avoidance after it;
//! - RTT in W_cubic(t + RTT) is the algorithm's own smoothed RTT (gain 1/8) of samples from
//!   packets sent once; 0 before the first;
//! - one ACK counts as one packet acknowledged (as the other window algorithms here);
//! - HyStart++ (which the RFC allows in slow start) is not modelled.

use super::loss::LossConfig;
use super::sack_aimd::{AckRtts, SackAimd, WindowRule};
use super::sack_loss::{decode_loss, sack_sender_defaults};
use super::{AckInfo, Algorithm};
use crate::scenario::decode::Result;
use crate::scenario::params::Params;
use crate::sim::time::to_secs;
use crate::sim::SimTime;
use crate::transport::config::SenderConfig;

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CubicConfig {
    pub loss: LossConfig,
    /// C, packets per second cubed. 0.4.
    pub c: f64,
    /// β, the window kept at a reduction. 0.7.
    pub beta: f64,
    pub fast_convergence: bool,
    pub reno_friendly: bool,
}

impl Default for CubicConfig {
    fn default() -> Self {
        CubicConfig { loss: LossConfig::default(), c: 0.4, beta: 0.7, fast_convergence: true, reno_friendly: true }
    }
}

/// No epoch under way (the next ACK of congestion avoidance starts one).
const NO_EPOCH: SimTime = SimTime::MAX;

/// CUBIC's window law on the SACK frame (`sack_aimd.rs`).
#[derive(Clone, Debug)]
pub struct CubicRule {
    cfg: CubicConfig,
    /// W_max: the window before the last reduction, less with fast convergence (0: none yet).
    w_max: f64,
    /// cwnd_prior: the window the last reduction found (0: none yet).
    w_prior: f64,
    /// The current epoch: its start, K, and Reno's estimated window.
    epoch_start: SimTime,
    k: f64,
    w_est: f64,
    /// The first epoch after a timeout takes K = 0 and its starting window as W_max.
    after_timeout: bool,
    rtts: AckRtts,
}

pub type Cubic = SackAimd<CubicRule>;

impl Algorithm for Cubic {
    const NAME: &'static str = "cubic";
    const SUMMARY: &'static str =
        "CUBIC (RFC 9438; Cui §2.2.3 reviews it): the window a cubic function of the time since the last reduction, to beta = 0.7";
    type Config = CubicConfig;

    fn sender_defaults() -> SenderConfig {
        sack_sender_defaults()
    }

    fn decode(p: &mut Params, sender: &mut SenderConfig) -> Result<CubicConfig> {
        let loss = decode_loss(p, sender)?;
        let d = CubicConfig::default();
        Ok(CubicConfig {
            loss,
            c: p.number_above("c", d.c, 0.0, 1e6, "C of W_cubic(t) = C (t - K)^3 + W_max, packets per second cubed")?,
            beta: p.number_above("beta", d.beta, 0.0, 1.0, "the fraction of the window kept at a loss or an ECN mark, in (0, 1)")?,
            fast_convergence: p.flag("fast_convergence", d.fast_convergence, "a loss below the last W_max sets W_max to cwnd (1 + beta)/2, releasing bandwidth to newer flows (RFC 9438 §4.7)")?,
            reno_friendly: p.flag("reno_friendly", d.reno_friendly, "grow at least as Reno would with the same beta (RFC 9438 §4.3)")?,
        })
    }

    fn build(cfg: &CubicConfig, max_window: u32) -> Self {
        let rule = CubicRule {
            cfg: *cfg,
            w_max: 0.0,
            w_prior: 0.0,
            epoch_start: NO_EPOCH,
            k: 0.0,
            w_est: 0.0,
            after_timeout: false,
            rtts: AckRtts::default(),
        };
        SackAimd::new(rule, cfg.loss.initial_cwnd, cfg.loss.dupack_threshold, max_window)
    }
}

impl CubicRule {
    /// W_cubic(t), t seconds into the epoch.
    fn w_cubic(&self, t: f64) -> f64 {
        self.cfg.c * (t - self.k).powi(3) + self.w_max
    }
}

impl WindowRule for CubicRule {
    fn on_ack(&mut self, ack: &AckInfo, _recovering: bool) {
        self.rtts.sample(ack);
    }

    /// One ACK of congestion avoidance: the step towards W_cubic(t + RTT), or to W_est.
    fn increase(&mut self, cwnd: f64, now: SimTime) -> f64 {
        if self.epoch_start == NO_EPOCH {
            self.epoch_start = now;
            self.w_est = cwnd;
            if self.after_timeout || self.w_max <= 0.0 {
                self.w_max = cwnd;
                self.after_timeout = false;
            }
            self.k = ((self.w_max - cwnd) / self.cfg.c).cbrt();
        }
        let t = to_secs(now.saturating_sub(self.epoch_start));
        let rtt = if self.rtts.srtt.is_nan() { 0.0 } else { self.rtts.srtt };
        let target = self.w_cubic(t + rtt).clamp(cwnd, 1.5 * cwnd);
        if self.cfg.reno_friendly {
            let beta = self.cfg.beta;
            let alpha = if self.w_est >= self.w_prior { 1.0 } else { 3.0 * (1.0 - beta) / (1.0 + beta) };
            self.w_est += alpha / cwnd;
            if self.w_cubic(t) < self.w_est {
                return self.w_est - cwnd;
            }
        }
        (target - cwnd) / cwnd
    }

    /// A loss or an ECN mark (RFC 9438 §4.6-4.7): W_max, and β of the window kept.
    fn decrease(&mut self, w: f64, _now: SimTime) -> f64 {
        self.w_prior = w;
        self.w_max = if self.cfg.fast_convergence && w < self.w_max { w * (1.0 + self.cfg.beta) / 2.0 } else { w };
        self.epoch_start = NO_EPOCH;
        w * self.cfg.beta
    }

    fn on_timeout(&mut self, _now: SimTime) {
        self.after_timeout = true;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::PS_PER_SEC;
    use crate::transport::cc::{CongestionControl, TimeoutInfo};

    /// A flow in congestion avoidance: `w` packets acknowledged in each `rtt`, evenly, for
    /// `secs`; the window at each whole second.
    fn grow(c: &mut Cubic, rtt: f64, secs: u32) -> Vec<f64> {
        let mut now = 0.0;
        let mut at = vec![];
        let mut next_mark = 0.0;
        while now <= secs as f64 {
            let w = c.cwnd().floor().max(1.0);
            for i in 0..w as u64 {
                let t = now + rtt * (i as f64 + 1.0) / w;
                let ps = ((t + 1.0) * PS_PER_SEC as f64) as SimTime; // 1 s on: a sample's send time is positive
                c.on_new_ack(&AckInfo { now: ps, echo_tx: ps - (rtt * PS_PER_SEC as f64) as SimTime, ack: 1, ..AckInfo::default() });
                if t >= next_mark {
                    at.push(c.cwnd());
                    next_mark += 1.0;
                }
            }
            now += rtt;
        }
        at
    }

    fn after_loss_at(w: f64, cfg: CubicConfig) -> Cubic {
        let mut c = Cubic::build(&cfg, 1_000_000);
        c.cwnd = w;
        c.ssthresh = 1.0; // in congestion avoidance
        c.on_dup_ack(3, &AckInfo { ack: 1, high_sent: 100, ..AckInfo::default() });
        c.on_new_ack(&AckInfo { ack: 100, ..AckInfo::default() }); // the recovery ends
        c
    }

    #[test]
    fn a_loss_keeps_beta_and_the_window_returns_to_w_max_after_k() {
        let mut c = after_loss_at(1000.0, CubicConfig::default());
        assert_eq!((c.cwnd(), c.ssthresh(), c.rule.w_max), (700.0, 700.0, 1000.0));
        // K = cbrt(300 / 0.4) = 9.09 s: the window is flat near W_max there, then grows again.
        let w = grow(&mut c, 0.1, 14);
        let k = (300.0f64 / 0.4).cbrt();
        let at = |t: usize| w[t];
        assert!((at(9) - 1000.0).abs() < 15.0, "at 9 s: {}", at(9));
        assert!(at(4) > 880.0 && at(4) < 980.0, "concave: most of the way back at 4 s, {}", at(4));
        assert!(at(13) - at(11) > at(10) - at(8), "convex beyond K = {k:.2} s: {w:?}");
    }

    #[test]
    fn fast_convergence_lowers_w_max_when_a_loss_comes_below_it() {
        let mut c = after_loss_at(1000.0, CubicConfig::default());
        c.cwnd = 800.0; // a second loss before the window got back to 1000
        c.on_dup_ack(3, &AckInfo { ack: 101, high_sent: 900, ..AckInfo::default() });
        assert_eq!(c.rule.w_max, 800.0 * 1.7 / 2.0);
        let mut slow = after_loss_at(1000.0, CubicConfig { fast_convergence: false, ..CubicConfig::default() });
        slow.cwnd = 800.0;
        slow.on_dup_ack(3, &AckInfo { ack: 101, high_sent: 900, ..AckInfo::default() });
        assert_eq!(slow.rule.w_max, 800.0);
    }

    #[test]
    fn short_round_trips_grow_at_least_as_reno_with_the_same_beta() {
        // W_max 20 at an RTT of 10 ms: the cubic curve stays below W_max for K = cbrt(6 / 0.4) =
        // 2.5 s, while Reno with beta 0.7 adds 3(0.3)/1.7 = 0.53 a round trip from 14 up to
        // W_max (0.11 s), then 1 a round trip: about 108 at 1 s.
        let mut c = after_loss_at(20.0, CubicConfig::default());
        let friendly = grow(&mut c, 0.01, 1);
        let mut p = after_loss_at(20.0, CubicConfig { reno_friendly: false, ..CubicConfig::default() });
        let pure = grow(&mut p, 0.01, 1);
        assert!(pure[1] < 20.0, "{pure:?}");
        assert!((95.0..115.0).contains(&friendly[1]), "{friendly:?}");
    }

    #[test]
    fn a_timeout_restarts_from_one_and_the_next_epoch_starts_flat() {
        let mut c = after_loss_at(100.0, CubicConfig::default());
        c.on_timeout(&TimeoutInfo { high_sent: 200, ..TimeoutInfo::default() });
        assert_eq!((c.cwnd(), c.ssthresh()), (1.0, 49.0));
        assert!(c.rule.after_timeout);
        c.cwnd = 49.0; // slow start reached ssthresh
        c.on_new_ack(&AckInfo { now: PS_PER_SEC, echo_tx: 0, ack: 201, ..AckInfo::default() });
        assert_eq!((c.rule.w_max, c.rule.k), (49.0, 0.0));
    }

    #[test]
    fn the_same_packet_timing_out_again_keeps_ssthresh_and_w_max() {
        let mut c = after_loss_at(100.0, CubicConfig::default());
        c.on_timeout(&TimeoutInfo { high_sent: 200, ..TimeoutInfo::default() });
        let (ssthresh, w_max) = (c.ssthresh(), c.rule.w_max);
        // No new ACK, the timer expires again (RFC 5681 §3.1, as Linux): nothing is reduced.
        c.on_timeout(&TimeoutInfo { high_sent: 200, repeated: true, ..TimeoutInfo::default() });
        assert_eq!((c.cwnd(), c.ssthresh(), c.rule.w_max), (1.0, ssthresh, w_max));
        // A new packet's timeout (not repeated) reduces from the window of 1: ssthresh 2.
        c.on_timeout(&TimeoutInfo { high_sent: 200, ..TimeoutInfo::default() });
        assert_eq!(c.ssthresh(), 2.0);
    }
}
