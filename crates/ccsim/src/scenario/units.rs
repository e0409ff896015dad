//! Quantities with units, as written in scenario files: "80kbps", "2s", "1000B", "40pkt".
//!
//! Decimal prefixes throughout (k = 1000), as networking rates are quoted; binary byte
//! prefixes (KiB, MiB) are accepted for sizes. A bare number is read in the base unit
//! (bit/s, seconds, bytes, packets) so the Python builder can pass plain numbers.

use crate::queue::BufferLimit;
use crate::sim::{time::from_secs, SimTime};

fn split_number(s: &str) -> Option<(f64, String)> {
    let s = s.trim();
    let end = s
        .char_indices()
        .find(|&(_, c)| !(c.is_ascii_digit() || c == '.' || c == 'e' || c == 'E' || c == '-' || c == '+'))
        .map(|(i, _)| i)
        .unwrap_or(s.len());
    // "1e3s" is fine, but a unit starting with 'e' would be eaten; none of ours does.
    let num: f64 = s[..end].trim().parse().ok()?;
    Some((num, s[end..].trim().to_ascii_lowercase()))
}

/// Bandwidth in bit/s. Units: bps, kbps, Mbps, Gbps, Tbps (also "b/s" forms).
pub fn bandwidth(s: &str) -> Result<u64, String> {
    const EXPECT: &str = "a positive bandwidth such as \"80kbps\", \"100Mbps\" or \"1Gbps\"";
    let (n, unit) = split_number(s).ok_or_else(|| EXPECT.to_string())?;
    let mult = match unit.replace("b/s", "bps").as_str() {
        "" | "bps" => 1.0,
        "kbps" => 1e3,
        "mbps" => 1e6,
        "gbps" => 1e9,
        "tbps" => 1e12,
        _ => return Err(EXPECT.to_string()),
    };
    let v = n * mult;
    if !(v.is_finite() && v >= 1.0) {
        return Err(EXPECT.to_string());
    }
    Ok(v.round() as u64)
}

/// Longest duration accepted anywhere: 10^6 s (11.6 days). Sums of a few such times stay
/// far from u64 picosecond overflow (1.8 x 10^7 s).
pub const MAX_SECONDS: f64 = 1e6;

/// Duration. Units: s, ms, us, ns, ps, min.
pub fn duration(s: &str) -> Result<SimTime, String> {
    const EXPECT: &str = "a non-negative duration up to 1e6 s, such as \"2s\", \"500ms\" or \"10us\"";
    let (n, unit) = split_number(s).ok_or_else(|| EXPECT.to_string())?;
    let secs = match unit.as_str() {
        "" | "s" | "sec" => n,
        "ms" => n * 1e-3,
        "us" | "µs" => n * 1e-6,
        "ns" => n * 1e-9,
        "ps" => n * 1e-12,
        "min" => n * 60.0,
        _ => return Err(EXPECT.to_string()),
    };
    if !(secs.is_finite() && (0.0..=MAX_SECONDS).contains(&secs)) {
        return Err(EXPECT.to_string());
    }
    Ok(from_secs(secs))
}

/// Size in bytes. Units: B, KB, MB, GB (decimal), KiB, MiB (binary).
pub fn size(s: &str) -> Result<u64, String> {
    const EXPECT: &str = "a positive size such as \"1000B\", \"1.5KB\" or \"64KiB\"";
    let (n, unit) = split_number(s).ok_or_else(|| EXPECT.to_string())?;
    let mult = match unit.as_str() {
        "" | "b" | "bytes" => 1.0,
        "kb" => 1e3,
        "mb" => 1e6,
        "gb" => 1e9,
        "kib" => 1024.0,
        "mib" => 1024.0 * 1024.0,
        _ => return Err(EXPECT.to_string()),
    };
    let v = n * mult;
    if !(v.is_finite() && v >= 1.0 && v.fract() == 0.0) {
        return Err(EXPECT.to_string());
    }
    Ok(v as u64)
}

/// Rate in packets per second: "10pps" (or a bare number).
pub fn packet_rate(s: &str) -> Result<f64, String> {
    const EXPECT: &str = "a positive packet rate such as \"10pps\"";
    let (n, unit) = split_number(s).ok_or_else(|| EXPECT.to_string())?;
    match unit.as_str() {
        "" | "pps" | "pkt/s" => {}
        _ => return Err(EXPECT.to_string()),
    }
    if !(n.is_finite() && n > 0.0) {
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
            if n >= 1.0 && n.fract() == 0.0 && n < 4e9 {
                Ok(BufferLimit::Packets(n as u32))
            } else {
                Err(EXPECT.to_string())
            }
        }
        _ => size(&t).map(BufferLimit::Bytes).map_err(|_| EXPECT.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::PS_PER_SEC;
    #[test]
    fn parses_the_units_of_the_theses() {
        assert_eq!(bandwidth("80kbps"), Ok(80_000));
        assert_eq!(bandwidth("800 kb/s"), Ok(800_000));
        assert_eq!(bandwidth("1Gbps"), Ok(1_000_000_000));
        assert_eq!(duration("2s"), Ok(2 * PS_PER_SEC));
        assert_eq!(duration("0.5ms"), Ok(PS_PER_SEC / 2000));
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
        assert!(size("0B").is_err());
        assert!(buffer("0pkt").is_err());
        assert!(buffer("lots").is_err());
    }
}
