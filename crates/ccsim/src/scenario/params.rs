//! Parameters of queue disciplines and congestion-control algorithms, as scenario files
//! write them (`queue_params = {...}` on a link, `params = {...}` on a flow).
//!
//! Each mechanism's defaults live in its own file (its `Config`/`Params` `Default`); this
//! module only reads the overrides, checks their ranges and names the field on error.

use super::decode::{Obj, Result, ScenarioError};
use super::units;
use crate::queue::decbit::{DecBitConfig, FairShareWindow};
use crate::queue::fq::{ChargeDrops, DropPolicy, FqConfig, RoundNumber};
use crate::transport::cc::dec::{DecParams, WindowRounding};
use crate::transport::cc::kalman::KalmanConfig;
use crate::transport::cc::pp::{Estimator, Horizon, PpConfig, REstimate, Smoothing};
use crate::transport::cc::pp2::{Carry, Pp2Config, RUpdate};

pub fn decbit(p: &mut Obj) -> Result<DecBitConfig> {
    let mut c = DecBitConfig::default();
    if let Some(x) = p.number_in("threshold", 0.0, 1e6)? {
        c.threshold = x;
    }
    if let Some(x) = p.boolean("selective")? {
        c.selective = x;
    }
    if let Some(x) = p.number_in("capacity_factor", 0.01, 10.0)? {
        c.capacity_factor = x;
    }
    if let Some(x) = p.boolean("panic")? {
        c.panic_enabled = x;
    }
    if let Some(x) = p.number_in("panic_threshold", 0.0, 1e6)? {
        c.panic_threshold = x;
    }
    if let Some(x) = p.boolean("inclusive")? {
        c.inclusive = x;
    }
    let path = p.at("fair_share_window");
    match p.get("fair_share_window") {
        None => {}
        Some(toml::Value::String(s)) if s == "cycle" => c.window = FairShareWindow::Cycle,
        Some(toml::Value::String(s)) => match units::duration(s) {
            Ok(t) if t > 0 => c.window = FairShareWindow::Fixed(t),
            _ => return Err(ScenarioError::new(path, format!("expected \"cycle\" or a positive duration, got {s:?}"))),
        },
        Some(v) => return Err(ScenarioError::new(path, format!("expected \"cycle\" or a duration, got {}", super::decode::describe(v)))),
    }
    if let Some(x) = p.boolean("demand_counts_drops")? {
        c.demand_counts_drops = x;
    }
    if let Some(x) = p.boolean("mark_all_when_underloaded")? {
        c.mark_all_when_underloaded = x;
    }
    if let Some(x) = p.quantity("share_refresh", units::duration)? {
        c.share_refresh = x;
    }
    Ok(c)
}

/// Fair Queueing (Keshav 1991 ch. 2-3; defaults in queue/fq.rs). `delta` is the promptness
/// parameter in bits ("8kb"; a size in bytes such as "1000B" is converted to bits).
pub fn fq(p: &mut Obj) -> Result<FqConfig> {
    let mut c = FqConfig::default();
    let path = p.at("delta");
    match p.get("delta") {
        None => {}
        Some(toml::Value::Integer(i)) if *i >= 0 => c.delta_bits = *i as u64,
        Some(toml::Value::String(s)) if s == "infinite" => c.delta_bits = u64::MAX,
        Some(toml::Value::String(s)) => match units::bits(s) {
            Ok(b) => c.delta_bits = b,
            Err(e) => return Err(ScenarioError::new(path, format!("expected {e}, an integer number of bits or \"infinite\", got {s:?}"))),
        },
        Some(v) => {
            return Err(ScenarioError::new(
                path,
                format!("expected bits (a non-negative integer) or a size, got {}", super::decode::describe(v)),
            ))
        }
    }
    let path = p.at("charge_drops");
    match p.get("charge_drops") {
        None => {}
        Some(toml::Value::Boolean(x)) => c.charge_drops = (*x).into(),
        Some(toml::Value::String(s)) if s == "pushed_out" => c.charge_drops = ChargeDrops::PushedOut,
        Some(v) => {
            return Err(ScenarioError::new(path, format!("expected true, false or \"pushed_out\", got {}", super::decode::describe(v))))
        }
    }
    match p.choice("tie_break", "FQ drop tie-break", &["largest_bid", "smallest_bid"])? {
        Some("smallest_bid") => c.tie_smallest_bid = true,
        Some(_) => c.tie_smallest_bid = false,
        None => {}
    }
    match p.choice("drop_policy", "FQ drop policy", &["longest", "largest_bid"])? {
        Some("largest_bid") => c.drop_policy = DropPolicy::MaxBid,
        Some(_) => c.drop_policy = DropPolicy::LongestQueueTail,
        None => {}
    }
    if let Some(x) = p.boolean("preemptive")? {
        c.preemptive = x;
    }
    match p.choice("round", "FQ round number", &["exact", "self_clocked"])? {
        Some("self_clocked") => c.round = RoundNumber::SelfClocked,
        Some(_) => c.round = RoundNumber::Exact,
        None => {}
    }
    Ok(c)
}

pub fn dec(p: &mut Obj) -> Result<DecParams> {
    let mut d = DecParams::default();
    if let Some(x) = p.number_in("initial_window", 1.0, 1e8)? {
        d.initial_window = x;
    }
    if let Some(x) = p.number_in("increase", 0.0, 1e6)? {
        d.increase = x;
    }
    if let Some(x) = p.number_in("decrease_factor", 0.01, 1.0)? {
        d.decrease_factor = x;
    }
    if let Some(x) = p.number_in("mark_fraction", 0.0, 1.0)? {
        d.mark_fraction = x;
    }
    match p.choice("window_rounding", "window rounding", &["floor", "round"])? {
        Some("round") => d.rounding = WindowRounding::Round,
        Some(_) => d.rounding = WindowRounding::Floor,
        None => {}
    }
    if let Some(x) = p.number_in("timeout_window", 1.0, 1e8)? {
        d.timeout_window = x;
    }
    match p.choice("count_acks", "ACKs observed", &["all", "new"])? {
        Some("new") => d.count_duplicates = false,
        Some(_) => d.count_duplicates = true,
        None => {}
    }
    Ok(d)
}

/// PP_CTH (Keshav 1991 ch. 4-5, §6.5; defaults in transport/cc/pp.rs).
pub fn pp(p: &mut Obj) -> Result<PpConfig> {
    let mut c = PpConfig::default();
    if let Some(x) = p.number_in("setpoint", 0.0, 1e6)? {
        c.setpoint = x;
    }
    if let Some(s) = p.choice("estimator", "rate estimator", &Estimator::NAMES)? {
        c.estimator = Estimator::from_name(s).expect("listed name");
    }
    if let Some(s) = p.choice("smooth", "smoothing target", &Smoothing::NAMES)? {
        c.smooth = Smoothing::from_name(s).expect("listed name");
    }
    let path = p.at("horizon");
    match p.get("horizon") {
        None => {}
        Some(toml::Value::String(s)) => match Horizon::from_name(s) {
            Some(h) => c.horizon = h,
            None => match units::duration(s) {
                Ok(t) if t > 0 => c.horizon = Horizon::Fixed(crate::sim::time::to_secs(t)),
                _ => {
                    return Err(ScenarioError::new(
                        path,
                        format!("expected one of: {}, or a positive duration, got {s:?}", Horizon::NAMES.join(", ")),
                    ))
                }
            },
        },
        Some(v) => {
            return Err(ScenarioError::new(path, format!("expected a horizon name or a duration, got {}", super::decode::describe(v))))
        }
    }
    if let Some(s) = p.choice("r_estimate", "propagation-delay estimate", &REstimate::NAMES)? {
        c.r_estimate = REstimate::from_name(s).expect("listed name");
    }
    if let Some(x) = p.number_in("rate_floor", 1e-6, 1e9)? {
        c.rate_floor = x;
    }
    if let Some(x) = p.boolean("fill_window")? {
        c.fill_window = x;
    }
    kalman(p, &mut c.kalman)?;
    Ok(c)
}

/// The optional Kalman estimator's noise variances, shared by PP_CTH and 2P (unset: the
/// estimator's own defaults, transport/cc/kalman.rs).
fn kalman(p: &mut Obj, k: &mut KalmanConfig) -> Result<()> {
    if let Some(x) = p.number_in("kalman_system_var", 0.0, 1e18)? {
        k.system_var = Some(x);
    }
    if let Some(x) = p.number_in("kalman_obs_var", 0.0, 1e18)? {
        k.obs_var = Some(x);
    }
    Ok(())
}

/// Chapter 4's 2P (Keshav 1991 §4.4; defaults in transport/cc/pp2.rs).
pub fn pp2(p: &mut Obj) -> Result<Pp2Config> {
    let mut c = Pp2Config::default();
    if let Some(n) = p.uint("n_b")? {
        if n > 1_000_000 {
            return Err(ScenarioError::new(p.at("n_b"), format!("expected an integer in [0, 1000000], got {n}")));
        }
        c.n_b = n as u32;
    }
    if let Some(x) = p.number_in("n_b_fraction", 0.0, 100.0)? {
        c.n_b_fraction = Some(x);
    }
    if let Some(s) = p.choice("estimator", "rate estimator", &Estimator::NAMES)? {
        c.estimator = Estimator::from_name(s).expect("listed name");
    }
    if let Some(s) = p.choice("smooth", "smoothing target", &Smoothing::NAMES)? {
        c.smooth = Smoothing::from_name(s).expect("listed name");
    }
    if let Some(s) = p.choice("r_estimate", "propagation-delay estimate", &RUpdate::NAMES)? {
        c.r_estimate = RUpdate::from_name(s).expect("listed name");
    }
    if let Some(s) = p.choice("carry", "what is carried between changes of V", &Carry::NAMES)? {
        c.carry = Carry::from_name(s).expect("listed name");
    }
    if let Some(x) = p.boolean("fill_window")? {
        c.fill_window = x;
    }
    kalman(p, &mut c.kalman)?;
    Ok(c)
}
