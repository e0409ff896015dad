//! NewReno: Reno with partial-ACK handling in fast recovery.
//!
//! Source: RFC 6582 (Henderson, Floyd, Gurtov, Nishida 2012), without SACK; Cui's thesis
//! (§2.2.4, ch. 3) runs ns-2's `Agent/TCP/Newreno`, read here as `variant = "ns2"` (spec
//! cui-buffers-fast-adpm.md §2.1, §6 item 1).
//! - third duplicate ACK, when the cumulative ACK covers `recover` (one past the highest
//!   sequence sent at the last fast retransmission or timeout: the guard against repeated
//!   fast retransmits, RFC 6582 §3.2 step 2): recover = highest sequence sent, ssthresh =
//!   max(FlightSize/2, 2), retransmit, cwnd = ssthresh + 3;
//! - further duplicate ACKs inflate cwnd by one;
//! - a partial ACK (below `recover`) retransmits the first unacknowledged packet, deflates
//!   cwnd by the amount acknowledged and adds one back (`partial_deflation`), and stays in
//!   recovery, so several losses in one window are repaired without a timeout;
//! - the retransmission timer restarts on the first partial ACK of a recovery only
//!   (`partial_ack_timer = "impatient"`, RFC 6582 §3.2 step 3 and §4). With `"slow_but_steady"`
//!   every partial ACK restarts it, as every new ACK does outside recovery (RFC 6298 §5.3):
//!   then a window that lost N packets stays in recovery for N round trips, one
//!   retransmission each (ccsim's only behaviour before issue 21; see the note below);
//! - a full ACK ends recovery with cwnd = min(ssthresh, max(FlightSize, 1) + 1) (RFC 6582
//!   §3.2 step 3, first option, which avoids a burst);
//! - timeout: recover = highest sequence sent, ssthresh = max(FlightSize/2, 2), cwnd = 1,
//!   go back to the oldest unacknowledged packet; a timeout ends a recovery, and the ACKs
//!   that follow are ordinary slow-start ACKs (no partial-ACK retransmissions). A timeout
//!   during a fast recovery (its retransmission lost) keeps the recovery's ssthresh when that
//!   is smaller (`timeout_in_recovery = "keep_ssthresh"`): RFC 5681 eq. (4) sets ssthresh to
//!   "no more than" FlightSize/2, and FlightSize then counts everything the inflated window
//!   sent while the retransmission was missing, so taking it whole (`"flight"`) sets
//!   ssthresh above the window that overflowed the buffer; a lone flow can then repeat
//!   overshoot, lost retransmission and timeout for good (10 Mb/s, 45 ms, a 24-packet
//!   buffer: 42% of the line). Linux's `tcp_enter_loss` likewise leaves ssthresh alone in
//!   an unfinished recovery. When the same packet times out again (no new ACK since the last
//!   timeout), ssthresh is held (RFC 5681 §3.1: FlightSize/2 applies only to a segment not
//!   yet resent by the timer), not taken from the one or two packets go-back-N had resent.
//!
//! `variant = "ns2"`: ns-2's `Agent/TCP/Newreno` (tcp-newreno.cc, tcp-reno.cc, tcp.cc) with
//! the defaults of ns-2.30 to 2.35 (ns-default.tcl), which Cui's simulations ran: `bugFix_`
//! on, `less_careful_` off, `exitFastRetrans_` on (2003), `precisionReduce_` on (2006),
//! `newreno_changes_` 0, `newreno_changes1_` 1 (Impatient, 2003), `partial_window_deflation_`
//! 1 (2003), `exit_recovery_fix_` 0, `maxburst_` 0. It keeps the window as ns-2 does, an
//! un-inflated part `cwnd_` plus the duplicate-ACK inflation `dupwnd_`, and differs in five
//! ways:
//! - a third duplicate ACK starts a fast retransmission only if the cumulative ACK has gone
//!   past `recover`, not just reached it (ns-2's `highest_ack_ > recover_` with ACKs that name
//!   the last packet received: at least one packet sent after the last fast retransmission or
//!   timeout must be acknowledged; the reach-only test is its "Less Careful" variant);
//! - ssthresh = max(floor(W/2), 2) and cwnd_ = W/2 (not rounded) from the window W =
//!   min(cwnd_ + dupwnd_, max_window), not from FlightSize (`slowdown`);
//! - a partial ACK deflates the inflation first and then cwnd_ (never below 1), keeping
//!   dupwnd_ at 1 or more (`partialnewack`); the total window is RFC 6582's;
//! - a full ACK ends recovery by dropping the inflation, leaving cwnd_ as deflation left it,
//!   and then counts as an ordinary ACK (+1 below ssthresh, +1/cwnd above), not
//!   min(ssthresh, FlightSize + 1) (`exit_recovery_fix_` off); a timeout's ssthresh comes
//!   from cwnd_ without the inflation (`RenoTcpAgent::timeout` clears `dupwnd_` first);
//! - a fast retransmission restarts the retransmission timer (`reset_rtx_timer(1,0)`;
//!   `TimerMode::SingleBsd`).
//!
//! ns-2 also sent at most two packets per ACK during recovery (`send_much(0, 0, 2)` with
//! `newreno_changes_` 0); recovery here never releases more than one new packet and one
//! retransmission per ACK, so that cap is not modelled. ns-2's timer and start are not
//! implied by `variant`; for ns-2.30 to 2.35 set `initial_cwnd = 2` (`windowInit_`),
//! `initial_rto = "3s"` (`rtxcur_init_`), `rtt_samples = "one_per_rtt"` (one timed segment
//! per RTT), `rto_granularity = "10ms"` (`tcpTick_`: the RTO stays at least one tick above
//! srtt); `min_rto` is ns-2's 200 ms (`minrto_`) already. The receiver window (`window_`,
//! 20 packets in ns-2) is the flow's `max_window`, 1 000 000 packets unless set: effectively
//! unlimited, as Cui's chapter 3 wants.
//!
//! Note: after one flow's slow-start overshoot (tests/newreno_ns2.rs: 100 Mb/s, 20 ms, a
//! 350-packet buffer, one window losing hundreds of packets; `cargo test --release -p ccsim
//! --test newreno_ns2 -- --nocapture` prints each reading's drops, timeouts, time in recovery
//! and rate), the readings part ways. Slow-but-Steady (ccsim's NewReno before issue 21)
//! repairs one hole per round trip for most of the run under a timer that never expires.
//! Impatient (RFC 6582, the default) times out soon after the fast retransmission and repairs
//! the window by go-back-N, but the recovery's ssthresh, half a flight that held the overshoot,
//! lets slow start overshoot again, so several recoveries follow before congestion avoidance.
//! ns-2 takes ssthresh from the halved window at its one timeout and stops the next slow start
//! in time. Pacing delays the first loss until the window exceeds the path.

use super::loss::{aimd_increase, half_flight, LossConfig};
use super::{AckInfo, AckResponse, Algorithm, CongestionControl, TimeoutInfo};
use crate::scenario::decode::Result;
use crate::scenario::params::Params;
use crate::transport::config::{SenderConfig, TimerMode};

/// Which NewReno (see the module header).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NewRenoVariant {
    /// RFC 6582.
    Rfc6582,
    /// ns-2's `Agent/TCP/Newreno` (ns-2.30 to 2.35).
    Ns2,
}

/// When a partial ACK restarts the retransmission timer (RFC 6582 §4).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PartialAckTimer {
    /// The first partial ACK of a recovery only: a window with many losses times out and
    /// slow-starts (RFC 6582; ns-2's `newreno_changes1_` 1).
    Impatient,
    /// Every partial ACK: one retransmission per round trip for as long as it takes
    /// (ns-2's `newreno_changes1_` 0, its default before 2003).
    SlowButSteady,
}

/// NewReno's parameters.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct NewRenoConfig {
    pub loss: LossConfig,
    pub variant: NewRenoVariant,
    pub partial_ack_timer: PartialAckTimer,
    /// A partial ACK deflates the window by the amount acknowledged, less one; false drops
    /// the whole duplicate-ACK inflation instead (ns-2's `partial_window_deflation_` 0).
    pub partial_deflation: bool,
    /// RFC 6582: what a timeout during a fast recovery does to ssthresh (see the module header).
    pub timeout_in_recovery: TimeoutInRecovery,
}

/// RFC 6582: the ssthresh a timeout sets when it ends a fast recovery.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TimeoutInRecovery {
    /// The smaller of the recovery's ssthresh and FlightSize/2: one reduction per loss episode.
    KeepSsthresh,
    /// FlightSize/2 of everything outstanding, the inflated window's sends included.
    Flight,
}

impl Default for NewRenoConfig {
    fn default() -> Self {
        NewRenoConfig {
            loss: LossConfig::default(),
            variant: NewRenoVariant::Rfc6582,
            partial_ack_timer: PartialAckTimer::Impatient,
            partial_deflation: true,
            timeout_in_recovery: TimeoutInRecovery::KeepSsthresh,
        }
    }
}

#[derive(Clone, Debug)]
pub struct NewReno {
    /// The window without the duplicate-ACK inflation (ns-2's `cwnd_`); all of it outside
    /// recovery.
    cwnd: f64,
    /// The duplicate-ACK inflation (ns-2's `dupwnd_`); 0 outside recovery.
    dupwnd: f64,
    ssthresh: f64,
    /// One past the highest sequence number sent at the last fast retransmission or timeout.
    recover: u64,
    max_window: u32,
    dupack_threshold: u16,
    phase: Phase,
    rules: Rules,
}

/// Where NewReno is in its loss recovery.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Phase {
    Open,
    /// Open after a timeout that no new ACK has followed: a timeout now is the same packet's
    /// again (RFC 5681 §3.1 holds ssthresh).
    TimedOut,
    /// Fast recovery, before its first partial ACK.
    Recovery,
    /// Fast recovery, after a partial ACK (the Impatient timer rule tells them apart).
    RecoveryAfterPartial,
}

/// The configuration's rules in one byte: NewReno lives unboxed in every flow's `Cc`, whose
/// size is set by its largest member (at most 40 bytes keeps `Cc` at 48).
#[derive(Clone, Copy, Debug)]
struct Rules(u8);

impl Rules {
    const NS2: u8 = 1;
    const SLOW_BUT_STEADY: u8 = 2;
    const NO_DEFLATION: u8 = 4;
    const TIMEOUT_FROM_FLIGHT: u8 = 8;

    fn new(cfg: &NewRenoConfig) -> Rules {
        let mut bits = 0;
        if cfg.variant == NewRenoVariant::Ns2 {
            bits |= Rules::NS2;
        }
        if cfg.partial_ack_timer == PartialAckTimer::SlowButSteady {
            bits |= Rules::SLOW_BUT_STEADY;
        }
        if !cfg.partial_deflation {
            bits |= Rules::NO_DEFLATION;
        }
        if cfg.timeout_in_recovery == TimeoutInRecovery::Flight {
            bits |= Rules::TIMEOUT_FROM_FLIGHT;
        }
        Rules(bits)
    }
    fn variant(self) -> NewRenoVariant {
        if self.0 & Rules::NS2 != 0 {
            NewRenoVariant::Ns2
        } else {
            NewRenoVariant::Rfc6582
        }
    }
    fn slow_but_steady(self) -> bool {
        self.0 & Rules::SLOW_BUT_STEADY != 0
    }
    fn deflation(self) -> bool {
        self.0 & Rules::NO_DEFLATION == 0
    }
    fn timeout_from_flight(self) -> bool {
        self.0 & Rules::TIMEOUT_FROM_FLIGHT != 0
    }
}

impl Algorithm for NewReno {
    const NAME: &'static str = "newreno";
    const SUMMARY: &'static str = "NewReno (RFC 6582, no SACK): Reno that repairs several losses per window in one recovery; ns-2's as variant";
    type Config = NewRenoConfig;

    fn sender_defaults() -> SenderConfig {
        super::reno::rfc6298_defaults()
    }

    fn decode(p: &mut Params, sender: &mut SenderConfig) -> Result<NewRenoConfig> {
        let loss = LossConfig::decode(p, sender)?;
        super::loss::decode_ecn(p, sender)?;
        let d = NewRenoConfig::default();
        let variant = p.choice(
            "variant",
            d.variant,
            &[("rfc6582", NewRenoVariant::Rfc6582), ("ns2", NewRenoVariant::Ns2)],
            "RFC 6582, or ns-2's Agent/TCP/Newreno (2.30-2.35: fast retransmit only once the ACK passes recover, ssthresh and cwnd from the window, cwnd kept at the full ACK, timer restarted by a fast retransmit)",
        )?;
        let partial_ack_timer = p.choice(
            "partial_ack_timer",
            d.partial_ack_timer,
            &[("impatient", PartialAckTimer::Impatient), ("slow_but_steady", PartialAckTimer::SlowButSteady)],
            "partial ACKs that restart the retransmission timer: the first of a recovery (RFC 6582, ns-2 since 2003) or every one (one repair per RTT)",
        )?;
        let partial_deflation = p.flag(
            "partial_deflation",
            d.partial_deflation,
            "a partial ACK deflates the window by the packets it acknowledges less one (false: drops all of the duplicate-ACK inflation)",
        )?;
        let timeout_in_recovery = p.choice(
            "timeout_in_recovery",
            d.timeout_in_recovery,
            &[("keep_ssthresh", TimeoutInRecovery::KeepSsthresh), ("flight", TimeoutInRecovery::Flight)],
            "rfc6582: a timeout that ends a fast recovery sets ssthresh to the smaller of the recovery's and FlightSize/2 (RFC 5681 eq. 4 is an upper bound; Linux keeps the recovery's), or to FlightSize/2 of everything outstanding, which counts what the inflated window sent and can lock a lone flow into repeated timeouts (ns2 takes it from the window without the inflation)",
        )?;
        if variant == NewRenoVariant::Ns2 && timeout_in_recovery != d.timeout_in_recovery {
            // ns-2 takes a timeout's ssthresh from the window without its inflation.
            return Err(p.error("timeout_in_recovery", "expected it with variant = \"rfc6582\" only (ns2 halves the window without its inflation)"));
        }
        if variant == NewRenoVariant::Ns2 {
            sender.timers = TimerMode::SingleBsd;
        }
        Ok(NewRenoConfig { loss, variant, partial_ack_timer, partial_deflation, timeout_in_recovery })
    }

    fn build(cfg: &NewRenoConfig, max_window: u32) -> Self {
        NewReno {
            cwnd: cfg.loss.initial_cwnd,
            dupwnd: 0.0,
            ssthresh: max_window as f64,
            recover: 0,
            max_window,
            dupack_threshold: cfg.loss.dupack_threshold.min(u16::MAX as u32) as u16,
            phase: Phase::Open,
            rules: Rules::new(cfg),
        }
    }
}

impl NewReno {
    /// In fast recovery (for tests and traces).
    pub fn in_recovery(&self) -> bool {
        self.phase >= Phase::Recovery
    }

    /// A new ACK in recovery: a full or a partial one (out of line: the per-ACK path of an
    /// open window stays small).
    #[inline(never)]
    fn recovery_ack(&mut self, ack: &AckInfo) -> AckResponse {
        if ack.ack >= self.recover {
            // Full ACK: everything outstanding when loss was detected is acknowledged.
            self.phase = Phase::Open;
            self.dupwnd = 0.0;
            self.cwnd = match self.rules.variant() {
                NewRenoVariant::Rfc6582 => {
                    let flight_after = ack.flight_before.saturating_sub(ack.newly_acked) as f64;
                    self.ssthresh.min(flight_after.max(1.0) + 1.0)
                }
                NewRenoVariant::Ns2 => aimd_increase(self.cwnd, self.ssthresh, self.max_window as f64),
            };
            return AckResponse::Nothing;
        }
        // Partial ACK: the next hole is lost too.
        self.deflate(ack.newly_acked as f64);
        let first = self.phase == Phase::Recovery;
        self.phase = Phase::RecoveryAfterPartial;
        if first || self.rules.slow_but_steady() {
            AckResponse::RetransmitFirstUnacked
        } else {
            AckResponse::RetransmitKeepTimer
        }
    }

    /// ns2: the window in use, W = min(cwnd_ + dupwnd_, max_window) (`windowd()`).
    fn ns2_window(&self) -> f64 {
        (self.cwnd + self.dupwnd).min(self.max_window as f64)
    }

    /// A partial ACK that acknowledged `acked` packets deflates the window.
    fn deflate(&mut self, acked: f64) {
        if !self.rules.deflation() {
            self.dupwnd = 0.0;
        } else if self.rules.variant() == NewRenoVariant::Ns2 {
            // `partialnewack`: from the inflation while it lasts, then from cwnd_.
            if self.dupwnd > acked {
                self.dupwnd -= acked - 1.0;
            } else {
                self.cwnd = (self.cwnd - (acked - self.dupwnd)).max(1.0);
                self.dupwnd = 1.0;
            }
        } else {
            // RFC 6582 §3.2 step 3: cwnd - acked + 1, at least one packet.
            let w = (self.cwnd + self.dupwnd - acked + 1.0).max(1.0);
            if w >= self.cwnd {
                self.dupwnd = w - self.cwnd;
            } else {
                (self.cwnd, self.dupwnd) = (w, 0.0);
            }
        }
    }
}

impl CongestionControl for NewReno {
    fn cwnd(&self) -> f64 {
        self.cwnd + self.dupwnd
    }
    fn recover_point(&self) -> u64 {
        self.recover
    }
    fn ssthresh(&self) -> f64 {
        self.ssthresh
    }
    #[inline]
    fn on_new_ack(&mut self, ack: &AckInfo) -> AckResponse {
        if !self.in_recovery() {
            self.phase = Phase::Open;
            self.cwnd = aimd_increase(self.cwnd, self.ssthresh, self.max_window as f64);
            return AckResponse::Nothing;
        }
        self.recovery_ack(ack)
    }
    fn on_dup_ack(&mut self, count: u32, ack: &AckInfo) -> bool {
        if self.in_recovery() {
            self.dupwnd += 1.0;
            return false;
        }
        let covered = match self.rules.variant() {
            NewRenoVariant::Rfc6582 => ack.ack >= self.recover,
            NewRenoVariant::Ns2 => ack.ack > self.recover,
        };
        if count != self.dupack_threshold as u32 || !covered {
            return false;
        }
        self.recover = ack.high_sent;
        match self.rules.variant() {
            NewRenoVariant::Rfc6582 => {
                self.ssthresh = half_flight(ack.flight_before);
                self.cwnd = self.ssthresh;
            }
            NewRenoVariant::Ns2 => {
                let w = self.ns2_window();
                self.ssthresh = (w / 2.0).floor().max(2.0);
                self.cwnd = (w / 2.0).max(1.0);
            }
        }
        self.dupwnd = self.dupack_threshold as f64;
        self.phase = Phase::Recovery;
        true
    }
    /// RFC 3168 §6.1.2: an ECN mark outside recovery halves the window as a fast retransmit
    /// would (ssthresh from the flight, or ns-2's from the window), with no retransmission and
    /// no inflation; in recovery the window is already reduced.
    fn on_ecn(&mut self, ack: &AckInfo) -> bool {
        if self.in_recovery() {
            return false;
        }
        self.ssthresh = match self.rules.variant() {
            NewRenoVariant::Rfc6582 => half_flight(ack.flight_before),
            NewRenoVariant::Ns2 => (self.ns2_window() / 2.0).floor().max(2.0),
        };
        self.cwnd = self.ssthresh;
        true
    }
    fn on_timeout(&mut self, t: &TimeoutInfo) {
        self.recover = t.high_sent;
        self.ssthresh = match self.rules.variant() {
            NewRenoVariant::Rfc6582 if self.phase == Phase::TimedOut => self.ssthresh,
            NewRenoVariant::Rfc6582 if self.in_recovery() && !self.rules.timeout_from_flight() => {
                self.ssthresh.min(half_flight(t.flight))
            }
            NewRenoVariant::Rfc6582 => half_flight(t.flight),
            NewRenoVariant::Ns2 => (self.cwnd.min(self.max_window as f64) / 2.0).floor().max(2.0),
        };
        self.cwnd = 1.0;
        self.dupwnd = 0.0;
        self.phase = Phase::TimedOut;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::decode::Obj;
    use crate::sim::PS_PER_SEC as SEC;
    use crate::transport::cc::Cc;
    use crate::transport::sender::Sender;

    fn config(text: &str) -> (NewRenoConfig, SenderConfig) {
        let v = toml::Value::Table(toml::from_str::<toml::Table>(text).unwrap());
        let mut sender = NewReno::sender_defaults();
        let cfg = NewReno::decode(&mut Params::new(Obj::new(&v, "params").unwrap()), &mut sender).unwrap();
        (cfg, sender)
    }

    /// NewReno in congestion avoidance at cwnd `w` (ssthresh 5), everything below 1 acked.
    fn avoiding(variant: NewRenoVariant, w: f64) -> NewReno {
        let cfg = NewRenoConfig { variant, ..NewRenoConfig::default() };
        NewReno { cwnd: w, ssthresh: 5.0, ..NewReno::build(&cfg, 1000) }
    }

    fn dup(ack: u64, high_sent: u64, flight: u64) -> AckInfo {
        AckInfo { ack, high_sent, flight_before: flight, ..AckInfo::default() }
    }

    fn new_ack(ack: u64, newly: u64, high_sent: u64, flight: u64) -> AckInfo {
        AckInfo { ack, newly_acked: newly, high_sent, flight_before: flight, ..AckInfo::default() }
    }

    #[test]
    fn state_fits_beside_reno_in_cc() {
        // Every window flow holds a `Cc`; NewReno at 48 bytes made it 8 bytes larger.
        assert!(std::mem::size_of::<NewReno>() <= 40);
        assert_eq!(std::mem::size_of::<Cc>(), std::mem::size_of::<crate::transport::cc::reno::Reno>());
        // Reno, the largest unboxed one, with ns-2's recover guard: 56 made every flow 8 bytes larger.
        assert!(std::mem::size_of::<Cc>() <= 48);
    }

    #[test]
    fn an_ecn_mark_halves_the_flight_outside_recovery_only() {
        let (cfg, sender) = config("ecn = true");
        assert!(sender.ecn && !config("").1.ecn);
        let mut c = NewReno::build(&cfg, 1000);
        c.cwnd = 40.0;
        assert!(c.on_ecn(&new_ack(100, 1, 140, 40)));
        assert_eq!((c.cwnd(), c.ssthresh()), (20.0, 20.0), "RFC 3168 §6.1.2: as a fast retransmit, without the inflation");
        for _ in 0..3 {
            c.on_dup_ack(3, &dup(120, 160, 40));
        }
        assert!(c.in_recovery());
        assert!(!c.on_ecn(&dup(120, 160, 40)), "in recovery the window is already reduced");
    }

    #[test]
    fn parameters() {
        let (cfg, sender) = config("");
        assert_eq!((cfg, sender.timers), (NewRenoConfig::default(), TimerMode::Single));
        assert_eq!(cfg.partial_ack_timer, PartialAckTimer::Impatient, "RFC 6582 §3.2 step 3");
        let (cfg, sender) = config("variant = \"ns2\"\npartial_ack_timer = \"slow_but_steady\"\npartial_deflation = false");
        assert_eq!((cfg.variant, cfg.partial_ack_timer, cfg.partial_deflation), (NewRenoVariant::Ns2, PartialAckTimer::SlowButSteady, false));
        assert_eq!(sender.timers, TimerMode::SingleBsd, "ns-2 restarts the timer at a fast retransmission");
    }

    #[test]
    fn third_duplicate_halves_the_flight_or_ns2s_window() {
        // cwnd 10.5 with 10 packets (1..=10) outstanding; packet 1 lost.
        let mut rfc = avoiding(NewRenoVariant::Rfc6582, 10.5);
        let mut ns2 = avoiding(NewRenoVariant::Ns2, 10.5);
        for count in 1..=3 {
            let fired = (rfc.on_dup_ack(count, &dup(1, 11, 10)), ns2.on_dup_ack(count, &dup(1, 11, 10)));
            assert_eq!(fired, (count == 3, count == 3));
        }
        // RFC 6582: ssthresh = FlightSize / 2 = 5, cwnd 5 + 3.
        assert_eq!((rfc.cwnd(), rfc.ssthresh()), (8.0, 5.0));
        // ns-2: ssthresh = floor(10.5 / 2), cwnd_ = 10.5 / 2 unrounded, + 3.
        assert_eq!((ns2.cwnd(), ns2.ssthresh()), (5.25 + 3.0, 5.0));
        for n in [&mut rfc, &mut ns2] {
            n.on_dup_ack(4, &dup(1, 11, 10));
        }
        assert_eq!((rfc.cwnd(), ns2.cwnd()), (9.0, 9.25), "+1 per further duplicate");
    }

    #[test]
    fn partial_acks_deflate_and_full_acks_end_recovery() {
        for variant in [NewRenoVariant::Rfc6582, NewRenoVariant::Ns2] {
            let mut n = avoiding(variant, 10.0);
            for count in 1..=7 {
                n.on_dup_ack(count, &dup(1, 11, 10));
            }
            assert_eq!(n.cwnd(), 12.0, "{variant:?}: 5 + 3 + 4 duplicates");
            // A partial ACK of 2 packets: window - 2 + 1 in both readings.
            assert_eq!(n.on_new_ack(&new_ack(3, 2, 13, 12)), AckResponse::RetransmitFirstUnacked);
            assert_eq!(n.cwnd(), 11.0, "{variant:?}");
            // One of 7 (more than the inflation of 6 left): ns-2 takes the rest from cwnd_.
            assert_eq!(n.on_new_ack(&new_ack(10, 7, 13, 10)), AckResponse::RetransmitKeepTimer, "Impatient after the first");
            match variant {
                NewRenoVariant::Rfc6582 => assert_eq!(n.cwnd(), 5.0),
                NewRenoVariant::Ns2 => assert_eq!((n.cwnd, n.dupwnd), (4.0, 1.0)),
            }
            // The full ACK (past recover, 11) acknowledges everything: RFC 6582 sets
            // min(ssthresh, max(FlightSize, 1) + 1); ns-2 drops the inflation and counts the
            // ACK on cwnd_ (4 < ssthresh: +1).
            assert_eq!(n.on_new_ack(&new_ack(13, 3, 13, 3)), AckResponse::Nothing);
            assert!(!n.in_recovery());
            let want = match variant {
                NewRenoVariant::Rfc6582 => 2.0,
                NewRenoVariant::Ns2 => 5.0,
            };
            assert_eq!((n.cwnd(), n.ssthresh()), (want, 5.0), "{variant:?}");
        }
    }

    #[test]
    fn without_deflation_a_partial_ack_drops_the_inflation() {
        let cfg = NewRenoConfig { variant: NewRenoVariant::Ns2, partial_deflation: false, ..NewRenoConfig::default() };
        let mut n = NewReno { cwnd: 10.0, ssthresh: 5.0, ..NewReno::build(&cfg, 1000) };
        for count in 1..=7 {
            n.on_dup_ack(count, &dup(1, 11, 10));
        }
        n.on_new_ack(&new_ack(3, 2, 13, 12));
        assert_eq!(n.cwnd(), 5.0, "back to cwnd_ = ssthresh: no new data until the flight drains");
        n.on_dup_ack(1, &dup(3, 13, 10));
        assert_eq!(n.cwnd(), 6.0, "later duplicates inflate again");
    }

    #[test]
    fn ns2_needs_the_ack_past_recover_for_another_fast_retransmit() {
        for variant in [NewRenoVariant::Rfc6582, NewRenoVariant::Ns2] {
            let mut n = avoiding(variant, 10.0);
            n.on_timeout(&TimeoutInfo { flight: 10, high_sent: 11, ..TimeoutInfo::default() });
            assert_eq!((n.cwnd(), n.ssthresh()), (1.0, 5.0));
            // Everything sent before the timeout (up to 10) acknowledged: ACK 11 = recover.
            let fired: Vec<bool> = (1..=3).map(|c| n.on_dup_ack(c, &dup(11, 15, 4))).collect();
            match variant {
                NewRenoVariant::Rfc6582 => assert_eq!(fired, [false, false, true]),
                NewRenoVariant::Ns2 => {
                    assert_eq!(fired, [false, false, false], "highest_ack_ == recover_ is not past it");
                    assert_eq!(n.cwnd(), 1.0, "no inflation without a retransmission (exitFastRetrans_)");
                    assert!(n.on_dup_ack(3, &dup(12, 15, 3)), "one packet past recover");
                }
            }
        }
    }

    #[test]
    fn ns2_timeout_halves_the_window_without_its_inflation() {
        let mut n = avoiding(NewRenoVariant::Ns2, 10.0);
        for count in 1..=9 {
            n.on_dup_ack(count, &dup(1, 11, 10));
        }
        assert_eq!(n.cwnd(), 14.0);
        n.on_timeout(&TimeoutInfo { flight: 16, high_sent: 17, ..TimeoutInfo::default() });
        assert_eq!((n.cwnd(), n.ssthresh()), (1.0, 2.0), "floor(cwnd_ 5 / 2), at least 2");
        let mut r = avoiding(NewRenoVariant::Rfc6582, 10.0);
        r.on_timeout(&TimeoutInfo { flight: 16, high_sent: 17, ..TimeoutInfo::default() });
        assert_eq!(r.ssthresh(), 8.0, "RFC 6582: FlightSize / 2");
    }

    #[test]
    fn a_timeout_in_recovery_keeps_its_ssthresh_unless_told_to_take_the_swollen_flight() {
        for (reading, want) in [("keep_ssthresh", 5.0), ("flight", 20.0)] {
            let (cfg, _) = config(&format!("timeout_in_recovery = \"{reading}\""));
            let mut n = NewReno { cwnd: 10.0, ssthresh: 5.0, ..NewReno::build(&cfg, 1000) };
            // Fast retransmission of packet 1 with 10 outstanding: ssthresh 5; the retransmission
            // is lost and 30 more duplicate ACKs let the inflated window send up to 40.
            for count in 1..=33 {
                n.on_dup_ack(count, &dup(1, 11, 10));
            }
            assert!(n.in_recovery() && n.ssthresh() == 5.0 && n.cwnd() == 38.0);
            n.on_timeout(&TimeoutInfo { flight: 40, high_sent: 41, ..TimeoutInfo::default() });
            assert_eq!((n.cwnd(), n.ssthresh()), (1.0, want), "{reading}");
            // Outside a recovery (a new ACK since) both readings take FlightSize / 2.
            n.on_new_ack(&new_ack(2, 1, 41, 39));
            n.on_timeout(&TimeoutInfo { flight: 16, high_sent: 41, ..TimeoutInfo::default() });
            assert_eq!(n.ssthresh(), 8.0, "{reading}");
        }
        assert_eq!(NewRenoConfig::default().timeout_in_recovery, TimeoutInRecovery::KeepSsthresh);
        let v = toml::Value::Table(toml::from_str::<toml::Table>("variant = \"ns2\"\ntimeout_in_recovery = \"flight\"").unwrap());
        let err = NewReno::decode(&mut Params::new(Obj::new(&v, "params").unwrap()), &mut NewReno::sender_defaults());
        assert!(err.unwrap_err().to_string().contains("timeout_in_recovery"));
    }

    #[test]
    fn the_same_packet_timing_out_again_holds_ssthresh_in_the_rfc_variant() {
        // RFC 5681 §3.1: FlightSize / 2 for a segment not yet resent by the timer; ssthresh
        // held when it times out again. ns-2 halves the one-packet window each time.
        for (variant, want) in [(NewRenoVariant::Rfc6582, 8.0), (NewRenoVariant::Ns2, 2.0)] {
            let mut n = avoiding(variant, 16.0);
            n.on_timeout(&TimeoutInfo { flight: 16, high_sent: 17, seq: 1, ..TimeoutInfo::default() });
            assert_eq!(n.ssthresh(), 8.0, "{variant:?}");
            assert!(!n.in_recovery());
            n.on_timeout(&TimeoutInfo { flight: 1, high_sent: 17, seq: 1, ..TimeoutInfo::default() });
            assert_eq!((n.cwnd(), n.ssthresh()), (1.0, want), "{variant:?}: the same packet again");
            // A new ACK (cwnd 2), then a timeout of a later packet with 6 outstanding:
            // FlightSize / 2 again (ns-2: the window's half, at least 2).
            n.on_new_ack(&new_ack(2, 1, 17, 1));
            n.on_timeout(&TimeoutInfo { flight: 6, high_sent: 17, seq: 2, ..TimeoutInfo::default() });
            assert_eq!(n.ssthresh(), if variant == NewRenoVariant::Rfc6582 { 3.0 } else { 2.0 }, "{variant:?}");
        }
    }

    /// The timer after the first and the second partial ACK, under each rule: packets 1, 3
    /// and 5 of a window of 10 (1..=10, sent at 1 s; srtt 1 s, RTO 3 s) are lost.
    fn deadlines(rule: PartialAckTimer) -> (u64, u64, u64) {
        let cfg = NewRenoConfig { partial_ack_timer: rule, ..NewRenoConfig::default() };
        let d = NewReno::sender_defaults();
        let mut s = Sender::new(Cc::from(NewReno::build(&cfg, 20)), 20, d.rto, d.timers);
        s.app_limit = 12;
        s.next_transmission(0);
        s.on_ack(1, 0, 0, 0, false, false, 0, SEC);
        if let Cc::NewReno(n) = &mut s.cc {
            (n.cwnd, n.ssthresh) = (10.0, 5.0);
        }
        while s.next_transmission(SEC).is_some() {}
        let ms = SEC / 1000;
        for (i, echo) in [2u64, 4, 6, 7, 8, 9, 10].into_iter().enumerate() {
            s.on_ack(1, echo, SEC, SEC, false, false, 0, 2 * SEC + i as u64 * ms);
            while s.next_transmission(2 * SEC + i as u64 * ms).is_some() {}
        }
        let before = s.next_deadline();
        // The repair of 1 acknowledges 1..=2 at 3 s; that of 3 acknowledges 3..=4 at 4 s.
        s.on_ack(3, 1, 2 * SEC, SEC, true, false, 0, 3 * SEC);
        assert_eq!(s.next_transmission(3 * SEC).map(|t| (t.seq, t.retransmission)), Some((3, true)));
        let first = s.next_deadline();
        s.on_ack(5, 3, 3 * SEC, SEC, true, false, 0, 4 * SEC);
        assert_eq!(s.next_transmission(4 * SEC).map(|t| (t.seq, t.retransmission)), Some((5, true)));
        (before, first, s.next_deadline())
    }

    #[test]
    fn impatient_restarts_the_timer_on_the_first_partial_ack_only() {
        // The fast retransmission at 2.002 s leaves the timer of the ACK at 1 s (RFC 6298).
        assert_eq!(deadlines(PartialAckTimer::Impatient), (4 * SEC, 6 * SEC, 6 * SEC));
        assert_eq!(deadlines(PartialAckTimer::SlowButSteady), (4 * SEC, 6 * SEC, 7 * SEC));
    }
}
