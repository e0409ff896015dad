//! SACK-based loss recovery, the sender's part: a scoreboard of what the receiver holds and,
//! while recovering, sending by the estimated number of packets in the network ("pipe")
//! rather than by the window.
//!
//! Source: Fall and Floyd, "Simulation-based comparisons of Tahoe, Reno and SACK TCP" (CCR
//! 1996), as ns-2's `Agent/TCP/Sack1` ran it, and the ns-2 FAST module Cui's chapter 4 ran
//! (tcp-fast.cc 1.1.3, read for its semantics; spec cui-buffers-fast-adpm.md §2.1 [X]). An
//! algorithm recovers this way when its decoder sets [`SenderConfig::sack`]; it still decides
//! when recovery starts (its `on_dup_ack` returning true) and what the window is (un-inflated:
//! pipe, not the window, counts the packets that have left). The rules:
//! - a duplicate ACK counts towards the fast retransmission only if it reports a packet not
//!   known received before (ns-2's `CheckUpdate`);
//! - entering recovery: recover = the highest sequence sent, pipe = packets outstanding less
//!   the duplicate ACKs counted, the oldest unacknowledged packet resent at once (not counted in
//!   pipe, as in ns-2), the timer restarted;
//! - every ACK while recovering takes one from pipe; an ACK at or past `recover` ends it;
//! - a partial ACK takes one more from pipe and restarts the timer (ns-2's default,
//!   `partial_ack_` false), or with `partial_ack` resends the next two packets not known
//!   received from its own cursor at once and adds one to pipe (ns-2's count for its two; one
//!   less for each it could not find), restarting the timer at the first partial ACK only;
//! - while pipe is below the window, send (pipe + 1 each): the oldest unacknowledged packet
//!   again if its last copy left more than `rescue` average RTTs ago (the module's rule; the
//!   algorithm's own average RTT, else the smoothed one); else the next hole below the highest
//!   packet known received that this recovery has not resent; else new data, as far as the
//!   receiver's window (the flow's `max_window`) allows;
//! - a timeout ends recovery and empties the scoreboard (go-back-N resends everything);
//! - a paced flow's resends take pacing slots as its other retransmissions do, and the pacer
//!   waits for a slot only when pipe would let something go (`sack_has_next`).
//!
//! Choice where the model differs from real SACK: ccsim's receiver sends one ACK per data
//! packet, and the ACK names that packet (`echo_seq`), which RFC 2018's first SACK block always
//! contains; the other blocks, repeated for robustness against lost ACKs, are not carried. On
//! a path that loses no ACKs the sender learns exactly what three blocks would tell it. For the
//! same reason the scoreboard is kept across new ACKs outside recovery, where ns-2 empties it
//! and the next SACK blocks fill it again.

use super::Sender;
use crate::net::packet::pair_code;
use crate::sim::SimTime;
use crate::transport::cc::CongestionControl;
use crate::transport::config::SackConfig;
use crate::transport::seqspace::SeqBitmap;
use crate::transport::Transmission;

/// The scoreboard and the recovery state.
#[derive(Clone, Debug)]
pub(super) struct SackBoard {
    cfg: SackConfig,
    /// Sequence numbers at or above `snd_una` the receiver is known to hold.
    sacked: SeqBitmap,
    /// Holes this recovery has resent.
    resent: SeqBitmap,
    /// One past the highest sequence number known received out of order (0: none).
    high_sacked: u64,
    pub(super) recovering: bool,
    /// Recovery ends when the cumulative ACK reaches this.
    recover: u64,
    /// Packets estimated in the network while recovering.
    pipe: i64,
    /// Where the search for the next hole to resend starts.
    next_hole: u64,
    /// Where the partial-ACK resends continue (ns-2's `next_pkt_`).
    next_partial: u64,
    first_partial_done: bool,
}

impl SackBoard {
    pub(super) fn new(cfg: SackConfig) -> Self {
        SackBoard {
            cfg,
            sacked: SeqBitmap::new(),
            resent: SeqBitmap::new(),
            high_sacked: 0,
            recovering: false,
            recover: 0,
            pipe: 0,
            next_hole: 0,
            next_partial: 0,
            first_partial_done: false,
        }
    }

    pub(super) fn memory_bytes(&self) -> usize {
        std::mem::size_of::<Self>() + self.sacked.memory_bytes() + self.resent.memory_bytes()
    }

    /// Whether the receiver is known to hold `seq`.
    pub(super) fn holds(&self, seq: u64) -> bool {
        seq < self.high_sacked && self.sacked.test(seq)
    }

    /// Forget `lo..hi` (acknowledged), where `lo` is the lowest sequence number marked. Marks
    /// lie below `lo` + the bitmaps' length, so a longer range forgets everything.
    fn forget(&mut self, lo: u64, hi: u64) {
        if hi - lo >= self.sacked.bits().min(self.resent.bits()) {
            return self.forget_all();
        }
        for s in lo..hi {
            self.sacked.clear(s);
            self.resent.clear(s);
        }
    }

    fn forget_all(&mut self) {
        self.sacked.clear_all();
        self.resent.clear_all();
        self.high_sacked = 0;
    }

    /// The first hole from the cursor (and `una`) on, below the highest packet reported and not
    /// resent by this recovery; and where the search stopped (the cursor's next place).
    fn first_hole(&self, una: u64, high: u64) -> (Option<u64>, u64) {
        let mut s = self.next_hole.max(una);
        while s < self.high_sacked && (self.sacked.test(s) || self.resent.test(s)) {
            s += 1;
        }
        ((s < self.high_sacked.min(high)).then_some(s), s)
    }
}

/// What the scoreboard made of an ACK, for the rest of `on_ack`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum SackAck {
    /// Not recovering: a duplicate ACK counts only if it reported something new.
    Open { new_info: bool },
    /// Recovering; the new ACK (if any) was handled here, and the timer is restarted or not.
    Recovering { restart_timer: bool },
    /// This ACK ended the recovery (an ordinary new ACK from here on).
    Ended,
}

impl Sender {
    /// Use SACK-based recovery (`SenderConfig::sack`).
    pub fn enable_sack(&mut self, cfg: SackConfig) {
        self.sack = Some(Box::new(SackBoard::new(cfg)));
    }

    /// Whether the flow is in a SACK recovery now.
    pub fn sack_recovering(&self) -> bool {
        self.sack.as_ref().is_some_and(|b| b.recovering)
    }

    /// The scoreboard's part of an ACK (cumulative `ack`, caused by data packet `echo_seq`),
    /// before `snd_una` moves.
    #[inline(never)]
    pub(super) fn sack_on_ack(&mut self, ack: u64, echo_seq: u64) -> SackAck {
        let (una, high) = (self.snd_una, self.high_sent);
        let b = self.sack.as_deref_mut().expect("SACK flow");
        if ack > una {
            b.forget(una, ack.min(high));
        }
        let base = ack.max(una);
        let mut new_info = false;
        if echo_seq >= base && echo_seq < high {
            b.sacked.ensure(base, echo_seq);
            b.resent.ensure(base, echo_seq);
            new_info = !b.sacked.test(echo_seq);
            b.sacked.set(echo_seq);
            b.high_sacked = b.high_sacked.max(echo_seq + 1);
        }
        if !b.recovering {
            return SackAck::Open { new_info };
        }
        b.pipe -= 1;
        if ack >= b.recover {
            b.recovering = false;
            return SackAck::Ended;
        }
        if ack <= una {
            return SackAck::Recovering { restart_timer: false };
        }
        if !b.cfg.partial_ack {
            b.pipe -= 1; // the resent packet and the original both left the network
            return SackAck::Recovering { restart_timer: true };
        }
        // Two packets at once, so a partial ACK does no worse than slow start.
        b.next_partial = b.next_partial.max(ack);
        let mut sent = 0;
        for _ in 0..2 {
            while b.next_partial < high && b.holds(b.next_partial) {
                b.next_partial += 1;
            }
            if b.next_partial >= high {
                break;
            }
            let s = b.next_partial;
            b.resent.ensure(ack, s);
            b.resent.set(s);
            b.next_partial += 1;
            self.retransmit.push_back(s);
            sent += 1;
        }
        let b = self.sack.as_deref_mut().expect("SACK flow");
        // ns-2 adds one for its two packets (having taken one for the ACK); fewer when the
        // cursor ran out of packets to resend.
        b.pipe += sent - 1;
        let restart_timer = !b.first_partial_done;
        b.first_partial_done = true;
        SackAck::Recovering { restart_timer }
    }

    /// The algorithm asked for a fast retransmission: recovery starts.
    #[inline(never)]
    pub(super) fn sack_enter(&mut self, now: SimTime) {
        let (una, high, dupacks) = (self.snd_una, self.high_sent, self.dupacks);
        let b = self.sack.as_deref_mut().expect("SACK flow");
        b.recovering = true;
        b.recover = high;
        b.pipe = (high - una) as i64 - dupacks as i64;
        b.next_hole = una;
        b.next_partial = una;
        b.first_partial_done = false;
        // Marks of an earlier recovery (holes in data it sent past its `recover`) must not
        // hide a hole from this one.
        b.resent.clear_all();
        b.resent.ensure(una, una);
        b.resent.set(una);
        self.retransmit.push_back(una);
        self.deadline = now + self.rtt.rto();
    }

    /// A timeout: recovery ends and the scoreboard empties.
    #[cold]
    pub(super) fn sack_on_timeout(&mut self) {
        if let Some(b) = self.sack.as_deref_mut() {
            b.recovering = false;
            b.forget_all();
        }
    }

    /// While recovering, the next packet pipe lets go, if any.
    #[inline(never)]
    pub(super) fn sack_next(&mut self, now: SimTime) -> Option<Transmission> {
        let (una, high) = (self.snd_una, self.high_sent);
        if self.sack.as_deref().expect("SACK flow").pipe >= self.usable_window() as i64 {
            return None;
        }
        let resend = if self.rescue_due(now) {
            Some(una)
        } else {
            let b = self.sack.as_deref_mut().expect("SACK flow");
            let (hole, cursor) = b.first_hole(una, high);
            b.next_hole = cursor;
            hole
        };
        let tx = match resend {
            Some(seq) => {
                if self.pacer.is_some() && !self.retransmission_slot(now) {
                    return None;
                }
                let b = self.sack.as_deref_mut().expect("SACK flow");
                b.resent.set(seq);
                self.transmit(seq, now, true, pair_code::UNPAIRED)
            }
            None => {
                if self.snd_nxt >= self.app_limit || self.snd_nxt >= self.snd_una + self.max_window as u64 {
                    return None;
                }
                self.send_new(now)?
            }
        };
        self.sack.as_deref_mut().expect("SACK flow").pipe += 1;
        Some(tx)
    }

    /// While recovering, whether `sack_next` will have a packet pipe lets go at `at` (the
    /// pacer's release test, `at` its next slot).
    pub(crate) fn sack_has_next(&self, at: SimTime) -> bool {
        let Some(b) = self.sack.as_deref().filter(|b| b.recovering) else { return false };
        if b.pipe >= self.usable_window() as i64 {
            return false;
        }
        self.rescue_due(at)
            || b.first_hole(self.snd_una, self.high_sent).0.is_some()
            || (self.snd_nxt < self.app_limit && self.snd_nxt < self.snd_una + self.max_window as u64)
    }

    /// The rescue rule: the oldest unacknowledged packet's last copy left more than `rescue`
    /// average RTTs before `at` (the algorithm's own average, else the smoothed RTT).
    fn rescue_due(&self, at: SimTime) -> bool {
        let Some(b) = self.sack.as_deref().filter(|b| b.cfg.rescue > 0.0) else { return false };
        match self.cc.average_rtt().or(self.rtt.srtt()) {
            Some(rtt) if self.snd_una < self.high_sent => {
                let last = self.slots.get(self.snd_una).last_tx;
                at.saturating_sub(last) as f64 > b.cfg.rescue * rtt as f64
            }
            _ => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::PS_PER_SEC as SEC;
    use crate::transport::cc::test_recorder::Recorder;
    use crate::transport::cc::{Algorithm, Cc};
    use crate::transport::config::TimerMode;
    use crate::transport::sender::NEVER;

    /// A sender with a fixed window of 10 (receiver window 1000) that asks for a fast
    /// retransmission at the third duplicate ACK, recovering with SACK.
    fn sender(partial_ack: bool, rescue: f64) -> Sender {
        let mut r = Recorder::build(&(), 1000);
        r.window = 10.0;
        r.fast_retransmit_at = 3;
        let mut s = Sender::new(Cc::from(r), 1000, Recorder::sender_defaults().rto, TimerMode::Single);
        s.enable_sack(SackConfig { partial_ack, rescue });
        s.app_limit = 1000;
        s
    }

    fn sent(s: &mut Sender, now: SimTime) -> Vec<(u64, bool)> {
        std::iter::from_fn(|| s.next_transmission(now)).map(|t| (t.seq, t.retransmission)).collect()
    }

    /// The receiver got `seq` (all of 0..ack before it): its ACK arrives at `now`.
    fn ack(s: &mut Sender, ack: u64, seq: u64, now: SimTime) {
        s.on_ack(ack, seq, 0, 0, false, false, 0, now);
    }

    fn pipe(s: &Sender) -> i64 {
        s.sack.as_ref().unwrap().pipe
    }

    #[test]
    fn three_losses_in_a_window_are_resent_by_pipe_in_one_recovery() {
        let mut s = sender(false, 0.0);
        let ms = SEC / 1000;
        assert_eq!(sent(&mut s, 0).len(), 10);
        // 2, 5 and 7 are lost. 0 and 1 arrive: the window slides to 12.
        ack(&mut s, 1, 0, 100 * ms);
        ack(&mut s, 2, 1, 101 * ms);
        assert_eq!(sent(&mut s, 101 * ms), [(10, false), (11, false)]);
        // 3, 4, 6: three duplicates that each report a new packet start the recovery.
        ack(&mut s, 2, 3, 102 * ms);
        ack(&mut s, 2, 4, 103 * ms);
        assert!(!s.sack_recovering());
        ack(&mut s, 2, 6, 104 * ms);
        assert!(s.sack_recovering());
        assert_eq!(pipe(&s), 12 - 2 - 3, "outstanding less the three that left");
        // The fast retransmission goes at once; pipe (7) < window (10): the hole 5 below the
        // highest packet reported (6), then new data.
        assert_eq!(sent(&mut s, 104 * ms), [(2, true), (5, true), (12, false), (13, false)]);
        assert_eq!(pipe(&s), 10);
        // 8 arrives: pipe 9, one more packet; 7 is a hole now (below 8) and goes first.
        ack(&mut s, 2, 8, 105 * ms);
        assert_eq!(sent(&mut s, 105 * ms), [(7, true)]);
        // A duplicate that repeats what is known counts nothing, in or out of recovery.
        ack(&mut s, 2, 8, 106 * ms);
        assert_eq!(pipe(&s), 9);
        // The resent 2 arrives: a partial ACK (up to 5) takes two from pipe and restarts the timer.
        ack(&mut s, 5, 2, 150 * ms);
        assert_eq!(pipe(&s), 7);
        assert_eq!(s.next_deadline(), 150 * ms + s.rtt.rto());
        assert_eq!(sent(&mut s, 150 * ms), [(14, false), (15, false), (16, false)]);
        // 5 and 7 arrive: the ACK passes recover (12) and recovery ends, no timeout.
        ack(&mut s, 7, 5, 151 * ms);
        assert!(s.sack_recovering());
        ack(&mut s, 12, 7, 152 * ms);
        assert!(!s.sack_recovering());
        assert_eq!(s.timeouts, 0);
        // From here the window rules: 12..17 outstanding, window 10: up to 21.
        assert_eq!(sent(&mut s, 152 * ms).len(), 5);
        assert_eq!(recorder_dups(&s), [1, 2, 3], "only the duplicates that reported new packets counted");
    }

    fn recorder_dups(s: &Sender) -> Vec<u32> {
        match &s.cc {
            Cc::TestRecorder(r) => r.dup_counts.clone(),
            _ => unreachable!(),
        }
    }

    #[test]
    fn partial_ack_sends_the_next_two_holes_and_restarts_the_timer_once() {
        let mut s = sender(true, 0.0);
        let ms = SEC / 1000;
        sent(&mut s, 0);
        // 1, 3 and 5 lost; 0 arrives, then 2, 4, 6 (three new reports): recovery.
        ack(&mut s, 1, 0, 100 * ms);
        sent(&mut s, 100 * ms); // 10
        for (i, seq) in [2u64, 4, 6].into_iter().enumerate() {
            ack(&mut s, 1, seq, (101 + i as u64) * ms);
        }
        assert!(s.sack_recovering());
        let first = sent(&mut s, 103 * ms);
        assert_eq!(first[..2], [(1, true), (3, true)]);
        let deadline = s.next_deadline();
        // The resent 1 arrives: a partial ACK to 3; two packets at once from its cursor: 3
        // (not known received) and 5.
        ack(&mut s, 3, 1, 150 * ms);
        let after = sent(&mut s, 150 * ms);
        assert_eq!(after[..2], [(3, true), (5, true)]);
        assert_eq!(s.next_deadline(), 150 * ms + s.rtt.rto(), "the first partial ACK restarts the timer");
        assert_ne!(s.next_deadline(), deadline);
        // The second partial ACK leaves it.
        let before = s.next_deadline();
        ack(&mut s, 5, 3, 160 * ms);
        assert_eq!(s.next_deadline(), before);
    }

    #[test]
    fn rescue_resends_the_oldest_hole_once_its_copy_is_old_and_timeout_clears_the_board() {
        let mut s = sender(false, 2.0);
        let ms = SEC / 1000;
        sent(&mut s, 0);
        ack(&mut s, 1, 0, 100 * ms); // srtt 100 ms
        sent(&mut s, 100 * ms);
        for (i, seq) in [2u64, 3, 4].into_iter().enumerate() {
            ack(&mut s, 1, seq, (101 + i as u64) * ms);
        }
        assert_eq!(sent(&mut s, 103 * ms)[0], (1, true));
        // The resent 1 is lost too. Later reports free pipe; once its copy is more than two
        // average RTTs old (200 ms), 1 goes again ahead of new data.
        ack(&mut s, 1, 5, 200 * ms);
        assert!(sent(&mut s, 200 * ms).iter().all(|&(q, _)| q != 1));
        ack(&mut s, 1, 6, 304 * ms);
        assert_eq!(sent(&mut s, 304 * ms).first(), Some(&(1, true)));
        // A timeout ends recovery and forgets what the receiver held.
        assert!(s.on_timer(s.next_deadline()));
        assert!(!s.sack_recovering());
        assert!(!s.sack.as_ref().unwrap().holds(5));
    }

    /// Review finding: holes an earlier recovery resent (in data it sent past its `recover`)
    /// must be resendable in the next one.
    #[test]
    fn a_hole_resent_in_one_recovery_is_resent_again_in_the_next() {
        let mut s = sender(false, 0.0);
        let ms = SEC / 1000;
        sent(&mut s, 0);
        // 0 lost; 1-3 arrive: recovery 1 (recover 10); new data 10-12 goes with the resent 0.
        for (i, q) in [1u64, 2, 3].into_iter().enumerate() {
            ack(&mut s, 0, q, (100 + i as u64) * ms);
        }
        assert_eq!(sent(&mut s, 103 * ms), [(0, true), (10, false), (11, false), (12, false)]);
        let mut t = 104;
        for q in 4u64..10 {
            ack(&mut s, 0, q, t * ms);
            sent(&mut s, t * ms);
            t += 1;
        }
        // 10 and 12 are lost; 11 and 13 arrive and both are resent; both copies are lost too.
        ack(&mut s, 0, 11, t * ms);
        assert_eq!(sent(&mut s, t * ms), [(10, true)]);
        ack(&mut s, 0, 13, (t + 1) * ms);
        assert_eq!(sent(&mut s, (t + 1) * ms), [(12, true)]);
        ack(&mut s, 0, 14, (t + 2) * ms);
        sent(&mut s, (t + 2) * ms);
        ack(&mut s, 10, 0, (t + 3) * ms); // the resent 0: recovery 1 ends
        assert!(!s.sack_recovering());
        sent(&mut s, (t + 3) * ms);
        // 15-17 arrive: recovery 2 resends 10 at once and then the hole 12.
        let mut all = vec![];
        for (i, q) in [15u64, 16, 17].into_iter().enumerate() {
            ack(&mut s, 10, q, (t + 4 + i as u64) * ms);
            all.extend(sent(&mut s, (t + 4 + i as u64) * ms));
        }
        assert!(s.sack_recovering());
        assert!(all.contains(&(10, true)) && all.contains(&(12, true)), "{all:?}");
    }

    /// Review finding: a paced flow recovering with nothing pipe would send must not ask for
    /// a pacing event in the past (the world re-armed it forever).
    #[test]
    fn a_paced_recovery_with_nothing_to_send_asks_for_no_pacing_event() {
        let mut r = Recorder::build(&(), 10);
        r.window = 10.0;
        r.fast_retransmit_at = 3;
        let mut s = Sender::new(Cc::from(r), 10, Recorder::sender_defaults().rto, TimerMode::Single);
        s.enable_sack(SackConfig { partial_ack: false, rescue: 0.0 });
        s.spread_over_rtt(crate::transport::config::PacingRtt::Srtt);
        s.app_limit = 1000;
        let ms = SEC / 1000;
        sent(&mut s, 0);
        ack(&mut s, 1, 0, 100 * ms); // srtt 100 ms: one packet every 10 ms
        let mut t = 100 * ms;
        while s.high_sent < 11 {
            sent(&mut s, t);
            t += 10 * ms;
        }
        // 1-10 outstanding, the receiver window (10) full; 1 is lost, 2-6 arrive.
        for q in 2u64..7 {
            ack(&mut s, 1, q, t);
            sent(&mut s, t);
            t += 10 * ms;
        }
        assert!(s.sack_recovering());
        let now = t + 500 * ms;
        assert!(s.next_transmission(now).is_none(), "no hole, no room in the receiver window");
        assert_eq!(s.pace_release(), NEVER);
        assert_eq!(s.pace_arm(now), None);
    }
}
