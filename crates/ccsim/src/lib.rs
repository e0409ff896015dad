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
    overflow_error(sc, &world)?;
    Ok(Results::take(sc, &mut world))
}

/// The error for a run stopped by [`world::MAX_LIVE_PACKETS`], naming the flow.
pub fn overflow_error(sc: &Scenario, world: &world::World) -> Result<(), ScenarioError> {
    match world.overflow {
        None => Ok(()),
        Some(f) => Err(ScenarioError::new(
            format!("flows[{f}]"),
            format!(
                "the run stopped at {:.6} s simulated, holding {} packets at once as flow \"{}\" sent another: \
                 a source offers more than its path carries into an unlimited queue (a host's own queue is \
                 unlimited unless the link's forward or reverse table sets a buffer); lower its rate or give \
                 that queue a buffer",
                sim::time::to_secs(world.now),
                world.live_packet_limit,
                sc.flows[f as usize].name
            ),
        )),
    }
}

/// Parse, validate and run TOML text.
pub fn run_toml(text: &str) -> Result<Results, ScenarioError> {
    run(&Scenario::from_toml_str(text)?)
}
