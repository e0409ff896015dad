//! Traces stored by column: the sampled windows and queues, the algorithms' event logs and
//! the drops.

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
