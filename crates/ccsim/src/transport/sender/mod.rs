//! The sending end of a reliable window flow.
//!
//! Owns the sequence space (in packets), retransmission, RTT estimation and timers, once for
//! every congestion-control algorithm (DESIGN.md). The algorithm only sets the window and
//! says when to retransmit early.
//!
//! Timers are lazy: the sender keeps its deadlines and the world keeps at most one armed
//! event per flow; a timer event that fires before the current deadline is re-armed rather
//! than cancelled, so restarting the RTO on every ACK costs no event-queue operation.
//!
//! Pacing (rate-based algorithms, e.g. packet-pair, and the `pacing` option of any window
//! algorithm) sits beside the window; its state and rules are in `pacer.rs`. What an ACK does
//! is `acks.rs`; the timers' expiry `timers.rs`; SACK recovery `sack.rs`.

use super::cc::{Cc, CongestionControl};
use super::config::TimerMode;
use super::pacer::Pacer;
use super::rtt::{RtoConfig, RttEstimator, RttSamples};
use super::seqspace::SlotRing;
use crate::net::packet::pair_code;
use crate::sim::SimTime;
use std::collections::VecDeque;

mod acks;
mod feedback;
mod sack;
mod timers;

use sack::SackBoard;

pub(crate) use feedback::WAITS_FOR_WINDOW;

pub const NEVER: SimTime = SimTime::MAX;

/// Most doublings a per-packet timeout accumulates (2^16 x the RTO, within max_rto).
const MAX_PACKET_BACKOFF: u8 = 16;

/// A packet the sender wants on the wire now.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Transmission {
    pub seq: u64,
    pub first_tx: SimTime,
    pub retransmission: bool,
    /// Value for the packet's code field (`pair_code`; UNPAIRED for unpaced flows).
    pub code: u8,
    /// The algorithm marks it as a probe (`flags::PROBE`; `CongestionControl::probe_for`).
    pub probe: bool,
}

/// What an arriving ACK did, for measurement.
#[derive(Clone, Copy, Debug)]
pub struct AckOutcome {
    /// The RTT sample this protocol reports for the delay metric (from first or last
    /// transmission, as its estimator measures), in picoseconds: one per ACK even when the
    /// estimator skips it (Karn's rule, `OnePerRtt`), spec G9.
    pub rtt_sample: SimTime,
}

#[derive(Clone, Debug)]
pub struct Sender {
    pub cc: Cc,
    pub max_window: u32,
    /// Oldest unacknowledged sequence number.
    pub snd_una: u64,
    /// Next sequence number to send from the window (rewinds on a go-back-N timeout).
    pub snd_nxt: u64,
    /// One past the highest sequence number ever sent.
    pub high_sent: u64,
    /// Packets the application has made available: sequence numbers below this may be sent.
    pub app_limit: u64,
    pub rtt: RttEstimator,
    timer_mode: TimerMode,
    dupacks: u32,
    /// Single mode: deadline of the connection's timer (NEVER when nothing is outstanding).
    /// Per-packet mode: a lower bound on the earliest per-packet deadline (exact after each
    /// timer event; an early event only costs a scan of the window).
    deadline: SimTime,
    slots: SlotRing,
    /// Sequence numbers to retransmit ahead of new data, regardless of the window.
    pub(super) retransmit: VecDeque<u64>,
    /// Time of the earliest armed timer event in the world's queue (NEVER if none).
    pub timer_armed_at: SimTime,
    /// Per-packet timers: a packet's timer is also stopped by the ACK that packet caused
    /// (which names it), not only by a cumulative ACK covering it. See `on_own_ack`.
    pub own_ack_stops_timer: bool,
    /// Count of timeouts (expiry events that caused retransmissions).
    pub timeouts: u64,
    /// The window used when the algorithm's cwnd is below 1: 1, or 0 for algorithms that
    /// may hold their window shut (`Algorithm::MAY_HOLD`).
    min_window: u8,
    /// The algorithm sets the code of the packets it sends (`Algorithm::MARKS_PACKETS`).
    marks_packets: bool,
    /// First and latest send times of packet snd_una - 1, the last one acknowledged in order
    /// (`SamplePacket::Cumulative` times duplicate ACKs from it); NEVER before the first.
    /// (Sentinels rather than `Option`s here and in `timed` keep the sender 16 bytes
    /// smaller: one per flow.)
    in_order_tx: (SimTime, SimTime),
    /// `RttSamples::OnePerRtt`: the packet being timed and its send time (NEVER: none).
    timed: (u64, SimTime),
    pub(super) pacer: Option<Box<Pacer>>,
    /// ECN (RFC 3168): an echoed mark reaches the algorithm only once the cumulative ACK has
    /// reached this (the data outstanding at the last reduction); NO_ECN when the flow does not
    /// respond to marks (`enable_ecn`).
    ecn_guard: u64,
    /// SACK-based recovery's scoreboard (`enable_sack`); None for most flows.
    sack: Option<Box<SackBoard>>,
}

/// `Sender::ecn_guard` of a flow without ECN.
const NO_ECN: u64 = u64::MAX;

impl Sender {
    pub fn new(cc: Cc, max_window: u32, rto: RtoConfig, timer_mode: TimerMode) -> Self {
        let mut slots = SlotRing::new(8);
        if timer_mode == TimerMode::PerPacketDoubling {
            slots.enable_backoff();
        }
        if matches!(timer_mode, TimerMode::PerPacket | TimerMode::PerPacketDoubling) {
            slots.enable_deadline_heap();
        }
        if rto.samples == RttSamples::EachPacket {
            slots.enable_sampled();
        }
        let pacer = cc.uses_pacing().then(|| Box::new(Pacer::new()));
        let (min_window, marks_packets) = (u8::from(!cc.may_hold()), cc.marks_packets());
        Sender {
            min_window,
            marks_packets,
            cc,
            max_window,
            snd_una: 0,
            snd_nxt: 0,
            high_sent: 0,
            app_limit: 0,
            rtt: RttEstimator::new(rto),
            timer_mode,
            dupacks: 0,
            deadline: NEVER,
            slots,
            retransmit: VecDeque::new(),
            own_ack_stops_timer: false,
            timer_armed_at: NEVER,
            timeouts: 0,
            in_order_tx: (NEVER, NEVER),
            timed: (0, NEVER),
            pacer,
            ecn_guard: NO_ECN,
            sack: None,
        }
    }

    /// The window the sender may have outstanding now, in packets.
    #[inline]
    pub fn usable_window(&self) -> u64 {
        // The cast truncates as floor would (NaN and negatives to 0), without libm's floor,
        // which the x86-64 baseline cannot inline: about 1% of a run's instructions.
        let w = (self.cc.cwnd() as u64).max(self.min_window as u64);
        w.min(self.max_window as u64)
    }

    #[inline]
    pub fn outstanding(&self) -> u64 {
        self.high_sent - self.snd_una
    }

    /// The next packet to put on the wire now, if any. Call repeatedly until None.
    #[inline]
    pub fn next_transmission(&mut self, now: SimTime) -> Option<Transmission> {
        while let Some(&entry) = self.retransmit.front() {
            let seq = entry & !WAITS_FOR_WINDOW;
            if seq >= self.snd_una && seq < self.high_sent {
                if entry != seq && self.outstanding() >= self.usable_window() {
                    // It waits at the head of the send queue for room in the window; one
                    // behind it that goes whatever the window still goes.
                    return self.unconditional_retransmission(now);
                }
                if self.pacer.is_some() && !self.retransmission_slot(now) {
                    return None;
                }
                self.retransmit.pop_front();
                return Some(self.transmit(seq, now, true, pair_code::UNPAIRED));
            }
            self.retransmit.pop_front();
        }
        if self.sack.as_deref().is_some_and(|b| b.recovering) {
            return self.sack_next(now);
        }
        if self.snd_nxt < self.app_limit && self.snd_nxt < self.snd_una + self.usable_window() {
            return self.send_new(now);
        }
        None
    }

    /// Packet `snd_nxt`, which the window and the application allow, unless pacing holds it.
    #[inline]
    fn send_new(&mut self, now: SimTime) -> Option<Transmission> {
        let code = if self.pacer.is_some() { self.paced_code(now)? } else { pair_code::UNPAIRED };
        let seq = self.snd_nxt;
        self.snd_nxt += 1;
        let first = seq >= self.high_sent;
        if first {
            self.high_sent = seq + 1;
            self.slots.ensure(self.snd_una, self.high_sent);
            self.slots.get_mut(seq).first_tx = now;
            self.slots.set_backoff(seq, 0);
            self.slots.set_sampled(seq, false);
        }
        Some(self.transmit(seq, now, !first, code))
    }

    #[inline]
    fn transmit(&mut self, seq: u64, now: SimTime, retransmission: bool, code: u8) -> Transmission {
        match self.timer_mode {
            TimerMode::Single | TimerMode::SingleBsd => {
                if self.deadline == NEVER {
                    self.deadline = now + self.rtt.rto();
                }
            }
            TimerMode::PerPacket => {
                let d = now + self.rtt.rto();
                self.slots.get_mut(seq).deadline = d;
                self.slots.push_deadline(seq, d);
                self.deadline = self.deadline.min(d);
            }
            TimerMode::PerPacketDoubling => {
                let rto = self.rtt.rto();
                let timeout = rto.saturating_mul(1u64 << self.slots.backoff(seq)).min(self.rtt.cfg.max_rto.max(rto));
                let d = now.saturating_add(timeout);
                self.slots.get_mut(seq).deadline = d;
                self.slots.push_deadline(seq, d);
                self.deadline = self.deadline.min(d);
            }
        }
        if self.rtt.cfg.samples == RttSamples::OnePerRtt {
            if retransmission {
                self.timed.1 = NEVER; // Karn: a resent packet's ACK is ambiguous
            } else if self.timed.1 == NEVER {
                self.timed = (seq, now);
            }
        }
        let (code, probe) = if self.marks_packets {
            (self.cc.code_for(seq, retransmission, code), self.cc.probe_for(seq, retransmission, now))
        } else {
            (code, false)
        };
        let slot = self.slots.get_mut(seq);
        slot.last_tx = now;
        Transmission { seq, first_tx: slot.first_tx, retransmission, code, probe }
    }

    /// Approximate heap memory of this sender's rings.
    pub fn memory_bytes(&self) -> usize {
        self.cc.memory_bytes()
            + self.slots.memory_bytes()
            + self.retransmit.capacity() * 8
            + self.pacer.as_ref().map_or(0, |_| std::mem::size_of::<Pacer>())
            + self.sack.as_ref().map_or(0, |b| b.memory_bytes())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::time::from_secs;
    use crate::transport::cc::generic::Generic;
    use crate::transport::cc::pp::{Estimator, PacketPair, PpConfig};
    use crate::transport::cc::Feedback;
    use crate::transport::cc::{Algorithm, Pacing};
    use crate::transport::rtt::{SampleFrom, SamplePacket};

    const SEC: SimTime = crate::sim::PS_PER_SEC;

    #[test]
    fn per_packet_timeouts_double_on_each_expiry() {
        let rto = PacketPair::sender_defaults().rto; // 3 x srtt, 2 s before the first sample
        let mut s = Sender::new(Cc::from(Generic::new(1)), 1, rto, TimerMode::PerPacketDoubling);
        s.app_limit = 100;
        let tx = s.next_transmission(0).unwrap();
        assert_eq!((tx.seq, tx.retransmission), (0, false));
        assert_eq!(s.packet_deadline(0), 2 * SEC);
        s.on_ack(1, 0, 0, 0, false, false, 0, SEC); // RTT 1 s: timeout 3 s
        assert_eq!(s.next_transmission(SEC).unwrap().seq, 1);
        assert_eq!(s.packet_deadline(1), 4 * SEC);
        // The sender's deadline is a lower bound (packet 0's, 2 s); an early event makes it exact.
        assert!(!s.on_timer(s.next_deadline()));
        assert_eq!(s.next_deadline(), 4 * SEC);
        // Each expiry resends the packet with twice its previous timeout: 6 s, 12 s, 24 s.
        let mut t = 4 * SEC;
        for timeout in [6, 12, 24] {
            assert!(!s.on_timer(t - 1), "early event");
            assert!(s.on_timer(t));
            let tx = s.next_transmission(t).unwrap();
            assert_eq!((tx.seq, tx.retransmission, tx.code), (1, true, pair_code::UNPAIRED));
            assert_eq!(s.packet_deadline(1), t + timeout * SEC, "after expiry at {t}");
            t += timeout * SEC;
        }
        assert_eq!(s.timeouts, 3);
        // A new packet starts from the plain timeout again (Karn: the ACK of the
        // retransmission gives no sample, srtt stays 1 s).
        s.on_ack(2, 0, t - 24 * SEC, SEC, true, false, 0, t - SEC);
        assert_eq!(s.next_transmission(t - SEC).unwrap().seq, 2);
        assert_eq!(s.packet_deadline(2), t - SEC + 3 * SEC);
    }

    #[test]
    fn plain_per_packet_timers_do_not_double() {
        let rto = PacketPair::sender_defaults().rto;
        let mut s = Sender::new(Cc::from(Generic::new(1)), 1, rto, TimerMode::PerPacket);
        s.app_limit = 100;
        s.next_transmission(0);
        s.on_ack(1, 0, 0, 0, false, false, 0, SEC);
        s.next_transmission(SEC);
        assert!(s.on_timer(4 * SEC));
        s.next_transmission(4 * SEC);
        assert_eq!(s.packet_deadline(1), 7 * SEC);
    }

    #[test]
    fn pacing_sends_marked_pairs_at_the_rate() {
        let cfg = PpConfig { estimator: Estimator::Raw, ..PpConfig::default() };
        let d = PacketPair::sender_defaults();
        let mut s = Sender::new(Cc::from(PacketPair::build(&cfg, 10)), 10, d.rto, d.timers);
        assert!(s.is_paced());
        s.app_limit = 1000;
        // Start-up: one pair, back to back, then the window (2) holds everything.
        let a = s.next_transmission(0).unwrap();
        let b = s.next_transmission(0).unwrap();
        assert_eq!((a.seq, a.code, b.seq, b.code), (0, pair_code::FIRST, 1, pair_code::SECOND));
        assert!(s.next_transmission(0).is_none());
        assert_eq!(s.pace_release(), NEVER, "window-limited: no pacing event");
        // The pair's ACKs 0.1 s apart: mu = 10 pkt/s, R = 0.5 s, lambda = 30 pkt/s.
        s.on_ack(1, 0, 0, 0, false, false, pair_code::FIRST, from_secs(0.5));
        assert!(s.next_transmission(from_secs(0.5)).is_none(), "a pair needs room for both");
        let t1 = from_secs(0.6);
        s.on_ack(2, 0, 0, 0, false, false, pair_code::SECOND, t1);
        let interval = from_secs(2.0 / 30.0);
        assert_eq!(s.cc.pacing(), Some(Pacing { interval, burst: 2, fill_window: true }));
        // The first paced pair goes at once (0.6 s is long after the start-up pair).
        let c = s.next_transmission(t1).unwrap();
        let d2 = s.next_transmission(t1).unwrap();
        assert_eq!((c.seq, c.code, d2.seq, d2.code), (2, pair_code::FIRST, 3, pair_code::SECOND));
        assert!(s.next_transmission(t1).is_none());
        // The next pair is due one interval later; the world arms one event for it.
        assert_eq!(s.pace_release(), t1 + interval);
        assert_eq!(s.pace_arm(t1), Some(t1 + interval));
        assert_eq!(s.pace_arm(t1), None, "already armed");
        assert!(s.next_transmission(t1 + interval - 1).is_none());
        s.on_pace_event(t1 + interval);
        let e = s.next_transmission(t1 + interval).unwrap();
        let f = s.next_transmission(t1 + interval).unwrap();
        assert_eq!((e.seq, e.code, f.seq, f.code), (4, pair_code::FIRST, 5, pair_code::SECOND));
        assert!(s.next_transmission(t1 + interval).is_none());
        // Retransmissions are neither paced nor paired.
        let mut now = s.next_deadline();
        while !s.on_timer(now) {
            now = s.next_deadline();
        }
        assert_eq!(now, s.packet_deadline(2).min(t1 + from_secs(3.0 * (0.5 + 0.1 / 8.0))));
        let r = s.next_transmission(now).unwrap();
        assert!(r.retransmission);
        assert_eq!(r.code, pair_code::UNPAIRED);
    }

    #[test]
    fn paced_burst_takes_what_the_application_has() {
        let d = PacketPair::sender_defaults();
        let mut s = Sender::new(Cc::from(PacketPair::build(&PpConfig::default(), 10)), 10, d.rto, d.timers);
        s.app_limit = 1;
        let a = s.next_transmission(0).unwrap();
        assert_eq!(a.code, pair_code::UNPAIRED, "a lone packet is no pair");
        assert!(s.next_transmission(0).is_none());
    }

    #[test]
    fn pace_adjust_skips_slots_and_sends_unpaired_bursts_ahead_of_them() {
        use crate::transport::cc::pp2::{Pp2, Pp2Config, RUpdate};
        let cfg = Pp2Config { n_b: 3, r_estimate: RUpdate::First, ..Pp2Config::default() };
        let d = Pp2::sender_defaults();
        let mut s = Sender::new(Cc::from(Pp2::build(&cfg, 20)), 20, d.rto, d.timers);
        s.app_limit = 1000;
        let codes = |s: &mut Sender, now: SimTime| {
            let mut v = vec![];
            while let Some(tx) = s.next_transmission(now) {
                v.push((tx.seq, tx.code));
            }
            v
        };
        const F: u8 = pair_code::FIRST;
        const S: u8 = pair_code::SECOND;
        const U: u8 = pair_code::UNPAIRED;
        assert_eq!(codes(&mut s, 0), vec![(0, F), (1, S)]);
        // The start-up pair's ACKs 0.1 s apart: R_e = 0.5 s, s_e = 0.1 s, V = 5. Priming:
        // n_b = 3 unpaired packets, then at once the first pair.
        s.on_ack(1, 0, 0, 0, false, false, F, from_secs(0.5));
        let t1 = from_secs(0.6);
        s.on_ack(2, 0, 0, 0, false, false, S, t1);
        assert_eq!(codes(&mut s, t1), vec![(2, U), (3, U), (4, U), (5, F), (6, S)]);
        assert_eq!(s.pace_release(), t1 + from_secs(0.2));
        // That pair's ACKs come 0.2 s apart: s_e = 0.2 s, V 5 -> 2.5, skip ⌈1.25⌉ = 2 slots
        // of the new 0.4 s: the next pair starts 3 slots after t1.
        s.on_ack(6, 0, t1, t1, false, false, F, from_secs(1.2));
        s.on_ack(7, 0, t1, t1, false, false, S, from_secs(1.4));
        let t2 = t1 + 3 * from_secs(0.4);
        assert_eq!(s.pace_release(), t2);
        assert!(codes(&mut s, from_secs(1.4)).is_empty());
        assert!(codes(&mut s, t2 - 1).is_empty());
        assert_eq!(codes(&mut s, t2), vec![(7, F), (8, S)]);
        assert_eq!(s.pace_release(), t2 + from_secs(0.4), "the skip is used up");
        // That pair's ACKs come 0.1 s apart again: V 2.5 -> 5, a burst of ⌈2.5⌉ = 3 unpaired
        // packets at once; the next slot (t2 + 0.2 s) has passed, so a pair follows.
        let t3 = t2 + from_secs(1.0);
        s.on_ack(8, 0, t2, t2, false, false, F, t3 - from_secs(0.1));
        s.on_ack(9, 0, t2, t2, false, false, S, t3);
        assert_eq!(codes(&mut s, t3), vec![(9, U), (10, U), (11, U), (12, F), (13, S)]);
        assert_eq!(s.pace_release(), t3 + from_secs(0.2));
    }

    #[test]
    fn unpaired_burst_waits_for_the_window() {
        use crate::transport::cc::pp2::{Pp2, Pp2Config};
        let d = Pp2::sender_defaults();
        let cfg = Pp2Config { n_b: 3, ..Pp2Config::default() };
        let mut s = Sender::new(Cc::from(Pp2::build(&cfg, 4)), 4, d.rto, d.timers);
        s.app_limit = 1000;
        s.next_transmission(0);
        s.next_transmission(0);
        s.on_ack(1, 0, 0, 0, false, false, pair_code::FIRST, from_secs(0.5));
        s.on_ack(2, 0, 0, 0, false, false, pair_code::SECOND, from_secs(0.6));
        // Window 4: the 3 priming packets go; the pair needs room for both.
        for seq in 2..5 {
            assert_eq!(s.next_transmission(from_secs(0.6)).map(|t| (t.seq, t.code)), Some((seq, pair_code::UNPAIRED)));
        }
        assert!(s.next_transmission(from_secs(0.6)).is_none());
        assert_eq!(s.pace_release(), NEVER, "window-limited");
        s.on_ack(3, 0, from_secs(0.6), from_secs(0.6), false, false, pair_code::UNPAIRED, from_secs(1.2));
        let tx = s.next_transmission(from_secs(1.2)).unwrap();
        assert_eq!((tx.seq, tx.code), (5, pair_code::FIRST));
    }

    #[test]
    fn window_flows_have_no_pacing_state() {
        let s = Sender::new(Cc::from(Generic::new(4)), 4, Generic::sender_defaults().rto, TimerMode::PerPacket);
        assert!(!s.is_paced());
        assert_eq!(s.pace_release(), NEVER);
    }

    /// A JK-like sender with all five packets of its window sent at 0 and the first one
    /// acknowledged at 1 s (srtt 1 s, mdev 0.5 s: RTO 2 s), then three duplicate ACKs.
    fn fast_retransmit_at(mode: TimerMode, dup_times: [SimTime; 3]) -> Sender {
        use crate::transport::cc::jk::Jk;
        let mut s = Sender::new(
            Cc::from(Jk::build(
                &crate::transport::cc::jk::JkConfig {
                    loss: crate::transport::cc::loss::LossConfig { initial_cwnd: 5.0, dupack_threshold: 3 },
                    ..Default::default()
                },
                5,
            )),
            5,
            Jk::sender_defaults().rto,
            mode,
        );
        s.app_limit = 5;
        for seq in 0..5 {
            assert_eq!(s.next_transmission(0).unwrap().seq, seq);
        }
        s.on_ack(1, 0, 0, 0, false, false, 0, SEC);
        assert_eq!(s.next_deadline(), 3 * SEC, "restarted by the new ACK: 1 s + RTO 2 s");
        for t in dup_times {
            s.on_ack(1, 0, 0, 0, false, false, 0, t);
        }
        let tx = s.next_transmission(dup_times[2]).unwrap();
        assert_eq!((tx.seq, tx.retransmission), (1, true), "fast retransmission");
        assert!(s.next_transmission(dup_times[2]).is_none());
        s
    }

    #[test]
    fn bsd_timer_restarts_on_a_fast_retransmission() {
        let ms = SEC / 1000;
        let t = [2000 * ms, 2200 * ms, 2400 * ms];
        // 4.3BSD: the retransmission at 2.4 s gets a full RTO (2 s), so an ACK for it that
        // takes longer than the 0.6 s left of the old deadline does not cause a timeout.
        let mut s = fast_retransmit_at(TimerMode::SingleBsd, t);
        assert_eq!(s.next_deadline(), 4400 * ms);
        assert!(!s.on_timer(3 * SEC), "the old deadline no longer expires");
        assert!(s.on_timer(4400 * ms));
        assert_eq!(s.timeouts, 1);
        // RFC 6298 (`Single`): the timer keeps the deadline of the last new ACK, 3 s, and the
        // packet just fast-retransmitted is sent a third time at 3 s.
        let mut r = fast_retransmit_at(TimerMode::Single, t);
        assert_eq!(r.next_deadline(), 3 * SEC);
        assert!(r.on_timer(3 * SEC));
        assert_eq!(r.next_transmission(3 * SEC).unwrap().seq, 1);
    }

    #[test]
    fn own_ack_stops_only_that_packets_timer() {
        let d = Generic::sender_defaults();
        let mut s = Sender::new(Cc::from(Generic::new(4)), 4, d.rto, TimerMode::PerPacket);
        s.own_ack_stops_timer = true;
        s.app_limit = 4;
        for _ in 0..3 {
            s.next_transmission(0);
        }
        // Packet 0 is lost; packet 2's ACK (cumulative 0) names it.
        s.on_own_ack(2, 0);
        s.on_ack(0, 0, 0, 0, false, false, 0, SEC);
        assert_eq!(s.packet_deadline(2), NEVER);
        assert!(s.on_timer(10 * SEC));
        let resent: Vec<u64> = std::iter::from_fn(|| s.next_transmission(10 * SEC)).map(|t| t.seq).collect();
        assert!(resent.contains(&0) && resent.contains(&1) && !resent.contains(&2), "{resent:?}");
        // Without the flag, packet 2 is resent too.
        let mut e = Sender::new(Cc::from(Generic::new(4)), 4, d.rto, TimerMode::PerPacket);
        e.app_limit = 4;
        for _ in 0..3 {
            e.next_transmission(0);
        }
        e.on_own_ack(2, 0);
        assert!(e.on_timer(10 * SEC));
        let resent: Vec<u64> = std::iter::from_fn(|| e.next_transmission(10 * SEC)).map(|t| t.seq).collect();
        assert!(resent.contains(&2), "{resent:?}");
    }

    #[test]
    fn latest_sampling_times_an_ack_from_the_retransmission() {
        // Packet 0 sent at 0 and, after a spurious timeout, again at 12 s; the original's ACK
        // (echoing the 0 s copy) arrives at 24 s. "last" (the echoed copy) samples 24 s,
        // "latest" (the sender's record) 12 s, "first" 24 s.
        let sample = |from: SampleFrom| {
            let mut rto = crate::transport::cc::dec::Dec::sender_defaults().rto;
            rto.sample_from = from;
            let mut s = Sender::new(Cc::from(Generic::new(1)), 1, rto, TimerMode::Single);
            s.app_limit = 1;
            s.next_transmission(0);
            assert!(s.on_timer(2 * SEC));
            assert!(s.next_transmission(12 * SEC).unwrap().retransmission);
            s.on_ack(1, 0, 0, 0, false, false, 0, 24 * SEC).rtt_sample
        };
        assert_eq!(sample(SampleFrom::Last), 24 * SEC);
        assert_eq!(sample(SampleFrom::Latest), 12 * SEC);
        assert_eq!(sample(SampleFrom::First), 24 * SEC);
    }

    #[test]
    fn one_per_rtt_times_one_packet_at_a_time() {
        // Window 4: packets 0..3 sent at 0 s; only packet 0 is timed. ACKs at 2, 3, 4, 5 s:
        // the first gives a 2 s sample and packet 4 (sent then) is timed next; its ACK at 6 s
        // gives 4 s. One sample per ACK would have averaged 2, 3, 4, 5, 4, ...
        let mut rto = crate::transport::cc::jk::Jk::sender_defaults().rto;
        rto.samples = RttSamples::OnePerRtt;
        let mut s = Sender::new(Cc::from(Generic::new(4)), 4, rto, TimerMode::SingleBsd);
        s.app_limit = 100;
        while s.next_transmission(0).is_some() {}
        s.on_ack(1, 0, 0, 0, false, false, 0, 2 * SEC);
        assert_eq!(s.rtt.srtt(), Some(2 * SEC));
        assert_eq!(s.next_transmission(2 * SEC).map(|t| t.seq), Some(4));
        for (ack, t) in [(2, 3), (3, 4), (4, 5)] {
            s.on_ack(ack, ack - 1, 0, 0, false, false, 0, t * SEC);
            assert_eq!(s.rtt.srtt(), Some(2 * SEC), "ACK {ack} is not timed");
            s.next_transmission(t * SEC);
        }
        s.on_ack(5, 4, 2 * SEC, 2 * SEC, false, false, 0, 6 * SEC);
        assert_eq!(s.rtt.srtt(), Some(2 * SEC + 2 * SEC / 8), "packet 4: a 4 s sample");
        // A retransmission cancels the timing (Karn): packet 8, sent and timed at 6 s, is
        // still out when a timeout resends packet 5; the ACK covering 8 then gives no sample.
        assert_eq!(s.next_transmission(6 * SEC).map(|t| t.seq), Some(8));
        assert!(s.on_timer(100 * SEC));
        assert!(s.next_transmission(100 * SEC).unwrap().retransmission);
        let before = s.rtt.srtt();
        s.on_ack(9, 5, 100 * SEC, 3 * SEC, true, false, 0, 101 * SEC);
        assert_eq!(s.rtt.srtt(), before);
    }

    #[test]
    fn cumulative_sampling_times_the_packet_the_ack_number_names() {
        // Packets 0..4 sent at 0, 1, 2, 3 s. Packet 0's ACK comes at 5 s; packet 1 is lost,
        // so the ACKs of 2 and 3 (at 6 and 7 s) are duplicates naming packet 0; the repair
        // of 1 is acknowledged cumulatively (through 3) at 10 s.
        let samples = |which: SamplePacket| {
            let mut rto = Generic::sender_defaults().rto;
            rto.sample_packet = which;
            let mut s = Sender::new(Cc::from(Generic::new(4)), 4, rto, TimerMode::PerPacket);
            s.app_limit = 4;
            for t in 0..4 {
                s.next_transmission(t * SEC);
            }
            let t0 = s.on_ack(1, 0, 0, 0, false, false, 0, 5 * SEC).rtt_sample;
            let t2 = s.on_ack(1, 2, 2 * SEC, 2 * SEC, false, false, 0, 6 * SEC).rtt_sample;
            let t3 = s.on_ack(1, 3, 3 * SEC, 3 * SEC, false, false, 0, 7 * SEC).rtt_sample;
            let t1 = s.on_ack(4, 1, SEC, SEC, true, false, 0, 10 * SEC).rtt_sample;
            [t0, t2, t3, t1].map(|x| x / SEC)
        };
        // Echoed: each packet's own RTT (the repair timed from its first transmission).
        assert_eq!(samples(SamplePacket::Echoed), [5, 4, 4, 9]);
        // Cumulative: the duplicates time packet 0 (sent at 0), the repair times packet 3.
        assert_eq!(samples(SamplePacket::Cumulative), [5, 6, 7, 7]);
    }

    #[test]
    fn karn_skips_a_cumulatively_named_packet_that_was_resent() {
        // Packet 0 sent at 0 s and, after a (spurious) timeout, again at 5 s; the original's
        // ACK arrives at 6 s. The echo carries no retransmission flag (it answers the
        // original), but the sender cannot tell which copy the ACK number answers, so Karn's
        // rule must skip it. Without Karn's rule the sample is 6 s (from the first send).
        let run = |karn: bool| {
            let mut rto = Generic::sender_defaults().rto;
            rto.sample_packet = SamplePacket::Cumulative;
            rto.samples = RttSamples::OnePerAck;
            rto.karn = karn;
            let mut s = Sender::new(Cc::from(Generic::new(2)), 2, rto, TimerMode::Single);
            s.app_limit = 2;
            s.next_transmission(0);
            s.next_transmission(0);
            assert!(s.on_timer(5 * SEC));
            assert!(s.next_transmission(5 * SEC).unwrap().retransmission);
            s.on_ack(1, 0, 0, 0, false, false, 0, 6 * SEC);
            s.rtt.srtt()
        };
        assert_eq!(run(true), None);
        assert_eq!(run(false), Some(6 * SEC));
    }

    #[test]
    fn every_acked_packet_gives_a_sample_from_its_first_transmission() {
        // Packets 0..4 sent at 0, 1, 2, 3 s; packet 0 lost, 1..3 held by the receiver; the
        // repaired hole is acknowledged cumulatively at 10 s. Generic samples all four
        // (10, 9, 8, 7 s); one sample per ACK takes only the echoed packet's 10 s.
        let run = |every: bool| {
            let mut rto = Generic::sender_defaults().rto;
            rto.samples = if every { RttSamples::EveryAcked } else { RttSamples::OnePerAck };
            rto.sample_packet = SamplePacket::Echoed;
            let mut s = Sender::new(Cc::from(Generic::new(4)), 4, rto, TimerMode::PerPacket);
            s.app_limit = 4;
            for t in 0..4 {
                s.next_transmission(t * SEC);
            }
            s.on_ack(4, 0, 0, 0, true, false, 0, 10 * SEC);
            s.rtt.srtt().unwrap()
        };
        assert_eq!(run(false), 10 * SEC);
        // srtt: 10, then 10 + (9-10)/8, then + (8-srtt)/8, then + (7-srtt)/8.
        let mut e = 10.0f64;
        for x in [9.0, 8.0, 7.0] {
            e += (x - e) / 8.0;
        }
        let got = run(true) as f64 / SEC as f64;
        assert!((got - e).abs() < 1e-9, "{got} vs {e}");
        assert_eq!(Generic::sender_defaults().rto.samples, RttSamples::EveryAcked, "Generic's default");
    }

    #[test]
    fn each_packet_marks_are_cleared_when_a_slot_is_reused() {
        // Window 2 in an 8-slot ring: 40 packets reuse every slot five times. Packets 0..19
        // take 1 s, 20..39 take 3 s; a stale "sampled" mark would hide the later samples and
        // leave srtt at 1 s.
        let mut rto = Generic::sender_defaults().rto;
        rto.samples = RttSamples::EachPacket;
        let mut s = Sender::new(Cc::from(Generic::new(2)), 2, rto, TimerMode::PerPacket);
        s.app_limit = 40;
        let mut t = 0;
        for seq in 0..40u64 {
            let tx = s.next_transmission(t * SEC).expect("window has room");
            assert_eq!(tx.seq, seq);
            let rtt = if seq < 20 { 1 } else { 3 };
            t += rtt;
            s.on_own_ack(seq, t * SEC);
            s.on_ack(seq + 1, seq, tx.first_tx, tx.first_tx, false, false, 0, t * SEC);
        }
        // Every packet sampled once: srtt = 3 - 2 x (7/8)^20 after the twenty 3 s samples.
        let want = 3.0 - 2.0 * (7.0f64 / 8.0).powi(20);
        let srtt = s.rtt.srtt().unwrap() as f64 / SEC as f64;
        assert!((srtt - want).abs() < 1e-6, "srtt {srtt}, want {want}");
    }

    #[test]
    fn each_packet_is_sampled_once_at_its_own_ack() {
        // Packets 0..4 sent at 0, 1, 2, 3 s; packet 0 lost. The own ACKs of 1, 2, 3 (duplicate
        // cumulative ACKs naming them) arrive at 5, 6, 7 s: samples 4, 4, 4 s. The repair of 0
        // is acknowledged cumulatively at 10 s: one more sample, 10 s from its first send; 1..3
        // are not sampled again. EveryAcked would count 1..3 at 9, 8, 7 s.
        let mut rto = Generic::sender_defaults().rto;
        rto.samples = RttSamples::EachPacket;
        let mut s = Sender::new(Cc::from(Generic::new(4)), 4, rto, TimerMode::PerPacket);
        s.own_ack_stops_timer = true;
        s.app_limit = 4;
        for t in 0..4 {
            s.next_transmission(t * SEC);
        }
        for (seq, t) in [(1u64, 5u64), (2, 6), (3, 7)] {
            s.on_own_ack(seq, t * SEC);
            s.on_ack(0, seq, seq * SEC, seq * SEC, false, false, 0, t * SEC);
        }
        assert_eq!(s.rtt.srtt().unwrap(), 4 * SEC);
        s.on_own_ack(0, 10 * SEC);
        s.on_ack(4, 0, 0, 0, true, false, 0, 10 * SEC);
        let want = 4.0 + (10.0 - 4.0) / 8.0;
        let got = s.rtt.srtt().unwrap() as f64 / SEC as f64;
        assert!((got - want).abs() < 1e-9, "{got} vs {want}");
    }

    fn recorder(s: &Sender) -> &crate::transport::cc::test_recorder::Recorder {
        match &s.cc {
            Cc::TestRecorder(r) => r,
            _ => unreachable!(),
        }
    }

    #[test]
    fn the_algorithm_codes_what_it_sends_and_hears_what_timed_out() {
        use crate::transport::cc::test_recorder::Recorder;
        let d = Recorder::sender_defaults();
        let mut s = Sender::new(Cc::from(Recorder::build(&(), 4)), 4, d.rto, TimerMode::PerPacket);
        s.app_limit = 100;
        let codes: Vec<(u8, bool)> = (0..4).map(|_| s.next_transmission(0).map(|t| (t.code, t.probe)).unwrap()).collect();
        assert_eq!(codes, [(0, false), (1, true), (2, false), (3, true)], "code_for and probe_for mark each new packet");
        // Packet 1's own ACK (echo 1, cumulative 0: a duplicate behind packet 0).
        s.on_ack(0, 1, 0, 0, false, false, 1, SEC / 10);
        assert_eq!(recorder(&s).echoes, [(1, false, 1)]);
        // Every timer expires at the initial 1 s RTO; the oldest (0) is the one reported.
        assert!(s.on_timer(SEC));
        let t = recorder(&s).timeouts[0];
        assert_eq!((t.seq, t.flight, t.high_sent, t.now), (0, 4, 4, SEC));
        let tx = s.next_transmission(SEC).unwrap();
        assert_eq!((tx.seq, tx.retransmission, tx.code, tx.probe), (0, true, 0xFF, false));
        // Feedback reaches it with what is outstanding.
        s.on_feedback(&Feedback { seq: Some(2), code: 7, ..Feedback::default() });
        let fb = recorder(&s).feedback[0];
        assert_eq!((fb.seq, fb.code, fb.outstanding), (Some(2), 7, 4));
        while s.next_transmission(SEC).is_some() {} // the rest of the expired window
        s.on_feedback(&Feedback { seq: Some(2), code: 7, ..Feedback::default() });
        assert!(s.next_transmission(SEC).is_none(), "plain feedback resends nothing");
        // Feedback whose algorithm asks for the packet it names: that packet goes at once.
        use crate::transport::cc::test_recorder::RETRANSMIT_CODE;
        s.on_feedback(&Feedback { seq: Some(2), code: RETRANSMIT_CODE, ..Feedback::default() });
        let tx = s.next_transmission(SEC).unwrap();
        assert_eq!((tx.seq, tx.retransmission), (2, true));
        s.on_feedback(&Feedback { seq: Some(9), code: RETRANSMIT_CODE, ..Feedback::default() });
        assert!(s.next_transmission(SEC).is_none(), "a sequence number never sent is ignored");
    }

    #[test]
    fn a_feedback_retransmission_that_waits_goes_when_the_window_has_room() {
        use crate::transport::cc::test_recorder::{Recorder, RETRANSMIT_WHEN_OPEN_CODE};
        let d = Recorder::sender_defaults();
        let mut s = Sender::new(Cc::from(Recorder::build(&(), 4)), 4, d.rto, TimerMode::Single);
        s.app_limit = 100;
        while s.next_transmission(0).is_some() {} // 0..=3: the window of 4 is full
        let deadline = s.next_deadline();
        s.on_feedback(&Feedback { seq: Some(1), code: RETRANSMIT_WHEN_OPEN_CODE, ..Feedback::default() });
        assert!(s.next_transmission(SEC / 10).is_none(), "no room: it waits");
        assert_eq!(s.next_deadline(), deadline, "the timer runs on");
        // A duplicate ACK (packet 2's, while 0 is unacknowledged) makes no room.
        s.on_ack(0, 2, 0, 0, false, false, 1, SEC / 6);
        assert!(s.next_transmission(SEC / 6).is_none(), "a duplicate ACK makes no room");
        // A retransmission that goes whatever the window is not held behind the waiting one.
        use crate::transport::cc::test_recorder::RETRANSMIT_CODE;
        s.on_feedback(&Feedback { seq: Some(3), code: RETRANSMIT_CODE, ..Feedback::default() });
        assert_eq!(s.next_transmission(SEC / 6).map(|t| (t.seq, t.retransmission)), Some((3, true)));
        assert!(s.next_transmission(SEC / 6).is_none(), "packet 1 still waits");
        // Packet 0's ACK leaves 3 outstanding of 4: the retransmission goes first, then new
        // data as the window allows (the resent packet was outstanding already).
        s.on_ack(1, 0, 0, 0, false, false, 1, SEC / 5);
        let sent: Vec<(u64, bool)> = std::iter::from_fn(|| s.next_transmission(SEC / 5).map(|t| (t.seq, t.retransmission))).collect();
        assert_eq!(sent, [(1, true), (4, false)]);
    }

    #[test]
    fn an_algorithm_that_may_hold_shuts_the_window_at_zero() {
        use crate::transport::cc::test_recorder::Recorder;
        let d = Recorder::sender_defaults();
        let mut held = Sender::new(Cc::from(Recorder::build(&(), 4)), 4, d.rto, d.timers);
        held.app_limit = 100;
        if let Cc::TestRecorder(r) = &mut held.cc {
            r.window = 0.0;
        }
        assert_eq!(held.usable_window(), 0);
        assert_eq!(held.next_transmission(0), None);
        // Others send one packet whatever their window says (Generic's of 0 here).
        let mut other = Sender::new(Cc::from(Generic::new(0)), 4, d.rto, d.timers);
        other.app_limit = 100;
        assert_eq!(other.usable_window(), 1);
        assert!(other.next_transmission(0).is_some());
    }
}
