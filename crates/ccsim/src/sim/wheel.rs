//! The event queue's far tier: a timing wheel in front of the heap (issue 22).
//!
//! With 10^5 flows a run keeps a few hundred thousand events pending (a retransmission timer
//! and a pacing release per flow, the head of every busy pipe) and the binary heap's sifts walk
//! 18 levels of a heap that no longer fits in the caches. Most of those events are far off:
//! a pipe's head arrives tens of milliseconds later, a timer hundreds. The wheel holds them in
//! buckets of `1 << shift` picoseconds, unsorted, and hands the heap one bucket at a time, so
//! the heap holds only the events of the next bucket or so (about `PER_BUCKET`) and stays in
//! the first-level caches. Events past the wheel's span wait in a heap of their own (`far`)
//! and move onto the wheel as it turns.
//!
//! Exact, not approximate: the heap keeps every event before `near_end` and the wheel every
//! event at or after it, so the queue pops in the same (time, class, sequence) order as one
//! heap would (the test in events.rs runs both side by side).

use super::events::Event;
use super::time::SimTime;
use std::collections::BinaryHeap;

/// Events a bucket should hold on average: the heap's working size.
pub(super) const PER_BUCKET: u64 = 1024;
const MIN_BUCKETS: u64 = 1 << 10;
const MAX_BUCKETS: u64 = 1 << 20;

pub(super) struct Wheel {
    shift: u32,
    /// The slot (time >> shift) of the bucket the heap takes next; the heap holds every event
    /// before this slot's start.
    cur_slot: u64,
    /// Bucket `slot & mask` holds the events of slot `slot` for slots cur_slot..cur_slot + len.
    buckets: Vec<Vec<Event>>,
    mask: u64,
    len: usize,
    /// Events at slots past the wheel's span, earliest on top (the event order is reversed).
    far: BinaryHeap<Far>,
}

/// An event of the far tier. Its own type so that `BinaryHeap<Event>::pop` keeps its two
/// call sites, in `EventQueue::pop` and `pop_due`: with a third here, LLVM stopped inlining
/// it into the run loop, and the dumbbell benchmark ran 4% more instructions.
#[derive(PartialEq, Eq, PartialOrd, Ord)]
struct Far(Event);

impl Wheel {
    /// A wheel for a queue whose pending events have these `times` (any order), none before
    /// `now`: buckets sized to hold about `per_bucket` events (`PER_BUCKET` but in tests), spanning about twice the time
    /// to the 95th percentile of the pending events. None while most of them are at `now`
    /// itself (a run's first instant, when every flow starts): they give no spread to size
    /// the buckets by.
    pub(super) fn sized_for(times: &mut Vec<SimTime>, now: SimTime, per_bucket: u64) -> Option<Wheel> {
        let n = times.len();
        times.retain(|&t| t > now);
        if times.len() < n / 2 || times.len() < 2 {
            return None;
        }
        let mid = times.len() / 2;
        let median = *times.select_nth_unstable(mid).1;
        let width = ((((median - now) as u128) * per_bucket as u128) / mid as u128).max(1) as u64;
        let shift = 63 - width.leading_zeros();
        let at95 = times.len() * 95 / 100;
        let p95 = *times.select_nth_unstable(at95).1;
        let buckets = (2 * ((p95 - now) >> shift)).next_power_of_two().clamp(MIN_BUCKETS, MAX_BUCKETS);
        Some(Wheel {
            shift,
            cur_slot: (now >> shift) + 1,
            buckets: (0..buckets).map(|_| Vec::new()).collect(),
            mask: buckets - 1,
            len: 0,
            far: BinaryHeap::new(),
        })
    }

    /// Events before this time belong in the heap; the wheel holds the rest.
    #[inline]
    pub(super) fn near_end(&self) -> SimTime {
        self.cur_slot.checked_shl(self.shift).filter(|t| t >> self.shift == self.cur_slot).unwrap_or(SimTime::MAX)
    }

    /// Hold `e` (at or after `near_end`).
    #[inline]
    pub(super) fn push(&mut self, e: Event) {
        let slot = e.time >> self.shift;
        debug_assert!(slot >= self.cur_slot);
        if slot - self.cur_slot <= self.mask {
            self.buckets[(slot & self.mask) as usize].push(e);
            self.len += 1;
        } else {
            self.far.push(Far(e));
        }
    }

    /// Move the next bucket that holds events into `heap` (empty: the caller's check), turning
    /// the wheel past it. Returns the empty buckets passed on the way (many say the buckets
    /// are too narrow for the events' present spread).
    #[cold]
    pub(super) fn refill(&mut self, heap: &mut BinaryHeap<Event>) -> u64 {
        let mut empty = 0;
        loop {
            if self.len == 0 {
                // Nothing on the wheel: jump to the far tier's earliest slot.
                let Some(first) = self.far.peek() else { return empty };
                self.cur_slot = first.0.time >> self.shift;
                self.take_far();
            }
            // The bucket's memory goes with it: kept, every bucket would hold its largest
            // turn's capacity (gigabytes over a start-up's bursts).
            let bucket = std::mem::take(&mut self.buckets[(self.cur_slot & self.mask) as usize]);
            self.len -= bucket.len();
            heap.extend(bucket);
            self.cur_slot += 1;
            self.take_far();
            if !heap.is_empty() {
                return empty;
            }
            empty += 1;
        }
    }

    /// Move far events that the wheel now spans onto it.
    fn take_far(&mut self) {
        while let Some(Far(e)) = self.far.peek() {
            if (e.time >> self.shift) - self.cur_slot > self.mask {
                break;
            }
            let Far(e) = self.far.pop().expect("peeked");
            self.buckets[((e.time >> self.shift) & self.mask) as usize].push(e);
            self.len += 1;
        }
    }

    /// Every event held, into `out` (any order).
    pub(super) fn drain_into(&mut self, out: &mut Vec<Event>) {
        for b in &mut self.buckets {
            out.append(b);
        }
        out.extend(std::mem::take(&mut self.far).into_vec().into_iter().map(|Far(e)| e));
        self.len = 0;
    }

    pub(super) fn len(&self) -> usize {
        self.len + self.far.len()
    }

    pub(super) fn memory_bytes(&self) -> usize {
        let held: usize = self.buckets.iter().map(|b| b.capacity()).sum::<usize>() + self.far.capacity();
        held * std::mem::size_of::<Event>() + self.buckets.capacity() * std::mem::size_of::<Vec<Event>>()
    }
}
