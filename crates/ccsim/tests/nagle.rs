//! Nagle's small-packet rule end to end (traffic/nagle.rs, a flow's `nagle`): a Telnet source
//! writing one byte at a time over a long, slow path sends one packet per round trip instead
//! of one per keystroke, every byte written arrives (but what is held when the source stops), and the two readings of the rule (Liang's
//! stop-and-wait, RFC 1122's full segments) part where the writes fill segments.

mod common;
use common::*;

/// One flow from "a" to "b" over a 64 kb/s, 100 ms line (RTT about 0.2 s): `app` with `extra`
/// keys, packets of 41 bytes (40 of header, one keystroke), stopping at 50 s of a 60 s run.
fn path(app: &str, extra: &[(&str, &str)]) -> String {
    let mut s = ScenarioText::new("60s")
        .measure("10s")
        .nodes(&["a", "b"], &["r"])
        .link("a", "r", "10Mbps")
        .link("r", "b", "64kbps")
        .str("delay", "100ms")
        .str("buffer", "200pkt")
        .flow("a", "b")
        .str("name", "t")
        .str("app", app)
        .str("cc", "newreno")
        .str("packet_size", "41B")
        .str("stop", "50s");
    for (k, v) in extra {
        s = s.raw(k, v);
    }
    s.build()
}

#[test]
fn keystrokes_are_coalesced_to_about_one_packet_per_round_trip_and_all_arrive() {
    let plain = run(&path("telnet", &[("mean_gap", "\"20ms\"")]));
    let nagle = run(&path("telnet", &[("mean_gap", "\"20ms\""), ("nagle", "true")]));
    let (p, n) = (flow(&plain, "t"), flow(&nagle, "t"));
    eprintln!(
        "without: {} packets, {} bytes; with: {} packets for {} writes, {} bytes",
        p.totals.sent, p.totals.delivered_bytes, n.totals.sent, n.nagle_writes, n.totals.delivered_bytes
    );
    // Every keystroke is a packet without the rule: about 50 s / 20 ms = 2 500.
    assert!((2300..2700).contains(&p.totals.sent), "{}", p.totals.sent);
    assert_eq!(p.nagle_writes, 0);
    // With it, one packet per round trip (about 0.2 s): about 250 in 50 s.
    assert!((2300..2700).contains(&n.nagle_writes), "{}", n.nagle_writes);
    assert!((200..300).contains(&n.totals.sent), "{} packets", n.totals.sent);
    // Every written byte arrives but what was held when the source stopped (10 s before the
    // end: nothing is in flight then), a round trip's keystrokes at most; the user data
    // delivered is the bytes less one 40-byte header per packet.
    assert!(n.nagle_held_bytes <= 30, "{} held", n.nagle_held_bytes);
    assert_eq!(n.totals.delivered_bytes - 40 * n.totals.delivered + n.nagle_held_bytes, n.nagle_writes);
    assert_eq!(p.totals.delivered_bytes - 40 * p.totals.delivered, p.totals.delivered);
}

#[test]
fn stop_and_wait_sends_bursts_where_rfc_1122_sends_each_full_segment() {
    // 4 000 keystrokes a second (4 kB/s of data): about 800 bytes gather in a round trip,
    // more than one 576-byte segment.
    let run_with = |full: &str| {
        let text = path("cbr", &[("rate", "\"4000pps\""), ("nagle", "true"), ("nagle_full_segments", full)]);
        let (sc, w) = run_world(&text);
        (ccsim::Results::collect(&sc, &w), w)
    };
    let (strict, ws) = run_with("false");
    let (rfc, wr) = run_with("true");
    let (s, r) = (flow(&strict, "t"), flow(&rfc, "t"));
    let queue = |res: &ccsim::Results| port(res, "r->b").max_queue_packets;
    eprintln!(
        "stop-and-wait: {} packets, max queue {}; RFC 1122: {} packets, max queue {}",
        s.totals.sent,
        queue(&strict),
        r.totals.sent,
        queue(&rfc)
    );
    for (f, w) in [(s, &ws), (r, &wr)] {
        assert_eq!(f.totals.delivered_bytes - 40 * f.totals.delivered + f.nagle_held_bytes, f.nagle_writes);
        assert!(w.flows[0].nagle().is_some());
    }
    // Stop-and-wait sends only when everything is acknowledged: what gathered over a round trip
    // goes as a burst, a part-filled packet at its end; RFC 1122 sends each segment as it fills.
    // Measured: 445 packets and a queue of 3 against 374 and 1.
    assert!(s.totals.sent > r.totals.sent, "stop-and-wait {} vs RFC {}", s.totals.sent, r.totals.sent);
    assert!(queue(&strict) > queue(&rfc), "bursts queue: {} vs {}", queue(&strict), queue(&rfc));
}
