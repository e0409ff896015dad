//! Virtual Clock end to end (queue/virtual_clock.rs, flows' `reserved_rate`): a flow with a
//! reservation gets its rate through a Virtual Clock bottleneck and the flows without one share
//! what is left, where Fair Queueing gives all three the same.

mod common;
use common::*;

/// Three NewReno flows through a 10 Mb/s, 20 ms bottleneck of 100 packets running `queue`;
/// flow "a" reserves 6 Mb/s. 60 s.
fn network(queue: &str) -> String {
    let mut s = ScenarioText::new("60s")
        .measure("5s")
        .raw("discard", 2)
        .nodes(&["a", "b", "c", "d"], &["r1", "r2"])
        .link("a", "r1", "100Mbps")
        .link("b", "r1", "100Mbps")
        .link("c", "r1", "100Mbps")
        .link("r1", "r2", "10Mbps")
        .str("delay", "20ms")
        .str("buffer", "100pkt")
        .str("queue", queue)
        .link("r2", "d", "100Mbps");
    for h in ["a", "b", "c"] {
        s = s.flow(h, "d").str("name", h).str("cc", "newreno");
        if h == "a" && queue == "virtual_clock" {
            s = s.str("reserved_rate", "6Mbps");
        }
    }
    s.build()
}

fn mbps(r: &ccsim::Results, name: &str) -> f64 {
    flow(r, name).goodput_bps.mean / 1e6
}

#[test]
fn a_reservation_is_honoured_and_the_rest_shared_by_the_unreserved() {
    let vc = run(&network("virtual_clock"));
    let fq = run(&network("fq"));
    assert_conserved(&vc);
    let show = |r: &ccsim::Results| format!("{:.2} {:.2} {:.2}", mbps(r, "a"), mbps(r, "b"), mbps(r, "c"));
    eprintln!("Virtual Clock: {}; FQ: {}", show(&vc), show(&fq));
    // Measured: 6.00, 2.00 and 2.00 Mb/s; FQ 3.33, 3.35 and 3.28.
    assert!((5.7..6.3).contains(&mbps(&vc, "a")), "{}", show(&vc));
    for n in ["b", "c"] {
        assert!((1.8..2.2).contains(&mbps(&vc, n)), "{}", show(&vc));
        assert!((mbps(&fq, n) - mbps(&fq, "a")).abs() < 0.5, "{}", show(&fq));
    }
}
