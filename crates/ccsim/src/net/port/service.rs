//! Service that is not "start the next packet when the line frees".
//!
//! Preemption (Keshav 1991 §2.2, preemptive FQ): an arrival that outbids the packet on the line
//! stops it. The stopped packet leaves the pipe and goes back to its queue with the exact
//! transmission time it has left; the events scheduled for it go stale and are recognised by
//! their time (`on_tx_done`, `on_pipe_arrival`; only preemptive ports check), so nothing is
//! cancelled.
//!
//! Holding: a non-work-conserving discipline (HRR) may give an idle line no packet while it
//! holds some; it says when the next may go, and a `PortWake` event then asks again. The
//! earliest wake-up asked for is the one that counts (later events go stale); one that finds
//! the line busy does nothing (the line's own `TxDone` asks when it frees).

use super::{feature, set_bit, state, Port, BIT_PS};
use crate::net::PacketArena;
use crate::queue::QueueDiscipline;
use crate::sim::{EventKind, EventQueue, SimTime};

impl Port {
    /// Make the port preempt when its discipline asks (preemptive FQ).
    pub fn set_preemptive(&mut self, on: bool) {
        set_bit(&mut self.state, state::PREEMPTIVE, on);
        if on {
            self.state |= state::PIPE_CHECKS_TIME;
        }
        if on {
            self.extras_mut();
        }
    }

    /// The line is idle and the discipline gave nothing: if it holds packets (a
    /// non-work-conserving one), look again when it says the next may go. An arrival may make
    /// that sooner than the wake-up already armed (a faster level's channel in HRR): the
    /// earlier one is armed and the later event goes stale.
    #[cold]
    pub(super) fn hold(&mut self, now: SimTime, events: &mut EventQueue, id: u32) {
        if self.qdisc.len_packets() == 0 {
            return;
        }
        let Some(t) = self.qdisc.next_eligible(now) else { return };
        let t = t.max(now);
        let e = self.extras_mut();
        if e.wake_at.is_none_or(|w| t < w) {
            e.wake_at = Some(t);
            events.schedule(t, EventKind::PortWake, id);
        }
    }

    /// The discipline's rates changed (BBN's rations): if the line is idle, look again when
    /// what it holds may go.
    #[cold]
    pub fn reconsider(&mut self, now: SimTime, events: &mut EventQueue, id: u32) {
        if now >= self.busy_until && !self.txdone_pending {
            self.hold(now, events, id);
        }
    }

    /// A wake-up `hold` armed (a stale one, superseded by an earlier, does nothing).
    pub fn on_wake(&mut self, arena: &mut PacketArena, now: SimTime, events: &mut EventQueue, id: u32) {
        let e = self.extras_mut();
        if e.wake_at != Some(now) {
            return;
        }
        e.wake_at = None;
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::PacketKind;
    use crate::queue::fq::testkit::packet;
    use crate::queue::hrr::{Hrr, HrrConfig, Positions};
    use crate::queue::{BufferLimit, Qdisc};
    use crate::sim::PS_PER_SEC;

    const MS: SimTime = PS_PER_SEC / 1000;

    /// Drive one port with `offers` (time, flow) of 1000-byte packets; the start time of each
    /// packet put on the line, per flow.
    fn starts(q: Hrr, mut offers: Vec<(SimTime, u32)>) -> Vec<(u32, SimTime)> {
        let mut port = Port::new(0, 1, 8_000_000, 0, Qdisc::from(q));
        let (mut arena, mut events, mut out) = (PacketArena::new(), EventQueue::new(), vec![]);
        offers.sort_by_key(|o| std::cmp::Reverse(o.0));
        loop {
            let next_event = events.peek_time();
            match (next_event, offers.last().map(|o| o.0)) {
                (_, Some(t)) if next_event.is_none_or(|e| t <= e) => {
                    let (t, f) = offers.pop().unwrap();
                    let p = arena.alloc(packet(f, PacketKind::Data, 1000, t));
                    port.receive(p, &mut arena, t, &mut events, 0);
                }
                (Some(_), _) => {
                    let ev = events.pop().unwrap();
                    match ev.kind() {
                        EventKind::TxDone => port.on_tx_done(&mut arena, ev.time, &mut events, 0),
                        EventKind::PortWake => port.on_wake(&mut arena, ev.time, &mut events, 0),
                        EventKind::PipeArrival => {
                            if let Some(p) = port.on_pipe_arrival(&arena, ev.time, &mut events, 0) {
                                out.push((arena.get(p).flow, ev.time - MS)); // 1 ms on the line
                                arena.free(p);
                            }
                        }
                        _ => {}
                    }
                }
                _ => return out,
            }
        }
    }

    #[test]
    fn a_held_port_wakes_at_the_earliest_time_a_packet_may_go() {
        // HRR at 8 Mb/s (1 ms slots, positions "any"): flow 0 has 3 slots of each 10 ms level-1
        // frame, flow 1 5 slots of each 100 ms level-2 frame. Flow 1's six packets at 0: five go,
        // then the port holds the sixth until 100 ms. Flow 0's four at 6 ms: three go, and the
        // fourth must wake the port at 10 ms, before the wake-up already armed for 100 ms.
        let cfg = HrrConfig { slot_bytes: 1000, levels: vec![(10, 2), (20, 0)], positions: Positions::Any };
        let mut q = Hrr::new(&cfg, BufferLimit::Unlimited, false, 8_000_000);
        q.routed(0, PacketKind::Data, 1, 2_000_000).unwrap();
        q.routed(1, PacketKind::Data, 1, 400_000).unwrap();
        let mut offers: Vec<(SimTime, u32)> = vec![(0, 1); 6];
        offers.extend([(6 * MS, 0); 4]);
        let s = starts(q, offers);
        let of = |f: u32| s.iter().filter(|x| x.0 == f).map(|x| x.1 / MS).collect::<Vec<_>>();
        assert_eq!(of(1), [0, 1, 2, 3, 4, 100]);
        assert_eq!(of(0), [6, 7, 8, 10]);
    }

    #[test]
    fn a_held_port_wakes_at_each_owned_slot() {
        // HRR's own slot places (positions "spread"), one level of 10 slots of 1 ms: flow 0 has
        // slots 0, 3 and 6 of each frame. Four packets at 0 start at 0, 3 and 6 ms and the next
        // frame's 10 ms; one more at 11 ms waits for slot 13; one at 17.5 ms for frame 2's 20.
        let cfg = HrrConfig { slot_bytes: 1000, levels: vec![(10, 0)], positions: Positions::Spread };
        let mut q = Hrr::new(&cfg, BufferLimit::Unlimited, false, 8_000_000);
        q.routed(0, PacketKind::Data, 1, 2_400_000).unwrap();
        let mut offers: Vec<(SimTime, u32)> = vec![(0, 0); 4];
        offers.extend([(11 * MS, 0), (17 * MS + MS / 2, 0)]);
        let s = starts(q, offers);
        assert_eq!(s.iter().map(|x| x.1 / (MS / 10)).collect::<Vec<_>>(), [0, 30, 60, 100, 130, 200]);
    }
}
