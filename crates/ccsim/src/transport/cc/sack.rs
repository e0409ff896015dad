//! SACK TCP: Reno's window rules with loss recovery by a SACK scoreboard.
//!
//! Source: Fall and Floyd, "Simulation-based comparisons of Tahoe, Reno and SACK TCP" (ACM CCR
//! 26(3), 1996), as ns-2 ran it (`Agent/TCP/Sack1` with `Agent/TCPSink/Sack1`: the SACK agent
//! of Cui's companion scripts, spec cui-buffers-fast-adpm.md §2.1). Not in the theses' own
//! text; provided beside Reno and NewReno as the third classic recovery, and as the reference
//! for FAST's `recovery = "sack"`, which shares its sender half (`sender/sack.rs`: the
//! scoreboard, pipe, what is resent).
//! - slow start and congestion avoidance as Reno (+1 per ACK below ssthresh, +1/cwnd above);
//! - when to respond (`sack_loss.rs`, shared with CUBIC, HighSpeed and Scalable TCP):
//!   the third duplicate ACK that reports a packet not known received, once the cumulative ACK
//!   has passed `recover` (ns-2's `bug_fix_`): recover = the highest sequence sent, ssthresh =
//!   max(floor(W/2), 2) and cwnd = W/2 from the window W (ns-2's `slowdown` with
//!   CLOSE_SSTHRESH_HALF and CLOSE_CWND_HALF), no inflation: the sender's pipe counts what has
//!   left; the window stays put until the ACKs pass `recover`, and the ACK that passes it does
//!   not grow it;
//! - timeout: ssthresh = max(floor(W/2), 2), cwnd = 1, recover = the highest sequence sent, go
//!   back to the oldest unacknowledged packet;
//! - `ecn = true`: an echoed mark halves the window as a loss does (at most once a window, the
//!   sender's guard; not during a recovery), without a retransmission, and moves `recover` to
//!   the highest sequence sent: a loss in that window starts a recovery without halving again
//!   (ns-2's `ecn` and `dupack_action`).
//!
//! `partial_ack` (ns-2's `partial_ack_`, off by default) sends two packets at a partial ACK;
//! `rescue` (0 here: Sack1 has no such rule; the ns-2 FAST module's 2) resends the oldest hole
//! again once its copy is that many smoothed RTTs old.

use super::loss::{aimd_increase, LossConfig};
use super::sack_loss::{decode_loss, sack_sender_defaults, DupResponse, SackLoss};
use super::{AckInfo, AckResponse, Algorithm, CongestionControl, TimeoutInfo};
use crate::scenario::decode::Result;
use crate::scenario::params::Params;
use crate::transport::config::{SackConfig, SenderConfig};

#[derive(Clone, Debug)]
pub struct Sack {
    cwnd: f64,
    ssthresh: f64,
    max_window: f64,
    /// When the window is reduced and when a recovery only repairs.
    loss: SackLoss,
}

impl Algorithm for Sack {
    const NAME: &'static str = "sack";
    const SUMMARY: &'static str =
        "SACK TCP (Fall and Floyd 1996, ns-2's Sack1): Reno's window, losses resent from a SACK scoreboard as the pipe estimate allows";
    type Config = LossConfig;

    fn sender_defaults() -> SenderConfig {
        sack_sender_defaults()
    }

    fn decode(p: &mut Params, sender: &mut SenderConfig) -> Result<LossConfig> {
        let loss = decode_loss(p, sender)?;
        let d = Self::sender_defaults().sack.expect("SACK");
        let partial_ack = p.flag("partial_ack", d.partial_ack, "a partial ACK resends two packets at once (ns-2's partial_ack_)")?;
        let rescue = p.number(
            "rescue",
            d.rescue,
            0.0,
            1e6,
            "resend the oldest hole again once its last copy is this many smoothed RTTs old (0: off, as Sack1; the ns-2 FAST module's 2)",
        )?;
        sender.sack = Some(SackConfig { partial_ack, rescue });
        Ok(loss)
    }

    fn build(cfg: &LossConfig, max_window: u32) -> Self {
        Sack {
            cwnd: cfg.initial_cwnd.min(max_window as f64),
            ssthresh: max_window as f64,
            max_window: max_window as f64,
            loss: SackLoss::new(cfg.dupack_threshold),
        }
    }
}

impl Sack {
    /// ns-2's `slowdown(CLOSE_SSTHRESH_HALF | CLOSE_CWND_HALF)`: ssthresh = max(floor(W/2), 2)
    /// and cwnd = W/2 from the window in use W.
    fn halve(&mut self) {
        let half = self.cwnd.min(self.max_window) / 2.0;
        self.ssthresh = half.floor().max(2.0);
        self.cwnd = half.max(1.0);
    }
}

impl CongestionControl for Sack {
    fn cwnd(&self) -> f64 {
        self.cwnd
    }
    fn ssthresh(&self) -> f64 {
        self.ssthresh
    }
    fn recover_point(&self) -> u64 {
        self.loss.recover_point()
    }
    fn on_new_ack(&mut self, ack: &AckInfo) -> AckResponse {
        if self.loss.on_new_ack(ack) {
            self.cwnd = aimd_increase(self.cwnd, self.ssthresh, self.max_window);
        }
        AckResponse::Nothing
    }
    fn on_dup_ack(&mut self, count: u32, ack: &AckInfo) -> bool {
        let response = self.loss.on_dup_ack(count, ack);
        if response == DupResponse::Reduce {
            self.halve();
        }
        response.retransmits()
    }
    fn on_ecn(&mut self, ack: &AckInfo) -> bool {
        // As ns-2's `ecn`: the window halves as for a loss (not while a recovery has already
        // halved it), and a loss in the same window is repaired without a second halving.
        let reduce = self.loss.on_ecn(ack);
        if reduce {
            self.halve();
        }
        reduce
    }
    fn on_timeout(&mut self, t: &TimeoutInfo) {
        self.ssthresh = (self.cwnd.min(self.max_window) / 2.0).floor().max(2.0);
        self.cwnd = 1.0;
        self.loss.on_timeout(t);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transport::cc::Cc;
    use crate::transport::config::TimerMode;
    use crate::sim::PS_PER_SEC as SEC;
    use crate::transport::Sender;

    #[test]
    fn a_loss_in_the_window_an_ecn_mark_halved_is_repaired_without_halving_again() {
        let mut c = Sack::build(&LossConfig { initial_cwnd: 20.0, dupack_threshold: 3 }, 1000);
        let ack = AckInfo { ack: 10, high_sent: 30, flight_before: 20, ..AckInfo::default() };
        assert!(c.on_ecn(&ack));
        assert_eq!((c.cwnd(), c.recover_point()), (10.0, 30));
        // Three duplicates at 12 (below recover): a recovery, the window as the mark left it.
        let dup = AckInfo { ack: 12, high_sent: 31, ..AckInfo::default() };
        assert!(!c.on_dup_ack(2, &dup));
        assert!(c.on_dup_ack(3, &dup));
        assert_eq!((c.cwnd(), c.recover_point()), (10.0, 31));
        // Without the mark, the same duplicates below recover do nothing (ns-2's bug_fix_).
        let mut d = Sack::build(&LossConfig { initial_cwnd: 20.0, dupack_threshold: 3 }, 1000);
        d.on_timeout(&TimeoutInfo { high_sent: 30, ..TimeoutInfo::default() });
        assert!(!d.on_dup_ack(3, &dup));
    }

    #[test]
    fn a_window_with_three_losses_halves_once_and_recovers_without_a_timeout() {
        let d = Sack::sender_defaults();
        let mut s = Sender::new(Cc::from(Sack::build(&LossConfig { initial_cwnd: 20.0, dupack_threshold: 3 }, 1000)), 1000, d.rto, TimerMode::Single);
        s.enable_sack(d.sack.unwrap());
        s.app_limit = 10_000;
        let ms = SEC / 1000;
        let mut now = 0;
        let sent: Vec<u64> = std::iter::from_fn(|| s.next_transmission(now)).map(|t| t.seq).collect();
        assert_eq!(sent.len(), 20);
        // 3, 9 and 14 are lost; the receiver answers every other packet, one ACK each.
        let lost = [3u64, 9, 14];
        let mut rcv_nxt = 0;
        let mut held = std::collections::BTreeSet::new();
        let mut queue: std::collections::VecDeque<u64> = (0..20).filter(|q| !lost.contains(q)).collect();
        let mut cuts = 0;
        while let Some(seq) = queue.pop_front() {
            now += ms;
            held.insert(seq);
            while held.contains(&rcv_nxt) {
                rcv_nxt += 1;
            }
            let before = s.cc.cwnd();
            s.on_ack(rcv_nxt, seq, 0, 0, false, false, 0, now);
            if s.cc.cwnd() < before {
                cuts += 1;
            }
            // Everything sent from here on arrives (after the packets already in flight).
            queue.extend(std::iter::from_fn(|| s.next_transmission(now)).map(|t| t.seq).filter(|q| !held.contains(q)));
            if rcv_nxt >= 40 {
                break;
            }
        }
        assert_eq!(cuts, 1, "one halving for the three losses");
        assert_eq!(s.timeouts, 0);
        assert!(rcv_nxt >= 40, "the ACKs moved on: {rcv_nxt}");
        // Slow start took the window from 20 to 23 with the ACKs of 0-2: ssthresh floor(23/2).
        assert_eq!(s.cc.ssthresh(), 11.0);
    }
}
