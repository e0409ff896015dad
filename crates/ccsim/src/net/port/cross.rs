//! A port on a link between the two halves of a parallel run (`scenario::parallel`).
//!
//! The thread that owns the port (its `from` node's) queues and transmits as usual, but the
//! packets it puts on the line stay in the pipe without an event; at the window's end they
//! are taken out (`drain_pipe`) and handed to the other thread, whose copy of the port takes
//! them into its own pipe (`inject`) and delivers them at their arrival times. The lookahead
//! guarantees those times lie in the windows still to come.

use super::{feature, Port};
use crate::net::{Packet, PacketArena};
use crate::sim::{EventKind, EventQueue, SimTime};

impl Port {
    /// Mark the port as leading to the other thread's half.
    pub fn set_cross(&mut self, on: bool) {
        self.set_feature(feature::CROSS, on);
    }

    /// Move every packet on the line out of the arena into `out`, tagged with the port `id`,
    /// oldest first.
    pub fn drain_pipe(&mut self, id: u32, arena: &mut PacketArena, out: &mut Vec<(u32, Packet)>) {
        while let Some(p) = self.pipe.pop_front() {
            out.push((id, *arena.get(p)));
            arena.free(p);
        }
    }

    /// A packet the other thread put on this line: into the pipe, to arrive at its
    /// `arrive_at` (no earlier than `now`, by the lookahead). Behind the packets arriving no
    /// later: a line of several channels can finish a short packet of the next window before
    /// a long one of this window (its pipe checks arrival times, so the displaced head's event
    /// goes stale as in `trunk.rs`).
    pub fn inject(&mut self, id: u32, pkt: Packet, arena: &mut PacketArena, now: SimTime, events: &mut EventQueue) {
        debug_assert!(pkt.arrive_at >= now, "a packet from the other half arrives in the past");
        let _ = now;
        let arrive = pkt.arrive_at;
        let mut at = self.pipe.len();
        while at > 0 && arena.get(self.pipe.get(at - 1)).arrive_at > arrive {
            at -= 1;
        }
        if at == 0 {
            events.schedule(arrive, EventKind::PipeArrival, id);
        }
        let p = arena.alloc(pkt);
        self.pipe.insert(at, p);
    }
}
