//! JCC's parameters: the readings the thesis leaves open (module header) and their decoding.

use super::aied::Codes;
use super::probes::Probing;
use crate::scenario::decode::Result;
use crate::scenario::params::Params;
use crate::transport::cc::loss::{LossConfig, RecoverGuard};
use crate::transport::config::SenderConfig;

/// When congestion avoidance grows the window.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Increase {
    /// +1 at a probing ACK with R <= alpha (eq. 4.3).
    PerProbe,
    /// +1/cwnd per new ACK while the latest R <= alpha.
    PerAck,
}

/// What a decrease in congestion avoidance (AIED's, or a lost probe's halving) does to
/// ssthresh.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CutSsthresh {
    /// ssthresh = the new window: the flow stays in congestion avoidance and grows linearly.
    Follow,
    /// ssthresh is left alone: below it the flow is in slow start again (+1 per ACK, no AIED)
    /// until it is back at ssthresh or a probe reports R > beta.
    Keep,
    /// A halving (AIED's R >= beta branch, a lost probe) sets ssthresh as Reno's does; an
    /// exponential cut (alpha < R < beta) leaves it, as "keep".
    Halving,
}

/// What a loss's beta update does when the latest R lies outside (alpha, max_p].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BetaBounds {
    /// beta = R, kept in (alpha, 2^m - 2]: never below alpha + one code (A-J2's guard), never
    /// above max_p's code (§4.2.5: alpha and beta are codes "in the range of (0, 2^m - 1)").
    Codes,
    /// beta = R, kept above alpha only: an R of 2^m - 1 (the average past max_th) makes beta
    /// that code, where no R can exceed it.
    Unbounded,
    /// beta = R when R lies in (alpha, 2^m - 2]; otherwise beta is left as it was.
    Skip,
}

/// The response to a loss that is not a probe's (A-J1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LossResponse {
    /// Retransmit and update beta; the window is AIED's (I2).
    Aied,
    /// Reno's halving and fast recovery as well (I1).
    Reno,
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct JccConfig {
    pub loss: LossConfig,
    /// Lower threshold of R, probability units. 0.
    pub alpha: f64,
    /// The routers' max_p (beta's start, and the unit of the codes). 0.1.
    pub max_p: f64,
    /// Bits m of R (the routers' `code_bits`). 8.
    pub code_bits: u8,
    pub increase: Increase,
    pub loss_response: LossResponse,
    /// When a third duplicate ACK waits for `recover` (ns-2's Reno: `Timeout`). Always.
    pub recover_guard: RecoverGuard,
    /// Follow.
    pub cut_ssthresh: CutSsthresh,
    /// How probes are spaced (probes.rs). Outstanding.
    pub probing: Probing,
    /// Codes.
    pub beta_bounds: BetaBounds,
}

impl Default for JccConfig {
    fn default() -> Self {
        JccConfig {
            loss: LossConfig::default(),
            alpha: 0.0,
            max_p: 0.1,
            code_bits: 8,
            increase: Increase::PerProbe,
            loss_response: LossResponse::Aied,
            recover_guard: RecoverGuard::Always,
            cut_ssthresh: CutSsthresh::Follow,
            probing: Probing::Outstanding,
            beta_bounds: BetaBounds::Codes,
        }
    }
}

impl JccConfig {
    /// The `params` of a JCC flow (the registry's `Algorithm::decode`).
    pub(super) fn decode(p: &mut Params, sender: &mut SenderConfig) -> Result<JccConfig> {
        let d = JccConfig::default();
        let loss = LossConfig::decode(p, sender)?;
        let alpha = p.number("alpha", d.alpha, 0.0, 1.0, "R at or below which the window grows (eq. 4.3), probability units")?;
        let max_p = p.number_above("max_p", d.max_p, 0.0, 1.0, "the routers' RED max_p: beta's start and the codes' unit")?;
        let code_bits =
            p.integer("code_bits", d.code_bits as u64, 2, 8, "bits m of R, as the routers' RED code_bits")? as u8;
        let cfg = JccConfig {
            loss,
            alpha,
            max_p,
            code_bits,
            increase: p.choice(
                "increase",
                d.increase,
                &[("per_probe", Increase::PerProbe), ("per_ack", Increase::PerAck)],
                "congestion avoidance grows by 1 per probing ACK with R <= alpha, or by 1/cwnd per ACK while R <= alpha",
            )?,
            loss_response: p.choice(
                "loss_response",
                d.loss_response,
                &[("aied", LossResponse::Aied), ("reno", LossResponse::Reno)],
                "a loss other than a probe's: retransmit and update beta only (I2), or Reno's halving as well (I1)",
            )?,
            recover_guard: p.choice(
                "recover_guard",
                d.recover_guard,
                &[("timeout", RecoverGuard::Timeout), ("always", RecoverGuard::Always), ("off", RecoverGuard::Off)],
                "ns-2's bugFix_: no fast retransmit until the ACK passes what was sent at the last timeout (timeout, ns-2's Reno), at the last loss of either kind (always), or no wait (off)",
            )?,
            cut_ssthresh: p.choice(
                "cut_ssthresh",
                d.cut_ssthresh,
                &[("follow", CutSsthresh::Follow), ("keep", CutSsthresh::Keep), ("halving", CutSsthresh::Halving)],
                "a decrease in congestion avoidance sets ssthresh to the new window (follow), leaves it (keep: slow start back up to it), or sets it only when it halves (halving)",
            )?,
            probing: p.choice(
                "probing",
                d.probing,
                &[("outstanding", Probing::Outstanding), ("timer", Probing::Timer)],
                "when a probe leaves: the first new packet after the last probe's ACK (one outstanding), or once a smoothed RTT has passed since the last probe (A-J8's timer reading)",
            )?,
            beta_bounds: p.choice(
                "beta_bounds",
                d.beta_bounds,
                &[("codes", BetaBounds::Codes), ("unbounded", BetaBounds::Unbounded), ("skip", BetaBounds::Skip)],
                "a loss sets beta to the latest R kept within (alpha, max_p's code] (codes: §4.2.5's range), only above alpha (unbounded: R = 2^m - 1 can become beta), or leaves beta when R is outside that range (skip)",
            )?,
        };
        let codes = Codes::new(code_bits, max_p);
        if codes.code(alpha) + 1.0 > codes.max_p() {
            return Err(p.error("alpha", format!("expected alpha at least one code below max_p ({max_p}), got {alpha}")));
        }
        Ok(cfg)
    }
}
