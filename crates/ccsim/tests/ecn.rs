//! ECN (RFC 3168) end to end: RED or REM marks data packets instead of dropping them, the sink
//! echoes the mark, and Reno / NewReno with `ecn = true` halve their window at most once a
//! window, with no retransmission.

mod common;
use common::*;

/// Two flows of `cc` (with `params`) through a 10 Mb/s, 20 ms bottleneck of 200 packets that
/// runs `queue` with `queue_params`, 60 s.
fn dumbbell(cc: &str, params: &str, queue: &str, queue_params: &str) -> String {
    ScenarioText::new("60s")
        .measure("5s")
        .raw("discard", 2)
        .str("trace_period", "10ms")
        .raw("trace_queues", list(&["r1->r2"]))
        .nodes(&["a", "b", "d"], &["r1", "r2"])
        .link("a", "r1", "100Mbps")
        .link("b", "r1", "100Mbps")
        .link("r1", "r2", "10Mbps")
        .str("delay", "20ms")
        .str("buffer", "200pkt")
        .str("queue", queue)
        .raw("queue_params", queue_params)
        .link("r2", "d", "100Mbps")
        .flow("a", "d")
        .str("name", "a")
        .str("cc", cc)
        .raw("params", params)
        .flow("b", "d")
        .str("name", "b")
        .str("cc", cc)
        .raw("params", params)
        .build()
}

fn mean_queue(r: &ccsim::Results, from_s: f64) -> f64 {
    let pid = r.ports.iter().position(|q| q.name == "r1->r2").unwrap() as u32;
    let q = &r.queue_trace;
    let v: Vec<f64> = (0..q.time_s.len()).filter(|&i| q.port[i] == pid && q.time_s[i] >= from_s).map(|i| q.packets[i] as f64).collect();
    v.iter().sum::<f64>() / v.len() as f64
}

/// Data drops a second over the measured intervals (after slow start's overshoot, which
/// overflows the buffer before RED's average has risen).
fn drops(r: &ccsim::Results) -> f64 {
    r.flows.iter().map(|f| f.drop_rate.mean).sum()
}

fn retransmitted(r: &ccsim::Results) -> u64 {
    r.flows.iter().map(|f| f.totals.retransmitted).sum()
}

#[test]
fn red_marks_replace_drops_when_the_sources_respond_to_ecn() {
    for cc in ["newreno", "reno", "sack"] {
        let red = "{ mark = true, min_th = 20, max_th = 60 }";
        let with = run(&dumbbell(cc, "{ ecn = true }", "red", red));
        let without = run(&dumbbell(cc, "{}", "red", red));
        let (p_with, p_without) = (port(&with, "r1->r2"), port(&without, "r1->r2"));
        eprintln!(
            "{cc} over RED marking: with ecn drops/s {:.2} retx {} marks {} util {:.3} queue {:.1}; without drops/s {:.2} retx {} marks {} util {:.3} queue {:.1}",
            drops(&with),
            retransmitted(&with),
            p_with.marks,
            p_with.utilisation,
            mean_queue(&with, 10.0),
            drops(&without),
            retransmitted(&without),
            p_without.marks,
            p_without.utilisation,
            mean_queue(&without, 10.0)
        );
        assert!(p_with.marks > 100, "{cc}: RED marks");
        assert!(drops(&with) * 10.0 < drops(&without), "{cc}: marks instead of drops");
        assert!(p_with.utilisation > 0.93, "{cc}: {}", p_with.utilisation);
        assert_eq!(drops(&with), 0.0, "{cc}: no drop once RED's average has risen");
        // Ignoring the marks, the flows push RED's average past max_th, where it drops.
        assert!(mean_queue(&with, 10.0) < mean_queue(&without, 10.0));
    }
}

#[test]
fn ecn_is_refused_by_algorithms_without_a_response() {
    let text = dumbbell("vegas", "{ ecn = true }", "droptail", "{}");
    let e = ccsim::run_toml(&text).expect_err("vegas has no ecn");
    assert_eq!(e.path, "flows[0].params.ecn");
}

#[test]
fn rem_marks_with_ecn_sources_keep_the_line_full_without_drops() {
    let r = run(&dumbbell("newreno", "{ ecn = true }", "rem", "{ signal = \"mark\" }"));
    let p = port(&r, "r1->r2");
    let q = mean_queue(&r, 10.0);
    eprintln!("newreno over REM marking: drops/s {:.2} marks {} util {:.3} queue {q:.1}", drops(&r), p.marks, p.utilisation);
    assert!(p.marks > 100 && drops(&r) == 0.0, "marks, not drops");
    assert!(p.utilisation > 0.95, "{}", p.utilisation);
    assert!((10.0..=35.0).contains(&q), "REM's target backlog b* = 20: {q}");
}

#[test]
fn blue_marks_hold_the_queue_below_drop_tails() {
    // BLUE (queue/blue.rs) raises its probability on overflow and marks instead of dropping:
    // after slow start's overflows the flows answer marks, which hold the queue below
    // drop-tail's with the line still full (measured: 115 against 136 packets, utilisation
    // 0.928 against 0.984, 133 marks).
    let blue = run(&dumbbell("newreno", "{ ecn = true }", "blue", "{ mark = true }"));
    let tail = run(&dumbbell("newreno", "{ ecn = true }", "droptail", "{}"));
    let (pb, pt) = (port(&blue, "r1->r2"), port(&tail, "r1->r2"));
    eprintln!(
        "BLUE: drops/s {:.3} marks {} util {:.3} queue {:.1}; drop-tail: drops/s {:.3} util {:.3} queue {:.1}",
        drops(&blue),
        pb.marks,
        pb.utilisation,
        mean_queue(&blue, 10.0),
        drops(&tail),
        pt.utilisation,
        mean_queue(&tail, 10.0)
    );
    assert!(pb.marks > 50, "BLUE marks: {}", pb.marks);
    assert!(drops(&blue) <= drops(&tail), "{} against {}", drops(&blue), drops(&tail));
    assert!(mean_queue(&blue, 10.0) < 0.9 * mean_queue(&tail, 10.0));
    assert!(pb.utilisation > 0.9, "{}", pb.utilisation);
}
