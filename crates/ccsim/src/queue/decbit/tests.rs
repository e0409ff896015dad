//! DecBit's tests: the averaged queue, the fair share, marking and panic.

use super::fair_share::max_min_share;
use super::*;
use crate::net::packet::{Packet, EMPTY};
use crate::sim::time::from_secs;

/// 8 kb/s: a 1000-byte packet takes exactly one second.
const BW: u64 = 8_000;

fn pkt(a: &mut PacketArena, flow: u32, size: u32, kind: PacketKind) -> PacketId {
    a.alloc(Packet { flow, size, kind, ..EMPTY })
}

/// The port's transmitter, reduced to what the queue sees: `dequeue` when the line frees.
#[derive(Default)]
struct Line {
    busy_until: SimTime,
    busy: bool,
    bytes: u32,
}

impl Line {
    fn run_until(&mut self, q: &mut DecBit, a: &mut PacketArena, t: SimTime) {
        while self.busy && self.busy_until <= t {
            let done = self.busy_until;
            self.busy = false;
            if let Some(p) = q.dequeue(a, done) {
                self.start(p, a, done);
            }
        }
    }
    fn start(&mut self, p: PacketId, a: &mut PacketArena, now: SimTime) {
        self.bytes = a.get(p).size;
        self.busy = true;
        self.busy_until = now + tx_time(self.bytes, BW);
    }
    fn arrive(&mut self, q: &mut DecBit, a: &mut PacketArena, p: PacketId, now: SimTime) -> Verdict {
        self.run_until(q, a, now);
        let tx = InService { bytes: self.busy.then_some(self.bytes) };
        let v = q.enqueue(p, a, now, tx);
        if !self.busy {
            if let Some(p) = q.dequeue(a, now) {
                self.start(p, a, now);
            }
        }
        v
    }
    /// A new packet arrives at `now`.
    fn send(&mut self, q: &mut DecBit, a: &mut PacketArena, flow: u32, size: u32, kind: PacketKind, now: SimTime) -> PacketId {
        let p = pkt(a, flow, size, kind);
        self.arrive(q, a, p, now);
        p
    }
}

fn marked(a: &PacketArena, p: PacketId) -> bool {
    a.get(p).has(flags::CE)
}

fn gateway(cfg: DecBitConfig) -> DecBit {
    DecBit::new(BufferLimit::Unlimited, true, BW, cfg)
}

#[test]
fn never_exceeds_its_buffer_in_packets_or_bytes() {
    for (limit, cis) in [(BufferLimit::Packets(4), true), (BufferLimit::Packets(4), false), (BufferLimit::Bytes(2500), false)] {
        let mut a = PacketArena::new();
        let mut q = DecBit::new(limit, cis, BW, DecBitConfig::default());
        let mut line = Line::default();
        let mut drops = 0;
        for i in 0..400u64 {
            let size = if i % 3 == 0 { 40 } else { 1000 };
            let p = pkt(&mut a, (i % 3) as u32, size, PacketKind::Data);
            if let Verdict::Dropped(d) = line.arrive(&mut q, &mut a, p, from_secs(0.3 * i as f64)) {
                assert_eq!(d, p);
                drops += 1;
            }
            match limit {
                BufferLimit::Packets(n) => assert!(q.len_packets() + (cis && line.busy) as u32 <= n),
                BufferLimit::Bytes(b) => assert!(q.len_bytes() <= b),
                BufferLimit::Unlimited => unreachable!(),
            }
        }
        assert!(drops > 0, "the test must overflow the buffer");
    }
}

#[test]
fn a_random_victim_may_be_a_waiting_packet_and_the_uncounted_acks_stay_right() {
    // 4 slots, data and ACKs (ACKs not counted in the average), overloaded: with victim
    // "space" some overflows drop a waiting packet and admit the arriving one; the queue's
    // count of uncounted ACKs matches what it holds after every arrival.
    let cfg = DecBitConfig { victim: crate::queue::random_drop::Victim::Space, count_acks: false, ..DecBitConfig::default() };
    let mut a = PacketArena::new();
    let mut q = DecBit::with_rng(BufferLimit::Packets(4), false, BW, cfg, crate::sim::Rng::from_seed(3));
    let mut line = Line::default();
    let (mut waiting_victims, mut arriving_victims) = (0, 0);
    for i in 0..600u64 {
        let kind = if i % 2 == 0 { PacketKind::Ack } else { PacketKind::Data };
        let p = pkt(&mut a, (i % 3) as u32, 500, kind);
        if let Verdict::Dropped(d) = line.arrive(&mut q, &mut a, p, from_secs(0.2 * i as f64)) {
            if d == p {
                arriving_victims += 1;
            } else {
                waiting_victims += 1;
            }
        }
        let mut acks = 0;
        q.for_each(&mut |id| acks += u32::from(a.get(id).kind == PacketKind::Ack));
        assert_eq!(q.uncounted, acks, "arrival {i}");
        assert!(q.len_packets() <= 4);
    }
    assert!(waiting_victims > 20 && arriving_victims > 20, "{waiting_victims} waiting, {arriving_victims} arriving victims");
}

#[test]
fn average_queue_spans_the_previous_cycle_and_the_current_one() {
    let mut a = PacketArena::new();
    // Inclusive (>=) so that the averages of exactly 1.0 below go on to the fair-share test.
    let mut q = gateway(DecBitConfig { inclusive: true, ..DecBitConfig::default() });
    let mut line = Line::default();
    let t = from_secs;
    let close = |x: f64, y: f64| (x - y).abs() < 1e-12;
    // Cycle 1: A at 0 (served 0-1), B at 0.5 (served 1-2), idle 2-4.
    line.send(&mut q, &mut a, 0, 1000, PacketKind::Data, t(0.0));
    assert_eq!(q.last_average(), 0.0, "no history");
    let b = line.send(&mut q, &mut a, 0, 1000, PacketKind::Data, t(0.5));
    assert!(close(q.last_average(), 1.0)); // N = 1 over [0, 0.5)
                                           // Average 1.0 >= 1, and flow 0 offered 2000 B in 0.5 s against 0.9 x 500 B: marked.
    assert!(marked(&a, b));
    line.run_until(&mut q, &mut a, t(3.0));
    // Area 0.5 x 1 + 0.5 x 2 + 1 x 1 = 2.5 over [0, 3): the idle time counts.
    assert!(close(q.average_queue(t(3.0)), 2.5 / 3.0));
    // Cycle 2 starts at 4: C at 4 (served 4-5), D at 4.5 (served 5-6).
    line.send(&mut q, &mut a, 1, 1000, PacketKind::Data, t(4.0));
    assert!(close(q.last_average(), 2.5 / 4.0)); // the whole of cycle 1
    let d = line.send(&mut q, &mut a, 1, 1000, PacketKind::Data, t(4.5));
    assert!(close(q.last_average(), 3.0 / 4.5)); // cycle 1 plus [4, 4.5) at N = 1
    assert!(!marked(&a, d), "average below 1");
    assert_eq!(q.demand(0, t(4.5)), 2000);
    assert_eq!(q.demand(2, t(4.5)), 2000);
    // Cycle 3 starts at 6.5: cycle 1 is forgotten; cycle 2 = [4, 6.5) has area 2.5.
    let e = line.send(&mut q, &mut a, 2, 1000, PacketKind::Data, t(6.5));
    assert!(close(q.last_average(), 1.0));
    // Congested, but flow 2 (1000 B) is under its share: capacity 0.9 x 2500 B, flow 1
    // offered 2000 B, so the water level is 1125 B and flow 2 keeps its demand.
    assert!(!marked(&a, e));
    assert_eq!(q.demand(0, t(6.5)), 0, "flow 0 sent two cycles ago");
    assert_eq!(q.demand(2, t(6.5)), 2000);
    assert_eq!(q.demand(4, t(6.5)), 1000);
    // In the middle of a busy period: cycle 2 plus [6.5, 7) at N = 1.
    assert!(close(q.average_queue(t(7.0)), 3.0 / 3.0));
    assert_eq!(q.stats.marked, 1);
}

#[test]
fn an_average_of_exactly_one_or_two_needs_inclusive_to_count() {
    // One packet arrives each second, each as the previous one leaves; with `backlog` = 1 an
    // extra packet at t = 0 keeps one waiting throughout. The average queue is then exactly
    // 1 + backlog (each arrival starts a new cycle after an idle period of zero length).
    // The conversation offers the whole line, over the 0.9 x line it may have, so only the
    // threshold tests decide. Returns (marked, panic-marked) among the last 19 packets.
    let run = |cfg: DecBitConfig, backlog: u32| {
        let mut a = PacketArena::new();
        let mut q = gateway(cfg);
        let mut line = Line::default();
        for _ in 0..backlog {
            line.send(&mut q, &mut a, 0, 1000, PacketKind::Data, 0);
        }
        let mut marks = 0;
        for i in 0..20 {
            let p = line.send(&mut q, &mut a, 0, 1000, PacketKind::Data, from_secs(i as f64));
            if i > 0 {
                let want = 1.0 + backlog as f64;
                assert!((q.last_average() - want).abs() < 1e-12, "average {} (want {want})", q.last_average());
                marks += marked(&a, p) as u32;
            }
        }
        (marks, q.stats.panic_marked)
    };
    let inclusive = DecBitConfig { inclusive: true, ..DecBitConfig::default() };
    // The thesis: "greater than one". Nobody waits, so this is not congestion.
    assert_eq!(run(DecBitConfig::default(), 0), (0, 0));
    // The spec's reading (>= 1): every packet after the first is marked.
    assert_eq!(run(inclusive, 0), (19, 0));
    // An average of exactly 2.0 = the panic threshold: congested either way (2 > 1) and over
    // its share, so every packet is marked; only inclusive calls it panic.
    assert_eq!(run(DecBitConfig::default(), 1), (19, 0));
    assert_eq!(run(inclusive, 1), (19, 19), "inclusive: an average of 2 is panic");
}

#[test]
fn nobody_is_marked_while_the_average_queue_is_below_one() {
    // Flow 0: 1000 B every 3 s; flow 1: 1000 B every 6 s, arriving while flow 0's packet
    // is in service. The cycle averages alternate between 1/3 and 5/6.
    let run = |cfg: DecBitConfig| {
        let mut a = PacketArena::new();
        let mut q = gateway(cfg);
        let mut line = Line::default();
        let mut events: Vec<(f64, u32)> = (0..100).map(|i| (3.0 * i as f64, 0)).collect();
        events.extend((0..50).map(|i| (3.5 + 6.0 * i as f64, 1)));
        events.sort_by(|x, y| x.partial_cmp(y).unwrap());
        let mut marks = [0u32; 2];
        for (at, flow) in events {
            let p = pkt(&mut a, flow, 1000, PacketKind::Data);
            line.arrive(&mut q, &mut a, p, from_secs(at));
            if cfg.threshold >= 1.0 {
                assert!(q.last_average() < 1.0, "premise: average {} at {at}", q.last_average());
            }
            marks[flow as usize] += marked(&a, p) as u32;
        }
        marks
    };
    // A tiny capacity factor puts both flows far over their shares: only the average
    // queue keeps the bits off.
    let cfg = DecBitConfig { capacity_factor: 0.01, ..DecBitConfig::default() };
    assert_eq!(run(cfg), [0, 0]);
    // Control: the same traffic with the threshold lowered is marked.
    let marks = run(DecBitConfig { threshold: 0.1, ..cfg });
    assert!(marks[0] > 0 && marks[1] > 0);
}

/// Flow 0 offers 0.7 of the line, flow 1 0.3; both start with a packet at t = 0, so the
/// line never idles and at least one packet is always in the system (average >= 1).
fn overloaded_run(cfg: DecBitConfig) -> ([u32; 2], [u32; 2], DecBit) {
    let mut a = PacketArena::new();
    let mut q = gateway(cfg);
    let mut line = Line::default();
    let mut events: Vec<(SimTime, u32)> = (0..140).map(|i| (from_secs(i as f64 * 10.0 / 7.0), 0)).collect();
    events.extend((0..60).map(|j| (from_secs(j as f64 * 10.0 / 3.0), 1)));
    events.sort();
    let (mut marks, mut seen) = ([0u32; 2], [0u32; 2]);
    for (at, flow) in events {
        let p = pkt(&mut a, flow, 1000, PacketKind::Data);
        line.arrive(&mut q, &mut a, p, at);
        if at >= from_secs(50.0) {
            assert!(q.last_average() >= 1.0);
            seen[flow as usize] += 1;
            marks[flow as usize] += marked(&a, p) as u32;
        }
        // Each packet's ACK passes back through the same port: a separate, unmarked
        // conversation.
        if flow == 1 {
            let ack = pkt(&mut a, 0, 40, PacketKind::Ack);
            line.arrive(&mut q, &mut a, ack, at);
            assert!(!marked(&a, ack));
        }
    }
    (marks, seen, q)
}

#[test]
fn selective_marking_hits_the_conversation_over_its_fair_share_only() {
    // Fair share of 0.9 x line: flow 1 (0.3) keeps its demand, flow 0 may have 0.6 < 0.7.
    let cfg = DecBitConfig { panic_enabled: false, ..DecBitConfig::default() };
    let (marks, seen, q) = overloaded_run(cfg);
    assert_eq!(marks[0], seen[0], "flow 0 is over its share at every arrival");
    assert_eq!(marks[1], 0, "flow 1 is under its share");
    assert!(q.fair.overloaded);
    // Non-selective DECbit marks both.
    let (marks, seen, _) = overloaded_run(DecBitConfig { selective: false, ..cfg });
    assert_eq!(marks, seen);
    // With capacity factor 1.1 flow 0 may have 1.1 - 0.3 - 0.012 (the ACKs) > 0.7.
    let (marks, _, _) = overloaded_run(DecBitConfig { capacity_factor: 1.1, ..cfg });
    assert_eq!(marks, [0, 0]);
    // Measuring over fixed 20 s windows gives the same verdicts.
    let fixed = DecBitConfig { window: FairShareWindow::Fixed(from_secs(20.0)), ..cfg };
    let (marks, seen, _) = overloaded_run(fixed);
    assert_eq!(marks, [seen[0], 0]);
}

#[test]
fn panic_mode_marks_every_data_packet() {
    // Flow 0 dumps six packets at 0; at 3 s flow 1 sends one data packet and one ACK goes
    // by, then flow 0 sends again. Average queue over [0, 3) = (6 + 5 + 4) / 3 = 5.
    let run = |cfg: DecBitConfig| {
        let mut a = PacketArena::new();
        let mut q = gateway(cfg);
        let mut line = Line::default();
        for _ in 0..6 {
            line.send(&mut q, &mut a, 0, 1000, PacketKind::Data, 0);
        }
        let t3 = from_secs(3.0);
        let light = pkt(&mut a, 1, 1000, PacketKind::Data);
        line.arrive(&mut q, &mut a, light, t3);
        assert!((q.last_average() - 5.0).abs() < 1e-12);
        let ack = pkt(&mut a, 1, 40, PacketKind::Ack);
        line.arrive(&mut q, &mut a, ack, t3);
        let heavy = pkt(&mut a, 0, 1000, PacketKind::Data);
        line.arrive(&mut q, &mut a, heavy, t3);
        (marked(&a, light), marked(&a, ack), marked(&a, heavy), q.stats)
    };
    let (light, ack, heavy, stats) = run(DecBitConfig::default());
    assert!(light && heavy && !ack, "panic marks every data packet, never an ACK");
    assert_eq!(stats.panic_marked, 2);
    // Without panic, selection spares the light conversation: capacity 0.9 x 3 s = 2700 B,
    // demands 1000 (flow 1), 40 (its ACKs), 6000 -> 7000 (flow 0): flow 0's share is 1660.
    let (light, ack, heavy, stats) = run(DecBitConfig { panic_enabled: false, ..DecBitConfig::default() });
    assert!(!light && !ack && heavy);
    assert_eq!((stats.marked, stats.panic_marked), (1, 0));
    // A higher panic threshold than the average also leaves it to selection.
    let (light, _, heavy, _) = run(DecBitConfig { panic_threshold: 6.0, ..DecBitConfig::default() });
    assert!(!light && heavy);
}

#[test]
fn fixed_windows_roll_over_lazily_and_forget_silent_conversations() {
    let mut a = PacketArena::new();
    let cfg = DecBitConfig { window: FairShareWindow::Fixed(from_secs(10.0)), ..DecBitConfig::default() };
    let mut q = gateway(cfg);
    let mut line = Line::default();
    for s in [1.0, 2.0, 3.0] {
        line.send(&mut q, &mut a, 7, 1000, PacketKind::Data, from_secs(s));
    }
    line.send(&mut q, &mut a, 1, 1000, PacketKind::Data, from_secs(12.0));
    assert_eq!(q.demand(14, from_secs(12.0)), 3000, "previous window still counts");
    q.refresh_share(from_secs(25.0));
    assert_eq!(q.demand(14, from_secs(25.0)), 0);
    assert_eq!(q.fair.listed, vec![2], "flow 7 dropped from the list, flow 1 still in its previous window");
    assert!(q.fair.convs.len() >= 15, "state grown on demand up to flow 7's slot");
}

#[test]
fn max_min_share_is_the_water_level() {
    assert_eq!(max_min_share(&mut [6000, 1000, 40], 2700.0), 1660.0);
    assert_eq!(max_min_share(&mut [5, 5], 9.0), 4.5);
    assert_eq!(max_min_share(&mut [1, 2], 9.0), f64::INFINITY);
    assert_eq!(max_min_share(&mut [10, 10, 1], 0.0), 0.0);
}

#[test]
fn acks_marked_and_counted_only_when_asked() {
    // ACKs (40 B, 40 ms each on the line) arriving every 10 ms, then a data packet: counted,
    // the ACKs make the average exceed 1; left out, they do not.
    let run = |mark_acks: bool, count_acks: bool| {
        let cfg = DecBitConfig { selective: false, mark_acks, count_acks, ..DecBitConfig::default() };
        let mut a = PacketArena::new();
        let mut q = gateway(cfg);
        let mut line = Line::default();
        let acks: Vec<PacketId> = (0..20).map(|k| line.send(&mut q, &mut a, 1, 40, PacketKind::Ack, from_secs(0.01 * k as f64))).collect();
        let data = line.send(&mut q, &mut a, 0, 1000, PacketKind::Data, from_secs(0.3));
        let acks_marked = acks.iter().filter(|&&p| a.get(p).has(flags::ECHO_CE)).count();
        (acks_marked, marked(&a, data))
    };
    let (acks, data) = run(true, true);
    assert!(acks > 10 && data, "ACKs counted and marked: {acks} ACKs marked, data marked {data}");
    assert_eq!(run(false, true).0, 0, "Keshav's gateway never marks ACKs");
    assert_eq!(run(true, false), (0, false), "ACKs left out: no queue to speak of");
}
