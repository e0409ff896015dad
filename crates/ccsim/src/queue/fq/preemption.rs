//! Preemptive (resumptive) Fair Queueing: an arrival whose bid is smaller than the bid of the
//! packet on the line stops it; the stopped packet goes back to the head of its conversation
//! and later resumes where it stopped.
//!
//! Source: Keshav 1991 chapter 2 §2.2.2 (the preemptive variant of FQ; the thesis implemented
//! the non-preemptive one, the default). Choices: ties do not preempt; the transmitter keeps
//! the exact remaining transmission time, the queue counts the remaining bytes (rounded up)
//! for its buffer accounting. The port drives it (net/port.rs: it asks after each arrival and
//! hands back the packet in service).

use super::{FairQueue, InSched};

impl FairQueue {
    pub fn is_preemptive(&self) -> bool {
        self.preemptive
    }

    /// Preemptive mode: true if a queued packet has a smaller bid than the packet on the wire,
    /// which the transmitter should then stop and hand back with `preempt`. Always false in
    /// the non-preemptive (default) mode.
    pub fn wants_preemption(&self) -> bool {
        match (self.preemptive, &self.in_service, self.sched.top_entry()) {
            (true, Some((_, e)), Some(&((bid, _), _))) => bid < e.bid,
            _ => false,
        }
    }

    /// Preemptive mode: the transmitter stopped the packet it was sending with
    /// `remaining_bytes` still to send. It goes back to the head of its conversation with its
    /// bid and finish number unchanged, and resumes later (the next `dequeue` then returns
    /// the preempting packet). `remaining_bytes` (rounded up) is for the buffer accounting;
    /// the transmitter keeps the exact remaining transmission time itself.
    pub fn preempt(&mut self, remaining_bytes: u32) {
        let (id, mut e) = self.in_service.take().expect("preempt with nothing in service");
        e.bytes = remaining_bytes;
        let c = &mut self.convs[id as usize];
        let was_empty = c.queue.is_empty();
        c.queue.push_front(e);
        c.bytes += e.bytes as u64;
        self.pkts += 1;
        self.bytes += e.bytes as u64;
        if was_empty {
            self.sched.push::<InSched>(&mut self.convs, id, (e.bid, e.seq));
            self.victim_push(id);
        } else {
            self.sched.set::<InSched>(&mut self.convs, id, (e.bid, e.seq));
            self.victim_update(id);
        }
    }

    /// Bytes of the packet returned by the last `dequeue` that remain to be sent: its size,
    /// or less if it was preempted earlier.
    pub fn last_dequeued_remaining(&self) -> u32 {
        self.last_remaining
    }
}
