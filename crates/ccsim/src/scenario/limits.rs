//! What a run may use: the `[limits]` table, and the check that a scenario's tables fit before
//! it runs.
//!
//! Two budgets, each a size a user can raise:
//! - `packet_memory` (default 1 GiB): the packets a run may hold at once (queued, on lines, in
//!   pipes), at [`BYTES_PER_LIVE_PACKET`] each: the arena's 64-byte slot and room for a
//!   queue's bookkeeping of it. A run that reaches it stops with an error naming the flow that
//!   holds the most (a source offering more than its path carries into an unlimited queue),
//!   and the arena never grows past it.
//! - `table_memory` (default 1 GiB): the tables the run records (intervals, traces, port
//!   statistics, departures), estimated from the scenario before it runs. Python copies them
//!   once more on the way to its DataFrames, so a run within it peaks near twice that.

use super::decode::{Obj, Result, ScenarioError};
use super::units;

/// Memory a live packet is counted at: its 64-byte arena slot and as much again for the
/// structures that hold it (a queue's ring, FQ's per-packet entry).
pub const BYTES_PER_LIVE_PACKET: u64 = 128;

/// The defaults: 1 GiB each.
pub const DEFAULT_PACKET_MEMORY: u64 = 1 << 30;
pub const DEFAULT_TABLE_MEMORY: u64 = 1 << 30;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    pub packet_memory: u64,
    pub table_memory: u64,
}

impl Default for Limits {
    fn default() -> Self {
        Limits { packet_memory: DEFAULT_PACKET_MEMORY, table_memory: DEFAULT_TABLE_MEMORY }
    }
}

impl Limits {
    /// Packets the run may hold at once.
    pub fn live_packets(&self) -> usize {
        (self.packet_memory / BYTES_PER_LIVE_PACKET).max(1) as usize
    }

    pub fn decode(top: &mut Obj) -> Result<Limits> {
        let mut limits = Limits::default();
        let Some(mut t) = top.table("limits")? else { return Ok(limits) };
        for (key, slot) in [("packet_memory", &mut limits.packet_memory), ("table_memory", &mut limits.table_memory)] {
            if let Some(b) = t.quantity(key, units::size)? {
                if !(1 << 20..=1 << 50).contains(&b) {
                    return Err(ScenarioError::new(t.at(key), format!("expected a size from 1MiB to 1PiB, got {b} bytes")));
                }
                *slot = b;
            }
        }
        t.finish()?;
        Ok(limits)
    }
}

/// The machine's available memory in bytes (Linux's MemAvailable), or None where unknown.
pub fn available_memory() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = text.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

/// An error, before the run, if the packets `packet_memory` allows could not fit in the
/// machine's `available` memory: the arena's slots alone (64 of the 128 bytes counted a packet)
/// would pass it. A budget at the default passes: a run rarely fills it, and when it does the
/// run stops with its own error.
pub fn check_packet_memory(limits: &Limits, available: Option<u64>) -> Result<()> {
    let Some(avail) = available else { return Ok(()) };
    let arena = limits.live_packets() as u64 * std::mem::size_of::<crate::net::packet::Packet>() as u64;
    if limits.packet_memory <= DEFAULT_PACKET_MEMORY || arena <= avail {
        return Ok(());
    }
    Err(ScenarioError::new(
        "limits.packet_memory",
        format!(
            "{} allows {} packets alive at once, whose arena alone would take {}, but this machine has {} \
             available; lower limits.packet_memory (or run on a larger machine)",
            human(limits.packet_memory as f64),
            limits.live_packets(),
            human(arena as f64),
            human(avail as f64)
        ),
    ))
}

/// One part of a run's tables, for the estimate: the field that sets its size, what it is,
/// its bytes.
pub struct TablePart {
    pub field: &'static str,
    pub what: String,
    pub bytes: f64,
}

/// An error if the parts together pass `table_memory`, naming the largest part's field.
pub fn check_tables(limits: &Limits, parts: &[TablePart]) -> Result<()> {
    let total: f64 = parts.iter().map(|p| p.bytes).sum();
    if total <= limits.table_memory as f64 {
        return Ok(());
    }
    let largest = parts.iter().max_by(|a, b| a.bytes.total_cmp(&b.bytes)).expect("a part");
    Err(ScenarioError::new(
        largest.field,
        format!(
            "the run's tables would need {} (of which {}: {}), past limits.table_memory ({}); record less \
             (a longer interval or trace period, fewer traced flows or ports) or raise limits.table_memory",
            human(total),
            largest.what,
            human(largest.bytes),
            human(limits.table_memory as f64)
        ),
    ))
}

/// Bytes in the units a person reads ("2.4 GB").
pub fn human(bytes: f64) -> String {
    const UNITS: [(&str, f64); 4] = [("TB", 1e12), ("GB", 1e9), ("MB", 1e6), ("kB", 1e3)];
    for (u, f) in UNITS {
        if bytes >= f {
            return format!("{:.2} {u}", bytes / f);
        }
    }
    format!("{bytes:.0} B")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_packet_budget_past_the_machine_is_refused_before_the_run() {
        let big = Limits { packet_memory: 64 << 30, ..Limits::default() };
        // 64 GiB allows 512 Mi packets, 32 GiB of slots: not on a machine with 16 GiB free.
        let e = check_packet_memory(&big, Some(16 << 30)).unwrap_err().to_string();
        assert!(e.contains("limits.packet_memory") && e.contains("available"), "{e}");
        assert!(check_packet_memory(&big, Some(40 << 30)).is_ok());
        // The default budget, and an unknown machine, always pass.
        assert!(check_packet_memory(&Limits::default(), Some(1 << 20)).is_ok());
        assert!(check_packet_memory(&big, None).is_ok());
    }
}
