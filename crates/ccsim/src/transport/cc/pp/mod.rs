//! PP_CTH: control-theoretic packet-pair flow control.
//!
//! Source: Keshav 1991 — chapter 4 §4.4 (packet-pair probes, start-up, per-packet timers),
//! chapter 5 §5.6 (fuzzy prediction of the bottleneck rate), §5.7 (control law 5.14,
//! re-evaluated on every probe, with the queue estimate n̂_b = S − R·μ̂ and R from the first
//! packet), §5.8.2 (a window beside the rate), assembled as chapter 6 §6.5 says: "implemented
//! according to the details presented in Chapter 4, with the exception that the sending rate
//! is computed using the fuzzy predictor and the once per probe rate computation".
//! Spec: keshav91-fq-packet-pair.md M4, M5.5–M5.9, §6 A1, A5–A8; keshav91-experiments.md
//! §3.8, G11–G13, G27.
//!
//! The algorithm:
//! - start-up: one pair sent back to back (window 2), then nothing until its ACKs return.
//!   R = the RTT of the first packet of the first pair (§5.7), μ̃₀ = 1 / (gap between the
//!   pair's two ACKs);
//! - then all new data leaves as back-to-back pairs, one pair every 2/λ (the sender's
//!   pacing; retransmissions are not paced);
//! - on each pair's second ACK: the probe μ̃ = 1/gap feeds the estimator, giving μ̂; with S
//!   the packets sent and not acknowledged, the rate is
//!   λ = (n* − S + R·μ̂ + J·μ̂) / J = μ̂ + (n* − n̂_b) / J with n̂_b = S − R·μ̂ (5.14),
//!   held until the next probe, and never below `rate_floor`;
//! - the window caps S at `max_window` (§5.8.2);
//! - timers (sender, `PacketPair::defaults`): one per packet, X·r_t with X = 3 and r_t the
//!   smoothed RTT, doubling on each expiry of that packet (§4.4); an ACK that covers a queued
//!   retransmission drops it (the sender skips acknowledged sequence numbers); a packet's
//!   own ACK also stops its timer when it arrived behind a hole (the source matches every
//!   ACK to its packet to find pairs; scenario `retransmit = "expired"` turns this off);
//! - no fast retransmit and no reaction to loss beyond the timer: packet-pair detects
//!   congestion through its probes (§4.4).
//!
//! Choices where the source is silent (spec [REC] unless marked), with the parameter of the
//! alternative ([`PpConfig`] field = scenario parameter name):
//! - `setpoint` n* = 5 packets (chapter 6 S1; chapter 5's default is B/2, which the scenario
//!   passes explicitly elsewhere, spec G11);
//! - `horizon` J = R + S/μ̂ (experiments spec §3.8: the thesis's "R + S(k)μ(t)" with the units
//!   repaired). With it the law reduces to λ = (n* + 2R·μ̂)/(R + S/μ̂), which is always
//!   positive, so the floor never acts. Alternatives: `s_over_mu` = R + n̂_b/μ̂ = S/μ̂ floored
//!   at R (one estimated RTT, fq spec A5), `srtt` (the smoothed measured RTT), or a fixed
//!   number of seconds;
//! - `estimator` = fuzzy (chapter 6); `kalman` (§5.5, see kalman.rs) and `raw` (the last
//!   probe, chapter 4's estimator) are the alternatives;
//! - `smooth` = rate: the fuzzy predictor averages μ̃ = 1/gap; `gap` averages the gap and
//!   inverts (spec A6). The Kalman filter always works on the rate;
//! - `r_estimate` = first: R from the first packet of the first pair, including any phase
//!   delay (chapter 6 S1's explanation); `min` = the smallest RTT seen so far;
//! - `rate_floor` = 0.05 packets/s (experiments spec §3.8);
//! - chapter 4's queue priming, burst (V_new > V_old) and skip (V_new < V_old) logic is not
//!   used: the n̂_b term of (5.14) already does what they did (spec A7, G27); chapter 4's 2P
//!   is a separate algorithm, pp2.rs (the probe pieces both use are in probe.rs). The drift reset of §5.8.1 is not needed with
//!   n̂_b = S − R·μ̂ (spec A8), so it is not implemented;
//! - n̂_b is not clamped at 0: a negative value is the pipe's deficit, which the law refills
//!   within J (clamping would slow start-up); the Kalman estimator's own n_b is clamped;
//! - S is read after the ACK that completes the probe; λ is held between probes (§5.7);
//! - a probe is two ACKs echoing the same transmission time with the FIRST and SECOND pair
//!   marks, FIRST arriving first; a pair one of whose packets was lost gives no probe;
//! - start-up repeats: while no probe (and R) has been measured, the window stays at 2, so
//!   if the start-up pair is lost another pair goes out once it has been recovered by timeout;
//! - `fill_window` = true: when the window has room for one packet only, that packet leaves
//!   alone, unpaired (Table 6.9: PP keeps its whole window of 5 outstanding); false keeps
//!   pairs whole, and a pair the window holds back leaves when an ACK opens it;
//! - the timeout before any RTT sample is the sender's `initial_rto`, 2 s as for the other
//!   protocols [NOT IN THESIS]; on long paths (chapter 6 S7/S8, RTT 24 s) raise it, or the
//!   start-up pair is retransmitted spuriously;
//! - `law` = per_probe, (5.14) as chapter 6 simulates it; `epoch` is §5.3's law (5.9), once a
//!   round trip with loop gain `epoch_gain` (law.rs; it settles on a biased queue, spec A1),
//!   whose queue estimate may be §5.2's accumulating one with §5.8.1's drift resets
//!   (`queue_estimate`, `drift_reset`; drift.rs).
//!
//! A flow whose maximum window is below 2 cannot send pairs and never leaves start-up. An
//! application-limited flow (Telnet) sends what it has: a lone packet goes unpaired and
//! unpaced, so such a flow stays in start-up (window 2) until it happens to send a pair.
//!
//! Traces (its trace columns, `probe::PROBE_COLUMNS`, read by the periodic sampler): the last
//! probe's inter-ACK gap, μ̂, λ and the fuzzy α (the weight the next sample's history gets,
//! with the default `alpha_timing` = next). For a traced flow the world also turns on its
//! event log, the probes as they happen (`probes` table; at most the log's capacity per trace
//! period, the latest kept), which costs a few stores per probe and nothing when off.
//!
//! Behaviour worth knowing (tests/packet_pair.rs):
//! - start-up overshoots: the first probe finds S = 0, so λ = 2μ̂ + n*/R, held for one RTT
//!   (no probe returns sooner), queues about μR packets beyond the setpoint. Packets sent then
//!   carry timers of 3 x the empty-path RTT; if the queue more than triples the RTT they time
//!   out spuriously (only in the first RTTs; the window cap bounds the overshoot);
//! - pairs quantise the equilibrium: at each probe S has the same parity, so n̂_b moves on a
//!   lattice two packets wide and the time-averaged queue sits within about one packet of n*.

use super::kalman::Kalman;
pub use super::probe::{Estimator, Smoothing};
use super::probe::{decode_timer, PairMatcher, ProbeEstimator, ProbeLog, ProbeRecord, ProbeState, PROBE_COLUMNS, PROBE_LOG};
use super::{AckInfo, AckResponse, Algorithm, CongestionControl, EventLog, Pacing, TimeoutInfo};
use crate::net::packet::pair_code;
use crate::scenario::decode::Result;
use crate::scenario::params::Params;
use crate::sim::time::to_secs;
use crate::sim::{SimTime, PS_PER_SEC};
use crate::transport::config::{PacingRtt, SenderConfig, TimerMode};
use crate::transport::rtt::{RtoConfig, RtoFormula, RttSamples, SampleFrom, SamplePacket};

mod config;
mod drift;
mod law;
pub use config::{Horizon, PpConfig, REstimate};
pub use law::Law;
use drift::Accumulator;

/// Pair packets per pacing burst.
const PAIR: u32 = 2;

#[derive(Clone, Debug)]
pub struct PacketPair {
    cfg: PpConfig,
    max_window: f64,
    /// A probe and R have been measured: the law runs.
    running: bool,
    /// R, seconds.
    r: Option<f64>,
    /// μ̂ and the last probe μ̃, packets/s; the last probe's gap, seconds (NaN before one).
    mu_hat: f64,
    last_sample: f64,
    last_gap: f64,
    /// λ, packets/s, and the pair interval 2/λ.
    rate: f64,
    interval: SimTime,
    /// n̂_b at the last rate update, packets.
    n_b_hat: f64,
    /// Law (5.9): when the current epoch ends (the next update), and n̂_b at its start.
    epoch_end: SimTime,
    epoch_n_b: f64,
    /// §5.2's accumulating estimate and its resets (`queue_estimate = "accumulate"`).
    acc: Option<Box<Accumulator>>,
    pairs: PairMatcher,
    last_probe: Option<SimTime>,
    /// Smoothed RTT (gain 1/8), seconds, for the `srtt` horizon.
    srtt: Option<f64>,
    probes: u64,
    est: ProbeEstimator,
    /// The probes since the trace sampler last drained them (off unless traced).
    log: ProbeLog,
}

impl Algorithm for PacketPair {
    const NAME: &'static str = "pp";
    const SUMMARY: &'static str = "packet-pair PP_CTH (Keshav 1991 ch. 5, §6.5): pairs paced by the control law, the bottleneck rate from their ACK gaps";
    type Config = PpConfig;
    const TRACE_COLUMNS: &'static [&'static str] = PROBE_COLUMNS;
    const EVENT_LOG: Option<EventLog> = Some(PROBE_LOG);

    /// Per-packet timers of 3 x the smoothed RTT, doubling on each expiry of the packet
    /// (Keshav 1991 §4.4, X = 3); samples from the last transmission, Karn's rule; no
    /// connection-wide back-off, no clamps; 2 s before the first sample.
    fn sender_defaults() -> SenderConfig {
        SenderConfig {
            rto: RtoConfig {
                formula: RtoFormula::Beta(3.0),
                sample_from: SampleFrom::Last,
                sample_packet: SamplePacket::Echoed,
                karn: true,
                samples: RttSamples::OnePerAck,
                backoff: false,
                initial_rto: 2 * PS_PER_SEC,
                min_rto: 0,
                max_rto: u64::MAX / 4,
                granularity: 0,
            },
            timers: TimerMode::PerPacketDoubling,
            own_ack_stops_timer: true,
            pacing: false,
            pacing_rtt: PacingRtt::Srtt,
            ecn: false,
            sack: None,
        }
    }

    fn decode(p: &mut Params, sender: &mut SenderConfig) -> Result<PpConfig> {
        decode_timer(p, sender)?;
        PpConfig::decode(p)
    }

    fn build(cfg: &PpConfig, max_window: u32) -> Self {
        let cfg = *cfg;
        PacketPair {
            cfg,
            max_window: max_window as f64,
            running: false,
            r: None,
            mu_hat: 0.0,
            last_sample: 0.0,
            last_gap: f64::NAN,
            rate: 0.0,
            interval: 0,
            n_b_hat: 0.0,
            epoch_end: 0,
            epoch_n_b: 0.0,
            acc: cfg.accumulate.then(|| Box::new(Accumulator::new(cfg.drift_reset))),
            pairs: PairMatcher::default(),
            last_probe: None,
            srtt: None,
            probes: 0,
            est: ProbeEstimator::new(cfg.estimator, cfg.smooth, cfg.fuzzy, cfg.kalman, 2.0 * cfg.setpoint),
            log: ProbeLog::default(),
        }
    }
}

impl PacketPair {
    pub fn config(&self) -> &PpConfig {
        &self.cfg
    }
    /// True once the first probe and R have been measured.
    pub fn is_running(&self) -> bool {
        self.running
    }
    /// Sending rate λ, packets/s (0 during start-up).
    pub fn rate_pps(&self) -> f64 {
        self.rate
    }
    /// Predicted bottleneck rate μ̂, packets/s.
    pub fn mu_hat(&self) -> f64 {
        self.mu_hat
    }
    /// The last probe μ̃ = 1/gap, packets/s.
    pub fn last_probe_pps(&self) -> f64 {
        self.last_sample
    }
    /// R, seconds.
    pub fn r_estimate(&self) -> Option<f64> {
        self.r
    }
    /// n̂_b = S − R·μ̂ at the last rate update, packets.
    pub fn n_b_estimate(&self) -> f64 {
        self.n_b_hat
    }

    /// §5.8.1's drift resets completed (`drift_reset`).
    pub fn drift_resets(&self) -> u64 {
        self.acc.as_ref().map_or(0, |a| a.resets())
    }
    /// Probes taken.
    pub fn probes(&self) -> u64 {
        self.probes
    }
    /// The fuzzy predictor's weight α (the averaging constant, not a loop gain).
    pub fn fuzzy_alpha(&self) -> f64 {
        self.est.fuzzy_alpha()
    }
    pub fn kalman(&self) -> &Kalman {
        self.est.kalman()
    }

    /// A probe: the two ACKs of one pair arrived `gap` apart, with `s` packets outstanding.
    fn probe(&mut self, now: SimTime, gap: SimTime, s: u64) {
        let gap = to_secs(gap);
        let sample = 1.0 / gap;
        self.last_sample = sample;
        self.last_gap = gap;
        self.probes += 1;
        let dt = self.last_probe.map_or(0.0, |t| to_secs(now - t));
        self.last_probe = Some(now);
        self.mu_hat = self.est.observe(gap, self.rate, dt);
        if let Some(r) = self.r {
            self.update_rate(s as f64, r, now);
            self.running = true;
        }
        if self.log.is_on() {
            self.log.push(ProbeRecord { time: now, index: self.probes, state: self.probe_state() });
        }
    }

    /// The estimator state now (NaN where not yet measured).
    pub fn probe_state(&self) -> ProbeState {
        let probed = self.probes > 0;
        ProbeState {
            probe_gap_s: self.last_gap,
            rate_est_pps: if probed { self.mu_hat } else { f64::NAN },
            send_rate_pps: if self.running { self.rate } else { f64::NAN },
            alpha: if probed && self.cfg.estimator == Estimator::Fuzzy { self.est.fuzzy_alpha() } else { f64::NAN },
        }
    }
}

impl CongestionControl for PacketPair {
    fn cwnd(&self) -> f64 {
        if let Some(w) = self.acc.as_ref().and_then(|a| a.window()) {
            return w.min(self.max_window); // a drift reset: nothing past the special pair
        }
        if self.running {
            self.max_window
        } else {
            PAIR as f64
        }
    }
    fn on_new_ack(&mut self, _ack: &AckInfo) -> AckResponse {
        AckResponse::Nothing
    }
    fn on_dup_ack(&mut self, _count: u32, _ack: &AckInfo) -> bool {
        false
    }
    fn on_timeout(&mut self, _t: &TimeoutInfo) {}
    fn on_ack_info(&mut self, a: &AckInfo) {
        let rtt = to_secs(a.now.saturating_sub(a.echo_tx));
        self.srtt = Some(match self.srtt {
            None => rtt,
            Some(s) => s + (rtt - s) / 8.0,
        });
        match self.cfg.r_estimate {
            REstimate::FirstPacket => {
                if self.r.is_none() && a.code == pair_code::FIRST {
                    self.r = Some(rtt);
                }
            }
            REstimate::MinRtt => self.r = Some(self.r.map_or(rtt, |r| r.min(rtt))),
        }
        if let Some(acc) = self.acc.as_mut() {
            if acc.on_ack(a.ack, a.high_sent) {
                // The special pair is acknowledged: the bottleneck queue has drained (§5.8.1).
                (self.epoch_n_b, self.n_b_hat) = (0.0, 0.0);
            }
        }
        if let Some(gap) = self.pairs.on_ack(a) {
            self.probe(a.now, gap, a.high_sent.saturating_sub(a.ack));
        }
    }
    fn uses_pacing(&self) -> bool {
        true
    }
    fn pacing(&self) -> Option<Pacing> {
        Some(Pacing {
            interval: if self.running { self.interval } else { 0 },
            burst: PAIR,
            fill_window: self.cfg.fill_window && self.running,
        })
    }
    fn trace_values(&self, out: &mut [f64]) {
        out.copy_from_slice(&self.probe_state().values());
    }
    fn enable_event_log(&mut self, capacity: usize) {
        self.log.enable(capacity);
    }
    fn drain_event_log(&mut self, out: &mut dyn FnMut(SimTime, u64, &[f64])) {
        self.log.drain(out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::time::from_secs;

    fn ack(now: f64, echo_tx: f64, code: u8, ack: u64, high_sent: u64) -> AckInfo {
        AckInfo { now: from_secs(now), newly_acked: 1, ack, high_sent, echo_tx: from_secs(echo_tx), code, ..AckInfo::default() }
    }

    #[test]
    fn start_up_pair_gives_r_mu_and_the_first_rate() {
        let cfg = PpConfig { estimator: Estimator::Raw, ..PpConfig::default() };
        let mut pp = PacketPair::build(&cfg, 20);
        assert_eq!(pp.cwnd(), 2.0);
        assert_eq!(pp.pacing(), Some(Pacing { interval: 0, burst: 2, fill_window: false }));
        // Pair sent at 0; ACKs at 0.5 s and 0.6 s: R = 0.5 s, mu = 10 pkt/s.
        pp.on_ack_info(&ack(0.5, 0.0, pair_code::FIRST, 1, 2));
        assert_eq!(pp.r_estimate(), Some(0.5));
        assert!(!pp.is_running());
        pp.on_ack_info(&ack(0.6, 0.0, pair_code::SECOND, 2, 2));
        assert!(pp.is_running());
        assert!((pp.mu_hat() - 10.0).abs() < 1e-9);
        // S = 0: n_b = -R mu = -5, J = R = 0.5: lambda = 10 + (5 + 5)/0.5 = 30 pkt/s.
        assert!((pp.n_b_estimate() + 5.0).abs() < 1e-9);
        assert!((pp.rate_pps() - 30.0).abs() < 1e-9, "{}", pp.rate_pps());
        assert_eq!(pp.cwnd(), 20.0);
        let p = pp.pacing().unwrap();
        assert_eq!(p.burst, 2);
        assert_eq!(p.interval, from_secs(2.0 / 30.0));
    }

    #[test]
    fn law_5_14_holds_at_the_setpoint_and_corrects_around_it() {
        let cfg = PpConfig { estimator: Estimator::Raw, ..PpConfig::default() };
        let mut pp = PacketPair::build(&cfg, 100);
        pp.on_ack_info(&ack(0.5, 0.0, pair_code::FIRST, 1, 2));
        pp.on_ack_info(&ack(0.6, 0.0, pair_code::SECOND, 2, 2));
        // R = 0.5, mu = 10: at S = R mu + n* = 10, lambda = mu exactly.
        pp.on_ack_info(&ack(10.0, 9.0, pair_code::FIRST, 30, 41));
        pp.on_ack_info(&ack(10.1, 9.0, pair_code::SECOND, 31, 41));
        assert!((pp.n_b_estimate() - 5.0).abs() < 1e-9);
        assert!((pp.rate_pps() - 10.0).abs() < 1e-9);
        // Two packets too many: J = R + S/mu = 0.5 + 1.2 = 1.7, lambda = 10 - 2/1.7.
        pp.on_ack_info(&ack(11.0, 10.0, pair_code::FIRST, 40, 53));
        pp.on_ack_info(&ack(11.1, 10.0, pair_code::SECOND, 41, 53));
        assert!((pp.rate_pps() - (10.0 - 2.0 / 1.7)).abs() < 1e-9, "{}", pp.rate_pps());
        // With J = R + S/mu the law reduces to lambda = (n* + 2 R mu) / (R + S/mu): always
        // positive, however many packets are outstanding.
        pp.on_ack_info(&ack(12.0, 11.0, pair_code::FIRST, 50, 500));
        pp.on_ack_info(&ack(12.1, 11.0, pair_code::SECOND, 51, 500));
        assert!((pp.rate_pps() - 15.0 / (0.5 + 44.9)).abs() < 1e-9, "{}", pp.rate_pps());
    }

    #[test]
    fn rate_floor() {
        let cfg = PpConfig { estimator: Estimator::Raw, horizon: Horizon::Fixed(1.0), ..PpConfig::default() };
        let mut pp = PacketPair::build(&cfg, 100);
        pp.on_ack_info(&ack(0.5, 0.0, pair_code::FIRST, 1, 2));
        pp.on_ack_info(&ack(0.6, 0.0, pair_code::SECOND, 2, 2));
        pp.on_ack_info(&ack(12.0, 11.0, pair_code::FIRST, 50, 500));
        pp.on_ack_info(&ack(12.1, 11.0, pair_code::SECOND, 51, 500));
        assert_eq!(pp.rate_pps(), 0.05);
        let iv = pp.pacing().unwrap().interval;
        assert!(iv.abs_diff(40 * PS_PER_SEC) < 1000, "{iv}");
    }

    #[test]
    fn horizon_alternatives() {
        for (h, j) in [(Horizon::SOverMu, 1.2), (Horizon::Fixed(4.0), 4.0), (Horizon::RPlusSOverMu, 1.7)] {
            let cfg = PpConfig { estimator: Estimator::Raw, horizon: h, ..PpConfig::default() };
            let mut pp = PacketPair::build(&cfg, 100);
            pp.on_ack_info(&ack(0.5, 0.0, pair_code::FIRST, 1, 2));
            pp.on_ack_info(&ack(0.6, 0.0, pair_code::SECOND, 2, 2));
            pp.on_ack_info(&ack(11.0, 10.0, pair_code::FIRST, 40, 53));
            pp.on_ack_info(&ack(11.1, 10.0, pair_code::SECOND, 41, 53));
            assert!((pp.rate_pps() - (10.0 - 2.0 / j)).abs() < 1e-9, "{h:?}: {}", pp.rate_pps());
        }
    }

    #[test]
    fn only_matching_pairs_are_probes() {
        let cfg = PpConfig { estimator: Estimator::Raw, ..PpConfig::default() };
        let mut pp = PacketPair::build(&cfg, 20);
        // A SECOND whose FIRST was lost (different echo) is no probe, nor is a lone SECOND.
        pp.on_ack_info(&ack(0.5, 0.0, pair_code::FIRST, 1, 2));
        pp.on_ack_info(&ack(0.7, 0.1, pair_code::SECOND, 2, 4));
        assert_eq!(pp.probes(), 0);
        pp.on_ack_info(&ack(0.8, 0.1, pair_code::SECOND, 2, 4));
        assert_eq!(pp.probes(), 0);
        // Unpaired ACKs between the two ACKs of a pair do not break it.
        pp.on_ack_info(&ack(1.0, 0.4, pair_code::FIRST, 3, 6));
        pp.on_ack_info(&ack(1.05, 0.2, pair_code::UNPAIRED, 3, 6));
        pp.on_ack_info(&ack(1.25, 0.4, pair_code::SECOND, 4, 6));
        assert_eq!(pp.probes(), 1);
        assert!((pp.last_probe_pps() - 4.0).abs() < 1e-9);
        // R is from the first packet of the first pair, not updated later.
        assert_eq!(pp.r_estimate(), Some(0.5));
    }

    #[test]
    fn min_rtt_estimate_follows_the_smallest_rtt() {
        let cfg = PpConfig { estimator: Estimator::Raw, r_estimate: REstimate::MinRtt, ..PpConfig::default() };
        let mut pp = PacketPair::build(&cfg, 20);
        pp.on_ack_info(&ack(0.5, 0.0, pair_code::FIRST, 1, 2));
        pp.on_ack_info(&ack(1.3, 1.0, pair_code::UNPAIRED, 1, 2));
        assert!((pp.r_estimate().unwrap() - 0.3).abs() < 1e-9);
    }

    #[test]
    fn probe_state_and_log() {
        let mut pp = PacketPair::build(&PpConfig::default(), 20);
        let st = pp.probe_state();
        assert!(st.probe_gap_s.is_nan() && st.rate_est_pps.is_nan() && st.send_rate_pps.is_nan() && st.alpha.is_nan());
        pp.enable_event_log(2);
        pp.on_ack_info(&ack(0.5, 0.0, pair_code::FIRST, 1, 2));
        pp.on_ack_info(&ack(0.6, 0.0, pair_code::SECOND, 2, 2));
        let st = pp.probe_state();
        assert!((st.probe_gap_s - 0.1).abs() < 1e-12);
        assert!((st.rate_est_pps - 10.0).abs() < 1e-9);
        assert_eq!(st.send_rate_pps, pp.rate_pps());
        assert_eq!(st.alpha, 0.5);
        // Three more probes: the log keeps the last two.
        for k in 1..=3 {
            let t = 1.0 + k as f64;
            pp.on_ack_info(&ack(t, t - 0.5, pair_code::FIRST, 10, 12));
            pp.on_ack_info(&ack(t + 0.125, t - 0.5, pair_code::SECOND, 11, 12));
        }
        let mut got = vec![];
        pp.drain_event_log(&mut |_, i, v| got.push((i, v.to_vec())));
        assert_eq!(got.iter().map(|r| r.0).collect::<Vec<_>>(), vec![3, 4]);
        assert_eq!(got[1].1, pp.probe_state().values());
        assert!((got[1].1[0] - 0.125).abs() < 1e-12);
        assert!(got[1].1[3] > 0.0 && got[1].1[3] < 1.0);
        let mut traced = [0.0; 4];
        pp.trace_values(&mut traced);
        assert_eq!(traced, pp.probe_state().values());
        let mut again = 0;
        pp.drain_event_log(&mut |_, _, _| again += 1);
        assert_eq!(again, 0);
        // Other estimators have no fuzzy alpha.
        let mut raw = PacketPair::build(&PpConfig { estimator: Estimator::Raw, ..PpConfig::default() }, 20);
        raw.on_ack_info(&ack(0.5, 0.0, pair_code::FIRST, 1, 2));
        raw.on_ack_info(&ack(0.6, 0.0, pair_code::SECOND, 2, 2));
        assert!(raw.probe_state().alpha.is_nan());
        assert!(raw.probe_state().rate_est_pps.is_finite());
    }

    #[test]
    fn gap_smoothing_inverts_the_averaged_gap() {
        let cfg = PpConfig { smooth: Smoothing::Gap, ..PpConfig::default() };
        let mut pp = PacketPair::build(&cfg, 20);
        pp.on_ack_info(&ack(0.5, 0.0, pair_code::FIRST, 1, 2));
        pp.on_ack_info(&ack(0.75, 0.0, pair_code::SECOND, 2, 2));
        assert!((pp.mu_hat() - 4.0).abs() < 1e-9);
    }
}
