//! `[parallel]`: run one scenario on two threads (issue 22).
//!
//! The scenario names the nodes the second thread simulates (`second = ["sw", "d"]`); the
//! first simulates the rest. Each thread runs the events of its own nodes (a port belongs to
//! the node it leaves, a flow's sender to its source, its sink to its destination), and the
//! links between the two halves carry their packets across. A packet put on such a link at
//! time t reaches the far side no earlier than t plus the link's delay, so both threads may
//! run a window of that length (the lookahead: the least delay of those links) without
//! waiting for each other; at the window's end they swap what crossed (`crate::parallel`).
//!
//! Choices: the windows also end at every measurement interval's end, where the second
//! thread's flow counters join the first's, so the interval table is the serial run's. Events
//! of the same picosecond on the two sides of the cut may run in another order than one
//! thread would run them (a flow the second thread starts exactly at an interval's end counts
//! its first packets in the next interval), so a parallel run is deterministic but not
//! guaranteed to be identical to the serial run of the same scenario (docs/scenario-format.md
//! says where it was and was not). A parallel run traces nothing by default, and a trace asked
//! for is an error naming the field; so are delay changes and jitter on the links of the cut.

use super::decode::{string_list, Obj, Result, ScenarioError};
use super::schema::{FlowSpec, LinkSpec, MeasureSpec, NameIndex, Selection};
use crate::sim::SimTime;

#[derive(Clone, Debug)]
pub struct ParallelSpec {
    /// Per node: simulated by the second thread.
    pub second: Vec<bool>,
    /// The least delay of a link between the two halves: the length of a window.
    pub lookahead: SimTime,
}

impl ParallelSpec {
    /// The thread (0 or 1) that simulates node `n`.
    #[inline]
    pub fn side(&self, n: usize) -> u8 {
        u8::from(self.second[n])
    }
}

pub fn decode_parallel(
    top: &mut Obj,
    node_index: &NameIndex,
    nodes: usize,
    links: &[LinkSpec],
    flows: &[FlowSpec],
    measure: &MeasureSpec,
) -> Result<Option<ParallelSpec>> {
    let Some(mut t) = top.table("parallel")? else { return Ok(None) };
    let items = t.array("second")?.ok_or_else(|| t.missing("second", "a list of the node names the second thread simulates"))?;
    let names = string_list(items, &t.at("second"))?;
    let mut second = vec![false; nodes];
    for (i, name) in names.iter().enumerate() {
        let n = node_index.get(name).ok_or_else(|| {
            ScenarioError::new(format!("parallel.second[{i}]"), format!("no node named {name:?} (nodes: {})", node_index.sample()))
        })?;
        second[n] = true;
    }
    t.finish()?;
    if second.iter().all(|&s| s) {
        return Err(ScenarioError::new("parallel.second", "expected some nodes left for the first thread, got every node"));
    }
    let mut lookahead = SimTime::MAX;
    for (i, l) in links.iter().enumerate() {
        if second[l.a] == second[l.b] {
            continue;
        }
        if l.delay == 0 {
            return Err(ScenarioError::new(
                format!("links[{i}].delay"),
                "expected a positive delay on a link between the two threads' halves (parallel.second): the delay is \
                 how far each thread may run ahead of the other",
            ));
        }
        if !l.delay_changes.is_empty() || l.forward.jitter > 0 || l.reverse.jitter > 0 {
            return Err(ScenarioError::new(
                format!("links[{i}]"),
                "expected no delay changes and no jitter on a link between the two threads' halves (parallel.second)",
            ));
        }
        lookahead = lookahead.min(l.delay);
    }
    if lookahead == SimTime::MAX {
        return Err(ScenarioError::new("parallel.second", "expected a link between the two halves; these nodes are joined to no others"));
    }
    for (field, sel) in [
        ("measure.trace_cwnd", &measure.trace_cwnd),
        ("measure.trace_queues", &measure.trace_queues),
        ("measure.trace_drops", &measure.trace_drops),
    ] {
        if !matches!(sel, Selection::None) {
            return Err(ScenarioError::new(field, "expected no traces in a parallel run (drop [parallel] to trace)"));
        }
    }
    // A coalescing flow's sizes are kept at its sender, which its sink reads too.
    if let Some(i) = flows.iter().position(|f| f.nagle.is_some() && second[f.src] != second[f.dst]) {
        return Err(ScenarioError::new(
            format!("flows[{i}].nagle"),
            "expected both ends of a flow under Nagle's rule on one thread (parallel.second), or no nagle",
        ));
    }
    Ok(Some(ParallelSpec { second, lookahead }))
}
