//! Helpers shared by the integration tests.
#![allow(dead_code)]

use ccsim::scenario::build::build_world;
use ccsim::world::World;
use ccsim::{Results, Scenario};
use std::fmt::Display;

/// Scenario TOML text, written a table at a time. `new` starts the text with the run's
/// duration; `table`, `measure`, `nodes`, `link` and `flow` each open a table; `str` and `raw`
/// add one key to the table opened last (top-level keys go before the first table). Each call
/// appends whole lines, so
///
/// ```text
/// ScenarioText::new("5s").measure("1s").nodes(&["a", "b"], &[]).link("a", "b", "1Mbps").str("delay", "10ms").build()
/// ```
///
/// is the text
///
/// ```text
/// duration = "5s"
/// [measure]
/// interval = "1s"
/// [nodes]
/// hosts = ["a", "b"]
/// [[links]]
/// between = ["a", "b"]
/// bandwidth = "1Mbps"
/// delay = "10ms"
/// ```
pub struct ScenarioText(String);

impl ScenarioText {
    /// The line `duration = "{duration}"`.
    pub fn new(duration: &str) -> Self {
        ScenarioText(String::new()).str("duration", duration)
    }

    /// The line `key = "value"`: a string value.
    pub fn str(self, key: &str, value: impl Display) -> Self {
        self.raw(key, format!("\"{value}\""))
    }

    /// The line `key = value`, the value written as given (a number, a boolean, a list or an
    /// inline table).
    pub fn raw(self, key: &str, value: impl Display) -> Self {
        self.line(&format!("{key} = {value}"))
    }

    /// The header line `[name]` of a table.
    pub fn table(self, name: &str) -> Self {
        self.line(&format!("[{name}]"))
    }

    /// `[measure]` with `interval = "{interval}"`.
    pub fn measure(self, interval: &str) -> Self {
        self.table("measure").str("interval", interval)
    }

    /// `[nodes]` with `hosts = [...]`, and `switches = [...]` unless `switches` is empty.
    pub fn nodes(self, hosts: &[&str], switches: &[&str]) -> Self {
        let s = self.table("nodes").raw("hosts", list(hosts));
        if switches.is_empty() {
            s
        } else {
            s.raw("switches", list(switches))
        }
    }

    /// `[[links]]` with `between = ["{a}", "{b}"]` and `bandwidth = "{bandwidth}"`.
    pub fn link(self, a: &str, b: &str, bandwidth: &str) -> Self {
        self.line("[[links]]").raw("between", list(&[a, b])).str("bandwidth", bandwidth)
    }

    /// `[[flows]]` with `src = "{src}"` and `dst = "{dst}"`.
    pub fn flow(self, src: &str, dst: &str) -> Self {
        self.line("[[flows]]").str("src", src).str("dst", dst)
    }

    /// The text.
    pub fn build(self) -> String {
        self.0
    }

    fn line(mut self, line: &str) -> Self {
        self.0 += line;
        self.0.push('\n');
        self
    }
}

/// A TOML list of strings: `["a", "b"]`.
pub fn list(items: &[&str]) -> String {
    let quoted: Vec<String> = items.iter().map(|s| format!("\"{s}\"")).collect();
    format!("[{}]", quoted.join(", "))
}

/// Parse, validate and run TOML text, panicking with the scenario error if it is rejected.
/// Every run is checked for packet conservation before it is returned.
pub fn run(text: &str) -> Results {
    let r = ccsim::run_toml(text).unwrap_or_else(|e| panic!("scenario rejected: {e}\n{text}"));
    assert_conserved(&r);
    r
}

/// Build the world of a scenario and run it to the end, returning the scenario (for
/// `Results::collect`) and the world (for inspecting senders and ports). Conservation is
/// checked before returning.
pub fn run_world(text: &str) -> (Scenario, World) {
    let sc = Scenario::from_toml_str(text).unwrap_or_else(|e| panic!("scenario rejected: {e}"));
    let mut w = build_world(&sc).unwrap_or_else(|e| panic!("build failed: {e}"));
    w.run();
    let r = Results::collect(&sc, &w);
    assert_conserved(&r);
    (sc, w)
}

/// Packet conservation, checked both through the engine's own flag and explicitly from the
/// totals: every data packet sent was received, dropped or is still in the network, and the
/// same for ACKs. Port drop counters must match the flows' drop counters.
pub fn assert_conserved(r: &Results) {
    for f in &r.flows {
        let t = &f.totals;
        assert_eq!(
            t.sent,
            t.received + t.data_dropped + f.data_in_network,
            "flow {:?}: data sent {} != received {} + dropped {} + in network {}",
            f.name,
            t.sent,
            t.received,
            t.data_dropped,
            f.data_in_network
        );
        assert_eq!(
            t.acks_sent,
            t.acks_received + t.acks_dropped + f.acks_in_network,
            "flow {:?}: ACKs sent {} != received {} + dropped {} + in network {}",
            f.name,
            t.acks_sent,
            t.acks_received,
            t.acks_dropped,
            f.acks_in_network
        );
        assert!(t.retransmitted <= t.sent, "flow {:?}: more retransmissions than sends", f.name);
        assert!(t.delivered <= t.received, "flow {:?}: more deliveries than receptions", f.name);
        assert!(f.conserved, "flow {:?}: conserved flag false", f.name);
    }
    let flow_drops: u64 = r.flows.iter().map(|f| f.totals.data_dropped + f.totals.acks_dropped + f.control.dropped).sum();
    let port_drops: u64 = r.ports.iter().map(|p| p.drops + p.control_drops + p.lost).sum();
    assert_eq!(flow_drops, port_drops, "drops counted by flows and by ports differ");
    assert!(r.conserved, "Results::conserved is false");
}

/// One flow `f` (`cc` with `params`) after a slow-start overshoot: a 100 Mb/s, 20 ms bottleneck
/// with a 350-packet drop-tail buffer, 1 Gb/s, 0.5 ms access links (RTT 42 ms), packets of
/// `packet_bytes` (40 of them headers), 40-B ACKs, an unlimited receiver window, `secs` long and
/// measured as one interval. tests/newreno_ns2.rs and tests/sack.rs.
pub fn overshoot(cc: &str, params: &str, packet_bytes: u64, secs: u32) -> String {
    ScenarioText::new(&format!("{secs}s"))
        .str("name", "overshoot")
        .measure(&format!("{secs}s"))
        .raw("discard", 0)
        .str("trace_cwnd", "none")
        .nodes(&["s", "r"], &["left", "right"])
        .link("s", "left", "1Gbps")
        .str("delay", "0.5ms")
        .str("buffer", "10000pkt")
        .link("left", "right", "100Mbps")
        .str("delay", "20ms")
        .str("buffer", "350pkt")
        .link("right", "r", "1Gbps")
        .str("delay", "0.5ms")
        .str("buffer", "10000pkt")
        .flow("s", "r")
        .str("name", "f")
        .str("cc", cc)
        .raw("max_window", 100_000_000)
        .str("packet_size", format!("{packet_bytes}B"))
        .str("ack_size", "40B")
        .raw("params", format!("{{ {params} }}"))
        .build()
}

/// The (time, cwnd, ssthresh) samples of one flow's cwnd trace.
pub fn cwnd_series(r: &Results, flow: u32) -> Vec<(f64, f64, f64)> {
    let t = &r.cwnd_trace;
    (0..t.flow.len()).filter(|&i| t.flow[i] == flow).map(|i| (t.time_s[i], t.cwnd[i], t.ssthresh[i])).collect()
}

pub fn flow<'a>(r: &'a Results, name: &str) -> &'a ccsim::results::FlowSummary {
    r.flows.iter().find(|f| f.name == name).unwrap_or_else(|| panic!("no flow {name:?}"))
}

pub fn port<'a>(r: &'a Results, name: &str) -> &'a ccsim::results::PortSummary {
    r.ports
        .iter()
        .find(|p| p.name == name)
        .unwrap_or_else(|| panic!("no port {name:?}; ports: {:?}", r.ports.iter().map(|p| &p.name).collect::<Vec<_>>()))
}

/// The Keshav Scenario 1 example file, with its duration replaced.
pub fn keshav_s1(duration: &str, seed: u64) -> String {
    let text = include_str!("../../../../scenarios/examples/keshav-s1-jk-fcfs.toml");
    let mut out = String::new();
    for line in text.lines() {
        if line.starts_with("duration =") {
            out.push_str(&format!("duration = \"{duration}\"\n"));
        } else if line.starts_with("seed =") {
            out.push_str(&format!("seed = {seed}\n"));
        } else {
            out.push_str(line);
            out.push('\n');
        }
    }
    assert!(out.contains(&format!("duration = \"{duration}\"")), "example file has no duration line");
    out
}
