//! FQbit: Fair Queueing plus DECbit-style congestion bits.
//!
//! Source: Keshav 1991, chapter 6 §6.5 ("a bit-setting FQ algorithm in which the congestion
//! bits are set whenever the source's queue length is greater than 1/3 of its fair share of
//! buffer space"; the 1/3 is "completely ad hoc, chosen using performance tuning"). Chapter 1
//! says FQbit is discussed in chapter 2; it is not (spec A16). Digest:
//! shared/specs/keshav91-fq-packet-pair.md M1.10, keshav91-experiments.md §3.4, G21.
//!
//! Scheduling, buffering and dropping are exactly [`FairQueue`]'s (this type wraps one), with
//! the same [`FqConfig`] and its defaults.
//!
//! Choices where the source is silent:
//! - fair share of buffer space = B / N, where B is the buffer size in its own unit (packets
//!   by default, bytes for a byte-counted buffer) and N the number of conversations with
//!   packets queued at this port [REC, G21];
//! - the test is made at arrival, counting the arriving packet (in its queue and in N), and
//!   marks the arriving packet with `flags::CE` when its conversation's queue > fraction·B/N
//!   [REC, §3.4]; no averaging. The test sees the queue after the overflow policy ran: an
//!   arriving packet that was itself dropped is not marked; the packet in service is not part
//!   of any conversation's queue;
//! - `fraction` = 1/3 (the thesis's value) is a constructor parameter; the comparison allows a
//!   relative 1e-9 so that 1/3 written as a float behaves as the exact third;
//! - with an unlimited buffer there is no fair share and nothing is marked;
//! - packets of every conversation can be marked, ACK streams included (a sender reads only
//!   the echoed bit, so a CE on an ACK is inert).

use super::fq::{FairQueue, FqConfig};
use super::{BufferLimit, Discipline, InService, PortSetup, QueueDiscipline, Verdict};
use crate::net::packet::flags;
use crate::net::{PacketArena, PacketId};
use crate::scenario::decode::Result;
use crate::scenario::params::Params;
use crate::sim::SimTime;

/// The thesis's threshold: a third of the fair share of buffer space.
pub const FQBIT_FRACTION: f64 = 1.0 / 3.0;

pub struct FqBit {
    fq: FairQueue,
    fraction: f64,
}

/// FQbit's parameters: FQ's, and the marking threshold.
#[derive(Clone, Debug, PartialEq)]
pub struct FqBitConfig {
    pub fq: FqConfig,
    /// Mark a conversation whose queue exceeds this fraction of its fair buffer share (1/3).
    pub mark_fraction: f64,
}

impl Discipline for FqBit {
    const NAME: &'static str = "fqbit";
    const SUMMARY: &'static str = "FQ with congestion bits set above a third of the fair buffer share (Keshav 1991 §6.5)";
    type Config = FqBitConfig;

    fn decode(p: &mut Params) -> Result<FqBitConfig> {
        let fq = FqConfig::decode(p)?;
        if fq.preemptive {
            return Err(p.error("preemptive", "preemption is available for fq only, not fqbit"));
        }
        let mark_fraction =
            p.number("mark_fraction", FQBIT_FRACTION, 0.0, 1.0, "the fraction of the fair buffer share above which a conversation is marked")?;
        Ok(FqBitConfig { fq, mark_fraction })
    }

    fn build(cfg: &FqBitConfig, port: &PortSetup) -> Self {
        FqBit::new(cfg.fq.on_port(port), port.bandwidth_bps, cfg.mark_fraction)
    }
}

impl FqBit {
    /// FQ on a line of `bandwidth_bps`, marking conversations whose queue exceeds `fraction`
    /// (thesis: 1/3, [`FQBIT_FRACTION`]) of their fair share of the buffer.
    pub fn new(cfg: FqConfig, bandwidth_bps: u64, fraction: f64) -> Self {
        assert!(fraction >= 0.0 && fraction.is_finite(), "FQbit fraction must be a finite non-negative number");
        FqBit { fq: FairQueue::new(cfg, bandwidth_bps), fraction }
    }

    /// The Fair Queueing discipline underneath.
    pub fn fq(&self) -> &FairQueue {
        &self.fq
    }

    pub fn fq_mut(&mut self) -> &mut FairQueue {
        &mut self.fq
    }

    pub fn fraction(&self) -> f64 {
        self.fraction
    }
}

impl QueueDiscipline for FqBit {
    fn set_weight(&mut self, conv: u32, weight: u32) {
        self.fq.set_weight(conv, weight);
    }
    fn groups_flows(&self) -> bool {
        QueueDiscipline::groups_flows(&self.fq)
    }
    fn add_flow(&mut self, flow: u32, src: u32, dst: u32) {
        self.fq.add_flow(flow, src, dst);
    }
    fn set_flow_weight(&mut self, flow: u32, weight: u32) {
        QueueDiscipline::set_flow_weight(&mut self.fq, flow, weight);
    }
    fn enqueue(&mut self, pkt: PacketId, arena: &mut PacketArena, now: SimTime, tx: InService) -> Verdict {
        let v = self.fq.enqueue(pkt, arena, now, tx);
        if v == Verdict::Dropped(pkt) {
            return v;
        }
        let p = arena.get(pkt);
        let conv = self.fq.conversation(p.flow, p.kind);
        let (queue, buffer) = match self.fq.limit() {
            BufferLimit::Packets(n) => (self.fq.conv_len_packets(conv) as f64, n as f64),
            BufferLimit::Bytes(b) => (self.fq.conv_len_bytes(conv) as f64, b as f64),
            BufferLimit::Unlimited => return v,
        };
        // N ≥ 1: the arriving packet's conversation is backlogged.
        let n = self.fq.backlogged_conversations() as f64;
        let threshold = self.fraction * buffer / n;
        if queue > threshold * (1.0 + 1e-9) {
            arena.get_mut(pkt).flags |= flags::CE;
        }
        v
    }

    #[inline]
    fn dequeue(&mut self, arena: &mut PacketArena, now: SimTime) -> Option<PacketId> {
        self.fq.dequeue(arena, now)
    }

    fn len_packets(&self) -> u32 {
        self.fq.len_packets()
    }

    fn len_bytes(&self) -> u64 {
        self.fq.len_bytes()
    }

    fn for_each(&self, f: &mut dyn FnMut(PacketId)) {
        self.fq.for_each(f)
    }

    fn memory_bytes(&self) -> usize {
        self.fq.memory_bytes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::PacketKind;
    use crate::queue::fq::testkit::{packet, Line, TestQ};
    use crate::sim::PS_PER_SEC;

    impl TestQ for FqBit {}

    const DATA: PacketKind = PacketKind::Data;

    /// Offer a packet with the line busy; returns (marked, verdict).
    fn offer(q: &mut impl QueueDiscipline, a: &mut PacketArena, flow: u32, size: u32) -> (bool, Verdict) {
        let p = a.alloc(packet(flow, DATA, size, 0));
        let v = q.enqueue(p, a, 0, InService { bytes: Some(1000) });
        (a.get(p).has(flags::CE), v)
    }

    fn cfg(limit: BufferLimit) -> FqConfig {
        FqConfig { limit, count_in_service: false, ..FqConfig::default() }
    }

    #[test]
    fn marks_only_the_conversation_over_its_threshold() {
        let mut a = PacketArena::new();
        let mut q = FqBit::new(cfg(BufferLimit::Packets(12)), 80_000, FQBIT_FRACTION);
        // A alone: share 12, threshold 4; the 5th packet is the first over it (4 is not > 4).
        for i in 1..=5 {
            assert_eq!(offer(&mut q, &mut a, 0, 1000), (i == 5, Verdict::Accepted), "A{i}");
        }
        // B and C join: N = 2 (threshold 2), then N = 3 (threshold 4/3). One packet each is
        // under it.
        assert!(!offer(&mut q, &mut a, 1, 40).0);
        assert!(!offer(&mut q, &mut a, 2, 40).0);
        // A (6 queued) is over; B's second packet (2 > 4/3) is over too; ACKs of flow 0 are a
        // separate, short conversation.
        assert!(offer(&mut q, &mut a, 0, 1000).0);
        assert!(offer(&mut q, &mut a, 1, 40).0);
        let p = a.alloc(packet(0, PacketKind::Ack, 40, 0));
        q.enqueue(p, &mut a, 0, InService { bytes: Some(1000) });
        assert!(!a.get(p).has(flags::CE));
        assert_eq!(q.fq().backlogged_conversations(), 4);

        // The fraction is a parameter: with 1 (the whole fair share) A's 5th is not marked.
        let mut q = FqBit::new(cfg(BufferLimit::Packets(12)), 80_000, 1.0);
        let marks: Vec<bool> = (0..12).map(|_| offer(&mut q, &mut a, 0, 1000).0).collect();
        assert_eq!(marks.iter().position(|&m| m), None, "12 packets never exceed 12");
        // Byte buffers count bytes: 12000 B behaves like 12 packets of 1000 B.
        let mut q = FqBit::new(cfg(BufferLimit::Bytes(12_000)), 80_000, FQBIT_FRACTION);
        let marks: Vec<bool> = (0..6).map(|_| offer(&mut q, &mut a, 0, 1000).0).collect();
        assert_eq!(marks, [false, false, false, false, true, true]);
        // No buffer limit, no fair share: no marks.
        let mut q = FqBit::new(cfg(BufferLimit::Unlimited), 80_000, FQBIT_FRACTION);
        assert!((0..100).all(|_| !offer(&mut q, &mut a, 0, 1000).0));
    }

    #[test]
    fn dropped_arrivals_are_not_marked_and_drops_follow_fq() {
        let mut a = PacketArena::new();
        let mut q = FqBit::new(cfg(BufferLimit::Packets(3)), 80_000, FQBIT_FRACTION);
        for _ in 0..3 {
            offer(&mut q, &mut a, 0, 1000);
        }
        let p = a.alloc(packet(0, DATA, 1000, 0));
        assert_eq!(q.enqueue(p, &mut a, 0, InService { bytes: Some(1000) }), Verdict::Dropped(p));
        assert!(!a.get(p).has(flags::CE));
        assert_eq!(q.len_packets(), 3);
    }

    /// Same arrivals through FQ and FQbit: identical departures and drops; only the greedy
    /// conversations (queues far over a third of 40/4) carry marks, the sparse one never.
    #[test]
    fn schedules_exactly_like_fq_and_marks_only_the_hogs() {
        let bps = 80_000;
        let sec = PS_PER_SEC;
        fn drive<Q: TestQ>(q: Q, bps: u64, sec: u64, deps: &mut Vec<(u32, u64, bool)>, drops: &mut Vec<(u64, u32)>) {
            let mut line = Line::new(q, bps);
            for f in 0..3 {
                for _ in 0..20 {
                    line.arrive(0, f, PacketKind::Data, 1000);
                }
            }
            for i in 0..200u64 {
                line.arrive(sec / 2 + i * sec * 7 / 10, 3, PacketKind::Data, 40);
            }
            line.run(u64::MAX, |d, out| {
                deps.push((d.flow, d.end, d.ce));
                if d.flow < 3 && d.end < 150 * sec {
                    out.push((d.end, d.flow, PacketKind::Data, 1000));
                }
            });
            drops.extend(line.drops.iter().map(|d| (d.0, d.1)));
        }
        let (mut fq_deps, mut fq_drops, mut bit_deps, mut bit_drops) = (vec![], vec![], vec![], vec![]);
        drive(FairQueue::new(FqConfig::default(), bps), bps, sec, &mut fq_deps, &mut fq_drops);
        drive(FqBit::new(FqConfig::default(), bps, FQBIT_FRACTION), bps, sec, &mut bit_deps, &mut bit_drops);
        let strip = |v: &[(u32, u64, bool)]| v.iter().map(|&(f, t, _)| (f, t)).collect::<Vec<_>>();
        assert_eq!(strip(&fq_deps), strip(&bit_deps));
        assert_eq!(fq_drops, bit_drops);
        assert!(!fq_drops.is_empty(), "60 greedy packets into 40 buffers must overflow");
        assert!(fq_deps.iter().all(|d| !d.2), "plain FQ never marks");
        assert!(bit_deps.iter().filter(|d| d.0 == 3).all(|d| !d.2), "the sparse conversation is never marked");
        let hog_marked = bit_deps.iter().filter(|d| d.0 < 3 && d.2).count();
        let hog_total = bit_deps.iter().filter(|d| d.0 < 3).count();
        assert!(hog_marked * 10 > hog_total * 9, "{hog_marked} of {hog_total} hog packets marked");
    }
}
