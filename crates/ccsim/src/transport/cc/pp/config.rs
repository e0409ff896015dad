//! PP_CTH's parameters (each a scenario parameter of the same name; the module doc of
//! `pp` says which readings they select).

use super::Law;
use crate::transport::cc::fuzzy::FuzzyConfig;
use crate::transport::cc::kalman::KalmanConfig;
use crate::transport::cc::probe::{Estimator, Smoothing};

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

