//! Nagle's small-packet rule: while data of the flow is unacknowledged, what the application
//! writes is held and coalesced, and goes as one packet when the acknowledgement returns
//! (`nagle = true` on a flow under a window).
//!
//! Source: Liang 1991 §2.1.1 (reviewing Nagle 1984, its reference [2]; spec liang91-seif.md
//! §1.2): "with a packet header of 40 bytes, a 1 byte user data results in an overhead of
//! 4000%. To solve this problem, the scheme ... does not allow any more packet to leave a
//! source if there is an outstanding packet from the source (i.e., stop and wait). During the
//! period of withholding packets, the source would compact the newly arrived user data ... as
//! one single packet and sends the compacted packet out once the acknowledgement for the
//! pending packet returns." Its §2.1.2 names the side effect, kept: the held data leaves as a
//! burst one round trip later.
//!
//! Choices where the source is silent, each a parameter or stated here:
//! - each of the source's packets (a keystroke, for Telnet) is one write of `packet_size -
//!   header_size` bytes of user data; a coalesced packet is `header_size` plus the data it
//!   carries, at most `segment_size` in all; data beyond that goes in further packets, back to
//!   back (Liang's "whole window of packets out back to back");
//! - the flow is idle, and a write goes at once, when nothing it sent is unacknowledged and
//!   nothing it made still waits for the window; the held data goes when an ACK leaves it idle;
//! - `full_segments` = false: Liang's stop-and-wait, nothing leaves while anything is
//!   unacknowledged; true: RFC 1122 §4.2.3.4's statement of the rule, a full segment
//!   (`segment_size`) goes as soon as there is data for it;
//! - no timer flushes the held data (RFC 896: "no timers ... are required"); when the flow
//!   stops (`stop`), what is held is never sent, as the packets a stopped source made and
//!   its window had not let go are not.
//!
//! A packet's size is fixed when it is made, and a retransmission has its original's: the sizes
//! of the packets not yet acknowledged are kept in a ring (the window's length).

use std::collections::VecDeque;

/// The rule's parameters (the flow's `nagle_*` fields).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NagleConfig {
    /// Bytes of header in every packet (40: TCP and IP, Liang's example).
    pub header: u32,
    /// Largest packet a coalesced send makes, header included (576: RFC 879's default).
    pub segment: u32,
    /// RFC 1122's reading: full segments go while data is unacknowledged.
    pub full_segments: bool,
}

impl Default for NagleConfig {
    fn default() -> Self {
        NagleConfig { header: 40, segment: 576, full_segments: false }
    }
}

/// One flow's held data and the sizes of its packets in flight.
#[derive(Clone, Debug)]
pub struct Nagle {
    cfg: NagleConfig,
    /// User data of one write (the source's packet less its header), bytes.
    write: u32,
    /// User data held, bytes.
    held: u64,
    /// Sizes of packets `base`, `base + 1`, ...: every packet made and not yet acknowledged.
    base: u64,
    sizes: VecDeque<u32>,
    /// Writes the application made, and packets they went in (counters for reports and tests).
    pub writes: u64,
    pub packets: u64,
    /// The flow has stopped: held data is never sent.
    stopped: bool,
}

impl Nagle {
    /// The rule for a flow whose source writes packets of `packet_size` bytes (header
    /// included; more than `cfg.header`, at most `cfg.segment`: checked when decoded).
    pub fn new(cfg: NagleConfig, packet_size: u32) -> Self {
        assert!(cfg.header < packet_size && packet_size <= cfg.segment, "sizes are checked when decoded");
        Nagle { cfg, write: packet_size - cfg.header, held: 0, base: 0, sizes: VecDeque::new(), writes: 0, packets: 0, stopped: false }
    }

    /// The application wrote one packet's data. `idle`: nothing is unacknowledged or waiting;
    /// `next_seq`: the sequence number the next packet made gets; `acked`: everything below it
    /// is acknowledged. Returns how many packets were made (numbered from `next_seq` on).
    pub fn on_write(&mut self, idle: bool, next_seq: u64, acked: u64) -> u64 {
        self.writes += 1;
        self.held += self.write as u64;
        if idle {
            self.release(next_seq, acked, false)
        } else if self.cfg.full_segments {
            self.release(next_seq, acked, true)
        } else {
            0
        }
    }

    /// An ACK left the flow idle: send everything held. Returns packets made, as `on_write`.
    pub fn on_idle(&mut self, next_seq: u64, acked: u64) -> u64 {
        self.release(next_seq, acked, false)
    }

    /// Data held now, bytes (at the end of a run: written and never sent).
    pub fn held(&self) -> u64 {
        self.held
    }

    /// Data written and not yet sent once: held, or in packets made from `first_unsent` on (the
    /// sender's `high_sent`) that the window has not let go.
    pub fn unsent(&self, first_unsent: u64) -> u64 {
        let skip = first_unsent.saturating_sub(self.base).min(self.sizes.len() as u64) as usize;
        self.held + self.sizes.iter().skip(skip).map(|&size| (size - self.cfg.header) as u64).sum::<u64>()
    }

    /// The flow stopped: nothing more is sent. Packets made from `next_seq` on, never sent, are
    /// dropped and their data counted as held again, so that held data stays what was written
    /// and never sent.
    pub fn stop(&mut self, next_seq: u64) {
        self.stopped = true;
        let keep = next_seq.saturating_sub(self.base).min(self.sizes.len() as u64) as usize;
        for size in self.sizes.drain(keep..) {
            self.held += (size - self.cfg.header) as u64;
            self.packets -= 1;
        }
    }

    /// Make packets of the held data, full ones only if `full_only`.
    fn release(&mut self, next_seq: u64, acked: u64, full_only: bool) -> u64 {
        if self.stopped {
            return 0;
        }
        while self.base < acked && !self.sizes.is_empty() {
            self.sizes.pop_front();
            self.base += 1;
        }
        if self.sizes.is_empty() {
            self.base = next_seq;
        }
        debug_assert_eq!(self.base + self.sizes.len() as u64, next_seq, "packets are made in sequence");
        let room = (self.cfg.segment - self.cfg.header) as u64;
        let mut made = 0;
        while self.held >= room || (self.held > 0 && !full_only) {
            let data = self.held.min(room);
            self.held -= data;
            self.sizes.push_back(self.cfg.header + data as u32);
            made += 1;
        }
        self.packets += made;
        made
    }

    /// Bytes of packet `seq` (made, not yet acknowledged: the only ones the sender sends and
    /// the sink counts).
    pub fn size_of(&self, seq: u64) -> u32 {
        seq.checked_sub(self.base).and_then(|i| self.sizes.get(i as usize)).copied().expect("the size of a packet in flight")
    }

    /// Whether `seq`'s size is still kept (a late duplicate of an acknowledged packet's is not).
    pub fn knows(&self, seq: u64) -> bool {
        seq >= self.base && seq < self.base + self.sizes.len() as u64
    }

    pub fn memory_bytes(&self) -> usize {
        self.sizes.capacity() * std::mem::size_of::<u32>()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rule(full_segments: bool) -> Nagle {
        Nagle::new(NagleConfig { header: 40, segment: 100, full_segments }, 41)
    }

    #[test]
    fn an_idle_flow_sends_each_write_at_once() {
        let mut n = rule(false);
        assert_eq!(n.on_write(true, 0, 0), 1);
        assert_eq!(n.size_of(0), 41);
        assert_eq!(n.on_write(true, 1, 1), 1);
        assert_eq!(n.size_of(1), 41);
        assert!(!n.knows(0), "an acknowledged packet's size is dropped");
    }

    #[test]
    fn writes_while_unacknowledged_are_held_and_go_as_one_packet() {
        let mut n = rule(false);
        assert_eq!(n.on_write(true, 0, 0), 1);
        for _ in 0..7 {
            assert_eq!(n.on_write(false, 1, 0), 0);
        }
        assert_eq!(n.held(), 7);
        assert_eq!(n.on_idle(1, 1), 1);
        assert_eq!((n.size_of(1), n.held()), (47, 0));
        assert_eq!((n.writes, n.packets), (8, 2));
    }

    #[test]
    fn held_data_beyond_a_segment_goes_in_several_packets() {
        let mut n = rule(false);
        n.on_write(true, 0, 0);
        for _ in 0..130 {
            n.on_write(false, 1, 0);
        }
        // 130 bytes in segments of 60: 60, 60, 10.
        assert_eq!(n.on_idle(1, 1), 3);
        assert_eq!([n.size_of(1), n.size_of(2), n.size_of(3)], [100, 100, 50]);
    }

    #[test]
    fn full_segments_go_while_unacknowledged_under_rfc_1122() {
        let (mut strict, mut rfc) = (rule(false), rule(true));
        strict.on_write(true, 0, 0);
        rfc.on_write(true, 0, 0);
        let (mut a, mut b) = (0, 0);
        for _ in 0..61 {
            a += strict.on_write(false, 1 + a, 0);
            b += rfc.on_write(false, 1 + b, 0);
        }
        assert_eq!((a, strict.held()), (0, 61));
        assert_eq!((b, rfc.held(), rfc.size_of(1)), (1, 1, 100));
    }

    #[test]
    fn a_stopped_flow_sends_nothing_more_and_counts_unsent_packets_as_held() {
        let mut n = rule(false);
        n.on_write(true, 0, 0);
        for _ in 0..3 {
            n.on_write(false, 1, 0);
        }
        assert_eq!(n.on_idle(1, 1), 1); // packet 1 (43 bytes) made, not sent: the window is shut
        n.on_write(false, 2, 1);
        assert_eq!((n.held(), n.unsent(1)), (1, 4));
        n.stop(1); // the sender drops packet 1 from what it may send
        assert_eq!((n.held(), n.packets, n.unsent(1)), (4, 1, 4));
        assert_eq!(n.on_idle(1, 1), 0);
        assert_eq!(n.on_write(true, 1, 1), 0);
        assert!(!n.knows(1));
    }

    #[test]
    fn a_retransmission_finds_its_original_size() {
        let mut n = rule(false);
        n.on_write(true, 0, 0);
        for _ in 0..5 {
            n.on_write(false, 1, 0);
        }
        n.on_idle(1, 1);
        // Packet 1 (45 bytes) is lost; its size stays until it is acknowledged.
        for _ in 0..3 {
            assert_eq!(n.on_write(false, 2, 1), 0);
        }
        assert_eq!(n.size_of(1), 45);
        assert_eq!(n.on_idle(2, 2), 1);
        assert_eq!(n.size_of(2), 43);
    }
}
