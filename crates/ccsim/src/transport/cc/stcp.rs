//! Scalable TCP: a fixed increase per ACK and a fixed fraction off at a loss, so the time to
//! recover from a loss does not grow with the window.
//!
//! Source: Kelly, "Scalable TCP: improving performance in highspeed wide area networks", ACM
//! CCR 33(2), 2003, one of the high-speed TCPs Cui §2.2.3 reviews ("a larger increasing rate and
//! a smaller decreasing factor"; all "revert to TCP Reno at small window sizes"). Above the
//! legacy window (16 packets) each ACK adds a = 0.01 packets and a loss takes b = 0.125 of the
//! window; at or below it, Reno's rules (+1/cwnd per ACK, half off). Loss recovery is SACK's
//! (`sack_aimd.rs`); a timeout keeps ssthresh as a loss would (held at a repeated one) and
//! restarts from 1.

use super::loss::LossConfig;
use super::sack_loss::{decode_loss, sack_sender_defaults};
use super::sack_aimd::{SackAimd, WindowRule};
use super::Algorithm;
use crate::scenario::decode::Result;
use crate::scenario::params::Params;
use crate::sim::SimTime;
use crate::transport::config::SenderConfig;

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct StcpConfig {
    pub loss: LossConfig,
    /// a: packets added per ACK. 0.01.
    pub a: f64,
    /// b: the fraction a loss takes. 0.125.
    pub b: f64,
    /// At or below this window, Reno's rules. 16.
    pub legacy_window: f64,
}

impl Default for StcpConfig {
    fn default() -> Self {
        StcpConfig { loss: LossConfig::default(), a: 0.01, b: 0.125, legacy_window: 16.0 }
    }
}

#[derive(Clone, Copy, Debug)]
pub struct Scalable(StcpConfig);

impl WindowRule for Scalable {
    fn increase(&mut self, cwnd: f64, _now: SimTime) -> f64 {
        if cwnd <= self.0.legacy_window {
            1.0 / cwnd
        } else {
            self.0.a
        }
    }
    fn decrease(&mut self, cwnd: f64, _now: SimTime) -> f64 {
        if cwnd <= self.0.legacy_window {
            cwnd / 2.0
        } else {
            cwnd * (1.0 - self.0.b)
        }
    }
}

pub type Stcp = SackAimd<Scalable>;

impl Algorithm for Stcp {
    const NAME: &'static str = "stcp";
    const SUMMARY: &'static str = "Scalable TCP (Kelly 2003; Cui §2.2.3 reviews it): +0.01 packets per ACK and 1/8 off at a loss above 16 packets, Reno below";
    type Config = StcpConfig;

    fn sender_defaults() -> SenderConfig {
        sack_sender_defaults()
    }

    fn decode(p: &mut Params, sender: &mut SenderConfig) -> Result<StcpConfig> {
        let loss = decode_loss(p, sender)?;
        let d = StcpConfig::default();
        Ok(StcpConfig {
            loss,
            a: p.number_above("a", d.a, 0.0, 1e3, "packets each ACK adds above the legacy window")?,
            b: p.number_above("b", d.b, 0.0, 1.0, "the fraction of the window a loss takes above the legacy window, in (0, 1)")?,
            legacy_window: p.number("legacy_window", d.legacy_window, 0.0, 1e9, "window, packets, at or below which Reno's rules apply")?,
        })
    }

    fn build(cfg: &StcpConfig, max_window: u32) -> Self {
        SackAimd::new(Scalable(*cfg), cfg.loss.initial_cwnd, cfg.loss.dupack_threshold, max_window)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transport::cc::{AckInfo, CongestionControl};

    #[test]
    fn above_the_legacy_window_a_loss_takes_an_eighth_and_recovery_takes_a_fixed_number_of_rtts() {
        let mut s = Scalable(StcpConfig::default());
        assert_eq!((s.increase(1000.0, 0), s.decrease(1000.0, 0)), (0.01, 875.0));
        assert_eq!((s.increase(10.0, 0), s.decrease(10.0, 0)), (0.1, 5.0));
        // Back from 0.875 w to w: ln(1/0.875)/ln(1.01) = 13.4 round trips whatever w.
        for w in [100.0, 10_000.0] {
            let mut c = Stcp::build(&StcpConfig::default(), 1_000_000);
            (c.cwnd, c.ssthresh) = (w * 0.875, 1.0);
            let mut rtts = 0;
            while c.cwnd() < w {
                for _ in 0..c.cwnd() as u64 {
                    c.on_new_ack(&AckInfo { ack: 1, ..AckInfo::default() });
                }
                rtts += 1;
            }
            assert!((13..=15).contains(&rtts), "{w}: {rtts}");
        }
    }
}
