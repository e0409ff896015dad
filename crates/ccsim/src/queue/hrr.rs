//! Hierarchical Round Robin (HRR): a rate-controlled, non-work-conserving server of framed
//! slots.
//!
//! Source: Kalmanek, Kanakia and Keshav 1990 ("Rate controlled servers for very high-speed
//! networks", GlobeCom '90), which Keshav 1991 (ch. 1, related work [46, 47, 68]) and Liang
//! 1991 (§1.7, ref. [13]; REAL's `hrr_router`) name. The server has levels; level i has a frame
//! of n_i slots, b_i of which it gives to level i+1, so level 1's frame lasts n_1 slot times
//! and level i+1's lasts FT_i n_{i+1} / b_i. A channel of level i is allotted a_c slots of each
//! of its level's frames and gets no more, even when the line would otherwise idle: its rate is
//! a_c slots per FT_i, and a burst is spread over frames (the "rate control" of the title).
//! Slots not used by channels go to traffic without a reservation.
//!
//! Choices where the sources are silent (they describe fixed-size cells), each a parameter or
//! stated here:
//! - `slot`: a slot is the transmission time of `slot` bytes (default 1000 B, the theses' data
//!   packet). A channel's allotment is a_c slots' worth of bytes per frame; a packet may start
//!   while any of it remains, and what it overdraws is taken from the next frame.
//! - `levels`: a list of [n_i, b_i] pairs, level 1 first; the last level's b is 0. Default
//!   [[100, 0]]: one level of 100 slots. Frames start at time 0 (FT_i rounded down to a
//!   picosecond).
//! - Channels are (flow, direction) conversations. A flow's data with a `reserved_rate` r is a
//!   channel of the first level at which r FT_i is at least one slot, with a_c = that many slots
//!   rounded to the nearest (at least 1); level i's channels may take at most n_i - b_i slots
//!   (an error names the flow otherwise). Everything else (unreserved flows, ACK streams) is
//!   best-effort traffic, served first-come-first-served in the time channels leave.
//! - Slot positions (`positions`, default "spread"): a channel owns a_c of its level's n_i
//!   slots, spread over the frame as evenly as the slots other channels took allow (slot j
//!   ideally at floor(j n_i / a_c), else the next free one), and its j-th slot's worth of bytes
//!   in a frame may not start before slot j's time; a slot that ends with nothing of the
//!   channel's sent in it is lost to the channel (best effort may have used it): the fixed
//!   positions that give HRR its jitter bound. Slots are placed once, at setup, in the order
//!   the flows are routed, so single-slot channels take the frame's first free slots. A level's slots are taken as evenly spaced in its frame (FT_i / n_i each); in HRR
//!   proper a lower level's slots fall where the level above gives it its b_i slots, which
//!   this spreads evenly instead. "any": a channel may use its allotment anywhere in the frame
//!   (back to back from the frame's start when it is backlogged), the rate without the
//!   positions.
//! - Among the channels that may send, a faster level's goes first and a level's channels go
//!   round robin, one packet a turn.
//! - Buffer: the port's, shared; a packet that does not fit is dropped on arrival.
//! - Choosing the next channel scans a level's channels: O(channels) per packet, allocating
//!   nothing.

use super::{BufferLimit, Discipline, InService, PortSetup, QueueDiscipline, Verdict};
use crate::net::{PacketArena, PacketId, PacketKind};
use crate::scenario::decode::Result;
use crate::scenario::params::Params;
use crate::sim::time::tx_time;
use crate::sim::{SimTime, PS_PER_SEC};
use std::collections::VecDeque;

/// Where a channel's slots lie in its frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Positions {
    /// Owned slots spread over the frame; the j-th slot's bytes wait for its time (HRR).
    Spread,
    /// The allotment anywhere in the frame.
    Any,
}

#[derive(Clone, Debug, PartialEq)]
pub struct HrrConfig {
    /// Bytes a slot carries. 1000.
    pub slot_bytes: u32,
    /// (n_i, b_i) per level, level 1 first.
    pub levels: Vec<(u32, u32)>,
    /// Spread.
    pub positions: Positions,
}

impl Default for HrrConfig {
    fn default() -> Self {
        HrrConfig { slot_bytes: 1000, levels: vec![(100, 0)], positions: Positions::Spread }
    }
}

/// Level of a best-effort conversation.
const BEST_EFFORT: u8 = u8::MAX;

struct Chan {
    level: u8,
    /// a_c in bytes a frame.
    allotment: u64,
    /// Its slots' indices in the frame, ascending (empty under `positions = "any"`).
    slots: Vec<u32>,
    /// Bytes sent in frame `frame` (may exceed the allotment by one packet).
    used: u64,
    frame: u64,
    queue: VecDeque<(PacketId, u32)>,
    routed: bool,
}

impl Chan {
    fn new() -> Self {
        Chan { level: BEST_EFFORT, allotment: 0, slots: Vec::new(), used: 0, frame: 0, queue: VecDeque::new(), routed: false }
    }

    /// Bring the count to frame `k`: a new frame keeps only what the last one overdrew.
    #[inline]
    fn roll_to(&mut self, k: u64) {
        if k != self.frame {
            self.used = if k == self.frame + 1 { self.used.saturating_sub(self.allotment) } else { 0 };
            self.frame = k;
        }
    }
}

struct Level {
    /// FT_i, picoseconds.
    frame: SimTime,
    /// n_i, and which of its slots a channel owns (under `positions = "spread"`).
    n: u32,
    owned: Vec<bool>,
    /// Slots its channels may take (n_i - b_i), and those taken.
    slots: u64,
    taken: u64,
    /// Its channels, and where the round robin stands.
    chans: Vec<u32>,
    next: usize,
}

pub struct Hrr {
    slot_bytes: u32,
    levels: Vec<Level>,
    chans: Vec<Chan>,
    best_effort: VecDeque<(PacketId, u32)>,
    limit: BufferLimit,
    count_in_service: bool,
    pkts: u32,
    bytes: u64,
}

fn decode_levels(v: &toml::Value) -> std::result::Result<Vec<(u32, u32)>, String> {
    const EXPECTS: &str = "a list of [slots, slots given to the next level] pairs, e.g. [[10, 2], [20, 0]]";
    let list = v.as_array().filter(|l| !l.is_empty() && l.len() <= 16).ok_or(EXPECTS)?;
    let mut out = Vec::new();
    for (i, item) in list.iter().enumerate() {
        let pair = item.as_array().filter(|p| p.len() == 2).ok_or(EXPECTS)?;
        let n = pair[0].as_integer().filter(|&n| (1..=1_000_000).contains(&n)).ok_or(EXPECTS)? as u32;
        let b = pair[1].as_integer().filter(|&b| b >= 0 && b < n as i64).ok_or(EXPECTS)? as u32;
        let last = i + 1 == list.len();
        if last != (b == 0) {
            return Err(format!("{EXPECTS}; every level but the last gives the next one at least a slot, the last none"));
        }
        out.push((n, b));
    }
    Ok(out)
}

impl Discipline for Hrr {
    const NAME: &'static str = "hrr";
    const SUMMARY: &'static str =
        "Hierarchical Round Robin (Kalmanek, Kanakia and Keshav 1990; named in Keshav 1991 and Liang 1991 §1.7): framed slots per reserved flow, non-work-conserving";
    type Config = HrrConfig;

    fn decode(p: &mut Params) -> Result<HrrConfig> {
        let d = HrrConfig::default();
        let slot_bytes = p.integer("slot", d.slot_bytes as u64, 1, 65_535, "bytes a slot carries (its time is theirs at the line rate)")? as u32;
        let levels = p.custom(
            "levels",
            d.levels.clone(),
            "[[100, 0]]",
            "a list of [slots, slots given to the next level] pairs",
            "the frames, level 1 first: n_i slots, b_i of them given to level i+1 (0 for the last)",
            decode_levels,
        )?;
        let positions = p.choice(
            "positions",
            d.positions,
            &[("spread", Positions::Spread), ("any", Positions::Any)],
            "a channel's slots: spread over the frame, each waiting for its time (HRR), or anywhere in the frame",
        )?;
        Ok(HrrConfig { slot_bytes, levels, positions })
    }

    fn build(cfg: &HrrConfig, port: &PortSetup) -> Self {
        Hrr::new(cfg, port.buffer, port.count_in_service, port.bandwidth_bps)
    }
}

impl Hrr {
    pub fn new(cfg: &HrrConfig, limit: BufferLimit, count_in_service: bool, line_bps: u64) -> Self {
        let slot_time = tx_time(cfg.slot_bytes, line_bps);
        let mut levels = Vec::new();
        let mut frame = slot_time.saturating_mul(cfg.levels[0].0 as u64);
        for (i, &(n, b)) in cfg.levels.iter().enumerate() {
            if i > 0 {
                let given = cfg.levels[i - 1].1 as u128;
                frame = (frame as u128 * n as u128 / given).min(SimTime::MAX as u128) as SimTime;
            }
            levels.push(Level {
                frame: frame.max(1),
                n,
                owned: vec![false; if cfg.positions == Positions::Spread { n as usize } else { 0 }],
                slots: (n - b) as u64,
                taken: 0,
                chans: Vec::new(),
                next: 0,
            });
        }
        Hrr {
            slot_bytes: cfg.slot_bytes,
            levels,
            chans: Vec::new(),
            best_effort: VecDeque::new(),
            limit,
            count_in_service,
            pkts: 0,
            bytes: 0,
        }
    }

    #[inline]
    fn conversation(flow: u32, kind: PacketKind) -> u32 {
        flow * 2 + (kind == PacketKind::Ack) as u32
    }

    /// FT_i of each level, picoseconds.
    pub fn frames(&self) -> Vec<SimTime> {
        self.levels.iter().map(|l| l.frame).collect()
    }

    /// The level (0 = level 1) and slots a frame of conversation `id`, None if best effort.
    pub fn channel(&self, id: u32) -> Option<(usize, u64)> {
        let c = self.chans.get(id as usize)?;
        (c.level != BEST_EFFORT).then(|| (c.level as usize, c.allotment / self.slot_bytes as u64))
    }

    fn fits(&self, size: u32, tx: InService) -> bool {
        self.limit.fits(self.pkts as u64 + 1, self.bytes + size as u64, self.count_in_service, tx)
    }

    /// When, in frame `k` of `level`, the slot that would carry a channel's next bytes (`used`
    /// of them sent in the frame) begins: its start under `positions = "any"`.
    #[inline]
    fn slot_time(level: &Level, c: &Chan, k: u64, used: u64, slot_bytes: u32) -> SimTime {
        let start = k.saturating_mul(level.frame);
        match c.slots.get((used / slot_bytes as u64) as usize) {
            Some(&s) => start.saturating_add((level.frame as u128 * s as u128 / level.n as u128) as SimTime),
            None => start,
        }
    }

    /// A slot the channel left unused while it lasted is lost (it may not make it up later in
    /// the frame): `used` moved past every slot of frame `k` that has ended by `now`.
    #[inline]
    fn skip_passed(level: &Level, c: &Chan, k: u64, mut used: u64, now: SimTime, slot_bytes: u32) -> u64 {
        let start = k.saturating_mul(level.frame);
        loop {
            let j = used / slot_bytes as u64;
            let Some(&s) = c.slots.get(j as usize) else { return used };
            let end = start.saturating_add((level.frame as u128 * (s as u128 + 1) / level.n as u128) as SimTime);
            if now < end {
                return used;
            }
            used = (j + 1) * slot_bytes as u64;
        }
    }

    /// The next eligible channel of level `l` at `now`, moving its round robin past it.
    #[inline]
    fn pick(&mut self, l: usize, now: SimTime) -> Option<u32> {
        let level = &mut self.levels[l];
        let k = now / level.frame;
        let n = level.chans.len();
        for step in 0..n {
            let i = (level.next + step) % n;
            let c = &mut self.chans[level.chans[i] as usize];
            if c.queue.is_empty() {
                continue;
            }
            c.roll_to(k);
            c.used = Self::skip_passed(level, c, k, c.used, now, self.slot_bytes);
            if c.used < c.allotment && Self::slot_time(level, c, k, c.used, self.slot_bytes) <= now {
                level.next = (i + 1) % n;
                return Some(level.chans[i]);
            }
        }
        None
    }

    /// When a backlogged channel may send next: its next slot in this frame if it has bytes
    /// left, else the slot its bytes start in the next frame.
    fn chan_next(&self, level: &Level, c: &Chan, now: SimTime) -> SimTime {
        let k = now / level.frame;
        let used = if c.frame == k {
            c.used
        } else if c.frame + 1 == k {
            c.used.saturating_sub(c.allotment)
        } else {
            0
        };
        let used = Self::skip_passed(level, c, k, used, now, self.slot_bytes);
        if used < c.allotment {
            Self::slot_time(level, c, k, used, self.slot_bytes)
        } else {
            Self::slot_time(level, c, k + 1, used - c.allotment, self.slot_bytes)
        }
    }

    /// Channel slots at level `l`: `count` distinct slots of its frame, each as near as the
    /// taken ones allow to an even spread (slot j at floor(j n / count) or the next free).
    fn place(&mut self, l: usize, count: u64) -> Vec<u32> {
        let level = &mut self.levels[l];
        if level.owned.is_empty() {
            return Vec::new();
        }
        let n = level.n as u64;
        let mut out: Vec<u32> = (0..count)
            .map(|j| {
                let ideal = (j * n / count) as usize;
                let s = (0..n as usize).map(|d| (ideal + d) % n as usize).find(|&s| !level.owned[s]).expect("room was checked");
                level.owned[s] = true;
                s as u32
            })
            .collect();
        out.sort_unstable();
        out
    }
}

impl QueueDiscipline for Hrr {
    fn enqueue(&mut self, pkt: PacketId, arena: &mut PacketArena, _now: SimTime, tx: InService) -> Verdict {
        let p = arena.get(pkt);
        let (id, size) = (Self::conversation(p.flow, p.kind), p.size);
        if !self.fits(size, tx) {
            return Verdict::Dropped(pkt);
        }
        match self.chans.get_mut(id as usize) {
            Some(c) if c.level != BEST_EFFORT => c.queue.push_back((pkt, size)),
            _ => self.best_effort.push_back((pkt, size)),
        }
        self.pkts += 1;
        self.bytes += size as u64;
        Verdict::Accepted
    }

    fn dequeue(&mut self, _arena: &mut PacketArena, now: SimTime) -> Option<PacketId> {
        let picked = (0..self.levels.len()).find_map(|l| self.pick(l, now));
        let (pkt, size) = match picked {
            Some(id) => {
                let c = &mut self.chans[id as usize];
                let (pkt, size) = c.queue.pop_front().unwrap();
                c.used += size as u64;
                (pkt, size)
            }
            None => self.best_effort.pop_front()?,
        };
        self.pkts -= 1;
        self.bytes -= size as u64;
        Some(pkt)
    }

    fn next_eligible(&self, now: SimTime) -> Option<SimTime> {
        // Called when nothing may go: every backlogged channel has spent its allotment or
        // waits for its next slot.
        self.levels
            .iter()
            .flat_map(|l| l.chans.iter().map(move |&c| (l, &self.chans[c as usize])))
            .filter(|(_, c)| !c.queue.is_empty())
            .map(|(l, c)| self.chan_next(l, c, now))
            .min()
    }

    fn len_packets(&self) -> u32 {
        self.pkts
    }

    fn len_bytes(&self) -> u64 {
        self.bytes
    }

    fn for_each(&self, f: &mut dyn FnMut(PacketId)) {
        self.best_effort.iter().for_each(|e| f(e.0));
        for c in &self.chans {
            c.queue.iter().for_each(|e| f(e.0));
        }
    }

    fn memory_bytes(&self) -> usize {
        self.chans.capacity() * std::mem::size_of::<Chan>()
            + self.chans.iter().map(|c| c.queue.capacity() * 16).sum::<usize>()
            + self.best_effort.capacity() * 16
            + self.chans.iter().map(|c| c.slots.capacity() * 4).sum::<usize>()
            + self.levels.iter().map(|l| l.chans.capacity() * 4 + l.owned.capacity()).sum::<usize>()
    }

    fn wants_routes(&self) -> bool {
        true
    }

    fn routed(&mut self, flow: u32, kind: PacketKind, _hop: u32, reserved_bps: u64) -> std::result::Result<bool, String> {
        let id = Self::conversation(flow, kind);
        if id as usize >= self.chans.len() {
            self.chans.resize_with(id as usize + 1, Chan::new);
        }
        if self.chans[id as usize].routed || reserved_bps == 0 {
            self.chans[id as usize].routed = true;
            return Ok(true);
        }
        self.chans[id as usize].routed = true;
        // Slots a frame of each level the rate needs; the first level where that is a slot.
        let slot_bits = 8.0 * self.slot_bytes as f64;
        let need = |l: &Level| reserved_bps as f64 * l.frame as f64 / PS_PER_SEC as f64 / slot_bits;
        let l = self.levels.iter().position(|l| need(l) >= 1.0).unwrap_or(self.levels.len() - 1);
        let slots = need(&self.levels[l]).round().max(1.0) as u64;
        let level = &mut self.levels[l];
        if slots > level.slots - level.taken {
            return Err(format!(
                "an HRR port's level {} has {} slots a frame for its channels and {} are taken; this reservation needs {}",
                l + 1,
                level.slots,
                level.taken,
                slots
            ));
        }
        level.taken += slots;
        level.chans.push(id);
        let positions = self.place(l, slots);
        let c = &mut self.chans[id as usize];
        c.level = l as u8;
        c.allotment = slots * self.slot_bytes as u64;
        c.slots = positions;
        Ok(true)
    }
}

#[cfg(test)]
mod tests {
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
}
