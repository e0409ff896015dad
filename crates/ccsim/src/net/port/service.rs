//! Service that is not "start the next packet when the line frees".
//!
//! Preemption (Keshav 1991 §2.2, preemptive FQ): an arrival that outbids the packet on the line
//! stops it. The stopped packet leaves the pipe and goes back to its queue with the exact
//! transmission time it has left; the events scheduled for it go stale and are recognised by
//! their time (`on_tx_done`, `on_pipe_arrival`; only preemptive ports check), so nothing is
//! cancelled.
//!
//! Holding: a non-work-conserving discipline (HRR) may give an idle line no packet while it
//! holds some; it says when the next may go, and a `PortWake` event then asks again. At most
//! one wake-up is armed; one that finds the line busy does nothing (the line's own `TxDone`
//! asks when it frees).

use super::{feature, Port, BIT_PS};
use crate::net::PacketArena;
use crate::queue::QueueDiscipline;
use crate::sim::{EventKind, EventQueue, SimTime};

impl Port {
    /// Make the port preempt when its discipline asks (preemptive FQ).
    pub fn set_preemptive(&mut self, on: bool) {
        self.preemptive = on;
        self.pipe_checks_time |= on;
        if on {
            self.extras_mut();
        }
    }

    /// The line is idle and the discipline gave nothing: if it holds packets (a
    /// non-work-conserving one), look again when it says the next may go.
    #[cold]
    pub(super) fn hold(&mut self, now: SimTime, events: &mut EventQueue, id: u32) {
        if self.wake_pending || self.qdisc.len_packets() == 0 {
            return;
        }
        if let Some(t) = self.qdisc.next_eligible(now) {
            self.wake_pending = true;
            events.schedule(t.max(now), EventKind::PortWake, id);
        }
    }

    /// The wake-up `hold` armed.
    pub fn on_wake(&mut self, arena: &mut PacketArena, now: SimTime, events: &mut EventQueue, id: u32) {
        self.wake_pending = false;
        if now < self.busy_until || self.txdone_pending {
            return; // the line is busy: its own TxDone looks again
        }
        if self.features & feature::ACCOUNTING != 0 {
            self.account(now);
        }
        self.kick(false, arena, now, events, id);
    }

    /// Stop the packet on the line (it is the newest in the pipe), hand it back to the
    /// discipline with what it has left, and start the packet that outbid it. The events
    /// already scheduled for the stopped packet go stale: `on_tx_done` and
    /// `on_pipe_arrival` ignore an event whose time no longer matches.
    #[cold]
    pub(super) fn preempt(&mut self, arena: &mut PacketArena, now: SimTime, events: &mut EventQueue, id: u32) {
        let stopped = self.pipe.pop_back().expect("a busy port has its packet in the pipe");
        let left = self.busy_until - now;
        let size = arena.get(stopped).size;
        self.stats.departures -= 1;
        self.stats.bytes_departed -= size as u64;
        self.stats.busy_ps -= left;
        let left_bytes = ((left as u128 * self.bandwidth_bps() as u128).div_ceil(BIT_PS as u128)) as u32;
        self.qdisc.preempt(left_bytes.clamp(1, size));
        let resume = &mut self.extras_mut().resume;
        match resume.iter_mut().find(|(p, _)| *p == stopped) {
            Some(entry) => entry.1 = left,
            None => resume.push((stopped, left)),
        }
        self.busy_until = now;
        let next = self.qdisc.dequeue(arena, now).expect("the preempting packet is queued");
        self.start_tx(next, arena, now, events, id);
        events.schedule(self.busy_until, EventKind::TxDone, id);
        self.txdone_pending = true;
    }
}
