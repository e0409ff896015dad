//! Congestion control: one file per algorithm, each registered by one line in
//! [`algorithms!`] below.
//!
//! Two traits. [`CongestionControl`] is the per-packet behaviour, shaped like Linux's
//! `tcp_congestion_ops` and quinn-proto's `Controller`: the sender reports new ACKs, duplicate
//! ACKs, timeouts and explicit feedback; the algorithm changes its window (or pacing rate) and
//! may ask for a retransmission. Sequence space, retransmission, RTT estimation and timers
//! belong to the sender, not to the algorithm. [`Algorithm`] is what the algorithm says about
//! itself once: its scenario name, its parameters (read with their defaults, ranges and
//! meaning through [`Params`], which also makes the listing users see), the sender settings it
//! comes with, and any trace columns of its own.
//!
//! The registration line makes it a variant of [`Cc`], the enum the sender holds (the
//! per-ACK path is a `match`, not a virtual call), and an entry of [`ALGORITHMS`], from which
//! the scenario schema, error messages, `--param` targets, Python's listing and the docs'
//! tables are derived. An algorithm whose state is large is registered `boxed`, so window
//! flows stay small.
//!
//! Rate-based algorithms pace beside the window: [`CongestionControl::pacing`] returns a burst
//! size and an interval between burst starts, and the sender releases new data only in such
//! bursts (the first two packets of a burst are marked as a probe pair, see
//! `net::packet::pair_code`). One-off changes to the burst schedule are handed over through
//! [`CongestionControl::take_pace_adjust`], called after every ACK of a paced flow only.
//!
//! Traces: an algorithm may declare columns of its own ([`Algorithm::TRACE_COLUMNS`], filled
//! by [`CongestionControl::trace_values`] at every periodic sample of a traced flow) and an
//! event log ([`Algorithm::EVENT_LOG`]: records kept as they happen, for traced flows only,
//! drained at every sample). Packet-pair's probes use both. Neither is on the per-packet path.

use super::config::SenderConfig;
use crate::scenario::decode::Result;
use crate::scenario::params::Params;
use crate::sim::SimTime;

/// What the sender knows when an ACK arrives, passed to the algorithm.
#[derive(Clone, Copy, Debug, Default)]
pub struct AckInfo {
    pub now: SimTime,
    /// Packets newly acknowledged by this ACK (0 for a duplicate).
    pub newly_acked: u64,
    /// The cumulative ACK (next sequence number the sink expects).
    pub ack: u64,
    /// Packets outstanding (snd_nxt - snd_una) before this ACK: RFC 5681's FlightSize.
    pub flight_before: u64,
    /// One past the highest sequence number ever sent.
    pub high_sent: u64,
    /// Transmission time of the data packet that caused this ACK (its echo).
    pub echo_tx: SimTime,
    /// Sequence number of the data packet that caused this ACK.
    pub echo_seq: u64,
    /// That data packet was a retransmission.
    pub echo_retx: bool,
    /// The ACK echoes a congestion bit.
    pub ce: bool,
    /// The code field echoed from the data packet (`net::packet::pair_code` for paced flows,
    /// a path maximum for algorithms that collect one).
    pub code: u8,
}

/// A retransmission timer expired.
#[derive(Clone, Copy, Debug, Default)]
pub struct TimeoutInfo {
    pub now: SimTime,
    /// Packets outstanding when it expired.
    pub flight: u64,
    /// One past the highest sequence number ever sent.
    pub high_sent: u64,
    /// The sequence number that timed out (the oldest one, when several did).
    pub seq: u64,
    /// A timer expired before and no new ACK has come since. With the single timer this is the
    /// same oldest packet timing out again (RFC 5681 §3.1 then holds ssthresh); with per-packet
    /// timers not necessarily (another packet's timer can expire first), and no algorithm
    /// that reads it runs them.
    pub repeated: bool,
}

/// A retransmission that explicit feedback asks for: the packet, and whether it goes at once
/// whatever the window (as a fast retransmission does) or waits, ahead of new data, until the
/// window has room (fewer packets outstanding than the window).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Resend {
    pub seq: u64,
    pub wait_for_window: bool,
}

/// Explicit feedback from a router (a control packet that reached the source).
#[derive(Clone, Copy, Debug, Default)]
pub struct Feedback {
    pub now: SimTime,
    /// The sequence number the router named (the packet it dropped), or None for feedback
    /// about congestion in general.
    pub seq: Option<u64>,
    /// A small code the router set (the discipline's own meaning).
    pub code: u8,
    /// Packets the source had outstanding when the feedback arrived.
    pub outstanding: u64,
    /// The node whose router sent it.
    pub router: u32,
}

/// A pacing rule: new data leaves in bursts of `burst` packets sent back to back, and a burst
/// may start no sooner than `interval` after the start of the previous one. Packet-pair sends
/// pairs (`burst` = 2) every 2/rate. Retransmissions are not paced.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Pacing {
    pub interval: SimTime,
    pub burst: u32,
    /// When the window has room for part of a burst only, send that part (unpaired) rather
    /// than wait for room for the whole burst.
    pub fill_window: bool,
}

/// A one-off change to a paced flow's burst schedule, taken by the sender once
/// ([`CongestionControl::take_pace_adjust`]). Both parts add to what the sender still has
/// pending from earlier adjustments.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PaceAdjust {
    /// Leave this many of the coming burst slots empty: the next burst may start no sooner
    /// than (1 + skip) intervals after the previous one started (the interval as it is then).
    pub skip: u32,
    /// Send this many packets at once, back to back and unpaired, outside the slot schedule
    /// (as the window and the application allow; what they hold back goes when they allow).
    pub extra: u32,
}

/// An algorithm's answer to a new ACK.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AckResponse {
    Nothing,
    /// Retransmit the first unacknowledged packet now (NewReno's partial ACK).
    RetransmitFirstUnacked,
    /// As `RetransmitFirstUnacked`, and leave the retransmission timer running as it is
    /// rather than restart it for the new ACK (NewReno's "Impatient" partial ACKs after the
    /// first, RFC 6582 §4).
    RetransmitKeepTimer,
}

pub trait CongestionControl {
    /// Congestion window in packets. The sender uses min(floor(cwnd), max_window), at least 1
    /// unless the algorithm may hold its window at zero ([`Algorithm::MAY_HOLD`]).
    fn cwnd(&self) -> f64;
    /// Slow-start threshold in packets (infinite where the algorithm has none).
    fn ssthresh(&self) -> f64 {
        f64::INFINITY
    }
    /// A cumulative ACK advanced the window.
    fn on_new_ack(&mut self, ack: &AckInfo) -> AckResponse;
    /// The `count`-th consecutive duplicate ACK; true asks for a fast retransmission.
    fn on_dup_ack(&mut self, count: u32, ack: &AckInfo) -> bool;
    /// A retransmission timer expired.
    fn on_timeout(&mut self, t: &TimeoutInfo);
    /// Every ACK, new or duplicate, with its echoed congestion bit (explicit-feedback schemes).
    fn on_ack_signal(&mut self, _ce: bool) {}
    /// An echoed ECN mark, for algorithms whose sender has `ecn` (RFC 3168), at most once a
    /// window: the sender asks again only once the data outstanding at the last reduction is
    /// acknowledged. True when the algorithm reduced its window.
    fn on_ecn(&mut self, _ack: &AckInfo) -> bool {
        false
    }
    /// Every ACK, new or duplicate, before `on_new_ack` / `on_dup_ack`, with all the sender
    /// knows (echoed code and transmission time: packet-pair). The default passes the echoed
    /// congestion bit to `on_ack_signal`.
    #[inline]
    fn on_ack_info(&mut self, ack: &AckInfo) {
        self.on_ack_signal(ack.ce)
    }
    /// Explicit feedback from a router reached the source. `Some` asks the sender to
    /// retransmit the packet it names (SEIF: the packet the router says it dropped).
    fn on_feedback(&mut self, _fb: &Feedback) -> Option<Resend> {
        None
    }
    /// The code to put on the data packet `seq` about to be sent (called only for algorithms
    /// with [`Algorithm::MARKS_PACKETS`]); `code` is what the sender would put there (a pair
    /// mark of a paced flow, else 0).
    #[inline]
    fn code_for(&mut self, _seq: u64, _retransmission: bool, code: u8) -> u8 {
        code
    }
    /// Whether the data packet `seq` about to be sent at `now` is a probe (`flags::PROBE`, which routers
    /// that collect a path value look for: JCC). Called, like `code_for` and right after it,
    /// only for algorithms with [`Algorithm::MARKS_PACKETS`].
    #[inline]
    fn probe_for(&mut self, _seq: u64, _retransmission: bool, _now: SimTime) -> bool {
        false
    }
    /// True if this algorithm ever paces: the sender then keeps pacing state for the flow.
    fn uses_pacing(&self) -> bool {
        false
    }
    /// The pacing rule now, or None to send as the window allows.
    fn pacing(&self) -> Option<Pacing> {
        None
    }
    /// A paced flow's one-off schedule change since the last call (called by the sender after
    /// every ACK, for paced flows only); the default is none.
    #[inline]
    fn take_pace_adjust(&mut self) -> PaceAdjust {
        PaceAdjust::default()
    }
    /// One past the highest sequence sent at the last loss response (NewReno's `recover`):
    /// the flow counts as recovering from that loss until its ACKs pass it. 0 for
    /// algorithms without the notion. Read by `pacing_rtt = "ns2_wei"`.
    fn recover_point(&self) -> u64 {
        0
    }
    /// The algorithm's own average RTT, if it keeps one (FAST's avgRTT): what SACK recovery's
    /// `rescue` rule measures against instead of the timer's smoothed RTT.
    fn average_rtt(&self) -> Option<SimTime> {
        None
    }
    /// The values of [`Algorithm::TRACE_COLUMNS`], in that order (NaN where unknown). Read by
    /// the trace sampler only: cheap, and it must not change the state.
    fn trace_values(&self, _out: &mut [f64]) {}
    /// Keep the last `capacity` records of [`Algorithm::EVENT_LOG`] taken since the log was
    /// last drained (0 turns the log off). Algorithms without a log ignore it.
    fn enable_event_log(&mut self, _capacity: usize) {}
    /// Hand every logged record to `out` (its time, its ordinal number counted from 1 over the
    /// flow's life, and its values in [`EventLog::columns`] order), oldest first, and empty
    /// the log.
    fn drain_event_log(&mut self, _out: &mut dyn FnMut(SimTime, u64, &[f64])) {}
}

/// An algorithm's log of events kept as they happen (packet-pair: its probes).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EventLog {
    /// Name of the results table the records go to (the same for algorithms that share it).
    pub table: &'static str,
    /// Name of the column that numbers the records.
    pub index: &'static str,
    pub columns: &'static [&'static str],
}

/// What an algorithm says about itself, once; see the module header.
pub trait Algorithm: CongestionControl + Sized {
    /// The name scenarios use (`cc = "..."`).
    const NAME: &'static str;
    /// One line for listings: what it is and where it comes from.
    const SUMMARY: &'static str;
    /// Its parameters, decoded (defaults where a scenario is silent).
    type Config: Clone + std::fmt::Debug + PartialEq;
    /// Trace columns of its own (see [`CongestionControl::trace_values`]).
    const TRACE_COLUMNS: &'static [&'static str] = &[];
    /// An event log of its own, if any (see [`CongestionControl::drain_event_log`]).
    const EVENT_LOG: Option<EventLog> = None;
    /// The sender asks [`CongestionControl::code_for`] and [`CongestionControl::probe_for`]
    /// for every data packet.
    const MARKS_PACKETS: bool = false;
    /// `cwnd()` below 1 holds the window at zero (no new data) instead of counting as 1.
    const MAY_HOLD: bool = false;
    /// The sender settings it comes with.
    fn sender_defaults() -> SenderConfig;
    /// Read its parameters from a flow's `params`, after the sender's common ones (already in
    /// `sender`); its own timer parameters (`beta`, `rto_k`...) adjust `sender`. Ask for every
    /// parameter whatever the values: the same function makes the listing.
    fn decode(p: &mut Params, sender: &mut SenderConfig) -> Result<Self::Config>;
    /// The algorithm for a flow with this maximum window.
    fn build(cfg: &Self::Config, max_window: u32) -> Self;
}

#[macro_use]
mod registry;
use registry::decode_with;
pub use registry::{algorithm, AlgorithmInfo};

// The registry: one line per algorithm.
algorithms! {
    Generic: generic::Generic,
    Jk: jk::Jk,
    Reno: reno::Reno,
    NewReno: newreno::NewReno,
    Sack: sack::Sack,
    Dec: dec::Dec boxed,
    PacketPair: pp::PacketPair boxed,
    PacketPair2: pp2::Pp2 boxed,
    SourceQuench: sq::Sq,
    Seif: seif::Seif boxed,
    Vegas: vegas::Vegas boxed,
    Tris: tris::Tris boxed,
    Jcc: jcc::Jcc boxed,
    Fast: fast::Fast boxed,
    Cubic: cubic::Cubic boxed,
    Bic: bic::Bic boxed,
    Stcp: stcp::Stcp boxed,
    Hstcp: hstcp::Hstcp boxed,
    Htcp: htcp::Htcp boxed,
    Hybla: hybla::Hybla boxed,
    Westwood: westwood::Westwood boxed,
    #[cfg(test)]
    TestRecorder: test_recorder::Recorder boxed,
}

// Parts shared by several algorithms.
pub mod fuzzy;
pub mod kalman;
pub mod loss;
pub mod probe;
pub mod router_choice;
pub mod sack_aimd;
pub mod sack_loss;

impl CongestionControl for Cc {
    #[inline]
    fn cwnd(&self) -> f64 {
        dispatch!(self, c => c.cwnd())
    }
    #[inline]
    fn ssthresh(&self) -> f64 {
        dispatch!(self, c => c.ssthresh())
    }
    #[inline]
    fn on_new_ack(&mut self, ack: &AckInfo) -> AckResponse {
        dispatch!(self, c => c.on_new_ack(ack))
    }
    #[inline]
    fn on_dup_ack(&mut self, count: u32, ack: &AckInfo) -> bool {
        dispatch!(self, c => c.on_dup_ack(count, ack))
    }
    #[inline]
    fn on_timeout(&mut self, t: &TimeoutInfo) {
        dispatch!(self, c => c.on_timeout(t))
    }
    #[inline]
    fn on_ack_signal(&mut self, ce: bool) {
        dispatch!(self, c => c.on_ack_signal(ce))
    }
    fn on_ecn(&mut self, ack: &AckInfo) -> bool {
        dispatch!(self, c => c.on_ecn(ack))
    }
    #[inline]
    fn on_ack_info(&mut self, ack: &AckInfo) {
        dispatch!(self, c => c.on_ack_info(ack))
    }
    fn on_feedback(&mut self, fb: &Feedback) -> Option<Resend> {
        dispatch!(self, c => c.on_feedback(fb))
    }
    #[inline]
    fn code_for(&mut self, seq: u64, retransmission: bool, code: u8) -> u8 {
        dispatch!(self, c => c.code_for(seq, retransmission, code))
    }
    #[inline]
    fn probe_for(&mut self, seq: u64, retransmission: bool, now: SimTime) -> bool {
        dispatch!(self, c => c.probe_for(seq, retransmission, now))
    }
    #[inline]
    fn uses_pacing(&self) -> bool {
        dispatch!(self, c => c.uses_pacing())
    }
    #[inline]
    fn pacing(&self) -> Option<Pacing> {
        dispatch!(self, c => c.pacing())
    }
    #[inline]
    fn take_pace_adjust(&mut self) -> PaceAdjust {
        dispatch!(self, c => c.take_pace_adjust())
    }
    #[inline]
    fn recover_point(&self) -> u64 {
        dispatch!(self, c => c.recover_point())
    }
    fn average_rtt(&self) -> Option<SimTime> {
        dispatch!(self, c => c.average_rtt())
    }
    fn trace_values(&self, out: &mut [f64]) {
        dispatch!(self, c => c.trace_values(out))
    }
    fn enable_event_log(&mut self, capacity: usize) {
        dispatch!(self, c => c.enable_event_log(capacity))
    }
    fn drain_event_log(&mut self, out: &mut dyn FnMut(SimTime, u64, &[f64])) {
        dispatch!(self, c => c.drain_event_log(out))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_algorithm_has_a_unique_name_and_decodes_its_defaults() {
        let mut names: Vec<&str> = ALGORITHMS.iter().map(|a| a.name).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), ALGORITHMS.len(), "two algorithms share a name");
        for a in ALGORITHMS {
            let docs = a.params();
            assert!(docs.iter().any(|d| d.name == "initial_rto"), "{}: the sender's parameters are listed", a.name);
            let (cfg, sender) = (a.decode)(&mut Params::new(crate::scenario::decode::Obj::empty("params"))).unwrap();
            assert_eq!(cfg.name(), a.name);
            assert_eq!(sender, (a.sender_defaults)(), "{}: no parameters, the sender's defaults", a.name);
            let cc = cfg.build(10);
            assert_eq!(cc.name(), a.name);
            assert!(cc.cwnd() >= 0.0);
        }
        assert!(algorithm("jk").is_some() && algorithm("none").is_none());
    }
}
