//! Traffic sources: when a flow's application has data to send.
//!
//! Source: Keshav 1991 §6.5 (keshav91-experiments.md §2.5):
//! - FTP: infinite (or, as an extension, a finite transfer of `packets`), limited only by
//!   flow control;
//! - Telnet: one small packet per keystroke, exponential gaps (mean 5 s in the thesis),
//!   flow-controlled; the first keystroke comes one exponential gap after the start ([REC]);
//! - Poisson: exponential gaps, normally without flow control (Scenarios 7-8);
//! - CBR: constant gaps (the ill-behaved source of Scenario 4);
//! - on/off: CBR during listed on-periods (Scenario 3's background source).
//!
//! and, in a file of its own, ns-2's Pareto on/off source (`pareto`, Hua 2002 ch. 5). A flow's
//! packet sizes (one, or a mix: `sizes`) are the flow's, not the source's.
//!
//! Whether a source is flow-controlled is the flow's transport (`cc = "none"` or not), not the
//! source's; Telnet and Poisson differ only in their defaults.

pub mod nagle;
pub mod pareto;
pub mod sizes;

use crate::sim::{Rng, SimTime};
use pareto::{BurstState, ParetoOnOff};

/// The application names scenarios use (`app = "..."`).
pub const APP_NAMES: &[&str] = &["ftp", "telnet", "poisson", "cbr", "onoff", "pareto"];

#[derive(Clone, Debug, PartialEq)]
pub enum AppKind {
    /// Always has data; `packets` = Some(n) makes it a finite transfer of n packets.
    Ftp {
        packets: Option<u64>,
    },
    Telnet {
        mean_gap: SimTime,
    },
    Poisson {
        mean_gap: SimTime,
    },
    Cbr {
        gap: SimTime,
    },
    OnOff {
        gap: SimTime,
        on: Vec<(SimTime, SimTime)>,
    },
    Pareto(ParetoOnOff),
}

impl AppKind {
    pub fn name(&self) -> &'static str {
        match self {
            AppKind::Ftp { .. } => "ftp",
            AppKind::Telnet { .. } => "telnet",
            AppKind::Poisson { .. } => "poisson",
            AppKind::Cbr { .. } => "cbr",
            AppKind::OnOff { .. } => "onoff",
            AppKind::Pareto(_) => "pareto",
        }
    }
}

#[derive(Clone, Debug)]
pub struct App {
    pub kind: AppKind,
    pub start: SimTime,
    pub stop: SimTime,
    /// The state of the sources with random gaps (Telnet, Poisson, Pareto), boxed: the other
    /// sources, FTPs above all, never draw, and a large run has one per flow.
    random: Option<Box<RandomState>>,
    /// A window-controlled CBR source whose sender has data waiting: it stops ticking (an
    /// event per offered packet that could not be sent would be waste) and its packets are
    /// counted when the sender next runs out ([`App::count_offers`]); this is the time of the
    /// first packet not yet counted. `SimTime::MAX` while it ticks.
    pub paused_at: SimTime,
}

/// A random source's stream, and where a Pareto source is in its cycle.
#[derive(Clone, Debug)]
struct RandomState {
    rng: Rng,
    burst: BurstState,
    /// Packets that may wait at a window-controlled source for its window (`source_buffer`);
    /// u64::MAX: no limit. Packets made beyond it are discarded and counted in `discarded`.
    buffer: u64,
    discarded: u64,
}

impl App {
    pub fn new(kind: AppKind, start: SimTime, stop: SimTime, rng: Rng) -> Self {
        let random = matches!(kind, AppKind::Telnet { .. } | AppKind::Poisson { .. } | AppKind::Pareto(_))
            .then(|| Box::new(RandomState { rng, burst: BurstState::default(), buffer: u64::MAX, discarded: 0 }));
        App { kind, start, stop, random, paused_at: SimTime::MAX }
    }

    /// Limit what waits at the source for the window to `packets` (the scenario's
    /// `source_buffer`, decoded only for sources with random gaps).
    pub fn set_source_buffer(&mut self, packets: u64) {
        self.random().buffer = packets;
    }

    /// Called after a new packet was made and offered to the sender, with the packets now
    /// waiting for the window (made, not yet sent): true if this one does not fit the
    /// source's buffer and is to be discarded (then counted).
    #[inline]
    pub fn over_source_buffer(&mut self, waiting: u64) -> bool {
        match self.random.as_mut() {
            Some(r) if waiting > r.buffer => {
                r.discarded += 1;
                true
            }
            _ => false,
        }
    }

    /// Packets the source made but discarded because its buffer was full.
    pub fn discarded(&self) -> u64 {
        self.random.as_ref().map_or(0, |r| r.discarded)
    }

    pub fn memory_bytes(&self) -> usize {
        let random = self.random.as_ref().map_or(0, |_| std::mem::size_of::<RandomState>());
        random
            + match &self.kind {
                AppKind::OnOff { on, .. } => on.capacity() * 16,
                _ => 0,
            }
    }

    fn random(&mut self) -> &mut RandomState {
        self.random.as_mut().expect("sources with random gaps have a stream")
    }

    /// An exponential gap of mean `mean_gap` from the source's stream.
    fn exponential_gap(&mut self, mean_gap: SimTime) -> SimTime {
        self.random().rng.exponential(mean_gap as f64).round() as SimTime
    }

    /// The wait of a Pareto source from its last packet (or its start) to its next one.
    fn pareto_gap(&mut self) -> SimTime {
        let AppKind::Pareto(source) = &self.kind else { unreachable!("only Pareto sources have bursts") };
        let state = self.random.as_mut().expect("sources with random gaps have a stream");
        source.next_gap(&mut state.burst, &mut state.rng)
    }

    /// True for sources that produce packets one at a time (all but FTP).
    pub fn is_ticking(&self) -> bool {
        !matches!(self.kind, AppKind::Ftp { .. })
    }

    /// Time of the first packet of a ticking source, if before `stop`.
    pub fn first_tick(&mut self) -> Option<SimTime> {
        let t = match self.kind {
            AppKind::Ftp { .. } => return None,
            AppKind::Telnet { mean_gap } | AppKind::Poisson { mean_gap } => self.start.saturating_add(self.exponential_gap(mean_gap)),
            AppKind::Cbr { .. } => self.start,
            AppKind::OnOff { .. } => self.start,
            // ns-2: the first packet after a gap and a full OFF period.
            AppKind::Pareto(_) => self.start.saturating_add(self.pareto_gap()),
        };
        self.fit(t)
    }

    /// Time of the packet after one emitted at `now`, if before `stop`.
    pub fn next_tick(&mut self, now: SimTime) -> Option<SimTime> {
        let t = match self.kind {
            AppKind::Ftp { .. } => return None,
            AppKind::Telnet { mean_gap } | AppKind::Poisson { mean_gap } => now.saturating_add(self.exponential_gap(mean_gap).max(1)),
            AppKind::Cbr { gap } | AppKind::OnOff { gap, .. } => now.saturating_add(gap),
            AppKind::Pareto(_) => now.saturating_add(self.pareto_gap()),
        };
        self.fit(t)
    }

    /// A source whose packets can be counted without an event each: the ones with constant
    /// gaps (CBR, on/off).
    pub fn is_countable(&self) -> bool {
        matches!(self.kind, AppKind::Cbr { .. } | AppKind::OnOff { .. })
    }

    /// The packets a countable source offers from `from` (one of its packet times) up to
    /// `until` (inclusive) and before `stop`, and the time of the next one (None past
    /// `stop`): the same instants its ticks would have had. A step per on-period, not per
    /// packet.
    pub fn count_offers(&self, from: SimTime, until: SimTime) -> (u64, Option<SimTime>) {
        let (AppKind::Cbr { gap } | AppKind::OnOff { gap, .. }) = self.kind else { unreachable!("only constant-gap sources are counted") };
        let mut n = 0;
        let mut t = from;
        loop {
            if t > until {
                return (n, Some(t));
            }
            // The end of the on-period `t` is in (the stop, for CBR).
            let end = match &self.kind {
                AppKind::OnOff { on, .. } => on.iter().find(|&&(a, b)| a <= t && t < b).map_or(t + 1, |&(_, b)| b),
                _ => SimTime::MAX,
            }
            .min(self.stop);
            let k = (end - t).div_ceil(gap).min((until - t) / gap + 1).max(1);
            n += k;
            match self.fit(t.saturating_add(k.saturating_mul(gap))) {
                Some(next) => t = next,
                None => return (n, None),
            }
        }
    }

    /// Move `t` into an on-period (on/off sources) and drop it if past `stop`.
    fn fit(&self, t: SimTime) -> Option<SimTime> {
        let t = match &self.kind {
            AppKind::OnOff { on, .. } => {
                let mut found = None;
                for &(a, b) in on {
                    if t < b {
                        found = Some(t.max(a));
                        break;
                    }
                }
                found?
            }
            _ => t,
        };
        (t < self.stop && t != SimTime::MAX).then_some(t)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn onoff_skips_off_periods() {
        let kind = AppKind::OnOff { gap: 10, on: vec![(0, 25), (100, 125)] };
        let mut a = App::new(kind, 0, 1000, Rng::from_seed(1));
        let mut t = a.first_tick().unwrap();
        let mut ticks = vec![t];
        while let Some(n) = a.next_tick(t) {
            ticks.push(n);
            t = n;
        }
        assert_eq!(ticks, vec![0, 10, 20, 100, 110, 120]);
    }
    #[test]
    fn pareto_ticks_follow_its_cycle_from_the_flows_stream_until_stop() {
        let source = ParetoOnOff { gap: 10, shape: 1.9, burst: 4.0, mean_off: 1000, renewal: false };
        let mut a = App::new(AppKind::Pareto(source.clone()), 500, 200_000, Rng::from_seed(8));
        // The same draws, made directly from a copy of the stream.
        let (mut rng, mut state) = (Rng::from_seed(8), BurstState::default());
        let mut t = a.first_tick().unwrap();
        let mut expected = 500 + source.next_gap(&mut state, &mut rng);
        assert!(t >= 500 + 10 + 474, "first packet after a gap and an OFF period (of scale 473.7)");
        let mut n = 1;
        loop {
            assert_eq!(t, expected);
            expected += source.next_gap(&mut state, &mut rng);
            match a.next_tick(t) {
                Some(next) => t = next,
                None => break,
            }
            n += 1;
        }
        assert!(expected >= 200_000 && t < 200_000, "ticks run until the stop time");
        assert!(n > 100, "{n} packets");
    }
    #[test]
    fn stop_time_ends_a_source() {
        let mut a = App::new(AppKind::Cbr { gap: 10 }, 5, 30, Rng::from_seed(1));
        assert_eq!(a.first_tick(), Some(5));
        assert_eq!(a.next_tick(25), None);
    }

    #[test]
    fn counting_offers_gives_the_ticks_instants() {
        // CBR and on/off sources: count_offers over any window agrees with stepping next_tick.
        let sec = crate::sim::PS_PER_SEC;
        let mut r = Rng::from_seed(3);
        for case in 0..200 {
            let gap = 1 + r.next_u64() % (sec / 10);
            let kind = if case % 2 == 0 {
                AppKind::Cbr { gap }
            } else {
                let mut on = vec![];
                let mut t = r.next_u64() % sec;
                for _ in 0..1 + r.next_u64() % 4 {
                    let len = 1 + r.next_u64() % sec;
                    on.push((t, t + len));
                    t += len + r.next_u64() % sec;
                }
                AppKind::OnOff { gap, on }
            };
            let stop = if case % 3 == 0 { SimTime::MAX } else { r.next_u64() % (5 * sec) };
            let mut app = App::new(kind, 0, stop, Rng::from_seed(1));
            let mut ticks = vec![];
            let mut t = app.first_tick();
            while let Some(x) = t {
                if x > 6 * sec || ticks.len() > 100_000 {
                    break;
                }
                ticks.push(x);
                t = app.next_tick(x);
            }
            for _ in 0..20 {
                if ticks.is_empty() {
                    break;
                }
                let i = (r.next_u64() % ticks.len() as u64) as usize;
                // Within the stretch the list covers (and past the packet itself).
                let until = (ticks[i] + r.next_u64() % sec).min(6 * sec).max(ticks[i]);
                let (n, next) = app.count_offers(ticks[i], until);
                let expect = ticks[i..].iter().take_while(|&&x| x <= until).count() as u64;
                assert_eq!(n, expect, "case {case}");
                let after = ticks.get(i + expect as usize).copied();
                if after.is_some() || next.is_none_or(|x| x <= 6 * sec) {
                    assert_eq!(next, after, "case {case}: the next packet");
                }
            }
        }
    }
}
