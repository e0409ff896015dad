//! Pacing beside the window, for rate-based algorithms (packet-pair).
//!
//! When the algorithm returns a [`Pacing`] rule, new data leaves only in bursts of `burst`
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
//! The pacing state is boxed and exists only for algorithms that pace. The world arms one
//! `PaceTick` per flow for the next release, lazily like the timers: an event that fires
//! early re-arms, and when a higher rate moves the release earlier an earlier event is added
//! and the later one fires as a no-op.

use super::cc::{CongestionControl, PaceAdjust, Pacing};
use super::sender::{Sender, NEVER};
use crate::net::packet::pair_code;
use crate::sim::SimTime;

/// Pacing state of a paced flow (boxed; absent for window flows).
#[derive(Clone, Debug)]
pub(super) struct Pacer {
    /// Start time of the last burst, if any burst has started.
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
}

impl Pacer {
    pub(super) fn new() -> Self {
        Pacer { last_start: None, len: 0, sent: 0, skip: 0, extra: 0, armed_at: NEVER }
    }

    /// Add an algorithm's one-off schedule change to what is still pending.
    pub(super) fn adjust(&mut self, a: PaceAdjust) {
        self.skip = self.skip.saturating_add(a.skip);
        self.extra = self.extra.saturating_add(a.extra);
    }
}

impl Sender {
    /// Paced flow with a packet the window and the application allow: None if pacing holds
    /// it back, else the code of the packet (its place in the current burst).
    #[inline]
    pub(super) fn paced_code(&mut self, now: SimTime) -> Option<u8> {
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

    /// After a pump: Some(t) if the world must schedule a pacing event at t (none is armed
    /// at or before t). Records t as armed.
    #[inline]
    pub fn pace_arm(&mut self) -> Option<SimTime> {
        let t = self.pace_release();
        let p = self.pacer.as_mut()?;
        if t != NEVER && t < p.armed_at {
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
