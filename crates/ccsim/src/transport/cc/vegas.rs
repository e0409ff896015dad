//! TCP Vegas: delay-based congestion avoidance.
//!
//! Source: Hua 2002 §3.2, eqs. (3.1)-(3.4) (spec hua02-vegas-jcc-swtp.md §1.3), which is the
//! authority for the rule; Brakmo and Peterson 1995 (IEEE JSAC 13(8)) for the parts the thesis
//! leaves out; ns-2's `Agent/TCP/Vegas` (which Hua ran) and Linux's `tcp_vegas.c` as references
//! of shape. Cui's thesis uses the same packets-based rule as its "implemented (ns2) Vegas".
//! - baseRTT = the smallest RTT ever measured (3.1), from every ACK's own sample, new or
//!   duplicate: now - the echoed transmission time of the data packet that caused it (exact
//!   for retransmissions too, so no Karn filter is needed);
//! - once per round trip, diff = W (RTT - baseRTT) / RTT (= (Expected - Actual) x baseRTT,
//!   (3.3): the packets the flow estimates it has queued), with W the current window (the
//!   whole packets it lets out, floor(cwnd)), and W <- W + 1 if diff < alpha, W - 1 if
//!   diff > beta, unchanged in between (3.4);
//! - a round: the update happens when the ACK of the first packet sent after the previous
//!   update arrives (Brakmo's distinguished segment; Linux's `beg_snd_nxt`, ns-2's
//!   `v_begseq_`); its RTT is made of the samples of the ACKs since that update, the
//!   triggering ACK's included (ns-2 adds that sample after the update, to the next round:
//!   not modelled; hua02 finding vegas-base-rtt-overestimate measured it);
//! - slow start (Brakmo, ns-2): rounds alternate between growing the window by one per new ACK
//!   (doubling it) and holding it, so that a round with a constant window can be compared.
//!   At the end of a held round, diff > gamma leaves slow start; so does reaching ssthresh;
//! - losses fall back on Reno: fast retransmit and fast recovery on the third duplicate ACK,
//!   slow start from one packet after a timeout ([`Reno`] itself, embedded and fed the
//!   duplicate ACKs, the ACK that ends recovery and the timeouts; RFC 5681's halving
//!   `half_flight`). While Reno recovers, Vegas stands aside; after recovery (cwnd =
//!   ssthresh) it resumes in congestion avoidance, after a timeout in slow start, each with a
//!   fresh round (as Linux re-enables Vegas on returning to the Open state).
//!
//! Choices where the sources are silent or disagree ([REC] the spec's recommendation, [INF]
//! read here), each with its parameter:
//! - alpha, beta, gamma [REC]: 1, 3, 1 packets (ns-2's defaults; the thesis names the symbols
//!   only; Linux uses 2, 4, 1).
//! - `round_rtt` [REC: "mean"]: the RTT of a round is the mean of its samples, as ns-2 computes
//!   it (`v_sumRTT_ / v_cntRTT_`); "min" takes the smallest, as Linux does (to filter delayed
//!   ACKs). Brakmo 1995 times one distinguished segment per round.
//! - diff is the thesis's W (RTT - baseRTT) / RTT, real-valued. Linux divides by baseRTT
//!   instead (a larger diff for the same queue; not modelled); ns-2 uses the packets
//!   outstanding and those sent in the round for the two rates (floor(cwnd) here) and rounds
//!   diff to the nearest integer (`round_diff`, off: the thesis's (3.3) is real-valued; hua02
//!   finding vegas-base-rtt-overestimate has both).
//! - `ss_exit` [REC: "eighth"]: leaving slow start trims cwnd by an eighth (Brakmo; ns-2's
//!   `cwnd_ -= cwnd_/8`); "target" sets it to min(cwnd, floor(cwnd x baseRTT / RTT) + 1), the
//!   window that matches the rate measured (Linux). ssthresh is then set to the trimmed window.
//!   Linux does not hold the window in alternate rounds; not modelled.
//! - `min_cwnd` [INF]: 2 packets, the floor of a Vegas decrease or trim (ns-2 and Linux).
//! - The first round is the one packet sent at cwnd = 1: its ACK makes the first decision (a
//!   held round's check, then growth). ns-2 holds the second round too. A timeout restarts the
//!   same way from the retransmitted packet.
//! - CA's increase is applied whole at the update (the thesis's W + 1, Linux); ns-2 spreads it
//!   as 1/cwnd per ACK over the next round. ns-2 also grows in slow start only while the window
//!   is nearly full, and resets baseRTT to the round's mean RTT when at most one packet was
//!   sent in the round: not modelled. RTT samples come from duplicate ACKs too (ns-2 takes
//!   them from new ACKs only); this matters only after a loss.
//! - Brakmo's own loss handling (a fine-grained timeout check on the first duplicate ACKs, a
//!   3/4 cut) is not modelled: the spec's [REC] is Reno's (§1.3). ECN marks are not reacted to.
//! - Sender (spec §7: "Jacobson/Karels, min 1 s, tick 0.1 s"): RFC 6298's timer as Reno's
//!   (srtt + 4 x deviation, Karn's rule, back-off, one timer) with min_rto 1 s and the tick
//!   as RFC 6298's granularity G = 0.1 s; initial RTO 3 s (the spec's 3-6 s, RFC 2988's value).
//!
//! - `units = "rate"` is the "prose" Vegas of Cui ch. 4 §4.3 (Low, Peterson and Wang 2002):
//!   alpha and beta are rates, packets/s, compared with Expected − Actual = diff / baseRTT, so
//!   a flow keeps alpha x baseRTT packets queued (4.8). `slow_start = false` starts in
//!   congestion avoidance, as Cui's persistent-congestion runs do (E4.1).
//!
//! Trace columns: `base_rtt_s` (baseRTT), `round_rtt_s` (the RTT of the last round) and
//! `diff` (the packets queued it estimated then); NaN until known.

use super::loss::{aimd_increase, LossConfig};
use super::reno::{rfc6298_defaults, Reno};
use super::{AckInfo, AckResponse, Algorithm, CongestionControl, TimeoutInfo};
use crate::scenario::decode::Result;
use crate::scenario::params::Params;
use crate::sim::{time::to_secs, SimTime, PS_PER_SEC};
use crate::transport::config::SenderConfig;

/// Which RTT a round's update uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RoundRtt {
    /// The mean of the round's samples (ns-2).
    Mean,
    /// The smallest of them (Linux).
    Min,
}

/// What alpha and beta measure.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VegasUnits {
    /// Packets queued: diff = (Expected − Actual) x baseRTT (Hua 2002, Brakmo, ns-2).
    Packets,
    /// A rate, packets/s: Expected − Actual (Cui's "prose" Vegas).
    Rate,
}

/// How leaving slow start trims the window.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SlowStartExit {
    /// cwnd - cwnd/8 (Brakmo 1995, ns-2).
    Eighth,
    /// min(cwnd, floor(cwnd x baseRTT / RTT) + 1) (Linux).
    Target,
}

/// Vegas's parameters; `Default` gives the spec's values.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct VegasConfig {
    /// Initial window and duplicate-ACK threshold of the Reno fallback.
    pub loss: LossConfig,
    /// Packets queued below which the window grows. 1.
    pub alpha: f64,
    /// Packets queued above which the window shrinks. 3.
    pub beta: f64,
    /// Packets queued above which slow start ends. 1.
    pub gamma: f64,
    pub round_rtt: RoundRtt,
    pub ss_exit: SlowStartExit,
    /// Floor of a decrease or a slow-start trim, packets. 2.
    pub min_cwnd: f64,
    pub units: VegasUnits,
    /// Begin in slow start (else in congestion avoidance). true.
    pub slow_start: bool,
    /// Round diff to the nearest whole packet before comparing it (ns-2). false.
    pub round_diff: bool,
}

impl Default for VegasConfig {
    fn default() -> Self {
        VegasConfig {
            loss: LossConfig::default(),
            alpha: 1.0,
            beta: 3.0,
            gamma: 1.0,
            round_rtt: RoundRtt::Mean,
            ss_exit: SlowStartExit::Eighth,
            min_cwnd: 2.0,
            units: VegasUnits::Packets,
            slow_start: true,
            round_diff: false,
        }
    }
}

/// No RTT measured yet.
const NONE: SimTime = SimTime::MAX;

#[derive(Clone, Debug)]
pub struct Vegas {
    cfg: VegasConfig,
    cwnd: f64,
    ssthresh: f64,
    max_window: f64,
    /// The loss fallback: its window rules while it recovers and on timeouts.
    reno: Reno,
    /// Reno is in fast recovery (its window is the one used).
    in_recovery: bool,
    /// Slow start has not been left (by diff > gamma or by reaching ssthresh).
    slow_start: bool,
    /// Slow start: this round grows the window (else holds it).
    grow: bool,
    /// The smallest RTT ever measured.
    base_rtt: SimTime,
    /// The update happens at the first ACK above this sequence number (the first packet sent
    /// after the previous update).
    round_end: u64,
    /// The samples of this round: the smallest, their sum (ps) and their number.
    round_min: SimTime,
    round_sum: f64,
    round_n: u32,
    /// What the last update measured (for traces): the round's RTT and diff.
    last_rtt: SimTime,
    last_diff: f64,
    /// Updates made (rounds completed).
    rounds: u64,
}

impl Algorithm for Vegas {
    const NAME: &'static str = "vegas";
    const SUMMARY: &'static str = "TCP Vegas (Hua 2002 §3.2; Brakmo and Peterson 1995): alpha..beta packets queued, Reno on loss";
    type Config = VegasConfig;
    const TRACE_COLUMNS: &'static [&'static str] = &["base_rtt_s", "round_rtt_s", "diff"];

    fn sender_defaults() -> SenderConfig {
        let mut s = rfc6298_defaults();
        s.rto.initial_rto = 3 * PS_PER_SEC;
        s.rto.min_rto = PS_PER_SEC;
        s.rto.granularity = PS_PER_SEC / 10;
        s
    }

    fn decode(p: &mut Params, sender: &mut SenderConfig) -> Result<VegasConfig> {
        let d = VegasConfig::default();
        let loss = LossConfig::decode(p, sender)?;
        let alpha = p.number("alpha", d.alpha, 0.0, 1e6, "packets queued below which the window grows by one per round")?;
        let beta = p.number("beta", d.beta, 0.0, 1e6, "packets queued above which the window shrinks by one per round")?;
        if beta < alpha {
            return Err(p.error("beta", format!("expected beta >= alpha ({alpha}), got {beta}")));
        }
        Ok(VegasConfig {
            loss,
            alpha,
            beta,
            gamma: p.number("gamma", d.gamma, 0.0, 1e6, "packets queued above which slow start ends")?,
            round_rtt: p.choice(
                "round_rtt",
                d.round_rtt,
                &[("mean", RoundRtt::Mean), ("min", RoundRtt::Min)],
                "a round's RTT: the mean of its samples (ns-2) or the smallest (Linux)",
            )?,
            ss_exit: p.choice(
                "ss_exit",
                d.ss_exit,
                &[("eighth", SlowStartExit::Eighth), ("target", SlowStartExit::Target)],
                "leaving slow start: cwnd - cwnd/8 (Brakmo, ns-2) or cwnd x baseRTT/RTT + 1 (Linux)",
            )?,
            min_cwnd: p.number("min_cwnd", d.min_cwnd, 1.0, 1e6, "floor of a Vegas decrease or slow-start trim, packets")?,
            units: p.choice(
                "units",
                d.units,
                &[("packets", VegasUnits::Packets), ("rate", VegasUnits::Rate)],
                "alpha and beta as packets queued, or as rates in packets/s against Expected - Actual (Cui's prose Vegas)",
            )?,
            slow_start: p.flag("slow_start", d.slow_start, "begin in slow start (false: in congestion avoidance, Cui E4.1)")?,
            round_diff: p.flag(
                "round_diff",
                d.round_diff,
                "round diff to the nearest whole packet before comparing it with alpha, beta and gamma, as ns-2 does (int(diff + 0.5)); false: the thesis's real-valued (3.3)",
            )?,
        })
    }

    fn build(cfg: &VegasConfig, max_window: u32) -> Self {
        let reno = Reno::new(&cfg.loss, max_window);
        Vegas {
            cfg: *cfg,
            cwnd: cfg.loss.initial_cwnd,
            ssthresh: reno.ssthresh(),
            max_window: max_window as f64,
            reno,
            in_recovery: false,
            slow_start: cfg.slow_start,
            grow: false,
            base_rtt: NONE,
            round_end: 0,
            round_min: NONE,
            round_sum: 0.0,
            round_n: 0,
            last_rtt: NONE,
            last_diff: f64::NAN,
            rounds: 0,
        }
    }
}

impl Vegas {
    #[inline]
    fn in_slow_start(&self) -> bool {
        self.slow_start && self.cwnd < self.ssthresh
    }

    /// Start a round whose first packet is `next` (the next to be sent).
    #[inline]
    fn start_round(&mut self, next: u64) {
        self.round_end = next;
        self.round_min = NONE;
        self.round_sum = 0.0;
        self.round_n = 0;
    }

    /// The once-per-round decision, at the ACK that ends the round.
    fn update(&mut self) {
        self.rounds += 1;
        if self.round_n == 0 || self.base_rtt == NONE {
            return;
        }
        let rtt = match self.cfg.round_rtt {
            RoundRtt::Mean => (self.round_sum / self.round_n as f64) as SimTime,
            RoundRtt::Min => self.round_min,
        };
        if rtt == 0 {
            return;
        }
        let base = self.base_rtt.min(rtt);
        // (3.3): diff = (W/baseRTT - W/RTT) x baseRTT = W (RTT - baseRTT) / RTT, with W the
        // packets the window lets out (the eighth trimmed at slow start's exit leaves it
        // fractional, and the sender sends its floor).
        let window = self.cwnd.floor().max(1.0);
        let diff = window * (rtt - base) as f64 / rtt as f64;
        let diff = if self.cfg.round_diff { (diff + 0.5).floor() } else { diff };
        self.last_rtt = rtt;
        self.last_diff = diff;
        if self.in_slow_start() {
            if self.grow {
                self.grow = false; // hold the next round still
            } else if diff > self.cfg.gamma {
                let trimmed = match self.cfg.ss_exit {
                    SlowStartExit::Eighth => self.cwnd - self.cwnd / 8.0,
                    SlowStartExit::Target => self.cwnd.min((self.cwnd * base as f64 / rtt as f64).floor() + 1.0),
                };
                self.cwnd = trimmed.max(self.cfg.min_cwnd).min(self.max_window);
                self.ssthresh = self.cwnd;
                self.slow_start = false;
            } else {
                self.grow = true;
            }
            return;
        }
        // The measure alpha and beta bound: packets queued, or Expected - Actual in packets/s.
        let measure = match self.cfg.units {
            VegasUnits::Packets => diff,
            VegasUnits::Rate => diff / to_secs(base).max(1e-12),
        };
        if measure > self.cfg.beta {
            self.cwnd = (self.cwnd - 1.0).max(self.cfg.min_cwnd);
        } else if measure < self.cfg.alpha {
            self.cwnd = (self.cwnd + 1.0).min(self.max_window);
        }
    }

    /// The round trips completed so far (updates made).
    pub fn rounds(&self) -> u64 {
        self.rounds
    }
}

/// The next sequence number the sender will send after this new ACK (its snd_nxt).
#[inline]
fn next_to_send(ack: &AckInfo) -> u64 {
    (ack.ack - ack.newly_acked + ack.flight_before).max(ack.ack)
}

impl CongestionControl for Vegas {
    fn cwnd(&self) -> f64 {
        if self.in_recovery {
            self.reno.cwnd()
        } else {
            self.cwnd
        }
    }
    fn ssthresh(&self) -> f64 {
        self.ssthresh
    }
    #[inline]
    fn on_ack_info(&mut self, ack: &AckInfo) {
        let sample = ack.now.saturating_sub(ack.echo_tx);
        self.base_rtt = self.base_rtt.min(sample);
        self.round_min = self.round_min.min(sample);
        self.round_sum += sample as f64;
        self.round_n += 1;
    }
    fn on_new_ack(&mut self, ack: &AckInfo) -> AckResponse {
        if self.in_recovery {
            // Reno's recovery ends with any new ACK: cwnd = ssthresh, in congestion avoidance.
            self.reno.on_new_ack(ack);
            self.in_recovery = false;
            self.cwnd = self.reno.cwnd().min(self.max_window);
            self.ssthresh = self.reno.ssthresh();
            self.slow_start = false;
            self.start_round(next_to_send(ack));
            return AckResponse::Nothing;
        }
        if ack.ack > self.round_end {
            self.update();
            self.start_round(next_to_send(ack));
        }
        if self.grow && self.in_slow_start() {
            self.cwnd = aimd_increase(self.cwnd, self.ssthresh, self.max_window);
            if self.cwnd >= self.ssthresh {
                self.slow_start = false;
            }
        }
        AckResponse::Nothing
    }
    fn on_dup_ack(&mut self, count: u32, ack: &AckInfo) -> bool {
        let retransmit = self.reno.on_dup_ack(count, ack);
        if retransmit {
            self.in_recovery = true;
            self.ssthresh = self.reno.ssthresh();
        }
        retransmit
    }
    fn on_timeout(&mut self, t: &TimeoutInfo) {
        self.reno.on_timeout(t);
        self.in_recovery = false;
        self.cwnd = self.reno.cwnd();
        self.ssthresh = self.reno.ssthresh();
        self.slow_start = true;
        self.grow = false;
        self.start_round(t.seq);
    }
    fn trace_values(&self, out: &mut [f64]) {
        let secs = |t: SimTime| if t == NONE { f64::NAN } else { to_secs(t) };
        out[0] = secs(self.base_rtt);
        out[1] = secs(self.last_rtt);
        out[2] = self.last_diff;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transport::rtt::RtoFormula;

    const MS: SimTime = PS_PER_SEC / 1000;
    const BASE: SimTime = 100 * MS;

    /// A sender that keeps its window full: each ACK acknowledges the oldest packet after the
    /// RTT the test chooses, and the sender then sends up to the window again.
    struct Path {
        una: u64,
        nxt: u64,
        now: SimTime,
    }

    impl Path {
        fn new() -> Self {
            Path { una: 0, nxt: 0, now: 10 * PS_PER_SEC }
        }

        fn fill(&mut self, v: &Vegas) {
            self.nxt = self.nxt.max(self.una + (v.cwnd().floor() as u64).max(1));
        }

        fn info(&self, newly_acked: u64, rtt: SimTime) -> AckInfo {
            AckInfo {
                now: self.now,
                newly_acked,
                ack: self.una + newly_acked,
                flight_before: self.nxt - self.una,
                high_sent: self.nxt,
                echo_tx: self.now - rtt,
                echo_seq: self.una,
                ..AckInfo::default()
            }
        }

        /// The ACK of the oldest outstanding packet, `rtt` after it was sent.
        fn ack(&mut self, v: &mut Vegas, rtt: SimTime) {
            self.fill(v);
            self.now += MS;
            let info = self.info(1, rtt);
            v.on_ack_info(&info);
            assert_eq!(v.on_new_ack(&info), AckResponse::Nothing);
            self.una += 1;
            self.fill(v);
        }

        /// ACKs until the next update, the i-th of them `rtt(i)` after its packet was sent.
        /// Returns how many ACKs the round took.
        fn round_with(&mut self, v: &mut Vegas, rtt: impl Fn(u64) -> SimTime) -> u64 {
            let r = v.rounds();
            let mut n = 0;
            while v.rounds() == r {
                self.ack(v, rtt(n));
                n += 1;
            }
            n
        }

        fn round(&mut self, v: &mut Vegas, rtt: SimTime) -> u64 {
            self.round_with(v, |_| rtt)
        }
    }

    /// The RTT at which a window of `w` has `diff` packets queued: diff = w (rtt - base) / rtt.
    fn rtt_for(w: f64, diff: f64) -> SimTime {
        (BASE as f64 * w / (w - diff)).round() as SimTime
    }

    fn last_diff(v: &Vegas) -> f64 {
        let mut out = [0.0; 3];
        v.trace_values(&mut out);
        out[2]
    }

    /// A flow past slow start at window `w`, its baseRTT measured.
    fn avoiding(cfg: VegasConfig, w: f64) -> (Vegas, Path) {
        let mut v = Vegas::build(&cfg, 1000);
        v.slow_start = false;
        v.cwnd = w - 1.0;
        let mut p = Path::new();
        assert_eq!(p.round(&mut v, BASE), 1, "the first ACK ends the first round");
        assert_eq!(v.cwnd(), w);
        (v, p)
    }

    #[test]
    fn round_diff_compares_whole_packets_as_ns2() {
        // 3.4 packets queued: above beta = 3 as the thesis reads it, 3 once rounded (ns-2).
        for (round_diff, after) in [(false, 9.0), (true, 10.0)] {
            let (mut v, mut p) = avoiding(VegasConfig { round_diff, ..VegasConfig::default() }, 10.0);
            p.round(&mut v, rtt_for(10.0, 3.4));
            assert_eq!(v.cwnd(), after, "round_diff {round_diff}");
        }
    }

    #[test]
    fn diff_counts_the_whole_packets_a_fractional_window_lets_out() {
        // Slow start's exit trims by an eighth, so the window can be 10.5: the sender lets out
        // 10 packets, and 10 (not 10.5) is the W of diff = W (RTT - baseRTT) / RTT.
        let (mut v, mut p) = avoiding(VegasConfig::default(), 10.0);
        v.cwnd = 10.5;
        // A queue of 2.9 packets for 10 in flight: inside [alpha, beta]; read with W = 10.5 it
        // would be 3.05, above beta.
        p.round(&mut v, rtt_for(10.0, 2.9));
        assert!((last_diff(&v) - 2.9).abs() < 1e-3, "diff {}", last_diff(&v));
        assert_eq!(v.cwnd(), 10.5, "2.9 queued is inside [alpha, beta]: unchanged");
    }

    #[test]
    fn congestion_avoidance_grows_below_alpha_holds_between_and_shrinks_above_beta() {
        let (mut v, mut p) = avoiding(VegasConfig::default(), 10.0);
        // Nothing queued: +1 per round.
        for w in [11.0, 12.0, 13.0] {
            p.round(&mut v, BASE);
            assert_eq!((v.cwnd(), last_diff(&v)), (w, 0.0));
        }
        // Between alpha and beta (their edges included): unchanged.
        for diff in [1.0 + 1e-3, 2.0, 3.0 - 1e-3] {
            p.round(&mut v, rtt_for(13.0, diff));
            assert_eq!(v.cwnd(), 13.0);
            assert!((last_diff(&v) - diff).abs() < 1e-6, "{} vs {diff}", last_diff(&v));
        }
        // Above beta: -1 per round.
        for w in [12.0, 11.0, 10.0] {
            let now = v.cwnd();
            p.round(&mut v, rtt_for(now, 3.0 + 1e-3));
            assert_eq!(v.cwnd(), w);
        }
        // Just below alpha: +1 again.
        p.round(&mut v, rtt_for(10.0, 1.0 - 1e-3));
        assert_eq!(v.cwnd(), 11.0);
        // diff < W, so with beta = 3 the window never shrinks below 3 ...
        for _ in 0..20 {
            let now = v.cwnd();
            p.round(&mut v, rtt_for(now, now * 0.9));
        }
        assert_eq!(v.cwnd(), 3.0);
        assert!(v.ssthresh() > 100.0, "CA's decreases leave ssthresh alone");
        // ... and with a smaller beta the floor, min_cwnd, holds it at 2.
        let (mut v, mut p) = avoiding(VegasConfig { alpha: 0.1, beta: 0.5, ..VegasConfig::default() }, 10.0);
        for _ in 0..20 {
            let now = v.cwnd();
            p.round(&mut v, rtt_for(now, now * 0.9));
        }
        assert_eq!(v.cwnd(), 2.0);
    }

    #[test]
    fn the_update_waits_for_the_ack_of_the_first_packet_sent_after_the_last_one() {
        // Packets 0..8 were out (window 9) when the ACK of packet 0 made the first update
        // (and the window 10): the round ends with the ACK of packet 9, the first sent after it.
        let (mut v, mut p) = avoiding(VegasConfig::default(), 10.0);
        assert_eq!(v.round_end, 9);
        for _ in 1..9 {
            p.ack(&mut v, BASE); // packets 1..8
            assert_eq!(v.rounds(), 1);
        }
        p.ack(&mut v, BASE); // packet 9
        assert_eq!(v.rounds(), 2);
        // Packets 10..18 were out then (window 10 from packet 9): the next update is at 19's ACK.
        assert_eq!((v.round_end, p.una), (19, 10));
        for _ in 10..19 {
            p.ack(&mut v, BASE);
        }
        assert_eq!(v.rounds(), 2);
        p.ack(&mut v, BASE);
        assert_eq!(v.rounds(), 3);
    }

    #[test]
    fn slow_start_doubles_every_other_round_and_leaves_when_diff_exceeds_gamma() {
        let mut v = Vegas::build(&VegasConfig::default(), 1000);
        let mut p = Path::new();
        let mut w = Vec::new();
        for _ in 0..7 {
            p.round(&mut v, BASE);
            w.push(v.cwnd());
        }
        // Odd updates check diff and start a growing round (+1 at once for the ACK that
        // ends the check); even ones end it and hold the window for a round.
        assert_eq!(w, [2.0, 2.0, 3.0, 4.0, 5.0, 8.0, 9.0]);
        assert!(v.in_slow_start());
        // A growing round ends: its diff is not looked at, however large.
        p.round(&mut v, 3 * BASE);
        assert_eq!(v.cwnd(), 16.0);
        assert!(v.in_slow_start() && last_diff(&v) > 10.0);
        // The held round measures 2 packets queued > gamma: cwnd - cwnd/8, congestion avoidance.
        p.round(&mut v, rtt_for(16.0, 2.0));
        assert_eq!(v.cwnd(), 14.0);
        assert_eq!(v.ssthresh(), 14.0);
        assert!(!v.in_slow_start());
        // From here the linear rule, every round.
        p.round(&mut v, BASE);
        assert_eq!(v.cwnd(), 15.0);
        p.round(&mut v, BASE);
        assert_eq!(v.cwnd(), 16.0);
    }

    #[test]
    fn linux_exit_matches_the_window_to_the_rate_measured() {
        let cfg = VegasConfig { ss_exit: SlowStartExit::Target, ..VegasConfig::default() };
        let mut v = Vegas::build(&cfg, 1000);
        let mut p = Path::new();
        for _ in 0..8 {
            p.round(&mut v, BASE);
        }
        assert_eq!(v.cwnd(), 16.0);
        // 4.5 packets queued: the rate x baseRTT is 11.5 packets: floor + 1 = 12.
        p.round(&mut v, rtt_for(16.0, 4.5));
        assert_eq!(v.cwnd(), 12.0);
        assert!(!v.in_slow_start());
    }

    #[test]
    fn slow_start_also_ends_at_ssthresh() {
        let mut v = Vegas::build(&VegasConfig::default(), 1000);
        v.ssthresh = 6.0;
        let mut p = Path::new();
        while v.slow_start {
            p.ack(&mut v, BASE);
        }
        assert_eq!(v.cwnd(), 6.0, "growth stops at ssthresh");
        let rounds = v.rounds();
        p.round(&mut v, BASE);
        assert_eq!((v.rounds(), v.cwnd()), (rounds + 1, 7.0), "then +1 per round");
    }

    #[test]
    fn a_round_rtt_is_the_mean_of_its_samples_or_their_minimum() {
        // Samples alternating 100 and 200 ms: the minimum sees no queue; the mean, 150 ms,
        // sees 10 x 50/150 = 3.33 packets, above beta.
        let alternate = |i: u64| if i.is_multiple_of(2) { BASE } else { 2 * BASE };
        // (A round of 10 ACKs: the window was 10 at the first update.)
        let (mut v, mut p) = avoiding(VegasConfig { round_rtt: RoundRtt::Min, ..VegasConfig::default() }, 11.0);
        assert_eq!(p.round_with(&mut v, alternate), 10);
        assert_eq!(v.cwnd(), 12.0);
        let (mut v, mut p) = avoiding(VegasConfig::default(), 11.0);
        p.round_with(&mut v, alternate);
        assert_eq!(v.cwnd(), 10.0);
        assert!((last_diff(&v) - 11.0 / 3.0).abs() < 1e-9);
        let mut out = [0.0; 3];
        v.trace_values(&mut out);
        assert_eq!(out[..2], [0.1, 0.15]);
    }

    #[test]
    fn base_rtt_is_the_smallest_sample_ever_duplicates_included() {
        let mut v = Vegas::build(&VegasConfig::default(), 1000);
        let mut out = [0.0; 3];
        v.trace_values(&mut out);
        assert!(out.iter().all(|x| x.is_nan()), "nothing known before the first ACK");
        let mut p = Path::new();
        p.round(&mut v, 3 * BASE);
        p.round(&mut v, 2 * BASE);
        assert_eq!(v.base_rtt, 2 * BASE);
        p.fill(&v);
        v.on_ack_info(&p.info(0, BASE));
        assert_eq!(v.base_rtt, BASE);
        p.round(&mut v, 5 * BASE);
        assert_eq!(v.base_rtt, BASE);
        v.trace_values(&mut out);
        assert_eq!(out[0], 0.1);
    }

    #[test]
    fn losses_fall_back_on_reno() {
        let (mut v, mut p) = avoiding(VegasConfig::default(), 10.0);
        p.round(&mut v, BASE);
        assert_eq!(v.cwnd(), 11.0);
        p.fill(&v);
        let dup = p.info(0, BASE);
        assert_eq!(dup.flight_before, 11);
        // Third duplicate ACK: Reno's fast retransmit, ssthresh = 11/2 -> 5, cwnd = 5 + 3.
        assert!(!v.on_dup_ack(1, &dup) && !v.on_dup_ack(2, &dup));
        assert!(v.on_dup_ack(3, &dup));
        assert_eq!((v.cwnd(), v.ssthresh()), (8.0, 5.0));
        assert!(!v.on_dup_ack(4, &dup));
        assert_eq!(v.cwnd(), 9.0, "inflated by each further duplicate");
        // The ACK of the retransmission ends recovery at ssthresh, in congestion avoidance,
        // with a fresh round.
        let rounds = v.rounds();
        p.ack(&mut v, BASE);
        assert_eq!((v.cwnd(), v.rounds()), (5.0, rounds));
        assert!(!v.in_slow_start());
        p.round(&mut v, BASE);
        assert_eq!(v.cwnd(), 6.0);
        // A timeout: one packet, ssthresh = flight/2, slow start again from the resent packet.
        v.on_timeout(&TimeoutInfo { now: p.now, flight: 6, high_sent: p.nxt, seq: p.una, repeated: false });
        assert_eq!((v.cwnd(), v.ssthresh()), (1.0, 3.0));
        assert!(v.in_slow_start());
        p.nxt = p.una;
        p.round(&mut v, BASE);
        assert_eq!(v.cwnd(), 2.0);
        while v.slow_start {
            p.ack(&mut v, BASE);
        }
        assert_eq!(v.cwnd(), 3.0, "slow start stops at ssthresh");
        // Many ACKs outside recovery later, a timeout the sender calls a new packet's halves
        // the flight; one it calls repeated (no new ACK since) holds ssthresh, as Reno's.
        v.on_timeout(&TimeoutInfo { now: p.now, flight: 10, high_sent: p.nxt, seq: p.una, repeated: false });
        assert_eq!((v.cwnd(), v.ssthresh()), (1.0, 5.0));
        v.on_timeout(&TimeoutInfo { now: p.now, flight: 1, high_sent: p.nxt, seq: p.una, repeated: true });
        assert_eq!((v.cwnd(), v.ssthresh()), (1.0, 5.0));
    }

    #[test]
    fn timer_and_parameters() {
        use crate::scenario::decode::Obj;
        let s = Vegas::sender_defaults();
        assert_eq!(s.rto.formula, RtoFormula::MeanDev(4.0));
        assert!(s.rto.karn && s.rto.backoff);
        assert_eq!((s.rto.min_rto, s.rto.granularity, s.rto.initial_rto), (PS_PER_SEC, PS_PER_SEC / 10, 3 * PS_PER_SEC));
        let mut sender = s;
        let cfg = Vegas::decode(&mut Params::new(Obj::empty("params")), &mut sender).unwrap();
        assert_eq!((cfg, sender), (VegasConfig::default(), s));
        let v: toml::Value = toml::from_str::<toml::Table>("alpha = 4").map(toml::Value::Table).unwrap();
        let e = Vegas::decode(&mut Params::new(Obj::new(&v, "params").unwrap()), &mut sender).unwrap_err();
        assert_eq!(e.path, "params.beta");
        let names: Vec<&str> = Params::describe(|p| Vegas::decode(p, &mut sender.clone())).iter().map(|d| d.name).collect();
        assert_eq!(
            names,
            ["rto_k", "initial_cwnd", "dupack_threshold", "alpha", "beta", "gamma", "round_rtt", "ss_exit", "min_cwnd", "units", "slow_start", "round_diff"]
        );
    }
}
