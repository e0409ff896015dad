//! Flows: their endpoints, application, transport (congestion control and sender settings)
//! and routes, as a scenario describes them.

use super::decode::{join_path, string_list, Obj, Result, ScenarioError};
use super::flow_sizes::{decode_nagle, decode_packet_sizes, MAX_PACKET_BYTES};
use super::params::Params;
use super::schema::{FlowSpec, NameIndex, NodeKind, NodeSpec, TransportSpec};
use super::topology::node_ref;
use super::units;
use crate::sim::{time::from_secs, SimTime, PS_PER_SEC};
use crate::traffic::pareto::{ParetoOnOff, DEFAULT_MEAN_OFF, DEFAULT_MEAN_ON, DEFAULT_SHAPE};
use crate::traffic::{AppKind, APP_NAMES};
use crate::transport::cc::{algorithm, newreno::NewReno, Algorithm, CongestionControl, ALGORITHMS};
use crate::transport::sink::SinkMode;
use std::collections::HashSet;
use toml::Value;

/// An explicit route: a node list that visits no node twice and passes through switches only
/// (hosts do not forward); its ends are checked against the flow's by the caller.
fn decode_node_list(o: &mut Obj, key: &'static str, nodes: &[NodeSpec], index: &NameIndex) -> Result<Option<Vec<usize>>> {
    let path = o.at(key);
    let Some(items) = o.array(key)? else { return Ok(None) };
    let names = string_list(items, &path)?;
    if names.len() < 2 {
        return Err(ScenarioError::new(path, "expected at least two node names"));
    }
    let route = names.iter().enumerate().map(|(i, n)| node_ref(index, n, &format!("{path}[{i}]"))).collect::<Result<Vec<_>>>()?;
    let mut seen = HashSet::with_capacity(route.len());
    for (i, &x) in route.iter().enumerate() {
        if !seen.insert(x) {
            return Err(ScenarioError::new(
                format!("{path}[{i}]"),
                format!("node {:?} appears twice; a route visits each node once", names[i]),
            ));
        }
        if i > 0 && i + 1 < route.len() && nodes[x].kind == NodeKind::Host {
            return Err(ScenarioError::new(
                format!("{path}[{i}]"),
                format!("node {:?} is a host: hosts do not forward, so only a route's ends may be hosts", names[i]),
            ));
        }
    }
    Ok(Some(route))
}

/// The transport of a flow whose `cc` is `name`: the registered algorithm reads its own
/// parameters and the sender's; an uncontrolled flow (`"none"`) takes none.
fn decode_transport(params: Option<Obj>, name: &str, path: String) -> Result<TransportSpec> {
    let mut p = Params::new(params.unwrap_or_else(|| Obj::empty(path)));
    let spec = match algorithm(name) {
        None => TransportSpec { cc: None, sender: NewReno::sender_defaults() },
        Some(info) => {
            let (cc, sender) = (info.decode)(&mut p)?;
            if sender.pacing && cc.build(1).uses_pacing() {
                return Err(p.error("pacing", format!("{name} paces by its own rule; pacing = true is for window algorithms")));
            }
            TransportSpec { cc: Some(cc), sender }
        }
    };
    p.finish()?;
    Ok(spec)
}

/// The packet spacing of a `rate` (packets/s) or a `bitrate` (of packets of the flow's mean size).
fn gap_from_rate(o: &mut Obj, mean_size: f64, required_for: &str) -> Result<Option<SimTime>> {
    let rate = o.quantity("rate", units::packet_rate)?;
    let bitrate = o.quantity("bitrate", units::bandwidth)?;
    match (rate, bitrate) {
        (Some(_), Some(_)) => Err(ScenarioError::new(o.at("bitrate"), "give either rate or bitrate, not both")),
        (Some(r), None) => Ok(Some(from_secs(1.0 / r).max(1))),
        (None, Some(b)) => Ok(Some(from_secs(mean_size * 8.0 / b as f64).max(1))),
        (None, None) if required_for.is_empty() => Ok(None),
        (None, None) => Err(o.missing_one_of(
            &["rate", "bitrate"],
            "rate",
            format!("is required for app {required_for:?} (\"10pps\"), or give bitrate (\"40kbps\")"),
        )),
    }
}

/// A Pareto on/off source (traffic::pareto): its peak (`rate` or `bitrate`), `shape`, the
/// mean ON period as a duration (`mean_on`) or in packets (`burst`), and `mean_off`.
fn decode_pareto(o: &mut Obj, mean_size: f64) -> Result<ParetoOnOff> {
    let gap = gap_from_rate(o, mean_size, "pareto")?.expect("required");
    let shape = match o.float("shape")? {
        None => DEFAULT_SHAPE,
        Some(a) if a > 1.0 && a <= 1000.0 => a,
        Some(a) => {
            return Err(ScenarioError::new(
                o.at("shape"),
                format!("expected a shape above 1 and at most 1000 (a Pareto distribution of shape 1 or less has no mean), got {a}"),
            ))
        }
    };
    let renewal = o.boolean("renewal")?.unwrap_or(false);
    let mean_on = o.quantity("mean_on", units::duration)?;
    let burst = o.float("burst")?;
    if renewal {
        let mean_off = o.quantity("mean_off", units::duration)?;
        if let Some(key) = [("mean_on", mean_on.is_some()), ("burst", burst.is_some()), ("mean_off", mean_off.is_some())]
            .into_iter()
            .find_map(|(k, given)| given.then_some(k))
        {
            return Err(ScenarioError::new(
                o.at(key),
                "a renewal source (renewal = true) has no ON/OFF periods: give only rate or bitrate (the mean) and shape",
            ));
        }
        return Ok(ParetoOnOff { gap, shape, burst: 1.0, mean_off: 0, renewal: true });
    }
    let gap_text = format!("{} s", gap as f64 / PS_PER_SEC as f64);
    let burst = match (mean_on, burst) {
        (Some(_), Some(_)) => {
            return Err(ScenarioError::new(o.at("burst"), "give either mean_on (a duration) or burst (packets), not both"))
        }
        (None, Some(b)) if (1.0..=1e12).contains(&b) => b,
        (None, Some(b)) => {
            return Err(ScenarioError::new(o.at("burst"), format!("expected a mean of 1 to 1e12 packets per ON period, got {b}")))
        }
        (_, None) => {
            let b = mean_on.unwrap_or(DEFAULT_MEAN_ON) as f64 / gap as f64;
            if b < 1.0 {
                let default = if mean_on.is_none() { " (500ms by default)" } else { "" };
                return Err(ScenarioError::new(
                    o.at("mean_on"),
                    format!(
                        "expected at least one packet's spacing at the peak rate ({gap_text}){default}: every ON period sends a packet; \
                         give a longer mean_on, a higher peak, or burst in packets"
                    ),
                ));
            }
            b
        }
    };
    let mean_off = o.quantity("mean_off", units::duration)?.unwrap_or(DEFAULT_MEAN_OFF);
    Ok(ParetoOnOff { gap, shape, burst, mean_off, renewal: false })
}

fn decode_app(o: &mut Obj, app: &str, mean_size: f64, duration: SimTime) -> Result<AppKind> {
    Ok(match app {
        "ftp" => {
            let packets = o.uint("packets")?;
            if packets == Some(0) {
                return Err(ScenarioError::new(
                    o.at("packets"),
                    "expected a positive number of packets (leave it out for an endless transfer)",
                ));
            }
            AppKind::Ftp { packets }
        }
        "telnet" | "poisson" => {
            let gap = o.quantity("mean_gap", units::duration)?;
            let from_rate = gap_from_rate(o, mean_size, "")?;
            let mean_gap = match (gap, from_rate) {
                (Some(_), Some(_)) => return Err(ScenarioError::new(o.at("mean_gap"), "give either mean_gap or rate, not both")),
                (Some(g), None) => g,
                (None, Some(g)) => g,
                (None, None) if app == "telnet" => 5 * PS_PER_SEC, // Keshav §6.5: mean 5 s
                (None, None) => {
                    return Err(o.missing_one_of(
                        &["mean_gap", "rate", "bitrate"],
                        "mean_gap",
                        "is required for app \"poisson\" (\"0.5s\"), or give rate (\"2pps\")",
                    ))
                }
            };
            if mean_gap == 0 {
                return Err(ScenarioError::new(o.at("mean_gap"), "expected a positive duration"));
            }
            if app == "telnet" {
                AppKind::Telnet { mean_gap }
            } else {
                AppKind::Poisson { mean_gap }
            }
        }
        "cbr" => AppKind::Cbr { gap: gap_from_rate(o, mean_size, "cbr")?.unwrap() },
        "pareto" => AppKind::Pareto(decode_pareto(o, mean_size)?),
        "onoff" => {
            let gap = gap_from_rate(o, mean_size, "onoff")?.unwrap();
            let path = o.at("on");
            let Some(items) = o.array("on")? else {
                return Err(o.missing_one_of(
                    &["on"],
                    "on",
                    "is required for app \"onoff\": a list of [start, end] periods, e.g. [[\"0s\", \"300s\"]]",
                ));
            };
            let mut on = Vec::new();
            for (i, it) in items.iter().enumerate() {
                let ipath = format!("{path}[{i}]");
                let pair = match it {
                    Value::Array(a) if a.len() == 2 => a,
                    _ => return Err(ScenarioError::new(ipath, "expected a [start, end] pair of durations")),
                };
                let mut ends = [0; 2];
                for (j, e) in pair.iter().enumerate() {
                    let text = match e {
                        Value::String(s) => s.clone(),
                        Value::Integer(x) => x.to_string(),
                        Value::Float(x) => x.to_string(),
                        _ => return Err(ScenarioError::new(format!("{ipath}[{j}]"), "expected a duration")),
                    };
                    ends[j] = units::duration(&text)
                        .map_err(|e| ScenarioError::new(format!("{ipath}[{j}]"), format!("expected {e}, got {text:?}")))?;
                }
                if ends[1] <= ends[0] || on.last().is_some_and(|&(_, b)| ends[0] < b) {
                    return Err(ScenarioError::new(ipath, "expected periods with start < end, in time order, not overlapping"));
                }
                on.push((ends[0], ends[1]));
            }
            let _ = duration;
            AppKind::OnOff { gap, on }
        }
        _ => unreachable!("app name checked by choice()"),
    })
}

pub fn decode_flows(top: &mut Obj, nodes: &[NodeSpec], index: &NameIndex, duration: SimTime) -> Result<Vec<FlowSpec>> {
    let items = match top.array("flows")? {
        Some(a) => a,
        None => return Ok(Vec::new()),
    };
    let mut flows: Vec<FlowSpec> = Vec::with_capacity(items.len());
    let mut seen: HashSet<String> = HashSet::with_capacity(items.len());
    let cc_names: Vec<&'static str> = ALGORITHMS.iter().map(|a| a.name).chain(["none"]).collect();
    for (i, item) in items.iter().enumerate() {
        let path = format!("flows[{i}]");
        let mut o = Obj::new(item, &path)?;
        let name = o.str("name")?.map(str::to_string).unwrap_or_else(|| format!("flow{i}"));
        if !seen.insert(name.clone()) {
            return Err(ScenarioError::new(o.at("name"), format!("flow name {name:?} is used twice")));
        }
        let endpoint = |o: &mut Obj, key: &'static str| -> Result<usize> {
            let p = o.at(key);
            let n = o.req_str(key)?;
            let idx = node_ref(index, n, &p)?;
            if nodes[idx].kind != NodeKind::Host {
                return Err(ScenarioError::new(p, format!("node {n:?} is a switch; flows start and end at hosts")));
            }
            Ok(idx)
        };
        let src = endpoint(&mut o, "src")?;
        let dst = endpoint(&mut o, "dst")?;
        if src == dst {
            return Err(ScenarioError::new(o.at("dst"), "expected a destination other than the source"));
        }
        let app_name = o.choice("app", "application", APP_NAMES)?.unwrap_or("ftp");
        let default_cc = match app_name {
            "ftp" | "telnet" => "newreno",
            _ => "none",
        };
        let cc_name = o.choice("cc", "congestion control algorithm", &cc_names)?.unwrap_or(default_cc);
        if cc_name == "none" && app_name == "ftp" {
            return Err(ScenarioError::new(
                o.at("cc"),
                "app \"ftp\" needs flow control (an infinite source without it has no rate); use app \"cbr\" for an uncontrolled source",
            ));
        }
        // Nagle's rule: a Telnet keystroke is then 40 bytes of header and one of data.
        let nagle_on = o.boolean("nagle")?.unwrap_or(false);
        let default_size = match app_name {
            "telnet" if nagle_on => 41,
            "telnet" => 40,
            _ => 1000,
        };
        let (mean_size, packet_sizes) = decode_packet_sizes(&mut o, default_size)?;
        let ack_size = o.quantity("ack_size", units::size)?.unwrap_or(40);
        if ack_size > MAX_PACKET_BYTES {
            return Err(ScenarioError::new(o.at("ack_size"), format!("expected at most {MAX_PACKET_BYTES} bytes, got {ack_size}")));
        }
        let max_window = o.uint_in("max_window", 1, 100_000_000)?.unwrap_or(1_000_000) as u32;
        let start = o.quantity("start", units::duration)?.unwrap_or(0);
        if start >= duration {
            return Err(ScenarioError::new(o.at("start"), "expected a start time before the end of the run (duration)"));
        }
        let start_spread = o.quantity("start_spread", units::duration)?.unwrap_or(0);
        if start.saturating_add(start_spread) >= duration {
            return Err(ScenarioError::new(o.at("start_spread"), "expected start + start_spread before the end of the run (duration)"));
        }
        let stop = o.quantity("stop", units::duration)?.unwrap_or(SimTime::MAX);
        if stop <= start.saturating_add(start_spread) {
            let what =
                if start_spread > 0 { "expected a stop time after start + start_spread" } else { "expected a stop time after start" };
            return Err(ScenarioError::new(o.at("stop"), what));
        }
        let fq_weight = o.uint_in("fq_weight", 1, 1_000_000)?.unwrap_or(1) as u32;
        let reserved_rate = o.quantity("reserved_rate", units::bandwidth)?;
        if reserved_rate == Some(0) {
            return Err(ScenarioError::new(o.at("reserved_rate"), "expected a positive bit rate (leave it out for no reservation)"));
        }
        let class = o.uint_in("class", 0, 255)?.unwrap_or(0) as u8;
        let app = decode_app(&mut o, app_name, mean_size, duration)?;
        let source_buffer = o.uint_in("source_buffer", 0, u32::MAX as u64)?;
        if source_buffer.is_some() && (cc_name == "none" || !matches!(app_name, "telnet" | "poisson" | "pareto")) {
            return Err(ScenarioError::new(
                o.at("source_buffer"),
                "source_buffer is for telnet, poisson and pareto sources under a window (cc other than \"none\")",
            ));
        }
        let nagle = decode_nagle(&mut o, nagle_on, app_name, cc_name, mean_size, packet_sizes.is_some(), source_buffer.is_some())?;
        let profile_rate = o.quantity("profile_rate", units::bandwidth)?;
        let profile_burst = o.quantity("profile_burst", units::size)?;
        if profile_burst.is_some() && profile_rate.is_none() {
            return Err(ScenarioError::new(o.at("profile_burst"), "profile_burst needs profile_rate (the bucket's fill rate)"));
        }
        // The bucket: ten of the flow's packets unless told; it must hold the largest.
        let largest = packet_sizes.as_ref().map_or(mean_size, |mix| mix.entries.iter().map(|&(s, _)| s as f64).fold(0.0, f64::max));
        if let Some(b) = profile_burst {
            if (b as f64) < largest {
                return Err(ScenarioError::new(
                    o.at("profile_burst"),
                    format!("expected at least the flow's largest packet ({largest} bytes): a smaller bucket marks no packet in profile"),
                ));
            }
        }
        let profile = profile_rate.map(|r| (r, profile_burst.unwrap_or((10.0 * largest).round() as u64)));
        let sink = match o.choice("sink", "sink", &["selective", "in_order"])? {
            Some(_) if cc_name == "none" => {
                return Err(ScenarioError::new(o.at("sink"), "sink is for flows under a window (cc other than \"none\")"));
            }
            Some("in_order") => SinkMode::InOrder,
            _ => SinkMode::Selective,
        };
        let params = o.table("params")?;
        let transport = decode_transport(params, cc_name, o.at("params"))?;
        let route = decode_node_list(&mut o, "route", nodes, index)?;
        let reverse_route = decode_node_list(&mut o, "reverse_route", nodes, index)?;
        for (key, r, from, to) in [("route", &route, src, dst), ("reverse_route", &reverse_route, dst, src)] {
            if let Some(r) = r {
                if r[0] != from || *r.last().unwrap() != to {
                    return Err(ScenarioError::new(
                        join_path(&path, key),
                        format!("expected a node list from {:?} to {:?}", nodes[from].name, nodes[to].name),
                    ));
                }
            }
        }
        o.finish()?;
        flows.push(FlowSpec {
            name,
            src,
            dst,
            app,
            transport,
            max_window,
            packet_size: mean_size.round() as u32,
            packet_sizes,
            ack_size: ack_size as u32,
            start,
            start_spread,
            stop,
            route,
            reverse_route,
            fq_weight,
            reserved_rate,
            class,
            source_buffer,
            profile,
            nagle,
            sink,
        });
    }
    Ok(flows)
}
