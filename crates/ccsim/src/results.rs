//! What a run produces: per-flow summaries with batch means, per-port statistics, the
//! interval table, traces, fairness and a conservation check.

use crate::measure::stats::{batch_means, jain_index};
use crate::measure::{CwndTrace, DepartureLog, DropTrace, EventTrace, FlowCounters, IntervalTable, PortIntervalTable, QueueTrace};
use crate::queue::QueueDiscipline;
use crate::scenario::Scenario;
use crate::sim::time::to_secs;
use crate::world::{ControlCounts, World};

/// Mean and standard deviation of interval means (first `discard` intervals dropped).
#[derive(Clone, Copy, Debug)]
pub struct BatchMean {
    pub mean: f64,
    pub sd: f64,
    pub intervals: usize,
}

#[derive(Clone, Debug)]
pub struct FlowSummary {
    pub name: String,
    pub src: String,
    pub dst: String,
    pub app: &'static str,
    pub cc: &'static str,
    pub packet_size: u32,
    pub totals: FlowCounters,
    pub goodput_pps: BatchMean,
    pub original_pps: BatchMean,
    pub goodput_bps: BatchMean,
    pub delay_s: BatchMean,
    pub owd_s: BatchMean,
    pub drop_rate: BatchMean,
    pub retx_rate: BatchMean,
    pub timeouts: u64,
    /// Packets its source made but discarded because its `source_buffer` was full.
    pub source_discards: u64,
    /// Under Nagle's rule (`nagle`): the writes its source made, and the bytes of user data
    /// written and not yet sent once at the end, held by the rule or in packets the window has
    /// not let go (0 and 0 for other flows).
    pub nagle_writes: u64,
    pub nagle_held_bytes: u64,
    pub final_cwnd: f64,
    /// The receiver's ADPM estimate of its path's largest marking probability at the end (0
    /// unless an ADPM router marked its packets).
    pub price_estimate: f64,
    /// Data and ACK packets of this flow still in the network at the end.
    pub data_in_network: u64,
    pub acks_in_network: u64,
    /// Its control packets (router feedback): raised, received by the source, dropped, and
    /// still on the way.
    pub control: ControlCounts,
    pub control_in_network: u64,
    /// sent == received + dropped + in network, for data, ACKs and control packets.
    pub conserved: bool,
}

#[derive(Clone, Debug)]
pub struct PortSummary {
    pub name: String,
    /// Line rate of each channel, and the channels (1 but on a trunk: `channels`).
    pub bandwidth_bps: u64,
    pub channels: u32,
    pub delay_s: f64,
    pub departures: u64,
    pub bytes_departed: u64,
    pub drops: u64,
    pub utilisation: f64,
    pub max_queue_packets: u32,
    pub max_queue_bytes: u64,
    /// Packets its discipline marked (congestion bits).
    pub marks: u64,
    /// Control packets it dropped for want of room in its lane, and packets lost on its line.
    pub control_drops: u64,
    pub lost: u64,
    /// Its discipline's own counters (`QueueDiscipline::counters`): RED's early and forced
    /// drops, RIO's in- and out-of-profile drops, the SEIF router's withheld messages, ...
    pub counters: Vec<(&'static str, u64)>,
    /// What the queue trace's `state` column holds for this port (`QueueDiscipline::state`),
    /// and its value at the end of the run.
    pub state: Option<(&'static str, f64)>,
}

#[derive(Clone, Debug)]
pub struct Results {
    pub name: String,
    pub seed: u64,
    pub duration_s: f64,
    /// The run was stopped before the scenario's end (interrupted): `duration_s` is how far it
    /// got, and only the intervals closed by then are in the table.
    pub interrupted: bool,
    pub interval_s: f64,
    pub discard: u32,
    pub flows: Vec<FlowSummary>,
    pub ports: Vec<PortSummary>,
    pub intervals: IntervalTable,
    pub cwnd_trace: CwndTrace,
    /// The event logs of the traced flows' algorithms, one table each (packet-pair's
    /// `probes`: every probe).
    pub event_traces: Vec<EventTrace>,
    pub queue_trace: QueueTrace,
    /// Every drop at the ports `[measure] trace_drops` selects.
    pub drop_trace: DropTrace,
    /// Statistics per interval of the ports `[measure] port_stats` selects.
    pub port_intervals: PortIntervalTable,
    /// Every departure at the ports `[measure] trace_departures` selects: (port, log).
    pub departures: Vec<(u32, DepartureLog)>,
    /// Jain's index over the flows' mean goodput (packets/s).
    pub jain_goodput: f64,
    pub events: u64,
    pub peak_packets: usize,
    /// Whole-run conservation: every flow conserved.
    pub conserved: bool,
}

/// Row indices of each flow's intervals, in time order (one pass over the table).
fn rows_by_flow(table: &IntervalTable, flows: usize) -> Vec<Vec<usize>> {
    let mut rows = vec![Vec::new(); flows];
    for (i, &f) in table.flow.iter().enumerate() {
        rows[f as usize].push(i);
    }
    rows
}

/// The run's tables, copied or moved out of the world.
struct RunTables {
    intervals: IntervalTable,
    cwnd_trace: CwndTrace,
    event_traces: Vec<EventTrace>,
    queue_trace: QueueTrace,
    drop_trace: DropTrace,
    port_intervals: PortIntervalTable,
    departures: Vec<(u32, DepartureLog)>,
}

impl Results {
    /// Summaries and copies of the run's tables; the world keeps its own.
    pub fn collect(sc: &Scenario, w: &World) -> Results {
        let tables = RunTables {
            intervals: w.intervals.clone(),
            cwnd_trace: w.cwnd_trace.clone(),
            event_traces: w.event_traces.clone(),
            queue_trace: w.queue_trace.clone(),
            drop_trace: w.drop_trace.clone(),
            port_intervals: w.port_intervals.clone(),
            departures: w.departure_logs(),
        };
        Self::assemble(sc, w, tables)
    }

    /// As `collect`, but the tables move out of the world instead of being copied, so a
    /// finely measured or traced run holds them once (`ccsim::run`, and so Python, use this).
    pub fn take(sc: &Scenario, w: &mut World) -> Results {
        let tables = RunTables {
            intervals: std::mem::take(&mut w.intervals),
            cwnd_trace: std::mem::take(&mut w.cwnd_trace),
            event_traces: std::mem::take(&mut w.event_traces),
            queue_trace: std::mem::take(&mut w.queue_trace),
            drop_trace: std::mem::take(&mut w.drop_trace),
            port_intervals: std::mem::take(&mut w.port_intervals),
            departures: w.take_departure_logs(),
        };
        Self::assemble(sc, w, tables)
    }

    /// The event log table called `name` (e.g. "probes"), if any traced flow keeps one.
    pub fn event_trace(&self, name: &str) -> Option<&EventTrace> {
        self.event_traces.iter().find(|t| t.table == name)
    }

    fn assemble(sc: &Scenario, w: &World, tables: RunTables) -> Results {
        let discard = sc.measure.discard as usize;
        let rows = rows_by_flow(&tables.intervals, w.flows.len());
        let bm = |flow: u32, col: &[f64]| {
            let values: Vec<f64> = rows[flow as usize].iter().map(|&i| col[i]).collect();
            let (mean, sd, intervals) = batch_means(&values, discard);
            BatchMean { mean, sd, intervals }
        };
        let in_net = w.in_network();
        let mut flows = Vec::with_capacity(w.flows.len());
        for (i, f) in w.flows.iter().enumerate() {
            let t = &f.total;
            let [d_net, a_net, c_net] = in_net[i];
            let control = w.control.get(i).copied().unwrap_or_default();
            let conserved = t.sent == t.received + t.data_dropped + d_net
                && t.acks_sent == t.acks_received + t.acks_dropped + a_net
                && control.sent == control.received + control.dropped + control.unroutable + c_net;
            let spec = &sc.flows[i];
            flows.push(FlowSummary {
                name: f.name.clone(),
                src: sc.nodes[f.src as usize].name.clone(),
                dst: sc.nodes[f.dst as usize].name.clone(),
                app: spec.app.name(),
                cc: f.sender.as_ref().map(|s| s.cc.name()).unwrap_or("none"),
                packet_size: spec.packet_size,
                totals: *t,
                goodput_pps: bm(i as u32, &tables.intervals.goodput_pps),
                original_pps: bm(i as u32, &tables.intervals.original_pps),
                goodput_bps: bm(i as u32, &tables.intervals.goodput_bps),
                delay_s: bm(i as u32, &tables.intervals.delay_s),
                owd_s: bm(i as u32, &tables.intervals.owd_s),
                drop_rate: bm(i as u32, &tables.intervals.drop_rate),
                retx_rate: bm(i as u32, &tables.intervals.retx_rate),
                timeouts: f.sender.as_ref().map(|s| s.timeouts).unwrap_or(0),
                source_discards: f.app.discarded(),
                nagle_writes: f.nagle().map_or(0, |n| n.writes),
                nagle_held_bytes: f.nagle().map_or(0, |n| n.unsent(f.sender.as_ref().map_or(0, |s| s.high_sent))),
                final_cwnd: f.sender.as_ref().map(|s| crate::transport::cc::CongestionControl::cwnd(&s.cc)).unwrap_or(f64::NAN),
                price_estimate: f.sink.price_estimate,
                data_in_network: d_net,
                acks_in_network: a_net,
                control,
                control_in_network: c_net,
                conserved,
            });
        }
        // The time simulated: the scenario's duration, or less for a run stopped early.
        let dur = to_secs(w.end.min(sc.duration));
        let mut names = sc.port_names().iter().cloned();
        let ports = w
            .ports
            .iter()
            .map(|p| {
                let (control_drops, lost) = p.control_drops_and_losses();
                PortSummary {
                    name: names.next().unwrap_or_default(),
                    bandwidth_bps: p.bandwidth_bps(),
                    channels: p.channels(),
                    delay_s: to_secs(p.delay),
                    departures: p.stats.departures,
                    bytes_departed: p.stats.bytes_departed,
                    drops: p.stats.drops,
                    utilisation: (to_secs(p.stats.busy_ps) / (dur * p.channels() as f64)).min(1.0),
                    max_queue_packets: p.stats.max_queue_packets,
                    max_queue_bytes: p.stats.max_queue_bytes,
                    marks: p.qdisc.marks(),
                    control_drops,
                    lost,
                    counters: {
                        let mut c = Vec::new();
                        p.qdisc.counters(&mut |name, v| c.push((name, v)));
                        c
                    },
                    state: p.qdisc.state(),
                }
            })
            .collect();
        // Fairness in bits, as FQ shares a line: flows of different packet sizes that get
        // equal bit rates are fair (in packets/s they would not look it).
        let goodputs: Vec<f64> = flows.iter().map(|f: &FlowSummary| f.goodput_bps.mean).filter(|x| !x.is_nan()).collect();
        let conserved = flows.iter().all(|f| f.conserved);
        Results {
            name: sc.name.clone(),
            seed: sc.seed,
            duration_s: dur,
            interrupted: w.stopped,
            interval_s: to_secs(sc.measure.interval),
            discard: sc.measure.discard,
            flows,
            ports,
            intervals: tables.intervals,
            cwnd_trace: tables.cwnd_trace,
            event_traces: tables.event_traces,
            queue_trace: tables.queue_trace,
            drop_trace: tables.drop_trace,
            port_intervals: tables.port_intervals,
            departures: tables.departures,
            jain_goodput: jain_index(&goodputs),
            events: w.events.processed(),
            peak_packets: w.peak_live_packets,
            conserved,
        }
    }
}
