//! Reliable window transport: the sender machinery (sequence space, retransmission, RTT
//! estimation, timers) lives once, in [`sender::Sender`]; congestion control is a small trait
//! with one file per algorithm in [`cc`]. The sink sends one cumulative ACK per data packet.
pub mod cc;
pub mod config;
mod pacer;
pub mod rtt;
pub mod sender;
pub mod seqspace;
pub mod sink;

pub use config::{SenderConfig, TimerMode};
pub use sender::{Sender, Transmission};
pub use sink::Sink;
