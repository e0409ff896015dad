//! Fair Queueing's parameters: the choices the thesis leaves open, each a named parameter
//! (`queue_params` of an `fq` or `fqbit` port), with chapter 6's configuration as the default.
//! Why each default is what it is: the header of `fq.rs`.

use crate::queue::{BufferLimit, PortSetup};
use crate::scenario::decode::Result;
use crate::scenario::params::{text, Params};
use crate::scenario::units;

use super::conversation::{ConversationKey, KEYS};

/// Which packet a full buffer drops.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DropPolicy {
    /// Chapter 2: the last packet of the conversation holding the most buffer space.
    LongestQueueTail,
    /// Chapter 3: the packet with the largest bid.
    MaxBid,
}

/// How R(t), the round number that finish numbers start from, is computed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RoundNumber {
    /// The bit-by-bit round robin emulation by iterative deletion (chapter 3, Fig 3.1).
    Exact,
    /// Heybey et al's heuristic, named in chapter 3 §3.3 as an acceptable alternative: R is the
    /// finish number of the packet being transmitted (of the last one sent while the line is
    /// idle), and equal finish numbers are served first-come-first-served. Golestani later
    /// called this self-clocked fair queueing.
    SelfClocked,
}

/// When a dropped packet's finish number stays charged to its conversation (gap G8).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ChargeDrops {
    /// F^α rolls back to the conversation's last kept packet (chapter 6's simulations).
    Never,
    /// F^α keeps the dropped packet's finish number (chapter 2's rule).
    Always,
    /// Only a queued tail pushed out by another conversation's arrival is charged; a refused
    /// arrival (its conversation the longest) is not.
    PushedOut,
}

impl From<bool> for ChargeDrops {
    fn from(charge: bool) -> Self {
        if charge {
            ChargeDrops::Always
        } else {
            ChargeDrops::Never
        }
    }
}

/// Fair Queueing parameters. `Default` gives the thesis's chapter 6 configuration.
#[derive(Clone, Debug, PartialEq)]
pub struct FqConfig {
    /// Buffer size (default 40 packets: Keshav counts packets; scenario 1's size).
    pub limit: BufferLimit,
    /// The packet being transmitted occupies a buffer slot (default true, gap G7).
    pub count_in_service: bool,
    /// Overflow policy (default `LongestQueueTail`, chapter 2, gap G8).
    pub drop_policy: DropPolicy,
    /// Whether a dropped packet keeps advancing F^α (default `Never`: chapter 6, G8).
    pub charge_drops: ChargeDrops,
    /// Promptness parameter δ in bits (default 0: chapter 6). `u64::MAX` means ∞.
    pub delta_bits: u64,
    /// Preemptive (resumptive) service (default false: the thesis's implementation).
    pub preemptive: bool,
    /// Weight n_α of every conversation not listed in `weights` (default 1).
    pub weight: u32,
    /// Per-conversation weights: (conversation id, weight). Conversation id = flow·2 (+1 for ACKs).
    pub weights: Vec<(u32, u32)>,
    /// Among conversations tied for the longest queue, drop from the one whose tail has the
    /// smallest bid (true) instead of the largest (false, [REC] A11). The thesis is silent;
    /// keshav91 finding S5-pp-losses-under-fq measured both.
    pub tie_smallest_bid: bool,
    /// Round-number computation (default `Exact`).
    pub round: RoundNumber,
    /// What a conversation is (default `Flow`: each flow and direction; M1.8).
    pub conversation: ConversationKey,
}

impl Default for FqConfig {
    fn default() -> Self {
        FqConfig {
            limit: BufferLimit::Packets(40),
            count_in_service: true,
            drop_policy: DropPolicy::LongestQueueTail,
            charge_drops: ChargeDrops::Never,
            delta_bits: 0,
            preemptive: false,
            weight: 1,
            weights: Vec::new(),
            tie_smallest_bid: false,
            round: RoundNumber::Exact,
            conversation: ConversationKey::Flow,
        }
    }
}

impl FqConfig {
    /// The parameters FQ and FQbit share (`queue_params`; the buffer comes from the port).
    pub fn decode(p: &mut Params) -> Result<FqConfig> {
        let d = FqConfig::default();
        const DELTA: &str = "bits (\"8kb\", a size such as \"1000B\", a non-negative integer) or \"infinite\"";
        let delta_bits = p.custom("delta", d.delta_bits, "0", DELTA, "the promptness parameter δ of the bids, in bits", |v| match v {
            toml::Value::Integer(i) if *i >= 0 => Ok(*i as u64),
            toml::Value::String(s) if s == "infinite" => Ok(u64::MAX),
            toml::Value::String(s) => units::bits(s).map_err(|e| format!("{e}, an integer number of bits or \"infinite\"")),
            _ => Err(DELTA.to_string()),
        })?;
        const CHARGE: &str = "true, false or \"pushed_out\"";
        let charge_drops = p.custom(
            "charge_drops",
            d.charge_drops,
            "false",
            CHARGE,
            "whether a dropped packet's finish number stays charged to its conversation (gap G8)",
            |v| match v {
                toml::Value::Boolean(b) => Ok((*b).into()),
                v if text(v) == Some("pushed_out") => Ok(ChargeDrops::PushedOut),
                _ => Err(CHARGE.to_string()),
            },
        )?;
        let tie_smallest_bid = p.choice(
            "tie_break",
            d.tie_smallest_bid,
            &[("largest_bid", false), ("smallest_bid", true)],
            "among conversations tied for the longest queue, drop from the one whose tail bid is largest or smallest",
        )?;
        let drop_policy = p.choice(
            "drop_policy",
            d.drop_policy,
            &[("longest", DropPolicy::LongestQueueTail), ("largest_bid", DropPolicy::MaxBid)],
            "which packet a full buffer drops: the longest conversation's tail (ch. 2) or the largest bid (ch. 3)",
        )?;
        let preemptive = p.flag("preemptive", d.preemptive, "preemptive (resumptive) service")?;
        let round = p.choice(
            "round",
            d.round,
            &[("exact", RoundNumber::Exact), ("self_clocked", RoundNumber::SelfClocked)],
            "the round number: exact bit-by-bit emulation (Fig 3.1) or self-clocked",
        )?;
        let conversation = p.choice(
            "conversation",
            d.conversation,
            KEYS,
            "what FQ is fair to (M1.8): each flow and direction (the 5-tuple), or the flows sharing a host pair, a source or a destination, FCFS among themselves",
        )?;
        Ok(FqConfig { charge_drops, delta_bits, drop_policy, preemptive, tie_smallest_bid, round, conversation, ..d })
    }

    /// This config on a port (its buffer settings).
    pub fn on_port(&self, port: &PortSetup) -> FqConfig {
        FqConfig { limit: port.buffer, count_in_service: port.count_in_service, ..self.clone() }
    }
}
