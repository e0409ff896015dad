//! A flow's edge marker: a token bucket that colours its data packets in or out of profile
//! (`flags::IN_PROFILE`), for RIO (queue/rio.rs; Clark and Fang 1998, named in Hua 2002 §2.3
//! as a DiffServ core mechanism, spec hua02-vegas-jcc-swtp.md §1.2.5).
//!
//! Choices where the source is silent: the bucket fills at `profile_rate` up to
//! `profile_burst` bytes and starts full; a packet is in profile when the bucket holds its
//! whole size, which it then takes; a packet out of profile takes nothing. Retransmissions are
//! coloured like any packet (the marker sees packets, not sequence numbers).

use crate::sim::{SimTime, PS_PER_SEC};

#[derive(Clone, Debug)]
pub struct ProfileMarker {
    /// Bytes a picosecond.
    rate: f64,
    burst: f64,
    tokens: f64,
    last: SimTime,
}

impl ProfileMarker {
    pub fn new(rate_bps: u64, burst_bytes: u64) -> Self {
        let burst = burst_bytes as f64;
        ProfileMarker { rate: rate_bps as f64 / 8.0 / PS_PER_SEC as f64, burst, tokens: burst, last: 0 }
    }

    /// Whether a packet of `size` bytes leaving at `now` is in profile (and take its tokens).
    #[inline]
    pub fn in_profile(&mut self, now: SimTime, size: u32) -> bool {
        self.tokens = (self.tokens + now.saturating_sub(self.last) as f64 * self.rate).min(self.burst);
        self.last = now;
        let size = size as f64;
        if self.tokens >= size {
            self.tokens -= size;
            true
        } else {
            false
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_source_at_twice_the_profile_rate_has_half_its_packets_in() {
        // 1 Mb/s profile, 3000-byte bucket; 1000-byte packets at 2 Mb/s (one every 4 ms).
        let mut m = ProfileMarker::new(1_000_000, 3000);
        let gap = 4 * PS_PER_SEC / 1000;
        let colours: Vec<bool> = (0..1000).map(|k| m.in_profile(k * gap, 1000)).collect();
        // The full bucket lets the first three through, then every other packet.
        assert!(colours[..3].iter().all(|&c| c));
        let inside = colours[100..].iter().filter(|&&c| c).count();
        assert_eq!(inside, 450);
    }

    #[test]
    fn below_the_profile_rate_everything_is_in() {
        let mut m = ProfileMarker::new(1_000_000, 1000);
        let gap = 10 * PS_PER_SEC / 1000; // 1000 bytes every 10 ms: 0.8 Mb/s
        assert!((0..500).all(|k| m.in_profile(k * gap, 1000)));
    }
}
