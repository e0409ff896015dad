//! When a window algorithm that repairs losses by SACK (SACK TCP, CUBIC, HighSpeed TCP,
//! Scalable TCP) reduces its window, and when a recovery only repairs: the rules of ns-2's
//! Sack1 (`sack.rs` gives the sources), which each algorithm combines with its own increase
//! and decrease.
//! - the third duplicate ACK that reports new data, once the cumulative ACK has passed
//!   `recover` (ns-2's `bug_fix_`), starts a recovery with a reduction: recover = the highest
//!   sequence sent; below `recover` it starts none, unless the last reduction answered an ECN
//!   mark, whose loss is then repaired without a second reduction;
//! - the recovery lasts until the ACKs pass `recover`; the window does not grow meanwhile (the
//!   sender's pipe sends);
//! - an ECN mark outside a recovery is a reduction without a retransmission, and moves
//!   `recover` to what is sent; a timeout ends any recovery and moves `recover` too.

use super::loss::LossConfig;
use super::reno::rfc6298_defaults;
use super::{AckInfo, TimeoutInfo};
use crate::scenario::decode::Result;
use crate::scenario::params::Params;
use crate::transport::config::{SackConfig, SenderConfig};

/// The sender an algorithm of this family comes with: RFC 6298's timer and a SACK scoreboard
/// (ns-2's Sack1: no partial-ACK rule, no rescue).
pub fn sack_sender_defaults() -> SenderConfig {
    SenderConfig { sack: Some(SackConfig { partial_ack: false, rescue: 0.0 }), ..rfc6298_defaults() }
}

/// The parameters every algorithm of this family has: `rto_k`, `initial_cwnd`,
/// `dupack_threshold` and `ecn`.
pub fn decode_loss(p: &mut Params, sender: &mut SenderConfig) -> Result<LossConfig> {
    let loss = LossConfig::decode(p, sender)?;
    super::loss::decode_ecn(p, sender)?;
    Ok(loss)
}

/// What a duplicate ACK asks of the algorithm.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[must_use]
pub enum DupResponse {
    /// Nothing: not the threshold's duplicate, a recovery under way, or inside the window of
    /// the last reduction.
    None,
    /// Retransmit and recover, without reducing the window (the loss was in a window an ECN
    /// mark already reduced).
    Repair,
    /// Reduce the window, retransmit and recover.
    Reduce,
}

impl DupResponse {
    /// Whether the sender is to retransmit (what `on_dup_ack` returns).
    pub fn retransmits(self) -> bool {
        self != DupResponse::None
    }
}

#[derive(Clone, Copy, Debug)]
pub struct SackLoss {
    dupack_threshold: u32,
    /// One past the highest sequence sent at the last response (0: none yet).
    recover: u64,
    in_recovery: bool,
    /// The last reduction answered an ECN mark (ns-2's `last_cwnd_action_` CWND_ACTION_ECN).
    after_ecn: bool,
}

impl SackLoss {
    pub fn new(dupack_threshold: u32) -> Self {
        SackLoss { dupack_threshold, recover: 0, in_recovery: false, after_ecn: false }
    }

    pub fn recover_point(&self) -> u64 {
        self.recover
    }

    /// A recovery is under way (the ACKs have not yet passed `recover`).
    pub fn in_recovery(&self) -> bool {
        self.in_recovery
    }

    /// A new ACK: true when the window may grow (no recovery under way; the ACK that passes
    /// `recover` ends one and does not grow it).
    pub fn on_new_ack(&mut self, ack: &AckInfo) -> bool {
        if self.in_recovery {
            self.in_recovery = ack.ack < self.recover;
            return false;
        }
        true
    }

    /// The `count`-th duplicate ACK in a row (counted by the sender when it reports new data).
    pub fn on_dup_ack(&mut self, count: u32, ack: &AckInfo) -> DupResponse {
        if self.in_recovery || count != self.dupack_threshold {
            return DupResponse::None;
        }
        if ack.ack <= self.recover {
            if !self.after_ecn {
                return DupResponse::None;
            }
            self.after_ecn = false;
            self.recover = ack.high_sent;
            self.in_recovery = true;
            return DupResponse::Repair;
        }
        self.after_ecn = false;
        self.recover = ack.high_sent;
        self.in_recovery = true;
        DupResponse::Reduce
    }

    /// An echoed ECN mark: true when the window is to be reduced (not during a recovery).
    pub fn on_ecn(&mut self, ack: &AckInfo) -> bool {
        if self.in_recovery {
            return false;
        }
        self.recover = ack.high_sent;
        self.after_ecn = true;
        true
    }

    pub fn on_timeout(&mut self, t: &TimeoutInfo) {
        self.recover = t.high_sent;
        self.in_recovery = false;
        self.after_ecn = false;
    }
}
