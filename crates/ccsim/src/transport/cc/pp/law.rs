//! PP_CTH's control laws (Keshav 1991 ch. 5; spec keshav91-fq-packet-pair.md M5.3-M5.4, §6 A1).
//!
//! - `law = "per_probe"` (default; §5.7, chapter 6): (5.14) on every probe,
//!   λ = μ̂ + (n* − n̂_b)/J with n̂_b = S − R·μ̂.
//! - `law = "epoch"`: §5.3's per-epoch law (5.9) with §5.3.5's loop gain α (`epoch_gain`, 0.9
//!   "from simulation"):
//!   λ(k+1) = (α/RTT(k))·[n* − n̂_b(k) − S(k) + 2·μ̂(k)·RTT(k)],
//!   n* standing for the thesis's B/2 (`setpoint`). Choices where the thesis is silent:
//!   - an epoch is one round trip: the rate is recomputed at the first probe at least RTT(k)
//!     after the last recomputation and held in between; RTT(k) is the smoothed RTT (R
//!     before the first sample);
//!   - n̂_b(k), the queue at the start of epoch k, is the estimate S − R·μ̂ (§5.7, M5.8) made
//!     when epoch k began (0 for the first), and S(k) the packets outstanding at its end;
//!   - with S(k) = λ(k)·RTT(k) the loop is n_b(k+2) = (1 − α)·n_b(k+1) + α·n* − (1 − α)·μ·RTT:
//!     deadbeat at α = 1 (App. 5.A), and for α < 1 stable on the biased queue
//!     α·n* − (1 − α)·μR, not n* (spec A1: the thesis's z-domain analysis calls α = 1
//!     marginally stable). Law (5.14) has no such offset.

use super::drift::accumulate;
use super::{Horizon, PacketPair, PAIR};
use crate::sim::time::from_secs;
use crate::sim::SimTime;

/// Which control law sets the sending rate (scenario `law`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Law {
    /// (5.14) at every probe.
    PerProbe,
    /// (5.9) once an epoch, with loop gain `epoch_gain`.
    Epoch,
}

/// Law (5.9): the rate for the next epoch from n̂_b(k), S(k), μ̂(k) and RTT(k).
pub fn law_5_9(gain: f64, setpoint: f64, n_b: f64, s: f64, mu: f64, rtt: f64) -> f64 {
    gain / rtt * (setpoint - n_b - s + 2.0 * mu * rtt)
}

impl PacketPair {
    /// A probe's rate update under the configured law: λ (at least `rate_floor`; the floor
    /// while μ̂ is unusable) and the pair interval 2/λ.
    pub(super) fn update_rate(&mut self, s: f64, r: f64, now: SimTime) {
        let rate = match self.cfg.law {
            Law::PerProbe => self.law_5_14(s, r),
            Law::Epoch if now < self.epoch_end => return, // the epoch's rate holds
            Law::Epoch => self.law_epoch(s, r, now),
        };
        let floor = self.cfg.rate_floor.max(1e-9);
        self.rate = if rate.is_finite() { rate.max(floor) } else { floor };
        self.interval = from_secs(PAIR as f64 / self.rate).max(1);
    }

    /// μ̂ when it can be used (finite and positive).
    fn usable_mu(&self) -> Option<f64> {
        Some(self.mu_hat).filter(|m| m.is_finite() && *m > 0.0)
    }

    /// Law (5.9) at the end of an epoch; NaN without a usable μ̂.
    fn law_epoch(&mut self, s: f64, r: f64, now: SimTime) -> f64 {
        let rtt = self.srtt.unwrap_or(r).max(1e-9);
        if let Some(acc) = self.acc.as_mut() {
            // §5.2: S(k) is what epoch k sent; n̂_b accumulates (drift.rs).
            let sent = acc.end_epoch();
            let mu = self.usable_mu();
            let rate = mu.map_or(f64::NAN, |mu| law_5_9(self.cfg.epoch_gain, self.cfg.setpoint, self.epoch_n_b, sent, mu, rtt));
            if let Some(mu) = mu {
                self.epoch_n_b = accumulate(self.epoch_n_b, sent, rtt, mu, 2.0 * self.cfg.setpoint);
            }
            self.n_b_hat = self.epoch_n_b;
            self.epoch_end = now.saturating_add(from_secs(rtt).max(1));
            return rate;
        }
        let rate = self.usable_mu().map_or(f64::NAN, |mu| law_5_9(self.cfg.epoch_gain, self.cfg.setpoint, self.epoch_n_b, s, mu, rtt));
        self.n_b_hat = s - r * self.mu_hat;
        self.epoch_n_b = if self.n_b_hat.is_finite() { self.n_b_hat } else { 0.0 };
        self.epoch_end = now.saturating_add(from_secs(rtt).max(1));
        rate
    }

    /// Law (5.14); NaN without a usable μ̂.
    fn law_5_14(&mut self, s: f64, r: f64) -> f64 {
        let Some(mu) = self.usable_mu() else { return f64::NAN };
        self.n_b_hat = s - r * mu;
        let j = match self.cfg.horizon {
            Horizon::RPlusSOverMu => r + s / mu,
            Horizon::SOverMu => (s / mu).max(r),
            Horizon::Srtt => self.srtt.unwrap_or(r),
            Horizon::Fixed(j) => j,
        };
        mu + (self.cfg.setpoint - self.n_b_hat) / j.max(1e-9)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn law_5_9_is_appendix_5a_at_unit_gain() {
        // V21: constant mu, exact estimate, alpha = 1, the queue empty at the epoch's start and
        // the pipe full (S = mu RTT): lambda = mu + (B/2)/RTT, which queues B/2 in one epoch.
        let (mu, rtt, half_b) = (125.0, 0.05, 5.0);
        let lambda = law_5_9(1.0, half_b, 0.0, mu * rtt, mu, rtt);
        assert!((lambda - (mu + half_b / rtt)).abs() < 1e-9);
        // At the setpoint with the pipe full it holds mu; the gain scales the whole bracket.
        assert!((law_5_9(1.0, half_b, half_b, mu * rtt, mu, rtt) - mu).abs() < 1e-9);
        assert!((law_5_9(0.9, half_b, half_b, mu * rtt, mu, rtt) - 0.9 * mu).abs() < 1e-9);
    }
}
