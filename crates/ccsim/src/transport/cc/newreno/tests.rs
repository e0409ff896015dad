//! NewReno's unit tests.

use super::*;
use crate::scenario::decode::Obj;
use crate::sim::PS_PER_SEC as SEC;
use crate::transport::cc::Cc;
use crate::transport::config::TimerMode;
use crate::transport::sender::Sender;

fn config(text: &str) -> (NewRenoConfig, SenderConfig) {
    let v = toml::Value::Table(toml::from_str::<toml::Table>(text).unwrap());
    let mut sender = NewReno::sender_defaults();
    let cfg = NewReno::decode(&mut Params::new(Obj::new(&v, "params").unwrap()), &mut sender).unwrap();
    (cfg, sender)
}

/// NewReno in congestion avoidance at cwnd `w` (ssthresh 5), everything below 1 acked.
fn avoiding(variant: NewRenoVariant, w: f64) -> NewReno {
    let cfg = NewRenoConfig { variant, ..NewRenoConfig::default() };
    NewReno { cwnd: w, ssthresh: 5.0, ..NewReno::build(&cfg, 1000) }
}

fn dup(ack: u64, high_sent: u64, flight: u64) -> AckInfo {
    AckInfo { ack, high_sent, flight_before: flight, ..AckInfo::default() }
}

fn new_ack(ack: u64, newly: u64, high_sent: u64, flight: u64) -> AckInfo {
    AckInfo { ack, newly_acked: newly, high_sent, flight_before: flight, ..AckInfo::default() }
}

#[test]
fn state_fits_beside_reno_in_cc() {
    // Every window flow holds a `Cc`; NewReno at 48 bytes made it 8 bytes larger.
    assert!(std::mem::size_of::<NewReno>() <= 40);
    assert_eq!(std::mem::size_of::<Cc>(), std::mem::size_of::<crate::transport::cc::reno::Reno>());
    // Reno, the largest unboxed one, with ns-2's recover guard: 56 made every flow 8 bytes larger.
    assert!(std::mem::size_of::<Cc>() <= 48);
}

#[test]
fn an_ecn_mark_halves_the_flight_outside_recovery_only() {
    let (cfg, sender) = config("ecn = true");
    assert!(sender.ecn && !config("").1.ecn);
    let mut c = NewReno::build(&cfg, 1000);
    c.cwnd = 40.0;
    assert!(c.on_ecn(&new_ack(100, 1, 140, 40)));
    assert_eq!((c.cwnd(), c.ssthresh()), (20.0, 20.0), "RFC 3168 §6.1.2: as a fast retransmit, without the inflation");
    for _ in 0..3 {
        c.on_dup_ack(3, &dup(120, 160, 40));
    }
    assert!(c.in_recovery());
    assert!(!c.on_ecn(&dup(120, 160, 40)), "in recovery the window is already reduced");
}

#[test]
fn parameters() {
    let (cfg, sender) = config("");
    assert_eq!((cfg, sender.timers), (NewRenoConfig::default(), TimerMode::Single));
    assert_eq!(cfg.partial_ack_timer, PartialAckTimer::Impatient, "RFC 6582 §3.2 step 3");
    let (cfg, sender) = config("variant = \"ns2\"\npartial_ack_timer = \"slow_but_steady\"\npartial_deflation = false");
    assert_eq!((cfg.variant, cfg.partial_ack_timer, cfg.partial_deflation), (NewRenoVariant::Ns2, PartialAckTimer::SlowButSteady, false));
    assert_eq!(sender.timers, TimerMode::SingleBsd, "ns-2 restarts the timer at a fast retransmission");
}

#[test]
fn third_duplicate_halves_the_flight_or_ns2s_window() {
    // cwnd 10.5 with 10 packets (1..=10) outstanding; packet 1 lost.
    let mut rfc = avoiding(NewRenoVariant::Rfc6582, 10.5);
    let mut ns2 = avoiding(NewRenoVariant::Ns2, 10.5);
    for count in 1..=3 {
        let fired = (rfc.on_dup_ack(count, &dup(1, 11, 10)), ns2.on_dup_ack(count, &dup(1, 11, 10)));
        assert_eq!(fired, (count == 3, count == 3));
    }
    // RFC 6582: ssthresh = FlightSize / 2 = 5, cwnd 5 + 3.
    assert_eq!((rfc.cwnd(), rfc.ssthresh()), (8.0, 5.0));
    // ns-2: ssthresh = floor(10.5 / 2), cwnd_ = 10.5 / 2 unrounded, + 3.
    assert_eq!((ns2.cwnd(), ns2.ssthresh()), (5.25 + 3.0, 5.0));
    for n in [&mut rfc, &mut ns2] {
        n.on_dup_ack(4, &dup(1, 11, 10));
    }
    assert_eq!((rfc.cwnd(), ns2.cwnd()), (9.0, 9.25), "+1 per further duplicate");
}

#[test]
fn partial_acks_deflate_and_full_acks_end_recovery() {
    for variant in [NewRenoVariant::Rfc6582, NewRenoVariant::Ns2] {
        let mut n = avoiding(variant, 10.0);
        for count in 1..=7 {
            n.on_dup_ack(count, &dup(1, 11, 10));
        }
        assert_eq!(n.cwnd(), 12.0, "{variant:?}: 5 + 3 + 4 duplicates");
        // A partial ACK of 2 packets: window - 2 + 1 in both readings.
        assert_eq!(n.on_new_ack(&new_ack(3, 2, 13, 12)), AckResponse::RetransmitFirstUnacked);
        assert_eq!(n.cwnd(), 11.0, "{variant:?}");
        // One of 7 (more than the inflation of 6 left): ns-2 takes the rest from cwnd_.
        assert_eq!(n.on_new_ack(&new_ack(10, 7, 13, 10)), AckResponse::RetransmitKeepTimer, "Impatient after the first");
        match variant {
            NewRenoVariant::Rfc6582 => assert_eq!(n.cwnd(), 5.0),
            NewRenoVariant::Ns2 => assert_eq!((n.cwnd, n.dupwnd), (4.0, 1.0)),
        }
        // The full ACK (past recover, 11) acknowledges everything: RFC 6582 sets
        // min(ssthresh, max(FlightSize, 1) + 1); ns-2 drops the inflation and counts the
        // ACK on cwnd_ (4 < ssthresh: +1).
        assert_eq!(n.on_new_ack(&new_ack(13, 3, 13, 3)), AckResponse::Nothing);
        assert!(!n.in_recovery());
        let want = match variant {
            NewRenoVariant::Rfc6582 => 2.0,
            NewRenoVariant::Ns2 => 5.0,
        };
        assert_eq!((n.cwnd(), n.ssthresh()), (want, 5.0), "{variant:?}");
    }
}

#[test]
fn without_deflation_a_partial_ack_drops_the_inflation() {
    let cfg = NewRenoConfig { variant: NewRenoVariant::Ns2, partial_deflation: false, ..NewRenoConfig::default() };
    let mut n = NewReno { cwnd: 10.0, ssthresh: 5.0, ..NewReno::build(&cfg, 1000) };
    for count in 1..=7 {
        n.on_dup_ack(count, &dup(1, 11, 10));
    }
    n.on_new_ack(&new_ack(3, 2, 13, 12));
    assert_eq!(n.cwnd(), 5.0, "back to cwnd_ = ssthresh: no new data until the flight drains");
    n.on_dup_ack(1, &dup(3, 13, 10));
    assert_eq!(n.cwnd(), 6.0, "later duplicates inflate again");
}

#[test]
fn ns2_needs_the_ack_past_recover_for_another_fast_retransmit() {
    for variant in [NewRenoVariant::Rfc6582, NewRenoVariant::Ns2] {
        let mut n = avoiding(variant, 10.0);
        n.on_timeout(&TimeoutInfo { flight: 10, high_sent: 11, ..TimeoutInfo::default() });
        assert_eq!((n.cwnd(), n.ssthresh()), (1.0, 5.0));
        // Everything sent before the timeout (up to 10) acknowledged: ACK 11 = recover.
        let fired: Vec<bool> = (1..=3).map(|c| n.on_dup_ack(c, &dup(11, 15, 4))).collect();
        match variant {
            NewRenoVariant::Rfc6582 => assert_eq!(fired, [false, false, true]),
            NewRenoVariant::Ns2 => {
                assert_eq!(fired, [false, false, false], "highest_ack_ == recover_ is not past it");
                assert_eq!(n.cwnd(), 1.0, "no inflation without a retransmission (exitFastRetrans_)");
                assert!(n.on_dup_ack(3, &dup(12, 15, 3)), "one packet past recover");
            }
        }
    }
}

#[test]
fn ns2_timeout_halves_the_window_without_its_inflation() {
    let mut n = avoiding(NewRenoVariant::Ns2, 10.0);
    for count in 1..=9 {
        n.on_dup_ack(count, &dup(1, 11, 10));
    }
    assert_eq!(n.cwnd(), 14.0);
    n.on_timeout(&TimeoutInfo { flight: 16, high_sent: 17, ..TimeoutInfo::default() });
    assert_eq!((n.cwnd(), n.ssthresh()), (1.0, 2.0), "floor(cwnd_ 5 / 2), at least 2");
    let mut r = avoiding(NewRenoVariant::Rfc6582, 10.0);
    r.on_timeout(&TimeoutInfo { flight: 16, high_sent: 17, ..TimeoutInfo::default() });
    assert_eq!(r.ssthresh(), 8.0, "RFC 6582: FlightSize / 2");
}

#[test]
fn a_timeout_in_recovery_keeps_its_ssthresh_unless_told_to_take_the_swollen_flight() {
    for (reading, want) in [("keep_ssthresh", 5.0), ("flight", 20.0)] {
        let (cfg, _) = config(&format!("timeout_in_recovery = \"{reading}\""));
        let mut n = NewReno { cwnd: 10.0, ssthresh: 5.0, ..NewReno::build(&cfg, 1000) };
        // Fast retransmission of packet 1 with 10 outstanding: ssthresh 5; the retransmission
        // is lost and 30 more duplicate ACKs let the inflated window send up to 40.
        for count in 1..=33 {
            n.on_dup_ack(count, &dup(1, 11, 10));
        }
        assert!(n.in_recovery() && n.ssthresh() == 5.0 && n.cwnd() == 38.0);
        n.on_timeout(&TimeoutInfo { flight: 40, high_sent: 41, ..TimeoutInfo::default() });
        assert_eq!((n.cwnd(), n.ssthresh()), (1.0, want), "{reading}");
        // Outside a recovery (a new ACK since) both readings take FlightSize / 2.
        n.on_new_ack(&new_ack(2, 1, 41, 39));
        n.on_timeout(&TimeoutInfo { flight: 16, high_sent: 41, ..TimeoutInfo::default() });
        assert_eq!(n.ssthresh(), 8.0, "{reading}");
    }
    assert_eq!(NewRenoConfig::default().timeout_in_recovery, TimeoutInRecovery::KeepSsthresh);
    let v = toml::Value::Table(toml::from_str::<toml::Table>("variant = \"ns2\"\ntimeout_in_recovery = \"flight\"").unwrap());
    let err = NewReno::decode(&mut Params::new(Obj::new(&v, "params").unwrap()), &mut NewReno::sender_defaults());
    assert!(err.unwrap_err().to_string().contains("timeout_in_recovery"));
}

#[test]
fn the_same_packet_timing_out_again_holds_ssthresh_in_the_rfc_variant() {
    // RFC 5681 §3.1: FlightSize / 2 for a segment not yet resent by the timer; ssthresh
    // held when it times out again. ns-2 halves the one-packet window each time.
    for (variant, want) in [(NewRenoVariant::Rfc6582, 8.0), (NewRenoVariant::Ns2, 2.0)] {
        let mut n = avoiding(variant, 16.0);
        n.on_timeout(&TimeoutInfo { flight: 16, high_sent: 17, seq: 1, ..TimeoutInfo::default() });
        assert_eq!(n.ssthresh(), 8.0, "{variant:?}");
        assert!(!n.in_recovery());
        n.on_timeout(&TimeoutInfo { flight: 1, high_sent: 17, seq: 1, repeated: true, ..TimeoutInfo::default() });
        assert_eq!((n.cwnd(), n.ssthresh()), (1.0, want), "{variant:?}: the same packet again");
        // (When a timeout is a repeated one is the sender's to say: reno.rs's timer test.)
    }
}

/// The timer after the first and the second partial ACK, under each rule: packets 1, 3
/// and 5 of a window of 10 (1..=10, sent at 1 s; srtt 1 s, RTO 3 s) are lost.
fn deadlines(rule: PartialAckTimer) -> (u64, u64, u64) {
    let cfg = NewRenoConfig { partial_ack_timer: rule, ..NewRenoConfig::default() };
    let d = NewReno::sender_defaults();
    let mut s = Sender::new(Cc::from(NewReno::build(&cfg, 20)), 20, d.rto, d.timers);
    s.app_limit = 12;
    s.next_transmission(0);
    s.on_ack(1, 0, 0, 0, false, false, 0, SEC);
    if let Cc::NewReno(n) = &mut s.cc {
        (n.cwnd, n.ssthresh) = (10.0, 5.0);
    }
    while s.next_transmission(SEC).is_some() {}
    let ms = SEC / 1000;
    for (i, echo) in [2u64, 4, 6, 7, 8, 9, 10].into_iter().enumerate() {
        s.on_ack(1, echo, SEC, SEC, false, false, 0, 2 * SEC + i as u64 * ms);
        while s.next_transmission(2 * SEC + i as u64 * ms).is_some() {}
    }
    let before = s.next_deadline();
    // The repair of 1 acknowledges 1..=2 at 3 s; that of 3 acknowledges 3..=4 at 4 s.
    s.on_ack(3, 1, 2 * SEC, SEC, true, false, 0, 3 * SEC);
    assert_eq!(s.next_transmission(3 * SEC).map(|t| (t.seq, t.retransmission)), Some((3, true)));
    let first = s.next_deadline();
    s.on_ack(5, 3, 3 * SEC, SEC, true, false, 0, 4 * SEC);
    assert_eq!(s.next_transmission(4 * SEC).map(|t| (t.seq, t.retransmission)), Some((5, true)));
    (before, first, s.next_deadline())
}

#[test]
fn impatient_restarts_the_timer_on_the_first_partial_ack_only() {
    // The fast retransmission at 2.002 s leaves the timer of the ACK at 1 s (RFC 6298).
    assert_eq!(deadlines(PartialAckTimer::Impatient), (4 * SEC, 6 * SEC, 6 * SEC));
    assert_eq!(deadlines(PartialAckTimer::SlowButSteady), (4 * SEC, 6 * SEC, 7 * SEC));
}
