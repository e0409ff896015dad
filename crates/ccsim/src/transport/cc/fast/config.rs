//! FAST's parameters and its registration: decoding from `params` with the defaults (the
//! module header says where each default comes from).

use super::drain::Drain;
use super::w_old::SentFlights;
use super::{Fast, HISTORY, NONE};
use crate::scenario::decode::Result;
use crate::scenario::params::Params;
use crate::sim::{SimTime, PS_PER_SEC};
use crate::transport::cc::loss::LossConfig;
use crate::transport::cc::newreno::{NewReno, NewRenoConfig};
use crate::transport::cc::reno::rfc6298_defaults;
use crate::transport::cc::Algorithm;
use crate::transport::config::{SackConfig, SenderConfig};

/// How FAST repairs losses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Recovery {
    /// NewReno's fast recovery (RFC 6582), embedded: the thesis's "transplanted from TCP
    /// NewReno" (§4.2); one hole repaired per round trip.
    NewReno,
    /// With a SACK scoreboard, as the ns-2 module from version 1.1 (`sender/sack.rs`): the
    /// window halves at the third duplicate ACK and holes are resent as pipe allows.
    Sack,
}

/// Which window (4.2)'s w_old is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WOld {
    /// Each packet's own: the flight estimated at the last new ACK before it left, read for the
    /// packet the ACK names (the module's `cwnd_array_`; `w_old.rs`).
    Packet,
    /// The flight at the start of the round in which the acknowledged packet left.
    Round,
    /// The window now: (4.2) as the thesis prints it, w(t) in both terms.
    Current,
}

/// How a FAST update that lowers the window is applied.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Decrease {
    /// At once (the ns-2 module, the original FAST).
    Immediate,
    /// Over the next round, cwnd − δW/W per ACK (Cui's Algorithm 1, §4.5.2).
    Paced,
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FastConfig {
    /// Initial window and duplicate-ACK threshold.
    pub loss: LossConfig,
    /// Packets each flow aims to keep queued. 200.
    pub alpha: f64,
    /// Step of the law towards its target. 0.5.
    pub gamma: f64,
    /// Least time between two updates (besides every other round). 0.
    pub update_interval: SimTime,
    /// Queueing delay below which the window grows by one per ACK. 0 (pure FAST).
    pub mi_threshold: SimTime,
    pub decrease: Decrease,
    /// Halve α at each loss recovery and relax it back (§4.5.3).
    pub alpha_adjust: bool,
    /// Rate of that relaxation, per second. 0.1.
    pub alpha_k: f64,
    /// Run the four-phase queue-draining algorithm once (§4.4.2).
    pub drain: bool,
    /// Its rate-reduction factor r; 0 means alpha (§4.4.2's recommendation).
    pub drain_r: f64,
    /// It starts at the first update that moves the window by less than this, packets. 1.
    pub drain_stable: f64,
    pub recovery: Recovery,
    /// With SACK recovery, the module's `newcwnd_` test: once a timeout has happened, a new
    /// ACK after more than `dupack_threshold` duplicates sets the window to the packets sent
    /// beyond it plus two (see mod.rs).
    pub flight_reset: bool,
    pub w_old: WOld,
}

impl Default for FastConfig {
    fn default() -> Self {
        FastConfig {
            loss: LossConfig { initial_cwnd: 2.0, dupack_threshold: 3 },
            alpha: 200.0,
            gamma: 0.5,
            update_interval: 0,
            mi_threshold: 0,
            decrease: Decrease::Immediate,
            alpha_adjust: false,
            alpha_k: 0.1,
            drain: false,
            drain_r: 0.0,
            drain_stable: 1.0,
            recovery: Recovery::NewReno,
            flight_reset: false,
            w_old: WOld::Round,
        }
    }
}

impl Algorithm for Fast {
    const NAME: &'static str = "fast";
    const SUMMARY: &'static str =
        "FAST TCP (Cui ch. 4 §4.2, its ns-2 module): every other RTT w <- (1-g)w + g(w d/D + alpha), alpha packets queued per flow";
    type Config = FastConfig;
    const TRACE_COLUMNS: &'static [&'static str] = &["base_rtt_s", "avg_rtt_s", "alpha", "target"];
    /// For `code_for`, which records each packet's w_old (the code itself is left as it is).
    const MARKS_PACKETS: bool = true;

    fn sender_defaults() -> SenderConfig {
        let mut s = rfc6298_defaults();
        s.rto.initial_rto = 3 * PS_PER_SEC;
        s.rto.granularity = PS_PER_SEC / 100;
        s
    }

    fn decode(p: &mut Params, sender: &mut SenderConfig) -> Result<FastConfig> {
        let d = FastConfig::default();
        sender.decode_rto_k(p)?;
        let loss = LossConfig {
            initial_cwnd: p.number("initial_cwnd", d.loss.initial_cwnd, 1.0, 1e6, "congestion window at start, packets")?,
            dupack_threshold: p.integer("dupack_threshold", 3, 1, 1000, "duplicate ACKs that trigger a fast retransmission")? as u32,
        };
        let flight_reset;
        Ok(FastConfig {
            loss,
            alpha: p.number_above("alpha", d.alpha, 0.0, 1e9, "packets each flow aims to keep queued (4.4)")?,
            gamma: p.number_above("gamma", d.gamma, 0.0, 1.0, "step of the update towards its target, in (0, 1]")?,
            update_interval: p.duration("update_interval", d.update_interval, "least time between two updates (0: every other RTT)")?,
            mi_threshold: p.duration("mi_threshold", d.mi_threshold, "queueing delay below which the window grows by one per ACK (0: pure FAST)")?,
            decrease: p.choice(
                "decrease",
                d.decrease,
                &[("immediate", Decrease::Immediate), ("paced", Decrease::Paced)],
                "a lower target applied at once (the ns-2 module) or over a round (Cui's Algorithm 1, §4.5.2)",
            )?,
            alpha_adjust: p.flag("alpha_adjust", d.alpha_adjust, "halve alpha once per loss episode and relax it back (§4.5.3)")?,
            alpha_k: p.number_above("alpha_k", d.alpha_k, 0.0, 1e6, "rate of alpha's relaxation towards its value, per second (§4.5.4: 0.1)")?,
            drain: p.flag("drain", d.drain, "run the four-phase queue-draining algorithm once the window settles (§4.4.2)")?,
            drain_r: {
                let r = p.number("drain_r", d.drain_r, 0.0, 1e9, "its rate-reduction factor r, at least 1 (0: alpha, as §4.4.2 recommends)")?;
                if r > 0.0 && r < 1.0 {
                    return Err(p.error("drain_r", format!("expected 0 (alpha) or a factor of at least 1, got {r}")));
                }
                r
            },
            drain_stable: p.number_above("drain_stable", d.drain_stable, 0.0, 1e9, "it starts at the first update moving the window by less than this, packets")?,
            recovery: {
                let r = p.choice(
                    "recovery",
                    d.recovery,
                    &[("sack", Recovery::Sack), ("newreno", Recovery::NewReno)],
                    "loss repair: NewReno's fast recovery (the thesis's words), or a SACK scoreboard, halving at the third duplicate ACK (the ns-2 module from its version 1.1)",
                )?;
                let partial_ack = p.flag("partial_ack", false, "with recovery = \"sack\": a partial ACK resends two packets at once (ns-2's partial_ack_)")?;
                let rescue = p.number("rescue", 2.0, 0.0, 1e6, "with recovery = \"sack\": resend the oldest hole again once its last copy is this many average RTTs old (the module's 2; 0: off)")?;
                flight_reset = p.flag(
                    "flight_reset",
                    false,
                    "with recovery = \"sack\": once a timeout has happened, a new ACK after more than dupack_threshold duplicates sets the window to the packets sent beyond it plus two, or 1 if it passed them all (the module's newcwnd_ test)",
                )?;
                if r == Recovery::Sack {
                    sender.sack = Some(SackConfig { partial_ack, rescue });
                } else if partial_ack || rescue != 2.0 || flight_reset {
                    // Set to anything but its default, it would be silently ignored.
                    let key = if partial_ack {
                        "partial_ack"
                    } else if flight_reset {
                        "flight_reset"
                    } else {
                        "rescue"
                    };
                    return Err(p.error(key, "applies only with recovery = \"sack\""));
                }
                r
            },
            flight_reset,
            w_old: p.choice(
                "w_old",
                d.w_old,
                &[("packet", WOld::Packet), ("round", WOld::Round), ("current", WOld::Current)],
                "(4.2)'s w_old: each packet's flight when it left (the module's cwnd_array_), the flight at the start of its round, or the window now (the thesis's (4.2) as printed)",
            )?,
        })
    }

    fn build(cfg: &FastConfig, max_window: u32) -> Self {
        let newreno = NewReno::build(&NewRenoConfig { loss: cfg.loss, ..NewRenoConfig::default() }, max_window);
        Fast {
            cfg: *cfg,
            cwnd: cfg.loss.initial_cwnd.min(max_window as f64),
            max_window: max_window as f64,
            alpha: cfg.alpha,
            newreno,
            in_recovery: false,
            base_rtt: NONE,
            avg_rtt: f64::NAN,
            round_start: 0,
            acks_round: 0,
            acks_last_round: 0,
            update_round: false,
            last_update: 0,
            history: [(0, cfg.loss.initial_cwnd); HISTORY],
            increments: 0.0,
            spacing: 0,
            since_increment: 0,
            decrease_to: f64::NAN,
            decrease_step: 0.0,
            last_target: f64::NAN,
            alpha_at: 0,
            alpha_halved: false,
            drain: if cfg.drain { Drain::Waiting } else { Drain::Off },
            drain_rtt_before: f64::NAN,
            recover: 0,
            timed_out: false,
            dups_outside_recovery: 0,
            counting_dups: true,
            sent: SentFlights::new(),
            flight_estimate: cfg.loss.initial_cwnd,
        }
    }
}
