//! The registry's machinery: what a registered algorithm looks like to the rest of the
//! program ([`AlgorithmInfo`]), and the macro that turns the registration lines in `mod.rs`
//! into the `Cc` enum, its dispatch, `CcConfig` and the `ALGORITHMS` table.

use super::{Algorithm, CcConfig, EventLog, ALGORITHMS};
use crate::scenario::decode::Result;
use crate::scenario::params::{ParamDoc, Params};
use crate::transport::config::SenderConfig;

/// A registered algorithm as the rest of the program sees it.
pub struct AlgorithmInfo {
    pub name: &'static str,
    pub summary: &'static str,
    pub trace_columns: &'static [&'static str],
    pub event_log: Option<EventLog>,
    pub sender_defaults: fn() -> SenderConfig,
    /// Decode a flow's `params` into this algorithm's config and its sender settings.
    pub decode: fn(&mut Params) -> Result<(CcConfig, SenderConfig)>,
}

impl AlgorithmInfo {
    /// Its parameters (the sender's common ones first, with this algorithm's defaults).
    pub fn params(&self) -> Vec<ParamDoc> {
        Params::describe(self.decode)
    }
}

/// The registered algorithm called `name`.
pub fn algorithm(name: &str) -> Option<&'static AlgorithmInfo> {
    ALGORITHMS.iter().find(|a| a.name == name)
}

pub(super) fn decode_with<A: Algorithm>(p: &mut Params) -> Result<(A::Config, SenderConfig)> {
    let mut sender = A::sender_defaults();
    sender.decode_common(p)?;
    let cfg = A::decode(p, &mut sender)?;
    Ok((cfg, sender))
}

/// Generates, from one line per algorithm (attributes such as `#[cfg(test)]` may precede it) (`Variant: module::Type`, `boxed` for large state):
/// the module declaration, the [`Cc`] enum and its dispatch, the [`CcConfig`] enum of decoded
/// parameters, and the [`ALGORITHMS`] table.
macro_rules! algorithms {
    ($($(#[$meta:meta])* $variant:ident : $module:ident :: $ty:ident $($boxed:ident)?),* $(,)?) => {
        $($(#[$meta])* pub mod $module;)*

        /// The algorithms, as an enum so the per-ACK path is a `match`, not a virtual call.
        #[derive(Clone, Debug)]
        pub enum Cc {
            $($(#[$meta])* $variant(algorithms!(@store $module::$ty $(, $boxed)?)),)*
        }

        /// An algorithm's decoded parameters (what a flow spec holds).
        #[derive(Clone, Debug, PartialEq)]
        pub enum CcConfig {
            $($(#[$meta])* $variant(<$module::$ty as Algorithm>::Config),)*
        }

        macro_rules! dispatch {
            ($self:ident, $c:ident => $e:expr) => {
                match $self {
                    $($(#[$meta])* Cc::$variant($c) => $e,)*
                }
            };
        }

        /// Every registered algorithm, in registration order.
        pub static ALGORITHMS: &[AlgorithmInfo] = &[
            $($(#[$meta])* AlgorithmInfo {
                name: <$module::$ty as Algorithm>::NAME,
                summary: <$module::$ty as Algorithm>::SUMMARY,
                trace_columns: <$module::$ty as Algorithm>::TRACE_COLUMNS,
                event_log: <$module::$ty as Algorithm>::EVENT_LOG,
                sender_defaults: <$module::$ty as Algorithm>::sender_defaults,
                decode: |p| decode_with::<$module::$ty>(p).map(|(c, s)| (CcConfig::$variant(c), s)),
            },)*
        ];

        $($(#[$meta])* impl From<$module::$ty> for Cc {
            fn from(a: $module::$ty) -> Cc {
                Cc::$variant(algorithms!(@wrap a $(, $boxed)?))
            }
        })*

        impl CcConfig {
            /// The algorithm, built for a flow with this maximum window.
            pub fn build(&self, max_window: u32) -> Cc {
                match self {
                    $($(#[$meta])* CcConfig::$variant(c) => Cc::from(<$module::$ty as Algorithm>::build(c, max_window)),)*
                }
            }
            pub fn name(&self) -> &'static str {
                match self {
                    $($(#[$meta])* CcConfig::$variant(_) => <$module::$ty as Algorithm>::NAME,)*
                }
            }
            pub fn info(&self) -> &'static AlgorithmInfo {
                algorithm(self.name()).expect("registered")
            }
        }

        impl Cc {
            pub fn name(&self) -> &'static str {
                match self {
                    $($(#[$meta])* Cc::$variant(_) => <$module::$ty as Algorithm>::NAME,)*
                }
            }
            /// Heap held by the boxed variants (their state; not their logs).
            pub fn memory_bytes(&self) -> usize {
                match self {
                    $($(#[$meta])* Cc::$variant(_) => algorithms!(@heap $module::$ty $(, $boxed)?),)*
                }
            }
            /// The algorithm asks for [`CongestionControl::code_for`] on every data packet.
            pub fn marks_packets(&self) -> bool {
                match self {
                    $($(#[$meta])* Cc::$variant(_) => <$module::$ty as Algorithm>::MARKS_PACKETS,)*
                }
            }
            /// The algorithm may hold its window at zero.
            pub fn may_hold(&self) -> bool {
                match self {
                    $($(#[$meta])* Cc::$variant(_) => <$module::$ty as Algorithm>::MAY_HOLD,)*
                }
            }
        }
    };
    (@store $t:ty) => { $t };
    (@store $t:ty, boxed) => { Box<$t> };
    (@wrap $e:expr) => { $e };
    (@wrap $e:expr, boxed) => { Box::new($e) };
    (@heap $t:ty) => { 0 };
    (@heap $t:ty, boxed) => { std::mem::size_of::<$t>() };
}
