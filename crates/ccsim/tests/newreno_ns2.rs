//! Issue 21: NewReno's readings after a slow-start overshoot, and pacing.
//!
//! One NewReno flow on a 100 Mb/s, 20 ms bottleneck with a 350-packet drop-tail buffer,
//! 1 Gb/s, 0.5 ms access links (RTT 42 ms, BDP 505 packets of 1040 B: 1000 B of payload and
//! 40 B of headers, Cui's packets), an unlimited receiver window, 30 s. Slow start overshoots
//! and loses some 850 packets of one window; what follows depends on the partial-ACK rules.
//! `cargo test --release -p ccsim --test newreno_ns2 -- --nocapture` prints the table;
//! `NEWRENO_PACKET=1500B` before it runs the same with other packets (the run), and
//! checks nothing.

mod common;
use ccsim::transport::cc::{Cc, CongestionControl};
use ccsim::transport::Sender;
use common::*;

const PS: u64 = ccsim::sim::PS_PER_SEC;

/// ns-2's timer and start (ns-2.30 to 2.35), besides its NewReno.
const NS2: &str = "variant = \"ns2\", initial_cwnd = 2, initial_rto = \"3s\", rtt_samples = \"one_per_rtt\", rto_granularity = \"10ms\"";

/// Bytes of a data packet on the wire (40 of them headers).
fn packet_bytes() -> u64 {
    let text = std::env::var("NEWRENO_PACKET").unwrap_or_else(|_| "1040B".into());
    text.trim_end_matches('B').parse().expect("NEWRENO_PACKET: bytes, e.g. 1500B")
}

/// What a reading did, sampled every millisecond.
#[derive(Debug, Default)]
struct Outcome {
    /// When ssthresh was first cut (the first fast retransmission), s.
    first_cut_s: f64,
    /// Drops by the end of the first recovery (full ACK or timeout): the overshoot's losses.
    overshoot_losses: u64,
    drops: u64,
    /// Time spent in fast recovery, s.
    recovery_s: f64,
    timeouts: u64,
    /// Largest window counter (cwnd with its inflation), packets.
    peak_cwnd: f64,
    /// In-order payload delivered over the run, Mb/s.
    goodput_mbps: f64,
}

fn in_recovery(s: &Sender) -> bool {
    matches!(&s.cc, Cc::NewReno(n) if n.in_recovery())
}

fn run_reading(params: &str, secs: u32) -> Outcome {
    let sc = ccsim::Scenario::from_toml_str(&overshoot("newreno", params, packet_bytes(), secs)).unwrap();
    let mut w = ccsim::scenario::build::build_world(&sc).unwrap();
    let mut o = Outcome::default();
    let (mut cut, mut first_over) = (false, false);
    let mut t = 0;
    while t < sc.duration {
        t += PS / 1000;
        w.end = t;
        w.run();
        let f = &w.flows[0];
        let s = f.sender.as_ref().unwrap();
        o.drops = f.cur.data_dropped + f.total.data_dropped;
        o.peak_cwnd = o.peak_cwnd.max(s.cc.cwnd());
        o.timeouts = s.timeouts;
        if !cut && s.cc.ssthresh() < 1e8 {
            cut = true;
            o.first_cut_s = t as f64 / PS as f64;
        }
        if in_recovery(s) {
            o.recovery_s += 0.001;
        } else if cut && !first_over {
            first_over = true;
            o.overshoot_losses = o.drops;
        }
    }
    if !first_over {
        o.overshoot_losses = o.drops;
    }
    let r = ccsim::Results::collect(&sc, &w);
    assert_conserved(&r);
    o.goodput_mbps = w.flows[0].sink.rcv_nxt as f64 * (packet_bytes() - 40) as f64 * 8.0 / secs as f64 / 1e6;
    o
}

#[test]
fn partial_ack_rules_after_a_slow_start_overshoot() {
    let readings = [
        ("slow-but-steady", "partial_ack_timer = \"slow_but_steady\"".to_string()),
        ("impatient (default)", String::new()),
        ("ns-2 (Cui)", NS2.to_string()),
        ("ns-2 before 2003", format!("{NS2}, partial_ack_timer = \"slow_but_steady\", partial_deflation = false")),
        ("paced", "pacing = true".to_string()),
        ("paced ns-2", format!("{NS2}, pacing = true")),
        ("paced slow-but-steady", "partial_ack_timer = \"slow_but_steady\", pacing = true".to_string()),
    ];
    println!(
        "{:24} {:>9} {:>9} {:>7} {:>11} {:>8} {:>10} {:>9}",
        "reading", "cut at s", "overshoot", "drops", "recovery s", "timeouts", "peak cwnd", "Mb/s"
    );
    let mut out = Vec::new();
    for (name, params) in &readings {
        let o = run_reading(params, 30);
        println!(
            "{name:24} {:9.3} {:9} {:7} {:11.3} {:8} {:10.1} {:9.2}",
            o.first_cut_s, o.overshoot_losses, o.drops, o.recovery_s, o.timeouts, o.peak_cwnd, o.goodput_mbps
        );
        out.push(o);
    }
    if packet_bytes() != 1040 {
        return;
    }
    let [steady, impatient, ns2, ns2_old, paced, paced_ns2, paced_steady] = &out[..] else { unreachable!() };

    // Slow-but-Steady: one repair per round trip, the timer restarted by each, so the
    // recovery of some 850 holes outlasts the run; the duplicate ACKs of the data sent
    // meanwhile inflate the window counter without bound, and the goodput is the in-order
    // trickle of one hole per round trip.
    for o in [steady, paced_steady] {
        assert!(o.recovery_s > 25.0 && o.timeouts == 0, "{o:?}");
        assert!(o.peak_cwnd > 100_000.0 && o.goodput_mbps < 2.0, "{o:?}");
    }
    // Impatient: the timer set at the first partial ACK expires a few repairs later; the
    // timeout slow-starts from the oldest hole (go-back-N) and the flow fills the link.
    assert_eq!(impatient.overshoot_losses, steady.overshoot_losses, "the same overshoot");
    assert!(impatient.recovery_s < 2.0 && impatient.timeouts >= 1, "{impatient:?}");
    assert!(impatient.goodput_mbps > 40.0 && impatient.peak_cwnd < 10_000.0, "{impatient:?}");
    // ns-2 times out once; its timeout takes ssthresh from cwnd_ (half the overshoot
    // window), not from the inflated flight, so its slow start stops short of a second
    // overshoot: one loss after the first episode, and close to the full link.
    assert!(ns2.timeouts == 1 && ns2.recovery_s < 1.0, "{ns2:?}");
    assert!(ns2.drops <= ns2.overshoot_losses + 5 && ns2.goodput_mbps > 80.0, "{ns2:?}");
    assert!(impatient.drops > impatient.overshoot_losses + 100, "RFC 6582's FlightSize/2 overshoots again: {impatient:?}");
    // ns-2 before 2003 (no deflation, Slow-but-Steady): as long a recovery, but each partial
    // ACK drops the inflation, so the window counter never passes the overshoot's window.
    assert!(ns2_old.recovery_s > 25.0 && ns2_old.goodput_mbps < 2.0, "{ns2_old:?}");
    assert!(ns2_old.peak_cwnd < 2_000.0, "{ns2_old:?}");
    // Pacing: the queue builds only once the window exceeds the path, so the first loss
    // comes later; by then the window is larger, and the overshoot is no smaller (one flow,
    // a buffer of 0.7 BDP: pacing delays the congestion signal, as Aggarwal et al. found).
    for (p, a) in [(paced, impatient), (paced_ns2, ns2), (paced_steady, steady)] {
        assert!(p.first_cut_s > a.first_cut_s + 0.02, "paced {p:?} vs {a:?}");
        assert!(p.overshoot_losses >= a.overshoot_losses, "paced {p:?} vs {a:?}");
    }
    assert!(paced_ns2.goodput_mbps > 80.0, "{paced_ns2:?}");
}

/// One window flow a -> b over 10 Mb/s with 50 ms each way and a window of 10: the path
/// could carry over 100 packets, so the flow is window-limited and nothing queues.
fn window_limited(params: &str) -> String {
    ScenarioText::new("3s")
        .measure("3s")
        .raw("discard", 0)
        .raw("trace_departures", list(&["a->b"]))
        .str("trace_cwnd", "none")
        .nodes(&["a", "b"], &[])
        .link("a", "b", "10Mbps")
        .str("delay", "50ms")
        .flow("a", "b")
        .str("name", "f")
        .str("cc", "newreno")
        .raw("max_window", 10)
        .str("packet_size", "1000B")
        .raw("params", params)
        .build()
}

/// Gaps between the data departures on a -> b after `from` seconds, in ms.
fn gaps_ms(r: &ccsim::Results, from: f64) -> Vec<f64> {
    let log = &r.departures[0].1;
    let times: Vec<f64> = (0..log.time_s.len()).filter(|&i| log.kind[i] == 0 && log.time_s[i] >= from).map(|i| log.time_s[i]).collect();
    times.windows(2).map(|w| (w[1] - w[0]) * 1e3).collect()
}

#[test]
fn paced_packets_leave_srtt_over_cwnd_apart() {
    // RTT = 100 ms + 0.8 ms to send a packet + 0.032 ms for its ACK; window 10: the paced
    // flow sends one packet every srtt / 10 = 10.08 ms, the unpaced one its window back to
    // back (0.8 ms apart) once per round trip.
    let srtt_ms = 100.0 + 0.8 + 40.0 * 8.0 / 10e6 * 1e3;
    let paced = run(&window_limited("{ pacing = true }"));
    let gaps = gaps_ms(&paced, 1.0);
    assert!(gaps.len() > 150, "{} departures", gaps.len());
    for g in &gaps {
        assert!((g - srtt_ms / 10.0).abs() < 0.01, "paced gap {g} ms, expected {} ms", srtt_ms / 10.0);
    }
    let plain = run(&window_limited("{}"));
    let gaps = gaps_ms(&plain, 1.0);
    let back_to_back = gaps.iter().filter(|&&g| (g - 0.8).abs() < 1e-6).count();
    assert!(back_to_back * 10 >= gaps.len() * 8, "unpaced: 9 of 10 gaps are one packet time, got {back_to_back} of {}", gaps.len());
    // The same rate, window / RTT, once slow start (paced too) is over.
    let (p, q) = (flow(&paced, "f").totals.delivered as f64, flow(&plain, "f").totals.delivered as f64);
    assert!((p - q).abs() < 0.05 * q, "delivered: paced {p}, unpaced {q}");
}
