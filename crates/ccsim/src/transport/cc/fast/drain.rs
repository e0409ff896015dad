//! FAST's queue-draining ("four-phase") algorithm (Cui ch. 4 §4.4.2; spec §2.13): once, after
//! its window has settled, a flow cuts its rate by a factor r so that the bottleneck queue
//! empties and every flow on the link measures the true propagation delay; then it refills to
//! the window its own measurements ask for. It needs no router support.
//!
//! 1. Reduction, one RTT: cwnd ← cwnd − (1 − 1/r) per ACK (one new packet per r ACKs), floor 1.
//! 2. Depletion: hold cwnd until baseRTT has not changed for an RTT, at most two RTTs.
//! 3. Refilling: cwnd += r − 1 per ACK up to w = α d̂ / (D − d̂), D the average RTT before the
//!    reduction and d̂ the baseRTT after the depletion.
//! 4. Stabilisation, one RTT: hold cwnd; the RTT average restarts from the next sample, so the
//!    low RTTs of the drained queue do not blow up the next update.
//!
//! Choices where §4.4.2 is silent, each a parameter of `fast`: the start ("once the window size
//! has stabilised"): the first update that moves the window by less than `drain_stable`
//! packets (1); r (`drain_r`): α, as §4.4.2 recommends; a loss during the phases ends them.
//! The RTT that times the phases is the average at the phase's start.

use crate::sim::SimTime;

/// Where a flow is in the algorithm.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum Drain {
    /// Waiting for the window to settle.
    Waiting,
    Reduction { until: SimTime },
    Depletion { since: SimTime, last_change: SimTime, base: SimTime, rtt: SimTime },
    Refilling { target: f64 },
    Stabilisation { until: SimTime },
    /// Done (or never asked for): FAST as usual.
    Off,
}

/// What the flow knows at an ACK while draining.
pub(super) struct DrainInput {
    pub now: SimTime,
    pub base_rtt: SimTime,
    pub avg_rtt: f64,
    pub alpha: f64,
    pub r: f64,
    /// The average RTT recorded when the reduction began (D of step 3).
    pub rtt_before: f64,
}

impl Drain {
    /// True while a phase overrides FAST's law.
    pub(super) fn active(&self) -> bool {
        !matches!(self, Drain::Waiting | Drain::Off)
    }

    /// One ACK of an active phase: the new window, and the phase that follows. `restart_avg`
    /// is set when the stabilisation begins (the RTT average restarts).
    pub(super) fn step(self, cwnd: f64, x: &DrainInput, restart_avg: &mut bool) -> (f64, Drain) {
        let rtt = x.avg_rtt as SimTime;
        match self {
            Drain::Reduction { until } => {
                let w = (cwnd - (1.0 - 1.0 / x.r)).max(1.0);
                if x.now >= until {
                    (w, Drain::Depletion { since: x.now, last_change: x.now, base: x.base_rtt, rtt })
                } else {
                    (w, self)
                }
            }
            Drain::Depletion { since, mut last_change, base, rtt } => {
                if x.base_rtt != base {
                    last_change = x.now;
                }
                let settled = x.now >= last_change.saturating_add(rtt) || x.now >= since.saturating_add(2 * rtt);
                if !settled {
                    return (cwnd, Drain::Depletion { since, last_change, base: x.base_rtt, rtt });
                }
                let queueing = x.rtt_before - x.base_rtt as f64;
                if queueing <= 0.0 {
                    return (cwnd, Drain::Off);
                }
                (cwnd, Drain::Refilling { target: x.alpha * x.base_rtt as f64 / queueing })
            }
            Drain::Refilling { target } => {
                let w = (cwnd + (x.r - 1.0)).min(target.max(cwnd));
                if w >= target {
                    *restart_avg = true;
                    (w, Drain::Stabilisation { until: x.now.saturating_add(rtt) })
                } else {
                    (w, self)
                }
            }
            Drain::Stabilisation { until } => (cwnd, if x.now >= until { Drain::Off } else { self }),
            Drain::Waiting | Drain::Off => (cwnd, self),
        }
    }
}
