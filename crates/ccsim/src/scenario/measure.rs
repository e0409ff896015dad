//! What a run measures: the interval statistics and the traces.

use super::decode::{string_list, Obj, Result, ScenarioError};
use super::schema::{FlowSpec, MeasureSpec, NameIndex, Selection};
use super::units;
use crate::sim::SimTime;
use toml::Value;

/// A selection of flows or ports by name; `"switches"` (ports leaving switches) only when
/// `ports` is true.
fn decode_selection(o: &mut Obj, key: &'static str, names: &NameIndex, ports: bool, default: Selection) -> Result<Selection> {
    let path = o.at(key);
    match o.get(key) {
        None => Ok(default),
        Some(Value::Boolean(true)) => Ok(Selection::All),
        Some(Value::Boolean(false)) => Ok(Selection::None),
        Some(Value::String(s)) if s == "all" => Ok(Selection::All),
        Some(Value::String(s)) if s == "none" => Ok(Selection::None),
        Some(Value::String(s)) if s == "switches" && ports => Ok(Selection::Switches),
        Some(Value::Array(items)) => {
            let mut idx = Vec::new();
            for (i, n) in string_list(items, &path)?.into_iter().enumerate() {
                match names.get(n) {
                    Some(k) => idx.push(k),
                    None => {
                        return Err(ScenarioError::new(
                            format!("{path}[{i}]"),
                            format!("no such name {n:?}; expected one of: {}", names.sample()),
                        ));
                    }
                }
            }
            Ok(Selection::Indices(idx))
        }
        Some(v) => Err(ScenarioError::new(
            path,
            format!(
                "expected true, false, \"all\", \"none\"{} or a list of names, got {}",
                if ports { ", \"switches\"" } else { "" },
                super::decode::describe(v)
            ),
        )),
    }
}

/// `[measure]`. `traces_by_default`: window and queue traces are on unless the table says
/// otherwise (a parallel run, which cannot trace, has them off).
pub fn decode_measure(
    top: &mut Obj,
    duration: SimTime,
    port_names: &[String],
    flows: &[FlowSpec],
    traces_by_default: bool,
) -> Result<MeasureSpec> {
    let (cwnd_default, queues_default) =
        if traces_by_default { (Selection::All, Selection::Switches) } else { (Selection::None, Selection::None) };
    let flow_names: Vec<String> = flows.iter().map(|f| f.name.clone()).collect();
    let (flow_index, port_index) = (NameIndex::new(&flow_names), NameIndex::new(port_names));
    let default_interval = duration / 8;
    let mut m = match top.table("measure")? {
        Some(m) => m,
        None => {
            return Ok(MeasureSpec {
                interval: default_interval.max(1),
                discard: 1,
                trace_period: (duration / 2000).max(1),
                trace_cwnd: cwnd_default,
                trace_queues: queues_default,
                trace_drops: Selection::None,
                port_stats: Selection::None,
                trace_departures: Selection::None,
                departures_from: 0,
            })
        }
    };
    let interval = match m.quantity("interval", units::duration)? {
        Some(0) => return Err(ScenarioError::new(m.at("interval"), "expected a positive duration")),
        Some(i) => i,
        None => default_interval.max(1),
    };
    if interval > duration {
        return Err(ScenarioError::new(m.at("interval"), "expected an interval no longer than the run (duration)"));
    }
    let n_intervals = duration / interval;
    let discard = m.uint("discard")?.unwrap_or(1);
    if discard >= n_intervals {
        return Err(ScenarioError::new(
            m.at("discard"),
            format!("expected fewer than the {n_intervals} whole intervals in the run, got {discard}"),
        ));
    }
    let trace_period = m.quantity("trace_period", units::duration)?.unwrap_or((duration / 2000).max(1));
    if trace_period == 0 {
        return Err(ScenarioError::new(m.at("trace_period"), "expected a positive duration"));
    }
    if trace_period > duration {
        return Err(ScenarioError::new(m.at("trace_period"), "expected a period no longer than the run (duration)"));
    }
    let trace_cwnd = decode_selection(&mut m, "trace_cwnd", &flow_index, false, cwnd_default)?;
    let trace_queues = decode_selection(&mut m, "trace_queues", &port_index, true, queues_default)?;
    let trace_drops = decode_selection(&mut m, "trace_drops", &port_index, true, Selection::None)?;
    let port_stats = decode_selection(&mut m, "port_stats", &port_index, true, Selection::None)?;
    let trace_departures = decode_selection(&mut m, "trace_departures", &port_index, true, Selection::None)?;
    // A long run's departure trace can be kept to its end (a steady state), which also bounds
    // its rows by the traced span rather than by the whole run.
    let departures_from = m.quantity("departures_from", units::duration)?.unwrap_or(0);
    if departures_from >= duration {
        return Err(ScenarioError::new(m.at("departures_from"), "expected an instant before the end of the run (duration)"));
    }
    m.finish()?;
    Ok(MeasureSpec {
        interval,
        discard: discard as u32,
        trace_period,
        trace_cwnd,
        trace_queues,
        trace_drops,
        port_stats,
        trace_departures,
        departures_from,
    })
}
