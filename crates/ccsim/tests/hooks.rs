//! The engine hooks the later theses need: control packets from routers to sources (with
//! Source Quench as their first user), per-port statistics per interval, the departure
//! trace, lossy links, traffic classes, the live-packet limit, and route checks.

mod common;

use ccsim::transport::cc::Cc;
use common::{flow, port, run, run_world, ScenarioText};

/// Two sources through one switch to a sink on a slower line with a small buffer.
fn dumbbell(cc: &str, queue: &str, queue_params: &str, buffer: &str, duration: &str) -> ScenarioText {
    ScenarioText::new(duration)
        .table("measure")
        .str("interval", "1s")
        .raw("port_stats", "[\"sw->sink\"]")
        .raw("trace_departures", "[\"sw->sink\"]")
        .nodes(&["a", "b", "sink"], &["sw"])
        .link("a", "sw", "10Mbps")
        .str("delay", "1ms")
        .link("b", "sw", "10Mbps")
        .str("delay", "1ms")
        .link("sw", "sink", "1Mbps")
        .str("delay", "10ms")
        .str("buffer", buffer)
        .str("queue", queue)
        .raw("queue_params", queue_params)
        .flow("a", "sink")
        .str("name", "one")
        .str("cc", cc)
        .raw("max_window", 20)
        .raw("class", 1)
        .flow("b", "sink")
        .str("name", "two")
        .str("cc", cc)
        .raw("max_window", 20)
        .raw("class", 2)
}

#[test]
fn quenches_travel_back_as_control_packets_and_shut_the_window() {
    let text = dumbbell("sq", "sq_router", "{ threshold = 0.5 }", "10pkt", "10s").build();
    let (sc, w) = run_world(&text);
    let r = ccsim::Results::collect(&sc, &w);
    // The windows are shut and reopened: the traced cwnd is 0 at times and 20 at others.
    for (i, name) in ["one", "two"].iter().enumerate() {
        let w: Vec<f64> = common::cwnd_series(&r, i as u32).iter().map(|s| s.1).collect();
        assert!(w.contains(&0.0) && w.contains(&20.0), "{name}: {w:?}");
    }
    let unquenched =
        run(&text.replace("queue = \"sq_router\"", "queue = \"droptail\"").replace("queue_params = { threshold = 0.5 }\n", ""));
    assert!(unquenched.flows.iter().all(|f| f.control.sent == 0));
    for name in ["one", "two"] {
        let f = flow(&r, name);
        assert!(f.control.sent > 0 && f.control.received > 0, "{name}: {:?}", f.control);
        assert_eq!(f.control.sent, f.control.received + f.control.dropped + f.control.unroutable + f.control_in_network);
    }
    // Source Quench is unfair (Liang 1991 §1.2), but the line is used.
    let total: f64 = r.flows.iter().map(|f| f.goodput_pps.mean).sum();
    assert!(total > 30.0, "{total} pkt/s");
    // Every quench raised reached a source's algorithm.
    let raised: u64 = r.flows.iter().map(|f| f.control.received).sum();
    let counted: u64 = w
        .flows
        .iter()
        .map(|f| match &f.sender.as_ref().unwrap().cc {
            Cc::SourceQuench(s) => s.quenches(),
            _ => 0,
        })
        .sum();
    assert_eq!(raised, counted);
}

#[test]
fn a_source_quenched_with_few_packets_out_stalls_unless_it_counts_what_is_outstanding() {
    // Windows of 4: fewer than 10 packets are ever outstanding, so a quench waits for ACKs
    // that cannot come (Liang 1991 §1.2's defect); "outstanding" resumes after 4 at most.
    let stalled = dumbbell("sq", "sq_router", "{ threshold = 0.3 }", "10pkt", "20s").build().replace("max_window = 20", "max_window = 4");
    let r = run(&stalled);
    for name in ["one", "two"] {
        assert!(flow(&r, name).goodput_pps.mean < 1.0, "{name} stalls: {}", flow(&r, name).goodput_pps.mean);
    }
    let resumed = stalled.replace("cc = \"sq\"", "cc = \"sq\"\nparams = { resume = \"outstanding\" }");
    let r = run(&resumed);
    let total: f64 = ["one", "two"].iter().map(|n| flow(&r, n).goodput_pps.mean).sum();
    assert!(total > 100.0, "resumed flows use the line: {total} pkt/s of 125");
}

#[test]
fn control_packets_go_ahead_of_data_and_are_dropped_when_the_buffer_is_full() {
    // Two-way traffic: "back" sends data from sink to a, so the reverse path (sw->a) is
    // congested; quenches for "one" must still arrive, ahead of that queue.
    let text = dumbbell("sq", "sq_router", "{ threshold = 0.5 }", "10pkt", "10s")
        .flow("sink", "a")
        .str("name", "back")
        .str("cc", "newreno")
        .raw("max_window", 40)
        .build()
        .replace(
            "[[links]]\nbetween = [\"a\", \"sw\"]\nbandwidth = \"10Mbps\"",
            "[[links]]\nbetween = [\"a\", \"sw\"]\nbandwidth = \"0.5Mbps\"\nbuffer = \"5pkt\"",
        );
    let r = run(&text);
    let one = flow(&r, "one");
    assert!(one.control.received > 0);
    let reverse = port(&r, "sw->a");
    assert!(reverse.drops > 0, "the reverse queue overflows");
    // Control packets that found that buffer full were dropped and counted at the port.
    assert_eq!(reverse.control_drops + port(&r, "sink->sw").control_drops, one.control.dropped + flow(&r, "two").control.dropped);
}

#[test]
fn port_statistics_per_interval_add_up_to_the_port_totals() {
    let text = dumbbell("newreno", "droptail", "{}", "20pkt", "10s").build();
    let r = run(&text);
    let t = &r.port_intervals;
    assert_eq!(t.len(), 10, "one port, ten intervals");
    let p = port(&r, "sw->sink");
    assert_eq!(t.departures.iter().sum::<u64>(), p.departures);
    assert_eq!(t.drops.iter().sum::<u64>(), p.drops);
    for k in 2..10 {
        assert!(t.utilisation[k] > 0.97, "saturated: {}", t.utilisation[k]);
        assert!(t.mean_queue_packets[k] > 1.0 && t.mean_queue_packets[k] < 20.0, "{}", t.mean_queue_packets[k]);
        assert!((t.mean_queue_bytes[k] / t.mean_queue_packets[k] - 1000.0).abs() < 1.0, "1000-byte packets");
    }
    // No statistics unless asked for.
    let r = run(&text.replace("port_stats = [\"sw->sink\"]\n", ""));
    assert!(r.port_intervals.is_empty());
}

#[test]
fn the_departure_trace_has_every_packet_with_its_class_and_wait() {
    let text = dumbbell("newreno", "droptail", "{}", "20pkt", "5s").build();
    let r = run(&text);
    assert_eq!(r.departures.len(), 1);
    let (p, d) = &r.departures[0];
    assert_eq!(r.ports[*p as usize].name, "sw->sink");
    assert_eq!(d.len() as u64, r.ports[*p as usize].departures);
    assert!(d.wait_s.iter().all(|&w| (0.0..=20.0 * 0.008 + 1e-9).contains(&w)), "at most a full buffer's wait");
    assert!(d.wait_s.iter().any(|&w| w > 0.05), "the queue builds");
    for i in 0..d.len() {
        assert_eq!(d.class[i] as u32, d.flow[i] + 1, "flow one is class 1, two class 2");
    }
}

#[test]
fn a_lossy_link_loses_about_its_probability() {
    let text = ScenarioText::new("100s")
        .measure("10s")
        .nodes(&["a", "b"], &[])
        .link("a", "b", "10Mbps")
        .raw("loss", 0.1)
        .flow("a", "b")
        .str("app", "cbr")
        .str("cc", "none")
        .str("rate", "100pps")
        .build();
    let r = run(&text);
    let f = flow(&r, "flow0");
    let lost = f.totals.data_dropped as f64 / f.totals.sent as f64;
    // 10 000 packets: the share lost is within five standard deviations of 0.1.
    assert!((lost - 0.1).abs() < 5.0 * (0.1 * 0.9 / 10_000f64).sqrt(), "{lost}");
    assert_eq!(port(&r, "a->b").lost, f.totals.data_dropped);
    assert_eq!(run(&text).flows[0].totals.data_dropped, f.totals.data_dropped, "the same seed, the same losses");
}

#[test]
fn the_run_s_packet_memory_is_the_scenarios_to_set() {
    // A 10 000 pkt/s source into a 100 pkt/s line with an unlimited host queue: 1 MiB of packet
    // memory holds 8192 packets (128 bytes each), reached in under a second.
    let text = ScenarioText::new("10s")
        .table("limits")
        .str("packet_memory", "1MiB")
        .measure("1s")
        .nodes(&["a", "b"], &[])
        .link("a", "b", "800kbps")
        .flow("a", "b")
        .str("app", "cbr")
        .str("cc", "none")
        .str("rate", "10000pps")
        .build();
    let e = ccsim::run_toml(&text).unwrap_err();
    assert_eq!(e.path, "flows[0]");
    assert!(e.message.contains("holding 8192 packets") && e.message.contains("limits.packet_memory"), "{}", e.message);
    let e = ccsim::run_toml(&text.replace("packet_memory = \"1MiB\"", "packet_memory = \"1kB\"")).unwrap_err();
    assert_eq!(e.path, "limits.packet_memory");
    // The arena never grows past the limit.
    let (sc, mut w) = {
        let sc = ccsim::Scenario::from_toml_str(&text).unwrap();
        let w = ccsim::scenario::build::build_world(&sc).unwrap();
        (sc, w)
    };
    w.run();
    assert_eq!(w.packets.capacity_used(), sc.limits.live_packets());
    assert!(w.packets.memory_bytes() <= 8192 * 64 + 8192 * 4 + 4096, "{}", w.packets.memory_bytes());
}

#[test]
fn tables_that_would_not_fit_are_refused_before_the_run() {
    // 200 flows measured in 10 us intervals for a second: 2e7 rows, 2.4 GB (issue 18).
    let mut t = ScenarioText::new("1s").table("measure").str("interval", "10us").raw("discard", 0).raw("trace_cwnd", false);
    t = t.nodes(&["a", "b"], &[]).link("a", "b", "10Mbps");
    for i in 0..200 {
        t = t.flow("a", "b").str("name", format!("t{i}")).str("app", "telnet");
    }
    let text = t.build();
    let e = ccsim::Scenario::from_toml_str(&text).and_then(|sc| ccsim::scenario::build::build_world(&sc).map(|_| ())).unwrap_err();
    assert_eq!(e.path, "measure.interval");
    assert!(e.message.contains("limits.table_memory") && e.message.contains("GB"), "{}", e.message);
    // Raised, it builds.
    let raised = text.replace("duration = \"1s\"\n", "duration = \"1s\"\n[limits]\ntable_memory = \"4GB\"\n");
    let sc = ccsim::Scenario::from_toml_str(&raised).unwrap();
    assert!(ccsim::scenario::build::build_world(&sc).is_ok());
}

#[test]
fn explicit_routes_visit_each_node_once_and_forward_only_through_switches() {
    let base = ScenarioText::new("1s")
        .nodes(&["a", "b", "h"], &["s1", "s2"])
        .link("a", "s1", "1Mbps")
        .link("s1", "s2", "1Mbps")
        .link("s2", "b", "1Mbps")
        .link("s1", "h", "1Mbps")
        .link("h", "s2", "1Mbps")
        .flow("a", "b");
    let twice = base.raw("route", "[\"a\", \"s1\", \"s2\", \"s1\", \"s2\", \"b\"]").build();
    let e = ccsim::Scenario::from_toml_str(&twice).unwrap_err();
    assert_eq!(e.path, "flows[0].route[3]");
    assert!(e.message.contains("appears twice"), "{}", e.message);
    let base = ScenarioText::new("1s")
        .nodes(&["a", "b", "h"], &["s1", "s2"])
        .link("a", "s1", "1Mbps")
        .link("s1", "h", "1Mbps")
        .link("h", "s2", "1Mbps")
        .link("s2", "b", "1Mbps")
        .flow("a", "b");
    let via_host = base.raw("route", "[\"a\", \"s1\", \"h\", \"s2\", \"b\"]").build();
    let e = ccsim::Scenario::from_toml_str(&via_host).unwrap_err();
    assert_eq!(e.path, "flows[0].route[2]");
    assert!(e.message.contains("hosts do not forward"), "{}", e.message);
    // Without an explicit route there is none: the only path passes through a host.
    let text = ScenarioText::new("1s")
        .nodes(&["a", "b", "h"], &["s1", "s2"])
        .link("a", "s1", "1Mbps")
        .link("s1", "h", "1Mbps")
        .link("h", "s2", "1Mbps")
        .link("s2", "b", "1Mbps")
        .flow("a", "b")
        .build();
    assert!(ccsim::run_toml(&text).unwrap_err().message.contains("no route"));
}

#[test]
fn control_packets_cross_ports_whose_disciplines_follow_their_line() {
    // Quenches for "one" return over a->sw's reverse port, a DECbit gateway (then RED): both
    // model their line (DECbit's regeneration cycles, RED's idle time) and must count the
    // line time a control packet takes (a debug build asserts DECbit's line state).
    for queue in ["decbit", "red"] {
        let text = ScenarioText::new("20s")
            .measure("2s")
            .nodes(&["a", "sink"], &["sw"])
            .link("a", "sw", "2Mbps")
            .str("queue", queue)
            .str("buffer", "10pkt")
            .link("sw", "sink", "1Mbps")
            .str("delay", "10ms")
            .str("buffer", "10pkt")
            .str("queue", "sq_router")
            .flow("a", "sink")
            .str("name", "one")
            .str("cc", "sq")
            .raw("max_window", 20)
            .flow("sink", "a")
            .str("name", "back")
            .str("cc", "newreno")
            .raw("max_window", 40)
            .build();
        let r = run(&text);
        assert!(flow(&r, "one").control.received > 0, "{queue}");
        assert!(flow(&r, "back").totals.delivered > 0, "{queue}: the reverse traffic flows");
    }
}
