//! Deterministic event queue.
//!
//! A binary min-heap keyed by (time, class, insertion sequence): events at the same
//! picosecond run in the order they were scheduled, so a run is a pure function of its
//! scenario and seed, except that a transmitter's completion (`TxDone`) runs before every
//! other event of its instant. Integer time makes such ties common (a CBR source at 5
//! packets/s and a line serving 10 packets/s meet every 0.2 s exactly), and a packet that
//! arrives as another leaves should find the slot free, as in a real FIFO; otherwise
//! scheduling order alone would lock a periodic source out of a full drop-tail queue. Events are small plain values (no boxed closures); the world dispatches on the
//! kind. Timers are cancelled lazily: the owner keeps the real deadline and ignores or
//! re-arms an event that fires early (see transport::sender).

use super::time::SimTime;
use std::cmp::Ordering;
use std::collections::BinaryHeap;

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
    word: u64,
}

const TARGET_BITS: u32 = 27;
const KIND_BITS: u32 = 4;
const SEQ_SHIFT: u32 = TARGET_BITS + KIND_BITS;
const SEQ_LIMIT: u64 = 1 << 32;
/// Largest target an event can name: ports, flows, intervals and link changes are numbered
/// below it (the scenario builder checks).
pub const MAX_TARGET: u32 = (1 << TARGET_BITS) - 1;
const KINDS: [EventKind; 10] = [
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

pub struct EventQueue {
    heap: BinaryHeap<Event>,
    /// Events planned before the run (starts, stops, every interval end, delay changes),
    /// earliest last so the next is popped from the end. `plan` moves them here out of the
    /// heap: a run with 10^5 measurement intervals would otherwise carry 10^5 far-future
    /// events through every sift. Pops take the earlier of this list's last and the heap's
    /// top, so the order is the same as with one heap.
    planned: Vec<Event>,
    next_seq: u64,
    /// 2^32; smaller in tests, to exercise `renumber`.
    seq_limit: u64,
    processed: u64,
}

impl Default for EventQueue {
    fn default() -> Self {
        EventQueue { heap: BinaryHeap::new(), planned: Vec::new(), next_seq: 0, seq_limit: SEQ_LIMIT, processed: 0 }
    }
}

impl EventQueue {
    pub fn new() -> Self {
        Self::default()
    }

    #[inline]
    pub fn schedule(&mut self, time: SimTime, kind: EventKind, target: u32) {
        debug_assert!(target <= MAX_TARGET);
        if self.next_seq >= self.seq_limit {
            self.renumber();
        }
        // At one instant, a transmitter finishing runs before anything else, so a buffer
        // slot freed at t is free for a packet arriving at t (see the module comment).
        let class = (kind != EventKind::TxDone) as u64;
        let word = (class << 63) | (self.next_seq << SEQ_SHIFT) | ((kind as u64) << TARGET_BITS) | target as u64;
        self.next_seq += 1;
        self.heap.push(Event { time, word });
    }

    /// The sequence counter is full: number the queued events 0.. in their present order
    /// and go on from there. Order among queued events is all the sequence is for, so nothing
    /// changes. Once per 2^32 events, and the queue is small: cheap.
    #[cold]
    fn renumber(&mut self) {
        // Everything, planned and not, goes into the planned list (a sorted list is all it
        // is), numbered in order.
        let mut events = std::mem::take(&mut self.heap).into_vec();
        events.append(&mut self.planned);
        events.sort_unstable(); // the order is reversed (for std's max-heap): latest first
        let low_mask = (1u64 << SEQ_SHIFT) - 1;
        let n = events.len() as u64;
        for (k, e) in events.iter_mut().enumerate() {
            e.word = (e.word & (1 << 63)) | ((n - 1 - k as u64) << SEQ_SHIFT) | (e.word & low_mask);
        }
        self.next_seq = n;
        self.planned = events;
    }

    /// Move every event queued so far into the planned list (see `planned`). The world's
    /// builder calls this once, after scheduling what it knows in advance.
    pub fn plan(&mut self) {
        let mut events = std::mem::take(&mut self.heap).into_vec();
        events.append(&mut self.planned);
        events.sort_unstable(); // latest first
        self.planned = events;
    }

    /// The planned list's next event. The list gives back its memory as it empties (a large
    /// run's flow starts are all spent in its first seconds): a quarter full, it shrinks.
    #[inline]
    fn pop_planned(&mut self) -> Option<Event> {
        let e = self.planned.pop();
        if self.planned.len() < self.planned.capacity() / 4 {
            self.planned.shrink_to_fit();
        }
        e
    }

    /// True when the next event is the planned list's (`pop_planned` then takes it).
    #[inline]
    fn next_is_planned(&self) -> Option<bool> {
        match (self.planned.last(), self.heap.peek()) {
            (None, None) => None,
            (Some(_), None) => Some(true),
            (None, Some(_)) => Some(false),
            // The order is reversed: the greater event is the earlier.
            (Some(p), Some(h)) => Some(p > h),
        }
    }

    #[inline]
    pub fn pop(&mut self) -> Option<Event> {
        let e = if self.next_is_planned()? { self.pop_planned() } else { self.heap.pop() };
        self.processed += 1;
        e
    }

    /// The earliest event if it is due by `end` (inclusive); it stays queued otherwise.
    #[inline]
    pub fn pop_due(&mut self, end: SimTime) -> Option<Event> {
        if self.next_is_planned()? {
            if self.planned.last()?.time > end {
                return None;
            }
            self.processed += 1;
            return self.pop_planned();
        }
        if self.heap.peek()?.time > end {
            return None;
        }
        self.processed += 1;
        self.heap.pop()
    }

    #[inline]
    pub fn peek_time(&self) -> Option<SimTime> {
        match (self.planned.last(), self.heap.peek()) {
            (Some(p), Some(h)) => Some(p.time.min(h.time)),
            (p, h) => p.or(h).map(|e| e.time),
        }
    }

    pub fn len(&self) -> usize {
        self.heap.len() + self.planned.len()
    }

    pub fn is_empty(&self) -> bool {
        self.heap.is_empty() && self.planned.is_empty()
    }

    pub fn memory_bytes(&self) -> usize {
        (self.heap.capacity() + self.planned.capacity()) * std::mem::size_of::<Event>()
    }

    /// Events popped so far.
    pub fn processed(&self) -> u64 {
        self.processed
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn ties_break_in_insertion_order() {
        let mut q = EventQueue::new();
        q.schedule(5, EventKind::TxDone, 1);
        q.schedule(3, EventKind::TxDone, 2);
        q.schedule(5, EventKind::TxDone, 3);
        q.schedule(5, EventKind::TxDone, 4);
        let order: Vec<u32> = std::iter::from_fn(|| q.pop()).map(|e| e.target()).collect();
        assert_eq!(order, vec![2, 1, 3, 4]);
    }
    #[test]
    fn sequence_renumbering_keeps_insertion_order() {
        // A sequence limit of 128 renumbers dozens of times; ties at equal times must
        // still pop in insertion order, TxDone first, with every kind and target intact,
        // exactly as from a queue that never renumbers.
        let kinds = [EventKind::SourceTick, EventKind::TxDone, EventKind::PipeArrival, EventKind::LinkChange];
        let mut q = EventQueue { seq_limit: 128, ..EventQueue::default() };
        let mut plain = EventQueue::default();
        // Planned events (some at the times the loop below uses) in one queue, plain in the
        // other: the merge must pop them in the same places.
        for k in 0..50u32 {
            let (t, kind) = ((k * 6) as SimTime, kinds[(k % 4) as usize]);
            q.schedule(t, kind, k);
            plain.schedule(t, kind, k);
        }
        q.plan();
        let mut popped = (Vec::new(), Vec::new());
        for id in 0..2000u32 {
            let (t, kind, target) = ((id / 7) as SimTime, kinds[id as usize % 4], MAX_TARGET - id);
            q.schedule(t, kind, target);
            plain.schedule(t, kind, target);
            if id >= 20 {
                for (queue, out) in [(&mut q, &mut popped.0), (&mut plain, &mut popped.1)] {
                    let e = queue.pop().unwrap();
                    out.push((e.time, e.kind(), e.target()));
                }
            }
            assert!(q.next_seq <= 128);
        }
        for (queue, out) in [(&mut q, &mut popped.0), (&mut plain, &mut popped.1)] {
            while let Some(e) = queue.pop() {
                out.push((e.time, e.kind(), e.target()));
            }
        }
        assert_eq!(popped.0, popped.1);
        assert_eq!(popped.0.len(), 2050);
        assert_eq!(plain.next_seq, 2050);
    }
    #[test]
    fn every_kind_and_the_largest_target_survive_the_packing() {
        let mut q = EventQueue::new();
        for (i, &kind) in KINDS.iter().enumerate() {
            q.schedule(i as SimTime, kind, MAX_TARGET - i as u32);
        }
        for (i, &kind) in KINDS.iter().enumerate() {
            let e = q.pop().unwrap();
            assert_eq!((e.time, e.kind(), e.target()), (i as SimTime, kind, MAX_TARGET - i as u32));
        }
        assert_eq!(std::mem::size_of::<Event>(), 16);
    }
    #[test]
    fn a_finishing_transmitter_runs_first_at_its_instant() {
        let mut q = EventQueue::new();
        q.schedule(5, EventKind::SourceTick, 1);
        q.schedule(5, EventKind::PipeArrival, 2);
        q.schedule(5, EventKind::TxDone, 3);
        q.schedule(4, EventKind::SourceTick, 4);
        let order: Vec<u32> = std::iter::from_fn(|| q.pop()).map(|e| e.target()).collect();
        assert_eq!(order, vec![4, 3, 1, 2]);
    }
}
