//! The queue trace's `state` column: each discipline's own control variable sampled beside the
//! queue (`QueueDiscipline::state`), named in the ports table.

mod common;
use common::*;

/// Two NewReno flows through a 10 Mb/s, 20 ms bottleneck of 100 packets running `queue`,
/// traced every 10 ms; every other port drop-tail.
fn dumbbell(queue: &str, queue_params: &str) -> String {
    ScenarioText::new("30s")
        .measure("5s")
        .str("trace_period", "10ms")
        .raw("trace_queues", list(&["r1->r2", "r2->d"]))
        .nodes(&["a", "b", "d"], &["r1", "r2"])
        .link("a", "r1", "100Mbps")
        .link("b", "r1", "100Mbps")
        .link("r1", "r2", "10Mbps")
        .str("delay", "20ms")
        .str("buffer", "100pkt")
        .str("queue", queue)
        .raw("queue_params", queue_params)
        .link("r2", "d", "100Mbps")
        .flow("a", "d")
        .str("cc", "newreno")
        .flow("b", "d")
        .str("cc", "newreno")
        .build()
}

/// The traced (time, packets, state) rows of port `name`.
fn samples(r: &ccsim::Results, name: &str) -> Vec<(f64, f64, f64)> {
    let pid = r.ports.iter().position(|q| q.name == name).unwrap() as u32;
    let q = &r.queue_trace;
    (0..q.time_s.len()).filter(|&i| q.port[i] == pid).map(|i| (q.time_s[i], q.packets[i] as f64, q.state[i])).collect()
}

#[test]
fn red_traces_its_average_beside_the_queue_it_smooths() {
    let r = run(&dumbbell("red", "{ min_th = 5, max_th = 15, max_p = 0.1, w_q = 0.002 }"));
    let red = samples(&r, "r1->r2");
    assert_eq!(port(&r, "r1->r2").state.map(|s| s.0), Some("avg_queue"));
    assert!(red.iter().all(|&(_, _, avg)| (0.0..=100.0).contains(&avg)), "an average outside the buffer");
    // The average follows the queue, smoothed: over the run they agree to within a few
    // packets, while the queue itself swings much more than the average does.
    let steady: Vec<_> = red.iter().filter(|s| s.0 >= 5.0).collect();
    let mean = |f: &dyn Fn(&(f64, f64, f64)) -> f64| steady.iter().map(|s| f(s)).sum::<f64>() / steady.len() as f64;
    let (q_mean, avg_mean) = (mean(&|s| s.1), mean(&|s| s.2));
    let sd =
        |f: &dyn Fn(&(f64, f64, f64)) -> f64, m: f64| (steady.iter().map(|s| (f(s) - m).powi(2)).sum::<f64>() / steady.len() as f64).sqrt();
    let (q_sd, avg_sd) = (sd(&|s| s.1, q_mean), sd(&|s| s.2, avg_mean));
    eprintln!("queue {q_mean:.2} (sd {q_sd:.2}), average {avg_mean:.2} (sd {avg_sd:.2}) packets");
    assert!(avg_mean > 2.0 && (avg_mean - q_mean).abs() < 3.0, "{avg_mean} against {q_mean}");
    assert!(avg_sd < 0.6 * q_sd, "{avg_sd} against {q_sd}");
    // The ports table keeps the value at the end; a drop-tail port has no state.
    let last = port(&r, "r1->r2").state.unwrap().1;
    assert!((0.0..=100.0).contains(&last));
    assert_eq!(port(&r, "r2->d").state, None);
    assert!(samples(&r, "r2->d").iter().all(|s| s.2.is_nan()));
}

#[test]
fn blue_and_rem_trace_their_probability_and_price() {
    let r = run(&dumbbell("blue", "{}"));
    let blue = samples(&r, "r1->r2");
    assert_eq!(port(&r, "r1->r2").state.map(|s| s.0), Some("mark_prob"));
    assert!(blue.iter().all(|s| (0.0..=1.0).contains(&s.2)));
    // Overflows of the 100-packet buffer raise p_m from 0 during the run.
    assert!(blue.iter().any(|s| s.2 > 0.0), "p_m never rose");

    let r = run(&dumbbell("rem", "{}"));
    let rem = samples(&r, "r1->r2");
    assert_eq!(port(&r, "r1->r2").state.map(|s| s.0), Some("price"));
    assert!(rem.iter().all(|s| s.2 >= 0.0) && rem.iter().any(|s| s.2 > 0.0), "the price never rose");
}

#[test]
fn decbit_traces_the_average_its_marks_follow() {
    // DEC sources on a DECbit gateway hold its average near the threshold of 1.
    let text = dumbbell("decbit", "{}").replace("cc = \"newreno\"", "cc = \"dec\"");
    let r = run(&text);
    assert_eq!(port(&r, "r1->r2").state.map(|s| s.0), Some("avg_in_system"));
    let steady: Vec<f64> = samples(&r, "r1->r2").iter().filter(|s| s.0 >= 10.0).map(|s| s.2).collect();
    let mean = steady.iter().sum::<f64>() / steady.len() as f64;
    eprintln!("DECbit average after 10 s: {mean:.2} packets (the one on the line included)");
    assert!(steady.iter().all(|&a| a >= 0.0) && (0.3..3.0).contains(&mean), "{mean}");
}

#[test]
fn the_seif_router_traces_its_filter() {
    // SEIF sources on a SEIF router: its filter disarms at each crossing of 80% of the buffer
    // and rearms when the queue is back below it.
    let text = dumbbell("seif_router", "{}").replace("cc = \"newreno\"", "cc = \"seif\"");
    let r = run(&text);
    assert_eq!(port(&r, "r1->r2").state.map(|s| s.0), Some("feedback_armed"));
    let s = samples(&r, "r1->r2");
    assert!(s.iter().all(|x| x.2 == 0.0 || x.2 == 1.0));
    let disarmed: Vec<_> = s.iter().filter(|x| x.2 == 0.0).collect();
    let fill = disarmed.iter().map(|x| x.1).sum::<f64>() / disarmed.len().max(1) as f64;
    let armed_fill = s.iter().filter(|x| x.2 == 1.0).map(|x| x.1).sum::<f64>() / s.iter().filter(|x| x.2 == 1.0).count() as f64;
    eprintln!("{} of {} samples disarmed; queue {fill:.1} packets while disarmed, {armed_fill:.1} armed", disarmed.len(), s.len());
    assert!(!disarmed.is_empty() && disarmed.len() < s.len());
    // Disarmed means the queue crossed 80 of its 100 packets and has not yet drained below.
    assert!(fill > armed_fill, "{fill} against {armed_fill}");
}
