//! BBN's rate-based "ration" scheme: each resource measures its utilisation and advertises a
//! ration, the rate one flow may use of it; a boundary switch admits each pair of boundary
//! switches' traffic at the smallest ration on its path.
//!
//! Source: Liang 1991 §2.2 (spec liang91-seif.md §1.3), reviewing Robinson, Friedman and
//! Steenstrup 1990 ("Congestion control in BBN packet-switch networks", CCR 20(1)), which the
//! thesis reviews and does not simulate. The rules as the thesis gives them:
//! - The resource ration R(t), the utilisation one flow may take of the resource: R(0) = T;
//!   while the utilisation U(t) measured over interval t is below 97%,
//!   R(t+1) = min{T, (T / U(t)) R(t)}; above it, R(t+1) = min{T, T / max{U(t), T + R(t)} R(t)}
//!   (T the target utilisation). The first rule's factor is OCR-damaged in the thesis; T / U(t)
//!   is the spec's reading (it brings n equal flows to T / n each in one step). Above 97% the
//!   line cannot show how far demand exceeds it, so the rule assumes at least one ration more
//!   than the target.
//! - The flow ration of a pair of boundary switches is the smallest resource ration on its
//!   path; the source switch enforces it. Rations reach every switch by flooding, riding on the
//!   routing updates, once an interval.
//!
//! Choices where the thesis is silent (each a parameter or stated here):
//! - `target` T: 0.9 (not given; it must lie below the 97% saturation test, `saturation`).
//! - `interval`: 10 s, the measurement and flooding period, the same for every port: the
//!   rations ride on the routing updates, whose interval the thesis calls "relatively long"
//!   and does not give; 10 s is the routing interval this crate's Liang runs use for SEIF's
//!   source tables (spec A4). Rations flooded at the end of an interval apply at once
//!   everywhere (flooding's own delay is not modelled).
//! - A resource is a port running `bbn`; its utilisation counts every byte it put on its line
//!   (data, ACKs and control packets) over the interval; its ration in bit/s is R times its
//!   line rate (the thesis notes that this conversion is one of the scheme's problems).
//! - Admission: at the port that leaves the flow's first switch (hop 1 of its route), the data
//!   of all flows from the same first switch to the same last switch share one queue, served at
//!   no more than the pair's flow ration: a packet may start when the pair's previous one has
//!   had its size's time at that rate since it started (no credit builds while the pair is
//!   idle; a new ration re-times the wait). ACKs, control
//!   packets and traffic that entered the network at another switch are not held. The world
//!   (`world/rations.rs`) computes the pairs and hands every ingress port its pairs' rations.
//! - Service: among the packets that may go (the unheld queue's first, the eligible pairs'
//!   first) the one that arrived first; the buffer is the port's, shared, dropping arrivals that
//!   do not fit. Choosing scans the port's pairs: O(pairs) per packet, allocating nothing.

use super::{BufferLimit, Discipline, InService, PortSetup, QueueDiscipline, Verdict};
use crate::net::{PacketArena, PacketId, PacketKind};
use crate::scenario::decode::Result;
use crate::scenario::params::Params;
use crate::sim::{SimTime, PS_PER_SEC};
use std::collections::VecDeque;

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BbnConfig {
    /// T, the target utilisation. 0.9.
    pub target: f64,
    /// Utilisation above which the line is taken as saturated. 0.97.
    pub saturation: f64,
    /// Measurement and flooding period. 10 s.
    pub interval: SimTime,
}

impl Default for BbnConfig {
    fn default() -> Self {
        BbnConfig { target: 0.9, saturation: 0.97, interval: 10 * PS_PER_SEC }
    }
}

/// The resource ration's update (the thesis's two rules): the new ration from the old one and
/// the utilisation measured over the interval, both as fractions of the line.
pub fn next_ration(r: f64, u: f64, target: f64, saturation: f64) -> f64 {
    let next = if u < saturation {
        if u <= 0.0 {
            target
        } else {
            r * target / u
        }
    } else {
        r * target / u.max(target + r)
    };
    // A ration never reaches zero (a pair held for ever could not show the line is free).
    next.max(1e-6).min(target)
}

const NO_PAIR: u32 = u32::MAX;

/// A pair of boundary switches whose traffic enters the network here.
struct Pair {
    queue: VecDeque<(PacketId, u32, u64)>,
    /// Flow ration, bit/s.
    rate_bps: f64,
    /// When its next packet may start: its last packet's start plus that packet's time at
    /// the ration (recomputed when the ration changes).
    next_free: SimTime,
    last_start: SimTime,
    last_size: u32,
}

impl Pair {
    fn spacing(&self, size: u32) -> SimTime {
        (size as f64 * 8.0 / self.rate_bps * PS_PER_SEC as f64).min(SimTime::MAX as f64 / 4.0) as SimTime
    }
}

pub struct Bbn {
    cfg: BbnConfig,
    line_bps: u64,
    /// R, a fraction of the line.
    ration: f64,
    /// Bytes put on the line in the current interval.
    sent_bytes: u64,
    interval_start: SimTime,
    /// Per flow: its pair here, or NO_PAIR (filled at setup).
    flow_pair: Vec<u32>,
    pairs: Vec<Pair>,
    /// Packets not held (ACKs, control, traffic from other switches), with arrival stamps.
    unheld: VecDeque<(PacketId, u32, u64)>,
    stamp: u64,
    limit: BufferLimit,
    count_in_service: bool,
    pkts: u32,
    bytes: u64,
    /// Requests for a packet that found only packets waiting for their pairs' rations (the
    /// line left idle).
    held: u64,
}

impl Discipline for Bbn {
    const NAME: &'static str = "bbn";
    const SUMMARY: &'static str =
        "BBN's rate-based ration scheme (Robinson, Friedman and Steenstrup 1990; reviewed in Liang 1991 §2.2): rations from measured utilisation, admission per pair of boundary switches";
    type Config = BbnConfig;

    fn decode(p: &mut Params) -> Result<BbnConfig> {
        let d = BbnConfig::default();
        let target = p.number_above("target", d.target, 0.0, 1.0, "T, the utilisation a resource aims for (the ration starts there)")?;
        let saturation = p.number_above("saturation", d.saturation, 0.0, 1.0, "utilisation above which the line counts as saturated (the thesis's 97%)")?;
        let interval = p.duration("interval", d.interval, "how often utilisation is measured and rations are flooded")?;
        if interval == 0 {
            return Err(p.error("interval", "expected a positive duration"));
        }
        if target >= saturation {
            return Err(p.error("target", format!("expected a target below saturation ({saturation})")));
        }
        Ok(BbnConfig { target, saturation, interval })
    }

    fn build(cfg: &BbnConfig, port: &PortSetup) -> Self {
        Bbn::new(*cfg, port.buffer, port.count_in_service, port.bandwidth_bps)
    }
}

impl Bbn {
    pub fn new(cfg: BbnConfig, limit: BufferLimit, count_in_service: bool, line_bps: u64) -> Self {
        Bbn {
            cfg,
            line_bps,
            ration: cfg.target,
            sent_bytes: 0,
            interval_start: 0,
            flow_pair: Vec::new(),
            pairs: Vec::new(),
            unheld: VecDeque::new(),
            stamp: 0,
            limit,
            count_in_service,
            pkts: 0,
            bytes: 0,
            held: 0,
        }
    }

    /// The pair `flow`'s data joins here, if any.
    #[inline]
    fn pair_of(&self, flow: u32, kind: PacketKind) -> u32 {
        if kind != PacketKind::Data {
            return NO_PAIR;
        }
        self.flow_pair.get(flow as usize).copied().unwrap_or(NO_PAIR)
    }

    /// The eligible pair whose first packet arrived first, if it arrived before `before`.
    #[inline]
    fn first_eligible(&self, now: SimTime, before: u64) -> Option<usize> {
        let mut best = None;
        let mut stamp = before;
        for (i, p) in self.pairs.iter().enumerate() {
            if let Some(&(_, _, s)) = p.queue.front() {
                if p.next_free <= now && s < stamp {
                    stamp = s;
                    best = Some(i);
                }
            }
        }
        best
    }

    /// The pair's flow ration in bit/s (for tests and reports).
    pub fn pair_rate(&self, pair: u32) -> Option<f64> {
        self.pairs.get(pair as usize).map(|p| p.rate_bps)
    }
}

impl QueueDiscipline for Bbn {
    fn enqueue(&mut self, pkt: PacketId, arena: &mut PacketArena, _now: SimTime, tx: InService) -> Verdict {
        let p = arena.get(pkt);
        let (pair, size) = (self.pair_of(p.flow, p.kind), p.size);
        if !self.limit.fits(self.pkts as u64 + 1, self.bytes + size as u64, self.count_in_service, tx) {
            return Verdict::Dropped(pkt);
        }
        self.stamp += 1;
        let entry = (pkt, size, self.stamp);
        match self.pairs.get_mut(pair as usize) {
            Some(p) => p.queue.push_back(entry),
            None => self.unheld.push_back(entry),
        }
        self.pkts += 1;
        self.bytes += size as u64;
        Verdict::Accepted
    }

    fn dequeue(&mut self, _arena: &mut PacketArena, now: SimTime) -> Option<PacketId> {
        let unheld_stamp = self.unheld.front().map_or(u64::MAX, |e| e.2);
        let (pkt, size) = match self.first_eligible(now, unheld_stamp) {
            Some(i) => {
                let p = &mut self.pairs[i];
                let (pkt, size, _) = p.queue.pop_front().unwrap();
                // It may start late (the line was busy): spacing runs from its real start.
                p.last_start = now;
                p.last_size = size;
                p.next_free = now.saturating_add(p.spacing(size));
                (pkt, size)
            }
            None => match self.unheld.pop_front() {
                Some((pkt, size, _)) => (pkt, size),
                None => {
                    if self.pkts > 0 {
                        self.held += 1;
                    }
                    return None;
                }
            },
        };
        self.pkts -= 1;
        self.bytes -= size as u64;
        self.sent_bytes += size as u64;
        Some(pkt)
    }

    fn next_eligible(&self, now: SimTime) -> Option<SimTime> {
        self.pairs.iter().filter(|p| !p.queue.is_empty()).map(|p| p.next_free.max(now)).min()
    }

    fn len_packets(&self) -> u32 {
        self.pkts
    }

    fn len_bytes(&self) -> u64 {
        self.bytes
    }

    fn for_each(&self, f: &mut dyn FnMut(PacketId)) {
        self.unheld.iter().for_each(|e| f(e.0));
        for p in &self.pairs {
            p.queue.iter().for_each(|e| f(e.0));
        }
    }

    fn memory_bytes(&self) -> usize {
        self.flow_pair.capacity() * 4
            + self.pairs.capacity() * std::mem::size_of::<Pair>()
            + self.pairs.iter().map(|p| p.queue.capacity() * 16).sum::<usize>()
            + self.unheld.capacity() * 16
    }

    fn line_taken(&mut self, _now: SimTime, bytes: u32) {
        self.sent_bytes += bytes as u64;
    }

    fn counters(&self, out: &mut dyn FnMut(&'static str, u64)) {
        out("bbn_held", self.held);
        out("bbn_ration_bps", (self.ration * self.line_bps as f64) as u64);
    }

    /// The resource ration this port floods (a pair's flow ration is the smallest on its path).
    fn state(&self) -> Option<(&'static str, f64)> {
        Some(("ration_bps", self.ration * self.line_bps as f64))
    }

    fn ration(&self) -> Option<(f64, SimTime)> {
        Some((self.ration * self.line_bps as f64, self.cfg.interval))
    }

    fn update_ration(&mut self, now: SimTime) -> f64 {
        let span = now.saturating_sub(self.interval_start);
        let u = if span == 0 {
            0.0
        } else {
            (self.sent_bytes as f64 * 8.0 / (self.line_bps as f64 * span as f64 / PS_PER_SEC as f64)).min(1.0)
        };
        self.ration = next_ration(self.ration, u, self.cfg.target, self.cfg.saturation);
        self.sent_bytes = 0;
        self.interval_start = now;
        self.ration * self.line_bps as f64
    }

    fn join_ration_pair(&mut self, flow: u32, pair: u32) {
        if flow as usize >= self.flow_pair.len() {
            self.flow_pair.resize(flow as usize + 1, NO_PAIR);
        }
        self.flow_pair[flow as usize] = pair;
        while self.pairs.len() <= pair as usize {
            self.pairs.push(Pair {
                queue: VecDeque::new(),
                rate_bps: self.cfg.target * self.line_bps as f64,
                next_free: 0,
                last_start: 0,
                last_size: 0,
            });
        }
    }

    fn set_pair_ration(&mut self, pair: u32, bps: f64) {
        if let Some(p) = self.pairs.get_mut(pair as usize) {
            p.rate_bps = bps.max(1.0);
            // The last packet's spacing at the new ration: a raised ration frees the pair sooner.
            if p.last_size > 0 {
                p.next_free = p.last_start.saturating_add(p.spacing(p.last_size));
            }
        }
    }
}

#[cfg(test)]
mod tests;
