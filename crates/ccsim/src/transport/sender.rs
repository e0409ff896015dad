//! The sending end of a reliable window flow.
//!
//! Owns the sequence space (in packets), retransmission, RTT estimation and timers, once for
//! every congestion-control algorithm (DESIGN.md). The algorithm only sets the window and
//! says when to retransmit early.
//!
//! Timers are lazy: the sender keeps its deadlines and the world keeps at most one armed
//! event per flow; a timer event that fires before the current deadline is re-armed rather
//! than cancelled, so restarting the RTO on every ACK costs no event-queue operation.

use super::cc::{AckInfo, AckResponse, Cc, CongestionControl};
use super::rtt::{RtoConfig, RttEstimator, SampleFrom};
use super::seqspace::SlotRing;
use crate::sim::SimTime;
use std::collections::VecDeque;

pub const NEVER: SimTime = SimTime::MAX;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TimerMode {
    /// One retransmission timer per connection, for the oldest unacknowledged packet (BSD).
    Single,
    /// Every outstanding packet has its own timer; exactly the expired packets are resent.
    PerPacket,
}

/// A packet the sender wants on the wire now.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Transmission {
    pub seq: u64,
    pub first_tx: SimTime,
    pub retransmission: bool,
}

/// What an arriving ACK did, for measurement.
#[derive(Clone, Copy, Debug)]
pub struct AckOutcome {
    /// The RTT sample this protocol reports (from first or last transmission, as its
    /// estimator measures), in picoseconds.
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
    retransmit: VecDeque<u64>,
    /// Time of the earliest armed timer event in the world's queue (NEVER if none).
    pub timer_armed_at: SimTime,
    /// Count of timeouts (expiry events that caused retransmissions).
    pub timeouts: u64,
}

impl Sender {
    pub fn new(cc: Cc, max_window: u32, rto: RtoConfig, timer_mode: TimerMode) -> Self {
        Sender {
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
            slots: SlotRing::new(8),
            retransmit: VecDeque::new(),
            timer_armed_at: NEVER,
            timeouts: 0,
        }
    }

    /// The window the sender may have outstanding now, in packets.
    #[inline]
    pub fn usable_window(&self) -> u64 {
        let w = self.cc.cwnd().floor().max(1.0) as u64;
        w.min(self.max_window as u64)
    }

    #[inline]
    pub fn outstanding(&self) -> u64 {
        self.high_sent - self.snd_una
    }

    /// The next packet to put on the wire now, if any. Call repeatedly until None.
    #[inline]
    pub fn next_transmission(&mut self, now: SimTime) -> Option<Transmission> {
        while let Some(seq) = self.retransmit.pop_front() {
            if seq >= self.snd_una && seq < self.high_sent {
                return Some(self.transmit(seq, now, true));
            }
        }
        if self.snd_nxt < self.app_limit && self.snd_nxt < self.snd_una + self.usable_window() {
            let seq = self.snd_nxt;
            self.snd_nxt += 1;
            let first = seq >= self.high_sent;
            if first {
                self.high_sent = seq + 1;
                self.slots.ensure(self.snd_una, self.high_sent);
                self.slots.get_mut(seq).first_tx = now;
            }
            return Some(self.transmit(seq, now, !first));
        }
        None
    }

    #[inline]
    fn transmit(&mut self, seq: u64, now: SimTime, retransmission: bool) -> Transmission {
        match self.timer_mode {
            TimerMode::Single => {
                if self.deadline == NEVER {
                    self.deadline = now + self.rtt.rto();
                }
            }
            TimerMode::PerPacket => {
                let d = now + self.rtt.rto();
                self.slots.get_mut(seq).deadline = d;
                self.deadline = self.deadline.min(d);
            }
        }
        Transmission { seq, first_tx: self.slots.get(seq).first_tx, retransmission }
    }

    /// An ACK arrived. `echo_*` are the fields of the data packet that caused it.
    #[inline]
    pub fn on_ack(&mut self, ack: u64, echo_tx: SimTime, echo_first_tx: SimTime, echo_retx: bool, ce: bool, now: SimTime) -> AckOutcome {
        let from = match self.rtt.cfg.sample_from {
            SampleFrom::First => echo_first_tx,
            SampleFrom::Last => echo_tx,
        };
        let rtt_sample = now - from;
        self.cc.on_ack_signal(ce);
        let info = AckInfo {
            now,
            newly_acked: ack.saturating_sub(self.snd_una),
            ack,
            flight_before: self.snd_nxt.max(self.snd_una) - self.snd_una,
            high_sent: self.high_sent,
            ce,
        };
        if ack > self.snd_una {
            if !(self.rtt.cfg.karn && echo_retx) {
                self.rtt.sample(rtt_sample);
            }
            self.snd_una = ack;
            if self.snd_nxt < self.snd_una {
                self.snd_nxt = self.snd_una;
            }
            self.dupacks = 0;
            if self.cc.on_new_ack(&info) == AckResponse::RetransmitFirstUnacked && self.snd_una < self.high_sent {
                self.retransmit.push_back(self.snd_una);
            }
            if self.timer_mode == TimerMode::Single {
                self.deadline = if self.snd_una < self.high_sent { now + self.rtt.rto() } else { NEVER };
            }
        } else if ack == self.snd_una && self.snd_una < self.high_sent {
            self.dupacks += 1;
            if self.cc.on_dup_ack(self.dupacks, &info) {
                self.retransmit.push_back(self.snd_una);
            }
        }
        AckOutcome { rtt_sample }
    }

    /// The earliest time at which a timer must fire (NEVER if no timer is running).
    #[inline]
    pub fn next_deadline(&self) -> SimTime {
        self.deadline
    }

    /// A timer event fired at `now`. Returns true if it expired a timer (packets will be
    /// retransmitted); false if it fired early (the caller re-arms at `next_deadline`).
    pub fn on_timer(&mut self, now: SimTime) -> bool {
        if self.snd_una >= self.high_sent {
            self.deadline = NEVER;
            return false;
        }
        match self.timer_mode {
            TimerMode::Single => {
                if self.deadline > now {
                    return false;
                }
                let flight = self.snd_nxt.max(self.snd_una) - self.snd_una;
                self.cc.on_timeout(flight, self.high_sent);
                self.rtt.on_expiry();
                self.snd_nxt = self.snd_una; // go back to the oldest unacknowledged packet
                self.retransmit.clear();
                self.dupacks = 0;
                self.deadline = NEVER; // re-armed by the retransmission
                self.timeouts += 1;
                true
            }
            TimerMode::PerPacket => {
                let mut expired = false;
                let mut earliest = NEVER;
                for s in self.snd_una..self.high_sent {
                    let slot = self.slots.get_mut(s);
                    if slot.deadline <= now {
                        slot.deadline = NEVER; // set again when it is resent
                        self.retransmit.push_back(s);
                        expired = true;
                    } else {
                        earliest = earliest.min(slot.deadline);
                    }
                }
                self.deadline = earliest;
                if expired {
                    let flight = self.snd_nxt.max(self.snd_una) - self.snd_una;
                    self.cc.on_timeout(flight, self.high_sent);
                    self.rtt.on_expiry();
                    self.timeouts += 1;
                }
                expired
            }
        }
    }

    /// Approximate heap memory of this sender's rings.
    pub fn memory_bytes(&self) -> usize {
        self.slots.memory_bytes() + self.retransmit.capacity() * 8
    }
}
