//! The world: every component in flat `Vec`s addressed by index, and the event loop.
//!
//! Nothing here allocates per packet: packets come from the arena (and an ACK reuses the slot
//! of the data packet it answers), events are plain values in a binary heap, counters are
//! fields. Dispatch is a `match` on the event kind. The per-packet path (forwarding,
//! delivery, sending) is in `packets`; measurement (intervals, traces, drop census, memory
//! accounting) in `measure`.

use crate::measure::{
    CwndTrace, DropTrace, EventTrace, FlowCounters, IntervalCounters, IntervalTable, PortIntervalTable, PortSnapshot, QueueTrace,
};
use crate::net::{Packet, PacketArena, PacketKind, Port};
use crate::queue::Signal;
use crate::sim::{Event, EventKind, EventQueue, SimTime};
use crate::traffic::nagle::Nagle;
use crate::traffic::sizes::VariableSizes;
use crate::traffic::App;
use crate::transport::sender::NEVER;
use crate::transport::{Sender, Sink};
pub use profile::ProfileMarker;
pub use rations::RationBoard;

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
    /// Bytes of its data packets; 0 when their sizes vary (`sizes`; use `data_size`).
    pub packet_size: u32,
    /// Its packets' sizes when they vary: a size mix (a packet's size is a function of its
    /// sequence number) or Nagle's rule coalescing its source's writes ([`Flow::data_size`]).
    pub sizes: Option<Box<VariableSizes>>,
    pub ack_size: u32,
    /// Traffic class of its packets.
    pub class: u8,
    /// Its edge marker, if it has a profile (`profile_rate`).
    pub marker: Option<Box<ProfileMarker>>,
    /// Next sequence number of an uncontrolled flow.
    pub next_seq: u64,
    /// Counters of the current measurement interval, and of the whole run (the intervals
    /// already closed, and the counts no interval reports: packets received, ACKs).
    pub cur: IntervalCounters,
    pub total: FlowCounters,
}

impl Flow {
    /// Bytes of its data packet `seq` (a retransmission's are its original's). A flow of one
    /// size pays one predictable branch.
    #[inline]
    pub fn data_size(&self, seq: u64) -> u32 {
        // A flow with a size mix has `packet_size` 0, so one-size flows read nothing more.
        if self.packet_size != 0 {
            self.packet_size
        } else {
            self.mixed_size(seq)
        }
    }

    /// Its data packet `seq` of `size` bytes first sent now, with `flags` and `code` (the one
    /// place a data packet is made: window flows' and uncontrolled sources'; a retransmission
    /// then sets its `first_tx_time`).
    #[inline(always)]
    pub fn data_packet(&self, id: u32, seq: u64, size: u32, now: SimTime, flags: u8, code: u8) -> Packet {
        Packet {
            seq,
            tx_time: now,
            first_tx_time: now,
            arrive_at: now,
            echo_seq: 0,
            flow: id,
            size,
            route: self.route,
            hop: 0,
            route_len: self.route_len,
            kind: PacketKind::Data,
            flags,
            class: self.class,
            code,
            xflags: 0,
        }
    }

    /// The flags its profile gives a data packet of `size` bytes leaving now (one test for a
    /// flow without a profile; the marker out of line, as the hot path is sensitive to size).
    #[inline]
    pub fn profile_flag(&mut self, now: SimTime, size: u32) -> u8 {
        match self.marker.as_deref_mut() {
            None => 0,
            Some(m) => Self::mark(m, now, size),
        }
    }

    #[cold]
    #[inline(never)]
    fn mark(m: &mut ProfileMarker, now: SimTime, size: u32) -> u8 {
        m.in_profile(now, size) as u8 * crate::net::packet::flags::IN_PROFILE
    }

    #[cold]
    #[inline(never)]
    fn mixed_size(&self, seq: u64) -> u32 {
        self.sizes.as_ref().expect("a flow of packet_size 0 has variable sizes").size_of(seq)
    }

    /// Bytes of its `count` data packets from sequence number `first` on.
    #[inline]
    pub fn data_bytes(&self, first: u64, count: u64) -> u64 {
        if self.packet_size != 0 {
            count * self.packet_size as u64
        } else {
            self.mixed_bytes(first, count)
        }
    }

    #[cold]
    #[inline(never)]
    fn mixed_bytes(&self, first: u64, count: u64) -> u64 {
        self.sizes.as_ref().expect("a flow of packet_size 0 has variable sizes").bytes(first, count)
    }

    /// Whether the size of its data packet `seq` can still be told (for a check on arrival).
    pub fn size_known(&self, seq: u64) -> bool {
        self.sizes.as_ref().is_none_or(|s| s.knows(seq))
    }

    /// Whether it coalesces its source's writes by Nagle's rule (`nagle`).
    pub fn coalesces(&self) -> bool {
        matches!(self.sizes.as_deref(), Some(VariableSizes::Coalesced(_)))
    }

    /// Nagle's rule, if the flow coalesces its source's writes.
    pub fn nagle(&self) -> Option<&Nagle> {
        match self.sizes.as_deref() {
            Some(VariableSizes::Coalesced(n)) => Some(n),
            _ => None,
        }
    }
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

/// A flow's control packets (router feedback) over the run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ControlCounts {
    /// Raised for this flow by a discipline and put on the way to its source, and their bytes.
    pub sent: u64,
    pub sent_bytes: u64,
    /// `sent` and `sent_bytes` when the last measurement interval closed.
    pub at_interval: (u64, u64),
    /// Reached the source.
    pub received: u64,
    /// Dropped on the way (a full lane, a lossy line).
    pub dropped: u64,
    /// Raised at a node the flow's reverse path does not pass through: never sent.
    pub unroutable: u64,
}

/// See [`TracedFlow::columns`].
pub const NO_COLUMN: u8 = u8::MAX;

/// Most trace columns of its own an algorithm may declare.
pub const MAX_OWN_COLUMNS: usize = 16;

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
    /// Packets the run may hold at once (`[limits] packet_memory`, `scenario::limits`).
    pub live_packet_limit: usize,
    /// The first flow whose packet would have passed the limit; the run stops there.
    pub overflow: Option<u32>,
    /// Scheduled link delay changes: (forward port; the reverse port is the next one, delay).
    pub link_changes: Vec<(u32, SimTime)>,
    /// Ports with statistics per interval (`[measure] port_stats`), their counters at the end
    /// of the last interval, and the table.
    pub stat_ports: Vec<u32>,
    pub port_snaps: Vec<PortSnapshot>,
    /// A parallel run's first thread: the statistics of the stat ports the other thread owns
    /// at the interval about to close, by position in `stat_ports` (empty otherwise).
    pub foreign_snaps: Vec<Option<PortSnapshot>>,
    /// A parallel run: this thread's ports whose lines lead to the other thread's half.
    pub cross_ports: Vec<u32>,
    /// A parallel run: per node, the thread that simulates it (empty otherwise).
    pub side_of: Vec<u8>,
    /// A parallel run's joined world: the packets each flow still has in the network, counted
    /// on both sides before the second side's ports moved over (`in_network` returns these).
    pub joined_in_network: Option<Vec<[u64; 3]>>,
    pub port_intervals: PortIntervalTable,
    /// Per flow: its control packets (empty when no discipline raises signals).
    pub control: Vec<ControlCounts>,
    /// Scratch for the signals a port hands over.
    pub signal_buf: Vec<Signal>,
    /// The run was stopped before its end time by whoever drove it (`stop_here`).
    pub stopped: bool,
    /// BBN's ration exchange, when some port runs `bbn`.
    pub rations: Option<Box<RationBoard>>,
}

mod control;
mod measure;
mod packets;
mod profile;
mod rations;
mod sources;

impl World {
    /// Run until the end time. Events scheduled exactly at the end still run.
    pub fn run(&mut self) {
        self.run_until(self.end);
        self.close();
    }

    /// If the next event is a pipe's arrival, start loading its packets while this one runs
    /// (issue 22: at 10^5 flows those slots are out of the caches; a small run skips it).
    #[inline(always)]
    fn prefetch_next(&self) {
        if !self.packets.large() {
            return;
        }
        // Two steps: the ring of the event after next (its line arrives while this event and
        // the next run), then the packets of the next event, whose ring line the previous
        // turn asked for.
        if let Some(n) = self.events.peek_second_hint() {
            if n.kind() == EventKind::PipeArrival {
                self.ports[n.target() as usize].prefetch_pipe_ring();
            }
        }
        if let Some(n) = self.events.peek_hint() {
            if n.kind() == EventKind::PipeArrival {
                self.ports[n.target() as usize].prefetch_pipe(&self.packets);
            }
        }
    }

    /// Run the events due at or before `t` (and not past the end): one window of a parallel
    /// run.
    pub fn run_until(&mut self, t: SimTime) {
        while let Some(ev) = self.events.pop_due(t.min(self.end)) {
            self.now = ev.time;
            self.prefetch_next();
            self.handle(ev);
        }
    }

    /// Run at most `max_events` events; true when the run has reached its end (then call
    /// [`World::close`]). For runs driven in slices (progress, interruption).
    pub fn advance(&mut self, max_events: u64) -> bool {
        for _ in 0..max_events {
            match self.events.pop_due(self.end) {
                Some(ev) => {
                    self.now = ev.time;
                    self.prefetch_next();
                    self.handle(ev);
                }
                None => return true,
            }
        }
        false
    }

    /// End the run here, before its end time: what was measured so far is kept (intervals
    /// closed so far, totals to now).
    pub fn stop_here(&mut self) {
        self.end = self.now;
        self.stopped = true;
    }

    /// Finish the run at its end time: the last totals and traces.
    pub fn close(&mut self) {
        self.now = self.end;
        self.drain_event_logs();
        self.peak_live_packets = self.peak_live_packets.max(self.packets.capacity_used());
        for f in &mut self.flows {
            let cur = std::mem::take(&mut f.cur);
            f.total.add_interval(&cur);
        }
    }

    #[inline]
    fn handle(&mut self, ev: Event) {
        let t = ev.target();
        match ev.kind() {
            EventKind::PipeArrival => {
                let port = &mut self.ports[t as usize];
                if let Some(p) = port.on_pipe_arrival(&self.packets, self.now, &mut self.events, t) {
                    if port.lossy() && port.lose() {
                        self.count_drop(p);
                    } else {
                        self.arrive(p);
                    }
                }
            }
            EventKind::TxDone => {
                self.ports[t as usize].on_tx_done(&mut self.packets, self.now, &mut self.events, t);
            }
            EventKind::PortWake => self.ports[t as usize].on_wake(&mut self.packets, self.now, &mut self.events, t),
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
            EventKind::RationUpdate => self.update_rations(),
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
}
