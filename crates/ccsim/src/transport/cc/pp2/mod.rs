//! 2P: chapter 4's packet-pair flow control.
//!
//! Source: Keshav 1991 chapter 4 §4.4 (principles, the three phases, the estimators, the
//! state machine of Fig 4.2, per-packet timers) and §4.5 (the transient analysis this
//! algorithm is checked against, Table 4.1). Spec keshav91-fq-packet-pair.md M4.1–M4.6, §6 A3,
//! A7, A12, A13, §7 V16–V19. PP_CTH (pp.rs) is chapter 5's successor, which replaces the
//! skips and bursts below by a control law; the two share the probe pieces (probe.rs).
//!
//! The algorithm:
//! - start-up: one pair sent back to back (window 2), then nothing until its ACKs return.
//!   R_e = the RTT of the first packet, s_e = the gap between the two ACKs, V_e = R_e/s_e;
//! - queue priming, at the end of that first RTT: n_b packets back to back, unpaired, so that
//!   they gather in the bottleneck queue;
//! - normal transmission: a pair every 2·s_e (the sender's pacing), the first at once. On the
//!   first ACK of each pair R_e = r_t − n_b·s_e (r_t that packet's RTT, s_e the current
//!   estimate); on the second, s_e = the gap (chapter 4: the raw sample) and V_new = R_e/s_e:
//!   - V_new < V_old: skip n_skip = max(⌈(V_old − V_new)/2⌉, 0) pair slots, each 2·s_e long
//!     with the new s_e, then pairs every 2·s_e again (spec V18: 10 → 5 skips 3 slots);
//!   - V_new > V_old: at once a burst of V_new − V_old packets back to back, unpaired (not
//!     probes);
//! - timers (sender, `Pp2::defaults`, as PP_CTH): one per packet, X·r_t with X = 3 and r_t
//!   the smoothed RTT, doubling on each expiry of that packet; a queued retransmission an ACK
//!   has made unnecessary is dropped (the sender skips acknowledged sequence numbers);
//! - no reaction to loss or duplicate ACKs: 2P learns of congestion from its probes.
//!
//! Fig 4.2's machine maps onto ccsim's sender: its TICK clock is the sender's pacing (a
//! pair slot every `interval` = 2·s_e, read afresh at each slot), n_skip is
//! [`PaceAdjust::skip`] (empty slots), num_in_burst is [`PaceAdjust::extra`] (unpaired packets
//! sent ahead of the slots), the output queue and FREE are the host's line (a FIFO port), and
//! TIMEOUT is the sender's per-packet doubling timer.
//!
//! Choices where the source is silent, with the parameter of the alternative ([`Pp2Config`]
//! field = scenario parameter name):
//! - burst rounding (spec A12) [NOT IN THESIS]: a burst is ⌈V_new − V_old + c⌉ packets and
//!   the remainder c (in (−1, 0]: packets sent ahead of V) is carried to the next burst, so
//!   the bursts add up to the increases of V_e within one packet. n_skip is the thesis's
//!   formula, and the packets a skip withholds beyond V_old − V_new (fewer than 2) are
//!   forgotten (`carry` = burst). `carry` = all also owes them to the next burst, so that
//!   noise in V_e, whose decreases are rounded up to whole pairs, does not drain the queue;
//! - skips accumulate: a skip computed while slots of an earlier one are still to be left
//!   empty adds to them (Fig 4.2 sets n_skip; overwriting would forget the rest of the first
//!   skip), and a burst does not cancel pending skips [NOT IN THESIS];
//! - `n_b` = 5 packets (spec A13: a configurable integer; chapter 6's setpoint is 5);
//!   `n_b_fraction` = f instead chooses n_b = round(f·V_e) at the end of the first RTT (the
//!   thesis's "a fraction of V_e");
//! - `r_estimate` = pair: R_e = r_t − n_b·s_e from the first ACK of every pair (§4.4),
//!   floored at 0 [NOT IN THESIS]; `first` keeps the RTT of the first packet of the first pair
//!   (the R_e of start-up), which is exact while routes do not change (ccsim's links have
//!   fixed delays) and is what §4.5's analysis assumes the source knows;
//! - `estimator` = raw (chapter 4); `fuzzy` (§5.6, with `smooth` = rate or gap) and
//!   `kalman` (§5.5, fed with the pair rate 1/s_e; its queue state is bounded by 2·n_b) are
//!   chapter 5's smoothers [EXT: chapter 4 never smooths];
//! - the window: 2P has none; ccsim's `max_window` caps the packets outstanding, from the end
//!   of start-up on (the window is 2 before). A burst is cut to the room the window has when
//!   it is computed (the packets outstanding after the ACK that completes the probe), and
//!   the cut part is dropped, not carried, and not counted in V_e either, so a later
//!   decrease skips only for packets that went out [NOT IN THESIS: without this, one
//!   outlying probe (two ACKs bunched by a shortened path: V_e 1286 for 5) made a window-
//!   capped burst of 19 and then about 640 skipped pair slots, 128 s of silence];
//! - `fill_window` = false: when the window has room for one packet only, a pair slot waits
//!   for room for both (every slot is a probe, as in Fig 4.2's CRQ(2)); true sends the one
//!   packet unpaired;
//! - the first normal pair leaves with the priming burst, right after it (Proposition 1:
//!   "the source will immediately start to send a packet-pair every 2s_b");
//! - start-up repeats while no probe has been measured (window 2), so a lost start-up pair
//!   is recovered by timeout and followed by another pair;
//! - the timeout before any RTT sample is the sender's `initial_rto`, 2 s as for PP_CTH
//!   [NOT IN THESIS]; the §7.3.6 single timer per conversation is not offered.
//!
//! Behaviour worth knowing (tests/test_models_keshav91.py, tests/test_pp2.py, docs/models.md):
//! - 2P does not measure its queue, it tracks changes of V. With R_e = r_t − n_b·s_e, a first
//!   packet that waited q·s_b at the bottleneck gives V_e = V + q − n_b, so any queue is
//!   self-consistent. In steady state that is harmless (the queue stays at n_b + 1/2, the
//!   pair lattice), but after a step R_e moves with the queue (and with n_b·s_e, which changes
//!   one probe after s_e does): rises bring bursts, falls bring skips rounded up to whole
//!   pairs, and the queue walks down to empty (R_e floored at 0, V_e = 0) and stays there;
//!   with noisier probes (a CBR competitor) the walk can overflow the buffer and stall the
//!   flow on doubling timers. `r_estimate` = first behaves as §4.5's analysis says (Table 4.1's
//!   no-loss and recovery bounds hold in ccsim), but cannot follow a change of R;
//! - with a smoothed s_e (`fuzzy`), a step reaches s_e over several probes, each of which
//!   skips a rounded-up pair, so the same drift appears: chapter 4's scheme assumes the raw,
//!   exact probe of its deterministic model;
//! - the priming burst and the first pair leave together, so the first pairs wait behind
//!   n_b packets: their RTT can exceed 3 x the smoothed RTT of the empty path, and they time
//!   out spuriously (seen with n_b = 5 at a 5 pkt/s share); the duplicates stay in the queue
//!   as part of its level, since nothing removes them.

mod config;

pub use config::{Carry, Pp2Config, RUpdate};
use super::pp::PacketPair;
use super::probe::{
    Estimator, PairMatcher, ProbeEstimator, ProbeLog, ProbeRecord, ProbeState, PROBE_COLUMNS,
    PROBE_LOG,
};
use super::{AckInfo, AckResponse, Algorithm, CongestionControl, EventLog, PaceAdjust, Pacing, TimeoutInfo};
use crate::net::packet::pair_code;
use crate::scenario::decode::Result;
use crate::scenario::params::Params;
use crate::transport::config::SenderConfig;
use crate::sim::time::{from_secs, to_secs};
use crate::sim::SimTime;

/// Pair packets per pacing slot.
const PAIR: u32 = 2;
/// Slack for ⌈·⌉ of differences of floating-point V's.
const EPS: f64 = 1e-9;

#[derive(Clone, Debug)]
pub struct Pp2 {
    cfg: Pp2Config,
    max_window: f64,
    /// Start-up is over (the priming burst has been issued): normal transmission.
    running: bool,
    /// n_b in use, packets (chosen at the end of the first RTT).
    n_b: f64,
    /// R_e, seconds (None before the first ACK of the first pair).
    r_e: Option<f64>,
    /// s_e, seconds per packet, and the bottleneck rate 1/s_e (NaN / 0 before a probe).
    s_e: f64,
    mu_hat: f64,
    /// V_e = R_e/s_e after the last probe, packets.
    v_e: f64,
    last_gap: f64,
    /// The pair interval 2·s_e.
    interval: SimTime,
    /// Burst rounding carried to the next burst, packets (negative: sent ahead).
    carry: f64,
    /// Skip and burst not yet taken by the sender.
    pending: PaceAdjust,
    pairs: PairMatcher,
    est: ProbeEstimator,
    last_probe: Option<SimTime>,
    probes: u64,
    /// Totals since the start: pair slots skipped, unpaired packets issued in bursts
    /// (including the priming burst), packets a burst lost to the window.
    skipped_slots: u64,
    burst_packets: u64,
    burst_cut: u64,
    log: ProbeLog,
}

impl Algorithm for Pp2 {
    const NAME: &'static str = "pp2";
    const SUMMARY: &'static str = "packet-pair 2P (Keshav 1991 §4.4): pairs every 2 s_e, skips and bursts as the estimated pipe changes";
    type Config = Pp2Config;
    const TRACE_COLUMNS: &'static [&'static str] = PROBE_COLUMNS;
    const EVENT_LOG: Option<EventLog> = Some(PROBE_LOG);

    /// Those of PP_CTH (per-packet timers X·r_t with X = 3, doubling on each expiry of the
    /// packet, §4.4; 2 s before the first RTT sample).
    fn sender_defaults() -> SenderConfig {
        PacketPair::sender_defaults()
    }

    fn decode(p: &mut Params, sender: &mut SenderConfig) -> Result<Pp2Config> {
        Pp2Config::decode(p, sender)
    }

    fn build(cfg: &Pp2Config, max_window: u32) -> Self {
        let cfg = *cfg;
        Pp2 {
            cfg,
            max_window: max_window as f64,
            running: false,
            n_b: cfg.n_b as f64,
            r_e: None,
            s_e: f64::NAN,
            mu_hat: 0.0,
            v_e: f64::NAN,
            last_gap: f64::NAN,
            interval: 0,
            carry: 0.0,
            pending: PaceAdjust::default(),
            pairs: PairMatcher::default(),
            est: ProbeEstimator::new(cfg.estimator, cfg.smooth, cfg.fuzzy, cfg.kalman, 2.0 * cfg.n_b.max(1) as f64),
            last_probe: None,
            probes: 0,
            skipped_slots: 0,
            burst_packets: 0,
            burst_cut: 0,
            log: ProbeLog::default(),
        }
    }
}

impl Pp2 {
    pub fn config(&self) -> &Pp2Config {
        &self.cfg
    }
    /// True once start-up is over (normal transmission).
    pub fn is_running(&self) -> bool {
        self.running
    }
    /// n_b in use, packets.
    pub fn n_b(&self) -> f64 {
        self.n_b
    }
    /// R_e, seconds.
    pub fn r_estimate(&self) -> Option<f64> {
        self.r_e
    }
    /// s_e, seconds (NaN before the first probe).
    pub fn s_estimate(&self) -> f64 {
        self.s_e
    }
    /// V_e = R_e/s_e after the last probe, packets (NaN before the first).
    pub fn v_estimate(&self) -> f64 {
        self.v_e
    }
    /// The pair rate, packets/s (one packet per s_e; 0 before the first probe).
    pub fn rate_pps(&self) -> f64 {
        self.mu_hat
    }
    /// The burst remainder carried, packets.
    pub fn carried(&self) -> f64 {
        self.carry
    }
    pub fn probes(&self) -> u64 {
        self.probes
    }
    /// Pair slots skipped, unpaired burst packets issued (priming included), and burst
    /// packets cut by the window, since the start.
    pub fn totals(&self) -> (u64, u64, u64) {
        (self.skipped_slots, self.burst_packets, self.burst_cut)
    }
    /// The skip and burst the sender has not taken yet.
    pub fn pending(&self) -> PaceAdjust {
        self.pending
    }

    /// Issue `n` unpaired packets at once, cut to the window's room with `s` outstanding;
    /// returns how many were cut.
    fn burst(&mut self, n: u64, s: u64) -> u64 {
        let room = (self.max_window as u64).saturating_sub(s);
        let k = n.min(room);
        self.burst_cut += n - k;
        self.burst_packets += k;
        self.pending.extra = self.pending.extra.saturating_add(k.min(u32::MAX as u64) as u32);
        n - k
    }

    /// A probe: the two ACKs of one pair arrived `gap` apart, with `s` packets outstanding.
    fn probe(&mut self, now: SimTime, gap: SimTime, s: u64) {
        let gap = to_secs(gap);
        self.last_gap = gap;
        self.probes += 1;
        let dt = self.last_probe.map_or(0.0, |t| to_secs(now - t));
        self.last_probe = Some(now);
        let mu = self.est.observe(gap, self.mu_hat, dt);
        if !(mu.is_finite() && mu > 0.0) {
            return;
        }
        let Some(r_e) = self.r_e else { return };
        self.mu_hat = mu;
        self.s_e = 1.0 / mu;
        self.interval = from_secs(PAIR as f64 * self.s_e).max(1);
        let mut v_new = r_e / self.s_e;
        if !self.running {
            // End of the first RTT: choose n_b and prime the queue.
            if let Some(f) = self.cfg.n_b_fraction {
                self.n_b = (f * v_new).round().max(0.0);
            }
            self.running = true;
            self.burst(self.n_b as u64, s);
        } else {
            let dv = v_new - self.v_e;
            if dv < 0.0 {
                let n_skip = ((-dv) / 2.0 - EPS).ceil().max(0.0);
                self.pending.skip = self.pending.skip.saturating_add(n_skip as u32);
                self.skipped_slots += n_skip as u64;
                if self.cfg.carry == Carry::All {
                    self.carry += 2.0 * n_skip + dv;
                }
            } else if dv > 0.0 {
                let x = dv + self.carry;
                let k = if x > 0.0 { (x - EPS).ceil().max(0.0) } else { 0.0 };
                self.carry = x - k;
                // What the window cut was never sent: V_e counts only what went out, so a
                // later decrease skips for packets that are really in the pipe.
                v_new -= self.burst(k as u64, s) as f64;
            }
        }
        self.v_e = v_new;
        if self.log.is_on() {
            self.log.push(ProbeRecord { time: now, index: self.probes, state: self.probe_state() });
        }
    }

    /// The estimator state now (NaN where not yet measured).
    pub fn probe_state(&self) -> ProbeState {
        let probed = self.probes > 0 && self.mu_hat > 0.0;
        ProbeState {
            probe_gap_s: self.last_gap,
            rate_est_pps: if probed { self.mu_hat } else { f64::NAN },
            send_rate_pps: if self.running { self.mu_hat } else { f64::NAN },
            alpha: if probed && self.cfg.estimator == Estimator::Fuzzy { self.est.fuzzy_alpha() } else { f64::NAN },
        }
    }
}

impl CongestionControl for Pp2 {
    fn cwnd(&self) -> f64 {
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
        if a.code == pair_code::FIRST {
            let r_t = to_secs(a.now.saturating_sub(a.echo_tx));
            if self.r_e.is_none() {
                self.r_e = Some(r_t);
            } else if self.running && self.cfg.r_estimate == RUpdate::Pair {
                self.r_e = Some((r_t - self.n_b * self.s_e).max(0.0));
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
    fn take_pace_adjust(&mut self) -> PaceAdjust {
        std::mem::take(&mut self.pending)
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

    /// A probe: the pair sent at `tx` is acknowledged at `t1` and `t1 + gap`, `s` packets
    /// outstanding after the second ACK.
    fn pair(p: &mut Pp2, tx: f64, t1: f64, gap: f64, s: u64) {
        p.on_ack_info(&ack(t1, tx, pair_code::FIRST, 100, 101 + s));
        p.on_ack_info(&ack(t1 + gap, tx, pair_code::SECOND, 101, 101 + s));
    }

    /// 2P after start-up with R_e = `r` (kept: r_estimate = first), s_e = `s_e`, n_b = 0.
    fn running(r: f64, s_e: f64, carry: Carry) -> Pp2 {
        let cfg = Pp2Config { n_b: 0, r_estimate: RUpdate::First, carry, ..Pp2Config::default() };
        let mut p = Pp2::build(&cfg, 100);
        pair(&mut p, 0.0, r, s_e, 0);
        assert!(p.is_running());
        assert_eq!(p.take_pace_adjust(), PaceAdjust::default(), "n_b = 0: no priming");
        p
    }

    #[test]
    fn start_up_pair_then_queue_priming_then_pairs_every_2_s_e() {
        let mut p = Pp2::build(&Pp2Config::default(), 30);
        // Start-up: one pair back to back, window 2.
        assert_eq!(p.cwnd(), 2.0);
        assert_eq!(p.pacing(), Some(Pacing { interval: 0, burst: 2, fill_window: false }));
        assert!(p.probe_state().rate_est_pps.is_nan());
        // ACKs at 0.5 s and 0.6 s: R_e = 0.5 s, s_e = 0.1 s, V_e = 5.
        p.on_ack_info(&ack(0.5, 0.0, pair_code::FIRST, 1, 2));
        assert_eq!(p.r_estimate(), Some(0.5));
        assert!(!p.is_running());
        p.on_ack_info(&ack(0.6, 0.0, pair_code::SECOND, 2, 2));
        assert!(p.is_running());
        assert!((p.s_estimate() - 0.1).abs() < 1e-12);
        assert!((p.v_estimate() - 5.0).abs() < 1e-9);
        // Queue priming: n_b = 5 unpaired packets at once, taken by the sender once.
        assert_eq!(p.take_pace_adjust(), PaceAdjust { skip: 0, extra: 5 });
        assert_eq!(p.take_pace_adjust(), PaceAdjust::default());
        // Normal transmission: the window opens to the maximum; a pair every 2·s_e.
        assert_eq!(p.cwnd(), 30.0);
        assert_eq!(p.pacing(), Some(Pacing { interval: from_secs(0.2), burst: 2, fill_window: false }));
        let st = p.probe_state();
        assert!((st.rate_est_pps - 10.0).abs() < 1e-9 && (st.send_rate_pps - 10.0).abs() < 1e-9);
        assert!((st.probe_gap_s - 0.1).abs() < 1e-12 && st.alpha.is_nan());
        assert_eq!(p.totals(), (0, 5, 0));
    }

    #[test]
    fn n_skip_when_v_falls() {
        // Spec V18: V_old = 10, V_new = 5 skips ⌈5/2⌉ = 3 pair slots (6 packets withheld),
        // each 2·s_e long with the new s_e.
        let mut p = running(1.0, 0.1, Carry::Burst);
        pair(&mut p, 1.0, 2.0, 0.2, 10);
        assert!((p.v_estimate() - 5.0).abs() < 1e-9);
        assert_eq!(p.take_pace_adjust(), PaceAdjust { skip: 3, extra: 0 });
        assert_eq!(p.pacing().unwrap().interval, from_secs(0.4));
        // V 5 -> 4: ⌈1/2⌉ = 1; no change: nothing; skips not taken yet add up.
        pair(&mut p, 2.0, 3.0, 0.25, 10);
        pair(&mut p, 2.1, 3.1, 0.25, 10);
        pair(&mut p, 2.2, 3.2, 1.0 / 3.0, 10);
        assert_eq!(p.take_pace_adjust(), PaceAdjust { skip: 2, extra: 0 }, "4 -> 3: 1 more");
        assert_eq!(p.totals().0, 5);
        assert_eq!(p.carried(), 0.0, "carry = burst: a skip's excess is forgotten");
    }

    #[test]
    fn burst_when_v_grows_with_the_remainder_carried() {
        let mut p = running(1.0, 0.2, Carry::Burst); // V = 5
                                                     // V 5 -> 6.67: ⌈1.67⌉ = 2 unpaired packets at once, 0.33 sent ahead.
        pair(&mut p, 1.0, 2.0, 0.15, 5);
        assert_eq!(p.take_pace_adjust(), PaceAdjust { skip: 0, extra: 2 });
        assert!((p.carried() + 1.0 / 3.0).abs() < 1e-9);
        // V 6.67 -> 8: 1.33 - 0.33 = 1 packet; the bursts add up to V's growth, 3.
        pair(&mut p, 2.0, 3.0, 0.125, 5);
        assert_eq!(p.take_pace_adjust(), PaceAdjust { skip: 0, extra: 1 });
        assert!(p.carried().abs() < 1e-9);
        // V 8 -> 8.2: ⌈0.2⌉ = 1, then 8.2 -> 8.4 is covered by the 0.8 sent ahead.
        pair(&mut p, 3.0, 4.0, 1.0 / 8.2, 5);
        pair(&mut p, 3.1, 4.1, 1.0 / 8.4, 5);
        assert_eq!(p.take_pace_adjust(), PaceAdjust { skip: 0, extra: 1 });
        assert!((p.carried() + 0.6).abs() < 1e-9);
        assert_eq!(p.totals(), (0, 4, 0));
    }

    #[test]
    fn carry_all_owes_what_a_skip_withheld_beyond_the_fall_of_v() {
        let mut p = running(1.0, 0.1, Carry::All); // V = 10
                                                   // V 10 -> 9: skip 1 slot = 2 packets for a fall of 1: 1 owed.
        pair(&mut p, 1.0, 2.0, 1.0 / 9.0, 10);
        assert_eq!(p.take_pace_adjust(), PaceAdjust { skip: 1, extra: 0 });
        assert!((p.carried() - 1.0).abs() < 1e-9);
        // V 9 -> 9.5: 0.5 + 1 owed = ⌈1.5⌉ = 2, 0.5 ahead.
        pair(&mut p, 2.0, 3.0, 1.0 / 9.5, 10);
        assert_eq!(p.take_pace_adjust(), PaceAdjust { skip: 0, extra: 2 });
        assert!((p.carried() + 0.5).abs() < 1e-9);
    }

    #[test]
    fn burst_is_cut_to_the_window() {
        let cfg = Pp2Config { n_b: 0, r_estimate: RUpdate::First, ..Pp2Config::default() };
        let mut p = Pp2::build(&cfg, 8);
        pair(&mut p, 0.0, 1.0, 0.2, 0); // V = 5
                                        // V 5 -> 10 with 6 outstanding: room for 2 of the 5.
        pair(&mut p, 1.0, 2.0, 0.1, 6);
        assert_eq!(p.take_pace_adjust(), PaceAdjust { skip: 0, extra: 2 });
        assert_eq!(p.totals(), (0, 2, 3));
    }

    #[test]
    fn r_e_from_the_first_ack_of_every_pair() {
        // §4.4: R_e = r_t - n_b·s_e on each pair's first ACK (s_e as it is then); V_e on the
        // second. Start-up: R_e = 0.5, s_e = 0.1, V = 5, n_b = 5.
        let mut p = Pp2::build(&Pp2Config::default(), 100);
        pair(&mut p, 0.0, 0.5, 0.1, 0);
        p.take_pace_adjust();
        // The first packet waited for 6 packets, not 5: r_t = 0.5 + 0.6, R_e = 0.6, V = 6.
        p.on_ack_info(&ack(11.1, 10.0, pair_code::FIRST, 50, 61));
        assert!((p.r_estimate().unwrap() - 0.6).abs() < 1e-9);
        assert!((p.v_estimate() - 5.0).abs() < 1e-9, "V_e waits for the second ACK");
        p.on_ack_info(&ack(11.2, 10.0, pair_code::SECOND, 51, 61));
        assert!((p.v_estimate() - 6.0).abs() < 1e-9);
        assert_eq!(p.take_pace_adjust(), PaceAdjust { skip: 0, extra: 1 });
        // R_e is floored at 0.
        p.on_ack_info(&ack(12.1, 12.0, pair_code::FIRST, 60, 61));
        assert_eq!(p.r_estimate(), Some(0.0));
        // Unpaired ACKs and a pair's lone FIRST give no probe.
        let probes = p.probes();
        p.on_ack_info(&ack(12.3, 12.2, pair_code::UNPAIRED, 61, 62));
        p.on_ack_info(&ack(12.4, 12.35, pair_code::SECOND, 62, 62));
        assert_eq!(p.probes(), probes);
        // r_estimate = first keeps the start-up R_e.
        let mut f = Pp2::build(&Pp2Config { r_estimate: RUpdate::First, ..Pp2Config::default() }, 100);
        pair(&mut f, 0.0, 0.5, 0.1, 0);
        pair(&mut f, 10.0, 11.1, 0.1, 10);
        assert_eq!(f.r_estimate(), Some(0.5));
        assert_eq!(f.take_pace_adjust(), PaceAdjust { skip: 0, extra: 5 }, "priming only");
    }

    #[test]
    fn n_b_as_a_fraction_of_v_e() {
        let cfg = Pp2Config { n_b_fraction: Some(0.35), ..Pp2Config::default() };
        let mut p = Pp2::build(&cfg, 100);
        pair(&mut p, 0.0, 1.0, 0.125, 0); // V_e = 8: n_b = round(2.8) = 3
        assert_eq!(p.n_b(), 3.0);
        assert_eq!(p.take_pace_adjust(), PaceAdjust { skip: 0, extra: 3 });
    }

    #[test]
    fn smoothed_estimators() {
        // The fuzzy predictor starts from the first sample and then averages.
        let cfg = Pp2Config { estimator: Estimator::Fuzzy, n_b: 0, r_estimate: RUpdate::First, ..Pp2Config::default() };
        let mut p = Pp2::build(&cfg, 100);
        pair(&mut p, 0.0, 1.0, 0.1, 0);
        assert!((p.rate_pps() - 10.0).abs() < 1e-9);
        pair(&mut p, 1.0, 2.0, 0.2, 5);
        assert!(p.rate_pps() > 5.0 && p.rate_pps() < 10.0, "{}", p.rate_pps());
        let st = p.probe_state();
        assert!(st.alpha > 0.0 && st.alpha < 1.0);
        assert!(p.take_pace_adjust().skip >= 1);
    }

    #[test]
    fn probe_log() {
        let mut p = Pp2::build(&Pp2Config::default(), 100);
        p.enable_event_log(4);
        pair(&mut p, 0.0, 0.5, 0.1, 0);
        pair(&mut p, 1.0, 1.5, 0.1, 10);
        let mut got = vec![];
        p.drain_event_log(&mut |_, i, v| got.push((i, v.to_vec())));
        assert_eq!(got.iter().map(|r| r.0).collect::<Vec<_>>(), vec![1, 2]);
        let st = p.probe_state();
        assert_eq!((got[1].1[0], got[1].1[1]), (st.probe_gap_s, st.rate_est_pps));
    }
}
