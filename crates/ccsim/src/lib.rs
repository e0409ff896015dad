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
    Ok(Results::take(sc, &mut world))
}

/// Parse, validate and run TOML text.
pub fn run_toml(text: &str) -> Result<Results, ScenarioError> {
    run(&Scenario::from_toml_str(text)?)
}
