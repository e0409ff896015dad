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

#[derive(Clone, Copy, Debug)]
pub struct Event {
    pub time: SimTime,
    seq: u64,
    pub target: u32,
    pub kind: EventKind,
}

impl PartialEq for Event {
    fn eq(&self, other: &Self) -> bool {
        self.time == other.time && self.seq == other.seq
    }
}
impl Eq for Event {}
impl PartialOrd for Event {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Event {
    // Reversed so that std's max-heap pops the earliest event first.
    fn cmp(&self, other: &Self) -> Ordering {
        // One 128-bit comparison: branch-free, where (time, then seq) would branch twice
        // in the heap's sifts.
        let key = |e: &Event| ((e.time as u128) << 64) | e.seq as u128;
        key(other).cmp(&key(self))
    }
}

#[derive(Default)]
pub struct EventQueue {
    heap: BinaryHeap<Event>,
    next_seq: u64,
    processed: u64,
}

impl EventQueue {
    pub fn new() -> Self {
        Self::default()
    }

    #[inline]
    pub fn schedule(&mut self, time: SimTime, kind: EventKind, target: u32) {
        // At one instant, a transmitter finishing runs before anything else, so a buffer
        // slot freed at t is free for a packet arriving at t (see the module comment).
        let class = if kind == EventKind::TxDone { 0 } else { 1u64 << 62 };
        let seq = class | self.next_seq;
        self.next_seq += 1;
        self.heap.push(Event { time, seq, target, kind });
    }

    #[inline]
    pub fn pop(&mut self) -> Option<Event> {
        let e = self.heap.pop();
        if e.is_some() {
            self.processed += 1;
        }
        e
    }

    /// The earliest event if it is due by `end` (inclusive); it stays queued otherwise.
    #[inline]
    pub fn pop_due(&mut self, end: SimTime) -> Option<Event> {
        if self.heap.peek()?.time > end {
            return None;
        }
        self.processed += 1;
        self.heap.pop()
    }

    #[inline]
    pub fn peek_time(&self) -> Option<SimTime> {
        self.heap.peek().map(|e| e.time)
    }

    pub fn len(&self) -> usize {
        self.heap.len()
    }

    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }

    pub fn memory_bytes(&self) -> usize {
        self.heap.capacity() * std::mem::size_of::<Event>()
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
        let order: Vec<u32> = std::iter::from_fn(|| q.pop()).map(|e| e.target).collect();
        assert_eq!(order, vec![2, 1, 3, 4]);
    }
    #[test]
    fn a_finishing_transmitter_runs_first_at_its_instant() {
        let mut q = EventQueue::new();
        q.schedule(5, EventKind::SourceTick, 1);
        q.schedule(5, EventKind::PipeArrival, 2);
        q.schedule(5, EventKind::TxDone, 3);
        q.schedule(4, EventKind::SourceTick, 4);
        let order: Vec<u32> = std::iter::from_fn(|| q.pop()).map(|e| e.target).collect();
        assert_eq!(order, vec![4, 3, 1, 2]);
    }
}
