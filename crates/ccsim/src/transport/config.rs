//! How a flow's sender is set up: its retransmission timers and RTT estimator.
//!
//! Each congestion-control algorithm brings its own defaults ([`super::cc::Algorithm::sender_defaults`]:
//! Generic's beta x srtt timer per packet, JK's srtt + 2 mdev with Karn's rule, ...); a flow's
//! `params` table overrides them. The parameters every window algorithm shares are read here,
//! once ([`SenderConfig::decode_common`]); the few that only some algorithms take (`beta`,
//! `rto_k`, `retransmit`) have helpers here and are asked for by those algorithms' decoders.
//!
//! This module sits below both the sender and the algorithms, so neither imports the other
//! for its configuration.

use super::rtt::{RtoConfig, RtoFormula, RttSamples, SampleFrom, SamplePacket};
use crate::scenario::decode::Result;
use crate::scenario::params::Params;

/// Which round-trip time the `pacing` option spreads the window over.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PacingRtt {
    /// The retransmission timer's smoothed RTT (gain 1/8).
    Srtt,
    /// David Wei's ns-2 pacing patch (Caltech, 2006; its `pace_packet_` 1): an average of
    /// the RTT samples with weight 1/max(cwnd/3, 4) each, and the least RTT seen so far while
    /// the flow recovers from a loss (until the ACKs pass `recover`), so a cut window goes
    /// out at the path's rate rather than over a round trip swollen by the queue it left.
    Ns2Wei,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TimerMode {
    /// One retransmission timer per connection, for the oldest unacknowledged packet:
    /// started when a packet is sent and none is running, restarted by every ACK of new data
    /// (RFC 6298 §5); a fast retransmission leaves it running.
    Single,
    /// As `Single`, and a fast retransmission restarts the timer, so the retransmitted packet
    /// gets a full timeout: 4.3BSD-Tahoe's `tcp_input` clears TCPT_REXMT on the third
    /// duplicate ACK and `tcp_output` re-arms it for the retransmission. Under `Single` the
    /// timer keeps the deadline of the last new ACK, and a retransmission that waits behind a
    /// long queue (its own FQ queue, a full FCFS buffer) is timed out and resent again.
    SingleBsd,
    /// Every outstanding packet has its own timer; exactly the expired packets are resent.
    PerPacket,
    /// As `PerPacket`, and each packet's timeout doubles every time that packet expires
    /// (Keshav 1991 §4.4: "the new timeout value for the packet is twice the old value"); a
    /// new packet starts from the current RTO. Costs one byte per window slot.
    PerPacketDoubling,
}

/// Everything the sender needs besides its algorithm.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SenderConfig {
    pub rto: RtoConfig,
    pub timers: TimerMode,
    /// Per-packet timers also stop on the packet's own ACK, not only on a cumulative ACK
    /// covering it (Generic's `retransmit = "own_ack"`; packet-pair's matching of ACKs).
    pub own_ack_stops_timer: bool,
    /// Spread the window over the smoothed RTT: every transmission, retransmissions
    /// included, at least srtt / window after the previous one (`pacing`; see `pacer.rs`).
    pub pacing: bool,
    /// The round trip `pacing` spreads the window over.
    pub pacing_rtt: PacingRtt,
    /// React to ECN marks (RFC 3168): the sender passes an echoed mark to the algorithm's
    /// `on_ecn` at most once a window. Set by the algorithms that have a response (Reno's,
    /// NewReno's and SACK TCP's `ecn`).
    pub ecn: bool,
    /// Recover from losses with a SACK scoreboard (`sender/sack.rs`). Set by the algorithms
    /// whose window rules go with it (`cc = "sack"`, FAST's `recovery = "sack"`), never by a
    /// flow alone: an
    /// algorithm that inflates its window in recovery would count the same packets twice.
    pub sack: Option<SackConfig>,
}

/// SACK-based recovery's two choices (`sender/sack.rs`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SackConfig {
    /// A partial ACK resends two packets at once (ns-2's `partial_ack_`; off by default there).
    pub partial_ack: bool,
    /// Resend the oldest unacknowledged packet again once its last copy is older than this
    /// many average RTTs (the ns-2 FAST module's 2; 0 turns the rule off).
    pub rescue: f64,
}

impl SenderConfig {
    /// The parameters every window algorithm takes, over this algorithm's defaults.
    pub fn decode_common(&mut self, p: &mut Params) -> Result<()> {
        let rto = &mut self.rto;
        rto.initial_rto = p.duration("initial_rto", rto.initial_rto, "timeout before the first RTT sample")?;
        if rto.initial_rto == 0 {
            return Err(p.error("initial_rto", "expected a positive duration"));
        }
        rto.min_rto = p.duration("min_rto", rto.min_rto, "lower clamp of the timeout")?;
        rto.max_rto = p.duration("max_rto", rto.max_rto, "upper clamp of the timeout")?;
        rto.granularity =
            p.duration("rto_granularity", rto.granularity, "timer granularity G: RTO = srtt + max(G, k x deviation) (RFC 6298 §2.3)")?;
        if rto.max_rto < rto.min_rto {
            return Err(p.error("max_rto", "expected max_rto >= min_rto"));
        }
        self.pacing = p.flag(
            "pacing",
            self.pacing,
            "pace every transmission, retransmissions included, at least srtt/cwnd after the previous one (Cui 2007 §2.2.4; not with algorithms that pace by their own rule)",
        )?;
        self.pacing_rtt = p.choice(
            "pacing_rtt",
            self.pacing_rtt,
            &[("srtt", PacingRtt::Srtt), ("ns2_wei", PacingRtt::Ns2Wei)],
            "the round trip pacing spreads the window over: the smoothed RTT, or ns2_wei (Wei's ns-2 pacing patch: an average over max(cwnd/3, 4) samples, the least RTT while recovering from a loss)",
        )?;
        rto.karn = p.flag("karn", rto.karn, "skip RTT samples of retransmitted packets (Karn and Partridge)")?;
        rto.backoff = p.flag("backoff", rto.backoff, "double the timeout on each expiry until a fresh sample")?;
        rto.sample_from = p.choice(
            "rtt_sample",
            rto.sample_from,
            &[("first", SampleFrom::First), ("last", SampleFrom::Last), ("latest", SampleFrom::Latest)],
            "which transmission an RTT sample runs from",
        )?;
        rto.sample_packet = p.choice(
            "sample_packet",
            rto.sample_packet,
            &[("echoed", SamplePacket::Echoed), ("cumulative", SamplePacket::Cumulative)],
            "which packet an ACK's RTT sample times",
        )?;
        // Per-packet sampling measures each packet from its first transmission, so it cannot
        // honour "last" or Karn's rule: asked for explicitly, that is an error; as the
        // algorithm's default, it gives way to them.
        let per_packet_ok = rto.sample_from == SampleFrom::First && !rto.karn;
        let asked = p.given("rtt_samples");
        let samples = p.choice(
            "rtt_samples",
            rto.samples,
            &[
                ("each_packet", RttSamples::EachPacket),
                ("every_acked", RttSamples::EveryAcked),
                ("one_per_ack", RttSamples::OnePerAck),
                ("one_per_rtt", RttSamples::OnePerRtt),
            ],
            "RTT samples an ACK gives the estimator",
        )?;
        rto.samples = match samples {
            s @ (RttSamples::EachPacket | RttSamples::EveryAcked) if !per_packet_ok && asked => {
                let name = if s == RttSamples::EachPacket { "each_packet" } else { "every_acked" };
                return Err(p.error(
                    "rtt_samples",
                    format!(
                        "\"{name}\" measures each packet from its first transmission: it needs rtt_sample = \"first\" and karn = false"
                    ),
                ));
            }
            s if s.per_packet() && !per_packet_ok => RttSamples::OnePerAck,
            s => s,
        };
        Ok(())
    }

    /// `rto_k`: RTO = srtt + k x mean deviation.
    pub fn decode_rto_k(&mut self, p: &mut Params) -> Result<()> {
        const DOC: &str = "k of timeout = srtt + k x mean deviation";
        match self.rto.formula {
            RtoFormula::MeanDev(k) => self.rto.formula = RtoFormula::MeanDev(p.number("rto_k", k, 0.0, 100.0, DOC)?),
            RtoFormula::Beta(_) => {
                if let Some(k) = p.optional_number("rto_k", 0.0, 100.0, "unset (timeout = beta x srtt)", DOC)? {
                    self.rto.formula = RtoFormula::MeanDev(k);
                }
            }
        }
        Ok(())
    }

    /// `beta` (or another name for it): RTO = beta x srtt, beta in (0, 100] (or in
    /// [`lo`, 100] when `lo` is above 0).
    pub fn decode_beta(&mut self, p: &mut Params, key: &'static str, lo: f64, doc: &'static str) -> Result<()> {
        let b = match self.rto.formula {
            RtoFormula::Beta(b) => b,
            RtoFormula::MeanDev(_) => 2.0,
        };
        let b = if lo > 0.0 { p.number(key, b, lo, 100.0, doc)? } else { p.number_above(key, b, 0.0, 100.0, doc)? };
        if p.given(key) {
            self.rto.formula = RtoFormula::Beta(b);
        }
        Ok(())
    }
}

/// Which packets a timeout resends (Generic's and packet-pair's `retransmit`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Retransmit {
    /// Per-packet timers, stopped by a cumulative ACK or by the packet's own ACK.
    OwnAck,
    /// Per-packet timers stopped only by cumulative ACKs: packets held behind a hole are
    /// resent too.
    Expired,
    /// One timer for the oldest packet; on expiry resend from it onwards.
    GoBackN,
}

impl Retransmit {
    pub fn apply(self, s: &mut SenderConfig, per_packet: TimerMode) {
        match self {
            Retransmit::OwnAck => (s.timers, s.own_ack_stops_timer) = (per_packet, true),
            Retransmit::Expired => (s.timers, s.own_ack_stops_timer) = (per_packet, false),
            Retransmit::GoBackN => (s.timers, s.own_ack_stops_timer) = (TimerMode::Single, false),
        }
    }
}
