//! `Qdisc`'s dispatch: every `QueueDiscipline` method a `match` over the registered
//! disciplines (`dispatch!`, made by the registry in `mod.rs`); drop-tail, the common case, is
//! inlined on the per-packet path.

use super::{InService, Qdisc, QueueDiscipline, Signal, Verdict};
use crate::net::{PacketArena, PacketId, PacketKind};
use crate::sim::SimTime;

impl Qdisc {
    // The boxed disciplines, out of line: drop-tail (the common case) inlines into the port,
    // the others cost one call, which their own work dwarfs.
    #[inline(never)]
    fn enqueue_boxed(&mut self, pkt: PacketId, arena: &mut PacketArena, now: SimTime, tx: InService) -> Verdict {
        dispatch!(self, q => q.enqueue(pkt, arena, now, tx))
    }
    #[inline(never)]
    fn enqueue_len_boxed(&mut self, pkt: PacketId, arena: &mut PacketArena, now: SimTime, tx: InService) -> (Verdict, u32, u64) {
        dispatch!(self, q => {
            let v = q.enqueue(pkt, arena, now, tx);
            (v, q.len_packets(), q.len_bytes())
        })
    }
    /// `enqueue`, then the queue's length in packets and bytes: one dispatch for the three.
    #[inline(always)]
    pub fn enqueue_len(&mut self, pkt: PacketId, arena: &mut PacketArena, now: SimTime, tx: InService) -> (Verdict, u32, u64) {
        match self {
            Qdisc::DropTail(q) => {
                let v = q.enqueue(pkt, arena, now, tx);
                (v, q.len_packets(), q.len_bytes())
            }
            _ => self.enqueue_len_boxed(pkt, arena, now, tx),
        }
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
    fn is_preemptive(&self) -> bool {
        dispatch!(self, q => q.is_preemptive())
    }
    #[inline(never)]
    fn wants_preemption(&self) -> bool {
        dispatch!(self, q => q.wants_preemption())
    }
    fn preempt(&mut self, remaining_bytes: u32) {
        dispatch!(self, q => q.preempt(remaining_bytes))
    }
    fn set_weight(&mut self, conv: u32, weight: u32) {
        dispatch!(self, q => q.set_weight(conv, weight))
    }
    fn set_flow_weight(&mut self, flow: u32, weight: u32) {
        dispatch!(self, q => q.set_flow_weight(flow, weight))
    }
    fn groups_flows(&self) -> bool {
        dispatch!(self, q => q.groups_flows())
    }
    fn add_flow(&mut self, flow: u32, src: u32, dst: u32) {
        dispatch!(self, q => q.add_flow(flow, src, dst))
    }
    fn wants_routes(&self) -> bool {
        dispatch!(self, q => q.wants_routes())
    }
    fn routed(&mut self, flow: u32, kind: PacketKind, hop: u32, reserved_bps: u64) -> std::result::Result<bool, String> {
        dispatch!(self, q => q.routed(flow, kind, hop, reserved_bps))
    }
    fn counters(&self, out: &mut dyn FnMut(&'static str, u64)) {
        dispatch!(self, q => q.counters(out))
    }
    fn next_eligible(&self, now: SimTime) -> Option<SimTime> {
        dispatch!(self, q => q.next_eligible(now))
    }
    fn marks(&self) -> u64 {
        dispatch!(self, q => q.marks())
    }
    fn drain_signals(&mut self, out: &mut dyn FnMut(Signal)) {
        dispatch!(self, q => q.drain_signals(out))
    }
    fn line_taken(&mut self, now: SimTime, bytes: u32) {
        dispatch!(self, q => q.line_taken(now, bytes))
    }
    fn ration(&self) -> Option<(f64, SimTime)> {
        dispatch!(self, q => q.ration())
    }
    fn update_ration(&mut self, now: SimTime) -> f64 {
        dispatch!(self, q => q.update_ration(now))
    }
    fn join_ration_pair(&mut self, flow: u32, pair: u32) {
        dispatch!(self, q => q.join_ration_pair(flow, pair))
    }
    fn set_pair_ration(&mut self, pair: u32, bps: f64) {
        dispatch!(self, q => q.set_pair_ration(pair, bps))
    }
    fn state(&self) -> Option<(&'static str, f64)> {
        dispatch!(self, q => q.state())
    }
}
