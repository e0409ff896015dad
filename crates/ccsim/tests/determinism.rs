//! Determinism: a run is a pure function of its scenario and seed.

mod common;
use ccsim::measure::IntervalTable;
use ccsim::Results;
use common::*;

fn bits(v: &[f64]) -> Vec<u64> {
    v.iter().map(|x| x.to_bits()).collect()
}

fn assert_same_intervals(a: &IntervalTable, b: &IntervalTable) {
    assert_eq!(a.len(), b.len());
    assert_eq!(a.flow, b.flow);
    assert_eq!(a.interval, b.interval);
    assert_eq!(bits(&a.start_s), bits(&b.start_s));
    assert_eq!(bits(&a.end_s), bits(&b.end_s));
    assert_eq!(bits(&a.goodput_pps), bits(&b.goodput_pps));
    assert_eq!(bits(&a.goodput_bps), bits(&b.goodput_bps));
    assert_eq!(bits(&a.delay_s), bits(&b.delay_s));
    assert_eq!(a.delay_samples, b.delay_samples);
    assert_eq!(bits(&a.owd_s), bits(&b.owd_s));
    assert_eq!(bits(&a.drop_rate), bits(&b.drop_rate));
    assert_eq!(bits(&a.retx_rate), bits(&b.retx_rate));
    assert_eq!(a.sent, b.sent);
    assert_eq!(a.delivered, b.delivered);
    assert_eq!(a.drops, b.drops);
    assert_eq!(a.retransmitted, b.retransmitted);
}

fn assert_identical(a: &Results, b: &Results) {
    assert_same_intervals(&a.intervals, &b.intervals);
    assert_eq!(a.flows.len(), b.flows.len());
    for (x, y) in a.flows.iter().zip(&b.flows) {
        let (s, t) = (&x.totals, &y.totals);
        assert_eq!(
            (s.sent, s.retransmitted, s.delivered, s.delivered_bytes, s.received, s.data_dropped),
            (t.sent, t.retransmitted, t.delivered, t.delivered_bytes, t.received, t.data_dropped),
            "flow {}",
            x.name
        );
        assert_eq!(
            (s.acks_sent, s.acks_received, s.acks_dropped, s.rtt_n, s.owd_n),
            (t.acks_sent, t.acks_received, t.acks_dropped, t.rtt_n, t.owd_n)
        );
        assert_eq!((s.rtt_sum.to_bits(), s.owd_sum.to_bits()), (t.rtt_sum.to_bits(), t.owd_sum.to_bits()));
        assert_eq!(x.timeouts, y.timeouts);
        assert_eq!(x.final_cwnd.to_bits(), y.final_cwnd.to_bits());
    }
    assert_eq!(bits(&a.cwnd_trace.cwnd), bits(&b.cwnd_trace.cwnd));
    assert_eq!(a.queue_trace.packets, b.queue_trace.packets);
    assert_eq!(a.events, b.events);
    // And everything else the results hold.
    assert_eq!(format!("{a:?}"), format!("{b:?}"));
}

#[test]
fn same_scenario_and_seed_give_identical_results() {
    let text = keshav_s1("1000s", 1);
    let a = run(&text);
    let b = run(&text);
    assert!(a.intervals.len() == 16, "4 flows x 4 intervals");
    assert_identical(&a, &b);
}

#[test]
fn building_the_world_directly_gives_the_same_results() {
    let text = keshav_s1("500s", 7);
    let a = run(&text);
    let (sc, w) = run_world(&text);
    let b = Results::collect(&sc, &w);
    assert_identical(&a, &b);
}

#[test]
fn a_different_seed_changes_the_telnet_timings() {
    let a = run(&keshav_s1("1000s", 1));
    let b = run(&keshav_s1("1000s", 2));
    assert_eq!(a.seed, 1);
    assert_eq!(b.seed, 2);
    // The Telnets' keystrokes are random: their counts and their interval rows differ.
    let telnets: Vec<usize> = a.flows.iter().enumerate().filter(|(_, f)| f.app == "telnet").map(|(i, _)| i).collect();
    assert_eq!(telnets.len(), 2);
    for &i in &telnets {
        let rows = |r: &Results| -> Vec<(u64, u64)> {
            (0..r.intervals.len())
                .filter(|&k| r.intervals.flow[k] == i as u32)
                .map(|k| (r.intervals.sent[k], r.intervals.delay_s[k].to_bits()))
                .collect()
        };
        assert_ne!(rows(&a), rows(&b), "telnet {} interval rows identical under seeds 1 and 2", a.flows[i].name);
    }
    let delivered = |r: &Results| -> Vec<u64> { telnets.iter().map(|&i| r.flows[i].totals.delivered).collect() };
    assert_ne!(delivered(&a), delivered(&b), "telnet delivered counts identical under seeds 1 and 2");
    assert_ne!(a.events, b.events);
    // The deterministic FTPs are only perturbed, not changed in kind.
    for f in a.flows.iter().chain(&b.flows).filter(|f| f.app == "ftp") {
        assert!((f.goodput_pps.mean - 4.99).abs() < 0.05);
    }
}

#[test]
fn lossy_mixed_traffic_is_deterministic() {
    // Drops, retransmissions, timeouts, Poisson cross traffic: still bit-identical.
    let text = ScenarioText::new("60s")
        .raw("seed", 42)
        .measure("10s")
        .str("trace_period", "10ms")
        .str("trace_queues", "all")
        .nodes(&["a", "c", "p", "b"], &["sw"])
        .link("a", "sw", "10Mbps")
        .str("delay", "1ms")
        .link("c", "sw", "10Mbps")
        .str("delay", "7ms")
        .link("p", "sw", "10Mbps")
        .link("sw", "b", "2Mbps")
        .str("delay", "20ms")
        .str("buffer", "15pkt")
        .flow("a", "b")
        .str("name", "reno")
        .str("cc", "reno")
        .flow("c", "b")
        .str("name", "newreno")
        .str("cc", "newreno")
        .str("start", "0.3s")
        .flow("a", "b")
        .str("name", "jk")
        .str("cc", "jk")
        .str("start", "1s")
        .flow("p", "b")
        .str("name", "poisson")
        .str("app", "poisson")
        .str("rate", "40pps")
        .build();
    let a = run(&text);
    let b = run(&text);
    assert!(a.flows.iter().map(|f| f.totals.data_dropped).sum::<u64>() > 50, "the scenario should be lossy");
    assert!(a.flows.iter().any(|f| f.totals.retransmitted > 0));
    assert_identical(&a, &b);
    // A different seed moves the Poisson source and, through the shared queue, everyone.
    let c = run(&text.replace("seed = 42", "seed = 43"));
    assert_ne!(format!("{:?}", a.intervals), format!("{:?}", c.intervals));
}
