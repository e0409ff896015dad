//! Pacing beside the window: the algorithm's burst rule (rate-based algorithms, packet-pair),
//! or the sender's `pacing` option, which spreads any window algorithm's window over the
//! smoothed RTT.
//!
//! Burst rule. When the algorithm returns a [`Pacing`] rule, new data leaves only in bursts of `burst`
//! packets, back to back, each burst starting no sooner than `interval` after the previous
//! burst started (the interval is read afresh at every decision, so a rate change applies at
//! once). The window stays a hard cap: a burst starts only when the window has room for all
//! of it (or for a full window, if that is smaller) unless the rule says `fill_window`, in
//! which case it is cut to the room there is; a burst that the window holds back goes out
//! when an ACK opens the window. The first two packets of a burst of two or more are marked
//! as a probe pair (`pair_code`). Retransmissions are not paced.
//! After each ACK the algorithm may adjust the schedule once ([`PaceAdjust`]): leave the next
//! `skip` burst slots empty (the next burst starts (1 + skip) intervals after the last), and
//! send `extra` packets at once, unpaired, ahead of the schedule, as the window allows; both
//! accumulate until used.
//!
//! Spreading (`pacing = true`; Cui 2007 §2.2.4, spec cui-buffers-fast-adpm.md §2.2 and §6
//! item 2): every transmission, new or retransmitted, leaves no sooner than rtt / W after the
//! previous one, W being the window the sender may use now (min(floor(cwnd), max_window)),
//! both read afresh at every decision; the window stays a hard cap and ACKs only open it.
//! The round trip is the smoothed RTT, or with `pacing_rtt = "ns2_wei"` the rule of David
//! Wei's ns-2 pacing patch (Caltech 2006, the pacing the FAST group's ns-2 runs used): its own
//! average of the RTT samples, each weighted 1/max(cwnd/3, 4), and while the flow recovers
//! from a loss (its ACKs not yet past the algorithm's `recover_point`) the least RTT seen.
//! ccsim keeps pacing the retransmissions under either rule (the patch let them go at once).
//! Before the first RTT sample there is no interval, and the window alone decides (one
//! packet with the usual initial window). Fast retransmissions, partial-ACK retransmissions
//! and a timeout's go-back-N all wait for their slot.
//!
//! The pacing state is boxed and exists only for flows that pace. The world arms one
//! `PaceTick` per flow for the next release, lazily like the timers: an event that fires
//! early re-arms, and when a higher rate moves the release earlier an earlier event is added
//! and the later one fires as a no-op.

use super::cc::{CongestionControl, PaceAdjust, Pacing};
use super::config::PacingRtt;
use super::sender::{Sender, NEVER, WAITS_FOR_WINDOW};
use crate::net::packet::pair_code;
use crate::sim::SimTime;

/// Pacing state of a paced flow (boxed; absent for window flows).
#[derive(Clone, Debug)]
pub(super) struct Pacer {
    /// Spreading the window over the smoothed RTT (the sender's `pacing` option) rather than
    /// the algorithm's burst rule.
    spread: bool,
    /// Start time of the last burst (spreading: time of the last transmission), if any.
    last_start: Option<SimTime>,
    /// Packets in the current burst, and how many of them have been sent.
    len: u32,
    sent: u32,
    /// Burst slots still to leave empty after the last burst start, and unpaired packets
    /// still to send outside the schedule (`PaceAdjust`).
    skip: u32,
    extra: u32,
    /// Time of the earliest pacing event armed in the world's queue (NEVER if none).
    armed_at: SimTime,
    /// Spreading: the round trip it spreads over, and for `Ns2Wei` its average (ps; NaN
    /// before the first sample) and least RTT sample.
    rtt_rule: PacingRtt,
    wei_avg: f64,
    wei_min: SimTime,
}

impl Pacer {
    /// Pacing by the algorithm's burst rule.
    pub(super) fn new() -> Self {
        Pacer {
            spread: false,
            last_start: None,
            len: 0,
            sent: 0,
            skip: 0,
            extra: 0,
            armed_at: NEVER,
            rtt_rule: PacingRtt::Srtt,
            wei_avg: f64::NAN,
            wei_min: NEVER,
        }
    }

    /// Spreading the window over the round trip `rtt_rule` names.
    pub(super) fn spread(rtt_rule: PacingRtt) -> Self {
        Pacer { spread: true, rtt_rule, ..Pacer::new() }
    }

    /// True if this pacer keeps its own RTT average (`Ns2Wei`).
    #[inline]
    pub(super) fn keeps_rtt(&self) -> bool {
        self.rtt_rule == PacingRtt::Ns2Wei
    }

    /// An RTT sample of the flow, with its window `cwnd`, for a pacer that `keeps_rtt`.
    #[inline]
    pub(super) fn on_rtt_sample(&mut self, rtt: SimTime, cwnd: f64) {
        if self.wei_avg.is_nan() {
            self.wei_avg = rtt as f64;
        } else {
            let weight = (cwnd / 3.0).max(4.0);
            self.wei_avg = (self.wei_avg * (weight - 1.0) + rtt as f64) / weight;
        }
        self.wei_min = self.wei_min.min(rtt);
    }

    /// Spreading: true if a packet may leave at `now`, `interval` (None: no spacing yet)
    /// after the last one; then `now` is the last.
    #[inline]
    fn take_slot(&mut self, now: SimTime, interval: Option<SimTime>) -> bool {
        if let (Some(last), Some(interval)) = (self.last_start, interval) {
            if now < last.saturating_add(interval) {
                return false;
            }
        }
        self.last_start = Some(now);
        true
    }

    /// Add an algorithm's one-off schedule change to what is still pending.
    pub(super) fn adjust(&mut self, a: PaceAdjust) {
        self.skip = self.skip.saturating_add(a.skip);
        self.extra = self.extra.saturating_add(a.extra);
    }
}

impl Sender {
    /// Spread the window over the round trip `rtt_rule` names (the `pacing` option; see the
    /// module header). Not for algorithms that pace by their own rule.
    pub fn spread_over_rtt(&mut self, rtt_rule: PacingRtt) {
        assert!(!self.cc.uses_pacing(), "{} paces by its own rule", self.cc.name());
        self.pacer = Some(Box::new(Pacer::spread(rtt_rule)));
    }

    /// Spreading: the least time between two transmissions now, rtt / W (None before the
    /// first RTT sample).
    #[inline]
    fn spread_interval(&self) -> Option<SimTime> {
        let rtt = match self.pacer.as_deref().map(|p| (p.rtt_rule, p.wei_avg, p.wei_min)) {
            Some((PacingRtt::Ns2Wei, avg, min)) => {
                if avg.is_nan() {
                    return None;
                }
                if self.snd_una <= self.cc.recover_point() {
                    min
                } else {
                    avg as SimTime
                }
            }
            _ => self.rtt.srtt()?,
        };
        Some(rtt / self.usable_window().max(1))
    }

    /// A retransmission waits to be sent (one waiting for room in the window included).
    fn has_retransmission(&self) -> bool {
        self.retransmit.iter().map(|&e| e & !WAITS_FOR_WINDOW).any(|seq| seq >= self.snd_una && seq < self.high_sent)
    }

    /// A paced flow with a retransmission due: true if it may go now (always, under a burst
    /// rule: retransmissions are not paced), taking the slot.
    #[inline]
    pub(super) fn retransmission_slot(&mut self, now: SimTime) -> bool {
        let interval = self.spread_interval();
        let p = self.pacer.as_mut().expect("paced flow");
        !p.spread || p.take_slot(now, interval)
    }

    /// Paced flow with a packet the window and the application allow: None if pacing holds
    /// it back, else the code of the packet (its place in the current burst).
    #[inline]
    pub(super) fn paced_code(&mut self, now: SimTime) -> Option<u8> {
        if self.pacer.as_ref().is_some_and(|p| p.spread) {
            let interval = self.spread_interval();
            let p = self.pacer.as_mut().expect("paced flow");
            return p.take_slot(now, interval).then_some(pair_code::UNPAIRED);
        }
        let spec = self.cc.pacing();
        let window = self.usable_window();
        let window_room = self.snd_una + window - self.snd_nxt;
        let app_room = self.app_limit - self.snd_nxt;
        let p = self.pacer.as_mut().expect("paced flow");
        if p.sent >= p.len {
            if p.extra > 0 {
                p.extra -= 1; // an unpaired packet outside the schedule
                return Some(pair_code::UNPAIRED);
            }
            let Some(spec) = spec else { return Some(pair_code::UNPAIRED) };
            if let Some(t) = p.last_start {
                if now < t.saturating_add(spec.interval.saturating_mul(1 + p.skip as u64)) {
                    return None;
                }
            }
            let want = spec.burst.max(1) as u64;
            if window_room < want.min(window) && !(spec.fill_window && window_room > 0) {
                return None; // the window holds the burst back; an ACK will pump
            }
            p.len = want.min(window_room).min(app_room) as u32;
            p.sent = 0;
            p.skip = 0;
            p.last_start = Some(now);
        }
        let code = match (p.len, p.sent) {
            (0..=1, _) => pair_code::UNPAIRED,
            (_, 0) => pair_code::FIRST,
            (_, 1) => pair_code::SECOND,
            _ => pair_code::UNPAIRED,
        };
        p.sent += 1;
        Some(code)
    }

    /// True if the algorithm paces (the world then arms pacing events for this flow).
    #[inline]
    pub fn is_paced(&self) -> bool {
        self.pacer.is_some()
    }

    /// When pacing alone holds back new data: the time the next burst may start (NEVER if
    /// nothing waits for pacing: no data, window full, or not paced).
    pub fn pace_release(&self) -> SimTime {
        let Some(p) = self.pacer.as_deref() else { return NEVER };
        let Some(last) = p.last_start else { return NEVER };
        if p.spread {
            let Some(interval) = self.spread_interval() else { return NEVER };
            let slot = last.saturating_add(interval);
            let new_data = if self.sack_recovering() {
                self.sack_has_next(slot)
            } else {
                self.snd_nxt < self.app_limit && self.snd_nxt < self.snd_una + self.usable_window()
            };
            return if new_data || self.has_retransmission() { slot } else { NEVER };
        }
        if p.sent < p.len || self.snd_nxt >= self.app_limit {
            return NEVER;
        }
        let Some(Pacing { interval, burst, fill_window }) = self.cc.pacing() else { return NEVER };
        let window = self.usable_window();
        let need = if fill_window { 1 } else { (burst.max(1) as u64).min(window) };
        if self.snd_una + window < self.snd_nxt + need {
            return NEVER;
        }
        last.saturating_add(interval.saturating_mul(1 + p.skip as u64))
    }

    /// After a pump at `now`: Some(t) if the world must schedule a pacing event at t (none is
    /// armed at or before t). Records t as armed. A release at or before `now` is not pacing
    /// holding anything back (the pump just found nothing to send), so nothing is armed.
    #[inline]
    pub fn pace_arm(&mut self, now: SimTime) -> Option<SimTime> {
        let t = self.pace_release();
        let p = self.pacer.as_mut()?;
        if t != NEVER && t > now && t < p.armed_at {
            p.armed_at = t;
            Some(t)
        } else {
            None
        }
    }

    /// A pacing event fired at `now`.
    #[inline]
    pub fn on_pace_event(&mut self, now: SimTime) {
        if let Some(p) = self.pacer.as_mut() {
            if p.armed_at == now {
                p.armed_at = NEVER;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::PS_PER_SEC as SEC;
    use crate::transport::cc::newreno::{NewReno, NewRenoConfig};
    use crate::transport::cc::{Algorithm, Cc};

    /// A spreading NewReno sender whose packet 0, sent at 0, was acknowledged at 1 s (srtt
    /// 1 s), with cwnd 10.
    fn spreading() -> Sender {
        spreading_over(PacingRtt::Srtt)
    }

    /// As `spreading`, over the round trip `rule` names.
    fn spreading_over(rule: PacingRtt) -> Sender {
        let d = NewReno::sender_defaults();
        let mut s = Sender::new(Cc::from(NewReno::build(&NewRenoConfig::default(), 100)), 100, d.rto, d.timers);
        s.spread_over_rtt(rule);
        assert!(s.is_paced());
        s.app_limit = 1000;
        assert_eq!(s.next_transmission(0).map(|t| t.seq), Some(0), "no interval before the first RTT sample");
        s.on_ack(1, 0, 0, 0, false, false, 0, SEC);
        assert_eq!(s.rtt.srtt(), Some(SEC));
        if let Cc::NewReno(n) = &mut s.cc {
            *n = NewReno::build(
                &NewRenoConfig {
                    loss: crate::transport::cc::loss::LossConfig { initial_cwnd: 10.0, dupack_threshold: 3 },
                    ..NewRenoConfig::default()
                },
                100,
            );
        }
        s
    }

    #[test]
    fn spreading_sends_one_packet_every_srtt_over_cwnd() {
        let mut s = spreading();
        let gap = SEC / 10; // srtt / cwnd
        for k in 0..10u64 {
            let t = SEC + k * gap;
            assert!(k == 0 || s.next_transmission(t - 1).is_none(), "packet {k} held until {t}");
            if k > 0 {
                assert_eq!(s.pace_release(), t, "the pacing event for packet {k}");
            }
            assert_eq!(s.next_transmission(t).map(|x| (x.seq, x.code)), Some((k + 1, pair_code::UNPAIRED)));
            assert!(s.next_transmission(t).is_none(), "one packet per slot");
        }
        // The window (10) is full: no pacing event until an ACK opens it.
        assert_eq!(s.pace_release(), NEVER);
        // A larger window shortens the interval at once: the ACK of packet 1 at 2 s (an RTT
        // of 1 s again) takes slow start's cwnd to 11; one packet goes, the next srtt / 11 later.
        s.on_ack(2, 1, SEC, SEC, false, false, 0, 2 * SEC);
        assert_eq!((s.usable_window(), s.rtt.srtt()), (11, Some(SEC)));
        assert!(s.next_transmission(2 * SEC).is_some());
        assert_eq!(s.pace_release(), 2 * SEC + SEC / 11);
    }

    #[test]
    fn spreading_holds_retransmissions_too() {
        let mut s = spreading();
        let gap = SEC / 10;
        for k in 0..10u64 {
            assert!(s.next_transmission(SEC + k * gap).is_some());
        }
        // Packet 1 is lost: the duplicates of 2, 3, 4 arrive right after packet 10 left.
        let t = SEC + 9 * gap;
        for echo in 2..=4 {
            s.on_ack(2 - 1, echo, 0, 0, false, false, 0, t);
        }
        // Window 5 + 3 after the third duplicate: the slot is srtt / 8 after packet 10's.
        assert_eq!(s.usable_window(), 8);
        assert!(s.next_transmission(t).is_none(), "the fast retransmission waits for its slot");
        assert_eq!(s.pace_release(), t + SEC / 8, "and the world is asked to wake the flow then");
        assert!(s.next_transmission(t + SEC / 8 - 1).is_none());
        let r = s.next_transmission(t + SEC / 8).expect("the fast retransmission");
        assert_eq!((r.seq, r.retransmission), (1, true));
    }

    #[test]
    fn ns2_wei_spreads_over_its_own_average_and_over_the_least_rtt_in_recovery() {
        let mut s = spreading_over(PacingRtt::Ns2Wei);
        let gap = SEC / 10; // one sample of 1 s: the average is 1 s
        for k in 0..10u64 {
            assert!(s.next_transmission(SEC + k * gap).is_some(), "packet {k}");
        }
        // Packet 1 (sent at 1 s) is acknowledged at 4 s: a 3 s sample, weighted 1/max(11/3, 4)
        // = 1/4 (cwnd 11 by then): the average is (3 x 1 + 3) / 4 = 1.5 s, where the smoothed
        // RTT moves only an eighth of the way.
        s.on_ack(2, 1, SEC, SEC, false, false, 0, 4 * SEC);
        assert_eq!(s.usable_window(), 11);
        assert!(s.rtt.srtt().unwrap() < 3 * SEC / 2);
        assert!(s.next_transmission(4 * SEC).is_some());
        assert_eq!(s.pace_release(), 4 * SEC + 3 * SEC / 2 / 11);
        // Packet 2 is lost: three duplicates start a recovery, which spreads the window over
        // the least RTT seen, 1 s, until the ACKs pass `recover`.
        let t = 5 * SEC;
        for echo in 3..=5 {
            s.on_ack(2, echo, 0, 0, false, false, 0, t);
        }
        assert!(s.snd_una <= s.cc.recover_point());
        let w = s.usable_window();
        assert_eq!(s.spread_interval(), Some(SEC / w), "least RTT / window while recovering");
        let r = s.next_transmission(t).expect("the fast retransmission");
        assert_eq!((r.seq, r.retransmission), (2, true));
        // The ACK past `recover` ends it: the average again.
        s.on_ack(13, 12, 0, 0, false, false, 0, 6 * SEC);
        assert!(s.snd_una > s.cc.recover_point());
        let avg = s.pacer.as_deref().unwrap().wei_avg as SimTime;
        assert!(avg > SEC, "{avg}");
        assert_eq!(s.spread_interval(), Some(avg / s.usable_window()));
    }

    #[test]
    fn spreading_is_refused_for_algorithms_that_pace_by_their_own_rule() {
        let text = "duration = \"1s\"\n[nodes]\nhosts = [\"a\", \"b\"]\n[[links]]\nbetween = [\"a\", \"b\"]\nbandwidth = \"1Mbps\"\n\
                    [[flows]]\nsrc = \"a\"\ndst = \"b\"\ncc = \"pp\"\nparams = { pacing = true }\n";
        let e = crate::Scenario::from_toml_str(text).unwrap_err().to_string();
        assert!(e.contains("flows[0].params.pacing") && e.contains("own rule"), "{e}");
    }
}
