//! Random Drop: FCFS whose overflow victim is drawn at random from the queue.
//!
//! Source: Liang 1991 §1.7 and §3.2.2-3.3 (spec liang91-seif.md §1.8.5), after Mankin's
//! Random Drop: when an arriving packet does not fit, one packet is picked uniformly at random
//! from the waiting packets and the arriving one. If the arriving packet is picked it is
//! dropped. Otherwise SEIF's size rule decides (§3.3): a picked packet *smaller* than the
//! arriving one is kept and the arriving packet dropped; else the picked packet is dropped and
//! the arriving one admitted. In a buffer counted in packets any slot fits any packet, so the
//! picked packet is always the one dropped.
//!
//! Choices where the source is silent, each a parameter:
//! - `victim = "size"` (default): §3.3's size comparison. `"space"` is §3.2.2's wording,
//!   "the vacated space might not be large enough": the picked packet goes when the free space
//!   plus its size fits the arriving packet. `"arriving"` always drops the arriving packet
//!   (drop-tail, for comparisons under the same router). `"size_slots"` applies §3.3's
//!   comparison in packet-counted buffers too (a picked ACK is kept, the arriving data packet
//!   dropped), where "size" and "space" drop the pick since any slot fits. The DECbit and
//!   SEIF routers take the same `victim` values.
//! - The packet on the line is never a candidate (it is no longer waiting); any waiting
//!   packet is, whatever its kind (data, ACK).
//! - Buffer accounting is drop-tail's (`count_in_service`: the packet on the line takes room).
//! - The draw comes from the port's own random stream (`port/NAME/random_drop`).

use super::{BufferLimit, Discipline, InService, PortSetup, QueueDiscipline, Verdict};
use crate::net::{PacketArena, PacketId};
use crate::scenario::decode::Result;
use crate::scenario::params::Params;
use crate::sim::{Rng, SimTime};
use std::collections::VecDeque;

/// Which packet an overflow drops once the random pick is made.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Victim {
    /// Liang §3.3: keep a picked packet smaller than the arriving one (drop the arriving).
    Size,
    /// Liang §3.2.2: drop the picked packet if that makes room for the arriving one.
    Space,
    /// §3.3's comparison in a buffer counted in packets too: a picked packet smaller than the
    /// arriving one (an ACK, for a data packet) is kept though its slot would fit.
    SizeSlots,
    /// Always the arriving packet (drop-tail).
    Arriving,
}

pub const VICTIMS: &[(&str, Victim)] = &[("size", Victim::Size), ("space", Victim::Space), ("arriving", Victim::Arriving), ("size_slots", Victim::SizeSlots)];

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RandomDropConfig {
    pub victim: Victim,
}

impl Default for RandomDropConfig {
    fn default() -> Self {
        RandomDropConfig { victim: Victim::Size }
    }
}

pub struct RandomDrop {
    queue: VecDeque<PacketId>,
    bytes: u64,
    limit: BufferLimit,
    count_in_service: bool,
    victim: Victim,
    rng: Rng,
}

impl Discipline for RandomDrop {
    const NAME: &'static str = "random_drop";
    const SUMMARY: &'static str = "FCFS whose overflow drops a packet picked at random, with SEIF's size rule (Mankin 1990; Liang 1991 §3.3)";
    type Config = RandomDropConfig;

    fn decode(p: &mut Params) -> Result<RandomDropConfig> {
        Ok(RandomDropConfig { victim: decode_victim(p)? })
    }

    fn build(cfg: &RandomDropConfig, port: &PortSetup) -> Self {
        RandomDrop::new(port.buffer, port.count_in_service, cfg.victim, port.rng("random_drop"))
    }
}

/// The `victim` parameter (shared with the SEIF router, which drops the same way).
pub fn decode_victim(p: &mut Params) -> Result<Victim> {
    p.choice(
        "victim",
        Victim::Size,
        VICTIMS,
        "on overflow, of a random pick among the waiting and the arriving packets: \"size\" keeps a picked packet smaller than the arriving one (Liang §3.3), \"space\" drops the pick if that makes room (§3.2.2), \"arriving\" is drop-tail, \"size_slots\" compares sizes in packet-counted buffers too (where \"size\" and \"space\" drop the pick)",
    )
}

impl RandomDrop {
    pub fn new(limit: BufferLimit, count_in_service: bool, victim: Victim, rng: Rng) -> Self {
        RandomDrop { queue: VecDeque::new(), bytes: 0, limit, count_in_service, victim, rng }
    }

    /// Packets and bytes waiting, plus the packet on the line (whether the buffer counts it
    /// or not).
    pub fn held_with_line(&self, tx: InService) -> (u64, u64) {
        match tx.bytes {
            Some(b) => (self.queue.len() as u64 + 1, self.bytes + b as u64),
            None => (self.queue.len() as u64, self.bytes),
        }
    }

    /// Packets and bytes held, the packet on the line included when the buffer counts it.
    pub fn held(&self, tx: InService) -> (u64, u64) {
        match (self.count_in_service, tx.bytes) {
            (true, Some(b)) => (self.queue.len() as u64 + 1, self.bytes + b as u64),
            _ => (self.queue.len() as u64, self.bytes),
        }
    }

    /// Bytes still free (u64::MAX for a buffer not counted in bytes).
    fn free_bytes(&self, tx: InService) -> u64 {
        match self.limit {
            BufferLimit::Bytes(b) => b.saturating_sub(self.held(tx).1),
            _ => u64::MAX,
        }
    }

    fn fits(&self, size: u64, tx: InService) -> bool {
        let (p, b) = self.held(tx);
        match self.limit {
            BufferLimit::Packets(n) => p < n as u64,
            BufferLimit::Bytes(max) => b + size <= max,
            BufferLimit::Unlimited => true,
        }
    }

    fn below(&mut self, n: usize) -> usize {
        (((self.rng.next_u64() >> 32) * n as u64) >> 32) as usize
    }
}

impl QueueDiscipline for RandomDrop {
    fn enqueue(&mut self, pkt: PacketId, arena: &mut PacketArena, _now: SimTime, tx: InService) -> Verdict {
        let size = arena.get(pkt).size as u64;
        if self.fits(size, tx) {
            self.queue.push_back(pkt);
            self.bytes += size;
            return Verdict::Accepted;
        }
        if self.victim == Victim::Arriving || self.queue.is_empty() {
            return Verdict::Dropped(pkt);
        }
        let k = self.below(self.queue.len() + 1);
        if k == self.queue.len() {
            return Verdict::Dropped(pkt);
        }
        let picked = self.queue[k];
        let picked_size = arena.get(picked).size as u64;
        let drop_picked = match (self.victim, self.limit) {
            (Victim::SizeSlots, _) => picked_size >= size,
            (_, BufferLimit::Packets(_)) => true,
            (Victim::Size, _) => picked_size >= size,
            _ => self.free_bytes(tx).saturating_add(picked_size) >= size,
        };
        if !drop_picked {
            return Verdict::Dropped(pkt);
        }
        self.queue.remove(k);
        self.bytes -= picked_size;
        self.queue.push_back(pkt);
        self.bytes += size;
        Verdict::Dropped(picked)
    }

    fn dequeue(&mut self, arena: &mut PacketArena, _now: SimTime) -> Option<PacketId> {
        let p = self.queue.pop_front()?;
        self.bytes -= arena.get(p).size as u64;
        Some(p)
    }

    fn len_packets(&self) -> u32 {
        self.queue.len() as u32
    }

    fn len_bytes(&self) -> u64 {
        self.bytes
    }

    fn for_each(&self, f: &mut dyn FnMut(PacketId)) {
        self.queue.iter().copied().for_each(f);
    }

    fn memory_bytes(&self) -> usize {
        self.queue.capacity() * std::mem::size_of::<PacketId>()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::packet::{Packet, EMPTY};

    fn queue(limit: BufferLimit, victim: Victim) -> RandomDrop {
        RandomDrop::new(limit, true, victim, Rng::from_seed(7))
    }

    fn pkt(a: &mut PacketArena, size: u32) -> PacketId {
        a.alloc(Packet { size, ..EMPTY })
    }

    const IDLE: InService = InService { bytes: None };

    #[test]
    fn a_small_packet_fits_where_a_large_one_does_not() {
        // Liang U6: a byte buffer with 60 B free admits a 50-byte ACK; ten full slots admit
        // nothing.
        let mut a = PacketArena::new();
        let mut q = queue(BufferLimit::Bytes(5120), Victim::Size);
        for _ in 0..9 {
            assert_eq!(q.enqueue(pkt(&mut a, 512), &mut a, 0, IDLE), Verdict::Accepted);
        }
        assert_eq!(q.enqueue(pkt(&mut a, 452), &mut a, 0, IDLE), Verdict::Accepted);
        assert_eq!(q.len_bytes(), 5060, "60 bytes free");
        assert_eq!(q.enqueue(pkt(&mut a, 50), &mut a, 0, IDLE), Verdict::Accepted);
        let mut slots = queue(BufferLimit::Packets(10), Victim::Size);
        for _ in 0..10 {
            slots.enqueue(pkt(&mut a, 512), &mut a, 0, IDLE);
        }
        let ack = pkt(&mut a, 50);
        assert_ne!(slots.enqueue(ack, &mut a, 0, IDLE), Verdict::Accepted, "10 slots full: nothing gets in");
        assert_eq!(slots.len_packets(), 10);
    }

    #[test]
    fn the_size_rule_keeps_small_picks_and_the_victim_is_uniform() {
        // A full byte buffer of ACKs (50 B) and data (512 B); a data packet arrives.
        let mut drops = [0u32; 3]; // arriving, a queued ACK, a queued data packet
        let mut q = queue(BufferLimit::Bytes(1123), Victim::Size);
        let mut a = PacketArena::new();
        let ack = pkt(&mut a, 50);
        let data = pkt(&mut a, 512);
        let fill = [ack, pkt(&mut a, 50), data];
        for &p in &fill {
            assert_eq!(q.enqueue(p, &mut a, 0, IDLE), Verdict::Accepted);
        }
        let trials = 40_000;
        for _ in 0..trials {
            let arriving = pkt(&mut a, 512);
            match q.enqueue(arriving, &mut a, 0, IDLE) {
                Verdict::Dropped(d) if d == arriving => drops[0] += 1,
                Verdict::Dropped(d) if a.get(d).size == 50 => unreachable!("an ACK smaller than the arrival is kept"),
                Verdict::Dropped(d) => {
                    drops[2] += 1;
                    // Put the dropped data packet back in place of the arrival, as it was.
                    q.queue.retain(|&x| x != arriving);
                    q.queue.push_back(d);
                }
                Verdict::Accepted => unreachable!("the buffer is full"),
            }
            a.free(arriving);
        }
        // Picks: the arriving packet 1/4, the two ACKs 2/4 (then the arriving is dropped), the
        // data packet 1/4.
        let share = drops[2] as f64 / trials as f64;
        assert!((share - 0.25).abs() < 0.01, "data packet dropped in {share} of overflows");
        assert_eq!(drops[0] + drops[2], trials);
    }

    #[test]
    fn space_rule_drops_a_small_pick_when_that_makes_room() {
        let mut a = PacketArena::new();
        let mut q = queue(BufferLimit::Bytes(600), Victim::Space);
        let ack = pkt(&mut a, 50);
        let data = pkt(&mut a, 512);
        q.enqueue(ack, &mut a, 0, IDLE);
        q.enqueue(data, &mut a, 0, IDLE);
        // 38 B free: a 60-byte packet fits once the 50-byte ACK goes (88 >= 60).
        let mut dropped_ack = false;
        for _ in 0..64 {
            let p = pkt(&mut a, 60);
            if let Verdict::Dropped(d) = q.enqueue(p, &mut a, 0, IDLE) {
                if d == ack {
                    dropped_ack = true;
                    break;
                }
            }
        }
        assert!(dropped_ack, "under the space rule the ACK is a possible victim");
        assert!(q.len_bytes() <= 600);
    }

    #[test]
    fn packet_buffers_drop_the_pick_and_arriving_is_drop_tail() {
        let mut a = PacketArena::new();
        let mut q = queue(BufferLimit::Packets(3), Victim::Size);
        let mut tail = queue(BufferLimit::Packets(3), Victim::Arriving);
        let first: Vec<_> = (0..3).map(|_| pkt(&mut a, 512)).collect();
        for &p in &first {
            q.enqueue(p, &mut a, 0, IDLE);
            tail.enqueue(p, &mut a, 0, IDLE);
        }
        let mut queued_victims = 0;
        for _ in 0..100 {
            let p = pkt(&mut a, 50);
            if let Verdict::Dropped(d) = q.enqueue(p, &mut a, 0, IDLE) {
                queued_victims += u32::from(d != p);
            }
            assert_eq!(tail.enqueue(p, &mut a, 0, IDLE), Verdict::Dropped(p));
            assert_eq!(q.len_packets(), 3);
        }
        assert!(queued_victims > 50, "a small arrival still pushes out a large pick in a packet buffer");
    }

    #[test]
    fn size_slots_keeps_a_picked_ack_in_a_packet_buffer() {
        // Two ACKs and a data packet fill three slots; data packets arrive. Under "size" a
        // picked ACK goes; under "size_slots" it stays and the arrival is dropped instead.
        for (victim, acks_may_go) in [(Victim::Size, true), (Victim::SizeSlots, false)] {
            let mut a = PacketArena::new();
            let mut q = queue(BufferLimit::Packets(3), victim);
            for size in [50, 50, 512] {
                q.enqueue(pkt(&mut a, size), &mut a, 0, IDLE);
            }
            let mut acks_dropped = 0;
            for _ in 0..200 {
                let p = pkt(&mut a, 512);
                if let Verdict::Dropped(d) = q.enqueue(p, &mut a, 0, IDLE) {
                    acks_dropped += u32::from(a.get(d).size == 50);
                }
            }
            assert_eq!(acks_dropped > 0, acks_may_go, "{victim:?}: {acks_dropped} ACKs dropped");
            assert_eq!(q.len_packets(), 3);
        }
    }
}
