//! The per-packet path: forwarding at each hop, delivery of data and ACKs, and the sender's
//! transmissions.

use super::World;
use crate::net::packet::flags;
use crate::net::{Packet, PacketId, PacketKind};
use crate::sim::{time::to_secs, EventKind};

impl World {
    /// A packet left a pipe at its next node: forward it or deliver it.
    #[inline]
    pub(super) fn arrive(&mut self, pid: PacketId) {
        let pkt = self.packets.get_mut(pid);
        pkt.hop += 1;
        if pkt.hop < pkt.route_len {
            let port = self.routes[(pkt.route + pkt.hop as u32) as usize];
            if pkt.kind == PacketKind::Control {
                self.send_control_to_port(pid, port);
            } else {
                self.send_to_port(pid, port);
            }
        } else {
            match pkt.kind {
                PacketKind::Data => self.deliver_data(pid),
                PacketKind::Ack => self.deliver_ack(pid),
                PacketKind::Control => self.deliver_control(pid),
            }
        }
    }

    #[inline]
    pub(super) fn send_to_port(&mut self, pid: PacketId, port: u32) {
        let p = &mut self.ports[port as usize];
        let dropped = p.receive(pid, &mut self.packets, self.now, &mut self.events, port);
        if p.signals() {
            self.collect_signals(port);
        }
        if let Some(d) = dropped {
            if !self.drop_traced.is_empty() && self.drop_traced[port as usize] {
                self.record_drop(port, d);
            }
            self.count_drop(d);
        }
    }

    /// A packet is gone (dropped by a queue or lost on a line): count it and free its slot.
    #[inline]
    pub(super) fn count_drop(&mut self, d: PacketId) {
        let p = self.packets.get(d);
        let f = &mut self.flows[p.flow as usize];
        match p.kind {
            PacketKind::Data => f.cur.data_dropped += 1,
            PacketKind::Ack => f.total.acks_dropped += 1,
            PacketKind::Control => self.control[p.flow as usize].dropped += 1,
        }
        self.packets.free(d);
    }

    #[inline]
    pub(super) fn deliver_data(&mut self, pid: PacketId) {
        let now = self.now;
        let pkt = *self.packets.get(pid);
        let flow = &mut self.flows[pkt.flow as usize];
        debug_assert!(
            !flow.size_known(pkt.seq) || pkt.size == flow.data_size(pkt.seq),
            "flow {}: data packet {} arrived with another size",
            flow.name,
            pkt.seq
        );
        flow.total.received += 1;
        flow.cur.originals += u64::from(!pkt.has(flags::RETX));
        flow.cur.owd_sum += to_secs(now - pkt.tx_time);
        flow.cur.owd_n += 1;
        flow.sink.on_price_mark(pkt.seq, pkt.has(flags::PRICE));
        if flow.sender.is_none() {
            flow.cur.delivered += 1;
            flow.cur.delivered_bytes += pkt.size as u64;
            self.packets.free(pid);
            return;
        }
        let d = flow.sink.on_data(pkt.seq);
        if !d.ack {
            self.packets.free(pid);
            return;
        }
        flow.cur.delivered += d.in_order;
        // The packets delivered now are the in_order ones just below the new rcv_nxt.
        flow.cur.delivered_bytes += flow.data_bytes(flow.sink.rcv_nxt - d.in_order, d.in_order);
        flow.total.acks_sent += 1;
        // The data packet becomes its ACK, in place.
        let mut fl = 0;
        if pkt.has(flags::CE) {
            fl |= flags::ECHO_CE;
        }
        if pkt.has(flags::RETX) {
            fl |= flags::ECHO_RETX;
        }
        if d.duplicate {
            fl |= flags::DUP;
        }
        // `code` stays as it is: the ACK echoes the data packet's code (pair marks, ...).
        let ack = self.packets.get_mut(pid);
        ack.kind = PacketKind::Ack;
        ack.seq = flow.sink.rcv_nxt;
        ack.echo_seq = pkt.seq;
        ack.size = flow.ack_size;
        ack.route = flow.rev_route;
        ack.route_len = flow.rev_route_len;
        ack.hop = 0;
        ack.flags = fl;
        ack.xflags = 0;
        let first_port = self.routes[flow.rev_route as usize];
        self.send_to_port(pid, first_port);
    }

    #[inline]
    pub(super) fn deliver_ack(&mut self, pid: PacketId) {
        let now = self.now;
        let pkt = *self.packets.get(pid);
        self.packets.free(pid);
        let f = pkt.flow;
        let flow = &mut self.flows[f as usize];
        flow.total.acks_received += 1;
        let sender = flow.sender.as_mut().expect("ACK for an uncontrolled flow");
        sender.on_own_ack(pkt.echo_seq, now);
        let out = sender.on_ack(
            pkt.seq,
            pkt.echo_seq,
            pkt.tx_time,
            pkt.first_tx_time,
            pkt.has(flags::ECHO_RETX),
            pkt.has(flags::ECHO_CE),
            pkt.code,
            now,
        );
        flow.cur.rtt_sum += to_secs(out.rtt_sample);
        flow.cur.rtt_n += 1;
        if flow.packet_size == 0 {
            self.release_held(f);
        }
        self.pump(f);
        self.arm_timer(f);
    }

    /// Put on the wire everything the sender may send now; for a paced flow, arm the pacing
    /// event if pacing holds data back.
    #[inline]
    pub(super) fn pump(&mut self, f: u32) {
        let now = self.now;
        loop {
            let flow = &mut self.flows[f as usize];
            let sender = match flow.sender.as_mut() {
                Some(s) => s,
                None => return,
            };
            let tx = match sender.next_transmission(now) {
                Some(tx) => tx,
                None => {
                    if sender.snd_nxt >= sender.app_limit && flow.app.paused_at != crate::sim::SimTime::MAX && self.catch_up_offers(f) {
                        continue; // a paused source had offered more
                    }
                    let sender = self.flows[f as usize].sender.as_mut().expect("a sender");
                    if sender.is_paced() {
                        if let Some(t) = sender.pace_arm(now) {
                            self.events.schedule(t, EventKind::PaceTick, f);
                        }
                    }
                    return;
                }
            };
            flow.cur.sent += 1;
            if tx.retransmission {
                flow.cur.retransmitted += 1;
            }
            let size = flow.data_size(tx.seq);
            let profile = flow.profile_flag(now, size);
            let fl = if tx.retransmission { flags::RETX } else { 0 } | if tx.probe { flags::PROBE } else { 0 } | profile;
            let pkt = Packet { first_tx_time: tx.first_tx, ..flow.data_packet(f, tx.seq, size, now, fl, tx.code) };
            let first_port = self.routes[flow.route as usize];
            match self.packets.try_alloc(pkt, self.live_packet_limit) {
                Some(pid) => self.send_to_port(pid, first_port),
                None => return self.stop_full(f),
            }
        }
    }
}
