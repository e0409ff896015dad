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
use frames::{Chan, Level, BEST_EFFORT};
use std::collections::VecDeque;

mod frames;

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
                free_from: if cfg.positions == Positions::Spread { (0..n).collect() } else { Vec::new() },
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
            c.used = level.skip_passed(c, k, c.used, now, self.slot_bytes);
            if c.used < c.allotment && level.slot_time(c, k, c.used, self.slot_bytes) <= now {
                level.next = (i + 1) % n;
                return Some(level.chans[i]);
            }
        }
        None
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
            .map(|(l, c)| l.next_send(c, now, self.slot_bytes))
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
            + self.levels.iter().map(|l| l.chans.capacity() * 4 + l.free_from.capacity() * 4).sum::<usize>()
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
        let positions = level.place(slots);
        let c = &mut self.chans[id as usize];
        c.level = l as u8;
        c.allotment = slots * self.slot_bytes as u64;
        c.slots = positions;
        Ok(true)
    }
}

#[cfg(test)]
mod tests;
