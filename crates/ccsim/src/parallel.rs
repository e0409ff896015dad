//! One scenario on two threads (issue 22); `scenario::parallel` says how the work is split and
//! what a parallel run promises.
//!
//! Each thread owns a world built for its side. They run in lockstep windows: both run the
//! events before the window's end, take out the packets their crossing lines carried
//! (`Port::drain_pipe`), swap them over a channel, and take in the other's (`Port::inject`).
//! At an interval's end the second thread also hands over its flows' counters, control
//! counts and the statistics of its measured ports, so the first closes the interval with the
//! whole network's figures. At the end the second world is joined into the first: counters
//! added, its ports and senders moved over, and the results come from the first.

use crate::measure::{IntervalCounters, PortSnapshot};
use crate::net::Packet;
use crate::scenario::build::build_world_part;
use crate::scenario::{Scenario, ScenarioError};
use crate::sim::SimTime;
use crate::world::World;
use std::sync::mpsc::{sync_channel, Receiver, SyncSender};
use std::sync::Mutex;
use std::thread::JoinHandle;

/// What one side hands the other at a window's end.
#[derive(Default)]
struct Crossing {
    /// Packets put on crossing lines, with their ports, each line's oldest first.
    packets: Vec<(u32, Packet)>,
    /// From the second side at an interval's end: its flows' counters since the last
    /// hand-over, its control packets raised per flow (count, bytes) since then, and the
    /// statistics of the measured ports it owns (by position in `stat_ports`).
    counters: Vec<IntervalCounters>,
    control: Vec<(u64, u64)>,
    snaps: Vec<(usize, PortSnapshot)>,
    /// This side stops here: a run stopped by its driver, or a full arena.
    stop: bool,
}

/// The windows both sides run, the same sequence on each: up to the next multiple of the
/// lookahead, an interval's end or the run's end, whichever comes first.
#[derive(Clone, Copy)]
struct Windows {
    lookahead: SimTime,
    interval: SimTime,
    end: SimTime,
}

impl Windows {
    /// The bound after `t` (< end), and whether it closes an interval.
    fn next(&self, t: SimTime) -> (SimTime, bool) {
        let by_lookahead = t.saturating_add(self.lookahead);
        let interval_end = (t / self.interval + 1).saturating_mul(self.interval);
        let bound = by_lookahead.min(interval_end).min(self.end);
        (bound, bound == interval_end)
    }
}

/// One side's world and its ends of the channels.
struct Side {
    world: World,
    me: u8,
    windows: Windows,
    /// Where the last window ended (the next one starts here).
    at: SimTime,
    /// Control packets raised per flow, at the last hand-over (second side).
    control_shipped: Vec<(u64, u64)>,
    tx: SyncSender<Crossing>,
    /// In a mutex only so that a run can sit in a Python object (which must be `Sync`).
    rx: Mutex<Receiver<Crossing>>,
    /// The buffer the next crossing's packets go into: the one the other side last sent,
    /// emptied. The buffers pass back and forth keeping their capacity, so a window's
    /// crossing (millions of packets at Cui's scale) is neither allocated, grown by
    /// doubling nor faulted in afresh every window.
    spare: Vec<(u32, Packet)>,
    done: bool,
}

impl Side {
    /// Run one window and swap what crossed; true when the run is over.
    fn step(&mut self, stop: bool) -> bool {
        let w = &mut self.world;
        let (bound, closes) = self.windows.next(self.at);
        w.run_until(bound - 1);
        let mut out = Crossing { packets: std::mem::take(&mut self.spare), stop: stop || w.end < self.windows.end, ..Default::default() };
        for i in 0..w.cross_ports.len() {
            let p = w.cross_ports[i];
            w.ports[p as usize].drain_pipe(p, &mut w.packets, &mut out.packets);
        }
        if self.me == 1 && (closes || bound == self.windows.end) {
            out.counters = w.flows.iter_mut().map(|f| std::mem::take(&mut f.cur)).collect();
            out.control = w
                .control
                .iter()
                .zip(self.control_shipped.iter_mut())
                .map(|(c, last)| {
                    let d = (c.sent - last.0, c.sent_bytes - last.1);
                    *last = (c.sent, c.sent_bytes);
                    d
                })
                .collect();
            let mut snaps = Vec::new();
            for (i, &p) in w.stat_ports.iter().enumerate() {
                if w.side_of[w.ports[p as usize].from as usize] == 1 {
                    snaps.push((i, w.ports[p as usize].snapshot(bound)));
                }
            }
            out.snaps = snaps;
        }
        let stopping = out.stop;
        // The other side may have ended (a panic); then this one ends too.
        let inbound = if self.tx.send(out).is_ok() { self.rx.lock().ok().and_then(|rx| rx.recv().ok()) } else { None };
        let Some(inbound) = inbound else {
            self.done = true;
            return true;
        };
        let w = &mut self.world;
        w.now = w.now.max(bound - 1);
        let mut packets = inbound.packets;
        for (p, pkt) in packets.drain(..) {
            w.ports[p as usize].inject(p, pkt, &mut w.packets, bound, &mut w.events);
        }
        self.spare = packets;
        for (f, c) in w.flows.iter_mut().zip(&inbound.counters) {
            f.cur.add(c);
        }
        for (c, &(n, b)) in w.control.iter_mut().zip(&inbound.control) {
            c.sent += n;
            c.sent_bytes += b;
        }
        if !inbound.snaps.is_empty() {
            w.foreign_snaps.resize(w.stat_ports.len(), None);
            for (i, s) in inbound.snaps {
                w.foreign_snaps[i] = Some(s);
            }
        }
        self.at = bound;
        if stopping || inbound.stop {
            w.stop_here();
            self.done = true;
        } else if bound == self.windows.end {
            // The events at the end itself, as a serial run runs them.
            w.run_until(bound);
            self.done = true;
        }
        self.done
    }
}

/// A parallel run in progress: the first side runs on the caller's thread, window by window;
/// the second on a thread of its own, in step.
pub struct ParallelRun {
    first: Side,
    second: JoinHandle<(World, Vec<(u64, u64)>)>,
}

impl ParallelRun {
    pub fn new(sc: &Scenario) -> Result<ParallelRun, ScenarioError> {
        let par = sc.parallel.as_ref().expect("a parallel scenario");
        let windows = Windows { lookahead: par.lookahead, interval: sc.measure.interval, end: sc.duration };
        let (w0, w1) = (build_world_part(sc, Some(0))?, build_world_part(sc, Some(1))?);
        let (tx0, rx1) = sync_channel(1);
        let (tx1, rx0) = sync_channel(1);
        let side = |world: World, me: u8, tx, rx| {
            let n = world.control.len();
            Side { world, me, windows, at: 0, control_shipped: vec![(0, 0); n], tx, rx: Mutex::new(rx), spare: Vec::new(), done: false }
        };
        let mut second = side(w1, 1, tx1, rx1);
        let handle = std::thread::Builder::new()
            .name("ccsim-second".into())
            .spawn(move || {
                while !second.step(false) {}
                (second.world, second.control_shipped)
            })
            .expect("a second thread");
        Ok(ParallelRun { first: side(w0, 0, tx0, rx0), second: handle })
    }

    /// The first side's world (its clock is the run's).
    pub fn world(&self) -> &World {
        &self.first.world
    }

    /// Run windows for about `wall` of wall time (or to the end); true when the run is over.
    pub fn advance_for(&mut self, wall: std::time::Duration) -> bool {
        let t0 = std::time::Instant::now();
        while !self.first.done {
            self.first.step(false);
            if t0.elapsed() >= wall {
                break;
            }
        }
        self.first.done
    }

    /// Stop at the end of the next window (both sides).
    pub fn stop(&mut self) {
        if !self.first.done {
            self.first.step(true);
        }
    }

    /// Finish both sides and join the second into the first: the world to take results from.
    pub fn join(mut self) -> World {
        while !self.first.done {
            self.first.step(false);
        }
        let (mut other, shipped) = self.second.join().unwrap_or_else(|e| std::panic::resume_unwind(e));
        let mut w = self.first.world;
        w.close();
        other.close();
        join_worlds(&mut w, &mut other, &shipped);
        w
    }
}

/// Make `w` (the first side's world) the whole run's: packets still in the network counted on
/// both sides, counters added, and the second side's ports and senders moved over.
fn join_worlds(w: &mut World, other: &mut World, shipped: &[(u64, u64)]) {
    let mut in_net = w.in_network();
    for (a, b) in in_net.iter_mut().zip(other.in_network()) {
        for k in 0..3 {
            a[k] += b[k];
        }
    }
    w.joined_in_network = Some(in_net);
    for (f, g) in w.flows.iter_mut().zip(other.flows.iter_mut()) {
        f.total.add(&g.total);
        if w.side_of[f.src as usize] == 1 {
            // The sender's side keeps what the source did too (discards, Nagle's counts).
            std::mem::swap(&mut f.sender, &mut g.sender);
            std::mem::swap(&mut f.app, &mut g.app);
            std::mem::swap(&mut f.sizes, &mut g.sizes);
        }
    }
    for ((c, d), last) in w.control.iter_mut().zip(&other.control).zip(shipped) {
        // `sent` was handed over at each interval's end; what came after, now.
        c.sent += d.sent - last.0;
        c.sent_bytes += d.sent_bytes - last.1;
        c.received += d.received;
        c.dropped += d.dropped;
        c.unroutable += d.unroutable;
    }
    for p in 0..w.ports.len() {
        if w.side_of[w.ports[p].from as usize] == 1 {
            std::mem::swap(&mut w.ports[p], &mut other.ports[p]);
        }
    }
    w.events.add_processed(other.events.processed());
    w.peak_live_packets += other.peak_live_packets;
    if w.overflow.is_none() {
        w.overflow = other.overflow;
    }
}
