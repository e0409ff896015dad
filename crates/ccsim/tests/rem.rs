//! REM in whole networks (`queue = "rem"`): ADPM's deterministic marks carry the largest
//! marking probability on a path to the receiver (Cui ch. 5), and REM's price keeps the queue
//! near its target b* while the line stays full (Athuraliya et al. 2001).

mod common;
use common::*;

/// REM's price for a marking probability m: 1 - 1.001^-p = m.
fn price_for(m: f64) -> f64 {
    -(1.0 - m).ln() / 1.001f64.ln()
}

/// A chain h1 -> n1 -> n2 -> n3 -> d of 10 Mb/s links whose n1 -> n2 and n2 -> n3 run REM with
/// fixed prices (gamma 0) and ADPM marks; flow "long" crosses both, "short" only the first
/// (entering at n1, leaving at n2 for d2).
fn chain(m1: f64, m2: f64) -> String {
    let rem = |m: f64| format!("{{ signal = \"adpm\", gamma = 0, initial_price = {} }}", price_for(m));
    ScenarioText::new("20s")
        .measure("5s")
        .nodes(&["h1", "h2", "d", "d2"], &["n1", "n2", "n3"])
        .link("h1", "n1", "100Mbps")
        .link("h2", "n1", "100Mbps")
        .link("n1", "n2", "10Mbps")
        .str("delay", "10ms")
        .str("queue", "rem")
        .raw("queue_params", rem(m1))
        .link("n2", "n3", "10Mbps")
        .str("delay", "10ms")
        .str("queue", "rem")
        .raw("queue_params", rem(m2))
        .link("n3", "d", "100Mbps")
        .link("n2", "d2", "100Mbps")
        .flow("h1", "d")
        .str("name", "long")
        .str("cc", "newreno")
        .raw("max_window", 20)
        .flow("h2", "d2")
        .str("name", "short")
        .str("cc", "newreno")
        .raw("max_window", 20)
        .build()
}

#[test]
fn adpm_marks_carry_the_largest_price_on_the_path_to_the_receiver() {
    let r = run(&chain(0.2, 0.45));
    let long = flow(&r, "long").price_estimate;
    let short = flow(&r, "short").price_estimate;
    // Thousands of packets of bit-reversed counting: the estimate is within 2^-16 below the
    // probability (pure BRC from sequence 0, §5.2.2).
    eprintln!("adpm: long path (0.2, 0.45) reads {long:.6}, short path (0.2) {short:.6}");
    assert!(long <= 0.45 && 0.45 - long < 1e-4, "the path's largest probability, 0.45: {long}");
    assert!(short <= 0.2 && 0.2 - short < 1e-4, "one link: 0.2: {short}");
    assert!(port(&r, "n1->n2").marks > 0);
    assert_conserved(&r);
    // The order of the links does not matter: the maximum, not the last or the sum.
    let r = run(&chain(0.45, 0.2));
    assert!((flow(&r, "long").price_estimate - 0.45).abs() < 1e-4);
}

#[test]
fn without_adpm_routers_the_estimate_stays_zero() {
    let text = chain(0.2, 0.45).replace("signal = \"adpm\"", "signal = \"none\"");
    let r = run(&text);
    assert_eq!(flow(&r, "long").price_estimate, 0.0);
    assert_eq!(port(&r, "n1->n2").marks, 0);
}

/// A constant 1500 packets/s (12 Mb/s) into a 10 Mb/s line (1000-byte packets, a 1000-packet buffer) under
/// REM dropping with probability 1 - phi^-p (defaults: gamma 0.001, alpha 0.1, b* 20, 2 ms).
/// REM's equilibrium: the price rises until the line takes exactly what it can send (x = c)
/// with b* waiting, so a sixth of the arrivals are dropped (p = 182, m = 1/6) and the queue
/// wanders about 20 packets. With these defaults at this rate the law is slow: the start's
/// queue drives the price to about 350 within 20 s, and it takes some 180 s to come back.
#[test]
fn rem_settles_at_the_target_backlog_with_the_line_full() {
    let text = ScenarioText::new("600s")
        .measure("20s")
        .raw("discard", 15)
        .str("trace_period", "10ms")
        .raw("trace_queues", list(&["r1->r2"]))
        .nodes(&["a", "d"], &["r1", "r2"])
        .link("a", "r1", "100Mbps")
        .link("r1", "r2", "10Mbps")
        .str("delay", "10ms")
        .str("buffer", "1000pkt")
        .str("queue", "rem")
        .link("r2", "d", "100Mbps")
        .flow("a", "d")
        .str("name", "cbr")
        .str("app", "cbr")
        .str("rate", "1500pps")
        .str("cc", "none")
        .str("packet_size", "1000B")
        .build();
    let r = run(&text);
    let p = port(&r, "r1->r2");
    let pid = r.ports.iter().position(|q| q.name == "r1->r2").unwrap() as u32;
    let q = &r.queue_trace;
    let tail: Vec<f64> = (0..q.time_s.len()).filter(|&i| q.port[i] == pid && q.time_s[i] >= 300.0).map(|i| q.packets[i] as f64).collect();
    let mean_queue = tail.iter().sum::<f64>() / tail.len() as f64;
    // Over the measured 300-600 s: drops a second, of 1500 arrivals a second.
    let dropped = flow(&r, "cbr").drop_rate.mean / 1500.0;
    eprintln!("rem: mean queue {mean_queue:.1} packets over 300-600 s (b* = 20), drops {dropped:.4} of arrivals (1/6 = 0.1667), utilisation {:.4}", p.utilisation);
    assert!((10.0..=40.0).contains(&mean_queue), "REM's equilibrium backlog is b*: {mean_queue}");
    assert!((dropped - 1.0 / 6.0).abs() < 0.01, "{dropped}");
    assert!(p.max_queue_packets < 1000, "REM's drops, not the buffer's");
}
