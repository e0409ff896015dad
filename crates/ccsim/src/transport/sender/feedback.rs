//! Explicit feedback from routers (SEIF, Source Quench): what the algorithm makes of it and the
//! retransmission it may ask for, at once or once the window has room.

use super::Sender;
use super::NEVER;
use crate::net::packet::pair_code;
use crate::sim::SimTime;
use crate::transport::cc::{CongestionControl, Feedback};
use crate::transport::config::TimerMode;
use crate::transport::Transmission;

/// Marks a `retransmit` entry that waits for room in the window (`Resend::wait_for_window`);
/// sequence numbers never reach it.
pub(crate) const WAITS_FOR_WINDOW: u64 = 1 << 63;

impl Sender {
    /// Explicit feedback from a router reached the source. If the algorithm asks for the
    /// packet it names, that packet goes ahead of new data: now, whatever the window (as a fast
    /// retransmission does), and a single connection timer restarts from it, so the original
    /// transmission's timeout no longer counts; or, if the algorithm says it waits for the
    /// window, once the window has room (fewer packets outstanding than the window allows),
    /// the timer running on meanwhile.
    pub fn on_feedback(&mut self, fb: &Feedback) {
        let resend = self.cc.on_feedback(&Feedback { outstanding: self.outstanding(), ..*fb });
        if let Some(r) = resend.filter(|r| r.seq >= self.snd_una && r.seq < self.high_sent) {
            if r.wait_for_window {
                self.retransmit.push_back(r.seq | WAITS_FOR_WINDOW);
            } else {
                self.retransmit.push_back(r.seq);
                if matches!(self.timer_mode, TimerMode::Single | TimerMode::SingleBsd) {
                    self.deadline = NEVER; // re-armed by the retransmission
                }
            }
        }
    }

    /// The first retransmission queued behind a waiting one that goes whatever the window.
    #[cold]
    pub(super) fn unconditional_retransmission(&mut self, now: SimTime) -> Option<Transmission> {
        let (una, high) = (self.snd_una, self.high_sent);
        let i = self.retransmit.iter().position(|&e| e & WAITS_FOR_WINDOW == 0 && e >= una && e < high)?;
        if self.pacer.is_some() && !self.retransmission_slot(now) {
            return None;
        }
        let seq = self.retransmit.remove(i)?;
        Some(self.transmit(seq, now, true, pair_code::UNPAIRED))
    }
}
