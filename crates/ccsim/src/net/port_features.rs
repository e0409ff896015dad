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

use super::{IdRing, PacketArena, PacketId};
use crate::queue::{BufferLimit, QueueDiscipline};
use crate::sim::rng::Rng;
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
    /// Control packets dropped for want of room, and packets lost on the line.
    pub control_drops: u64,
    pub lost: u64,
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
        let p = arena.get(pkt);
        self.time_s.push(crate::sim::time::to_secs(now));
        self.flow.push(p.flow);
        self.class.push(p.class);
        self.kind.push(p.kind as u8);
        self.size.push(p.size);
        self.wait_s.push(crate::sim::time::to_secs(now.saturating_sub(p.arrive_at)));
    }
}
