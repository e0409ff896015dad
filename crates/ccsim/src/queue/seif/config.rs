//! The SEIF router's parameters (`queue_params` of `queue = "seif_router"`); their meaning and
//! the choices behind the defaults are in the module header of `mod.rs`.

use crate::queue::random_drop::decode_victim;
use crate::scenario::decode::Result;
use crate::scenario::params::Params;
use crate::sim::{SimTime, PS_PER_SEC};

/// When the router sends feedback.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Policy {
    Static,
    Reacting,
    Dynamic,
}

/// When the filter re-arms.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rearm {
    Below,
    At,
}

/// When the dynamic policy's filter re-arms.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DynamicRearm {
    /// As soon as eq. 4.2's prediction no longer holds.
    Predicate,
    /// Once the queue is below the static threshold (§3.3's filter: "until its queue length
    /// drops below the feedback threshold").
    Threshold,
}

/// Feedback codes: why it was sent.
pub mod code {
    pub const CROSSING: u8 = 0;
    pub const DROP: u8 = 1;
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SeifConfig {
    pub policy: Policy,
    pub threshold: f64,
    pub filter: bool,
    pub rearm: Rearm,
    pub on_drop: bool,
    pub routing_interval: SimTime,
    pub size: u32,
    pub alpha: f64,
    pub dt: SimTime,
    /// The arrival-rate average's time constant; 0: `dt`.
    pub rate_tau: SimTime,
    pub dynamic_rearm: DynamicRearm,
    /// ACKs enter the source table as their flow's entry.
    pub table_acks: bool,
    /// The static threshold counts the packet on the line even where the buffer does not.
    pub threshold_with_line: bool,
    pub victim: crate::queue::random_drop::Victim,
    /// §6.1's fed-back bit (`guard.rs`). false: the thesis's experiments.
    pub fed_back_bit: bool,
    /// §6.1's distance rule: explicit feedback only to sources at most this many links back
    /// (0: every source, the thesis's experiments).
    pub feedback_hops: u32,
}

impl Default for SeifConfig {
    fn default() -> Self {
        SeifConfig {
            policy: Policy::Static,
            threshold: 0.8,
            filter: true,
            rearm: Rearm::Below,
            on_drop: true,
            routing_interval: PS_PER_SEC,
            size: 50,
            alpha: 0.8,
            dt: PS_PER_SEC / 2,
            rate_tau: 0,
            dynamic_rearm: DynamicRearm::Predicate,
            table_acks: false,
            threshold_with_line: false,
            victim: crate::queue::random_drop::Victim::Size,
            fed_back_bit: false,
            feedback_hops: 0,
        }
    }
}

impl SeifConfig {
    pub fn decode(p: &mut Params) -> Result<SeifConfig> {
        let d = SeifConfig::default();
        Ok(SeifConfig {
            policy: p.choice(
                "policy",
                d.policy,
                &[("static", Policy::Static), ("reacting", Policy::Reacting), ("dynamic", Policy::Dynamic)],
                "when to send feedback: past the threshold (static predicting), on drops only (reacting), or by eq. 4.2 (dynamic predicting)",
            )?,
            threshold: p.number_above("threshold", d.threshold, 0.0, 1.0, "static policy: fraction of the buffer the queue must exceed (also the dynamic policy's re-arm level under dynamic_rearm = threshold)")?,
            filter: p.flag("filter", d.filter, "after a feedback, none until the queue falls below the threshold again")?,
            rearm: p.choice(
                "rearm",
                d.rearm,
                &[("below", Rearm::Below), ("at", Rearm::At)],
                "the filter re-arms when the queue is below the threshold, or at or below it (static policy, and dynamic with dynamic_rearm = threshold)",
            )?,
            on_drop: p.flag("on_drop", d.on_drop, "a drop also triggers feedback (subject to the filter)")?,
            routing_interval: p.duration("routing_interval", d.routing_interval, "the source tables are reset this often")?,
            size: p.integer("size", d.size as u64, 1, 65_535, "bytes of a feedback message")? as u32,
            alpha: p.number_above("alpha", d.alpha, 0.0, 1.0, "dynamic policy: α of eq. 4.2 (0.8: Dynamic 1, 0.5: Dynamic 2)")?,
            dt: p.duration("dt", d.dt, "dynamic policy: Δt of eq. 4.2 (the feedback delay)")?,
            rate_tau: p.duration("rate_tau", d.rate_tau, "dynamic policy: time constant of the arrival-rate average (0: dt)")?,
            dynamic_rearm: p.choice(
                "dynamic_rearm",
                d.dynamic_rearm,
                &[("predicate", DynamicRearm::Predicate), ("threshold", DynamicRearm::Threshold)],
                "dynamic policy: the filter re-arms once eq. 4.2 no longer predicts overflow, or once the queue is below the static threshold (§3.3's filter)",
            )?,
            table_acks: p.flag("table_acks", d.table_acks, "an ACK enters the source table as its flow's (the data source's) entry; false: data packets only (A11)")?,
            threshold_with_line: p.choice(
                "threshold_length",
                d.threshold_with_line,
                &[("buffer", false), ("with_line", true)],
                "the length the static threshold tests: the buffer's (the packet on the line as count_in_service says), or the waiting packets plus the one on the line whatever the buffer counts (A17)",
            )?,
            victim: decode_victim(p)?,
            fed_back_bit: p.flag(
                "fed_back_bit",
                d.fed_back_bit,
                "§6.1 (future work): no feedback to a source with a packet waiting here that a router (an earlier one, or this one at an earlier crossing) already fed back for; the packets of those told are marked",
            )?,
            feedback_hops: p.integer(
                "feedback_hops",
                d.feedback_hops as u64,
                0,
                65_535,
                "§6.1 (future work): explicit feedback only to sources at most this many links back; farther ones are left to implicit signals (0: every source)",
            )? as u32,
        })
        .and_then(|c| {
            if c.routing_interval == 0 || c.dt == 0 {
                Err(p.error(if c.dt == 0 { "dt" } else { "routing_interval" }, "expected a positive duration"))
            } else {
                Ok(c)
            }
        })
    }
}
