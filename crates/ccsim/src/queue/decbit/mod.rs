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
//! Scheduling and dropping are FCFS with drop-tail, buffer in packets or bytes,
//! `count_in_service` (gap G7), through Random Drop's queue (reused, not duplicated) with
//! `victim = "arriving"`; `"size"` or `"space"` drop a random pick instead (Liang spec A13).
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
//!   not marked, and panic marks every *data* packet. `mark_acks = true` sets the bit on an
//!   ACK's echo field too, which its source reads (spec liang91 §1.5 reads Liang's "the
//!   packets passing through it" so; his §2.4.2 and §5.3 blame DECbit's two-way trouble on ACKs
//!   counting in the average, not on their marks). `count_acks = false` leaves ACKs
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

use super::random_drop::RandomDrop;
use super::{BufferLimit, InService, QueueDiscipline, Verdict};
use crate::net::packet::flags;
use crate::net::{PacketArena, PacketId, PacketKind};
use crate::sim::{time::tx_time, SimTime, PS_PER_SEC};

mod config;
mod fair_share;
pub use config::{DecBitConfig, FairShareWindow};
use fair_share::FairShare;

/// Marking counters.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DecBitStats {
    /// Data packets marked (panic included).
    pub marked: u64,
    /// Of those, marked because of panic mode.
    pub panic_marked: u64,
}


pub struct DecBit {
    inner: RandomDrop,
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
    /// Each conversation's demand and the fair share.
    fair: FairShare,
    last_average: f64,
    pub stats: DecBitStats,
}

impl DecBit {
    /// A gateway whose random victims (if `cfg.victim` picks any) come from a fixed stream.
    pub fn new(limit: BufferLimit, count_in_service: bool, bandwidth_bps: u64, cfg: DecBitConfig) -> Self {
        Self::with_rng(limit, count_in_service, bandwidth_bps, cfg, crate::sim::Rng::from_seed(0))
    }

    pub fn with_rng(limit: BufferLimit, count_in_service: bool, bandwidth_bps: u64, cfg: DecBitConfig, rng: crate::sim::Rng) -> Self {
        assert!(bandwidth_bps > 0, "DecBit needs the line rate");
        if let FairShareWindow::Fixed(t) = cfg.window {
            assert!(t > 0, "DecBit fair-share window must be positive");
        }
        DecBit {
            inner: RandomDrop::new(limit, count_in_service, cfg.victim, rng),
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
            fair: FairShare::default(),
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
        let epoch = self.epoch_at(now);
        self.fair.count(conv, bytes, epoch);
    }

    /// Bytes conversation `conv` offered in the current measurement window.
    #[cfg(test)]
    fn demand(&mut self, conv: usize, now: SimTime) -> u64 {
        let epoch = self.epoch_at(now);
        self.fair.demand(conv, epoch)
    }

    /// Recompute the max-min fair share of capacity_factor x line rate over the window.
    fn refresh_share(&mut self, now: SimTime) {
        if let Some(at) = self.fair.share_at {
            if self.cfg.share_refresh > 0 && now < at.saturating_add(self.cfg.share_refresh) {
                return;
            }
        }
        let span = now - self.window_start(now);
        let capacity = self.cfg.capacity_factor * (self.bandwidth_bps as f64 / 8.0) * (span as f64 / PS_PER_SEC as f64);
        let epoch = self.epoch_at(now);
        self.fair.refresh(now, epoch, capacity);
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
        if self.fair.overloaded {
            let epoch = self.epoch_at(now);
            self.fair.demand(conv, epoch) as f64 > self.fair.share
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


impl QueueDiscipline for DecBit {
    fn marks(&self) -> u64 {
        self.stats.marked
    }
    /// The average the last arrival was judged on: the regeneration-cycle average of the
    /// packets at the port, the one on the line included (ACKs left out with `count_acks =
    /// false`), so not the same quantity as the trace's waiting `packets`.
    fn state(&self) -> Option<(&'static str, f64)> {
        Some(("avg_in_system", self.last_average))
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
        // A random victim taken from the queue: the arriving packet is in it instead.
        if let Verdict::Dropped(v) = verdict {
            if v != pkt {
                self.uncounted -= u32::from(!self.counts(arena.get(v).kind));
            }
        }
        if verdict != Verdict::Dropped(pkt) {
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

    buffered_in!(inner);

    fn memory_bytes(&self) -> usize {
        self.inner.memory_bytes() + self.fair.memory_bytes()
    }
}

#[cfg(test)]
mod tests;
