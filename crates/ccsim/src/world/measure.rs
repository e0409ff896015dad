//! Measurement: the interval table, the periodic traces, the drop census, and the accounting
//! of memory and of packets still in the network.

use super::{Flow, World, MAX_OWN_COLUMNS, NO_COLUMN};
use crate::measure::{DropTrace, PortIntervalTable, QueueTrace};
use crate::net::packet::flags;
use crate::net::{Packet, PacketId, PacketKind, Port};
use crate::queue::QueueDiscipline;
use crate::sim::{time::to_secs, EventKind};
use crate::transport::cc::CongestionControl;

impl World {
    /// Add the drop of `d` at `port` to the drop trace, with a census of the port's queue
    /// (only for traced ports, and drops are rare: off the common path).
    #[cold]
    #[inline(never)]
    pub(super) fn record_drop(&mut self, port: u32, d: PacketId) {
        let p = *self.packets.get(d);
        let conv = |q: &Packet| q.flow * 2 + u32::from(q.kind != PacketKind::Data);
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

    pub(super) fn close_interval(&mut self, k: u32) {
        let end = self.now;
        let start = end - self.interval;
        self.peak_live_packets = self.peak_live_packets.max(self.packets.capacity_used());
        for (i, f) in self.flows.iter_mut().enumerate() {
            let feedback = match self.control.get_mut(i) {
                Some(c) => {
                    let (n, b) = std::mem::replace(&mut c.at_interval, (c.sent, c.sent_bytes));
                    (c.sent - n, c.sent_bytes - b)
                }
                None => (0, 0),
            };
            self.intervals.push(i as u32, k, to_secs(start), to_secs(end), &f.cur, feedback);
            let cur = std::mem::take(&mut f.cur);
            f.total.add_interval(&cur);
        }
        for (i, (&p, last)) in self.stat_ports.iter().zip(self.port_snaps.iter_mut()).enumerate() {
            let now = match self.foreign_snaps.get_mut(i).and_then(Option::take) {
                Some(snap) => snap,
                None => self.ports[p as usize].snapshot(end),
            };
            self.port_intervals.push(p, k, start, end, now, last);
        }
    }

    pub(super) fn sample_traces(&mut self) {
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
            self.queue_trace.state.push(port.qdisc.state().map_or(f64::NAN, |(_, v)| v));
        }
        let next = self.now + self.trace_period;
        if next <= self.end {
            self.events.schedule(next, EventKind::TraceSample, 0);
        }
    }

    /// Move what the traced flows' event logs hold since the last sample into their tables.
    pub(super) fn drain_event_logs(&mut self) {
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
                    f.name.capacity()
                        + f.sender.as_ref().map_or(0, |s| s.memory_bytes())
                        + f.sink.memory_bytes()
                        + f.app.memory_bytes()
                        + f.sizes.as_ref().map_or(0, |s| s.memory_bytes())
                })
                .sum::<usize>();
        let ports: usize = self.ports.capacity() * size_of::<Port>() + self.ports.iter().map(|p| p.memory_bytes()).sum::<usize>();
        let state = flows + ports + self.routes.capacity() * 4 + self.packets.memory_bytes() + self.events.memory_bytes();
        let it = &self.intervals;
        let output = it.len() * (size_of::<u32>() * 2 + size_of::<f64>() * 9 + size_of::<u64>() * 5)
            + self.cwnd_trace.flow.capacity() * self.cwnd_trace.row_bytes()
            + self.event_traces.iter().map(|e| e.flow.capacity() * e.row_bytes()).sum::<usize>()
            + self.queue_trace.port.capacity() * QueueTrace::ROW_BYTES
            + self.drop_trace.time_s.capacity() * DropTrace::ROW_BYTES
            + self.port_intervals.port.capacity() * PortIntervalTable::ROW_BYTES;
        (state, output)
    }

    /// The departure logs of the ports that keep one, copied.
    pub fn departure_logs(&self) -> Vec<(u32, crate::measure::DepartureLog)> {
        (0..self.ports.len() as u32).filter_map(|p| self.ports[p as usize].departure_log().map(|d| (p, d.clone()))).collect()
    }

    /// The departure logs of the ports that keep one, moved out of the ports.
    pub fn take_departure_logs(&mut self) -> Vec<(u32, crate::measure::DepartureLog)> {
        (0..self.ports.len() as u32).filter_map(|p| self.ports[p as usize].take_departures().map(|d| (p, d))).collect()
    }

    /// Data, ACK and control packets of each flow still inside the network (queues, lanes,
    /// lines, pipes).
    pub fn in_network(&self) -> Vec<[u64; 3]> {
        if let Some(joined) = &self.joined_in_network {
            return joined.clone();
        }
        let mut counts = vec![[0u64; 3]; self.flows.len()];
        for port in &self.ports {
            port.for_each_packet(&mut |pid| {
                let p = self.packets.get(pid);
                counts[p.flow as usize][p.kind as usize] += 1;
            });
        }
        counts
    }
}
