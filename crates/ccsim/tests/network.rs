//! Network elements: drop-tail buffers (packet and byte limits, with and without the packet in
//! service), drop accounting, and a window flow's queue.

mod common;
use common::*;

/// Two uncontrolled sources (`app` = "cbr" or "poisson"; a: `size_a`-byte packets at
/// 120 pkt/s; c: `size_c`-byte packets at 60 pkt/s) overload the 1 Mb/s line sw -> b, whose
/// drop-tail buffer is `buffer`.
fn overload_with(app: &str, buffer: &str, count_in_service: bool, size_a: u32, size_c: u32) -> String {
    ScenarioText::new("20s")
        .measure("5s")
        .raw("discard", 1)
        .str("trace_period", "1ms")
        .raw("trace_queues", list(&["sw->b"]))
        .str("trace_cwnd", "none")
        .nodes(&["a", "c", "b"], &["sw"])
        .link("a", "sw", "10Mbps")
        .str("delay", "1ms")
        .link("c", "sw", "10Mbps")
        .str("delay", "3ms")
        .link("sw", "b", "1Mbps")
        .str("delay", "10ms")
        .str("buffer", buffer)
        .raw("count_in_service", count_in_service)
        .flow("a", "b")
        .str("name", "cbr-a")
        .str("app", app)
        .str("rate", "120pps")
        .str("packet_size", format!("{size_a}B"))
        .flow("c", "b")
        .str("name", "cbr-c")
        .str("app", app)
        .str("rate", "60pps")
        .str("packet_size", format!("{size_c}B"))
        .build()
}

fn overload(buffer: &str, count_in_service: bool, size_a: u32, size_c: u32) -> String {
    overload_with("cbr", buffer, count_in_service, size_a, size_c)
}

fn queue_samples(r: &ccsim::Results, port: u32) -> Vec<(u32, u64)> {
    let q = &r.queue_trace;
    (0..q.port.len()).filter(|&i| q.port[i] == port).map(|i| (q.packets[i], q.bytes[i])).collect()
}

fn port_index(r: &ccsim::Results, name: &str) -> u32 {
    r.ports.iter().position(|p| p.name == name).unwrap() as u32
}

fn check_overloaded(r: &ccsim::Results) {
    let p = port(r, "sw->b");
    assert!(p.drops > 100, "the bottleneck must drop, got {}", p.drops);
    assert!(p.utilisation > 0.9, "an overloaded line is (almost) always busy: {}", p.utilisation);
    // Uncontrolled flows: no ACKs, and the other ports never drop.
    for f in &r.flows {
        assert_eq!(f.cc, "none");
        assert_eq!(f.totals.acks_sent, 0);
    }
    for q in &r.ports {
        if q.name != "sw->b" {
            assert_eq!(q.drops, 0, "port {}", q.name);
        }
    }
}

#[test]
fn droptail_packet_buffer_counting_the_packet_in_service() {
    let r = run(&overload("10pkt", true, 1000, 1000));
    check_overloaded(&r);
    let p = port(&r, "sw->b");
    assert!(p.utilisation > 0.999, "constant overload keeps the line busy: {}", p.utilisation);
    // Queue + the packet in service <= 10: at most 9 wait while the line is busy.
    assert!(p.max_queue_packets < 10, "max queue {} with count_in_service", p.max_queue_packets);
    assert_eq!(p.max_queue_packets, 9, "the buffer should fill up");
    let samples = queue_samples(&r, port_index(&r, "sw->b"));
    assert!(samples.len() > 10_000);
    assert!(samples.iter().all(|s| s.0 < 10));
    assert!(samples.iter().all(|s| s.1 == s.0 as u64 * 1000), "bytes track packets");
}

#[test]
fn droptail_arrivals_coinciding_with_departures() {
    // 250 pkt/s of 1000 B into a 1 Mb/s line (8 ms each): every other arrival falls on the
    // exact picosecond a transmission ends. The limit must still hold.
    let text = ScenarioText::new("5s")
        .measure("1s")
        .nodes(&["a", "b"], &["sw"])
        .link("a", "sw", "10Mbps")
        .link("sw", "b", "1Mbps")
        .str("buffer", "10pkt")
        .flow("a", "b")
        .str("app", "cbr")
        .str("rate", "250pps")
        .build();
    let r = run(&text);
    let p = port(&r, "sw->b");
    assert_eq!(p.max_queue_packets, 9);
    assert_eq!(p.departures, 625, "5 s of a busy 1 Mb/s line");
    // Packets at 0, 4 ms, ..., 5 s (events at the end time still run): 1251 offered, half
    // of them carried, nearly all the rest dropped.
    let f = &r.flows[0];
    assert_eq!(f.totals.sent, 1251);
    assert!(f.totals.data_dropped >= 1251 - 625 - 10, "drops {}", f.totals.data_dropped);
}

#[test]
fn droptail_packet_buffer_not_counting_the_packet_in_service() {
    let r = run(&overload("10pkt", false, 1000, 1000));
    check_overloaded(&r);
    let p = port(&r, "sw->b");
    assert!(p.max_queue_packets <= 10);
    assert_eq!(p.max_queue_packets, 10, "ten may wait behind the one in service");
    let samples = queue_samples(&r, port_index(&r, "sw->b"));
    assert!(samples.iter().all(|s| s.0 <= 10));
    assert!(samples.iter().any(|s| s.0 == 10));
}

#[test]
fn droptail_fewer_drops_with_the_larger_effective_buffer() {
    let with = run(&overload("10pkt", true, 1000, 1000));
    let without = run(&overload("10pkt", false, 1000, 1000));
    // Same offered load, same service: the run with one more slot drops one packet fewer
    // (it holds one more at the end).
    let dw = port(&with, "sw->b").drops;
    let dwo = port(&without, "sw->b").drops;
    assert_eq!(dw, dwo + 1, "drops {dw} (count in service) vs {dwo}");
}

#[test]
fn droptail_byte_buffer_with_mixed_packet_sizes() {
    for count_in_service in [true, false] {
        let r = run(&overload_with("poisson", "5000B", count_in_service, 1000, 300));
        check_overloaded(&r);
        let p = port(&r, "sw->b");
        let samples = queue_samples(&r, port_index(&r, "sw->b"));
        if count_in_service {
            // Queue + in service <= 5000 bytes, and something (>= 300 bytes) is in service
            // whenever packets wait.
            assert!(p.max_queue_bytes <= 4700, "max queue {} B", p.max_queue_bytes);
            assert!(samples.iter().all(|s| s.1 <= 4700));
        } else {
            assert!(p.max_queue_bytes <= 5000, "max queue {} B", p.max_queue_bytes);
            assert!(samples.iter().all(|s| s.1 <= 5000));
        }
        // The limit binds: the queue gets within one packet of it.
        assert!(p.max_queue_bytes > 4000 - if count_in_service { 1000 } else { 0 }, "max queue {} B", p.max_queue_bytes);
        // Both sizes get through and both get dropped.
        for f in &r.flows {
            assert!(f.totals.delivered > 0 && f.totals.data_dropped > 0, "flow {}", f.name);
        }
    }
}

#[test]
fn droptail_byte_buffer_smaller_packets_fit_where_large_ones_do_not() {
    // 2500 B buffer, count_in_service: a 1000 B packet needs 1000 B free, a 300 B packet only
    // 300 B, so with random (Poisson) arrivals the large packets are refused more often.
    let r = run(&overload_with("poisson", "2500B", true, 1000, 300));
    let p = port(&r, "sw->b");
    assert!(p.max_queue_bytes <= 2200);
    let a = flow(&r, "cbr-a");
    let c = flow(&r, "cbr-c");
    let loss_a = a.totals.data_dropped as f64 / a.totals.sent as f64;
    let loss_c = c.totals.data_dropped as f64 / c.totals.sent as f64;
    assert!(loss_a > loss_c, "large packets should be dropped more often: {loss_a} vs {loss_c}");
}

#[test]
fn unlimited_host_buffer_never_drops_and_queue_is_window_bounded() {
    // A window-limited flow's packets queue at the bottleneck: the queue never exceeds the
    // window, and the host's own (unlimited) interface never drops.
    let text = ScenarioText::new("10s")
        .measure("2s")
        .str("trace_queues", "all")
        .nodes(&["a", "b"], &["sw"])
        .link("a", "sw", "1Mbps")
        .link("sw", "b", "100kbps")
        .str("buffer", "1000pkt")
        .flow("a", "b")
        .str("cc", "generic")
        .raw("max_window", 12)
        .raw("params", "{ beta = 100 }")
        .build();
    let r = run(&text);
    let p = port(&r, "sw->b");
    assert_eq!(p.drops, 0);
    assert!(p.max_queue_packets <= 12 && p.max_queue_packets >= 10, "queue {}", p.max_queue_packets);
    assert!(r.queue_trace.packets.iter().all(|&q| q <= 12));
    let f = &r.flows[0];
    assert_eq!(f.totals.retransmitted, 0);
    // 100 kb/s carries 12.5 packets/s of 1000 B.
    assert!((f.goodput_pps.mean - 12.5).abs() < 0.05, "goodput {}", f.goodput_pps.mean);
}

/// Two greedy 1000-byte FTPs and a 40-byte CBR probe at an FQ switch on an 80 kb/s line.
fn fq_probe(preemptive: bool) -> ccsim::Results {
    let text = ScenarioText::new("2000s")
        .str("name", "fq-preemption")
        .measure("500s")
        .raw("discard", 1)
        .nodes(&["f1", "f2", "probe", "sink"], &["sw"])
        .link("sw", "sink", "80kbps")
        .str("buffer", "100pkt")
        .raw("count_in_service", false)
        .str("queue", "fq")
        .raw("queue_params", format!("{{ preemptive = {preemptive} }}"))
        .link("f1", "sw", "800kbps")
        .link("f2", "sw", "800kbps")
        .link("probe", "sw", "800kbps")
        .flow("f1", "sink")
        .str("name", "f1")
        .str("cc", "generic")
        .raw("max_window", 5)
        .flow("f2", "sink")
        .str("name", "f2")
        .str("cc", "generic")
        .raw("max_window", 5)
        .flow("probe", "sink")
        .str("name", "probe")
        .str("app", "cbr")
        .str("rate", "0.73pps")
        .str("packet_size", "40B")
        .build();
    let r = ccsim::run_toml(&text).unwrap();
    assert_conserved(&r);
    r
}

#[test]
fn preemptive_fq_stops_the_packet_on_the_line_and_resumes_it() {
    // A 40-byte probe (4 ms on the line) outbids a 1000-byte FTP packet (100 ms) that is
    // being sent: under preemptive FQ it waits almost nothing (0.16 ms on average, Keshav
    // 1991 §2.2.3), non-preemptive it waits out the residual, 50 ms on average. The stopped
    // packets resume where they stopped: the FTPs lose nothing and keep the line full.
    let fixed = 40.0 * 8.0 / 800e3 + 40.0 * 8.0 / 80e3;
    let wait = |r: &ccsim::Results| r.flows.iter().find(|f| f.name == "probe").unwrap().owd_s.mean - fixed;
    let (pre, non) = (fq_probe(true), fq_probe(false));
    assert!(wait(&pre) < 0.001, "preemptive wait {}", wait(&pre));
    assert!((wait(&non) - 0.05).abs() < 0.002, "non-preemptive wait {}", wait(&non));
    for r in [&pre, &non] {
        let ftp: f64 = r.flows.iter().filter(|f| f.name.starts_with('f')).map(|f| f.goodput_pps.mean).sum();
        assert!((ftp - (10.0 - 0.73 * 0.04)).abs() < 0.03, "FTPs {ftp}");
        assert!(r.flows.iter().all(|f| f.totals.data_dropped == 0));
    }
}

#[test]
fn link_delay_changes_during_a_run() {
    // One CBR packet per second over a 1 Mb/s line whose delay goes 100 ms -> 600 ms at 10.5 s
    // and -> 50 ms at 20.5 s: one-way delay follows, packets keep their order (nothing
    // overtakes when the delay shrinks), and nothing is lost.
    let text = ScenarioText::new("30s")
        .str("name", "delay-change")
        .measure("10s")
        .raw("discard", 0)
        .nodes(&["a", "b"], &[])
        .link("a", "b", "1Mbps")
        .str("delay", "100ms")
        .raw("changes", r#"[{ at = "10.5s", delay = "600ms" }, { at = "20.5s", delay = "50ms" }]"#)
        .flow("a", "b")
        .str("name", "probe")
        .str("app", "cbr")
        .str("rate", "1pps")
        .str("packet_size", "125B")
        .build();
    let r = ccsim::run_toml(&text).unwrap();
    assert_conserved(&r);
    let iv = &r.intervals.owd_s;
    let tx = 125.0 * 8.0 / 1e6;
    assert_eq!(iv.len(), 3);
    // Interval 2 holds the packets sent at 10..19 s: the one sent at 10 s still took 100 ms.
    let want = [0.1 + tx, (0.1 + 9.0 * 0.6) / 10.0 + tx, (0.6 + 9.0 * 0.05) / 10.0 + tx];
    for (got, want) in iv.iter().zip(want) {
        assert!((got - want).abs() < 1e-3, "{iv:?} vs {want}");
    }
}

#[test]
fn a_shorter_delay_does_not_let_packets_overtake() {
    // A window flow at 100 pkt/s when the delay drops from 600 ms to 50 ms: the packets sent
    // after the change queue behind those still on the line instead of arriving first, so
    // the receiver sees no reordering and the sender no duplicate ACKs (no retransmission).
    let text = ScenarioText::new("20s")
        .str("name", "delay-drop")
        .measure("5s")
        .raw("discard", 0)
        .nodes(&["a", "b"], &[])
        .link("a", "b", "800kbps")
        .str("delay", "600ms")
        .raw("changes", r#"[{ at = "10s", delay = "50ms" }]"#)
        .flow("a", "b")
        .str("name", "ftp")
        .str("cc", "jk")
        .raw("max_window", 200)
        .build();
    let r = ccsim::run_toml(&text).unwrap();
    assert_conserved(&r);
    let f = &r.flows[0];
    assert_eq!(f.totals.retransmitted, 0, "reordering caused retransmissions");
    assert!(f.totals.delivered > 1200, "{}", f.totals.delivered);
}

#[test]
fn link_jitter_delays_each_arrival_by_a_uniform_draw() {
    // A CBR probe at 10 pkt/s over a 1 Mb/s line with 20 ms of jitter: each packet reaches
    // the far end an extra uniform [0, 20 ms) late, so the mean one-way delay grows by about
    // 10 ms; the draws depend on the seed; nothing is lost or reordered.
    let text = |jitter: &str, seed: u32| {
        ScenarioText::new("1000s")
            .str("name", "jitter")
            .raw("seed", seed)
            .measure("100s")
            .raw("discard", 0)
            .nodes(&["a", "b"], &[])
            .link("a", "b", "1Mbps")
            .str("delay", "10ms")
            .str("jitter", jitter)
            .flow("a", "b")
            .str("name", "probe")
            .str("app", "cbr")
            .str("rate", "10pps")
            .str("packet_size", "125B")
            .build()
    };
    let owd = |r: &ccsim::Results| r.flows[0].owd_s.mean;
    let plain = ccsim::run_toml(&text("0s", 1)).unwrap();
    assert!((owd(&plain) - 0.011).abs() < 1e-9, "{}", owd(&plain));
    let (a, b) = (ccsim::run_toml(&text("20ms", 1)).unwrap(), ccsim::run_toml(&text("20ms", 2)).unwrap());
    for r in [&a, &b] {
        assert_conserved(r);
        assert!((owd(r) - 0.021).abs() < 0.0005, "{}", owd(r));
        let t = &r.flows[0].totals;
        assert!(t.data_dropped == 0 && t.delivered + 1 >= t.sent, "{t:?}");
    }
    assert_ne!(owd(&a), owd(&b), "the draws follow the seed");
}

/// The two uncontrolled sources of `overload_with` on a 1 Mb/s line with the given queue,
/// every drop at sw -> b traced.
fn traced_overload(queue: &str, buffer: &str) -> ccsim::Results {
    let text = ScenarioText::new("20s")
        .measure("5s")
        .raw("discard", 1)
        .str("trace_cwnd", "none")
        .raw("trace_drops", list(&["sw->b"]))
        .nodes(&["a", "c", "b"], &["sw"])
        .link("a", "sw", "10Mbps")
        .str("delay", "1ms")
        .link("c", "sw", "10Mbps")
        .str("delay", "3ms")
        .link("sw", "b", "1Mbps")
        .str("delay", "10ms")
        .str("buffer", buffer)
        .raw("count_in_service", false)
        .str("queue", queue)
        .flow("a", "b")
        .str("name", "a")
        .str("app", "poisson")
        .str("rate", "120pps")
        .str("packet_size", "1000B")
        .flow("c", "b")
        .str("name", "c")
        .str("app", "poisson")
        .str("rate", "60pps")
        .str("packet_size", "1000B")
        .build();
    run(&text)
}

/// Rows of the drop trace per flow.
fn traced_drops_of(r: &ccsim::Results, flow: u32) -> u64 {
    r.drop_trace.flow.iter().filter(|&&f| f == flow).count() as u64
}

#[test]
fn drop_trace_records_every_drop_with_a_census_of_the_queue() {
    // Drop-tail: the arrival is dropped at a full buffer, so every row sees 12 packets waiting.
    let r = traced_overload("droptail", "12pkt");
    let d = &r.drop_trace;
    assert_eq!(d.len() as u64, port(&r, "sw->b").drops, "one row per drop at the traced port");
    assert!(d.len() > 500, "the line is overloaded: {} drops", d.len());
    for f in 0..2 {
        assert_eq!(traced_drops_of(&r, f), r.flows[f as usize].totals.data_dropped, "flow {f}");
    }
    assert!(d.queue_packets.iter().all(|&q| q == 12), "drop-tail drops only at a full buffer");
    assert!((0..d.len()).all(|i| d.conv_queued[i] + d.longest_other[i] <= d.queue_packets[i]));
    assert!(d.time_s.windows(2).all(|w| w[0] <= w[1]), "rows in time order");
    assert!(d.ack.iter().all(|&a| !a) && d.retransmission.iter().all(|&x| !x));
    // Drop-tail does not choose: the 60 pkt/s source is dropped while the other holds more.
    assert!((0..d.len()).any(|i| d.conv_queued[i] + 1 < d.longest_other[i]));

    // Fair Queueing drops from the longest conversation: the victim's queue, with the
    // dropped packet put back, is never shorter than any other's. The 120 pkt/s source
    // offers about twice its share, the other just under it: nearly all drops are the first's.
    let r = traced_overload("fq", "12pkt");
    let d = &r.drop_trace;
    assert_eq!(d.len() as u64, port(&r, "sw->b").drops);
    assert!(d.queue_packets.iter().all(|&q| q == 12), "FQ too drops only at a full buffer");
    assert!((0..d.len()).all(|i| d.conv_queued[i] + 1 >= d.longest_other[i]), "FQ dropped from a shorter queue");
    // Two conversations share 12 waiting packets: the longest holds at least 6, 5 after the drop.
    assert!(d.conv_queued.iter().all(|&n| n >= 5), "the census counts the victim's queue");
    assert!(traced_drops_of(&r, 0) > 10 * traced_drops_of(&r, 1), "drops {} / {}", traced_drops_of(&r, 0), traced_drops_of(&r, 1));
}

#[test]
fn drop_trace_is_off_unless_asked_for() {
    let r = run(&overload("10pkt", true, 1000, 1000));
    assert!(port(&r, "sw->b").drops > 100);
    assert!(r.drop_trace.is_empty());
}
