//! Queue disciplines: one file per discipline, each registered by one line in
//! [`disciplines!`] below.
//!
//! [`QueueDiscipline`] is shaped like Linux's `Qdisc_ops`: `enqueue` either accepts the
//! arriving packet or names the packet it dropped (the arriving one, or another already
//! queued, as Fair Queueing's drop-from-the-longest-queue needs), and `dequeue` hands the next
//! packet to the transmitter. Marking (DECbit, ECN, ...) happens inside the discipline.
//! [`Discipline`] is what a discipline says about itself once: its scenario name, its
//! parameters (read with defaults, ranges and meaning through [`Params`], which also makes the
//! listing users see) and how it is built for a port ([`PortSetup`]).
//!
//! The registration line makes it a variant of [`Qdisc`], the enum a port holds (the
//! per-packet path is a `match`, not a virtual call), and an entry of [`DISCIPLINES`], from
//! which the scenario schema, error messages, `--param` targets, Python's listing and the
//! docs' tables are derived. Disciplines with large state are registered `boxed`, so a port
//! (and every drop-tail port of a big topology) stays small; drop-tail, the default, is
//! inlined into the port.

use crate::net::{PacketArena, PacketId, PacketKind};
use crate::scenario::decode::Result;
use crate::scenario::params::{ParamDoc, Params};
use crate::sim::{Rng, SimTime};
pub use droptail::DropTail;
pub use verdicts::{BufferLimit, InService, Signal, Verdict};

mod verdicts;

pub trait QueueDiscipline {
    fn enqueue(&mut self, pkt: PacketId, arena: &mut PacketArena, now: SimTime, tx: InService) -> Verdict;
    fn dequeue(&mut self, arena: &mut PacketArena, now: SimTime) -> Option<PacketId>;
    fn len_packets(&self) -> u32;
    fn len_bytes(&self) -> u64;
    /// Visit every queued packet (for conservation checks at the end of a run; not hot).
    fn for_each(&self, f: &mut dyn FnMut(PacketId));
    /// Heap bytes held (for the benchmark's memory accounting; not hot).
    fn memory_bytes(&self) -> usize;
    /// The discipline may preempt the packet on the line (the port then offers it every
    /// arrival's chance to do so).
    fn is_preemptive(&self) -> bool {
        false
    }
    /// Preemptive disciplines: a queued packet should take the line now.
    fn wants_preemption(&self) -> bool {
        false
    }
    /// Preemptive disciplines: the packet on the line stopped with `remaining_bytes` to send.
    fn preempt(&mut self, _remaining_bytes: u32) {}
    /// Give conversation `conv` weight `weight` (weighted disciplines; others ignore it).
    fn set_weight(&mut self, _conv: u32, _weight: u32) {}
    /// Give flow `flow`'s data conversation weight `weight` (its `fq_weight`).
    fn set_flow_weight(&mut self, _flow: u32, _weight: u32) {}
    /// The discipline groups flows into conversations by their endpoints (it is then told
    /// each flow's with `add_flow` at setup).
    fn groups_flows(&self) -> bool {
        false
    }
    /// Flow `flow` runs from host `src` to host `dst`.
    fn add_flow(&mut self, _flow: u32, _src: u32, _dst: u32) {}
    /// The discipline is told at setup, with `routed`, every conversation whose route passes
    /// its port (only those that ask: a large topology has many ports and flows): Virtual Clock
    /// and HRR for their rates, the SEIF router for its sources' distances.
    fn wants_routes(&self) -> bool {
        false
    }
    /// Flow `flow`'s packets of `kind` pass this port, `hop` links from where they start
    /// (0: this is their first port); `reserved_bps` is the flow's `reserved_rate` for its data
    /// (0: none). Says whether the discipline honours reservations, or why the port cannot take
    /// this one.
    fn routed(&mut self, _flow: u32, _kind: PacketKind, _hop: u32, _reserved_bps: u64) -> std::result::Result<bool, String> {
        Ok(false)
    }
    /// Packets marked since the start (congestion bits set), for port statistics.
    fn marks(&self) -> u64 {
        0
    }
    /// The discipline's own counters (early and forced drops, messages withheld, ...), each
    /// named `discipline_what`, for the ports table; not hot.
    fn counters(&self, _out: &mut dyn FnMut(&'static str, u64)) {}
    /// A non-work-conserving discipline, asked for a packet on an idle line, may give none
    /// while it holds some: then the time, at or after `now`, when one may go.
    fn next_eligible(&self, _now: SimTime) -> Option<SimTime> {
        None
    }
    /// Hand over the signals raised since the last call (called after every arrival, for
    /// disciplines with [`Discipline::SIGNALS`] only).
    fn drain_signals(&mut self, _out: &mut dyn FnMut(Signal)) {}
    /// The port put on the line, at `now`, a packet of `bytes` this discipline did not hand it
    /// (a control packet from the port's priority lane): disciplines that follow their line
    /// (DECbit's averaging, RED's idle time) count it as busy.
    fn line_taken(&mut self, _now: SimTime, _bytes: u32) {}
    /// A port that takes part in BBN's ration exchange (`bbn`): its resource ration now, bit/s,
    /// and how often it is measured and flooded (`world/rations.rs`).
    fn ration(&self) -> Option<(f64, SimTime)> {
        None
    }
    /// Close the measurement interval ending `now`: the new resource ration, bit/s.
    fn update_ration(&mut self, _now: SimTime) -> f64 {
        f64::INFINITY
    }
    /// Flow `flow`'s data enters the network at this port and belongs to its pair `pair` of
    /// boundary switches (setup).
    fn join_ration_pair(&mut self, _flow: u32, _pair: u32) {}
    /// The flow ration of this port's pair `pair`, bit/s.
    fn set_pair_ration(&mut self, _pair: u32, _bps: f64) {}
    /// The discipline's own control variable, named, for the queue trace (RED's, RIO's and
    /// DECbit's average queue, BLUE's marking probability, REM's price, BBN's ration, the SEIF
    /// router's filter), as of its
    /// last update; None for disciplines without one. Read at trace samples only.
    fn state(&self) -> Option<(&'static str, f64)> {
        None
    }
}

/// The port a discipline is built for.
#[derive(Clone, Copy, Debug)]
pub struct PortSetup<'a> {
    pub buffer: BufferLimit,
    /// The packet being transmitted occupies a buffer slot.
    pub count_in_service: bool,
    /// The line rate the queue feeds.
    pub bandwidth_bps: u64,
    /// The scenario's seed and the port's name ("a->b"), for random streams of its own.
    pub seed: u64,
    pub port_name: &'a str,
}

impl PortSetup<'_> {
    /// A random stream of this port's own, derived from the seed and the port's name (so
    /// adding a port or a flow changes no other stream).
    pub fn rng(&self, purpose: &str) -> Rng {
        Rng::stream(self.seed, &format!("port/{}/{purpose}", self.port_name))
    }
}

/// What a discipline says about itself, once; see the module header.
pub trait Discipline: QueueDiscipline + Sized {
    /// The name scenarios use (`queue = "..."`).
    const NAME: &'static str;
    /// One line for listings: what it is and where it comes from.
    const SUMMARY: &'static str;
    /// Its parameters (`queue_params`), decoded.
    type Config: Clone + std::fmt::Debug + PartialEq;
    /// It raises signals for sources ([`QueueDiscipline::drain_signals`]): the run then gives
    /// every port a priority lane for control packets.
    const SIGNALS: bool = false;
    /// Read its parameters. Ask for every parameter whatever the values: the same function
    /// makes the listing.
    fn decode(p: &mut Params) -> Result<Self::Config>;
    /// The discipline for a port.
    fn build(cfg: &Self::Config, port: &PortSetup) -> Self;
}

/// A registered discipline as the rest of the program sees it.
pub struct DisciplineInfo {
    pub name: &'static str,
    pub summary: &'static str,
    pub decode: fn(&mut Params) -> Result<QdiscConfig>,
}

impl DisciplineInfo {
    pub fn params(&self) -> Vec<ParamDoc> {
        Params::describe(self.decode)
    }
}

/// The registered discipline called `name`.
pub fn discipline(name: &str) -> Option<&'static DisciplineInfo> {
    DISCIPLINES.iter().find(|d| d.name == name)
}

/// The buffer queries (`len_packets`, `len_bytes`, `for_each`) of a discipline whose packets
/// wait in one inner queue, `field`: forwarded in one line (RED, BLUE, RIO, REM, DECbit, ...).
macro_rules! buffered_in {
    ($field:ident) => {
        fn len_packets(&self) -> u32 {
            self.$field.len_packets()
        }
        fn len_bytes(&self) -> u64 {
            self.$field.len_bytes()
        }
        fn for_each(&self, f: &mut dyn FnMut(crate::net::PacketId)) {
            self.$field.for_each(f)
        }
    };
}

/// Generates, from one line per discipline (`Variant: module::Type`, `boxed` for large
/// state): the module declaration, the [`Qdisc`] enum and its dispatch, the [`QdiscConfig`]
/// enum of decoded parameters and the [`DISCIPLINES`] table.
macro_rules! disciplines {
    ($($variant:ident : $module:ident :: $ty:ident $($boxed:ident)?),* $(,)?) => {
        $(pub mod $module;)*

        pub enum Qdisc {
            $($variant(disciplines!(@store $module::$ty $(, $boxed)?)),)*
        }

        /// A discipline's decoded parameters (what a port spec holds).
        #[derive(Clone, Debug, PartialEq)]
        pub enum QdiscConfig {
            $($variant(<$module::$ty as Discipline>::Config),)*
        }

        macro_rules! dispatch {
            ($self:ident, $q:ident => $e:expr) => {
                match $self {
                    $(Qdisc::$variant($q) => $e,)*
                }
            };
        }

        /// Every registered discipline, in registration order.
        pub static DISCIPLINES: &[DisciplineInfo] = &[
            $(DisciplineInfo {
                name: <$module::$ty as Discipline>::NAME,
                summary: <$module::$ty as Discipline>::SUMMARY,
                decode: |p| <$module::$ty as Discipline>::decode(p).map(QdiscConfig::$variant),
            },)*
        ];

        $(impl From<$module::$ty> for Qdisc {
            fn from(q: $module::$ty) -> Qdisc {
                Qdisc::$variant(disciplines!(@wrap q $(, $boxed)?))
            }
        })*

        impl QdiscConfig {
            pub fn build(&self, port: &PortSetup) -> Qdisc {
                match self {
                    $(QdiscConfig::$variant(c) => Qdisc::from(<$module::$ty as Discipline>::build(c, port)),)*
                }
            }
            pub fn name(&self) -> &'static str {
                match self {
                    $(QdiscConfig::$variant(_) => <$module::$ty as Discipline>::NAME,)*
                }
            }
            /// The discipline raises signals for sources.
            pub fn signals(&self) -> bool {
                match self {
                    $(QdiscConfig::$variant(_) => <$module::$ty as Discipline>::SIGNALS,)*
                }
            }
        }

        impl Qdisc {
            pub fn name(&self) -> &'static str {
                match self {
                    $(Qdisc::$variant(_) => <$module::$ty as Discipline>::NAME,)*
                }
            }
        }
    };
    (@store $t:ty) => { $t };
    (@store $t:ty, boxed) => { Box<$t> };
    (@wrap $e:expr) => { $e };
    (@wrap $e:expr, boxed) => { Box::new($e) };
}

// The registry: one line per discipline.
disciplines! {
    DropTail: droptail::DropTail,
    Fq: fq::FairQueue boxed,
    FqBit: fqbit::FqBit boxed,
    DecBit: decbit::DecBit boxed,
    SqRouter: sq_router::SqRouter boxed,
    Red: red::Red boxed,
    Blue: blue::Blue boxed,
    Rio: rio::Rio boxed,
    Rem: rem::Rem boxed,
    RandomDrop: random_drop::RandomDrop boxed,
    Seif: seif::Seif boxed,
    Wtp: wtp::Wtp boxed,
    Swtp: swtp::Swtp boxed,
    Bpr: bpr::Bpr boxed,
    VirtualClock: virtual_clock::VirtualClock boxed,
    Hrr: hrr::Hrr boxed,
    Bbn: bbn::Bbn boxed,
}

// Not a port discipline: chapter 3's buffering structures for FQ and their evaluation.
pub mod fq_buffers;
// The indexed heap of conversations FQ and Virtual Clock keep.
pub(crate) mod key_heap;

impl Default for QdiscConfig {
    /// FCFS drop-tail.
    fn default() -> Self {
        QdiscConfig::DropTail(())
    }
}

// The enum's dispatch: `Qdisc` as a `QueueDiscipline` (after the registry, whose
// `dispatch!` it uses).
mod dispatch;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_discipline_has_a_unique_name_and_builds_from_its_defaults() {
        let mut names: Vec<&str> = DISCIPLINES.iter().map(|d| d.name).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), DISCIPLINES.len(), "two disciplines share a name");
        for d in DISCIPLINES {
            let cfg = (d.decode)(&mut Params::new(crate::scenario::decode::Obj::empty("queue_params"))).unwrap();
            assert_eq!(cfg.name(), d.name);
            let port = PortSetup {
                buffer: BufferLimit::Packets(10),
                count_in_service: true,
                bandwidth_bps: 1_000_000,
                seed: 1,
                port_name: "a->b",
            };
            let q = cfg.build(&port);
            assert_eq!((q.name(), q.len_packets()), (d.name, 0));
        }
        assert_eq!(QdiscConfig::default().name(), "droptail");
    }

    #[test]
    fn no_discipline_shares_a_name_with_an_algorithm() {
        // `--param NAME.key=value` addresses either by name.
        for d in DISCIPLINES {
            assert!(crate::transport::cc::algorithm(d.name).is_none(), "{} names both", d.name);
        }
    }
}
