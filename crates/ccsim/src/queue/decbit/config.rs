//! DecBit's parameters (the module header of `decbit` says what each reading means) and its
//! registration as a discipline: decoding from `queue_params` with the defaults.

use super::DecBit;
use crate::queue::{Discipline, PortSetup};
use crate::scenario::decode::Result;
use crate::scenario::params::{text, Params};
use crate::scenario::units;
use crate::queue::random_drop::{Victim, VICTIMS};
use crate::sim::SimTime;

/// Over which interval conversation demands are measured for the fair share.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FairShareWindow {
    /// The queue-averaging interval: the previous regeneration cycle plus the current one.
    Cycle,
    /// The previous complete interval of this length plus the current partial one.
    Fixed(SimTime),
}

/// Every parameter of the selective DECbit gateway; `Default` gives the spec's values.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DecBitConfig {
    /// Average queue length (packets, including the one in service) above which the gateway is
    /// congested and marks. 1.0 (thesis: "greater than one").
    pub threshold: f64,
    /// Mark only conversations over their fair share (selective DECbit). true; false is the
    /// original DECbit, which marks every data packet while congested.
    pub selective: bool,
    /// Fraction of the line rate shared out as fair shares. 0.9 (thesis Scenario 6).
    pub capacity_factor: f64,
    /// Allow panic mode. true (thesis Scenario 6: "allowed to go into panic mode").
    pub panic_enabled: bool,
    /// Average queue length above which every data packet is marked. 2.0 (spec [REC]).
    pub panic_threshold: f64,
    /// Compare the averages with >= instead of > (both thresholds). false: the thesis's "greater
    /// than one"; true: the spec's reading (average >= 1).
    pub inclusive: bool,
    /// Measurement window for the demands. `Cycle` (spec §3.3: the averaging interval).
    pub window: FairShareWindow,
    /// Count packets the buffer drops as demand. true.
    pub demand_counts_drops: bool,
    /// When congested but total demand <= capacity_factor x capacity (nobody over its share),
    /// mark every data packet instead of none. false.
    pub mark_all_when_underloaded: bool,
    /// Reuse a computed fair share for this long (0: recompute at every decision). 0.
    pub share_refresh: SimTime,
    /// Set the bit on ACKs too (spec liang91 §1.5's reading of Liang 1991; the thesis's own
    /// diagnosis, §2.4.2 and §5.3, is about ACKs in the average: `count_acks`). false.
    pub mark_acks: bool,
    /// ACKs count in the queue length the gateway averages. true (Liang's diagnosis of
    /// DECbit under two-way traffic turns on it; false is spec P5's diagnostic variant).
    pub count_acks: bool,
    /// Which packet an overflow drops: the arriving one (drop-tail, the default), or a random
    /// pick as Random Drop's (Liang spec A13's variant for the baseline routers).
    pub victim: Victim,
}

impl Default for DecBitConfig {
    fn default() -> Self {
        DecBitConfig {
            threshold: 1.0,
            selective: true,
            capacity_factor: 0.9,
            panic_enabled: true,
            panic_threshold: 2.0,
            inclusive: false,
            window: FairShareWindow::Cycle,
            demand_counts_drops: true,
            mark_all_when_underloaded: false,
            share_refresh: 0,
            mark_acks: false,
            count_acks: true,
            victim: Victim::Arriving,
        }
    }
}

impl Discipline for DecBit {
    const NAME: &'static str = "decbit";
    const SUMMARY: &'static str = "the selective DECbit gateway (Keshav 1991 §6.5; Ramakrishnan and Jain 1990): FCFS plus congestion bits";
    type Config = DecBitConfig;

    fn decode(p: &mut Params) -> Result<DecBitConfig> {
        let d = DecBitConfig::default();
        let threshold = p.number("threshold", d.threshold, 0.0, 1e6, "average queue (packets, in service included) above which the gateway marks")?;
        let selective = p.flag("selective", d.selective, "mark only conversations over their fair share (false: every data packet)")?;
        let capacity_factor = p.number("capacity_factor", d.capacity_factor, 0.01, 10.0, "fraction of the line rate shared out as fair shares")?;
        let panic_enabled = p.flag("panic", d.panic_enabled, "allow panic mode (every data packet marked)")?;
        let panic_threshold = p.number("panic_threshold", d.panic_threshold, 0.0, 1e6, "average queue above which the gateway panics")?;
        let inclusive = p.flag("inclusive", d.inclusive, "compare the averages with >= instead of >")?;
        const WINDOW: &str = "\"cycle\" or a positive duration";
        let window = p.custom("fair_share_window", d.window, "\"cycle\"", WINDOW, "over which interval demands are measured", |v| {
            match text(v) {
                Some("cycle") => Ok(FairShareWindow::Cycle),
                Some(s) => match units::duration(s) {
                    Ok(t) if t > 0 => Ok(FairShareWindow::Fixed(t)),
                    _ => Err(WINDOW.to_string()),
                },
                None => Err(WINDOW.to_string()),
            }
        })?;
        let demand_counts_drops = p.flag("demand_counts_drops", d.demand_counts_drops, "count packets the buffer drops as demand")?;
        let mark_all_when_underloaded = p.flag(
            "mark_all_when_underloaded",
            d.mark_all_when_underloaded,
            "when congested but nobody is over its share, mark everyone instead of no one",
        )?;
        let share_refresh = p.duration("share_refresh", d.share_refresh, "reuse a computed fair share for this long (0: recompute every time)")?;
        let mark_acks = p.flag("mark_acks", d.mark_acks, "set the bit on ACKs too (the spec's reading of Liang 1991; its source sees the bit)")?;
        let count_acks = p.flag("count_acks", d.count_acks, "ACKs count in the averaged queue length (false: data packets only)")?;
        let victim = p.choice(
            "victim",
            d.victim,
            VICTIMS,
            "on overflow: \"arriving\" is drop-tail; \"size\" and \"space\" pick at random among the waiting and the arriving packets, as random_drop does (Liang spec A13)",
        )?;
        Ok(DecBitConfig {
            threshold,
            selective,
            capacity_factor,
            panic_enabled,
            panic_threshold,
            inclusive,
            window,
            demand_counts_drops,
            mark_all_when_underloaded,
            share_refresh,
            mark_acks,
            count_acks,
            victim,
        })
    }

    fn build(cfg: &DecBitConfig, port: &PortSetup) -> Self {
        DecBit::with_rng(port.buffer, port.count_in_service, port.bandwidth_bps, *cfg, port.rng("decbit"))
    }
}
