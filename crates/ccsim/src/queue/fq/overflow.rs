//! Fair Queueing's buffer overflow: which packet a full buffer drops, and what the drop does
//! to its conversation's finish number.
//!
//! Source: Keshav 1991 chapter 2 §2.2.2 (drop the last packet of the conversation holding the
//! most buffers), chapter 3 §3.2-3.3 (drop the packet with the largest bid), chapters 2, 3
//! and 6 on charging; digest shared/specs/keshav91-fq-packet-pair.md, gaps G8, A11.
//!
//! # Choices where the source is silent or contradicts itself (each a named parameter)
//! - `drop_policy`: `LongestQueueTail` (ch 2: drop the last packet of the conversation holding
//!   the most buffer space, measured in the buffer's unit) [REC, G8], or `MaxBid` (ch 3: drop
//!   the packet with the largest bid). Both insert first, then drop (ch 3's "the new packet may
//!   itself be dropped"; ch 2's "that can be the packet that just arrived"), so the arriving
//!   packet counts in its conversation's occupancy. Ties for the longest queue: the
//!   conversation whose tail has the largest bid, then the latest arrival [REC, A11]
//!   (`tie_break = "smallest_bid"` reverses the bid order). Ties on bids: the latest arrival is
//!   dropped. The packet in service is never a drop candidate and does not count in its
//!   conversation's occupancy.
//! - `charge_drops`: false [REC, G8]: F^α rolls back to the finish number of α's last kept
//!   packet (queued, or else last sent), and α goes inactive if that is ≤ R (what the
//!   chapter 6 simulations did). true: F^α is left unchanged, the dropper is charged (ch 2,
//!   and ch 3's F^α over every packet "ever queued"). "pushed_out" [EXT]: charged only when
//!   another conversation's arrival pushes α's queued tail out, not when α's own arrival is
//!   the packet refused (what an implementation that stamps a packet on arrival and then
//!   drops either the arrival or another's tail would do; keshav91 finding
//!   S7-jkfq-throughput).
//! - The `QueueDiscipline` trait reports one dropped packet per arrival. With packet-counted
//!   buffers one drop always suffices. With byte-counted buffers, if dropping the chosen
//!   victim's tail does not make room, the arriving packet is dropped instead (the thesis would
//!   drop several packets).
//!
//! Drop candidates are the backlogged conversations, in a heap by [`VictimKey`]: under either
//! policy the packet to drop is the tail of the conversation with the largest key (bids rise
//! within a conversation, so the largest bid is some conversation's tail).

use crate::queue::key_heap::Slot;
use super::{ChargeDrops, Conv, Entry, FairQueue, InSched};
use crate::queue::{BufferLimit, InService};
use std::cmp::Reverse;

/// A conversation's position in the heap of drop candidates.
pub(super) struct InVictims;
impl Slot for InVictims {
    type Item = Conv;
    #[inline]
    fn pos(c: &mut Conv) -> &mut u32 {
        &mut c.victim_pos
    }
}

/// What the drop-candidate heap orders conversations by.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum VictimKind {
    /// Unlimited buffer: no heap.
    None,
    LongestPkts,
    LongestBytes,
    MaxBid,
}

/// Drop-candidate key (largest first): (occupancy in the buffer's unit, or 0 under the
/// largest-bid policy; tail bid; tail arrival order).
pub(super) type VictimKey = Reverse<(u64, u128, u64)>;

#[inline]
fn victim_key(kind: VictimKind, c: &Conv, tie_smallest_bid: bool) -> VictimKey {
    let e = c.queue.back().unwrap();
    let occupancy = match kind {
        VictimKind::LongestPkts => c.queue.len() as u64,
        VictimKind::LongestBytes => c.bytes,
        _ => 0,
    };
    if tie_smallest_bid && kind != VictimKind::MaxBid {
        Reverse((occupancy, u128::MAX - e.bid, u64::MAX - e.seq))
    } else {
        Reverse((occupancy, e.bid, e.seq))
    }
}

impl FairQueue {
    #[inline]
    pub(super) fn victim_push(&mut self, id: u32) {
        if self.victim_kind != VictimKind::None {
            let k = victim_key(self.victim_kind, &self.convs[id as usize], self.tie_smallest_bid);
            self.victims.push::<InVictims>(&mut self.convs, id, k);
        }
    }

    #[inline]
    pub(super) fn victim_remove(&mut self, id: u32) {
        if self.victim_kind != VictimKind::None {
            self.victims.remove::<InVictims>(&mut self.convs, id);
        }
    }

    #[inline]
    pub(super) fn victim_update(&mut self, id: u32) {
        if self.victim_kind != VictimKind::None {
            let k = victim_key(self.victim_kind, &self.convs[id as usize], self.tie_smallest_bid);
            self.victims.set::<InVictims>(&mut self.convs, id, k);
        }
    }

    /// Occupancy beyond the limit, counting the packet in service if configured.
    #[inline]
    pub(super) fn over_limit(&self, tx: InService) -> bool {
        !self.limit.fits(self.pkts as u64, self.bytes, self.count_in_service, tx)
    }

    /// The buffer overflowed after the arrival of `arrival` (already queued, in conversation
    /// `id`): drop one packet, the tail of the conversation with the largest drop key.
    /// Returns the dropped entry.
    pub(super) fn overflow(&mut self, arrival: &Entry, id: u32, tx: InService) -> Entry {
        let mut victim = self.victims.top().unwrap();
        if let BufferLimit::Bytes(b) = self.limit {
            // One drop per arrival (the trait reports one packet): if the victim's tail does
            // not make room, drop the arrival instead.
            let svc = if self.count_in_service { tx.bytes.unwrap_or(0) as u64 } else { 0 };
            let tail = self.convs[victim as usize].queue.back().unwrap();
            if tail.pkt != arrival.pkt && self.bytes - tail.bytes as u64 + svc > b {
                victim = id;
            }
        }
        let charge = match self.charge_drops {
            ChargeDrops::Never => false,
            ChargeDrops::Always => true,
            ChargeDrops::PushedOut => self.convs[victim as usize].queue.back().is_some_and(|t| t.pkt != arrival.pkt),
        };
        self.drop_tail(victim, charge)
    }

    /// Drop the last queued packet of conversation `id`; `charge`: leave F^α as it is.
    fn drop_tail(&mut self, id: u32, charge: bool) -> Entry {
        let c = &mut self.convs[id as usize];
        let e = c.queue.pop_back().expect("drop from an empty conversation");
        c.bytes -= e.bytes as u64;
        let empty = c.queue.is_empty();
        self.pkts -= 1;
        self.bytes -= e.bytes as u64;
        if empty {
            self.sched.remove::<InSched>(&mut self.convs, id);
            self.victim_remove(id);
        } else {
            // The head (and so the sending order) is unchanged; the drop key fell.
            self.victim_update(id);
        }
        if !charge {
            // Roll F^α back to the finish number of the last kept packet.
            let c = &mut self.convs[id as usize];
            c.f = c.queue.back().map_or(c.last_sent_f, |t| t.f);
            self.br.rolled_back(&mut self.convs, id);
        }
        e
    }
}
