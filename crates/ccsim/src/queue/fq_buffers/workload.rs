//! The workload of Keshav 1991 §3.5 (Fig 3.2), as an ordinary ccsim scenario: N JK sources
//! share one gateway's output trunk and its B buffers, and the trunk's port runs Fair Queueing
//! with chapter 3's settings. [`crate::queue::fq_buffers::evaluation`] runs it and replays the
//! gateway's buffer operations against the four structures.
//!
//! From the text: one gateway and one output trunk; N sources, one conversation each; DARPA
//! TCP with Jacobson's changes and a maximum window W; no non-conforming traffic; FQ with
//! chapter 3's bounded heap of MAX = B. Fig 3.2 is missing from the extraction and the spec
//! gives no values, so W, the line rates, the delays, the packet sizes and the start times are
//! placeholders ([NOT IN THESIS] on each field), defaulting to chapter 6's baseline network
//! (80 kb/s trunk, 800 kb/s feeders, no propagation delay, 1000-byte data, 40-byte ACKs).
//!
//! The scenario's choices:
//! - Sources are the engine's JK (`cc = "jk"`, 4.3BSD-Tahoe as chapter 6 uses it), FTPs with
//!   maximum window W, one flow per source. Start times are uniform in
//!   [0, `start_spread_s`), one random stream per source, drawn here and written into the
//!   scenario (identical sources starting together would stay synchronised).
//! - The gateway's trunk port: `queue = "fq"` with `drop_policy = "largest_bid"` (chapter 3's
//!   bounded heap drops the largest bid), `charge_drops = true` (§3.2 defines F^α over every
//!   packet "ever queued"), δ = `delta_bits` (0, chapter 6's value), `buffer` = B packets and
//!   `count_in_service = false` (the packet on the line is not in the bounded heap).
//! - Every other port is a FIFO that never overflows: the sources' own interface queues, the
//!   sink's (which carries the ACKs back over the trunk) and the gateway's ports towards the
//!   sources (ACKs only). Only the trunk's FQ buffer is measured.

use crate::scenario::decode::{Obj, Result, ScenarioError};
use crate::scenario::Scenario;
use crate::sim::time::from_secs;
use crate::sim::Rng;
use std::fmt::Write as _;
use toml::Value;

/// The trunk port's name in the workload scenario, whose buffer operations are the trace.
pub const GATEWAY_PORT: &str = "gateway->sink";

/// The workload's parameters. N, B and the trace length are the ones the thesis varies or
/// states; the others are placeholders (see the module header).
#[derive(Clone, Debug, PartialEq)]
pub struct Workload {
    /// N, the number of sources (one conversation each).
    pub conversations: u32,
    /// B, the gateway's buffers in packets (the bounded heap's MAX).
    pub buffers: u32,
    /// Trace length, simulated seconds.
    pub duration_s: f64,
    /// W, every source's maximum window in packets. [NOT IN THESIS]
    pub max_window: u32,
    /// Output trunk rate, bit/s. [NOT IN THESIS; ch. 6 slow line]
    pub trunk_bps: u64,
    /// Each source's access line rate, bit/s. [NOT IN THESIS; ch. 6 fast line]
    pub feeder_bps: u64,
    /// One-way propagation delay of every line, seconds. [NOT IN THESIS; ch. 6: zero]
    pub propagation_s: f64,
    /// Data packet size, bytes. [NOT IN THESIS; ch. 6 FTP]
    pub data_bytes: u32,
    /// ACK size, bytes. [NOT IN THESIS; ch. 6]
    pub ack_bytes: u32,
    /// Sources start at uniform random times in [0, start_spread_s). [NOT IN THESIS]
    pub start_spread_s: f64,
    /// FQ's promptness offset δ, in bits. [ch. 6: 0]
    pub delta_bits: u64,
    /// The scenario's seed; it also draws the start times.
    pub seed: u64,
}

/// W of [`Workload::new`]. [NOT IN THESIS] The text gives none. 32 lies between chapter 6's
/// windows (5 by default, 40 and 60 in its long-delay scenarios) and makes W·N exceed B at
/// the text's calibration point (N = 10, B = 200), so that its trace exercises the overflow
/// drop as well as insert and get_min; W = 20 would put that point exactly on the line F.
pub const DEFAULT_MAX_WINDOW: u32 = 32;

impl Workload {
    /// N sources, B buffers, a trace of `duration_s` seconds, and the placeholders.
    pub fn new(conversations: u32, buffers: u32, duration_s: f64) -> Self {
        Workload {
            conversations,
            buffers,
            duration_s,
            max_window: DEFAULT_MAX_WINDOW,
            trunk_bps: 80_000,
            feeder_bps: 800_000,
            propagation_s: 0.0,
            data_bytes: 1000,
            ack_bytes: 40,
            start_spread_s: 1.0,
            delta_bits: 0,
            seed: 1,
        }
    }

    /// §3.5: "the gateway cannot be congested if W·N ≤ B".
    pub fn underloaded(&self) -> bool {
        self.max_window as u64 * self.conversations as u64 <= self.buffers as u64
    }

    /// W·N / B: at or below 1 the gateway cannot be congested.
    pub fn load_ratio(&self) -> f64 {
        self.max_window as f64 * self.conversations as f64 / self.buffers as f64
    }

    /// A workload from a table of its fields (`path` names the table in errors); N, B and
    /// `duration_s` are required, the others default as in [`Workload::new`].
    pub fn from_value(v: &Value, path: &str) -> Result<Workload> {
        let mut o = Obj::new(v, path)?;
        let conversations = o.uint_in("conversations", 1, 10_000)?.ok_or_else(|| o.missing("conversations", "N, the number of sources"))?;
        let buffers = o.uint_in("buffers", 1, 10_000_000)?.ok_or_else(|| o.missing("buffers", "B, the gateway's buffers in packets"))?;
        let duration_s = o.number_in("duration_s", 0.0, 1e6)?.ok_or_else(|| o.missing("duration_s", "the trace length in seconds"))?;
        let mut w = Workload::new(conversations as u32, buffers as u32, duration_s);
        if let Some(x) = o.uint_in("max_window", 1, 100_000_000)? {
            w.max_window = x as u32;
        }
        if let Some(x) = o.uint_in("trunk_bps", 1, 1_000_000_000_000_000)? {
            w.trunk_bps = x;
        }
        if let Some(x) = o.uint_in("feeder_bps", 1, 1_000_000_000_000_000)? {
            w.feeder_bps = x;
        }
        if let Some(x) = o.number_in("propagation_s", 0.0, 1e6)? {
            w.propagation_s = x;
        }
        if let Some(x) = o.uint_in("data_bytes", 1, 65_535)? {
            w.data_bytes = x as u32;
        }
        if let Some(x) = o.uint_in("ack_bytes", 1, 65_535)? {
            w.ack_bytes = x as u32;
        }
        if let Some(x) = o.number_in("start_spread_s", 0.0, 1e6)? {
            w.start_spread_s = x;
        }
        if let Some(x) = o.uint("delta_bits")? {
            w.delta_bits = x;
        }
        if let Some(x) = o.uint("seed")? {
            w.seed = x;
        }
        o.finish()?;
        w.check(path)?;
        Ok(w)
    }

    /// The constraints between fields (`path` names the workload in errors).
    pub fn check(&self, path: &str) -> Result<()> {
        let at = |key: &str| if path.is_empty() { key.to_string() } else { format!("{path}.{key}") };
        if self.conversations == 0 || self.buffers == 0 || self.max_window == 0 {
            let key = if self.conversations == 0 {
                "conversations"
            } else if self.buffers == 0 {
                "buffers"
            } else {
                "max_window"
            };
            return Err(ScenarioError::new(at(key), "expected a positive integer, got 0"));
        }
        if !(self.duration_s > 0.0 && self.duration_s <= 1e6) {
            return Err(ScenarioError::new(at("duration_s"), format!("expected seconds in (0, 1e6], got {}", self.duration_s)));
        }
        if !(self.start_spread_s >= 0.0 && self.start_spread_s < self.duration_s) {
            return Err(ScenarioError::new(
                at("start_spread_s"),
                format!("expected seconds in [0, duration_s) (every source starts within the trace), got {}", self.start_spread_s),
            ));
        }
        Ok(())
    }

    /// Source `s`'s start time in seconds: uniform in [0, start_spread_s), from its own stream.
    fn start_s(&self, s: u32) -> f64 {
        let mut rng = Rng::stream(self.seed, &format!("fq_buffers/source{s}"));
        (1.0 - rng.uniform_open0()) * self.start_spread_s
    }

    /// The workload as scenario text (TOML): what `ccsim run` would take.
    pub fn scenario_toml(&self) -> String {
        let mut t = String::new();
        let n = self.conversations;
        let _ = writeln!(t, "# Keshav 1991 chapter 3, Fig 3.2: the workload of the FQ buffering-structure evaluation (§3.5).");
        let _ = writeln!(t, "# {n} JK sources share the gateway's trunk and its {} buffers; W = {}.", self.buffers, self.max_window);
        let _ = writeln!(t, "# Written by ccsim::queue::fq_buffers::workload; its header gives every choice.");
        let _ = writeln!(t, "name = \"keshav91-fq-buffers-n{n}-b{}\"", self.buffers);
        let _ = writeln!(t, "description = \"Keshav 1991 §3.5 workload: N = {n}, B = {}, W = {}\"", self.buffers, self.max_window);
        let _ = writeln!(t, "seed = {}", self.seed);
        let _ = writeln!(t, "duration = \"{:?}s\"", self.duration_s);
        let _ = writeln!(t, "\n[measure]\ninterval = \"{:?}s\"\ndiscard = 0\ntrace_cwnd = false\ntrace_queues = false", self.duration_s);
        let sources: Vec<String> = (0..n).map(|s| format!("\"source{s}\"")).collect();
        let _ = writeln!(t, "\n[nodes]\nhosts = [{}, \"sink\"]\nswitches = [\"gateway\"]", sources.join(", "));
        let _ = writeln!(t, "\n# The trunk: Fair Queueing with chapter 3's bounded heap of B buffers.");
        let _ = writeln!(t, "[[links]]\nbetween = [\"gateway\", \"sink\"]");
        let _ = writeln!(t, "bandwidth = \"{}bps\"\ndelay = \"{:?}s\"", self.trunk_bps, self.propagation_s);
        let _ = writeln!(t, "buffer = \"{}pkt\"\ncount_in_service = false\nqueue = \"fq\"", self.buffers);
        let _ = writeln!(t, "queue_params = {{ delta = {}, charge_drops = true, drop_policy = \"largest_bid\" }}", self.delta_bits);
        for s in 0..n {
            let _ = writeln!(t, "\n[[links]]\nbetween = [\"source{s}\", \"gateway\"]");
            let _ = writeln!(t, "bandwidth = \"{}bps\"\ndelay = \"{:?}s\"\nbuffer = \"unlimited\"", self.feeder_bps, self.propagation_s);
        }
        for s in 0..n {
            let _ = writeln!(t, "\n[[flows]]\nname = \"source{s}\"\nsrc = \"source{s}\"\ndst = \"sink\"\napp = \"ftp\"\ncc = \"jk\"");
            let _ =
                writeln!(t, "max_window = {}\npacket_size = \"{}B\"\nack_size = \"{}B\"", self.max_window, self.data_bytes, self.ack_bytes);
            let _ = writeln!(t, "start = \"{:?}s\"", self.start_s(s));
        }
        t
    }

    /// The workload as a validated scenario.
    pub fn scenario(&self) -> Result<Scenario> {
        self.check("")?;
        Scenario::from_toml_str(&self.scenario_toml())
    }

    /// Source `s`'s start time in simulated time (the scenario's `flows[s].start`).
    pub fn start_time(&self, s: u32) -> crate::sim::SimTime {
        from_secs(self.start_s(s))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_scenario_is_the_workload() {
        let w = Workload { propagation_s: 0.01, ..Workload::new(3, 50, 100.0) };
        let sc = w.scenario().unwrap();
        assert_eq!(sc.flows.len(), 3);
        assert_eq!(sc.port_names()[0], GATEWAY_PORT);
        let trunk = &sc.links[0].forward;
        assert_eq!(trunk.buffer, crate::queue::BufferLimit::Packets(50));
        assert!(!trunk.count_in_service);
        match &trunk.kind {
            crate::queue::QdiscConfig::Fq(c) => {
                assert_eq!(c.drop_policy, crate::queue::fq::DropPolicy::MaxBid);
                assert_eq!(c.charge_drops, crate::queue::fq::ChargeDrops::Always);
            }
            _ => panic!("the trunk runs FQ"),
        }
        for (s, f) in sc.flows.iter().enumerate() {
            assert_eq!(f.start, w.start_time(s as u32), "start times survive the text exactly");
            assert!(f.start < from_secs(1.0));
            assert_eq!((f.max_window, f.packet_size), (DEFAULT_MAX_WINDOW, 1000));
        }
        assert_eq!(sc.links[1].delay, from_secs(0.01));
        assert_ne!(Workload { seed: 2, ..w.clone() }.start_time(0), w.start_time(0));
    }

    #[test]
    fn bad_fields_are_named() {
        let value = |text: &str| crate::scenario::schema::parse_toml(text).unwrap();
        let err = |text: &str| Workload::from_value(&value(text), "workload").unwrap_err();
        assert_eq!(err("buffers = 10\nduration_s = 5").path, "workload.conversations");
        assert_eq!(err("conversations = 0\nbuffers = 10\nduration_s = 5").path, "workload.conversations");
        assert_eq!(err("conversations = 2\nbuffers = 10\nduration_s = 5\nwindow = 3").path, "workload.window");
        assert_eq!(err("conversations = 2\nbuffers = 10\nduration_s = 5\nstart_spread_s = 5").path, "workload.start_spread_s");
        assert_eq!(err("conversations = 2\nbuffers = 10\nduration_s = 0").path, "workload.duration_s");
        let w = Workload::from_value(&value("conversations = 2\nbuffers = 10\nduration_s = 5\nmax_window = 3"), "workload").unwrap();
        assert_eq!(w, Workload { max_window: 3, ..Workload::new(2, 10, 5.0) });
    }
}
