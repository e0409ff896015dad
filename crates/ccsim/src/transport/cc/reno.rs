//! Reno: slow start, congestion avoidance, fast retransmit and fast recovery.
//!
//! Source: RFC 5681 (Allman, Paxson, Blanton 2009), as 4.3BSD-Reno introduced it. Not in the
//! theses' own text; provided as the baseline every later thesis measures against.
//! - third duplicate ACK: ssthresh = max(FlightSize/2, 2), retransmit, cwnd = ssthresh + 3;
//!   each further duplicate ACK inflates cwnd by one; the next new ACK deflates cwnd to
//!   ssthresh and ends recovery (a partial ACK also ends it: that is Reno's weakness, which
//!   NewReno fixes);
//! - timeout: ssthresh = max(FlightSize/2, 2), cwnd = 1, go back to the oldest unACKed packet;
//!   when the same packet times out again (no new ACK since the last timeout; the sender
//!   tells, `TimeoutInfo::repeated`), ssthresh is held (RFC 5681 §3.1: FlightSize/2 applies
//!   only to a segment not yet resent by the timer; a repeated timeout would otherwise take
//!   half of the one or two packets go-back-N had resent, and the next slow start would stop
//!   at 2);
//! - RTO per RFC 6298 (srtt + 4 rttvar), Karn's rule, back-off; min RTO 200 ms as in Linux
//!   (RFC 6298's 1 s is available through `min_rto`).
//!
//! `variant = "ns2"`: Reno as ns-2 ran it around 2001 (`Agent/TCP/Reno` with that era's
//! defaults: `bugFix_` on, `exitFastRetrans_` not yet there; Hua 2002's baseline, spec §1.1).
//! Its recovery is the same classic Reno (any new ACK ends it); it differs in five ways:
//! - after a timeout, a third duplicate ACK starts a fast retransmission only once the
//!   cumulative ACK has passed everything sent at the timeout (`bugFix_`: ack > `recover`,
//!   `recover` = one past the highest sequence sent then), so go-back-N's duplicates do not
//!   halve the window again; after a fast retransmission the next third duplicate ACK starts
//!   another at once (ns-2's `allow_fast_retransmit`: the last window action was a fast
//!   retransmission), so a second loss in one window halves the window twice, as classic Reno;
//! - ssthresh = max(floor(W/2), 2) from the window W = min(floor(cwnd), max_window) (with
//!   the inflation), not from FlightSize; cwnd = max(floor(W/2), 1) + 3 after a retransmission;
//! - the duplicate ACKs inflate the window (by 3 at the third, then 1 each) even when the
//!   guard refused the retransmission, until the next new ACK (ns-2 before
//!   `exitFastRetrans_`, 2003);
//! - the new ACK that ends recovery also counts as an ACK of congestion avoidance: cwnd =
//!   ssthresh + 1/ssthresh rather than ssthresh;
//! - and a fast retransmission restarts the retransmission timer (`reset_rtx_timer`;
//!   `TimerMode::SingleBsd`).
//!
//! ns-2's timer of then (min RTO 1 s, initial 3 s, 0.1 s tick, one timed segment per RTT) is
//! not implied by `variant`: set `min_rto = "1s"`, `initial_rto = "3s"`,
//! `rto_granularity = "100ms"` (and `rtt_samples = "one_per_rtt"`).
//! ns-2 also refused a fast retransmission while at most packet 0 was ACKed (`recover_`
//! starts at 0: a loss of packet 0 or 1 waits for the timeout), and
//! after an ECN reaction retransmitted at the third duplicate ACK without halving: neither is
//! modelled (no scenario runs this variant with ECN).

use super::loss::{aimd_increase, half_flight, LossConfig, Recover, RecoverGuard};
use super::{AckInfo, AckResponse, Algorithm, CongestionControl, TimeoutInfo};
use crate::scenario::decode::Result;
use crate::scenario::params::Params;
use crate::sim::PS_PER_SEC;
use crate::transport::config::{PacingRtt, SenderConfig, TimerMode};
use crate::transport::rtt::{RtoConfig, RtoFormula, RttSamples, SampleFrom, SamplePacket};

/// Which Reno (see the module header).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RenoVariant {
    /// RFC 5681.
    Rfc5681,
    /// ns-2's `Agent/TCP/Reno` of 2001.
    Ns2,
}

/// Reno's parameters.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RenoConfig {
    pub loss: LossConfig,
    pub variant: RenoVariant,
}

impl Default for RenoConfig {
    fn default() -> Self {
        RenoConfig { loss: LossConfig::default(), variant: RenoVariant::Rfc5681 }
    }
}

#[derive(Clone, Debug)]
pub struct Reno {
    cwnd: f64,
    ssthresh: f64,
    // Whole packets held as u32, so Reno (the largest unboxed algorithm, and so every flow's
    // `Cc`) stays 48 bytes beside the ns2 variant's 16-byte recover guard.
    max_window: u32,
    dupack_threshold: u32,
    in_recovery: bool,
    variant: RenoVariant,
    /// ns2: the duplicate ACKs' inflation of the window (ns-2's `dupwnd_`), apart from cwnd.
    dupwnd: u32,
    /// ns2: ns-2's `recover_` guard (`bugFix_` with `allow_fast_retransmit`).
    recover: Recover,
}

/// RFC 6298's timer with Linux's 200 ms floor (Reno and NewReno).
pub(crate) fn rfc6298_defaults() -> SenderConfig {
    SenderConfig {
        rto: RtoConfig {
            formula: RtoFormula::MeanDev(4.0),
            sample_from: SampleFrom::Last,
            sample_packet: SamplePacket::Echoed,
            karn: true,
            samples: RttSamples::OnePerAck,
            backoff: true,
            initial_rto: PS_PER_SEC,
            min_rto: PS_PER_SEC / 5,
            max_rto: 60 * PS_PER_SEC,
            granularity: 0,
        },
        timers: TimerMode::Single,
        own_ack_stops_timer: false,
        pacing: false,
        pacing_rtt: PacingRtt::Srtt,
        ecn: false,
        sack: None,
    }
}

impl Algorithm for Reno {
    const NAME: &'static str = "reno";
    const SUMMARY: &'static str = "Reno (RFC 5681): slow start, congestion avoidance, fast retransmit and fast recovery";
    type Config = RenoConfig;

    fn sender_defaults() -> SenderConfig {
        rfc6298_defaults()
    }

    fn decode(p: &mut Params, sender: &mut SenderConfig) -> Result<RenoConfig> {
        let loss = LossConfig::decode(p, sender)?;
        super::loss::decode_ecn(p, sender)?;
        let variant = p.choice(
            "variant",
            RenoVariant::Rfc5681,
            &[("rfc5681", RenoVariant::Rfc5681), ("ns2", RenoVariant::Ns2)],
            "RFC 5681, or ns-2's Reno of 2001 (after a timeout no fast retransmit before the ACK passes recover, ssthresh from the window, timer restarted by a fast retransmit)",
        )?;
        if variant == RenoVariant::Ns2 {
            sender.timers = TimerMode::SingleBsd;
        }
        Ok(RenoConfig { loss, variant })
    }

    fn build(cfg: &RenoConfig, max_window: u32) -> Self {
        Reno { variant: cfg.variant, ..Reno::new(&cfg.loss, max_window) }
    }
}

impl Reno {
    /// RFC 5681's Reno (other algorithms embed it for their loss recovery).
    pub fn new(loss: &LossConfig, max_window: u32) -> Self {
        Reno {
            cwnd: loss.initial_cwnd,
            ssthresh: max_window as f64,
            max_window,
            dupack_threshold: loss.dupack_threshold,
            in_recovery: false,
            variant: RenoVariant::Rfc5681,
            dupwnd: 0,
            recover: Recover::new(RecoverGuard::Timeout),
        }
    }

    /// ns2: half the window in use (ns-2's `window() / 2`), whole packets.
    fn half_window(&self) -> f64 {
        ((self.cwnd + self.dupwnd as f64).floor().min(self.max_window as f64) / 2.0).floor()
    }
}

impl CongestionControl for Reno {
    fn cwnd(&self) -> f64 {
        self.cwnd + self.dupwnd as f64
    }
    fn ssthresh(&self) -> f64 {
        self.ssthresh
    }
    fn on_new_ack(&mut self, _ack: &AckInfo) -> AckResponse {
        if self.variant == RenoVariant::Ns2 {
            self.dupwnd = 0;
            self.in_recovery = false;
            self.cwnd = aimd_increase(self.cwnd, self.ssthresh, self.max_window as f64);
        } else if self.in_recovery {
            self.in_recovery = false;
            self.cwnd = self.ssthresh;
        } else {
            self.cwnd = aimd_increase(self.cwnd, self.ssthresh, self.max_window as f64);
        }
        AckResponse::Nothing
    }
    fn on_dup_ack(&mut self, count: u32, ack: &AckInfo) -> bool {
        if self.variant == RenoVariant::Ns2 {
            if count > self.dupack_threshold {
                self.dupwnd += 1;
            } else if count == self.dupack_threshold {
                let retransmit = self.recover.allows(ack.ack);
                if retransmit {
                    self.recover.fast_retransmit(ack.high_sent);
                    let half = self.half_window();
                    self.ssthresh = half.max(2.0);
                    self.cwnd = half.max(1.0);
                    self.in_recovery = true;
                }
                self.dupwnd = self.dupack_threshold;
                return retransmit;
            }
            false
        } else if self.in_recovery {
            self.cwnd += 1.0;
            false
        } else if count == self.dupack_threshold {
            self.ssthresh = half_flight(ack.flight_before);
            self.cwnd = self.ssthresh + self.dupack_threshold as f64;
            self.in_recovery = true;
            true
        } else {
            false
        }
    }
    /// RFC 3168 §6.1.2: an ECN mark outside fast recovery halves the window as a fast
    /// retransmit would (ns-2's from the window), without the retransmission or the inflation.
    fn on_ecn(&mut self, ack: &AckInfo) -> bool {
        if self.in_recovery {
            return false;
        }
        self.ssthresh = match self.variant {
            RenoVariant::Rfc5681 => half_flight(ack.flight_before),
            RenoVariant::Ns2 => self.half_window().max(2.0),
        };
        self.cwnd = self.ssthresh;
        true
    }
    fn on_timeout(&mut self, t: &TimeoutInfo) {
        if self.variant == RenoVariant::Ns2 {
            self.dupwnd = 0;
            self.recover.timeout(t.high_sent);
            self.ssthresh = self.half_window().max(2.0);
        } else if !t.repeated {
            self.ssthresh = half_flight(t.flight);
        }
        self.cwnd = 1.0;
        self.in_recovery = false;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transport::cc::Cc;
    use crate::transport::sender::Sender;

    const SEC: u64 = PS_PER_SEC;

    /// A sender with `variant`'s Reno in congestion avoidance at cwnd = `w` (ssthresh w/2):
    /// packet 0 sent at 0 and ACKed at 1 s (an RTT of 1 s: RTO 3 s), then the window of `w`
    /// packets (1..=w) sent at 1 s.
    fn in_avoidance(variant: RenoVariant, w: u32) -> Sender {
        let cfg = RenoConfig { variant, ..RenoConfig::default() };
        let timers = if variant == RenoVariant::Ns2 { TimerMode::SingleBsd } else { TimerMode::Single };
        let mut s = Sender::new(Cc::from(Reno::build(&cfg, 20)), 20, rfc6298_defaults().rto, timers);
        s.app_limit = 1000;
        assert_eq!(s.next_transmission(0).map(|t| t.seq), Some(0));
        s.on_ack(1, 0, 0, 0, false, false, 0, SEC);
        assert_eq!(s.rtt.rto(), 3 * SEC);
        match &mut s.cc {
            Cc::Reno(r) => (r.cwnd, r.ssthresh) = (w as f64, (w / 2) as f64),
            _ => unreachable!(),
        }
        for seq in 1..=w as u64 {
            assert_eq!(s.next_transmission(SEC).map(|t| t.seq), Some(seq));
        }
        assert!(s.next_transmission(SEC).is_none());
        s
    }

    /// (cwnd, ssthresh).
    type Window = (f64, f64);
    /// (sequence number, retransmission).
    type Sent = (u64, bool);

    fn window(s: &Sender) -> Window {
        (s.cc.cwnd(), s.cc.ssthresh())
    }

    /// Duplicate ACKs (cumulative `ack`) caused by `echoes`, 1 ms apart from `from`: the
    /// window after each, and the packets sent in response (with whether each is a
    /// retransmission).
    fn dup_acks(s: &mut Sender, ack: u64, echoes: &[u64], from: u64) -> (Vec<Window>, Vec<Sent>) {
        let (mut states, mut sent) = (Vec::new(), Vec::new());
        for (i, &seq) in echoes.iter().enumerate() {
            let now = from + (i as u64 + 1) * SEC / 1000;
            s.on_ack(ack, seq, SEC, SEC, false, false, 0, now);
            states.push(window(s));
            while let Some(tx) = s.next_transmission(now) {
                sent.push((tx.seq, tx.retransmission));
            }
        }
        (states, sent)
    }

    #[test]
    fn v2_1_a_loss_in_congestion_avoidance() {
        // Spec V2.1, W = 10: third duplicate ACK ssthresh = W/2, cwnd = W/2 + 3; +1 per
        // further duplicate; cwnd = W/2 on the new ACK (RFC 5681; ns-2 adds 1/cwnd).
        for variant in [RenoVariant::Rfc5681, RenoVariant::Ns2] {
            let mut s = in_avoidance(variant, 10);
            // Packet 1 is lost: the ACKs of 2..=10 are duplicates.
            let (states, sent) = dup_acks(&mut s, 1, &[2, 3, 4, 5, 6, 7, 8, 9, 10], 2 * SEC);
            assert_eq!(states[..2], [(10.0, 5.0), (10.0, 5.0)], "{variant:?}: two duplicates change nothing");
            let cwnds: Vec<f64> = states[2..].iter().map(|w| w.0).collect();
            assert_eq!(cwnds, [8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0], "{variant:?}");
            assert!(states[2..].iter().all(|w| w.1 == 5.0));
            // The retransmission of 1 at the third duplicate, then a new packet for each
            // duplicate that takes the inflated window past the 10 outstanding.
            assert_eq!(sent, [(1, true), (11, false), (12, false), (13, false), (14, false)], "{variant:?}");
            // The retransmission's ACK acknowledges 1..=10: recovery ends.
            s.on_ack(11, 1, 2 * SEC, SEC, true, false, 0, 3 * SEC);
            let want = match variant {
                RenoVariant::Rfc5681 => 5.0,
                RenoVariant::Ns2 => 5.0 + 1.0 / 5.0,
            };
            assert_eq!(window(&s), (want, 5.0), "{variant:?}");
        }
    }

    #[test]
    fn v2_1_timeouts_restart_from_one_packet_and_double_the_timeout() {
        for variant in [RenoVariant::Rfc5681, RenoVariant::Ns2] {
            let mut s = in_avoidance(variant, 10);
            let mut t = s.next_deadline();
            assert_eq!(t, 4 * SEC, "RTO 3 s from the sends at 1 s");
            assert!(s.on_timer(t));
            assert_eq!(window(&s), (1.0, 5.0), "{variant:?}: cwnd 1, ssthresh half the window");
            // Each repeated expiry (no ACK comes back) doubles the timeout: 6, 12, 24 s.
            for timeout in [6, 12, 24] {
                let tx = s.next_transmission(t).expect("the oldest packet again");
                assert_eq!((tx.seq, tx.retransmission), (1, true));
                assert!(s.next_transmission(t).is_none(), "one packet at a time");
                assert_eq!(s.next_deadline(), t + timeout * SEC, "{variant:?}");
                t += timeout * SEC;
                assert!(s.on_timer(t));
                // The same packet timing out again: RFC 5681 §3.1 holds ssthresh; ns-2 halves
                // the one-packet window (at least 2).
                let held = if variant == RenoVariant::Rfc5681 { 5.0 } else { 2.0 };
                assert_eq!(window(&s), (1.0, held), "{variant:?}");
            }
            assert_eq!(s.timeouts, 4);
            // The retransmission of 1 is acknowledged (a new ACK: cwnd 2, and go-back-N resends
            // 2 and 3); then 2 times out, a new packet's timeout: ssthresh from the flight of 2
            // (ns-2: the window of 2), not held.
            s.on_ack(2, 1, t, SEC, true, false, 0, t + SEC);
            let resent: Vec<u64> = std::iter::from_fn(|| s.next_transmission(t + SEC).map(|x| x.seq)).collect();
            assert_eq!(resent, [2, 3], "{variant:?}");
            let d = s.next_deadline();
            assert!(s.on_timer(d));
            assert_eq!(window(&s), (1.0, 2.0), "{variant:?}: a new packet's timeout halves again");
        }
    }

    #[test]
    fn a_second_loss_in_one_window_halves_again_in_both_variants() {
        // Packets 1 and 6 of a window of 10 are lost. Both variants retransmit 1 at the third
        // duplicate and send 11..=13 as the window inflates; the ACK of the retransmission
        // (cumulative 6) ends recovery. Then the duplicates for 6 (from 11..=13) arrive: ns-2's
        // guard lets a fast retransmission follow a fast retransmission
        // (`allow_fast_retransmit`), so both resend 6 and halve again.
        for variant in [RenoVariant::Rfc5681, RenoVariant::Ns2] {
            let mut s = in_avoidance(variant, 10);
            let (_, sent) = dup_acks(&mut s, 1, &[2, 3, 4, 5, 7, 8, 9, 10], 2 * SEC);
            assert_eq!(sent, [(1, true), (11, false), (12, false), (13, false)]);
            s.on_ack(6, 1, 2 * SEC, SEC, true, false, 0, 3 * SEC);
            assert!(s.next_transmission(3 * SEC).is_none(), "8 outstanding, window 5");
            let (_, resent) = dup_acks(&mut s, 6, &[11, 12, 13], 4 * SEC);
            assert_eq!(resent, [(6, true)], "{variant:?}");
            let want = match variant {
                // From the flight of 8.
                RenoVariant::Rfc5681 => (4.0 + 3.0, 4.0),
                // From the window floor(5.2) = 5: ssthresh max(2, 2), cwnd 2, inflated by 3.
                RenoVariant::Ns2 => (2.0 + 3.0, 2.0),
            };
            assert_eq!(window(&s), want, "{variant:?}");
        }
    }

    #[test]
    fn ns2_after_a_timeout_waits_for_the_ack_to_pass_recover() {
        // Packets 1 and 4 of a window of 10 are lost and nothing comes back: the timeout
        // (4 s) resends 1 with recover = 11. Its ACK (cumulative 4) lets 4 and 5 out; 5's ACK
        // and those of the packets after it are duplicates for 4 that have not passed
        // recover: ns-2 (`bugFix_`) leaves them to the timer, RFC 5681 retransmits.
        for variant in [RenoVariant::Rfc5681, RenoVariant::Ns2] {
            let mut s = in_avoidance(variant, 10);
            assert!(s.on_timer(4 * SEC));
            assert_eq!(s.next_transmission(4 * SEC).map(|t| (t.seq, t.retransmission)), Some((1, true)));
            s.on_ack(4, 1, 4 * SEC, 4 * SEC, true, false, 0, 5 * SEC);
            while s.next_transmission(5 * SEC).is_some() {}
            let ssthresh = window(&s).1;
            let (_, sent) = dup_acks(&mut s, 4, &[5, 6, 7], 6 * SEC);
            let fast_retransmit = sent.first() == Some(&(4, true));
            assert_eq!(fast_retransmit, variant == RenoVariant::Rfc5681, "{variant:?}: {sent:?}");
            assert_eq!(window(&s).1 == ssthresh, variant == RenoVariant::Ns2, "{variant:?}: no second cut");
        }
    }

    #[test]
    fn ns2_guard_waits_after_a_timeout_not_after_a_fast_retransmit() {
        // ns-2's dupack_action: a fast retransmission may follow a fast retransmission at
        // once; after a timeout the cumulative ACK must first pass recover (one past the
        // highest sent at the timeout).
        let cfg = RenoConfig { variant: RenoVariant::Ns2, ..RenoConfig::default() };
        let mut r = Reno::build(&cfg, 20);
        let dup = |ack: u64, high_sent: u64| AckInfo { ack, high_sent, ..AckInfo::default() };
        assert!(r.on_dup_ack(3, &dup(5, 11)), "the first loss");
        r.on_new_ack(&dup(7, 14));
        assert!(r.on_dup_ack(3, &dup(7, 14)), "7 <= recover 11, but the last action was a fast retransmit");
        r.on_timeout(&TimeoutInfo { seq: 7, high_sent: 20, ..TimeoutInfo::default() });
        r.on_new_ack(&dup(9, 20));
        assert!(!r.on_dup_ack(3, &dup(9, 20)), "after the timeout, 9 <= recover 20 waits");
        r.on_new_ack(&dup(21, 25));
        assert!(r.on_dup_ack(3, &dup(21, 25)), "past recover");
    }

    #[test]
    fn parameters() {
        use crate::scenario::decode::Obj;
        let mut sender = Reno::sender_defaults();
        let cfg = Reno::decode(&mut Params::new(Obj::empty("params")), &mut sender).unwrap();
        assert_eq!((cfg, sender.timers), (RenoConfig::default(), TimerMode::Single));
        let v: toml::Value = toml::from_str::<toml::Table>("variant = \"ns2\"").map(toml::Value::Table).unwrap();
        let cfg = Reno::decode(&mut Params::new(Obj::new(&v, "params").unwrap()), &mut sender).unwrap();
        assert_eq!((cfg.variant, sender.timers), (RenoVariant::Ns2, TimerMode::SingleBsd));
    }
}
