//! The standard benchmark: an N-flow NewReno dumbbell (issue 2; DESIGN.md "Speed").
//!
//! N senders on 1 Gb/s, 0.5 ms access links; a 100 Mb/s, 20 ms bottleneck with a 1-BDP
//! drop-tail buffer of 1500-byte packets (RTT 42 ms, BDP 350 packets); N receivers on
//! 1 Gb/s, 0.5 ms links; flow i starts at i/N seconds. No traces; three measurement
//! intervals (the first discarded) for the Jain index, so the interval table stays small.
//! The flows restart their timers on every partial ACK (`partial_ack_timer =
//! "slow_but_steady"`, NewReno's default before issue 21), so the workload stays that of
//! the earlier rows of docs/performance.md.

use crate::scenario::Scenario;
use crate::sim::time::to_secs;
use crate::world::World;
use std::fmt::Write;
use std::time::Instant;

/// The dumbbell as scenario TOML (also what `ccsim bench --print-scenario` shows).
pub fn dumbbell_toml(flows: usize, duration_s: f64, seed: u64) -> String {
    let bdp_packets = (100e6 * 0.042 / 8.0 / 1500.0_f64).round() as u64;
    let mut s = String::new();
    let _ = writeln!(s, "name = \"bench-dumbbell-{flows}\"\nseed = {seed}\nduration = \"{duration_s}s\"");
    let _ = writeln!(s, "[measure]\ninterval = \"{}s\"\ndiscard = 1\ntrace_cwnd = false\ntrace_queues = false", duration_s / 3.0);
    let hosts: Vec<String> = (0..flows).flat_map(|i| [format!("\"s{i}\""), format!("\"r{i}\"")]).collect();
    let _ = writeln!(s, "[nodes]\nhosts = [{}]\nswitches = [\"left\", \"right\"]", hosts.join(", "));
    let _ =
        writeln!(s, "[[links]]\nbetween = [\"left\", \"right\"]\nbandwidth = \"100Mbps\"\ndelay = \"20ms\"\nbuffer = \"{bdp_packets}pkt\"");
    for i in 0..flows {
        let _ = writeln!(
            s,
            "[[links]]\nbetween = [\"s{i}\", \"left\"]\nbandwidth = \"1Gbps\"\ndelay = \"0.5ms\"\nbuffer = \"{bdp_packets}pkt\""
        );
        let _ = writeln!(
            s,
            "[[links]]\nbetween = [\"right\", \"r{i}\"]\nbandwidth = \"1Gbps\"\ndelay = \"0.5ms\"\nbuffer = \"{bdp_packets}pkt\""
        );
    }
    // Starts spread over the first second, or the first half of a shorter run.
    let spread = duration_s.min(2.0) / 2.0;
    for i in 0..flows {
        let start = spread * i as f64 / flows as f64;
        let _ = writeln!(
            s,
            "[[flows]]\nname = \"f{i}\"\nsrc = \"s{i}\"\ndst = \"r{i}\"\napp = \"ftp\"\ncc = \"newreno\"\npacket_size = \"1500B\"\nack_size = \"40B\"\nstart = \"{start}s\"\nparams = {{ partial_ack_timer = \"slow_but_steady\" }}"
        );
    }
    s
}

/// Resident-set figures from /proc (Linux); zero elsewhere.
pub fn rss_kb() -> (u64, u64) {
    let text = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let field = |name: &str| {
        text.lines().find(|l| l.starts_with(name)).and_then(|l| l.split_whitespace().nth(1)).and_then(|v| v.parse().ok()).unwrap_or(0)
    };
    (field("VmRSS:"), field("VmHWM:"))
}

#[derive(Clone, Debug)]
pub struct BenchReport {
    pub flows: usize,
    pub sim_seconds: f64,
    pub wall_seconds: f64,
    /// Reading the scenario text into a validated `Scenario`, and building its world.
    pub parse_seconds: f64,
    pub build_seconds: f64,
    pub events: u64,
    pub bottleneck_departures: u64,
    pub utilisation: f64,
    pub jain: f64,
    pub rss_before_kb: u64,
    pub peak_rss_kb: u64,
    pub drops: u64,
    pub timeouts: u64,
    /// Simulation state (structures and their heap), and measurement output, in bytes.
    pub state_bytes: usize,
    pub output_bytes: usize,
    /// The most packets alive at once (queued, on a line or in a pipe).
    pub peak_packets: usize,
}

impl BenchReport {
    pub fn events_per_second(&self) -> f64 {
        self.events as f64 / self.wall_seconds
    }
    pub fn departures_per_second(&self) -> f64 {
        self.bottleneck_departures as f64 / self.wall_seconds
    }
    /// Simulation state per flow (structures and heap, exact), bytes.
    pub fn state_bytes_per_flow(&self) -> f64 {
        self.state_bytes as f64 / self.flows as f64
    }
    /// One packet's slot in the arena, bytes (every packet alive holds one).
    pub fn packet_bytes(&self) -> usize {
        std::mem::size_of::<crate::net::Packet>()
    }
    /// Bottleneck departures per event processed: how many events a packet costs end to end.
    pub fn events_per_bottleneck_packet(&self) -> f64 {
        self.events as f64 / self.bottleneck_departures.max(1) as f64
    }
    /// Growth of the resident set while building and running, per flow, bytes. Noisier
    /// than the state count: it includes measurement output and allocator slack, and the
    /// allocator may reuse memory freed by the scenario parser.
    pub fn rss_growth_per_flow(&self) -> f64 {
        (self.peak_rss_kb.saturating_sub(self.rss_before_kb)) as f64 * 1024.0 / self.flows as f64
    }
}

pub fn run_dumbbell(flows: usize, duration_s: f64, seed: u64) -> Result<BenchReport, crate::ScenarioError> {
    let text = dumbbell_toml(flows, duration_s, seed);
    run_text(text, "left->right")
}

/// Any scenario as a benchmark: parse, build and run it, reading the port named `port` (such
/// as "sw->d") as its bottleneck. The text is dropped before the world is built, so the
/// resident-set figures are the simulation's.
pub fn run_text(text: String, port: &str) -> Result<BenchReport, crate::ScenarioError> {
    let t = Instant::now();
    let sc = Scenario::from_toml_str(&text)?;
    let parse_seconds = t.elapsed().as_secs_f64();
    drop(text);
    let Some(port_index) = sc.port_names().iter().position(|n| n == port) else {
        return Err(crate::ScenarioError::new("port", format!("expected the name of one of the scenario's ports, got {port:?}")));
    };
    let (rss_before_kb, _) = rss_kb();
    let t0 = Instant::now();
    // A parallel scenario runs on its two threads; the state counted is then the first side's
    // (with the ports moved over from the second).
    let (w, build_seconds, wall_seconds) = if sc.parallel.is_some() {
        let run = crate::parallel::ParallelRun::new(&sc)?;
        let build_seconds = t0.elapsed().as_secs_f64();
        let t1 = Instant::now();
        let w: World = run.join();
        (w, build_seconds, t1.elapsed().as_secs_f64())
    } else {
        let mut w: World = crate::scenario::build::build_world(&sc)?;
        let build_seconds = t0.elapsed().as_secs_f64();
        let t1 = Instant::now();
        w.run();
        (w, build_seconds, t1.elapsed().as_secs_f64())
    };
    if w.overflow.is_some() {
        return Err(crate::ScenarioError::new("flows", "the benchmark run filled the packet arena and stopped"));
    }
    let (_, peak_rss_kb) = rss_kb();
    let (state_bytes, output_bytes) = w.memory_bytes();
    let results = crate::Results::collect(&sc, &w);
    let bottleneck = &w.ports[port_index];
    let timeouts = w.flows.iter().filter_map(|f| f.sender.as_ref()).map(|s| s.timeouts).sum();
    Ok(BenchReport {
        flows: w.flows.len(),
        sim_seconds: to_secs(w.end),
        wall_seconds,
        parse_seconds,
        build_seconds,
        events: w.events.processed(),
        bottleneck_departures: bottleneck.stats.departures,
        utilisation: to_secs(bottleneck.stats.busy_ps) / (to_secs(w.end) * bottleneck.channels() as f64),
        jain: results.jain_goodput,
        rss_before_kb,
        peak_rss_kb,
        drops: bottleneck.stats.drops,
        timeouts,
        state_bytes,
        output_bytes,
        peak_packets: w.peak_live_packets,
    })
}
