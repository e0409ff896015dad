//! The port's rarely used features, kept in one boxed [`PortExtras`] so that the ordinary
//! port, of which a large topology has hundreds of thousands, stays small; each is switched
//! on by a flag in the port (one predictable test on the per-packet path, and nothing more,
//! when it is off).
//!
//! - Preemption and processing jitter (`port.rs`).
//! - **The control lane**: control packets (a router's feedback to a source: SEIF, Source
//!   Quench) wait in a FIFO of their own that the transmitter serves ahead of the queue
//!   discipline: the priority the sources give feedback ("served at the head of each queue",
//!   Liang 1991 §1.8.4). A control packet is admitted when the port's buffer, counted as the
//!   discipline counts it, has room for it beside what the discipline and the lane hold;
//!   otherwise it is dropped and counted. The discipline never sees control packets, so
//!   disciplines that model their line (DECbit's averaging, FQ's round number) do not count
//!   the line time a control packet takes.
//! - **Bernoulli loss**: each packet leaving the line is lost with probability p, drawn from
//!   the port's own random stream (a lossy link).
//! - **Queue accounting**: the time integral of the queue length in packets and bytes, for the
//!   per-interval mean queue of port statistics.
//! - **Departure log**: every packet that starts transmission, with its flow, class, kind,
//!   size and the time it waited at this port.

use super::{feature, set_bit, state, Port};
use crate::net::{IdRing, PacketArena, PacketId};
use crate::queue::{BufferLimit, QueueDiscipline};
use crate::sim::rng::Rng;
use crate::sim::EventQueue;
use crate::sim::SimTime;

#[derive(Default)]
pub(super) struct PortExtras {
    /// Preempted packets and the transmission time each has left (preemptive ports only).
    pub resume: Vec<(PacketId, SimTime)>,
    /// Processing jitter (0 = none) and its random stream.
    pub jitter: SimTime,
    pub jitter_rng: Option<Rng>,
    pub lane: Option<ControlLane>,
    /// Loss probability and its stream.
    pub loss: Option<(f64, Rng)>,
    pub accounting: QueueAccounting,
    pub departures: Option<DepartureLog>,
    /// The channels of a port that has several (`trunk.rs`).
    pub trunk: Option<Box<super::trunk::Trunk>>,
    /// Control packets dropped for want of room, and packets lost on the line.
    pub control_drops: u64,
    pub lost: u64,
    /// When the armed `PortWake` fires, for a discipline that holds packets on an idle line
    /// (`service.rs`); None: none armed.
    pub wake_at: Option<SimTime>,
}

/// The control lane: see the module header.
pub(super) struct ControlLane {
    pub queue: IdRing,
    pub bytes: u64,
    /// The port's buffer and whether the packet on the line occupies it.
    pub limit: BufferLimit,
    pub count_in_service: bool,
}

impl ControlLane {
    /// Room for a control packet of `size` bytes beside what the discipline holds and the
    /// packet in service (`in_service`: its bytes, if the line is busy).
    pub fn has_room(&self, q: &impl QueueDiscipline, size: u32, in_service: Option<u32>) -> bool {
        let (svc_p, svc_b) = match (self.count_in_service, in_service) {
            (true, Some(b)) => (1, b as u64),
            _ => (0, 0),
        };
        let packets = q.len_packets() as u64 + self.queue.len() as u64 + svc_p;
        let bytes = q.len_bytes() + self.bytes + svc_b + size as u64;
        match self.limit {
            BufferLimit::Packets(n) => packets < n as u64,
            BufferLimit::Bytes(b) => bytes <= b,
            BufferLimit::Unlimited => true,
        }
    }
}

/// Time integrals of the queue length (packets waiting, not the one on the line) since the
/// start: their differences over an interval, divided by its length, are the mean queue.
#[derive(Clone, Copy, Debug, Default)]
pub struct QueueAccounting {
    pub since: SimTime,
    /// Packet-picoseconds and byte-picoseconds, as f64 (a long run overflows integers).
    pub packet_ps: f64,
    pub byte_ps: f64,
}

impl QueueAccounting {
    /// Add the time since the last change at the lengths held over it.
    #[inline]
    pub fn advance(&mut self, now: SimTime, packets: u32, bytes: u64) {
        let dt = now.saturating_sub(self.since) as f64;
        self.packet_ps += packets as f64 * dt;
        self.byte_ps += bytes as f64 * dt;
        self.since = now;
    }
}

/// Every packet that started transmission at a port, stored by column.
#[derive(Clone, Debug, Default)]
pub struct DepartureLog {
    pub time_s: Vec<f64>,
    pub flow: Vec<u32>,
    pub class: Vec<u8>,
    /// 0 data, 1 ACK, 2 control.
    pub kind: Vec<u8>,
    pub size: Vec<u32>,
    /// Time from arrival at the port to the start of transmission, seconds.
    pub wait_s: Vec<f64>,
    /// Departures before this instant are not recorded (`[measure] departures_from`).
    pub from: SimTime,
}

impl DepartureLog {
    pub const ROW_BYTES: usize = 8 + 4 + 1 + 1 + 4 + 8;

    pub fn len(&self) -> usize {
        self.time_s.len()
    }

    pub fn is_empty(&self) -> bool {
        self.time_s.is_empty()
    }

    #[cold]
    pub fn record(&mut self, arena: &PacketArena, pkt: PacketId, now: SimTime) {
        if now < self.from {
            return;
        }
        let p = arena.get(pkt);
        self.time_s.push(crate::sim::time::to_secs(now));
        self.flow.push(p.flow);
        self.class.push(p.class);
        self.kind.push(p.kind as u8);
        self.size.push(p.size);
        self.wait_s.push(crate::sim::time::to_secs(now.saturating_sub(p.arrive_at)));
    }
}

impl Port {
    /// Give the port a control lane: its buffer is `limit` (as the discipline counts it).
    pub fn enable_control_lane(&mut self, limit: BufferLimit, count_in_service: bool) {
        self.extras_mut().lane = Some(ControlLane { queue: IdRing::new(), bytes: 0, limit, count_in_service });
    }

    /// The discipline raises signals: the world collects them after each arrival.
    pub fn set_signals(&mut self, on: bool) {
        self.set_feature(feature::SIGNALS, on);
    }

    /// The discipline raises signals.
    #[inline]
    pub fn signals(&self) -> bool {
        self.features & feature::SIGNALS != 0
    }

    /// Lose each packet leaving the line with probability `p`, drawn from `rng`.
    pub fn set_loss(&mut self, p: f64, rng: Rng) {
        self.extras_mut().loss = (p > 0.0).then_some((p, rng));
        self.set_feature(feature::LOSSY, p > 0.0);
    }

    /// The port loses packets (`lose` decides for each).
    #[inline]
    pub fn lossy(&self) -> bool {
        self.features & feature::LOSSY != 0
    }

    /// Whether the packet now leaving the pipe is lost (lossy ports only).
    #[cold]
    pub fn lose(&mut self) -> bool {
        let e = self.extras.as_deref_mut().expect("a lossy port has extras");
        let lost = e.loss.as_mut().is_some_and(|(p, rng)| rng.uniform_open0() <= *p);
        e.lost += lost as u64;
        lost
    }

    /// Integrate the queue length over time (for port statistics per interval).
    pub fn enable_accounting(&mut self) {
        self.extras_mut();
        self.set_feature(feature::ACCOUNTING, true);
    }

    /// The queue's time integrals up to `now` (zero unless accounting is on).
    pub fn accounting(&mut self, now: SimTime) -> QueueAccounting {
        self.account(now);
        self.extras.as_deref().map(|e| e.accounting).unwrap_or_default()
    }

    #[inline(always)]
    pub(super) fn account(&mut self, now: SimTime) {
        if self.features & feature::ACCOUNTING != 0 {
            self.advance_accounting(now);
        }
    }

    /// Out of the per-packet path's code: only the ports with statistics per interval
    /// account, and inlined at each of its call sites it made the path longer for all.
    #[cold]
    #[inline(never)]
    fn advance_accounting(&mut self, now: SimTime) {
        let (p, b) = (self.queue_packets(), self.queue_bytes());
        if let Some(e) = self.extras.as_deref_mut() {
            e.accounting.advance(now, p, b);
        }
    }

    /// Log every transmission start (the departure trace).
    pub fn enable_departure_log(&mut self, from: SimTime) {
        self.extras_mut().departures = Some(DepartureLog { from, ..DepartureLog::default() });
        self.set_feature(feature::DEPARTURES, true);
    }

    /// The departures logged so far.
    pub fn departure_log(&self) -> Option<&DepartureLog> {
        self.extras.as_deref().and_then(|e| e.departures.as_ref())
    }

    /// The departures logged so far, taken out of the port.
    pub fn take_departures(&mut self) -> Option<DepartureLog> {
        self.extras.as_deref_mut().and_then(|e| e.departures.take())
    }

    /// The port's cumulative counters now (queue integrals included: accounting must be on
    /// for them).
    pub fn snapshot(&mut self, now: SimTime) -> crate::measure::PortSnapshot {
        let acc = self.accounting(now);
        let (control_drops, lost) = self.control_drops_and_losses();
        crate::measure::PortSnapshot {
            channels: self.channels(),
            departures: self.stats.departures,
            bytes: self.stats.bytes_departed,
            busy_ps: self.stats.busy_ps,
            drops: self.stats.drops,
            marks: self.qdisc.marks(),
            control_drops,
            lost,
            packet_ps: acc.packet_ps,
            byte_ps: acc.byte_ps,
        }
    }

    /// Control packets dropped for want of room, and packets lost on the line.
    pub fn control_drops_and_losses(&self) -> (u64, u64) {
        self.extras.as_deref().map_or((0, 0), |e| (e.control_drops, e.lost))
    }

    pub(super) fn set_feature(&mut self, bit: u8, on: bool) {
        if on {
            self.features |= bit;
        } else {
            self.features &= !bit;
        }
    }

    #[cold]
    pub(super) fn lane_pop(&mut self, arena: &PacketArena, now: SimTime) -> Option<PacketId> {
        let lane = self.extras.as_deref_mut().and_then(|e| e.lane.as_mut()).expect("a waiting lane");
        let p = lane.queue.pop_front()?;
        let size = arena.get(p).size;
        lane.bytes -= size as u64;
        set_bit(&mut self.state, state::LANE_WAITING, !lane.queue.is_empty());
        self.qdisc.line_taken(now, size);
        Some(p)
    }

    /// A control packet arrives to be sent out of this port: it joins the control lane if
    /// the buffer has room. Returns it if it was dropped.
    #[cold]
    pub fn receive_control(
        &mut self,
        pkt: PacketId,
        arena: &mut PacketArena,
        now: SimTime,
        events: &mut EventQueue,
        id: u32,
    ) -> Option<PacketId> {
        self.account(now);
        let busy = now < self.busy_until;
        let in_service = busy.then_some(self.in_service_bytes);
        let size = arena.get(pkt).size;
        let qdisc = &self.qdisc;
        let e = self.extras.as_deref_mut().expect("ports carrying control packets have a lane");
        let lane = e.lane.as_mut().expect("ports carrying control packets have a lane");
        if !lane.has_room(qdisc, size, in_service) {
            e.control_drops += 1;
            return Some(pkt);
        }
        lane.queue.push_back(pkt);
        lane.bytes += size as u64;
        self.state |= state::LANE_WAITING;
        self.kick(busy, arena, now, events, id);
        None
    }
}
