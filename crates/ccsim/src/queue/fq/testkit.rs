//! A test transmitter: drives a discipline with arrivals and a line of a given rate, the way
//! a port does, optionally honouring FQ's preemption hooks. Used by the tests of fq.rs and
//! fqbit.rs.

use super::*;
use crate::net::packet::flags;
use crate::net::packet::{Packet, EMPTY};
use crate::sim::time::tx_time;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

pub trait TestQ: QueueDiscipline {
    fn remaining(&self) -> Option<u32> {
        None
    }
    fn finish(&self, _conv: u32) -> Option<u128> {
        None
    }
}

impl TestQ for FairQueue {
    fn remaining(&self) -> Option<u32> {
        Some(self.last_dequeued_remaining())
    }
    fn finish(&self, conv: u32) -> Option<u128> {
        Some(self.finish_number(conv))
    }
}

pub fn packet(flow: u32, kind: PacketKind, size: u32, t: SimTime) -> Packet {
    Packet { tx_time: t, first_tx_time: t, flow, size, kind, ..EMPTY }
}

/// A packet that finished transmission.
#[derive(Clone, Copy, Debug)]
pub struct Dep {
    pub flow: u32,
    pub size: u32,
    pub arrived: SimTime,
    /// First time the line started sending it.
    pub start: SimTime,
    pub end: SimTime,
    pub ce: bool,
}

type Pending = (SimTime, u64, u32, u8, u32);

pub struct Line<Q: TestQ> {
    pub q: Q,
    pub a: PacketArena,
    pub bps: u64,
    pub now: SimTime,
    /// Packet on the wire: (id, segment start, segment bytes, first start).
    cur: Option<(PacketId, SimTime, u32, SimTime)>,
    busy_until: SimTime,
    /// (time, order, flow, is ACK, size).
    arrivals: BinaryHeap<Reverse<Pending>>,
    n_arr: u64,
    /// Dropped packets: (time, flow, kind, size).
    pub drops: Vec<(SimTime, u32, PacketKind, u32)>,
    /// With `log_finish`: (conversation, F^α after the arrival, size) for every arrival.
    pub log_finish: bool,
    pub finish_log: Vec<(u32, u128, u32)>,
    buf: Vec<(SimTime, u32, PacketKind, u32)>,
}

impl<Q: TestQ> Line<Q> {
    pub fn new(q: Q, bps: u64) -> Self {
        Line {
            q,
            a: PacketArena::new(),
            bps,
            now: 0,
            cur: None,
            busy_until: 0,
            arrivals: BinaryHeap::new(),
            n_arr: 0,
            drops: Vec::new(),
            log_finish: false,
            finish_log: Vec::new(),
            buf: Vec::new(),
        }
    }

    pub fn arrive(&mut self, t: SimTime, flow: u32, kind: PacketKind, size: u32) {
        self.arrivals.push(Reverse((t, self.n_arr, flow, (kind == PacketKind::Ack) as u8, size)));
        self.n_arr += 1;
    }

    fn start_next(&mut self, now: SimTime) {
        if let Some(p) = self.q.dequeue(&mut self.a, now) {
            let bytes = self.q.remaining().unwrap_or(self.a.get(p).size);
            let pk = self.a.get_mut(p);
            let first = if pk.first_tx_time == SimTime::MAX { now } else { pk.first_tx_time };
            pk.first_tx_time = first;
            // A resumed packet needs exactly the time it had left (kept in `arrive_at`).
            let dur = if pk.arrive_at > 0 { std::mem::take(&mut pk.arrive_at) } else { tx_time(bytes, self.bps) };
            self.busy_until = now + dur;
            self.cur = Some((p, now, bytes, first));
        }
    }

    /// Run until `max_deps` packets have finished or nothing is left to do. `f` sees each
    /// finished packet and may schedule arrivals (time, flow, kind, size) at or after it.
    pub fn run(&mut self, max_deps: u64, mut f: impl FnMut(&Dep, &mut Vec<(SimTime, u32, PacketKind, u32)>)) -> u64 {
        let mut deps = 0;
        while deps < max_deps {
            let next_arr = self.arrivals.peek().map(|r| (r.0).0);
            let completion = match (next_arr, self.cur) {
                (None, None) => break,
                (Some(ta), Some(_)) => self.busy_until <= ta,
                (None, Some(_)) => true,
                (Some(_), None) => false,
            };
            if completion {
                let (p, _, _, first) = self.cur.take().unwrap();
                self.now = self.busy_until;
                let pk = *self.a.get(p);
                let d = Dep { flow: pk.flow, size: pk.size, arrived: pk.tx_time, start: first, end: self.now, ce: pk.has(flags::CE) };
                self.a.free(p);
                let mut buf = std::mem::take(&mut self.buf);
                f(&d, &mut buf);
                for (t, fl, k, s) in buf.drain(..) {
                    self.arrive(t, fl, k, s);
                }
                self.buf = buf;
                deps += 1;
                self.start_next(self.now);
            } else {
                let Reverse((t, _, flow, ack, size)) = self.arrivals.pop().unwrap();
                self.now = t;
                let kind = if ack == 1 { PacketKind::Ack } else { PacketKind::Data };
                let mut pk = packet(flow, kind, size, t);
                pk.first_tx_time = SimTime::MAX;
                let p = self.a.alloc(pk);
                let tx = InService { bytes: self.cur.map(|(_, _, b, _)| b) };
                let v = self.q.enqueue(p, &mut self.a, t, tx);
                if self.log_finish {
                    let conv = FairQueue::conversation_id(flow, kind);
                    self.finish_log.push((conv, self.q.finish(conv).unwrap(), size));
                }
                if let Verdict::Dropped(d) = v {
                    let dp = *self.a.get(d);
                    self.drops.push((t, dp.flow, dp.kind, dp.size));
                    self.a.free(d);
                }
                if let Some((cp, _, _, _)) = self.cur {
                    if self.q.wants_preemption() && self.busy_until > t {
                        // Stop the packet on the wire; it resumes later with exactly the
                        // time it has left; the queue counts its remaining bytes (rounded up).
                        let left = self.busy_until - t;
                        let bytes = (left as u128 * self.bps as u128).div_ceil(8 * crate::sim::PS_PER_SEC as u128) as u32;
                        self.a.get_mut(cp).arrive_at = left;
                        self.q.preempt(bytes);
                        self.cur = None;
                    }
                }
                if self.cur.is_none() {
                    self.start_next(t);
                }
            }
        }
        deps
    }
}
