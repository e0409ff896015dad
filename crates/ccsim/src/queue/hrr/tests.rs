use super::*;
use crate::queue::fq::testkit::packet;

const DATA: PacketKind = PacketKind::Data;
/// 8 Mb/s: a 1000-byte slot takes 1 ms.
const BPS: u64 = 8_000_000;
const MS: SimTime = PS_PER_SEC / 1000;

fn two_levels() -> Hrr {
    levels(Positions::Any)
}

fn levels(positions: Positions) -> Hrr {
    Hrr::new(&HrrConfig { slot_bytes: 1000, levels: vec![(10, 2), (20, 0)], positions }, BufferLimit::Unlimited, false, BPS)
}

#[test]
fn frames_nest_and_reservations_take_slots_at_the_first_level_they_fill() {
    let mut q = two_levels();
    // FT_1 = 10 slots of 1 ms; FT_2 = 10 ms x 20 / 2 = 100 ms.
    assert_eq!(q.frames(), vec![10 * MS, 100 * MS]);
    q.routed(0, DATA, 1, 2_000_000).unwrap(); // 2.5 slots of FT_1: 3 (nearest)
    q.routed(1, DATA, 1, 400_000).unwrap(); // 0.5 at level 1; 5 of FT_2
    q.routed(2, DATA, 1, 0).unwrap();
    assert_eq!((q.channel(0), q.channel(2), q.channel(4)), (Some((0, 3)), Some((1, 5)), None));
    // Level 1 keeps 8 of its 10 slots for its channels: 3 taken, 6 more do not fit.
    let e = q.routed(3, DATA, 1, 4_800_000).unwrap_err();
    assert!(e.contains("level 1 has 8 slots") && e.contains("needs 6"), "{e}");
    q.routed(3, DATA, 1, 4_000_000).unwrap();
    // A rate whose slot count would overflow is refused, not wrapped.
    assert!(q.routed(4, DATA, 1, u64::MAX).unwrap_err().contains("level 1"));
}

#[test]
fn a_channel_gets_its_slots_a_frame_and_no_more_while_best_effort_takes_the_rest() {
    let mut q = two_levels();
    q.routed(0, DATA, 1, 2_000_000).unwrap(); // 3 slots of each 10 ms frame
    let mut a = PacketArena::new();
    let idle = InService { bytes: None };
    for _ in 0..10 {
        let p = a.alloc(packet(0, DATA, 1000, 0));
        q.enqueue(p, &mut a, 0, idle);
    }
    let sent: Vec<bool> = (0..4).map(|i| q.dequeue(&mut a, i * MS).is_some()).collect();
    assert_eq!(sent, [true, true, true, false], "three slots, then held");
    assert_eq!(q.next_eligible(3 * MS), Some(10 * MS));
    // Best effort (flow 1, unreserved) goes in the time the channel leaves.
    let p = a.alloc(packet(1, DATA, 1000, 0));
    q.enqueue(p, &mut a, 4 * MS, idle);
    assert_eq!(q.dequeue(&mut a, 4 * MS), Some(p));
    assert_eq!(q.dequeue(&mut a, 5 * MS), None);
    // The next frame: three more.
    assert!((10..13).all(|t| q.dequeue(&mut a, t * MS).is_some()));
    assert_eq!(q.dequeue(&mut a, 13 * MS), None);
    assert_eq!(q.len_packets(), 4);
}

#[test]
fn spread_slots_wait_for_their_positions_in_the_frame() {
    let mut q = levels(Positions::Spread);
    q.routed(0, DATA, 1, 2_000_000).unwrap(); // 3 slots of 10: positions 0, 3, 6
    q.routed(1, DATA, 1, 800_000).unwrap(); // 1 slot: 0 is taken, so 1
    assert_eq!((q.chans[0].slots.clone(), q.chans[2].slots.clone()), (vec![0, 3, 6], vec![1]));
    let mut a = PacketArena::new();
    let idle = InService { bytes: None };
    for _ in 0..6 {
        let p = a.alloc(packet(0, DATA, 1000, 0));
        q.enqueue(p, &mut a, 0, idle);
    }
    // Slot 0 at 0 ms, then nothing until slot 3 at 3 ms and slot 6 at 6 ms; the next
    // frame's slot 0 at 10 ms.
    assert!(q.dequeue(&mut a, 0).is_some());
    assert_eq!(q.dequeue(&mut a, MS), None);
    assert_eq!(q.next_eligible(MS), Some(3 * MS));
    assert!(q.dequeue(&mut a, 3 * MS).is_some());
    assert_eq!(q.next_eligible(4 * MS), Some(6 * MS));
    assert!(q.dequeue(&mut a, 6 * MS).is_some());
    assert_eq!(q.next_eligible(7 * MS), Some(10 * MS));
    assert!(q.dequeue(&mut a, 10 * MS).is_some());
    // A channel idle through its slots does not make them up: a fresh one whose packets
    // arrive at 6.5 ms (its slots at 0, 3 and 6 ms) sends once in slot 6, which lasts until
    // 7 ms, then waits for the next frame's first slot at 10 ms, though 7-9 ms are free.
    let mut q = levels(Positions::Spread);
    q.routed(0, DATA, 1, 2_000_000).unwrap();
    for _ in 0..3 {
        let p = a.alloc(packet(0, DATA, 1000, 0));
        q.enqueue(p, &mut a, 6 * MS + MS / 2, idle);
    }
    assert!(q.dequeue(&mut a, 6 * MS + MS / 2).is_some(), "slot 6 lasts until 7 ms");
    assert_eq!(q.dequeue(&mut a, 7 * MS + MS / 2), None);
    assert_eq!(q.next_eligible(7 * MS + MS / 2), Some(10 * MS));
    assert!(q.dequeue(&mut a, 10 * MS).is_some());
    // Frame 1's slots are at 10, 13 and 16 ms. Not taken while it lasted (say the line was
    // busy until 14.2 ms), slot 13 is lost: the next packet goes in slot 16.
    let p = a.alloc(packet(0, DATA, 1000, 0));
    q.enqueue(p, &mut a, 10 * MS, idle);
    assert_eq!(q.dequeue(&mut a, 14 * MS + MS / 5), None);
    assert_eq!(q.next_eligible(14 * MS + MS / 5), Some(16 * MS));
    // Under "any" the three go back to back from the frame's start.
    let mut q = levels(Positions::Any);
    q.routed(0, DATA, 1, 2_000_000).unwrap();
    for _ in 0..4 {
        let p = a.alloc(packet(0, DATA, 1000, 0));
        q.enqueue(p, &mut a, 0, idle);
    }
    assert_eq!((0..4).map(|i| q.dequeue(&mut a, i * MS).is_some()).collect::<Vec<_>>(), [true, true, true, false]);
}

#[test]
fn an_overdraft_is_taken_from_the_next_frame() {
    let mut q = two_levels();
    q.routed(0, DATA, 1, 1_200_000).unwrap(); // 1.5 -> 2 slots: 2000 B a frame
    let mut a = PacketArena::new();
    for _ in 0..3 {
        let p = a.alloc(packet(0, DATA, 1500, 0));
        q.enqueue(p, &mut a, 0, InService { bytes: None });
    }
    // 1500 then 1500 (started with 500 left): 1000 B over, so the next frame has 1000.
    assert!(q.dequeue(&mut a, 0).is_some() && q.dequeue(&mut a, MS).is_some());
    assert!(q.dequeue(&mut a, 2 * MS).is_none());
    assert!(q.dequeue(&mut a, 10 * MS).is_some(), "1000 B remain in frame 2");
}

#[test]
fn levels_decode_with_their_errors() {
    use crate::scenario::decode::Obj;
    let decode = |t: &str| {
        let v: toml::Value = toml::from_str(t).unwrap();
        Hrr::decode(&mut Params::new(Obj::new(&v, "queue_params").unwrap()))
    };
    assert_eq!(decode("").unwrap(), HrrConfig::default());
    assert_eq!(decode("positions = \"any\"").unwrap().positions, Positions::Any);
    assert_eq!(decode("positions = \"fixed\"").unwrap_err().path, "queue_params.positions");
    assert_eq!(decode("levels = [[10, 2], [20, 0]]\nslot = 500").unwrap().levels, vec![(10, 2), (20, 0)]);
    for bad in ["levels = [[10, 2]]", "levels = [[10, 0], [5, 0]]", "levels = [[2, 2], [5, 0]]", "levels = []", "levels = 3"] {
        let e = decode(bad).unwrap_err();
        assert_eq!(e.path, "queue_params.levels", "{bad}");
    }
}

#[test]
fn channels_fill_every_slot_without_sharing_one() {
    // 100 one-slot channels on a level of 100 slots: each gets its own, and all 100 are used.
    let cfg = HrrConfig { slot_bytes: 1000, levels: vec![(100, 0)], positions: Positions::Spread };
    let mut q = Hrr::new(&cfg, BufferLimit::Unlimited, false, BPS);
    for f in 0..100 {
        q.routed(f, DATA, 1, 80_000).unwrap(); // 80 kb/s: one 1000 B slot of a 100 ms frame
    }
    let mut slots: Vec<u32> = (0..100).flat_map(|f| q.chans[2 * f].slots.clone()).collect();
    slots.sort_unstable();
    assert_eq!(slots, (0..100).collect::<Vec<u32>>());
    assert!(q.routed(100, DATA, 1, 80_000).is_err(), "no room left");
}
