//! The trace-driven cost evaluation of Keshav 1991 §3.5: an ordinary ccsim run records the
//! FQ gateway's buffer operations, and the trace is replayed against the four structures.
//!
//! Source: thesis chapter 3 §3.5 ("Methodology", "Evaluation results"), spec
//! keshav91-fq-packet-pair.md M2.4-M2.6, gaps §6 (A11), validation targets §7 (V11-V14).
//!
//! # Method (§3.5, spec M2.4)
//! 1. A workload is described by a few parameters ([`Workload`]: N and B vary, W is fixed).
//! 2. A network simulation produces the trace of insert and get_min operations at the
//!    gateway's FQ buffer ([`record`]). The thesis used REAL; here it is the engine itself, the
//!    workload being an ordinary scenario (`workload.rs`) whose trunk port runs `fq` and keeps
//!    its record of buffer operations (`queue/fq/buffer_log.rs`).
//! 3. The same trace is replayed against each of the four structures ([`replay`]), recording
//!    per structure the average and maximum cost of an insertion (drops included) and of a
//!    get_min. Average insertion cost = # elementary operations / # insertions.
//! 4. Sweeping (N, B) maps the cost surfaces: the sweep, the thesis's numbers (data:
//!    python/ccsim/experiments/keshav91/fq_buffers_reference.toml), the qualitative checks and
//!    the report are in python/ccsim/experiments/keshav91/fq_buffers.py
//!    (`ccsim experiment keshav91-fq-buffers`).
//!
//! # Chapter 3's gateway, and the engine's FQ
//! What the engine's FQ reproduces, given the workload's settings:
//! - bids and finish numbers of §3.2 with the Fig 3.1 round number, δ = 0;
//! - the bounded heap of MAX = B: the arrival is placed first, then the largest bid is dropped
//!   (`drop_policy = "largest_bid"`), the new packet possibly itself; the packet on the line is
//!   not in it (`count_in_service = false`);
//! - F^α over every packet "ever queued": drops are charged (`charge_drops = true`);
//! - ties (spec A11, silent in the thesis): equal bids leave first-in first-out and the latest
//!   is dropped first, in FQ and in all four structures alike, so they return the same
//!   packets in the same order (V11, checked on every replay).
//!
//! Where the engine differs, and the effect:
//! - A packet that finds the line idle passes through the port's FQ (enqueued, dequeued at the
//!   same instant) where §3.3 sends it "immediately". Its finish number and bid are computed in
//!   both; it is never dropped (the buffer was empty); the record leaves it out, counting it as
//!   sent directly. No effect on the trace.
//! - Round numbers and bids are exact integers (picobits), where REAL used floating point:
//!   ties are exact ties. No effect beyond that.
//! - The sources are the engine's JK, not a Tahoe written for this evaluation: its RTT
//!   sampling, timer and window details (`transport/cc/jk.rs`) shape the arrival pattern, and
//!   so the costs; the thesis does not say which TCP details REAL had.
//!
//! # Reading the numbers
//! - Underloaded, once every window has reached W, each arrival's bid is the largest in the
//!   buffer and LINK's insertion costs exactly 1; LINK's average above 1 there is the start-up
//!   transient (slow start interleaves new bids deep in the list), which grows with N·W.
//! - Packets in the trace are named by FQ's arrival number modulo 2^32: the packets buffered
//!   at once have distinct names unless one of them stays while 2^32 others arrive, and
//!   distinct names among them are all a structure needs.

pub use super::workload::{Workload, GATEWAY_PORT};
use super::{AnyBuffer, Bid, BoundedHeap, Kind};
use crate::queue::fq::{BufferOp, DropPolicy};
use crate::queue::{BufferLimit, Qdisc, QdiscConfig};
use crate::scenario::build::build_world;
use crate::scenario::decode::{Result, ScenarioError};
use crate::scenario::Scenario;
use crate::sim::time::to_secs;

/// One operation on the bounded heap, as the gateway issued it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Op {
    /// The thesis's insert(): place, then drop the largest while more than B are held.
    Insert { bid: Bid, conversation: u32, packet: u32 },
    /// The thesis's get_min().
    GetMin,
}

/// What the run that produced a trace saw.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TraceStats {
    /// Packets that reached the gateway's FQ port.
    pub arrivals: u64,
    /// Of those, sent at once on an idle trunk (no buffer operation).
    pub sent_directly: u64,
    pub inserts: u64,
    pub get_mins: u64,
    /// Packets the buffer discarded.
    pub drops: u64,
    /// The sources' retransmission timeouts, and their retransmitted packets (timeouts and
    /// fast retransmissions).
    pub timeouts: u64,
    pub retransmissions: u64,
    /// Distinct packets delivered in order to the sink.
    pub delivered: u64,
    /// Time-average and largest number of packets in the buffer.
    pub mean_buffered: f64,
    pub max_buffered: usize,
    /// Fraction of the run the trunk was busy.
    pub trunk_utilisation: f64,
}

/// A trace of bounded-heap operations, with the outcome the gateway produced.
#[derive(Clone, Debug)]
pub struct Trace {
    pub ops: Vec<Op>,
    /// MAX of the bounded heap (= B).
    pub max: usize,
    /// One more than the largest conversation id (a size hint for PERC's table).
    pub conversations: u32,
    /// The packets that left the buffer, in order: after each insert the packets it dropped,
    /// and the packet each get_min returned. Every structure must reproduce it (V11).
    pub outcome: Vec<u32>,
    /// `ops.len()` at every tenth of the run (simulated seconds, ops up to then), for the
    /// convergence check of Fig 3.3.
    pub checkpoints: Vec<(f64, usize)>,
    pub stats: TraceStats,
}

/// Run scenario `sc`, recording the buffer operations of its port `port` (which must run
/// `fq` as chapter 3's bounded heap: largest-bid drops, a buffer counted in packets, the packet
/// on the line not in it, no preemption), and return them as a trace.
pub fn record(sc: &Scenario, port: &str) -> Result<Trace> {
    let names = sc.port_names();
    let index = names.iter().position(|n| n == port).ok_or_else(|| {
        ScenarioError::new(
            "port",
            format!("no port named {port:?}; ports are: {}", names.iter().take(20).cloned().collect::<Vec<_>>().join(", ")),
        )
    })?;
    let max = check_bounded_heap(sc, index, port)?;
    let mut world = build_world(sc)?;
    match &mut world.ports[index].qdisc {
        Qdisc::Fq(fq) => fq.record_buffer_operations(),
        _ => unreachable!("checked: the port runs fq"),
    }
    world.run();
    let log = match &mut world.ports[index].qdisc {
        Qdisc::Fq(fq) => fq.take_buffer_operations().expect("recording was started"),
        _ => unreachable!(),
    };
    let results = crate::finish(sc, &mut world)?;

    let mut trace = Trace {
        ops: Vec::with_capacity(log.ops.len()),
        max,
        conversations: 0,
        outcome: Vec::new(),
        checkpoints: Vec::new(),
        stats: TraceStats::default(),
    };
    let end = sc.duration;
    let marks: Vec<u64> = (1..=10u64).map(|k| (end as u128 * k as u128 / 10) as u64).collect();
    let mut next_mark = 0;
    let (mut held, mut area, mut last_change) = (0usize, 0u128, 0u64);
    let st = &mut trace.stats;
    for (i, &(t, op)) in log.ops.iter().enumerate() {
        while next_mark < marks.len() && marks[next_mark] < t {
            trace.checkpoints.push((to_secs(marks[next_mark]), trace.ops.len()));
            next_mark += 1;
        }
        area += held as u128 * (t - last_change) as u128;
        last_change = t;
        match op {
            BufferOp::Insert { bid, conversation, packet } => {
                trace.ops.push(Op::Insert { bid, conversation, packet: packet as u32 });
                trace.conversations = trace.conversations.max(conversation + 1);
                st.inserts += 1;
                held += 1;
                // The insert's drops follow it: its occupancy counts once they are done.
                if !matches!(log.ops.get(i + 1), Some((_, BufferOp::Drop { .. }))) {
                    st.max_buffered = st.max_buffered.max(held);
                }
            }
            BufferOp::Drop { packet } => {
                trace.outcome.push(packet as u32);
                st.drops += 1;
                held -= 1;
                st.max_buffered = st.max_buffered.max(held);
            }
            BufferOp::GetMin { packet } => {
                trace.ops.push(Op::GetMin);
                trace.outcome.push(packet as u32);
                st.get_mins += 1;
                held -= 1;
            }
        }
    }
    for &m in &marks[next_mark..] {
        trace.checkpoints.push((to_secs(m), trace.ops.len()));
    }
    area += held as u128 * (end - last_change.min(end)) as u128;
    st.sent_directly = log.sent_directly;
    st.arrivals = st.inserts + st.sent_directly;
    st.mean_buffered = area as f64 / end as f64;
    st.trunk_utilisation = results.ports[index].utilisation;
    st.timeouts = results.flows.iter().map(|f| f.timeouts).sum();
    st.retransmissions = results.flows.iter().map(|f| f.totals.retransmitted).sum();
    st.delivered = results.flows.iter().map(|f| f.totals.delivered).sum();
    Ok(trace)
}

/// Port `index` of `sc` runs FQ as chapter 3's bounded heap; returns its MAX (B).
fn check_bounded_heap(sc: &Scenario, index: usize, port: &str) -> Result<usize> {
    let link = index / 2;
    let q = if index.is_multiple_of(2) { &sc.links[link].forward } else { &sc.links[link].reverse };
    let at = |key: &str| format!("links[{link}].{key}");
    let need = |what: &str| format!("port {port} must hold chapter 3's bounded heap for its trace: {what}");
    let cfg = match &q.kind {
        QdiscConfig::Fq(cfg) => cfg,
        other => return Err(ScenarioError::new(at("queue"), need(&format!("expected \"fq\", got {:?}", other.name())))),
    };
    if cfg.drop_policy != DropPolicy::MaxBid {
        return Err(ScenarioError::new(
            at("queue_params.drop_policy"),
            need("expected \"largest_bid\" (the bounded heap drops the largest bid)"),
        ));
    }
    if cfg.preemptive {
        return Err(ScenarioError::new(at("queue_params.preemptive"), need("expected false (the bounded heap has no preemption)")));
    }
    if q.count_in_service {
        return Err(ScenarioError::new(at("count_in_service"), need("expected false (the packet on the line is not in the bounded heap)")));
    }
    match q.buffer {
        BufferLimit::Packets(b) => Ok(b as usize),
        _ => Err(ScenarioError::new(at("buffer"), need("expected a number of packets such as \"200pkt\" (MAX counts packets)"))),
    }
}

/// The costs one structure incurred on one trace (elementary operations as in `fq_buffers`).
#[derive(Clone, Debug, PartialEq)]
pub struct StructureCosts {
    pub kind: Kind,
    pub inserts: u64,
    /// Elementary operations in all insertions, the drops they triggered included.
    pub insert_ops: u64,
    pub max_insert: u64,
    pub get_mins: u64,
    pub get_min_ops: u64,
    pub max_get_min: u64,
    pub drops: u64,
    /// Average insertion cost after each tenth of the trace (simulated seconds, average).
    pub insert_convergence: Vec<(f64, f64)>,
    /// Whether the structure dropped and sent exactly the packets the gateway did, in the
    /// same order (V11).
    pub same_outcome: bool,
}

impl StructureCosts {
    /// # elementary operations / # insertions (the thesis's metric).
    pub fn avg_insert(&self) -> f64 {
        self.insert_ops as f64 / self.inserts.max(1) as f64
    }
    pub fn avg_get_min(&self) -> f64 {
        self.get_min_ops as f64 / self.get_mins.max(1) as f64
    }
}

/// Replay `trace` against a fresh structure of kind `kind`.
pub fn replay(trace: &Trace, kind: Kind) -> StructureCosts {
    let mut b: AnyBuffer = kind.build(trace.max + 1, trace.conversations as usize);
    let mut c = StructureCosts {
        kind,
        inserts: 0,
        insert_ops: 0,
        max_insert: 0,
        get_mins: 0,
        get_min_ops: 0,
        max_get_min: 0,
        drops: 0,
        insert_convergence: Vec::with_capacity(trace.checkpoints.len()),
        same_outcome: true,
    };
    let mut out = 0usize;
    let mut marks = trace.checkpoints.iter().peekable();
    for (i, op) in trace.ops.iter().enumerate() {
        while let Some(&&(t, at)) = marks.peek() {
            if at > i {
                break;
            }
            c.insert_convergence.push((t, c.avg_insert()));
            marks.next();
        }
        let before = b.cost();
        match *op {
            Op::Insert { bid, conversation, packet } => {
                let outcome = &trace.outcome;
                let same = &mut c.same_outcome;
                let drops = &mut c.drops;
                b.insert_bounded(bid, conversation, packet, trace.max, |it| {
                    *same &= outcome.get(out) == Some(&it.packet);
                    out += 1;
                    *drops += 1;
                });
                let cost = b.cost() - before;
                c.inserts += 1;
                c.insert_ops += cost;
                c.max_insert = c.max_insert.max(cost);
            }
            Op::GetMin => {
                let it = b.remove_min();
                c.same_outcome &= it.map(|it| it.packet) == trace.outcome.get(out).copied();
                out += 1;
                let cost = b.cost() - before;
                c.get_mins += 1;
                c.get_min_ops += cost;
                c.max_get_min = c.max_get_min.max(cost);
            }
        }
    }
    for &(t, _) in marks {
        c.insert_convergence.push((t, c.avg_insert()));
    }
    c.same_outcome &= out == trace.outcome.len();
    c
}

/// One workload's evaluation: the run's statistics and the four structures' costs, in the
/// order of [`Kind::ALL`].
#[derive(Clone, Debug)]
pub struct Evaluation {
    pub workload: Workload,
    pub stats: TraceStats,
    pub costs: [StructureCosts; 4],
}

impl Evaluation {
    pub fn cost(&self, k: Kind) -> &StructureCosts {
        &self.costs[k.index()]
    }
    /// The structure with the lowest average insertion cost.
    pub fn cheapest(&self) -> Kind {
        Kind::ALL.into_iter().min_by(|a, b| self.cost(*a).avg_insert().total_cmp(&self.cost(*b).avg_insert())).unwrap()
    }
    /// The structure with the highest average insertion cost.
    pub fn dearest(&self) -> Kind {
        Kind::ALL.into_iter().max_by(|a, b| self.cost(*a).avg_insert().total_cmp(&self.cost(*b).avg_insert())).unwrap()
    }
}

/// Run the workload's scenario, record the gateway's trace and replay it against all four
/// structures.
pub fn evaluate(w: &Workload) -> Result<Evaluation> {
    let trace = record(&w.scenario()?, GATEWAY_PORT)?;
    let costs = Kind::ALL.map(|k| replay(&trace, k));
    Ok(Evaluation { workload: w.clone(), stats: trace.stats, costs })
}

/// An upper bound on one insertion's cost (drops included) under this module's counting rules,
/// the explicit form of Table 3.1's worst case (spec V12). With a fixed MAX an insertion
/// triggers at most one drop. HEAP: two sift-ups (2L) plus a delete (2 + 2L), L =
/// floor(log2(B+1)). PERC: the same with N in place of B+1. LINK: the scan examines at most B
/// nodes. TREE: at most B nodes on the descent, plus the drop's walk to the new maximum (at
/// most B).
pub fn insert_cost_bound(kind: Kind, n: u32, b: usize) -> u64 {
    let lg = |x: u64| 63 - x.max(1).leading_zeros() as u64;
    match kind {
        Kind::Link => b as u64,
        Kind::Tree => 2 * b as u64 + 1,
        Kind::Heap => 4 * lg(b as u64 + 1) + 2,
        Kind::Perc => 4 * lg(n as u64) + 2,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(n: u32, b: u32, secs: f64) -> Evaluation {
        evaluate(&Workload::new(n, b, secs)).unwrap()
    }

    #[test]
    fn evaluation_is_deterministic_for_a_seed() {
        let w = Workload::new(6, 60, 300.0);
        let (a, b) = (evaluate(&w).unwrap(), evaluate(&w).unwrap());
        assert_eq!(a.stats, b.stats);
        assert_eq!(a.costs, b.costs);
        let c = evaluate(&Workload { seed: 2, ..w }).unwrap();
        assert_ne!(a.stats, c.stats, "another seed gives another trace");
    }

    #[test]
    fn all_structures_reproduce_the_gateway_s_outcome() {
        // V11, in both regimes: every structure sends and drops what the engine's FQ did.
        for (n, b) in [(6, 400), (10, 60)] {
            let e = run(n, b, 400.0);
            assert!(e.stats.inserts > 1000);
            assert_eq!(e.stats.arrivals, e.stats.inserts + e.stats.sent_directly);
            assert!(e.stats.sent_directly >= 1, "the first packet finds the trunk idle");
            for c in &e.costs {
                assert!(c.same_outcome, "{} at N={n} B={b}", c.kind.name());
                assert_eq!((c.inserts, c.get_mins, c.drops), (e.stats.inserts, e.stats.get_mins, e.stats.drops));
            }
        }
    }

    #[test]
    fn load_regimes_behave_as_the_chapter_says() {
        // "The gateway cannot be congested if W·N <= B."
        let w = Workload::new(5, 5 * super::super::workload::DEFAULT_MAX_WINDOW, 500.0);
        let under = evaluate(&w).unwrap();
        assert!(under.workload.underloaded());
        assert_eq!(under.stats.drops, 0);
        let over = run(10, 100, 500.0);
        assert!(!over.workload.underloaded() && over.stats.drops > 0);
        assert!(over.stats.max_buffered <= 100 && over.stats.mean_buffered > 0.0);
        // The trunk stays busy in both (the bottleneck).
        assert!(under.stats.trunk_utilisation > 0.95 && over.stats.trunk_utilisation > 0.9);
    }

    /// Overloaded (W·N = 320 > B = 200 at N = 10): the chapter's ranking. PERC is the
    /// cheapest, below HEAP, which is below TREE and LINK; PERC's average is below log2 N and
    /// below half of its worst case, HEAP's below half of log2 B.
    #[test]
    fn overloaded_ranking() {
        let e = run(10, 200, 2500.0);
        let a = |k: Kind| e.cost(k).avg_insert();
        assert!(!e.workload.underloaded() && e.stats.drops > 0);
        assert!(a(Kind::Perc) < a(Kind::Heap), "PERC < HEAP");
        assert!(a(Kind::Heap) < a(Kind::Tree), "HEAP < TREE");
        assert!(a(Kind::Heap) < a(Kind::Link), "HEAP < LINK");
        assert!(a(Kind::Perc) < 0.5 * 10f64.log2());
        assert!(a(Kind::Heap) < 0.5 * 200f64.log2());
        for k in Kind::ALL {
            assert!(e.cost(k).max_insert <= insert_cost_bound(k, 10, 200), "{} max", k.name());
        }
    }

    /// Underloaded (zone I), the ordered list is the cheapest structure.
    #[test]
    fn underloaded_link_is_cheapest() {
        let e = run(6, 2 * 6 * super::super::workload::DEFAULT_MAX_WINDOW, 500.0);
        assert_eq!(e.cheapest(), Kind::Link, "{:?}", e.costs.iter().map(|c| c.avg_insert()).collect::<Vec<_>>());
    }

    #[test]
    fn convergence_series_ends_at_the_final_average() {
        let e = run(4, 40, 200.0);
        for c in &e.costs {
            assert_eq!(c.insert_convergence.len(), 10);
            let (t, v) = *c.insert_convergence.last().unwrap();
            assert_eq!(t, 200.0);
            assert!((v - c.avg_insert()).abs() < 1e-9);
        }
    }

    #[test]
    fn a_port_that_is_not_chapter_3_s_bounded_heap_is_refused() {
        let text = Workload::new(2, 20, 10.0).scenario_toml();
        let err = |from: &str, to: &str, port: &str| {
            let sc = Scenario::from_toml_str(&text.replacen(from, to, 1)).unwrap();
            record(&sc, port).unwrap_err().path
        };
        assert_eq!(err("drop_policy = \"largest_bid\"", "drop_policy = \"longest\"", GATEWAY_PORT), "links[0].queue_params.drop_policy");
        assert_eq!(err("count_in_service = false", "count_in_service = true", GATEWAY_PORT), "links[0].count_in_service");
        assert_eq!(err("buffer = \"20pkt\"", "buffer = \"20000B\"", GATEWAY_PORT), "links[0].buffer");
        assert_eq!(err("queue = \"fq\"", "queue = \"fqbit\"", GATEWAY_PORT), "links[0].queue");
        assert_eq!(err("", "", "sink->gateway"), "links[0].queue");
        assert_eq!(err("", "", "nowhere"), "port");
    }
}
