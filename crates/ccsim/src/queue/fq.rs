//! Fair Queueing (FQ), with weights, the promptness parameter δ and both overflow policies.
//!
//! Source: Keshav 1991, "Congestion Control in Computer Networks" (UC Berkeley PhD thesis),
//! chapter 2 §2.2.2 (definition: bit-by-bit round robin BR, round number R(t), finish numbers
//! F, bids B = P + max(F^α, R − δ), drop from the conversation holding the most buffers,
//! preemptive vs non-preemptive), §2.3 (weighted FQ), chapter 3 §3.2-3.3 (per-conversation
//! state F^α and δ^α, round number by iterative deletion, Fig 3.1; drop by largest bid) and
//! chapter 6 (conversations, ACK streams as separate conversations, no charge for drops).
//! Digest: shared/specs/keshav91-fq-packet-pair.md M1.1-M1.9, §6 A2/A10/A11;
//! keshav91-experiments.md §3.2 and gaps G7, G8.
//!
//! # Algorithm
//! On arrival at time t of a packet of P bits of conversation α (weight n_α):
//! 1. bring R up to t by iterative deletion (Fig 3.1; `fq/round.rs`, which also explains the
//!    exact integer arithmetic: round numbers count picobits);
//! 2. F = max(F^α, R) + P/n_α (= F^α + P/n_α if α is active, R + P/n_α otherwise);
//!    bid B = P/n_α + max(F^α, R − δ^α); F^α ← F; α joins the active set if it was not in it;
//! 3. buffer the packet tagged with B; on overflow drop per the policy (`fq/overflow.rs`).
//!
//! When the line frees, the packet with the smallest bid is sent (ties: FIFO by arrival).
//! R(t) and activity are driven by F alone, the sending order by B alone; with δ = 0, B = F.
//!
//! # Choices where the source is silent or contradicts itself (each a named parameter)
//! - `drop_policy`: `LongestQueueTail` (ch 2) [REC, G8] or `MaxBid` (ch 3); `charge_drops`:
//!   false (ch 6's simulations) [REC, G8], true (ch 2, ch 3) or "pushed_out" [EXT];
//!   `tie_break`; one drop per arrival with byte-counted buffers: see `fq/overflow.rs`.
//! - `delta_bits`: δ = 0 (chapter 6). Per-conversation δ^α (ch 3) via `set_delta`.
//!   `u64::MAX` acts as δ = ∞.
//! - `weight` / `weights`: n_α = 1 for all; weighted FQ (§2.3) with integer weights (slots per
//!   BR round). P/n_α is rounded down to a picobit (exact for weights of the form 2^a·5^b,
//!   a ≤ 15, b ≤ 12). Scenarios set a flow's weight with `flows[].fq_weight`.
//! - `round`: `Exact` (Fig 3.1's iterative deletion) or `SelfClocked`, the heuristic of
//!   Heybey et al that §3.3 names as acceptable: R is the finish number of the packet on the
//!   line (of the last one sent while idle) and equal finish numbers go first-come-first-served.
//!   Keshav's simulator is not known to have used it (the keshav91 findings README compares the
//!   two on chapter 6).
//! - `preemptive`: false (the thesis implemented the non-preemptive version); the preemptive
//!   variant, with resumption, is in `fq/preemption.rs`.
//! - `limit`: buffers counted in packets (Keshav: a 40-byte ACK takes a whole slot) or bytes;
//!   default 40 packets (scenario 1; each scenario sets its own).
//! - `count_in_service`: the packet on the wire occupies a buffer slot [REC, G7], as in
//!   `DropTail`.
//! - Conversation id = flow·2 + (1 for ACKs): each (flow, direction) is its own conversation
//!   and ACK streams are separate conversations (ch 6). State lives in a `Vec` indexed by it.
//!   `conversation` groups flows by host pair, source or destination instead (M1.8,
//!   `fq/conversation.rs`).
//!
//! `round = "self_clocked"` replaces the bit-by-bit round number with Heybey-Davin's
//! approximation (an option in M1.4, not the thesis's algorithm). Buffering: per-conversation FIFOs plus indexed binary heaps over
//! backlogged conversations (`queue/key_heap.rs`: smallest head bid to send; largest victim key to
//! drop), O(log N) per operation; chapter 3's comparison of buffering structures is in
//! `queue/fq_buffers`, which replays the record of buffer operations FQ keeps when asked
//! (`fq/buffer_log.rs`).

mod buffer_log;
mod config;
mod conversation;
mod overflow;
mod preemption;
mod round;
#[cfg(test)]
pub(crate) mod testkit;
#[cfg(test)]
mod tests;

pub use buffer_log::{BufferLog, BufferOp};
pub use config::{ChargeDrops, DropPolicy, FqConfig, RoundNumber};
pub use conversation::{ConversationKey, Conversations};
pub use round::{UNITS_PER_BIT, UNITS_PER_BYTE};

use super::{BufferLimit, Discipline, InService, PortSetup, QueueDiscipline, Verdict};
use crate::net::{PacketArena, PacketId, PacketKind};
use crate::scenario::decode::Result;
use crate::scenario::params::Params;
use crate::sim::SimTime;
use super::key_heap::{KeyHeap, Slot, NONE};
use overflow::{VictimKey, VictimKind};
use round::BitRoundRobin;
use std::collections::VecDeque;

/// A buffered packet.
#[derive(Clone, Copy, Debug)]
struct Entry {
    bid: u128,
    /// Finish number of this packet.
    f: u128,
    /// Arrival order (FIFO tie-break).
    seq: u64,
    pkt: PacketId,
    /// Bytes still to transmit (the size, unless the packet was preempted).
    bytes: u32,
}

/// A conversation's state.
struct Conv {
    /// F^α: the largest finish number of the conversation's packets (see `charge_drops`).
    f: u128,
    /// Finish number of the last packet dequeued (for the no-charge rollback).
    last_sent_f: u128,
    /// δ^α in round units.
    delta: u128,
    queue: VecDeque<Entry>,
    bytes: u64,
    weight: u32,
    /// Position in the heap of active conversations (by F^α), or NONE if inactive.
    active_pos: u32,
    /// Position in the heap of backlogged conversations by head bid, or NONE if empty.
    sched_pos: u32,
    /// Position in the heap of drop candidates, or NONE.
    victim_pos: u32,
}

impl Conv {
    fn new(weight: u32, delta: u128) -> Self {
        Conv { f: 0, last_sent_f: 0, delta, queue: VecDeque::new(), bytes: 0, weight, active_pos: NONE, sched_pos: NONE, victim_pos: NONE }
    }
}

/// A conversation's position in the heap of backlogged conversations.
struct InSched;
impl Slot for InSched {
    type Item = Conv;
    #[inline]
    fn pos(c: &mut Conv) -> &mut u32 {
        &mut c.sched_pos
    }
}

#[inline]
fn head_key(c: &Conv) -> (u128, u64) {
    let e = c.queue.front().unwrap();
    (e.bid, e.seq)
}

/// Fair Queueing discipline (see the module comment).
pub struct FairQueue {
    limit: BufferLimit,
    count_in_service: bool,
    charge_drops: ChargeDrops,
    preemptive: bool,
    default_weight: u32,
    default_delta: u128,
    victim_kind: VictimKind,
    tie_smallest_bid: bool,
    round: RoundNumber,
    /// The bit-by-bit round robin FQ emulates (`RoundNumber::Exact`).
    br: BitRoundRobin,
    /// Self-clocked mode: the largest finish number handed to the line so far, which is the
    /// finish number of the packet in service (packets leave in bid order).
    served_f: u128,

    /// Which conversation a packet belongs to.
    map: Conversations,
    convs: Vec<Conv>,
    /// Backlogged conversations by head (bid, arrival order).
    sched: KeyHeap<(u128, u64)>,
    /// Backlogged conversations by drop key (unused with an unlimited buffer).
    victims: KeyHeap<VictimKey>,

    pkts: u32,
    bytes: u64,
    seq: u64,

    /// Preemptive mode: the packet last handed to the line and its conversation.
    in_service: Option<(u32, Entry)>,
    last_remaining: u32,
    /// Chapter 3's trace of buffer operations, when asked for (`fq/buffer_log.rs`).
    buffer_log: Option<Box<BufferLog>>,
}

impl Discipline for FairQueue {
    const NAME: &'static str = "fq";
    const SUMMARY: &'static str = "Fair Queueing (Keshav 1991 ch. 2-3): bids from the exact round number, drop from the longest queue";
    type Config = FqConfig;

    fn decode(p: &mut Params) -> Result<FqConfig> {
        FqConfig::decode(p)
    }

    fn build(cfg: &FqConfig, port: &PortSetup) -> Self {
        FairQueue::new(cfg.on_port(port), port.bandwidth_bps)
    }
}

impl FairQueue {
    /// A Fair Queueing discipline feeding a line of `bandwidth_bps` bits per second.
    pub fn new(cfg: FqConfig, bandwidth_bps: u64) -> Self {
        assert!(bandwidth_bps > 0, "FQ needs a positive line rate");
        assert!(cfg.weight > 0, "FQ weights must be positive");
        let victim_kind = match (cfg.limit, cfg.drop_policy) {
            (BufferLimit::Unlimited, _) => VictimKind::None,
            (BufferLimit::Packets(_), DropPolicy::LongestQueueTail) => VictimKind::LongestPkts,
            (BufferLimit::Bytes(_), DropPolicy::LongestQueueTail) => VictimKind::LongestBytes,
            (_, DropPolicy::MaxBid) => VictimKind::MaxBid,
        };
        let mut q = FairQueue {
            limit: cfg.limit,
            count_in_service: cfg.count_in_service,
            charge_drops: cfg.charge_drops,
            preemptive: cfg.preemptive,
            default_weight: cfg.weight,
            default_delta: cfg.delta_bits as u128 * UNITS_PER_BIT,
            victim_kind,
            tie_smallest_bid: cfg.tie_smallest_bid,
            round: cfg.round,
            br: BitRoundRobin::new(bandwidth_bps),
            served_f: 0,
            map: Conversations::new(cfg.conversation),
            convs: Vec::new(),
            sched: KeyHeap::new(),
            victims: KeyHeap::new(),
            pkts: 0,
            bytes: 0,
            seq: 0,
            in_service: None,
            last_remaining: 0,
            buffer_log: None,
        };
        for &(conv, w) in &cfg.weights {
            q.set_weight(conv, w);
        }
        q
    }

    /// The conversation of a packet of `flow` and `kind` under the default key: each (flow,
    /// direction) is its own conversation.
    #[inline]
    pub fn conversation_id(flow: u32, kind: PacketKind) -> u32 {
        flow * 2 + (kind == PacketKind::Ack) as u32
    }

    /// The conversation of a packet of `flow` and `kind` at this port (its `conversation` key).
    #[inline]
    pub fn conversation(&self, flow: u32, kind: PacketKind) -> u32 {
        self.map.id(flow, kind)
    }

    /// Flow `flow` runs from host `src` to `dst` (for keys that group flows).
    pub fn add_flow(&mut self, flow: u32, src: u32, dst: u32) {
        self.map.add_flow(flow, src, dst);
    }

    #[inline]
    fn ensure(&mut self, conv: u32) {
        if conv as usize >= self.convs.len() {
            let (w, d) = (self.default_weight, self.default_delta);
            self.convs.resize_with(conv as usize + 1, || Conv::new(w, d));
        }
    }

    /// Set conversation `conv`'s weight n_α (slots per BR round). Takes effect from the last
    /// round-number update.
    pub fn set_weight(&mut self, conv: u32, weight: u32) {
        assert!(weight > 0, "FQ weights must be positive");
        self.ensure(conv);
        let c = &mut self.convs[conv as usize];
        self.br.reweighted(c, weight);
        c.weight = weight;
    }

    /// Set conversation `conv`'s promptness offset δ^α in bits (`u64::MAX` = ∞).
    pub fn set_delta(&mut self, conv: u32, delta_bits: u64) {
        self.ensure(conv);
        self.convs[conv as usize].delta = delta_bits as u128 * UNITS_PER_BIT;
    }

    /// R(now) in round units (`UNITS_PER_BIT` per bit-round), rounded down. Advances the
    /// round-number state to `now` (which must not precede earlier calls).
    pub fn round_number(&mut self, now: SimTime) -> u128 {
        if self.round == RoundNumber::SelfClocked {
            return self.served_f;
        }
        self.br.advance(&mut self.convs, now);
        self.br.round()
    }

    /// F^α of a conversation, in round units.
    pub fn finish_number(&self, conv: u32) -> u128 {
        self.convs.get(conv as usize).map_or(0, |c| c.f)
    }

    /// Whether the conversation is active in the BR emulation, as of the last update.
    pub fn is_active(&self, conv: u32) -> bool {
        self.convs.get(conv as usize).is_some_and(|c| c.active_pos != NONE)
    }

    /// N_ac: the sum of the weights of the active conversations, as of the last update.
    pub fn active_weight(&self) -> u64 {
        self.br.active_weight()
    }

    /// Packets queued for a conversation.
    pub fn conv_len_packets(&self, conv: u32) -> u32 {
        self.convs.get(conv as usize).map_or(0, |c| c.queue.len() as u32)
    }

    /// Bytes queued for a conversation.
    pub fn conv_len_bytes(&self, conv: u32) -> u64 {
        self.convs.get(conv as usize).map_or(0, |c| c.bytes)
    }

    /// Number of conversations with packets queued.
    pub fn backlogged_conversations(&self) -> u32 {
        self.sched.len() as u32
    }

    pub fn limit(&self) -> BufferLimit {
        self.limit
    }
}

impl QueueDiscipline for FairQueue {
    fn is_preemptive(&self) -> bool {
        FairQueue::is_preemptive(self)
    }
    fn wants_preemption(&self) -> bool {
        FairQueue::wants_preemption(self)
    }
    fn preempt(&mut self, remaining_bytes: u32) {
        FairQueue::preempt(self, remaining_bytes)
    }
    fn set_weight(&mut self, conv: u32, weight: u32) {
        FairQueue::set_weight(self, conv, weight)
    }
    fn groups_flows(&self) -> bool {
        self.map.groups()
    }
    fn add_flow(&mut self, flow: u32, src: u32, dst: u32) {
        FairQueue::add_flow(self, flow, src, dst)
    }
    fn set_flow_weight(&mut self, flow: u32, weight: u32) {
        FairQueue::set_weight(self, self.conversation(flow, PacketKind::Data), weight)
    }
    fn enqueue(&mut self, pkt: PacketId, arena: &mut PacketArena, now: SimTime, tx: InService) -> Verdict {
        let p = arena.get(pkt);
        let (id, size) = (self.map.id(p.flow, p.kind), p.size);
        self.ensure(id);
        if tx.bytes.is_none() {
            self.in_service = None;
        }
        let r = match self.round {
            RoundNumber::Exact => {
                self.br.advance(&mut self.convs, now);
                self.br.round()
            }
            RoundNumber::SelfClocked => self.served_f,
        };

        // Finish number and bid (chapter 3 §3.2).
        let c = &mut self.convs[id as usize];
        let bits = size as u128 * UNITS_PER_BYTE;
        let charge = if c.weight == 1 { bits } else { bits / c.weight as u128 };
        let f_old = c.f;
        let f_new = f_old.max(r) + charge;
        let bid = charge + f_old.max(r.saturating_sub(c.delta));
        c.f = f_new;
        if self.round == RoundNumber::Exact {
            self.br.raised(&mut self.convs, id, f_new);
        } // self-clocked: activity is just F^α > R, no BR emulation to keep

        // Buffer it, then apply the overflow policy.
        let entry = Entry { bid, f: f_new, seq: self.seq, pkt, bytes: size };
        self.seq += 1;
        let c = &mut self.convs[id as usize];
        let was_empty = c.queue.is_empty();
        c.queue.push_back(entry);
        c.bytes += size as u64;
        self.pkts += 1;
        self.bytes += size as u64;
        if was_empty {
            self.sched.push::<InSched>(&mut self.convs, id, (bid, entry.seq));
            self.victim_push(id);
        } else {
            self.victim_update(id);
        }

        let dropped = if self.over_limit(tx) { Some(self.overflow(&entry, id, tx)) } else { None };
        if let Some(log) = self.buffer_log.as_deref_mut() {
            // Accepted into an empty buffer on an idle line: the port sends it at once.
            let direct = tx.bytes.is_none() && dropped.is_none() && self.pkts == 1;
            let insert = BufferOp::Insert { bid, conversation: id, packet: entry.seq };
            log.enqueued(now, insert, direct, dropped.map(|d| d.seq));
        }
        match dropped {
            Some(d) => Verdict::Dropped(d.pkt),
            None => Verdict::Accepted,
        }
    }

    fn dequeue(&mut self, _arena: &mut PacketArena, now: SimTime) -> Option<PacketId> {
        let id = self.sched.top()?;
        let c = &mut self.convs[id as usize];
        let e = c.queue.pop_front().unwrap();
        c.bytes -= e.bytes as u64;
        c.last_sent_f = e.f;
        self.served_f = self.served_f.max(e.f);
        self.pkts -= 1;
        self.bytes -= e.bytes as u64;
        if c.queue.is_empty() {
            self.sched.remove::<InSched>(&mut self.convs, id);
            self.victim_remove(id);
        } else {
            let k = head_key(c);
            self.sched.set::<InSched>(&mut self.convs, id, k);
            match self.victim_kind {
                VictimKind::LongestPkts | VictimKind::LongestBytes => self.victim_update(id),
                _ => {} // the tail, hence the largest-bid key, is unchanged
            }
        }
        self.last_remaining = e.bytes;
        if let Some(log) = self.buffer_log.as_deref_mut() {
            log.dequeued(now, e.seq);
        }
        if self.preemptive {
            self.in_service = Some((id, e));
        }
        Some(e.pkt)
    }

    fn len_packets(&self) -> u32 {
        self.pkts
    }

    fn len_bytes(&self) -> u64 {
        self.bytes
    }

    fn for_each(&self, f: &mut dyn FnMut(PacketId)) {
        for c in &self.convs {
            c.queue.iter().for_each(|e| f(e.pkt));
        }
    }

    fn memory_bytes(&self) -> usize {
        self.convs.capacity() * std::mem::size_of::<Conv>()
            + self.convs.iter().map(|c| c.queue.capacity() * std::mem::size_of::<Entry>()).sum::<usize>()
            + self.br.capacity_bytes()
            + self.sched.capacity_bytes()
            + self.victims.capacity_bytes()
    }
}
