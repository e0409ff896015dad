//! FAST TCP in whole networks (Cui ch. 4): one flow keeps alpha packets queued and fills the
//! line; flows joining one by one settle where the persistent-congestion model (4.19)-(4.20)
//! puts them; under buffer overflow, alpha-adjusting with paced decreases (§4.5) cuts the
//! losses.

mod common;
use common::*;

/// `n` FAST flows h0..h(n-1) -> d over 100 Mb/s access links into r1, the bottleneck r1 -> r2
/// (10 Mb/s, 50 ms, `buffer`), r2 -> d at 100 Mb/s; flow i starts at `gap` x i seconds with
/// `params`. 1000-byte packets: the bottleneck carries 1250 a second, the base RTT is ~101 ms.
fn dumbbell(n: usize, gap: u32, buffer: &str, params: &str, duration: &str) -> String {
    let hosts: Vec<String> = (0..n).map(|i| format!("h{i}")).collect();
    let mut names: Vec<&str> = hosts.iter().map(|s| s.as_str()).collect();
    names.push("d");
    let mut s = ScenarioText::new(duration)
        .measure("5s")
        .str("trace_period", "100ms")
        .raw("trace_queues", list(&["r1->r2"]))
        .nodes(&names, &["r1", "r2"]);
    for h in &hosts {
        s = s.link(h, "r1", "100Mbps").str("delay", "0ms");
    }
    s = s.link("r1", "r2", "10Mbps").str("delay", "50ms").str("buffer", buffer);
    s = s.link("r2", "d", "100Mbps").str("delay", "0ms");
    for (i, h) in hosts.iter().enumerate() {
        s = s.flow(h, "d").str("name", h).str("cc", "fast").str("start", format!("{}s", gap as usize * i)).raw("params", params);
    }
    s.build()
}

/// The mean queue (packets) at r1 -> r2 over [from_s, to_s).
fn mean_queue(r: &ccsim::Results, from_s: f64, to_s: f64) -> f64 {
    let port = r.ports.iter().position(|p| p.name == "r1->r2").unwrap() as u32;
    let q = &r.queue_trace;
    let v: Vec<f64> = (0..q.port.len())
        .filter(|&i| q.port[i] == port && q.time_s[i] >= from_s && q.time_s[i] < to_s)
        .map(|i| q.packets[i] as f64)
        .collect();
    assert!(v.len() >= 10, "{} queue samples", v.len());
    v.iter().sum::<f64>() / v.len() as f64
}

/// A flow's goodput (packets/s) in the interval starting at `from_s`.
fn goodput_at(r: &ccsim::Results, flow: u32, from_s: f64) -> f64 {
    let t = &r.intervals;
    let i = (0..t.len()).find(|&i| t.flow[i] == flow && (t.start_s[i] - from_s).abs() < 1e-9).expect("interval");
    t.goodput_pps[i]
}

#[test]
fn one_fast_flow_fills_the_line_with_alpha_packets_queued() {
    let r = run(&dumbbell(1, 0, "2000pkt", "{ alpha = 50 }", "40s"));
    let f = flow(&r, "h0");
    assert_eq!((f.totals.data_dropped, f.timeouts), (0, 0), "no loss");
    assert!(goodput_at(&r, 0, 30.0) > 1249.0, "fills the line: {}", goodput_at(&r, 0, 30.0));
    let q = mean_queue(&r, 20.0, 40.0);
    assert!((45.0..=55.0).contains(&q), "(4.4): alpha = 50 packets queued, got {q}");
}

/// Three flows 20 s apart (alpha 50, c = 1250 packets/s): (4.19) gives queues of 50, 130.90
/// and 229.96 packets and, with all three, rates 271.8, 347.3 and 630.9 packets/s
/// (`ccsim.models.cui.fast_persistent_congestion(3, 50, 1250)`): each newcomer takes the queue
/// it finds for propagation delay.
#[test]
fn flows_joining_one_by_one_settle_as_the_persistent_congestion_model_says() {
    let r = run(&dumbbell(3, 20, "2000pkt", "{ alpha = 50 }", "80s"));
    for (k, want) in [50.0, 130.90, 229.96].into_iter().enumerate() {
        let start = 20.0 * k as f64;
        let q = mean_queue(&r, start + 12.0, start + 20.0);
        assert!((q - want).abs() <= 0.06 * want, "{} flow(s): queue {q}, model {want}", k + 1);
    }
    for (i, want) in [271.8, 347.3, 630.9].into_iter().enumerate() {
        let x = goodput_at(&r, i as u32, 70.0);
        assert!((x - want).abs() <= 0.06 * want, "flow {i}: {x} packets/s, model {want}");
    }
    // The newest flow's baseRTT is the RTT it first saw: the path's plus the queue of two flows.
    let base = own_final(&r, 2, "base_rtt_s");
    assert!((base - (0.1008 + 130.90 / 1250.0)).abs() < 0.005, "flow 2's baseRTT {base}");
}

/// A buffer below 3 alpha (100 packets for 3 x 50): plain FAST overflows again and again;
/// halving alpha at each overflow with paced decreases (§4.5.2-4.5.3) loses an order of
/// magnitude fewer packets.
#[test]
fn alpha_adjusting_with_paced_decreases_stops_the_repeated_overflows() {
    let plain = run(&dumbbell(3, 20, "100pkt", "{ alpha = 50 }", "120s"));
    let adjusted = run(&dumbbell(3, 20, "100pkt", "{ alpha = 50, alpha_adjust = true, decrease = \"paced\" }", "120s"));
    let drops = |r: &ccsim::Results| r.flows.iter().map(|f| f.totals.data_dropped).sum::<u64>();
    assert!(drops(&plain) > 500, "plain FAST overflows: {} drops", drops(&plain));
    assert!(drops(&adjusted) * 10 < drops(&plain), "{} drops against {}", drops(&adjusted), drops(&plain));
    let alpha = own_final(&adjusted, 0, "alpha");
    assert!((0.5..50.0).contains(&alpha), "alpha halved and relaxing back: {alpha}");
}

/// The last sample of a flow's own trace column.
fn own_final(r: &ccsim::Results, flow: u32, name: &str) -> f64 {
    let t = &r.cwnd_trace;
    let col = t.column(name).unwrap_or_else(|| panic!("no trace column {name}"));
    let i = (0..t.flow.len()).rev().find(|&i| t.flow[i] == flow).expect("samples");
    col[i]
}

/// E4.2 (§4.4.2-4.4.3, Fig. 4.10 case a): N = 5 flows that know the propagation delay (they
/// start together on an empty link) and one newcomer 20 s later, alpha = 50, RTT 200 ms,
/// 100 Mb/s. Pure FAST gives the newcomer the share (4.26) predicts, old/new = 2 / (1 +
/// sqrt(1 + 4N)) = 0.358; with the four-phase algorithm the newcomer drains the queue, learns
/// the true delay, and the shares come out even (the drain takes about 4.16 (N^1.5 + N) ms,
/// well under the 200 ms RTT).
#[test]
fn the_four_phase_algorithm_gives_a_newcomer_an_even_share() {
    let ratio = |drain: bool| {
        let hosts: Vec<String> = (0..6).map(|i| format!("s{i}")).collect();
        let mut names: Vec<&str> = hosts.iter().map(|s| s.as_str()).collect();
        names.push("d");
        let mut s = ScenarioText::new("60s").measure("5s").nodes(&names, &["r1", "r2"]);
        for h in &hosts {
            s = s.link(h, "r1", "1Gbps").str("delay", "0ms");
        }
        s = s.link("r1", "r2", "100Mbps").str("delay", "100ms").str("buffer", "20000pkt");
        s = s.link("r2", "d", "1Gbps").str("delay", "0ms");
        for (i, h) in hosts.iter().enumerate() {
            let new = i == 5;
            s = s
                .flow(h, "d")
                .str("name", if new { "new".to_string() } else { format!("old{i}") })
                .str("cc", "fast")
                .str("start", if new { "20s" } else { "0s" })
                .raw("params", format!("{{ alpha = 50, drain = {drain} }}"));
        }
        let r = run(&s.build());
        let mean = |name: &str| (45..60).step_by(5).map(|t| goodput_at(&r, flow_index(&r, name), t as f64)).sum::<f64>() / 3.0;
        let old = (0..5).map(|i| mean(&format!("old{i}"))).sum::<f64>() / 5.0;
        old / mean("new")
    };
    let pure = ratio(false);
    let drained = ratio(true);
    // Printed for the docs: cargo test --release -p ccsim --test fast -- --nocapture
    eprintln!("four-phase, N = 5: old/new {drained:.3} with the drain, {pure:.3} without");
    let predicted = 2.0 / (1.0 + (21.0f64).sqrt());
    assert!((pure - predicted).abs() <= 0.1 * predicted, "pure FAST: old/new {pure}, (4.26) {predicted}");
    assert!((0.85..=1.15).contains(&drained), "with the four-phase algorithm: old/new {drained}");
}

fn flow_index(r: &ccsim::Results, name: &str) -> u32 {
    r.flows.iter().position(|f| f.name == name).unwrap_or_else(|| panic!("no flow {name}")) as u32
}

/// E4.3-E4.5 (§4.5): two flows with alpha = 800 through a 1590-packet buffer (room for one
/// flow's alpha, not two) at 200 Mb/s, 50 ms; flow 2 joins at 20 s. 0.1 ms of processing
/// jitter at the bottleneck breaks drop-tail's deterministic phase (without it the converged
/// flow's packets always take the freed slot). Plain FAST starves the newcomer (E4.3); with
/// paced decreases and alpha-adjusting both flows see the overflows, their alphas and windows
/// meet and the line is shared evenly with hardly a timeout (E4.5).
#[test]
fn paced_decreases_with_alpha_adjusting_share_an_overflowing_buffer_evenly() {
    let text = |params: &str| {
        let mut s = ScenarioText::new("100s").measure("10s").nodes(&["s1", "s2", "d1", "d2"], &["b1", "b2"]);
        for h in ["s1", "s2"] {
            s = s.link(h, "b1", "400Mbps").str("delay", "0ms");
        }
        s = s.link("b1", "b2", "200Mbps").str("delay", "50ms").str("buffer", "1590pkt").str("jitter", "0.1ms");
        for h in ["d1", "d2"] {
            s = s.link("b2", h, "400Mbps").str("delay", "0ms");
        }
        for (k, start) in [(1, "0s"), (2, "20s")] {
            s = s
                .flow(&format!("s{k}"), &format!("d{k}"))
                .str("name", format!("f{k}"))
                .str("cc", "fast")
                .str("start", start)
                .raw("params", format!("{{ alpha = 800{params} }}"));
        }
        s.build()
    };
    let share = |r: &ccsim::Results| {
        let f = |i: u32| (40..70).step_by(10).map(|t| goodput_at(r, i, t as f64)).sum::<f64>();
        f(1) / (f(0) + f(1))
    };
    let plain = run(&text(""));
    let adjusted = run(&text(", decrease = \"paced\", alpha_adjust = true"));
    let rates = |r: &ccsim::Results| {
        (0..2).map(|i| (40..70).step_by(10).map(|t| goodput_at(r, i, t as f64)).sum::<f64>() / 3.0).collect::<Vec<_>>()
    };
    let drops = |r: &ccsim::Results| r.flows.iter().map(|f| (f.totals.data_dropped, f.timeouts)).collect::<Vec<_>>();
    eprintln!("overflow, 40-70 s: plain {:?} packets/s, (drops, timeouts) {:?}", rates(&plain), drops(&plain));
    eprintln!("overflow, 40-70 s: paced + alpha-adjusting {:?} packets/s, (drops, timeouts) {:?}", rates(&adjusted), drops(&adjusted));
    assert!(share(&plain) < 0.2, "plain FAST starves the newcomer: its share {}", share(&plain));
    assert!((share(&adjusted) - 0.5).abs() < 0.1, "even shares: the newcomer's {}", share(&adjusted));
    let timeouts: u64 = adjusted.flows.iter().map(|f| f.timeouts).sum();
    assert!(timeouts <= 4, "{timeouts} timeouts");
}

#[test]
fn a_drain_factor_below_one_is_an_error_naming_it() {
    let text = dumbbell(1, 0, "100pkt", "{ drain = true, drain_r = 0.5 }", "5s");
    let e = ccsim::run_toml(&text).expect_err("drain_r = 0.5 must be refused");
    assert_eq!(e.path, "flows[0].params.drain_r");
    assert!(e.message.contains("at least 1"), "{}", e.message);
}
