//! The scenario: what a TOML file (or the Python builder) describes, validated.
//!
//! The format is documented for users in docs/scenario-format.md. Decoding resolves every
//! name to an index and every default to a value, so building the world cannot fail on
//! anything the user wrote except routing (checked in `build`).

use super::decode::{join_path, string_list, Obj, Result, ScenarioError};
use super::units;
use crate::queue::decbit::DecBitConfig;
use crate::queue::fq::FqConfig;
use crate::queue::BufferLimit;
use crate::sim::{time::from_secs, SimTime, PS_PER_SEC};
use crate::traffic::AppKind;
use crate::transport::cc::dec::{Dec, DecParams};
use crate::transport::cc::pp::{PacketPair, PpConfig};
use crate::transport::cc::pp2::{Pp2, Pp2Config};
use crate::transport::cc::{generic::Generic, jk::Jk, newreno::NewReno, reno::Reno, TransportDefaults};
use crate::transport::rtt::{RtoConfig, RtoFormula, RttSamples, SampleFrom, SamplePacket};
use crate::transport::TimerMode;
use toml::Value;

pub const CC_NAMES: &[&str] = &["generic", "jk", "reno", "newreno", "dec", "pp", "pp2", "none"];
pub const APP_NAMES: &[&str] = &["ftp", "telnet", "poisson", "cbr", "onoff"];
pub const QUEUE_NAMES: &[&str] = &["droptail", "fq", "fqbit", "decbit"];
pub const NODE_KINDS: &[&str] = &["host", "switch"];

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
pub enum QueueKind {
    DropTail,
    DecBit(DecBitConfig),
    /// Fair Queueing; the config's buffer fields are overwritten from the QueueSpec.
    Fq(FqConfig),
    /// FQ with bit setting: the FQ config and the marking fraction of the fair buffer share.
    FqBit(FqConfig, f64),
}

#[derive(Clone, Debug)]
pub struct QueueSpec {
    pub kind: QueueKind,
    pub buffer: BufferLimit,
    pub count_in_service: bool,
    /// Processing jitter: each packet's transmission starts an extra uniform [0, jitter)
    /// after the port could start it (0 = none).
    pub jitter: SimTime,
}

#[derive(Clone, Debug)]
pub struct LinkSpec {
    pub a: usize,
    pub b: usize,
    pub bandwidth_bps: u64,
    pub delay: SimTime,
    /// Queue of the port sending from a to b, and from b to a.
    pub forward: QueueSpec,
    pub reverse: QueueSpec,
    /// Scheduled changes of the propagation delay (both directions): (time, new delay),
    /// in increasing time.
    pub delay_changes: Vec<(SimTime, SimTime)>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CcKind {
    None,
    Generic,
    Jk,
    Reno,
    NewReno,
    Dec,
    Pp,
    Pp2,
}

#[derive(Clone, Debug)]
pub struct TransportSpec {
    pub cc: CcKind,
    /// Parameters of the DEC source (used when cc is Dec).
    pub dec: DecParams,
    /// Parameters of PP_CTH (used when cc is Pp).
    pub pp: PpConfig,
    /// Parameters of chapter 4's 2P (used when cc is Pp2).
    pub pp2: Pp2Config,
    pub initial_cwnd: f64,
    pub dupack_threshold: u32,
    /// JK: ssthresh from the packets outstanding rather than cwnd.
    pub ssthresh_from_flight: bool,
    pub rto: RtoConfig,
    pub timers: TimerMode,
    /// Per-packet timers also stop on the packet's own ACK (Generic `retransmit = "own_ack"`).
    pub own_ack_stops_timer: bool,
}

#[derive(Clone, Debug)]
pub struct FlowSpec {
    pub name: String,
    pub src: usize,
    pub dst: usize,
    pub app: AppKind,
    pub transport: TransportSpec,
    pub max_window: u32,
    pub packet_size: u32,
    pub ack_size: u32,
    pub start: SimTime,
    pub stop: SimTime,
    /// Explicit node sequences, if given.
    pub route: Option<Vec<usize>>,
    pub reverse_route: Option<Vec<usize>>,
    /// Weight n_α of the flow's data conversation at every FQ / FQbit port (weighted FQ,
    /// Keshav 1991 §2.3). 1 = plain FQ.
    pub fq_weight: u32,
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
}

impl Scenario {
    /// Parse and validate TOML text.
    pub fn from_toml_str(text: &str) -> Result<Scenario> {
        // A byte-order mark (some editors write one) is not TOML.
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        let table = toml::from_str::<toml::Table>(text).map_err(|e| {
            let msg = e.message().to_string();
            match e.span() {
                Some(s) => {
                    let line = text[..s.start.min(text.len())].matches('\n').count() + 1;
                    ScenarioError::new("", format!("not valid TOML (line {line}): {msg}"))
                }
                None => ScenarioError::new("", format!("not valid TOML: {msg}")),
            }
        })?;
        Scenario::from_value(&Value::Table(table))
    }

    /// Validate a value tree (from TOML or from the Python builder's dict).
    pub fn from_value(v: &Value) -> Result<Scenario> {
        decode_scenario(v)
    }

    /// Every port's name, in port order (link `i` gives port `2i`, a->b, and `2i + 1`, b->a).
    pub fn port_names(&self) -> Vec<String> {
        port_names(&self.nodes, &self.links)
    }

    pub fn node_index(&self, name: &str) -> Option<usize> {
        self.nodes.iter().position(|n| n.name == name)
    }
}

fn node_ref(nodes: &[NodeSpec], name: &str, path: &str) -> Result<usize> {
    nodes.iter().position(|n| n.name == name).ok_or_else(|| {
        let names: Vec<&str> = nodes.iter().take(20).map(|n| n.name.as_str()).collect();
        let more = if nodes.len() > 20 { ", ..." } else { "" };
        ScenarioError::new(path, format!("no node named {name:?}; nodes are: {}{more}", names.join(", ")))
    })
}

fn decode_scenario(v: &Value) -> Result<Scenario> {
    let mut top = Obj::new(v, "")?;
    let name = top.str("name")?.unwrap_or("scenario").to_string();
    let description = top.str("description")?.unwrap_or("").to_string();
    let seed = top.uint("seed")?.unwrap_or(1);
    let duration = top.quantity("duration", units::duration)?.ok_or_else(|| top.missing("duration", "a duration such as \"30s\""))?;
    if duration == 0 {
        return Err(ScenarioError::new("duration", "expected a positive duration, got 0"));
    }

    let nodes = decode_nodes(&mut top)?;
    let links = decode_links(&mut top, &nodes)?;
    let flows = decode_flows(&mut top, &nodes, duration)?;
    let measure = decode_measure(&mut top, duration, &nodes, &links, &flows)?;
    top.finish()?;
    Ok(Scenario { name, description, seed, duration, measure, nodes, links, flows })
}

fn decode_nodes(top: &mut Obj) -> Result<Vec<NodeSpec>> {
    let mut t = top.table("nodes")?.ok_or_else(|| ScenarioError::new("nodes", "is required: a table with lists `hosts` and `switches`"))?;
    let mut nodes: Vec<NodeSpec> = Vec::new();
    for (key, kind) in [("hosts", NodeKind::Host), ("switches", NodeKind::Switch)] {
        let path = t.at(key);
        if let Some(items) = t.array(key)? {
            for (i, name) in string_list(items, &path)?.into_iter().enumerate() {
                if name.is_empty() {
                    return Err(ScenarioError::new(format!("{path}[{i}]"), "expected a non-empty node name"));
                }
                // Port names are "a->b" and "a->b#2" (`port_names`): node names keep clear of both.
                if name.contains('#') || name.contains("->") {
                    return Err(ScenarioError::new(
                        format!("{path}[{i}]"),
                        format!("expected a node name without \"#\" or \"->\", got {name:?}"),
                    ));
                }
                if nodes.iter().any(|n| n.name == name) {
                    return Err(ScenarioError::new(format!("{path}[{i}]"), format!("node {name:?} is declared twice")));
                }
                nodes.push(NodeSpec { name: name.to_string(), kind });
            }
        }
    }
    t.finish()?;
    if nodes.is_empty() {
        return Err(ScenarioError::new("nodes", "declares no nodes"));
    }
    Ok(nodes)
}

fn decode_queue(o: &mut Obj, base: Option<&QueueSpec>, sender_kind: NodeKind) -> Result<QueueSpec> {
    let name = o.choice("queue", "queue discipline", QUEUE_NAMES)?;
    let params = o.table("queue_params")?;
    let kind = match (name, params) {
        (None, None) => base.map(|b| b.kind.clone()).unwrap_or(QueueKind::DropTail),
        (name, params) => {
            let name = name.unwrap_or(match base.map(|b| &b.kind) {
                Some(QueueKind::DecBit(_)) => "decbit",
                Some(QueueKind::Fq(_)) => "fq",
                Some(QueueKind::FqBit(..)) => "fqbit",
                _ => "droptail",
            });
            decode_queue_kind(name, params)?
        }
    };
    let default_buffer = match sender_kind {
        NodeKind::Host => BufferLimit::Unlimited,
        NodeKind::Switch => BufferLimit::Packets(100),
    };
    let buffer = o.quantity("buffer", units::buffer)?.or(base.map(|b| b.buffer)).unwrap_or(default_buffer);
    let count_in_service = o.boolean("count_in_service")?.or(base.map(|b| b.count_in_service)).unwrap_or(true);
    let jitter = o.quantity("jitter", units::duration)?.or(base.map(|b| b.jitter)).unwrap_or(0);
    Ok(QueueSpec { kind, buffer, count_in_service, jitter })
}

/// A discipline and its parameters (`queue_params`, whose allowed keys depend on it).
fn decode_queue_kind(name: &str, params: Option<Obj>) -> Result<QueueKind> {
    let mut p = params;
    let kind = match name {
        "droptail" => QueueKind::DropTail,
        "decbit" => QueueKind::DecBit(match p.as_mut() {
            Some(p) => super::params::decbit(p)?,
            None => DecBitConfig::default(),
        }),
        "fq" => QueueKind::Fq(match p.as_mut() {
            Some(p) => super::params::fq(p)?,
            None => FqConfig::default(),
        }),
        "fqbit" => match p.as_mut() {
            Some(p) => {
                let cfg = super::params::fq(p)?;
                if cfg.preemptive {
                    return Err(ScenarioError::new(p.at("preemptive"), "preemption is available for fq only, not fqbit"));
                }
                let fraction = p.number_in("mark_fraction", 0.0, 1.0)?.unwrap_or(crate::queue::fqbit::FQBIT_FRACTION);
                QueueKind::FqBit(cfg, fraction)
            }
            None => QueueKind::FqBit(FqConfig::default(), crate::queue::fqbit::FQBIT_FRACTION),
        },
        _ => unreachable!("queue name checked by choice()"),
    };
    if let Some(p) = p {
        p.finish()?;
    }
    Ok(kind)
}

fn decode_links(top: &mut Obj, nodes: &[NodeSpec]) -> Result<Vec<LinkSpec>> {
    let items = match top.array("links")? {
        Some(a) => a,
        None => return Ok(Vec::new()),
    };
    let mut links = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let path = format!("links[{i}]");
        let mut o = Obj::new(item, &path)?;
        let between = o.array("between")?.ok_or_else(|| o.missing("between", "the two node names, e.g. [\"h1\", \"sw\"]"))?;
        let bpath = o.at("between");
        let ends = string_list(between, &bpath)?;
        if ends.len() != 2 {
            return Err(ScenarioError::new(bpath, format!("expected exactly two node names, got {}", ends.len())));
        }
        let a = node_ref(nodes, ends[0], &format!("{bpath}[0]"))?;
        let b = node_ref(nodes, ends[1], &format!("{bpath}[1]"))?;
        if a == b {
            return Err(ScenarioError::new(bpath, "a link joins two different nodes"));
        }
        let bandwidth_bps =
            o.quantity("bandwidth", units::bandwidth)?.ok_or_else(|| o.missing("bandwidth", "a bandwidth such as \"80kbps\""))?;
        let delay = o.quantity("delay", units::duration)?.unwrap_or(0);
        // The link's queue settings describe the switches' output ports. A host's own
        // interface queue is its send buffer: FIFO, unlimited, no marking, unless a
        // `forward` / `reverse` table says otherwise.
        let shared = decode_queue(&mut o, None, NodeKind::Switch)?;
        // A link's jitter applies to both its ends, hosts included.
        let host_port =
            QueueSpec { kind: QueueKind::DropTail, buffer: BufferLimit::Unlimited, count_in_service: true, jitter: shared.jitter };
        let pick = |kind: NodeKind| if kind == NodeKind::Host { host_port.clone() } else { shared.clone() };
        let (shared_a, shared_b) = (pick(nodes[a].kind), pick(nodes[b].kind));
        let forward = match o.table("forward")? {
            Some(mut f) => {
                let q = decode_queue(&mut f, Some(&shared_a), nodes[a].kind)?;
                f.finish()?;
                q
            }
            None => shared_a,
        };
        let reverse = match o.table("reverse")? {
            Some(mut r) => {
                let q = decode_queue(&mut r, Some(&shared_b), nodes[b].kind)?;
                r.finish()?;
                q
            }
            None => shared_b,
        };
        let mut delay_changes = Vec::new();
        if let Some(items) = o.array("changes")? {
            let cpath = o.at("changes");
            for (j, item) in items.iter().enumerate() {
                let mut c = Obj::new(item, &format!("{cpath}[{j}]"))?;
                let at = c.quantity("at", units::duration)?.ok_or_else(|| c.missing("at", "the time of the change, e.g. \"50s\""))?;
                let new_delay =
                    c.quantity("delay", units::duration)?.ok_or_else(|| c.missing("delay", "the new propagation delay, e.g. \"450ms\""))?;
                if let Some(&(prev, _)) = delay_changes.last() {
                    if at <= prev {
                        return Err(ScenarioError::new(c.at("at"), "expected changes in increasing time"));
                    }
                }
                c.finish()?;
                delay_changes.push((at, new_delay));
            }
        }
        o.finish()?;
        links.push(LinkSpec { a, b, bandwidth_bps, delay, forward, reverse, delay_changes });
    }
    Ok(links)
}

fn decode_node_list(o: &mut Obj, key: &'static str, nodes: &[NodeSpec]) -> Result<Option<Vec<usize>>> {
    let path = o.at(key);
    match o.array(key)? {
        None => Ok(None),
        Some(items) => {
            let names = string_list(items, &path)?;
            if names.len() < 2 {
                return Err(ScenarioError::new(path, "expected at least two node names"));
            }
            names.iter().enumerate().map(|(i, n)| node_ref(nodes, n, &format!("{path}[{i}]"))).collect::<Result<Vec<_>>>().map(Some)
        }
    }
}

fn transport_defaults(cc: CcKind) -> TransportDefaults {
    match cc {
        CcKind::Generic => Generic::defaults(),
        CcKind::Jk => Jk::defaults(),
        CcKind::Reno => Reno::defaults(),
        CcKind::Dec => Dec::defaults(),
        CcKind::Pp => PacketPair::defaults(),
        CcKind::Pp2 => Pp2::defaults(),
        CcKind::NewReno | CcKind::None => NewReno::defaults(),
    }
}

/// `beta` of RTO = beta x srtt, in (0, 100].
fn decode_beta(p: &mut Obj) -> Result<Option<f64>> {
    match p.float("beta")? {
        Some(beta) if !(beta > 0.0 && beta <= 100.0) => {
            Err(ScenarioError::new(p.at("beta"), format!("expected a number in (0, 100], got {beta}")))
        }
        b => Ok(b),
    }
}

fn decode_transport(params: Option<Obj>, cc: CcKind) -> Result<TransportSpec> {
    let d = transport_defaults(cc);
    let mut spec = TransportSpec {
        cc,
        own_ack_stops_timer: matches!(cc, CcKind::Generic | CcKind::Pp | CcKind::Pp2),
        dec: DecParams::default(),
        pp: PpConfig::default(),
        pp2: Pp2Config::default(),
        initial_cwnd: 1.0,
        dupack_threshold: 3,
        ssthresh_from_flight: false,
        rto: d.rto,
        timers: d.timers,
    };
    let mut p = match params {
        None => return Ok(spec),
        Some(p) => p,
    };
    if cc == CcKind::None {
        p.finish()?; // an uncontrolled flow takes no parameters
        return Ok(spec);
    }
    if let Some(x) = p.quantity("initial_rto", units::duration)? {
        if x == 0 {
            return Err(ScenarioError::new(p.at("initial_rto"), "expected a positive duration"));
        }
        spec.rto.initial_rto = x;
    }
    if let Some(x) = p.quantity("min_rto", units::duration)? {
        spec.rto.min_rto = x;
    }
    if let Some(x) = p.quantity("max_rto", units::duration)? {
        spec.rto.max_rto = x;
    }
    if let Some(x) = p.quantity("rto_granularity", units::duration)? {
        spec.rto.granularity = x;
    }
    if spec.rto.max_rto < spec.rto.min_rto {
        return Err(ScenarioError::new(p.at("max_rto"), "expected max_rto >= min_rto"));
    }
    if let Some(k) = p.boolean("karn")? {
        spec.rto.karn = k;
    }
    if let Some(b) = p.boolean("backoff")? {
        spec.rto.backoff = b;
    }
    match p.choice("rtt_sample", "RTT sample origin", &["first", "last", "latest"])? {
        Some("first") => spec.rto.sample_from = SampleFrom::First,
        Some("last") => spec.rto.sample_from = SampleFrom::Last,
        Some(_) => spec.rto.sample_from = SampleFrom::Latest,
        None => {}
    }
    match p.choice("sample_packet", "packet an ACK's RTT sample times", &["echoed", "cumulative"])? {
        Some("cumulative") => spec.rto.sample_packet = SamplePacket::Cumulative,
        Some(_) => spec.rto.sample_packet = SamplePacket::Echoed,
        None => {}
    }
    // Per-packet sampling measures each packet from its first transmission, so it cannot
    // honour "last" or Karn's rule: asked for explicitly, that is an error; as the
    // algorithm's default, it gives way to them.
    let per_packet_ok = spec.rto.sample_from == SampleFrom::First && !spec.rto.karn;
    match p.choice("rtt_samples", "RTT samples per ACK", &["each_packet", "every_acked", "one_per_ack", "one_per_rtt"])? {
        Some(v @ ("each_packet" | "every_acked")) if !per_packet_ok => {
            return Err(ScenarioError::new(
                p.at("rtt_samples"),
                format!("\"{v}\" measures each packet from its first transmission: it needs rtt_sample = \"first\" and karn = false"),
            ))
        }
        Some("each_packet") => spec.rto.samples = RttSamples::EachPacket,
        Some("every_acked") => spec.rto.samples = RttSamples::EveryAcked,
        Some("one_per_rtt") => spec.rto.samples = RttSamples::OnePerRtt,
        Some(_) => spec.rto.samples = RttSamples::OnePerAck,
        None if !per_packet_ok => spec.rto.samples = RttSamples::OnePerAck,
        None => {}
    }
    if cc == CcKind::Generic {
        if let Some(beta) = decode_beta(&mut p)? {
            spec.rto.formula = RtoFormula::Beta(beta);
        }
        match p.choice("retransmit", "retransmission rule", &["expired", "own_ack", "go_back_n"])? {
            Some("go_back_n") => {
                spec.timers = TimerMode::Single;
                spec.own_ack_stops_timer = false;
            }
            Some("own_ack") => {
                spec.timers = TimerMode::PerPacket;
                spec.own_ack_stops_timer = true;
            }
            Some(_) => {
                spec.timers = TimerMode::PerPacket;
                spec.own_ack_stops_timer = false;
            }
            None => {}
        }
    } else if cc == CcKind::Pp || cc == CcKind::Pp2 {
        if let Some(x) = p.number_in("timeout_x", 0.1, 100.0)? {
            spec.rto.formula = RtoFormula::Beta(x);
        }
        // Packet-pair matches every ACK to the packet it answers (it must, to find pairs), so
        // a packet's own ACK stops its timer even when it arrived behind a hole.
        match p.choice("retransmit", "retransmission rule", &["own_ack", "expired"])? {
            Some("own_ack") => spec.own_ack_stops_timer = true,
            Some(_) => spec.own_ack_stops_timer = false,
            None => {}
        }
        if cc == CcKind::Pp {
            spec.pp = super::params::pp(&mut p)?;
        } else {
            spec.pp2 = super::params::pp2(&mut p)?;
        }
    } else if cc == CcKind::Dec {
        if let Some(k) = p.number_in("rto_k", 0.0, 100.0)? {
            spec.rto.formula = RtoFormula::MeanDev(k);
        }
        // Either timer formula: beta x srtt (the default) or srtt + k x deviation.
        if let Some(beta) = decode_beta(&mut p)? {
            if p.has("rto_k") {
                return Err(ScenarioError::new(p.at("beta"), "expected rto_k or beta, not both: each sets the timeout formula"));
            }
            spec.rto.formula = RtoFormula::Beta(beta);
        }
        spec.dec = super::params::dec(&mut p)?;
    } else {
        if let Some(k) = p.number_in("rto_k", 0.0, 100.0)? {
            spec.rto.formula = RtoFormula::MeanDev(k);
        }
        if let Some(w) = p.number_in("initial_cwnd", 1.0, 1e6)? {
            spec.initial_cwnd = w;
        }
        if let Some(n) = p.uint("dupack_threshold")? {
            if !(1..=1000).contains(&n) {
                return Err(ScenarioError::new(p.at("dupack_threshold"), format!("expected an integer in [1, 1000], got {n}")));
            }
            spec.dupack_threshold = n as u32;
        }
        if cc == CcKind::Jk {
            match p.choice("ssthresh_from", "ssthresh basis", &["cwnd", "flight"])? {
                Some("flight") => spec.ssthresh_from_flight = true,
                Some(_) => spec.ssthresh_from_flight = false,
                None => {}
            }
        }
    }
    p.finish()?;
    Ok(spec)
}

fn gap_from_rate(o: &mut Obj, size: u32, required_for: &str) -> Result<Option<SimTime>> {
    let rate = o.quantity("rate", units::packet_rate)?;
    let bitrate = o.quantity("bitrate", units::bandwidth)?;
    match (rate, bitrate) {
        (Some(_), Some(_)) => Err(ScenarioError::new(o.at("bitrate"), "give either rate or bitrate, not both")),
        (Some(r), None) => Ok(Some(from_secs(1.0 / r).max(1))),
        (None, Some(b)) => Ok(Some(from_secs(size as f64 * 8.0 / b as f64).max(1))),
        (None, None) if required_for.is_empty() => Ok(None),
        (None, None) => {
            Err(ScenarioError::new(o.at("rate"), format!("is required for app {required_for:?} (\"10pps\"), or give bitrate (\"40kbps\")")))
        }
    }
}

fn decode_app(o: &mut Obj, app: &str, packet_size: u32, duration: SimTime) -> Result<AppKind> {
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
            let from_rate = gap_from_rate(o, packet_size, "")?;
            let mean_gap = match (gap, from_rate) {
                (Some(_), Some(_)) => return Err(ScenarioError::new(o.at("mean_gap"), "give either mean_gap or rate, not both")),
                (Some(g), None) => g,
                (None, Some(g)) => g,
                (None, None) if app == "telnet" => 5 * PS_PER_SEC, // Keshav §6.5: mean 5 s
                (None, None) => {
                    return Err(ScenarioError::new(o.at("mean_gap"), "is required for app \"poisson\" (\"0.5s\"), or give rate (\"2pps\")"))
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
        "cbr" => AppKind::Cbr { gap: gap_from_rate(o, packet_size, "cbr")?.unwrap() },
        "onoff" => {
            let gap = gap_from_rate(o, packet_size, "onoff")?.unwrap();
            let path = o.at("on");
            let items = o.array("on")?.ok_or_else(|| {
                ScenarioError::new(path.clone(), "is required for app \"onoff\": a list of [start, end] periods, e.g. [[\"0s\", \"300s\"]]")
            })?;
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

fn decode_flows(top: &mut Obj, nodes: &[NodeSpec], duration: SimTime) -> Result<Vec<FlowSpec>> {
    let items = match top.array("flows")? {
        Some(a) => a,
        None => return Ok(Vec::new()),
    };
    let mut flows: Vec<FlowSpec> = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let path = format!("flows[{i}]");
        let mut o = Obj::new(item, &path)?;
        let name = o.str("name")?.map(str::to_string).unwrap_or_else(|| format!("flow{i}"));
        if flows.iter().any(|f| f.name == name) {
            return Err(ScenarioError::new(o.at("name"), format!("flow name {name:?} is used twice")));
        }
        let endpoint = |o: &mut Obj, key: &'static str| -> Result<usize> {
            let p = o.at(key);
            let n = o.req_str(key)?;
            let idx = node_ref(nodes, n, &p)?;
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
        let cc_name = o.choice("cc", "congestion control algorithm", CC_NAMES)?.unwrap_or(default_cc);
        let cc = match cc_name {
            "generic" => CcKind::Generic,
            "jk" => CcKind::Jk,
            "reno" => CcKind::Reno,
            "newreno" => CcKind::NewReno,
            "dec" => CcKind::Dec,
            "pp" => CcKind::Pp,
            "pp2" => CcKind::Pp2,
            _ => CcKind::None,
        };
        if cc == CcKind::None && app_name == "ftp" {
            return Err(ScenarioError::new(
                o.at("cc"),
                "app \"ftp\" needs flow control (an infinite source without it has no rate); use app \"cbr\" for an uncontrolled source",
            ));
        }
        let default_size = if app_name == "telnet" { 40 } else { 1000 };
        let packet_size = o.quantity("packet_size", units::size)?.unwrap_or(default_size);
        let ack_size = o.quantity("ack_size", units::size)?.unwrap_or(40);
        for (key, v) in [("packet_size", packet_size), ("ack_size", ack_size)] {
            if v > 65_535 {
                return Err(ScenarioError::new(o.at(key), format!("expected at most 65535 bytes, got {v}")));
            }
        }
        let max_window = o.uint_in("max_window", 1, 100_000_000)?.unwrap_or(1_000_000) as u32;
        let start = o.quantity("start", units::duration)?.unwrap_or(0);
        if start >= duration {
            return Err(ScenarioError::new(o.at("start"), "expected a start time before the end of the run (duration)"));
        }
        let stop = o.quantity("stop", units::duration)?.unwrap_or(SimTime::MAX);
        if stop <= start {
            return Err(ScenarioError::new(o.at("stop"), "expected a stop time after start"));
        }
        let fq_weight = o.uint_in("fq_weight", 1, 1_000_000)?.unwrap_or(1) as u32;
        let app = decode_app(&mut o, app_name, packet_size as u32, duration)?;
        let params = o.table("params")?;
        let transport = decode_transport(params, cc)?;
        let route = decode_node_list(&mut o, "route", nodes)?;
        let reverse_route = decode_node_list(&mut o, "reverse_route", nodes)?;
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
            packet_size: packet_size as u32,
            ack_size: ack_size as u32,
            start,
            stop,
            route,
            reverse_route,
            fq_weight,
        });
    }
    Ok(flows)
}

/// A selection of flows or ports by name; `"switches"` (ports leaving switches) only when
/// `ports` is true.
fn decode_selection(o: &mut Obj, key: &'static str, names: &[String], ports: bool, default: Selection) -> Result<Selection> {
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
                match names.iter().position(|x| x == n) {
                    Some(k) => idx.push(k),
                    None => {
                        let shown: Vec<&str> = names.iter().take(20).map(String::as_str).collect();
                        return Err(ScenarioError::new(
                            format!("{path}[{i}]"),
                            format!("no such name {n:?}; expected one of: {}", shown.join(", ")),
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

/// Port names, two per link (`"a->b"`, then `"b->a"`), in port order. A second link between
/// the same two nodes names its ports `"a->b#2"` (a third `#3`, ...), so that every name, in
/// `trace_queues` or a results table, picks exactly one port.
fn port_names(nodes: &[NodeSpec], links: &[LinkSpec]) -> Vec<String> {
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

fn decode_measure(top: &mut Obj, duration: SimTime, nodes: &[NodeSpec], links: &[LinkSpec], flows: &[FlowSpec]) -> Result<MeasureSpec> {
    let flow_names: Vec<String> = flows.iter().map(|f| f.name.clone()).collect();
    let port_names = port_names(nodes, links);
    let default_interval = duration / 8;
    let mut m = match top.table("measure")? {
        Some(m) => m,
        None => {
            return Ok(MeasureSpec {
                interval: default_interval.max(1),
                discard: 1,
                trace_period: (duration / 2000).max(1),
                trace_cwnd: Selection::All,
                trace_queues: Selection::Switches,
                trace_drops: Selection::None,
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
    let trace_cwnd = decode_selection(&mut m, "trace_cwnd", &flow_names, false, Selection::All)?;
    let trace_queues = decode_selection(&mut m, "trace_queues", &port_names, true, Selection::Switches)?;
    let trace_drops = decode_selection(&mut m, "trace_drops", &port_names, true, Selection::None)?;
    m.finish()?;
    Ok(MeasureSpec { interval, discard: discard as u32, trace_period, trace_cwnd, trace_queues, trace_drops })
}
