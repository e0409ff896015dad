//! RIO: RED with In and Out (Clark and Fang 1998), the DiffServ core mechanism Hua 2002 §2.3
//! names (spec hua02-vegas-jcc-swtp.md §1.2.5; no experiment of the thesis uses it).
//!
//! Two RED curves (red/curve.rs, Floyd and Jacobson's average, count correction and idle decay)
//! over one FIFO: a packet in its flow's profile (`flags::IN_PROFILE`, set by the flow's
//! `profile_rate` token bucket) is judged by the in-profile curve on the average of the
//! in-profile packets waiting; any other packet by the out-of-profile curve on the average of
//! all packets waiting. So out-of-profile traffic is dropped first as the queue builds, and
//! in-profile traffic only when in-profile packets alone fill it.
//!
//! Choices where the sources are silent, each a parameter or stated here:
//! - The thresholds: out-of-profile at RED's defaults here (5, 15 packets, max_p 0.1),
//!   in-profile later and gentler (10, 30 packets, max_p 0.02): the shape RIO's papers draw
//!   (min_out < min_in, max_out < max_in, max_p_out > max_p_in), numbers of our choosing.
//! - `in_average = "every_arrival"`: both averages step on every arrival (each over its own
//!   waiting count), with one w_q (0.002) and RED's idle decay after the line has been idle.
//!   `"in_arrivals"` steps the in-profile average only when an in-profile packet arrives (and
//!   the total one only at the others), as RED steps its average at the packets it judges;
//!   which of the two Clark and Fang's pseudo-code does is not checked against the paper here.
//!   Each curve keeps its own count, restarted by its own drops (early, forced, or the
//!   buffer's tail drop).
//! - Drops only, no ECN marks, not gentle, no `wait`; the early victim is the arriving packet;
//!   the buffer's tail drop (`DropTail`) still applies to both colours.
//! - The draw comes from the port's own stream (`port/NAME/rio`).

use super::red::{LineClock, RedCurve};
use super::{Discipline, DropTail, InService, PortSetup, QueueDiscipline, Verdict};
use crate::net::packet::flags;
use crate::net::{PacketArena, PacketId};
use crate::scenario::decode::Result;
use crate::scenario::params::Params;
use crate::sim::{time::tx_time, Rng, SimTime};

/// RIO's parameters; `Default` gives the values above.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RioConfig {
    pub in_min_th: f64,
    pub in_max_th: f64,
    pub in_max_p: f64,
    pub out_min_th: f64,
    pub out_max_th: f64,
    pub out_max_p: f64,
    pub w_q: f64,
    /// Typical packet, bytes: the idle decay's unit. 500.
    pub packet_size: u32,
    /// Each average steps only at the arrivals its curve judges (true), or both at every
    /// arrival (false, the default).
    pub own_arrivals: bool,
}

impl Default for RioConfig {
    fn default() -> Self {
        RioConfig {
            in_min_th: 10.0,
            in_max_th: 30.0,
            in_max_p: 0.02,
            out_min_th: 5.0,
            out_max_th: 15.0,
            out_max_p: 0.1,
            w_q: 0.002,
            packet_size: 500,
            own_arrivals: false,
        }
    }
}

/// What RIO has done since the start.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RioStats {
    /// Early and forced drops of in-profile and of out-of-profile packets.
    pub in_drops: u64,
    pub out_drops: u64,
    /// Tail drops of the physical buffer.
    pub overflow_drops: u64,
}

pub struct Rio {
    inner: DropTail,
    /// In-profile packets waiting.
    waiting_in: u32,
    curve_in: RedCurve,
    curve_out: RedCurve,
    own_arrivals: bool,
    /// When the line finishes what it sends.
    line: LineClock,
    rng: Rng,
    stats: RioStats,
}

impl Discipline for Rio {
    const NAME: &'static str = "rio";
    const SUMMARY: &'static str = "RIO, RED with In and Out (Clark and Fang 1998; named in Hua 2002 §2.3): in-profile packets judged on their own average, the rest on the total";
    type Config = RioConfig;

    fn decode(p: &mut Params) -> Result<RioConfig> {
        let d = RioConfig::default();
        let th = |p: &mut Params, min: (&'static str, f64), max: (&'static str, f64)| -> Result<(f64, f64)> {
            let lo = p.number(min.0, min.1, 0.0, 1e9, "average queue at which this curve's early drops start, packets")?;
            let hi = p.number(max.0, max.1, 0.0, 1e9, "average queue from which this curve drops every packet, packets")?;
            if hi <= lo {
                return Err(p.error(max.0, format!("expected {} > {} ({lo}), got {hi}", max.0, min.0)));
            }
            Ok((lo, hi))
        };
        let (in_min_th, in_max_th) = th(p, ("in_min_th", d.in_min_th), ("in_max_th", d.in_max_th))?;
        let (out_min_th, out_max_th) = th(p, ("out_min_th", d.out_min_th), ("out_max_th", d.out_max_th))?;
        Ok(RioConfig {
            in_min_th,
            in_max_th,
            in_max_p: p.number_above("in_max_p", d.in_max_p, 0.0, 1.0, "in-profile drop probability at in_max_th")?,
            out_min_th,
            out_max_th,
            out_max_p: p.number_above("out_max_p", d.out_max_p, 0.0, 1.0, "out-of-profile drop probability at out_max_th")?,
            w_q: p.number_above("w_q", d.w_q, 0.0, 1.0, "weight of both averages' EWMA")?,
            packet_size: p.integer("packet_size", d.packet_size as u64, 1, 1 << 30, "typical packet, bytes: the idle decay's unit")?
                as u32,
            own_arrivals: p.choice(
                "in_average",
                d.own_arrivals,
                &[("every_arrival", false), ("in_arrivals", true)],
                "when the averages step: both at every arrival, or each only at the arrivals its curve judges (the in-profile one at in-profile packets)",
            )?,
        })
    }

    fn build(cfg: &RioConfig, port: &PortSetup) -> Self {
        Rio::new(DropTail::new(port.buffer, port.count_in_service), port.bandwidth_bps, *cfg, port.rng("rio"))
    }
}

impl Rio {
    pub fn new(inner: DropTail, bandwidth_bps: u64, cfg: RioConfig, rng: Rng) -> Self {
        let typical = tx_time(cfg.packet_size, bandwidth_bps);
        Rio {
            inner,
            waiting_in: 0,
            curve_in: RedCurve::new(cfg.in_min_th, cfg.in_max_th, cfg.in_max_p, cfg.w_q, false, false, typical),
            curve_out: RedCurve::new(cfg.out_min_th, cfg.out_max_th, cfg.out_max_p, cfg.w_q, false, false, typical),
            own_arrivals: cfg.own_arrivals,
            line: LineClock::new(bandwidth_bps),
            rng,
            stats: RioStats::default(),
        }
    }

    /// The in-profile and the total average queue, packets.
    pub fn averages(&self) -> (f64, f64) {
        (self.curve_in.avg, self.curve_out.avg)
    }

    pub fn stats(&self) -> RioStats {
        self.stats
    }

    /// Whether the curve drops this arrival early (or forced), updating its count.
    fn early_drop(curve: &mut RedCurve, rng: &mut Rng) -> bool {
        let pb = curve.base_probability();
        if pb == 0.0 {
            curve.count = 0;
            false
        } else if pb >= 1.0 || rng.uniform_open0() <= curve.corrected(pb) {
            curve.count = 0;
            true
        } else {
            curve.count += 1;
            false
        }
    }
}

impl QueueDiscipline for Rio {
    fn counters(&self, out: &mut dyn FnMut(&'static str, u64)) {
        let st = self.stats();
        out("rio_in_drops", st.in_drops);
        out("rio_out_drops", st.out_drops);
        out("rio_overflow_drops", st.overflow_drops);
    }
    /// The total average (the one out-of-profile packets are judged on).
    fn state(&self) -> Option<(&'static str, f64)> {
        Some(("avg_queue", self.curve_out.avg))
    }
    fn enqueue(&mut self, pkt: PacketId, arena: &mut PacketArena, now: SimTime, tx: InService) -> Verdict {
        let idle_for = self.line.idle_for(now, tx.bytes.is_none());
        let in_profile = arena.get(pkt).has(flags::IN_PROFILE);
        if !self.own_arrivals || in_profile {
            self.curve_in.update_average(self.waiting_in as f64, idle_for);
        }
        if !self.own_arrivals || !in_profile {
            self.curve_out.update_average(self.inner.len_packets() as f64, idle_for);
        }
        if in_profile {
            if Self::early_drop(&mut self.curve_in, &mut self.rng) {
                self.stats.in_drops += 1;
                return Verdict::Dropped(pkt);
            }
        } else if Self::early_drop(&mut self.curve_out, &mut self.rng) {
            self.stats.out_drops += 1;
            return Verdict::Dropped(pkt);
        }
        let verdict = self.inner.enqueue(pkt, arena, now, tx);
        match verdict {
            Verdict::Accepted => self.waiting_in += in_profile as u32,
            Verdict::Dropped(_) => {
                // A tail drop is a drop: the judging curve counts afresh (as RED does).
                if in_profile {
                    self.curve_in.count = 0;
                } else {
                    self.curve_out.count = 0;
                }
                self.stats.overflow_drops += 1;
            }
        }
        verdict
    }

    fn dequeue(&mut self, arena: &mut PacketArena, now: SimTime) -> Option<PacketId> {
        let p = self.inner.dequeue(arena, now)?;
        let pkt = arena.get(p);
        self.waiting_in -= pkt.has(flags::IN_PROFILE) as u32;
        self.line.sent(now, pkt.size);
        Some(p)
    }

    fn line_taken(&mut self, now: SimTime, bytes: u32) {
        self.line.sent(now, bytes);
    }

    buffered_in!(inner);

    fn memory_bytes(&self) -> usize {
        self.inner.memory_bytes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::packet::{Packet, PacketKind, EMPTY};
    use crate::queue::BufferLimit;

    const BUSY: InService = InService { bytes: Some(1000) };

    fn rio() -> Rio {
        Rio::new(DropTail::new(BufferLimit::Unlimited, false), 8_000_000, RioConfig::default(), Rng::stream(5, "port/a->b/rio"))
    }

    fn pkt(a: &mut PacketArena, in_profile: bool) -> PacketId {
        let f = if in_profile { flags::IN_PROFILE } else { 0 };
        a.alloc(Packet { size: 1000, kind: PacketKind::Data, flags: f, ..EMPTY })
    }

    /// Hold the queue at `n_in` in-profile and `n_out` other packets and offer `k` arrivals of
    /// each colour (every accepted one followed by a departure of its colour's kind): the drop
    /// fractions of in and out arrivals.
    fn drop_rates(n_in: u32, n_out: u32, k: usize) -> (f64, f64) {
        let mut a = PacketArena::new();
        let mut q = rio();
        for i in 0..n_in + n_out {
            let p = pkt(&mut a, i < n_in);
            assert_eq!(q.inner.enqueue(p, &mut a, 0, BUSY), Verdict::Accepted);
        }
        q.waiting_in = n_in;
        // Warm averages: their fixed points.
        q.curve_in.avg = n_in as f64;
        q.curve_out.avg = (n_in + n_out) as f64;
        let (mut d_in, mut d_out) = (0, 0);
        for _ in 0..k {
            for colour in [true, false] {
                let p = pkt(&mut a, colour);
                match q.enqueue(p, &mut a, 0, BUSY) {
                    Verdict::Accepted => {
                        // Take the newcomer out again, keeping the colours' counts.
                        q.inner = {
                            let mut keep = DropTail::new(BufferLimit::Unlimited, false);
                            let mut ids = Vec::new();
                            q.inner.for_each(&mut |id| ids.push(id));
                            for id in ids.into_iter().filter(|&id| id != p) {
                                keep.enqueue(id, &mut a, 0, BUSY);
                            }
                            keep
                        };
                        q.waiting_in -= colour as u32;
                    }
                    Verdict::Dropped(_) if colour => d_in += 1,
                    Verdict::Dropped(_) => d_out += 1,
                }
            }
        }
        (d_in as f64 / k as f64, d_out as f64 / k as f64)
    }

    #[test]
    fn out_of_profile_packets_go_first() {
        // 8 in-profile and 12 others waiting: the total (20) is past out_max_th (15), the
        // in-profile average (8) below in_min_th (10). Every out arrival is dropped, no in.
        let (p_in, p_out) = drop_rates(8, 12, 2000);
        assert_eq!((p_in, p_out), (0.0, 1.0));
        // In-profile packets alone at 20: midway between 10 and 30, p_b = 0.01; with the count
        // correction the drops are about 1/50 (gaps uniform on 1..100).
        let (p_in, _) = drop_rates(20, 0, 20_000);
        assert!((0.015..0.025).contains(&p_in), "{p_in}");
    }

    #[test]
    fn in_arrivals_steps_each_average_only_at_its_own_packets() {
        let mut a = PacketArena::new();
        let cfg = RioConfig { own_arrivals: true, w_q: 0.5, ..RioConfig::default() };
        let mut q = Rio::new(DropTail::new(BufferLimit::Unlimited, false), 8_000_000, cfg, Rng::stream(5, "port/a->b/rio"));
        for _ in 0..4 {
            let p = pkt(&mut a, false);
            assert_eq!(q.enqueue(p, &mut a, 0, BUSY), Verdict::Accepted);
        }
        assert_eq!(q.averages().0, 0.0, "out-of-profile arrivals leave the in-profile average");
        assert!(q.averages().1 > 0.0);
        let total = q.averages().1;
        let p = pkt(&mut a, true);
        assert_eq!(q.enqueue(p, &mut a, 0, BUSY), Verdict::Accepted);
        assert_eq!(q.averages().1, total, "an in-profile arrival leaves the total one");
    }

    #[test]
    fn dequeue_keeps_the_in_profile_count() {
        let mut a = PacketArena::new();
        let mut q = rio();
        for c in [true, false, true] {
            let p = pkt(&mut a, c);
            assert_eq!(q.enqueue(p, &mut a, 0, BUSY), Verdict::Accepted);
        }
        assert_eq!(q.waiting_in, 2);
        let p = q.dequeue(&mut a, 0).unwrap();
        assert!(a.get(p).has(flags::IN_PROFILE));
        assert_eq!(q.waiting_in, 1);
    }
}
