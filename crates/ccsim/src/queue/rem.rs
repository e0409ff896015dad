//! REM: Random Exponential Marking, with ADPM as its deterministic signal.
//!
//! Sources: Athuraliya, Li, Low and Yin 2001 ("REM: Active Queue Management", IEEE Network
//! 15(3)) as Cui's thesis gives it (§2.2.5, eqs. 2.5-2.8; spec cui-buffers-fast-adpm.md §2.7),
//! and Cui's Adaptive Deterministic Packet Marking (ch. 5 §5.2-5.3; spec §2.11).
//! - The link's price, every `interval`: p <- max(p + gamma (alpha (b - b*) + x - c), 0) (2.5),
//!   b the packets waiting, b* `target`, x the traffic the queue took in during the interval
//!   (what REM itself dropped is not input to the link) and c what the line can send in it,
//!   both in packets of `packet_size` bytes.
//! - The signal (`signal`), from the marking probability m = 1 - phi^-p (2.6), so that a path
//!   of REM links marks with 1 - phi^-(sum of prices) (2.7):
//!   - "drop": drop the arrival with probability m (REM for sources without ECN);
//!   - "mark": set `flags::CE` on a data packet with probability m (ECN); an ACK, not ECN-capable
//!     (RFC 3168 §6.1.4), is dropped instead, as in [`super::red`];
//!   - "adpm": Cui's ADPM. A data packet of probe type i is price-marked (`flags::PRICE`, the
//!     ECN codepoint 10 of §5.3.1) when m > i; a mark is never cleared, so a packet arrives
//!     marked iff the largest m on its path exceeds i, and the sink decodes that maximum
//!     ([`adpm_decode`]). No early drops;
//!   - "none": the price only.
//!
//! Defaults: gamma 0.001, phi 1.001, b* 20 packets, an update every 2 ms (ns-2's Queue/REM, spec
//! §2.7 [X]); alpha 0.1 (REM's own simulations; neither Cui nor the spec gives it);
//! `packet_size` 1000 bytes; signal "drop".
//!
//! Choices where the sources are silent:
//! - the price is brought up to date at every arrival and departure; intervals with no event
//!   at all (an idle line, nothing waiting, nothing arriving) each take
//!   p <- max(p - gamma (alpha b* + c), 0), applied together;
//! - b counts the packets waiting at the update, the one on the line excluded (RED's q);
//! - ADPM's probe type comes from the sequence number, as a stack's IPid counter would give it:
//!   i = bitreverse16(seq mod 2^16) / 2^16 (bit-reversed counting, §5.2.2); a retransmission
//!   repeats its original's probe. ACKs are not marked;
//! - c is the port's line rate; on a trunk of several channels (`channels`) it counts one
//!   channel, so REM there under-counts its capacity (the disciplines see one line rate);
//! - `initial_price` starts the price elsewhere than 0 (with gamma 0 it stays there: a fixed
//!   price, as chapter 5's analysis assumes).
//!
//! The random numbers ("drop", "mark") come from the port's own stream
//! (`PortSetup::rng("rem")`), one draw per arrival while m > 0.

use super::{BufferLimit, Discipline, DropTail, InService, PortSetup, QueueDiscipline, Verdict};
use crate::net::packet::flags;
use crate::net::{PacketArena, PacketId, PacketKind};
use crate::scenario::decode::Result;
use crate::scenario::params::Params;
use crate::sim::{time::PS_PER_SEC, Rng, SimTime};

/// What the price does to packets (see the header).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RemSignal {
    Drop,
    Mark,
    Adpm,
    None,
}

/// REM's parameters; `Default` gives the header's values.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RemConfig {
    pub gamma: f64,
    pub alpha: f64,
    pub phi: f64,
    /// b*, packets.
    pub target: f64,
    /// Time between price updates.
    pub interval: SimTime,
    /// The packet the rates are counted in, bytes.
    pub packet_size: u32,
    pub initial_price: f64,
    pub signal: RemSignal,
}

impl Default for RemConfig {
    fn default() -> Self {
        RemConfig {
            gamma: 0.001,
            alpha: 0.1,
            phi: 1.001,
            target: 20.0,
            interval: 2 * PS_PER_SEC / 1000,
            packet_size: 1000,
            initial_price: 0.0,
            signal: RemSignal::Drop,
        }
    }
}

/// ADPM's probe type of the data packet `seq` (bit-reversed counting on 16 bits).
#[inline]
pub fn adpm_probe(seq: u64) -> f64 {
    (seq as u16).reverse_bits() as f64 / 65536.0
}

/// The ADPM receiver's rule (§5.2.1): a marked packet of probe type i above the estimate, or an
/// unmarked one below it, sets the estimate to i.
#[inline]
pub fn adpm_decode(estimate: f64, seq: u64, marked: bool) -> f64 {
    let i = adpm_probe(seq);
    if (marked && i > estimate) || (!marked && i < estimate) {
        i
    } else {
        estimate
    }
}

pub struct Rem {
    inner: DropTail,
    cfg: RemConfig,
    price: f64,
    /// ln(phi): m = 1 - exp(-p ln phi).
    ln_phi: f64,
    /// c, packets of `packet_size` an interval.
    capacity: f64,
    /// Bytes arrived since the last update.
    arrived_bytes: u64,
    next_update: SimTime,
    rng: Rng,
    marks: u64,
}

impl Rem {
    pub fn new(limit: BufferLimit, count_in_service: bool, bandwidth_bps: u64, cfg: RemConfig, rng: Rng) -> Self {
        let secs = cfg.interval as f64 / PS_PER_SEC as f64;
        Rem {
            inner: DropTail::new(limit, count_in_service),
            cfg,
            price: cfg.initial_price,
            ln_phi: cfg.phi.ln(),
            capacity: bandwidth_bps as f64 * secs / (8.0 * cfg.packet_size as f64),
            arrived_bytes: 0,
            next_update: cfg.interval,
            rng,
            marks: 0,
        }
    }

    /// The link's price p.
    pub fn price(&self) -> f64 {
        self.price
    }

    /// The marking probability m = 1 - phi^-p.
    pub fn probability(&self) -> f64 {
        -(-self.price * self.ln_phi).exp_m1()
    }

    /// Bring the price up to `now`: one step for the interval the last event fell in, then the
    /// empty intervals together.
    #[inline]
    fn update(&mut self, now: SimTime) {
        if now < self.next_update {
            return;
        }
        self.step(now);
    }

    #[inline(never)]
    fn step(&mut self, now: SimTime) {
        let c = &self.cfg;
        let x = self.arrived_bytes as f64 / c.packet_size as f64;
        let b = self.inner.len_packets() as f64;
        self.price = (self.price + c.gamma * (c.alpha * (b - c.target) + x - self.capacity)).max(0.0);
        self.arrived_bytes = 0;
        let idle = (now - self.next_update) / c.interval;
        if idle > 0 {
            // Nothing arrived in them, and what waits now waited then (an event would have
            // come with any departure): each takes alpha (b - b*) - c.
            let per = c.gamma * (c.alpha * (b - c.target) - self.capacity);
            self.price = (self.price + idle as f64 * per).max(0.0);
        }
        self.next_update += (idle + 1) * c.interval;
    }
}

impl Discipline for Rem {
    const NAME: &'static str = "rem";
    const SUMMARY: &'static str = "REM (Athuraliya et al. 2001; Cui §2.2.5): a price from backlog and rate mismatch, signalled by drops, ECN marks or ADPM's deterministic marks (Cui ch. 5)";
    type Config = RemConfig;

    fn decode(p: &mut Params) -> Result<RemConfig> {
        let d = RemConfig::default();
        Ok(RemConfig {
            gamma: p.number("gamma", d.gamma, 0.0, 1e6, "step size gamma of the price update (2.5); 0 freezes the price")?,
            alpha: p.number("alpha", d.alpha, 0.0, 1e6, "weight alpha of the backlog mismatch b - b* in the price update")?,
            phi: p.number_above("phi", d.phi, 1.0, 1e6, "base phi of the marking probability 1 - phi^-p (2.6)")?,
            target: p.number("target", d.target, 0.0, 1e9, "target backlog b*, packets")?,
            interval: {
                let t = p.duration("interval", d.interval, "time between price updates")?;
                if t == 0 {
                    return Err(p.error("interval", "expected a duration above 0"));
                }
                t
            },
            packet_size: p.integer("packet_size", d.packet_size as u64, 1, 1 << 30, "the packet arrivals and the line's capacity are counted in, bytes")?
                as u32,
            initial_price: p.number("initial_price", d.initial_price, 0.0, 1e12, "the price at the start")?,
            signal: p.choice(
                "signal",
                d.signal,
                &[("drop", RemSignal::Drop), ("mark", RemSignal::Mark), ("adpm", RemSignal::Adpm), ("none", RemSignal::None)],
                "drop arrivals with probability 1 - phi^-p, mark data packets CE with it (ECN), price-mark data packets of probe type below it (ADPM, Cui ch. 5), or nothing",
            )?,
        })
    }

    fn build(cfg: &RemConfig, port: &PortSetup) -> Self {
        Rem::new(port.buffer, port.count_in_service, port.bandwidth_bps, *cfg, port.rng("rem"))
    }
}

impl QueueDiscipline for Rem {
    fn marks(&self) -> u64 {
        self.marks
    }
    /// The price as of the last update (arrivals and the update interval move it).
    fn state(&self) -> Option<(&'static str, f64)> {
        Some(("price", self.price))
    }

    #[inline]
    fn enqueue(&mut self, pkt: PacketId, arena: &mut PacketArena, now: SimTime, tx: InService) -> Verdict {
        self.update(now);
        let is_data = arena.get(pkt).kind == PacketKind::Data;
        let mut mark = 0;
        match self.cfg.signal {
            RemSignal::None => {}
            RemSignal::Adpm => {
                if is_data && self.probability() > adpm_probe(arena.get(pkt).seq) {
                    mark = flags::PRICE;
                }
            }
            RemSignal::Drop | RemSignal::Mark => {
                let m = self.probability();
                if m > 0.0 && self.rng.uniform_open0() <= m {
                    if self.cfg.signal == RemSignal::Mark && is_data {
                        mark = flags::CE;
                    } else {
                        return Verdict::Dropped(pkt);
                    }
                }
            }
        }
        let verdict = self.inner.enqueue(pkt, arena, now, tx);
        if verdict == Verdict::Accepted {
            self.arrived_bytes += arena.get(pkt).size as u64;
        }
        if mark != 0 && verdict == Verdict::Accepted {
            let p = arena.get_mut(pkt);
            if p.flags & mark == 0 {
                self.marks += 1;
            }
            p.flags |= mark;
        }
        verdict
    }

    #[inline]
    fn dequeue(&mut self, arena: &mut PacketArena, now: SimTime) -> Option<PacketId> {
        self.update(now);
        self.inner.dequeue(arena, now)
    }

    buffered_in!(inner);

    fn memory_bytes(&self) -> usize {
        self.inner.memory_bytes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::packet::EMPTY;

    const MS: SimTime = PS_PER_SEC / 1000;
    const IDLE: InService = InService { bytes: None };

    fn rem(cfg: RemConfig) -> Rem {
        // 8 Mb/s: 1000 packets of 1000 B a second, 2 an interval of 2 ms.
        Rem::new(BufferLimit::Packets(1000), true, 8_000_000, cfg, Rng::from_seed(7))
    }

    fn data(a: &mut PacketArena, seq: u64) -> PacketId {
        a.alloc(crate::net::packet::Packet { seq, size: 1000, kind: PacketKind::Data, ..EMPTY })
    }

    #[test]
    fn the_price_integrates_backlog_and_rate_mismatch() {
        let cfg = RemConfig { signal: RemSignal::None, ..RemConfig::default() };
        let mut q = rem(cfg);
        let mut a = PacketArena::new();
        // Ten arrivals in the first interval, none leaving: at 2 ms, b = 10, x = 10, c = 2:
        // p = 0.001 (0.1 (10 - 20) + 10 - 2) = 0.007.
        for s in 0..10 {
            q.enqueue(data(&mut a, s), &mut a, MS, IDLE);
        }
        q.enqueue(data(&mut a, 10), &mut a, 2 * MS, IDLE);
        assert!((q.price() - 0.007).abs() < 1e-12, "{}", q.price());
        // At 8 ms (11 waiting): the interval that ended at 4 ms took 0.001 (0.1 (11 - 20) + 1 - 2)
        // = -0.0019, the two empty ones after it 0.001 (0.1 (11 - 20) - 2) = -0.0029 each: the
        // floor, 0.
        q.enqueue(data(&mut a, 11), &mut a, 8 * MS, IDLE);
        assert_eq!(q.price(), 0.0);
        assert!((q.probability() - 0.0).abs() < 1e-15);
    }

    #[test]
    fn a_fixed_price_marks_adpm_probes_below_its_probability_and_never_clears_a_mark() {
        let p0 = 2f64.ln() / 1.001f64.ln(); // 1 - 1.001^-p0 = 0.5
        let cfg = RemConfig { gamma: 0.0, initial_price: p0, signal: RemSignal::Adpm, ..RemConfig::default() };
        let mut q = rem(cfg);
        assert!((q.probability() - 0.5).abs() < 1e-12);
        let mut a = PacketArena::new();
        // seq 2 -> probe 1/4 (marked), seq 3 -> 3/4 (not), seq 4 -> 1/8 (marked).
        for (seq, want) in [(2u64, true), (3, false), (4, true)] {
            let p = data(&mut a, seq);
            q.enqueue(p, &mut a, MS, IDLE);
            assert_eq!(a.get(p).has(flags::PRICE), want, "seq {seq}");
        }
        // A mark set upstream stays.
        let p = data(&mut a, 3);
        a.get_mut(p).flags |= flags::PRICE;
        q.enqueue(p, &mut a, MS, IDLE);
        assert!(a.get(p).has(flags::PRICE));
        assert_eq!(q.marks(), 2);
    }

    #[test]
    fn the_decoder_converges_on_the_price_from_below() {
        // §5.2.2: with bit-reversed counting the error after k = 2^j - 1 packets is below 2^-j.
        let m = 0.3141;
        let mut est = 0.0;
        for seq in 1..=1023u64 {
            est = adpm_decode(est, seq, m > adpm_probe(seq));
        }
        assert!(est <= m && m - est < 1.0 / 1024.0, "{est}");
        assert_eq!(adpm_probe(1), 0.5);
        assert_eq!(adpm_probe(2), 0.25);
        assert_eq!(adpm_probe(65_536 + 3), 0.75);
    }

    #[test]
    fn drop_and_mark_signal_with_probability_one_minus_phi_to_the_minus_p() {
        let p0 = (4.0f64 / 3.0).ln() / 1.001f64.ln(); // 1 - 1.001^-p0 = 0.25
        for signal in [RemSignal::Drop, RemSignal::Mark] {
            let cfg = RemConfig { gamma: 0.0, initial_price: p0, signal, ..RemConfig::default() };
            let mut q = Rem::new(BufferLimit::Unlimited, true, 8_000_000, cfg, Rng::from_seed(3));
            let mut a = PacketArena::new();
            let (mut dropped, mut marked) = (0, 0);
            for s in 0..20_000 {
                let p = data(&mut a, s);
                match q.enqueue(p, &mut a, MS, IDLE) {
                    Verdict::Dropped(_) => dropped += 1,
                    Verdict::Accepted => marked += a.get(p).has(flags::CE) as u32,
                }
            }
            let (got, other) = if signal == RemSignal::Drop { (dropped, marked) } else { (marked, dropped) };
            assert!((got as f64 / 20_000.0 - 0.25).abs() < 0.01, "{signal:?}: {got}");
            assert_eq!(other, 0);
        }
    }

    #[test]
    fn decodes_its_defaults_and_refuses_a_zero_interval() {
        use crate::scenario::decode::Obj;
        let cfg = Rem::decode(&mut Params::new(Obj::empty("queue_params"))).unwrap();
        assert_eq!(cfg, RemConfig::default());
        let v: toml::Value = toml::from_str::<toml::Table>("interval = \"0s\"").map(toml::Value::Table).unwrap();
        let e = Rem::decode(&mut Params::new(Obj::new(&v, "queue_params").unwrap())).unwrap_err();
        assert_eq!(e.path, "queue_params.interval");
        let names: Vec<&str> = Params::describe(Rem::decode).iter().map(|d| d.name).collect();
        assert_eq!(names, ["gamma", "alpha", "phi", "target", "interval", "packet_size", "initial_price", "signal"]);
    }
}
