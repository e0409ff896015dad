//! HighSpeed TCP: Reno's rules at small windows, and above them an increase that grows and a
//! decrease that shrinks with the window, for the response function w = 0.12 / p^0.835.
//!
//! Source: RFC 3649 (Floyd 2003), one of the high-speed TCPs Cui §2.2.3 reviews ("adjust the
//! congestion window increasing rate based on ... the current congestion window size"). Above
//! Low_Window = 38 packets, with x = (ln w − ln 38)/(ln 83000 − ln 38):
//!
//!   b(w) = (0.1 − 0.5) x + 0.5,   p(w) = exp(x (ln 10⁻⁷ − ln 10⁻³) + ln 10⁻³),
//!   a(w) = w² p(w) 2 b(w) / (2 − b(w))                                             (RFC 3649 §5)
//!
//! each ACK adds a(w)/w and a loss keeps (1 − b(w)) w; at or below 38, a = 1 and b = 0.5; above
//! High_Window they keep their values there (a choice: the RFC stops at it). Loss
//! recovery is SACK's (`sack_aimd.rs`); a timeout keeps ssthresh as a loss would (held at a repeated
//! one) and restarts from 1. The RFC's constants are parameters (`low_window`, `high_window`, `high_decrease`,
//! `high_p`; Low_P is Reno's drop rate at Low_Window, (1.2/38)² ≈ 10⁻³, as the RFC sets it).

use super::loss::LossConfig;
use super::sack_loss::{decode_loss, sack_sender_defaults};
use super::sack_aimd::{SackAimd, WindowRule};
use super::Algorithm;
use crate::scenario::decode::Result;
use crate::scenario::params::Params;
use crate::sim::SimTime;
use crate::transport::config::SenderConfig;

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct HstcpConfig {
    pub loss: LossConfig,
    pub low_window: f64,
    pub high_window: f64,
    pub high_decrease: f64,
    pub high_p: f64,
}

impl Default for HstcpConfig {
    fn default() -> Self {
        HstcpConfig { loss: LossConfig::default(), low_window: 38.0, high_window: 83_000.0, high_decrease: 0.1, high_p: 1e-7 }
    }
}

#[derive(Clone, Copy, Debug)]
pub struct HighSpeed(HstcpConfig);

impl HighSpeed {
    /// (a(w), b(w)) of RFC 3649 §5.
    pub fn a_b(&self, w: f64) -> (f64, f64) {
        let c = &self.0;
        if w <= c.low_window {
            return (1.0, 0.5);
        }
        // Above High_Window the RFC's curve would take b below High_Decrease and on to zero:
        // a(w) and b(w) stay at their High_Window values (as Linux's table ends).
        let w = w.min(c.high_window);
        let x = (w.ln() - c.low_window.ln()) / (c.high_window.ln() - c.low_window.ln());
        let b = (c.high_decrease - 0.5) * x + 0.5;
        let low_p = (1.2 / c.low_window).powi(2);
        let p = (x * (c.high_p.ln() - low_p.ln()) + low_p.ln()).exp();
        (w * w * p * 2.0 * b / (2.0 - b), b)
    }
}

impl WindowRule for HighSpeed {
    fn increase(&mut self, cwnd: f64, _now: SimTime) -> f64 {
        self.a_b(cwnd).0 / cwnd
    }
    fn decrease(&mut self, cwnd: f64, _now: SimTime) -> f64 {
        (1.0 - self.a_b(cwnd).1) * cwnd
    }
}

pub type Hstcp = SackAimd<HighSpeed>;

impl Algorithm for Hstcp {
    const NAME: &'static str = "hstcp";
    const SUMMARY: &'static str = "HighSpeed TCP (RFC 3649; Cui §2.2.3 reviews it): Reno up to 38 packets, then a(w) per window and b(w) off at a loss for w = 0.12/p^0.835";
    type Config = HstcpConfig;

    fn sender_defaults() -> SenderConfig {
        sack_sender_defaults()
    }

    fn decode(p: &mut Params, sender: &mut SenderConfig) -> Result<HstcpConfig> {
        let loss = decode_loss(p, sender)?;
        let d = HstcpConfig::default();
        let low_window = p.number_above("low_window", d.low_window, 1.0, 1e9, "window, packets, up to which Reno's rules apply (Low_Window)")?;
        let high_window =
            p.number_above("high_window", d.high_window, 1.0, 1e12, "window, packets, at which the decrease reaches high_decrease (High_Window)")?;
        if high_window <= low_window {
            return Err(p.error("high_window", format!("expected more than low_window ({low_window}), got {high_window}")));
        }
        Ok(HstcpConfig {
            loss,
            low_window,
            high_window,
            high_decrease: p.number_above("high_decrease", d.high_decrease, 0.0, 0.5, "the fraction a loss takes at high_window (High_Decrease)")?,
            high_p: p.number_above("high_p", d.high_p, 0.0, 1.0, "the drop rate the response function gives at high_window (High_P)")?,
        })
    }

    fn build(cfg: &HstcpConfig, max_window: u32) -> Self {
        SackAimd::new(HighSpeed(*cfg), cfg.loss.initial_cwnd, cfg.loss.dupack_threshold, max_window)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_and_b_match_rfc_3649s_table() {
        // RFC 3649's table of (w, a(w), b(w)), each row the window where a(w) reaches the next
        // whole packet: 38 1 0.50, 118 2 0.44, 221 3 0.41, 347 4 0.38, 495 5 0.37, 663 6 0.35,
        // 851 7 0.34, 1058 8 0.33, 1284 9 0.32, 1529 10 0.31, ..., 83333 72 0.10.
        let h = HighSpeed(HstcpConfig::default());
        let table = [
            (38.0, 1.0, 0.50),
            (118.0, 2.0, 0.44),
            (221.0, 3.0, 0.41),
            (347.0, 4.0, 0.38),
            (495.0, 5.0, 0.37),
            (663.0, 6.0, 0.35),
            (851.0, 7.0, 0.34),
            (1058.0, 8.0, 0.33),
            (1284.0, 9.0, 0.32),
            (1529.0, 10.0, 0.31),
            (83333.0, 72.0, 0.10),
        ];
        for (w, a, b) in table {
            let (ca, cb) = h.a_b(w);
            assert!(ca >= a && ca < a + 0.6, "a({w}) = {ca}, RFC {a}");
            assert!((cb - b).abs() <= 0.005, "b({w}) = {cb}, RFC {b}");
        }
        assert_eq!(h.a_b(20.0), (1.0, 0.5));
        // Beyond High_Window: held, never a growing window at a loss.
        let (a, b) = h.a_b(1_000_000.0);
        assert!((b - 0.1).abs() < 1e-9 && a > 72.0 && a < 73.0, "{a} {b}");
        let mut rule = h;
        assert!(rule.decrease(1_000_000.0, 0) < 1_000_000.0);
    }
}
