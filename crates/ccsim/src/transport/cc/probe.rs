//! Packet-pair probe pieces shared by PP_CTH (pp.rs) and chapter 4's 2P (pp2.rs).
//!
//! Source: Keshav 1991 §4.4 (the probe: two packets sent back to back, the gap between their
//! ACKs estimates the bottleneck's service time s_b), §5.5–§5.6 (smoothing the series of
//! probes). Spec keshav91-fq-packet-pair.md M4.1–M4.2, M5.6–M5.7, §6 A6.
//!
//! - [`PairMatcher`]: a probe is two ACKs echoing the same transmission time with the FIRST
//!   and SECOND pair marks (`net::packet::pair_code`), FIRST arriving first; a pair one of
//!   whose packets was lost gives no probe; unpaired ACKs between the two do not break it.
//! - [`ProbeEstimator`]: the bottleneck rate μ̂ from the probes: the last probe (`raw`,
//!   chapter 4), the fuzzy predictor (§5.6, on the rate 1/gap or on the gap), or the Kalman
//!   filter (§5.5, which also takes the sending rate and the time since the last probe).
//! - [`ProbeState`], [`ProbeLog`]: the estimator's state for the periodic trace (the
//!   algorithms' [`PROBE_COLUMNS`]) and the probes of a traced flow as they happen (the
//!   `probes` table, [`PROBE_LOG`]).
//! - [`decode_estimator`], [`decode_timer`]: the parameters both algorithms share.

use super::fuzzy::{FuzzyConfig, FuzzyPredictor};
use super::kalman::{Kalman, KalmanConfig};
use super::{AckInfo, EventLog};
use crate::net::packet::pair_code;
use crate::scenario::decode::Result;
use crate::scenario::params::Params;
use crate::sim::SimTime;
use crate::transport::config::SenderConfig;
use std::collections::VecDeque;

/// The trace columns of the packet-pair algorithms, in [`ProbeState::values`] order.
pub const PROBE_COLUMNS: &[&str] = &["probe_gap_s", "rate_est_pps", "send_rate_pps", "alpha"];

/// The packet-pair algorithms' event log: every probe of a traced flow.
pub const PROBE_LOG: EventLog = EventLog { table: "probes", index: "probe", columns: PROBE_COLUMNS };

/// A rate-based algorithm's estimator state at one instant, for traces. NaN where unknown
/// (before the first probe; `alpha` when the estimator is not the fuzzy predictor).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ProbeState {
    /// The last probe: the gap between the two ACKs of the last pair, seconds.
    pub probe_gap_s: f64,
    /// The predicted bottleneck rate μ̂ after the last probe, packets/s.
    pub rate_est_pps: f64,
    /// The sending rate λ, packets/s (NaN until the control law runs).
    pub send_rate_pps: f64,
    /// The fuzzy predictor's averaging constant α (the weight of the history), in [0, 1].
    pub alpha: f64,
}

impl ProbeState {
    /// The values in [`PROBE_COLUMNS`] order.
    pub fn values(&self) -> [f64; 4] {
        [self.probe_gap_s, self.rate_est_pps, self.send_rate_pps, self.alpha]
    }
}

/// One probe as it happened: its time, its ordinal number (1 for the first probe of the flow;
/// a gap in the numbers of a drained log shows probes the log had no room for) and the state
/// right after it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ProbeRecord {
    pub time: SimTime,
    pub index: u64,
    pub state: ProbeState,
}

/// `estimator`, `smooth` and the Kalman variances, over `estimator`'s default.
pub fn decode_estimator(p: &mut Params, estimator: Estimator) -> Result<(Estimator, Smoothing, KalmanConfig)> {
    let estimator = p.choice(
        "estimator",
        estimator,
        &[("fuzzy", Estimator::Fuzzy), ("kalman", Estimator::Kalman), ("raw", Estimator::Raw)],
        "where the bottleneck rate estimate comes from: the fuzzy predictor (§5.6), a Kalman filter (§5.5) or the last probe",
    )?;
    let smooth = p.choice(
        "smooth",
        Smoothing::Rate,
        &[("rate", Smoothing::Rate), ("gap", Smoothing::Gap)],
        "what the fuzzy predictor averages: the rate 1/gap or the gap",
    )?;
    let kalman = KalmanConfig {
        system_var: p.optional_number(
            "kalman_system_var",
            0.0,
            1e18,
            "unset (the filter's own)",
            "the Kalman filter's system noise variance",
        )?,
        obs_var: p.optional_number(
            "kalman_obs_var",
            0.0,
            1e18,
            "unset (the filter's own)",
            "the Kalman filter's observation noise variance",
        )?,
        ..KalmanConfig::default()
    };
    Ok((estimator, smooth, kalman))
}

/// `timeout_x` (X of the per-packet timeout X x srtt) and `retransmit`.
pub fn decode_timer(p: &mut Params, sender: &mut SenderConfig) -> Result<()> {
    sender.decode_beta(p, "timeout_x", 0.1, "X of the per-packet timeout X x srtt (§4.4)")?;
    // Packet-pair matches every ACK to the packet it answers (it must, to find pairs), so a
    // packet's own ACK stops its timer even when it arrived behind a hole.
    sender.own_ack_stops_timer = p.choice(
        "retransmit",
        sender.own_ack_stops_timer,
        &[("own_ack", true), ("expired", false)],
        "which packets a timeout resends: those without a cumulative ACK or their own ACK, or every expired one",
    )?;
    Ok(())
}

/// Where μ̂ comes from (scenario names: "fuzzy", "kalman", "raw").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Estimator {
    /// Fuzzy exponential averaging (§5.6; chapter 6).
    Fuzzy,
    /// Kalman filter (§5.5).
    Kalman,
    /// The last probe, unsmoothed (chapter 4).
    Raw,
}

/// What the fuzzy predictor averages (spec §6 A6; scenario names "rate", "gap").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Smoothing {
    /// The rate sample 1/gap.
    Rate,
    /// The gap, inverted afterwards.
    Gap,
}

/// Matches the two ACKs of a back-to-back pair.
#[derive(Clone, Copy, Debug, Default)]
pub struct PairMatcher {
    /// The pending first ACK of a pair: (echoed transmission time, arrival time).
    first_ack: Option<(SimTime, SimTime)>,
}

impl PairMatcher {
    /// Feed every ACK; returns the gap between the pair's two ACKs when `a` completes a probe.
    #[inline]
    pub fn on_ack(&mut self, a: &AckInfo) -> Option<SimTime> {
        match a.code {
            pair_code::FIRST => {
                self.first_ack = Some((a.echo_tx, a.now));
                None
            }
            pair_code::SECOND => {
                let (tx, t1) = self.first_ack.take()?;
                (tx == a.echo_tx && a.now > t1).then(|| a.now - t1)
            }
            _ => None,
        }
    }
}

/// The bottleneck-rate estimator fed by the probes.
#[derive(Clone, Debug)]
pub struct ProbeEstimator {
    pub estimator: Estimator,
    pub smooth: Smoothing,
    fuzzy: FuzzyPredictor,
    kalman: Kalman,
}

impl ProbeEstimator {
    /// `nb_max` bounds the Kalman filter's queue state (see kalman.rs).
    pub fn new(estimator: Estimator, smooth: Smoothing, fuzzy: FuzzyConfig, kalman: KalmanConfig, nb_max: f64) -> Self {
        ProbeEstimator { estimator, smooth, fuzzy: FuzzyPredictor::new(fuzzy), kalman: Kalman::new(kalman, nb_max) }
    }

    /// One probe whose ACKs were `gap_s` seconds apart: returns μ̂, packets/s. `send_rate`
    /// (packets/s) and `dt` (seconds since the previous probe, 0 for the first) are read by
    /// the Kalman filter only.
    #[inline]
    pub fn observe(&mut self, gap_s: f64, send_rate: f64, dt: f64) -> f64 {
        let sample = 1.0 / gap_s;
        match self.estimator {
            Estimator::Raw => sample,
            Estimator::Fuzzy => match self.smooth {
                Smoothing::Rate => self.fuzzy.observe(sample),
                Smoothing::Gap => 1.0 / self.fuzzy.observe(gap_s),
            },
            Estimator::Kalman => self.kalman.step(sample, send_rate, dt),
        }
    }

    /// The fuzzy predictor's weight α (the averaging constant, not a loop gain).
    pub fn fuzzy_alpha(&self) -> f64 {
        self.fuzzy.alpha()
    }
    pub fn kalman(&self) -> &Kalman {
        &self.kalman
    }
}

/// The last `capacity` probes since the log was last drained (capacity 0: off, the default).
#[derive(Clone, Debug, Default)]
pub struct ProbeLog {
    log: VecDeque<ProbeRecord>,
    cap: usize,
}

impl ProbeLog {
    pub fn enable(&mut self, capacity: usize) {
        self.cap = capacity;
        self.log = VecDeque::with_capacity(capacity);
    }
    #[inline]
    pub fn is_on(&self) -> bool {
        self.cap > 0
    }
    /// Keep `r`, dropping the oldest record if the log is full.
    #[inline(never)]
    pub fn push(&mut self, r: ProbeRecord) {
        if self.log.len() >= self.cap {
            self.log.pop_front();
        }
        self.log.push_back(r);
    }
    pub fn drain(&mut self, out: &mut dyn FnMut(SimTime, u64, &[f64])) {
        for r in self.log.drain(..) {
            out(r.time, r.index, &r.state.values());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::time::from_secs;

    fn ack(now: f64, echo_tx: f64, code: u8) -> AckInfo {
        AckInfo { now: from_secs(now), newly_acked: 1, ack: 1, high_sent: 2, echo_tx: from_secs(echo_tx), code, ..AckInfo::default() }
    }

    #[test]
    fn pair_matcher_needs_first_then_second_of_one_pair() {
        let mut m = PairMatcher::default();
        assert_eq!(m.on_ack(&ack(0.7, 0.1, pair_code::SECOND)), None, "no FIRST yet");
        assert_eq!(m.on_ack(&ack(0.5, 0.0, pair_code::FIRST)), None);
        assert_eq!(m.on_ack(&ack(0.7, 0.1, pair_code::SECOND)), None, "another pair's SECOND");
        assert_eq!(m.on_ack(&ack(0.8, 0.0, pair_code::SECOND)), None, "the FIRST was consumed");
        assert_eq!(m.on_ack(&ack(1.0, 0.4, pair_code::FIRST)), None);
        assert_eq!(m.on_ack(&ack(1.05, 0.2, pair_code::UNPAIRED)), None);
        assert_eq!(m.on_ack(&ack(1.25, 0.4, pair_code::SECOND)), Some(from_secs(1.25) - from_secs(1.0)));
    }

    #[test]
    fn raw_and_gap_smoothing() {
        let mut raw = ProbeEstimator::new(Estimator::Raw, Smoothing::Rate, FuzzyConfig::default(), KalmanConfig::default(), 10.0);
        assert_eq!(raw.observe(0.25, 0.0, 0.0), 4.0);
        assert_eq!(raw.observe(0.5, 0.0, 0.0), 2.0);
        let mut gap = ProbeEstimator::new(Estimator::Fuzzy, Smoothing::Gap, FuzzyConfig::default(), KalmanConfig::default(), 10.0);
        assert!((gap.observe(0.25, 0.0, 0.0) - 4.0).abs() < 1e-9);
        assert_eq!(gap.fuzzy_alpha(), 0.5);
    }
}
