//! Network elements: packets and their arena, ports (queue + transmitter + pipe), topology
//! and routing.
pub mod id_ring;
pub mod packet;
pub mod port;
pub mod routing;

pub use id_ring::IdRing;
pub use packet::{Packet, PacketArena, PacketId, PacketKind};
pub use port::Port;
