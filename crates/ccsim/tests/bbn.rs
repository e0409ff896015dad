//! BBN's ration scheme end to end (queue/bbn.rs, world/rations.rs; Liang 1991 §2.2): the flow
//! ration is shared by a pair of boundary switches, not by its users; the network takes T of a
//! saturated line; an ill-behaved host is contained by its own switch's admission.

mod common;
use common::*;

/// Hosts a1, a2 at switch A and b1 at switch B, all sending to d behind a 1 Mb/s, 20 ms line
/// C -> D; every switch port runs `bbn` (`interval` given). `a2` may be an unresponsive source
/// of `rogue` (e.g. "2Mbps"), or `b1` may start late.
fn network(interval: &str, rogue: Option<&str>, b1_start: &str) -> String {
    let mut s = ScenarioText::new("60s")
        .measure("10s")
        .raw("discard", 2)
        .nodes(&["a1", "a2", "b1", "d"], &["A", "B", "C", "D"])
        .link("a1", "A", "10Mbps")
        .link("a2", "A", "10Mbps")
        .link("b1", "B", "10Mbps");
    for (a, b, bw) in [("A", "C", "10Mbps"), ("B", "C", "10Mbps"), ("C", "D", "1Mbps"), ("D", "d", "10Mbps")] {
        s = s.link(a, b, bw).str("delay", if bw == "1Mbps" { "20ms" } else { "1ms" }).str("buffer", "100pkt").str("queue", "bbn");
        s = s.table("links.queue_params").str("interval", interval);
    }
    s = s.flow("a1", "d").str("name", "a1").str("cc", "newreno");
    s = match rogue {
        Some(rate) => s.flow("a2", "d").str("name", "a2").str("cc", "none").str("app", "cbr").str("bitrate", rate),
        None => s.flow("a2", "d").str("name", "a2").str("cc", "newreno"),
    };
    s.flow("b1", "d").str("name", "b1").str("cc", "newreno").str("start", b1_start).build()
}

fn kbps(r: &ccsim::Results, name: &str) -> f64 {
    flow(r, name).goodput_bps.mean / 1e3
}

#[test]
fn a_pair_of_switches_shares_one_ration_whatever_its_hosts() {
    let r = run(&network("1s", None, "0s"));
    let (a1, a2, b1) = (kbps(&r, "a1"), kbps(&r, "a2"), kbps(&r, "b1"));
    eprintln!("a1 {a1:.0} a2 {a2:.0} b1 {b1:.0} kb/s");
    // T = 0.9 of the line, half to each pair: b1 alone gets what a1 and a2 share.
    assert!((430.0..470.0).contains(&b1), "{b1}");
    assert!(((a1 + a2) - b1).abs() < 0.05 * b1, "{a1} + {a2} against {b1}");
    // How a1 and a2 split their pair's ration is TCP's business (259 and 194 kb/s here).
    assert!(b1 > 1.3 * (a1 + a2) / 2.0, "{a1} {a2} {b1}");
}

#[test]
fn an_unresponsive_host_is_held_by_its_own_switch() {
    let r = run(&network("1s", Some("2Mbps"), "0s"));
    let (a1, a2, b1) = (kbps(&r, "a1"), kbps(&r, "a2"), kbps(&r, "b1"));
    eprintln!("a1 {a1:.0} a2 (2 Mb/s, no control) {a2:.0} b1 {b1:.0} kb/s");
    // b1, at another switch, keeps its pair's half; a1 shares its switch with the rogue.
    // Measured: b1 429, the rogue 451 (its pair's ration), a1 nothing: the rogue keeps the
    // pair's queue at A full and a1's packets find no room.
    assert!(b1 > 400.0, "{b1}");
    assert!(a2 < 480.0 && a1 < 0.5 * b1, "{a1} {a2} {b1}");
}

#[test]
fn a_longer_interval_answers_a_newcomer_later() {
    // b1 joins at 25 s; the pair at A has the whole target until the next flood.
    let quick = run(&network("1s", None, "25s"));
    let slow = run(&network("20s", None, "25s"));
    let drops = |r: &ccsim::Results| port(r, "C->D").drops;
    eprintln!("drops at C->D: interval 1 s {}, 20 s {}", drops(&quick), drops(&slow));
    // Measured: no drop with 1 s, 71 with 20 s.
    assert!(drops(&slow) > drops(&quick));
}

#[test]
fn the_queue_trace_carries_each_ports_ration() {
    let text = network("1s", None, "0s").replacen("[measure]\n", "[measure]\ntrace_period = \"250ms\"\ntrace_queues = [\"C->D\"]\n", 1);
    let r = run(&text);
    let p = port(&r, "C->D");
    assert_eq!(p.state.map(|s| s.0), Some("ration_bps"));
    let q = &r.queue_trace;
    let rows: Vec<(f64, f64)> = (0..q.time_s.len()).map(|i| (q.time_s[i], q.state[i])).collect();
    // The target's ration (0.9 of 1 Mb/s) until the first flood at 1 s, then one value per
    // interval: it changes only at whole seconds.
    assert!(rows.iter().filter(|r| r.0 < 1.0).all(|r| (r.1 - 900e3).abs() < 1e-6), "{rows:?}");
    for w in rows.windows(2) {
        if w[1].1 != w[0].1 {
            let flood = w[1].0.floor();
            assert!(w[0].0 < flood && flood <= w[1].0, "changed between {} and {} s", w[0].0, w[1].0);
        }
    }
    // Two pairs share it, (A, D) and (B, D): the ration settles near T / 2 of the line.
    let late: Vec<f64> = rows.iter().filter(|r| r.0 >= 30.0).map(|r| r.1).collect();
    let mean = late.iter().sum::<f64>() / late.len() as f64;
    eprintln!("C->D ration after 30 s: mean {mean:.0} b/s, final {:.0}", p.state.unwrap().1);
    assert!((400e3..500e3).contains(&mean), "{mean}");
    // The ports table keeps the ration in effect at the end (the last sample and a flood fall
    // at the same instant, 60 s, so either may come first).
    assert!((400e3..500e3).contains(&p.state.unwrap().1));
}

#[test]
fn setup_errors_name_the_field() {
    // A route that crosses bbn ports must enter the network at one.
    let block = "queue = \"bbn\"\n[links.queue_params]\ninterval = \"1s\"";
    let base = network("1s", None, "0s");
    assert!(base.contains(block), "{base}");
    let text = base.replacen(block, "queue = \"droptail\"", 1);
    let e = ccsim::run_toml(&text).unwrap_err();
    assert!(e.path == "flows[0]" && e.message.contains("(port A->C, links[3])") && e.message.contains("boundary switch"), "{e}");
    // Every bbn port floods at the same interval.
    let text = network("1s", None, "0s").replacen("interval = \"1s\"", "interval = \"2s\"", 1);
    let e = ccsim::run_toml(&text).unwrap_err();
    assert!(e.path == "links[4]" && e.message.contains("interval = 2s on bbn port B->C, as on links[3] (A->C), got 1s"), "{e}");
    // Rations are exchanged between every port at once: not across two threads.
    let e = ccsim::run_toml(&format!("{}\n[parallel]\nsecond = [\"b1\", \"B\"]\n", network("1s", None, "0s"))).unwrap_err();
    assert!(e.path == "parallel" && e.message.contains("bbn"), "{e}");
}

#[test]
fn flows_of_one_pair_leaving_by_different_ports_are_admitted_at_each() {
    // A and Z joined two ways, through B and through C (C -> Z the 1 Mb/s line): a light flow
    // routed A-B-Z and a NewReno flow routed A-C-Z are one pair of switches, (A, Z), admitted
    // at two ports. Each is held at its own port to its own path's ration.
    let mut s = ScenarioText::new("60s").measure("10s").raw("discard", 2).nodes(&["h1", "h2", "d"], &["A", "B", "C", "Z"]);
    s = s.link("h1", "A", "10Mbps").link("h2", "A", "10Mbps");
    for (a, b, bw) in [("A", "B", "10Mbps"), ("B", "Z", "10Mbps"), ("A", "C", "10Mbps"), ("C", "Z", "1Mbps"), ("Z", "d", "10Mbps")] {
        s = s.link(a, b, bw).str("delay", "5ms").str("buffer", "100pkt").str("queue", "bbn");
        s = s.table("links.queue_params").str("interval", "1s");
    }
    s = s.flow("h1", "d").str("name", "light").str("cc", "none").str("app", "cbr").str("bitrate", "10kbps");
    s = s.raw("route", list(&["h1", "A", "B", "Z", "d"]));
    s = s.flow("h2", "d").str("name", "bulk").str("cc", "newreno").raw("route", list(&["h2", "A", "C", "Z", "d"]));
    let r = run(&s.build());
    let (light, bulk) = (kbps(&r, "light"), kbps(&r, "bulk"));
    eprintln!("light {light:.1} bulk {bulk:.0} kb/s");
    // The light flow's path never nears its rations; the bulk flow gets its line's target.
    assert!((9.5..10.5).contains(&light), "{light}");
    assert!((860.0..920.0).contains(&bulk), "{bulk}");
}
