//! The sender's retransmission timers: when the next must fire, and what an expiry does (one
//! connection timer, BSD's or RFC 6298's, or a timer per packet, doubling or not).

use super::{Sender, MAX_PACKET_BACKOFF, NEVER};
use crate::sim::SimTime;
use crate::transport::cc::{CongestionControl, TimeoutInfo};
use crate::transport::config::TimerMode;

impl Sender {
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
            TimerMode::Single | TimerMode::SingleBsd => {
                if self.deadline > now {
                    return false;
                }
                let flight = self.snd_nxt.max(self.snd_una) - self.snd_una;
                let repeated = self.rtt.expired_unanswered();
                self.cc.on_timeout(&TimeoutInfo { now, flight, high_sent: self.high_sent, seq: self.snd_una, repeated });
                self.rtt.on_expiry();
                self.snd_nxt = self.snd_una; // go back to the oldest unacknowledged packet
                self.retransmit.clear();
                self.dupacks = 0;
                self.deadline = NEVER; // re-armed by the retransmission
                self.timeouts += 1;
                self.sack_on_timeout();
                true
            }
            TimerMode::PerPacket | TimerMode::PerPacketDoubling => {
                // The packets whose deadlines have passed, from the deadline heap (stale
                // entries dropped on the way), resent in sequence order.
                let doubling = self.timer_mode == TimerMode::PerPacketDoubling;
                let (lo, hi) = (self.snd_una, self.high_sent);
                let mut due = self.slots.take_scratch();
                while let Some((d, s)) = self.slots.earliest_deadline(lo, hi) {
                    if d > now {
                        break;
                    }
                    self.slots.pop_deadline();
                    self.slots.get_mut(s).deadline = NEVER; // set again when it is resent
                    due.push(s);
                }
                due.sort_unstable();
                for &s in &due {
                    self.retransmit.push_back(s);
                    if doubling {
                        let b = self.slots.backoff(s);
                        self.slots.set_backoff(s, (b + 1).min(MAX_PACKET_BACKOFF));
                    }
                }
                let expired = due.first().copied();
                self.slots.put_scratch(due);
                self.deadline = self.slots.earliest_deadline(lo, hi).map_or(NEVER, |(d, _)| d);
                if let Some(seq) = expired {
                    let flight = self.snd_nxt.max(self.snd_una) - self.snd_una;
                    let repeated = self.rtt.expired_unanswered();
                    self.cc.on_timeout(&TimeoutInfo { now, flight, high_sent: self.high_sent, seq, repeated });
                    self.rtt.on_expiry();
                    self.timeouts += 1;
                    self.sack_on_timeout();
                }
                expired.is_some()
            }
        }
    }

    /// The per-packet timer deadline of `seq` (NEVER when not running); for tests and traces.
    pub fn packet_deadline(&self, seq: u64) -> SimTime {
        if seq < self.snd_una || seq >= self.high_sent || matches!(self.timer_mode, TimerMode::Single | TimerMode::SingleBsd) {
            return NEVER;
        }
        self.slots.get(seq).deadline
    }
}
