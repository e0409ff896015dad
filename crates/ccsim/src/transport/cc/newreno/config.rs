//! NewReno's parameters: the variants and rules of the module header, their decoding, and the
//! one byte of rules that every NewReno flow carries.

use crate::scenario::decode::Result;
use crate::scenario::params::Params;
use crate::transport::cc::loss::LossConfig;
use crate::transport::config::{SenderConfig, TimerMode};

/// Which NewReno (see the `newreno` module header).
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
    /// RFC 6582: what a timeout during a fast recovery does to ssthresh (see the `newreno` module header).
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

impl NewRenoConfig {
    /// Read the parameters (and set ns-2's timer for its variant).
    pub fn decode(p: &mut Params, sender: &mut SenderConfig) -> Result<NewRenoConfig> {
        let loss = LossConfig::decode(p, sender)?;
        crate::transport::cc::loss::decode_ecn(p, sender)?;
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
}

/// The configuration's rules in one byte: NewReno lives unboxed in every flow's `Cc`, whose
/// size is set by its largest member (at most 40 bytes keeps `Cc` at 48).
#[derive(Clone, Copy, Debug)]
pub(super) struct Rules(u8);

impl Rules {
    const NS2: u8 = 1;
    const SLOW_BUT_STEADY: u8 = 2;
    const NO_DEFLATION: u8 = 4;
    const TIMEOUT_FROM_FLIGHT: u8 = 8;

    pub(super) fn new(cfg: &NewRenoConfig) -> Rules {
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
    pub(super) fn variant(self) -> NewRenoVariant {
        if self.0 & Rules::NS2 != 0 {
            NewRenoVariant::Ns2
        } else {
            NewRenoVariant::Rfc6582
        }
    }
    pub(super) fn slow_but_steady(self) -> bool {
        self.0 & Rules::SLOW_BUT_STEADY != 0
    }
    pub(super) fn deflation(self) -> bool {
        self.0 & Rules::NO_DEFLATION == 0
    }
    pub(super) fn timeout_from_flight(self) -> bool {
        self.0 & Rules::TIMEOUT_FROM_FLIGHT != 0
    }
}
