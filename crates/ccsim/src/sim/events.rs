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

pub use super::event::{Event, EventKind, MAX_TARGET};
use super::event::{SEQ_LIMIT, SEQ_SHIFT, TARGET_BITS};
use super::time::SimTime;
use super::wheel::Wheel;
use std::collections::BinaryHeap;

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
    /// Events from this time on wait on the wheel (sim/wheel.rs), not in the heap; MAX until
    /// the heap first holds more than `tier_at` events (a small run never builds the wheel).
    near_end: SimTime,
    wheel: Option<Wheel>,
    tier_at: usize,
    /// `processed` count before which a crowded wheel is not rebuilt.
    next_resize: u64,
    /// `CROWDED` and `wheel::PER_BUCKET`; smaller in tests, to exercise the rebuild.
    crowded: usize,
    per_bucket: u64,
    /// `next_seq` at which `schedule` calls `checkpoint`.
    check_at: u64,
    /// Wheels built so far (the first and every rebuild).
    wheels_built: u32,
}

const CHECK_EVERY: u64 = 1024;

/// Pending events past which the queue builds its wheel: below it the heap fits the caches.
const TIER_AT: usize = 1 << 14;
/// A bucket that brings the heap past this many events says the wheel's buckets are too wide;
/// passing more than `SPARSE` empty buckets to find one says they are too narrow.
const CROWDED: usize = 16 * super::wheel::PER_BUCKET as usize;
const SPARSE: u64 = 64;

impl Default for EventQueue {
    fn default() -> Self {
        EventQueue {
            heap: BinaryHeap::new(),
            planned: Vec::new(),
            next_seq: 0,
            seq_limit: SEQ_LIMIT,
            processed: 0,
            near_end: SimTime::MAX,
            wheel: None,
            tier_at: TIER_AT,
            next_resize: 0,
            crowded: CROWDED,
            per_bucket: super::wheel::PER_BUCKET,
            check_at: 0,
            wheels_built: 0,
        }
    }
}

impl EventQueue {
    pub fn new() -> Self {
        Self::default()
    }

    #[inline(always)]
    pub fn schedule(&mut self, time: SimTime, kind: EventKind, target: u32) {
        debug_assert!(target <= MAX_TARGET);
        if self.next_seq >= self.check_at {
            self.checkpoint();
        }
        // At one instant, a transmitter finishing runs before anything else, so a buffer
        // slot freed at t is free for a packet arriving at t (see the module comment).
        let class = (kind != EventKind::TxDone) as u64;
        let word = (class << 63) | (self.next_seq << SEQ_SHIFT) | ((kind as u64) << TARGET_BITS) | target as u64;
        self.next_seq += 1;
        let e = Event { time, word };
        if time < self.near_end {
            self.heap.push(e);
        } else {
            self.push_far(e);
        }
    }

    /// Every `CHECK_EVERY` events scheduled, and when the sequence is full: renumber, or build
    /// the wheel if the heap has grown past `tier_at`. One comparison on the schedule path
    /// covers both.
    #[cold]
    #[inline(never)]
    fn checkpoint(&mut self) {
        if self.next_seq >= self.seq_limit {
            self.renumber();
        }
        if self.heap.len() > self.tier_at {
            self.build_wheel();
        }
        self.check_at = self.seq_limit.min(self.next_seq + CHECK_EVERY);
    }

    /// An event at or past `near_end`: onto the wheel; without one (near_end is then the end
    /// of time) it is an event at the end of time, a saturated sum past the run's end.
    #[inline(never)]
    fn push_far(&mut self, e: Event) {
        match self.wheel.as_mut() {
            Some(w) => w.push(e),
            None => self.heap.push(e),
        }
    }

    /// The heap has grown past `tier_at`, or the wheel's buckets no longer fit the events
    /// (`CROWDED`, `SPARSE`): put the far events on a wheel sized for the events pending now
    /// (the start-up's spread of events is not the steady state's, so a misfit wheel is
    /// rebuilt, at most once per eight times the pending events popped).
    #[cold]
    #[inline(never)]
    fn build_wheel(&mut self) {
        let mut events = std::mem::take(&mut self.heap).into_vec();
        if let Some(w) = &mut self.wheel {
            w.drain_into(&mut events);
        }
        self.next_resize = self.processed + 8 * events.len() as u64;
        let mut times: Vec<SimTime> = events.iter().map(|e| e.time).collect();
        // The earliest pending event stands for the present: nothing is scheduled before it.
        let now = times.iter().copied().min().unwrap_or(0);
        let Some(wheel) = Wheel::sized_for(&mut times, now, self.per_bucket) else {
            if self.wheel.is_none() {
                self.tier_at = events.len() * 2; // try again when the heap has doubled
            }
            self.refile(events);
            return;
        };
        self.wheel = Some(wheel);
        self.wheels_built += 1;
        self.tier_at = usize::MAX;
        self.refile(events);
    }

    /// Put `events` in the heap or on the wheel by `near_end`.
    fn refile(&mut self, events: Vec<Event>) {
        let Some(wheel) = &mut self.wheel else {
            self.heap = BinaryHeap::from(events);
            return;
        };
        self.near_end = wheel.near_end();
        let near_end = self.near_end;
        let (near, far): (Vec<Event>, Vec<Event>) = events.into_iter().partition(|e| e.time < near_end);
        for e in far {
            wheel.push(e);
        }
        self.heap = BinaryHeap::from(near);
    }

    /// The heap is empty: give it the wheel's next bucket, if any.
    #[inline(always)]
    fn ready(&mut self) {
        if self.heap.is_empty() {
            self.refill();
        }
    }

    #[cold]
    #[inline(never)]
    fn refill(&mut self) {
        let Some(w) = self.wheel.as_mut() else { return };
        let empty = w.refill(&mut self.heap);
        self.near_end = w.near_end();
        let misfit = self.heap.len() > self.crowded || empty > SPARSE;
        if misfit && self.processed >= self.next_resize {
            self.build_wheel();
        }
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
        if let Some(w) = &mut self.wheel {
            w.drain_into(&mut events);
        }
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
        if let Some(w) = &mut self.wheel {
            w.drain_into(&mut events);
        }
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

    #[inline(always)]
    pub fn pop(&mut self) -> Option<Event> {
        self.ready();
        let e = if self.next_is_planned()? { self.pop_planned() } else { self.heap.pop() };
        self.processed += 1;
        e
    }

    /// The earliest event if it is due by `end` (inclusive); it stays queued otherwise.
    #[inline(always)]
    pub fn pop_due(&mut self, end: SimTime) -> Option<Event> {
        self.ready();
        let e = if self.next_is_planned()? {
            if self.planned.last()?.time > end {
                return None;
            }
            self.pop_planned()
        } else {
            if self.heap.peek()?.time > end {
                return None;
            }
            self.heap.pop()
        };
        self.processed += 1;
        e
    }

    /// The heap's earliest event, if the heap holds any: a hint of what runs next (a planned
    /// event may come first), for prefetching.
    #[inline(always)]
    pub fn peek_hint(&self) -> Option<&Event> {
        self.heap.peek()
    }

    /// The heap's second-earliest event (the lesser of the top's children), another hint.
    #[inline(always)]
    pub fn peek_second_hint(&self) -> Option<&Event> {
        let h = self.heap.as_slice();
        match (h.get(1), h.get(2)) {
            (Some(a), Some(b)) => Some(if a > b { a } else { b }), // reversed order: greater is earlier
            (a, _) => a,
        }
    }

    #[inline]
    pub fn peek_time(&mut self) -> Option<SimTime> {
        self.ready();
        match (self.planned.last(), self.heap.peek()) {
            (Some(p), Some(h)) => Some(p.time.min(h.time)),
            (p, h) => p.or(h).map(|e| e.time),
        }
    }

    pub fn len(&self) -> usize {
        self.heap.len() + self.planned.len() + self.wheel.as_ref().map_or(0, Wheel::len)
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub fn memory_bytes(&self) -> usize {
        (self.heap.capacity() + self.planned.capacity()) * std::mem::size_of::<Event>() + self.wheel.as_ref().map_or(0, Wheel::memory_bytes)
    }

    /// Events popped so far.
    pub fn processed(&self) -> u64 {
        self.processed
    }

    /// Count `n` events run elsewhere (the other side of a parallel run).
    pub fn add_processed(&mut self, n: u64) {
        self.processed += n;
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
        use crate::sim::event::KINDS;
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

    #[test]
    fn the_wheel_pops_in_the_same_order_as_one_heap() {
        // A queue that builds its wheel after 64 events against one that never does, on a
        // workload of near, far and very far events with many ties, popped with pop and
        // pop_due, and a sequence limit (20 000, above the most events pending) so renumbering
        // drains the wheel too; small buckets, so they come in crowded and sparse and the wheel
        // is rebuilt.
        let mut tiered = EventQueue { tier_at: 64, crowded: 40, per_bucket: 8, seq_limit: 20_000, ..EventQueue::default() };
        let mut plain = EventQueue { tier_at: usize::MAX, ..EventQueue::default() };
        let kinds = [EventKind::TxDone, EventKind::PipeArrival, EventKind::FlowTimer, EventKind::PaceTick];
        for k in 0..20u32 {
            for q in [&mut tiered, &mut plain] {
                q.schedule(k as SimTime * 50_000, EventKind::IntervalEnd, k);
            }
        }
        tiered.plan();
        plain.plan();
        let mut x: u64 = 12345;
        let mut rand = move || {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            x >> 33
        };
        let (mut now, mut out_t, mut out_p) = (0, Vec::new(), Vec::new());
        for step in 0..40_000u32 {
            let r = rand();
            let delay = match r % 10 {
                0..=3 => r % 8,      // ties and near events
                4..=7 => r % 5_000,  // the next buckets
                8 => r % 200_000,    // across the wheel
                _ => r % 50_000_000, // past it: the far tier
            };
            let (kind, target) = (kinds[(r >> 8) as usize % 4], step);
            for q in [&mut tiered, &mut plain] {
                q.schedule(now + delay, kind, target);
            }
            if step % 3 != 0 {
                let end = now + rand() % 3_000;
                let (a, b) = if step % 2 == 0 { (tiered.pop(), plain.pop()) } else { (tiered.pop_due(end), plain.pop_due(end)) };
                if let Some(e) = a {
                    now = e.time;
                    out_t.push((e.time, e.kind(), e.target()));
                }
                if let Some(e) = b {
                    out_p.push((e.time, e.kind(), e.target()));
                }
            }
        }
        // The wheel was built, then rebuilt when buckets came in crowded.
        assert!(tiered.wheels_built >= 2 && plain.wheels_built == 0, "{}", tiered.wheels_built);
        assert_eq!(tiered.len(), plain.len());
        while let Some(e) = tiered.pop() {
            out_t.push((e.time, e.kind(), e.target()));
        }
        while let Some(e) = plain.pop() {
            out_p.push((e.time, e.kind(), e.target()));
        }
        assert_eq!(out_t.len(), 40_020);
        assert_eq!(out_t, out_p);
    }
}
