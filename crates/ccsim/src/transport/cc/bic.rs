//! BIC TCP: after a loss, a binary search for the window between where the loss came (W_max) and
//! where the reduction left it; past W_max, the same search mirrored to probe for more.
//!
//! Source: Xu, Harfoush and Rhee, "Binary increase congestion control (BIC) for fast long-distance
//! networks", IEEE INFOCOM 2004, one of the TCPs Cui §2.2.3 reviews ("BIC/CUBIC TCP search a
//! suitable window size between two limits"). Per round trip, below W_max the window moves to
//! the midpoint (W_max + cwnd)/2, by at most S_max = 32 and at least S_min = 0.01 packets
//! (additive increase far from W_max, binary search near it); at or above W_max it grows by its
//! distance past W_max, at least S_min and at most S_max (the search mirrored: slow, then
//! exponential, then linear). A loss: W_max = cwnd, or cwnd (2 − β)/2 below the last W_max
//! (fast convergence), and the window keeps 1 − β, β = 0.125. Below the low window (14 packets)
//! Reno's rules.
//!
//! Choices where the source is silent, each a parameter or stated here: a round trip's
//! increase is spread over its ACKs (inc/cwnd per ACK, as Linux's module); loss recovery is
//! SACK's (`sack_aimd.rs`); a timeout keeps the same ssthresh (held at a repeated one) and restarts
//! from 1.

use super::loss::LossConfig;
use super::sack_loss::{decode_loss, sack_sender_defaults};
use super::sack_aimd::{SackAimd, WindowRule};
use super::Algorithm;
use crate::scenario::decode::Result;
use crate::scenario::params::Params;
use crate::sim::SimTime;
use crate::transport::config::SenderConfig;

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BicConfig {
    pub loss: LossConfig,
    pub s_max: f64,
    pub s_min: f64,
    pub beta: f64,
    pub low_window: f64,
    pub fast_convergence: bool,
}

impl Default for BicConfig {
    fn default() -> Self {
        BicConfig { loss: LossConfig::default(), s_max: 32.0, s_min: 0.01, beta: 0.125, low_window: 14.0, fast_convergence: true }
    }
}

#[derive(Clone, Copy, Debug)]
pub struct BicRule {
    cfg: BicConfig,
    /// The window where the last loss came (0: none yet).
    w_max: f64,
}

impl BicRule {
    /// The increase per round trip at `cwnd`.
    pub fn per_rtt(&self, cwnd: f64) -> f64 {
        let c = &self.cfg;
        if cwnd <= c.low_window || self.w_max <= 0.0 {
            return 1.0;
        }
        let step = if cwnd < self.w_max { (self.w_max - cwnd) / 2.0 } else { cwnd - self.w_max };
        step.clamp(c.s_min, c.s_max)
    }
}

impl WindowRule for BicRule {
    fn increase(&mut self, cwnd: f64, _now: SimTime) -> f64 {
        self.per_rtt(cwnd) / cwnd
    }
    fn decrease(&mut self, cwnd: f64, _now: SimTime) -> f64 {
        let c = &self.cfg;
        if cwnd <= c.low_window {
            self.w_max = cwnd;
            return cwnd / 2.0;
        }
        self.w_max = if c.fast_convergence && cwnd < self.w_max { cwnd * (2.0 - c.beta) / 2.0 } else { cwnd };
        cwnd * (1.0 - c.beta)
    }
}

pub type Bic = SackAimd<BicRule>;

impl Algorithm for Bic {
    const NAME: &'static str = "bic";
    const SUMMARY: &'static str = "BIC TCP (Xu, Harfoush and Rhee 2004; Cui §2.2.3 reviews it): a binary search towards the window of the last loss, mirrored beyond it";
    type Config = BicConfig;

    fn sender_defaults() -> SenderConfig {
        sack_sender_defaults()
    }

    fn decode(p: &mut Params, sender: &mut SenderConfig) -> Result<BicConfig> {
        let loss = decode_loss(p, sender)?;
        let d = BicConfig::default();
        let s_max = p.number_above("s_max", d.s_max, 0.0, 1e9, "largest increase per round trip, packets (S_max)")?;
        let s_min = p.number_above("s_min", d.s_min, 0.0, 1e9, "smallest increase per round trip, packets (S_min)")?;
        if s_min > s_max {
            return Err(p.error("s_min", format!("expected at most s_max ({s_max}), got {s_min}")));
        }
        Ok(BicConfig {
            loss,
            s_max,
            s_min,
            beta: p.number_above("beta", d.beta, 0.0, 1.0, "the fraction of the window a loss takes, in (0, 1)")?,
            low_window: p.number("low_window", d.low_window, 0.0, 1e9, "window, packets, at or below which Reno's rules apply")?,
            fast_convergence: p.flag("fast_convergence", d.fast_convergence, "a loss below the last W_max sets W_max to cwnd (2 - beta)/2")?,
        })
    }

    fn build(cfg: &BicConfig, max_window: u32) -> Self {
        SackAimd::new(BicRule { cfg: *cfg, w_max: 0.0 }, cfg.loss.initial_cwnd, cfg.loss.dupack_threshold, max_window)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_search_is_additive_far_from_w_max_binary_near_it_and_mirrored_beyond() {
        let mut r = BicRule { cfg: BicConfig::default(), w_max: 0.0 };
        assert_eq!(r.decrease(1000.0, 0), 875.0);
        assert_eq!(r.w_max, 1000.0);
        assert_eq!(r.per_rtt(875.0), 32.0, "far below: S_max");
        assert_eq!(r.per_rtt(980.0), 10.0, "near: half the distance");
        assert_eq!(r.per_rtt(999.999), 0.01, "at it: S_min");
        assert_eq!((r.per_rtt(1004.0), r.per_rtt(1100.0)), (4.0, 32.0), "beyond: the distance, up to S_max");
        // Round trip by round trip from 875: S_max twice, then half the distance each time.
        let (mut w, mut path) = (875.0, vec![]);
        for _ in 0..6 {
            w += r.per_rtt(w);
            path.push(w);
        }
        assert_eq!(&path[..4], &[907.0, 939.0, 969.5, 984.75]);
        assert!(path[5] < 1000.0 && path[5] > 995.0, "{path:?}");
        // Fast convergence: a loss below the last W_max.
        r.decrease(900.0, 0);
        assert_eq!(r.w_max, 900.0 * 1.875 / 2.0);
        assert_eq!((r.per_rtt(10.0), r.decrease(10.0, 0)), (1.0, 5.0), "Reno below 14 packets");
    }
}
