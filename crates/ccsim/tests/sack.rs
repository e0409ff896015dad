//! SACK recovery in whole networks: SACK TCP (`cc = "sack"`) against Reno and NewReno after a
//! slow-start overshoot, and FAST's `recovery = "sack"`.
//!
//! One flow on a 100 Mb/s, 20 ms bottleneck with a 350-packet drop-tail buffer, 1 Gb/s, 0.5 ms
//! access links (RTT 42 ms), 1040-B packets, an unlimited receiver window: slow start
//! overshoots and loses hundreds of packets of one window. Reno's recovery ends at the first
//! partial ACK and NewReno repairs one hole per round trip until its timer expires; SACK
//! resends the holes as its pipe estimate lets it, in one recovery. `cargo test --release -p
//! ccsim --test sack -- --nocapture` prints the numbers.

mod common;
use common::*;

/// The common overshoot network, 10 s of 1040-B packets.
fn overshoot10(cc: &str, params: &str) -> String {
    overshoot(cc, params, 1040, 10)
}

/// (timeouts, drops, goodput Mb/s) of one run.
fn outcome(cc: &str, params: &str) -> (u64, u64, f64) {
    let r = run(&overshoot10(cc, params));
    let f = flow(&r, "f");
    let goodput = f.totals.delivered as f64 * 1000.0 * 8.0 / 10.0 / 1e6;
    (f.timeouts, f.totals.data_dropped, goodput)
}

#[test]
fn sack_repairs_a_slow_start_overshoot_in_one_recovery() {
    let sack = outcome("sack", "");
    let newreno = outcome("newreno", "");
    let reno = outcome("reno", "");
    let partial = outcome("sack", "partial_ack = true");
    for (name, o) in [("sack", sack), ("sack, partial_ack", partial), ("newreno", newreno), ("reno", reno)] {
        eprintln!("overshoot, 10 s: {name:18} timeouts {:3}  drops {:5}  goodput {:6.2} Mb/s", o.0, o.1, o.2);
    }
    assert!(sack.1 > 300, "slow start overshoots: {} drops", sack.1);
    assert_eq!(sack.0, 0, "SACK recovers the whole window without a timeout");
    assert!(newreno.0 >= 1 && reno.0 >= 1, "NewReno and Reno time out: {} and {}", newreno.0, reno.0);
    assert!(sack.2 > newreno.2 && sack.2 > reno.2, "SACK delivers most: {sack:?} {newreno:?} {reno:?}");
    assert!(sack.2 > 80.0, "and keeps the 100 Mb/s line busy: {} Mb/s", sack.2);
}

/// FAST's two recoveries on the same network, where it overflows the buffer in its first round
/// trips (alpha 400 > 350 packets of buffer; one packet per ACK while the queueing delay is
/// under 1 ms): the SACK reading repairs the losses without a timeout, NewReno's does not.
#[test]
fn fast_recovers_with_sack_when_asked() {
    let sack = outcome("fast", "alpha = 400, mi_threshold = \"1ms\", recovery = \"sack\"");
    let newreno = outcome("fast", "alpha = 400, mi_threshold = \"1ms\"");
    eprintln!("FAST overshoot: sack {sack:?}, newreno (default) {newreno:?} (timeouts, drops, Mb/s)");
    assert!(sack.1 > 0 && newreno.1 > 0, "both overflow the buffer");
    assert_eq!(sack.0, 0, "SACK: no timeout");
    assert!(newreno.0 > 0 && sack.2 > newreno.2, "NewReno's recovery times out and delivers less: {newreno:?} against {sack:?}");
}

#[test]
fn sack_parameters_are_checked_and_named() {
    let e = ccsim::run_toml(&overshoot10("sack", "rescue = -1")).expect_err("a negative rescue must be refused");
    assert_eq!(e.path, "flows[0].params.rescue");
    let e = ccsim::run_toml(&overshoot10("fast", "recovery = \"fack\"")).expect_err("an unknown recovery must be refused");
    assert_eq!(e.path, "flows[0].params.recovery");
    assert!(e.message.contains("sack") && e.message.contains("newreno"), "{}", e.message);
    let e = ccsim::run_toml(&overshoot10("fast", "partial_ack = true")).expect_err("partial_ack without SACK recovery means nothing");
    assert_eq!(e.path, "flows[0].params.partial_ack");
    assert!(e.message.contains("recovery = \"sack\""), "{}", e.message);
}

/// Review finding: paced SACK flows whose recovery had nothing to send armed a pacing event in
/// the past, forever (the run hung at 0.19 s). A lossy line and a small receiver window, SACK
/// TCP and FAST's SACK recovery, paced: each run ends and conserves packets.
#[test]
fn paced_sack_recoveries_run_to_the_end() {
    for (cc, window, params) in [("sack", 8, "pacing = true"), ("fast", 30, "pacing = true, recovery = \"sack\", alpha = 20")] {
        let text = ScenarioText::new("5s")
            .nodes(&["s", "r"], &["a", "b"])
            .link("s", "a", "1Gbps")
            .str("delay", "1ms")
            .link("a", "b", "10Mbps")
            .str("delay", "10ms")
            .str("buffer", "10pkt")
            .raw("loss", 0.01)
            .link("b", "r", "1Gbps")
            .str("delay", "1ms")
            .flow("s", "r")
            .str("name", "f")
            .str("cc", cc)
            .raw("max_window", window)
            .raw("params", format!("{{ {params} }}"))
            .build();
        let r = run(&text);
        assert!(flow(&r, "f").totals.delivered > 1000, "{cc}: {} delivered", flow(&r, "f").totals.delivered);
    }
}
