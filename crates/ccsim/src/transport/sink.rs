//! The receiving end of a reliable flow (Keshav 1991 §6.5; keshav91-experiments.md §2.4).
//!
//! By default, one ACK for every data packet received, duplicates included; the ACK carries
//! the next sequence number expected (cumulative). Out-of-order packets are buffered, so one
//! loss costs about one retransmission. Processing is instantaneous.
//!
//! `sink = "in_order"` (a flow field) is Liang 1991 §4.2's receiver: it "sends an
//! acknowledgement as soon as it receives a packet which is in order and not received
//! before". Read here: a packet beyond the next one expected is discarded and not
//! acknowledged (so a hole sends no duplicate ACKs), while a packet already received is still
//! acknowledged (else a lost ACK for the last packets of a window could never be repaired).

use super::seqspace::SeqBitmap;

/// What the receiver keeps and acknowledges.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum SinkMode {
    /// Buffers out-of-order packets, acknowledges every packet.
    #[default]
    Selective,
    /// Discards and does not acknowledge a packet beyond the next expected (Liang §4.2).
    InOrder,
}

#[derive(Clone, Debug, Default)]
pub struct Sink {
    pub mode: SinkMode,
    /// Next in-order sequence number expected; everything below has been delivered.
    pub rcv_nxt: u64,
    ooo: SeqBitmap,
    /// The ADPM receiver's estimate of the largest marking probability on the path (Cui ch. 5
    /// §5.2.1; `queue::rem`'s `signal = "adpm"`): 0 until a price-marked packet arrives.
    pub price_estimate: f64,
}

/// What a data packet did at the sink.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Delivery {
    /// Packets newly delivered in order (first-time deliveries: the goodput count).
    pub in_order: u64,
    /// The packet had been received before.
    pub duplicate: bool,
    /// It is acknowledged (an in-order sink discards what arrives beyond a hole silently).
    pub ack: bool,
}

impl Sink {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn with_mode(mode: SinkMode) -> Self {
        Sink { mode, ..Self::default() }
    }

    /// A data packet's ADPM mark (`flags::PRICE`) and probe type update the estimate. A flow
    /// that has never seen a mark pays one branch.
    #[inline]
    pub fn on_price_mark(&mut self, seq: u64, marked: bool) {
        if marked || self.price_estimate > 0.0 {
            self.price_estimate = crate::queue::rem::adpm_decode(self.price_estimate, seq, marked);
        }
    }

    #[inline]
    pub fn on_data(&mut self, seq: u64) -> Delivery {
        if seq < self.rcv_nxt {
            return Delivery { in_order: 0, duplicate: true, ack: true };
        }
        if seq == self.rcv_nxt {
            self.rcv_nxt += 1;
            let mut n = 1;
            while self.ooo.test(self.rcv_nxt) {
                self.ooo.clear(self.rcv_nxt);
                self.rcv_nxt += 1;
                n += 1;
            }
            return Delivery { in_order: n, duplicate: false, ack: true };
        }
        if self.mode == SinkMode::InOrder {
            return Delivery { in_order: 0, duplicate: false, ack: false };
        }
        self.ooo.ensure(self.rcv_nxt + 1, seq);
        let duplicate = self.ooo.test(seq);
        self.ooo.set(seq);
        Delivery { in_order: 0, duplicate, ack: true }
    }

    pub fn memory_bytes(&self) -> usize {
        self.ooo.memory_bytes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn buffers_out_of_order_and_acks_cumulatively() {
        let mut s = Sink::new();
        assert_eq!(s.on_data(0).in_order, 1);
        assert_eq!(s.on_data(2).in_order, 0); // hole at 1
        assert_eq!(s.on_data(3).in_order, 0);
        assert!(s.on_data(3).duplicate);
        assert_eq!(s.rcv_nxt, 1);
        assert_eq!(s.on_data(1).in_order, 3); // fills the hole: 1, 2, 3
        assert_eq!(s.rcv_nxt, 4);
        assert!(s.on_data(2).duplicate);
        assert_eq!(s.on_data(200).in_order, 0); // far ahead: the bitmap grows
        assert_eq!(s.rcv_nxt, 4);
    }

    #[test]
    fn in_order_sink_discards_beyond_a_hole_and_acks_duplicates() {
        let mut s = Sink::with_mode(SinkMode::InOrder);
        assert!(s.on_data(0).ack);
        let beyond = s.on_data(2); // hole at 1: discarded, no ACK
        assert_eq!((beyond.in_order, beyond.ack), (0, false));
        assert_eq!(s.on_data(1).in_order, 1, "2 was not kept");
        assert_eq!(s.on_data(2).in_order, 1);
        let again = s.on_data(1);
        assert!(again.duplicate && again.ack, "a packet received before is acknowledged");
        assert_eq!(s.rcv_nxt, 3);
    }
}
