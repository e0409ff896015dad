//! Which packets make one conversation: the identity FQ grants fairness to (Keshav 1991 §3.2,
//! spec M1.8). The thesis weighs source, destination, source-destination pair and process, and
//! chooses the pair (a "conversation"), named in IP by the 5-tuple: connections that share a
//! host pair but not ports are then distinct; without ports they fall back to the pair and are
//! served FCFS among themselves. ACK streams are conversations of their own (chapter 6).
//!
//! `conversation` = "flow" (default, the 5-tuple: each flow and direction apart), "host_pair",
//! "source" or "destination" (flows with the same key share one conversation, FCFS among
//! themselves). The map is built once from the flows' endpoints; a packet's id is one index.

use crate::net::PacketKind;

/// What identifies a conversation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ConversationKey {
    Flow,
    HostPair,
    Source,
    Destination,
}

pub const KEYS: &[(&str, ConversationKey)] = &[
    ("flow", ConversationKey::Flow),
    ("host_pair", ConversationKey::HostPair),
    ("source", ConversationKey::Source),
    ("destination", ConversationKey::Destination),
];

#[derive(Clone, Debug)]
pub struct Conversations {
    key: ConversationKey,
    /// Flow -> its group (empty for `Flow`: the flow is its own group).
    group_of: Vec<u32>,
    /// The groups' keys (source, destination), in order of first appearance.
    keys: Vec<(u32, u32)>,
}

impl Conversations {
    pub fn new(key: ConversationKey) -> Self {
        Conversations { key, group_of: Vec::new(), keys: Vec::new() }
    }

    /// Whether flows share conversations (any key but `Flow`).
    pub fn groups(&self) -> bool {
        self.key != ConversationKey::Flow
    }

    /// Flow `flow` runs from host `src` to host `dst` (set up once, before any packet).
    pub fn add_flow(&mut self, flow: u32, src: u32, dst: u32) {
        let k = match self.key {
            ConversationKey::Flow => return,
            ConversationKey::HostPair => (src, dst),
            ConversationKey::Source => (src, u32::MAX),
            ConversationKey::Destination => (u32::MAX, dst),
        };
        let g = match self.keys.iter().position(|&x| x == k) {
            Some(g) => g,
            None => {
                self.keys.push(k);
                self.keys.len() - 1
            }
        } as u32;
        if self.group_of.len() <= flow as usize {
            self.group_of.resize(flow as usize + 1, UNDESCRIBED);
        }
        self.group_of[flow as usize] = g;
    }

    /// The conversation id of a packet: its group·2, plus 1 for ACKs. A flow the map was not
    /// told of is a group of its own, numbered past the shared ones.
    #[inline]
    pub fn id(&self, flow: u32, kind: PacketKind) -> u32 {
        let g = if self.group_of.is_empty() {
            flow
        } else {
            match self.group_of.get(flow as usize) {
                Some(&g) if g != UNDESCRIBED => g,
                _ => self.keys.len() as u32 + flow,
            }
        };
        g * 2 + (kind == PacketKind::Ack) as u32
    }
}

const UNDESCRIBED: u32 = u32::MAX;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flows_sharing_the_key_share_a_conversation() {
        let mut c = Conversations::new(ConversationKey::HostPair);
        c.add_flow(0, 10, 20);
        c.add_flow(1, 10, 20);
        c.add_flow(2, 11, 20);
        assert_eq!(c.id(0, PacketKind::Data), c.id(1, PacketKind::Data));
        assert_ne!(c.id(0, PacketKind::Data), c.id(2, PacketKind::Data));
        assert_ne!(c.id(0, PacketKind::Data), c.id(0, PacketKind::Ack), "ACK streams apart");
        let mut d = Conversations::new(ConversationKey::Destination);
        for (f, s) in [(0, 10), (1, 11), (2, 12)] {
            d.add_flow(f, s, 20);
        }
        assert!((0..3).all(|f| d.id(f, PacketKind::Data) == d.id(0, PacketKind::Data)));
        // The default: each flow and direction its own conversation, flow·2 (+1).
        let mut f = Conversations::new(ConversationKey::Flow);
        f.add_flow(3, 10, 20);
        assert_eq!((f.id(3, PacketKind::Data), f.id(3, PacketKind::Ack)), (6, 7));
    }
}
