//! Virtual Clock: packets served in the order of time stamps that advance, per flow, at the
//! flow's reserved rate.
//!
//! Source: Zhang 1990 ("Virtual Clock: a new traffic control algorithm for packet switching
//! networks", SIGCOMM '90), which Keshav 1991 (ch. 2 §2.3: weighted FQ with "absolute
//! fractions of the bandwidth of the outgoing line ... is very similar to the Virtual Clock
//! algorithm"; ch. 4 and 7 name it beside FQ) and Liang 1991 (§1.7, ref. [30]) cite. Zhang's
//! rule, per flow with average rate r: on each arrival at real time t,
//! auxVC ← max(t, auxVC) + L/r, and the packet is stamped with auxVC; the line sends the
//! smallest stamp first. A flow that stays within its rate keeps its stamps near real time;
//! one that has sent faster than its rate (using bandwidth nobody else wanted) carries stamps
//! ahead of real time and waits behind flows that did not, which is where Virtual Clock and
//! FQ part: FQ's round number forgets the past, Virtual Clock's real-time clock does not.
//!
//! Choices where the source is silent, each a parameter or stated here:
//! - Conversations are (flow, direction), as FQ's default: a flow's ACKs are a conversation of
//!   their own.
//! - Rates: a flow's data conversation gets its `flows[].reserved_rate` at every Virtual Clock
//!   port on its route; the reservations at a port may not exceed its line rate (Zhang's
//!   admission control; an error names the flow). Every other conversation (flows without a
//!   reservation, and all ACK streams) gets `unreserved`: "equal" (default), what the
//!   reservations leave of the line rate divided by the number of such conversations routed
//!   through the port at setup (so N greedy flows without reservations share the line as under
//!   FQ; at least 1 b/s when the reservations take the whole line); or a fixed bit rate.
//! - L/r is rounded up to a picosecond; stamps are picoseconds (u128, no overflow).
//! - Ties between equal stamps go first-come-first-served.
//! - Buffer: `drop` = "longest" (default: the tail of the conversation holding the most
//!   packets, or bytes with a byte buffer; Keshav's FQ policy, whose shares Virtual Clock makes
//!   absolute) or "tail" (the arriving packet, FCFS's). A dropped packet is not charged: its
//!   conversation's auxVC goes back to where the packet found it.
//! - Zhang's monitoring (every AI seconds, a control message to a source whose VirtualClock
//!   runs ahead of real time by more than a threshold) is not modelled: no thesis names its
//!   source reaction.

use super::key_heap::{KeyHeap, Slot, NONE};
use super::{BufferLimit, Discipline, InService, PortSetup, QueueDiscipline, Verdict};
use crate::net::{PacketArena, PacketId, PacketKind};
use crate::scenario::decode::Result;
use crate::scenario::params::{text, Params};
use crate::scenario::units;
use crate::sim::{SimTime, PS_PER_SEC};
use std::cmp::Reverse;
use std::collections::VecDeque;

/// The rate of conversations without a reservation.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Unreserved {
    /// The line rate over the number of conversations routed through the port.
    Equal,
    /// A fixed rate, bits per second.
    Rate(u64),
}

/// Which packet a full buffer loses.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum VcDrop {
    Longest,
    Tail,
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct VcConfig {
    pub unreserved: Unreserved,
    pub drop: VcDrop,
}

impl Default for VcConfig {
    fn default() -> Self {
        VcConfig { unreserved: Unreserved::Equal, drop: VcDrop::Longest }
    }
}

#[derive(Clone, Copy, Debug)]
struct Entry {
    stamp: u128,
    seq: u64,
    pkt: PacketId,
    bytes: u32,
}

struct Conv {
    /// Zhang's auxVC, picoseconds.
    aux_vc: u128,
    /// Reserved rate, bits per second (0: unreserved).
    reserved_bps: u64,
    queue: VecDeque<Entry>,
    bytes: u64,
    sched_pos: u32,
    victim_pos: u32,
    /// Told at setup that it passes this port.
    routed: bool,
}

impl Conv {
    fn new() -> Self {
        Conv { aux_vc: 0, reserved_bps: 0, queue: VecDeque::new(), bytes: 0, sched_pos: NONE, victim_pos: NONE, routed: false }
    }
}

struct InSched;
impl Slot for InSched {
    type Item = Conv;
    fn pos(c: &mut Conv) -> &mut u32 {
        &mut c.sched_pos
    }
}

struct InVictims;
impl Slot for InVictims {
    type Item = Conv;
    fn pos(c: &mut Conv) -> &mut u32 {
        &mut c.victim_pos
    }
}

/// Largest occupancy first, then the latest tail stamp (a min-heap of the reversed key).
type VictimKey = Reverse<(u64, u128)>;

pub struct VirtualClock {
    cfg: VcConfig,
    limit: BufferLimit,
    count_in_service: bool,
    line_bps: u64,
    /// Conversations without a reservation routed through the port at setup, the sum of the
    /// reservations, and the rate "equal" gives (what the reservations leave, shared).
    unreserved_count: u32,
    reserved_sum: u64,
    equal_bps: u64,
    convs: Vec<Conv>,
    /// Backlogged conversations by head (stamp, arrival order).
    sched: KeyHeap<(u128, u64)>,
    /// Backlogged conversations by drop key ("longest" only).
    victims: KeyHeap<VictimKey>,
    pkts: u32,
    bytes: u64,
    seq: u64,
}

impl Discipline for VirtualClock {
    const NAME: &'static str = "virtual_clock";
    const SUMMARY: &'static str =
        "Virtual Clock (Zhang 1990; named in Keshav 1991 §2.3 and Liang 1991 §1.7): stamps advancing at each flow's reserved rate, smallest first";
    type Config = VcConfig;

    fn decode(p: &mut Params) -> Result<VcConfig> {
        let d = VcConfig::default();
        let unreserved = p.custom(
            "unreserved",
            d.unreserved,
            "\"equal\"",
            "\"equal\" or a bit rate such as \"2Mbps\"",
            "rate of conversations without a reservation: the line over the conversations routed here, or fixed",
            |v| match text(v) {
                Some("equal") => Ok(Unreserved::Equal),
                Some(s) => match units::bandwidth(s) {
                    Ok(r) if r > 0 => Ok(Unreserved::Rate(r)),
                    _ => Err("\"equal\" or a positive bit rate such as \"2Mbps\"".into()),
                },
                None => Err("\"equal\" or a bit rate such as \"2Mbps\"".into()),
            },
        )?;
        let drop = p.choice(
            "drop",
            d.drop,
            &[("longest", VcDrop::Longest), ("tail", VcDrop::Tail)],
            "full buffer: drop the longest conversation's tail, or the arriving packet",
        )?;
        Ok(VcConfig { unreserved, drop })
    }

    fn build(cfg: &VcConfig, port: &PortSetup) -> Self {
        VirtualClock::new(*cfg, port.buffer, port.count_in_service, port.bandwidth_bps)
    }
}

impl VirtualClock {
    pub fn new(cfg: VcConfig, limit: BufferLimit, count_in_service: bool, line_bps: u64) -> Self {
        assert!(line_bps > 0, "Virtual Clock needs a positive line rate");
        VirtualClock {
            cfg,
            limit,
            count_in_service,
            line_bps,
            unreserved_count: 0,
            reserved_sum: 0,
            equal_bps: line_bps,
            convs: Vec::new(),
            sched: KeyHeap::new(),
            victims: KeyHeap::new(),
            pkts: 0,
            bytes: 0,
            seq: 0,
        }
    }

    #[inline]
    fn conversation(flow: u32, kind: PacketKind) -> u32 {
        flow * 2 + (kind == PacketKind::Ack) as u32
    }

    #[inline]
    fn ensure(&mut self, id: u32) {
        if id as usize >= self.convs.len() {
            self.convs.resize_with(id as usize + 1, Conv::new);
        }
    }

    /// The rate conversation `id` is stamped at, bits per second.
    #[inline]
    pub fn rate_of(&self, id: u32) -> u64 {
        match self.convs.get(id as usize).map_or(0, |c| c.reserved_bps) {
            0 => match self.cfg.unreserved {
                Unreserved::Rate(r) => r,
                Unreserved::Equal => self.equal_bps,
            },
            r => r,
        }
    }

    /// Conversation `id`'s auxVC (flow f's data is conversation 2f, its ACKs 2f + 1), picoseconds.
    pub fn aux_vc(&self, id: u32) -> u128 {
        self.convs.get(id as usize).map_or(0, |c| c.aux_vc)
    }

    #[inline]
    fn tick(&self, id: u32, bytes: u32) -> u128 {
        (bytes as u128 * 8 * PS_PER_SEC as u128).div_ceil(self.rate_of(id) as u128)
    }

    /// The buffer would overflow with `extra` more bytes (one more packet if any).
    fn over_limit(&self, tx: InService, extra: u32) -> bool {
        !self.limit.fits(self.pkts as u64 + (extra > 0) as u64, self.bytes + extra as u64, self.count_in_service, tx)
    }

    #[inline]
    fn victim_key(&self, id: u32) -> VictimKey {
        let c = &self.convs[id as usize];
        let occupancy = match self.limit {
            BufferLimit::Bytes(_) => c.bytes,
            _ => c.queue.len() as u64,
        };
        Reverse((occupancy, c.queue.back().map_or(0, |e| e.stamp)))
    }

    fn track_victim(&mut self, id: u32) {
        if self.cfg.drop != VcDrop::Longest || self.limit == BufferLimit::Unlimited {
            return;
        }
        if self.convs[id as usize].queue.is_empty() {
            if self.convs[id as usize].victim_pos != NONE {
                self.victims.remove::<InVictims>(&mut self.convs, id);
            }
            return;
        }
        let k = self.victim_key(id);
        if self.convs[id as usize].victim_pos == NONE {
            self.victims.push::<InVictims>(&mut self.convs, id, k);
        } else {
            self.victims.set::<InVictims>(&mut self.convs, id, k);
        }
    }

    /// Drop the tail of the longest conversation (the arrival, of conversation `arrival`, is
    /// already queued). One drop per arrival: with a byte buffer, if that tail is too small to
    /// make room, the arrival (its own conversation's tail) goes instead, as FQ does.
    fn drop_longest(&mut self, arrival: u32, tx: InService) -> PacketId {
        let mut id = self.victims.top().expect("a full buffer holds a packet");
        if let BufferLimit::Bytes(b) = self.limit {
            let svc = if self.count_in_service { tx.bytes.unwrap_or(0) as u64 } else { 0 };
            let tail = self.convs[id as usize].queue.back().unwrap().bytes as u64;
            if self.bytes - tail + svc > b {
                id = arrival;
            }
        }
        let tick = {
            let b = self.convs[id as usize].queue.back().unwrap().bytes;
            self.tick(id, b)
        };
        let c = &mut self.convs[id as usize];
        let e = c.queue.pop_back().unwrap();
        // Not charged: auxVC goes back to max(arrival time, the auxVC the packet found).
        c.aux_vc = e.stamp - tick;
        c.bytes -= e.bytes as u64;
        self.pkts -= 1;
        self.bytes -= e.bytes as u64;
        if c.queue.is_empty() {
            self.sched.remove::<InSched>(&mut self.convs, id);
        } // the head is unchanged otherwise
        self.track_victim(id);
        e.pkt
    }
}

impl QueueDiscipline for VirtualClock {
    fn enqueue(&mut self, pkt: PacketId, arena: &mut PacketArena, now: SimTime, tx: InService) -> Verdict {
        let p = arena.get(pkt);
        let (id, size) = (Self::conversation(p.flow, p.kind), p.size);
        if self.cfg.drop == VcDrop::Tail && self.over_limit(tx, size) {
            return Verdict::Dropped(pkt);
        }
        self.ensure(id);
        let tick = self.tick(id, size);
        let c = &mut self.convs[id as usize];
        c.aux_vc = c.aux_vc.max(now as u128) + tick;
        let e = Entry { stamp: c.aux_vc, seq: self.seq, pkt, bytes: size };
        self.seq += 1;
        let was_empty = c.queue.is_empty();
        c.queue.push_back(e);
        c.bytes += size as u64;
        self.pkts += 1;
        self.bytes += size as u64;
        if was_empty {
            self.sched.push::<InSched>(&mut self.convs, id, (e.stamp, e.seq));
        }
        self.track_victim(id);
        if self.over_limit(tx, 0) {
            return Verdict::Dropped(self.drop_longest(id, tx));
        }
        Verdict::Accepted
    }

    fn dequeue(&mut self, _arena: &mut PacketArena, _now: SimTime) -> Option<PacketId> {
        let id = self.sched.top()?;
        let c = &mut self.convs[id as usize];
        let e = c.queue.pop_front().unwrap();
        c.bytes -= e.bytes as u64;
        self.pkts -= 1;
        self.bytes -= e.bytes as u64;
        match c.queue.front() {
            None => self.sched.remove::<InSched>(&mut self.convs, id),
            Some(h) => {
                let k = (h.stamp, h.seq);
                self.sched.set::<InSched>(&mut self.convs, id, k);
            }
        }
        self.track_victim(id);
        Some(e.pkt)
    }

    fn len_packets(&self) -> u32 {
        self.pkts
    }

    fn len_bytes(&self) -> u64 {
        self.bytes
    }

    fn for_each(&self, f: &mut dyn FnMut(PacketId)) {
        for c in &self.convs {
            c.queue.iter().for_each(|e| f(e.pkt));
        }
    }

    fn memory_bytes(&self) -> usize {
        self.convs.capacity() * std::mem::size_of::<Conv>()
            + self.convs.iter().map(|c| c.queue.capacity() * std::mem::size_of::<Entry>()).sum::<usize>()
            + self.sched.capacity_bytes()
            + self.victims.capacity_bytes()
    }

    fn wants_routes(&self) -> bool {
        true
    }

    fn routed(&mut self, flow: u32, kind: PacketKind, _hop: u32, reserved_bps: u64) -> std::result::Result<bool, String> {
        let id = Self::conversation(flow, kind);
        self.ensure(id);
        let c = &mut self.convs[id as usize];
        if c.routed {
            return Ok(true); // a route through the port twice
        }
        c.routed = true;
        c.reserved_bps = reserved_bps;
        self.reserved_sum += reserved_bps;
        if reserved_bps == 0 {
            self.unreserved_count += 1;
        }
        if self.reserved_sum > self.line_bps {
            return Err(format!(
                "the reservations through a Virtual Clock port sum to {} b/s, above its line rate of {} b/s",
                self.reserved_sum, self.line_bps
            ));
        }
        self.equal_bps = ((self.line_bps - self.reserved_sum) / self.unreserved_count.max(1) as u64).max(1);
        Ok(true)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::queue::fq::testkit::{packet, Line, TestQ};

    impl TestQ for VirtualClock {}

    const DATA: PacketKind = PacketKind::Data;
    /// 8 Mb/s: a 1000-byte packet takes 1 ms.
    const BPS: u64 = 8_000_000;
    const MS: SimTime = PS_PER_SEC / 1000;

    fn vc(cfg: VcConfig, limit: BufferLimit, flows: &[(u32, u64)]) -> VirtualClock {
        let mut q = VirtualClock::new(cfg, limit, false, BPS);
        for &(f, r) in flows {
            q.routed(f, DATA, 1, r).unwrap();
        }
        q
    }

    /// Greedy flows: `backlog` packets each at its start, one more at each of its departures;
    /// returns each departure (flow, end).
    fn greedy(q: VirtualClock, starts: &[(u32, SimTime)], until: SimTime) -> Vec<(u32, SimTime)> {
        let mut line = Line::new(q, BPS);
        for &(f, t) in starts {
            for _ in 0..5 {
                line.arrive(t, f, DATA, 1000);
            }
        }
        let mut out = Vec::new();
        line.run(u64::MAX, |d, more| {
            out.push((d.flow, d.end));
            if d.end < until {
                more.push((d.end, d.flow, DATA, 1000));
            }
        });
        out
    }

    fn count(deps: &[(u32, SimTime)], flow: u32, from: SimTime, to: SimTime) -> usize {
        deps.iter().filter(|&&(f, t)| f == flow && t > from && t <= to).count()
    }

    #[test]
    fn unreserved_flows_share_equally_and_reservations_share_in_proportion() {
        let q = vc(VcConfig::default(), BufferLimit::Unlimited, &[(0, 0), (1, 0)]);
        assert_eq!(q.rate_of(0), BPS / 2);
        let deps = greedy(q, &[(0, 0), (1, 0)], 1000 * MS);
        assert_eq!((count(&deps, 0, 0, 1000 * MS), count(&deps, 1, 0, 1000 * MS)), (500, 500));

        let q = vc(VcConfig::default(), BufferLimit::Unlimited, &[(0, 6_000_000), (1, 2_000_000)]);
        let deps = greedy(q, &[(0, 0), (1, 0)], 1000 * MS);
        let (a, b) = (count(&deps, 0, 0, 1000 * MS), count(&deps, 1, 0, 1000 * MS));
        assert!((749..=751).contains(&a) && (249..=251).contains(&b), "{a} {b}");

        // What the reservations leave goes equally to the unreserved: 6 of 8 Mb/s reserved,
        // two unreserved conversations at 1 Mb/s each; a fixed rate overrides it.
        let q = vc(VcConfig::default(), BufferLimit::Unlimited, &[(0, 6_000_000), (1, 0), (2, 0)]);
        assert_eq!((q.rate_of(0), q.rate_of(2), q.rate_of(4)), (6_000_000, 1_000_000, 1_000_000));
        let fixed = VcConfig { unreserved: Unreserved::Rate(500_000), ..VcConfig::default() };
        assert_eq!(vc(fixed, BufferLimit::Unlimited, &[(0, 0)]).rate_of(0), 500_000);
    }

    #[test]
    fn a_flow_that_used_idle_bandwidth_waits_for_real_time_to_catch_up() {
        // Both reserve half the line; flow 0 runs alone for 1 s at the full line rate, so its
        // stamps run to about 2 s. Flow 1, from 1 s, is stamped from real time: it has the line
        // to itself until its stamps reach flow 0's, half a second later (FQ would share at
        // once: its round number forgets flow 0's past).
        let q = vc(VcConfig::default(), BufferLimit::Unlimited, &[(0, 0), (1, 0)]);
        let deps = greedy(q, &[(0, 0), (1, 1000 * MS)], 2000 * MS);
        assert_eq!(count(&deps, 0, 0, 1000 * MS), 1000);
        assert!(count(&deps, 0, 1001 * MS, 1495 * MS) == 0, "flow 0 was served while behind");
        assert!(count(&deps, 1, 1000 * MS, 1495 * MS) >= 494);
        let (a, b) = (count(&deps, 0, 1600 * MS, 2000 * MS), count(&deps, 1, 1600 * MS, 2000 * MS));
        assert!(a.abs_diff(b) <= 2, "then they share: {a} {b}");
    }

    #[test]
    fn a_full_buffer_drops_the_longest_tail_uncharged_or_the_arrival() {
        let mut a = PacketArena::new();
        let busy = InService { bytes: Some(1000) };
        let mut q = vc(VcConfig::default(), BufferLimit::Packets(4), &[(0, 0), (1, 0)]);
        for _ in 0..3 {
            let p = a.alloc(packet(0, DATA, 1000, 0));
            assert_eq!(q.enqueue(p, &mut a, 0, busy), Verdict::Accepted);
        }
        let aux = q.aux_vc(0);
        assert_eq!(aux, 3 * 2 * MS as u128, "three packets at 4 Mb/s");
        let p = a.alloc(packet(1, DATA, 1000, 0));
        assert_eq!(q.enqueue(p, &mut a, 0, busy), Verdict::Accepted);
        // Flow 1's second packet overflows: flow 0, the longest, loses its tail, uncharged.
        let p = a.alloc(packet(1, DATA, 1000, 0));
        let Verdict::Dropped(d) = q.enqueue(p, &mut a, 0, busy) else { panic!("no drop") };
        assert_eq!(a.get(d).flow, 0);
        assert_eq!(q.aux_vc(0), aux - 2 * MS as u128);
        assert_eq!(q.len_packets(), 4);

        let tail = VcConfig { drop: VcDrop::Tail, ..VcConfig::default() };
        let mut q = vc(tail, BufferLimit::Packets(2), &[(0, 0), (1, 0)]);
        for f in [0, 0] {
            let p = a.alloc(packet(f, DATA, 1000, 0));
            assert_eq!(q.enqueue(p, &mut a, 0, busy), Verdict::Accepted);
        }
        let p = a.alloc(packet(1, DATA, 1000, 0));
        assert_eq!(q.enqueue(p, &mut a, 0, busy), Verdict::Dropped(p));
        assert_eq!((q.aux_vc(2), q.len_packets()), (0, 2), "a refused arrival (flow 1's data) leaves no trace");
    }

    #[test]
    fn reservations_above_the_line_are_refused_and_a_second_route_is_not_counted_twice() {
        let mut q = VirtualClock::new(VcConfig::default(), BufferLimit::Unlimited, false, BPS);
        q.routed(0, DATA, 1, 5_000_000).unwrap();
        q.routed(0, DATA, 1, 5_000_000).unwrap();
        assert!(q.routed(1, DATA, 1, 4_000_000).unwrap_err().contains("above its line rate"));
    }

    #[test]
    fn parameters_decode_with_their_errors() {
        use crate::scenario::decode::Obj;
        let decode = |t: &str| {
            let v: toml::Value = toml::from_str(t).unwrap();
            VirtualClock::decode(&mut Params::new(Obj::new(&v, "queue_params").unwrap()))
        };
        assert_eq!(decode("").unwrap(), VcConfig::default());
        let c = decode("unreserved = \"2Mbps\"\ndrop = \"tail\"").unwrap();
        assert_eq!(c, VcConfig { unreserved: Unreserved::Rate(2_000_000), drop: VcDrop::Tail });
        let e = decode("unreserved = \"fast\"").unwrap_err();
        assert_eq!(e.path, "queue_params.unreserved");
        assert!(decode("drop = \"head\"").unwrap_err().message.contains("longest, tail"));
    }

    #[test]
    fn a_byte_buffer_never_holds_more_than_it_may() {
        // Flow 0's 25 small packets are the longest conversation, but its 40-byte tail cannot
        // make room for a 500-byte arrival: the arrival is dropped instead.
        let mut q = vc(VcConfig::default(), BufferLimit::Bytes(2000), &[(0, 0), (1, 0), (2, 0)]);
        let mut a = PacketArena::new();
        let idle = InService { bytes: None };
        for _ in 0..25 {
            let p = a.alloc(packet(0, DATA, 40, 0));
            q.enqueue(p, &mut a, 0, idle);
        }
        let p = a.alloc(packet(1, DATA, 900, 0));
        assert_eq!(q.enqueue(p, &mut a, 0, idle), Verdict::Accepted);
        let p = a.alloc(packet(2, DATA, 500, 0));
        assert_eq!(q.enqueue(p, &mut a, 0, idle), Verdict::Dropped(p));
        assert_eq!((q.len_bytes(), q.aux_vc(4)), (1900, 0), "flow 2's data conversation, uncharged");
    }
}
