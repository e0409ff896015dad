//! A port of several channels: the output trunk of an optical (DWDM) core switch.
//!
//! Source: Cui's thesis, ch. 3 (§3.2, §3.6; spec cui-buffers-fast-adpm.md §2.18). A trunk is
//! K independent links (wavelength channels) of one rate each; with full wavelength
//! conversion a packet may leave on any idle one. The output buffer is a virtual FIFO of B
//! one-packet spaces; a space frees when its packet *starts* being sent (travelling-wave
//! buffers, fibre delay lines), so with i packets held (waiting or being sent) an arrival is
//! accepted iff i < K + B, and goes straight to an idle channel if there is one.
//!
//! Here a port with `channels = K` has K transmitters at the link's bandwidth each, one
//! propagation pipe and one set of statistics (its utilisation is busy channel-time over
//! K x time). The buffer is the link's `buffer`, counted as `count_in_service` says:
//! - false (the default on a link of several channels): it counts the packets waiting, the
//!   thesis's B, and "0pkt" is allowed (a bufferless trunk); admission iff held < K + B;
//!   a link of one channel with "0pkt" is a bufferless line and goes through the trunk too;
//! - true: it counts every packet held, those on the channels too: admission iff
//!   held < buffer (the thesis's K + B written out; at least K).
//!
//! A packet that finds a channel idle goes onto it at once (nothing waits then, so FIFO
//! order holds), the lowest-index idle channel if several are (spec §6 item 3: the choice
//! does not matter under full conversion). Waiting packets leave the FIFO in order, each to
//! the first channel that frees (at one instant, in channel order). Only drop-tail is
//! supported: the channels share its FIFO, which the trunk fills and empties itself; a
//! scenario with another discipline, or with control packets, on such a link is refused.
//!
//! `channel_buffers = "private"` is the variant of Fig 3.11 read literally (spec §6 item 4):
//! every channel has a buffer of its own of `buffer` packets (counted as above) and serves
//! only it. A packet that finds no channel idle joins the buffer, among those with room,
//! whose channel will have sent everything it holds soonest (ties: the lowest index) [REC:
//! the thesis does not say which]; with no room anywhere it is dropped. With one packet size
//! a packet then starts exactly when a shared FIFO would have started it, so K private
//! one-packet buffers are a shared buffer of B = K (the spec's primary reading); with sizes
//! that differ they lose more (two packets in a shared FIFO can both go to a channel that
//! frees early; private buffers hold one each).
//!
//! What the thesis models and this does not: cut-through. A packet here is stored and
//! forwarded (it reaches the switch whole, then starts), which delays it by its time on the
//! input link; for packets of one size that shifts the arrivals at the trunk without
//! changing them.
//!
//! Mechanics. The channels' end times sit in a tournament tree (`Lines`): the earliest end
//! is its root and the lowest-index idle channel is found in log K steps, so the per-packet
//! cost grows with log K, not K (the private variant scans its K buffers). Completions are
//! lazy as on a one-channel port: while packets wait, one `TxDone` counts, at the first time
//! a channel that has packets to send frees; an event whose time no longer matches
//! (`txdone_at`, moved earlier by a packet joining a private buffer) is stale. Packets of different sizes can finish out of order, so the pipe is
//! kept in arrival order: a packet is inserted behind those that arrive no later than it
//! (usually it passes at most the K - 1 packets still on other channels; on its own channel
//! it passes none). A packet that becomes the
//! pipe's head in front of another gets an event of its own, and the other's stays pending;
//! a pipe arrival delivers the head only at the head's own time (as on a preemptive port), so
//! that event, a duplicate once the head's chain re-arms for the same packet, either delivers
//! a packet due at that very instant or is ignored. Each overtaking of the head leaves at
//! most one such extra event.

mod lines;

use super::{feature, state, Port};
use crate::net::{IdRing, PacketArena, PacketId};
use crate::queue::{BufferLimit, DropTail, Qdisc, QueueDiscipline};
use crate::sim::{EventKind, EventQueue, SimTime};
use lines::Lines;

/// Most channels a link may have.
pub const MAX_CHANNELS: u32 = 4096;

/// Whether a link's port needs the trunk: several channels, or one line with no waiting room
/// (a bufferless output: the ordinary port always holds the packet in service).
pub fn uses_trunk(channels: u32, limit: BufferLimit, count_in_service: bool) -> bool {
    channels > 1 || (matches!(limit, BufferLimit::Packets(0)) && !count_in_service)
}

/// How the buffer of a port of several channels is arranged.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ChannelBuffers {
    /// One FIFO that every channel serves.
    #[default]
    Shared,
    /// A buffer per channel, served by its channel only.
    Private,
}

impl ChannelBuffers {
    /// The names scenarios use (`channel_buffers = "..."`).
    pub const NAMES: &'static [&'static str] = &["shared", "private"];

    pub fn from_name(name: &str) -> Option<Self> {
        match name {
            "shared" => Some(ChannelBuffers::Shared),
            "private" => Some(ChannelBuffers::Private),
            _ => None,
        }
    }
}

/// The channels of a port that has several; see the module header.
pub(crate) struct Trunk {
    lines: Lines,
    /// Bytes of the packet each channel sent last, and their sum (the bytes on the lines
    /// while every channel is busy, which is when admission asks).
    line_bytes: Vec<u32>,
    line_bytes_sum: u64,
    /// When each channel's last packet reaches the far end: with a shortened delay or
    /// jitter, a packet never overtakes the one ahead of it on its own channel.
    last_arrival: Vec<SimTime>,
    limit: BufferLimit,
    count_in_service: bool,
    /// Private buffers: each channel's waiting packets and when it will have sent all it
    /// holds; empty for a shared buffer (whose packets wait in the port's drop-tail queue).
    private: Vec<IdRing>,
    drain_at: Vec<SimTime>,
    private_packets: u32,
    private_bytes: u64,
    /// The time of the pending `TxDone` that counts (`SimTime::MAX`: none).
    txdone_at: SimTime,
}

impl Trunk {
    fn new(channels: usize, buffers: ChannelBuffers, limit: BufferLimit, count_in_service: bool) -> Self {
        let private = buffers == ChannelBuffers::Private;
        Trunk {
            lines: Lines::new(channels),
            line_bytes: vec![0; channels],
            line_bytes_sum: 0,
            last_arrival: vec![0; channels],
            limit,
            count_in_service,
            private: if private { vec![IdRing::new(); channels] } else { Vec::new() },
            drain_at: if private { vec![0; channels] } else { Vec::new() },
            private_packets: 0,
            private_bytes: 0,
            txdone_at: SimTime::MAX,
        }
    }

    fn channels(&self) -> usize {
        self.line_bytes.len()
    }

    /// Shared buffer, every channel busy: is there room for a packet of `size` bytes beside
    /// the `waiting` packets (`waiting_bytes`)?
    fn shared_room(&self, waiting: u32, waiting_bytes: u64, size: u32) -> bool {
        let cis = self.count_in_service;
        match self.limit {
            BufferLimit::Packets(n) => waiting as u64 + if cis { self.channels() as u64 } else { 0 } < n as u64,
            BufferLimit::Bytes(b) => waiting_bytes + if cis { self.line_bytes_sum } else { 0 } + size as u64 <= b,
            BufferLimit::Unlimited => true,
        }
    }

    /// Private buffers, every channel busy: the channel whose buffer has room and which will
    /// have sent what it holds soonest (ties: the lowest index).
    fn private_choice(&self) -> Option<usize> {
        let room = |c: usize| match self.limit {
            BufferLimit::Packets(n) => self.private[c].len() as u64 + u64::from(self.count_in_service) < n as u64,
            _ => true, // unlimited (scenarios refuse byte limits here)
        };
        (0..self.channels()).filter(|&c| room(c)).min_by_key(|&c| (self.drain_at[c], c))
    }

    /// The first time a channel with packets waiting for it frees (`SimTime::MAX`: none).
    fn next_service(&self, shared_waiting: bool) -> SimTime {
        if self.private.is_empty() {
            return if shared_waiting { self.lines.earliest() } else { SimTime::MAX };
        }
        (0..self.channels()).filter(|&c| !self.private[c].is_empty()).map(|c| self.lines.free_at(c)).min().unwrap_or(SimTime::MAX)
    }

    pub fn memory_bytes(&self) -> usize {
        std::mem::size_of::<Trunk>()
            + self.lines.capacity_bytes()
            + self.line_bytes.capacity() * 4
            + (self.last_arrival.capacity() + self.drain_at.capacity()) * 8
            + self.private.iter().map(|r| std::mem::size_of::<IdRing>() + r.capacity() * 4).sum::<usize>()
    }
}

impl Port {
    /// Give the port `channels` channels at its rate each (1: the ordinary port, unchanged),
    /// with a buffer of `limit` arranged as `buffers` and counted as `count_in_service`
    /// says (see the module header). The port's discipline must be drop-tail.
    pub fn set_channels(&mut self, channels: u32, buffers: ChannelBuffers, limit: BufferLimit, count_in_service: bool) {
        if !uses_trunk(channels, limit, count_in_service) {
            return;
        }
        self.enable_trunk(channels, buffers, limit, count_in_service);
    }

    /// As `set_channels`, for any number of channels (tests compare one channel with the
    /// ordinary port).
    pub(crate) fn enable_trunk(&mut self, channels: u32, buffers: ChannelBuffers, limit: BufferLimit, count_in_service: bool) {
        assert!((1..=MAX_CHANNELS).contains(&channels), "{channels} channels");
        assert!(matches!(self.qdisc, Qdisc::DropTail(_)), "a port of several channels has a drop-tail queue, not {}", self.qdisc.name());
        assert!(!self.is(state::PREEMPTIVE), "a port of several channels does not preempt");
        // The trunk admits; the queue only holds the shared FIFO.
        self.qdisc = Qdisc::DropTail(DropTail::new(BufferLimit::Unlimited, false));
        self.extras_mut().trunk = Some(Box::new(Trunk::new(channels as usize, buffers, limit, count_in_service)));
        self.state |= state::PIPE_CHECKS_TIME;
        self.set_feature(feature::TRUNK, true);
    }

    /// Channels (transmitters at the port's rate each).
    pub fn channels(&self) -> u32 {
        self.trunk().map_or(1, |t| t.channels() as u32)
    }

    /// The port's capacity, bits per second: channels x rate.
    pub fn capacity_bps(&self) -> u64 {
        self.bandwidth_bps().saturating_mul(self.channels() as u64)
    }

    fn trunk(&self) -> Option<&Trunk> {
        if self.features & feature::TRUNK == 0 {
            return None;
        }
        self.extras.as_deref().and_then(|e| e.trunk.as_deref())
    }

    /// The trunk, out of the port while it works on both (put it back with `put_trunk`).
    #[inline]
    fn take_trunk(&mut self) -> Box<Trunk> {
        self.extras.as_deref_mut().and_then(|e| e.trunk.take()).expect("a trunk port has its trunk")
    }

    #[inline]
    fn put_trunk(&mut self, t: Box<Trunk>) {
        if let Some(e) = self.extras.as_deref_mut() {
            e.trunk = Some(t);
        }
    }

    /// Packets and bytes waiting in private buffers (none for other ports).
    #[inline]
    pub(super) fn private_waiting(&self) -> (u32, u64) {
        self.trunk().map_or((0, 0), |t| (t.private_packets, t.private_bytes))
    }

    pub(super) fn for_each_private(&self, f: &mut dyn FnMut(PacketId)) {
        if let Some(t) = self.trunk() {
            t.private.iter().for_each(|r| r.iter().for_each(&mut *f));
        }
    }

    /// A packet arrives at a trunk port; see the module header.
    // Cold for the ordinary port, whose path must not pay for it.
    #[cold]
    #[inline(never)]
    pub(super) fn trunk_receive(
        &mut self,
        pkt: PacketId,
        arena: &mut PacketArena,
        now: SimTime,
        events: &mut EventQueue,
        id: u32,
    ) -> Option<PacketId> {
        self.account(now);
        let mut t = self.take_trunk();
        let size = arena.get(pkt).size;
        let mut dropped = None;
        if let Some(c) = t.lines.lowest_idle(now) {
            // Nothing waits while a channel is idle (for a private buffer: its own channel's).
            debug_assert!(self.qdisc.len_packets() == 0 && t.private.get(c).is_none_or(|r| r.is_empty()));
            self.trunk_start(&mut t, c, pkt, arena, now, events, id);
        } else if t.private.is_empty() {
            if t.shared_room(self.qdisc.len_packets(), self.qdisc.len_bytes(), size) {
                let v = self.qdisc.enqueue(pkt, arena, now, Default::default());
                debug_assert_eq!(v, crate::queue::Verdict::Accepted);
                let at = t.lines.earliest();
                self.arm_trunk(&mut t, at, events, id);
            } else {
                dropped = Some(pkt);
            }
        } else if let Some(c) = t.private_choice() {
            t.private[c].push_back(pkt);
            t.private_packets += 1;
            t.private_bytes += size as u64;
            t.drain_at[c] += self.tx_duration(size);
            let at = t.lines.free_at(c);
            self.arm_trunk(&mut t, at, events, id);
        } else {
            dropped = Some(pkt);
        }
        self.put_trunk(t);
        if dropped.is_some() {
            self.stats.drops += 1;
        }
        let (qp, qb) = (self.queue_packets(), self.queue_bytes());
        self.stats.max_queue_packets = self.stats.max_queue_packets.max(qp);
        self.stats.max_queue_bytes = self.stats.max_queue_bytes.max(qb);
        dropped
    }

    /// Make sure a `TxDone` is pending no later than `at`.
    #[inline]
    fn arm_trunk(&mut self, t: &mut Trunk, at: SimTime, events: &mut EventQueue, id: u32) {
        if at < t.txdone_at {
            t.txdone_at = at;
            events.schedule(at, EventKind::TxDone, id);
        }
    }

    /// A channel with packets waiting for it may have freed: start them.
    // Cold for the ordinary port, whose path must not pay for it.
    #[cold]
    #[inline(never)]
    pub(super) fn trunk_tx_done(&mut self, arena: &mut PacketArena, now: SimTime, events: &mut EventQueue, id: u32) {
        let mut t = self.take_trunk();
        if now == t.txdone_at {
            self.account(now);
            if t.private.is_empty() {
                while self.qdisc.len_packets() > 0 {
                    let Some(c) = t.lines.lowest_idle(now) else { break };
                    let p = self.qdisc.dequeue(arena, now).expect("a packet waits");
                    self.trunk_start(&mut t, c, p, arena, now, events, id);
                }
            } else {
                for c in 0..t.channels() {
                    if t.lines.free_at(c) <= now {
                        if let Some(p) = t.private[c].pop_front() {
                            t.private_packets -= 1;
                            t.private_bytes -= arena.get(p).size as u64;
                            self.trunk_start(&mut t, c, p, arena, now, events, id);
                        }
                    }
                }
            }
            t.txdone_at = SimTime::MAX;
            let next = t.next_service(self.qdisc.len_packets() > 0);
            if next != SimTime::MAX {
                self.arm_trunk(&mut t, next, events, id);
            }
        }
        self.put_trunk(t);
    }

    /// Start `pkt` on channel `c` (idle at `now`).
    #[allow(clippy::too_many_arguments)]
    #[inline]
    fn trunk_start(
        &mut self,
        t: &mut Trunk,
        c: usize,
        pkt: PacketId,
        arena: &mut PacketArena,
        now: SimTime,
        events: &mut EventQueue,
        id: u32,
    ) {
        let size = arena.get(pkt).size;
        let duration = self.tx_duration(size);
        self.count_start(pkt, size, duration, arena, now);
        let done = now.saturating_add(duration);
        t.lines.set(c, done);
        t.line_bytes_sum = t.line_bytes_sum - t.line_bytes[c] as u64 + size as u64;
        t.line_bytes[c] = size;
        if let Some(d) = t.drain_at.get_mut(c) {
            *d = (*d).max(done);
        }
        let mut arrive = self.far_end_time(done);
        if self.is(state::FIFO_GUARD) {
            arrive = arrive.max(t.last_arrival[c]);
        }
        t.last_arrival[c] = arrive;
        arena.get_mut(pkt).arrive_at = arrive;
        // In arrival order, behind the packets arriving no later (so ties keep start order).
        let mut at = self.pipe.len();
        while at > 0 && arena.get(self.pipe.get(at - 1)).arrive_at > arrive {
            at -= 1;
        }
        if at == 0 && self.features & super::feature::CROSS == 0 {
            // The new head (the old one's event stays pending: see the module header).
            events.schedule(arrive, EventKind::PipeArrival, id);
        }
        self.pipe.insert(at, pkt);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::packet::{Packet, EMPTY};
    use crate::sim::{time::tx_time, Rng, PS_PER_SEC};

    const MS: SimTime = PS_PER_SEC / 1000;

    /// What a port did with a sequence of offers: for each packet (by its offer index) when
    /// it reached the far end, or None if it was dropped; and the order of arrival.
    #[derive(Debug, PartialEq)]
    struct Outcome {
        arrival: Vec<Option<SimTime>>,
        order: Vec<u32>,
    }

    /// Offer packets of the given (time, size) to `port`, running its events as a world would
    /// (a line freeing at t serves before an arrival at t), and call `check` after every step.
    fn drive(port: &mut Port, offers: &[(SimTime, u32)], check: &mut dyn FnMut(&Port, SimTime)) -> Outcome {
        let mut arena = PacketArena::new();
        let mut events = EventQueue::new();
        let mut out = Outcome { arrival: vec![None; offers.len()], order: Vec::new() };
        let mut i = 0;
        loop {
            let offer_first = match (offers.get(i), events.peek_time()) {
                (Some(&(t, _)), Some(e)) => e > t,
                (Some(_), None) => true,
                (None, Some(_)) => false,
                (None, None) => break,
            };
            match offer_first {
                true => {
                    let t = offers[i].0;
                    let pkt = arena.alloc(Packet { flow: i as u32, size: offers[i].1, arrive_at: t, ..EMPTY });
                    if let Some(d) = port.receive(pkt, &mut arena, t, &mut events, 0) {
                        assert_eq!(d, pkt, "drop-tail drops the arriving packet");
                    }
                    check(port, t);
                    i += 1;
                }
                false => {
                    let ev = events.pop().unwrap();
                    match ev.kind() {
                        EventKind::TxDone => port.on_tx_done(&mut arena, ev.time, &mut events, 0),
                        EventKind::PipeArrival => {
                            if let Some(p) = port.on_pipe_arrival(&arena, ev.time, &mut events, 0) {
                                let f = arena.get(p).flow;
                                assert_eq!(arena.get(p).arrive_at, ev.time);
                                assert!(out.arrival[f as usize].is_none(), "packet {f} arrived twice");
                                out.arrival[f as usize] = Some(ev.time);
                                out.order.push(f);
                            }
                        }
                        k => panic!("unexpected event {k:?}"),
                    }
                    check(port, ev.time);
                }
            }
        }
        assert_eq!(port.queue_packets(), 0);
        out
    }

    fn droptail(limit: BufferLimit, cis: bool, bw: u64, delay: SimTime) -> Port {
        Port::new(0, 1, bw, delay, Qdisc::DropTail(DropTail::new(limit, cis)))
    }

    fn trunk(k: u32, buffers: ChannelBuffers, limit: BufferLimit, cis: bool, bw: u64, delay: SimTime) -> Port {
        let mut p = droptail(BufferLimit::Unlimited, true, bw, delay);
        p.enable_trunk(k, buffers, limit, cis);
        p
    }

    /// Poisson offers of `n` packets at `rate` per second, sizes from `sizes`.
    fn poisson(seed: u64, n: usize, rate: f64, sizes: &[u32]) -> Vec<(SimTime, u32)> {
        let mut rng = Rng::stream(seed, "offers");
        let mut t = 0.0;
        (0..n)
            .map(|_| {
                t += rng.exponential(1.0 / rate);
                (crate::sim::time::from_secs(t), sizes[(rng.next_u64() % sizes.len() as u64) as usize])
            })
            .collect()
    }

    #[test]
    fn one_channel_is_the_ordinary_port() {
        // The trunk's code with K = 1 against the port of every other link: the same
        // arrivals at the far end, at the same times, and the same drops, with mixed sizes
        // on buffers counted both ways, and jitter (which the line must not reorder).
        let offers = poisson(3, 3000, 900.0, &[40, 1000, 1040, 1500]);
        for (limit, cis) in [
            (BufferLimit::Packets(1), true),
            (BufferLimit::Packets(1), false),
            (BufferLimit::Packets(5), true),
            (BufferLimit::Packets(5), false),
            (BufferLimit::Bytes(6000), false),
            (BufferLimit::Bytes(6000), true),
            (BufferLimit::Unlimited, true),
        ] {
            let (bw, delay) = (8_000_000, 3 * MS);
            let mut plain = droptail(limit, cis, bw, delay);
            let mut one = trunk(1, ChannelBuffers::Shared, limit, cis, bw, delay);
            let mut private = trunk(1, ChannelBuffers::Private, limit, cis, bw, delay);
            for p in [&mut plain, &mut one, &mut private] {
                // Jitter up to 2 ms (packets take 40 us to 1.5 ms), from the same stream.
                p.set_jitter(2 * MS, Rng::stream(5, "jitter"));
            }
            let a = drive(&mut plain, &offers, &mut |_, _| {});
            let b = drive(&mut one, &offers, &mut |_, _| {});
            assert_eq!(a, b, "{limit:?}, count_in_service {cis}");
            // (Not `max_queue_packets`: the ordinary port counts a packet that finds the line
            // idle as queued for an instant; the trunk never queues it.)
            assert_eq!(
                (plain.stats.departures, plain.stats.drops, plain.stats.busy_ps),
                (one.stats.departures, one.stats.drops, one.stats.busy_ps)
            );
            assert_eq!(a.arrival.iter().any(|x| x.is_none()), limit != BufferLimit::Unlimited, "drops");
            assert!(a.order.windows(2).all(|w| w[0] < w[1]), "no overtaking on one line, jitter or not");
            if !matches!(limit, BufferLimit::Bytes(_)) {
                assert_eq!(drive(&mut private, &offers, &mut |_, _| {}), a, "one private buffer is the shared one");
            }
        }
    }

    #[test]
    fn a_hand_built_sequence_departs_when_expected() {
        // 80 kb/s a channel: 1000 B take 100 ms. K = 2, B = 1 waiting (count_in_service
        // false): at most 3 held. Delay 10 ms.
        let mut port = trunk(2, ChannelBuffers::Shared, BufferLimit::Packets(1), false, 80_000, 10 * MS);
        let offers = [
            (0, 1000),        // 0: channel 0 at 0
            (0, 1000),        // 1: channel 1 at 0
            (0, 1000),        // 2: waits, starts at 100 ms
            (0, 1000),        // 3: 3 held: dropped
            (50 * MS, 1000),  // 4: still 3 held: dropped
            (100 * MS, 1000), // 5: both channels freed at 100 ms, 2 took one, 5 the other
            (100 * MS, 1000), // 6: waits, starts at 200 ms
            (100 * MS, 1000), // 7: dropped
            (250 * MS, 40),   // 8: channel 1 idle since 200 ms (6 went to channel 0): at once, 4 ms
        ];
        let out = drive(&mut port, &offers, &mut |_, _| {});
        let at = |start: SimTime, size: u32| Some(start + tx_time(size, 80_000) + 10 * MS);
        assert_eq!(
            out.arrival,
            vec![at(0, 1000), at(0, 1000), at(100 * MS, 1000), None, None, at(100 * MS, 1000), at(200 * MS, 1000), None, at(250 * MS, 40)]
        );
        assert_eq!(out.order, vec![0, 1, 2, 5, 8, 6], "the short packet 8 overtakes 6 on the other channel");
        assert_eq!((port.stats.departures, port.stats.drops, port.stats.max_queue_packets), (6, 3, 1));
        // Busy channel-time: five 100 ms packets and one of 4 ms.
        assert_eq!(port.stats.busy_ps, 504 * MS);
    }

    #[test]
    fn short_packets_overtake_long_ones_on_other_channels() {
        // Four channels at 8 Mb/s (1000 B: 1 ms, 40 B: 40 us); one long packet, then short
        // ones that each become the pipe's head in front of it, then a second long one.
        let mut port = trunk(4, ChannelBuffers::Shared, BufferLimit::Packets(0), false, 8_000_000, 0);
        let us = MS / 1000;
        let offers = [(0, 1000), (0, 40), (10 * us, 40), (20 * us, 1000), (45 * us, 40), (200 * us, 40), (1010 * us, 40)];
        let out = drive(&mut port, &offers, &mut |_, _| {});
        assert_eq!(out.order, vec![1, 2, 4, 5, 0, 3, 6]);
        assert_eq!(out.arrival[0], Some(MS));
        assert_eq!(out.arrival[3], Some(1020 * us));
        assert_eq!(out.arrival[6], Some(1050 * us));
    }

    /// The reference M/D/K/(K+B) queue: accepted packets start in order, each on the channel
    /// that frees first, at max(arrival, that time); an arrival is accepted iff fewer than
    /// K + B accepted packets are unfinished (a packet finishing at t has left by t).
    fn reference_shared(offers: &[(SimTime, u32)], k: usize, b: usize, service: SimTime) -> Vec<Option<SimTime>> {
        let mut free = vec![0 as SimTime; k];
        let mut ends: Vec<SimTime> = Vec::new();
        offers
            .iter()
            .map(|&(t, _)| {
                if ends.iter().filter(|&&e| e > t).count() >= k + b {
                    return None;
                }
                let c = (0..k).min_by_key(|&c| free[c]).unwrap();
                let start = t.max(free[c]);
                free[c] = start + service;
                ends.push(start + service);
                Some(start)
            })
            .collect()
    }

    /// The same with a private buffer of `b` waiting places per channel: an arrival takes the
    /// lowest idle channel, else the one with room that will have finished soonest.
    fn reference_private(offers: &[(SimTime, u32)], k: usize, b: usize, service: SimTime) -> Vec<Option<SimTime>> {
        let mut ends: Vec<Vec<SimTime>> = vec![Vec::new(); k];
        offers
            .iter()
            .map(|&(t, _)| {
                let held = |c: usize| ends[c].iter().filter(|&&e| e > t).count();
                let drain = |c: usize| ends[c].last().copied().unwrap_or(0).max(t);
                let c = (0..k).find(|&c| held(c) == 0).or_else(|| (0..k).filter(|&c| held(c) < 1 + b).min_by_key(|&c| (drain(c), c)))?;
                let start = drain(c);
                ends[c].push(start + service);
                Some(start)
            })
            .collect()
    }

    #[test]
    fn poisson_arrivals_match_the_reference_queue_and_keep_its_invariants() {
        // 1040-byte packets at 83.2 Mb/s a channel: 100 us each. Loads from light to overload.
        let (bw, size, service) = (83_200_000, 1040, 100 * MS / 1000);
        for (k, b, load) in [(2usize, 0usize, 0.7), (4, 3, 0.9), (4, 3, 1.3), (16, 16, 0.95), (5, 1, 2.0)] {
            let offers = poisson(k as u64 * 31 + b as u64, 20_000, load * k as f64 / 100e-6, &[size]);
            for private in [false, true] {
                let buffers = if private { ChannelBuffers::Private } else { ChannelBuffers::Shared };
                let mut port = trunk(k as u32, buffers, BufferLimit::Packets(b as u32), false, bw, 0);
                let mut max_held = 0;
                let out = drive(&mut port, &offers, &mut |p, now| {
                    let t = p.trunk().unwrap();
                    let busy = (0..k).filter(|&c| t.lines.free_at(c) > now).count();
                    let waiting = p.queue_packets() as usize;
                    if !private {
                        assert!(waiting == 0 || busy == k, "a channel idles while {waiting} packets wait at {now}");
                    }
                    for c in 0..t.private.len() {
                        assert!(t.private[c].is_empty() || t.lines.free_at(c) > now, "channel {c} idles with a packet of its own");
                        assert!(t.private[c].len() <= b);
                    }
                    max_held = max_held.max(busy + waiting);
                });
                let expect = if private { reference_private(&offers, k, b, service) } else { reference_shared(&offers, k, b, service) };
                let got: Vec<Option<SimTime>> = out.arrival.iter().map(|a| a.map(|t| t - service)).collect();
                assert_eq!(got, expect, "K = {k}, B = {b}, load {load}, private {private}");
                assert!(max_held <= k + b * if private { k } else { 1 });
                // FIFO: a shared buffer starts packets in the order they came.
                if !private {
                    assert!(out.order.windows(2).all(|w| w[0] < w[1]));
                }
                let end = out.arrival.iter().flatten().max().copied().unwrap();
                let utilisation = port.stats.busy_ps as f64 / (k as f64 * end as f64);
                assert!(utilisation <= 1.0 && (load < 1.0 || utilisation > 0.9), "utilisation {utilisation}");
                let drops = out.arrival.iter().filter(|a| a.is_none()).count() as u64;
                assert_eq!((port.stats.drops, port.stats.departures), (drops, offers.len() as u64 - drops));
            }
        }
    }

    #[test]
    fn counting_the_packets_on_the_channels_admits_at_the_buffer() {
        // count_in_service = true: a buffer of K + B counts the held packets. The same
        // sequence as K = 3, B = 2 counted as waiting packets.
        let offers = poisson(11, 5000, 3.0 * 1.2 / 100e-6, &[1040]);
        let mut held = trunk(3, ChannelBuffers::Shared, BufferLimit::Packets(5), true, 83_200_000, 0);
        let mut waiting = trunk(3, ChannelBuffers::Shared, BufferLimit::Packets(2), false, 83_200_000, 0);
        let a = drive(&mut held, &offers, &mut |_, _| {});
        assert_eq!(a, drive(&mut waiting, &offers, &mut |_, _| {}));
        assert!(held.stats.drops > 0);
    }
}
