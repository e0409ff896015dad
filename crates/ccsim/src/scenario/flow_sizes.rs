//! A flow's packet sizes: one (`packet_size`), a mix (`packet_sizes`), or the coalesced
//! packets of Nagle's small-packet rule (`nagle` and its fields).

use super::decode::{Obj, Result, ScenarioError};
use super::units;
use crate::traffic::nagle::NagleConfig;
use crate::traffic::sizes::{SizeMix, MAX_SIZES, SHARE_SUM_TOLERANCE};

/// Most bytes in a packet.
pub const MAX_PACKET_BYTES: u64 = 65_535;

/// A flow's data packet sizes: one (`packet_size`, else `default_size`) or a mix
/// (`packet_sizes`, a list of `{size, share}` tables; traffic::sizes), not both. Returns the
/// mean size and the mix; a mix of one size is that size.
pub fn decode_packet_sizes(o: &mut Obj, default_size: u64) -> Result<(f64, Option<SizeMix>)> {
    let single = o.quantity("packet_size", units::size)?;
    if single.is_some_and(|v| v > MAX_PACKET_BYTES) {
        return Err(ScenarioError::new(o.at("packet_size"), format!("expected at most {MAX_PACKET_BYTES} bytes, got {}", single.unwrap())));
    }
    let path = o.at("packet_sizes");
    let Some(items) = o.array("packet_sizes")? else { return Ok((single.unwrap_or(default_size) as f64, None)) };
    if single.is_some() {
        return Err(ScenarioError::new(path, "give either packet_size (one size) or packet_sizes (a mix), not both"));
    }
    if items.is_empty() || items.len() > MAX_SIZES {
        return Err(ScenarioError::new(
            path,
            format!("expected a list of 1 to {MAX_SIZES} sizes with their shares, e.g. [{{size = \"100B\", share = 0.4}}, {{size = \"1000B\", share = 0.6}}]"),
        ));
    }
    let mut entries: Vec<(u32, f64)> = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        let mut e = Obj::new(item, &format!("{path}[{i}]"))?;
        let size = e.quantity("size", units::size)?.ok_or_else(|| e.missing("size", "a size such as \"500B\""))?;
        if size > MAX_PACKET_BYTES {
            return Err(ScenarioError::new(e.at("size"), format!("expected at most {MAX_PACKET_BYTES} bytes, got {size}")));
        }
        if entries.iter().any(|&(s, _)| s as u64 == size) {
            return Err(ScenarioError::new(
                e.at("size"),
                format!("size {size} B is listed twice; give each size once, with its whole share"),
            ));
        }
        let share = e.float("share")?.ok_or_else(|| e.missing("share", "the fraction of packets of this size, e.g. 0.4"))?;
        if !(share > 0.0 && share <= 1.0) {
            return Err(ScenarioError::new(e.at("share"), format!("expected a fraction of packets in (0, 1], got {share}")));
        }
        e.finish()?;
        entries.push((size as u32, share));
    }
    let sum: f64 = entries.iter().map(|e| e.1).sum();
    if (sum - 1.0).abs() > SHARE_SUM_TOLERANCE {
        return Err(ScenarioError::new(path, format!("expected shares summing to 1 (within {SHARE_SUM_TOLERANCE:e}), got {sum}")));
    }
    if entries.len() == 1 {
        return Ok((entries[0].0 as f64, None));
    }
    entries.iter_mut().for_each(|e| e.1 /= sum);
    let mix = SizeMix { entries };
    Ok((mix.mean(), Some(mix)))
}

/// Nagle's rule (`nagle = true`, read by the caller as `on`; `nagle_header`, `nagle_segment`,
/// `nagle_full_segments`) for a flow whose source writes packets of `packet_size` bytes: None
/// when off. It holds data while some is unacknowledged, so it needs a window and a source that
/// writes (not FTP's full packets), one size of write, and no `source_buffer` (held data is not
/// packets waiting). The segment defaults to the larger of 576 B and the flow's packet.
#[allow(clippy::too_many_arguments)]
pub fn decode_nagle(
    o: &mut Obj,
    on: bool,
    app: &str,
    cc: &str,
    packet_size: f64,
    mix: bool,
    source_buffer: bool,
) -> Result<Option<NagleConfig>> {
    let d = NagleConfig::default();
    let header = o.quantity("nagle_header", units::size)?;
    let segment = o.quantity("nagle_segment", units::size)?;
    let full_segments = o.boolean("nagle_full_segments")?;
    if !on {
        for (key, given) in
            [("nagle_header", header.is_some()), ("nagle_segment", segment.is_some()), ("nagle_full_segments", full_segments.is_some())]
        {
            if given {
                return Err(ScenarioError::new(o.at(key), format!("{key} is a setting of Nagle's rule: it needs nagle = true")));
            }
        }
        return Ok(None);
    }
    let refuse = |why: &str| Err(ScenarioError::new(o.at("nagle"), why.to_string()));
    if cc == "none" {
        return refuse("Nagle's rule holds data while some is unacknowledged: it needs a window (cc other than \"none\")");
    }
    if app == "ftp" {
        return refuse("Nagle's rule coalesces small writes; app \"ftp\" sends full packets (use telnet, poisson, cbr, onoff or pareto)");
    }
    if mix {
        return refuse("Nagle's rule coalesces writes of one size; give packet_size, not packet_sizes");
    }
    if source_buffer {
        return refuse("Nagle's rule holds the source's data itself; drop source_buffer");
    }
    let size = packet_size.round() as u64;
    let (header_given, header) = (header.is_some(), header.unwrap_or(d.header as u64));
    let segment = segment.unwrap_or((d.segment as u64).max(size));
    if segment > MAX_PACKET_BYTES {
        return Err(ScenarioError::new(o.at("nagle_segment"), format!("expected at most {MAX_PACKET_BYTES} bytes, got {segment}")));
    }
    if header >= size {
        let what = if header_given { "" } else { " (the default)" };
        return Err(ScenarioError::new(
            o.at(if header_given { "nagle_header" } else { "packet_size" }),
            format!(
                "expected a packet_size above nagle_header ({header} B{what}), so that each write carries data; got {size} B (e.g. packet_size = \"{}B\": one byte a write)",
                header + 1
            ),
        ));
    }
    if segment < size {
        return Err(ScenarioError::new(
            o.at("nagle_segment"),
            format!("expected a segment at least the flow's packet_size ({size} B); got {segment} B"),
        ));
    }
    Ok(Some(NagleConfig { header: header as u32, segment: segment as u32, full_segments: full_segments.unwrap_or(d.full_segments) }))
}
