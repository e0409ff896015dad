//! The TCPs Cui §2.2.3 reviews (BIC, CUBIC, Scalable TCP, HighSpeed TCP, H-TCP, Hybla, Westwood+)
//! against Reno's AIMD on a path whose
//! bandwidth-delay product is large and whose buffer is small: "the traditional TCP variants
//! ... may attain low utilization in high-speed networks because the AIMD algorithm enlarges
//! the window size cautiously while decreases the window size drastically".

mod common;
use common::*;

/// One flow (`cc`) over a 100 Mb/s, 49 ms bottleneck (RTT 100 ms with 0.5 ms access links:
/// 1200 packets of 1040 B in flight) with a drop-tail buffer of 120 packets (a tenth of
/// that), 150 s, measured after 50 s.
fn long_fat(cc: &str) -> String {
    ScenarioText::new("150s")
        .measure("50s")
        .raw("discard", 1)
        .str("trace_cwnd", "none")
        .str("trace_queues", "none")
        .nodes(&["s", "d"], &["a", "b"])
        .link("s", "a", "1Gbps")
        .str("delay", "0.5ms")
        .link("a", "b", "100Mbps")
        .str("delay", "49ms")
        .str("buffer", "120pkt")
        .link("b", "d", "1Gbps")
        .str("delay", "0.5ms")
        .flow("s", "d")
        .str("name", "f")
        .str("cc", cc)
        .raw("max_window", 100_000)
        .str("packet_size", "1040B")
        .build()
}

#[test]
fn high_speed_tcps_keep_a_long_fat_pipe_fuller_than_aimd_with_a_small_buffer() {
    let mbps = |cc: &str| {
        let r = run(&long_fat(cc));
        let f = flow(&r, "f");
        (f.goodput_bps.mean / 1e6, f.timeouts, f.totals.data_dropped)
    };
    let all: Vec<(&str, (f64, u64, u64))> =
        ["cubic", "bic", "stcp", "hstcp", "htcp", "hybla", "westwood", "sack", "newreno"].iter().map(|&cc| (cc, mbps(cc))).collect();
    eprintln!("100 Mb/s, RTT 100 ms, buffer 0.1 BDP, 50-150 s (Mb/s, timeouts, drops): {all:?}");
    let get = |cc: &str| all.iter().find(|(n, _)| *n == cc).unwrap().1 .0;
    // Measured: CUBIC 93.2 Mb/s (215 drops), BIC 99.5 (1712), Scalable TCP 99.2 (1327), HighSpeed TCP 90.6 (387),
    // H-TCP 93.6 (664), Hybla 80.7 (paced; 9779, 3 timeouts), Westwood+ 79.4 (131, 1 timeout), SACK TCP
    // 75.9 (131), NewReno 72.4 (161, 2 timeouts).
    for cc in ["cubic", "bic", "stcp", "hstcp", "htcp"] {
        assert!(get(cc) > 88.0 && get(cc) > get("sack") + 8.0, "{cc}: {all:?}");
    }
    // Hybla (its RTT scaling: the path's 100 ms is 4 RTT0) and Westwood+ (the window a loss keeps
    // is the pipe the ACKs measured) do better than halving, less than the high-speed laws.
    for cc in ["hybla", "westwood"] {
        assert!(get(cc) > get("sack") + 2.0 && get(cc) < 88.0, "{cc}: {all:?}");
    }
}
