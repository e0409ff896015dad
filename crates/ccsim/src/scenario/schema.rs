//! The scenario: what a TOML file (or the Python builder) describes, validated.
//!
//! The format is documented for users in docs/scenario-format.md. Decoding resolves every
//! name to an index and every default to a value, so building the world cannot fail on
//! anything the user wrote except routing (checked in `build`). The parts are decoded in
//! their own files: `topology` (nodes, links, queues), `flows` (flows, applications,
//! transports) and `measure` (measurement and traces). Mechanism parameters are read by the
//! mechanisms themselves (`params`).

use super::decode::{Obj, Result, ScenarioError};
use super::units;
use crate::net::port::ChannelBuffers;
use crate::queue::{BufferLimit, QdiscConfig};
use crate::sim::SimTime;
use crate::traffic::nagle::NagleConfig;
use crate::traffic::sizes::SizeMix;
use crate::traffic::AppKind;
use crate::transport::cc::CcConfig;
use crate::transport::sink::SinkMode;
use crate::transport::SenderConfig;
use std::collections::HashMap;
use toml::Value;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NodeKind {
    Host,
    Switch,
}

#[derive(Clone, Debug)]
pub struct NodeSpec {
    pub name: String,
    pub kind: NodeKind,
}

#[derive(Clone, Debug)]
pub struct QueueSpec {
    /// The discipline and its parameters.
    pub kind: QdiscConfig,
    pub buffer: BufferLimit,
    pub count_in_service: bool,
    /// On a link of several channels: one buffer that every channel serves, or one per
    /// channel (`net::port::trunk`).
    pub channel_buffers: ChannelBuffers,
    /// Processing jitter: each packet's transmission starts an extra uniform [0, jitter)
    /// after the port could start it (0 = none).
    pub jitter: SimTime,
    /// Probability that a packet leaving the line is lost (a lossy link; 0 = none).
    pub loss: f64,
}

#[derive(Clone, Debug)]
pub struct LinkSpec {
    pub a: usize,
    pub b: usize,
    /// Line rate of each channel.
    pub bandwidth_bps: u64,
    /// Channels (parallel transmitters at `bandwidth_bps` each, sharing one buffer: a DWDM
    /// trunk); 1 for an ordinary link.
    pub channels: u32,
    pub delay: SimTime,
    /// Queue of the port sending from a to b, and from b to a.
    pub forward: QueueSpec,
    pub reverse: QueueSpec,
    /// Scheduled changes of the propagation delay (both directions): (time, new delay),
    /// in increasing time.
    pub delay_changes: Vec<(SimTime, SimTime)>,
}

/// A flow's transport: its congestion control (None: an uncontrolled flow, `cc = "none"`,
/// whose packets go out as the source makes them and are not acknowledged) and its sender's
/// timer settings.
#[derive(Clone, Debug)]
pub struct TransportSpec {
    pub cc: Option<CcConfig>,
    pub sender: SenderConfig,
}

#[derive(Clone, Debug)]
pub struct FlowSpec {
    pub name: String,
    pub src: usize,
    pub dst: usize,
    pub app: AppKind,
    pub transport: TransportSpec,
    pub max_window: u32,
    /// Bytes of its data packets; with a mix, the mix's mean, rounded (for reports).
    pub packet_size: u32,
    /// A mix of data packet sizes (`packet_sizes`), if given.
    pub packet_sizes: Option<SizeMix>,
    pub ack_size: u32,
    pub start: SimTime,
    /// The flow starts at `start` plus a uniform [0, start_spread) drawn from the run's seed
    /// (its own stream, so no other random number moves); 0 = exactly at `start`.
    pub start_spread: SimTime,
    pub stop: SimTime,
    /// Explicit node sequences, if given.
    pub route: Option<Vec<usize>>,
    pub reverse_route: Option<Vec<usize>>,
    /// Weight n_α of the flow's data conversation at every FQ / FQbit port (weighted FQ,
    /// Keshav 1991 §2.3). 1 = plain FQ.
    pub fq_weight: u32,
    /// The rate its data conversation reserves at every Virtual Clock or HRR port on its
    /// route (`reserved_rate`, bits a second); None: unreserved.
    pub reserved_rate: Option<u64>,
    /// Traffic class of its packets (for class-based schedulers). 0.
    pub class: u8,
    /// Packets a window-controlled source with random gaps may hold waiting for its window
    /// (`source_buffer`); None: no limit.
    pub source_buffer: Option<u64>,
    /// Its edge profile for RIO (`profile_rate`, `profile_burst`): bits a second and bucket
    /// bytes; None: every packet out of profile.
    pub profile: Option<(u64, u64)>,
    /// Nagle's small-packet rule (`nagle = true` and its `nagle_*` fields), if on.
    pub nagle: Option<NagleConfig>,
    /// The receiver (`sink`): selective (buffers out-of-order packets) or in_order.
    pub sink: SinkMode,
}

impl FlowSpec {
    /// When the flow starts in a run seeded `seed`: `start`, plus a uniform [0, start_spread)
    /// from the flow's own stream (ns-2 scripts' habit of randomised starts).
    pub fn start_time(&self, seed: u64) -> SimTime {
        if self.start_spread == 0 {
            return self.start;
        }
        let u = crate::sim::rng::Rng::stream(seed, &format!("flow/{}/start", self.name)).uniform_open0();
        self.start + ((1.0 - u) * self.start_spread as f64) as SimTime
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum Selection {
    None,
    All,
    /// Only ports leaving switches (queue traces' default).
    Switches,
    Indices(Vec<usize>),
}

#[derive(Clone, Debug)]
pub struct MeasureSpec {
    pub interval: SimTime,
    pub discard: u32,
    pub trace_period: SimTime,
    pub trace_cwnd: Selection,
    pub trace_queues: Selection,
    /// Ports whose drops are recorded one by one (`DropTrace`); none by default.
    pub trace_drops: Selection,
    /// Ports with statistics per interval (utilisation, drops, marks, mean queue); none by
    /// default.
    pub port_stats: Selection,
    /// Ports whose every departure is recorded (flow, class, waiting time); none by default.
    pub trace_departures: Selection,
    /// Departures are recorded from this instant on (0: from the start).
    pub departures_from: SimTime,
}

#[derive(Clone, Debug)]
pub struct Scenario {
    pub name: String,
    pub description: String,
    pub seed: u64,
    pub duration: SimTime,
    pub measure: MeasureSpec,
    pub nodes: Vec<NodeSpec>,
    pub links: Vec<LinkSpec>,
    pub flows: Vec<FlowSpec>,
    /// What the run may use (`[limits]`).
    pub limits: super::limits::Limits,
    /// Two threads, and which nodes the second simulates (`[parallel]`).
    pub parallel: Option<super::parallel::ParallelSpec>,
    /// Every port's name, in port order (see [`Scenario::port_names`]).
    pub ports: Vec<String>,
}

impl Scenario {
    /// Parse and validate TOML text.
    pub fn from_toml_str(text: &str) -> Result<Scenario> {
        Scenario::from_value(&parse_toml(text)?)
    }

    /// Validate a value tree (from TOML or from the Python builder's dict).
    pub fn from_value(v: &Value) -> Result<Scenario> {
        decode_scenario(v)
    }

    /// Every port's name, in port order (link `i` gives port `2i`, a->b, and `2i + 1`, b->a).
    pub fn port_names(&self) -> &[String] {
        &self.ports
    }

    pub fn node_index(&self, name: &str) -> Option<usize> {
        self.nodes.iter().position(|n| n.name == name)
    }
}

/// The key a duplicate-key error at bytes `span` names: the whole dotted key before `=` when
/// the error is there, a `[header]`'s name, or else (a key inside an inline table) the span's
/// own text; None if nothing plausible.
fn duplicate_key_named(text: &str, span: std::ops::Range<usize>) -> Option<String> {
    let start = text.get(..span.start)?.rfind('\n').map_or(0, |i| i + 1);
    let line = text[start..].lines().next()?;
    let trimmed = line.trim_start();
    let key = if trimmed.starts_with('[') {
        trimmed.trim_start_matches('[').split(']').next()?
    } else {
        match line.find('=') {
            Some(eq) if span.start - start < eq => &line[..eq],
            _ => text.get(span)?,
        }
    };
    let key = key.trim();
    (!key.is_empty() && key.len() <= 80).then(|| key.to_string())
}

/// TOML text as a value tree, with the error's line; a byte-order mark (some editors write
/// one) is skipped.
pub fn parse_toml(text: &str) -> Result<Value> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let table = toml::from_str::<toml::Table>(text).map_err(|e| {
        let mut msg = e.message().to_string();
        match e.span() {
            Some(s) => {
                let line = text[..s.start.min(text.len())].matches('\n').count() + 1;
                // The parser's message does not name the key it saw twice; its line does: the
                // whole dotted key before `=`, or a [table] header's name (its span alone is
                // the last part of a dotted key).
                if msg == "duplicate key" {
                    if let Some(key) = duplicate_key_named(text, s.clone()) {
                        msg = format!("duplicate key `{key}`");
                    }
                }
                ScenarioError::new("", format!("not valid TOML (line {line}): {msg}"))
            }
            None => ScenarioError::new("", format!("not valid TOML: {msg}")),
        }
    })?;
    Ok(Value::Table(table))
}

/// Names to indices, for lists whose names are unique (nodes, flows, ports): a lookup is a
/// hash, not a scan, so decoding a scenario of N flows costs O(N), not O(N²).
pub struct NameIndex<'a> {
    names: &'a [String],
    index: HashMap<&'a str, usize>,
}

impl<'a> NameIndex<'a> {
    pub fn new(names: &'a [String]) -> Self {
        let mut index = HashMap::with_capacity(names.len());
        for (i, n) in names.iter().enumerate() {
            index.entry(n.as_str()).or_insert(i);
        }
        NameIndex { names, index }
    }

    pub fn get(&self, name: &str) -> Option<usize> {
        self.index.get(name).copied()
    }

    /// The first names, for an error message that lists what exists.
    pub fn sample(&self) -> String {
        let shown: Vec<&str> = self.names.iter().take(20).map(String::as_str).collect();
        let more = if self.names.len() > 20 { ", ..." } else { "" };
        format!("{}{more}", shown.join(", "))
    }
}

fn decode_scenario(v: &Value) -> Result<Scenario> {
    let mut top = Obj::new(v, "")?;
    let name = top.str("name")?.unwrap_or("scenario").to_string();
    let description = top.str("description")?.unwrap_or("").to_string();
    let seed = top.uint("seed")?.unwrap_or(1);
    let duration = top.quantity("duration", units::run_duration)?.ok_or_else(|| top.missing("duration", "a duration such as \"30s\""))?;
    if duration == 0 {
        return Err(ScenarioError::new("duration", "expected a positive duration, got 0"));
    }

    let limits = super::limits::Limits::decode(&mut top)?;
    let nodes = super::topology::decode_nodes(&mut top)?;
    let node_names: Vec<String> = nodes.iter().map(|n| n.name.clone()).collect();
    let node_index = NameIndex::new(&node_names);
    let links = super::topology::decode_links(&mut top, &nodes, &node_index)?;
    let flows = super::flows::decode_flows(&mut top, &nodes, &node_index, duration)?;
    let ports = port_names(&nodes, &links);
    let traces_by_default = !top.has("parallel");
    let measure = super::measure::decode_measure(&mut top, duration, &ports, &flows, traces_by_default)?;
    let parallel = super::parallel::decode_parallel(&mut top, &node_index, nodes.len(), &links, &flows, &measure)?;
    top.finish()?;
    Ok(Scenario { name, description, seed, duration, measure, nodes, links, flows, limits, parallel, ports })
}

/// Port names, two per link (`"a->b"`, then `"b->a"`), in port order. A second link between
/// the same two nodes names its ports `"a->b#2"` (a third `#3`, ...), so that every name, in
/// `trace_queues` or a results table, picks exactly one port.
pub fn port_names(nodes: &[NodeSpec], links: &[LinkSpec]) -> Vec<String> {
    let mut seen: std::collections::HashMap<String, u32> = std::collections::HashMap::new();
    links
        .iter()
        .flat_map(|l| [(l.a, l.b), (l.b, l.a)])
        .map(|(x, y)| {
            let base = format!("{}->{}", nodes[x].name, nodes[y].name);
            let n = seen.entry(base.clone()).or_insert(0);
            *n += 1;
            if *n == 1 {
                base
            } else {
                format!("{base}#{n}")
            }
        })
        .collect()
}
