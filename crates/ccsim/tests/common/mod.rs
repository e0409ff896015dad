//! Helpers shared by the integration tests.
#![allow(dead_code)]

use ccsim::scenario::build::build_world;
use ccsim::world::World;
use ccsim::{Results, Scenario};

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
    let flow_drops: u64 = r.flows.iter().map(|f| f.totals.data_dropped + f.totals.acks_dropped).sum();
    let port_drops: u64 = r.ports.iter().map(|p| p.drops).sum();
    assert_eq!(flow_drops, port_drops, "drops counted by flows and by ports differ");
    assert!(r.conserved, "Results::conserved is false");
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
    r.ports.iter().find(|p| p.name == name).unwrap_or_else(|| panic!("no port {name:?}; ports: {:?}", r.ports.iter().map(|p| &p.name).collect::<Vec<_>>()))
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
