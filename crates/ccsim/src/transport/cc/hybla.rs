//! TCP Hybla: Reno's window laws scaled by ρ = RTT / RTT₀, so that a long-RTT flow's window
//! grows in time as a flow with the reference RTT₀ does.
//!
//! Source: Caini and Firrincieli, "TCP Hybla: a TCP enhancement for heterogeneous networks",
//! Int. J. Satellite Communications and Networking 22(5), 2004, one of the TCPs Cui §2.2.3
//! reviews ("the increasing rate of congestion window size is independent of RTT so that the
//! unfairness due to different RTTs is avoided"). Per ACK: slow start adds 2^ρ − 1, congestion
//! avoidance ρ²/cwnd; a loss halves the window (Reno). ρ = max(1, RTT / RTT₀), RTT₀ = 25 ms.
//!
//! Choices where the source is silent, each a parameter or stated here: RTT is the least RTT of
//! packets sent once, the path's without its queue (Linux's module recomputes ρ only at a new
//! least smoothed RTT; from the current RTT a standing queue would raise ρ and with it the
//! growth), ρ = 1 before the first sample; slow start stops at ssthresh (`sack_aimd.rs`; as
//! Linux's); loss recovery is SACK's; the sender paces by default (`pacing = true`), as the
//! paper recommends: unpaced, a long-RTT flow's slow start (2^ρ − 1 per ACK) comes in bursts
//! that a small buffer drops (measured in `ccsim reproduce cui-fast --only R2.2b`'s scenario).

use super::loss::LossConfig;
use super::sack_loss::{decode_loss, sack_sender_defaults};
use super::sack_aimd::{AckRtts, SackAimd, WindowRule};
use super::{AckInfo, Algorithm};
use crate::scenario::decode::Result;
use crate::scenario::params::Params;
use crate::sim::time::{from_secs, to_secs};
use crate::sim::SimTime;
use crate::transport::config::SenderConfig;

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct HyblaConfig {
    pub loss: LossConfig,
    /// RTT₀, the reference round trip. 25 ms.
    pub rtt0: SimTime,
}

impl Default for HyblaConfig {
    fn default() -> Self {
        HyblaConfig { loss: LossConfig::default(), rtt0: from_secs(0.025) }
    }
}

#[derive(Clone, Copy, Debug)]
pub struct HyblaRule {
    rtt0: f64,
    rtts: AckRtts,
}

impl HyblaRule {
    /// ρ = max(1, RTT_min / RTT₀).
    pub fn rho(&self) -> f64 {
        if self.rtts.min.is_nan() {
            1.0
        } else {
            (self.rtts.min / self.rtt0).max(1.0)
        }
    }
}

impl WindowRule for HyblaRule {
    fn on_ack(&mut self, ack: &AckInfo, _recovering: bool) {
        self.rtts.sample(ack);
    }
    fn slow_start(&self, _cwnd: f64) -> f64 {
        self.rho().exp2() - 1.0
    }
    fn increase(&mut self, cwnd: f64, _now: SimTime) -> f64 {
        self.rho().powi(2) / cwnd
    }
    fn decrease(&mut self, cwnd: f64, _now: SimTime) -> f64 {
        cwnd / 2.0
    }
}

pub type Hybla = SackAimd<HyblaRule>;

impl Algorithm for Hybla {
    const NAME: &'static str = "hybla";
    const SUMMARY: &'static str = "TCP Hybla (Caini and Firrincieli 2004; Cui §2.2.3 reviews it): Reno's laws scaled by rho = RTT / 25 ms, growth independent of the RTT";
    type Config = HyblaConfig;

    /// SACK and pacing, as the paper pairs Hybla with both ("packet spacing"): without pacing a
    /// long-RTT flow's slow start (2^rho − 1 per ACK) arrives in bursts a small buffer drops.
    fn sender_defaults() -> SenderConfig {
        SenderConfig { pacing: true, ..sack_sender_defaults() }
    }

    fn decode(p: &mut Params, sender: &mut SenderConfig) -> Result<HyblaConfig> {
        let loss = decode_loss(p, sender)?;
        let d = HyblaConfig::default();
        let rtt0 = p.duration("rtt0", d.rtt0, "the reference round trip RTT0: a flow with this RTT grows as Reno")?;
        if rtt0 == 0 {
            return Err(p.error("rtt0", "expected a positive duration"));
        }
        Ok(HyblaConfig { loss, rtt0 })
    }

    fn build(cfg: &HyblaConfig, max_window: u32) -> Self {
        let rule = HyblaRule { rtt0: to_secs(cfg.rtt0), rtts: AckRtts::default() };
        SackAimd::new(rule, cfg.loss.initial_cwnd, cfg.loss.dupack_threshold, max_window)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::PS_PER_SEC;

    #[test]
    fn a_250_ms_flow_grows_as_ten_25_ms_flows() {
        let mut r = HyblaRule { rtt0: 0.025, rtts: AckRtts::default() };
        assert_eq!(r.rho(), 1.0);
        r.on_ack(&AckInfo { now: PS_PER_SEC / 4, echo_tx: 0, ..AckInfo::default() }, false);
        assert!((r.rho() - 10.0).abs() < 1e-9);
        assert!((r.slow_start(1.0) - 1023.0).abs() < 1e-6);
        assert!((r.increase(50.0, 0) - 2.0).abs() < 1e-9, "rho^2 / cwnd");
        assert_eq!(r.decrease(80.0, 0), 40.0);
        // Shorter than RTT0: Reno.
        let mut short = HyblaRule { rtt0: 0.025, rtts: AckRtts::default() };
        short.on_ack(&AckInfo { now: PS_PER_SEC / 100, echo_tx: 0, ..AckInfo::default() }, false);
        assert_eq!((short.rho(), short.slow_start(4.0)), (1.0, 1.0));
    }
}
