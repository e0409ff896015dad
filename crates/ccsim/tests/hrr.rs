//! HRR end to end (queue/hrr.rs, flows' `reserved_rate`, the port's wake-up for a discipline
//! that holds packets on an idle line): a reserved flow gets its rate and no more, even alone
//! on the line; an unreserved flow takes the time it leaves.

mod common;
use common::*;

/// NewReno flows from `hosts` through a 10 Mb/s, 20 ms bottleneck of 100 packets running
/// HRR (one level of 100 slots of 1000 B: 80 ms frames); flow "a" reserves 2 Mb/s. 60 s.
fn network(hosts: &[&str]) -> String {
    let mut s = ScenarioText::new("60s").measure("5s").raw("discard", 2).nodes(&["a", "b", "d"], &["r1", "r2"]);
    s = s.link("a", "r1", "100Mbps").link("b", "r1", "100Mbps");
    s = s.link("r1", "r2", "10Mbps").str("delay", "20ms").str("buffer", "100pkt").str("queue", "hrr");
    s = s.link("r2", "d", "100Mbps");
    for &h in hosts {
        s = s.flow(h, "d").str("name", h).str("cc", "newreno");
        if h == "a" {
            s = s.str("reserved_rate", "2Mbps");
        }
    }
    s.build()
}

fn mbps(r: &ccsim::Results, name: &str) -> f64 {
    flow(r, name).goodput_bps.mean / 1e6
}

#[test]
fn a_reserved_flow_gets_its_rate_and_no_more() {
    let alone = run(&network(&["a"]));
    let both = run(&network(&["a", "b"]));
    assert_conserved(&alone);
    assert_conserved(&both);
    let util = |r: &ccsim::Results| port(r, "r1->r2").utilisation;
    eprintln!(
        "HRR: a alone {:.2} Mb/s (line {:.3} busy); with b: a {:.2}, b {:.2}",
        mbps(&alone, "a"),
        util(&alone),
        mbps(&both, "a"),
        mbps(&both, "b")
    );
    // Alone on a free 10 Mb/s line the channel still gets 20 slots a frame: 2 Mb/s. Measured:
    // 1.98 alone (the line 0.199 busy); with "b", 2.00 and 7.92.
    assert!((1.8..2.05).contains(&mbps(&alone, "a")), "{}", mbps(&alone, "a"));
    assert!(util(&alone) < 0.25);
    assert!((1.8..2.05).contains(&mbps(&both, "a")));
    assert!(mbps(&both, "b") > 7.0, "best effort takes the rest: {}", mbps(&both, "b"));
}
