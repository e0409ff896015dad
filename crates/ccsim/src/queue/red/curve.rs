//! RED's curve: the average queue and the drop probability it gives, as Floyd and Jacobson 1993
//! define them (the rules and choices are in red.rs's header). RED runs one curve; RIO runs
//! one for in-profile packets and one for all (rio.rs).

use crate::sim::{time::tx_time, SimTime};

/// The line an averaging discipline follows itself (the port's transmitter signals no
/// completion when nothing waits): when it finishes what it sends, so an arrival to an empty
/// queue knows how long the line has been idle.
#[derive(Clone, Copy, Debug)]
pub struct LineClock {
    bandwidth_bps: u64,
    /// Picoseconds per byte when that is a whole number (as `Port` keeps it), else 0: then a
    /// transmission time is a multiply, not a division, at every departure.
    ps_per_byte: u64,
    busy_until: SimTime,
}

impl LineClock {
    pub fn new(bandwidth_bps: u64) -> Self {
        const BIT_PS: u64 = 8 * crate::sim::PS_PER_SEC;
        let exact = bandwidth_bps > 0 && BIT_PS.is_multiple_of(bandwidth_bps);
        LineClock { bandwidth_bps, ps_per_byte: if exact { BIT_PS / bandwidth_bps } else { 0 }, busy_until: 0 }
    }

    /// The line starts sending `bytes` at `now` (a packet the discipline handed it, or a
    /// control packet the port put first).
    #[inline]
    pub fn sent(&mut self, now: SimTime, bytes: u32) {
        let d = match (bytes as u64).checked_mul(self.ps_per_byte) {
            Some(t) if self.ps_per_byte != 0 => t,
            _ => tx_time(bytes, self.bandwidth_bps),
        };
        self.busy_until = now + d;
    }

    /// How long the line has been idle at `now`, when it is (`line_idle`): RedCurve's input.
    #[inline]
    pub fn idle_for(&self, now: SimTime, line_idle: bool) -> Option<SimTime> {
        if line_idle {
            Some(now.saturating_sub(self.busy_until))
        } else {
            None
        }
    }
}

#[derive(Clone, Copy, Debug)]
pub struct RedCurve {
    /// The thresholds in the average's unit (packets, or bytes).
    pub min_th: f64,
    pub max_th: f64,
    pub max_p: f64,
    pub w_q: f64,
    pub gentle: bool,
    /// ns-2's `wait_`.
    pub wait: bool,
    /// ln(1 - w_q), for the idle decay (1 - w_q)^m = exp(m ln(1 - w_q)).
    ln_keep: f64,
    /// Transmission time of a typical packet on the line, picoseconds.
    typical_tx: f64,
    /// The average queue.
    pub avg: f64,
    /// Arrivals since the last drop or mark (red.rs's header).
    pub count: u64,
}

impl RedCurve {
    pub fn new(min_th: f64, max_th: f64, max_p: f64, w_q: f64, gentle: bool, wait: bool, typical_tx: SimTime) -> Self {
        RedCurve {
            min_th,
            max_th,
            max_p,
            w_q,
            gentle,
            wait,
            ln_keep: (1.0 - w_q).ln(),
            typical_tx: typical_tx as f64,
            avg: 0.0,
            count: 0,
        }
    }

    /// p_b at the current average, before the count correction (0 below min_th, 1 where every
    /// arrival is dropped).
    pub fn base_probability(&self) -> f64 {
        let (avg, min, max, max_p) = (self.avg, self.min_th, self.max_th, self.max_p);
        if avg < min {
            0.0
        } else if avg < max {
            max_p * (avg - min) / (max - min)
        } else if self.gentle && avg < 2.0 * max {
            max_p + (1.0 - max_p) * (avg - max) / max
        } else {
            1.0
        }
    }

    /// The average's step for an arrival that finds `q` waiting; `idle_for`, the time the line
    /// has been idle, when nothing waits and the line is idle.
    #[inline]
    pub fn update_average(&mut self, q: f64, idle_for: Option<SimTime>) {
        match idle_for {
            // No idle time, no decay (and no 0 x ln(0) when w_q is 1).
            Some(0) if q == 0.0 => {}
            // An average already at 0 stays there: no exp() (an idle access port's every packet).
            Some(t) if q == 0.0 && self.avg != 0.0 => self.avg *= (t as f64 / self.typical_tx * self.ln_keep).exp(),
            Some(_) if q == 0.0 => {}
            _ => self.avg += self.w_q * (q - self.avg),
        }
    }

    /// p_a: the count-corrected probability for this arrival.
    #[inline]
    pub fn corrected(&self, pb: f64) -> f64 {
        let c = self.count as f64 * pb;
        if self.wait {
            if c < 1.0 {
                0.0
            } else if c < 2.0 {
                pb / (2.0 - c)
            } else {
                1.0
            }
        } else if c < 1.0 {
            pb / (1.0 - c)
        } else {
            1.0
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_weight_of_one_tracks_the_queue_and_idles_to_zero() {
        // w_q = 1: the average is the queue; an arrival just as the line frees (no idle
        // time) leaves it alone rather than making it 0 x ln(0) = NaN.
        let mut c = RedCurve::new(5.0, 15.0, 0.1, 1.0, false, false, 1000);
        c.update_average(8.0, None);
        assert_eq!(c.avg, 8.0);
        c.update_average(0.0, Some(0));
        assert_eq!(c.avg, 8.0);
        c.update_average(0.0, Some(5000));
        assert_eq!(c.avg, 0.0);
    }
}
