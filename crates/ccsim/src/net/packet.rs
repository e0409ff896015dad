//! Packets and the arena that owns them.
//!
//! Packets live in one `Vec` and move through the network by index; a freed slot goes on a
//! free list and is reused, so a run in steady state allocates nothing per packet. A sink
//! turns the data packet it received into the ACK in place (same slot), which saves an
//! allocation and a free per packet.

use crate::sim::SimTime;

pub type PacketId = u32;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum PacketKind {
    Data,
    Ack,
    /// A router's message to a flow's source (explicit feedback: SEIF, Source Quench),
    /// travelling the flow's reverse path in each port's priority lane.
    Control,
}

/// Flag bits in [`Packet::flags`].
pub mod flags {
    /// Congestion experienced: set by a queue discipline (DECbit, ECN, ...).
    pub const CE: u8 = 1;
    /// This data packet is a retransmission.
    pub const RETX: u8 = 2;
    /// ACK: the data packet that caused it carried CE (echo to the sender).
    pub const ECHO_CE: u8 = 4;
    /// ACK: the data packet that caused it was a retransmission.
    pub const ECHO_RETX: u8 = 8;
    /// Data packet is a duplicate at the sink (set on the ACK it causes).
    pub const DUP: u8 = 16;
    /// Data: a probe its sender marked (`CongestionControl::probe_for`; JCC, Hua 2002 §4.2).
    /// Routers that collect a path value stamp its `code` (RED with `code_bits`) and may spare
    /// it from early drops. The ACK does not carry the flag; it echoes the code.
    pub const PROBE: u8 = 32;
    /// Data: price-marked by an ADPM router (ECN codepoint 10, Cui ch. 5 §5.3.1; `queue = "rem"`
    /// with `signal = "adpm"`). Never cleared on the way; the sink decodes it.
    pub const PRICE: u8 = 64;
    /// Data: in its flow's profile (the flow's `profile_rate` token bucket, world/profile.rs);
    /// RIO (queue/rio.rs) drops such packets by its in-profile curve.
    pub const IN_PROFILE: u8 = 128;
}

/// Flag bits in [`Packet::xflags`] (the eight of [`flags`] are taken; this byte sits in what
/// was the packet's padding).
pub mod xflags {
    /// Data: a SEIF router has already sent its source feedback while it waited (Liang 1991
    /// §6.1's guard against duplicate feedback on a path of several bottlenecks;
    /// `seif_router`'s `fed_back_bit`).
    pub const FED_BACK: u8 = 1;
}

/// Values of [`Packet::code`] that mark probe pairs (Keshav 1991 §4.4: packet-pair). A paced
/// sender marks the first two packets of each back-to-back burst; the sink echoes the code in
/// the ACK, so the sender can time the gap between the two ACKs of one pair.
pub mod pair_code {
    /// Not part of a probe pair (window flows, retransmissions, single-packet bursts).
    pub const UNPAIRED: u8 = 0;
    /// First packet of a back-to-back pair.
    pub const FIRST: u8 = 1;
    /// Second packet of a back-to-back pair.
    pub const SECOND: u8 = 2;
}

#[derive(Clone, Copy, Debug)]
pub struct Packet {
    /// Data: sequence number (in packets). ACK: cumulative ACK, the next sequence expected.
    pub seq: u64,
    /// Data: time of this transmission. ACK: echo of the data packet's value.
    pub tx_time: SimTime,
    /// Data: time of the first transmission of this sequence number. ACK: echo.
    pub first_tx_time: SimTime,
    /// While in a port's pipe: when it reaches the far node.
    pub arrive_at: SimTime,
    /// ACK: the sequence number of the data packet that caused it. Control: the node of the
    /// router that sent it (`Feedback::router`).
    pub echo_seq: u64,
    pub flow: u32,
    /// Size on the wire, bytes.
    pub size: u32,
    /// Start of this packet's route in the routes arena (a list of port ids).
    pub route: u32,
    /// Index of the next port on the route to enter.
    pub hop: u16,
    pub route_len: u16,
    pub kind: PacketKind,
    pub flags: u8,
    /// The flow's traffic class (class-based schedulers such as WTP; 0 by default).
    pub class: u8,
    /// Small code field for explicit feedback schemes (JCC's R, ADPM marks, ...) and the
    /// packet-pair marks of [`pair_code`]. An ACK carries the code of the data packet it answers.
    pub code: u8,
    /// More flag bits: [`xflags`].
    pub xflags: u8,
}

impl Packet {
    #[inline]
    pub fn has(&self, flag: u8) -> bool {
        self.flags & flag != 0
    }
}

/// An all-zero data packet (arena filler; tests build packets from it).
pub(crate) const EMPTY: Packet = Packet {
    seq: 0,
    tx_time: 0,
    first_tx_time: 0,
    arrive_at: 0,
    echo_seq: 0,
    flow: 0,
    size: 0,
    route: 0,
    hop: 0,
    route_len: 0,
    kind: PacketKind::Data,
    flags: 0,
    class: 0,
    code: 0,
    xflags: 0,
};

/// A control packet's `seq` when it names no sequence number (feedback about congestion in
/// general).
pub const NO_SEQ: u64 = u64::MAX;

// Packets are moved and copied on every hop: keep them one cache line.
const _: () = assert!(std::mem::size_of::<Packet>() == 64);

#[derive(Default)]
pub struct PacketArena {
    slots: Vec<Packet>,
    free: Vec<PacketId>,
    /// The slots have outgrown the caches (`PREFETCH_FROM`): worth prefetching.
    large: bool,
}

/// Slots (of 64 bytes: 8 MiB) from which the run loop prefetches packets. Below it they stay
/// in the caches, and a prefetch costs its instructions for nothing (5% at 1000 flows).
const PREFETCH_FROM: usize = 1 << 17;

impl PacketArena {
    pub fn new() -> Self {
        Self::default()
    }

    /// A slot for `p`, with no limit (unit tests; the world uses `try_alloc`).
    #[inline]
    pub fn alloc(&mut self, p: Packet) -> PacketId {
        self.try_alloc(p, usize::MAX).expect("an arena without a limit is never full")
    }

    /// `alloc`, unless the arena already holds `limit` packets (`None`). Only an arena with no
    /// free slot can be full, so the steady state (slots reused) pays no extra test.
    #[inline]
    pub fn try_alloc(&mut self, p: Packet, limit: usize) -> Option<PacketId> {
        if let Some(id) = self.free.pop() {
            self.slots[id as usize] = p;
            Some(id)
        } else if self.slots.len() >= limit {
            None
        } else {
            if self.slots.len() == self.slots.capacity() {
                self.grow(limit);
            }
            self.slots.push(p);
            Some((self.slots.len() - 1) as PacketId)
        }
    }

    /// Double the slots, but never past `limit`: the arena stays within the run's packet
    /// memory even while it grows.
    #[cold]
    fn grow(&mut self, limit: usize) {
        let len = self.slots.len();
        let want = (len * 2).max(64).min(limit.max(len + 1));
        self.slots.reserve_exact(want - len);
        self.large = self.slots.capacity() >= PREFETCH_FROM;
    }

    /// True once the arena is too large for the caches (see `prefetch`).
    #[inline(always)]
    pub fn large(&self) -> bool {
        self.large
    }

    #[inline]
    pub fn free(&mut self, id: PacketId) {
        self.slots[id as usize] = EMPTY;
        self.free.push(id);
    }

    /// Ask the CPU to bring packet `id`'s slot into the cache (a hint: no effect on results).
    #[inline(always)]
    pub fn prefetch(&self, id: PacketId) {
        #[cfg(target_arch = "x86_64")]
        if let Some(p) = self.slots.get(id as usize) {
            // SAFETY: a prefetch reads nothing; the address is a live slot's.
            unsafe { std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>((p as *const Packet).cast()) }
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = id;
    }

    #[inline]
    pub fn get(&self, id: PacketId) -> &Packet {
        &self.slots[id as usize]
    }

    #[inline]
    pub fn get_mut(&mut self, id: PacketId) -> &mut Packet {
        &mut self.slots[id as usize]
    }

    /// Packets currently allocated (in queues, in transmission or in pipes).
    pub fn live(&self) -> usize {
        self.slots.len() - self.free.len()
    }

    pub fn memory_bytes(&self) -> usize {
        self.slots.capacity() * std::mem::size_of::<Packet>() + self.free.capacity() * 4
    }

    /// Live packets per flow (data and ACKs), for a diagnosis after the run: a full scan.
    pub fn live_per_flow(&self, flows: usize) -> Vec<u64> {
        let mut freed = vec![false; self.slots.len()];
        self.free.iter().for_each(|&id| freed[id as usize] = true);
        let mut count = vec![0u64; flows];
        for (p, _) in self.slots.iter().zip(&freed).filter(|(_, &f)| !f) {
            if let Some(c) = count.get_mut(p.flow as usize) {
                *c += 1;
            }
        }
        count
    }

    /// Slots ever allocated: the arena's high-water mark.
    pub fn capacity_used(&self) -> usize {
        self.slots.len()
    }
}
