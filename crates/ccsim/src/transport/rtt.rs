//! Round-trip-time estimation and the retransmission timeout.
//!
//! Two estimator families cover the source theses:
//! - `Beta(b)`: RTO = b x srtt with srtt an exponential average (gain 1/8) — the Generic
//!   protocol of Keshav 1991 §6.5 ("timeout periods are given by beta*rtt, beta ~ 2").
//! - `MeanDev(k)`: RTO = srtt + k x mean deviation (gains 1/8 and 1/4) — Jacobson 1988;
//!   k = 2 as Keshav ch. 4 describes 4.3BSD, k = 4 as RFC 6298.
//!
//! Which transmission a sample is measured from (first or most recent), Karn's rule, clamps,
//! the initial RTO and exponential back-off are per-algorithm defaults, each a parameter.

use crate::sim::SimTime;

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum RtoFormula {
    Beta(f64),
    MeanDev(f64),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SampleFrom {
    /// From the first transmission of the acknowledged sequence number (Keshav's Generic).
    First,
    /// From the transmission that the ACK answers (its copy's send time, echoed).
    Last,
    /// From the most recent transmission of the sequence number the ACK answers, as the
    /// sender recorded it: a source without echoed timestamps and without Karn's rule times
    /// an ACK of the original copy from the retransmission (the ambiguity Karn and Partridge
    /// removed). Keshav 1991's DEC source in Scenario 8 (spec G10).
    Latest,
}

/// Which packet an ACK's sample times.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SamplePacket {
    /// The data packet that caused the ACK (the sink echoes its sequence number).
    Echoed,
    /// The last in-order packet, the one the cumulative ACK number names: what a source sees
    /// when the ACK carries nothing else (REAL's sources keep a send time per window slot and
    /// look it up by the ACK number). After a loss, the duplicate ACKs time the packet before
    /// the hole, sent long before, so the samples grow with every packet held behind a hole.
    /// Nothing echoes which copy of that packet arrived, so "last" and "latest" both time its
    /// most recent transmission, and Karn's rule skips it if it was ever resent.
    Cumulative,
}

/// How many RTT samples an ACK gives the estimator.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RttSamples {
    /// One: the packet whose ACK it is, timed as `sample_from` says.
    OnePerAck,
    /// One for every packet the ACK newly acknowledges cumulatively, each from its own first
    /// transmission. After a hole is repaired, the packets the receiver held behind it count
    /// with their full wait (keshav91 finding S2-generic-rtt-samples). Needs `First`, no Karn.
    EveryAcked,
    /// Every packet once, from its first transmission, at the first ACK that shows it
    /// received: its own ACK (which the sender matches to it) or a cumulative ACK covering
    /// it, whichever comes first. Packets held behind a hole count with their own delay, not
    /// the hole's (measured, not adopted: keshav91 finding S5-jkg-fq-full-backoff). Needs `First`, no Karn.
    EachPacket,
    /// One packet timed at a time, as 4.3BSD's TCP does (`t_rtt`, `t_rtseq`): the first new
    /// packet sent while none is being timed starts the clock, the first ACK covering it
    /// gives the sample, and any retransmission cancels the timing (Karn's rule). About one
    /// sample per round trip. The delay metric still takes every ACK's own sample.
    OnePerRtt,
}

impl RttSamples {
    /// Samples taken per newly acknowledged packet rather than per ACK.
    #[inline]
    pub fn per_packet(self) -> bool {
        matches!(self, RttSamples::EveryAcked | RttSamples::EachPacket)
    }
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RtoConfig {
    pub formula: RtoFormula,
    pub sample_from: SampleFrom,
    /// Which packet an ACK's sample times (the per-ACK sample: the delay metric and, with
    /// `RttSamples::OnePerAck`, the estimator).
    pub sample_packet: SamplePacket,
    /// Skip samples from retransmitted packets (Karn and Partridge).
    pub karn: bool,
    /// Which packets an ACK samples; see [`RttSamples`].
    pub samples: RttSamples,
    /// Double the RTO on each expiry until a fresh sample arrives.
    pub backoff: bool,
    pub initial_rto: SimTime,
    pub min_rto: SimTime,
    pub max_rto: SimTime,
    /// Timer granularity G in RTO = srtt + max(G, k x rttvar) (RFC 6298 §2.3): the timeout
    /// stays at least G above the smoothed RTT even when the deviation decays to zero, so a
    /// constant RTT does not race its own timer. 0 = continuous timers.
    pub granularity: SimTime,
}

#[derive(Clone, Debug)]
pub struct RttEstimator {
    pub cfg: RtoConfig,
    /// Smoothed RTT and mean deviation, picoseconds (as f64 so small gains do not truncate).
    srtt: f64,
    rttvar: f64,
    has_sample: bool,
    backoff_shift: u32,
    /// A timer has expired and no new ACK has come since: with the single timer the next expiry
    /// is the same packet's again (RFC 5681 §3.1; kept here, in the estimator's padding, not
    /// the sender's).
    expired_unanswered: bool,
}

impl RttEstimator {
    pub fn new(cfg: RtoConfig) -> Self {
        RttEstimator { cfg, srtt: 0.0, rttvar: 0.0, has_sample: false, backoff_shift: 0, expired_unanswered: false }
    }

    pub fn sample(&mut self, rtt: SimTime) {
        let r = rtt as f64;
        if !self.has_sample {
            self.srtt = r;
            self.rttvar = r / 2.0;
            self.has_sample = true;
        } else {
            let err = r - self.srtt;
            self.srtt += err / 8.0;
            self.rttvar += (err.abs() - self.rttvar) / 4.0;
        }
        self.backoff_shift = 0;
    }

    pub fn on_expiry(&mut self) {
        if self.cfg.backoff && self.backoff_shift < 16 {
            self.backoff_shift += 1;
        }
        self.expired_unanswered = true;
    }

    /// A new ACK: the next expiry, if any, is a new packet's.
    #[inline]
    pub fn on_progress(&mut self) {
        self.expired_unanswered = false;
    }

    /// Whether a timer expired before and no new ACK has come since (with the single timer: an
    /// expiry now is the same packet timing out again).
    pub fn expired_unanswered(&self) -> bool {
        self.expired_unanswered
    }

    pub fn srtt(&self) -> Option<SimTime> {
        self.has_sample.then_some(self.srtt as SimTime)
    }

    pub fn rto(&self) -> SimTime {
        let base = if !self.has_sample {
            self.cfg.initial_rto as f64
        } else {
            match self.cfg.formula {
                RtoFormula::Beta(b) => b * self.srtt,
                RtoFormula::MeanDev(k) => self.srtt + (k * self.rttvar).max(self.cfg.granularity as f64),
            }
        };
        let clamped = base.max(self.cfg.min_rto as f64).min(self.cfg.max_rto as f64) as SimTime;
        clamped.saturating_mul(1u64 << self.backoff_shift).min(self.cfg.max_rto.max(clamped))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::PS_PER_SEC;
    fn cfg(formula: RtoFormula) -> RtoConfig {
        RtoConfig {
            formula,
            sample_from: SampleFrom::Last,
            sample_packet: SamplePacket::Echoed,
            karn: true,
            samples: RttSamples::OnePerAck,
            backoff: true,
            initial_rto: 2 * PS_PER_SEC,
            min_rto: 0,
            max_rto: 64 * PS_PER_SEC,
            granularity: 0,
        }
    }
    #[test]
    fn an_expiry_is_repeated_until_a_new_ack_and_a_sample_alone_does_not_clear_it() {
        let mut e = RttEstimator::new(cfg(RtoFormula::Beta(2.0)));
        assert!(!e.expired_unanswered());
        e.on_expiry();
        assert!(e.expired_unanswered());
        e.on_expiry();
        e.sample(PS_PER_SEC); // an RTT sample is not a new ACK
        assert!(e.expired_unanswered());
        e.on_progress();
        assert!(!e.expired_unanswered());
    }
    #[test]
    fn beta_rto_is_twice_the_average() {
        let mut e = RttEstimator::new(cfg(RtoFormula::Beta(2.0)));
        assert_eq!(e.rto(), 2 * PS_PER_SEC);
        e.sample(PS_PER_SEC);
        assert_eq!(e.rto(), 2 * PS_PER_SEC);
        e.sample(PS_PER_SEC);
        assert_eq!(e.rto(), 2 * PS_PER_SEC);
    }
    #[test]
    fn gains_are_one_eighth_and_one_quarter() {
        let mut e = RttEstimator::new(cfg(RtoFormula::MeanDev(4.0)));
        e.sample(PS_PER_SEC); // srtt 1, rttvar 0.5
        e.sample(2 * PS_PER_SEC); // srtt 1 + 1/8, rttvar 0.5 + (1 - 0.5)/4
        assert_eq!(e.srtt(), Some(1_125_000_000_000));
        assert_eq!(e.rto(), 3_625_000_000_000); // 1.125 + 4 x 0.625
    }
    #[test]
    fn jacobson_rto_and_backoff() {
        let mut e = RttEstimator::new(cfg(RtoFormula::MeanDev(4.0)));
        e.sample(PS_PER_SEC); // srtt 1, rttvar 0.5 -> 3 s
        assert_eq!(e.rto(), 3 * PS_PER_SEC);
        e.on_expiry();
        assert_eq!(e.rto(), 6 * PS_PER_SEC);
        e.sample(PS_PER_SEC); // a fresh sample clears the back-off
        assert!(e.rto() < 3 * PS_PER_SEC);
    }
    #[test]
    fn granularity_keeps_the_timeout_above_a_constant_rtt() {
        let mut c = cfg(RtoFormula::MeanDev(2.0));
        c.min_rto = 0;
        let mut e = RttEstimator::new(c);
        for _ in 0..200 {
            e.sample(2 * PS_PER_SEC);
        }
        assert!(e.rto() - 2 * PS_PER_SEC < PS_PER_SEC / 1000, "deviation decays: RTO -> RTT");
        c.granularity = PS_PER_SEC / 2;
        let mut g = RttEstimator::new(c);
        for _ in 0..200 {
            g.sample(2 * PS_PER_SEC);
        }
        assert_eq!(g.rto(), 2 * PS_PER_SEC + PS_PER_SEC / 2);
    }
}
