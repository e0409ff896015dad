//! The small types a discipline and its port exchange: the buffer's limit, what the line is
//! sending, the verdict on an arrival, and a signal for a flow's source.

use crate::net::PacketId;

/// How much a buffer holds.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum BufferLimit {
    Packets(u32),
    Bytes(u64),
    Unlimited,
}

impl BufferLimit {
    /// Whether a buffer holding `packets` packets of `bytes` bytes in all (an arrival
    /// counted) is within the limit, the packet on the line counted as `count_in_service` says.
    #[inline]
    pub fn fits(self, packets: u64, bytes: u64, count_in_service: bool, tx: InService) -> bool {
        let svc = if count_in_service { tx.bytes } else { None };
        match self {
            BufferLimit::Packets(n) => packets + svc.is_some() as u64 <= n as u64,
            BufferLimit::Bytes(b) => bytes + svc.unwrap_or(0) as u64 <= b,
            BufferLimit::Unlimited => true,
        }
    }
}

/// Result of offering a packet to a queue.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    Accepted,
    /// This packet was dropped: the arriving one, or one that was already queued (in which
    /// case the arriving packet was accepted).
    Dropped(PacketId),
}

/// The state of the transmitter the queue feeds, for disciplines whose buffer accounting
/// counts the packet in service (keshav91-experiments.md §2.3, gap G7).
#[derive(Clone, Copy, Debug, Default)]
pub struct InService {
    /// Size in bytes of the packet being transmitted, or None if the line is idle.
    pub bytes: Option<u32>,
}

/// A discipline's message for a flow's source (explicit feedback). The world sends it as a
/// control packet of `size` bytes from the port's node back along the flow's reverse path,
/// ahead of data at every hop; the source's algorithm gets it in `on_feedback`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Signal {
    pub flow: u32,
    /// The sequence number it names (the packet dropped, say), or None.
    pub seq: Option<u64>,
    /// A small code of the discipline's own meaning.
    pub code: u8,
    pub size: u32,
}
