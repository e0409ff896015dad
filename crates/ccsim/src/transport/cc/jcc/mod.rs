//! JCC: Joint Congestion Control, a window set by the path's largest RED drop probability.
//!
//! Source: Hua 2002 ch. 4 (thesis §4.2; spec hua02-vegas-jcc-swtp.md §1.4), the authority for
//! the rules; the routers' side is RED's `code_bits` (`queue/red/code.rs`, eq. 4.4).
//! - Probes (§4.2.1, §4.2.3): once per RTT the source sends a probe, an ordinary data packet
//!   marked `flags::PROBE` with its code (R) set to 0; every router on the way sets
//!   R = max(R, r) with r its quantised RED probability (eq. 4.2), so the sink gets the path's
//!   R = max r_i (eq. 4.1) and its ACK (the "probing ACK") echoes it. The source records the
//!   probe's sequence number, to know the probing ACK (the ACK that echoes that number and
//!   not a retransmission's copy) and to tell a lost probe from other losses.
//! - Slow start (§4.2.2), cwnd < ssthresh: +1 per new ACK; a probing ACK with R > beta sets
//!   ssthresh = cwnd, without a cut, and the next probing ACK is AIED's (A-J7).
//! - Congestion avoidance (§4.2.2, eq. 4.3), AIED once per probing ACK: cwnd + 1 if
//!   R <= alpha, cwnd x 2^-((R - alpha)/(beta - alpha)) if alpha < R < beta, cwnd / 2 if
//!   R >= beta ([`aied`]). Nothing changes between probing ACKs (A-J6).
//! - beta (§4.2.4): starts at max_p (code 2^m - 2) and becomes the latest R each time a loss
//!   is detected (third duplicate ACK or timeout), never below alpha + one code (A-J2: the
//!   thesis's own rule could make beta <= alpha; with integer codes the guard changes no
//!   window, see `aied.rs`) and never above max_p's code: §4.2.5 sets alpha and beta as codes
//!   "in the range of (0, 2^m - 1)", and an R of 2^m - 1 (the average past max_th) as beta
//!   would leave no R above it to end a slow start (`beta_bounds`: "codes"; "unbounded" lets
//!   it, "skip" leaves beta alone when R is out of range). alpha is fixed.
//! - A lost probe (§4.2.3): when the packet detected lost (third duplicate ACK) is the
//!   outstanding probe, cwnd / 2 (and the next new packet is a probe); a probe that times out
//!   gets the timeout's response.
//! - Other losses (A-J1, `loss_response`) [REC: "aied", the thesis's reading I2]: fast
//!   retransmission and the beta update only; the window stays AIED's. "reno" (I1): Reno's
//!   response as well (ssthresh = max(cwnd/2, 2), cwnd = ssthresh + 3, +1 per further
//!   duplicate, cwnd = ssthresh on the next new ACK); a lost probe then gets that halving,
//!   not a second one, and probing ACKs during recovery record R without moving the window.
//! - Timeout (both): cwnd = 1, ssthresh = max(cwnd/2, 2) (cwnd before it, without recovery's
//!   inflation), the sender's back-off; then slow start. "An ACK clock that has died cannot be
//!   rescued by AIED" (spec §1.4.4).
//!
//! Units (§4.2.5, A-J5; [`Codes`] in `aied.rs`): R travels as an m-bit code (`code_bits`, 8
//! by default; it must be the routers'), and alpha, beta and R are held as codes, alpha
//! configured in probability units (0.02 is code 51 with max_p 0.1, m = 8). `max_p` must be
//! the routers' too. Traces and statistics report R and beta in probability units. Routers
//! with `code_scale = "literal"` code max_p as 2^m - 1: the conversion is then 1/(2^m - 1) off.
//!
//! Choices where the thesis is silent ([REC] the spec's recommendation, [INF] read here):
//! - Probing interval [REC] (§4.2.3 "one round trip time", A-J8): at most one probe is
//!   outstanding; the first new (never sent) packet after the probing ACK returns, or after
//!   the probe is declared lost, is the next probe; the first packet of the flow is a probe.
//!   A probe whose sequence number a cumulative ACK passes before its own ACK came (its ACK
//!   was lost, or the probe was lost and repaired without being detected as the hole) is
//!   given up without a window change, and the next new packet probes. `probing = "timer"`
//!   probes once a smoothed RTT instead (A-J8's other reading; probes.rs).
//! - `increase` [REC: "per_probe"] (A-J6): "per_ack" grows by 1/cwnd per new ACK in
//!   congestion avoidance while the latest R <= alpha (Reno's pace), and the probing ACKs
//!   only decrease.
//! - `cut_ssthresh` [INF: "follow"]: the thesis sets ssthresh only where slow start ends and
//!   says nothing of it at a decrease. "follow": a decrease in congestion avoidance (AIED's,
//!   or a lost probe's halving) sets ssthresh to the new cwnd, as Reno's halving does, so the
//!   flow stays in congestion avoidance and grows back linearly, as Fig 4.3's description
//!   has it ("decreases ... exponentially ... When the network becomes available, the
//!   congestion window is increased linearly"). "keep": ssthresh stays, so by the stages'
//!   definition (slow start while cwnd < ssthresh) a cut flow slow-starts back to it without
//!   AIED. Measured on the Fig 4.5 dumbbell (tests/jcc.rs), "keep" holds the line full but
//!   pins each flow near the ssthresh it happened to get (unfair, against Figs 4.8 and 4.11);
//!   "follow" is fair but leaves part of the line idle. "halving" sets ssthresh on a halving
//!   (AIED's R >= beta branch, a lost probe's), as ns-2's Reno halving does, and leaves it on
//!   AIED's exponential cut, for which the thesis's ns-2 code had no precedent.
//! - [INF] cwnd is real-valued, at least 1 and at most the flow's maximum window; the
//!   sender uses floor(cwnd) (spec §1.4.4). Initial ssthresh = the maximum window (ns-2's
//!   `window_`), so slow start also ends there.
//! - [INF] Probes are sent only on first transmissions; a retransmission is never a probe
//!   and its ACK is not a probing ACK (its code is 0 from the source).
//! - `recover_guard` [INF: "always"]: a third duplicate ACK counts as a loss (fast
//!   retransmission, beta update) only once the cumulative ACK has passed every packet sent at
//!   the previous loss, of either kind, so a second hole in one window waits for the timeout.
//!   "timeout" is ns-2's Reno of 2001 exactly (`bugFix_` with `allow_fast_retransmit`: the
//!   wait only after a timeout), on which the thesis's ns-2 code may have been built (hua02
//!   finding jcc-recover-guard has both). "off": every third duplicate ACK counts. The state
//!   is `loss::Recover`, shared with Reno's ns2 variant.
//! - Sender [REC] (spec §1.1, §7, as this crate's Vegas): RTO = srtt + 4 rttvar with Karn's
//!   rule and back-off, min RTO 1 s, initial 3 s, the 0.1 s tick as RFC 6298's granularity G;
//!   a fast retransmission restarts the timer (ns-2's `reset_rtx_timer`;
//!   `TimerMode::SingleBsd`). ns-2 timed one segment per RTT (`rtt_samples = "one_per_rtt"`;
//!   on the Fig 4.5 dumbbell it changes nothing, the 1 s floor dominating, nor does a 10 ms
//!   tick; a 200 ms floor changes little).
//!
//! Trace columns: `r` (the latest R, probability units; NaN before the first probing ACK)
//! and `beta` (probability units).

mod aied;
mod config;
mod probes;
#[cfg(test)]
mod tests;

pub use aied::{aied, Codes};
pub use super::loss::RecoverGuard;
use super::loss::Recover;
pub use config::{BetaBounds, CutSsthresh, Increase, JccConfig, LossResponse};
pub use probes::Probing;
use probes::Probes;

use super::reno::rfc6298_defaults;
use super::{AckInfo, AckResponse, Algorithm, CongestionControl, TimeoutInfo};
use crate::scenario::decode::Result;
use crate::scenario::params::Params;
use crate::sim::{SimTime, PS_PER_SEC};
use crate::transport::config::{SenderConfig, TimerMode};

/// What a JCC flow has heard and done (for tests and reports).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct JccStats {
    /// Probing ACKs received.
    pub probes: u64,
    /// Mean R over them, probability units (NaN before the first).
    pub mean_r: f64,
    /// The latest R, as its code.
    pub last_code: u8,
    /// beta now, probability units.
    pub beta: f64,
    /// Losses detected (each updated beta): third duplicate ACKs and timeouts.
    pub losses: u64,
    /// Of those, lost probes.
    pub probe_losses: u64,
}

#[derive(Clone, Debug)]
pub struct Jcc {
    cwnd: f64,
    ssthresh: f64,
    max_window: f64,
    dupack_threshold: u32,
    increase: Increase,
    loss_response: LossResponse,
    cut_ssthresh: CutSsthresh,
    beta_bounds: BetaBounds,
    codes: Codes,
    /// alpha, beta and the latest R, as codes.
    alpha: f64,
    beta: f64,
    r: f64,
    /// The probes out and when the next leaves.
    probing: Probes,
    /// Reno's fast recovery (`loss_response = "reno"` only).
    in_recovery: bool,
    /// ns-2's `recover_` guard on fast retransmissions (`recover_guard`).
    recover: Recover,
    probes: u64,
    r_sum: f64,
    losses: u64,
    probe_losses: u64,
}

impl Algorithm for Jcc {
    const NAME: &'static str = "jcc";
    const SUMMARY: &'static str =
        "Joint Congestion Control (Hua 2002 ch. 4): probes collect the path's largest RED code R; AIED window (needs red code_bits)";
    type Config = JccConfig;
    const TRACE_COLUMNS: &'static [&'static str] = &["r", "beta"];
    const MARKS_PACKETS: bool = true;

    fn sender_defaults() -> SenderConfig {
        let mut s = rfc6298_defaults();
        s.rto.initial_rto = 3 * PS_PER_SEC;
        s.rto.min_rto = PS_PER_SEC;
        s.rto.granularity = PS_PER_SEC / 10;
        s.timers = TimerMode::SingleBsd;
        s
    }

    fn decode(p: &mut Params, sender: &mut SenderConfig) -> Result<JccConfig> {
        JccConfig::decode(p, sender)
    }

    fn build(cfg: &JccConfig, max_window: u32) -> Self {
        let codes = Codes::new(cfg.code_bits, cfg.max_p);
        Jcc {
            cwnd: cfg.loss.initial_cwnd,
            ssthresh: max_window as f64,
            max_window: max_window as f64,
            dupack_threshold: cfg.loss.dupack_threshold,
            increase: cfg.increase,
            loss_response: cfg.loss_response,
            cut_ssthresh: cfg.cut_ssthresh,
            beta_bounds: cfg.beta_bounds,
            codes,
            alpha: codes.code(cfg.alpha),
            beta: codes.max_p(),
            r: 0.0,
            probing: Probes::new(cfg.probing),
            in_recovery: false,
            recover: Recover::new(cfg.recover_guard),
            probes: 0,
            r_sum: 0.0,
            losses: 0,
            probe_losses: 0,
        }
    }
}

impl Jcc {
    pub fn stats(&self) -> JccStats {
        JccStats {
            probes: self.probes,
            mean_r: if self.probes == 0 { f64::NAN } else { self.r_sum / self.probes as f64 },
            last_code: self.r as u8,
            beta: self.codes.probability(self.beta),
            losses: self.losses,
            probe_losses: self.probe_losses,
        }
    }

    /// A new window: a decrease (at least 1) also sets ssthresh with `cut_ssthresh = "follow"`,
    /// or with "halving" when it halves (see the header); an increase stops at the maximum
    /// window.
    fn set_cwnd(&mut self, w: f64, halving: bool) {
        if w < self.cwnd {
            self.cwnd = w.max(1.0);
            if self.cut_ssthresh == CutSsthresh::Follow || (halving && self.cut_ssthresh == CutSsthresh::Halving) {
                self.ssthresh = self.cwnd;
            }
        } else {
            self.cwnd = w.min(self.max_window);
        }
    }

    /// A probing ACK reported `r` (a code).
    fn on_probe(&mut self, r: u8) {
        self.r = r as f64;
        self.probes += 1;
        self.r_sum += self.codes.probability(self.r);
        if self.in_recovery {
            return;
        }
        if self.cwnd < self.ssthresh {
            if self.r > self.beta {
                self.ssthresh = self.cwnd;
            }
        } else if self.increase == Increase::PerProbe || self.r > self.alpha {
            let halving = self.r > self.alpha && self.r >= self.beta;
            self.set_cwnd(aied(self.cwnd, self.r, self.alpha, self.beta), halving);
        }
    }

    /// A loss was detected (§4.2.4): beta = the latest R, within its bounds (`beta_bounds`;
    /// the floor, alpha + one code, is A-J2's guard: no effect on the window with integer
    /// codes, `aied`'s header).
    fn on_loss(&mut self) {
        let (floor, cap) = (self.alpha + 1.0, self.codes.max_p());
        self.beta = match self.beta_bounds {
            BetaBounds::Codes => self.r.clamp(floor, cap),
            BetaBounds::Unbounded => self.r.max(floor),
            BetaBounds::Skip if (floor..=cap).contains(&self.r) => self.r,
            BetaBounds::Skip => self.beta,
        };
        self.losses += 1;
    }

    /// If `seq` is an outstanding probe, it is lost (with one outstanding, the next new packet
    /// probes).
    fn probe_lost(&mut self, seq: u64) -> bool {
        let lost = self.probing.lost(seq);
        if lost {
            self.probe_losses += 1;
        }
        lost
    }
}

impl CongestionControl for Jcc {
    fn cwnd(&self) -> f64 {
        self.cwnd
    }
    fn ssthresh(&self) -> f64 {
        self.ssthresh
    }
    #[inline]
    fn code_for(&mut self, _seq: u64, _retransmission: bool, _code: u8) -> u8 {
        0 // "At the source, R is initialized to zero" (§4.2.1)
    }
    #[inline]
    fn probe_for(&mut self, seq: u64, retransmission: bool, now: SimTime) -> bool {
        self.probing.take(seq, retransmission, now)
    }
    #[inline]
    fn on_ack_info(&mut self, ack: &AckInfo) {
        let rtt = ack.now.saturating_sub(ack.echo_tx);
        if self.probing.on_ack(ack.echo_seq, ack.echo_retx, ack.ack, rtt) {
            self.on_probe(ack.code);
        }
    }
    fn on_new_ack(&mut self, _ack: &AckInfo) -> AckResponse {
        if self.in_recovery {
            self.in_recovery = false;
            self.cwnd = self.ssthresh;
        } else if self.cwnd < self.ssthresh {
            self.cwnd = (self.cwnd + 1.0).min(self.max_window);
        } else if self.increase == Increase::PerAck && self.r <= self.alpha {
            self.cwnd = (self.cwnd + 1.0 / self.cwnd).min(self.max_window);
        }
        AckResponse::Nothing
    }
    fn on_dup_ack(&mut self, count: u32, ack: &AckInfo) -> bool {
        if self.in_recovery {
            self.cwnd += 1.0;
            return false;
        }
        if count != self.dupack_threshold || !self.recover.allows(ack.ack) {
            return false;
        }
        self.on_loss();
        self.recover.fast_retransmit(ack.high_sent);
        let probe = self.probe_lost(ack.ack);
        match self.loss_response {
            LossResponse::Reno => {
                self.ssthresh = (self.cwnd / 2.0).max(2.0);
                self.cwnd = self.ssthresh + self.dupack_threshold as f64;
                self.in_recovery = true;
            }
            LossResponse::Aied if probe => self.set_cwnd(self.cwnd / 2.0, true),
            LossResponse::Aied => {}
        }
        true
    }
    fn on_timeout(&mut self, t: &TimeoutInfo) {
        self.on_loss();
        self.recover.timeout(t.high_sent);
        self.probe_lost(t.seq);
        let w = if self.in_recovery { self.ssthresh } else { self.cwnd };
        self.ssthresh = (w / 2.0).max(2.0);
        self.cwnd = 1.0;
        self.in_recovery = false;
    }
    fn trace_values(&self, out: &mut [f64]) {
        out[0] = if self.probes == 0 { f64::NAN } else { self.codes.probability(self.r) };
        out[1] = self.codes.probability(self.beta);
    }
}

