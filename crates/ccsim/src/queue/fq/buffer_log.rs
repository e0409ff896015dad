//! A record of what FQ did to its buffer, as chapter 3's bounded heap sees it: the trace that
//! the buffering-structure evaluation (`queue/fq_buffers/evaluation.rs`) replays.
//!
//! Source: Keshav 1991 chapter 3 §3.3 ("if the output line is idle, the packet is sent out
//! immediately, else it is buffered"; the bounded heap's insert(root, item, conversation_ID),
//! which drops the largest bids while more than MAX are held, and get_min(root)) and §3.5
//! (a simulation produces the trace of insert and get_min operations at the gateway).
//!
//! Off by default: the discipline holds an empty `Option` and tests it once per enqueue and
//! once per dequeue; nothing is allocated until [`super::FairQueue::record_buffer_operations`].
//!
//! Choices:
//! - A packet that finds the line idle and the buffer empty passes through FQ in the port
//!   (enqueued, then dequeued at the same instant) but never enters the thesis's buffer: it
//!   is counted in [`BufferLog::sent_directly`] and recorded as nothing. It is recognised by
//!   its dequeue coming next; if anything else happens first it is recorded as an insert
//!   after all (a port never does that, but the record stays true to what happened).
//! - Packets are named by FQ's arrival number, which orders them as the bounded heap's
//!   insertion sequence does (ties on bids: first in, first out; the latest dropped first).
//! - Drops are recorded after the insert that caused them, as the thesis's insert() does them.

use crate::sim::SimTime;

/// One operation on the buffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BufferOp {
    /// A packet entered the buffer with this bid (in round units, `UNITS_PER_BIT` per bit).
    Insert { bid: u128, conversation: u32, packet: u64 },
    /// The buffer overflowed on the insert just before and dropped this packet.
    Drop { packet: u64 },
    /// The line took this packet, the one with the smallest bid.
    GetMin { packet: u64 },
}

/// The buffer operations of a run, in order, each with its time.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct BufferLog {
    pub ops: Vec<(SimTime, BufferOp)>,
    /// Packets that found the line idle and the buffer empty: sent at once, never buffered.
    pub sent_directly: u64,
    /// The last arrival, if it may be such a packet (its dequeue has not come yet).
    pending: Option<(SimTime, BufferOp)>,
}

impl BufferLog {
    /// A packet was queued at `now`; `direct`: it found the line idle and the buffer empty
    /// and was kept. `dropped`: the packet the overflow dropped, if any.
    pub(super) fn enqueued(&mut self, now: SimTime, insert: BufferOp, direct: bool, dropped: Option<u64>) {
        self.flush_pending();
        if direct {
            self.pending = Some((now, insert));
            return;
        }
        self.ops.push((now, insert));
        if let Some(packet) = dropped {
            self.ops.push((now, BufferOp::Drop { packet }));
        }
    }

    /// The line took packet `packet` at `now`.
    pub(super) fn dequeued(&mut self, now: SimTime, packet: u64) {
        if let Some((_, BufferOp::Insert { packet: p, .. })) = self.pending {
            if p == packet {
                self.pending = None;
                self.sent_directly += 1;
                return;
            }
        }
        self.flush_pending();
        self.ops.push((now, BufferOp::GetMin { packet }));
    }

    fn flush_pending(&mut self) {
        if let Some(op) = self.pending.take() {
            self.ops.push(op);
        }
    }

    /// The record so far, with an arrival still waiting for its dequeue counted as buffered.
    pub(super) fn finish(mut self) -> BufferLog {
        self.flush_pending();
        self
    }
}

impl super::FairQueue {
    /// Start recording the buffer's operations (from an empty record).
    pub fn record_buffer_operations(&mut self) {
        self.buffer_log = Some(Box::default());
    }

    /// Stop recording and return the record (None if recording was never started).
    pub fn take_buffer_operations(&mut self) -> Option<BufferLog> {
        self.buffer_log.take().map(|log| log.finish())
    }
}
