//! Scenarios: the TOML format, unit parsing, validation with field paths, and the builder
//! that turns a validated scenario into a [`crate::world::World`].
pub mod build;
pub mod decode;
pub mod flow_sizes;
pub mod flows;
pub mod limits;
pub mod measure;
pub mod parallel;
pub mod params;
pub mod schema;
mod setup_hooks;
mod table_memory;
pub mod topology;
pub mod units;

pub use decode::ScenarioError;
pub use schema::Scenario;
