//! The run's tables sized before it runs: every interval, trace sample, event record and
//! departure it could keep, against `[limits] table_memory` (`scenario::limits`), so a run that
//! would exhaust memory is refused at build time with the field to change.

use super::decode::Result;
use super::limits::{available_memory, check_packet_memory, check_tables, TablePart};
use super::schema::Scenario;
use crate::measure::{CwndTrace, DepartureLog, IntervalTable, PortIntervalTable, QueueTrace, EVENT_LOG_CAPACITY};
use crate::net::Port;
use crate::world::{Flow, TracedFlow};

/// The run's tables, estimated before it runs, against `[limits] table_memory`
/// (`scenario::limits`): each part at its most (every interval, every sample, every packet a
/// traced port's line could send at the smallest size any flow uses).
#[allow(clippy::too_many_arguments)]
pub(super) fn check_table_memory(
    sc: &Scenario,
    ports: &[Port],
    flows: &[Flow],
    routes: &[u32],
    traced_flows: &[TracedFlow],
    traced_ports: &[u32],
    cwnd_trace: &CwndTrace,
    stat_ports: &[u32],
    departure_ports: &[u32],
) -> Result<()> {
    let m = &sc.measure;
    let secs = crate::sim::time::to_secs(sc.duration);
    let intervals = (sc.duration / m.interval) as f64;
    let samples = (sc.duration / m.trace_period + 1) as f64;
    let smallest = sc.flows.iter().map(|f| f.packet_size.min(f.ack_size)).min().unwrap_or(40).max(1) as f64;
    let traced_secs = crate::sim::time::to_secs(sc.duration - m.departures_from);
    let departures: f64 = departure_ports.iter().map(|&p| traced_secs * ports[p as usize].capacity_bps() as f64 / (8.0 * smallest)).sum();
    // A traced flow's event log keeps at most EVENT_LOG_CAPACITY records a sample, and a
    // probing flow records at most one per two packets it sends.
    let events: f64 = traced_flows
        .iter()
        .filter(|t| t.events.is_some())
        .map(|t| {
            let f = &flows[t.flow as usize];
            let line = ports[routes[f.route as usize] as usize].capacity_bps() as f64;
            (samples * EVENT_LOG_CAPACITY as f64).min(secs * line / (16.0 * f.packet_size.max(1) as f64)) * 52.0
        })
        .sum();
    let parts = [
        TablePart {
            field: "measure.interval",
            what: format!("{} flows x {intervals:.3e} intervals", sc.flows.len()),
            bytes: sc.flows.len() as f64 * intervals * IntervalTable::ROW_BYTES as f64,
        },
        TablePart {
            field: "measure.trace_period",
            what: format!("{samples:.3e} samples of {} traced flows and {} queues", traced_flows.len(), traced_ports.len()),
            bytes: samples
                * (traced_flows.len() as f64 * cwnd_trace.row_bytes() as f64 + traced_ports.len() as f64 * QueueTrace::ROW_BYTES as f64)
                + events,
        },
        TablePart {
            field: "measure.port_stats",
            what: format!("{} ports x {intervals:.3e} intervals", stat_ports.len()),
            bytes: stat_ports.len() as f64 * intervals * PortIntervalTable::ROW_BYTES as f64,
        },
        TablePart {
            field: "measure.trace_departures",
            what: format!("up to {departures:.3e} departures"),
            bytes: departures * DepartureLog::ROW_BYTES as f64,
        },
    ];
    check_tables(&sc.limits, &parts)?;
    check_packet_memory(&sc.limits, available_memory())
}
