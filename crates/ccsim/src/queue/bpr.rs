//! BPR: Backlog-Proportional Rate, packetised.
//!
//! Source: Dovrolis, Stiliadis and Ramanathan 1999 ("Proportional differentiated services:
//! delay differentiation and packet scheduling", SIGCOMM), which Hua 2002 §5.2 names and
//! describes in words only (spec hua02-vegas-jcc-swtp.md §1.5.4): the classes share the line
//! at rates in proportion to their weighted backlogs, r_i / r_j = (s_i Q_i) / (s_j Q_j), with
//! Σ r_i the line rate; s_i are the differentiation parameters (a larger s_i, a smaller
//! delay). BPR is defined as a fluid server.
//!
//! The packetisation here (Dovrolis's definition does not fix one; this is my reading): a
//! fluid BPR server runs alongside the port as the reference, fed the same arrivals (bytes,
//! per class) at the port's line rate, and at each start of transmission the packet server
//! sends the head-of-line packet of the backlogged class that lags furthest behind its fluid
//! service: the largest (fluid bytes served − packet bytes sent) since the start; ties to the
//! higher class. This is to BPR what PGPS-style tracking is to GPS: the packet server's
//! cumulative service per class follows the fluid one, within a few packets (both systems are
//! work-conserving on the same arrivals, so the lags sum to about zero).
//!
//! The fluid system is solved exactly between events. With fluid backlogs Q_i and
//! dQ_i/dt = −R s_i Q_i / Σ_j s_j Q_j, the substitution du = R dt / Σ s_j Q_j gives
//! Q_i(u) = Q_i(0) e^{−s_i u}; the u reached after dt is the root of
//! Σ_i Q_i(0) e^{−s_i u} = Σ_i Q_i(0) − R dt (the server is work-conserving), found by
//! Newton's method on the logarithm of the left side (a convex decreasing function, so the
//! iterates rise monotonically to the root; one class is solved in one step). The fluid
//! empties a class only as u → ∞, i.e. exactly when the whole fluid backlog is served.
//!
//! Choices where the source is silent:
//! - s_i are the class weights b_i of `wtp` (`spacing` or `weights`, same meaning: class 0
//!   the lowest priority with s_0 = 1); the target is d_i / d_j = s_j / s_i.
//! - Backlogs and service are in bytes; the fluid is advanced at every arrival and every
//!   start of transmission. Control packets the port sends from its priority lane are not
//!   seen (the fluid serves at the full line rate regardless).
//! - Buffer: the port's, drop-tail on the total over all classes (as `wtp`); a dropped
//!   packet never enters the fluid either.
//! - No operation counts (the thesis counts WTP and S-WTP only); the per-packet work is
//!   O(N) per Newton step, a few steps per event, and allocates nothing.

use super::wtp::{ClassQueues, ClassWeights, Waiting};
use super::{BufferLimit, Discipline, InService, PortSetup, QueueDiscipline, Verdict};
use crate::net::{PacketArena, PacketId};
use crate::scenario::decode::Result;
use crate::scenario::params::Params;
use crate::sim::{SimTime, PS_PER_SEC};

pub struct Bpr {
    q: ClassQueues,
    /// The fluid reference: backlog per class, bytes, and their sum.
    fluid: Vec<f64>,
    fluid_total: f64,
    /// Fluid bytes served minus packet bytes sent, per class.
    lag: Vec<f64>,
    /// s_i per class (the weights).
    s: Vec<f64>,
    /// The time the fluid state is for.
    last: SimTime,
    /// The line rate, bytes per picosecond.
    rate: f64,
}

impl Bpr {
    pub fn new(cfg: ClassWeights, limit: BufferLimit, count_in_service: bool, bandwidth_bps: u64) -> Self {
        Bpr {
            q: ClassQueues::new(cfg, limit, count_in_service),
            fluid: Vec::new(),
            fluid_total: 0.0,
            lag: Vec::new(),
            s: Vec::new(),
            last: 0,
            rate: bandwidth_bps as f64 / 8.0 / PS_PER_SEC as f64,
        }
    }

    /// N, the classes held.
    pub fn classes(&self) -> usize {
        self.q.classes()
    }

    /// Class c's fluid backlog, bytes, as of the last event.
    pub fn fluid_backlog(&self, c: usize) -> f64 {
        self.fluid.get(c).copied().unwrap_or(0.0)
    }

    /// Class c's lag, bytes: fluid service minus packet service, as of the last event.
    pub fn lag(&self, c: usize) -> f64 {
        self.lag.get(c).copied().unwrap_or(0.0)
    }

    #[cold]
    fn grow(&mut self) {
        let n = self.q.classes();
        self.fluid.resize(n, 0.0);
        self.lag.resize(n, 0.0);
        self.s = (0..n).map(|c| self.q.weight(c)).collect();
    }

    /// Run the fluid server to `now` (see the header).
    #[inline]
    fn advance(&mut self, now: SimTime) {
        let dt = now.saturating_sub(self.last);
        self.last = self.last.max(now);
        if dt == 0 || self.fluid_total <= 0.0 {
            return;
        }
        let work = dt as f64 * self.rate;
        if work >= self.fluid_total * (1.0 - 1e-12) {
            for (l, f) in self.lag.iter_mut().zip(self.fluid.iter_mut()) {
                *l += *f;
                *f = 0.0;
            }
            self.fluid_total = 0.0;
            return;
        }
        let u = self.solve(work);
        let mut served_sum = 0.0;
        for (f, s) in self.fluid.iter().zip(&self.s) {
            served_sum += *f * -(-s * u).exp_m1();
        }
        let scale = if served_sum > 0.0 { work / served_sum } else { 0.0 };
        let mut total = 0.0;
        for ((f, l), s) in self.fluid.iter_mut().zip(self.lag.iter_mut()).zip(&self.s) {
            let served = (*f * -(-s * u).exp_m1() * scale).min(*f);
            *f -= served;
            *l += served;
            total += *f;
        }
        self.fluid_total = total;
    }

    /// The u at which the fluid has served `work` bytes (0 < work < the fluid backlog):
    /// Newton on h(u) = ln Σ Q_i e^{−s_i u} − ln(backlog − work), from u = 0.
    #[inline]
    fn solve(&self, work: f64) -> f64 {
        let rem = self.fluid_total - work;
        let mut u = 0.0f64;
        for _ in 0..200 {
            let (mut r, mut dr) = (0.0, 0.0);
            for (f, s) in self.fluid.iter().zip(&self.s) {
                if *f > 0.0 {
                    let e = f * (-s * u).exp();
                    r += e;
                    dr += s * e;
                }
            }
            // h = ln(r / rem) (r ≥ rem below the root), h' = −dr / r.
            let h = ((r - rem) / rem).ln_1p();
            if h <= 0.0 || dr <= 0.0 {
                break;
            }
            let step = h * r / dr;
            u += step;
            if step <= u * 1e-14 {
                break;
            }
        }
        u
    }
}

impl Discipline for Bpr {
    const NAME: &'static str = "bpr";
    const SUMMARY: &'static str =
        "Backlog-Proportional Rate (Dovrolis et al. 1999; named in Hua 2002 §5.2), packetised: the class furthest behind a fluid server with rates proportional to s_i x backlog_i goes next";
    type Config = ClassWeights;

    fn decode(p: &mut Params) -> Result<ClassWeights> {
        ClassWeights::decode(p)
    }

    fn build(cfg: &ClassWeights, port: &PortSetup) -> Self {
        Bpr::new(cfg.clone(), port.buffer, port.count_in_service, port.bandwidth_bps)
    }
}

impl QueueDiscipline for Bpr {
    #[inline]
    fn enqueue(&mut self, pkt: PacketId, arena: &mut PacketArena, now: SimTime, tx: InService) -> Verdict {
        let p = arena.get(pkt);
        let (class, size) = (p.class, p.size);
        if self.q.ensure(class) {
            self.grow();
        }
        if !self.q.admits(size, tx) {
            return Verdict::Dropped(pkt);
        }
        self.advance(now);
        let c = class as usize;
        self.q.push(c, Waiting { arrived: now, pkt, size });
        self.fluid[c] += size as f64;
        self.fluid_total += size as f64;
        Verdict::Accepted
    }

    #[inline]
    fn dequeue(&mut self, _arena: &mut PacketArena, now: SimTime) -> Option<PacketId> {
        if self.q.packets() == 0 {
            return None;
        }
        self.advance(now);
        let mut best = usize::MAX;
        let mut best_lag = f64::NEG_INFINITY;
        for c in (0..self.q.classes()).rev() {
            if !self.q.is_empty(c) && self.lag[c] > best_lag {
                best_lag = self.lag[c];
                best = c;
            }
        }
        let w = self.q.pop(best);
        self.lag[best] -= w.size as f64;
        Some(w.pkt)
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
        self.q.memory_bytes() + (self.fluid.capacity() + self.lag.capacity() + self.s.capacity()) * 8
    }
}

#[cfg(test)]
mod tests {
    use super::super::wtp::tests::{pkt, weights};
    use super::*;

    const IDLE: InService = InService { bytes: None };
    /// 8 Mb/s: one byte per microsecond.
    const US: SimTime = 1_000_000;

    fn bpr(b: &[f64]) -> Bpr {
        Bpr::new(weights(b), BufferLimit::Unlimited, true, 8_000_000)
    }

    #[test]
    fn one_class_drains_at_the_line_rate() {
        let mut a = PacketArena::new();
        let mut q = bpr(&[1.0]);
        let p = pkt(&mut a, 0, 1000);
        q.enqueue(p, &mut a, 0, IDLE);
        q.advance(300 * US);
        assert!((q.fluid_backlog(0) - 700.0).abs() < 1e-9, "{}", q.fluid_backlog(0));
        q.advance(2000 * US);
        assert_eq!((q.fluid_backlog(0), q.lag(0)), (0.0, 1000.0));
    }

    #[test]
    fn the_fluid_serves_in_proportion_to_weighted_backlogs() {
        // Equal backlogs, s = 1 and 3: the fluid rates start 1 : 3, and the backlogs follow
        // Q_i = Q e^{−s_i u} exactly.
        let mut a = PacketArena::new();
        let mut q = bpr(&[1.0, 3.0]);
        for c in [0, 1] {
            let p = pkt(&mut a, c, 10_000);
            q.enqueue(p, &mut a, 0, IDLE);
        }
        q.advance(US); // 1 byte served
        let (s0, s1) = (10_000.0 - q.fluid_backlog(0), 10_000.0 - q.fluid_backlog(1));
        assert!((s0 + s1 - 1.0).abs() < 1e-9 && (s1 / s0 - 3.0).abs() < 1e-3, "{s0} {s1}");
        q.advance(10_000 * US); // 10 000 bytes in all
        let (q0, q1) = (q.fluid_backlog(0), q.fluid_backlog(1));
        assert!((q0 + q1 - 10_000.0).abs() < 1e-6, "{q0} {q1}");
        // Q1 / Q = (Q0 / Q)^3.
        assert!((q1 / 10_000.0 - (q0 / 10_000.0).powi(3)).abs() < 1e-7, "{q0} {q1}");
        assert!((q.lag(0) - (10_000.0 - q0)).abs() < 1e-6);
    }

    #[test]
    fn the_packet_server_sends_the_class_furthest_behind_the_fluid() {
        let mut a = PacketArena::new();
        let mut q = bpr(&[1.0, 2.0]);
        let low: Vec<_> = (0..20).map(|_| pkt(&mut a, 0, 100)).collect();
        let high: Vec<_> = (0..20).map(|_| pkt(&mut a, 1, 100)).collect();
        for (&l, &h) in low.iter().zip(&high) {
            q.enqueue(l, &mut a, 0, IDLE);
            q.enqueue(h, &mut a, 0, IDLE);
        }
        // Both lags 0 at t = 0: a tie, to the higher class.
        let mut t = 0;
        let mut sent = Vec::new();
        while let Some(p) = q.dequeue(&mut a, t) {
            sent.push(a.get(p).class);
            t += 100 * US;
            // The lags stay within a packet or two of zero, summing to (at most) one packet.
            let sum = q.lag(0) + q.lag(1);
            assert!((-100.0 - 1e-6..=1e-6).contains(&sum), "{sum}");
            assert!(q.lag(0).abs() <= 200.0 && q.lag(1).abs() <= 200.0);
        }
        assert_eq!(sent[0], 1);
        // Equal backlogs at the start, s = 1 : 2: the higher class gets about 2 of every 3.
        let high_first_12 = sent[..12].iter().filter(|&&c| c == 1).count();
        assert!((7..=9).contains(&high_first_12), "{sent:?}");
        assert_eq!(sent.len(), 40);
    }
}
