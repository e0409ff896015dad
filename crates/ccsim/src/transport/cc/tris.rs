//! Tri-S (Slow Start and Search): a window that follows the throughput gradient.
//!
//! Source: Wang and Crowcroft 1991, "A new congestion control scheme: Slow Start and Search
//! (Tri-S)", ACM CCR 21(1), as reviewed in Liang 1991 §2.5 (spec liang91-seif.md §1.6); the
//! paper itself was not available here. The thesis states:
//! - the throughput gradient TG(W_n) = (T(W_n) - T(W_{n-1})) / (W_n - W_{n-1}), T(W) the
//!   throughput at window W, and its normalised form NTG(W_n) = TG(W_n) / TG(W_1);
//! - initialisation: window 1, +1 per ACK until the receiver's maximum window is reached or a
//!   timeout occurs;
//! - decrease state, entered on a timeout: window 1; on every ACK, NTG > NTG_d grows the
//!   window by 1, otherwise the increase state begins;
//! - increase state: +1/window per ACK; NTG is checked only when the accumulated increase
//!   exceeds 1, and NTG < NTG_i takes 1 off the window (else no change).
//!
//! From Wang and Crowcroft via the spec: T(W) = W / RTT of a packet sent at window W, with
//! T(0) = 0, so TG(W_1) = T(1).
//!
//! Choices where the thesis is silent, each with its parameter where it matters:
//! - `ntg_d`, `ntg_i` = 0.5, 0.5: the thesis gives no values. 0.5 is the value commonly cited
//!   for Tri-S, NOT verified against Wang and Crowcroft.
//! - `probe` = "top": each integer value W the window takes gets one probe, the packet
//!   that first fills window W (sequence number snd_una + W - 1 when the window opens, or the
//!   next one sent if more than W are outstanding); T(W) = W / its RTT, timed from its own ACK
//!   (now minus the echoed send time of the copy that caused it). "first" times the first
//!   packet sent after the change instead: that packet leaves ahead of the extra one the
//!   larger window lets out, so it sees the queue of the previous window and T(W + 1)
//!   overstates the rate by (W + 1) / W past the knee; its NTG there is about knee / W, which
//!   stays above 0.5 up to twice the knee.
//! - A probe whose packet was passed over (an ACK arrives for a packet sent after it, or the
//!   cumulative ACK covers it) gives no sample. An unsent probe is replaced when the window
//!   changes again before it leaves. At most 32 probes wait at once; while 32 do, windows go
//!   unmeasured.
//! - `probe_retx` = true: a retransmitted probe is timed like any other. The ACK echoes the
//!   send time of the copy that caused it, and a probe is only matched by a copy sent after it
//!   was chosen, so the sample is never ambiguous. false ignores retransmitted probes (Karn's
//!   rule, which a 1991 sender timing sequence numbers would need): after a timeout, go-back-N
//!   resends the window-1 probe and those of the windows that follow, so the decrease state
//!   then grows without a gradient until new data leaves. The sender's `karn` (for its timer)
//!   is a separate parameter.
//! - The previous point W_{n-1} is the latest measured window other than W_n (a new sample at
//!   the same window refreshes that window's T). Entering the decrease state starts afresh
//!   from (0, T(0) = 0). TG(W_1) is T(1) from the latest window-1 sample (the connection's
//!   first packet; the packet resent first after a timeout), or, until there is one, the
//!   first gradient measured.
//! - Decrease state: until its first gradient is measured NTG counts as NTG(W_1) = 1, so the
//!   window grows. Each ACK uses the latest NTG; samples lag a round trip, so in slow start the
//!   window is about twice the measured one when NTG falls to NTG_d, and the increase state
//!   starts from there.
//! - Increase state: the accumulated increase exceeds 1 when the window's integer part steps
//!   up (cwnd and the accumulation keep the same fraction). The check waits for that step's
//!   probe: its NTG against the window below decides, so each step is judged by what it
//!   gained; a check at the step itself would use the NTG of a step already undone and, once
//!   the window stopped moving, never measure a new one. The -1 keeps the fraction. Samples of
//!   probes that were not such steps only update T.
//! - Growth counts ACKs, not packets: a new ACK covering several packets adds 1 (or 1/cwnd).
//!   Duplicate ACKs do not grow the window.
//! - `fast_retransmit` = true, `dupack_threshold` = 3: REAL-era senders had fast retransmit
//!   and the thesis names only the timeout; the third duplicate ACK retransmits the first
//!   unacknowledged packet and enters the decrease state as a timeout does (without a window-1
//!   probe: the retransmission leaves outside the window). false waits for the timeout.
//! - The window is at least 1 and at most the flow's max_window. Reaching max_window ends the
//!   initialisation and decrease states (the window cannot grow) in the increase state, where
//!   a window held at the cap takes no steps and so is not checked.
//! - Sender: JK's (4.3BSD-Tahoe timer: srtt + 2 x mean deviation, Karn, back-off, minimum 1 s,
//!   one timer restarted by a fast retransmission; go-back-N after a timeout).
//!
//! Trace columns: `state` (0 initialisation, 1 decrease, 2 increase), `ntg` (the latest NTG)
//! and `probe_rtt_s` (the latest probe's RTT); NaN until known.

use super::jk::Jk;
use super::{AckInfo, AckResponse, Algorithm, CongestionControl, TimeoutInfo};
use crate::scenario::decode::Result;
use crate::scenario::params::Params;
use crate::sim::{time::to_secs, SimTime};
use crate::transport::config::SenderConfig;

/// Which packet measures T(W) for a window W.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ProbeAt {
    /// The packet that first fills window W.
    Top,
    /// The first packet sent after the window became W.
    First,
}

/// Tri-S's parameters; `Default` gives the values read here.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TrisConfig {
    /// NTG above which the decrease state grows the window. 0.5.
    pub ntg_d: f64,
    /// NTG below which a step of the increase state is taken back. 0.5.
    pub ntg_i: f64,
    pub probe: ProbeAt,
    /// A retransmitted probe gives a sample (false: Karn's rule).
    pub probe_retx: bool,
    /// The `dupack_threshold`-th duplicate ACK retransmits and enters the decrease state.
    pub fast_retransmit: bool,
    pub dupack_threshold: u32,
}

impl Default for TrisConfig {
    fn default() -> Self {
        TrisConfig { ntg_d: 0.5, ntg_i: 0.5, probe: ProbeAt::Top, probe_retx: true, fast_retransmit: true, dupack_threshold: 3 }
    }
}

/// The state of the source (its number is the `state` trace column).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum State {
    Init = 0,
    Decrease = 1,
    Increase = 2,
}

/// A packet whose RTT will measure T(w).
#[derive(Clone, Copy, Debug, Default)]
struct Probe {
    seq: u64,
    /// When it was chosen: the copy that measures is sent at or after this.
    at: SimTime,
    w: u32,
    /// An increase-state step: its NTG decides whether the step is taken back.
    check: bool,
}

const PROBES: usize = 32;
const NONE: SimTime = SimTime::MAX;

#[derive(Clone, Debug)]
pub struct Tris {
    cfg: TrisConfig,
    cwnd: f64,
    max_window: f64,
    state: State,
    /// The integer window the last probe was chosen for.
    w: u32,
    /// Probes waiting for their ACKs, oldest first, in a ring.
    probes: [Probe; PROBES],
    head: usize,
    len: usize,
    /// The latest measured point (W, T(W)) and the one before it (another window; W NaN if
    /// none).
    cur: (f64, f64),
    prev: (f64, f64),
    /// TG(W_1) (NaN until known).
    tg1: f64,
    /// The latest NTG (NaN if none since the decrease state was entered).
    ntg: f64,
    last_rtt: SimTime,
    /// Samples taken.
    samples: u64,
}

impl Algorithm for Tris {
    const NAME: &'static str = "tris";
    const SUMMARY: &'static str =
        "Tri-S, Slow Start and Search (Wang & Crowcroft 1991, as reviewed in Liang 1991 §2.5): the window follows the normalised throughput gradient";
    type Config = TrisConfig;
    const TRACE_COLUMNS: &'static [&'static str] = &["state", "ntg", "probe_rtt_s"];

    fn sender_defaults() -> SenderConfig {
        Jk::sender_defaults()
    }

    fn decode(p: &mut Params, sender: &mut SenderConfig) -> Result<TrisConfig> {
        sender.decode_rto_k(p)?;
        let d = TrisConfig::default();
        Ok(TrisConfig {
            ntg_d: p.number("ntg_d", d.ntg_d, 0.0, 100.0, "NTG above which the decrease state grows the window by 1 per ACK")?,
            ntg_i: p.number("ntg_i", d.ntg_i, 0.0, 100.0, "NTG below which the increase state takes a window step back")?,
            probe: p.choice(
                "probe",
                d.probe,
                &[("top", ProbeAt::Top), ("first", ProbeAt::First)],
                "the packet that measures T(W): the one that first fills window W, or the first sent after the window became W",
            )?,
            probe_retx: p.flag(
                "probe_retx",
                d.probe_retx,
                "a retransmitted probe gives a throughput sample (timed from its echo); false skips it (Karn's rule)",
            )?,
            fast_retransmit: p.flag(
                "fast_retransmit",
                d.fast_retransmit,
                "dupack_threshold duplicate ACKs retransmit and enter the decrease state (false: wait for the timeout)",
            )?,
            dupack_threshold: p.integer(
                "dupack_threshold",
                d.dupack_threshold as u64,
                1,
                1000,
                "duplicate ACKs that trigger a fast retransmission",
            )? as u32,
        })
    }

    fn build(cfg: &TrisConfig, max_window: u32) -> Self {
        let mut t = Tris {
            cfg: *cfg,
            cwnd: 1.0,
            max_window: max_window.max(1) as f64,
            state: State::Init,
            w: 1,
            probes: [Probe::default(); PROBES],
            head: 0,
            len: 0,
            cur: (0.0, 0.0),
            prev: (f64::NAN, f64::NAN),
            tg1: f64::NAN,
            ntg: f64::NAN,
            last_rtt: NONE,
            samples: 0,
        };
        // The connection's first packet measures T(1).
        t.push(Probe { seq: 0, at: 0, w: 1, check: false });
        if t.cwnd >= t.max_window {
            t.state = State::Increase;
        }
        t
    }
}

/// The next sequence number the sender will send after this ACK (its snd_nxt).
#[inline]
fn next_to_send(ack: &AckInfo) -> u64 {
    (ack.ack - ack.newly_acked + ack.flight_before).max(ack.ack)
}

impl Tris {
    pub fn state(&self) -> State {
        self.state
    }

    /// The latest NTG (NaN if none since the decrease state was entered).
    pub fn ntg(&self) -> f64 {
        self.ntg
    }

    /// The window the sender uses.
    #[inline]
    fn usable(&self) -> u32 {
        self.cwnd.min(self.max_window).floor().max(1.0) as u32
    }

    #[inline]
    fn push(&mut self, p: Probe) {
        if self.len < PROBES {
            self.probes[(self.head + self.len) % PROBES] = p;
            self.len += 1;
        }
    }

    #[inline]
    fn pop(&mut self) {
        self.head = (self.head + 1) % PROBES;
        self.len -= 1;
    }

    /// After a change of cwnd at `ack`: if the integer window changed, choose its probe.
    /// `step`: the change was the increase state's growth (a step up is checked).
    #[inline]
    fn retarget(&mut self, ack: &AckInfo, step: bool) {
        let w = self.usable();
        if w == self.w {
            return;
        }
        let check = step && w > self.w;
        self.w = w;
        let next = next_to_send(ack);
        let seq = match self.cfg.probe {
            ProbeAt::Top => next.max(ack.ack + w as u64 - 1),
            ProbeAt::First => next,
        };
        if self.len > 0 && self.probes[(self.head + self.len - 1) % PROBES].seq >= next {
            self.len -= 1; // chosen for a window that never sent it
        }
        self.push(Probe { seq, at: ack.now, w, check });
    }

    /// A sample: window `w`, RTT `rtt`. Updates the points, TG(W_1) and NTG; returns the NTG
    /// (NaN if there is no gradient yet).
    fn measure(&mut self, w: u32, rtt: SimTime) -> f64 {
        let t = w as f64 / to_secs(rtt);
        self.last_rtt = rtt;
        self.samples += 1;
        if w == 1 {
            self.tg1 = t; // TG(W_1) = (T(1) - T(0)) / 1
        }
        if w as f64 == self.cur.0 {
            self.cur.1 = t;
        } else {
            self.prev = self.cur;
            self.cur = (w as f64, t);
        }
        if self.prev.0.is_nan() {
            return f64::NAN;
        }
        let tg = (self.cur.1 - self.prev.1) / (self.cur.0 - self.prev.0);
        if self.tg1.is_nan() {
            self.tg1 = tg;
        }
        self.ntg = tg / self.tg1;
        self.ntg
    }

    /// A timeout or a fast retransmission: window 1, the gradient measured afresh from T(0).
    fn enter_decrease(&mut self, probe: Option<(u64, SimTime)>) {
        self.state = State::Decrease;
        self.cwnd = 1.0;
        self.w = 1;
        self.len = 0;
        self.cur = (0.0, 0.0);
        self.prev = (f64::NAN, f64::NAN);
        self.ntg = f64::NAN;
        if let Some((seq, at)) = probe {
            self.push(Probe { seq, at, w: 1, check: false });
        }
    }

    #[inline]
    fn grow_by_one(&mut self) {
        self.cwnd = (self.cwnd + 1.0).min(self.max_window);
        if self.cwnd >= self.max_window {
            self.state = State::Increase;
        }
    }
}

impl CongestionControl for Tris {
    fn cwnd(&self) -> f64 {
        self.cwnd
    }

    #[inline]
    fn on_ack_info(&mut self, ack: &AckInfo) {
        while self.len > 0 {
            let p = self.probes[self.head];
            if p.seq == ack.echo_seq && ack.echo_tx >= p.at {
                self.pop();
                if (!self.cfg.probe_retx && ack.echo_retx) || ack.now <= ack.echo_tx {
                    return;
                }
                let ntg = self.measure(p.w, ack.now - ack.echo_tx);
                if p.check && self.state == State::Increase && ntg < self.cfg.ntg_i {
                    self.cwnd = (self.cwnd - 1.0).max(1.0);
                    self.retarget(ack, false);
                }
                return;
            }
            // Passed over: lost, or acknowledged through another copy.
            if p.seq < ack.ack || (p.seq < ack.echo_seq && ack.echo_tx >= p.at) {
                self.pop();
            } else {
                return;
            }
        }
    }

    fn on_new_ack(&mut self, ack: &AckInfo) -> AckResponse {
        let step = self.state == State::Increase;
        match self.state {
            State::Init => self.grow_by_one(),
            State::Decrease => {
                if self.ntg.is_nan() || self.ntg > self.cfg.ntg_d {
                    self.grow_by_one();
                } else {
                    self.state = State::Increase;
                }
            }
            State::Increase => self.cwnd = (self.cwnd + 1.0 / self.cwnd).min(self.max_window),
        }
        self.retarget(ack, step);
        AckResponse::Nothing
    }

    fn on_dup_ack(&mut self, count: u32, _ack: &AckInfo) -> bool {
        if self.cfg.fast_retransmit && count == self.cfg.dupack_threshold {
            self.enter_decrease(None);
            true
        } else {
            false
        }
    }

    fn on_timeout(&mut self, t: &TimeoutInfo) {
        // The window-1 probe is the packet resent first.
        self.enter_decrease(Some((t.seq, t.now)));
    }

    fn trace_values(&self, out: &mut [f64]) {
        out[0] = self.state as u8 as f64;
        out[1] = self.ntg;
        out[2] = if self.last_rtt == NONE { f64::NAN } else { to_secs(self.last_rtt) };
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::PS_PER_SEC;
    use std::collections::VecDeque;

    const MS: SimTime = PS_PER_SEC / 1000;

    /// A sender that keeps its window full over a path whose RTT depends on how many packets
    /// were outstanding when a packet left (itself included): `rtt(k)`. ACKs come back in
    /// order, one per packet.
    struct Path {
        una: u64,
        nxt: u64,
        high: u64,
        now: SimTime,
        /// Outstanding packets: sequence number, send time, resent, ACK arrival.
        out: VecDeque<(u64, SimTime, bool, SimTime)>,
        rtt: fn(u64) -> SimTime,
    }

    impl Path {
        fn new(rtt: fn(u64) -> SimTime) -> Self {
            Path { una: 0, nxt: 0, high: 0, now: PS_PER_SEC, out: VecDeque::new(), rtt }
        }

        fn fill(&mut self, t: &Tris) {
            let w = t.cwnd().floor().max(1.0) as u64;
            while self.nxt < self.una + w {
                let k = self.nxt - self.una + 1;
                let last = self.out.back().map_or(0, |o| o.3);
                self.out.push_back((self.nxt, self.now, self.nxt < self.high, (self.now + (self.rtt)(k)).max(last)));
                self.nxt += 1;
                self.high = self.high.max(self.nxt);
            }
        }

        /// The ACK of the oldest outstanding packet.
        fn ack(&mut self, t: &mut Tris) {
            self.fill(t);
            let (seq, tx, retx, at) = self.out.pop_front().unwrap();
            self.now = at;
            let info = AckInfo {
                now: at,
                newly_acked: 1,
                ack: seq + 1,
                flight_before: self.nxt - self.una,
                high_sent: self.high,
                echo_tx: tx,
                echo_seq: seq,
                echo_retx: retx,
                ..AckInfo::default()
            };
            t.on_ack_info(&info);
            assert_eq!(t.on_new_ack(&info), AckResponse::Nothing);
            self.una = seq + 1;
            self.fill(t);
        }

        /// Everything outstanding is lost and the timer expires 1 s later.
        fn timeout(&mut self, t: &mut Tris) {
            self.fill(t);
            self.now += 1000 * MS;
            self.out.clear();
            t.on_timeout(&TimeoutInfo { now: self.now, flight: self.nxt - self.una, high_sent: self.high, seq: self.una, repeated: false });
            self.nxt = self.una;
            self.fill(t);
        }
    }

    fn constant(_k: u64) -> SimTime {
        100 * MS
    }

    /// 100 ms empty, 10 ms per packet: the knee (the pipe) is 10 packets; past it T(W) = 100
    /// packets/s whatever W.
    fn knee10(k: u64) -> SimTime {
        (10 * k * MS).max(100 * MS)
    }

    fn tris(cfg: TrisConfig, max_window: u32) -> Tris {
        Tris::build(&cfg, max_window)
    }

    #[test]
    fn initialisation_grows_by_one_per_ack_up_to_the_maximum_window() {
        let mut t = tris(TrisConfig::default(), 40);
        let mut p = Path::new(knee10);
        for n in 1..40 {
            assert_eq!((t.state(), t.cwnd()), (State::Init, n as f64));
            p.ack(&mut t);
        }
        // Past the knee NTG has been 0 for a while: the initialisation state does not look.
        assert_eq!(t.cwnd(), 40.0);
        assert!(t.ntg().abs() < 1e-9, "ntg {}", t.ntg());
        // The maximum ends it; the capped window takes no steps and is never checked.
        assert_eq!(t.state(), State::Increase);
        for _ in 0..400 {
            p.ack(&mut t);
            assert_eq!(t.cwnd(), 40.0);
        }
    }

    #[test]
    fn a_timeout_restarts_at_one_in_the_decrease_state() {
        for probe_retx in [true, false] {
            let mut t = tris(TrisConfig { probe_retx, ..TrisConfig::default() }, 100);
            let mut p = Path::new(constant);
            for _ in 0..9 {
                p.ack(&mut t);
            }
            assert_eq!((t.state(), t.cwnd()), (State::Init, 10.0));
            p.timeout(&mut t);
            assert_eq!((t.state(), t.cwnd()), (State::Decrease, 1.0));
            assert!(t.ntg().is_nan(), "the gradient starts afresh");
            assert_eq!(t.probes[t.head].seq, p.una, "the resent packet is the window-1 probe");
            // Its ACK: NTG(W_1) = 1 from its own sample, or none under Karn's rule; both grow.
            p.ack(&mut t);
            assert_eq!((t.state(), t.cwnd()), (State::Decrease, 2.0));
            if !probe_retx {
                assert!(t.ntg().is_nan());
            } else {
                assert!((t.ntg() - 1.0).abs() < 1e-9);
            }
        }
    }

    #[test]
    fn a_constant_rtt_gives_ntg_one_and_the_decrease_state_keeps_growing() {
        let mut t = tris(TrisConfig::default(), 100);
        let mut p = Path::new(constant);
        p.ack(&mut t);
        p.timeout(&mut t);
        let before = t.samples;
        for n in 1..60 {
            assert_eq!((t.state(), t.cwnd()), (State::Decrease, n as f64));
            p.ack(&mut t);
            if !t.ntg().is_nan() {
                assert!((t.ntg() - 1.0).abs() < 1e-9, "T(W) = W / RTT: the gradient is T(1)'s; ntg {}", t.ntg());
            }
        }
        let measured = t.samples - before;
        assert!(measured > 20, "{measured} probes measured");
        let mut out = [0.0; 3];
        t.trace_values(&mut out);
        assert_eq!(out, [1.0, 1.0, 0.1]);
    }

    #[test]
    fn past_the_knee_ntg_falls_below_ntg_d_and_the_increase_state_holds_the_window() {
        let mut t = tris(TrisConfig::default(), 1000);
        let mut p = Path::new(knee10);
        p.ack(&mut t);
        p.timeout(&mut t);
        // Below the knee NTG is 1; the step from 10 to 11 gains nothing: NTG 0 <= ntg_d.
        let mut ntgs = Vec::new();
        while t.state() == State::Decrease {
            p.ack(&mut t);
            ntgs.push(t.ntg());
            assert!(ntgs.len() < 100);
        }
        let last = *ntgs.last().unwrap();
        assert!(ntgs[..ntgs.len() - 1].iter().all(|&x| x.is_nan() || (x - 1.0).abs() < 1e-9), "{ntgs:?}");
        assert!(last.abs() < 1e-9, "ntg {last}");
        // The sample of window 11 comes back a round trip after it left: the window has
        // nearly doubled (slow start) and the increase state starts there.
        let entered = t.cwnd();
        assert!((20.0..=23.0).contains(&entered), "increase state from {entered}");
        // Each step up is measured a round trip later, gains nothing, and is taken back:
        // over 50 round trips the window never gets 2 above where it started.
        let (mut back, mut max) = (0, entered);
        for _ in 0..50 * 25 {
            let before = t.cwnd();
            p.ack(&mut t);
            if t.cwnd() < before {
                back += 1;
                let d = before - 1.0;
                assert!((t.cwnd() - (d + 1.0 / d)).abs() < 1e-9, "one off, then +1/cwnd: {before} -> {}", t.cwnd());
                assert!(t.ntg() < 0.5, "taken back at ntg {}", t.ntg());
            }
            max = max.max(t.cwnd());
            assert_eq!(t.state(), State::Increase);
        }
        assert!(back >= 40, "{back} steps taken back");
        assert!(max < entered + 2.0, "the window reached {max} from {entered}");
        assert!(t.cwnd() >= entered - 1.0);
    }

    /// A flow in the increase state at window `w` over `path`, its points measured.
    fn increasing(cfg: TrisConfig, w: f64, path: fn(u64) -> SimTime) -> (Tris, Path) {
        let mut t = tris(cfg, 1000);
        let mut p = Path::new(path);
        p.ack(&mut t);
        t.state = State::Increase;
        t.cwnd = w;
        for _ in 0..(2.0 * w) as usize {
            p.ack(&mut t);
        }
        (t, p)
    }

    #[test]
    fn below_the_knee_every_step_gains_and_is_kept() {
        // Constant RTT: T(W + 1) - T(W) = T(1), NTG 1: +1 per round trip, never taken back.
        let (mut t, mut p) = increasing(TrisConfig::default(), 5.0, constant);
        let start = t.cwnd();
        for _ in 0..20 {
            let before = t.cwnd();
            for _ in 0..before.floor() as usize {
                p.ack(&mut t);
                assert!(t.cwnd() >= before);
            }
        }
        assert!((t.cwnd() - start - 20.0).abs() < 1.5, "{start} -> {}", t.cwnd());
        assert!((t.ntg() - 1.0).abs() < 1e-9);
    }

    #[test]
    fn first_packet_probes_see_the_previous_window_and_overshoot_the_knee() {
        // The first packet sent at W + 1 waits behind W - knee packets only: T(W + 1) is
        // (W + 1) / W of the rate and NTG about knee / W, above 0.5 up to twice the knee.
        let top = TrisConfig::default();
        let first = TrisConfig { probe: ProbeAt::First, ..top };
        let (mut a, mut pa) = increasing(top, 14.0, knee10);
        let (mut b, mut pb) = increasing(first, 14.0, knee10);
        for _ in 0..2000 {
            pa.ack(&mut a);
            pb.ack(&mut b);
        }
        assert!(a.cwnd() < 16.0, "top probes hold the window: {}", a.cwnd());
        assert!((19.0..23.0).contains(&b.cwnd()), "first-packet probes take it to about twice the knee: {}", b.cwnd());
    }

    #[test]
    fn duplicate_acks_retransmit_and_enter_the_decrease_state() {
        let mut t = tris(TrisConfig::default(), 100);
        let mut p = Path::new(constant);
        for _ in 0..9 {
            p.ack(&mut t);
        }
        p.fill(&t);
        let dup = AckInfo { now: p.now, ack: p.una, flight_before: p.nxt - p.una, high_sent: p.high, ..AckInfo::default() };
        assert!(!t.on_dup_ack(1, &dup) && !t.on_dup_ack(2, &dup));
        assert!(t.on_dup_ack(3, &dup));
        assert_eq!((t.state(), t.cwnd(), t.len), (State::Decrease, 1.0, 0));
        assert!(!t.on_dup_ack(4, &dup));
        let mut t = tris(TrisConfig { fast_retransmit: false, ..TrisConfig::default() }, 100);
        for n in 1..10 {
            assert!(!t.on_dup_ack(n, &dup));
        }
        assert_eq!((t.state(), t.cwnd()), (State::Init, 1.0));
    }

    /// The sequence numbers of the probes waiting.
    fn pending(t: &Tris) -> Vec<u64> {
        (0..t.len).map(|i| t.probes[(t.head + i) % PROBES].seq).collect()
    }

    #[test]
    fn a_probe_passed_over_gives_no_sample() {
        let mut t = tris(TrisConfig::default(), 100);
        let mut p = Path::new(constant);
        p.ack(&mut t);
        p.ack(&mut t);
        // Window 3 from the ACK of packet 1 (packets 3 and 4 left then): its probe is packet 4,
        // the top of the window, behind packet 2, window 2's (from packet 0's ACK).
        assert_eq!((t.cwnd(), pending(&t)), (3.0, vec![2, 4]));
        // Packet 4 is lost.
        p.out.retain(|o| o.0 != 4);
        p.ack(&mut t);
        p.ack(&mut t);
        assert_eq!((t.cwnd(), pending(&t)), (5.0, vec![4, 6, 8]));
        // The ACK of packet 5, sent after it, passes over its probe.
        let samples = t.samples;
        let (seq, tx, _, at) = p.out.pop_front().unwrap();
        assert_eq!(seq, 5);
        let dup = AckInfo { now: at, ack: 4, flight_before: p.nxt - p.una, high_sent: p.high, echo_tx: tx, echo_seq: seq, ..AckInfo::default() };
        t.on_ack_info(&dup);
        assert_eq!((t.samples, pending(&t)), (samples, vec![6, 8]));
        // A cumulative ACK past a probe drops it too.
        t.on_ack_info(&AckInfo { ack: 7, echo_seq: 4, echo_tx: 0, ..dup });
        assert_eq!((t.samples, pending(&t)), (samples, vec![8]));
    }

    #[test]
    fn timer_and_parameters() {
        use crate::scenario::decode::Obj;
        let s = Tris::sender_defaults();
        assert_eq!(s, Jk::sender_defaults());
        let mut sender = s;
        let cfg = Tris::decode(&mut Params::new(Obj::empty("params")), &mut sender).unwrap();
        assert_eq!((cfg, sender), (TrisConfig::default(), s));
        let names: Vec<&str> = Params::describe(|p| Tris::decode(p, &mut sender.clone())).iter().map(|d| d.name).collect();
        assert_eq!(names, ["rto_k", "ntg_d", "ntg_i", "probe", "probe_retx", "fast_retransmit", "dupack_threshold"]);
    }
}
