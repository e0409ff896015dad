//! Simulated time: unsigned 64-bit picoseconds.
//!
//! Integer time keeps runs bit-reproducible across machines; 2^64 ps is about 213 days of
//! simulated time. A run may last up to 1.6 x 10^7 s (185 days: Cui's Table 4.1 needs 1.6e7 s)
//! and the times a packet adds up past it saturate (scenario/units.rs).

/// Simulated time or duration in picoseconds.
pub type SimTime = u64;

pub const PS_PER_SEC: u64 = 1_000_000_000_000;

/// Seconds (as a float) to picoseconds, rounded to the nearest picosecond.
pub fn from_secs(s: f64) -> SimTime {
    (s * PS_PER_SEC as f64).round() as SimTime
}

/// Picoseconds to seconds as a float (for reporting only, never for event ordering).
pub fn to_secs(t: SimTime) -> f64 {
    t as f64 / PS_PER_SEC as f64
}

/// Time to serialise `bytes` onto a line of `bits_per_sec`, in picoseconds (rounded up, so a
/// line never runs faster than its nominal rate).
/// Every transmission calls this: packets under 2.3 MB (all real ones) stay in 64-bit
/// arithmetic, which is several times faster than the 128-bit division kept for the rest.
#[inline]
pub fn tx_time(bytes: u32, bits_per_sec: u64) -> SimTime {
    const BIT_PS: u64 = 8 * PS_PER_SEC;
    match (bytes as u64).checked_mul(BIT_PS) {
        Some(num) => num.div_ceil(bits_per_sec),
        None => (bytes as u128 * BIT_PS as u128).div_ceil(bits_per_sec as u128) as SimTime,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn keshav_line_rates() {
        // 1000-byte FTP packet on the 80 kb/s slow line takes exactly 0.1 s.
        assert_eq!(tx_time(1000, 80_000), PS_PER_SEC / 10);
        // 40-byte ACK on an 800 kb/s fast line takes 0.4 ms.
        assert_eq!(tx_time(40, 800_000), 400_000_000);
        assert_eq!(from_secs(2.5), 2_500_000_000_000);
        // Both arithmetic paths round up alike: 2.3 MB is where 64 bits end.
        for bytes in [1u32, 1500, 9000, 2_305_843, 2_305_844, 50_000_000, u32::MAX] {
            for bw in [1u64, 3, 80_000, 999_999_937, 100_000_000_000] {
                let exact = (bytes as u128 * 8 * PS_PER_SEC as u128).div_ceil(bw as u128);
                if exact <= u64::MAX as u128 {
                    assert_eq!(tx_time(bytes, bw) as u128, exact, "{bytes} B at {bw} b/s");
                }
            }
        }
    }
}
