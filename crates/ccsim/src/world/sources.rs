//! The applications' side of a flow: its start and stop, and the packets its source makes
//! (random sources' ticks, a window-controlled constant-rate source's offers counted when its
//! sender runs out, a finite `source_buffer`).

use super::World;
use crate::sim::{EventKind, SimTime};
use crate::traffic::sizes::VariableSizes;

impl World {
    pub(super) fn on_flow_start(&mut self, f: u32) {
        let flow = &mut self.flows[f as usize];
        if flow.app.is_ticking() {
            if let Some(t) = flow.app.first_tick() {
                self.events.schedule(t, EventKind::SourceTick, f);
            }
            return;
        }
        if let crate::traffic::AppKind::Ftp { packets } = flow.app.kind {
            if let Some(s) = flow.sender.as_mut() {
                s.app_limit = packets.unwrap_or(u64::MAX);
            }
        }
        self.pump(f);
        self.arm_timer(f);
    }

    pub(super) fn on_flow_stop(&mut self, f: u32) {
        self.catch_up_offers(f);
        let flow = &mut self.flows[f as usize];
        if let Some(s) = flow.sender.as_mut() {
            s.app_limit = s.app_limit.min(s.high_sent);
            if let Some(VariableSizes::Coalesced(n)) = flow.sizes.as_deref_mut() {
                n.stop(s.app_limit);
            }
        }
    }

    /// A paused CBR source (`App::paused_at`): count what it has offered up to now. Returns
    /// true if that gave the sender more to send.
    #[cold]
    pub(super) fn catch_up_offers(&mut self, f: u32) -> bool {
        let now = self.now;
        let flow = &mut self.flows[f as usize];
        let (Some(s), from) = (flow.sender.as_mut(), flow.app.paused_at) else { return false };
        if from == SimTime::MAX {
            return false;
        }
        let (n, next) = flow.app.count_offers(from, now);
        s.app_limit += n;
        flow.app.paused_at = next.unwrap_or(SimTime::MAX);
        if s.snd_nxt >= s.app_limit {
            // Out of data again: tick from the next packet on.
            if let Some(t) = next {
                flow.app.paused_at = SimTime::MAX;
                self.events.schedule(t, EventKind::SourceTick, f);
            }
        }
        n > 0
    }

    pub(super) fn on_source_tick(&mut self, f: u32) {
        let now = self.now;
        let flow = &mut self.flows[f as usize];
        if let (true, Some(s)) = (flow.app.is_countable() && !flow.coalesces(), flow.sender.as_ref()) {
            if s.snd_nxt < s.app_limit {
                // Its earlier packets still wait for the window: stop ticking, count later.
                flow.app.paused_at = now;
                return;
            }
        }
        if let Some(next) = flow.app.next_tick(now) {
            self.events.schedule(next, EventKind::SourceTick, f);
        }
        match flow.sender.as_mut() {
            Some(s) => {
                s.app_limit += match flow.sizes.as_deref_mut() {
                    // Nagle's rule: the write may be held, or go with others.
                    Some(VariableSizes::Coalesced(n)) => n.on_write(s.app_limit == s.snd_una, s.app_limit, s.snd_una),
                    _ => 1,
                };
                self.pump(f);
                let flow = &mut self.flows[f as usize];
                if let Some(s) = flow.sender.as_mut() {
                    // A finite source buffer (`source_buffer`): the new packet, last in line,
                    // is the one that does not fit.
                    if flow.app.over_source_buffer(s.app_limit.saturating_sub(s.high_sent)) {
                        s.app_limit -= 1;
                    }
                }
                self.arm_timer(f);
            }
            None => {
                let size = flow.data_size(flow.next_seq);
                let fl = flow.profile_flag(now, size);
                let pkt = flow.data_packet(f, flow.next_seq, size, now, fl, 0);
                flow.next_seq += 1;
                flow.cur.sent += 1;
                let first_port = self.routes[flow.route as usize];
                match self.packets.try_alloc(pkt, self.live_packet_limit) {
                    Some(pid) => self.send_to_port(pid, first_port),
                    None => self.stop_full(f),
                }
            }
        }
    }

    /// Nagle's rule: an ACK that leaves a coalescing flow idle (everything it made is
    /// acknowledged) sends what its source wrote meanwhile. Called for every flow whose sizes
    /// vary; a flow with a size mix returns at once.
    #[cold]
    pub(super) fn release_held(&mut self, f: u32) {
        let flow = &mut self.flows[f as usize];
        let (Some(s), Some(VariableSizes::Coalesced(n))) = (flow.sender.as_mut(), flow.sizes.as_deref_mut()) else { return };
        if s.app_limit == s.snd_una && n.held() > 0 {
            s.app_limit += n.on_idle(s.app_limit, s.snd_una);
        }
    }
}
