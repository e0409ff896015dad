//! Window transport: Tahoe (JK) slow start and collapse, Reno fast retransmit / fast recovery,
//! NewReno recovery of several losses in one window, and Little's law for a window-limited flow.

mod common;
use ccsim::transport::cc::CongestionControl;
use common::*;

/// One flow a -> sw -> b. Access link 10 Mb/s, 1 ms; bottleneck sw -> b 1 Mb/s (8 ms per
/// 1000-byte packet), 20 ms, with a drop-tail buffer of `buf` packets (the packet in service
/// counts). The pipe holds about 6 packets, so the path holds 15 packets without loss.
fn dumbbell(cc: &str, max_window: u32, buf: &str, duration: &str, trace_period: &str) -> String {
    dumbbell_with(cc, "{}", max_window, buf, duration, trace_period)
}

/// `dumbbell` with the flow's `params` (an inline table).
fn dumbbell_with(cc: &str, params: &str, max_window: u32, buf: &str, duration: &str, trace_period: &str) -> String {
    ScenarioText::new(duration)
        .str("name", format!("dumbbell-{cc}"))
        .measure(duration)
        .raw("discard", 0)
        .str("trace_period", trace_period)
        .str("trace_cwnd", "all")
        .nodes(&["a", "b"], &["sw"])
        .link("a", "sw", "10Mbps")
        .str("delay", "1ms")
        .link("sw", "b", "1Mbps")
        .str("delay", "20ms")
        .str("buffer", buf)
        .flow("a", "b")
        .str("name", "f")
        .str("app", "ftp")
        .str("cc", cc)
        .raw("max_window", max_window)
        .str("packet_size", "1000B")
        .raw("params", params)
        .build()
}

/// A long fat path: one 100 Mb/s link with 0.5 s of propagation delay each way, so every
/// round trip takes just over 1 s and the window of each round is sent within a few
/// milliseconds (1024 packets take 82 ms). The JK initial RTO (2 s) exceeds the RTT.
fn long_path(cc: &str, duration: &str) -> String {
    ScenarioText::new(duration)
        .measure(duration)
        .raw("discard", 0)
        .str("trace_period", "0.5s")
        .nodes(&["a", "b"], &[])
        .link("a", "b", "100Mbps")
        .str("delay", "0.5s")
        .flow("a", "b")
        .str("name", "f")
        .str("cc", cc)
        .raw("max_window", 100000)
        .build()
}

#[test]
fn tahoe_slow_start_doubles_the_window_each_round_trip() {
    let r = run(&long_path("jk", "10.75s"));
    let s = cwnd_series(&r, 0);
    // Samples at t = k + 0.5 s fall in the middle of round k, after its ACK burst (which
    // arrives at about k s) and before the next one.
    for k in 0..=10u32 {
        let t = k as f64 + 0.5;
        let (_, cwnd, ssthresh) = *s.iter().find(|x| (x.0 - t).abs() < 1e-9).unwrap_or_else(|| panic!("no sample at {t} s"));
        assert_eq!(cwnd, f64::from(1u32 << k), "cwnd after {k} round trips (t = {t} s)");
        assert_eq!(ssthresh, 100000.0, "ssthresh starts at the maximum window and stays there without loss");
    }
    let f = &r.flows[0];
    assert_eq!(f.totals.data_dropped, 0);
    assert_eq!(f.totals.retransmitted, 0);
    assert_eq!(f.timeouts, 0);
    // Rounds 0..=10 sent 1 + 2 + ... + 1024 packets, all at the sink by 10.75 s; the ACKs of
    // round 10 are still on their way back, so the window is still 1024.
    assert_eq!(f.totals.delivered, 2047);
    assert_eq!(f.totals.acks_received, 1023);
    assert_eq!(f.final_cwnd, 1024.0);
}

#[test]
fn tahoe_slow_start_by_stepping_the_world() {
    // The same check by running a built world in steps and reading the sender directly.
    let sc = ccsim::Scenario::from_toml_str(&long_path("jk", "8s")).unwrap();
    let mut w = ccsim::scenario::build::build_world(&sc).unwrap();
    let ps = ccsim::sim::PS_PER_SEC;
    for k in 0..7u32 {
        w.end = k as u64 * ps + ps / 2;
        w.run();
        let s = w.flows[0].sender.as_ref().unwrap();
        assert_eq!(s.cc.cwnd(), f64::from(1u32 << k), "cwnd after {k} round trips");
        assert_eq!(s.outstanding(), 1u64 << k, "a full window in flight in round {k}");
    }
    w.end = sc.duration;
    w.run();
    assert_conserved(&ccsim::Results::collect(&sc, &w));
}

#[test]
fn tahoe_collapses_the_window_to_one_and_halves_ssthresh_after_a_loss() {
    // Unlimited window, 10-packet buffer: slow start overshoots and packets are dropped.
    let r = run(&dumbbell("jk", 1000, "10pkt", "3s", "1ms"));
    let f = &r.flows[0];
    assert!(f.totals.data_dropped >= 1, "the scenario must drop packets");
    assert!(f.totals.retransmitted >= 1);
    let s = cwnd_series(&r, 0);
    // First collapse: a sample with cwnd 1 right after a sample with a large window.
    let i = (1..s.len()).find(|&i| s[i].1 == 1.0 && s[i - 1].1 > 1.0).expect("cwnd never fell to 1");
    let before = s[i - 1].1;
    assert!(before >= 16.0, "window was only {before} before the loss");
    // ACKs are 8 ms apart and samples 1 ms apart, so the sample before the collapse saw the
    // window the collapse halved (Tahoe: ssthresh = max(floor(min(cwnd, maxwin) / 2), 2)).
    assert_eq!(s[i].2, (before / 2.0).floor(), "ssthresh at {} s after collapse from {before}", s[i].0);
    assert_eq!(s[i - 1].2, 1000.0, "ssthresh before the loss is the maximum window");
    // Afterwards slow start again up to ssthresh, then linear growth (less than +1 per sample).
    let ss = s[i].2;
    let j = (i..s.len()).find(|&j| s[j].1 >= ss).expect("window never got back to ssthresh");
    assert!(s[i..j].iter().all(|x| x.1 < ss));
}

#[test]
fn tahoe_single_loss_also_collapses_to_one() {
    // Window 16 overflows the 15-packet path by one packet: a single drop, repaired by fast
    // retransmit, but Tahoe still goes back to a window of 1.
    let r = run(&dumbbell("jk", 16, "10pkt", "1s", "1ms"));
    let f = &r.flows[0];
    assert_eq!(f.totals.data_dropped, 1, "scenario precondition: exactly one drop");
    assert_eq!(f.totals.retransmitted, 1);
    assert_eq!(f.timeouts, 0, "three duplicate ACKs trigger the retransmission, not the timer");
    let s = cwnd_series(&r, 0);
    let i = s.iter().position(|x| x.1 == 1.0 && x.0 > 0.1).expect("cwnd never fell to 1");
    assert_eq!(s[i - 1].1, 16.0);
    assert_eq!(s[i].2, 8.0);
}

#[test]
fn reno_fast_retransmit_and_fast_recovery_after_a_single_drop() {
    let r = run(&dumbbell("reno", 16, "10pkt", "1s", "1ms"));
    let f = &r.flows[0];
    assert_eq!(f.totals.data_dropped, 1, "scenario precondition: exactly one drop");
    assert_eq!(f.timeouts, 0, "the loss must be repaired without a timeout");
    assert_eq!(f.totals.retransmitted, 1, "exactly the lost packet is resent");
    assert_eq!(f.totals.received, f.totals.sent - 1 - f.data_in_network);
    let s = cwnd_series(&r, 0);
    let i = s.iter().position(|x| x.2 < 16.0).expect("ssthresh never changed");
    assert_eq!(s[i - 1].1, 16.0, "window before the loss");
    assert_eq!(s[i].2, 8.0, "ssthresh = FlightSize / 2");
    // Fast recovery: cwnd = ssthresh + 3, inflated by further duplicate ACKs.
    assert_eq!(s[i].1, 11.0, "cwnd on entering fast recovery");
    // After recovery the window is half, never 1: no slow start from scratch.
    let after = &s[i..];
    let min_after = after.iter().map(|x| x.1).fold(f64::INFINITY, f64::min);
    assert_eq!(min_after, 8.0, "window after recovery deflates to ssthresh = 8");
    assert!(after.iter().any(|x| x.1 == 8.0));
    // Then congestion avoidance: growth by about 1/cwnd per ACK.
    let last = after.last().unwrap();
    assert!(last.1 > 8.0 && last.1 < 16.0, "congestion avoidance after recovery, cwnd {}", last.1);
    assert!(f.final_cwnd > 8.0);
}

#[test]
fn fast_retransmit_waits_for_exactly_the_threshold_of_duplicate_acks() {
    // In the single-drop scenario 15 packets follow the lost one, so exactly 15 duplicate
    // ACKs come back: a threshold of 15 still triggers fast retransmit, 16 needs the timer.
    let with_threshold = |k: u32| {
        let text = dumbbell_with("reno", &format!("{{ dupack_threshold = {k} }}"), 16, "10pkt", "1s", "1ms");
        let r = run(&text);
        let f = &r.flows[0];
        assert_eq!(f.totals.data_dropped, 1, "threshold {k}: scenario precondition");
        (f.timeouts, f.totals.retransmitted)
    };
    assert_eq!(with_threshold(3), (0, 1));
    assert_eq!(with_threshold(15), (0, 1));
    assert_eq!(with_threshold(16), (1, 1));
}

#[test]
fn newreno_repairs_several_losses_in_one_window_without_timeout() {
    // Slow start with an unlimited window overshoots into a 10-packet buffer: many drops in
    // one window. 1.6 s covers that single loss episode. Every partial ACK restarts the
    // timer ("Slow-but-Steady"), so the repairs, one per round trip, never time out.
    let dur = "1.6s";
    let nr = run(&dumbbell_with("newreno", "{ partial_ack_timer = \"slow_but_steady\" }", 1000, "10pkt", dur, "1ms"));
    let reno = run(&dumbbell("reno", 1000, "10pkt", dur, "1ms"));
    let f = &nr.flows[0];
    assert!(f.totals.data_dropped >= 5, "scenario precondition: several drops, got {}", f.totals.data_dropped);
    assert_eq!(f.timeouts, 0, "NewReno must not time out");
    assert!(f.totals.retransmitted >= 2);
    assert_eq!(f.totals.retransmitted, f.totals.data_dropped, "each lost packet resent exactly once");
    // One recovery episode: ssthresh set once, window never back to 1.
    let s = cwnd_series(&nr, 0);
    let i = s.iter().position(|x| x.2 < 1000.0).unwrap();
    assert!(s[i..].iter().all(|x| x.1 > 1.0), "NewReno window fell to 1");
    let thresholds: std::collections::BTreeSet<u64> = s[i..].iter().map(|x| x.2 as u64).collect();
    assert_eq!(thresholds.len(), 1, "one recovery episode, got ssthresh values {thresholds:?}");

    // Reno on the same losses leaves recovery at the first partial ACK and ends up timing out.
    let g = &reno.flows[0];
    assert!(g.totals.data_dropped >= 5);
    assert!(g.timeouts >= 1, "Reno is expected to need a timeout here");
    assert!(g.totals.retransmitted > f.totals.retransmitted, "Reno resends more (go-back-N after the timeout)");
    assert!(g.totals.delivered < f.totals.delivered, "Reno {} vs NewReno {} delivered", g.totals.delivered, f.totals.delivered);

    // RFC 6582's "Impatient" timer restarts on the first partial ACK only: with this many
    // holes, one repaired per round trip, the timer expires before the last repair.
    let imp = run(&dumbbell("newreno", 1000, "10pkt", dur, "1ms"));
    let i = &imp.flows[0];
    assert!(i.timeouts >= 1, "Impatient NewReno ends this recovery with a timeout");
    assert!(i.totals.retransmitted > f.totals.retransmitted, "and resends from the oldest hole on (go-back-N)");
}

#[test]
fn newreno_single_loss_uses_fast_recovery() {
    let r = run(&dumbbell("newreno", 16, "10pkt", "1s", "1ms"));
    let f = &r.flows[0];
    assert_eq!(f.totals.data_dropped, 1);
    assert_eq!(f.totals.retransmitted, 1);
    assert_eq!(f.timeouts, 0);
    let s = cwnd_series(&r, 0);
    let i = s.iter().position(|x| x.2 < 16.0).unwrap();
    assert_eq!((s[i].1, s[i].2), (11.0, 8.0));
}

/// Little's law for the sender: a loss-free flow that always has W packets outstanding has
/// goodput x mean RTT = W.
fn littles_law(cc: &str, w: u32, delay: &str) {
    let text = ScenarioText::new("60s")
        .measure("10s")
        .raw("discard", 1)
        .nodes(&["a", "b"], &["sw"])
        .link("a", "sw", "10Mbps")
        .str("delay", "1ms")
        .link("sw", "b", "1Mbps")
        .str("delay", delay)
        .str("buffer", "200pkt")
        .flow("a", "b")
        .str("name", "f")
        .str("cc", cc)
        .raw("max_window", w)
        .build();
    let r = run(&text);
    let f = &r.flows[0];
    assert_eq!(f.totals.data_dropped, 0, "loss-free by construction");
    // Measured intervals (after the discarded first) carry no retransmission.
    let iv = &r.intervals;
    assert!((0..iv.len()).filter(|&i| iv.interval[i] >= 1).all(|i| iv.retransmitted[i] == 0 && iv.drops[i] == 0));
    assert_eq!(f.goodput_pps.intervals, 5);
    let product = f.goodput_pps.mean * f.delay_s.mean;
    assert!(
        (product - w as f64).abs() / (w as f64) < 0.01,
        "{cc} W={w}: goodput {} pkt/s x RTT {} s = {product}, expected {w}",
        f.goodput_pps.mean,
        f.delay_s.mean
    );
}

#[test]
fn littles_law_window_limited_generic_with_standing_queue() {
    // W = 50 > 15: bottleneck saturated (125 pkt/s), queue of ~35 packets. (Generic sends its
    // whole window at once and its beta x srtt timer, trained on the first, short, RTT, fires
    // spuriously during the first interval; that interval is discarded.)
    littles_law("generic", 50, "20ms");
}

#[test]
fn littles_law_window_limited_jk_with_standing_queue() {
    littles_law("jk", 50, "20ms");
}

#[test]
fn littles_law_window_limited_jk_below_capacity() {
    // W = 4 on a 200 ms path: the line is mostly idle, goodput is W / RTT.
    littles_law("jk", 4, "100ms");
}

#[test]
fn littles_law_window_limited_newreno() {
    littles_law("newreno", 30, "20ms");
}

#[test]

fn newreno_full_ack_window_follows_rfc6582_when_nothing_is_outstanding() {
    // max_window 16 stops the inflated window from sending new data during recovery, so the
    // full ACK acknowledges everything: FlightSize = 0 and RFC 6582 gives cwnd = 2.
    let r = run(&dumbbell("newreno", 16, "10pkt", "1s", "1ms"));
    let s = cwnd_series(&r, 0);
    let i = s.iter().position(|x| x.2 < 16.0).unwrap();
    let min_after = s[i..].iter().map(|x| x.1).fold(f64::INFINITY, f64::min);
    assert_eq!(min_after, 2.0, "cwnd after the full ACK (RFC 6582: min(ssthresh, max(FlightSize, 1) + 1))");
}
