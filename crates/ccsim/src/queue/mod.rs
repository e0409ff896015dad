//! Queue disciplines: one file per discipline, all behind [`QueueDiscipline`].
//!
//! The trait is shaped like Linux's `Qdisc_ops`: `enqueue` either accepts the arriving packet
//! or names the packet it dropped (the arriving one, or another already queued, as Fair
//! Queueing's drop-from-the-longest-queue needs), and `dequeue` hands the next packet to the
//! transmitter. Marking (DECbit, ECN, ...) happens inside the discipline.
//!
//! The port holds a [`Qdisc`], an enum over the disciplines, so the per-packet path is a
//! `match`, not a virtual call. Adding a discipline: one file implementing the trait, one enum
//! variant, one arm in each `match` below, and its name in `scenario`.

pub mod decbit;
pub mod droptail;
pub mod fq;
pub mod fq_buffers;
pub mod fqbit;

use crate::net::{PacketArena, PacketId};
use crate::sim::SimTime;
pub use droptail::DropTail;

/// How much a buffer holds.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum BufferLimit {
    Packets(u32),
    Bytes(u64),
    Unlimited,
}

/// Result of offering a packet to a queue.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    Accepted,
    /// This packet was dropped: the arriving one, or one that was already queued (in which
    /// case the arriving packet was accepted).
    Dropped(PacketId),
}

/// The state of the transmitter the queue feeds, for disciplines whose buffer accounting
/// counts the packet in service (keshav91-experiments.md §2.3, gap G7).
#[derive(Clone, Copy, Debug, Default)]
pub struct InService {
    /// Size in bytes of the packet being transmitted, or None if the line is idle.
    pub bytes: Option<u32>,
}

pub trait QueueDiscipline {
    fn enqueue(&mut self, pkt: PacketId, arena: &mut PacketArena, now: SimTime, tx: InService) -> Verdict;
    fn dequeue(&mut self, arena: &mut PacketArena, now: SimTime) -> Option<PacketId>;
    fn len_packets(&self) -> u32;
    fn len_bytes(&self) -> u64;
    /// Visit every queued packet (for conservation checks at the end of a run; not hot).
    fn for_each(&self, f: &mut dyn FnMut(PacketId));
    /// Heap bytes held (for the benchmark's memory accounting; not hot).
    fn memory_bytes(&self) -> usize;
}

/// Large disciplines are boxed so that a port (and every drop-tail port of a big topology)
/// stays small: the enum is as large as its largest variant.
pub enum Qdisc {
    DropTail(DropTail),
    DecBit(Box<decbit::DecBit>),
    Fq(Box<fq::FairQueue>),
    FqBit(Box<fqbit::FqBit>),
}

macro_rules! dispatch {
    ($self:ident, $q:ident => $e:expr) => {
        match $self {
            Qdisc::DropTail($q) => $e,
            Qdisc::DecBit($q) => $e,
            Qdisc::Fq($q) => $e,
            Qdisc::FqBit($q) => $e,
        }
    };
}

impl Qdisc {
    /// True for a preemptive FQ (the port must then offer it the packet on the line).
    pub fn is_preemptive(&self) -> bool {
        matches!(self, Qdisc::Fq(q) if q.is_preemptive())
    }

    /// Preemptive FQ: a queued packet outbids the one on the line.
    #[inline(never)]
    pub fn wants_preemption(&self) -> bool {
        matches!(self, Qdisc::Fq(q) if q.wants_preemption())
    }

    /// Preemptive FQ: the packet on the line stopped with `remaining_bytes` to send; it goes
    /// back to the head of its conversation.
    pub fn preempt(&mut self, remaining_bytes: u32) {
        if let Qdisc::Fq(q) = self {
            q.preempt(remaining_bytes);
        }
    }

    /// Give conversation `conv` weight `weight` (FQ and FQbit; other disciplines ignore it).
    pub fn set_fq_weight(&mut self, conv: u32, weight: u32) {
        match self {
            Qdisc::Fq(q) => q.set_weight(conv, weight),
            Qdisc::FqBit(q) => q.set_weight(conv, weight),
            Qdisc::DropTail(_) | Qdisc::DecBit(_) => {}
        }
    }
    // The boxed disciplines, out of line: drop-tail (the common case) inlines into the port,
    // the others cost one call, which their own work dwarfs.
    #[inline(never)]
    fn enqueue_boxed(&mut self, pkt: PacketId, arena: &mut PacketArena, now: SimTime, tx: InService) -> Verdict {
        dispatch!(self, q => q.enqueue(pkt, arena, now, tx))
    }
    #[inline(never)]
    fn len_packets_boxed(&self) -> u32 {
        dispatch!(self, q => q.len_packets())
    }
    #[inline(never)]
    fn len_bytes_boxed(&self) -> u64 {
        dispatch!(self, q => q.len_bytes())
    }
    #[inline(never)]
    fn dequeue_boxed(&mut self, arena: &mut PacketArena, now: SimTime) -> Option<PacketId> {
        dispatch!(self, q => q.dequeue(arena, now))
    }
}

impl QueueDiscipline for Qdisc {
    #[inline(always)]
    fn enqueue(&mut self, pkt: PacketId, arena: &mut PacketArena, now: SimTime, tx: InService) -> Verdict {
        match self {
            Qdisc::DropTail(q) => q.enqueue(pkt, arena, now, tx),
            _ => self.enqueue_boxed(pkt, arena, now, tx),
        }
    }
    #[inline(always)]
    fn dequeue(&mut self, arena: &mut PacketArena, now: SimTime) -> Option<PacketId> {
        match self {
            Qdisc::DropTail(q) => q.dequeue(arena, now),
            _ => self.dequeue_boxed(arena, now),
        }
    }
    #[inline(always)]
    fn len_packets(&self) -> u32 {
        match self {
            Qdisc::DropTail(q) => q.len_packets(),
            _ => self.len_packets_boxed(),
        }
    }
    #[inline(always)]
    fn len_bytes(&self) -> u64 {
        match self {
            Qdisc::DropTail(q) => q.len_bytes(),
            _ => self.len_bytes_boxed(),
        }
    }
    fn for_each(&self, f: &mut dyn FnMut(PacketId)) {
        dispatch!(self, q => q.for_each(f))
    }
    fn memory_bytes(&self) -> usize {
        dispatch!(self, q => q.memory_bytes())
    }
}
