//! Liang 1991 §6.1's distance rule, proposed as a research direction and never run: "use the
//! distance from a router to the source to determine if explicit feedbacks should be sent ...
//! useful to send explicit feedback when the router is close to the source ... if the router
//! is very far away from the source ... it may be wise to use implicit feedback instead."
//!
//! Choices where the text is silent: distance is counted in links along the source's data
//! route to this router (the router learns it at setup); a source farther than `feedback_hops`
//! gets no explicit feedback and is left to its implicit signals; one whose distance is not
//! known (an ACK's flow under `table_acks`) is told. "The traffic intensity along the path",
//! which the text also names, is not weighed. Shared with `guard.rs`: [`withhold`].

use crate::queue::Signal;

pub(super) struct Reach {
    max: u32,
    /// Links from each flow's source to this router (u32::MAX: not known).
    distance: Vec<u32>,
    /// Messages kept back so far.
    pub(super) beyond: u64,
}

impl Reach {
    pub(super) fn new(max: u32) -> Self {
        Reach { max, distance: Vec::new(), beyond: 0 }
    }

    /// Flow `flow`'s data reaches this router `hop` links from its source.
    pub(super) fn learn(&mut self, flow: u32, hop: u32) {
        let f = flow as usize;
        if f >= self.distance.len() {
            self.distance.resize(f + 1, u32::MAX);
        }
        self.distance[f] = self.distance[f].min(hop);
    }

    /// Keep back the signals `pending[from..]` for sources beyond reach.
    pub(super) fn apply(&mut self, pending: &mut Vec<Signal>, from: usize) {
        let (max, distance) = (self.max, &self.distance);
        self.beyond += withhold(pending, from, |s| distance.get(s.flow as usize).is_some_and(|&d| d != u32::MAX && d > max));
    }

    pub(super) fn memory_bytes(&self) -> usize {
        self.distance.capacity() * 4
    }
}

/// Remove from `pending[from..]`, in order, the signals `drop` picks; how many went.
pub(super) fn withhold(pending: &mut Vec<Signal>, from: usize, mut drop: impl FnMut(&Signal) -> bool) -> u64 {
    let before = pending.len();
    let mut i = 0;
    pending.retain(|s| {
        let keep = i < from || !drop(s);
        i += 1;
        keep
    });
    (before - pending.len()) as u64
}
