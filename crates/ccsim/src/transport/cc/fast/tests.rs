//! FAST's alpha adjustment (§4.5.3, spec §6 item 23): once per loss episode.

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
