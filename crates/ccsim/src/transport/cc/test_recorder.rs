//! A test-only algorithm that records what the sender hands it: the sequence numbers that
//! timed out, the feedback that arrived, the ACKs' echoes; it marks every data packet it sends
//! with a code (the sequence number's low byte, 0xFF for a retransmission), marks the odd new
//! ones as probes, and can hold its window at zero; feedback coded [`RETRANSMIT_CODE`] (or
//! [`RETRANSMIT_WHEN_OPEN_CODE`], once the window has room) asks
//! for the packet it names. Registered under `#[cfg(test)]` only, so the hooks no thesis uses
//! yet are tested through the real sender.

use super::{AckInfo, AckResponse, Algorithm, CongestionControl, Feedback, Resend, TimeoutInfo};
use crate::scenario::decode::Result;
use crate::scenario::params::Params;
use crate::sim::SimTime;
use crate::transport::config::SenderConfig;

/// Feedback with this code asks for the packet it names to be retransmitted.
pub const RETRANSMIT_CODE: u8 = 0xEE;
/// Feedback with this code asks for it once the window has room.
pub const RETRANSMIT_WHEN_OPEN_CODE: u8 = 0xED;

#[derive(Clone, Debug, Default)]
pub struct Recorder {
    pub window: f64,
    pub timeouts: Vec<TimeoutInfo>,
    pub feedback: Vec<Feedback>,
    /// (echo_seq, echo_retx, code) of every ACK.
    pub echoes: Vec<(u64, bool, u8)>,
    /// Ask for a fast retransmission at this duplicate ACK (0: never).
    pub fast_retransmit_at: u32,
    /// The duplicate-ACK counts the sender reported.
    pub dup_counts: Vec<u32>,
}

impl Algorithm for Recorder {
    const NAME: &'static str = "test_recorder";
    const SUMMARY: &'static str = "test only: records the sender's callbacks";
    type Config = ();
    const MARKS_PACKETS: bool = true;
    const MAY_HOLD: bool = true;

    fn sender_defaults() -> SenderConfig {
        super::reno::rfc6298_defaults()
    }
    fn decode(_p: &mut Params, _sender: &mut SenderConfig) -> Result<()> {
        Ok(())
    }
    fn build(_cfg: &(), max_window: u32) -> Self {
        Recorder { window: max_window as f64, ..Default::default() }
    }
}

impl CongestionControl for Recorder {
    fn cwnd(&self) -> f64 {
        self.window
    }
    fn on_new_ack(&mut self, _ack: &AckInfo) -> AckResponse {
        AckResponse::Nothing
    }
    fn on_dup_ack(&mut self, count: u32, _ack: &AckInfo) -> bool {
        self.dup_counts.push(count);
        count == self.fast_retransmit_at
    }
    fn on_timeout(&mut self, t: &TimeoutInfo) {
        self.timeouts.push(*t);
    }
    fn on_ack_info(&mut self, a: &AckInfo) {
        self.echoes.push((a.echo_seq, a.echo_retx, a.code));
    }
    fn on_feedback(&mut self, fb: &Feedback) -> Option<Resend> {
        self.feedback.push(*fb);
        let wait_for_window = fb.code == RETRANSMIT_WHEN_OPEN_CODE;
        fb.seq.filter(|_| fb.code == RETRANSMIT_CODE || wait_for_window).map(|seq| Resend { seq, wait_for_window })
    }
    fn code_for(&mut self, seq: u64, retransmission: bool, _code: u8) -> u8 {
        if retransmission {
            0xFF
        } else {
            seq as u8
        }
    }
    fn probe_for(&mut self, seq: u64, retransmission: bool, _now: SimTime) -> bool {
        !retransmission && seq % 2 == 1
    }
}
