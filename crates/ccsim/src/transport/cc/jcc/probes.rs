//! When JCC probes (Hua 2002 §4.2.3: "once per round trip time"; spec A-J8).
//!
//! - `probing = "outstanding"` [REC]: at most one probe is outstanding; the first new packet
//!   after the probing ACK returns, or after the probe is declared lost or given up, is the
//!   next probe (the header of jcc/mod.rs).
//! - `probing = "timer"` (A-J8's other reading): the first new packet once a smoothed RTT has
//!   passed since the last probe is the next probe, whether or not the last one's ACK has come;
//!   up to `SLOTS` probes are outstanding (an older one is given up for a newer). Before the
//!   first RTT sample it probes as "outstanding" does. The smoothed RTT is Jacobson's (gain
//!   1/8) over every ACK's sample (now minus the echoed packet's send time).

use crate::sim::SimTime;

const SLOTS: usize = 8;
const EMPTY: u64 = u64::MAX;

/// How probes are spaced.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Probing {
    Outstanding,
    Timer,
}

#[derive(Clone, Debug)]
pub struct Probes {
    mode: Probing,
    /// Outstanding probes' sequence numbers (EMPTY: a free slot).
    out: [u64; SLOTS],
    next: usize,
    /// Timer mode: the smoothed RTT and when the last probe left.
    srtt: Option<f64>,
    last: SimTime,
}

impl Probes {
    pub fn new(mode: Probing) -> Self {
        Probes { mode, out: [EMPTY; SLOTS], next: 0, srtt: None, last: 0 }
    }

    /// A probe is out (sent, not yet acknowledged, lost or given up).
    pub fn outstanding(&self) -> bool {
        self.out.iter().any(|&s| s != EMPTY)
    }

    /// Whether the packet `seq` about to leave at `now` is a probe (and record it).
    pub fn take(&mut self, seq: u64, retransmission: bool, now: SimTime) -> bool {
        if retransmission {
            return false;
        }
        let due = match (self.mode, self.srtt) {
            (Probing::Timer, Some(srtt)) => now.saturating_sub(self.last) as f64 >= srtt,
            _ => !self.outstanding(),
        };
        if due {
            self.out[self.next] = seq;
            self.next = (self.next + 1) % SLOTS;
            self.last = now;
        }
        due
    }

    /// An ACK echoing `echo_seq` (a retransmission's copy when `echo_retx`), cumulative `ack`,
    /// whose RTT sample is `rtt` (picoseconds): true if it is a probing ACK. Probes the
    /// cumulative ACK passed without their own ACK are given up.
    pub fn on_ack(&mut self, echo_seq: u64, echo_retx: bool, ack: u64, rtt: SimTime) -> bool {
        if self.mode == Probing::Timer {
            let r = rtt as f64;
            self.srtt = Some(self.srtt.map_or(r, |s| s + (r - s) / 8.0));
        }
        let mut probing = false;
        for s in self.out.iter_mut().filter(|s| **s != EMPTY) {
            if *s == echo_seq && !echo_retx {
                *s = EMPTY;
                probing = true;
            } else if *s < ack {
                *s = EMPTY; // passed without its own ACK: given up
            }
        }
        probing
    }

    /// Packet `seq` was detected lost: true if it was an outstanding probe.
    pub fn lost(&mut self, seq: u64) -> bool {
        match self.out.iter_mut().find(|s| **s == seq) {
            Some(s) => {
                *s = EMPTY;
                true
            }
            None => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_outstanding_probe_or_one_a_smoothed_rtt() {
        let mut p = Probes::new(Probing::Outstanding);
        assert!(p.take(0, false, 0));
        assert!(!p.take(1, false, 10));
        assert!(p.on_ack(0, false, 1, 100));
        assert!(p.take(2, false, 110), "the next new packet after the probing ACK");
        let mut t = Probes::new(Probing::Timer);
        assert!(t.take(0, false, 0));
        t.on_ack(0, false, 1, 100); // srtt 100
        assert!(t.take(1, false, 100));
        assert!(!t.take(2, false, 150), "half an RTT later: not yet");
        assert!(t.take(3, false, 200), "a second probe while the first is out");
        assert!(t.lost(3) && !t.lost(3));
        assert!(!t.take(4, true, 400), "never a retransmission");
    }
}
