//! An output port: queue discipline + transmitter + propagation pipe.
//!
//! One port per link direction. The transmitter is store-and-forward: a packet occupies the
//! line for size/bandwidth, then spends the link's propagation delay in the pipe. Packets
//! leave a pipe in the order they entered it, so a pipe is a FIFO with at most one pending
//! event (its head's arrival).
//!
//! The transmitter is lazy: a packet that finds the line idle starts at once and its
//! completion needs no event; a `TxDone` event is scheduled only when packets are waiting
//! behind the one in service. Uncongested ports (access links, ACK paths) therefore cost one
//! event per packet, the pipe arrival.

use crate::net::{PacketArena, PacketId};
use crate::queue::{InService, Qdisc, QueueDiscipline, Verdict};
use crate::sim::{time::tx_time, EventKind, EventQueue, SimTime};
use std::collections::VecDeque;

#[derive(Clone, Copy, Debug, Default)]
pub struct PortStats {
    pub departures: u64,
    pub bytes_departed: u64,
    pub drops: u64,
    pub busy_ps: u64,
    pub max_queue_packets: u32,
    pub max_queue_bytes: u64,
}

pub struct Port {
    pub from: u32,
    pub to: u32,
    pub bandwidth_bps: u64,
    pub delay: SimTime,
    pub qdisc: Qdisc,
    busy_until: SimTime,
    in_service_bytes: u32,
    txdone_pending: bool,
    /// Packets on the line, oldest first; each carries its arrival time.
    pipe: VecDeque<PacketId>,
    pub stats: PortStats,
}

impl Port {
    pub fn new(from: u32, to: u32, bandwidth_bps: u64, delay: SimTime, qdisc: Qdisc) -> Self {
        Port {
            from,
            to,
            bandwidth_bps,
            delay,
            qdisc,
            busy_until: 0,
            in_service_bytes: 0,
            txdone_pending: false,
            pipe: VecDeque::new(),
            stats: PortStats::default(),
        }
    }

    #[inline]
    fn start_tx(&mut self, pkt: PacketId, arena: &mut PacketArena, now: SimTime, events: &mut EventQueue, id: u32) {
        let size = arena.get(pkt).size;
        let done = now + tx_time(size, self.bandwidth_bps);
        self.busy_until = done;
        self.in_service_bytes = size;
        self.stats.departures += 1;
        self.stats.bytes_departed += size as u64;
        self.stats.busy_ps += done - now;
        let arrive = done + self.delay;
        if self.pipe.is_empty() {
            events.schedule(arrive, EventKind::PipeArrival, id);
        }
        arena.get_mut(pkt).arrive_at = arrive;
        self.pipe.push_back(pkt);
    }

    /// A packet arrives to be sent out of this port. Returns the packet dropped, if any
    /// (the arriving one or, for some disciplines, one already queued).
    #[inline]
    pub fn receive(&mut self, pkt: PacketId, arena: &mut PacketArena, now: SimTime, events: &mut EventQueue, id: u32) -> Option<PacketId> {
        let busy = now < self.busy_until;
        let tx = InService { bytes: if busy { Some(self.in_service_bytes) } else { None } };
        let dropped = match self.qdisc.enqueue(pkt, arena, now, tx) {
            Verdict::Accepted => None,
            Verdict::Dropped(d) => {
                self.stats.drops += 1;
                Some(d)
            }
        };
        let qp = self.qdisc.len_packets();
        if qp > self.stats.max_queue_packets {
            self.stats.max_queue_packets = qp;
        }
        let qb = self.qdisc.len_bytes();
        if qb > self.stats.max_queue_bytes {
            self.stats.max_queue_bytes = qb;
        }
        if !self.txdone_pending {
            if busy {
                events.schedule(self.busy_until, EventKind::TxDone, id);
                self.txdone_pending = true;
            } else if let Some(p) = self.qdisc.dequeue(arena, now) {
                self.start_tx(p, arena, now, events, id);
                if self.qdisc.len_packets() > 0 {
                    events.schedule(self.busy_until, EventKind::TxDone, id);
                    self.txdone_pending = true;
                }
            }
        }
        dropped
    }

    /// The transmitter finished a packet and packets are waiting.
    #[inline]
    pub fn on_tx_done(&mut self, arena: &mut PacketArena, now: SimTime, events: &mut EventQueue, id: u32) {
        self.txdone_pending = false;
        if let Some(p) = self.qdisc.dequeue(arena, now) {
            self.start_tx(p, arena, now, events, id);
            if self.qdisc.len_packets() > 0 {
                events.schedule(self.busy_until, EventKind::TxDone, id);
                self.txdone_pending = true;
            }
        }
    }

    /// The head of the pipe reaches the far node: returns it and re-arms the pipe's event.
    #[inline]
    pub fn on_pipe_arrival(&mut self, arena: &PacketArena, events: &mut EventQueue, id: u32) -> PacketId {
        let p = self.pipe.pop_front().expect("pipe event with empty pipe");
        if let Some(&next) = self.pipe.front() {
            events.schedule(arena.get(next).arrive_at, EventKind::PipeArrival, id);
        }
        p
    }

    /// Queued packets (not counting the one in service).
    pub fn queue_packets(&self) -> u32 {
        self.qdisc.len_packets()
    }

    pub fn queue_bytes(&self) -> u64 {
        self.qdisc.len_bytes()
    }

    /// Heap bytes held by the queue and the pipe.
    pub fn memory_bytes(&self) -> usize {
        self.qdisc.memory_bytes() + self.pipe.capacity() * std::mem::size_of::<PacketId>()
    }

    /// Every packet this port holds: queued, in service, or in the pipe (the in-service
    /// packet is already in the pipe, since it was pushed there when it started).
    pub fn for_each_packet(&self, f: &mut dyn FnMut(PacketId)) {
        self.qdisc.for_each(f);
        for &p in &self.pipe {
            f(p);
        }
    }
}
