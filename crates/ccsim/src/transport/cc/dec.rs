//! DEC: the DECbit source window rule.
//!
//! Source: Keshav 1991 ch. 6, §6.5 and §6.6.3 (keshav91-experiments.md §3.7, gap G10): the
//! window follows the congestion bits the sink echoes in its ACKs, control acts only once per
//! two round trips, and the scheme "keeps the average queue length close to one". The rule
//! itself is Ramakrishnan & Jain (TOCS 1990) as the spec reads it [EXT]:
//! - after a window change from W_old to W, ignore the next W_old ACKs (they answer packets
//!   sent before the change), then look at the bits of the next W ACKs;
//! - if at least half of them (`mark_fraction` = 0.5) carry the bit, W <- 0.875 W
//!   (`decrease_factor`), otherwise W <- W + 1 (`increase`);
//! - W is kept as a real number, clamped to [1, max window]; the window used is floor(W)
//!   (`rounding = Round` rounds to the nearest instead; the spec allows either).
//!
//! Choices where the sources are silent ([REC] = the spec's recommendation), each a parameter:
//! - Timeout [REC, G10]: W = 1 (`timeout_window`), DECnet's timeout response. A timeout is a
//!   window change like any other: the next W_old ACKs are ignored, then W ACKs observed.
//! - Every decision starts a new observation cycle, even when clamping leaves W unchanged
//!   (so a source pinned at 1 still acts once per two round trips).
//! - Every ACK counts, new or duplicate (the sink sends one per data packet, so ACKs stand for
//!   packets); the bit is read in `on_ack_info`, which the sender calls for each of them
//!   (with `count_acks = "new"`, only for ACKs of new data).
//! - Initial window 1 (`initial_window`; the spec is silent; as JK's cwnd and DECnet's start),
//!   with nothing to ignore before the first observation.
//! - No fast retransmit: the DEC source recovers by its timer only (`on_dup_ack` is false).
//! - Timer (G10): RTO = 2 x srtt (`beta`, RFC 793's form, which Generic uses too), samples
//!   from the transmission the ACK answers (`rtt_sample = "last"`), *no* Karn's rule,
//!   exponential back-off, one timer per connection, initial RTO 2 s, minimum 1 s (BSD's
//!   floor, as JK; the spec is silent: under rto_k it keeps Scenario 1's Telnet packets, which
//!   slip into a queue the FTP's constant RTT has trained the timer on, from firing it;
//!   `min_rto = "0s"` removes it). The spec's [REC] is Jacobson's srtt + 2 x mean
//!   deviation (`rto_k = 2` selects it), but with the window pinned at 1 the samples are
//!   nearly constant, the deviation decays to zero and the timer expires with the ACK, which
//!   Scenario 4's and 7's DEC/DEC rows (no retransmissions in the thesis) rule out; 2 x srtt
//!   gives them (keshav91 finding S4-fcfs-phase-lock; test
//!   dec_window_of_one_behind_a_full_queue_never_times_out).
//!   The spec reads Scenario 8's DEC source 2 (retransmission rate = throughput on its long
//!   path) as spurious timeouts timed from the latest transmission: `rtt_sample = "latest"`
//!   does that (an ACK of the original that arrives after a retransmission is timed from the
//!   retransmission, so the timer settles where 2 x srtt = path RTT - srtt, i.e. srtt = RTT /
//!   3), but it also traps Scenario 4's FTP while its queue fills (keshav91 finding
//!   S8-dec-latest-send-sampling), so the default stays "last". `rtt_sample = "first"` gives
//!   G10's other alternative, Generic's first-transmission sampling.
//! - Which ACKs a decision counts (`count_acks`): "all" (default; new and duplicate, one per
//!   data packet at the sink) or "new" (ACKs of new data only).

use super::{AckInfo, AckResponse, Algorithm, CongestionControl, TimeoutInfo};
use crate::scenario::decode::Result;
use crate::scenario::params::Params;
use crate::sim::PS_PER_SEC;
use crate::transport::config::{PacingRtt, SenderConfig, TimerMode};
use crate::transport::rtt::{RtoConfig, RtoFormula, RttSamples, SampleFrom, SamplePacket};

/// How the real-valued window W becomes the integer window the source uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WindowRounding {
    Floor,
    Round,
}

/// Parameters of the DEC source; `Default` gives the spec's values.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DecParams {
    /// Window at start, packets. 1.
    pub initial_window: f64,
    /// Additive increase per clean observation cycle, packets. 1.
    pub increase: f64,
    /// Multiplicative decrease factor. 0.875.
    pub decrease_factor: f64,
    /// Fraction of marked ACKs at or above which the window decreases. 0.5.
    pub mark_fraction: f64,
    /// Integer window: floor(W) (default) or round(W).
    pub rounding: WindowRounding,
    /// Window after a retransmission timeout. 1.
    pub timeout_window: f64,
    /// Whether duplicate ACKs count as observations (true) or only ACKs of new data (false).
    pub count_duplicates: bool,
}

impl Default for DecParams {
    fn default() -> Self {
        DecParams {
            initial_window: 1.0,
            increase: 1.0,
            decrease_factor: 0.875,
            mark_fraction: 0.5,
            rounding: WindowRounding::Floor,
            timeout_window: 1.0,
            count_duplicates: true,
        }
    }
}

#[derive(Clone, Debug)]
pub struct Dec {
    /// Real-valued window W.
    w: f64,
    max_window: f64,
    p: DecParams,
    /// ACKs still to be ignored after the last change.
    ignore_left: u32,
    /// ACKs to observe in this cycle (the integer window after the last change).
    observe: u32,
    observed: u32,
    marked: u32,
}

impl Algorithm for Dec {
    const NAME: &'static str = "dec";
    const SUMMARY: &'static str = "the DECbit source window rule (Keshav 1991 §6.5; Ramakrishnan and Jain 1990)";
    type Config = DecParams;

    fn sender_defaults() -> SenderConfig {
        SenderConfig {
            rto: RtoConfig {
                formula: RtoFormula::Beta(2.0),
                sample_from: SampleFrom::Last,
                sample_packet: SamplePacket::Echoed,
                karn: false,
                samples: RttSamples::OnePerAck,
                backoff: true,
                initial_rto: 2 * PS_PER_SEC,
                min_rto: PS_PER_SEC,
                max_rto: 64 * PS_PER_SEC,
                granularity: 0,
            },
            timers: TimerMode::Single,
            own_ack_stops_timer: false,
            pacing: false,
            pacing_rtt: PacingRtt::Srtt,
            ecn: false,
            sack: None,
        }
    }

    fn decode(p: &mut Params, sender: &mut SenderConfig) -> Result<DecParams> {
        // Either timer formula: beta x srtt (the default) or srtt + k x deviation.
        sender.decode_rto_k(p)?;
        if p.given("rto_k") && p.given("beta") {
            return Err(p.error("beta", "expected rto_k or beta, not both: each sets the timeout formula"));
        }
        sender.decode_beta(p, "beta", 0.0, "beta of timeout = beta x srtt")?;
        let d = DecParams::default();
        Ok(DecParams {
            initial_window: p.number("initial_window", d.initial_window, 1.0, 1e8, "window at start, packets")?,
            increase: p.number("increase", d.increase, 0.0, 1e6, "additive increase per clean observation cycle, packets")?,
            decrease_factor: p.number("decrease_factor", d.decrease_factor, 0.01, 1.0, "multiplicative decrease factor")?,
            mark_fraction: p.number("mark_fraction", d.mark_fraction, 0.0, 1.0, "fraction of marked ACKs at or above which the window decreases")?,
            rounding: p.choice(
                "window_rounding",
                d.rounding,
                &[("floor", WindowRounding::Floor), ("round", WindowRounding::Round)],
                "how the real-valued window becomes the integer window used",
            )?,
            timeout_window: p.number("timeout_window", d.timeout_window, 1.0, 1e8, "window after a retransmission timeout, packets")?,
            count_duplicates: p.choice(
                "count_acks",
                d.count_duplicates,
                &[("all", true), ("new", false)],
                "which ACKs a decision observes: all, or ACKs of new data only",
            )?,
        })
    }

    fn build(params: &DecParams, max_window: u32) -> Self {
        let max_window = (max_window.max(1)) as f64;
        let mut d = Dec { w: 1.0, max_window, p: *params, ignore_left: 0, observe: 1, observed: 0, marked: 0 };
        d.w = d.clamp(params.initial_window);
        d.observe = d.window();
        d
    }
}

impl Dec {
    #[inline]
    fn clamp(&self, w: f64) -> f64 {
        w.max(1.0).min(self.max_window)
    }

    /// The integer window the source uses.
    #[inline]
    pub fn window(&self) -> u32 {
        let w = match self.p.rounding {
            WindowRounding::Floor => self.w.floor(),
            WindowRounding::Round => self.w.round(),
        };
        (w as u32).max(1)
    }

    /// The real-valued window W (for traces).
    pub fn real_window(&self) -> f64 {
        self.w
    }

    /// The window changed (or a decision was taken) with `old` the integer window before it.
    #[inline]
    fn start_cycle(&mut self, old: u32) {
        self.ignore_left = old;
        self.observe = self.window();
        self.observed = 0;
        self.marked = 0;
    }

    /// One ACK's echoed congestion bit: the whole window rule.
    #[inline]
    pub fn on_bit(&mut self, ce: bool) {
        if self.ignore_left > 0 {
            self.ignore_left -= 1;
            return;
        }
        self.observed += 1;
        self.marked += ce as u32;
        if self.observed >= self.observe {
            let old = self.window();
            let w = if self.marked as f64 >= self.p.mark_fraction * self.observed as f64 {
                self.w * self.p.decrease_factor
            } else {
                self.w + self.p.increase
            };
            self.w = self.clamp(w);
            self.start_cycle(old);
        }
    }
}

impl CongestionControl for Dec {
    fn cwnd(&self) -> f64 {
        self.window() as f64
    }
    fn on_new_ack(&mut self, _ack: &AckInfo) -> AckResponse {
        AckResponse::Nothing
    }
    fn on_dup_ack(&mut self, _count: u32, _ack: &AckInfo) -> bool {
        false
    }
    fn on_timeout(&mut self, _t: &TimeoutInfo) {
        let old = self.window();
        self.w = self.clamp(self.p.timeout_window);
        self.start_cycle(old);
    }
    #[inline]
    fn on_ack_info(&mut self, ack: &AckInfo) {
        if self.p.count_duplicates || ack.newly_acked > 0 {
            self.on_bit(ack.ce);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn count_acks_new_ignores_duplicates() {
        // Window 1 observes one ACK per decision: a clean duplicate ACK raises W to 2 when
        // duplicates count, and leaves it at 1 when only new ACKs do.
        let all = DecParams::default();
        let new_only = DecParams { count_duplicates: false, ..DecParams::default() };
        let mut a = Dec::build(&all, 10);
        let mut n = Dec::build(&new_only, 10);
        a.on_ack_info(&info(false, 0));
        n.on_ack_info(&info(false, 0));
        assert_eq!((a.window(), n.window()), (2, 1));
        n.on_ack_info(&info(false, 1));
        assert_eq!(n.window(), 2);
    }

    /// A synthetic ACK (`newly_acked` 0: a duplicate).
    fn info(ce: bool, newly_acked: u64) -> AckInfo {
        AckInfo { newly_acked, ack: 1, flight_before: 1, high_sent: 1, ce, ..AckInfo::default() }
    }

    /// One new ACK as the sender reports it: the ACK's fields first, then the new-ACK callback.
    fn ack(d: &mut Dec, ce: bool) {
        d.on_ack_info(&info(ce, 1));
        assert_eq!(d.on_new_ack(&info(ce, 1)), AckResponse::Nothing);
    }

    fn acks(d: &mut Dec, pattern: &[bool]) {
        for &ce in pattern {
            ack(d, ce);
        }
    }

    /// A source driven from 1 up to integer window `w` by clean cycles.
    fn at_window(max: u32, w: u32) -> Dec {
        let mut d = Dec::build(&DecParams::default(), max);
        while d.window() < w {
            let (ignore, observe) = (d.ignore_left, d.observe);
            acks(&mut d, &vec![false; (ignore + observe) as usize]);
        }
        assert_eq!(d.window(), w);
        d
    }

    #[test]
    fn starts_at_one_and_opens_by_one_after_w_clean_acks() {
        let mut d = Dec::build(&DecParams::default(), 10);
        assert_eq!(d.cwnd(), 1.0);
        ack(&mut d, false); // nothing to ignore at start; one clean ACK of a window of 1
        assert_eq!(d.cwnd(), 2.0);
        ack(&mut d, false); // ignored (W_old = 1)
        ack(&mut d, false); // first of W = 2
        assert_eq!(d.cwnd(), 2.0);
        ack(&mut d, false);
        assert_eq!(d.cwnd(), 3.0);
    }

    #[test]
    fn the_w_old_acks_after_a_change_are_ignored() {
        let mut d = at_window(10, 3); // changed from 2 to 3: ignore 2, observe 3
        acks(&mut d, &[true, true]); // marked, but they answer packets sent before the change
        assert_eq!(d.cwnd(), 3.0);
        acks(&mut d, &[false, false]);
        assert_eq!(d.cwnd(), 3.0);
        ack(&mut d, false);
        assert_eq!(d.cwnd(), 4.0, "the two ignored marks must not count");
    }

    #[test]
    fn half_or_more_marked_multiplies_by_0_875() {
        let mut d = at_window(10, 4); // W = 4.0 exactly; ignore 3, observe 4
        acks(&mut d, &[false; 3]);
        acks(&mut d, &[true, false, true, false]); // exactly 50%: decrease
        assert_eq!(d.real_window(), 3.5);
        assert_eq!(d.cwnd(), 3.0, "floor of 3.5");
        // ignore W_old = 4, then observe 3: one of three marked (< 50%): increase
        acks(&mut d, &[true; 4]);
        acks(&mut d, &[true, false, false]);
        assert_eq!(d.real_window(), 4.5);
        assert_eq!(d.cwnd(), 4.0);
        // ignore 3, observe 4: three of four marked
        acks(&mut d, &[false; 3]);
        acks(&mut d, &[true, true, false, true]);
        assert!((d.real_window() - 4.5 * 0.875).abs() < 1e-12);
        assert_eq!(d.cwnd(), 3.0);
    }

    #[test]
    fn rounding_can_be_chosen() {
        let p = DecParams { rounding: WindowRounding::Round, ..DecParams::default() };
        let mut d = Dec::build(&p, 10);
        acks(&mut d, &[false]); // 2
        acks(&mut d, &[false; 3]); // 3
        acks(&mut d, &[false; 5]); // 4
        assert_eq!(d.cwnd(), 4.0);
        acks(&mut d, &[false; 3]);
        acks(&mut d, &[true; 4]); // 3.5 rounds to 4
        assert_eq!(d.real_window(), 3.5);
        assert_eq!(d.cwnd(), 4.0);
    }

    #[test]
    fn window_is_clamped_to_one_and_the_maximum() {
        let mut d = Dec::build(&DecParams::default(), 3);
        for _ in 0..20 {
            ack(&mut d, true);
            assert!(d.real_window() >= 1.0 && d.cwnd() == 1.0);
        }
        for _ in 0..50 {
            ack(&mut d, false);
            assert!(d.real_window() <= 3.0 && d.cwnd() <= 3.0);
        }
        assert_eq!(d.cwnd(), 3.0);
        // pinned at 1, a source still decides once per cycle: ignore 1, observe 1
        let mut d = Dec::build(&DecParams::default(), 3);
        ack(&mut d, true);
        assert_eq!((d.cwnd(), d.ignore_left, d.observe), (1.0, 1, 1));
        // an initial window out of range is clamped too
        let d = Dec::build(&DecParams { initial_window: 9.0, ..DecParams::default() }, 4);
        assert_eq!(d.cwnd(), 4.0);
    }

    #[test]
    fn timeout_sets_the_window_to_one_and_restarts_the_cycle() {
        let mut d = at_window(10, 5);
        d.on_timeout(&TimeoutInfo { flight: 5, high_sent: 100, ..TimeoutInfo::default() });
        assert_eq!(d.cwnd(), 1.0);
        acks(&mut d, &[false; 5]); // ACKs of the 5 packets sent before the timeout: ignored
        assert_eq!(d.cwnd(), 1.0);
        ack(&mut d, false);
        assert_eq!(d.cwnd(), 2.0);
    }

    #[test]
    fn duplicate_acks_never_ask_for_a_retransmission_but_their_bits_count() {
        let mut d = Dec::build(&DecParams::default(), 10);
        let info = info(true, 0);
        for count in 1..10 {
            assert!(!d.on_dup_ack(count, &info));
        }
        let mut d = at_window(10, 2); // ignore 1, observe 2
        for _ in 0..3 {
            d.on_ack_info(&info); // as the sender calls it for duplicates
            assert!(!d.on_dup_ack(1, &info));
        }
        assert_eq!(d.cwnd(), 1.0, "2 x 0.875 = 1.75, floor 1");
    }

    #[test]
    fn defaults_are_the_chosen_timer() {
        let t = Dec::sender_defaults();
        assert_eq!(t.rto.formula, RtoFormula::Beta(2.0));
        assert_eq!(t.rto.sample_from, SampleFrom::Last);
        assert!(!t.rto.karn, "G10: no Karn's rule");
        assert!(t.rto.backoff);
        assert_eq!(t.rto.initial_rto, 2 * PS_PER_SEC);
        assert_eq!(t.timers, TimerMode::Single);
    }
}
