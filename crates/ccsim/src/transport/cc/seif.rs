//! The SEIF source: a modified JK source that cuts its window on explicit router feedback as
//! well as on the implicit signals (a timeout, three duplicate ACKs), once per loss.
//!
//! Source: Liang 1991 §3.3 and §4.1 (spec liang91-seif.md §1.8.6). States:
//! - *Initialisation*: window 1, +1 per ACK, up to the transition point, half the maximum
//!   window; then *Stable*. A congestion signal first goes to *Cut Back*.
//! - *Stable*: +1 after a whole window's worth of ACKs.
//! - *Cut Back*: window ← max(1, ⌊β window⌋), β = 0.5, then *Stable*. There is no return to
//!   exponential growth (§3.3; the peak counts of Figs 4.3/4.5 confirm it, spec A16).
//!
//! Signals and the one-cut-per-loss rules (§3.3):
//! - explicit feedback saying -1: cut back, nothing else;
//! - explicit feedback naming packet s (the router dropped it): unless s was already resent
//!   for an implicit signal, cut back, retransmit s, and ignore s's own implicit signals (s
//!   named again after that resend was dropped as well: cut and resent again; a resend lost
//!   where no router names it waits for the timeout, which does not cut again, so a packet
//!   lost twice can cost one cut: the source cannot tell a copy's loss from the first);
//! - an implicit signal for s (its timeout, the third duplicate ACK asking for it): unless s
//!   was already handled, cut back and retransmit s (the sender's fast retransmission or
//!   go-back-N), and ignore explicit feedback naming s afterwards.
//! - The source reacts to every feedback it receives; the router's filter is the only
//!   de-duplication.
//!
//! Choices where the thesis is silent, each a parameter or stated here:
//! - `mode` = "both": §4.1's "either explicit or implicit feedbacks (but not both)" is read as
//!   the per-loss rule above (spec §1.8.6 [R]); "explicit" ignores timeouts and duplicate ACKs
//!   (the sender still retransmits on a timeout, but the window is not cut; no fast
//!   retransmission), "implicit" ignores router feedback.
//! - The window is an integer (A15) unless `growth = "per_ack"`; `transition` = 0 means
//!   ⌊max_window / 2⌋.
//! - Stable growth counts ACKs that advance the window, one each however many packets they
//!   cover; duplicate ACKs do not count (`growth = "per_window"`; `"per_ack"` adds 1/window
//!   per ACK to a fractional window, as JK does). The cut rounds down (`cut_rounding =
//!   "floor"`, Figs 5.6/5.7's 7 -> 3; `"nearest"` rounds halves up, `"fractional"` keeps
//!   beta x window, of which the sender uses the floor).
//! - The handled packets are remembered in a small ring (the last 8), enough for the losses
//!   of one window; a packet the cumulative ACK has passed is forgotten.
//! - A retransmission asked for by feedback goes at once, whatever the window, as a fast
//!   retransmission does, and restarts the connection's timer (`feedback_retransmit =
//!   "at_once"`). §3.3 sends it "if the window is open" and says nothing of the other case;
//!   `"window"` holds it at the head of the send queue until fewer packets are outstanding
//!   than the window (after the cut) allows (the spec's [R]), the timer running on. After the
//!   cut a hole holds the ACKs back, so it then waits for the timeout, whose go-back-N resends
//!   packets the sink already has; their duplicate ACKs set off a cut that answers no loss,
//!   against §3.3's one cut per loss (liang91 finding reacting-policy-drops).
//! - A cut starts Stable growth's ACK count afresh (`cut_count = "reset"`); `"keep"` carries
//!   it over, so a count already at or above the cut window grows it at the next ACK (liang91
//!   finding seif-window-lock measures it).
//! - `increase_windows` = 1: Stable growth's +1 comes after that many windows of ACKs.
//!   §6.1 (future work) proposes waiting for more than one window, to reach the feedback
//!   threshold less often, and reports that two gave "a lot less feedback messages" with
//!   throughput and fairness about the same; the thesis leaves it to a later study.
//! - `follow_router` = 0: the source reacts to every router's feedback. A positive period turns
//!   on §6.1's (future work) rule for paths of several bottlenecks: only the router that sent
//!   the most messages in the last period is followed (`router_choice.rs`).
//! - Timers are the JK source's (§1.4 [R]): one per connection, Jacobson's estimator with
//!   RTO = srtt + 4 x mean deviation, Karn's rule, a fine clock, initial RTO 3 s, floor 200 ms
//!   (REAL's constants are unknown, A14).
//!
//! Trace columns: `cuts` (window cuts so far) and `feedback` (explicit feedback received,
//! counting messages `follow_router` then ignores).

use super::{AckInfo, AckResponse, Algorithm, CongestionControl, Feedback, Resend, TimeoutInfo};
use crate::scenario::decode::Result;
use crate::scenario::params::Params;
use super::router_choice::BusiestRouter;
use crate::sim::{SimTime, PS_PER_SEC};
use crate::transport::config::{PacingRtt, SenderConfig, TimerMode};
use crate::transport::rtt::{RtoConfig, RtoFormula, RttSamples, SampleFrom, SamplePacket};

/// How a cut window is rounded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CutRounding {
    /// Down to a whole window (Figs 5.6/5.7's 7 -> 3).
    Floor,
    /// To the nearest whole window, halves up.
    Nearest,
    /// Not at all: the window stays fractional (the sender uses its floor), as JK's does.
    Fractional,
}

/// Which congestion signals the source reacts to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    Both,
    Explicit,
    Implicit,
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SeifConfig {
    pub beta: f64,
    /// Window at which exponential growth ends; 0: half the maximum window.
    pub transition: u32,
    pub mode: Mode,
    /// How beta x window becomes the new window.
    pub cut_rounding: CutRounding,
    /// Stable growth: +1 once a window's worth of ACKs has come (false), or 1/window per ACK
    /// with the window kept fractional (true: JK's congestion avoidance).
    pub per_ack: bool,
    /// A retransmission feedback asks for waits for room in the window (true, §3.3's "if the
    /// window is open") or goes at once (false).
    pub resend_waits: bool,
    /// Windows of ACKs per +1 in the stable state (§6.1's slower increase). 1.
    pub increase_windows: u32,
    /// §6.1's busiest-router rule: the period over which routers' messages are counted
    /// (`router_choice.rs`); 0: every router's feedback is followed (the thesis's experiments).
    pub follow_router_period: SimTime,
    /// A cut starts the stable state's ACK count afresh (true) or keeps it (false).
    pub cut_resets_count: bool,
}

impl Default for SeifConfig {
    fn default() -> Self {
        SeifConfig {
            beta: 0.5,
            transition: 0,
            mode: Mode::Both,
            cut_rounding: CutRounding::Floor,
            per_ack: false,
            resend_waits: false,
            increase_windows: 1,
            follow_router_period: 0,
            cut_resets_count: true,
        }
    }
}

const HANDLED: usize = 8;
const NONE: u64 = u64::MAX;

#[derive(Clone, Debug)]
pub struct Seif {
    window: f64,
    max_window: f64,
    transition: f64,
    beta: f64,
    mode: Mode,
    cut_rounding: CutRounding,
    per_ack: bool,
    resend_waits: bool,
    increase_windows: f64,
    cut_resets_count: bool,
    /// Past the initialisation state.
    stable: bool,
    /// ACKs counted towards the next +1 in the stable state.
    acks: u32,
    /// Packets whose loss has been reacted to (NONE: empty slot), and whether by an implicit
    /// signal (then explicit feedback naming them is ignored).
    handled: [u64; HANDLED],
    implicit: [bool; HANDLED],
    next_slot: usize,
    cuts: u64,
    feedback: u64,
    follow: Option<Box<BusiestRouter>>,
}

impl Algorithm for Seif {
    const NAME: &'static str = "seif";
    const SUMMARY: &'static str = "the SEIF source (Liang 1991 §3.3): slow start to half the maximum window, then +1 per window; halved on router feedback, a timeout or 3 duplicate ACKs, once per loss";
    type Config = SeifConfig;
    const TRACE_COLUMNS: &'static [&'static str] = &["cuts", "feedback"];

    fn sender_defaults() -> SenderConfig {
        liang_timers()
    }

    fn decode(p: &mut Params, sender: &mut SenderConfig) -> Result<SeifConfig> {
        sender.decode_rto_k(p)?;
        let d = SeifConfig::default();
        Ok(SeifConfig {
            beta: p.number("beta", d.beta, 0.0, 1.0, "cut-back parameter: the window is multiplied by it on a congestion signal (at least 1 packet)")?,
            transition: p.integer("transition", 0, 0, 1 << 30, "window at which exponential growth ends (0: half the maximum window)")? as u32,
            mode: p.choice(
                "mode",
                d.mode,
                &[("both", Mode::Both), ("explicit", Mode::Explicit), ("implicit", Mode::Implicit)],
                "the signals it reacts to: router feedback and implicit ones (timeouts, 3 duplicate ACKs), or only one kind",
            )?,
            cut_rounding: p.choice(
                "cut_rounding",
                CutRounding::Floor,
                &[("floor", CutRounding::Floor), ("nearest", CutRounding::Nearest), ("fractional", CutRounding::Fractional)],
                "how beta x window becomes the new window: rounded down, to the nearest (halves up), or kept fractional",
            )?,
            per_ack: p.choice(
                "growth",
                false,
                &[("per_window", false), ("per_ack", true)],
                "stable growth: +1 after a window's worth of ACKs, or 1/window per ACK (a fractional window, as JK's)",
            )?,
            resend_waits: p.choice(
                "feedback_retransmit",
                d.resend_waits,
                &[("window", true), ("at_once", false)],
                "the packet a router's feedback names as dropped: resent when the window has room (§3.3's \"if the window is open\"), or at once whatever the window",
            )?,
            increase_windows: p.integer(
                "increase_windows",
                d.increase_windows as u64,
                1,
                1000,
                "stable state: +1 after this many windows of ACKs (§6.1's slower increase, proposed as future work)",
            )? as u32,
            follow_router_period: p.duration(
                "follow_router",
                d.follow_router_period,
                "§6.1 (future work): react only to the router that sent the most feedback in the last period of this length (0: to every router)",
            )?,
            cut_resets_count: p.choice(
                "cut_count",
                d.cut_resets_count,
                &[("reset", true), ("keep", false)],
                "stable growth's ACK count at a cut: started afresh, or kept (a count at or above the cut window grows it at the next ACK)",
            )?,
        })
    }

    fn build(cfg: &SeifConfig, max_window: u32) -> Self {
        let transition = if cfg.transition == 0 { (max_window / 2).max(1) } else { cfg.transition };
        Seif {
            window: 1.0,
            max_window: max_window as f64,
            transition: transition as f64,
            beta: cfg.beta,
            mode: cfg.mode,
            cut_rounding: cfg.cut_rounding,
            per_ack: cfg.per_ack,
            resend_waits: cfg.resend_waits,
            increase_windows: cfg.increase_windows as f64,
            cut_resets_count: cfg.cut_resets_count,
            stable: false,
            acks: 0,
            handled: [NONE; HANDLED],
            implicit: [false; HANDLED],
            next_slot: 0,
            cuts: 0,
            feedback: 0,
            follow: (cfg.follow_router_period > 0).then(|| Box::new(BusiestRouter::new(cfg.follow_router_period))),
        }
    }
}

/// The JK source's timers as Liang's simulations are read (spec §1.4 [R], A14): one timer
/// per connection, RTO = srtt + 4 x mean deviation, Karn's rule, initial 3 s, floor 200 ms.
pub fn liang_timers() -> SenderConfig {
    SenderConfig {
        rto: RtoConfig {
            formula: RtoFormula::MeanDev(4.0),
            sample_from: SampleFrom::Last,
            sample_packet: SamplePacket::Echoed,
            karn: true,
            samples: RttSamples::OnePerAck,
            backoff: true,
            initial_rto: 3 * PS_PER_SEC,
            min_rto: PS_PER_SEC / 5,
            max_rto: 64 * PS_PER_SEC,
            granularity: 0,
        },
        timers: TimerMode::SingleBsd,
        own_ack_stops_timer: false,
        pacing: false,
        pacing_rtt: PacingRtt::Srtt,
        ecn: false,
        sack: None,
    }
}

impl Seif {
    /// Window cuts so far.
    pub fn cuts(&self) -> u64 {
        self.cuts
    }

    fn cut(&mut self) {
        let w = self.window * self.beta;
        self.window = match self.cut_rounding {
            CutRounding::Floor => w.floor(),
            CutRounding::Nearest => (w + 0.5).floor(),
            CutRounding::Fractional => w,
        }
        .max(1.0);
        if self.cut_resets_count || !self.stable {
            self.acks = 0;
        }
        self.stable = true;
        self.cuts += 1;
    }

    fn slot(&self, seq: u64) -> Option<usize> {
        self.handled.iter().position(|&s| s == seq)
    }

    fn remember(&mut self, seq: u64, implicit: bool) {
        self.handled[self.next_slot] = seq;
        self.implicit[self.next_slot] = implicit;
        self.next_slot = (self.next_slot + 1) % HANDLED;
    }

    /// An implicit signal for `seq`: true if it is acted on (cut and retransmission).
    fn implicit_signal(&mut self, seq: u64) -> bool {
        if self.mode == Mode::Explicit || self.slot(seq).is_some() {
            return false;
        }
        self.cut();
        self.remember(seq, true);
        true
    }
}

impl CongestionControl for Seif {
    fn cwnd(&self) -> f64 {
        self.window
    }

    fn ssthresh(&self) -> f64 {
        if self.stable {
            self.window
        } else {
            self.transition
        }
    }

    fn on_new_ack(&mut self, ack: &AckInfo) -> AckResponse {
        for (s, imp) in self.handled.iter_mut().zip(self.implicit.iter_mut()) {
            if *s != NONE && *s < ack.ack {
                *s = NONE;
                *imp = false;
            }
        }
        if !self.stable {
            self.window += 1.0;
            if self.window >= self.transition {
                self.stable = true;
                self.acks = 0;
            }
        } else if self.per_ack {
            self.window += 1.0 / (self.increase_windows * self.window);
        } else {
            self.acks += 1;
            if self.acks as f64 >= self.increase_windows * self.window {
                self.window += 1.0;
                self.acks = 0;
            }
        }
        self.window = self.window.min(self.max_window);
        AckResponse::Nothing
    }

    fn on_dup_ack(&mut self, count: u32, ack: &AckInfo) -> bool {
        count == 3 && self.implicit_signal(ack.ack)
    }

    fn on_timeout(&mut self, t: &TimeoutInfo) {
        self.implicit_signal(t.seq);
    }

    fn on_feedback(&mut self, fb: &Feedback) -> Option<Resend> {
        if self.mode == Mode::Implicit {
            return None;
        }
        self.feedback += 1;
        if let Some(b) = self.follow.as_deref_mut() {
            if !b.follows(fb.router, fb.now) {
                return None;
            }
        }
        match fb.seq {
            None => {
                self.cut();
                None
            }
            Some(seq) => {
                // §3.3: "if the dropped packet has been retransmitted due to implicit feedback,
                // the source does nothing"; named again after an explicit resend, the resend
                // was dropped too: a loss of its own, cut and resent again.
                match self.slot(seq) {
                    Some(i) if self.implicit[i] => return None,
                    Some(_) => {}
                    None => self.remember(seq, false),
                }
                self.cut();
                Some(Resend { seq, wait_for_window: self.resend_waits })
            }
        }
    }

    fn trace_values(&self, out: &mut [f64]) {
        out[0] = self.cuts as f64;
        out[1] = self.feedback as f64;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seif(max: u32) -> Seif {
        Seif::build(&SeifConfig::default(), max)
    }

    fn ack(n: u64) -> AckInfo {
        AckInfo { ack: n, newly_acked: 1, ..AckInfo::default() }
    }

    fn fb(seq: Option<u64>) -> Feedback {
        Feedback { seq, ..Feedback::default() }
    }

    #[test]
    fn exponential_to_half_the_maximum_then_one_per_window_and_never_exponential_again() {
        let mut s = seif(30);
        for n in 1..=14 {
            s.on_new_ack(&ack(n));
        }
        assert_eq!((s.cwnd(), s.stable), (15.0, true), "transition point 15 for a maximum of 30");
        for n in 15..30 {
            s.on_new_ack(&ack(n));
        }
        assert_eq!(s.cwnd(), 16.0, "15 ACKs: one more packet");
        s.on_feedback(&fb(None));
        assert_eq!(s.cwnd(), 8.0);
        for n in 30..38 {
            s.on_new_ack(&ack(n));
        }
        assert_eq!(s.cwnd(), 9.0, "linear after a cut");
    }

    #[test]
    fn slower_increase_waits_for_k_windows_of_acks() {
        // §6.1: with increase_windows = 2 a stable window of 10 grows after 20 ACKs, not 10.
        let mut s = Seif::build(&SeifConfig { increase_windows: 2, ..SeifConfig::default() }, 60);
        s.window = 10.0;
        s.stable = true;
        for n in 1..20 {
            s.on_new_ack(&ack(n));
        }
        assert_eq!(s.cwnd(), 10.0);
        s.on_new_ack(&ack(20));
        assert_eq!(s.cwnd(), 11.0);
    }

    #[test]
    fn following_the_busiest_router_ignores_the_others_feedback() {
        // §6.1: with a 10 s period, router 7 sends two messages in [0, 10 s) and router 9 one;
        // in [10, 20 s) only 7's cut the window.
        let s_ = crate::sim::PS_PER_SEC;
        let mut s = Seif::build(&SeifConfig { follow_router_period: 10 * s_, ..SeifConfig::default() }, 60);
        s.window = 32.0;
        s.stable = true;
        let from = |router: u32, t: u64| Feedback { router, now: t * s_, ..Feedback::default() };
        for (r, t) in [(7, 0), (9, 1), (7, 2)] {
            s.on_feedback(&from(r, t));
        }
        assert_eq!(s.cwnd(), 4.0, "the first period follows every router");
        s.window = 32.0;
        s.on_feedback(&from(9, 11));
        assert_eq!(s.cwnd(), 32.0, "router 9 is not followed");
        s.on_feedback(&from(7, 12));
        assert_eq!((s.cwnd(), s.feedback), (16.0, 5), "7 is; every message is counted");
    }

    #[test]
    fn one_cut_per_loss_whichever_signal_comes_first() {
        // Explicit first: the feedback names packet 40; its duplicate ACKs and timeout then
        // change nothing.
        let mut s = seif(60);
        s.window = 20.0;
        s.stable = true;
        assert_eq!(s.on_feedback(&fb(Some(40))), Some(Resend { seq: 40, wait_for_window: false }), "the named packet is resent");
        let mut waiting = Seif::build(&SeifConfig { resend_waits: true, ..SeifConfig::default() }, 60);
        assert_eq!(waiting.on_feedback(&fb(Some(40))), Some(Resend { seq: 40, wait_for_window: true }), "feedback_retransmit = window");
        assert_eq!(s.cwnd(), 10.0);
        let dup = AckInfo { ack: 40, ..AckInfo::default() };
        assert!(!s.on_dup_ack(3, &dup), "no fast retransmission for a packet already resent");
        s.on_timeout(&TimeoutInfo { seq: 40, ..TimeoutInfo::default() });
        assert_eq!((s.cwnd(), s.cuts()), (10.0, 1));
        // The resend dropped too: named again, a loss of its own (cut and resent again).
        assert_eq!(s.on_feedback(&fb(Some(40))), Some(Resend { seq: 40, wait_for_window: false }));
        assert_eq!((s.cwnd(), s.cuts()), (5.0, 2));
        s.window = 10.0;
        // Implicit first: three duplicate ACKs for 50, then the router's feedback naming it.
        assert!(s.on_dup_ack(3, &AckInfo { ack: 50, ..AckInfo::default() }));
        assert_eq!(s.cwnd(), 5.0);
        assert_eq!(s.on_feedback(&fb(Some(50))), None);
        assert_eq!((s.cwnd(), s.cuts()), (5.0, 3));
        // Feedback saying -1 always cuts; the window never falls below 1.
        for _ in 0..5 {
            s.on_feedback(&fb(None));
        }
        assert_eq!(s.cwnd(), 1.0);
        // Once the cumulative ACK passes 50, a new loss of the same number would count again.
        s.on_new_ack(&ack(51));
        assert!(s.slot(50).is_none() && s.slot(40).is_none());
    }

    #[test]
    fn beta_zero_resets_to_one_and_modes_ignore_a_kind_of_signal() {
        let mut s = Seif::build(&SeifConfig { beta: 0.0, ..SeifConfig::default() }, 30);
        s.window = 12.0;
        s.on_feedback(&fb(None));
        assert_eq!(s.cwnd(), 1.0);
        let mut explicit = Seif::build(&SeifConfig { mode: Mode::Explicit, ..SeifConfig::default() }, 30);
        explicit.window = 12.0;
        assert!(!explicit.on_dup_ack(3, &AckInfo { ack: 3, ..AckInfo::default() }));
        explicit.on_timeout(&TimeoutInfo { seq: 3, ..TimeoutInfo::default() });
        assert_eq!(explicit.cwnd(), 12.0);
        let mut implicit = Seif::build(&SeifConfig { mode: Mode::Implicit, ..SeifConfig::default() }, 30);
        implicit.window = 12.0;
        assert_eq!(implicit.on_feedback(&fb(Some(2))), None);
        assert_eq!(implicit.cwnd(), 12.0);
    }

    #[test]
    fn the_readings_of_rounding_and_growth() {
        let mut near = Seif::build(&SeifConfig { cut_rounding: CutRounding::Nearest, ..SeifConfig::default() }, 30);
        near.window = 11.0;
        near.on_feedback(&fb(None));
        assert_eq!(near.cwnd(), 6.0, "5.5 to the nearest, halves up");
        let mut frac = Seif::build(&SeifConfig { cut_rounding: CutRounding::Fractional, ..SeifConfig::default() }, 30);
        frac.window = 11.0;
        frac.on_feedback(&fb(None));
        assert_eq!(frac.cwnd(), 5.5);
        let mut per_ack = Seif::build(&SeifConfig { per_ack: true, ..SeifConfig::default() }, 30);
        per_ack.window = 8.0;
        per_ack.stable = true;
        per_ack.on_new_ack(&ack(1));
        assert_eq!(per_ack.cwnd(), 8.125, "1/window per ACK");
        // cut_count: 10 ACKs counted towards 11's next +1; the cut to 5 starts the count
        // afresh (reset), or keeps it, so the next ACK grows the window to 6 (keep).
        for (resets, after) in [(true, 5.0), (false, 6.0)] {
            let mut s = Seif::build(&SeifConfig { cut_resets_count: resets, ..SeifConfig::default() }, 30);
            s.window = 11.0;
            s.stable = true;
            for i in 0..10 {
                s.on_new_ack(&ack(i + 1));
            }
            assert_eq!(s.cwnd(), 11.0);
            s.on_feedback(&fb(None));
            s.on_new_ack(&ack(11));
            assert_eq!(s.cwnd(), after, "cut_resets_count = {resets}");
        }
    }
}
