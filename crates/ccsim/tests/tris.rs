//! Tri-S in a network: one source over Liang 1991's Tri-S bottleneck (Table 5.17, Exp 1:
//! 500 kb/s and 50 ms between the routers, 1 Mb/s access lines, a 30-packet buffer, maximum
//! window 85, 512-byte packets, 50-byte ACKs, the first 10 s left out). Its initialisation
//! overflows the buffer; after the timeout the throughput gradient stops the window near the
//! pipe (500 kb/s x 118 ms = 14.4 packets), where it stays without loss.

mod common;
use common::*;

fn liang_exp1(params: &str) -> String {
    ScenarioText::new("70s")
        .measure("10s")
        .raw("discard", 1)
        .str("trace_period", "10ms")
        .nodes(&["s1", "d1"], &["r1", "r2"])
        .link("s1", "r1", "1Mbps")
        .link("r1", "r2", "500kbps")
        .str("delay", "50ms")
        .str("buffer", "30pkt")
        .link("r2", "d1", "1Mbps")
        .flow("s1", "d1")
        .str("name", "tris")
        .str("cc", "tris")
        .raw("max_window", 85)
        .str("packet_size", "512B")
        .str("ack_size", "50B")
        .raw("params", params)
        .build()
}

#[test]
fn one_tris_source_settles_near_the_pipe_without_loss() {
    // Default (retransmitted probes timed) and Karn's rule for probes (the decrease state
    // after the start-up timeout grows blind through go-back-N and overflows once more).
    for params in ["{}", "{ probe_retx = false }"] {
        let r = run(&liang_exp1(params));
        let f = flow(&r, "tris");
        assert!(f.totals.data_dropped > 10 && f.timeouts >= 1, "{params}: start-up overflows the buffer: {:?}", f.totals);
        assert_eq!((f.drop_rate.mean, f.retx_rate.mean), (0.0, 0.0), "{params}: loss after 10 s");
        assert!(f.goodput_bps.mean > 0.95 * 500e3, "{params}: goodput {} bit/s", f.goodput_bps.mean);
        let t = &r.cwnd_trace;
        let (state, ntg) = (t.column("state").unwrap(), t.column("ntg").unwrap());
        let after: Vec<usize> = (0..t.flow.len()).filter(|&i| t.time_s[i] >= 10.0).collect();
        assert!(after.len() > 5000);
        assert!(after.iter().all(|&i| state[i] == 2.0 && ntg[i].is_finite()), "{params}: the increase state throughout");
        let (lo, hi) = after.iter().fold((f64::MAX, 0.0f64), |(lo, hi), &i| (lo.min(t.cwnd[i]), hi.max(t.cwnd[i])));
        // Without the gradient the window would run on to the 44 packets the pipe and the
        // buffer hold (and lose), or to the maximum of 85.
        assert!(lo >= 14.0 && hi < 22.0, "{params}: window {lo} .. {hi} after 10 s");
        println!(
            "{params}: goodput {:.0} bit/s, window {lo:.2} .. {hi:.2}, start-up drops {}, timeouts {}",
            f.goodput_bps.mean, f.totals.data_dropped, f.timeouts
        );
    }
}
