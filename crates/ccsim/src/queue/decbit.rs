//! Selective DECbit gateway: FCFS drop-tail plus congestion-bit setting.
//!
//! Source: Keshav 1991 ch. 6, §6.5 and §6.6.3 / §6.6.6 (keshav91-experiments.md §3.3, gap G15).
//! The thesis gives three facts: the switch sets the header bit "whenever the average queue
//! length is greater than one"; the selective variant measures each conversation's flow and
//! signals only those using more than their fair share; it has a *capacity factor* (0.9 in
//! Scenario 6) and a *panic mode* in which bits go to every conversation. The rest is the
//! spec's reading of Ramakrishnan & Jain (TOCS 1990) and Ramakrishnan, Chiu & Jain (DEC
//! TR-508/510) [EXT]:
//! - the queue length (packets, *including the one in service*) is averaged over time across
//!   the previous regeneration cycle (a busy period and the idle period after it) plus the
//!   current cycle up to now; a cycle starts when a packet arrives to an empty system;
//! - congested when that average is greater than `threshold` (1); panic when it is greater than
//!   `panic_threshold` (2) (`inclusive = true`: at or above, see below);
//! - demand per conversation = bytes it offered during the measurement window; the fair share
//!   is the max-min share of `capacity_factor` x line rate over the same window (conversations
//!   demanding less than an equal share keep their demand, the rest split what remains,
//!   repeated until stable);
//! - the bit (flags::CE) is set on an arriving data packet when the gateway is in panic, or
//!   when it is congested and the packet's conversation demands more than its fair share.
//!
//! Scheduling and dropping are exactly [`DropTail`]'s (reused, not duplicated): buffer in
//! packets or bytes, `count_in_service` (gap G7).
//!
//! Choices where the sources are silent, each with the parameter that selects the alternative
//! (defaults are the spec's [REC] unless marked otherwise):
//! - "Overloaded" [REC, G15]: the average-queue test. The other reading, total demand above
//!   capacity_factor x capacity, is implied by it: max-min puts somebody over its share exactly
//!   when total demand exceeds that capacity, so while the queue is long but demand is below
//!   capacity_factor x capacity nobody is marked (the gateway holds utilisation near the
//!   capacity factor, as Scenario 6 shows). `mark_all_when_underloaded = true` instead marks
//!   everyone in that case (plain DECbit whenever selection finds no culprit).
//! - `selective = false` gives the original, non-selective DECbit (every data packet marked
//!   while the average is over the threshold).
//! - The average must *exceed* the threshold (the thesis, §6.5: the bit is set "whenever the
//!   average queue length is greater than one"); the same strict test is used for the panic
//!   threshold. `inclusive = true` gives the spec's reading, average >= threshold (as Peterson &
//!   Davie describe DECbit). The difference is not academic in deterministic runs: a line
//!   carrying back-to-back packets with nobody waiting has an average of exactly 1 (the knee
//!   DECbit aims at), which `inclusive` calls congestion, and a conversation alone on its
//!   line, receiving a burst at line rate, then counts as over its share. Scenarios 3 and 6
//!   fit the strict test (keshav91 findings S3-decdec-window-timing and those of
//!   findings/s6.toml measure both).
//! - Strict ">" for "more than its fair share".
//! - Measurement window for the fair share: `FairShareWindow::Cycle` (default) uses the same
//!   interval as the queue average, as §3.3(2) says ("over the same averaging interval"); the
//!   demand estimate then adapts at the same pace as the congestion test and needs no extra
//!   time constant. A line that never goes idle has one cycle that grows from the start of the
//!   busy period, which makes the estimate sluggish after a change of traffic;
//!   `FairShareWindow::Fixed(T)` instead measures over the previous complete interval of length
//!   T plus the current partial one.
//! - Demand is counted in bytes at arrival and the capacity is the line rate in bytes, so mixed
//!   packet sizes (40 B Telnet / ACK, 1000 B FTP) are weighted by the line time they use.
//!   Packets the buffer drops count as demand (`demand_counts_drops`, default true): demand is
//!   what a conversation offers, not what it gets.
//! - Conversation = `packet.flow`; a flow's ACK stream through this port is a separate
//!   conversation (spec §3.2, G23): it counts in the queue and the fair share, but ACKs are
//!   not marked (Keshav's gateway), and panic marks every *data* packet. Liang 1991's REAL
//!   dec_router set the bit on every packet (§2.4.2, spec liang91 §1.5): `mark_acks = true`
//!   sets it on an ACK's echo field, which its source reads. `count_acks = false` leaves ACKs
//!   out of the averaged queue length (Liang's diagnosis of DECbit under two-way traffic is
//!   that a small ACK counts as much as a data packet; spec liang91 P5's diagnostic).
//! - The bit is set at arrival (as DECbit sets it on arriving packets); a dropped packet is not
//!   marked.
//! - `share_refresh`: the fair share is recomputed at every marking decision by default (0);
//!   a positive value reuses it for that long, bounding the cost on ports with many
//!   conversations.
//!
//! The gateway follows its line itself (the port calls `dequeue` when a transmission starts;
//! the gateway knows from `bandwidth_bps` when it ends, since the port's transmitter is lazy and
//! signals no completion when nothing waits), so `bandwidth_bps` must be the port's line rate.
//! Per-conversation state lives in a `Vec` indexed by conversation (2 x flow, + 1 for the ACK
//! stream), grown on demand; counters roll over lazily by epoch, so nothing is allocated or
//! hashed per packet in steady state.

use super::{BufferLimit, Discipline, DropTail, InService, PortSetup, QueueDiscipline, Verdict};
use crate::scenario::decode::Result;
use crate::scenario::params::{text, Params};
use crate::scenario::units;
use crate::net::packet::flags;
use crate::net::{PacketArena, PacketId, PacketKind};
use crate::sim::{time::tx_time, SimTime, PS_PER_SEC};

/// Over which interval conversation demands are measured for the fair share.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FairShareWindow {
    /// The queue-averaging interval: the previous regeneration cycle plus the current one.
    Cycle,
    /// The previous complete interval of this length plus the current partial one.
    Fixed(SimTime),
}

/// Every parameter of the selective DECbit gateway; `Default` gives the spec's values.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DecBitConfig {
    /// Average queue length (packets, including the one in service) above which the gateway is
    /// congested and marks. 1.0 (thesis: "greater than one").
    pub threshold: f64,
    /// Mark only conversations over their fair share (selective DECbit). true; false is the
    /// original DECbit, which marks every data packet while congested.
    pub selective: bool,
    /// Fraction of the line rate shared out as fair shares. 0.9 (thesis Scenario 6).
    pub capacity_factor: f64,
    /// Allow panic mode. true (thesis Scenario 6: "allowed to go into panic mode").
    pub panic_enabled: bool,
    /// Average queue length above which every data packet is marked. 2.0 (spec [REC]).
    pub panic_threshold: f64,
    /// Compare the averages with >= instead of > (both thresholds). false: the thesis's "greater
    /// than one"; true: the spec's reading (average >= 1).
    pub inclusive: bool,
    /// Measurement window for the demands. `Cycle` (spec §3.3: the averaging interval).
    pub window: FairShareWindow,
    /// Count packets the buffer drops as demand. true.
    pub demand_counts_drops: bool,
    /// When congested but total demand <= capacity_factor x capacity (nobody over its share),
    /// mark every data packet instead of none. false.
    pub mark_all_when_underloaded: bool,
    /// Reuse a computed fair share for this long (0: recompute at every decision). 0.
    pub share_refresh: SimTime,
    /// Set the bit on ACKs too, as REAL's dec_router did (Liang 1991 §2.4.2, §5.3). false.
    pub mark_acks: bool,
    /// ACKs count in the queue length the gateway averages. true (Liang's diagnosis of
    /// DECbit under two-way traffic turns on it; false is spec P5's diagnostic variant).
    pub count_acks: bool,
}

impl Default for DecBitConfig {
    fn default() -> Self {
        DecBitConfig {
            threshold: 1.0,
            selective: true,
            capacity_factor: 0.9,
            panic_enabled: true,
            panic_threshold: 2.0,
            inclusive: false,
            window: FairShareWindow::Cycle,
            demand_counts_drops: true,
            mark_all_when_underloaded: false,
            share_refresh: 0,
            mark_acks: false,
            count_acks: true,
        }
    }
}

impl Discipline for DecBit {
    const NAME: &'static str = "decbit";
    const SUMMARY: &'static str = "the selective DECbit gateway (Keshav 1991 §6.5; Ramakrishnan and Jain 1990): FCFS plus congestion bits";
    type Config = DecBitConfig;

    fn decode(p: &mut Params) -> Result<DecBitConfig> {
        let d = DecBitConfig::default();
        let threshold = p.number("threshold", d.threshold, 0.0, 1e6, "average queue (packets, in service included) above which the gateway marks")?;
        let selective = p.flag("selective", d.selective, "mark only conversations over their fair share (false: every data packet)")?;
        let capacity_factor = p.number("capacity_factor", d.capacity_factor, 0.01, 10.0, "fraction of the line rate shared out as fair shares")?;
        let panic_enabled = p.flag("panic", d.panic_enabled, "allow panic mode (every data packet marked)")?;
        let panic_threshold = p.number("panic_threshold", d.panic_threshold, 0.0, 1e6, "average queue above which the gateway panics")?;
        let inclusive = p.flag("inclusive", d.inclusive, "compare the averages with >= instead of >")?;
        const WINDOW: &str = "\"cycle\" or a positive duration";
        let window = p.custom("fair_share_window", d.window, "\"cycle\"", WINDOW, "over which interval demands are measured", |v| {
            match text(v) {
                Some("cycle") => Ok(FairShareWindow::Cycle),
                Some(s) => match units::duration(s) {
                    Ok(t) if t > 0 => Ok(FairShareWindow::Fixed(t)),
                    _ => Err(WINDOW.to_string()),
                },
                None => Err(WINDOW.to_string()),
            }
        })?;
        let demand_counts_drops = p.flag("demand_counts_drops", d.demand_counts_drops, "count packets the buffer drops as demand")?;
        let mark_all_when_underloaded = p.flag(
            "mark_all_when_underloaded",
            d.mark_all_when_underloaded,
            "when congested but nobody is over its share, mark everyone instead of no one",
        )?;
        let share_refresh = p.duration("share_refresh", d.share_refresh, "reuse a computed fair share for this long (0: recompute every time)")?;
        let mark_acks = p.flag("mark_acks", d.mark_acks, "set the bit on ACKs too (REAL's dec_router, Liang 1991): the source sees it")?;
        let count_acks = p.flag("count_acks", d.count_acks, "ACKs count in the averaged queue length (false: data packets only)")?;
        Ok(DecBitConfig {
            threshold,
            selective,
            capacity_factor,
            panic_enabled,
            panic_threshold,
            inclusive,
            window,
            demand_counts_drops,
            mark_all_when_underloaded,
            share_refresh,
            mark_acks,
            count_acks,
        })
    }

    fn build(cfg: &DecBitConfig, port: &PortSetup) -> Self {
        DecBit::new(port.buffer, port.count_in_service, port.bandwidth_bps, *cfg)
    }
}

/// Marking counters.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DecBitStats {
    /// Data packets marked (panic included).
    pub marked: u64,
    /// Of those, marked because of panic mode.
    pub panic_marked: u64,
}

/// Bytes offered by one conversation in the previous and the current measurement epoch.
#[derive(Clone, Copy, Debug, Default)]
struct Conv {
    epoch: u64,
    cur: u64,
    prev: u64,
    listed: bool,
}

impl Conv {
    #[inline]
    fn roll(&mut self, epoch: u64) {
        if self.epoch != epoch {
            self.prev = if self.epoch + 1 == epoch { self.cur } else { 0 };
            self.cur = 0;
            self.epoch = epoch;
        }
    }
}

pub struct DecBit {
    inner: DropTail,
    cfg: DecBitConfig,
    bandwidth_bps: u64,
    // The queue-length process N(t) = queued + in service (ACKs left out unless count_acks).
    in_service: bool,
    /// The packet in service is one N(t) counts.
    service_counted: bool,
    /// Queued packets N(t) leaves out (ACKs, when !count_acks).
    uncounted: u32,
    busy_until: SimTime,
    last: SimTime,
    /// Integral of N over the current cycle up to `last`, packet-picoseconds.
    cur_area: u128,
    /// Integral of N over the previous cycle.
    prev_area: u128,
    cycle_start: SimTime,
    prev_cycle_start: SimTime,
    cycle_epoch: u64,
    // Conversations.
    convs: Vec<Conv>,
    /// Conversations that may have a nonzero demand (pruned when the fair share is computed).
    listed: Vec<u32>,
    scratch: Vec<u64>,
    /// Fair share in bytes over the window it was computed for; INFINITY: nobody is over.
    share: f64,
    overloaded: bool,
    share_at: Option<SimTime>,
    last_average: f64,
    pub stats: DecBitStats,
}

impl DecBit {
    pub fn new(limit: BufferLimit, count_in_service: bool, bandwidth_bps: u64, cfg: DecBitConfig) -> Self {
        assert!(bandwidth_bps > 0, "DecBit needs the line rate");
        if let FairShareWindow::Fixed(t) = cfg.window {
            assert!(t > 0, "DecBit fair-share window must be positive");
        }
        DecBit {
            inner: DropTail::new(limit, count_in_service),
            cfg,
            bandwidth_bps,
            in_service: false,
            service_counted: false,
            uncounted: 0,
            busy_until: 0,
            last: 0,
            cur_area: 0,
            prev_area: 0,
            cycle_start: 0,
            prev_cycle_start: 0,
            cycle_epoch: 0,
            convs: Vec::new(),
            listed: Vec::new(),
            scratch: Vec::new(),
            share: f64::INFINITY,
            overloaded: false,
            share_at: None,
            last_average: 0.0,
            stats: DecBitStats::default(),
        }
    }

    pub fn config(&self) -> &DecBitConfig {
        &self.cfg
    }

    /// Packets in the system: queued plus the one in service.
    #[inline]
    fn in_system(&self) -> u64 {
        (self.inner.len_packets() - self.uncounted) as u64 + (self.in_service && self.service_counted) as u64
    }

    /// Does N(t) count a packet of this kind?
    #[inline]
    fn counts(&self, kind: PacketKind) -> bool {
        self.cfg.count_acks || kind != PacketKind::Ack
    }

    /// Bring the queue-length integral up to `now`, completing a transmission that ended.
    #[inline]
    fn advance(&mut self, now: SimTime) {
        if self.in_service && self.busy_until <= now {
            self.integrate(self.busy_until);
            self.in_service = false;
        }
        self.integrate(now);
    }

    #[inline]
    fn integrate(&mut self, t: SimTime) {
        if t > self.last {
            self.cur_area += self.in_system() as u128 * (t - self.last) as u128;
            self.last = t;
        }
    }

    /// Time-average queue length (packets, including the one in service) over the previous
    /// regeneration cycle plus the current one up to `now` (>= the last event). 0 with no history.
    pub fn average_queue(&self, now: SimTime) -> f64 {
        let mut area = self.cur_area;
        let mut last = self.last;
        let mut n = self.in_system();
        if self.in_service && self.busy_until <= now {
            area += n as u128 * self.busy_until.saturating_sub(last) as u128;
            last = last.max(self.busy_until);
            n -= self.service_counted as u64;
        }
        area += n as u128 * now.saturating_sub(last) as u128;
        let span = now.saturating_sub(self.prev_cycle_start);
        if span == 0 {
            0.0
        } else {
            (self.prev_area + area) as f64 / span as f64
        }
    }

    /// The average queue length the gateway used for the last arriving packet.
    pub fn last_average(&self) -> f64 {
        self.last_average
    }

    #[inline]
    fn epoch_at(&self, now: SimTime) -> u64 {
        match self.cfg.window {
            FairShareWindow::Cycle => self.cycle_epoch,
            FairShareWindow::Fixed(t) => now / t,
        }
    }

    #[inline]
    fn window_start(&self, now: SimTime) -> SimTime {
        match self.cfg.window {
            FairShareWindow::Cycle => self.prev_cycle_start,
            FairShareWindow::Fixed(t) => (now / t).saturating_sub(1) * t,
        }
    }

    #[inline]
    fn conv_index(flow: u32, kind: PacketKind) -> usize {
        2 * flow as usize + (kind == PacketKind::Ack) as usize
    }

    #[inline]
    fn count(&mut self, conv: usize, bytes: u32, now: SimTime) {
        if conv >= self.convs.len() {
            self.convs.resize(conv + 1, Conv::default());
        }
        let epoch = self.epoch_at(now);
        let c = &mut self.convs[conv];
        c.roll(epoch);
        c.cur += bytes as u64;
        if !c.listed {
            c.listed = true;
            self.listed.push(conv as u32);
        }
    }

    /// Bytes conversation `conv` offered in the current measurement window.
    fn demand(&mut self, conv: usize, now: SimTime) -> u64 {
        let epoch = self.epoch_at(now);
        match self.convs.get_mut(conv) {
            Some(c) => {
                c.roll(epoch);
                c.prev + c.cur
            }
            None => 0,
        }
    }

    /// Recompute the max-min fair share of capacity_factor x line rate over the window.
    fn refresh_share(&mut self, now: SimTime) {
        if let Some(at) = self.share_at {
            if self.cfg.share_refresh > 0 && now < at.saturating_add(self.cfg.share_refresh) {
                return;
            }
        }
        self.share_at = Some(now);
        let epoch = self.epoch_at(now);
        self.scratch.clear();
        let mut total: u64 = 0;
        let mut i = 0;
        while i < self.listed.len() {
            let c = &mut self.convs[self.listed[i] as usize];
            c.roll(epoch);
            let d = c.prev + c.cur;
            if d == 0 {
                c.listed = false;
                self.listed.swap_remove(i);
            } else {
                self.scratch.push(d);
                total += d;
                i += 1;
            }
        }
        let span = now - self.window_start(now);
        let capacity = self.cfg.capacity_factor * (self.bandwidth_bps as f64 / 8.0) * (span as f64 / PS_PER_SEC as f64);
        self.overloaded = total as f64 > capacity;
        self.share = if self.overloaded { max_min_share(&mut self.scratch, capacity) } else { f64::INFINITY };
    }

    /// Is the average over `threshold` (strictly, unless `inclusive`)?
    #[inline]
    fn over(&self, avg: f64, threshold: f64) -> bool {
        if self.cfg.inclusive {
            avg >= threshold
        } else {
            avg > threshold
        }
    }

    /// Should an arriving data packet of conversation `conv` carry the bit?
    fn decide(&mut self, conv: usize, avg: f64, now: SimTime) -> bool {
        if self.cfg.panic_enabled && self.over(avg, self.cfg.panic_threshold) {
            self.stats.panic_marked += 1;
            return true;
        }
        if !self.over(avg, self.cfg.threshold) {
            return false;
        }
        if !self.cfg.selective {
            return true;
        }
        self.refresh_share(now);
        if self.overloaded {
            self.demand(conv, now) as f64 > self.share
        } else {
            self.cfg.mark_all_when_underloaded
        }
    }

    /// Start a new regeneration cycle at `now` (a packet arrives to an empty system).
    fn new_cycle(&mut self, now: SimTime) {
        self.prev_area = self.cur_area;
        self.cur_area = 0;
        self.prev_cycle_start = self.cycle_start;
        self.cycle_start = now;
        self.cycle_epoch += 1;
    }
}

/// Max-min fair share of `capacity` among `demands` (reordered): conversations demanding less
/// than an equal share of what is left keep their demand; the rest split the remainder.
/// INFINITY when every demand fits.
fn max_min_share(demands: &mut [u64], capacity: f64) -> f64 {
    demands.sort_unstable();
    let mut left = capacity;
    let mut n = demands.len();
    for &d in demands.iter() {
        let equal = left / n as f64;
        if (d as f64) < equal {
            left -= d as f64;
            n -= 1;
        } else {
            return equal;
        }
    }
    f64::INFINITY
}

impl QueueDiscipline for DecBit {
    fn marks(&self) -> u64 {
        self.stats.marked
    }
    /// A control packet took the line: it counts as the packet in service, as one of ours.
    fn line_taken(&mut self, now: SimTime, bytes: u32) {
        self.advance(now);
        self.in_service = true;
        self.service_counted = true;
        self.busy_until = now + tx_time(bytes, self.bandwidth_bps);
    }
    #[inline]
    fn enqueue(&mut self, pkt: PacketId, arena: &mut PacketArena, now: SimTime, tx: InService) -> Verdict {
        self.advance(now);
        debug_assert_eq!(
            self.in_service,
            tx.bytes.is_some(),
            "DecBit's line state disagrees with the port's: is bandwidth_bps the port's rate?"
        );
        let p = arena.get(pkt);
        let (size, kind) = (p.size, p.kind);
        if self.in_system() == 0 && self.counts(kind) {
            self.new_cycle(now);
        }
        let avg = self.average_queue(now);
        self.last_average = avg;
        let conv = Self::conv_index(p.flow, kind);
        if self.cfg.demand_counts_drops {
            self.count(conv, size, now);
        }
        let verdict = self.inner.enqueue(pkt, arena, now, tx);
        if verdict == Verdict::Accepted {
            if !self.cfg.demand_counts_drops {
                self.count(conv, size, now);
            }
            self.uncounted += u32::from(!self.counts(kind));
            let markable = kind == PacketKind::Data || (self.cfg.mark_acks && kind == PacketKind::Ack);
            if markable && self.decide(conv, avg, now) {
                // An ACK's bit is the one its source reads: the echo field.
                arena.get_mut(pkt).flags |= if kind == PacketKind::Data { flags::CE } else { flags::ECHO_CE };
                self.stats.marked += 1;
            }
        }
        verdict
    }

    #[inline]
    fn dequeue(&mut self, arena: &mut PacketArena, now: SimTime) -> Option<PacketId> {
        self.advance(now);
        debug_assert!(!self.in_service, "DecBit dequeued while its line is busy");
        // (Were the line still busy, the packet in service would count as leaving now: the
        // number in the system is unchanged by the swap.)
        let p = self.inner.dequeue(arena, now)?;
        self.in_service = true;
        self.service_counted = self.counts(arena.get(p).kind);
        self.uncounted -= u32::from(!self.service_counted);
        self.busy_until = now + tx_time(arena.get(p).size, self.bandwidth_bps);
        Some(p)
    }

    fn len_packets(&self) -> u32 {
        self.inner.len_packets()
    }

    fn len_bytes(&self) -> u64 {
        self.inner.len_bytes()
    }

    fn for_each(&self, f: &mut dyn FnMut(PacketId)) {
        self.inner.for_each(f)
    }

    fn memory_bytes(&self) -> usize {
        self.inner.memory_bytes()
            + self.convs.capacity() * std::mem::size_of::<Conv>()
            + self.listed.capacity() * 4
            + self.scratch.capacity() * 8
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::packet::{Packet, EMPTY};
    use crate::sim::time::from_secs;

    /// 8 kb/s: a 1000-byte packet takes exactly one second.
    const BW: u64 = 8_000;

    fn pkt(a: &mut PacketArena, flow: u32, size: u32, kind: PacketKind) -> PacketId {
        a.alloc(Packet { flow, size, kind, ..EMPTY })
    }

    /// The port's transmitter, reduced to what the queue sees: `dequeue` when the line frees.
    #[derive(Default)]
    struct Line {
        busy_until: SimTime,
        busy: bool,
        bytes: u32,
    }

    impl Line {
        fn run_until(&mut self, q: &mut DecBit, a: &mut PacketArena, t: SimTime) {
            while self.busy && self.busy_until <= t {
                let done = self.busy_until;
                self.busy = false;
                if let Some(p) = q.dequeue(a, done) {
                    self.start(p, a, done);
                }
            }
        }
        fn start(&mut self, p: PacketId, a: &mut PacketArena, now: SimTime) {
            self.bytes = a.get(p).size;
            self.busy = true;
            self.busy_until = now + tx_time(self.bytes, BW);
        }
        fn arrive(&mut self, q: &mut DecBit, a: &mut PacketArena, p: PacketId, now: SimTime) -> Verdict {
            self.run_until(q, a, now);
            let tx = InService { bytes: self.busy.then_some(self.bytes) };
            let v = q.enqueue(p, a, now, tx);
            if !self.busy {
                if let Some(p) = q.dequeue(a, now) {
                    self.start(p, a, now);
                }
            }
            v
        }
        /// A new packet arrives at `now`.
        fn send(&mut self, q: &mut DecBit, a: &mut PacketArena, flow: u32, size: u32, kind: PacketKind, now: SimTime) -> PacketId {
            let p = pkt(a, flow, size, kind);
            self.arrive(q, a, p, now);
            p
        }
    }

    fn marked(a: &PacketArena, p: PacketId) -> bool {
        a.get(p).has(flags::CE)
    }

    fn gateway(cfg: DecBitConfig) -> DecBit {
        DecBit::new(BufferLimit::Unlimited, true, BW, cfg)
    }

    #[test]
    fn never_exceeds_its_buffer_in_packets_or_bytes() {
        for (limit, cis) in [(BufferLimit::Packets(4), true), (BufferLimit::Packets(4), false), (BufferLimit::Bytes(2500), false)] {
            let mut a = PacketArena::new();
            let mut q = DecBit::new(limit, cis, BW, DecBitConfig::default());
            let mut line = Line::default();
            let mut drops = 0;
            for i in 0..400u64 {
                let size = if i % 3 == 0 { 40 } else { 1000 };
                let p = pkt(&mut a, (i % 3) as u32, size, PacketKind::Data);
                if let Verdict::Dropped(d) = line.arrive(&mut q, &mut a, p, from_secs(0.3 * i as f64)) {
                    assert_eq!(d, p);
                    drops += 1;
                }
                match limit {
                    BufferLimit::Packets(n) => assert!(q.len_packets() + (cis && line.busy) as u32 <= n),
                    BufferLimit::Bytes(b) => assert!(q.len_bytes() <= b),
                    BufferLimit::Unlimited => unreachable!(),
                }
            }
            assert!(drops > 0, "the test must overflow the buffer");
        }
    }

    #[test]
    fn average_queue_spans_the_previous_cycle_and_the_current_one() {
        let mut a = PacketArena::new();
        // Inclusive (>=) so that the averages of exactly 1.0 below go on to the fair-share test.
        let mut q = gateway(DecBitConfig { inclusive: true, ..DecBitConfig::default() });
        let mut line = Line::default();
        let t = from_secs;
        let close = |x: f64, y: f64| (x - y).abs() < 1e-12;
        // Cycle 1: A at 0 (served 0-1), B at 0.5 (served 1-2), idle 2-4.
        line.send(&mut q, &mut a, 0, 1000, PacketKind::Data, t(0.0));
        assert_eq!(q.last_average(), 0.0, "no history");
        let b = line.send(&mut q, &mut a, 0, 1000, PacketKind::Data, t(0.5));
        assert!(close(q.last_average(), 1.0)); // N = 1 over [0, 0.5)
                                               // Average 1.0 >= 1, and flow 0 offered 2000 B in 0.5 s against 0.9 x 500 B: marked.
        assert!(marked(&a, b));
        line.run_until(&mut q, &mut a, t(3.0));
        // Area 0.5 x 1 + 0.5 x 2 + 1 x 1 = 2.5 over [0, 3): the idle time counts.
        assert!(close(q.average_queue(t(3.0)), 2.5 / 3.0));
        // Cycle 2 starts at 4: C at 4 (served 4-5), D at 4.5 (served 5-6).
        line.send(&mut q, &mut a, 1, 1000, PacketKind::Data, t(4.0));
        assert!(close(q.last_average(), 2.5 / 4.0)); // the whole of cycle 1
        let d = line.send(&mut q, &mut a, 1, 1000, PacketKind::Data, t(4.5));
        assert!(close(q.last_average(), 3.0 / 4.5)); // cycle 1 plus [4, 4.5) at N = 1
        assert!(!marked(&a, d), "average below 1");
        assert_eq!(q.demand(0, t(4.5)), 2000);
        assert_eq!(q.demand(2, t(4.5)), 2000);
        // Cycle 3 starts at 6.5: cycle 1 is forgotten; cycle 2 = [4, 6.5) has area 2.5.
        let e = line.send(&mut q, &mut a, 2, 1000, PacketKind::Data, t(6.5));
        assert!(close(q.last_average(), 1.0));
        // Congested, but flow 2 (1000 B) is under its share: capacity 0.9 x 2500 B, flow 1
        // offered 2000 B, so the water level is 1125 B and flow 2 keeps its demand.
        assert!(!marked(&a, e));
        assert_eq!(q.demand(0, t(6.5)), 0, "flow 0 sent two cycles ago");
        assert_eq!(q.demand(2, t(6.5)), 2000);
        assert_eq!(q.demand(4, t(6.5)), 1000);
        // In the middle of a busy period: cycle 2 plus [6.5, 7) at N = 1.
        assert!(close(q.average_queue(t(7.0)), 3.0 / 3.0));
        assert_eq!(q.stats.marked, 1);
    }

    #[test]
    fn an_average_of_exactly_one_or_two_needs_inclusive_to_count() {
        // One packet arrives each second, each as the previous one leaves; with `backlog` = 1 an
        // extra packet at t = 0 keeps one waiting throughout. The average queue is then exactly
        // 1 + backlog (each arrival starts a new cycle after an idle period of zero length).
        // The conversation offers the whole line, over the 0.9 x line it may have, so only the
        // threshold tests decide. Returns (marked, panic-marked) among the last 19 packets.
        let run = |cfg: DecBitConfig, backlog: u32| {
            let mut a = PacketArena::new();
            let mut q = gateway(cfg);
            let mut line = Line::default();
            for _ in 0..backlog {
                line.send(&mut q, &mut a, 0, 1000, PacketKind::Data, 0);
            }
            let mut marks = 0;
            for i in 0..20 {
                let p = line.send(&mut q, &mut a, 0, 1000, PacketKind::Data, from_secs(i as f64));
                if i > 0 {
                    let want = 1.0 + backlog as f64;
                    assert!((q.last_average() - want).abs() < 1e-12, "average {} (want {want})", q.last_average());
                    marks += marked(&a, p) as u32;
                }
            }
            (marks, q.stats.panic_marked)
        };
        let inclusive = DecBitConfig { inclusive: true, ..DecBitConfig::default() };
        // The thesis: "greater than one". Nobody waits, so this is not congestion.
        assert_eq!(run(DecBitConfig::default(), 0), (0, 0));
        // The spec's reading (>= 1): every packet after the first is marked.
        assert_eq!(run(inclusive, 0), (19, 0));
        // An average of exactly 2.0 = the panic threshold: congested either way (2 > 1) and over
        // its share, so every packet is marked; only inclusive calls it panic.
        assert_eq!(run(DecBitConfig::default(), 1), (19, 0));
        assert_eq!(run(inclusive, 1), (19, 19), "inclusive: an average of 2 is panic");
    }

    #[test]
    fn nobody_is_marked_while_the_average_queue_is_below_one() {
        // Flow 0: 1000 B every 3 s; flow 1: 1000 B every 6 s, arriving while flow 0's packet
        // is in service. The cycle averages alternate between 1/3 and 5/6.
        let run = |cfg: DecBitConfig| {
            let mut a = PacketArena::new();
            let mut q = gateway(cfg);
            let mut line = Line::default();
            let mut events: Vec<(f64, u32)> = (0..100).map(|i| (3.0 * i as f64, 0)).collect();
            events.extend((0..50).map(|i| (3.5 + 6.0 * i as f64, 1)));
            events.sort_by(|x, y| x.partial_cmp(y).unwrap());
            let mut marks = [0u32; 2];
            for (at, flow) in events {
                let p = pkt(&mut a, flow, 1000, PacketKind::Data);
                line.arrive(&mut q, &mut a, p, from_secs(at));
                if cfg.threshold >= 1.0 {
                    assert!(q.last_average() < 1.0, "premise: average {} at {at}", q.last_average());
                }
                marks[flow as usize] += marked(&a, p) as u32;
            }
            marks
        };
        // A tiny capacity factor puts both flows far over their shares: only the average
        // queue keeps the bits off.
        let cfg = DecBitConfig { capacity_factor: 0.01, ..DecBitConfig::default() };
        assert_eq!(run(cfg), [0, 0]);
        // Control: the same traffic with the threshold lowered is marked.
        let marks = run(DecBitConfig { threshold: 0.1, ..cfg });
        assert!(marks[0] > 0 && marks[1] > 0);
    }

    /// Flow 0 offers 0.7 of the line, flow 1 0.3; both start with a packet at t = 0, so the
    /// line never idles and at least one packet is always in the system (average >= 1).
    fn overloaded_run(cfg: DecBitConfig) -> ([u32; 2], [u32; 2], DecBit) {
        let mut a = PacketArena::new();
        let mut q = gateway(cfg);
        let mut line = Line::default();
        let mut events: Vec<(SimTime, u32)> = (0..140).map(|i| (from_secs(i as f64 * 10.0 / 7.0), 0)).collect();
        events.extend((0..60).map(|j| (from_secs(j as f64 * 10.0 / 3.0), 1)));
        events.sort();
        let (mut marks, mut seen) = ([0u32; 2], [0u32; 2]);
        for (at, flow) in events {
            let p = pkt(&mut a, flow, 1000, PacketKind::Data);
            line.arrive(&mut q, &mut a, p, at);
            if at >= from_secs(50.0) {
                assert!(q.last_average() >= 1.0);
                seen[flow as usize] += 1;
                marks[flow as usize] += marked(&a, p) as u32;
            }
            // Each packet's ACK passes back through the same port: a separate, unmarked
            // conversation.
            if flow == 1 {
                let ack = pkt(&mut a, 0, 40, PacketKind::Ack);
                line.arrive(&mut q, &mut a, ack, at);
                assert!(!marked(&a, ack));
            }
        }
        (marks, seen, q)
    }

    #[test]
    fn selective_marking_hits_the_conversation_over_its_fair_share_only() {
        // Fair share of 0.9 x line: flow 1 (0.3) keeps its demand, flow 0 may have 0.6 < 0.7.
        let cfg = DecBitConfig { panic_enabled: false, ..DecBitConfig::default() };
        let (marks, seen, q) = overloaded_run(cfg);
        assert_eq!(marks[0], seen[0], "flow 0 is over its share at every arrival");
        assert_eq!(marks[1], 0, "flow 1 is under its share");
        assert!(q.overloaded);
        // Non-selective DECbit marks both.
        let (marks, seen, _) = overloaded_run(DecBitConfig { selective: false, ..cfg });
        assert_eq!(marks, seen);
        // With capacity factor 1.1 flow 0 may have 1.1 - 0.3 - 0.012 (the ACKs) > 0.7.
        let (marks, _, _) = overloaded_run(DecBitConfig { capacity_factor: 1.1, ..cfg });
        assert_eq!(marks, [0, 0]);
        // Measuring over fixed 20 s windows gives the same verdicts.
        let fixed = DecBitConfig { window: FairShareWindow::Fixed(from_secs(20.0)), ..cfg };
        let (marks, seen, _) = overloaded_run(fixed);
        assert_eq!(marks, [seen[0], 0]);
    }

    #[test]
    fn panic_mode_marks_every_data_packet() {
        // Flow 0 dumps six packets at 0; at 3 s flow 1 sends one data packet and one ACK goes
        // by, then flow 0 sends again. Average queue over [0, 3) = (6 + 5 + 4) / 3 = 5.
        let run = |cfg: DecBitConfig| {
            let mut a = PacketArena::new();
            let mut q = gateway(cfg);
            let mut line = Line::default();
            for _ in 0..6 {
                line.send(&mut q, &mut a, 0, 1000, PacketKind::Data, 0);
            }
            let t3 = from_secs(3.0);
            let light = pkt(&mut a, 1, 1000, PacketKind::Data);
            line.arrive(&mut q, &mut a, light, t3);
            assert!((q.last_average() - 5.0).abs() < 1e-12);
            let ack = pkt(&mut a, 1, 40, PacketKind::Ack);
            line.arrive(&mut q, &mut a, ack, t3);
            let heavy = pkt(&mut a, 0, 1000, PacketKind::Data);
            line.arrive(&mut q, &mut a, heavy, t3);
            (marked(&a, light), marked(&a, ack), marked(&a, heavy), q.stats)
        };
        let (light, ack, heavy, stats) = run(DecBitConfig::default());
        assert!(light && heavy && !ack, "panic marks every data packet, never an ACK");
        assert_eq!(stats.panic_marked, 2);
        // Without panic, selection spares the light conversation: capacity 0.9 x 3 s = 2700 B,
        // demands 1000 (flow 1), 40 (its ACKs), 6000 -> 7000 (flow 0): flow 0's share is 1660.
        let (light, ack, heavy, stats) = run(DecBitConfig { panic_enabled: false, ..DecBitConfig::default() });
        assert!(!light && !ack && heavy);
        assert_eq!((stats.marked, stats.panic_marked), (1, 0));
        // A higher panic threshold than the average also leaves it to selection.
        let (light, _, heavy, _) = run(DecBitConfig { panic_threshold: 6.0, ..DecBitConfig::default() });
        assert!(!light && heavy);
    }

    #[test]
    fn fixed_windows_roll_over_lazily_and_forget_silent_conversations() {
        let mut a = PacketArena::new();
        let cfg = DecBitConfig { window: FairShareWindow::Fixed(from_secs(10.0)), ..DecBitConfig::default() };
        let mut q = gateway(cfg);
        let mut line = Line::default();
        for s in [1.0, 2.0, 3.0] {
            line.send(&mut q, &mut a, 7, 1000, PacketKind::Data, from_secs(s));
        }
        line.send(&mut q, &mut a, 1, 1000, PacketKind::Data, from_secs(12.0));
        assert_eq!(q.demand(14, from_secs(12.0)), 3000, "previous window still counts");
        q.refresh_share(from_secs(25.0));
        assert_eq!(q.demand(14, from_secs(25.0)), 0);
        assert_eq!(q.listed, vec![2], "flow 7 dropped from the list, flow 1 still in its previous window");
        assert!(q.convs.len() >= 15, "state grown on demand up to flow 7's slot");
    }

    #[test]
    fn max_min_share_is_the_water_level() {
        assert_eq!(max_min_share(&mut [6000, 1000, 40], 2700.0), 1660.0);
        assert_eq!(max_min_share(&mut [5, 5], 9.0), 4.5);
        assert_eq!(max_min_share(&mut [1, 2], 9.0), f64::INFINITY);
        assert_eq!(max_min_share(&mut [10, 10, 1], 0.0), 0.0);
    }

    #[test]
    fn acks_marked_and_counted_only_when_asked() {
        // ACKs (40 B, 40 ms each on the line) arriving every 10 ms, then a data packet: counted,
        // the ACKs make the average exceed 1; left out, they do not.
        let run = |mark_acks: bool, count_acks: bool| {
            let cfg = DecBitConfig { selective: false, mark_acks, count_acks, ..DecBitConfig::default() };
            let mut a = PacketArena::new();
            let mut q = gateway(cfg);
            let mut line = Line::default();
            let acks: Vec<PacketId> = (0..20).map(|k| line.send(&mut q, &mut a, 1, 40, PacketKind::Ack, from_secs(0.01 * k as f64))).collect();
            let data = line.send(&mut q, &mut a, 0, 1000, PacketKind::Data, from_secs(0.3));
            let acks_marked = acks.iter().filter(|&&p| a.get(p).has(flags::ECHO_CE)).count();
            (acks_marked, marked(&a, data))
        };
        let (acks, data) = run(true, true);
        assert!(acks > 10 && data, "ACKs counted and marked: {acks} ACKs marked, data marked {data}");
        assert_eq!(run(false, true).0, 0, "Keshav's gateway never marks ACKs");
        assert_eq!(run(true, false), (0, false), "ACKs left out: no queue to speak of");
    }
}
