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
//!
//! Two services differ from "start the next packet when the line frees" (`service.rs`): a
//! preemptive FQ port stops the packet on the line when an arrival outbids it, and a
//! non-work-conserving discipline (HRR) may hold packets while the line is idle.
//!
//! A port of several channels (a DWDM output trunk: `trunk.rs`) keeps this port's pipe and
//! statistics but has transmitters of its own: the flag test an arrival and a completion
//! already made (for queue accounting) sends them there, and its pipe checks arrival times
//! as a preemptive port's does.

mod bits;
mod cross;
mod features;
mod service;
mod trunk;

use crate::net::{IdRing, PacketArena, PacketId};
use crate::queue::{InService, Qdisc, QueueDiscipline, Verdict};
use crate::sim::rng::Rng;
use crate::sim::{time::tx_time, EventKind, EventQueue, SimTime};
use bits::{feature, set_bit, state};
use features::PortExtras;
pub use features::{DepartureLog, QueueAccounting};
pub use trunk::{uses_trunk, ChannelBuffers, MAX_CHANNELS};

/// Bit-time unit: picoseconds per second x 8 bits per byte.
const BIT_PS: u64 = 8 * crate::sim::PS_PER_SEC;

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
    /// The line rate as picoseconds per byte when that is a whole number (80 kb/s, 100 Mb/s,
    /// 1 Gb/s and every other rate dividing 8 x 10^12), so a transmission time is a multiply;
    /// otherwise bits per second, and each transmission time a division. See `bandwidth_bps`.
    rate: u64,
    rate_is_ps_per_byte: bool,
    pub delay: SimTime,
    pub qdisc: Qdisc,
    busy_until: SimTime,
    in_service_bytes: u32,
    txdone_pending: bool,
    /// Packets on the line, oldest first; each carries its arrival time.
    pipe: IdRing,
    pub stats: PortStats,
    /// The port's rarely changed yes/no state (`state` bits), one byte: a large topology has
    /// thousands of ports, and four more bools had made each 8 bytes larger. (The two that
    /// every packet reads or writes stay bools, measurably faster: docs/performance.md.)
    state: u8,
    /// Which of the rarely used features are on (`feature` bits).
    features: u8,
    /// State of the rarely used features (preemption, jitter, the control lane, loss,
    /// accounting, the departure log; `features.rs`), boxed so that the ordinary port, of
    /// which a large topology has thousands, stays small.
    extras: Option<Box<PortExtras>>,
}

impl Port {
    pub fn new(from: u32, to: u32, bandwidth_bps: u64, delay: SimTime, qdisc: Qdisc) -> Self {
        let exact = bandwidth_bps > 0 && BIT_PS.is_multiple_of(bandwidth_bps);
        Port {
            from,
            to,
            rate: if exact { BIT_PS / bandwidth_bps } else { bandwidth_bps },
            delay,
            qdisc,
            busy_until: 0,
            in_service_bytes: 0,
            pipe: IdRing::new(),
            stats: PortStats::default(),
            rate_is_ps_per_byte: exact,
            txdone_pending: false,
            state: 0,
            features: 0,
            extras: None,
        }
    }

    /// Whether `bit` of the port's `state` is set.
    #[inline(always)]
    fn is(&self, bit: u8) -> bool {
        self.state & bit != 0
    }

    fn extras_mut(&mut self) -> &mut PortExtras {
        self.extras.get_or_insert_with(Default::default)
    }

    /// Deliver each packet an extra uniform [0, `jitter`) late at the far end, drawn from
    /// `rng`: a random processing delay (as ns-2's `overhead_`) that breaks the exact phase
    /// locks of deterministic runs. It is added after the line, not to it, so the line still
    /// serves at its rate (a queue discipline that tracks the service, such as FQ's round
    /// number, stays exact), and packets keep their order: none overtakes the one ahead.
    pub fn set_jitter(&mut self, jitter: SimTime, rng: Rng) {
        if jitter == 0 && self.extras.is_none() {
            return;
        }
        let e = self.extras_mut();
        e.jitter = jitter;
        e.jitter_rng = (jitter > 0).then_some(rng);
        if jitter > 0 {
            self.state |= state::FIFO_GUARD;
        }
    }

    /// Change the propagation delay from now on (packets already on the line keep theirs; a
    /// shorter delay cannot make a packet overtake the one ahead of it).
    pub fn set_delay(&mut self, delay: SimTime) {
        if delay < self.delay {
            self.state |= state::FIFO_GUARD;
        }
        self.delay = delay;
    }

    /// Line rate, bits per second.
    pub fn bandwidth_bps(&self) -> u64 {
        if self.rate_is_ps_per_byte {
            BIT_PS / self.rate
        } else {
            self.rate
        }
    }

    /// Time to serialise `bytes`: `tx_time`, exactly, without its division on common rates.
    #[inline]
    fn tx_duration(&self, bytes: u32) -> SimTime {
        match (self.rate_is_ps_per_byte, (bytes as u64).checked_mul(self.rate)) {
            (true, Some(t)) => t,
            _ => tx_time(bytes, self.bandwidth_bps()),
        }
    }

    #[inline]
    fn start_tx(&mut self, pkt: PacketId, arena: &mut PacketArena, now: SimTime, events: &mut EventQueue, id: u32) {
        let size = arena.get(pkt).size;
        let mut duration = self.tx_duration(size);
        if let (true, Some(e)) = (self.is(state::PREEMPTIVE), self.extras.as_deref_mut()) {
            if let Some(i) = e.resume.iter().position(|&(p, _)| p == pkt) {
                duration = e.resume.swap_remove(i).1;
            }
        }
        self.count_start(pkt, size, duration, arena, now);
        // Saturating: a run may last 1.6e7 s and a packet's times add up to more (a slow
        // line's transmission, the delay, the jitter); a saturated time lies past the end.
        let done = now.saturating_add(duration);
        self.busy_until = done;
        self.in_service_bytes = size;
        let mut arrive = self.far_end_time(done);
        if self.is(state::FIFO_GUARD) {
            if let Some(last) = self.pipe.back() {
                arrive = arrive.max(arena.get(last).arrive_at);
            }
        }
        if self.pipe.is_empty() && self.features & feature::CROSS == 0 {
            events.schedule(arrive, EventKind::PipeArrival, id);
        }
        arena.get_mut(pkt).arrive_at = arrive;
        self.pipe.push_back(pkt);
    }

    /// A packet of `size` bytes starts its transmission of `duration`: the departure log and
    /// the statistics.
    #[inline(always)]
    fn count_start(&mut self, pkt: PacketId, size: u32, duration: SimTime, arena: &PacketArena, now: SimTime) {
        if self.features & feature::DEPARTURES != 0 {
            if let Some(log) = self.extras.as_deref_mut().and_then(|e| e.departures.as_mut()) {
                log.record(arena, pkt, now);
            }
        }
        self.stats.departures += 1;
        self.stats.bytes_departed += size as u64;
        self.stats.busy_ps += duration;
    }

    /// When a packet whose transmission ends at `done` reaches the far end: the delay, and
    /// the jitter if any (before the no-overtaking clamp).
    #[inline(always)]
    fn far_end_time(&mut self, done: SimTime) -> SimTime {
        let mut arrive = done.saturating_add(self.delay);
        if let Some(e) = self.extras.as_deref_mut() {
            if let Some(rng) = e.jitter_rng.as_mut() {
                arrive = arrive.saturating_add(rng.next_u64() % e.jitter);
            }
        }
        arrive
    }

    /// A packet arrives to be sent out of this port. Returns the packet dropped, if any
    /// (the arriving one or, for some disciplines, one already queued).
    #[inline]
    pub fn receive(&mut self, pkt: PacketId, arena: &mut PacketArena, now: SimTime, events: &mut EventQueue, id: u32) -> Option<PacketId> {
        // One test for the rare features at arrival: a trunk, or the queue's time integral.
        if self.features & (feature::TRUNK | feature::ACCOUNTING) != 0 {
            if self.features & feature::TRUNK != 0 {
                return self.trunk_receive(pkt, arena, now, events, id);
            }
            self.account(now);
        }
        let busy = now < self.busy_until;
        let tx = InService { bytes: if busy { Some(self.in_service_bytes) } else { None } };
        // One dispatch for the verdict and the lengths the statistics need (three calls out
        // of line on a boxed discipline's port were ~3% of an all-RED run's instructions).
        let (verdict, qp, qb) = self.qdisc.enqueue_len(pkt, arena, now, tx);
        let dropped = match verdict {
            Verdict::Accepted => None,
            Verdict::Dropped(d) => {
                self.stats.drops += 1;
                if let (true, Some(e)) = (self.is(state::PREEMPTIVE), self.extras.as_deref_mut()) {
                    // A stopped packet can be the one dropped; its id will be reused.
                    e.resume.retain(|&(p, _)| p != d);
                }
                Some(d)
            }
        };
        if qp > self.stats.max_queue_packets {
            self.stats.max_queue_packets = qp;
        }
        if qb > self.stats.max_queue_bytes {
            self.stats.max_queue_bytes = qb;
        }
        if self.is(state::PREEMPTIVE) && busy && self.qdisc.wants_preemption() {
            self.preempt(arena, now, events, id);
            return dropped;
        }
        self.kick(busy, arena, now, events, id);
        dropped
    }

    /// Something was queued: start it if the line is idle, else make sure the transmitter
    /// will look again when the line frees.
    #[inline(always)]
    fn kick(&mut self, busy: bool, arena: &mut PacketArena, now: SimTime, events: &mut EventQueue, id: u32) {
        if !self.txdone_pending {
            if busy {
                events.schedule(self.busy_until, EventKind::TxDone, id);
                self.txdone_pending = true;
            } else if let Some(p) = self.next_packet(arena, now) {
                self.start_tx(p, arena, now, events, id);
                if self.has_waiting() {
                    events.schedule(self.busy_until, EventKind::TxDone, id);
                    self.txdone_pending = true;
                }
            } else {
                self.hold(now, events, id);
            }
        }
    }

    /// The next packet to transmit: the control lane's first, else the discipline's.
    #[inline(always)]
    fn next_packet(&mut self, arena: &mut PacketArena, now: SimTime) -> Option<PacketId> {
        if self.is(state::LANE_WAITING) {
            return self.lane_pop(arena, now);
        }
        self.qdisc.dequeue(arena, now)
    }

    #[inline(always)]
    fn has_waiting(&self) -> bool {
        self.is(state::LANE_WAITING) || self.qdisc.len_packets() > 0
    }

    /// The transmitter finished a packet and packets are waiting.
    #[inline]
    pub fn on_tx_done(&mut self, arena: &mut PacketArena, now: SimTime, events: &mut EventQueue, id: u32) {
        if self.is(state::PREEMPTIVE) && now != self.busy_until {
            return; // stale: the packet it was for was preempted
        }
        if self.features & (feature::TRUNK | feature::ACCOUNTING) != 0 {
            if self.features & feature::TRUNK != 0 {
                return self.trunk_tx_done(arena, now, events, id);
            }
            self.account(now);
        }
        self.txdone_pending = false;
        if let Some(p) = self.next_packet(arena, now) {
            self.start_tx(p, arena, now, events, id);
            if self.has_waiting() {
                events.schedule(self.busy_until, EventKind::TxDone, id);
                self.txdone_pending = true;
            }
        } else {
            self.hold(now, events, id);
        }
    }

    /// Prefetch the two packets at the pipe's head (the one arriving next and the one whose
    /// arrival time re-arms the pipe after it): the run loop calls this for the next event
    /// while it handles the current one, so their slots' cache misses overlap that work.
    #[inline(always)]
    pub fn prefetch_pipe(&self, arena: &PacketArena) {
        let n = self.pipe.len();
        if n > 0 {
            arena.prefetch(self.pipe.get(0));
            if n > 1 {
                arena.prefetch(self.pipe.get(1));
            }
        }
    }

    /// Prefetch the pipe ring's front (the step before `prefetch_pipe`, one event earlier).
    #[inline(always)]
    pub fn prefetch_pipe_ring(&self) {
        self.pipe.prefetch_front();
    }

    /// The head of the pipe reaches the far node: returns it and re-arms the pipe's event.
    #[inline]
    pub fn on_pipe_arrival(&mut self, arena: &PacketArena, now: SimTime, events: &mut EventQueue, id: u32) -> Option<PacketId> {
        let head = self.pipe.front()?;
        if self.is(state::PIPE_CHECKS_TIME) && arena.get(head).arrive_at != now {
            return None; // stale: the packet it was for was preempted, or overtaken (`trunk.rs`)
        }
        self.pipe.pop_front();
        if let Some(next) = self.pipe.front() {
            events.schedule(arena.get(next).arrive_at, EventKind::PipeArrival, id);
        }
        Some(head)
    }

    /// Queued packets (not counting those in service).
    pub fn queue_packets(&self) -> u32 {
        self.qdisc.len_packets() + self.private_waiting().0
    }

    pub fn queue_bytes(&self) -> u64 {
        self.qdisc.len_bytes() + self.private_waiting().1
    }

    /// Heap bytes held by the queue, the pipe and the optional extras.
    pub fn memory_bytes(&self) -> usize {
        let extras = self.extras.as_deref().map_or(0, |e| {
            std::mem::size_of::<PortExtras>()
                + e.resume.capacity() * std::mem::size_of::<(PacketId, SimTime)>()
                + e.lane.as_ref().map_or(0, |l| l.queue.capacity() * 4)
                + e.departures.as_ref().map_or(0, |d| d.time_s.capacity() * DepartureLog::ROW_BYTES)
                + e.trunk.as_ref().map_or(0, |t| t.memory_bytes())
        });
        self.qdisc.memory_bytes() + self.pipe.capacity() * std::mem::size_of::<PacketId>() + extras
    }

    /// Every packet waiting in the queue (not the one on the line, not the pipe).
    pub fn for_each_queued(&self, f: &mut dyn FnMut(PacketId)) {
        self.qdisc.for_each(f);
        self.for_each_private(f);
    }

    /// Every packet this port holds: queued, in service, or in the pipe (the in-service
    /// packet is already in the pipe, since it was pushed there when it started).
    pub fn for_each_packet(&self, f: &mut dyn FnMut(PacketId)) {
        self.qdisc.for_each(f);
        self.for_each_private(f);
        if let Some(lane) = self.extras.as_deref().and_then(|e| e.lane.as_ref()) {
            lane.queue.iter().for_each(&mut *f);
        }
        for p in self.pipe.iter() {
            f(p);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::packet::{Packet, EMPTY};
    use crate::queue::{droptail::DropTail, BufferLimit};
    use crate::sim::PS_PER_SEC;

    #[test]
    fn a_port_and_a_flow_record_keep_their_size() {
        // Four ports a flow on a dumbbell and the flow's own record make most of its state
        // (1988 B at N = 1000, `memory_breakdown`): a field more grows every large run.
        assert!(std::mem::size_of::<Port>() <= 168, "{}", std::mem::size_of::<Port>());
        assert!(std::mem::size_of::<crate::world::Flow>() <= 712, "{}", std::mem::size_of::<crate::world::Flow>());
    }

    fn packet(arena: &mut PacketArena) -> PacketId {
        arena.alloc(Packet { size: 1000, ..EMPTY })
    }

    #[test]
    fn transmission_times_match_tx_time_on_every_rate() {
        // Rates dividing 8 x 10^12 take the multiply; the others (and 3 b/s) the division.
        for bw in [80_000u64, 800_000, 100_000_000, 1_000_000_000, 3, 999_999_937, 1_544_000, 40_000_000_000] {
            let port = Port::new(0, 1, bw, 0, Qdisc::DropTail(DropTail::new(BufferLimit::Unlimited, true)));
            assert_eq!(port.bandwidth_bps(), bw);
            for bytes in [1u32, 40, 1000, 1500, 9000, 65_535, u32::MAX] {
                assert_eq!(port.tx_duration(bytes), tx_time(bytes, bw), "{bytes} B at {bw} b/s");
            }
        }
    }

    #[test]
    fn a_shortened_delay_keeps_the_pipe_in_order() {
        // 1000-byte packets on an 80 kb/s line (0.1 s each), 1 s delay. The first starts at
        // 0 and arrives at 1.1 s; the delay drops to 0.1 s; the second, finished at 0.2 s,
        // would arrive at 0.3 s but waits for the first: 1.1 s, and the pipe's one event
        // (the head's) stays valid.
        let mut arena = PacketArena::new();
        let mut events = EventQueue::new();
        let mut port = Port::new(0, 1, 80_000, PS_PER_SEC, Qdisc::DropTail(DropTail::new(BufferLimit::Unlimited, true)));
        let (a, b) = (packet(&mut arena), packet(&mut arena));
        port.receive(a, &mut arena, 0, &mut events, 0);
        port.receive(b, &mut arena, 0, &mut events, 0);
        port.set_delay(PS_PER_SEC / 10);
        let done = events.pop().unwrap();
        assert_eq!((done.kind(), done.time), (EventKind::TxDone, PS_PER_SEC / 10));
        port.on_tx_done(&mut arena, done.time, &mut events, 0);
        let first = events.pop().unwrap();
        assert_eq!((first.kind(), first.time), (EventKind::PipeArrival, PS_PER_SEC * 11 / 10));
        assert_eq!(port.on_pipe_arrival(&arena, first.time, &mut events, 0), Some(a));
        let second = events.pop().unwrap();
        assert_eq!(second.time, PS_PER_SEC * 11 / 10, "not 0.3 s: it cannot overtake");
        assert_eq!(port.on_pipe_arrival(&arena, second.time, &mut events, 0), Some(b));
    }

    #[test]
    fn a_stopped_packet_that_is_dropped_leaves_no_remaining_time_behind() {
        use crate::queue::fq::{FairQueue, FqConfig};
        // Preemptive FQ, one buffer (the packet on the line takes none). A (1000 B, flow 0)
        // is on the line; B (40 B, flow 1) stops it, A goes back to the queue; D (1000 B,
        // flow 2) then overflows the buffer, A and D tie, and the tie-break drops A. A's id
        // is reused by E (1000 B, flow 3), which must take a full 100 ms, not A's remainder.
        let cfg = FqConfig {
            limit: BufferLimit::Packets(1),
            count_in_service: false,
            preemptive: true,
            tie_smallest_bid: true,
            ..FqConfig::default()
        };
        let mut port = Port::new(0, 1, 80_000, 0, Qdisc::Fq(Box::new(FairQueue::new(cfg, 80_000))));
        port.set_preemptive(true);
        let mut arena = PacketArena::new();
        let mut events = EventQueue::new();
        let ms = PS_PER_SEC / 1000;
        let pkt = |arena: &mut PacketArena, flow: u32, size: u32| arena.alloc(Packet { flow, size, ..EMPTY });
        let a = pkt(&mut arena, 0, 1000);
        port.receive(a, &mut arena, 0, &mut events, 0);
        let b = pkt(&mut arena, 1, 40);
        assert_eq!(port.receive(b, &mut arena, 10 * ms, &mut events, 0), None, "B stops A");
        let d = pkt(&mut arena, 2, 1000);
        let dropped = port.receive(d, &mut arena, 11 * ms, &mut events, 0).expect("one buffer: a drop");
        assert_eq!(dropped, a, "the tie-break drops the stopped packet");
        arena.free(a);
        let e = pkt(&mut arena, 3, 1000);
        assert_eq!(e, a, "the arena reuses the id");
        assert!(port.extras.as_ref().unwrap().resume.is_empty());
    }

    #[test]
    fn the_control_lane_goes_first_and_shares_the_buffer() {
        // 80 kb/s: 0.1 s per 1000-byte packet. A buffer of 3 packets, the one on the line
        // included: the first data packet goes on the line, two wait, then the buffer is full.
        let mut port = Port::new(0, 1, 80_000, 0, Qdisc::DropTail(DropTail::new(BufferLimit::Packets(3), true)));
        port.enable_control_lane(BufferLimit::Packets(3), true);
        let mut arena = PacketArena::new();
        let mut events = EventQueue::new();
        let data: Vec<PacketId> = (0..2).map(|_| packet(&mut arena)).collect();
        for &d in &data {
            assert_eq!(port.receive(d, &mut arena, 0, &mut events, 0), None);
        }
        let control = arena.alloc(Packet { size: 50, kind: crate::net::PacketKind::Control, ..EMPTY });
        assert_eq!(port.receive_control(control, &mut arena, 0, &mut events, 0), None, "room for it");
        let late = arena.alloc(Packet { size: 50, kind: crate::net::PacketKind::Control, ..EMPTY });
        assert_eq!(port.receive_control(late, &mut arena, 0, &mut events, 0), Some(late), "the buffer is full");
        assert_eq!(port.control_drops_and_losses(), (1, 0));
        // The line frees at 0.1 s: the control packet goes next, ahead of the waiting data.
        let done = events.pop().unwrap();
        assert_eq!(done.kind(), EventKind::TxDone);
        port.on_tx_done(&mut arena, done.time, &mut events, 0);
        let mut sent = vec![];
        port.for_each_packet(&mut |p| sent.push(p));
        assert_eq!(sent, vec![data[1], data[0], control], "queued, then the pipe in order");
        assert_eq!(port.queue_packets(), 1);
    }

    #[test]
    fn a_feedback_never_costs_a_data_packet_its_place() {
        // Liang 1991 P4: a feedback takes room only if there is room, and the discipline
        // alone admits data. Buffer 3, one data packet on the line, one waiting, the lane's
        // feedback takes the third place; the next data packet still gets in.
        let mut port = Port::new(0, 1, 80_000, 0, Qdisc::DropTail(DropTail::new(BufferLimit::Packets(3), true)));
        port.enable_control_lane(BufferLimit::Packets(3), true);
        let mut arena = PacketArena::new();
        let mut events = EventQueue::new();
        for _ in 0..2 {
            let d = packet(&mut arena);
            assert_eq!(port.receive(d, &mut arena, 0, &mut events, 0), None);
        }
        let control = arena.alloc(Packet { size: 50, kind: crate::net::PacketKind::Control, ..EMPTY });
        assert_eq!(port.receive_control(control, &mut arena, 0, &mut events, 0), None);
        let d = packet(&mut arena);
        assert_eq!(port.receive(d, &mut arena, 0, &mut events, 0), None, "the feedback took no data packet's place");
        let d = packet(&mut arena);
        assert_eq!(port.receive(d, &mut arena, 0, &mut events, 0), Some(d), "the discipline's own buffer is full");
    }
}
