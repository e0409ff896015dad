//! Liang 1991 §6.1's second remedy for duplicate feedback on a path of several bottlenecks:
//! "a special bit in each data packet. When a router wants to send feedbacks, it checks the
//! special bits of the packets in its queue. If the bit of a packet is set, the router would
//! not send feedback to the source of the packet. Otherwise, feedback is sent and the special
//! bits are set for all the packets from the same source in the queue." The thesis proposes it
//! as future work and never ran it.
//!
//! Choices where the text is silent: the bit is `xflags::FED_BACK` on data packets (ACKs are
//! never looked at); a source with no packet waiting here has none carrying the bit and is told;
//! the rule covers every message, so a message that names a dropped packet is withheld too
//! when its source is blocked, and that loss is left to the source's implicit signals (as the
//! filter leaves it when disarmed). Only the packets waiting here are marked: the one on the
//! line has left the queue. The bit a router set at one crossing also holds back its own next
//! crossing's message while those packets wait, so on one bottleneck it acts as a second
//! filter. A crossing whose messages are all withheld still disarms the filter: the router
//! did what the rule allows for that wave.

use crate::net::packet::xflags;
use crate::net::{PacketArena, PacketKind};
use crate::queue::random_drop::RandomDrop;
use crate::queue::{QueueDiscipline, Signal};
use super::reach::withhold;

/// Per-flow marks, by stamp (a new stamp clears them all at once).
#[derive(Default)]
pub(super) struct FedBackGuard {
    stamp: u64,
    /// Flow f has a waiting packet with the bit: `blocked[f] == stamp`.
    blocked: Vec<u64>,
    /// Flow f is told this time: `told[f] == stamp`.
    told: Vec<u64>,
    /// Messages withheld so far.
    pub(super) withheld: u64,
}

impl FedBackGuard {
    /// Withhold the signals `pending[from..]` for sources that have a fed-back packet waiting
    /// in `queue`, and set the bit on every waiting packet of the sources told.
    pub(super) fn apply(&mut self, queue: &RandomDrop, arena: &mut PacketArena, pending: &mut Vec<Signal>, from: usize) {
        self.stamp += 1;
        let stamp = self.stamp;
        let (blocked, told) = (&mut self.blocked, &mut self.told);
        queue.for_each(&mut |id| {
            let p = arena.get(id);
            if p.kind == PacketKind::Data && p.xflags & xflags::FED_BACK != 0 {
                let f = p.flow as usize;
                if f >= blocked.len() {
                    blocked.resize(f + 1, 0);
                }
                blocked[f] = stamp;
            }
        });
        self.withheld += withhold(pending, from, |sig| {
            let f = sig.flow as usize;
            if blocked.get(f) == Some(&stamp) {
                return true;
            }
            if f >= told.len() {
                told.resize(f + 1, 0);
            }
            told[f] = stamp;
            false
        });
        queue.for_each(&mut |id| {
            let p = arena.get_mut(id);
            if p.kind == PacketKind::Data && told.get(p.flow as usize) == Some(&stamp) {
                p.xflags |= xflags::FED_BACK;
            }
        });
    }

    pub(super) fn memory_bytes(&self) -> usize {
        (self.blocked.capacity() + self.told.capacity()) * 8
    }
}
