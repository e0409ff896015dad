//! Simulation kernel: integer time, the event queue and random-number streams.
mod event;
pub mod events;
pub mod rng;
pub mod time;
mod wheel;

pub use events::{Event, EventKind, EventQueue};
pub use rng::Rng;
pub use time::{SimTime, PS_PER_SEC};
