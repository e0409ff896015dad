//! Congestion control: one file per algorithm, all behind [`CongestionControl`].
//!
//! The callback set follows Linux's `tcp_congestion_ops` and quinn-proto's `Controller`:
//! the sender reports new ACKs, duplicate ACKs, timeouts and explicit congestion signals;
//! the algorithm changes its window and may ask for a retransmission. Sequence space,
//! retransmission, RTT estimation and timers belong to the sender, not to the algorithm.
//!
//! Adding an algorithm: one file implementing the trait, one variant in [`Cc`] and one line in
//! `dispatch!`, and its name in `scenario::schema`.
//!
//! Rate-based algorithms pace beside the window: [`CongestionControl::pacing`] returns a burst
//! size and an interval between burst starts, and the sender releases new data only in such
//! bursts (the first two packets of a burst are marked as a probe pair, see
//! `net::packet::pair_code`). Window algorithms return `None` and are not affected.
//! One-off changes to the burst schedule (chapter 4's 2P: leave slots empty, send an unpaired
//! burst at once) are handed to the sender once each through
//! [`CongestionControl::take_pace_adjust`], which the sender calls after every ACK of a paced
//! flow only.
//! An algorithm whose state is large goes into the enum boxed, so window flows stay small.
//!
//! Introspection for traces: [`CongestionControl::probe_state`] returns a rate-based
//! algorithm's estimator state (last probe, predicted rate, sending rate, fuzzy gain); window
//! algorithms return `None`. It is read only by the periodic trace sampler, never on the
//! per-packet path. An algorithm may also keep a small log of its probes as they happen
//! ([`CongestionControl::enable_probe_log`], [`CongestionControl::drain_probe_log`]); the world
//! turns it on for traced flows only and drains it at every trace sample.

pub mod dec;
pub mod fuzzy;
pub mod generic;
pub mod jk;
pub mod kalman;
pub mod newreno;
pub mod pp;
pub mod pp2;
pub mod probe;
pub mod reno;

use super::rtt::RtoConfig;
use super::sender::TimerMode;
use crate::sim::SimTime;

/// What the sender knows when an ACK arrives, passed to the algorithm.
#[derive(Clone, Copy, Debug)]
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
    /// The ACK echoes a congestion bit.
    pub ce: bool,
    /// The code field echoed from the data packet (`net::packet::pair_code` for paced flows).
    pub code: u8,
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
}

/// A rate-based algorithm's estimator state at one instant, for traces. NaN where unknown
/// (before the first probe; `alpha` when the estimator is not the fuzzy predictor).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ProbeState {
    /// The last probe: the gap between the two ACKs of the last pair, seconds.
    pub probe_gap_s: f64,
    /// The predicted bottleneck rate μ̂ after the last probe, packets/s.
    pub rate_est_pps: f64,
    /// The sending rate λ, packets/s (NaN until the control law runs).
    pub send_rate_pps: f64,
    /// The fuzzy predictor's averaging constant α (the weight of the history), in [0, 1].
    pub alpha: f64,
}

impl ProbeState {
    pub const UNKNOWN: ProbeState = ProbeState { probe_gap_s: f64::NAN, rate_est_pps: f64::NAN, send_rate_pps: f64::NAN, alpha: f64::NAN };
}

/// One probe as it happened: its time, its ordinal number (1 for the first probe of the flow;
/// a gap in the numbers of a drained log shows probes the log had no room for) and the state
/// right after it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ProbeRecord {
    pub time: SimTime,
    pub index: u64,
    pub state: ProbeState,
}

/// Timer and estimator defaults that come with an algorithm (each overridable by parameters).
#[derive(Clone, Copy, Debug)]
pub struct TransportDefaults {
    pub rto: RtoConfig,
    pub timers: TimerMode,
}

pub trait CongestionControl {
    /// Congestion window in packets (the sender uses min(floor(cwnd), max_window), at least 1).
    fn cwnd(&self) -> f64;
    /// Slow-start threshold in packets (infinite where the algorithm has none).
    fn ssthresh(&self) -> f64 {
        f64::INFINITY
    }
    /// A cumulative ACK advanced the window.
    fn on_new_ack(&mut self, ack: &AckInfo) -> AckResponse;
    /// The `count`-th consecutive duplicate ACK; true asks for a fast retransmission.
    fn on_dup_ack(&mut self, count: u32, ack: &AckInfo) -> bool;
    /// The retransmission timer expired with `flight` packets outstanding.
    fn on_timeout(&mut self, flight: u64, high_sent: u64);
    /// Every ACK, new or duplicate, with its echoed congestion bit (explicit-feedback schemes).
    fn on_ack_signal(&mut self, _ce: bool) {}
    /// Every ACK, new or duplicate, before `on_new_ack` / `on_dup_ack`, with all the sender
    /// knows (echoed code and transmission time: packet-pair). The default passes the echoed
    /// congestion bit to `on_ack_signal`.
    #[inline]
    fn on_ack_info(&mut self, ack: &AckInfo) {
        self.on_ack_signal(ack.ce)
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
    /// The estimator state of a probing algorithm, for traces; None for window algorithms.
    /// Read by the trace sampler only: it must be cheap and must not change the state.
    fn probe_state(&self) -> Option<ProbeState> {
        None
    }
    /// Keep the last `capacity` probes taken since the log was last drained (0 turns the log
    /// off). Algorithms without probes ignore it.
    fn enable_probe_log(&mut self, _capacity: usize) {}
    /// Hand every logged probe to `out`, oldest first, and empty the log.
    fn drain_probe_log(&mut self, _out: &mut dyn FnMut(&ProbeRecord)) {}
}

/// The algorithms, as an enum so the per-ACK path is a `match`, not a virtual call.
#[derive(Clone, Debug)]
pub enum Cc {
    Generic(generic::Generic),
    Jk(jk::Jk),
    Reno(reno::Reno),
    NewReno(newreno::NewReno),
    /// Boxed: DECbit's window state (80 bytes) would otherwise set the size of every flow's
    /// controller, and DEC sources are rare outside Keshav's scenarios.
    Dec(Box<dec::Dec>),
    /// Boxed: its estimator state is large, and most flows are window flows.
    PacketPair(Box<pp::PacketPair>),
    /// Chapter 4's packet-pair 2P, boxed for the same reason.
    PacketPair2(Box<pp2::Pp2>),
}

macro_rules! dispatch {
    ($self:ident, $c:ident => $e:expr) => {
        match $self {
            Cc::Generic($c) => $e,
            Cc::Jk($c) => $e,
            Cc::Reno($c) => $e,
            Cc::NewReno($c) => $e,
            Cc::Dec($c) => $e,
            Cc::PacketPair($c) => $e,
            Cc::PacketPair2($c) => $e,
        }
    };
}

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
    fn on_timeout(&mut self, flight: u64, high_sent: u64) {
        dispatch!(self, c => c.on_timeout(flight, high_sent))
    }
    #[inline]
    fn on_ack_signal(&mut self, ce: bool) {
        dispatch!(self, c => c.on_ack_signal(ce))
    }
    #[inline]
    fn on_ack_info(&mut self, ack: &AckInfo) {
        dispatch!(self, c => c.on_ack_info(ack))
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
    fn probe_state(&self) -> Option<ProbeState> {
        dispatch!(self, c => c.probe_state())
    }
    fn enable_probe_log(&mut self, capacity: usize) {
        dispatch!(self, c => c.enable_probe_log(capacity))
    }
    fn drain_probe_log(&mut self, out: &mut dyn FnMut(&ProbeRecord)) {
        dispatch!(self, c => c.drain_probe_log(out))
    }
}

impl Cc {
    pub fn name(&self) -> &'static str {
        match self {
            Cc::Generic(_) => "generic",
            Cc::Jk(_) => "jk",
            Cc::Reno(_) => "reno",
            Cc::NewReno(_) => "newreno",
            Cc::Dec(_) => "dec",
            Cc::PacketPair(_) => "pp",
            Cc::PacketPair2(_) => "pp2",
        }
    }

    /// Heap held by the boxed variants (their state; not the probe logs drained into traces).
    pub fn memory_bytes(&self) -> usize {
        use std::mem::size_of;
        match self {
            Cc::Dec(_) => size_of::<dec::Dec>(),
            Cc::PacketPair(_) => size_of::<pp::PacketPair>(),
            Cc::PacketPair2(_) => size_of::<pp2::Pp2>(),
            _ => 0,
        }
    }

    /// Packet-pair (PP_CTH) with its state boxed.
    pub fn packet_pair(max_window: u32, cfg: pp::PpConfig) -> Cc {
        Cc::PacketPair(Box::new(pp::PacketPair::new(max_window, cfg)))
    }

    /// Chapter 4's packet-pair 2P with its state boxed.
    pub fn packet_pair_2p(max_window: u32, cfg: pp2::Pp2Config) -> Cc {
        Cc::PacketPair2(Box::new(pp2::Pp2::new(max_window, cfg)))
    }
}

/// RFC 5681 eq. (4), shared by Reno and NewReno: ssthresh = max(FlightSize / 2, 2) packets,
/// FlightSize halved and rounded down to whole packets.
pub fn half_flight(flight: u64) -> f64 {
    (flight as f64 / 2.0).floor().max(2.0)
}

/// Shared slow-start / congestion-avoidance step: +1 per ACK below ssthresh, else +1/cwnd;
/// never above `cap` (the maximum window: growth past it could not be used).
#[inline]
pub(crate) fn aimd_increase(cwnd: f64, ssthresh: f64, cap: f64) -> f64 {
    let next = if cwnd < ssthresh { cwnd + 1.0 } else { cwnd + 1.0 / cwnd };
    next.min(cap)
}
