//! Control packets: a discipline's signal for a flow travels as a packet of its own from the
//! port's node back to the flow's source along the flow's reverse (ACK) path, in each port's
//! control lane (ahead of data), and reaches the source's algorithm as `on_feedback`.
//!
//! The reverse path is the one the flow's ACKs take; the control packet joins it at the
//! signalling port's node. When that path does not pass through the node (an asymmetric
//! explicit route), the signal cannot be delivered and counts as dropped. A signal raised at
//! the source's own port reaches it at once.

use super::World;
use crate::net::packet::NO_SEQ;
use crate::net::{Packet, PacketId, PacketKind};
use crate::queue::{QueueDiscipline, Signal};
use crate::transport::cc::Feedback;

impl World {
    /// Send the signals port `port`'s discipline raised on their way.
    #[cold]
    #[inline(never)]
    pub(super) fn collect_signals(&mut self, port: u32) {
        let mut signals = std::mem::take(&mut self.signal_buf);
        self.ports[port as usize].qdisc.drain_signals(&mut |s| signals.push(s));
        let node = self.ports[port as usize].from;
        for s in signals.drain(..) {
            self.send_control(node, s);
        }
        self.signal_buf = signals;
    }

    fn send_control(&mut self, node: u32, s: Signal) {
        let f = s.flow;
        self.control[f as usize].sent += 1;
        self.control[f as usize].sent_bytes += s.size as u64;
        let flow = &self.flows[f as usize];
        let (start, len) = (flow.rev_route as usize, flow.rev_route_len as usize);
        // The hop of the reverse path that leaves `node` (the source itself: none left).
        let hop = if node == flow.src {
            Some(len)
        } else {
            self.routes[start..start + len].iter().position(|&p| self.ports[p as usize].from == node)
        };
        let Some(hop) = hop else {
            self.control[f as usize].unroutable += 1;
            return;
        };
        let pkt = Packet {
            seq: s.seq.unwrap_or(NO_SEQ),
            tx_time: self.now,
            first_tx_time: self.now,
            arrive_at: self.now,
            // A control packet answers no data packet: this word names the node that sent it.
            echo_seq: node as u64,
            flow: f,
            size: s.size,
            route: flow.rev_route,
            hop: hop as u16,
            route_len: flow.rev_route_len,
            kind: PacketKind::Control,
            flags: 0,
            class: flow.class,
            code: s.code,
            xflags: 0,
        };
        let Some(pid) = self.packets.try_alloc(pkt, self.live_packet_limit) else {
            return self.stop_full(f);
        };
        if hop == len {
            self.deliver_control(pid);
        } else {
            self.send_control_to_port(pid, self.routes[start + hop]);
        }
    }

    #[cold]
    #[inline(never)]
    pub(super) fn send_control_to_port(&mut self, pid: PacketId, port: u32) {
        if let Some(d) = self.ports[port as usize].receive_control(pid, &mut self.packets, self.now, &mut self.events, port) {
            self.count_drop(d);
        }
    }

    #[cold]
    #[inline(never)]
    pub(super) fn deliver_control(&mut self, pid: PacketId) {
        let pkt = *self.packets.get(pid);
        self.packets.free(pid);
        let f = pkt.flow;
        self.control[f as usize].received += 1;
        let seq = (pkt.seq != NO_SEQ).then_some(pkt.seq);
        let fb = Feedback { now: self.now, seq, code: pkt.code, outstanding: 0, router: pkt.echo_seq as u32 };
        if let Some(s) = self.flows[f as usize].sender.as_mut() {
            s.on_feedback(&fb);
            self.pump(f);
            self.arm_timer(f);
        }
    }
}
