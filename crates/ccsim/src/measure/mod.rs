//! Measurement: per-flow counters, interval statistics (batch means), fairness, traces.
//!
//! Source: Keshav 1991 §6.4 (keshav91-experiments.md §2.7): per flow and per interval,
//! effective throughput (first-time deliveries, retransmissions excluded), mean round-trip
//! delay, drop rate and retransmission rate; the first interval is discarded; the table
//! reports the mean of the remaining interval means and their standard deviation.
mod counters;
pub mod stats;
mod traces;

pub use counters::{FlowCounters, IntervalCounters};
pub use traces::{CwndTrace, DropTrace, EventTrace, QueueTrace, EVENT_LOG_CAPACITY};

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
