//! Scenario -> World.

use super::decode::{Result, ScenarioError};
use super::schema::{NodeKind, QueueSpec, Scenario, Selection};
use super::setup_hooks::{check_codes, tell_flows, tell_route};
use super::table_memory::check_table_memory;
use crate::measure::{CwndTrace, DropTrace, EventTrace, IntervalTable, QueueTrace, EVENT_LOG_CAPACITY};
use crate::net::port::uses_trunk;
use crate::net::routing::{explicit_path, Adjacency, Router};
use crate::net::{PacketArena, Port};
use crate::queue::{PortSetup, Qdisc, QueueDiscipline};
use crate::sim::{events::MAX_TARGET, EventKind, EventQueue, Rng};
use crate::traffic::nagle::Nagle;
use crate::traffic::sizes::{PacketSizes, VariableSizes};
use crate::traffic::App;
use crate::transport::cc::CongestionControl;
use crate::transport::cc::{AlgorithmInfo, ALGORITHMS};
use crate::transport::{Sender, Sink};
use crate::world::{Flow, ProfileMarker, RationBoard, TracedFlow, World, MAX_OWN_COLUMNS, NO_COLUMN};

fn make_qdisc(q: &QueueSpec, bandwidth_bps: u64, seed: u64, port_name: &str) -> Qdisc {
    q.kind.build(&PortSetup { buffer: q.buffer, count_in_service: q.count_in_service, bandwidth_bps, seed, port_name })
}

/// Most rows the periodic traces (cwnd and queue samples) may reach: about 2-4 GB of
/// columns, far past what a plot or an analysis reads.
pub const MAX_TRACE_ROWS: u64 = 1 << 26;

/// Events name their port, flow, interval or link change in 27 bits (`sim::events`): a
/// scenario past that (far beyond what memory holds, except by a tiny `measure.interval`)
/// gets an error naming the field instead of a wrong target.
fn check_event_targets(sc: &Scenario) -> Result<()> {
    let limit = MAX_TARGET as u64 + 1;
    let check = |path: &str, count: u64, what: &str| {
        if count > limit {
            Err(ScenarioError::new(path, format!("expected at most {limit} {what}, got {count}")))
        } else {
            Ok(())
        }
    };
    check("links", 2 * sc.links.len() as u64, "link directions (ports)")?;
    check("flows", sc.flows.len() as u64, "flows")?;
    let changes = sc.links.iter().map(|l| l.delay_changes.len() as u64).sum();
    check("links", changes, "link delay changes")?;
    check("measure.interval", sc.duration / sc.measure.interval, "measurement intervals in the run (choose a longer interval)")
}

/// The traced flows, the window trace with a column for each trace column of their
/// algorithms (in registry order), and a table for each event log they keep; their logs are
/// turned on here.
fn trace_layout(sc: &Scenario, traced: &[u32], flows: &mut [Flow]) -> (Vec<TracedFlow>, CwndTrace, Vec<EventTrace>) {
    let algorithms: Vec<&'static AlgorithmInfo> =
        traced.iter().filter_map(|&f| sc.flows[f as usize].transport.cc.as_ref()).map(|c| c.info()).collect();
    let mut trace = CwndTrace::default();
    let mut event_traces: Vec<EventTrace> = Vec::new();
    for a in ALGORITHMS.iter().filter(|a| algorithms.iter().any(|b| std::ptr::eq(*b, *a))) {
        for &c in a.trace_columns {
            if !trace.extra.iter().any(|(n, _)| *n == c) {
                trace.extra.push((c, Vec::new()));
            }
        }
        if let Some(log) = a.event_log {
            if !event_traces.iter().any(|e| e.table == log.table) {
                event_traces.push(EventTrace::new(log));
            }
        }
    }
    let layout = traced
        .iter()
        .map(|&f| {
            let info = sc.flows[f as usize].transport.cc.as_ref().map(|c| c.info());
            let own: &[&str] = info.map_or(&[], |a| a.trace_columns);
            assert!(own.len() <= MAX_OWN_COLUMNS, "an algorithm declares at most {MAX_OWN_COLUMNS} trace columns");
            let columns = trace.extra.iter().map(|(n, _)| own.iter().position(|c| c == n).map_or(NO_COLUMN, |k| k as u8)).collect();
            let events = info.and_then(|a| a.event_log).map(|log| event_traces.iter().position(|e| e.table == log.table).unwrap() as u32);
            if events.is_some() {
                if let Some(s) = flows[f as usize].sender.as_mut() {
                    s.cc.enable_event_log(EVENT_LOG_CAPACITY);
                }
            }
            TracedFlow { flow: f, columns, own_columns: own.len() as u8, events }
        })
        .collect();
    (layout, trace, event_traces)
}

pub fn build_world(sc: &Scenario) -> Result<World> {
    build_world_part(sc, None)
}

/// The world of one thread of a parallel run (`side` 0 or 1, `scenario::parallel`), or with
/// None the whole scenario's. Each side's world has every node, port and flow, but only its
/// own flows start, only the first closes measurement intervals, and its ports toward the
/// other side are marked as crossing.
pub fn build_world_part(sc: &Scenario, side: Option<u8>) -> Result<World> {
    check_event_targets(sc)?;
    let mine = |node: usize| match (side, &sc.parallel) {
        (Some(me), Some(par)) => par.side(node) == me,
        _ => true,
    };
    let n = sc.nodes.len();
    let mut adj: Adjacency = vec![Vec::new(); n];
    let mut ports = Vec::with_capacity(sc.links.len() * 2);
    let port_names = sc.port_names();
    // A discipline that raises signals sends control packets, which may cross any port: then
    // every port gets a control lane.
    let lanes = sc.links.iter().any(|l| l.forward.kind.signals() || l.reverse.kind.signals());
    for (i, l) in sc.links.iter().enumerate() {
        let fwd = ports.len() as u32;
        let (name_f, name_r) = (&port_names[fwd as usize], &port_names[fwd as usize + 1]);
        ports.push(Port::new(l.a as u32, l.b as u32, l.bandwidth_bps, l.delay, make_qdisc(&l.forward, l.bandwidth_bps, sc.seed, name_f)));
        ports.push(Port::new(l.b as u32, l.a as u32, l.bandwidth_bps, l.delay, make_qdisc(&l.reverse, l.bandwidth_bps, sc.seed, name_r)));
        for (k, q) in [(fwd as usize, &l.forward), (fwd as usize + 1, &l.reverse)] {
            let on = ports[k].qdisc.is_preemptive();
            ports[k].set_preemptive(on);
            if q.jitter > 0 {
                // Each port its own stream, named after the port (parallel links included).
                ports[k].set_jitter(q.jitter, Rng::stream(sc.seed, &format!("port/{}", port_names[k])));
            }
            if q.loss > 0.0 {
                ports[k].set_loss(q.loss, Rng::stream(sc.seed, &format!("port/{}/loss", port_names[k])));
            }
            // Only drop-tail ports get here with several channels or none of buffer (`topology::check_channels`).
            ports[k].set_channels(l.channels, q.channel_buffers, q.buffer, q.count_in_service);
            if lanes {
                if l.channels == 1 && uses_trunk(1, q.buffer, q.count_in_service) {
                    return Err(ScenarioError::new(
                        format!("links[{i}].buffer"),
                        "expected at least 1pkt: a bufferless line cannot carry control packets (a discipline here \
                         raises signals)",
                    ));
                }
                if l.channels > 1 {
                    return Err(ScenarioError::new(
                        format!("links[{i}].channels"),
                        format!(
                            "expected 1 (got {}): a link of several channels cannot carry control packets (a discipline \
                             here raises signals)",
                            l.channels
                        ),
                    ));
                }
                if on {
                    return Err(ScenarioError::new(
                        format!("links[{i}].queue_params.preemptive"),
                        "preemptive service cannot be combined with control packets (a discipline here raises signals)",
                    ));
                }
                ports[k].enable_control_lane(q.buffer, q.count_in_service);
                ports[k].set_signals(q.kind.signals());
            }
        }
        adj[l.a].push((l.b as u32, fwd));
        adj[l.b].push((l.a as u32, fwd + 1));
    }

    let mut routes: Vec<u32> = Vec::new();
    tell_flows(&mut ports, sc);
    let switch_nodes: Vec<bool> = sc.nodes.iter().map(|n| n.kind == NodeKind::Switch).collect();
    let mut router = Router::new(&adj, switch_nodes.clone());
    let mut flows = Vec::with_capacity(sc.flows.len());
    let mut events = EventQueue::new();
    let mut link_changes = Vec::new();
    for (i, l) in sc.links.iter().enumerate() {
        for &(at, delay) in &l.delay_changes {
            if at < sc.duration {
                events.schedule(at, EventKind::LinkChange, link_changes.len() as u32);
                link_changes.push((2 * i as u32, delay));
            }
        }
    }
    for (i, fs) in sc.flows.iter().enumerate() {
        let path = format!("flows[{i}]");
        let name_of = |x: usize| sc.nodes[x].name.as_str();
        let mut resolve = |explicit: &Option<Vec<usize>>, from: usize, to: usize, key: &str| -> Result<Vec<u32>> {
            match explicit {
                Some(nodes) => {
                    let ids: Vec<u32> = nodes.iter().map(|&x| x as u32).collect();
                    explicit_path(&adj, &ids).map_err(|j| {
                        ScenarioError::new(
                            format!("{path}.{key}[{}]", j + 1),
                            format!("nodes {:?} and {:?} are not joined by a link", name_of(nodes[j]), name_of(nodes[j + 1])),
                        )
                    })
                }
                None => router.shortest_path(from as u32, to as u32).ok_or_else(|| {
                    ScenarioError::new(format!("{path}.dst"), format!("no route from {:?} to {:?}", name_of(from), name_of(to)))
                }),
            }
        };
        let fwd = resolve(&fs.route, fs.src, fs.dst, "route")?;
        let rev_explicit = fs.reverse_route.clone().or_else(|| fs.route.as_ref().map(|r| r.iter().rev().copied().collect()));
        let rev = resolve(&rev_explicit, fs.dst, fs.src, "reverse_route")?;
        if fwd.len() > u16::MAX as usize || rev.len() > u16::MAX as usize {
            return Err(ScenarioError::new(format!("{path}.route"), "route longer than 65535 hops"));
        }
        tell_route(&mut ports, i, fs, &fwd, &rev)?;
        check_codes(sc, i, fs, &fwd)?;
        let route = routes.len() as u32;
        routes.extend_from_slice(&fwd);
        let rev_route = routes.len() as u32;
        routes.extend_from_slice(&rev);

        let t = &fs.transport;
        let w = fs.max_window;
        let sender = t.cc.as_ref().map(|cc| {
            let mut s = Sender::new(cc.build(w), w, t.sender.rto, t.sender.timers);
            s.own_ack_stops_timer = t.sender.own_ack_stops_timer;
            if t.sender.pacing {
                s.spread_over_rtt(t.sender.pacing_rtt);
            }
            if t.sender.ecn {
                s.enable_ecn();
            }
            if let Some(c) = t.sender.sack {
                s.enable_sack(c);
            }
            s
        });
        let rng = Rng::stream(sc.seed, &format!("flow/{}", fs.name));
        let start = fs.start_time(sc.seed);
        // A stream of its own, so a size mix changes no other random numbers.
        let mix = fs.packet_sizes.as_ref().map(|mix| {
            let seed = Rng::stream(sc.seed, &format!("flow/{}/packet_sizes", fs.name)).next_u64();
            Box::new(VariableSizes::Mix(PacketSizes::new(mix, seed)))
        });
        let sizes = mix.or_else(|| fs.nagle.map(|cfg| Box::new(VariableSizes::Coalesced(Nagle::new(cfg, fs.packet_size)))));
        flows.push(Flow {
            name: fs.name.clone(),
            src: fs.src as u32,
            dst: fs.dst as u32,
            route,
            route_len: fwd.len() as u16,
            rev_route,
            rev_route_len: rev.len() as u16,
            sender,
            sink: Sink::with_mode(fs.sink),
            app: {
                let mut app = App::new(fs.app.clone(), start, fs.stop, rng);
                if let Some(packets) = fs.source_buffer {
                    app.set_source_buffer(packets);
                }
                app
            },
            // 0 marks variable sizes (`Flow::data_size`).
            packet_size: if sizes.is_some() { 0 } else { fs.packet_size },
            sizes,
            ack_size: fs.ack_size,
            class: fs.class,
            marker: fs.profile.map(|(rate, burst)| Box::new(ProfileMarker::new(rate, burst))),
            next_seq: 0,
            cur: Default::default(),
            total: Default::default(),
        });
        if mine(fs.src) {
            events.schedule(start, EventKind::FlowStart, i as u32);
            if fs.stop < sc.duration {
                events.schedule(fs.stop, EventKind::FlowStop, i as u32);
            }
        }
    }

    let rations = RationBoard::build(&mut ports, &flows, &routes, &switch_nodes, port_names)?.map(Box::new);
    if let Some(board) = &rations {
        if side.is_some() {
            return Err(ScenarioError::new(
                "parallel",
                "expected no [parallel] section with queue = \"bbn\": its rations are exchanged between every port at once",
            ));
        }
        board.start(&mut events, sc.duration);
    }
    let m = &sc.measure;
    let n_intervals = sc.duration / m.interval;
    for k in 1..=n_intervals {
        if side.unwrap_or(0) == 0 {
            events.schedule(k * m.interval, EventKind::IntervalEnd, (k - 1) as u32);
        }
    }
    let cross_ports: Vec<u32> = (0..ports.len() as u32)
        .filter(|&p| {
            let port = &ports[p as usize];
            side.is_some() && mine(port.from as usize) && !mine(port.to as usize)
        })
        .collect();
    for &p in &cross_ports {
        ports[p as usize].set_cross(true);
    }
    let traced: Vec<u32> = match &m.trace_cwnd {
        Selection::None => vec![],
        Selection::All | Selection::Switches => (0..sc.flows.len() as u32).collect(),
        Selection::Indices(ix) => ix.iter().map(|&x| x as u32).collect(),
    };
    let (traced_flows, cwnd_trace, event_traces) = trace_layout(sc, &traced, &mut flows);
    let select_ports = |sel: &Selection| -> Vec<u32> {
        match sel {
            Selection::None => vec![],
            Selection::All => (0..ports.len() as u32).collect(),
            Selection::Switches => {
                (0..ports.len() as u32).filter(|&p| sc.nodes[ports[p as usize].from as usize].kind == NodeKind::Switch).collect()
            }
            Selection::Indices(ix) => ix.iter().map(|&x| x as u32).collect(),
        }
    };
    let traced_ports = select_ports(&m.trace_queues);
    // One flag per port, or none at all when no drops are traced (the drop path tests emptiness).
    let drop_traced: Vec<bool> = match select_ports(&m.trace_drops) {
        v if v.is_empty() => vec![],
        v => {
            let mut flags = vec![false; ports.len()];
            v.iter().for_each(|&p| flags[p as usize] = true);
            flags
        }
    };
    let drop_census = if drop_traced.is_empty() { vec![] } else { vec![0; 2 * flows.len()] };
    let stat_ports = select_ports(&m.port_stats);
    let departure_ports = select_ports(&m.trace_departures);
    for &p in &stat_ports {
        ports[p as usize].enable_accounting();
    }
    // One row per departure: bound the rows by what the lines could send in 40-byte packets.
    let most_departures: f64 = departure_ports
        .iter()
        .map(|&p| crate::sim::time::to_secs(sc.duration - m.departures_from) * ports[p as usize].capacity_bps() as f64 / (8.0 * 40.0))
        .sum();
    if most_departures > MAX_TRACE_ROWS as f64 {
        return Err(ScenarioError::new(
            "measure.trace_departures",
            format!(
                "expected at most {MAX_TRACE_ROWS} departure rows, and these ports' lines could send {most_departures:.3e} \
                 packets of 40 bytes in the run; trace fewer or slower ports, or run shorter"
            ),
        ));
    }
    for &p in &departure_ports {
        ports[p as usize].enable_departure_log(m.departures_from);
    }
    if !traced_flows.is_empty() || !traced_ports.is_empty() {
        // The trace tables grow by one row per traced flow and port per sample: bound them
        // before the run, so a typo in trace_period is an error and not memory exhaustion.
        let rows = (sc.duration / m.trace_period + 1).saturating_mul((traced_flows.len() + traced_ports.len()) as u64);
        if rows > MAX_TRACE_ROWS {
            return Err(ScenarioError::new(
                "measure.trace_period",
                format!(
                    "expected at most {MAX_TRACE_ROWS} trace rows (samples x {} traced flows and queues), got {rows}; \
                     choose a longer trace_period or trace fewer flows and queues",
                    traced_flows.len() + traced_ports.len()
                ),
            ));
        }
        events.schedule(0, EventKind::TraceSample, 0);
    }
    check_table_memory(sc, &ports, &flows, &routes, &traced_flows, &traced_ports, &cwnd_trace, &stat_ports, &departure_ports)?;
    events.plan();
    let mut intervals = IntervalTable::default();
    intervals.reserve_exact((sc.duration / sc.measure.interval) as usize * sc.flows.len());

    Ok(World {
        now: 0,
        end: sc.duration,
        events,
        packets: PacketArena::new(),
        ports,
        routes,
        flows,
        interval: m.interval,
        intervals,
        trace_period: m.trace_period,
        traced_flows,
        traced_ports,
        cwnd_trace,
        event_traces,
        queue_trace: QueueTrace::default(),
        drop_traced,
        drop_trace: DropTrace::default(),
        drop_census,
        census_touched: Vec::new(),
        peak_live_packets: 0,
        live_packet_limit: sc.limits.live_packets(),
        overflow: None,
        link_changes,
        port_snaps: vec![Default::default(); stat_ports.len()],
        foreign_snaps: Vec::new(),
        cross_ports,
        side_of: match (side, &sc.parallel) {
            (Some(_), Some(par)) => par.second.iter().map(|&s| u8::from(s)).collect(),
            _ => Vec::new(),
        },
        joined_in_network: None,
        stat_ports,
        port_intervals: Default::default(),
        control: if lanes { vec![Default::default(); sc.flows.len()] } else { Vec::new() },
        signal_buf: Vec::new(),
        stopped: false,
        rations,
    })
}
