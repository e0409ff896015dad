//! The Source Quench router: FCFS drop-tail that sends the source of an arriving packet an
//! ICMP Source Quench when its buffer is full or filling.
//!
//! Source: Liang 1991 §1.2 (reviewing Nagle 1984 and the modified rule of its reference [2];
//! spec liang91-seif.md §1.2): the original ICMP rule quenches the source of a packet the
//! router drops because its buffer is full; the modified rule quenches when the queue is 50%
//! full; "there is no suppression: every qualifying arrival triggers an SQ". RFC 792 defines
//! the message.
//!
//! Choices where the sources are silent, each a parameter:
//! - `threshold` = 0.5: the fraction of the buffer at or above which an arrival is quenched
//!   (the modified rule); 1 quenches only on drops (the original rule). The fill counts what
//!   the buffer holds after the arrival is admitted, in the buffer's own unit (packets or
//!   bytes), the packet on the line included when the buffer counts it. An unlimited buffer
//!   is never full.
//! - `on_drop` = true: a dropped arrival's source is quenched (the original rule, kept under
//!   the modified one).
//! - Only data packets are quenched (an ACK's source is a sink, which has no window to shut).
//! - `size` = 56 bytes: an IPv4 ICMP message carrying the offending datagram's header and its
//!   first 8 bytes (20 + 8 + 28, RFC 792).
//! - The quench names no sequence number.

use super::{BufferLimit, Discipline, DropTail, InService, PortSetup, QueueDiscipline, Signal, Verdict};
use crate::net::{PacketArena, PacketId, PacketKind};
use crate::scenario::decode::Result;
use crate::scenario::params::Params;
use crate::sim::SimTime;

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SqConfig {
    pub threshold: f64,
    pub on_drop: bool,
    pub size: u32,
}

impl Default for SqConfig {
    fn default() -> Self {
        SqConfig { threshold: 0.5, on_drop: true, size: 56 }
    }
}

pub struct SqRouter {
    queue: DropTail,
    cfg: SqConfig,
    limit: BufferLimit,
    count_in_service: bool,
    pending: Vec<Signal>,
    quenches: u64,
}

impl Discipline for SqRouter {
    const NAME: &'static str = "sq_router";
    const SUMMARY: &'static str = "FCFS drop-tail that sends ICMP Source Quench on drops and at a buffer fill (Liang 1991 §1.2; Nagle 1984)";
    type Config = SqConfig;
    const SIGNALS: bool = true;

    fn decode(p: &mut Params) -> Result<SqConfig> {
        let d = SqConfig::default();
        Ok(SqConfig {
            threshold: p.number("threshold", d.threshold, 0.0, 1.0, "buffer fill at or above which an arrival's source is quenched (1: drops only)")?,
            on_drop: p.flag("on_drop", d.on_drop, "quench the source of a dropped arrival")?,
            size: p.integer("size", d.size as u64, 1, 65_535, "bytes of a Source Quench message")? as u32,
        })
    }

    fn build(cfg: &SqConfig, port: &PortSetup) -> Self {
        SqRouter {
            queue: DropTail::new(port.buffer, port.count_in_service),
            cfg: *cfg,
            limit: port.buffer,
            count_in_service: port.count_in_service,
            pending: Vec::new(),
            quenches: 0,
        }
    }
}

impl SqRouter {
    /// Quench messages raised so far.
    pub fn quenches(&self) -> u64 {
        self.quenches
    }

    /// The buffer is filled to the threshold, counting the packet in service if it counts.
    fn filling(&self, tx: InService) -> bool {
        let (svc_p, svc_b) = match (self.count_in_service, tx.bytes) {
            (true, Some(b)) => (1.0, b as f64),
            _ => (0.0, 0.0),
        };
        match self.limit {
            BufferLimit::Packets(n) => self.queue.len_packets() as f64 + svc_p >= self.cfg.threshold * n as f64,
            BufferLimit::Bytes(b) => self.queue.len_bytes() as f64 + svc_b >= self.cfg.threshold * b as f64,
            BufferLimit::Unlimited => false,
        }
    }
}

impl QueueDiscipline for SqRouter {
    fn enqueue(&mut self, pkt: PacketId, arena: &mut PacketArena, now: SimTime, tx: InService) -> Verdict {
        let v = self.queue.enqueue(pkt, arena, now, tx);
        let p = arena.get(pkt);
        if p.kind == PacketKind::Data {
            let quench = match v {
                Verdict::Dropped(_) => self.cfg.on_drop,
                Verdict::Accepted => self.cfg.threshold < 1.0 && self.filling(tx),
            };
            if quench {
                self.quenches += 1;
                self.pending.push(Signal { flow: p.flow, seq: None, code: 0, size: self.cfg.size });
            }
        }
        v
    }

    fn dequeue(&mut self, arena: &mut PacketArena, now: SimTime) -> Option<PacketId> {
        self.queue.dequeue(arena, now)
    }

    buffered_in!(queue);

    fn memory_bytes(&self) -> usize {
        self.queue.memory_bytes() + self.pending.capacity() * std::mem::size_of::<Signal>()
    }

    fn drain_signals(&mut self, out: &mut dyn FnMut(Signal)) {
        self.pending.drain(..).for_each(out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::packet::{Packet, EMPTY};

    fn router(threshold: f64) -> SqRouter {
        let port = PortSetup { buffer: BufferLimit::Packets(4), count_in_service: false, bandwidth_bps: 1_000_000, seed: 1, port_name: "a->b" };
        SqRouter::build(&SqConfig { threshold, ..SqConfig::default() }, &port)
    }

    fn offer(q: &mut SqRouter, a: &mut PacketArena, flow: u32, kind: PacketKind) -> Vec<Signal> {
        let p = a.alloc(Packet { flow, kind, size: 1000, ..EMPTY });
        q.enqueue(p, a, 0, InService { bytes: Some(1000) });
        let mut got = vec![];
        q.drain_signals(&mut |s| got.push(s));
        got
    }

    #[test]
    fn quenches_from_half_full_and_on_every_drop() {
        let (mut q, mut a) = (router(0.5), PacketArena::new());
        assert!(offer(&mut q, &mut a, 7, PacketKind::Data).is_empty(), "1 of 4");
        let s = offer(&mut q, &mut a, 7, PacketKind::Data);
        assert_eq!(s, vec![Signal { flow: 7, seq: None, code: 0, size: 56 }], "2 of 4: half full");
        assert!(offer(&mut q, &mut a, 3, PacketKind::Ack).is_empty(), "ACKs are not quenched");
        assert_eq!(offer(&mut q, &mut a, 5, PacketKind::Data).len(), 1, "full");
        assert_eq!(offer(&mut q, &mut a, 5, PacketKind::Data).len(), 1, "dropped: quenched again");
        assert_eq!(q.quenches(), 3);
    }

    #[test]
    fn threshold_one_quenches_only_drops() {
        let (mut q, mut a) = (router(1.0), PacketArena::new());
        let quenched: usize = (0..6).map(|_| offer(&mut q, &mut a, 1, PacketKind::Data).len()).sum();
        assert_eq!((quenched, q.len_packets()), (2, 4), "the two arrivals that found it full");
    }
}
