//! BBN's ration exchange (Liang 1991 §2.2; the discipline is `queue/bbn.rs`): every interval
//! each `bbn` port closes its utilisation measurement and computes its resource ration; the
//! rations are flooded to every switch, and each pair of boundary switches (a flow's first and
//! last switch) gets the smallest ration on its path as its flow ration, which the port leaving
//! its first switch enforces.
//!
//! The pairs and their paths are fixed at setup from the flows' data routes (a pair whose flows
//! take different routes is held to the smallest ration on any of them; flows of one pair that
//! leave its first switch by different ports, by explicit routes, are admitted as a pair of
//! their own at each port). Flooding is taken as instantaneous: the new rations apply at the
//! interval's end.

use super::{Flow, World};
use crate::net::Port;
use crate::queue::QueueDiscipline;
use crate::scenario::decode::{Result, ScenarioError};
use crate::scenario::params::duration_text;
use crate::sim::{EventKind, EventQueue, SimTime};
use std::collections::HashMap;

struct RationPair {
    ingress: u32,
    /// Its index among the ingress port's pairs.
    slot: u32,
    /// Positions in `RationBoard::ports` of the `bbn` ports on its path.
    path: Vec<u32>,
}

/// Link index of a port (two ports a link).
fn link_of(port: u32) -> usize {
    port as usize / 2
}

pub struct RationBoard {
    interval: SimTime,
    /// The ports that take part, and their latest resource rations, bit/s.
    ports: Vec<u32>,
    rations: Vec<f64>,
    pairs: Vec<RationPair>,
    /// Ports at which some pair enters the network.
    ingress: Vec<u32>,
}

impl RationBoard {
    /// The board for these ports and the flows' data routes (`routes` indexed by the flows'
    /// `route` and `route_len`), or None when no switch port runs `bbn` (a host's own port is
    /// no network resource: running `bbn` there holds nothing). `is_switch` per node and
    /// `port_names` per port name things in errors. A run shorter than the interval keeps every
    /// ration at the target.
    pub fn build(ports: &mut [Port], flows: &[Flow], routes: &[u32], is_switch: &[bool], port_names: &[String]) -> Result<Option<Self>> {
        let name = |p: u32| port_names[p as usize].as_str();
        let members: Vec<u32> = (0..ports.len() as u32)
            .filter(|&p| ports[p as usize].qdisc.ration().is_some() && is_switch[ports[p as usize].from as usize])
            .collect();
        let Some(&first) = members.first() else { return Ok(None) };
        let interval = ports[first as usize].qdisc.ration().unwrap().1;
        let mut position = vec![u32::MAX; ports.len()];
        for (i, &p) in members.iter().enumerate() {
            position[p as usize] = i as u32;
            let own = ports[p as usize].qdisc.ration().unwrap().1;
            if own != interval {
                return Err(ScenarioError::new(
                    format!("links[{}]", link_of(p)),
                    format!(
                        "expected queue_params.interval = {} on bbn port {}, as on links[{}] ({}), got {}: every bbn port \
                         measures and floods its ration at the same interval",
                        duration_text(interval),
                        name(p),
                        link_of(first),
                        name(first),
                        duration_text(own)
                    ),
                ));
            }
        }
        let mut pairs: Vec<RationPair> = Vec::new();
        let mut by_ends: HashMap<(u32, u32), usize> = HashMap::new();
        let mut slots: HashMap<u32, u32> = HashMap::new();
        for (f, flow) in flows.iter().enumerate() {
            let route = &routes[flow.route as usize..flow.route as usize + flow.route_len as usize];
            let path: Vec<u32> = route.iter().filter(|&&p| position[p as usize] != u32::MAX).map(|&p| position[p as usize]).collect();
            if path.is_empty() {
                continue;
            }
            // Hop 0 leaves the source host; hop 1 leaves its switch, the boundary switch.
            let ingress = match route.get(1) {
                Some(&p) if position[p as usize] != u32::MAX => p,
                other => {
                    let port = match other {
                        Some(&p) => format!("port {}, links[{}]", name(p), link_of(p)),
                        None => "none: the route is one link".to_string(),
                    };
                    return Err(ScenarioError::new(
                        format!("flows[{f}]"),
                        format!(
                            "expected the port leaving the flow's first switch ({port}) to run queue = \"bbn\": its route \
                             crosses bbn ports, and BBN admits traffic at the boundary switch"
                        ),
                    ));
                }
            };
            // A pair: the port where it is admitted (leaving its first switch) and its last switch.
            let ends = (ingress, ports[*route.last().unwrap() as usize].from);
            let k = *by_ends.entry(ends).or_insert_with(|| {
                let slot = slots.entry(ingress).or_insert(0);
                pairs.push(RationPair { ingress, slot: *slot, path: Vec::new() });
                *slot += 1;
                pairs.len() - 1
            });
            let pair = &mut pairs[k];
            pair.path.extend(path);
            pair.path.sort_unstable();
            pair.path.dedup();
            ports[ingress as usize].qdisc.join_ration_pair(f as u32, pair.slot);
        }
        let mut ingress: Vec<u32> = pairs.iter().map(|p| p.ingress).collect();
        ingress.sort_unstable();
        ingress.dedup();
        let rations = members.iter().map(|&p| ports[p as usize].qdisc.ration().unwrap().0).collect();
        let board = RationBoard { interval, ports: members, rations, pairs, ingress };
        board.hand_out(ports);
        Ok(Some(board))
    }

    /// Where the first update goes on the calendar.
    pub fn start(&self, events: &mut EventQueue, end: SimTime) {
        if self.interval <= end {
            events.schedule(self.interval, EventKind::RationUpdate, 0);
        }
    }

    /// Every pair's flow ration to its ingress port.
    fn hand_out(&self, ports: &mut [Port]) {
        for pair in &self.pairs {
            let r = pair.path.iter().map(|&i| self.rations[i as usize]).fold(f64::INFINITY, f64::min);
            ports[pair.ingress as usize].qdisc.set_pair_ration(pair.slot, r);
        }
    }
}

impl World {
    /// The end of a measurement interval: new resource rations, flooded at once.
    #[cold]
    pub(super) fn update_rations(&mut self) {
        let Some(board) = self.rations.as_deref_mut() else { return };
        let now = self.now;
        for (i, &p) in board.ports.iter().enumerate() {
            board.rations[i] = self.ports[p as usize].qdisc.update_ration(now);
        }
        board.hand_out(&mut self.ports);
        // A raised ration may free a held pair sooner than the wake-up its port has armed.
        for &p in &board.ingress {
            self.ports[p as usize].reconsider(now, &mut self.events, p);
        }
        let next = now.saturating_add(board.interval);
        if next <= self.end {
            self.events.schedule(next, EventKind::RationUpdate, 0);
        }
    }
}
