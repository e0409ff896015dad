//! RED: Random Early Detection gateway.
//!
//! Source: Floyd and Jacobson 1993 ("Random Early Detection Gateways for Congestion
//! Avoidance", IEEE/ACM ToN 1(4); FJ93 below), as Hua 2002 §2.2 and Fig 2.2 use it (spec
//! hua02-vegas-jcc-swtp.md §1.2.1; Cui's spec §2.5 describes the same curve). On every arrival:
//! - the average queue: avg <- (1 - w_q) avg + w_q q while the line is busy or packets wait;
//!   after the line has been idle, avg <- (1 - w_q)^m avg with m = idle time / the
//!   transmission time of a typical packet (`packet_size`) on this port's line (FJ93 Fig 2);
//! - avg < min_th: accept; min_th <= avg < max_th: p_b = max_p (avg - min_th)/(max_th - min_th),
//!   p_a = p_b / (1 - count p_b), drop (or mark) with probability p_a; avg >= max_th: drop
//!   every arrival (the thesis's non-gentle curve, Fig 2.2);
//! - the port's physical buffer (`BufferLimit`, `count_in_service`) is still enforced by tail
//!   drop ([`DropTail`], reused).
//!
//! Defaults (spec §1.2.1 / §7; the thesis names the symbols only, so these are ns-2's of its
//! time): min_th 5, max_th 15, max_p 0.1 (ns-2 `linterm_ 10`), w_q 0.002, drops rather than
//! marks, thresholds in packets; not gentle, as Hua describes RED twice ("if the average queue
//! length is larger than max_th, all arriving packet are dropped", §2.2; "from 0 to max_P,
//! and then 1", §4.2.5), though ns-2 had made `gentle_` its default in April 2001 (2.1b8).
//!
//! Choices where the sources are silent ([REC] the spec's recommendation, [INF] read here),
//! each with the parameter that selects the alternative where there is one:
//! - `count` [INF]: the arrivals since the last drop or mark *before* this one, as FJ93 §7's
//!   analysis has it: the i-th arrival after a drop gets p_b / (1 - (i - 1) p_b), so at a fixed
//!   average the gap between drops is uniform on 1..1/p_b. FJ93's Fig 2 pseudo-code and ns-2
//!   increment count before using it, which makes the gaps uniform on 1..1/p_b - 1 after a
//!   drop (but not after the average first crosses min_th). count restarts at 0 while
//!   avg < min_th, and also after a tail drop on overflow (as ns-2 does since the Liu fix).
//! - `wait` [REC: off]: ns-2's variant that waits between drops: p_a = 0 while count p_b < 1,
//!   p_b / (2 - count p_b) while it is below 2, then 1 (gaps uniform on 1/p_b + 1..2/p_b). ns-2
//!   of 2001 had it on; the spec keeps FJ93's form.
//! - `gentle` [REC: off]: ns-2's gentle RED: between max_th and 2 max_th the probability rises
//!   from max_p to 1 (count-corrected as below max_th), and drops are forced only from 2 max_th.
//! - `mark` [REC: off]: ECN (RFC 3168, Hua §2.2): instead of dropping a data packet early, set
//!   `flags::CE` on it (the sink echoes it to the sender's `on_ack_signal`). Only where the
//!   average is below max_th: at or above it RED drops, marking or not (RFC 3168 §7), and in
//!   gentle mode the region from max_th up drops as well. ACKs are not ECN-capable transport
//!   (RFC 3168 §6.1.4), so they are dropped where a data packet would be marked. A marked
//!   packet that the buffer then refuses is a drop, not a mark. [`QueueDiscipline::marks`]
//!   counts the marks.
//! - `queue_in_bytes` [REC: off]: the average counts bytes and min_th / max_th are read as
//!   that many packets of `packet_size` bytes (ns-2's `queue_in_bytes_`). The drop probability
//!   itself is not scaled by the packet's size (FJ93's byte mode, ns-2's `bytes_`): not modelled.
//! - `packet_size` [INF]: FJ93's "typical transmission time for a small packet", s; 500 bytes,
//!   ns-2's `mean_pktsize_`. m = idle / s is real-valued (FJ93's linear f); ns-2 truncates it
//!   and also applies one ordinary step with q = 0.
//! - q is the number of packets (bytes) *waiting*, before the arrival joins them; the packet
//!   on the line is not counted (ns-2's queue, and FJ93's q). The line is idle from the moment
//!   it finishes its last packet with nothing waiting (ns-2's `idletime_`): an arrival that
//!   finds the queue empty but the line busy takes an ordinary step with q = 0. RED follows
//!   its line itself (the port's transmitter signals no completion when nothing waits), from
//!   `bandwidth_bps`, as DECbit does.
//! - The victim of an early drop is the arriving packet (FJ93; ns-2's default).
//! - `min_waiting_to_drop` [INF: 0]: RED drops (early or forced) only while at least this many
//!   packets wait, otherwise it treats the arrival as below min_th. ns-2's red.cc tests
//!   `qlen > 1` (2 here); FJ93 has no such rule (Hua's chapter 4 under each: finding
//!   jcc-late-starter).
//! - The random numbers come from the port's own stream (`PortSetup::rng("red")`), one
//!   uniform draw per arrival between the thresholds.
//!
//! Hua 2002's modified RED for JCC (§4.2.5, eq. 4.4; spec §1.2.2), off unless `code_bits` is
//! set: a probe (`flags::PROBE`) the port accepts leaves with code = max(code, r), r the m-bit
//! code of p_b at the average after this arrival's update ([`code`] has the rules and choices);
//! with `exempt_probes` probes are spared RED's own drops, not the buffer's. Drops stay RED's
//! unless `code_drops`, which drops with the probability the code stands for ([`code`]).

mod code;
mod curve;
pub use code::{red_code, CodeScale};
pub use curve::{LineClock, RedCurve};

use super::{BufferLimit, Discipline, DropTail, InService, PortSetup, QueueDiscipline, Verdict};
use crate::net::packet::flags;
use crate::net::{PacketArena, PacketId, PacketKind};
use crate::scenario::decode::Result;
use crate::scenario::params::Params;
use crate::sim::{time::tx_time, Rng, SimTime};

/// RED's parameters; `Default` gives the spec's values.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RedConfig {
    /// Average queue at which early drops start, packets. 5.
    pub min_th: f64,
    /// Average queue at which the probability reaches max_p (and, not gentle, every arrival is
    /// dropped), packets. 15.
    pub max_th: f64,
    /// Drop probability at max_th. 0.1.
    pub max_p: f64,
    /// Weight of the EWMA. 0.002.
    pub w_q: f64,
    /// Gentle RED: max_p..1 between max_th and 2 max_th. false.
    pub gentle: bool,
    /// Mark data packets (ECN) instead of dropping them early. false.
    pub mark: bool,
    /// ns-2's `wait_`: wait between drops. false.
    pub wait: bool,
    /// Average and thresholds in bytes (thresholds x `packet_size`). false.
    pub queue_in_bytes: bool,
    /// Typical packet size, bytes: the idle decay's unit (and the byte thresholds'). 500.
    pub packet_size: u32,
    /// Hua 2002's modified RED: bits m of the code stamped on probes (eq. 4.4); 0 = off. 0.
    pub code_bits: u8,
    /// Scale of eq. 4.4's middle line. Prose.
    pub code_scale: CodeScale,
    /// Probes are spared RED's own drops (not the buffer's). true.
    pub exempt_probes: bool,
    /// Drop with the code's quantised probability instead of p_b (needs `code_bits`). false.
    pub code_drops: bool,
    /// No RED drop while fewer packets than this wait (ns-2: 2). 0.
    pub min_waiting_to_drop: u32,
}

impl Default for RedConfig {
    fn default() -> Self {
        RedConfig {
            min_th: 5.0,
            max_th: 15.0,
            max_p: 0.1,
            w_q: 0.002,
            gentle: false,
            mark: false,
            wait: false,
            queue_in_bytes: false,
            packet_size: 500,
            code_bits: 0,
            code_scale: CodeScale::Prose,
            exempt_probes: true,
            code_drops: false,
            min_waiting_to_drop: 0,
        }
    }
}

/// What RED has done since the start.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RedStats {
    /// Packets marked (CE set) instead of dropped.
    pub marked: u64,
    /// Random early drops (between the thresholds, or in the gentle region).
    pub early_drops: u64,
    /// Drops because the average was at or above max_th (2 max_th when gentle).
    pub forced_drops: u64,
    /// Tail drops of the physical buffer.
    pub overflow_drops: u64,
}

pub struct Red {
    inner: DropTail,
    cfg: RedConfig,
    /// The average and the probability it gives.
    curve: RedCurve,
    /// When the line finishes what it sends (it is idle from then on if nothing waits).
    line: LineClock,
    rng: Rng,
    stats: RedStats,
}

impl Red {
    pub fn new(limit: BufferLimit, count_in_service: bool, bandwidth_bps: u64, cfg: RedConfig, rng: Rng) -> Self {
        let unit = if cfg.queue_in_bytes { cfg.packet_size as f64 } else { 1.0 };
        let typical_tx = tx_time(cfg.packet_size, bandwidth_bps);
        Red {
            inner: DropTail::new(limit, count_in_service),
            cfg,
            curve: RedCurve::new(cfg.min_th * unit, cfg.max_th * unit, cfg.max_p, cfg.w_q, cfg.gentle, cfg.wait, typical_tx),
            line: LineClock::new(bandwidth_bps),
            rng,
            stats: RedStats::default(),
        }
    }

    /// The average queue (packets, or bytes with `queue_in_bytes`).
    pub fn average(&self) -> f64 {
        self.curve.avg
    }

    pub fn stats(&self) -> RedStats {
        self.stats
    }

    /// Set the average queue (tests; a warm start).
    pub fn set_average(&mut self, avg: f64) {
        self.curve.avg = avg;
    }

    /// The code a probe arriving now would be stamped with (eq. 4.4; 0 with `code_bits` 0).
    pub fn code(&self) -> u8 {
        match self.cfg.code_bits {
            0 => 0,
            m => red_code(self.curve.avg, self.curve.min_th, self.curve.max_th, m, self.cfg.code_scale),
        }
    }

    /// p_b at the current average, before the count correction (0 below min_th, 1 where every
    /// arrival is dropped).
    pub fn base_probability(&self) -> f64 {
        self.curve.base_probability()
    }
}

impl Discipline for Red {
    const NAME: &'static str = "red";
    const SUMMARY: &'static str = "Random Early Detection (Floyd and Jacobson 1993; Hua 2002 §2.2): early drops or ECN marks on the average queue";
    type Config = RedConfig;

    fn decode(p: &mut Params) -> Result<RedConfig> {
        let d = RedConfig::default();
        let min_th = p.number("min_th", d.min_th, 0.0, 1e9, "average queue at which early drops start, packets")?;
        let max_th = p.number(
            "max_th",
            d.max_th,
            0.0,
            1e9,
            "average queue at which the probability reaches max_p (not gentle: every arrival dropped), packets",
        )?;
        if max_th <= min_th {
            return Err(p.error("max_th", format!("expected max_th > min_th ({min_th}), got {max_th}")));
        }
        Ok(RedConfig {
            min_th,
            max_th,
            max_p: p.number_above("max_p", d.max_p, 0.0, 1.0, "drop probability at max_th")?,
            w_q: p.number_above("w_q", d.w_q, 0.0, 1.0, "weight of the average queue's EWMA")?,
            gentle: p.flag("gentle", d.gentle, "gentle RED: probability max_p..1 between max_th and 2 max_th")?,
            mark: p.flag("mark", d.mark, "ECN: mark data packets (CE) instead of dropping them early; at or above max_th drop")?,
            wait: p.flag("wait", d.wait, "ns-2's wait_: p_a = 0 while count x p_b < 1, p_b / (2 - count x p_b) below 2")?,
            queue_in_bytes: p.flag(
                "queue_in_bytes",
                d.queue_in_bytes,
                "the average counts bytes; min_th and max_th are then in packets of packet_size bytes",
            )?,
            packet_size: p.integer(
                "packet_size",
                d.packet_size as u64,
                1,
                1 << 30,
                "typical packet, bytes: idle decay (1 - w_q)^m, m = idle time / its transmission time",
            )? as u32,
            code_bits: p.integer(
                "code_bits",
                d.code_bits as u64,
                0,
                8,
                "Hua 2002 modified RED: bits m of the code of p_b stamped on probes, max(code, r) (eq. 4.4); 0 = off",
            )? as u8,
            code_scale: p.choice(
                "code_scale",
                d.code_scale,
                &[("prose", CodeScale::Prose), ("literal", CodeScale::Literal)],
                "eq. 4.4's middle line: x (2^m - 2), clamped (codes 0..2^m-2 = 0..max_p), or x (2^m - 1) as printed",
            )?,
            exempt_probes: p.flag(
                "exempt_probes",
                d.exempt_probes,
                "probes (JCC) are spared RED's early and forced drops; the buffer can still drop them",
            )?,
            code_drops: p.flag(
                "code_drops",
                d.code_drops,
                "drop with the probability the code stands for (code x max_p / (2^m - 2), 1 for the top code) instead of RED's continuous p_b (Hua spec §1.2.2's switch; needs code_bits)",
            )?,
            min_waiting_to_drop: p.integer(
                "min_waiting_to_drop",
                d.min_waiting_to_drop as u64,
                0,
                1 << 20,
                "no RED drop, early or forced, while fewer packets than this wait (the arrival counts as below min_th); ns-2's red.cc: 2 (qlen > 1)",
            )? as u32,
        })
        .and_then(|c| {
            if c.code_drops && c.code_bits == 0 {
                Err(p.error("code_drops", "expected code_bits > 0 (the code whose probability it drops with)"))
            } else {
                Ok(c)
            }
        })
    }

    fn build(cfg: &RedConfig, port: &PortSetup) -> Self {
        Red::new(port.buffer, port.count_in_service, port.bandwidth_bps, *cfg, port.rng("red"))
    }
}

impl QueueDiscipline for Red {
    fn counters(&self, out: &mut dyn FnMut(&'static str, u64)) {
        let st = self.stats();
        out("red_early_drops", st.early_drops);
        out("red_forced_drops", st.forced_drops);
        out("red_overflow_drops", st.overflow_drops);
    }
    fn marks(&self) -> u64 {
        self.stats.marked
    }
    fn state(&self) -> Option<(&'static str, f64)> {
        Some((if self.cfg.queue_in_bytes { "avg_queue_bytes" } else { "avg_queue" }, self.curve.avg))
    }

    #[inline]
    fn enqueue(&mut self, pkt: PacketId, arena: &mut PacketArena, now: SimTime, tx: InService) -> Verdict {
        let q = if self.cfg.queue_in_bytes { self.inner.len_bytes() as f64 } else { self.inner.len_packets() as f64 };
        let idle_for = self.line.idle_for(now, tx.bytes.is_none());
        self.curve.update_average(q, idle_for);
        let pb = if self.cfg.code_drops { self.code_probability() } else { self.base_probability() };
        let mut mark = false;
        if self.curve.avg < self.curve.min_th || self.inner.len_packets() < self.cfg.min_waiting_to_drop {
            self.curve.count = 0;
        } else if self.cfg.exempt_probes && arena.get(pkt).has(flags::PROBE) {
            // Spared RED's own drops (p_b >= 1 only from min_th on): no draw, count unchanged.
        } else if pb >= 1.0 {
            self.curve.count = 0;
            self.stats.forced_drops += 1;
            return Verdict::Dropped(pkt);
        } else if self.rng.uniform_open0() <= self.curve.corrected(pb) {
            self.curve.count = 0;
            let is_data = arena.get(pkt).kind == PacketKind::Data;
            if self.cfg.mark && is_data && self.curve.avg < self.curve.max_th {
                mark = true;
            } else {
                self.stats.early_drops += 1;
                return Verdict::Dropped(pkt);
            }
        } else {
            self.curve.count += 1;
        }
        let verdict = self.inner.enqueue(pkt, arena, now, tx);
        if self.cfg.code_bits > 0 && verdict == Verdict::Accepted && arena.get(pkt).has(flags::PROBE) {
            let r = self.code();
            let p = arena.get_mut(pkt);
            p.code = p.code.max(r);
        }
        match verdict {
            Verdict::Accepted if mark => {
                arena.get_mut(pkt).flags |= flags::CE;
                self.stats.marked += 1;
            }
            Verdict::Accepted => {}
            Verdict::Dropped(_) => {
                self.curve.count = 0;
                self.stats.overflow_drops += 1;
            }
        }
        verdict
    }

    #[inline]
    fn dequeue(&mut self, arena: &mut PacketArena, now: SimTime) -> Option<PacketId> {
        let p = self.inner.dequeue(arena, now)?;
        self.line.sent(now, arena.get(p).size);
        Some(p)
    }

    /// A control packet took the line: the line is not idle while it is sent.
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
    use crate::net::packet::{Packet, EMPTY};
    use crate::sim::PS_PER_SEC;

    /// 8 Mb/s: a 500-byte typical packet takes 500 us.
    const BW: u64 = 8_000_000;
    /// The line is busy with a 1000-byte packet.
    const BUSY: InService = InService { bytes: Some(1000) };

    fn red(cfg: RedConfig) -> Red {
        Red::new(BufferLimit::Unlimited, false, BW, cfg, Rng::stream(7, "port/sw->b/red"))
    }

    fn pkt(a: &mut PacketArena, size: u32, kind: PacketKind) -> PacketId {
        a.alloc(Packet { size, kind, ..EMPTY })
    }

    /// Put `n` packets of `size` bytes in the queue without RED looking at them.
    fn fill(q: &mut Red, a: &mut PacketArena, n: u32, size: u32) {
        for _ in 0..n {
            let p = pkt(a, size, PacketKind::Data);
            assert_eq!(q.inner.enqueue(p, a, 0, BUSY), Verdict::Accepted);
        }
    }

    /// `arrivals` packets arrive, one at a time, at a busy line whose queue is held where it
    /// is (an accepted arrival is followed by one departure). Returns, per arrival, whether
    /// it was dropped, and whether it was marked.
    fn held(q: &mut Red, a: &mut PacketArena, arrivals: usize, size: u32, kind: PacketKind) -> Vec<(bool, bool)> {
        let mut out = Vec::with_capacity(arrivals);
        for _ in 0..arrivals {
            let p = pkt(a, size, kind);
            match q.enqueue(p, a, 0, BUSY) {
                Verdict::Accepted => {
                    let marked = a.get(p).has(flags::CE);
                    let d = q.dequeue(a, 0).expect("queued");
                    a.free(d);
                    out.push((false, marked));
                }
                Verdict::Dropped(d) => {
                    assert_eq!(d, p, "RED drops the arriving packet");
                    a.free(d);
                    out.push((true, false));
                }
            }
        }
        out
    }

    /// Lengths of the gaps between successive events (a gap of n: the n-th arrival after an
    /// event was the next event).
    fn gaps(events: &[bool]) -> Vec<usize> {
        let at: Vec<usize> = events.iter().enumerate().filter(|e| *e.1).map(|e| e.0).collect();
        at.windows(2).map(|w| w[1] - w[0]).collect()
    }

    fn mean(v: &[usize]) -> f64 {
        v.iter().sum::<usize>() as f64 / v.len() as f64
    }

    #[test]
    fn min_waiting_to_drop_spares_a_short_queue_as_ns2() {
        // The average is past max_th (every arrival a forced drop), but only one packet waits:
        // FJ93 drops, ns-2 (qlen > 1) does not until a second packet waits.
        for (min_waiting, spared) in [(0, false), (2, true)] {
            let mut a = PacketArena::new();
            let mut q = red(RedConfig { min_waiting_to_drop: min_waiting, ..RedConfig::default() });
            fill(&mut q, &mut a, 1, 1000);
            q.curve.avg = 20.0;
            assert_eq!(held(&mut q, &mut a, 1, 1000, PacketKind::Data), [(!spared, false)], "min {min_waiting}");
            fill(&mut q, &mut a, 1, 1000);
            q.curve.avg = 20.0;
            assert_eq!(held(&mut q, &mut a, 1, 1000, PacketKind::Data), [(true, false)], "two wait: dropped");
        }
    }

    #[test]
    fn code_drops_use_the_probability_the_code_stands_for() {
        // m = 2: codes 0, 1, 2 are 0, max_p/2, max_p; 3 is probability 1 (prose scale).
        let mut q = red(RedConfig { code_bits: 2, code_drops: true, ..RedConfig::default() });
        for (avg, p) in [(4.0, 0.0), (7.0, 0.0), (10.0, 0.05), (14.9, 0.05), (15.0, 0.1), (15.1, 1.0)] {
            q.curve.avg = avg;
            assert!((q.code_probability() - p).abs() < 1e-12, "avg {avg}: {} (want {p})", q.code_probability());
        }
        // Drops follow it: a queue held at 7 (code 0, where p_b is 0.02) drops nothing; without
        // code_drops one arrival in 25.5 (gaps uniform on 1..50, the count correction).
        for (code_drops, expected) in [(true, 0.0), (false, 1.0 / 25.5)] {
            let mut a = PacketArena::new();
            let mut q = red(RedConfig { code_bits: 2, code_drops, ..RedConfig::default() });
            fill(&mut q, &mut a, 7, 1000);
            q.curve.avg = 7.0;
            let n = 20_000;
            let drops = held(&mut q, &mut a, n, 1000, PacketKind::Data).iter().filter(|d| d.0).count();
            assert!((drops as f64 / n as f64 - expected).abs() < 0.004, "code_drops {code_drops}: {drops} of {n}");
        }
    }

    #[test]
    fn midway_between_the_thresholds_p_b_is_half_max_p() {
        let mut q = red(RedConfig::default());
        for (avg, pb) in [(0.0, 0.0), (4.99, 0.0), (5.0, 0.0), (10.0, 0.05), (12.5, 0.075), (14.999, 0.0999), (15.0, 1.0), (40.0, 1.0)] {
            q.curve.avg = avg;
            assert!((q.base_probability() - pb).abs() < 1e-3, "avg {avg}: p_b {} (want {pb})", q.base_probability());
        }
        q.curve.avg = 10.0;
        assert_eq!(q.base_probability(), 0.05);
    }

    #[test]
    fn gaps_between_drops_at_a_fixed_average_are_uniform_on_1_to_1_over_p_b() {
        // The queue held at 10 keeps the average at 10 (it starts there): p_b = 0.05.
        let mut a = PacketArena::new();
        let mut q = red(RedConfig::default());
        fill(&mut q, &mut a, 10, 1000);
        q.curve.avg = 10.0;
        let drops: Vec<bool> = held(&mut q, &mut a, 400_000, 1000, PacketKind::Data).iter().map(|d| d.0).collect();
        assert!((q.average() - 10.0).abs() < 1e-9);
        let g = gaps(&drops);
        assert!(g.len() > 30_000, "{} drops", g.len());
        assert_eq!(*g.iter().min().unwrap(), 1);
        assert_eq!(*g.iter().max().unwrap(), 20, "the count correction drops the 20th arrival for sure");
        // Uniform on 1..20: mean 10.5, standard error 5.77 / sqrt(38000) = 0.03. Geometric
        // gaps (no correction) would have mean 20 and a long tail; Fig 2's off-by-one, 10.
        let m = mean(&g);
        assert!((m - 10.5).abs() < 0.12, "mean gap {m}");
        for n in 1..=20 {
            let share = g.iter().filter(|&&x| x == n).count() as f64 / g.len() as f64;
            assert!((share - 0.05).abs() < 0.006, "gap {n}: share {share}");
        }
        assert_eq!(q.stats().early_drops, drops.iter().filter(|&&d| d).count() as u64);
        assert_eq!((q.stats().forced_drops, q.stats().overflow_drops, q.marks()), (0, 0, 0));
    }

    #[test]
    fn wait_spaces_drops_between_1_over_p_b_and_2_over_p_b() {
        let mut a = PacketArena::new();
        let mut q = red(RedConfig { wait: true, ..RedConfig::default() });
        fill(&mut q, &mut a, 10, 1000);
        q.curve.avg = 10.0;
        let drops: Vec<bool> = held(&mut q, &mut a, 400_000, 1000, PacketKind::Data).iter().map(|d| d.0).collect();
        let g = gaps(&drops);
        assert_eq!((*g.iter().min().unwrap(), *g.iter().max().unwrap()), (21, 40));
        assert!((mean(&g) - 30.5).abs() < 0.2, "mean gap {}", mean(&g));
    }

    #[test]
    fn the_average_takes_about_1_over_w_q_arrivals_to_reach_63_percent_of_a_step() {
        // Thresholds far above: nothing is dropped while the average climbs towards 100.
        let mut a = PacketArena::new();
        let mut q = red(RedConfig { min_th: 1000.0, max_th: 2000.0, ..RedConfig::default() });
        fill(&mut q, &mut a, 100, 1000);
        let mut reached = None;
        for n in 1..=3000 {
            held(&mut q, &mut a, 1, 1000, PacketKind::Data);
            let exact = 100.0 * (1.0 - 0.998f64.powi(n));
            assert!((q.average() - exact).abs() < 1e-9, "after {n}: {} vs {exact}", q.average());
            if reached.is_none() && q.average() >= 63.2 {
                reached = Some(n);
            }
        }
        assert_eq!(reached, Some(500), "1 - 1/e of the step after 1/w_q = 500 arrivals");
        assert!(q.average() > 99.7);
    }

    #[test]
    fn an_idle_line_decays_the_average_by_its_idle_time_in_typical_packets() {
        let mut a = PacketArena::new();
        let mut q = red(RedConfig { min_th: 1000.0, max_th: 2000.0, ..RedConfig::default() });
        fill(&mut q, &mut a, 50, 1000);
        held(&mut q, &mut a, 2000, 1000, PacketKind::Data);
        let before = q.average();
        assert!(before > 40.0);
        // The line sends everything; the last packet (1000 B at 8 Mb/s: 1 ms) leaves at t0 + 1 ms.
        let t0 = PS_PER_SEC;
        while let Some(p) = q.dequeue(&mut a, t0) {
            a.free(p);
        }
        let idle_from = t0 + PS_PER_SEC / 1000;
        // An arrival while the last packet is still on the line: an ordinary step with q = 0.
        let p = pkt(&mut a, 1000, PacketKind::Data);
        assert_eq!(q.enqueue(p, &mut a, idle_from - 1, BUSY), Verdict::Accepted);
        assert!((q.average() - before * 0.998).abs() < 1e-9);
        let before = q.average();
        assert_eq!(q.dequeue(&mut a, idle_from), Some(p));
        // Idle for 500 typical packets (500 B = 500 us each) after that packet's 1 ms.
        let idle_from = idle_from + PS_PER_SEC / 1000;
        let p = pkt(&mut a, 1000, PacketKind::Data);
        assert_eq!(q.enqueue(p, &mut a, idle_from + 500 * PS_PER_SEC / 2000, InService::default()), Verdict::Accepted);
        let want = before * 0.998f64.powi(500);
        assert!((q.average() - want).abs() < 1e-9 * before, "{} vs {want}", q.average());
        assert!((q.average() / before - (-1.0f64).exp()).abs() < 0.002);
        // Half a typical packet of idleness: (1 - w_q)^0.5.
        assert_eq!(q.dequeue(&mut a, idle_from + 500 * PS_PER_SEC / 2000), Some(p));
        let before = q.average();
        let next = idle_from + 500 * PS_PER_SEC / 2000 + PS_PER_SEC / 1000 + PS_PER_SEC / 4000;
        let p = pkt(&mut a, 1000, PacketKind::Data);
        q.enqueue(p, &mut a, next, InService::default());
        assert!((q.average() - before * 0.998f64.sqrt()).abs() < 1e-12);
    }

    #[test]
    fn above_max_th_every_arrival_is_dropped_unless_gentle() {
        let run = |cfg: RedConfig, level: u32| {
            let mut a = PacketArena::new();
            let mut q = red(cfg);
            fill(&mut q, &mut a, level, 1000);
            q.curve.avg = level as f64;
            let r = held(&mut q, &mut a, 20_000, 1000, PacketKind::Data);
            (r.iter().filter(|d| d.0).count() as f64 / r.len() as f64, q.stats())
        };
        let gentle = RedConfig { gentle: true, ..RedConfig::default() };
        // avg 20 = 4/3 max_th: plain RED drops everything.
        let (share, stats) = run(RedConfig::default(), 20);
        assert_eq!(share, 1.0);
        assert_eq!(stats.forced_drops, 20_000);
        // Gentle: p_b = 0.1 + 0.9 x 5/15 = 0.4; count-corrected gaps uniform on 1..2.5, so a
        // drop every 1.5 to 1.75 arrivals.
        let (share, stats) = run(gentle, 20);
        assert!((0.55..0.7).contains(&share), "gentle at 4/3 max_th drops {share}");
        assert_eq!(stats.forced_drops, 0);
        // From 2 max_th gentle drops everything too.
        assert_eq!(run(gentle, 30).0, 1.0);
        // Below max_th gentle is plain RED.
        let (share, _) = run(gentle, 10);
        assert!((share - 1.0 / 10.5).abs() < 0.01, "{share}");
    }

    #[test]
    fn ecn_marks_data_instead_of_dropping_below_max_th() {
        let mark = RedConfig { mark: true, ..RedConfig::default() };
        let mut a = PacketArena::new();
        let mut q = red(mark);
        fill(&mut q, &mut a, 10, 1000);
        q.curve.avg = 10.0;
        let r = held(&mut q, &mut a, 100_000, 1000, PacketKind::Data);
        assert!(r.iter().all(|d| !d.0), "no drops between the thresholds");
        let marked: Vec<bool> = r.iter().map(|d| d.1).collect();
        let g = gaps(&marked);
        assert!((mean(&g) - 10.5).abs() < 0.25 && *g.iter().max().unwrap() <= 20, "marks are spaced as drops would be");
        assert_eq!(q.marks(), marked.iter().filter(|&&m| m).count() as u64);
        assert_eq!(q.stats().early_drops, 0);
        // ACKs are not ECN-capable: where a data packet would be marked, an ACK is dropped.
        let acks = held(&mut q, &mut a, 10_000, 40, PacketKind::Ack);
        assert!(acks.iter().all(|d| !d.1));
        assert!(acks.iter().filter(|d| d.0).count() > 700);
        // At or above max_th RED drops, marking or not.
        let mut q = red(mark);
        fill(&mut q, &mut a, 16, 1000);
        q.curve.avg = 16.0;
        let r = held(&mut q, &mut a, 1000, 1000, PacketKind::Data);
        assert!(r.iter().all(|d| d.0 && !d.1));
        // Gentle too: the region above max_th drops.
        let mut q = red(RedConfig { gentle: true, ..mark });
        fill(&mut q, &mut a, 20, 1000);
        q.curve.avg = 20.0;
        let r = held(&mut q, &mut a, 1000, 1000, PacketKind::Data);
        assert!(r.iter().any(|d| d.0) && r.iter().all(|d| !d.1));
    }

    #[test]
    fn byte_mode_averages_bytes_against_thresholds_of_typical_packets() {
        // Thresholds 5 and 15 packets of 500 B: 2500 and 7500 bytes.
        let bytes = RedConfig { queue_in_bytes: true, ..RedConfig::default() };
        let mut a = PacketArena::new();
        let mut q = red(bytes);
        // Ten 500-byte packets: 5000 bytes, midway.
        fill(&mut q, &mut a, 10, 500);
        q.curve.avg = 5000.0;
        assert_eq!(q.base_probability(), 0.05);
        let r = held(&mut q, &mut a, 100_000, 500, PacketKind::Data);
        assert!((q.average() - 5000.0).abs() < 1e-6);
        let g = gaps(&r.iter().map(|d| d.0).collect::<Vec<_>>());
        assert!((mean(&g) - 10.5).abs() < 0.25 && *g.iter().max().unwrap() <= 20);
        // Ten 1000-byte packets are 10000 bytes, above max_th: every arrival dropped; in
        // packets the same queue is midway.
        let mut q = red(bytes);
        fill(&mut q, &mut a, 10, 1000);
        held(&mut q, &mut a, 5000, 1000, PacketKind::Data);
        assert!(q.average() > 7500.0);
        assert!(held(&mut q, &mut a, 100, 1000, PacketKind::Data).iter().all(|d| d.0));
        let mut q = red(RedConfig::default());
        fill(&mut q, &mut a, 10, 1000);
        held(&mut q, &mut a, 5000, 1000, PacketKind::Data);
        assert!((q.average() - 10.0).abs() < 1e-3 && q.base_probability() < 0.051);
    }

    #[test]
    fn the_physical_buffer_still_drops_at_the_tail() {
        let mut a = PacketArena::new();
        for (limit, cis) in [(BufferLimit::Packets(4), true), (BufferLimit::Packets(4), false), (BufferLimit::Bytes(2500), false)] {
            let mut q = Red::new(limit, cis, BW, RedConfig::default(), Rng::from_seed(1));
            let mut verdicts = Vec::new();
            for _ in 0..10 {
                let p = pkt(&mut a, 1000, PacketKind::Data);
                verdicts.push(q.enqueue(p, &mut a, 0, BUSY));
            }
            let accepted = verdicts.iter().filter(|v| **v == Verdict::Accepted).count();
            let want = match limit {
                BufferLimit::Packets(n) => n as usize - cis as usize,
                _ => 2,
            };
            assert_eq!(accepted, want, "{limit:?}");
            assert!(q.average() < 5.0, "the average is still far below min_th");
            assert_eq!(q.stats(), RedStats { overflow_drops: 10 - want as u64, ..RedStats::default() });
        }
    }

    #[test]
    fn modified_red_stamps_probes_with_the_larger_code_and_leaves_the_rest_alone() {
        let coded = RedConfig { code_bits: 8, ..RedConfig::default() };
        let mut a = PacketArena::new();
        let mut q = red(coded);
        fill(&mut q, &mut a, 10, 1000);
        // The average is set midway (10) and held by the ten packets waiting: code 127.
        q.curve.avg = 10.0;
        let arrive = |q: &mut Red, a: &mut PacketArena, flags: u8, code: u8| {
            let p = a.alloc(Packet { size: 1000, kind: PacketKind::Data, flags, code, ..EMPTY });
            (q.enqueue(p, a, 0, BUSY), a.get(p).code)
        };
        assert_eq!(q.code(), 127);
        // A probe that arrives with less leaves with 127; with more, with its own.
        assert_eq!(arrive(&mut q, &mut a, flags::PROBE, 3), (Verdict::Accepted, 127));
        assert_eq!(arrive(&mut q, &mut a, flags::PROBE | flags::RETX, 200), (Verdict::Accepted, 200));
        // Other packets keep their codes (pair marks, say).
        let mut other = Vec::new();
        for _ in 0..50 {
            let (v, code) = arrive(&mut q, &mut a, 0, 2);
            if v == Verdict::Accepted {
                other.push(code);
            }
        }
        assert!(!other.is_empty() && other.iter().all(|&c| c == 2), "{other:?}");
        // Without code_bits, probes are not stamped.
        let mut plain = red(RedConfig::default());
        fill(&mut plain, &mut a, 10, 1000);
        plain.curve.avg = 10.0;
        assert_eq!(arrive(&mut plain, &mut a, flags::PROBE, 3), (Verdict::Accepted, 3));
        assert_eq!(plain.code(), 0);
    }

    #[test]
    fn probes_are_spared_red_drops_but_not_the_buffers() {
        let mut a = PacketArena::new();
        let run = |cfg: RedConfig, a: &mut PacketArena, avg: f64, flags: u8, n: usize| {
            let mut q = red(cfg);
            fill(&mut q, a, 16, 1000);
            q.curve.avg = avg;
            let mut dropped = 0;
            for _ in 0..n {
                let p = a.alloc(Packet { size: 1000, kind: PacketKind::Data, flags, ..EMPTY });
                match q.enqueue(p, a, 0, BUSY) {
                    Verdict::Accepted => {
                        let d = q.dequeue(a, 0).unwrap();
                        a.free(d);
                    }
                    Verdict::Dropped(d) => {
                        a.free(d);
                        dropped += 1;
                    }
                }
            }
            (dropped, q)
        };
        let coded = RedConfig { code_bits: 8, ..RedConfig::default() };
        // Above max_th every ordinary arrival is dropped; no probe is, and each is coded 255.
        assert_eq!(run(coded, &mut a, 16.0, 0, 100).0, 100);
        let (dropped, q) = run(coded, &mut a, 16.0, flags::PROBE, 100);
        assert_eq!((dropped, q.stats()), (0, RedStats::default()));
        assert_eq!(q.code(), 255);
        // Between the thresholds: probes draw no random number and leave count alone.
        let (dropped, q) = run(coded, &mut a, 12.0, flags::PROBE, 1000);
        assert_eq!((dropped, q.curve.count), (0, 0));
        // Switched off, probes are ordinary packets.
        let (dropped, _) = run(RedConfig { exempt_probes: false, ..coded }, &mut a, 16.0, flags::PROBE, 100);
        assert_eq!(dropped, 100);
        // The buffer still refuses a probe that finds it full.
        let mut q = Red::new(BufferLimit::Packets(2), false, BW, coded, Rng::from_seed(1));
        let probes: Vec<Verdict> = (0..3)
            .map(|_| {
                let p = a.alloc(Packet { size: 1000, kind: PacketKind::Data, flags: flags::PROBE, ..EMPTY });
                q.enqueue(p, &mut a, 0, BUSY)
            })
            .collect();
        assert!(matches!(probes[..], [Verdict::Accepted, Verdict::Accepted, Verdict::Dropped(_)]), "{probes:?}");
        assert_eq!(q.stats().overflow_drops, 1);
    }

    #[test]
    fn decodes_its_defaults_and_rejects_inverted_thresholds() {
        use crate::scenario::decode::Obj;
        let cfg = Red::decode(&mut Params::new(Obj::empty("queue_params"))).unwrap();
        assert_eq!(cfg, RedConfig::default());
        let v: toml::Value = toml::from_str::<toml::Table>("min_th = 20").map(toml::Value::Table).unwrap();
        let e = Red::decode(&mut Params::new(Obj::new(&v, "queue_params").unwrap())).unwrap_err();
        assert_eq!(e.path, "queue_params.max_th");
        let v: toml::Value = toml::from_str::<toml::Table>("code_drops = true").map(toml::Value::Table).unwrap();
        let e = Red::decode(&mut Params::new(Obj::new(&v, "queue_params").unwrap())).unwrap_err();
        assert_eq!(e.path, "queue_params.code_drops");
        let names: Vec<&str> = Params::describe(Red::decode).iter().map(|d| d.name).collect();
        assert_eq!(
            names,
            ["min_th", "max_th", "max_p", "w_q", "gentle", "mark", "wait", "queue_in_bytes", "packet_size", "code_bits", "code_scale", "exempt_probes", "code_drops", "min_waiting_to_drop"]
        );
    }
}
