//! Liang 1991 §6.1's first remedy for duplicate feedback on a path of several bottlenecks:
//! "equip the sources with the capability of reacting only to the feedback messages from the
//! router that sent the most feedback messages in a certain period of time". The thesis
//! proposes it as future work and never ran it. Used by the SEIF source (`follow_router`).
//!
//! Choices where the text is silent: time is cut into periods of `period` from the first
//! feedback; the router followed during a period is the one that sent the most messages in the
//! period before (ties: the one heard from first in it); with no such period (the first, or
//! after a period without feedback) every router is followed. A message from a router not
//! followed is ignored whole, including one naming a dropped packet, whose loss is then left
//! to the source's implicit signals.

use crate::sim::SimTime;

#[derive(Clone, Debug)]
pub struct BusiestRouter {
    period: SimTime,
    /// Start of the current period (None: no feedback yet).
    start: Option<SimTime>,
    /// Messages per router in the current period, in the order first heard.
    counts: Vec<(u32, u32)>,
    /// The router followed in the current period (None: all).
    leader: Option<u32>,
}

impl BusiestRouter {
    pub fn new(period: SimTime) -> Self {
        assert!(period > 0);
        BusiestRouter { period, start: None, counts: Vec::new(), leader: None }
    }

    /// Count a message from `router` at `now`; whether the source should react to it.
    pub fn follows(&mut self, router: u32, now: SimTime) -> bool {
        let start = *self.start.get_or_insert(now);
        if now >= start.saturating_add(self.period) {
            let periods = (now - start) / self.period;
            self.leader = if periods == 1 { self.busiest() } else { None };
            self.counts.clear();
            self.start = Some(start + periods * self.period);
        }
        match self.counts.iter_mut().find(|c| c.0 == router) {
            Some(c) => c.1 += 1,
            None => self.counts.push((router, 1)),
        }
        self.leader.is_none_or(|l| l == router)
    }

    fn busiest(&self) -> Option<u32> {
        let mut best: Option<(u32, u32)> = None;
        for &(r, n) in &self.counts {
            if best.is_none_or(|b| n > b.1) {
                best = Some((r, n));
            }
        }
        best.map(|b| b.0)
    }

    /// The router followed now (None: every router).
    pub fn leader(&self) -> Option<u32> {
        self.leader
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::PS_PER_SEC;

    #[test]
    fn the_busiest_router_of_the_last_period_is_followed() {
        let s = PS_PER_SEC;
        let mut b = BusiestRouter::new(10 * s);
        // Period [0, 10 s): routers 7 (twice) and 9 (three times): everything followed.
        assert!(b.follows(7, 0) && b.follows(9, s) && b.follows(9, 2 * s) && b.follows(7, 3 * s) && b.follows(9, 4 * s));
        // [10, 20): only 9, the busiest of the last period.
        assert!(!b.follows(7, 11 * s));
        assert!(b.follows(9, 12 * s));
        assert!(!b.follows(7, 13 * s) && !b.follows(7, 14 * s));
        // [20, 30): 7 sent more in [10, 20) (three against one).
        assert_eq!((b.follows(9, 21 * s), b.leader()), (false, Some(7)));
        // A silent period in between: no leader, all followed.
        assert!(b.follows(9, 45 * s) && b.follows(7, 46 * s));
        assert_eq!(b.leader(), None);
    }
}
