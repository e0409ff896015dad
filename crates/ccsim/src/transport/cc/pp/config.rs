//! PP_CTH's parameters (each a scenario parameter of the same name; the module doc of
//! `pp` says which readings they select).

use super::Law;
use crate::scenario::decode::Result;
use crate::scenario::params::{text, Params};
use crate::scenario::units;
use crate::sim::time::to_secs;
use crate::transport::cc::fuzzy::{self, FuzzyConfig};
use crate::transport::cc::kalman::KalmanConfig;
use crate::transport::cc::probe::{decode_estimator, Estimator, Smoothing};

/// The pole-placement horizon J of law (5.14) (scenario names "r_plus_s_over_mu",
/// "s_over_mu", "srtt", or a duration for `Fixed`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Horizon {
    /// J = R + S/μ̂.
    RPlusSOverMu,
    /// J = max(S/μ̂, R) = R + n̂_b/μ̂ floored at R: one estimated RTT.
    SOverMu,
    /// J = the smoothed measured RTT (gain 1/8).
    Srtt,
    /// A fixed J, seconds.
    Fixed(f64),
}

/// How R, the round-trip propagation delay, is estimated (scenario names "first", "min").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum REstimate {
    /// The RTT of the first packet of the first pair (§5.7).
    FirstPacket,
    /// The smallest RTT measured so far.
    MinRtt,
}

/// Parameters of PP_CTH; each field is a scenario parameter of the same name.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PpConfig {
    /// n*, the target number of this flow's packets queued at the bottleneck.
    pub setpoint: f64,
    pub estimator: Estimator,
    pub smooth: Smoothing,
    pub horizon: Horizon,
    pub r_estimate: REstimate,
    /// Lowest sending rate, packets/s.
    pub rate_floor: f64,
    /// When the window has room for one packet only, send it alone (true) instead of
    /// waiting for room for a whole pair (false). Chapter 6 Table 6.9 shows PP holding
    /// exactly its window of 5 outstanding (5.00 pkt/s at 1.00 s), which pairs alone cannot.
    pub fill_window: bool,
    pub fuzzy: FuzzyConfig,
    pub kalman: KalmanConfig,
    /// The control law: (5.14) on every probe (chapter 6's), or (5.9) once an epoch (a round
    /// trip) with loop gain `epoch_gain` (law.rs).
    pub law: Law,
    pub epoch_gain: f64,
    /// Law (5.9)'s queue estimate: §5.7's direct S − R·μ̂ (false) or §5.2's accumulating
    /// state equation (true; drift.rs).
    pub accumulate: bool,
    /// With `accumulate`: epochs between §5.8.1's drift resets (0: none).
    pub drift_reset: u32,
}

impl Default for PpConfig {
    fn default() -> Self {
        PpConfig {
            setpoint: 5.0,
            estimator: Estimator::Fuzzy,
            smooth: Smoothing::Rate,
            horizon: Horizon::RPlusSOverMu,
            r_estimate: REstimate::FirstPacket,
            rate_floor: 0.05,
            fill_window: true,
            fuzzy: FuzzyConfig::default(),
            kalman: KalmanConfig::default(),
            law: Law::PerProbe,
            epoch_gain: 0.9,
            accumulate: false,
            drift_reset: 0,
        }
    }
}


impl PpConfig {
    /// The parameters from a flow's `params` (the sender's timer settings are decoded apart).
    pub fn decode(p: &mut Params) -> Result<PpConfig> {
        let d = PpConfig::default();
        let setpoint = p.number("setpoint", d.setpoint, 0.0, 1e6, "n*, the target number of the flow's packets queued at the bottleneck")?;
        let (estimator, smooth, kalman) = decode_estimator(p, d.estimator)?;
        let names = [("r_plus_s_over_mu", Horizon::RPlusSOverMu), ("s_over_mu", Horizon::SOverMu), ("srtt", Horizon::Srtt)];
        let horizon = p.custom(
            "horizon",
            d.horizon,
            "\"r_plus_s_over_mu\"",
            "one of: r_plus_s_over_mu, s_over_mu, srtt, or a positive duration",
            "the pole-placement horizon J of law (5.14)",
            |v| {
                let expected = "one of: r_plus_s_over_mu, s_over_mu, srtt, or a positive duration".to_string();
                let s = text(v).ok_or_else(|| expected.clone())?;
                if let Some(&(_, h)) = names.iter().find(|(n, _)| *n == s) {
                    return Ok(h);
                }
                match units::duration(s) {
                    Ok(t) if t > 0 => Ok(Horizon::Fixed(to_secs(t))),
                    _ => Err(expected),
                }
            },
        )?;
        let r_estimate = p.choice(
            "r_estimate",
            d.r_estimate,
            &[("first", REstimate::FirstPacket), ("min", REstimate::MinRtt)],
            "how R is estimated: the first packet's RTT (§5.7) or the smallest RTT so far",
        )?;
        let rate_floor = p.number("rate_floor", d.rate_floor, 1e-6, 1e9, "lowest sending rate, packets/s")?;
        let fill_window = p.flag("fill_window", d.fill_window, "send a lone packet when the window has room for one only")?;
        let fuzzy = fuzzy::decode(p)?;
        let law = p.choice(
            "law",
            d.law,
            &[("per_probe", Law::PerProbe), ("epoch", Law::Epoch)],
            "the control law: (5.14) on every probe (chapter 6), or (5.9) once a round trip with gain epoch_gain (§5.3)",
        )?;
        let epoch_gain = p.number_above("epoch_gain", d.epoch_gain, 0.0, 2.0, "law (5.9): the loop gain α of §5.3.5 (stable below 1 by the thesis)")?;
        let accumulate = p.choice(
            "queue_estimate",
            d.accumulate,
            &[("direct", false), ("accumulate", true)],
            "law (5.9)'s queue estimate: §5.7's direct S - R mu (direct) or §5.2's state equation, clamped (accumulate; needs law = \"epoch\")",
        )?;
        if accumulate && law != Law::Epoch {
            return Err(p.error("queue_estimate", "\"accumulate\" is law (5.9)'s estimate: it needs law = \"epoch\""));
        }
        let drift_reset = p.integer(
            "drift_reset",
            d.drift_reset as u64,
            0,
            1_000_000,
            "with queue_estimate = \"accumulate\": epochs between §5.8.1's drift resets (a special pair, silence until it is acknowledged, n_b = 0); 0 = none",
        )? as u32;
        if drift_reset > 0 && !accumulate {
            return Err(p.error("drift_reset", "a drift reset corrects the accumulating estimate: it needs queue_estimate = \"accumulate\""));
        }
        Ok(PpConfig {
            setpoint,
            estimator,
            smooth,
            horizon,
            r_estimate,
            rate_floor,
            fill_window,
            fuzzy,
            kalman,
            law,
            epoch_gain,
            accumulate,
            drift_reset,
        })
    }
}
