//! One event: its time, what it does and to whom, packed in 16 bytes (the queue is in
//! `events.rs`).

use super::time::SimTime;
use std::cmp::Ordering;

/// What an event does when it fires. `target` in [`Event`] says to whom.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum EventKind {
    /// A port's transmitter finished serialising a packet (target = port).
    TxDone,
    /// The packet at the head of a port's propagation pipe reaches the far node (target = port).
    PipeArrival,
    /// A flow's retransmission timer (target = flow).
    FlowTimer,
    /// A paced flow may start its next burst (target = flow). Lazy like the timers: the sender
    /// keeps the release time and at most one armed event; an early event is re-armed.
    PaceTick,
    /// A flow's traffic source produces its next packet or changes phase (target = flow).
    SourceTick,
    /// A flow starts (target = flow).
    FlowStart,
    /// A flow stops offering new data (target = flow).
    FlowStop,
    /// End of a measurement interval (target = interval index).
    IntervalEnd,
    /// Periodic trace sample (target unused).
    TraceSample,
    /// A link's propagation delay changes (target = index into the world's link changes).
    LinkChange,
    /// A port whose discipline holds packets on an idle line (non-work-conserving, e.g. HRR)
    /// looks again (target = port).
    PortWake,
    /// BBN's rations are measured and flooded (`world/rations.rs`; target unused).
    RationUpdate,
}

/// An event in 16 bytes: its time, and one word that orders events of the same time and
/// says what to do. The word, high bits first: class (1 bit: 0 for `TxDone`, which runs first
/// at its instant), insertion sequence (32 bits), kind (4 bits), target (27 bits). Sixteen
/// bytes rather than 24 because the heap's sifts move events, and the moves are most of its
/// cost. The sequence restarts when it would overflow (see `EventQueue::renumber`), so
/// insertion order stays exact in runs of any length.
#[derive(Clone, Copy, Debug)]
pub struct Event {
    pub time: SimTime,
    pub(super) word: u64,
}

pub(super) const TARGET_BITS: u32 = 27;
const KIND_BITS: u32 = 4;
pub(super) const SEQ_SHIFT: u32 = TARGET_BITS + KIND_BITS;
pub(super) const SEQ_LIMIT: u64 = 1 << 32;
/// Largest target an event can name: ports, flows, intervals and link changes are numbered
/// below it (the scenario builder checks).
pub const MAX_TARGET: u32 = (1 << TARGET_BITS) - 1;
pub(super) const KINDS: [EventKind; 12] = [
    EventKind::TxDone,
    EventKind::PipeArrival,
    EventKind::FlowTimer,
    EventKind::PaceTick,
    EventKind::SourceTick,
    EventKind::FlowStart,
    EventKind::FlowStop,
    EventKind::IntervalEnd,
    EventKind::TraceSample,
    EventKind::LinkChange,
    EventKind::PortWake,
    EventKind::RationUpdate,
];

// KINDS lists every kind at its discriminant, within the word's 4 bits.
const _: () = {
    let mut i = 0;
    while i < KINDS.len() {
        assert!(KINDS[i] as usize == i);
        i += 1;
    }
    assert!(KINDS.len() <= 1 << KIND_BITS);
};

impl Event {
    #[inline]
    pub fn target(&self) -> u32 {
        (self.word & MAX_TARGET as u64) as u32
    }

    #[inline]
    pub fn kind(&self) -> EventKind {
        KINDS[((self.word >> TARGET_BITS) & ((1 << KIND_BITS) - 1)) as usize]
    }

    /// Class and sequence: unique among queued events.
    #[inline]
    fn order(&self) -> u64 {
        self.word >> SEQ_SHIFT
    }
}

impl PartialEq for Event {
    fn eq(&self, other: &Self) -> bool {
        self.time == other.time && self.order() == other.order()
    }
}
impl Eq for Event {}
impl PartialOrd for Event {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Event {
    // Reversed so that std's max-heap pops the earliest event first. One 128-bit comparison
    // of (time, word): branch-free, and the word's high bits are class then sequence.
    fn cmp(&self, other: &Self) -> Ordering {
        let key = |e: &Event| ((e.time as u128) << 64) | e.word as u128;
        key(other).cmp(&key(self))
    }
}
