//! ccsim: a packet-level discrete-event simulator for congestion-control research.
//!
//! The engine is a plain Rust library with no Python in it. A run goes
//! scenario (TOML or a value tree) -> validated [`Scenario`] -> [`world::World`] -> event loop
//! -> [`results::Results`]. See DESIGN.md in the repository for the architecture.

pub mod bench;
pub mod measure;
pub mod net;
pub mod queue;
pub mod results;
pub mod scenario;
pub mod sim;
pub mod traffic;
pub mod transport;
pub mod world;

pub use results::Results;
pub use scenario::{Scenario, ScenarioError};

/// Build and run a validated scenario.
pub fn run(sc: &Scenario) -> Result<Results, ScenarioError> {
    let mut world = scenario::build::build_world(sc)?;
    world.run();
    finish(sc, &mut world)
}

/// The results of a world that has run, or the error of a run stopped because it held
/// [`world::MAX_LIVE_PACKETS`] packets at once (naming the flow with the most of them).
pub fn finish(sc: &Scenario, world: &mut world::World) -> Result<Results, ScenarioError> {
    if world.overflow.is_some() {
        let held = world.packets.live_per_flow(sc.flows.len());
        let (f, most) = held.iter().enumerate().max_by_key(|&(i, n)| (n, std::cmp::Reverse(i))).map(|(i, &n)| (i, n)).unwrap_or((0, 0));
        return Err(ScenarioError::new(
            format!("flows[{f}]"),
            format!(
                "the run stopped at {:.6} s simulated, holding {} packets queued or in flight, {most} of them flow \
                 \"{}\"'s: it offers more than its path carries into an unlimited queue (a host's own queue is \
                 unlimited unless the link's forward or reverse table sets a buffer), or its path holds that \
                 many; lower its rate or give the queue a buffer",
                sim::time::to_secs(world.now),
                world.packets.live(),
                sc.flows[f].name
            ),
        ));
    }
    Ok(Results::take(sc, world))
}

/// Parse, validate and run TOML text.
pub fn run_toml(text: &str) -> Result<Results, ScenarioError> {
    run(&Scenario::from_toml_str(text)?)
}
