//! What disciplines learn of the flows at setup, through the hooks that ask for it (only those
//! that do: a large topology has many ports and flows): endpoints for keys that group flows
//! (FQ's `conversation`), weighted FQ's weights, and the routes that pass a port (Virtual
//! Clock and HRR for reservations, the SEIF router for its sources' distances); and that a JCC
//! flow reads the codes of the RED ports on its path in their own units.

use super::decode::{Result, ScenarioError};
use super::schema::{FlowSpec, Scenario};
use crate::net::{PacketKind, Port};
use crate::queue::{QdiscConfig, QueueDiscipline};
use crate::transport::cc::CcConfig;

/// Endpoints to the disciplines that group flows; each flow's `fq_weight` to every port.
pub(super) fn tell_flows(ports: &mut [Port], sc: &Scenario) {
    for port in ports.iter_mut().filter(|p| p.qdisc.groups_flows()) {
        for (i, fs) in sc.flows.iter().enumerate() {
            port.qdisc.add_flow(i as u32, fs.src as u32, fs.dst as u32);
        }
    }
    for (i, fs) in sc.flows.iter().enumerate() {
        if fs.fq_weight != 1 {
            for port in ports.iter_mut() {
                port.qdisc.set_flow_weight(i as u32, fs.fq_weight);
            }
        }
    }
}

/// Flow `i`'s data route `fwd` and ACK route `rev` (port ids) to the disciplines on them that
/// ask; its `reserved_rate` must reach one that honours it, within that port's room.
pub(super) fn tell_route(ports: &mut [Port], i: usize, fs: &FlowSpec, fwd: &[u32], rev: &[u32]) -> Result<()> {
    let field = || format!("flows[{i}].reserved_rate");
    let mut honoured = false;
    for (route, kind) in [(fwd, PacketKind::Data), (rev, PacketKind::Ack)] {
        for (hop, &p) in route.iter().enumerate() {
            let q = &mut ports[p as usize].qdisc;
            if q.wants_routes() {
                let reserved = if kind == PacketKind::Data { fs.reserved_rate.unwrap_or(0) } else { 0 };
                let takes = q.routed(i as u32, kind, hop as u32, reserved).map_err(|e| ScenarioError::new(field(), e))?;
                honoured |= reserved > 0 && takes;
            }
        }
    }
    if fs.reserved_rate.is_some() && !honoured {
        return Err(ScenarioError::new(field(), "no port on the flow's route honours reservations (queue = \"virtual_clock\" or \"hrr\")"));
    }
    Ok(())
}

/// A JCC flow's `code_bits` and `max_p` must be those of every coding RED port on its data
/// route `fwd` (port ids: link k's ports are 2k, a to b, and 2k + 1): it converts the codes it
/// reads with them, and a mismatch would silently misread every R.
pub(super) fn check_codes(sc: &Scenario, i: usize, fs: &FlowSpec, fwd: &[u32]) -> Result<()> {
    let Some(CcConfig::Jcc(jcc)) = &fs.transport.cc else { return Ok(()) };
    for &p in fwd {
        let (k, link) = (p as usize / 2, &sc.links[p as usize / 2]);
        let queue = if p % 2 == 0 { &link.forward } else { &link.reverse };
        let QdiscConfig::Red(red) = &queue.kind else { continue };
        if red.code_bits == 0 {
            continue;
        }
        let (field, theirs, ours) = if red.code_bits != jcc.code_bits {
            ("code_bits", red.code_bits.to_string(), jcc.code_bits.to_string())
        } else if red.max_p != jcc.max_p {
            ("max_p", red.max_p.to_string(), jcc.max_p.to_string())
        } else {
            continue;
        };
        return Err(ScenarioError::new(
            format!("flows[{i}].params.{field}"),
            format!(
                "expected {theirs}, the {field} of the RED port its data crosses on links[{k}] ({} -> {}): JCC reads \
                 that port's codes in its own units, got {ours}",
                sc.nodes[if p % 2 == 0 { link.a } else { link.b }].name,
                sc.nodes[if p % 2 == 0 { link.b } else { link.a }].name,
            ),
        ));
    }
    Ok(())
}
