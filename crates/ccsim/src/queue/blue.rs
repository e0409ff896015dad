//! BLUE: an AQM driven by packet loss and link idle events, not by the queue's length.
//!
//! Source: Hua 2002 §4.1 names it ("manages congestion from packet-loss and link-idle
//! events", spec hua02-vegas-jcc-swtp.md §1.2.4) and uses it in no experiment; the rule is Feng,
//! Kandlur, Saha and Shin's (IEEE/ACM ToN 10(4), 2002), as the spec restates it:
//! - every arrival is dropped (or, with `mark`, a data packet marked CE) with probability p_m;
//! - a buffer overflow raises p_m by `d1` (at most 1), the link going idle lowers it by `d2`
//!   (at least 0); neither moves it within `freeze_time` of its last update (an update that
//!   the bound at 0 or 1 leaves where it was counts, as in ns-3's BLUE).
//!
//! Choices where the source is silent, each a parameter or stated here:
//! - `d1` 0.02, `d2` 0.002 (the spec's example, d1 >> d2), `freeze_time` 100 ms (the upper end
//!   of the spec's 10-100 ms; ns-3's default too).
//! - The idle event is seen at the first arrival to an empty queue whose line is idle (the
//!   transmitter does not ask an empty queue for work): one decrement however long the idle.
//! - A packet marked and then refused by the full buffer is an overflow (p_m rises), not a mark.
//! - `mark` (ECN) is off: the early action is a drop, as RED's default. ACKs and control
//!   packets are dropped where a data packet would be marked (RFC 3168 §6.1.4).
//! - The draw comes from the port's own stream (`port/NAME/blue`); p_m starts at 0.

use super::{Discipline, DropTail, InService, PortSetup, QueueDiscipline, Verdict};
use crate::net::packet::{flags, PacketKind};
use crate::net::{PacketArena, PacketId};
use crate::scenario::decode::Result;
use crate::scenario::params::Params;
use crate::sim::{Rng, SimTime, PS_PER_SEC};

/// BLUE's parameters; `Default` gives the values above.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BlueConfig {
    /// Step up of p_m on a buffer overflow. 0.02.
    pub d1: f64,
    /// Step down of p_m when the link goes idle. 0.002.
    pub d2: f64,
    /// Least time between two changes of p_m. 100 ms.
    pub freeze_time: SimTime,
    /// Mark data packets (ECN) instead of dropping them. false.
    pub mark: bool,
}

impl Default for BlueConfig {
    fn default() -> Self {
        BlueConfig { d1: 0.02, d2: 0.002, freeze_time: PS_PER_SEC / 10, mark: false }
    }
}

pub struct Blue {
    inner: DropTail,
    cfg: BlueConfig,
    /// The marking (or dropping) probability.
    p_m: f64,
    /// When p_m last changed (None: never).
    last_change: Option<SimTime>,
    rng: Rng,
    marked: u64,
}

impl Discipline for Blue {
    const NAME: &'static str = "blue";
    const SUMMARY: &'static str = "BLUE (Feng et al. 2002; named in Hua 2002 §4.1): drop or mark with a probability that loss raises and an idle link lowers";
    type Config = BlueConfig;

    fn decode(p: &mut Params) -> Result<BlueConfig> {
        let d = BlueConfig::default();
        Ok(BlueConfig {
            d1: p.number_above("d1", d.d1, 0.0, 1.0, "rise of the drop probability on a buffer overflow")?,
            d2: p.number_above("d2", d.d2, 0.0, 1.0, "fall of the drop probability when the link goes idle")?,
            freeze_time: p.duration("freeze_time", d.freeze_time, "least time between two changes of the probability")?,
            mark: p.flag("mark", d.mark, "ECN: mark data packets (CE) instead of dropping them")?,
        })
    }

    fn build(cfg: &BlueConfig, port: &PortSetup) -> Self {
        Blue::new(DropTail::new(port.buffer, port.count_in_service), *cfg, port.rng("blue"))
    }
}

impl Blue {
    pub fn new(inner: DropTail, cfg: BlueConfig, rng: Rng) -> Self {
        Blue { inner, cfg, p_m: 0.0, last_change: None, rng, marked: 0 }
    }

    /// The probability now.
    pub fn probability(&self) -> f64 {
        self.p_m
    }

    /// Move p_m by `step` unless it moved within freeze_time.
    fn nudge(&mut self, step: f64, now: SimTime) {
        if self.last_change.is_some_and(|t| now.saturating_sub(t) < self.cfg.freeze_time) {
            return;
        }
        self.p_m = (self.p_m + step).clamp(0.0, 1.0);
        self.last_change = Some(now);
    }
}

impl QueueDiscipline for Blue {
    fn state(&self) -> Option<(&'static str, f64)> {
        Some(("mark_prob", self.p_m))
    }
    fn enqueue(&mut self, pkt: PacketId, arena: &mut PacketArena, now: SimTime, tx: InService) -> Verdict {
        if tx.bytes.is_none() && self.inner.len_packets() == 0 {
            self.nudge(-self.cfg.d2, now);
        }
        let mut mark = false;
        if self.p_m > 0.0 && self.rng.uniform_open0() <= self.p_m {
            if self.cfg.mark && arena.get(pkt).kind == PacketKind::Data {
                mark = true;
            } else {
                return Verdict::Dropped(pkt);
            }
        }
        let verdict = self.inner.enqueue(pkt, arena, now, tx);
        match verdict {
            Verdict::Accepted if mark => {
                arena.get_mut(pkt).flags |= flags::CE;
                self.marked += 1;
            }
            Verdict::Accepted => {}
            Verdict::Dropped(_) => self.nudge(self.cfg.d1, now),
        }
        verdict
    }

    fn dequeue(&mut self, arena: &mut PacketArena, now: SimTime) -> Option<PacketId> {
        self.inner.dequeue(arena, now)
    }

    buffered_in!(inner);

    fn memory_bytes(&self) -> usize {
        self.inner.memory_bytes()
    }

    fn marks(&self) -> u64 {
        self.marked
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::packet::{Packet, EMPTY};
    use crate::queue::BufferLimit;

    const BUSY: InService = InService { bytes: Some(1000) };
    const IDLE: InService = InService { bytes: None };
    const MS: SimTime = PS_PER_SEC / 1000;

    fn blue(buffer: u32, cfg: BlueConfig) -> Blue {
        Blue::new(DropTail::new(BufferLimit::Packets(buffer), false), cfg, Rng::stream(3, "port/a->b/blue"))
    }

    fn data(a: &mut PacketArena) -> PacketId {
        a.alloc(Packet { size: 1000, kind: PacketKind::Data, ..EMPTY })
    }

    #[test]
    fn overflow_raises_the_probability_once_per_freeze_time() {
        let mut a = PacketArena::new();
        let mut q = blue(2, BlueConfig::default());
        for _ in 0..2 {
            let p = data(&mut a);
            assert_eq!(q.enqueue(p, &mut a, 0, BUSY), Verdict::Accepted);
        }
        // Three overflows inside 100 ms: one step.
        for t in [0, 10, 99] {
            let p = data(&mut a);
            assert!(matches!(q.enqueue(p, &mut a, t * MS, BUSY), Verdict::Dropped(_)));
        }
        assert_eq!(q.probability(), 0.02);
        // After the freeze, an overflow steps again (or the draw drops first: either way the
        // arrival is lost, and only an overflow moves p_m).
        let mut t = 100 * MS;
        while q.probability() == 0.02 {
            let p = data(&mut a);
            assert!(matches!(q.enqueue(p, &mut a, t, BUSY), Verdict::Dropped(_)));
            t += MS;
        }
        assert!((q.probability() - 0.04).abs() < 1e-12);
    }

    #[test]
    fn an_idle_link_lowers_it_and_the_draw_drops_at_that_rate() {
        let mut a = PacketArena::new();
        let cfg = BlueConfig { d1: 0.5, freeze_time: 0, ..BlueConfig::default() };
        let mut q = blue(1, cfg);
        let p = data(&mut a);
        assert_eq!(q.enqueue(p, &mut a, 0, BUSY), Verdict::Accepted);
        let p = data(&mut a);
        assert!(matches!(q.enqueue(p, &mut a, MS, BUSY), Verdict::Dropped(_)));
        assert_eq!(q.probability(), 0.5);
        let d = q.dequeue(&mut a, 2 * MS).unwrap();
        a.free(d);
        // Arrivals to an idle, empty link: each lowers p_m by d2 before its draw.
        let (mut dropped, n) = (0, 2000);
        for k in 0..n {
            let p = data(&mut a);
            match q.enqueue(p, &mut a, (3 + k) * MS, IDLE) {
                Verdict::Accepted => {
                    let d = q.dequeue(&mut a, (3 + k) * MS).unwrap();
                    a.free(d);
                }
                Verdict::Dropped(d) => {
                    a.free(d);
                    dropped += 1;
                }
            }
        }
        assert_eq!(q.probability(), 0.0);
        // p_m fell 0.498, 0.496, ... to 0 over the first 250 arrivals: about 62 drops expected.
        assert!((40..=85).contains(&dropped), "{dropped}");
    }

    #[test]
    fn with_mark_data_is_marked_and_acks_are_dropped() {
        let mut a = PacketArena::new();
        let mut q = blue(100, BlueConfig { mark: true, ..BlueConfig::default() });
        q.p_m = 1.0;
        let p = data(&mut a);
        assert_eq!(q.enqueue(p, &mut a, 0, BUSY), Verdict::Accepted);
        assert!(a.get(p).has(flags::CE));
        let ack = a.alloc(Packet { size: 40, kind: PacketKind::Ack, ..EMPTY });
        assert_eq!(q.enqueue(ack, &mut a, 0, BUSY), Verdict::Dropped(ack));
        assert_eq!(q.marks(), 1);
    }
}
