//! A flow's counters: over the whole run, and per measurement interval (added into the
//! run's at each interval's end).

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
