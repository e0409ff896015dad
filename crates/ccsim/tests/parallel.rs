//! One scenario on two threads (`[parallel]`, issue 22): the same results as one thread on the
//! networks below, interruption and a full arena handled across the two sides, and the errors
//! for scenarios that cannot be split.

mod common;
use ccsim::ScenarioError;
use common::*;

/// A small version of Cui's chapter-3 network: 24 NewReno flows (every other one paced) from
/// hosts behind two edge routers (1 Gb/s each into the switch), out over a 4-channel trunk (100 Mb/s a channel) with 6 shared
/// buffer places to the sink; RTTs 20-66 ms; one more flow the other way (d to h0, from 1.1 s), so a sender
/// sits on each side of the cut. Intervals of 0.5 s, the trunk measured. `extra` is appended
/// (the `[parallel]` table).
fn small_cui(extra: &str) -> String {
    let hosts: Vec<String> = (0..24).map(|i| format!("h{i}")).chain(["d".to_string()]).collect();
    let names: Vec<&str> = hosts.iter().map(String::as_str).collect();
    let mut s = ScenarioText::new("6s")
        .raw("seed", 4)
        .measure("0.5s")
        .raw("discard", 2)
        .str("trace_cwnd", "none")
        .str("trace_queues", "none")
        .raw("port_stats", list(&["sw->d", "e1->sw"]))
        .raw("trace_departures", list(&["sw->d"]))
        .nodes(&names, &["e1", "e2", "sw"]);
    for (i, h) in names[..24].iter().enumerate() {
        let edge = if i % 2 == 0 { "e1" } else { "e2" };
        s = s.link(h, edge, "100Mbps").str("delay", format!("{}ms", 8 + i)).str("buffer", "unlimited");
    }
    for e in ["e1", "e2"] {
        s = s.link(e, "sw", "1Gbps").str("delay", "1ms").str("buffer", "unlimited");
    }
    s = s.link("sw", "d", "100Mbps").raw("channels", 4).str("buffer", "6pkt").str("delay", "1ms");
    for (i, h) in names[..24].iter().enumerate() {
        s = s.flow(h, "d").str("cc", "newreno").str("packet_size", "1040B").str("ack_size", "40B").raw("max_window", 10_000);
        if i % 2 == 1 {
            s = s.raw("params", "{ pacing = true }");
        }
    }
    s = s.flow("d", "h0").str("cc", "newreno").str("start", "1.1s");
    s.build() + extra
}

fn same(a: &ccsim::Results, b: &ccsim::Results) {
    let (x, y) = (&a.intervals, &b.intervals);
    for (name, u, v) in [
        ("sent", &x.sent, &y.sent),
        ("delivered", &x.delivered, &y.delivered),
        ("drops", &x.drops, &y.drops),
        ("retx", &x.retransmitted, &y.retransmitted),
    ] {
        if let Some(i) = (0..u.len()).find(|&i| u[i] != v[i]) {
            panic!("intervals.{name} differ first at row {i} (flow {}, interval {}): {} against {}", x.flow[i], x.interval[i], u[i], v[i]);
        }
    }
    assert_eq!(format!("{:?}", a.flows), format!("{:?}", b.flows));
    assert_eq!(format!("{:?}", a.ports), format!("{:?}", b.ports));
    assert_eq!(format!("{:?}", a.intervals), format!("{:?}", b.intervals));
    assert_eq!(format!("{:?}", a.port_intervals), format!("{:?}", b.port_intervals));
    assert_eq!(a.events, b.events);
    // The trunk's departure log, kept by the thread that owns the trunk.
    assert!(!a.departures.is_empty());
    assert_eq!(format!("{:?}", a.departures), format!("{:?}", b.departures));
}

#[test]
fn two_threads_give_the_one_thread_results_on_this_network() {
    let serial = run(&small_cui(""));
    assert!(serial.ports.iter().any(|p| p.name == "sw->d" && p.drops > 0), "the trunk is congested");
    // The cut at the switch's inputs (lookahead 1 ms) and at the access links (8 ms and more).
    let at_switch = run(&small_cui("[parallel]\nsecond = [\"sw\", \"d\"]\n"));
    same(&serial, &at_switch);
    let at_access = run(&small_cui("[parallel]\nsecond = [\"e1\", \"e2\", \"sw\", \"d\"]\n"));
    same(&serial, &at_access);
    // The flow from d is sent on the second side and its totals come back whole.
    let back = serial.flows.iter().find(|f| f.src == "d").expect("the reverse flow");
    assert!(back.totals.delivered > 0);
}

#[test]
fn a_parallel_run_driven_in_slices_stops_where_asked_and_keeps_what_it_measured() {
    let sc = ccsim::Scenario::from_toml_str(&small_cui("[parallel]\nsecond = [\"sw\", \"d\"]\n")).unwrap();
    let mut sim = ccsim::Simulation::new(sc).unwrap();
    // Advance until about 2 simulated seconds, then stop.
    while sim.world().now < ccsim::sim::time::from_secs(2.0) {
        assert!(!sim.advance_for(std::time::Duration::from_millis(1)));
    }
    sim.stop();
    let r = sim.finish().unwrap();
    assert!(r.interrupted);
    assert!(r.duration_s > 1.9 && r.duration_s < 2.1, "{}", r.duration_s);
    assert_conserved(&r);
    assert_eq!(r.intervals.interval.iter().max().copied(), Some(3), "intervals closed before the stop: 4");
}

#[test]
fn a_full_arena_on_either_side_stops_both_with_the_flows_error() {
    // A 10^5 pkt/s source on the first side (h2) floods its host's unlimited queue; the limit is
    // 1 MiB of packet memory (8192 packets per side).
    let text = small_cui("[parallel]\nsecond = [\"sw\", \"d\"]\n")
        .replacen("[measure]", "[limits]\npacket_memory = \"1MiB\"\n[measure]", 1)
        .replacen(
            "src = \"h2\"\ndst = \"d\"\ncc = \"newreno\"",
            "src = \"h2\"\ndst = \"d\"\ncc = \"none\"\napp = \"cbr\"\nrate = \"100000pps\"",
            1,
        );
    let e = ccsim::run_toml(&text).unwrap_err();
    assert_eq!(e.path, "flows[2]", "{}", e.message);
    assert!(e.message.contains("limits.packet_memory"), "{}", e.message);
}

fn err(text: &str) -> ScenarioError {
    ccsim::run_toml(text).expect_err("an error")
}

#[test]
fn scenarios_that_cannot_be_split_are_refused_naming_the_field() {
    let e = err(&small_cui("[parallel]\nsecond = [\"sw\", \"nowhere\"]\n"));
    assert_eq!(e.path, "parallel.second[1]");
    assert!(e.message.contains("no node named \"nowhere\""), "{}", e.message);
    let e = err(&small_cui("[parallel]\n"));
    assert_eq!(e.path, "parallel.second");
    let zero = small_cui("[parallel]\nsecond = [\"sw\", \"d\"]\n").replacen(
        "between = [\"e1\", \"sw\"]\nbandwidth = \"1Gbps\"\ndelay = \"1ms\"",
        "between = [\"e1\", \"sw\"]\nbandwidth = \"1Gbps\"\ndelay = \"0ms\"",
        1,
    );
    let e = err(&zero);
    assert_eq!(e.path, "links[24].delay", "{}", e.message);
    let traced = small_cui("[parallel]\nsecond = [\"sw\", \"d\"]\n").replace("trace_cwnd = \"none\"", "trace_cwnd = \"all\"");
    assert_eq!(err(&traced).path, "measure.trace_cwnd");
    // Left to their defaults, the traces are off in a parallel run (on in a serial one).
    let defaults = small_cui("[parallel]\nsecond = [\"sw\", \"d\"]\n").replace("trace_cwnd = \"none\"\ntrace_queues = \"none\"\n", "");
    assert!(!defaults.contains("trace_cwnd") && !defaults.contains("trace_queues"));
    let r = run(&defaults);
    assert!(r.cwnd_trace.flow.is_empty() && r.queue_trace.port.is_empty());
    let all: Vec<String> = (0..24).map(|i| format!("\"h{i}\"")).chain(["\"d\"", "\"e1\"", "\"e2\"", "\"sw\""].map(String::from)).collect();
    let e = err(&small_cui(&format!("[parallel]\nsecond = [{}]\n", all.join(", "))));
    assert_eq!(e.path, "parallel.second");
    // Nagle's rule keeps its packets' sizes at the sender, which the sink reads.
    let coalescing = small_cui("[parallel]\nsecond = [\"sw\", \"d\"]\n").replacen(
        "start = \"1.1s\"",
        "start = \"1.1s\"\napp = \"telnet\"\npacket_size = \"41B\"\nnagle = true",
        1,
    );
    let e = err(&coalescing);
    assert_eq!(e.path, "flows[24].nagle", "{}", e.message);
}

#[test]
fn what_a_source_did_on_the_second_thread_comes_back_with_its_flow() {
    // Telnet flows under Nagle's rule and a Poisson source with no room to wait, on both sides
    // of a cut between r1 and r2: their writes, held data and discards come back whole.
    let mut s = ScenarioText::new("30s")
        .raw("seed", 2)
        .measure("5s")
        .str("trace_cwnd", "none")
        .str("trace_queues", "none")
        .nodes(&["a", "b", "c", "d"], &["r1", "r2"])
        .link("a", "r1", "10Mbps")
        .link("b", "r1", "10Mbps")
        .link("r1", "r2", "1Mbps")
        .str("delay", "20ms")
        .link("c", "r2", "10Mbps")
        .link("d", "r2", "64kbps")
        .str("delay", "50ms");
    for (src, dst) in [("a", "b"), ("c", "d")] {
        s = s.flow(src, dst).str("name", format!("nagle-{src}")).str("app", "telnet").str("mean_gap", "30ms").raw("nagle", true);
        s = s.flow(src, dst).str("name", format!("poisson-{src}")).str("app", "poisson").str("cc", "jk").raw("max_window", 2);
        s = s.str("rate", "20pps").str("packet_size", "500B").raw("source_buffer", 0);
    }
    let text = s.build();
    let serial = run(&text);
    let parallel = run(&(text + "[parallel]\nsecond = [\"r2\", \"c\", \"d\"]\n"));
    for f in &serial.flows {
        let g = parallel.flows.iter().find(|g| g.name == f.name).unwrap();
        let counts = |x: &ccsim::results::FlowSummary| (x.nagle_writes, x.nagle_held_bytes, x.source_discards, x.totals.delivered_bytes);
        eprintln!("{}: {:?} against {:?}", f.name, counts(f), counts(g));
        assert_eq!(counts(f), counts(g), "{}", f.name);
    }
    let flow = |name: &str| serial.flows.iter().find(|f| f.name == name).unwrap();
    assert!(flow("nagle-c").nagle_writes > 500 && flow("poisson-c").source_discards > 0);
}
