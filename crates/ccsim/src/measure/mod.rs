//! Measurement: per-flow counters, interval statistics (batch means), fairness, traces.
//!
//! Source: Keshav 1991 §6.4 (keshav91-experiments.md §2.7): per flow and per interval,
//! effective throughput (first-time deliveries, retransmissions excluded), mean round-trip
//! delay, drop rate and retransmission rate; the first interval is discarded; the table
//! reports the mean of the remaining interval means and their standard deviation.
pub mod stats;

/// Counters for one flow over the whole run. The counts the interval table reports are kept
/// per interval first ([`IntervalCounters`]) and added in at each interval's end; the rest
/// (packets received, ACKs) are counted here directly, so a flow holds them once.
#[derive(Clone, Copy, Debug, Default)]
pub struct FlowCounters {
    /// Data packets put on the wire (first transmissions and retransmissions).
    pub sent: u64,
    pub retransmitted: u64,
    /// First-time in-order deliveries at the sink (goodput).
    pub delivered: u64,
    pub delivered_bytes: u64,
    /// Data packets that reached the sink (duplicates included).
    pub received: u64,
    /// Of those, first transmissions (not retransmissions): Keshav's "throughput, excluding
    /// retransmissions" as his tables count it (keshav91 finding S2-effective-throughput).
    pub originals: u64,
    pub data_dropped: u64,
    pub acks_sent: u64,
    pub acks_received: u64,
    pub acks_dropped: u64,
    /// Sum (seconds) and count of the sender's RTT samples.
    pub rtt_sum: f64,
    pub rtt_n: u64,
    /// Sum (seconds) and count of one-way delays measured at the sink.
    pub owd_sum: f64,
    pub owd_n: u64,
}

/// Counters for one flow over the current measurement interval: what the interval table
/// reports.
#[derive(Clone, Copy, Debug, Default)]
pub struct IntervalCounters {
    pub sent: u64,
    pub retransmitted: u64,
    pub delivered: u64,
    pub delivered_bytes: u64,
    pub originals: u64,
    pub data_dropped: u64,
    pub rtt_sum: f64,
    pub rtt_n: u64,
    pub owd_sum: f64,
    pub owd_n: u64,
}

/// The counts an interval reports, by name: adding one set of counters to another.
macro_rules! add_interval_counts {
    ($to:expr, $from:expr $(, $more:ident)*) => {{
        let (to, from) = ($to, $from);
        to.sent += from.sent;
        to.retransmitted += from.retransmitted;
        to.delivered += from.delivered;
        to.delivered_bytes += from.delivered_bytes;
        to.originals += from.originals;
        to.data_dropped += from.data_dropped;
        to.rtt_sum += from.rtt_sum;
        to.rtt_n += from.rtt_n;
        to.owd_sum += from.owd_sum;
        to.owd_n += from.owd_n;
        $(to.$more += from.$more;)*
    }};
}

impl IntervalCounters {
    pub fn add(&mut self, o: &IntervalCounters) {
        add_interval_counts!(self, o);
    }
}

impl FlowCounters {
    /// A closed interval's counts added to the run's.
    pub fn add_interval(&mut self, o: &IntervalCounters) {
        add_interval_counts!(self, o);
    }

    pub fn add(&mut self, o: &FlowCounters) {
        add_interval_counts!(self, o, received, acks_sent, acks_received, acks_dropped);
    }
}

/// One row per (flow, interval), stored by column.
#[derive(Clone, Debug, Default)]
pub struct IntervalTable {
    pub flow: Vec<u32>,
    pub interval: Vec<u32>,
    pub start_s: Vec<f64>,
    pub end_s: Vec<f64>,
    pub goodput_pps: Vec<f64>,
    /// First transmissions received per second (retransmitted copies excluded).
    pub original_pps: Vec<f64>,
    pub goodput_bps: Vec<f64>,
    /// Mean RTT (s); NaN when the interval had no sample.
    pub delay_s: Vec<f64>,
    pub delay_samples: Vec<u64>,
    pub owd_s: Vec<f64>,
    pub drop_rate: Vec<f64>,
    pub retx_rate: Vec<f64>,
    pub sent: Vec<u64>,
    pub delivered: Vec<u64>,
    pub drops: Vec<u64>,
    pub retransmitted: Vec<u64>,
    /// Control packets (router feedback) raised for the flow, and their bytes.
    pub feedback: Vec<u64>,
    pub feedback_bytes: Vec<u64>,
}

impl IntervalTable {
    /// Bytes one row takes.
    pub const ROW_BYTES: usize = 4 * 2 + 8 * 9 + 8 * 7;

    /// A row; `feedback` = (control packets raised for the flow, their bytes).
    pub fn push(&mut self, flow: u32, interval: u32, start_s: f64, end_s: f64, c: &IntervalCounters, feedback: (u64, u64)) {
        let len = end_s - start_s;
        self.flow.push(flow);
        self.interval.push(interval);
        self.start_s.push(start_s);
        self.end_s.push(end_s);
        self.goodput_pps.push(c.delivered as f64 / len);
        self.original_pps.push(c.originals as f64 / len);
        self.goodput_bps.push(c.delivered_bytes as f64 * 8.0 / len);
        self.delay_s.push(if c.rtt_n > 0 { c.rtt_sum / c.rtt_n as f64 } else { f64::NAN });
        self.delay_samples.push(c.rtt_n);
        self.owd_s.push(if c.owd_n > 0 { c.owd_sum / c.owd_n as f64 } else { f64::NAN });
        self.drop_rate.push(c.data_dropped as f64 / len);
        self.retx_rate.push(c.retransmitted as f64 / len);
        self.sent.push(c.sent);
        self.delivered.push(c.delivered);
        self.drops.push(c.data_dropped);
        self.retransmitted.push(c.retransmitted);
        self.feedback.push(feedback.0);
        self.feedback_bytes.push(feedback.1);
    }

    pub fn len(&self) -> usize {
        self.flow.len()
    }

    pub fn is_empty(&self) -> bool {
        self.flow.is_empty()
    }

    /// Room for `rows` rows, allocated once: the builder knows the count (flows x
    /// intervals), and growing by doubling would hold up to twice the table and copy it.
    /// Best effort: if the memory is not there, the columns grow as rows come.
    pub fn reserve_exact(&mut self, rows: usize) {
        fn reserve<T>(v: &mut Vec<T>, rows: usize) {
            let _ = v.try_reserve_exact(rows);
        }
        reserve(&mut self.flow, rows);
        reserve(&mut self.interval, rows);
        for c in [
            &mut self.start_s,
            &mut self.end_s,
            &mut self.goodput_pps,
            &mut self.original_pps,
            &mut self.goodput_bps,
            &mut self.delay_s,
            &mut self.owd_s,
            &mut self.drop_rate,
            &mut self.retx_rate,
        ] {
            reserve(c, rows);
        }
        for c in [
            &mut self.delay_samples,
            &mut self.sent,
            &mut self.delivered,
            &mut self.drops,
            &mut self.retransmitted,
            &mut self.feedback,
            &mut self.feedback_bytes,
        ] {
            reserve(c, rows);
        }
    }
}

/// Decimated time series, stored by column: periodic samples of congestion windows and
/// queue lengths (one sample per entity per trace period, so a long run stays small).
///
/// Besides the window, each flow sample holds the sender's smoothed RTT and the trace columns
/// its algorithm declares of its own (`Algorithm::TRACE_COLUMNS`: packet-pair's estimator
/// state, for instance), one column per name across the run's algorithms, NaN for flows whose
/// algorithm has no such column. A sample shows the values held at that instant; what came and
/// went between two samples is in the algorithms' event logs ([`EventTrace`]).
#[derive(Clone, Debug, Default)]
pub struct CwndTrace {
    pub flow: Vec<u32>,
    pub time_s: Vec<f64>,
    pub cwnd: Vec<f64>,
    pub ssthresh: Vec<f64>,
    pub outstanding: Vec<u64>,
    /// The sender's smoothed RTT, seconds (NaN before the first sample).
    pub srtt_s: Vec<f64>,
    /// The algorithms' own columns: (name, values).
    pub extra: Vec<(&'static str, Vec<f64>)>,
}

impl CwndTrace {
    /// Bytes one row takes.
    pub fn row_bytes(&self) -> usize {
        4 + 8 * (5 + self.extra.len())
    }

    /// The column called `name` (generic or an algorithm's own).
    pub fn column(&self, name: &str) -> Option<&[f64]> {
        match name {
            "time_s" => Some(&self.time_s),
            "cwnd" => Some(&self.cwnd),
            "ssthresh" => Some(&self.ssthresh),
            "srtt_s" => Some(&self.srtt_s),
            _ => self.extra.iter().find(|(n, _)| *n == name).map(|(_, v)| v.as_slice()),
        }
    }
}

/// An algorithm's event log over the run (`Algorithm::EVENT_LOG`; packet-pair's `probes`),
/// one row per record as it happened, stored by column. A traced flow keeps at most
/// [`EVENT_LOG_CAPACITY`] records per trace period, the latest; `index` numbers them from 1
/// per flow, so a gap in the numbers shows records left out.
#[derive(Clone, Debug)]
pub struct EventTrace {
    pub table: &'static str,
    /// The name of the `index` column.
    pub index_name: &'static str,
    pub columns: &'static [&'static str],
    pub flow: Vec<u32>,
    pub time_s: Vec<f64>,
    pub index: Vec<u64>,
    /// One vector per column, in `columns` order.
    pub values: Vec<Vec<f64>>,
}

/// Records a traced flow's event log keeps between two trace samples.
pub const EVENT_LOG_CAPACITY: usize = 64;

impl EventTrace {
    pub fn new(log: crate::transport::cc::EventLog) -> Self {
        let (table, index_name, columns) = (log.table, log.index, log.columns);
        EventTrace { table, index_name, columns, flow: vec![], time_s: vec![], index: vec![], values: vec![Vec::new(); columns.len()] }
    }

    /// Bytes one row takes.
    pub fn row_bytes(&self) -> usize {
        4 + 8 * (2 + self.columns.len())
    }

    pub fn push(&mut self, flow: u32, time: crate::sim::SimTime, index: u64, values: &[f64]) {
        self.flow.push(flow);
        self.time_s.push(crate::sim::time::to_secs(time));
        self.index.push(index);
        for (col, &v) in self.values.iter_mut().zip(values) {
            col.push(v);
        }
    }

    /// The column called `name`.
    pub fn column(&self, name: &str) -> Option<&[f64]> {
        self.columns.iter().position(|c| *c == name).map(|k| self.values[k].as_slice())
    }

    pub fn len(&self) -> usize {
        self.flow.len()
    }

    pub fn is_empty(&self) -> bool {
        self.flow.is_empty()
    }
}

/// Every packet dropped at a traced port, one row per drop as it happened, stored by column
/// (`[measure] trace_drops`): what was dropped and how full the port's queue was, counted in
/// waiting packets right after the drop (the packet on the line not included). A
/// conversation is one flow in one direction (data or ACKs), as Fair Queueing counts them,
/// so `conv_queued` against `longest_other` shows whether the drop hit the longest queue.
#[derive(Clone, Debug, Default)]
pub struct DropTrace {
    pub time_s: Vec<f64>,
    pub port: Vec<u32>,
    pub flow: Vec<u32>,
    /// The data packet's sequence number; for an ACK, its cumulative ACK number.
    pub seq: Vec<u64>,
    /// The dropped packet was an ACK (else data).
    pub ack: Vec<bool>,
    /// The dropped packet was a retransmission.
    pub retransmission: Vec<bool>,
    /// Packets waiting in the port's queue after the drop.
    pub queue_packets: Vec<u32>,
    /// Of those, packets of the dropped packet's conversation.
    pub conv_queued: Vec<u32>,
    /// The most packets any other conversation has waiting.
    pub longest_other: Vec<u32>,
}

impl DropTrace {
    /// Bytes one row takes.
    pub const ROW_BYTES: usize = 8 + 4 + 4 + 8 + 1 + 1 + 4 * 3;

    pub fn len(&self) -> usize {
        self.time_s.len()
    }

    pub fn is_empty(&self) -> bool {
        self.time_s.is_empty()
    }
}

#[derive(Clone, Debug, Default)]
pub struct QueueTrace {
    pub port: Vec<u32>,
    pub time_s: Vec<f64>,
    pub packets: Vec<u32>,
    pub bytes: Vec<u64>,
    /// The discipline's own control variable (`QueueDiscipline::state`; NaN where it has none).
    pub state: Vec<f64>,
}

impl QueueTrace {
    /// Bytes a row holds: port, time, packets, bytes, state.
    pub const ROW_BYTES: usize = 4 + 8 + 4 + 8 + 8;
}

/// Per-port statistics per measurement interval (`[measure] port_stats`), one row per
/// (port, interval), stored by column.
#[derive(Clone, Debug, Default)]
pub struct PortIntervalTable {
    pub port: Vec<u32>,
    pub interval: Vec<u32>,
    pub start_s: Vec<f64>,
    pub end_s: Vec<f64>,
    /// Share of the interval the line was transmitting (a transmission counts where it
    /// starts); for a port of several channels, busy channel-time over channels x interval.
    pub utilisation: Vec<f64>,
    pub departures: Vec<u64>,
    pub bytes: Vec<u64>,
    pub drops: Vec<u64>,
    pub marks: Vec<u64>,
    pub control_drops: Vec<u64>,
    pub lost: Vec<u64>,
    /// Time-averaged queue (waiting packets, not the one on the line), packets and bytes.
    pub mean_queue_packets: Vec<f64>,
    pub mean_queue_bytes: Vec<f64>,
}

/// A port's cumulative counters at the end of the last interval (for the differences).
#[derive(Clone, Copy, Debug, Default)]
pub struct PortSnapshot {
    /// The port's channels (busy time is summed over them).
    pub channels: u32,
    pub departures: u64,
    pub bytes: u64,
    pub busy_ps: u64,
    pub drops: u64,
    pub marks: u64,
    pub control_drops: u64,
    pub lost: u64,
    pub packet_ps: f64,
    pub byte_ps: f64,
}

impl PortIntervalTable {
    pub const ROW_BYTES: usize = 4 * 2 + 8 * 13;

    pub fn len(&self) -> usize {
        self.port.len()
    }

    pub fn is_empty(&self) -> bool {
        self.port.is_empty()
    }

    /// The row of port `port` for interval `k` over [start, end], from its counters now and
    /// at the last interval's end (which `now` replaces).
    pub fn push(
        &mut self,
        port: u32,
        k: u32,
        start: crate::sim::SimTime,
        end: crate::sim::SimTime,
        now: PortSnapshot,
        last: &mut PortSnapshot,
    ) {
        let len_ps = (end - start) as f64;
        let capacity_ps = len_ps * now.channels.max(1) as f64;
        self.port.push(port);
        self.interval.push(k);
        self.start_s.push(crate::sim::time::to_secs(start));
        self.end_s.push(crate::sim::time::to_secs(end));
        self.utilisation.push(((now.busy_ps - last.busy_ps) as f64 / capacity_ps).min(1.0));
        self.departures.push(now.departures - last.departures);
        self.bytes.push(now.bytes - last.bytes);
        self.drops.push(now.drops - last.drops);
        self.marks.push(now.marks - last.marks);
        self.control_drops.push(now.control_drops - last.control_drops);
        self.lost.push(now.lost - last.lost);
        self.mean_queue_packets.push((now.packet_ps - last.packet_ps) / len_ps);
        self.mean_queue_bytes.push((now.byte_ps - last.byte_ps) / len_ps);
        *last = now;
    }
}

/// The departures of the ports `[measure] trace_departures` selects, one table per port.
pub use crate::net::port::DepartureLog;
