//! w_old per packet, as the ns-2 module keeps it (`cwnd_array_`): when a packet leaves, the
//! flight the sender estimated at the last new ACK (`avg_cwnd_last_RTT_` = packets sent less
//! the last in order acknowledged, less duplicate ACKs, which are none at a new ACK: ns-2's
//! `newack` clears them first) is stored under its sequence number;
//! the update at a new ACK reads the value of the packet that ACK names. A power-of-two ring
//! indexed by sequence number, allocated at the first record (flows on another `w_old` never
//! allocate it) and grown (doubling) when the window outgrows it: no allocation in a steady
//! state.

#[derive(Clone, Debug)]
pub(super) struct SentFlights {
    ring: Vec<f32>,
    /// The lowest sequence number still to be read (the last one acknowledged in order).
    low: u64,
}

impl SentFlights {
    pub(super) fn new() -> Self {
        SentFlights { ring: Vec::new(), low: 0 }
    }

    fn index(&self, seq: u64) -> usize {
        (seq & (self.ring.len() as u64 - 1)) as usize
    }

    /// Packet `seq` leaves with the flight estimate `flight`.
    pub(super) fn record(&mut self, seq: u64, flight: f64) {
        if seq < self.low {
            return;
        }
        if self.ring.is_empty() || seq - self.low >= self.ring.len() as u64 {
            self.grow(seq);
        }
        let i = self.index(seq);
        self.ring[i] = flight as f32;
    }

    #[cold]
    fn grow(&mut self, seq: u64) {
        let mut len = self.ring.len().max(64);
        while seq - self.low >= len as u64 {
            len *= 2;
        }
        let mut next = SentFlights { ring: vec![f32::NAN; len], low: self.low };
        let keep = self.low + self.ring.len() as u64;
        for s in self.low..keep {
            let i = next.index(s);
            next.ring[i] = self.ring[self.index(s)];
        }
        *self = next;
    }

    /// The value recorded for `seq` (None if it was never recorded or is forgotten).
    pub(super) fn get(&self, seq: u64) -> Option<f64> {
        if seq < self.low || seq - self.low >= self.ring.len() as u64 {
            return None;
        }
        let v = self.ring[self.index(seq)];
        (!v.is_nan()).then_some(v as f64)
    }

    /// Every packet still kept now has `flight` (the module's reset of `cwnd_array_`).
    pub(super) fn fill(&mut self, flight: f64) {
        for v in self.ring.iter_mut().filter(|v| !v.is_nan()) {
            *v = flight as f32;
        }
    }

    /// Nothing below `seq` will be read again.
    pub(super) fn forget_below(&mut self, seq: u64) {
        if seq <= self.low {
            return;
        }
        let n = (seq - self.low).min(self.ring.len() as u64);
        for s in self.low..self.low + n {
            let i = self.index(s);
            self.ring[i] = f32::NAN;
        }
        self.low = seq;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_each_packets_flight_through_growth_and_forgets_what_is_acknowledged() {
        let mut w = SentFlights::new();
        for s in 0..50 {
            w.record(s, s as f64);
        }
        w.forget_below(10);
        for s in 50..1000 {
            w.record(s, s as f64);
        }
        assert_eq!(w.get(9), None);
        assert_eq!(w.get(10), Some(10.0));
        assert_eq!(w.get(999), Some(999.0));
        assert_eq!(w.get(1000), None);
        assert!(w.ring.len() >= 990);
        w.record(12, 7.0); // a retransmission overwrites
        assert_eq!(w.get(12), Some(7.0));
        w.forget_below(5000);
        assert_eq!(w.get(999), None);
        w.record(5001, 1.0);
        assert_eq!(w.get(5001), Some(1.0));
    }
}
