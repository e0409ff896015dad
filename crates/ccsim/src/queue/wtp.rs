//! WTP: Waiting-Time Priority, Kleinrock's time-dependent priorities, as a proportional delay
//! differentiation scheduler.
//!
//! Sources: Kleinrock 1964 ("A delay dependent queue discipline", NRLQ 11) and 1976 (Queueing
//! Systems vol. 2 §3.7), as Dovrolis et al. 1999 (SIGCOMM) and Hua 2002 §5.2 (eq. 5.1, Fig
//! 5.1) use it (spec hua02-vegas-jcc-swtp.md §1.5.2). Packets wait FIFO per traffic class
//! (`Packet::class`). A class-c packet that arrived at τ has, at t, the weighted waiting time
//! q_c(t) = b_c (t − τ). Whenever the line is free, q is computed for the head-of-line packet
//! of every backlogged class and the largest is sent, whole (non-preemptive).
//!
//! Choices where the sources are silent (shared with `swtp` and `bpr`, which reuse this
//! file's [`ClassWeights`] and [`ClassQueues`]):
//! - Class numbering: class 0 is the lowest priority (largest delay; the thesis's class 1),
//!   higher numbers are better served. Weights: b_c = `spacing`^c (b_0 = 1; Hua uses spacing
//!   2.0 and 1.5), or an explicit `weights = [b_0, b_1, ...]`, which wins when both are given
//!   (`spacing` is then ignored). A packet of a class beyond the list gets the list's last
//!   weight (in a queue of its own). Any positive weights are accepted; the proportional
//!   model wants them non-decreasing.
//! - The classes the scheduler holds are 0..N−1, N = 1 + the highest class seen so far; a new
//!   class's queue is made when its first packet arrives (the only allocation besides a
//!   queue's growth: per-class `VecDeque`s that never shrink, so a run in steady state
//!   allocates nothing).
//! - Ties (equal weighted waits, e.g. two packets that arrived at the same instant with equal
//!   weights) go to the higher class (spec §1.5.2's recommendation).
//! - "Arrival" is the instant the packet is offered to this port's queue; the wait runs to the
//!   instant it is handed to the transmitter (pure queueing delay, as the departure trace's
//!   `wait_s` measures).
//! - The buffer is the port's (`buffer`, `count_in_service`): drop-tail on the total over all
//!   classes, exactly [`super::DropTail`]'s rule (the spec recommends an unlimited buffer).
//! - Operation counts ([`Wtp::ops`]), the thesis's way (§5.2): per decision, for each of the
//!   k backlogged classes one subtraction and one multiplication, and k − 1 comparisons:
//!   3k − 1, i.e. 3N − 1 with every class backlogged (the thesis rounds it to 3N).

use super::{BufferLimit, Discipline, InService, PortSetup, QueueDiscipline, Verdict};
use crate::net::{PacketArena, PacketId};
use crate::scenario::decode::Result;
use crate::scenario::params::Params;
use crate::sim::SimTime;
use std::collections::VecDeque;

/// The class weights b_c: `spacing`^c, or an explicit list (which wins).
#[derive(Clone, Debug, PartialEq)]
pub struct ClassWeights {
    /// b_{c+1} / b_c, with b_0 = 1. 2.0.
    pub spacing: f64,
    /// Explicit b_0, b_1, ...: overrides `spacing`; classes beyond it get the last one.
    pub list: Option<Vec<f64>>,
}

impl Default for ClassWeights {
    fn default() -> Self {
        ClassWeights { spacing: 2.0, list: None }
    }
}

impl ClassWeights {
    /// The parameters `wtp`, `swtp` and `bpr` share.
    pub fn decode(p: &mut Params) -> Result<ClassWeights> {
        let d = ClassWeights::default();
        let spacing = p.number(
            "spacing",
            d.spacing,
            0.0625,
            16.0,
            "b_{c+1}/b_c: class c's weight is spacing^c (class 0, the lowest priority, has 1)",
        )?;
        const LIST: &str = "a list of 1 to 256 positive numbers";
        let list = p.custom(
            "weights",
            None,
            "unset (spacing^class)",
            LIST,
            "explicit class weights [b_0, b_1, ...], overriding spacing; classes beyond the list get its last weight",
            |v| match v {
                toml::Value::Array(items) if !items.is_empty() && items.len() <= 256 => items
                    .iter()
                    .enumerate()
                    .map(|(i, x)| match x {
                        toml::Value::Integer(n) if *n > 0 => Ok(*n as f64),
                        toml::Value::Float(f) if f.is_finite() && *f > 0.0 && *f < 1e100 => Ok(*f),
                        _ => Err(format!("{LIST} (entry {i} is not)")),
                    })
                    .collect::<std::result::Result<Vec<f64>, String>>()
                    .map(Some),
                _ => Err(LIST.to_string()),
            },
        )?;
        Ok(ClassWeights { spacing, list })
    }

    /// b_c.
    pub fn weight(&self, class: u8) -> f64 {
        match &self.list {
            Some(l) => l[(class as usize).min(l.len() - 1)],
            None => self.spacing.powi(class as i32),
        }
    }
}

/// A waiting packet: when it arrived, which it is, its size.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Waiting {
    pub arrived: SimTime,
    pub pkt: PacketId,
    pub size: u32,
}

/// Per-class FIFO queues under one drop-tail buffer, with the classes' weights.
pub struct ClassQueues {
    queues: Vec<VecDeque<Waiting>>,
    weights: Vec<f64>,
    cfg: ClassWeights,
    packets: u32,
    bytes: u64,
    max_packets: u32,
    max_bytes: u64,
    count_in_service: bool,
}

impl ClassQueues {
    pub fn new(cfg: ClassWeights, limit: BufferLimit, count_in_service: bool) -> Self {
        let (max_packets, max_bytes) = match limit {
            BufferLimit::Packets(n) => (n, u64::MAX),
            BufferLimit::Bytes(b) => (u32::MAX, b),
            BufferLimit::Unlimited => (u32::MAX, u64::MAX),
        };
        ClassQueues { queues: Vec::new(), weights: Vec::new(), cfg, packets: 0, bytes: 0, max_packets, max_bytes, count_in_service }
    }

    /// N: the classes held (1 + the highest seen).
    #[inline]
    pub fn classes(&self) -> usize {
        self.queues.len()
    }

    /// Make sure class `c` has a queue; true when it had to be made (N grew).
    #[inline]
    pub fn ensure(&mut self, c: u8) -> bool {
        if (c as usize) < self.queues.len() {
            return false;
        }
        self.grow(c);
        true
    }

    #[cold]
    fn grow(&mut self, c: u8) {
        while self.queues.len() <= c as usize {
            let k = self.queues.len() as u8;
            self.queues.push(VecDeque::new());
            self.weights.push(self.cfg.weight(k));
        }
    }

    /// The buffer has room for a packet of `size` bytes (drop-tail on the total).
    #[inline]
    pub fn admits(&self, size: u32, tx: InService) -> bool {
        let (svc_pkts, svc_bytes) = match (self.count_in_service, tx.bytes) {
            (true, Some(b)) => (1u64, b as u64),
            _ => (0, 0),
        };
        self.packets as u64 + svc_pkts < self.max_packets as u64 && self.bytes.saturating_add(svc_bytes + size as u64) <= self.max_bytes
    }

    #[inline]
    pub fn push(&mut self, c: usize, w: Waiting) {
        self.queues[c].push_back(w);
        self.packets += 1;
        self.bytes += w.size as u64;
    }

    /// Take class `c`'s head-of-line packet (the class must be backlogged).
    #[inline]
    pub fn pop(&mut self, c: usize) -> Waiting {
        let w = self.queues[c].pop_front().expect("a backlogged class");
        self.packets -= 1;
        self.bytes -= w.size as u64;
        w
    }

    #[inline]
    pub fn head(&self, c: usize) -> Option<&Waiting> {
        self.queues[c].front()
    }

    #[inline]
    pub fn is_empty(&self, c: usize) -> bool {
        self.queues[c].is_empty()
    }

    /// Packets waiting in class `c`.
    pub fn len_of(&self, c: usize) -> usize {
        self.queues[c].len()
    }

    #[inline]
    pub fn weight(&self, c: usize) -> f64 {
        self.weights[c]
    }

    #[inline]
    pub fn packets(&self) -> u32 {
        self.packets
    }

    #[inline]
    pub fn bytes(&self) -> u64 {
        self.bytes
    }

    pub fn for_each(&self, f: &mut dyn FnMut(PacketId)) {
        for q in &self.queues {
            q.iter().for_each(|w| f(w.pkt));
        }
    }

    pub fn memory_bytes(&self) -> usize {
        self.queues.iter().map(|q| q.capacity() * std::mem::size_of::<Waiting>()).sum::<usize>()
            + self.queues.capacity() * std::mem::size_of::<VecDeque<Waiting>>()
            + self.weights.capacity() * 8
    }
}

/// Operations counted the thesis's way (Hua 2002 §5.2, §5.3.3).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct OpCount {
    /// Transmission decisions made.
    pub decisions: u64,
    /// Operations (subtractions, multiplications, comparisons) made for them.
    pub operations: u64,
    /// The most any one decision took.
    pub max_per_decision: u64,
    /// Operations made at arrivals, outside decisions (S-WTP's insertion of a class that
    /// becomes backlogged; none for WTP).
    pub arrival_operations: u64,
}

impl OpCount {
    #[inline]
    pub(crate) fn decision(&mut self, ops: u64) {
        self.decisions += 1;
        self.operations += ops;
        self.max_per_decision = self.max_per_decision.max(ops);
    }

    /// Mean operations per decision.
    pub fn per_decision(&self) -> f64 {
        self.operations as f64 / self.decisions.max(1) as f64
    }
}

/// Elapsed time `now − then` as a float (picoseconds; exact below 2^53 ps, about 2.5 hours).
#[inline]
pub(crate) fn elapsed(now: SimTime, then: SimTime) -> f64 {
    now.saturating_sub(then) as f64
}

pub struct Wtp {
    q: ClassQueues,
    ops: OpCount,
}

impl Wtp {
    pub fn new(cfg: ClassWeights, limit: BufferLimit, count_in_service: bool) -> Self {
        Wtp { q: ClassQueues::new(cfg, limit, count_in_service), ops: OpCount::default() }
    }

    /// Operations per decision, counted the thesis's way (see the header).
    pub fn ops(&self) -> OpCount {
        self.ops
    }

    /// N, the classes held.
    pub fn classes(&self) -> usize {
        self.q.classes()
    }
}

impl Discipline for Wtp {
    const NAME: &'static str = "wtp";
    const SUMMARY: &'static str =
        "Waiting-Time Priority (Kleinrock 1964/1976; Dovrolis et al. 1999; Hua 2002 §5.2): per-class FIFOs, the largest weighted head-of-line wait b_c (t − τ) goes next";
    type Config = ClassWeights;

    fn decode(p: &mut Params) -> Result<ClassWeights> {
        ClassWeights::decode(p)
    }

    fn build(cfg: &ClassWeights, port: &PortSetup) -> Self {
        Wtp::new(cfg.clone(), port.buffer, port.count_in_service)
    }
}

impl QueueDiscipline for Wtp {
    #[inline]
    fn enqueue(&mut self, pkt: PacketId, arena: &mut PacketArena, now: SimTime, tx: InService) -> Verdict {
        let p = arena.get(pkt);
        let (class, size) = (p.class, p.size);
        self.q.ensure(class);
        if !self.q.admits(size, tx) {
            return Verdict::Dropped(pkt);
        }
        self.q.push(class as usize, Waiting { arrived: now, pkt, size });
        Verdict::Accepted
    }

    #[inline]
    fn dequeue(&mut self, _arena: &mut PacketArena, now: SimTime) -> Option<PacketId> {
        if self.q.packets() == 0 {
            return None;
        }
        // From the highest class down, replacing only on a strictly larger value: ties stay
        // with the higher class.
        let mut best = usize::MAX;
        let mut best_q = f64::NEG_INFINITY;
        let mut backlogged = 0u64;
        for c in (0..self.q.classes()).rev() {
            if let Some(h) = self.q.head(c) {
                backlogged += 1;
                let q = self.q.weight(c) * elapsed(now, h.arrived);
                if q > best_q {
                    best_q = q;
                    best = c;
                }
            }
        }
        // k subtractions, k multiplications, k - 1 comparisons.
        self.ops.decision(3 * backlogged - 1);
        Some(self.q.pop(best).pkt)
    }

    fn len_packets(&self) -> u32 {
        self.q.packets()
    }

    fn len_bytes(&self) -> u64 {
        self.q.bytes()
    }

    fn for_each(&self, f: &mut dyn FnMut(PacketId)) {
        self.q.for_each(f)
    }

    fn memory_bytes(&self) -> usize {
        self.q.memory_bytes()
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::net::packet::{Packet, EMPTY};
    use crate::scenario::decode::Obj;

    pub(crate) fn pkt(arena: &mut PacketArena, class: u8, size: u32) -> PacketId {
        arena.alloc(Packet { class, size, ..EMPTY })
    }

    pub(crate) fn weights(list: &[f64]) -> ClassWeights {
        ClassWeights { spacing: 2.0, list: Some(list.to_vec()) }
    }

    const IDLE: InService = InService { bytes: None };

    #[test]
    fn the_largest_weighted_head_of_line_wait_goes_and_overtakes_fifo() {
        // Fig 5.1: a later class-1 packet (slope 2) overtakes an earlier class-0 one (slope 1)
        // once 2 (t - 4) > (t - 0), i.e. after t = 8.
        let mut a = PacketArena::new();
        let mut q = Wtp::new(ClassWeights::default(), BufferLimit::Unlimited, true);
        let low = pkt(&mut a, 0, 100);
        let high = pkt(&mut a, 1, 100);
        q.enqueue(low, &mut a, 0, IDLE);
        q.enqueue(high, &mut a, 4, IDLE);
        // At t = 7: 7 against 6: the older low-class packet.
        let mut early = Wtp::new(ClassWeights::default(), BufferLimit::Unlimited, true);
        let (l2, h2) = (pkt(&mut a, 0, 100), pkt(&mut a, 1, 100));
        early.enqueue(l2, &mut a, 0, IDLE);
        early.enqueue(h2, &mut a, 4, IDLE);
        assert_eq!(early.dequeue(&mut a, 7), Some(l2));
        // At t = 8: 8 against 8: a tie, to the higher class.
        assert_eq!(q.dequeue(&mut a, 8), Some(high));
        assert_eq!(q.dequeue(&mut a, 9), Some(low));
        assert_eq!(q.dequeue(&mut a, 9), None);
        // At t = 9 the newer high-class packet leads: 10 against 9.
        let mut late = Wtp::new(ClassWeights::default(), BufferLimit::Unlimited, true);
        let (l3, h3) = (pkt(&mut a, 0, 100), pkt(&mut a, 1, 100));
        late.enqueue(l3, &mut a, 0, IDLE);
        late.enqueue(h3, &mut a, 4, IDLE);
        assert_eq!(late.dequeue(&mut a, 9), Some(h3));
    }

    #[test]
    fn fifo_within_a_class_and_classes_beyond_the_list_get_its_last_weight() {
        let mut a = PacketArena::new();
        let mut q = Wtp::new(weights(&[1.0, 3.0]), BufferLimit::Unlimited, true);
        let ids: Vec<_> = (0..3).map(|_| pkt(&mut a, 0, 100)).collect();
        for (t, &p) in ids.iter().enumerate() {
            q.enqueue(p, &mut a, t as u64, IDLE);
        }
        // Class 5 weighs 3 like class 1, so it beats class 0's head waiting 3x as long but not 4x.
        let x = pkt(&mut a, 5, 100);
        q.enqueue(x, &mut a, 10, IDLE);
        assert_eq!(q.classes(), 6);
        assert_eq!(q.dequeue(&mut a, 14), Some(ids[0])); // 14 > 3 x 4 = 12
        assert_eq!(q.dequeue(&mut a, 16), Some(x)); // 3 x 6 = 18 > 15
        assert_eq!(q.dequeue(&mut a, 16), Some(ids[1]));
        assert_eq!(q.dequeue(&mut a, 16), Some(ids[2]));
        assert_eq!(q.len_packets(), 0);
        assert_eq!(ClassWeights::default().weight(3), 8.0);
        assert_eq!(ClassWeights { spacing: 1.5, list: None }.weight(2), 2.25);
    }

    #[test]
    fn the_buffer_is_drop_tail_on_the_total() {
        let mut a = PacketArena::new();
        let busy = InService { bytes: Some(500) };
        let mut q = Wtp::new(ClassWeights::default(), BufferLimit::Packets(3), true);
        let mut verdicts = Vec::new();
        for i in 0..4 {
            let p = pkt(&mut a, i % 2, 100);
            verdicts.push((p, q.enqueue(p, &mut a, 0, busy)));
        }
        assert_eq!(verdicts.iter().filter(|v| v.1 == Verdict::Accepted).count(), 2);
        assert_eq!(verdicts[2].1, Verdict::Dropped(verdicts[2].0));
        let mut b = Wtp::new(ClassWeights::default(), BufferLimit::Bytes(250), false);
        let p = pkt(&mut a, 1, 200);
        assert_eq!(b.enqueue(p, &mut a, 0, busy), Verdict::Accepted);
        let p = pkt(&mut a, 0, 100);
        assert_eq!(b.enqueue(p, &mut a, 0, busy), Verdict::Dropped(p));
        assert_eq!((b.len_packets(), b.len_bytes()), (1, 200));
    }

    /// V5.5: with every class backlogged a decision takes N subtractions, N multiplications
    /// and N - 1 comparisons; with k backlogged, 3k - 1.
    #[test]
    fn operation_counts_per_decision_are_3n_minus_1() {
        for n in 1..=8u8 {
            let mut a = PacketArena::new();
            let mut q = Wtp::new(ClassWeights::default(), BufferLimit::Unlimited, true);
            for round in 0..20u64 {
                for c in 0..n {
                    let p = pkt(&mut a, c, 100);
                    q.enqueue(p, &mut a, round, IDLE);
                }
            }
            // 20 decisions while every class still has a packet (each class holds 20).
            for t in 0..20 {
                let before = q.ops();
                q.dequeue(&mut a, 100 + t).unwrap();
                assert_eq!(q.ops().operations - before.operations, 3 * n as u64 - 1, "N = {n}");
            }
            assert_eq!(q.ops().max_per_decision, 3 * n as u64 - 1);
            while q.dequeue(&mut a, 1000).is_some() {}
            assert!(q.ops().max_per_decision <= 3 * n as u64);
            assert_eq!(q.ops().decisions, 20 * n as u64);
        }
    }

    #[test]
    fn weights_decode_from_a_list_or_the_spacing() {
        let read = |text: &str| {
            let v: toml::Value = toml::from_str::<toml::Table>(text).map(toml::Value::Table).unwrap();
            let mut p = Params::new(Obj::new(&v, "queue_params").unwrap());
            let r = ClassWeights::decode(&mut p);
            r.and_then(|w| p.finish().map(|_| w))
        };
        assert_eq!(read("").unwrap(), ClassWeights::default());
        assert_eq!(read("spacing = 1.5").unwrap().weight(2), 2.25);
        let w = read("spacing = 3\nweights = [1, 2.5, 4]").unwrap();
        assert_eq!((w.weight(1), w.weight(2), w.weight(7)), (2.5, 4.0, 4.0));
        let e = read("weights = [1, -2]").unwrap_err();
        assert!(e.path == "queue_params.weights" && e.message.contains("entry 1"), "{e:?}");
        assert!(read("weights = []").is_err());
        assert!(read("spacing = 0").is_err());
    }
}
