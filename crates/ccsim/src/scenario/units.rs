//! Quantities with units, as written in scenario files: "80kbps", "2s", "1000B", "40pkt".
//!
//! Decimal prefixes throughout (k = 1000), as networking rates are quoted; binary byte
//! prefixes (KiB, MiB) are accepted for sizes. A bare number is read in the base unit
//! (bit/s, seconds, bytes, packets) so the Python builder can pass plain numbers.

use crate::queue::BufferLimit;
use crate::sim::{time::from_secs, SimTime};

fn split_number(s: &str) -> Option<(f64, String)> {
    let (n, unit) = split_number_keep_case(s)?;
    Some((n, unit.to_ascii_lowercase()))
}

/// The number and the unit as written: "b" (bits) and "B" (bytes) differ.
fn split_number_keep_case(s: &str) -> Option<(f64, String)> {
    let s = s.trim();
    let end = s
        .char_indices()
        .find(|&(_, c)| !(c.is_ascii_digit() || c == '.' || c == 'e' || c == 'E' || c == '-' || c == '+'))
        .map(|(i, _)| i)
        .unwrap_or(s.len());
    // "1e3s" is fine, but a unit starting with 'e' would be eaten; none of ours does.
    let num: f64 = s[..end].trim().parse().ok()?;
    Some((num, s[end..].trim().to_string()))
}

/// The decimal multiplier of a prefix, any case: "", k, M, G, T.
fn decimal_prefix(p: &str) -> Option<f64> {
    Some(match p.to_ascii_lowercase().as_str() {
        "" => 1.0,
        "k" => 1e3,
        "m" => 1e6,
        "g" => 1e9,
        "t" => 1e12,
        _ => return None,
    })
}

/// A size unit written with a small b, i.e. bits: "b", "kb", "Mb", "kib".
fn is_bit_unit(u: &str) -> bool {
    u.strip_suffix('b').map(|p| p.strip_suffix('i').unwrap_or(p)).and_then(decimal_prefix).is_some()
}

/// Highest bandwidth accepted: 1 Pb/s.
pub const MAX_BPS: f64 = 1e15;

/// Bandwidth in bit/s. Units: bps, kbps, Mbps, Gbps, Tbps (also "b/s" forms); the prefix in
/// any case. A capital B is bytes: "10MBps" is refused rather than read as bits.
pub fn bandwidth(s: &str) -> Result<u64, String> {
    const EXPECT: &str = "a positive bandwidth up to 1e15 bps, such as \"80kbps\", \"100Mbps\" or \"1Gbps\"";
    let (n, unit) = split_number_keep_case(s).ok_or_else(|| EXPECT.to_string())?;
    let unit = unit.replace("/s", "ps");
    let mult = if unit.is_empty() {
        1.0
    } else {
        match unit.strip_suffix("bps").and_then(decimal_prefix) {
            Some(m) => m,
            None if unit.ends_with("Bps") => return Err("bits per second, such as \"80Mbps\" (a capital B is bytes)".to_string()),
            None => return Err(EXPECT.to_string()),
        }
    };
    let v = n * mult;
    if !(v.is_finite() && (1.0..=MAX_BPS).contains(&v)) {
        return Err(EXPECT.to_string());
    }
    Ok(v.round() as u64)
}

/// Longest duration accepted for a time inside a run (a delay, a start, an interval): 10^6 s
/// (11.6 days).
pub const MAX_SECONDS: f64 = 1e6;

/// Longest run (`duration`): 1.6 x 10^7 s (185 days), below u64 picosecond overflow
/// (1.84 x 10^7 s). Every instant inside a run (a start, a stop, a change) is still at most
/// MAX_SECONDS, and the times a packet or timer adds to the present (a transmission on a slow
/// line, a delay, a jitter draw) saturate where they could pass the end. Cui's Table 4.1 needs
/// 1.6 x 10^7 s: three prose Vegas flows take 1.5 x 10^7 s to build their 61 000-packet queue
/// one packet a round trip.
pub const MAX_RUN_SECONDS: f64 = 1.6e7;

/// Duration. Units: s, ms, us, ns, ps, min.
pub fn duration(s: &str) -> Result<SimTime, String> {
    bounded_duration(s, MAX_SECONDS, "a non-negative duration up to 1e6 s, such as \"2s\", \"500ms\" or \"10us\"")
}

/// A run's length: as [`duration`], up to [`MAX_RUN_SECONDS`].
pub fn run_duration(s: &str) -> Result<SimTime, String> {
    bounded_duration(s, MAX_RUN_SECONDS, "a positive duration up to 1.6e7 s, such as \"30s\", \"10min\" or \"1e7s\"")
}

fn bounded_duration(s: &str, max: f64, expect: &str) -> Result<SimTime, String> {
    let (n, unit) = split_number_keep_case(s).ok_or_else(|| expect.to_string())?;
    // Units may be written in any case, but a capital M is mega everywhere else ("10Mbps"):
    // "5Ms" is refused rather than read as 5 ms.
    if unit.starts_with('M') && unit.eq_ignore_ascii_case("ms") {
        return Err(format!("{expect} (\"{unit}\" has a capital M, mega; milliseconds are \"ms\")"));
    }
    let unit = unit.to_ascii_lowercase();
    let secs = match unit.as_str() {
        "" | "s" | "sec" => n,
        "ms" => n * 1e-3,
        "us" | "µs" => n * 1e-6,
        "ns" => n * 1e-9,
        "ps" => n * 1e-12,
        "min" => n * 60.0,
        _ => return Err(expect.to_string()),
    };
    if !(secs.is_finite() && (0.0..=max).contains(&secs)) {
        return Err(expect.to_string());
    }
    if secs > 0.0 && secs < 0.5e-12 {
        // It would round to nothing: say so rather than run with a zero the user did not write.
        return Err(format!("{expect} (\"{}\" is below the clock's resolution, 1 ps)", s.trim()));
    }
    Ok(from_secs(secs))
}

/// Size in bytes. Units: B, KB, MB, GB (decimal, the prefix in any case), KiB, MiB, GiB (binary).
/// A lower-case b is bits: "1.5kb" is refused rather than read as bytes.
pub fn size(s: &str) -> Result<u64, String> {
    const EXPECT: &str = "a positive size such as \"1000B\", \"1.5KB\" or \"64KiB\"";
    let (n, unit) = split_number_keep_case(s).ok_or_else(|| EXPECT.to_string())?;
    let mult = match unit.as_str() {
        "" => 1.0,
        u if u.eq_ignore_ascii_case("bytes") => 1.0,
        u if u.ends_with("iB") && u[..u.len() - 2].eq_ignore_ascii_case("k") => 1024.0,
        u if u.ends_with("iB") && u[..u.len() - 2].eq_ignore_ascii_case("m") => 1024.0 * 1024.0,
        u if u.ends_with("iB") && u[..u.len() - 2].eq_ignore_ascii_case("g") => 1024.0 * 1024.0 * 1024.0,
        u => match u.strip_suffix('B').and_then(decimal_prefix) {
            Some(m) => m,
            None if is_bit_unit(u) => return Err("bytes, such as \"1500B\" or \"1.5KB\" (a small b is bits)".to_string()),
            None => return Err(EXPECT.to_string()),
        },
    };
    let v = n * mult;
    if !(v.is_finite() && v >= 1.0 && v.fract() == 0.0) {
        return Err(EXPECT.to_string());
    }
    Ok(v as u64)
}

/// An amount of data in bits: "8000b", "8kb" (a small b is bits) or a size in bytes ("1000B",
/// "1.5KB"), converted to bits. For parameters the thesis states in bits (FQ's delta).
pub fn bits(s: &str) -> Result<u64, String> {
    const EXPECT: &str = "bits such as \"8000b\" or \"8kb\", or bytes such as \"1000B\"";
    let (n, unit) = split_number_keep_case(s).ok_or_else(|| EXPECT.to_string())?;
    if let Some(mult) = unit.strip_suffix('b').and_then(decimal_prefix) {
        let v = n * mult;
        return if v.is_finite() && v >= 0.0 && v.fract() == 0.0 && v < 1.8e19 { Ok(v as u64) } else { Err(EXPECT.to_string()) };
    }
    size(s).map(|bytes| bytes.saturating_mul(8)).map_err(|_| EXPECT.to_string())
}

/// Rate in packets per second: "10pps" (or a bare number).
pub fn packet_rate(s: &str) -> Result<f64, String> {
    const EXPECT: &str = "a positive packet rate up to 1e12 pps (one packet a picosecond), such as \"10pps\"";
    let (n, unit) = split_number(s).ok_or_else(|| EXPECT.to_string())?;
    match unit.as_str() {
        "" | "pps" | "pkt/s" => {}
        u if bandwidth(s).is_ok() && !u.is_empty() => {
            return Err(format!("{EXPECT}; a bit rate such as {s:?} goes in `bitrate` (packets of the flow's size)"));
        }
        _ => return Err(EXPECT.to_string()),
    }
    if !(n.is_finite() && n > 0.0 && n <= 1e12) {
        return Err(EXPECT.to_string());
    }
    Ok(n)
}

/// Buffer: "40pkt" (packets), "64000B" / "64KB" (bytes) or "unlimited".
pub fn buffer(s: &str) -> Result<BufferLimit, String> {
    const EXPECT: &str = "a buffer such as \"40pkt\", \"64KB\" or \"unlimited\"";
    let t = s.trim().to_ascii_lowercase();
    if t == "unlimited" || t == "infinite" {
        return Ok(BufferLimit::Unlimited);
    }
    let (n, unit) = split_number(&t).ok_or_else(|| EXPECT.to_string())?;
    match unit.as_str() {
        "" | "pkt" | "pkts" | "packets" | "packet" => {
            // 0 is for trunks without waiting room (`topology::check_channels`).
            if n >= 0.0 && n.fract() == 0.0 && n < 4e9 {
                Ok(BufferLimit::Packets(n as u32))
            } else {
                Err(EXPECT.to_string())
            }
        }
        // Sizes keep their case (B bytes, b bits).
        _ => size(s).map(BufferLimit::Bytes).map_err(|e| if e.contains("is bits") { e } else { EXPECT.to_string() }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::PS_PER_SEC;
    #[test]
    fn binary_sizes_up_to_gib() {
        assert_eq!(size("64KiB"), Ok(65_536));
        assert_eq!(size("2MiB"), Ok(2 << 20));
        assert_eq!(size("1GiB"), Ok(1 << 30)); // the documented limits' default spelling
        assert_eq!(size("1giB"), Ok(1 << 30));
        assert!(size("1GIB").is_err());
    }

    #[test]
    fn a_bit_rate_given_as_a_packet_rate_is_pointed_to_bitrate() {
        let e = packet_rate("40kbps").unwrap_err();
        assert!(e.contains("\"40kbps\" goes in `bitrate`"), "{e}");
        assert!(!packet_rate("40kg").unwrap_err().contains("bitrate"));
        assert_eq!(packet_rate("10pps"), Ok(10.0));
    }

    #[test]
    fn a_duration_below_the_clock_resolution_is_refused_not_rounded_to_zero() {
        let e = duration("1e-20s").unwrap_err();
        assert!(e.contains("below the clock's resolution"), "{e}");
        assert_eq!(duration("1ps"), Ok(1));
        assert_eq!(duration("0s"), Ok(0));
        assert!(run_duration("-5s").unwrap_err().starts_with("a positive duration"));
    }

    #[test]
    fn parses_the_units_of_the_theses() {
        assert_eq!(bandwidth("80kbps"), Ok(80_000));
        assert_eq!(bandwidth("800 kb/s"), Ok(800_000));
        assert_eq!(bandwidth("1Gbps"), Ok(1_000_000_000));
        assert_eq!(duration("2s"), Ok(2 * PS_PER_SEC));
        assert_eq!(duration("0.5ms"), Ok(PS_PER_SEC / 2000));
        // A run may last longer than any time inside it, and still not overflow the clock.
        assert!(duration("2e6s").is_err());
        assert_eq!(run_duration("1.2e7s"), Ok(12_000_000 * PS_PER_SEC));
        assert!(run_duration("2e7s").is_err());
        assert!((MAX_RUN_SECONDS + MAX_SECONDS) * (PS_PER_SEC as f64) < u64::MAX as f64);
        assert_eq!(size("1000B"), Ok(1000));
        assert_eq!(size("1.5KB"), Ok(1500));
        assert_eq!(buffer("40pkt"), Ok(BufferLimit::Packets(40)));
        assert_eq!(buffer("64KB"), Ok(BufferLimit::Bytes(64_000)));
        assert_eq!(buffer("unlimited"), Ok(BufferLimit::Unlimited));
    }
    #[test]
    fn rejects_wrong_units_and_nonpositive_values() {
        assert!(bandwidth("80kg").is_err());
        assert!(bandwidth("0bps").is_err());
        assert!(bandwidth("-5Mbps").is_err());
        assert!(duration("-1s").is_err());
        assert!(duration("3 parsecs").is_err());
        // A capital M is mega elsewhere ("10Mbps"): "5Ms" is not taken for 5 ms.
        for mega in ["5Ms", "5MS"] {
            assert!(duration(mega).unwrap_err().contains("capital M"), "{mega}");
        }
        assert_eq!(duration("5mS"), Ok(5 * PS_PER_SEC / 1000));
        assert_eq!(duration("1Min"), Ok(60 * PS_PER_SEC));
        assert!(size("0B").is_err());
        assert_eq!(buffer("0pkt"), Ok(BufferLimit::Packets(0)), "checked against the link's channels");
        assert!(buffer("-1pkt").is_err());
        assert!(buffer("lots").is_err());
    }
    #[test]
    fn bytes_and_bits_are_not_confused() {
        // A capital B is bytes, a small b bits: neither is silently read as the other.
        assert_eq!(bandwidth("10Mbps"), Ok(10_000_000));
        assert_eq!(bandwidth("10mbps"), Ok(10_000_000));
        assert_eq!(bandwidth("10 Mb/s"), Ok(10_000_000));
        for bytes in ["10MBps", "1MB/s", "64KBps"] {
            assert!(bandwidth(bytes).unwrap_err().contains("a capital B is bytes"), "{bytes}");
        }
        assert_eq!(size("1.5KB"), Ok(1500));
        assert_eq!(size("1.5kB"), Ok(1500));
        assert_eq!(size("64KiB"), Ok(65536));
        for bits in ["1.5kb", "1000b", "2Mb"] {
            assert!(size(bits).unwrap_err().contains("a small b is bits"), "{bits}");
        }
        assert!(buffer("64kb").unwrap_err().contains("a small b is bits"));
        assert_eq!(size("1500 Bytes"), Ok(1500));
        assert_eq!(buffer("64 BYTES"), Ok(BufferLimit::Bytes(64)));
        assert_eq!(size("5xb"), Err("a positive size such as \"1000B\", \"1.5KB\" or \"64KiB\"".to_string()));
        for bits in ["64kib", "64Kib"] {
            assert!(size(bits).unwrap_err().contains("a small b is bits"), "{bits}");
        }
        assert_eq!(bits("8kb"), Ok(8000));
        assert_eq!(bits("8000b"), Ok(8000));
        assert_eq!(bits("1000B"), Ok(8000));
        assert_eq!(bits("1KiB"), Ok(8192));
        assert!(bits("8 parsecs").is_err());
        assert_eq!(buffer("64KB"), Ok(BufferLimit::Bytes(64_000)));
    }
    #[test]
    fn rates_beyond_the_clock_are_refused_not_clamped() {
        assert!(bandwidth("1Pbps").is_err());
        assert!(bandwidth("1e30Mbps").is_err());
        assert_eq!(bandwidth("1e15"), Ok(1_000_000_000_000_000));
        assert!(packet_rate("1e13pps").is_err());
        assert_eq!(packet_rate("1e12pps"), Ok(1e12));
    }
}
