//! FCFS with drop-tail.
//!
//! Source: Keshav 1991 ch. 6 (keshav91-experiments.md §2.3, §3.1): first come, first served;
//! an arriving packet that finds the buffer full is discarded. Chapter 6 never says
//! "drop-tail" explicitly; it is the spec's [REC] reading.
//!
//! Choices where the source is silent, each a named parameter:
//! - the buffer is counted in packets (Keshav: a 40-byte ACK takes a whole slot) or in bytes;
//! - `count_in_service`: whether the packet being transmitted occupies a buffer slot
//!   (gap G7; default true, the spec's recommendation).

use super::{BufferLimit, Discipline, InService, PortSetup, QueueDiscipline, Verdict};
use crate::net::{IdRing, PacketArena, PacketId};
use crate::scenario::decode::Result;
use crate::scenario::params::Params;
use crate::sim::SimTime;

pub struct DropTail {
    queue: IdRing,
    bytes: u64,
    /// The [`BufferLimit`] as two bounds, the one it does not set at its maximum: 16 bytes
    /// narrower than the enum, for a struct every access port of a large topology holds.
    max_bytes: u64,
    max_packets: u32,
    count_in_service: bool,
}

impl DropTail {
    pub fn new(limit: BufferLimit, count_in_service: bool) -> Self {
        let (max_packets, max_bytes) = match limit {
            BufferLimit::Packets(n) => (n, u64::MAX),
            BufferLimit::Bytes(b) => (u32::MAX, b),
            BufferLimit::Unlimited => (u32::MAX, u64::MAX),
        };
        DropTail { queue: IdRing::new(), bytes: 0, max_bytes, max_packets, count_in_service }
    }
}

impl Discipline for DropTail {
    const NAME: &'static str = "droptail";
    const SUMMARY: &'static str = "FCFS with drop-tail (Keshav 1991 ch. 6's FCFS)";
    type Config = ();

    fn decode(_p: &mut Params) -> Result<()> {
        Ok(())
    }

    fn build(_cfg: &(), port: &PortSetup) -> Self {
        DropTail::new(port.buffer, port.count_in_service)
    }
}

impl QueueDiscipline for DropTail {
    #[inline]
    fn enqueue(&mut self, pkt: PacketId, arena: &mut PacketArena, _now: SimTime, tx: InService) -> Verdict {
        let size = arena.get(pkt).size as u64;
        let (svc_pkts, svc_bytes) = match (self.count_in_service, tx.bytes) {
            (true, Some(b)) => (1u64, b as u64),
            _ => (0, 0),
        };
        let fits =
            self.queue.len() as u64 + svc_pkts < self.max_packets as u64 && self.bytes.saturating_add(svc_bytes + size) <= self.max_bytes;
        if fits {
            self.queue.push_back(pkt);
            self.bytes += size;
            Verdict::Accepted
        } else {
            Verdict::Dropped(pkt)
        }
    }

    #[inline]
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
        self.queue.iter().for_each(f);
    }

    fn memory_bytes(&self) -> usize {
        self.queue.capacity() * std::mem::size_of::<PacketId>()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::packet::{Packet, EMPTY};

    fn pkt(arena: &mut PacketArena, size: u32) -> PacketId {
        arena.alloc(Packet { size, ..EMPTY })
    }

    #[test]
    fn packet_limit_counts_the_packet_in_service_when_asked() {
        let mut a = PacketArena::new();
        let busy = InService { bytes: Some(1000) };
        let mut with = DropTail::new(BufferLimit::Packets(3), true);
        let mut without = DropTail::new(BufferLimit::Packets(3), false);
        let mut acc_with = 0;
        let mut acc_without = 0;
        for _ in 0..10 {
            let p = pkt(&mut a, 40);
            if with.enqueue(p, &mut a, 0, busy) == Verdict::Accepted {
                acc_with += 1;
            }
            let p = pkt(&mut a, 40);
            if without.enqueue(p, &mut a, 0, busy) == Verdict::Accepted {
                acc_without += 1;
            }
        }
        assert_eq!(acc_with, 2);
        assert_eq!(acc_without, 3);
        assert!(with.len_packets() <= 3 && without.len_packets() <= 3);
    }

    #[test]
    fn byte_limit_never_exceeded_and_fifo_order() {
        let mut a = PacketArena::new();
        let mut q = DropTail::new(BufferLimit::Bytes(2500), false);
        let ids: Vec<_> = (0..5).map(|_| pkt(&mut a, 1000)).collect();
        let verdicts: Vec<_> = ids.iter().map(|&p| q.enqueue(p, &mut a, 0, InService::default())).collect();
        assert_eq!(verdicts[..2], [Verdict::Accepted, Verdict::Accepted]);
        assert_eq!(verdicts[2], Verdict::Dropped(ids[2]));
        assert!(q.len_bytes() <= 2500);
        assert_eq!(q.dequeue(&mut a, 0), Some(ids[0]));
        assert_eq!(q.dequeue(&mut a, 0), Some(ids[1]));
        assert_eq!(q.dequeue(&mut a, 0), None);
    }

    #[test]
    fn unlimited_and_packet_limits_ignore_bytes() {
        let mut a = PacketArena::new();
        let mut unlimited = DropTail::new(BufferLimit::Unlimited, true);
        let mut by_packets = DropTail::new(BufferLimit::Packets(600), false);
        let busy = InService { bytes: Some(9000) };
        for _ in 0..1000 {
            let p = pkt(&mut a, 9000);
            assert_eq!(unlimited.enqueue(p, &mut a, 0, busy), Verdict::Accepted);
            let p = pkt(&mut a, 9000);
            let _ = by_packets.enqueue(p, &mut a, 0, busy);
        }
        assert_eq!(unlimited.len_packets(), 1000);
        assert_eq!(unlimited.len_bytes(), 9_000_000);
        assert_eq!(by_packets.len_packets(), 600);
    }
}
