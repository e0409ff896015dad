//! The Source Quench source: a fixed (advertised) window that a quench shuts until enough
//! acknowledgements have come back.
//!
//! Source: Liang 1991 §1.2 (reviewing Nagle 1984; spec liang91-seif.md §1.2): "normally the
//! receiver-advertised window is used; on receiving an SQ, the effective window becomes 0;
//! normal operation resumes after 10 acknowledgements have been received". Its known defect is
//! kept, not hidden: a source quenched with fewer than 10 packets outstanding never collects
//! 10 ACKs and stalls. Liang suggests making the count depend on what is outstanding:
//! `resume = "outstanding"` resumes after min(10, packets outstanding at the quench) ACKs.
//!
//! Choices where the source is silent, each a parameter or stated here:
//! - the advertised window is the flow's `max_window`;
//! - `resume_acks` = 10; every ACK counts, new or duplicate; a quench while quenched starts
//!   the count again (no suppression, so redundant quenches prolong the stop);
//! - `timeout_ends_quench` = true: a retransmission timeout reopens the window, as a TCP
//!   source probes a zero window: a source quenched while packets of its window were lost
//!   would otherwise wait for ACKs that can never come. The defect Liang names survives it: a
//!   source quenched with fewer packets out than the count gets every ACK, then has nothing
//!   outstanding and no timer running, and stops for good;
//! - the timer is RFC 6298's (as Reno's). The small-packet rule of Nagle's scheme is the flow's
//!   (`nagle = true`, traffic/nagle.rs), so any source can use it.

use super::{AckInfo, AckResponse, Algorithm, CongestionControl, Feedback, Resend, TimeoutInfo};
use crate::scenario::decode::Result;
use crate::scenario::params::Params;
use crate::transport::config::SenderConfig;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Resume {
    /// After `resume_acks` ACKs.
    Fixed,
    /// After min(`resume_acks`, packets outstanding at the quench) ACKs.
    Outstanding,
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SqConfig {
    pub resume_acks: u32,
    pub resume: Resume,
    pub timeout_ends_quench: bool,
}

impl Default for SqConfig {
    fn default() -> Self {
        SqConfig { resume_acks: 10, resume: Resume::Fixed, timeout_ends_quench: true }
    }
}

#[derive(Clone, Debug)]
pub struct Sq {
    window: f64,
    cfg: SqConfig,
    /// ACKs still to come before the window reopens (0: open).
    acks_to_resume: u32,
    quenches: u64,
}

impl Sq {
    /// Quenches received.
    pub fn quenches(&self) -> u64 {
        self.quenches
    }
    /// The window is shut.
    pub fn is_quenched(&self) -> bool {
        self.acks_to_resume > 0
    }
}

impl Algorithm for Sq {
    const NAME: &'static str = "sq";
    const SUMMARY: &'static str = "the Source Quench source (Liang 1991 §1.2; Nagle 1984): the advertised window, shut by a quench until 10 ACKs return";
    type Config = SqConfig;
    const MAY_HOLD: bool = true;

    fn sender_defaults() -> SenderConfig {
        super::reno::rfc6298_defaults()
    }

    fn decode(p: &mut Params, sender: &mut SenderConfig) -> Result<SqConfig> {
        sender.decode_rto_k(p)?;
        let d = SqConfig::default();
        Ok(SqConfig {
            resume_acks: p.integer("resume_acks", d.resume_acks as u64, 1, 1_000_000, "ACKs after which a quenched window reopens")? as u32,
            resume: p.choice(
                "resume",
                d.resume,
                &[("fixed", Resume::Fixed), ("outstanding", Resume::Outstanding)],
                "resume after resume_acks ACKs, or after min(resume_acks, packets outstanding at the quench)",
            )?,
            timeout_ends_quench: p.flag("timeout_ends_quench", d.timeout_ends_quench, "a retransmission timeout reopens a quenched window")?,
        })
    }

    fn build(cfg: &SqConfig, max_window: u32) -> Self {
        Sq { window: max_window as f64, cfg: *cfg, acks_to_resume: 0, quenches: 0 }
    }
}

impl CongestionControl for Sq {
    fn cwnd(&self) -> f64 {
        if self.acks_to_resume > 0 {
            0.0
        } else {
            self.window
        }
    }
    fn on_new_ack(&mut self, _ack: &AckInfo) -> AckResponse {
        AckResponse::Nothing
    }
    fn on_dup_ack(&mut self, _count: u32, _ack: &AckInfo) -> bool {
        false
    }
    fn on_timeout(&mut self, _t: &TimeoutInfo) {
        if self.cfg.timeout_ends_quench {
            self.acks_to_resume = 0;
        }
    }
    fn on_ack_info(&mut self, _ack: &AckInfo) {
        self.acks_to_resume = self.acks_to_resume.saturating_sub(1);
    }
    fn on_feedback(&mut self, fb: &Feedback) -> Option<Resend> {
        self.quenches += 1;
        self.acks_to_resume = match self.cfg.resume {
            Resume::Fixed => self.cfg.resume_acks,
            Resume::Outstanding => self.cfg.resume_acks.min(fb.outstanding.min(u32::MAX as u64) as u32),
        };
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_quench_shuts_the_window_for_ten_acks() {
        let mut s = Sq::build(&SqConfig::default(), 20);
        assert_eq!(s.cwnd(), 20.0);
        s.on_feedback(&Feedback::default());
        assert_eq!(s.cwnd(), 0.0);
        for _ in 0..9 {
            s.on_ack_info(&AckInfo::default());
        }
        assert!(s.is_quenched());
        s.on_ack_info(&AckInfo::default());
        assert_eq!(s.cwnd(), 20.0);
        assert_eq!(s.quenches(), 1);
        // Liang's remedy: with 3 packets outstanding, 3 ACKs reopen it; with none, at once.
        let mut s = Sq::build(&SqConfig { resume: Resume::Outstanding, ..SqConfig::default() }, 20);
        s.on_feedback(&Feedback { outstanding: 3, ..Feedback::default() });
        (0..3).for_each(|_| s.on_ack_info(&AckInfo::default()));
        assert!(!s.is_quenched());
        s.on_feedback(&Feedback::default());
        assert!(!s.is_quenched());
    }
}
