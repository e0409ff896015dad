//! The world: every component in flat `Vec`s addressed by index, and the event loop.
//!
//! Nothing here allocates per packet: packets come from the arena (and an ACK reuses the slot
//! of the data packet it answers), events are plain values in a binary heap, counters are
//! fields. Dispatch is a `match` on the event kind.

use crate::measure::{CwndTrace, DropTrace, EventTrace, FlowCounters, IntervalTable, QueueTrace};
use crate::net::packet::flags;
use crate::net::{Packet, PacketArena, PacketId, PacketKind, Port};
use crate::sim::{time::to_secs, Event, EventKind, EventQueue, SimTime};
use crate::traffic::App;
use crate::transport::cc::CongestionControl;
use crate::transport::sender::NEVER;
use crate::transport::{Sender, Sink};

pub struct Flow {
    pub name: String,
    pub src: u32,
    pub dst: u32,
    /// Forward (data) and reverse (ACK) routes: start index in `World::routes` and length.
    pub route: u32,
    pub route_len: u16,
    pub rev_route: u32,
    pub rev_route_len: u16,
    /// None for flows without flow control (`cc = "none"`): packets go out as the source
    /// makes them and the sink does not acknowledge them.
    pub sender: Option<Sender>,
    pub sink: Sink,
    pub app: App,
    pub packet_size: u32,
    pub ack_size: u32,
    /// Next sequence number of an uncontrolled flow.
    pub next_seq: u64,
    /// Counters of the current measurement interval, and of the intervals already closed.
    pub cur: FlowCounters,
    pub total: FlowCounters,
}

/// A flow whose window is traced, and where its algorithm's own trace columns and event log go.
pub struct TracedFlow {
    pub flow: u32,
    /// For each of the trace's extra columns (`CwndTrace::extra`), the position of that
    /// column among the algorithm's own (`Algorithm::TRACE_COLUMNS`), or `NO_COLUMN`.
    pub columns: Vec<u8>,
    /// How many columns of its own the algorithm has.
    pub own_columns: u8,
    /// The index of its event log's table in `World::event_traces`, if it keeps one.
    pub events: Option<u32>,
}

/// See [`TracedFlow::columns`].
pub const NO_COLUMN: u8 = u8::MAX;

/// Most trace columns of its own an algorithm may declare.
pub const MAX_OWN_COLUMNS: usize = 16;

/// Most packets a run may hold at once (queued, in transmission, in pipes): about 2 GB of
/// packets. A source that offers more than its path carries into an unlimited queue (a
/// host's own queue is unlimited by default) gets there, or a path of vast bandwidth-delay
/// product; the run then stops with an error naming the flow that holds the most, instead of
/// exhausting memory.
pub const MAX_LIVE_PACKETS: usize = 1 << 25;

pub struct World {
    pub now: SimTime,
    pub end: SimTime,
    pub events: EventQueue,
    pub packets: PacketArena,
    pub ports: Vec<Port>,
    pub routes: Vec<u32>,
    pub flows: Vec<Flow>,
    pub interval: SimTime,
    pub intervals: IntervalTable,
    pub trace_period: SimTime,
    pub traced_flows: Vec<TracedFlow>,
    pub traced_ports: Vec<u32>,
    pub cwnd_trace: CwndTrace,
    /// The event logs of the traced flows' algorithms (drained at each sample), one table per
    /// log name.
    pub event_traces: Vec<EventTrace>,
    pub queue_trace: QueueTrace,
    /// Per port: record its drops in `drop_trace`. Empty when no port is traced.
    pub drop_traced: Vec<bool>,
    pub drop_trace: DropTrace,
    /// Scratch for `record_drop`: waiting packets per conversation (flow x 2 + 1 for ACKs),
    /// all zero between drops, and the conversations it touched.
    pub drop_census: Vec<u32>,
    pub census_touched: Vec<u32>,
    pub peak_live_packets: usize,
    /// Packets the run may hold at once ([`MAX_LIVE_PACKETS`]; smaller in tests).
    pub live_packet_limit: usize,
    /// The first flow whose packet would have passed the limit; the run stops there.
    pub overflow: Option<u32>,
    /// Scheduled link delay changes: (forward port; the reverse port is the next one, delay).
    pub link_changes: Vec<(u32, SimTime)>,
}

impl World {
    /// Run until the end time. Events scheduled exactly at the end still run.
    pub fn run(&mut self) {
        while let Some(ev) = self.events.pop_due(self.end) {
            self.now = ev.time;
            self.handle(ev);
        }
        self.now = self.end;
        self.drain_event_logs();
        self.peak_live_packets = self.peak_live_packets.max(self.packets.capacity_used());
        for f in &mut self.flows {
            let cur = std::mem::take(&mut f.cur);
            f.total.add(&cur);
        }
    }

    #[inline]
    fn handle(&mut self, ev: Event) {
        let t = ev.target();
        match ev.kind() {
            EventKind::PipeArrival => {
                if let Some(p) = self.ports[t as usize].on_pipe_arrival(&self.packets, self.now, &mut self.events, t) {
                    self.arrive(p);
                }
            }
            EventKind::TxDone => {
                self.ports[t as usize].on_tx_done(&mut self.packets, self.now, &mut self.events, t);
            }
            EventKind::FlowTimer => self.on_flow_timer(t),
            EventKind::PaceTick => self.on_pace_tick(t),
            EventKind::SourceTick => self.on_source_tick(t),
            EventKind::FlowStart => self.on_flow_start(t),
            EventKind::LinkChange => {
                let (fwd, delay) = self.link_changes[t as usize];
                self.ports[fwd as usize].set_delay(delay);
                self.ports[fwd as usize + 1].set_delay(delay);
            }
            EventKind::FlowStop => self.on_flow_stop(t),
            EventKind::IntervalEnd => self.close_interval(t),
            EventKind::TraceSample => self.sample_traces(),
        }
    }

    /// A packet left a pipe at its next node: forward it or deliver it.
    #[inline]
    fn arrive(&mut self, pid: PacketId) {
        let pkt = self.packets.get_mut(pid);
        pkt.hop += 1;
        if pkt.hop < pkt.route_len {
            let port = self.routes[(pkt.route + pkt.hop as u32) as usize];
            self.send_to_port(pid, port);
        } else {
            match pkt.kind {
                PacketKind::Data => self.deliver_data(pid),
                PacketKind::Ack => self.deliver_ack(pid),
            }
        }
    }

    #[inline]
    fn send_to_port(&mut self, pid: PacketId, port: u32) {
        if let Some(d) = self.ports[port as usize].receive(pid, &mut self.packets, self.now, &mut self.events, port) {
            if !self.drop_traced.is_empty() && self.drop_traced[port as usize] {
                self.record_drop(port, d);
            }
            let p = self.packets.get(d);
            let c = &mut self.flows[p.flow as usize].cur;
            match p.kind {
                PacketKind::Data => c.data_dropped += 1,
                PacketKind::Ack => c.acks_dropped += 1,
            }
            self.packets.free(d);
        }
    }

    /// Add the drop of `d` at `port` to the drop trace, with a census of the port's queue
    /// (only for traced ports, and drops are rare: off the common path).
    #[cold]
    #[inline(never)]
    fn record_drop(&mut self, port: u32, d: PacketId) {
        let p = *self.packets.get(d);
        let conv = |q: &Packet| q.flow * 2 + u32::from(q.kind == PacketKind::Ack);
        let (census, touched, packets) = (&mut self.drop_census, &mut self.census_touched, &self.packets);
        let mut total = 0;
        self.ports[port as usize].for_each_queued(&mut |q| {
            let c = conv(packets.get(q)) as usize;
            if census[c] == 0 {
                touched.push(c as u32);
            }
            census[c] += 1;
            total += 1;
        });
        let own = conv(&p);
        let (mut mine, mut longest_other) = (0, 0);
        for &c in touched.iter() {
            let n = std::mem::take(&mut census[c as usize]);
            if c == own {
                mine = n;
            } else {
                longest_other = longest_other.max(n);
            }
        }
        touched.clear();
        let t = &mut self.drop_trace;
        t.time_s.push(to_secs(self.now));
        t.port.push(port);
        t.flow.push(p.flow);
        t.seq.push(p.seq);
        t.ack.push(p.kind == PacketKind::Ack);
        t.retransmission.push(p.has(flags::RETX));
        t.queue_packets.push(total);
        t.conv_queued.push(mine);
        t.longest_other.push(longest_other);
    }

    #[inline]
    fn deliver_data(&mut self, pid: PacketId) {
        let now = self.now;
        let pkt = *self.packets.get(pid);
        let flow = &mut self.flows[pkt.flow as usize];
        flow.cur.received += 1;
        flow.cur.originals += u64::from(!pkt.has(flags::RETX));
        flow.cur.owd_sum += to_secs(now - pkt.tx_time);
        flow.cur.owd_n += 1;
        if flow.sender.is_none() {
            flow.cur.delivered += 1;
            flow.cur.delivered_bytes += pkt.size as u64;
            self.packets.free(pid);
            return;
        }
        let d = flow.sink.on_data(pkt.seq);
        flow.cur.delivered += d.in_order;
        flow.cur.delivered_bytes += d.in_order * flow.packet_size as u64;
        flow.cur.acks_sent += 1;
        // The data packet becomes its ACK, in place.
        let mut fl = 0;
        if pkt.has(flags::CE) {
            fl |= flags::ECHO_CE;
        }
        if pkt.has(flags::RETX) {
            fl |= flags::ECHO_RETX;
        }
        if d.duplicate {
            fl |= flags::DUP;
        }
        // `code` stays as it is: the ACK echoes the data packet's code (pair marks, ...).
        let ack = self.packets.get_mut(pid);
        ack.kind = PacketKind::Ack;
        ack.seq = flow.sink.rcv_nxt;
        ack.echo_seq = pkt.seq;
        ack.size = flow.ack_size;
        ack.route = flow.rev_route;
        ack.route_len = flow.rev_route_len;
        ack.hop = 0;
        ack.flags = fl;
        let first_port = self.routes[flow.rev_route as usize];
        self.send_to_port(pid, first_port);
    }

    #[inline]
    fn deliver_ack(&mut self, pid: PacketId) {
        let now = self.now;
        let pkt = *self.packets.get(pid);
        self.packets.free(pid);
        let f = pkt.flow;
        let flow = &mut self.flows[f as usize];
        flow.cur.acks_received += 1;
        let sender = flow.sender.as_mut().expect("ACK for an uncontrolled flow");
        sender.on_own_ack(pkt.echo_seq, now);
        let out = sender.on_ack(
            pkt.seq,
            pkt.echo_seq,
            pkt.tx_time,
            pkt.first_tx_time,
            pkt.has(flags::ECHO_RETX),
            pkt.has(flags::ECHO_CE),
            pkt.code,
            now,
        );
        flow.cur.rtt_sum += to_secs(out.rtt_sample);
        flow.cur.rtt_n += 1;
        self.pump(f);
        self.arm_timer(f);
    }

    /// Put on the wire everything the sender may send now; for a paced flow, arm the pacing
    /// event if pacing holds data back.
    #[inline]
    fn pump(&mut self, f: u32) {
        let now = self.now;
        loop {
            let flow = &mut self.flows[f as usize];
            let sender = match flow.sender.as_mut() {
                Some(s) => s,
                None => return,
            };
            let tx = match sender.next_transmission(now) {
                Some(tx) => tx,
                None => {
                    if sender.is_paced() {
                        if let Some(t) = sender.pace_arm() {
                            self.events.schedule(t, EventKind::PaceTick, f);
                        }
                    }
                    return;
                }
            };
            flow.cur.sent += 1;
            if tx.retransmission {
                flow.cur.retransmitted += 1;
            }
            let pkt = Packet {
                seq: tx.seq,
                tx_time: now,
                first_tx_time: tx.first_tx,
                arrive_at: 0,
                echo_seq: 0,
                flow: f,
                size: flow.packet_size,
                route: flow.route,
                hop: 0,
                route_len: flow.route_len,
                kind: PacketKind::Data,
                flags: if tx.retransmission { flags::RETX } else { 0 },
                code: tx.code,
            };
            let first_port = self.routes[flow.route as usize];
            match self.packets.try_alloc(pkt, self.live_packet_limit) {
                Some(pid) => self.send_to_port(pid, first_port),
                None => return self.stop_full(f),
            }
        }
    }

    /// The run holds `live_packet_limit` packets and flow `f` would send another: stop at
    /// this instant (the loop ends once the events already due now have run; they find the
    /// arena full too) and leave the diagnosis to `ccsim::finish`.
    #[cold]
    fn stop_full(&mut self, f: u32) {
        self.overflow.get_or_insert(f);
        self.end = self.now;
    }

    /// Make sure a timer event is armed no later than the sender's earliest deadline.
    #[inline]
    fn arm_timer(&mut self, f: u32) {
        if let Some(s) = self.flows[f as usize].sender.as_mut() {
            let d = s.next_deadline();
            if d != NEVER && d < s.timer_armed_at {
                s.timer_armed_at = d;
                self.events.schedule(d, EventKind::FlowTimer, f);
            }
        }
    }

    fn on_flow_timer(&mut self, f: u32) {
        let now = self.now;
        if let Some(s) = self.flows[f as usize].sender.as_mut() {
            if s.timer_armed_at == now {
                s.timer_armed_at = NEVER;
            }
            if s.on_timer(now) {
                self.pump(f);
            }
        }
        self.arm_timer(f);
    }

    /// A paced flow's next burst may be due.
    fn on_pace_tick(&mut self, f: u32) {
        let now = self.now;
        if let Some(s) = self.flows[f as usize].sender.as_mut() {
            s.on_pace_event(now);
        }
        self.pump(f);
        self.arm_timer(f);
    }

    fn on_flow_start(&mut self, f: u32) {
        let flow = &mut self.flows[f as usize];
        if flow.app.is_ticking() {
            if let Some(t) = flow.app.first_tick() {
                self.events.schedule(t, EventKind::SourceTick, f);
            }
            return;
        }
        if let crate::traffic::AppKind::Ftp { packets } = flow.app.kind {
            if let Some(s) = flow.sender.as_mut() {
                s.app_limit = packets.unwrap_or(u64::MAX);
            }
        }
        self.pump(f);
        self.arm_timer(f);
    }

    fn on_flow_stop(&mut self, f: u32) {
        if let Some(s) = self.flows[f as usize].sender.as_mut() {
            s.app_limit = s.app_limit.min(s.high_sent);
        }
    }

    fn on_source_tick(&mut self, f: u32) {
        let now = self.now;
        let flow = &mut self.flows[f as usize];
        if let Some(next) = flow.app.next_tick(now) {
            self.events.schedule(next, EventKind::SourceTick, f);
        }
        match flow.sender.as_mut() {
            Some(s) => {
                s.app_limit += 1;
                self.pump(f);
                self.arm_timer(f);
            }
            None => {
                let pkt = Packet {
                    seq: flow.next_seq,
                    tx_time: now,
                    first_tx_time: now,
                    arrive_at: 0,
                    echo_seq: 0,
                    flow: f,
                    size: flow.packet_size,
                    route: flow.route,
                    hop: 0,
                    route_len: flow.route_len,
                    kind: PacketKind::Data,
                    flags: 0,
                    code: 0,
                };
                flow.next_seq += 1;
                flow.cur.sent += 1;
                let first_port = self.routes[flow.route as usize];
                match self.packets.try_alloc(pkt, self.live_packet_limit) {
                    Some(pid) => self.send_to_port(pid, first_port),
                    None => self.stop_full(f),
                }
            }
        }
    }

    fn close_interval(&mut self, k: u32) {
        let end = self.now;
        let start = end - self.interval;
        self.peak_live_packets = self.peak_live_packets.max(self.packets.capacity_used());
        for (i, f) in self.flows.iter_mut().enumerate() {
            self.intervals.push(i as u32, k, to_secs(start), to_secs(end), &f.cur);
            let cur = std::mem::take(&mut f.cur);
            f.total.add(&cur);
        }
    }

    fn sample_traces(&mut self) {
        let t = to_secs(self.now);
        for tf in &self.traced_flows {
            let f = tf.flow;
            if let Some(s) = self.flows[f as usize].sender.as_mut() {
                let c = &mut self.cwnd_trace;
                c.flow.push(f);
                c.time_s.push(t);
                c.cwnd.push(s.cc.cwnd().min(s.max_window as f64));
                c.ssthresh.push(s.cc.ssthresh());
                c.outstanding.push(s.outstanding());
                c.srtt_s.push(s.rtt.srtt().map_or(f64::NAN, to_secs));
                if !c.extra.is_empty() {
                    let mut own = [f64::NAN; MAX_OWN_COLUMNS];
                    s.cc.trace_values(&mut own[..tf.own_columns as usize]);
                    for ((_, col), &k) in c.extra.iter_mut().zip(&tf.columns) {
                        col.push(if k == NO_COLUMN { f64::NAN } else { own[k as usize] });
                    }
                }
                if let Some(e) = tf.events {
                    let et = &mut self.event_traces[e as usize];
                    s.cc.drain_event_log(&mut |time, index, values| et.push(f, time, index, values));
                }
            }
        }
        for &p in &self.traced_ports {
            let port = &self.ports[p as usize];
            self.queue_trace.port.push(p);
            self.queue_trace.time_s.push(t);
            self.queue_trace.packets.push(port.queue_packets());
            self.queue_trace.bytes.push(port.queue_bytes());
        }
        let next = self.now + self.trace_period;
        if next <= self.end {
            self.events.schedule(next, EventKind::TraceSample, 0);
        }
    }

    /// Move what the traced flows' event logs hold since the last sample into their tables.
    fn drain_event_logs(&mut self) {
        for tf in &self.traced_flows {
            if let (Some(e), Some(s)) = (tf.events, self.flows[tf.flow as usize].sender.as_mut()) {
                let et = &mut self.event_traces[e as usize];
                s.cc.drain_event_log(&mut |time, index, values| et.push(tf.flow, time, index, values));
            }
        }
    }

    /// Bytes the simulation state holds: structures plus their heap (exact for our own
    /// containers; allocator overhead not included). Measurement output (interval table,
    /// traces) is counted separately in the second value.
    pub fn memory_bytes(&self) -> (usize, usize) {
        use std::mem::size_of;
        let flows: usize = self.flows.capacity() * size_of::<Flow>()
            + self
                .flows
                .iter()
                .map(|f| {
                    f.name.capacity() + f.sender.as_ref().map_or(0, |s| s.memory_bytes()) + f.sink.memory_bytes() + f.app.memory_bytes()
                })
                .sum::<usize>();
        let ports: usize = self.ports.capacity() * size_of::<Port>() + self.ports.iter().map(|p| p.memory_bytes()).sum::<usize>();
        let state = flows + ports + self.routes.capacity() * 4 + self.packets.memory_bytes() + self.events.memory_bytes();
        let it = &self.intervals;
        let output = it.len() * (size_of::<u32>() * 2 + size_of::<f64>() * 9 + size_of::<u64>() * 5)
            + self.cwnd_trace.flow.capacity() * self.cwnd_trace.row_bytes()
            + self.event_traces.iter().map(|e| e.flow.capacity() * e.row_bytes()).sum::<usize>()
            + self.queue_trace.port.capacity() * 24
            + self.drop_trace.time_s.capacity() * DropTrace::ROW_BYTES;
        (state, output)
    }

    /// Data and ACK packets of each flow still inside the network (queues, lines, pipes).
    pub fn in_network(&self) -> Vec<(u64, u64)> {
        let mut counts = vec![(0u64, 0u64); self.flows.len()];
        for port in &self.ports {
            port.for_each_packet(&mut |pid| {
                let p = self.packets.get(pid);
                let c = &mut counts[p.flow as usize];
                match p.kind {
                    PacketKind::Data => c.0 += 1,
                    PacketKind::Ack => c.1 += 1,
                }
            });
        }
        counts
    }
}
