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
    // A ration raised by the next flood applies to the next spacing.
    q.set_pair_ration(0, 8_000_000.0);
    assert!(q.dequeue(&mut a, 8 * MS).is_some());
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
    let mut q = port();
    let mut a = PacketArena::new();
    let idle = InService { bytes: None };
    // 500 packets of 1000 B in one second on 8 Mb/s: half the line, then a control packet.
    for _ in 0..500 {
        let p = a.alloc(packet(0, DATA, 1000, 0));
        q.enqueue(p, &mut a, 0, idle);
        q.dequeue(&mut a, 0);
    }
    assert_eq!(q.ration(), Some((0.9 * BPS as f64, 10 * PS_PER_SEC)));
    let r = q.update_ration(PS_PER_SEC);
    assert!((r - BPS as f64 * 0.9).abs() < 1.0, "0.9 x 0.9 / 0.5 capped at T: {r}");
    for _ in 0..1000 {
        q.line_taken(PS_PER_SEC, 1000);
    }
    let r = q.update_ration(2 * PS_PER_SEC);
    assert!((r - BPS as f64 * 0.9 * 0.9 / 1.8).abs() < 1.0, "saturated: {r}");
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
