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
//!   timeout; the sender tells, `TimeoutInfo::repeated`), ssthresh is held (RFC 5681 §3.1:
//!   FlightSize/2 applies only to a segment not yet resent by the timer), not taken from the
//!   one or two packets go-back-N had resent.
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

mod config;

pub use config::{NewRenoConfig, NewRenoVariant, PartialAckTimer, TimeoutInRecovery};
use config::Rules;

use super::loss::{aimd_increase, half_flight};
use super::{AckInfo, AckResponse, Algorithm, CongestionControl, TimeoutInfo};
use crate::scenario::decode::Result;
use crate::scenario::params::Params;
use crate::transport::config::SenderConfig;

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
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    Open,
    /// Fast recovery, before its first partial ACK.
    Recovery,
    /// Fast recovery, after a partial ACK (the Impatient timer rule tells them apart).
    RecoveryAfterPartial,
}

impl Algorithm for NewReno {
    const NAME: &'static str = "newreno";
    const SUMMARY: &'static str = "NewReno (RFC 6582, no SACK): Reno that repairs several losses per window in one recovery; ns-2's as variant";
    type Config = NewRenoConfig;

    fn sender_defaults() -> SenderConfig {
        super::reno::rfc6298_defaults()
    }

    fn decode(p: &mut Params, sender: &mut SenderConfig) -> Result<NewRenoConfig> {
        NewRenoConfig::decode(p, sender)
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
        self.phase != Phase::Open
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
        if self.phase == Phase::Open {
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
            NewRenoVariant::Rfc6582 if t.repeated => self.ssthresh,
            NewRenoVariant::Rfc6582 if self.in_recovery() && !self.rules.timeout_from_flight() => {
                self.ssthresh.min(half_flight(t.flight))
            }
            NewRenoVariant::Rfc6582 => half_flight(t.flight),
            NewRenoVariant::Ns2 => (self.cwnd.min(self.max_window as f64) / 2.0).floor().max(2.0),
        };
        self.cwnd = 1.0;
        self.dupwnd = 0.0;
        self.phase = Phase::Open;
    }
}

#[cfg(test)]
mod tests;
