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
//! Whether a source is flow-controlled is the flow's transport (`cc = "none"` or not), not the
//! source's; Telnet and Poisson differ only in their defaults.

use crate::sim::{Rng, SimTime};

/// The application names scenarios use (`app = "..."`).
pub const APP_NAMES: &[&str] = &["ftp", "telnet", "poisson", "cbr", "onoff"];

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
}

impl AppKind {
    pub fn name(&self) -> &'static str {
        match self {
            AppKind::Ftp { .. } => "ftp",
            AppKind::Telnet { .. } => "telnet",
            AppKind::Poisson { .. } => "poisson",
            AppKind::Cbr { .. } => "cbr",
            AppKind::OnOff { .. } => "onoff",
        }
    }
}

#[derive(Clone, Debug)]
pub struct App {
    pub kind: AppKind,
    pub start: SimTime,
    pub stop: SimTime,
    /// The random stream of the sources with random gaps (Telnet, Poisson), boxed: the
    /// other sources, FTPs above all, never draw from it, and a large run has one per flow.
    rng: Option<Box<Rng>>,
}

impl App {
    pub fn new(kind: AppKind, start: SimTime, stop: SimTime, rng: Rng) -> Self {
        let rng = matches!(kind, AppKind::Telnet { .. } | AppKind::Poisson { .. }).then(|| Box::new(rng));
        App { kind, start, stop, rng }
    }

    pub fn memory_bytes(&self) -> usize {
        let rng = self.rng.as_ref().map_or(0, |_| std::mem::size_of::<Rng>());
        rng + match &self.kind {
            AppKind::OnOff { on, .. } => on.capacity() * 16,
            _ => 0,
        }
    }

    /// An exponential gap of mean `mean_gap` from the source's stream.
    fn exponential_gap(&mut self, mean_gap: SimTime) -> SimTime {
        let rng = self.rng.as_mut().expect("sources with random gaps have a stream");
        rng.exponential(mean_gap as f64).round() as SimTime
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
        };
        self.fit(t)
    }

    /// Time of the packet after one emitted at `now`, if before `stop`.
    pub fn next_tick(&mut self, now: SimTime) -> Option<SimTime> {
        let t = match self.kind {
            AppKind::Ftp { .. } => return None,
            AppKind::Telnet { mean_gap } | AppKind::Poisson { mean_gap } => now.saturating_add(self.exponential_gap(mean_gap).max(1)),
            AppKind::Cbr { gap } | AppKind::OnOff { gap, .. } => now.saturating_add(gap),
        };
        self.fit(t)
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
    fn stop_time_ends_a_source() {
        let mut a = App::new(AppKind::Cbr { gap: 10 }, 5, 30, Rng::from_seed(1));
        assert_eq!(a.first_tick(), Some(5));
        assert_eq!(a.next_tick(25), None);
    }
}
