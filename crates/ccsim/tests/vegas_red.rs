//! TCP Vegas and RED in whole networks: Vegas keeps alpha..beta of its packets queued at the
//! bottleneck without loss and shares a link equally; RED keeps the average queue between its
//! thresholds by dropping early, and its ECN marks reach the sender.

mod common;
use ccsim::queue::{Qdisc, QueueDiscipline};
use common::*;

/// `n` FTP flows h1..hn -> b over 10 Mb/s access links (1 ms) and the bottleneck sw -> b
/// (`bottleneck`, 10 ms, a 200-packet buffer, `queue` with `queue_params`), starting 7 ms apart.
/// Queue trace of sw -> b every 10 ms; window traces of every flow.
fn dumbbell(n: usize, cc: &str, params: &str, bottleneck: &str, queue: &str, queue_params: &str, duration: &str) -> String {
    let hosts: Vec<String> = (1..=n).map(|i| format!("h{i}")).collect();
    let mut names: Vec<&str> = hosts.iter().map(|s| s.as_str()).collect();
    names.push("b");
    let mut s = ScenarioText::new(duration)
        .measure("5s")
        .raw("discard", 2)
        .str("trace_period", "10ms")
        .raw("trace_queues", list(&["sw->b"]))
        .nodes(&names, &["sw"]);
    for h in &hosts {
        s = s.link(h, "sw", "10Mbps").str("delay", "1ms");
    }
    s = s.link("sw", "b", bottleneck).str("delay", "10ms").str("buffer", "200pkt").str("queue", queue);
    if !queue_params.is_empty() {
        s = s.raw("queue_params", queue_params);
    }
    for (i, h) in hosts.iter().enumerate() {
        s = s.flow(h, "b").str("name", h).str("cc", cc).str("start", format!("{}ms", 7 * i));
        if !params.is_empty() {
            s = s.raw("params", params);
        }
    }
    s.build()
}

/// The time-averaged queue (waiting packets) at sw -> b from `from_s` on, from the queue trace.
fn mean_queue(r: &ccsim::Results, from_s: f64) -> f64 {
    let port = r.ports.iter().position(|p| p.name == "sw->b").unwrap() as u32;
    let q = &r.queue_trace;
    let v: Vec<f64> = (0..q.port.len()).filter(|&i| q.port[i] == port && q.time_s[i] >= from_s).map(|i| q.packets[i] as f64).collect();
    assert!(v.len() > 100, "{} queue samples", v.len());
    v.iter().sum::<f64>() / v.len() as f64
}

/// The values of a flow's own trace column `name` from `from_s` on.
fn own_column(r: &ccsim::Results, flow: u32, name: &str, from_s: f64) -> Vec<f64> {
    let t = &r.cwnd_trace;
    let col = t.column(name).unwrap_or_else(|| panic!("no trace column {name}"));
    (0..t.flow.len()).filter(|&i| t.flow[i] == flow && t.time_s[i] >= from_s).map(|i| col[i]).collect()
}

fn no_loss(r: &ccsim::Results) {
    for f in &r.flows {
        assert_eq!((f.totals.data_dropped, f.totals.retransmitted, f.timeouts), (0, 0, 0), "flow {}", f.name);
    }
}

#[test]
fn one_vegas_flow_settles_with_alpha_to_beta_packets_queued_and_no_loss() {
    let r = run(&dumbbell(1, "vegas", "", "1Mbps", "droptail", "", "60s"));
    no_loss(&r);
    let f = flow(&r, "h1");
    assert!(f.goodput_bps.mean > 0.95e6, "Vegas fills the line: {} bit/s", f.goodput_bps.mean);
    let q = mean_queue(&r, 30.0);
    assert!((1.0..=3.0).contains(&q), "time-averaged queue {q} packets (alpha 1, beta 3)");
    // Its own estimate agrees: baseRTT the path's (about 31 ms), diff within alpha..beta.
    let base = own_column(&r, 0, "base_rtt_s", 30.0);
    assert!(base.iter().all(|&b| (0.028..0.034).contains(&b)), "baseRTT {:?}", &base[..3]);
    let diff = own_column(&r, 0, "diff", 30.0);
    assert!(diff.iter().all(|&d| (0.5..=3.5).contains(&d)), "diff out of alpha..beta: {:?}", diff.iter().cloned().fold(f64::NAN, f64::max));
}

#[test]
fn four_vegas_flows_share_a_link_equally_with_4_alpha_to_4_beta_queued() {
    let r = run(&dumbbell(4, "vegas", "", "2Mbps", "droptail", "", "100s"));
    no_loss(&r);
    assert!(r.jain_goodput > 0.99, "Jain's index {}", r.jain_goodput);
    let total: f64 = r.flows.iter().map(|f| f.goodput_bps.mean).sum();
    assert!(total > 0.95 * 2e6, "the link is full: {total} bit/s");
    let q = mean_queue(&r, 50.0);
    assert!((4.0..=12.0).contains(&q), "time-averaged queue {q} packets (4 x alpha .. 4 x beta)");
}

#[test]
fn vegas_with_a_wider_band_keeps_more_queued() {
    // alpha = 4, beta = 6: a single flow keeps 4..6 packets waiting.
    let r = run(&dumbbell(1, "vegas", "{ alpha = 4, beta = 6 }", "1Mbps", "droptail", "", "60s"));
    no_loss(&r);
    let q = mean_queue(&r, 30.0);
    assert!((4.0..=6.0).contains(&q), "time-averaged queue {q} packets");
}

/// Eight NewReno flows through a 10 Mb/s RED bottleneck (`queue_params`).
fn red_run(queue_params: &str) -> (ccsim::Results, ccsim::queue::red::RedStats, u64) {
    let text = dumbbell(8, "newreno", "", "10Mbps", "red", queue_params, "60s");
    let (sc, w) = run_world(&text);
    let r = ccsim::Results::collect(&sc, &w);
    let port = r.ports.iter().position(|p| p.name == "sw->b").unwrap();
    let q = &w.ports[port].qdisc;
    let stats = match q {
        Qdisc::Red(red) => red.stats(),
        _ => panic!("sw->b is {}", q.name()),
    };
    (r, stats, q.marks())
}

#[test]
fn red_keeps_the_average_queue_between_its_thresholds_by_dropping_early() {
    let (r, stats, marks) = red_run("");
    let p = port(&r, "sw->b");
    assert!(p.drops > 50, "{} drops", p.drops);
    assert_eq!(p.drops, stats.early_drops + stats.forced_drops + stats.overflow_drops);
    assert_eq!(stats.overflow_drops, 0, "RED drops before the 200-packet buffer fills");
    assert!(p.max_queue_packets < 100, "largest queue {}", p.max_queue_packets);
    assert!(stats.early_drops > stats.forced_drops, "{stats:?}");
    assert_eq!((marks, p.marks), (0, 0));
    let q = mean_queue(&r, 30.0);
    assert!((4.0..=16.0).contains(&q), "time-averaged queue {q} packets (min_th 5, max_th 15)");
    assert!(p.utilisation > 0.9, "utilisation {}", p.utilisation);
    // The same flows through drop-tail fill the buffer.
    let dt = run(&dumbbell(8, "newreno", "", "10Mbps", "droptail", "", "60s"));
    assert!(port(&dt, "sw->b").max_queue_packets >= 190);
}

#[test]
fn red_with_ecn_marks_instead_of_dropping_and_the_marks_reach_the_sender() {
    // The DEC source reacts only to the congestion bits its ACKs echo (it recovers from a
    // loss by timeout only). RED marks with a probability that reaches 1 at max_th = 40:
    // DEC settles where about half of a window's ACKs carry the bit, far below max_th and the
    // buffer, so nothing is dropped. Without marking, the same RED drops.
    let params = "{ mark = true, min_th = 2, max_th = 40, max_p = 1.0 }";
    let r = run(&dumbbell(1, "dec", "", "1Mbps", "red", params, "60s"));
    let marks = port(&r, "sw->b").marks;
    assert!(marks > 100, "{marks} marks");
    assert_eq!(port(&r, "sw->b").drops, 0);
    assert_eq!(flow(&r, "h1").timeouts, 0);
    let cwnd: Vec<f64> = cwnd_series(&r, 0).iter().filter(|s| s.0 > 20.0).map(|s| s.1).collect();
    let max = cwnd.iter().cloned().fold(0.0, f64::max);
    assert!(max < 40.0, "DEC's window is held by the marks: at most {max}");
    assert!(flow(&r, "h1").goodput_bps.mean > 0.9e6);
    let dropping = run(&dumbbell(1, "dec", "", "1Mbps", "red", "{ min_th = 2, max_th = 40, max_p = 1.0 }", "60s"));
    assert!(port(&dropping, "sw->b").drops > 0);
}
