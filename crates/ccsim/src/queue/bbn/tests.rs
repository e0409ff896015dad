use super::*;
use crate::queue::fq::testkit::packet;

const DATA: PacketKind = PacketKind::Data;
/// 8 Mb/s: 1000 bytes take 1 ms.
const BPS: u64 = 8_000_000;
const MS: SimTime = PS_PER_SEC / 1000;

fn port() -> Bbn {
    Bbn::new(BbnConfig::default(), BufferLimit::Unlimited, false, BPS)
}

#[test]
fn rations_follow_the_two_rules() {
    // Below saturation: scaled by T/U, never above T; an idle line goes back to T.
    assert!((next_ration(0.9, 0.9 * 3.0 / 3.0, 0.9, 0.97) - 0.9).abs() < 1e-12);
    assert!((next_ration(0.45, 0.9, 0.9, 0.97) - 0.45).abs() < 1e-12, "two flows at 0.45 fill the target");
    assert!((next_ration(0.2, 0.4, 0.9, 0.97) - 0.45).abs() < 1e-12);
    assert_eq!(next_ration(0.3, 0.0, 0.9, 0.97), 0.9);
    assert_eq!(next_ration(0.8, 0.1, 0.9, 0.97), 0.9, "capped at T");
    // Saturated: demand is taken as at least T + R.
    assert!((next_ration(0.3, 1.0, 0.9, 0.97) - 0.3 * 0.9 / 1.2).abs() < 1e-12);
    assert!((next_ration(0.01, 1.0, 0.9, 0.97) - 0.01 * 0.9).abs() < 1e-12);
    assert!(next_ration(1e-9, 1.0, 0.9, 0.97) >= 1e-6, "never zero");
}

#[test]
fn a_pair_goes_no_faster_than_its_ration_and_unheld_traffic_passes() {
    let mut q = port();
    q.join_ration_pair(3, 0);
    q.set_pair_ration(0, 2_000_000.0); // a 1000 B packet every 4 ms
    let mut a = PacketArena::new();
    let idle = InService { bytes: None };
    for _ in 0..3 {
        let p = a.alloc(packet(3, DATA, 1000, 0));
        q.enqueue(p, &mut a, 0, idle);
    }
    assert!(q.dequeue(&mut a, 0).is_some());
    assert_eq!(q.dequeue(&mut a, MS), None, "held: 4 ms per packet");
    assert_eq!(q.next_eligible(MS), Some(4 * MS));
    // Another flow's data (not entering here) and the pair's ACKs are not held.
    let other = a.alloc(packet(5, DATA, 1000, 0));
    let ack = a.alloc(packet(3, PacketKind::Ack, 40, 0));
    q.enqueue(other, &mut a, MS, idle);
    q.enqueue(ack, &mut a, MS, idle);
    assert_eq!(q.dequeue(&mut a, 2 * MS), Some(other));
    assert_eq!(q.dequeue(&mut a, 2 * MS), Some(ack));
    assert!(q.dequeue(&mut a, 4 * MS).is_some());
    assert_eq!(q.dequeue(&mut a, 5 * MS), None);
    // A ration raised by the next flood re-times the wait from the last start (4 ms).
    q.set_pair_ration(0, 8_000_000.0);
    assert_eq!(q.next_eligible(5 * MS), Some(5 * MS));
    assert!(q.dequeue(&mut a, 5 * MS).is_some());
    assert_eq!(q.len_packets(), 0);
    let mut held = 0;
    q.counters(&mut |k, v| {
        if k == "bbn_held" {
            held = v
        }
    });
    assert_eq!(held, 2);
}

#[test]
fn first_come_first_served_among_what_may_go() {
    let mut q = port();
    q.join_ration_pair(1, 0);
    q.join_ration_pair(2, 1);
    let mut a = PacketArena::new();
    let idle = InService { bytes: None };
    let order: Vec<PacketId> = [2, 9, 1, 2].iter().map(|&f| a.alloc(packet(f, DATA, 1000, 0))).collect();
    for &p in &order {
        q.enqueue(p, &mut a, 0, idle);
    }
    // Rations at T x 8 Mb/s: 1.11 ms a packet; flow 2's second waits for its spacing.
    let got: Vec<Option<PacketId>> = (0..3).map(|_| q.dequeue(&mut a, 0)).collect();
    assert_eq!(got, vec![Some(order[0]), Some(order[1]), Some(order[2])]);
    assert_eq!(q.dequeue(&mut a, 0), None);
    assert_eq!(q.dequeue(&mut a, 2 * MS), Some(order[3]));
}

#[test]
fn utilisation_over_the_interval_sets_the_ration() {
    // T = 0.5, so the rule's factor T/U shows below the cap.
    let cfg = BbnConfig { target: 0.5, ..BbnConfig::default() };
    let mut q = Bbn::new(cfg, BufferLimit::Unlimited, false, BPS);
    let mut a = PacketArena::new();
    let idle = InService { bytes: None };
    assert_eq!(q.ration(), Some((0.5 * BPS as f64, 10 * PS_PER_SEC)));
    // 600 packets of 1000 B put on the line in one second of 8 Mb/s: U = 0.6.
    for _ in 0..600 {
        let p = a.alloc(packet(0, DATA, 1000, 0));
        q.enqueue(p, &mut a, 0, idle);
        q.dequeue(&mut a, 0);
    }
    let r1 = q.update_ration(PS_PER_SEC) / BPS as f64;
    assert!((r1 - 0.5 * 0.5 / 0.6).abs() < 1e-9, "{r1}");
    // The next second: 800 control packets' bytes (line_taken) count too, and only they.
    for _ in 0..800 {
        q.line_taken(PS_PER_SEC, 1000);
    }
    let r2 = q.update_ration(2 * PS_PER_SEC) / BPS as f64;
    assert!((r2 - r1 * 0.5 / 0.8).abs() < 1e-9, "{r2}");
    // A second with nothing sent: U = 0, back to T.
    assert_eq!(q.update_ration(3 * PS_PER_SEC), 0.5 * BPS as f64);
    // Saturated: demand taken as at least T + R.
    for _ in 0..1000 {
        q.line_taken(3 * PS_PER_SEC, 1000);
    }
    let r4 = q.update_ration(4 * PS_PER_SEC) / BPS as f64;
    assert!((r4 - 0.5 * 0.5 / 1.0).abs() < 1e-9, "{r4}");
}

#[test]
fn a_raised_ration_frees_a_held_pair_sooner() {
    let mut q = port();
    q.join_ration_pair(0, 0);
    q.set_pair_ration(0, 1_000_000.0); // 8 ms a packet
    let mut a = PacketArena::new();
    let idle = InService { bytes: None };
    for _ in 0..2 {
        let p = a.alloc(packet(0, DATA, 1000, 0));
        q.enqueue(p, &mut a, 0, idle);
    }
    assert!(q.dequeue(&mut a, MS).is_some());
    assert_eq!(q.next_eligible(2 * MS), Some(9 * MS));
    q.set_pair_ration(0, 8_000_000.0); // 1 ms a packet, timed from the last start
    assert_eq!(q.next_eligible(2 * MS), Some(2 * MS));
    assert!(q.dequeue(&mut a, 2 * MS).is_some());
    // And a lowered one holds it longer.
    let p = a.alloc(packet(0, DATA, 1000, 0));
    q.enqueue(p, &mut a, 2 * MS, idle);
    q.set_pair_ration(0, 500_000.0);
    assert_eq!(q.next_eligible(2 * MS), Some(18 * MS));
}

#[test]
fn a_tiny_target_keeps_a_positive_ration() {
    assert_eq!(next_ration(1e-7, 1.0, 1e-7, 0.97), 1e-7);
    assert!(next_ration(0.5, 0.2, 1e-7, 0.97) > 0.0);
}

#[test]
fn parameters_decode_with_their_errors() {
    use crate::scenario::decode::Obj;
    let decode = |t: &str| {
        let v: toml::Value = toml::from_str(t).unwrap();
        Bbn::decode(&mut Params::new(Obj::new(&v, "queue_params").unwrap()))
    };
    assert_eq!(decode("").unwrap(), BbnConfig::default());
    assert_eq!(decode("interval = \"1s\"\ntarget = 0.8").unwrap().interval, PS_PER_SEC);
    assert_eq!(decode("target = 0.98").unwrap_err().path, "queue_params.target");
    assert_eq!(decode("interval = \"0s\"").unwrap_err().path, "queue_params.interval");
}
