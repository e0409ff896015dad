//! 2P's parameters (`params` of `cc = "pp2"`); their meaning is in the module header of
//! `mod.rs`.

use crate::scenario::decode::Result;
use crate::scenario::params::Params;
use crate::transport::cc::fuzzy::FuzzyConfig;
use crate::transport::cc::kalman::KalmanConfig;
use crate::transport::cc::probe::{decode_estimator, decode_timer, Estimator, Smoothing};
use crate::transport::config::SenderConfig;

/// How R_e is kept (scenario names "pair", "first").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RUpdate {
    /// R_e = r_t − n_b·s_e from the first ACK of every pair (§4.4).
    Pair,
    /// The RTT of the first packet of the first pair, never updated.
    First,
}

/// What is carried from one change of V to the next (scenario names "burst", "all").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Carry {
    /// The rounding remainder of bursts (spec A12).
    Burst,
    /// Also the packets a skip withholds beyond the decrease of V.
    All,
}

/// Parameters of 2P; each field is a scenario parameter of the same name.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Pp2Config {
    /// n_b, the target number of this flow's packets at the bottleneck (= ΔV in §4.4): the
    /// priming burst, and the queueing subtracted from r_t in R_e.
    pub n_b: u32,
    /// If set, n_b = round(fraction · V_e) at the end of the first RTT instead.
    pub n_b_fraction: Option<f64>,
    pub estimator: Estimator,
    pub smooth: Smoothing,
    pub r_estimate: RUpdate,
    pub carry: Carry,
    /// When the window has room for one packet only, send it alone in the slot (true) or
    /// wait for room for the pair (false).
    pub fill_window: bool,
    pub fuzzy: FuzzyConfig,
    pub kalman: KalmanConfig,
}

impl Default for Pp2Config {
    fn default() -> Self {
        Pp2Config {
            n_b: 5,
            n_b_fraction: None,
            estimator: Estimator::Raw,
            smooth: Smoothing::Rate,
            r_estimate: RUpdate::Pair,
            carry: Carry::Burst,
            fill_window: false,
            fuzzy: FuzzyConfig::default(),
            kalman: KalmanConfig::default(),
        }
    }
}

impl Pp2Config {
    pub fn decode(p: &mut Params, sender: &mut SenderConfig) -> Result<Pp2Config> {
        decode_timer(p, sender)?;
        let d = Pp2Config::default();
        let n_b = p.integer("n_b", d.n_b as u64, 0, 1_000_000, "n_b, the target number of the flow's packets at the bottleneck (the priming burst)")? as u32;
        let n_b_fraction =
            p.optional_number("n_b_fraction", 0.0, 100.0, "unset (n_b as given)", "if set, n_b = round(fraction x V_e) at the end of the first RTT")?;
        let (estimator, smooth, kalman) = decode_estimator(p, d.estimator)?;
        let r_estimate = p.choice(
            "r_estimate",
            d.r_estimate,
            &[("pair", RUpdate::Pair), ("first", RUpdate::First)],
            "how R_e is kept: from the first ACK of every pair, or the first packet's RTT only",
        )?;
        let carry = p.choice(
            "carry",
            d.carry,
            &[("burst", Carry::Burst), ("all", Carry::All)],
            "what is carried between changes of V: burst rounding only, or also withheld packets",
        )?;
        let fill_window = p.flag("fill_window", d.fill_window, "send a lone packet in a slot when the window has room for one only")?;
        let fuzzy = crate::transport::cc::fuzzy::decode(p)?;
        Ok(Pp2Config { n_b, n_b_fraction, estimator, smooth, r_estimate, carry, fill_window, fuzzy, kalman })
    }
}
