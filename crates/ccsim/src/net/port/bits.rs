//! The port's flag bytes: which rarely used features are on (`feature`), and its rarely
//! changed yes/no state (`state`).

/// Bits of `Port::state`.
pub(super) mod state {
    /// A preemptive FQ port (Keshav 1991 §2.2): an arriving packet that outbids the one on
    /// the line stops it; the stopped packet later resumes where it stopped.
    pub const PREEMPTIVE: u8 = 1;
    /// The pipe may have events whose packet is no longer its head then (preemption, or a
    /// trunk's packet that overtook the head): a pipe arrival checks its time.
    pub const PIPE_CHECKS_TIME: u8 = 2;
    /// The delay has been shortened during the run, or arrivals are jittered: a packet must
    /// not arrive before the one ahead of it (packets do not overtake), so arrivals are clamped.
    pub const FIFO_GUARD: u8 = 4;
    /// Control packets wait in the lane (served before the discipline's queue).
    pub const LANE_WAITING: u8 = 8;
}

/// Sets or clears `bit` of a `state` byte (a function of the field, so that it can be called
/// while another field of the port is borrowed).
#[inline(always)]
pub(super) fn set_bit(bits: &mut u8, bit: u8, on: bool) {
    if on {
        *bits |= bit;
    } else {
        *bits &= !bit;
    }
}

/// Bits of `Port::features`.
pub(super) mod feature {
    /// The discipline raises signals (the world collects them after each arrival).
    pub const SIGNALS: u8 = 1;
    /// Packets leaving the line are lost with a probability.
    pub const LOSSY: u8 = 2;
    /// The queue length is integrated over time.
    pub const ACCOUNTING: u8 = 4;
    /// Every transmission start is logged.
    pub const DEPARTURES: u8 = 8;
    /// The port has several channels (`trunk.rs`).
    pub const TRUNK: u8 = 16;
    /// The line leads to the other thread's half of a parallel run (`cross.rs`): its pipe
    /// is emptied at each window's end, and arms no event here.
    pub const CROSS: u8 = 32;
}
