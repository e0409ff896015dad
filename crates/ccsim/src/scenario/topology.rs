//! Nodes, links and the queues of their ports, as a scenario describes them.

use super::decode::{string_list, Obj, Result, ScenarioError};
use super::params::Params;
use super::schema::{LinkSpec, NameIndex, NodeKind, NodeSpec, QueueSpec};
use super::units;
use crate::net::port::{ChannelBuffers, MAX_CHANNELS};
use crate::queue::{discipline, BufferLimit, QdiscConfig, DISCIPLINES};
use std::collections::HashSet;

/// The index of the node called `name`, or an error at `path` listing some that exist.
pub fn node_ref(index: &NameIndex, name: &str, path: &str) -> Result<usize> {
    index.get(name).ok_or_else(|| ScenarioError::new(path, format!("no node named {name:?}; nodes are: {}", index.sample())))
}

pub fn decode_nodes(top: &mut Obj) -> Result<Vec<NodeSpec>> {
    let mut t = top.table("nodes")?.ok_or_else(|| ScenarioError::new("nodes", "is required: a table with lists `hosts` and `switches`"))?;
    let mut nodes: Vec<NodeSpec> = Vec::new();
    let mut seen: HashSet<String> = HashSet::new();
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
                if !seen.insert(name.to_string()) {
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

/// A port's queue settings: `queue` (a registered discipline), its `queue_params`, `buffer`,
/// `count_in_service`, `channel_buffers` and `jitter`, over `base` (a link's shared settings,
/// for its `forward` / `reverse` tables), on a link of `channels` channels.
fn decode_queue(o: &mut Obj, base: Option<&QueueSpec>, sender_kind: NodeKind, channels: u32) -> Result<QueueSpec> {
    static NAMES: std::sync::OnceLock<Vec<&'static str>> = std::sync::OnceLock::new();
    let names = NAMES.get_or_init(|| DISCIPLINES.iter().map(|d| d.name).collect());
    let name = o.choice("queue", "queue discipline", names)?;
    let params = o.table("queue_params")?;
    let kind = match (name, params) {
        (None, None) => base.map(|b| b.kind.clone()).unwrap_or_default(),
        (name, params) => {
            // Parameters without a name apply to the discipline the base has.
            let name = name.unwrap_or_else(|| base.map_or("droptail", |b| b.kind.name()));
            let info = discipline(name).expect("a registered name");
            let mut p = Params::new(params.unwrap_or_else(|| Obj::empty(o.at("queue_params"))));
            let cfg = (info.decode)(&mut p)?;
            p.finish()?;
            cfg
        }
    };
    let default_buffer = match sender_kind {
        NodeKind::Host => BufferLimit::Unlimited,
        NodeKind::Switch => BufferLimit::Packets(100),
    };
    let buffer = o.quantity("buffer", units::buffer)?.or(base.map(|b| b.buffer)).unwrap_or(default_buffer);
    // On a link of several channels the buffer counts the packets waiting (Cui's B) unless
    // the scenario says otherwise.
    let count_in_service = o.boolean("count_in_service")?.or(base.map(|b| b.count_in_service)).unwrap_or(channels == 1);
    let channel_buffers = match o.choice("channel_buffers", "arrangement of a trunk's buffers", ChannelBuffers::NAMES)? {
        Some(name) => ChannelBuffers::from_name(name).expect("a listed name"),
        None => base.map_or(ChannelBuffers::default(), |b| b.channel_buffers),
    };
    let jitter = o.quantity("jitter", units::duration)?.or(base.map(|b| b.jitter)).unwrap_or(0);
    let loss = match o.float("loss")? {
        Some(p) if !(0.0..1.0).contains(&p) => {
            return Err(ScenarioError::new(o.at("loss"), format!("expected a probability in [0, 1), got {p}")))
        }
        Some(p) => p,
        None => base.map_or(0.0, |b| b.loss),
    };
    let q = QueueSpec { kind, buffer, count_in_service, channel_buffers, jitter, loss };
    check_channels(o, &q, channels)?;
    Ok(q)
}

/// A port's discipline and buffer against its link's channels (`net::port::trunk`).
fn check_channels(o: &Obj, q: &QueueSpec, channels: u32) -> Result<()> {
    let name = q.kind.name();
    if channels > 1 && name != "droptail" {
        return Err(ScenarioError::new(
            o.at("queue"),
            format!(
                "expected \"droptail\" on a link of {channels} channels (they share its one FIFO; other disciplines \
                 serve one line: set channels = 1), got {name:?}"
            ),
        ));
    }
    let err = |msg: String| Err(ScenarioError::new(o.at("buffer"), msg));
    let private = q.channel_buffers == ChannelBuffers::Private;
    match q.buffer {
        BufferLimit::Packets(0) if q.count_in_service => err(
            "expected a buffer of at least 1pkt, got 0pkt (a buffer of none, no waiting room, needs count_in_service \
             = false: a packet then goes only onto an idle channel)"
                .into(),
        ),
        BufferLimit::Packets(0) if name != "droptail" => err(format!(
            "expected a buffer of at least 1pkt with {name:?}, got 0pkt (a buffer of none is for drop-tail, whose \
             channels then take a packet only when idle)"
        )),
        BufferLimit::Packets(n) if channels > 1 && q.count_in_service && !private && n < channels => err(format!(
            "expected a buffer of at least {channels}pkt, got {n}pkt: with count_in_service = true it counts the \
             packets on the link's {channels} channels too (count_in_service = false counts only the packets waiting)"
        )),
        BufferLimit::Bytes(_) if channels > 1 && private => {
            err("expected a buffer in packets (such as \"1pkt\", each channel's) or \"unlimited\" with channel_buffers = \"private\", got a size in bytes".into())
        }
        _ => Ok(()),
    }
}

pub fn decode_links(top: &mut Obj, nodes: &[NodeSpec], index: &NameIndex) -> Result<Vec<LinkSpec>> {
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
        let a = node_ref(index, ends[0], &format!("{bpath}[0]"))?;
        let b = node_ref(index, ends[1], &format!("{bpath}[1]"))?;
        if a == b {
            return Err(ScenarioError::new(bpath, "a link joins two different nodes"));
        }
        let bandwidth_bps =
            o.quantity("bandwidth", units::bandwidth)?.ok_or_else(|| o.missing("bandwidth", "a bandwidth such as \"80kbps\""))?;
        let channels = o.uint_in("channels", 1, MAX_CHANNELS as u64)?.unwrap_or(1) as u32;
        let delay = o.quantity("delay", units::duration)?.unwrap_or(0);
        // The link's queue settings describe the switches' output ports. A host's own
        // interface queue is its send buffer: FIFO, unlimited, no marking, unless a
        // `forward` / `reverse` table says otherwise.
        let shared = decode_queue(&mut o, None, NodeKind::Switch, channels)?;
        // A link's jitter and loss apply to both its ends, hosts included.
        let host_port = QueueSpec {
            kind: QdiscConfig::default(),
            buffer: BufferLimit::Unlimited,
            count_in_service: channels == 1,
            channel_buffers: ChannelBuffers::Shared,
            jitter: shared.jitter,
            loss: shared.loss,
        };
        let pick = |kind: NodeKind| if kind == NodeKind::Host { host_port.clone() } else { shared.clone() };
        let (shared_a, shared_b) = (pick(nodes[a].kind), pick(nodes[b].kind));
        let forward = match o.table("forward")? {
            Some(mut f) => {
                let q = decode_queue(&mut f, Some(&shared_a), nodes[a].kind, channels)?;
                f.finish()?;
                q
            }
            None => shared_a,
        };
        let reverse = match o.table("reverse")? {
            Some(mut r) => {
                let q = decode_queue(&mut r, Some(&shared_b), nodes[b].kind, channels)?;
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
        links.push(LinkSpec { a, b, bandwidth_bps, channels, delay, forward, reverse, delay_changes });
    }
    Ok(links)
}
