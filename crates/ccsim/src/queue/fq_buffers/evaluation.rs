//! The trace-driven cost evaluation of Keshav 1991 §3.5, and the thesis's reference numbers.
//!
//! Source: thesis chapter 3 §3.5 ("Methodology", "Evaluation results", "Results",
//! "Interpretation of results"), Tables 3.1 and 3.2; spec keshav91-fq-packet-pair.md M2.3–M2.6,
//! gaps §6 (A11), validation targets §7 (V11–V14).
//!
//! # Method (§3.5, spec M2.4)
//!
//! 1. A workload is described by a few parameters ([`Workload`]; the thesis varies N and B
//!    with W fixed).
//! 2. A network simulation produces a trace of `insert` and `get_min` operations at the
//!    gateway's FQ buffer ([`generate_trace`]). The thesis used REAL; here a small
//!    self-contained event simulation plays that role (below).
//! 3. The same trace is replayed against each of the four structures ([`replay`]), recording
//!    per structure the average and maximum cost of an insertion (drops included) and of a
//!    `get_min`. Average insertion cost = # elementary operations / # insertions.
//! 4. Sweeping (N, B) maps the cost surfaces ([`fig34_sweep`], [`qualitative_checks`]).
//!
//! [`evaluate`] does 2 and 3 for one workload; [`render_table`] prints the result next to the
//! thesis's numbers ([`THESIS`]).
//!
//! # Scenario (Fig 3.2, spec M2.5)
//!
//! From the text: one gateway and one output trunk; N sources, one conversation each, sharing
//! the trunk's bandwidth and B buffers; DARPA TCP with Jacobson's changes, maximum window W;
//! no non-conforming traffic; FQ with chapter 3's bounded heap (insert, then drop the largest
//! bid while more than B are held); N = 10, B = 200 and 2500 s for the trace-length
//! calibration; 35 simulations along five axes A–E, F being the line W·N = B.
//!
//! Not in the text (Fig 3.2 and Fig 3.4 are missing from the extraction, and the spec gives no
//! values): W, line speeds, link delays, packet sizes, the start times and the (N, B) points.
//! Each is a named field of [`Workload`], marked [NOT IN THESIS], defaulting to chapter 6's
//! baseline network (the same REAL set-up as far as the thesis shows: 80 kb/s trunk, 800 kb/s
//! feeders, zero propagation delay, 1000-byte data and 40-byte ACKs), and
//! [`fig34_sweep`] is a reconstruction of the axes' shapes, not of their points.
//!
//! Other choices where the text is silent:
//! - The TCP source is 4.3BSD-Tahoe as the chapter 6 spec describes JK (keshav91-experiments.md
//!   §3.6): slow start from 1, congestion avoidance, ssthresh = max(min(cwnd, W)/2, 2) and
//!   cwnd = 1 on a timeout or on the 3rd duplicate ACK, Jacobson RTO srtt + k·mdev with Karn's
//!   rule and doubling backoff, one timer per connection, go-back from snd_una on a timeout.
//!   RTO clamps (BSD-like) are parameters.
//! - The sink ACKs every packet at once (cumulative, keeping out-of-order data). ACKs return
//!   over the reverse trunk and feeder (FIFO, never full): they are not part of the FQ buffer
//!   being measured.
//! - A packet that finds the trunk idle is sent at once and never enters the buffer (§3.3:
//!   "if the output line is idle, the packet is sent out immediately, else it is buffered");
//!   the packet in transmission does not occupy one of the B buffers.
//! - FQ bids: chapter 3's form with the Fig 3.1 round number (iterative deletion), δ = 0
//!   (chapter 6's value), dropped packets charged (F^α never rolled back, as §3.2 defines
//!   F^α over every packet "ever queued").
//! - Randomness: only the sources' start times, uniform in [0, `start_spread_s`), one
//!   [`Rng`] stream per source. (REAL was deterministic; identical sources starting together
//!   would stay synchronised.) A trace is a pure function of the workload and its seed.
//! - Ties among equal bids: FIFO by insertion (module header of `fq_buffers`, gap A11).
//!
//! # Reading the numbers
//!
//! - Underloaded, once every window has reached W, each arrival's bid is the largest in the
//!   buffer and LINK's insertion costs exactly 1; LINK's average above 1 there is the start-up
//!   transient (slow start interleaves new bids deep in the list), which grows with N·W.
//! - The deviations from the chapter's qualitative findings that this model shows are listed
//!   by [`qualitative_checks`] on the sweep (the `fq_buffers` example prints them).

use super::{AnyBuffer, Bid, BoundedHeap, Kind, PerConversation};
use crate::sim::time::{from_secs, to_secs, tx_time};
use crate::sim::{Rng, SimTime};
use std::cmp::Reverse;
use std::collections::{BTreeSet, BinaryHeap};
use std::fmt::Write as _;

// ------------------------------------------------------------------------------------------
// The thesis's numbers, as data.
// ------------------------------------------------------------------------------------------

/// Table 3.1, one row: theoretical insertion costs, as printed (B buffers, N conversations).
#[derive(Clone, Copy, Debug)]
pub struct Table31Row {
    pub kind: Kind,
    pub best: &'static str,
    pub worst: &'static str,
    /// "Average (Uniformly random workload)".
    pub average: &'static str,
}

/// Table 3.2, one row: implementation cost.
#[derive(Clone, Copy, Debug)]
pub struct Table32Row {
    pub kind: Kind,
    /// Length of the optimised assembly of insert() and its callees, normalised to LINK.
    pub static_cost: f64,
    /// Instructions executed per elementary operation.
    pub dynamic_cost: u32,
}

/// Everything numeric that chapter 3 prints about the buffering structures (Tables 3.1, 3.2
/// and the §3.5 text), plus its qualitative findings as text. These are the THESIS'S values;
/// nothing here is computed.
#[derive(Clone, Copy, Debug)]
pub struct ThesisReference {
    pub table_3_1: [Table31Row; 4],
    pub table_3_2: [Table32Row; 4],
    /// §3.5: trace length calibrated at N = 10, B = 200 ...
    pub calibration_conversations: u32,
    pub calibration_buffers: usize,
    /// ... with a 2500 s trace ...
    pub trace_seconds: f64,
    /// ... at which every metric is within 10% of its asymptote (Fig 3.3).
    pub convergence_tolerance: f64,
    /// §3.5: 35 simulations along axes A–E.
    pub simulations: usize,
    /// §3.5 sizing example: 32 MB of buffers per trunk, 1 KB packets: about 32K packets ...
    pub sizing_buffers: usize,
    /// ... and about 200 conversations (the square root).
    pub sizing_conversations: usize,
    /// HEAP worst case "log(32K) ≈ 15" elementary operations per insertion.
    pub sizing_heap_worst: f64,
    /// PERC worst case "log(200) ≈ 8".
    pub sizing_perc_worst: f64,
    /// "the average work for HEAP and PERC is less than half of the worst case work".
    pub average_over_worst_below: f64,
    /// "the average cost per insertion for PERC will be more like 4 elementary operations".
    pub sizing_perc_average: f64,
    /// §3.5 "Results" and "Interpretation", chapter 7's summary.
    pub findings: [&'static str; 10],
}

/// The thesis's reference values (Keshav 1991 ch. 3; thesis text L805–931).
pub const THESIS: ThesisReference = ThesisReference {
    table_3_1: [
        Table31Row { kind: Kind::Link, best: "O(1)", worst: "O(B)", average: "O(B)" },
        Table31Row { kind: Kind::Tree, best: "O(1)", worst: "O(B)", average: "O(log B)" },
        Table31Row { kind: Kind::Heap, best: "O(log B)", worst: "O(log B)", average: "O(log B)" },
        Table31Row { kind: Kind::Perc, best: "O(log N)", worst: "O(log N)", average: "O(log N)" },
    ],
    table_3_2: [
        Table32Row { kind: Kind::Link, static_cost: 1.0, dynamic_cost: 5 },
        Table32Row { kind: Kind::Tree, static_cost: 1.1, dynamic_cost: 18 },
        Table32Row { kind: Kind::Heap, static_cost: 2.5, dynamic_cost: 88 },
        Table32Row { kind: Kind::Perc, static_cost: 5.5, dynamic_cost: 96 },
    ],
    calibration_conversations: 10,
    calibration_buffers: 200,
    trace_seconds: 2500.0,
    convergence_tolerance: 0.10,
    simulations: 35,
    sizing_buffers: 32 * 1024,
    sizing_conversations: 200,
    sizing_heap_worst: 15.0,
    sizing_perc_worst: 8.0,
    average_over_worst_below: 0.5,
    sizing_perc_average: 4.0,
    findings: [
        "The cost surfaces of all implementations except LINK are smooth.",
        "LINK is erratic: by far the cheapest in zone I (underloaded), the most expensive in zone III.",
        "As N grows, HEAP and PERC insertion costs rise in the overloaded regime and stay roughly constant underloaded.",
        "PERC always costs less than HEAP or TREE.",
        "HEAP is within an order of magnitude of PERC in most cases.",
        "Underloaded, trees skew and are costly; they do better overloaded. TREE is the worst choice.",
        "PERC's average insertion cost is below its theoretical average case cost.",
        "The maximum work per insertion is as Table 3.1 expects.",
        "Underloaded, HEAP and PERC insertion costs decline, offset by a larger rise in deletion cost.",
        "Few losses: use the ordered list; many losses: per-conversation queues (ch. 7).",
    ],
};

impl ThesisReference {
    pub fn table_3_1(&self, k: Kind) -> &Table31Row {
        &self.table_3_1[k.index()]
    }
    pub fn table_3_2(&self, k: Kind) -> &Table32Row {
        &self.table_3_2[k.index()]
    }
}

/// Table 3.1's worst case evaluated the way §3.5's sizing example evaluates it (log base 2,
/// constant 1): B for LINK and TREE, log2 B for HEAP, log2 N for PERC.
pub fn table_3_1_worst(kind: Kind, n: u32, b: usize) -> f64 {
    match kind {
        Kind::Link | Kind::Tree => b as f64,
        Kind::Heap => (b as f64).log2(),
        Kind::Perc => (n.max(1) as f64).log2(),
    }
}

/// The worst insertion cost as this module counts it: HEAP and PERC keep two heaps and an
/// insert may sift up in both (module header), so twice Table 3.1's log2; LINK and TREE as
/// Table 3.1. §3.5's claim, an average below half the worst case, compares like with like
/// only against this.
pub fn counted_worst(kind: Kind, n: u32, b: usize) -> f64 {
    match kind {
        Kind::Link | Kind::Tree => table_3_1_worst(kind, n, b),
        Kind::Heap | Kind::Perc => 2.0 * table_3_1_worst(kind, n, b),
    }
}

/// Table 3.1's "average (uniformly random workload)" column, evaluated the same way.
pub fn table_3_1_average(kind: Kind, n: u32, b: usize) -> f64 {
    match kind {
        Kind::Link => b as f64,
        Kind::Tree | Kind::Heap => (b as f64).log2(),
        Kind::Perc => (n.max(1) as f64).log2(),
    }
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

// ------------------------------------------------------------------------------------------
// Workload and trace.
// ------------------------------------------------------------------------------------------

/// The workload of Fig 3.2. Values marked [NOT IN THESIS] are placeholders chosen here (the
/// figure is missing); those marked [ch. 6] are chapter 6's baseline network.
#[derive(Clone, Debug, PartialEq)]
pub struct Workload {
    /// N, the number of sources (one conversation each). Text: 10 at the calibration point.
    pub conversations: u32,
    /// B, the gateway's buffers (the bounded heap's MAX), in packets. Text: 200.
    pub buffers: usize,
    /// W, every source's maximum window in packets. [NOT IN THESIS]
    pub max_window: u32,
    /// Output trunk rate, bit/s. [NOT IN THESIS; ch. 6 slow line]
    pub trunk_bps: u64,
    /// Each source's access line rate, bit/s. [NOT IN THESIS; ch. 6 fast line]
    pub feeder_bps: u64,
    /// One-way propagation delay of every line, seconds. [NOT IN THESIS; ch. 6: zero]
    pub propagation_s: f64,
    /// Data packet size, bytes. [NOT IN THESIS; ch. 6 FTP]
    pub data_bytes: u32,
    /// ACK size, bytes. [NOT IN THESIS; ch. 6]
    pub ack_bytes: u32,
    /// Trace length, simulated seconds. Text: 2500.
    pub duration_s: f64,
    /// Sources start at uniform random times in [0, start_spread_s). [NOT IN THESIS]
    pub start_spread_s: f64,
    /// FQ promptness offset δ, in bits. [ch. 6: 0]
    pub delta_bits: f64,
    /// RTO = srtt + rto_mdev_gain · mdev. [spec keshav91-experiments §3.6: 2; 4 is the option]
    pub rto_mdev_gain: f64,
    /// RTO before the first RTT sample, seconds. [NOT IN THESIS; ch. 6 G source: 2 s]
    pub initial_rto_s: f64,
    /// RTO floor, seconds. [NOT IN THESIS; 4.3BSD: 1 s (two 500 ms ticks)]
    pub min_rto_s: f64,
    /// RTO ceiling (backoff included), seconds. [NOT IN THESIS; 4.3BSD: 64 s]
    pub max_rto_s: f64,
    /// Duplicate ACKs that trigger fast retransmit. [Tahoe: 3]
    pub dupack_threshold: u32,
    /// Take an RTT sample from every ACK that newly acknowledges a packet sent once, rather than
    /// timing one packet per round trip as 4.3BSD does (the default, false). [NOT IN THESIS]
    pub rtt_sample_every_packet: bool,
    /// Seed for the start-time streams.
    pub seed: u64,
}

/// W used by [`Workload::default`]. [NOT IN THESIS] The text gives none. 32 lies between
/// chapter 6's windows (5 by default, 40 and 60 in its long-delay scenarios) and makes the
/// calibration point N = 10, B = 200 overloaded (W·N/B = 1.6), so that its trace exercises the
/// overflow drop as well as insert and get_min; W = 20 would put it exactly on the line F.
pub const DEFAULT_MAX_WINDOW: u32 = 32;

impl Default for Workload {
    /// The thesis's calibration point, N = 10, B = 200, 2500 s, with the placeholders above.
    fn default() -> Self {
        Workload {
            conversations: THESIS.calibration_conversations,
            buffers: THESIS.calibration_buffers,
            max_window: DEFAULT_MAX_WINDOW,
            trunk_bps: 80_000,
            feeder_bps: 800_000,
            propagation_s: 0.0,
            data_bytes: 1000,
            ack_bytes: 40,
            duration_s: THESIS.trace_seconds,
            start_spread_s: 1.0,
            delta_bits: 0.0,
            rto_mdev_gain: 2.0,
            initial_rto_s: 2.0,
            min_rto_s: 1.0,
            max_rto_s: 64.0,
            dupack_threshold: 3,
            rtt_sample_every_packet: false,
            seed: 1,
        }
    }
}

impl Workload {
    pub fn with_point(&self, conversations: u32, buffers: usize) -> Self {
        Workload { conversations, buffers, ..self.clone() }
    }

    /// §3.5: "the gateway cannot be congested if W·N ≤ B".
    pub fn underloaded(&self) -> bool {
        self.max_window as u64 * self.conversations as u64 <= self.buffers as u64
    }

    /// W·N / B: below or at 1 the gateway cannot be congested.
    pub fn load_ratio(&self) -> f64 {
        self.max_window as f64 * self.conversations as f64 / self.buffers as f64
    }
}

/// One operation on the bounded heap, as the gateway issued it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Op {
    /// The thesis's insert(): place, then drop the largest while more than B are held.
    Insert { bid: Bid, conversation: u32, packet: u32 },
    /// The thesis's get_min().
    GetMin,
}

/// What the trace-generating simulation saw.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TraceStats {
    /// Data packets that reached the gateway.
    pub arrivals: u64,
    /// Of those, sent at once on an idle trunk (no buffer operation).
    pub sent_directly: u64,
    pub inserts: u64,
    pub get_mins: u64,
    /// Packets the bounded heap discarded.
    pub drops: u64,
    pub timeouts: u64,
    pub fast_retransmits: u64,
    /// Data packets sent again (by either recovery).
    pub retransmissions: u64,
    /// Distinct packets delivered in order to the sinks.
    pub delivered: u64,
    /// Time-average and largest number of packets in the buffer.
    pub mean_buffered: f64,
    pub max_buffered: usize,
    /// Fraction of the trace time the trunk was busy.
    pub trunk_utilisation: f64,
}

/// A trace of bounded-heap operations, with the outcome the generator observed.
#[derive(Clone, Debug)]
pub struct Trace {
    pub ops: Vec<Op>,
    /// MAX of the bounded heap (= B).
    pub max: usize,
    pub conversations: u32,
    /// The packets that left the buffer, in order: after each insert the packets it dropped,
    /// and the packet each get_min returned. Every structure must reproduce it (V11).
    pub outcome: Vec<u32>,
    /// `ops.len()` at every tenth of the trace's duration, for the convergence check of Fig 3.3.
    pub checkpoints: Vec<(f64, usize)>,
    pub stats: TraceStats,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Ev {
    Start {
        src: u32,
    },
    /// A data packet reaches the gateway.
    Arrive {
        src: u32,
        seq: u32,
    },
    /// The trunk finished sending the packet in service.
    TrunkDone,
    Ack {
        src: u32,
        ack: u32,
    },
    Timeout {
        src: u32,
        gen: u64,
    },
}

struct Source {
    snd_una: u32,
    snd_nxt: u32,
    snd_max: u32,
    cwnd: f64,
    ssthresh: f64,
    srtt: f64,
    mdev: f64,
    have_rtt: bool,
    backoff: u32,
    /// The packet being timed (Karn: only first transmissions) and its send time.
    timing: Option<(u32, SimTime)>,
    /// First-transmission time of every packet, or `SimTime::MAX` once it has been resent
    /// (for `rtt_sample_every_packet`).
    sent_at: Vec<SimTime>,
    dupacks: u32,
    timer_gen: u64,
    timer_armed: bool,
    /// When the access line is next free.
    feeder_free: SimTime,
    // Sink side.
    next_expected: u32,
    out_of_order: BTreeSet<u32>,
    /// When the reverse access line is next free.
    ack_feeder_free: SimTime,
}

struct Sim<'a> {
    w: &'a Workload,
    now: SimTime,
    events: BinaryHeap<Reverse<(SimTime, u64, Ev)>>,
    ev_seq: u64,
    src: Vec<Source>,
    // Line timing.
    data_feeder_tx: SimTime,
    data_trunk_tx: SimTime,
    ack_trunk_tx: SimTime,
    ack_feeder_tx: SimTime,
    prop: SimTime,
    rev_trunk_free: SimTime,
    // Gateway: FQ state (Fig 3.1) and the buffer.
    fin: Vec<f64>,
    active: Vec<bool>,
    n_active: u32,
    r_chk: f64,
    t_chk: f64,
    buf: PerConversation,
    in_service: Option<(u32, u32)>,
    busy_since: SimTime,
    busy_total: SimTime,
    /// (source, sequence) of every packet id handed to the buffer.
    packets: Vec<(u32, u32)>,
    buffered_area: f64,
    last_change: SimTime,
    trace: Trace,
}

impl<'a> Sim<'a> {
    fn new(w: &'a Workload) -> Self {
        let n = w.conversations as usize;
        let src = (0..n)
            .map(|_| Source {
                snd_una: 0,
                snd_nxt: 0,
                snd_max: 0,
                cwnd: 1.0,
                ssthresh: w.max_window as f64,
                srtt: 0.0,
                mdev: 0.0,
                have_rtt: false,
                backoff: 0,
                timing: None,
                sent_at: Vec::new(),
                dupacks: 0,
                timer_gen: 0,
                timer_armed: false,
                feeder_free: 0,
                next_expected: 0,
                out_of_order: BTreeSet::new(),
                ack_feeder_free: 0,
            })
            .collect();
        Sim {
            w,
            now: 0,
            events: BinaryHeap::new(),
            ev_seq: 0,
            src,
            data_feeder_tx: tx_time(w.data_bytes, w.feeder_bps),
            data_trunk_tx: tx_time(w.data_bytes, w.trunk_bps),
            ack_trunk_tx: tx_time(w.ack_bytes, w.trunk_bps),
            ack_feeder_tx: tx_time(w.ack_bytes, w.feeder_bps),
            prop: from_secs(w.propagation_s),
            rev_trunk_free: 0,
            fin: vec![0.0; n],
            active: vec![false; n],
            n_active: 0,
            r_chk: 0.0,
            t_chk: 0.0,
            buf: PerConversation::with_capacity(w.buffers + 1, n),
            in_service: None,
            busy_since: 0,
            busy_total: 0,
            packets: Vec::new(),
            buffered_area: 0.0,
            last_change: 0,
            trace: Trace {
                ops: Vec::new(),
                max: w.buffers,
                conversations: w.conversations,
                outcome: Vec::new(),
                checkpoints: Vec::new(),
                stats: TraceStats::default(),
            },
        }
    }

    fn schedule(&mut self, t: SimTime, ev: Ev) {
        self.ev_seq += 1;
        self.events.push(Reverse((t, self.ev_seq, ev)));
    }

    // --- FQ round number (Fig 3.1, spec M1.4) -------------------------------------------

    /// Bring R up to time `t` (seconds) by iterative deletion. With nothing active, R holds.
    fn update_round(&mut self, t: f64) {
        let l = self.w.trunk_bps as f64;
        loop {
            if self.n_active == 0 {
                self.t_chk = t;
                return;
            }
            let n = self.n_active as f64;
            let mut who = usize::MAX;
            let mut fmin = f64::INFINITY;
            for (a, (&f, &on)) in self.fin.iter().zip(&self.active).enumerate() {
                if on && f < fmin {
                    fmin = f;
                    who = a;
                }
            }
            let dt = (t - self.t_chk).max(0.0);
            if fmin <= self.r_chk + dt * l / n {
                self.active[who] = false;
                self.t_chk = (self.t_chk + (fmin - self.r_chk) * n / l).min(t);
                self.r_chk = fmin;
                self.n_active -= 1;
            } else {
                self.r_chk += dt * l / n;
                self.t_chk = t;
                return;
            }
        }
    }

    fn note_buffer_change(&mut self) {
        let dt = (self.now - self.last_change) as f64;
        self.buffered_area += dt * self.buf.len() as f64;
        self.last_change = self.now;
    }

    // --- Gateway -----------------------------------------------------------------------

    fn gateway_arrival(&mut self, s: u32, seq: u32) {
        self.trace.stats.arrivals += 1;
        let p = self.w.data_bytes as f64 * 8.0;
        self.update_round(to_secs(self.now));
        let a = s as usize;
        let r = self.r_chk;
        let f_old = self.fin[a];
        let f_new = if self.active[a] {
            f_old + p
        } else {
            self.active[a] = true;
            self.n_active += 1;
            r + p
        };
        let bid = p + f_old.max(r - self.w.delta_bits);
        self.fin[a] = f_new;

        if self.in_service.is_none() {
            self.trace.stats.sent_directly += 1;
            self.start_trunk(s, seq);
            return;
        }
        self.note_buffer_change();
        let packet = self.packets.len() as u32;
        self.packets.push((s, seq));
        self.trace.ops.push(Op::Insert { bid, conversation: s, packet });
        self.trace.stats.inserts += 1;
        let max = self.w.buffers;
        let outcome = &mut self.trace.outcome;
        let mut drops = 0;
        self.buf.insert_bounded(bid, s, packet, max, |it| {
            outcome.push(it.packet);
            drops += 1;
        });
        self.trace.stats.drops += drops;
        self.trace.stats.max_buffered = self.trace.stats.max_buffered.max(self.buf.len());
    }

    fn start_trunk(&mut self, s: u32, seq: u32) {
        if self.in_service.is_none() {
            self.busy_since = self.now;
        }
        self.in_service = Some((s, seq));
        let t = self.now + self.data_trunk_tx;
        self.schedule(t, Ev::TrunkDone);
    }

    fn trunk_done(&mut self) {
        let (s, seq) = self.in_service.take().expect("trunk busy");
        // The packet reaches the sink; its ACK goes back at once.
        let at_sink = self.now + self.prop;
        let ack = {
            let src = &mut self.src[s as usize];
            if seq == src.next_expected {
                src.next_expected += 1;
                while src.out_of_order.remove(&src.next_expected) {
                    src.next_expected += 1;
                }
            } else if seq > src.next_expected {
                src.out_of_order.insert(seq);
            }
            src.next_expected
        };
        self.rev_trunk_free = self.rev_trunk_free.max(at_sink) + self.ack_trunk_tx;
        let at_gw = self.rev_trunk_free + self.prop;
        let src = &mut self.src[s as usize];
        src.ack_feeder_free = src.ack_feeder_free.max(at_gw) + self.ack_feeder_tx;
        let t = src.ack_feeder_free + self.prop;
        self.schedule(t, Ev::Ack { src: s, ack });
        // Serve the next packet, smallest bid first.
        if self.buf.is_empty() {
            self.busy_total += self.now - self.busy_since;
            return;
        }
        self.note_buffer_change();
        self.trace.ops.push(Op::GetMin);
        self.trace.stats.get_mins += 1;
        let it = self.buf.remove_min().expect("non-empty");
        self.trace.outcome.push(it.packet);
        let (s2, seq2) = self.packets[it.packet as usize];
        self.in_service = Some((s2, seq2));
        let t = self.now + self.data_trunk_tx;
        self.schedule(t, Ev::TrunkDone);
    }

    // --- TCP source (Tahoe, spec keshav91-experiments §3.6) ------------------------------

    fn rto(&self, s: usize) -> SimTime {
        let src = &self.src[s];
        let base = if src.have_rtt { src.srtt + self.w.rto_mdev_gain * src.mdev } else { self.w.initial_rto_s };
        let base = base.max(self.w.min_rto_s);
        let backed = base * (1u64 << src.backoff.min(20)) as f64;
        from_secs(backed.min(self.w.max_rto_s))
    }

    fn arm_timer(&mut self, s: usize) {
        let t = self.now + self.rto(s);
        let src = &mut self.src[s];
        src.timer_gen += 1;
        src.timer_armed = true;
        let gen = src.timer_gen;
        self.schedule(t, Ev::Timeout { src: s as u32, gen });
    }

    fn transmit(&mut self, s: usize, seq: u32) {
        let now = self.now;
        let src = &mut self.src[s];
        if seq < src.snd_max {
            self.trace.stats.retransmissions += 1;
            src.sent_at[seq as usize] = SimTime::MAX;
        } else {
            src.snd_max = seq + 1;
            src.sent_at.push(now);
            if src.timing.is_none() {
                src.timing = Some((seq, now));
            }
        }
        src.feeder_free = src.feeder_free.max(now) + self.data_feeder_tx;
        let t = src.feeder_free + self.prop;
        self.schedule(t, Ev::Arrive { src: s as u32, seq });
        if !self.src[s].timer_armed {
            self.arm_timer(s);
        }
    }

    fn send_allowed(&mut self, s: usize) {
        loop {
            let src = &self.src[s];
            let usable = (src.cwnd.floor() as u32).min(self.w.max_window).max(1);
            if src.snd_nxt >= src.snd_una + usable {
                break;
            }
            let seq = src.snd_nxt;
            self.src[s].snd_nxt += 1;
            self.transmit(s, seq);
        }
    }

    fn on_loss(&mut self, s: usize) {
        let w = self.w.max_window as f64;
        let src = &mut self.src[s];
        src.ssthresh = (src.cwnd.min(w) / 2.0).max(2.0);
        src.cwnd = 1.0;
        src.timing = None;
        src.dupacks = 0;
    }

    fn on_ack(&mut self, s: usize, ack: u32) {
        let now = self.now;
        let w = self.w.max_window as f64;
        let src = &mut self.src[s];
        if ack > src.snd_una {
            let sample = if self.w.rtt_sample_every_packet {
                let t0 = src.sent_at[ack as usize - 1];
                (t0 != SimTime::MAX).then(|| now - t0)
            } else {
                match src.timing {
                    Some((timed, t0)) if ack > timed => {
                        src.timing = None;
                        Some(now - t0)
                    }
                    _ => None,
                }
            };
            if let Some(m) = sample.map(to_secs) {
                // Karn: the backed-off timeout stays until a packet sent once is acknowledged.
                src.backoff = 0;
                if src.have_rtt {
                    let err = m - src.srtt;
                    src.srtt += err / 8.0;
                    src.mdev += (err.abs() - src.mdev) / 4.0;
                } else {
                    src.srtt = m;
                    src.mdev = m / 2.0;
                    src.have_rtt = true;
                }
            }
            src.snd_una = ack;
            src.snd_nxt = src.snd_nxt.max(ack);
            src.dupacks = 0;
            src.cwnd = if src.cwnd < src.ssthresh { src.cwnd + 1.0 } else { src.cwnd + 1.0 / src.cwnd }.min(w);
            if src.snd_una >= src.snd_max {
                src.timer_armed = false;
                src.timer_gen += 1;
            } else {
                self.arm_timer(s);
            }
            self.send_allowed(s);
        } else if ack == src.snd_una && src.snd_max > src.snd_una {
            src.dupacks += 1;
            if src.dupacks == self.w.dupack_threshold {
                self.trace.stats.fast_retransmits += 1;
                self.on_loss(s);
                let una = self.src[s].snd_una;
                self.transmit(s, una);
                self.arm_timer(s);
            }
        }
    }

    fn on_timeout(&mut self, s: usize, gen: u64) {
        let src = &self.src[s];
        if !src.timer_armed || gen != src.timer_gen {
            return;
        }
        self.trace.stats.timeouts += 1;
        self.on_loss(s);
        let src = &mut self.src[s];
        src.backoff += 1;
        src.timer_armed = false;
        src.snd_nxt = src.snd_una;
        self.send_allowed(s);
    }

    fn run(mut self) -> Trace {
        let end = from_secs(self.w.duration_s);
        for s in 0..self.w.conversations {
            let mut rng = Rng::stream(self.w.seed, &format!("fq_buffers/source{s}"));
            let u = rng.uniform_open0();
            let t = from_secs((1.0 - u) * self.w.start_spread_s);
            self.schedule(t, Ev::Start { src: s });
        }
        let tenth = (end / 10).max(1);
        let mut next_mark = tenth;
        while let Some(&Reverse((t, _, ev))) = self.events.peek() {
            if t > end {
                break;
            }
            while t >= next_mark && next_mark <= end {
                self.trace.checkpoints.push((to_secs(next_mark), self.trace.ops.len()));
                next_mark += tenth;
            }
            self.events.pop();
            self.now = t;
            match ev {
                Ev::Start { src } => self.send_allowed(src as usize),
                Ev::Arrive { src, seq } => self.gateway_arrival(src, seq),
                Ev::TrunkDone => self.trunk_done(),
                Ev::Ack { src, ack } => self.on_ack(src as usize, ack),
                Ev::Timeout { src, gen } => self.on_timeout(src as usize, gen),
            }
        }
        while next_mark <= end {
            self.trace.checkpoints.push((to_secs(next_mark), self.trace.ops.len()));
            next_mark += tenth;
        }
        self.now = end;
        self.note_buffer_change();
        if self.in_service.is_some() {
            self.busy_total += end - self.busy_since;
        }
        let st = &mut self.trace.stats;
        st.mean_buffered = self.buffered_area / end.max(1) as f64;
        st.trunk_utilisation = self.busy_total as f64 / end.max(1) as f64;
        st.delivered = self.src.iter().map(|s| s.next_expected as u64).sum();
        self.trace
    }
}

/// Run the Fig 3.2 scenario for `w` and record the gateway's bounded-heap operations.
pub fn generate_trace(w: &Workload) -> Trace {
    assert!(w.conversations >= 1 && w.buffers >= 1 && w.max_window >= 1, "N, B and W must be positive");
    Sim::new(w).run()
}

// ------------------------------------------------------------------------------------------
// Replay.
// ------------------------------------------------------------------------------------------

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
    /// Whether the structure dropped and sent exactly the packets the generator recorded, in
    /// the same order (V11).
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

/// One workload's evaluation: the trace statistics and the four structures' costs, in the
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

/// Generate the trace for `w` and replay it against all four structures.
pub fn evaluate(w: &Workload) -> Evaluation {
    let trace = generate_trace(w);
    let costs = Kind::ALL.map(|k| replay(&trace, k));
    Evaluation { workload: w.clone(), stats: trace.stats.clone(), costs }
}

// ------------------------------------------------------------------------------------------
// The (N, B) exploration of Fig 3.4.
// ------------------------------------------------------------------------------------------

/// A point of the sweep: its axis letter and workload.
#[derive(Clone, Debug)]
pub struct SweepPoint {
    pub axis: char,
    pub workload: Workload,
}

/// A reconstruction of Fig 3.4's five axes, seven points each (35 simulations, as in the
/// thesis). Only the axes' shapes are from the text; the points are [NOT IN THESIS]. With
/// N0 = 10 and B0 = W·N0 (a point on F, the line W·N = B):
/// - A, underloaded everywhere: B = 2·W·N, N from 2 to 26;
/// - B, overloaded everywhere: B = W·N / 2, same N;
/// - C, crossing F at fixed N = N0: B from B0/4 to 4·B0;
/// - D, crossing F at fixed B = B0: N from N0/4 to 4·N0 (rounded);
/// - E, crossing F along the other diagonal: N from N0/2 to 2·N0 while B goes from 2·B0 to
///   B0/2.
pub fn fig34_sweep(base: &Workload) -> Vec<SweepPoint> {
    let w = base.max_window as f64;
    let n0 = 10.0;
    let b0 = w * n0;
    let f = [0.25, 0.4, 0.63, 1.0, 1.6, 2.5, 4.0];
    let ns = [2u32, 6, 10, 14, 18, 22, 26];
    let mut pts = Vec::with_capacity(35);
    let mut push = |axis: char, n: f64, b: f64| {
        let n = n.round().max(1.0) as u32;
        let b = b.round().max(1.0) as usize;
        pts.push(SweepPoint { axis, workload: base.with_point(n, b) });
    };
    for &n in &ns {
        push('A', n as f64, 2.0 * w * n as f64);
    }
    for &n in &ns {
        push('B', n as f64, w * n as f64 / 2.0);
    }
    for &x in &f {
        push('C', n0, b0 * x);
    }
    for &x in &f {
        push('D', n0 * x, b0);
    }
    for (i, _) in f.iter().enumerate() {
        let s = (i as f64 - 3.0) / 3.0; // -1 .. 1
        push('E', n0 * 2f64.powf(s), b0 * 2f64.powf(-s));
    }
    pts
}

/// One qualitative claim of §3.5 checked on a set of evaluations.
#[derive(Clone, Debug)]
pub struct Check {
    pub claim: &'static str,
    pub holds: bool,
    pub detail: String,
}

/// Check the chapter's qualitative findings ([`THESIS`]`.findings`) on a sweep. Points are
/// grouped by axis letter ('A' underloaded everywhere, 'B' overloaded everywhere, as
/// [`fig34_sweep`] labels them); the other axes enter the claims that are stated for every
/// point. Each check states the claim as the text makes it; where the text is vague ("most
/// cases", "roughly constant") the threshold used is in the claim.
pub fn qualitative_checks(points: &[(char, Evaluation)]) -> Vec<Check> {
    let avg = |e: &Evaluation, k: Kind| e.cost(k).avg_insert();
    let on = |axis: char| -> Vec<&Evaluation> { points.iter().filter(|(a, _)| *a == axis).map(|(_, e)| e).collect() };
    let total = points.len();
    let count = |f: &dyn Fn(&Evaluation) -> bool| points.iter().filter(|(_, e)| f(e)).count();
    let ns = |v: &[&Evaluation], f: &dyn Fn(&Evaluation) -> bool| -> String {
        let hit: Vec<String> = v.iter().filter(|e| f(e)).map(|e| e.workload.conversations.to_string()).collect();
        format!("{}/{} points (N = {})", hit.len(), v.len(), if hit.is_empty() { "none".into() } else { hit.join(",") })
    };
    let (a, b) = (on('A'), on('B'));
    let mut out = Vec::new();
    let mut push = |claim: &'static str, holds: bool, detail: String| out.push(Check { claim, holds, detail });

    let n = count(&|e| avg(e, Kind::Perc) < avg(e, Kind::Heap) && avg(e, Kind::Perc) < avg(e, Kind::Tree));
    push("PERC costs less than HEAP and TREE at every point", n == total, format!("{n}/{total} points"));

    let n = count(&|e| avg(e, Kind::Heap) <= 10.0 * avg(e, Kind::Perc));
    push("HEAP within 10x of PERC in most cases (> half the points)", 2 * n > total, format!("{n}/{total} points"));

    let f = |e: &Evaluation| e.cheapest() == Kind::Link;
    let n = a.iter().filter(|e| f(e)).count();
    push("LINK cheapest in the underloaded region (every point of axis A)", !a.is_empty() && n == a.len(), ns(&a, &f));

    let n = count(&|e| e.cheapest() == Kind::Link && !e.workload.underloaded());
    push("LINK never cheapest when overloaded (zone I lies in W*N <= B)", n == 0, format!("{n} overloaded points with LINK cheapest"));

    let f = |e: &Evaluation| e.dearest() == Kind::Link;
    let n = b.iter().filter(|e| f(e)).count();
    push("LINK dearest in the overloaded region (most points of axis B)", !b.is_empty() && 2 * n > b.len(), ns(&b, &f));

    let n = a.iter().filter(|e| e.dearest() == Kind::Tree).count();
    let m = b.iter().filter(|e| avg(e, Kind::Tree) > avg(e, Kind::Heap).max(avg(e, Kind::Perc))).count();
    push(
        "TREE dearest underloaded (A); dearer than HEAP and PERC overloaded (B)",
        !a.is_empty() && n == a.len() && m == b.len(),
        format!("A {n}/{}, B {m}/{}", a.len(), b.len()),
    );

    let pairs: Vec<_> = a.iter().zip(&b).collect();
    let n = pairs.iter().filter(|(x, y)| avg(x, Kind::Tree) > avg(y, Kind::Tree)).count();
    push(
        "TREE dearer underloaded (A) than overloaded (B) at the same N",
        !pairs.is_empty() && n == pairs.len(),
        format!("{n}/{} N values", pairs.len()),
    );

    let ends = |v: &[&Evaluation], k: Kind| (v.first().map_or(0.0, |e| avg(e, k)), v.last().map_or(0.0, |e| avg(e, k)));
    let spread = |v: &[&Evaluation], k: Kind| {
        let (lo, hi) = v.iter().map(|e| avg(e, k)).fold((f64::INFINITY, 0f64), |(l, h), x| (l.min(x), h.max(x)));
        hi / lo.max(1e-9)
    };
    let (h0, h1) = ends(&b, Kind::Heap);
    let (p0, p1) = ends(&b, Kind::Perc);
    push(
        "HEAP and PERC insertion costs rise with N overloaded (axis B, last > first)",
        !b.is_empty() && h1 > h0 && p1 > p0,
        format!("HEAP {h0:.2}->{h1:.2}, PERC {p0:.2}->{p1:.2}"),
    );
    let (sh, sp) = (spread(&a, Kind::Heap), spread(&a, Kind::Perc));
    push(
        "HEAP and PERC insertion costs roughly constant in N underloaded (axis A, max/min <= 1.5)",
        !a.is_empty() && sh <= 1.5 && sp <= 1.5,
        format!("max/min HEAP {sh:.2}, PERC {sp:.2}"),
    );

    let n = count(&|e| e.workload.conversations < 2 || avg(e, Kind::Perc) < (e.workload.conversations as f64).log2());
    push("PERC average below its theoretical average log2 N", n == total, format!("{n}/{total} points"));

    let half = THESIS.average_over_worst_below;
    let n = count(&|e| {
        let (nn, bb) = (e.workload.conversations, e.workload.buffers);
        avg(e, Kind::Heap) < half * counted_worst(Kind::Heap, nn, bb) && avg(e, Kind::Perc) < half * counted_worst(Kind::Perc, nn, bb)
    });
    push(
        "HEAP and PERC averages below half their worst case as counted here (2 log2 B, 2 log2 N: both heaps), most points",
        2 * n > total,
        format!("{n}/{total} points"),
    );

    let n =
        count(&|e| Kind::ALL.iter().all(|&k| e.cost(k).max_insert <= insert_cost_bound(k, e.workload.conversations, e.workload.buffers)));
    push("Maximum insertion work within Table 3.1's orders (explicit bounds)", n == total, format!("{n}/{total} points"));

    let n = a.iter().filter(|e| [Kind::Heap, Kind::Perc].iter().all(|&k| e.cost(k).avg_get_min() > avg(e, k))).count();
    push(
        "Underloaded, HEAP and PERC deletion costs exceed their insertion costs",
        !a.is_empty() && n == a.len(),
        format!("{n}/{} points", a.len()),
    );

    let n = count(&|e| e.costs.iter().all(|c| c.same_outcome));
    push("All four send and drop the same packets (V11)", n == total, format!("{n}/{total} points"));
    out
}

// ------------------------------------------------------------------------------------------
// Reports.
// ------------------------------------------------------------------------------------------

fn thesis_average_cell(k: Kind, n: u32, b: usize) -> String {
    match k {
        Kind::Link | Kind::Tree => format!("{}={:.1} T3.1", THESIS.table_3_1(k).average, table_3_1_average(k, n, b)),
        Kind::Heap | Kind::Perc => {
            format!("<{:.2} (½ of 2 log2, §3.5)", THESIS.average_over_worst_below * counted_worst(k, n, b))
        }
    }
}

fn thesis_worst_cell(k: Kind, n: u32, b: usize) -> String {
    format!("{}={:.1} T3.1", THESIS.table_3_1(k).worst, table_3_1_worst(k, n, b))
}

/// A plain-text table of one evaluation beside the thesis's values. Thesis cells evaluate
/// Table 3.1's orders at this (N, B) with log base 2 and constant 1, as §3.5's sizing example
/// does; HEAP and PERC averages use §3.5's "less than half of the worst case".
pub fn render_table(e: &Evaluation) -> String {
    let w = &e.workload;
    let st = &e.stats;
    let (n, b) = (w.conversations, w.buffers);
    let mut s = String::new();
    let _ = writeln!(
        s,
        "workload: N={} B={} W={} (W*N/B = {:.2}, {}), trunk {} b/s, feeders {} b/s, propagation {} s, {} s, seed {}",
        n,
        b,
        w.max_window,
        w.load_ratio(),
        if w.underloaded() { "underloaded" } else { "overloaded" },
        w.trunk_bps,
        w.feeder_bps,
        w.propagation_s,
        w.duration_s,
        w.seed
    );
    let _ = writeln!(
        s,
        "trace: {} arrivals ({} straight to an idle trunk), {} inserts, {} get_min, {} drops, {} timeouts, {} fast retransmits; buffer mean {:.1} max {}; trunk busy {:.1}%",
        st.arrivals,
        st.sent_directly,
        st.inserts,
        st.get_mins,
        st.drops,
        st.timeouts,
        st.fast_retransmits,
        st.mean_buffered,
        st.max_buffered,
        100.0 * st.trunk_utilisation
    );
    let header = [
        "structure",
        "avg ins (sim)",
        "avg ins (thesis)",
        "max ins (sim)",
        "max ins (thesis)",
        "avg del (sim)",
        "max del (sim)",
        "static T3.2",
        "dyn instr/op T3.2",
        "instr/ins (sim avg x dyn)",
        "same output",
    ];
    let rows: Vec<[String; 11]> = Kind::ALL
        .iter()
        .map(|&k| {
            let c = e.cost(k);
            let t2 = THESIS.table_3_2(k);
            [
                k.name().to_string(),
                format!("{:.3}", c.avg_insert()),
                thesis_average_cell(k, n, b),
                c.max_insert.to_string(),
                thesis_worst_cell(k, n, b),
                format!("{:.3}", c.avg_get_min()),
                c.max_get_min.to_string(),
                format!("{:.1}", t2.static_cost),
                t2.dynamic_cost.to_string(),
                format!("{:.0}", c.avg_insert() * t2.dynamic_cost as f64),
                if c.same_outcome { "yes".into() } else { "NO".into() },
            ]
        })
        .collect();
    let mut width = header.map(|h| h.chars().count());
    for r in &rows {
        for (i, cell) in r.iter().enumerate() {
            width[i] = width[i].max(cell.chars().count());
        }
    }
    let line = |cells: &[String]| -> String {
        let mut l = String::new();
        for (i, c) in cells.iter().enumerate() {
            if i > 0 {
                l.push_str(" | ");
            }
            let pad = width[i] - c.chars().count();
            if i == 0 {
                l.push_str(c);
                l.extend(std::iter::repeat_n(' ', pad));
            } else {
                l.extend(std::iter::repeat_n(' ', pad));
                l.push_str(c);
            }
        }
        l
    };
    let _ = writeln!(s, "{}", line(&header.map(String::from)));
    let _ = writeln!(s, "{}", width.iter().map(|&w| "-".repeat(w)).collect::<Vec<_>>().join("-+-"));
    for r in &rows {
        let _ = writeln!(s, "{}", line(r));
    }
    s
}

/// Fig 3.3's question: is the trace long enough? `short` and `long` are the same workload and
/// seed with different durations (the long trace extends the short one). Prints each
/// structure's average insertion cost after every tenth of the short trace, the long trace's
/// value as the asymptote, and the short value's relative distance to it (the thesis: at most
/// 10% at 2500 s, N = 10, B = 200).
pub fn render_convergence(short: &Evaluation, long: &Evaluation) -> String {
    let mut s = String::new();
    let _ = write!(s, "structure |");
    if let Some(c) = short.costs.first() {
        for (t, _) in &c.insert_convergence {
            let _ = write!(s, " {:>7}", format!("{t:.0}s"));
        }
    }
    let _ = writeln!(
        s,
        " | {:>9} | {:>8} | within {:.0}%",
        format!("{:.0}s", long.workload.duration_s),
        "distance",
        100.0 * THESIS.convergence_tolerance
    );
    for k in Kind::ALL {
        let (c, l) = (short.cost(k), long.cost(k));
        let _ = write!(s, "{:9} |", k.name());
        for (_, v) in &c.insert_convergence {
            let _ = write!(s, " {v:7.3}");
        }
        let d = (c.avg_insert() - l.avg_insert()).abs() / l.avg_insert().max(1e-9);
        let ok = d <= THESIS.convergence_tolerance;
        let _ = writeln!(s, " | {:9.3} | {:7.1}% | {}", l.avg_insert(), 100.0 * d, if ok { "PASS" } else { "FAIL" });
    }
    s
}

/// §3.5's sizing example next to the same formulas and to the simulated ratio of average to
/// worst case (the thesis: below one half) over a set of evaluations.
pub fn render_sizing(points: &[(char, Evaluation)]) -> String {
    let t = &THESIS;
    let (b, n) = (t.sizing_buffers, t.sizing_conversations as u32);
    let mut s = String::new();
    let _ = writeln!(s, "§3.5 sizing example: B = {} packets (32 MB / 1 KB), N = {} conversations", b, n);
    let _ = writeln!(
        s,
        "  HEAP worst per insert: thesis {:.0}, log2 B = {:.2}; with this module's counting (two sift-ups) at most {}",
        t.sizing_heap_worst,
        table_3_1_worst(Kind::Heap, n, b),
        2 * (63 - (b as u64 + 1).leading_zeros())
    );
    let _ = writeln!(
        s,
        "  PERC worst per insert: thesis {:.0}, log2 N = {:.2}; with this module's counting at most {}",
        t.sizing_perc_worst,
        table_3_1_worst(Kind::Perc, n, b),
        2 * (63 - (n as u64).leading_zeros())
    );
    let _ = writeln!(
        s,
        "  PERC average: thesis about {:.0} (= half the worst case, \"average ... less than half of the worst case\")",
        t.sizing_perc_average
    );
    for k in [Kind::Heap, Kind::Perc] {
        let ratios: Vec<f64> = points
            .iter()
            .map(|(_, e)| e.cost(k).avg_insert() / counted_worst(k, e.workload.conversations, e.workload.buffers).max(1.0))
            .collect();
        if ratios.is_empty() {
            continue;
        }
        let below = ratios.iter().filter(|&&r| r < t.average_over_worst_below).count();
        let mean = ratios.iter().sum::<f64>() / ratios.len() as f64;
        let max = ratios.iter().cloned().fold(0.0, f64::max);
        let _ = writeln!(
            s,
            "  simulated {} average / worst as counted here (2 log2): mean {:.2}, max {:.2}, below {} at {}/{} points (thesis: below {})",
            k.name(),
            mean,
            max,
            t.average_over_worst_below,
            below,
            ratios.len(),
            t.average_over_worst_below
        );
    }
    s
}

/// One line per sweep point: axis, N, B, W·N/B, drops, and each structure's average insertion
/// cost, with the cheapest marked '<' and the dearest '>'.
pub fn render_sweep(points: &[(char, Evaluation)]) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "axis    N     B  W*N/B   drops |      LINK       TREE       HEAP       PERC");
    for (axis, e) in points {
        let w = &e.workload;
        let _ = write!(s, "   {axis} {:4} {:5} {:6.2} {:7} |", w.conversations, w.buffers, w.load_ratio(), e.stats.drops);
        for k in Kind::ALL {
            let mark = if e.cheapest() == k {
                '<'
            } else if e.dearest() == k {
                '>'
            } else {
                ' '
            };
            let _ = write!(s, " {:9.3}{}", e.cost(k).avg_insert(), mark);
        }
        s.push('\n');
    }
    s
}

/// The whole chapter-3 evaluation as text: the calibration point against Tables 3.1/3.2, the
/// trace-length check, the Fig 3.4 sweep with the §3.5 findings checked, and the sizing
/// example. What `ccsim experiment keshav91-fq-buffers` prints. Returns (text, checks held,
/// checks in all).
pub fn full_report(seed: u64) -> (String, usize, usize) {
    use std::fmt::Write;
    let mut out = String::new();
    let base = Workload { seed, ..Workload::default() };

    let _ = writeln!(out, "Keshav 1991 ch. 3: average-case cost of FQ buffering (elementary operations per call)");
    let _ = writeln!(out, "cost unit: one link traversal (LINK, TREE) or one heap exchange (HEAP, PERC); inserts include their drops");
    out.push('\n');
    let _ = writeln!(out, "== Calibration point (thesis: N = 10, B = 200, 2500 s); thesis cells are Table 3.1 at log base 2, constant 1");
    let cal = evaluate(&base);
    let _ = write!(out, "{}", render_table(&cal));
    out.push('\n');

    let _ = writeln!(out, "== Fig 3.3: trace length (thesis: every metric within 10% of its asymptote at 2500 s)");
    let long = evaluate(&Workload { duration_s: 4.0 * base.duration_s, ..base.clone() });
    let _ = write!(out, "{}", render_convergence(&cal, &long));
    out.push('\n');

    let _ = writeln!(out, "== Fig 3.4 reconstruction: 35 points on axes A (W*N < B) .. E; '<' cheapest, '>' dearest average insertion");
    let points: Vec<(char, Evaluation)> = fig34_sweep(&base).into_iter().map(|p| (p.axis, evaluate(&p.workload))).collect();
    let _ = write!(out, "{}", render_sweep(&points));
    out.push('\n');
    let _ = writeln!(out, "== §3.5 findings on the sweep");
    for c in qualitative_checks(&points) {
        let _ = writeln!(out, "{}  {}  [{}]", if c.holds { "PASS" } else { "FAIL" }, c.claim, c.detail);
    }
    out.push('\n');
    let _ = write!(out, "{}", render_sizing(&points));
    out.push('\n');
    let _ = writeln!(out, "Table 3.2 (thesis, implementation cost): static = insert() code size relative to LINK, dynamic = instructions per elementary operation");
    for k in super::Kind::ALL {
        let r = THESIS.table_3_2(k);
        let _ = writeln!(out, "  {:4}  static {:.1}  dynamic {:3}", k.name(), r.static_cost, r.dynamic_cost);
    }
    out.push('\n');
    let checks = qualitative_checks(&points);
    let held = checks.iter().filter(|c| c.holds).count();
    let _ = writeln!(out, "{} traces of 2500 s (plus one of 10000 s)", points.len() + 1);
    (out, held, checks.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn short(n: u32, b: usize, secs: f64) -> Workload {
        Workload { duration_s: secs, ..Workload::default().with_point(n, b) }
    }

    #[test]
    fn round_number_matches_the_worked_example() {
        // Spec N1 (thesis L733) with L = 1 bit/s: A's 100-bit packet at t = 0, B's at t = 50.
        let w = Workload { conversations: 2, trunk_bps: 1, ..Workload::default() };
        let mut sim = Sim::new(&w);
        sim.update_round(0.0);
        sim.active[0] = true;
        sim.n_active = 1;
        sim.fin[0] = 100.0;
        sim.update_round(50.0);
        assert_eq!(sim.r_chk, 50.0);
        sim.active[1] = true;
        sim.n_active = 2;
        sim.fin[1] = sim.r_chk + 100.0;
        sim.update_round(100.0);
        assert_eq!((sim.r_chk, sim.n_active), (75.0, 2));
        // A goes inactive when R reaches 100, at t = 150; then R grows at rate 1.
        sim.update_round(175.0);
        assert_eq!((sim.r_chk, sim.n_active), (125.0, 1));
        // R(200) = 150 = F^B: B goes inactive too (Fig 3.1 declares F <= R inactive).
        sim.update_round(200.0);
        assert_eq!((sim.r_chk, sim.n_active), (150.0, 0));
        sim.update_round(250.0);
        assert_eq!((sim.r_chk, sim.n_active), (150.0, 0), "R holds once nothing is active");
    }

    #[test]
    fn evaluation_is_deterministic_for_a_seed() {
        let w = short(6, 60, 300.0);
        let a = evaluate(&w);
        let b = evaluate(&w);
        assert_eq!(a.stats, b.stats);
        assert_eq!(a.costs, b.costs);
        let c = evaluate(&Workload { seed: 2, ..w });
        assert_ne!(a.stats, c.stats, "another seed gives another trace");
    }

    #[test]
    fn all_structures_reproduce_the_trace_outcome() {
        // V11, in both regimes.
        for (n, b) in [(6, 400), (10, 60)] {
            let e = evaluate(&short(n, b, 400.0));
            assert!(e.stats.inserts > 1000);
            for c in &e.costs {
                assert!(c.same_outcome, "{} at N={n} B={b}", c.kind.name());
                assert_eq!((c.inserts, c.get_mins, c.drops), (e.stats.inserts, e.stats.get_mins, e.stats.drops));
            }
        }
    }

    #[test]
    fn load_regimes_behave_as_the_chapter_says() {
        // "The gateway cannot be congested if W·N <= B."
        let under = evaluate(&short(5, 5 * DEFAULT_MAX_WINDOW as usize, 500.0));
        assert!(under.workload.underloaded());
        assert_eq!(under.stats.drops, 0);
        let over = evaluate(&short(10, 100, 500.0));
        assert!(!over.workload.underloaded() && over.stats.drops > 0);
        // The trunk stays busy in both (the bottleneck).
        assert!(under.stats.trunk_utilisation > 0.95 && over.stats.trunk_utilisation > 0.9);
    }

    /// The default workload is the thesis's calibration point, N = 10, B = 200; with the
    /// default W it is overloaded (W·N = 320 > 200). The chapter's ranking there: PERC is the
    /// cheapest, below HEAP, which is below TREE and LINK; PERC's average is below log2 N and
    /// below half of its worst case, HEAP's below half of log2 B.
    #[test]
    fn default_workload_ranking() {
        let e = evaluate(&Workload::default());
        let a = |k: Kind| e.cost(k).avg_insert();
        assert!(!e.workload.underloaded() && e.stats.drops > 0);
        assert!(a(Kind::Perc) < a(Kind::Heap), "PERC < HEAP");
        assert!(a(Kind::Heap) < a(Kind::Tree), "HEAP < TREE");
        assert!(a(Kind::Heap) < a(Kind::Link), "HEAP < LINK");
        assert!(a(Kind::Heap) <= 10.0 * a(Kind::Perc), "HEAP within 10x of PERC");
        assert!(a(Kind::Perc) < 0.5 * 10f64.log2());
        assert!(a(Kind::Heap) < 0.5 * 200f64.log2());
        for k in Kind::ALL {
            assert!(e.cost(k).max_insert <= insert_cost_bound(k, 10, 200), "{} max", k.name());
        }
    }

    /// Underloaded (zone I), the ordered list is the cheapest structure.
    #[test]
    fn underloaded_link_is_cheapest() {
        let e = evaluate(&short(6, 2 * 6 * DEFAULT_MAX_WINDOW as usize, 500.0));
        assert_eq!(e.cheapest(), Kind::Link, "{}", render_table(&e));
    }

    #[test]
    fn convergence_series_ends_at_the_final_average() {
        let e = evaluate(&short(4, 40, 200.0));
        for c in &e.costs {
            assert_eq!(c.insert_convergence.len(), 10);
            let (t, v) = *c.insert_convergence.last().unwrap();
            assert_eq!(t, 200.0);
            assert!((v - c.avg_insert()).abs() < 1e-9);
        }
    }

    #[test]
    fn checks_run_on_a_small_sweep() {
        let pts: Vec<(char, Evaluation)> =
            [('A', short(3, 200, 300.0)), ('B', short(3, 40, 300.0))].into_iter().map(|(a, w)| (a, evaluate(&w))).collect();
        let checks = qualitative_checks(&pts);
        let get = |prefix: &str| checks.iter().find(|c| c.claim.starts_with(prefix)).unwrap().holds;
        assert!(get("PERC costs less than HEAP and TREE"));
        assert!(get("All four send and drop the same packets"));
        assert!(get("Maximum insertion work"));
        assert!(!render_sweep(&pts).is_empty() && !render_sizing(&pts).is_empty());
    }

    #[test]
    fn reference_values_are_the_thesis_s() {
        let t = &THESIS;
        let dynamic: Vec<u32> = Kind::ALL.iter().map(|&k| t.table_3_2(k).dynamic_cost).collect();
        assert_eq!(dynamic, vec![5, 18, 88, 96]);
        assert_eq!(t.table_3_2(Kind::Perc).static_cost, 5.5);
        assert_eq!(t.table_3_1(Kind::Tree).average, "O(log B)");
        assert_eq!((t.calibration_conversations, t.calibration_buffers, t.simulations), (10, 200, 35));
        // The sizing example's own arithmetic: log2(32K) = 15, log2(200) = 7.6 ("about 8").
        assert_eq!(table_3_1_worst(Kind::Heap, 200, t.sizing_buffers), t.sizing_heap_worst);
        assert!((table_3_1_worst(Kind::Perc, 200, t.sizing_buffers) - t.sizing_perc_worst).abs() < 0.5);
    }

    #[test]
    fn sweep_has_35_points_on_five_axes() {
        let p = fig34_sweep(&Workload::default());
        assert_eq!(p.len(), THESIS.simulations);
        for axis in ['A', 'B', 'C', 'D', 'E'] {
            assert_eq!(p.iter().filter(|x| x.axis == axis).count(), 7);
        }
        assert!(p.iter().filter(|x| x.axis == 'A').all(|x| x.workload.underloaded()));
        assert!(p.iter().filter(|x| x.axis == 'B').all(|x| !x.workload.underloaded()));
        for axis in ['C', 'D', 'E'] {
            let v: Vec<_> = p.iter().filter(|x| x.axis == axis).map(|x| x.workload.underloaded()).collect();
            assert!(v.contains(&true) && v.contains(&false), "axis {axis} crosses F");
        }
    }

    #[test]
    fn table_renders_every_structure() {
        let e = evaluate(&short(4, 40, 100.0));
        let t = render_table(&e);
        for k in Kind::ALL {
            assert!(t.contains(k.name()));
        }
        assert!(t.contains("O(log N)=2.0"));
    }
}
