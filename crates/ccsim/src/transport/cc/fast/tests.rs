//! FAST's alpha adjustment (§4.5.3, spec §6 item 23): once per loss episode; w_old per packet.

use super::*;
use crate::transport::cc::Algorithm;

fn adjusting() -> Fast {
    Fast::build(&FastConfig { alpha: 200.0, alpha_adjust: true, ..FastConfig::default() }, 1_000_000)
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-6
}

#[test]
fn alpha_halves_once_per_loss_episode() {
    let mut f = adjusting();
    // Three duplicate ACKs start a fast recovery: alpha halves.
    let dup = AckInfo { ack: 1, high_sent: 20, flight_before: 19, now: 1_000, ..AckInfo::default() };
    let fired: Vec<bool> = (1..=3).map(|c| f.on_dup_ack(c, &dup)).collect();
    assert_eq!(fired, [false, false, true]);
    assert!(close(f.alpha, 100.0), "{}", f.alpha);
    // A timeout inside that recovery, then a backed-off one: the same episode.
    for now in [2_000, 3_000] {
        f.on_timeout(&TimeoutInfo { now, flight: 19, high_sent: 20, ..TimeoutInfo::default() });
    }
    assert!(close(f.alpha, 100.0), "{}", f.alpha);
    // A new ACK outside recovery ends it; the next timeout is a new episode.
    f.on_new_ack(&AckInfo { ack: 21, newly_acked: 20, high_sent: 21, flight_before: 1, now: 4_000, echo_tx: 3_500, ..AckInfo::default() });
    f.on_timeout(&TimeoutInfo { now: 5_000, flight: 1, high_sent: 21, ..TimeoutInfo::default() });
    assert!(close(f.alpha, 50.0), "{}", f.alpha);
}

#[test]
fn w_old_packet_records_each_packets_flight_from_the_last_new_ack() {
    let cfg = FastConfig { w_old: WOld::Packet, ..FastConfig::default() };
    let mut f = Fast::build(&cfg, 1_000_000);
    // A new ACK up to 10 with 8 packets out before it (sent up to 12): flight estimate 12 - 10 + 1.
    f.on_new_ack(&AckInfo { ack: 10, newly_acked: 6, flight_before: 8, high_sent: 12, now: 1_000, echo_tx: 500, ..AckInfo::default() });
    assert_eq!(f.code_for(12, false, 7), 7, "the code is left as it is");
    assert_eq!(f.sent.get(12), Some(3.0));
    // The round reading records nothing.
    let mut r = Fast::build(&FastConfig::default(), 1_000_000);
    r.on_new_ack(&AckInfo { ack: 10, newly_acked: 6, flight_before: 8, high_sent: 12, now: 1_000, echo_tx: 500, ..AckInfo::default() });
    r.code_for(12, false, 0);
    assert_eq!(r.sent.get(12), None);
}

#[test]
fn flight_reset_after_a_timeout_sets_the_window_to_the_packets_beyond_the_ack() {
    // Updates gated off (a long update_interval), so the window moves by the reset alone.
    let cfg = FastConfig { recovery: Recovery::Sack, flight_reset: true, update_interval: u64::MAX / 4, ..FastConfig::default() };
    let after_timeout = |dups: u32, ack: u64, next_to_send: u64, reset: bool| {
        let mut f = Fast::build(&FastConfig { flight_reset: reset, ..cfg }, 1_000_000);
        f.on_timeout(&TimeoutInfo { now: 1_000, flight: 30, high_sent: 40, seq: 9, repeated: false });
        // Duplicates count only from the first new ACK after the timeout (the module's timeout_).
        let early = AckInfo { ack: 9, high_sent: 40, flight_before: 1, now: 1_500, ..AckInfo::default() };
        for c in 1..=5 {
            f.on_dup_ack(c, &early);
        }
        f.on_new_ack(&AckInfo { ack: 10, newly_acked: 1, high_sent: 40, flight_before: 1, now: 1_800, echo_tx: 1_200, ..AckInfo::default() });
        assert_eq!(f.cwnd, 2.0, "the duplicates before the first new ACK did not count");
        let dup = AckInfo { ack: 10, high_sent: 40, flight_before: next_to_send - 10, now: 2_000, ..AckInfo::default() };
        for c in 1..=dups {
            assert!(!f.on_dup_ack(c, &dup), "no recovery within the timed-out window");
        }
        let before = f.cwnd;
        let new = AckInfo { ack, newly_acked: ack - 10, high_sent: 40, flight_before: next_to_send - 10, now: 3_000, echo_tx: 2_500, ..AckInfo::default() };
        f.on_new_ack(&new);
        (before, f.cwnd)
    };
    // Resent up to 21 (next 22), ACK 15: the module's t_seqno_ - seqno + 1 = 22 - 14 + 1.
    assert_eq!(after_timeout(5, 15, 22, true), (2.0, 9.0));
    // The ACK jumps past the resends: 1.
    assert_eq!(after_timeout(5, 30, 12, true), (2.0, 1.0));
    // Three duplicates are not more than three; and the rule is off by default.
    assert_eq!(after_timeout(3, 15, 22, true), (2.0, 2.0));
    assert_eq!(after_timeout(5, 15, 22, false), (2.0, 2.0));
}
