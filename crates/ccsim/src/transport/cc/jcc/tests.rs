//! JCC's rules, driven as a sender would drive them (the arithmetic alone: `aied.rs`).

use super::*;
use crate::scenario::decode::Obj;

/// A path in order: sends new packets as a sender would (asking `probe_for`), and ACKs them.
struct Path {
    una: u64,
    nxt: u64,
    probes: Vec<u64>,
}

impl Path {
    fn new() -> Self {
        Path { una: 0, nxt: 0, probes: Vec::new() }
    }
    /// Send new packets up to the window.
    fn fill(&mut self, j: &mut Jcc) {
        while self.nxt < self.una + j.cwnd().floor() as u64 {
            assert_eq!(j.code_for(self.nxt, false, 0), 0);
            if j.probe_for(self.nxt, false, 0) {
                self.probes.push(self.nxt);
            }
            self.nxt += 1;
        }
    }
    fn info(&self, ack: u64, echo: u64, code: u8) -> AckInfo {
        AckInfo {
            newly_acked: ack - self.una,
            ack,
            flight_before: self.nxt - self.una,
            high_sent: self.nxt,
            echo_seq: echo,
            code,
            ..AckInfo::default()
        }
    }
    /// The ACK of the oldest packet, which met routers with largest code `code` if it
    /// was a probe.
    fn ack(&mut self, j: &mut Jcc, code: u8) {
        let seq = self.una;
        let code = if self.probes.contains(&seq) { code } else { 0 };
        let a = self.info(seq + 1, seq, code);
        j.on_ack_info(&a);
        j.on_new_ack(&a);
        self.una += 1;
        self.fill(j);
    }
    /// ACK packets until the next probing ACK (that one included), every probe meeting
    /// `code`; returns how many ACKs that took.
    fn until_probe(&mut self, j: &mut Jcc, code: u8) -> usize {
        let before = j.probes;
        let mut n = 0;
        while j.probes == before {
            self.ack(j, code);
            n += 1;
            assert!(n < 1000, "no probe comes back");
        }
        n
    }
    /// Duplicate ACKs for the oldest packet (lost), caused by the next `n` packets.
    fn dups(&mut self, j: &mut Jcc, n: u64) -> Vec<bool> {
        (1..=n)
            .map(|i| {
                let a = self.info(self.una, self.una + i, 0);
                j.on_ack_info(&a);
                j.on_dup_ack(i as u32, &a)
            })
            .collect()
    }
}

/// A flow in congestion avoidance at window `w` (ssthresh w), with `beta` (codes).
fn avoiding(cfg: JccConfig, w: f64, beta: f64) -> (Jcc, Path) {
    let mut j = Jcc::build(&cfg, 1000);
    (j.cwnd, j.ssthresh, j.beta) = (w, w, beta);
    let mut p = Path::new();
    p.fill(&mut j);
    (j, p)
}

#[test]
fn v2_5_the_aied_table_at_probing_acks() {
    // Spec V2.5 (alpha = 0, beta = 100 codes, from cwnd 10) at the probing ACK of a flow in
    // congestion avoidance; the rule alone: `aied.rs`.
    for (r, want) in [(0, 11.0), (50, 10.0 * 0.5f64.sqrt()), (100, 5.0), (180, 5.0)] {
        let (mut j, mut p) = avoiding(JccConfig::default(), 10.0, 100.0);
        p.until_probe(&mut j, r);
        assert!((j.cwnd() - want).abs() < 1e-9, "R = {r}: cwnd {}", j.cwnd());
    }
}

#[test]
fn one_probe_per_round_trip() {
    let (mut j, mut p) = avoiding(JccConfig::default(), 4.0, 254.0);
    assert_eq!(p.probes, [0], "the first packet probes; one outstanding");
    // Its ACK (R = 0): +1, and the packets sent after it: the first of them probes.
    p.ack(&mut j, 0);
    assert_eq!(j.cwnd(), 5.0);
    assert_eq!(p.probes, [0, 4]);
    for _ in 0..3 {
        p.ack(&mut j, 0);
    }
    assert_eq!((j.cwnd(), j.probes), (5.0, 1), "nothing between probing ACKs");
    assert_eq!(p.until_probe(&mut j, 0), 1);
    assert_eq!((j.cwnd(), p.probes[2]), (6.0, 9), "one probe per window: a round trip apart");
    // A retransmission is never a probe, and the ACK of a probe's retransmitted copy
    // (code 0 from the source) is not a probing ACK; passing the probe gives it up.
    assert!(!j.probe_for(p.nxt, true, 0));
    let probe = p.probes[2];
    let mut a = p.info(probe + 1, probe, 200);
    a.echo_retx = true;
    j.on_ack_info(&a);
    assert_eq!((j.probes, j.cwnd()), (2, 6.0), "not counted as a probing ACK");
    assert!(!j.probing.outstanding());
    assert!(j.probe_for(p.nxt, false, 0), "the next new packet probes");
}

#[test]
fn slow_start_ends_at_a_probe_above_beta_without_a_cut() {
    let mut j = Jcc::build(&JccConfig::default(), 1000);
    let mut p = Path::new();
    p.fill(&mut j);
    // R at or below beta (254): slow start goes on, +1 per ACK.
    p.until_probe(&mut j, 254);
    assert_eq!((j.cwnd(), j.ssthresh()), (2.0, 1000.0));
    p.until_probe(&mut j, 100);
    assert_eq!(j.cwnd(), 3.0);
    p.until_probe(&mut j, 0);
    assert_eq!(j.cwnd(), 5.0);
    // R = 255 > beta: ssthresh = cwnd, no cut.
    assert_eq!(p.until_probe(&mut j, 255), 4, "the probe sent at the previous probing ACK");
    assert_eq!((j.cwnd(), j.ssthresh()), (8.0, 8.0));
    // From the next probing ACK on, AIED: 255 >= beta halves, and ssthresh follows.
    p.until_probe(&mut j, 255);
    assert_eq!((j.cwnd(), j.ssthresh()), (4.0, 4.0));
    p.until_probe(&mut j, 0);
    assert_eq!((j.cwnd(), j.ssthresh()), (5.0, 4.0), "still congestion avoidance");
    // Slow start also ends at the maximum window.
    let mut j = Jcc::build(&JccConfig::default(), 6);
    let mut p = Path::new();
    p.fill(&mut j);
    for _ in 0..20 {
        p.ack(&mut j, 0);
    }
    assert_eq!((j.cwnd(), j.ssthresh()), (6.0, 6.0));
}

#[test]
fn keep_leaves_ssthresh_at_a_cut_and_slow_starts_back_to_it() {
    let keep = JccConfig { cut_ssthresh: CutSsthresh::Keep, ..JccConfig::default() };
    let (mut j, mut p) = avoiding(keep, 10.0, 100.0);
    // Halved, ssthresh kept; the probing ACK is also a new ACK, below ssthresh a slow-start one.
    p.until_probe(&mut j, 100);
    assert_eq!((j.cwnd(), j.ssthresh()), (5.0 + 1.0, 10.0));
    // Slow start back to ssthresh: +1 per ACK; probing ACKs at or below beta cut nothing.
    while j.cwnd() < 10.0 {
        p.ack(&mut j, 100);
    }
    assert_eq!((j.cwnd(), j.ssthresh()), (10.0, 10.0));
    // Congestion avoidance again: AIED at the next probing ACK.
    p.until_probe(&mut j, 50);
    assert!((j.cwnd() - (10.0 * 0.5f64.sqrt() + 1.0)).abs() < 1e-9, "{}", j.cwnd());
    // A probing ACK above beta in slow start lowers ssthresh to the window, without a cut.
    j.cwnd = 7.0;
    j.on_probe(101);
    assert_eq!((j.cwnd(), j.ssthresh()), (7.0, 7.0));
}

#[test]
fn halving_sets_ssthresh_only_when_the_window_halves() {
    let halving = JccConfig { cut_ssthresh: CutSsthresh::Halving, ..JccConfig::default() };
    let (mut j, _) = avoiding(halving, 10.0, 100.0);
    // An exponential cut (alpha < R < beta) keeps ssthresh: the flow is in slow start again.
    j.on_probe(50);
    assert!((j.cwnd() - 10.0 * 0.5f64.sqrt()).abs() < 1e-9 && j.ssthresh() == 10.0, "{}", j.cwnd());
    // A halving (R >= beta) sets it, as Reno's does.
    j.cwnd = 10.0;
    j.on_probe(100);
    assert_eq!((j.cwnd(), j.ssthresh()), (5.0, 5.0));
}

#[test]
fn a_loss_sets_beta_to_the_latest_r_above_alpha() {
    let alpha = JccConfig { alpha: 0.02, ..JccConfig::default() };
    let (mut j, mut p) = avoiding(alpha, 10.0, 254.0);
    assert_eq!((j.alpha, j.beta), (51.0, 254.0), "0.02 of max_p 0.1 in 254 steps");
    p.until_probe(&mut j, 80);
    let w = j.cwnd();
    assert!((w - 10.0 * (-(80.0f64 - 51.0) / (254.0 - 51.0)).exp2()).abs() < 1e-9);
    // Third duplicate ACK (not the probe): a fast retransmission, beta = 80, no cut (I2).
    p.fill(&mut j);
    assert_eq!(p.dups(&mut j, 4), [false, false, true, false]);
    assert_eq!((j.beta, j.cwnd(), j.stats().losses, j.stats().probe_losses), (80.0, w, 1, 0));
    assert!((j.stats().beta - 80.0 * 0.1 / 254.0).abs() < 1e-12);
    // A latest R at or below alpha: beta one code above alpha.
    p.una = p.nxt;
    p.fill(&mut j);
    p.until_probe(&mut j, 10);
    j.on_timeout(&TimeoutInfo { seq: p.una, high_sent: p.nxt, ..TimeoutInfo::default() });
    assert_eq!(j.beta, 52.0);
    let mut out = [0.0; 2];
    j.trace_values(&mut out);
    assert!((out[0] - 10.0 * 0.1 / 254.0).abs() < 1e-12 && (out[1] - 52.0 * 0.1 / 254.0).abs() < 1e-12, "{out:?}");
}

#[test]
fn beta_stays_within_its_code_range_or_as_bounds_say() {
    // A loss right after a probe that met an average past max_th (code 255 = 2^m - 1).
    let beta_after = |bounds: BetaBounds, r: u8| {
        let cfg = JccConfig { alpha: 0.02, beta_bounds: bounds, ..JccConfig::default() };
        let (mut j, mut p) = avoiding(cfg, 10.0, 100.0);
        p.until_probe(&mut j, r);
        j.on_timeout(&TimeoutInfo { seq: p.una, high_sent: p.nxt, ..TimeoutInfo::default() });
        j.beta
    };
    // §4.2.5: beta in (0, 2^m - 1), so at most max_p's code, 254.
    assert_eq!(beta_after(BetaBounds::Codes, 255), 254.0);
    assert_eq!(beta_after(BetaBounds::Unbounded, 255), 255.0);
    assert_eq!(beta_after(BetaBounds::Skip, 255), 100.0, "out of range: beta stays");
    // At or below alpha (51): the guard's alpha + one code, or beta left alone.
    assert_eq!(beta_after(BetaBounds::Codes, 30), 52.0);
    assert_eq!(beta_after(BetaBounds::Unbounded, 30), 52.0);
    assert_eq!(beta_after(BetaBounds::Skip, 30), 100.0);
    // In range: every reading takes R.
    for b in [BetaBounds::Codes, BetaBounds::Unbounded, BetaBounds::Skip] {
        assert_eq!(beta_after(b, 200), 200.0);
    }
    // With beta at 254 an R of 255 still ends a slow start; at 255 nothing can.
    let mut j = Jcc::build(&JccConfig::default(), 1000);
    j.beta = 254.0;
    let mut p = Path::new();
    p.fill(&mut j);
    p.until_probe(&mut j, 255);
    assert_eq!(j.ssthresh, j.cwnd(), "slow start ended at R = 255 > beta");
}

#[test]
fn a_lost_probe_halves_the_window_other_losses_do_not() {
    let (mut j, mut p) = avoiding(JccConfig::default(), 10.0, 254.0);
    // Packet 0 is the outstanding probe; it is lost (its duplicates from 1..4).
    p.una = 1; // (ns-2's guard needs an ACK past recover = 0; see the guard's own test)
    j.probing = Probes::new(Probing::Outstanding);
    assert!(j.probing.take(1, false, 0));
    assert_eq!(p.dups(&mut j, 3), [false, false, true]);
    assert_eq!((j.cwnd(), j.ssthresh()), (5.0, 5.0));
    assert_eq!(j.stats().probe_losses, 1);
    assert!(!j.probing.outstanding(), "the next new packet probes");
    // Reno's response as well (I1): an ordinary loss halves and inflates; recovery ends
    // at ssthresh; probing ACKs during it move nothing.
    let reno = JccConfig { loss_response: LossResponse::Reno, ..JccConfig::default() };
    let (mut j, mut p) = avoiding(reno, 10.0, 254.0);
    p.ack(&mut j, 0); // the probe: 11
    p.fill(&mut j);
    assert_eq!(p.dups(&mut j, 4), [false, false, true, false]);
    assert_eq!((j.cwnd(), j.ssthresh()), (5.5 + 3.0 + 1.0, 5.5));
    j.on_probe(100);
    assert_eq!(j.cwnd(), 9.5);
    let a = p.info(p.una + 5, p.una, 0);
    j.on_new_ack(&a);
    assert_eq!((j.cwnd(), j.ssthresh()), (5.5, 5.5));
}

#[test]
fn the_recover_guard_after_a_fast_retransmit_and_after_a_timeout() {
    for guard in [RecoverGuard::Timeout, RecoverGuard::Always, RecoverGuard::Off] {
        let cfg = JccConfig { recover_guard: guard, ..JccConfig::default() };
        let (mut j, mut p) = avoiding(cfg, 10.0, 254.0);
        p.ack(&mut j, 0);
        assert_eq!(p.dups(&mut j, 3), [false, false, true]);
        let recover = p.nxt;
        // The retransmission's ACK moves past the hole but not past `recover`; a second
        // hole's duplicates: only "always" waits (ns-2's Reno lets a fast retransmission
        // follow a fast retransmission).
        p.una += 3;
        assert!(p.una < recover);
        assert_eq!(p.dups(&mut j, 3)[2], guard != RecoverGuard::Always, "{guard:?}");
        // After a timeout, "timeout" and "always" wait for the ACK to pass what was sent.
        j.on_timeout(&TimeoutInfo { seq: p.una, high_sent: p.nxt, flight: 5, ..TimeoutInfo::default() });
        let recover = p.nxt;
        p.una += 1;
        assert_eq!(p.dups(&mut j, 3)[2], guard == RecoverGuard::Off, "{guard:?} after a timeout");
        // Past recover, a third duplicate is a loss again.
        p.una = recover + 1;
        p.nxt = p.una + 10;
        assert!(p.dups(&mut j, 3)[2]);
    }
}

#[test]
fn a_timeout_restarts_from_one_packet() {
    let (mut j, mut p) = avoiding(JccConfig::default(), 9.0, 254.0);
    j.on_timeout(&TimeoutInfo { seq: 3, high_sent: p.nxt, flight: 9, ..TimeoutInfo::default() });
    assert_eq!((j.cwnd(), j.ssthresh()), (1.0, 4.5));
    assert!(j.probing.outstanding(), "packet 0, the probe, did not time out");
    j.on_timeout(&TimeoutInfo { seq: 0, high_sent: p.nxt, flight: 1, ..TimeoutInfo::default() });
    assert_eq!((j.cwnd(), j.ssthresh(), j.stats().probe_losses), (1.0, 2.0, 1));
    // Slow start up to ssthresh; the packet sent then is the next probe, and AIED's.
    p.una = p.nxt;
    p.fill(&mut j);
    p.ack(&mut j, 0);
    assert_eq!((j.cwnd(), j.ssthresh()), (2.0, 2.0));
    p.ack(&mut j, 0);
    assert_eq!((j.cwnd(), j.ssthresh(), j.probes), (3.0, 2.0, 2));
}

#[test]
fn per_ack_growth_is_renos_while_r_is_at_or_below_alpha() {
    let cfg = JccConfig { increase: Increase::PerAck, ..JccConfig::default() };
    let (mut j, mut p) = avoiding(cfg, 10.0, 100.0);
    p.ack(&mut j, 0);
    assert!((j.cwnd() - 10.1).abs() < 1e-12, "the probing ACK adds nothing; the ACK 1/cwnd");
    p.until_probe(&mut j, 50);
    let w = j.cwnd();
    p.ack(&mut j, 0);
    assert_eq!(j.cwnd(), w, "R above alpha: no growth");
    assert!(w < 8.0, "about 11 x 2^-0.5: {w}");
}

#[test]
fn timer_and_parameters() {
    let s = Jcc::sender_defaults();
    assert_eq!((s.rto.min_rto, s.rto.initial_rto, s.rto.granularity), (PS_PER_SEC, 3 * PS_PER_SEC, PS_PER_SEC / 10));
    assert_eq!(s.timers, TimerMode::SingleBsd);
    let mut sender = s;
    let cfg = Jcc::decode(&mut Params::new(Obj::empty("params")), &mut sender).unwrap();
    assert_eq!((cfg, sender), (JccConfig::default(), s));
    let parse = |text: &str| {
        let v: toml::Value = toml::from_str::<toml::Table>(text).map(toml::Value::Table).unwrap();
        Jcc::decode(&mut Params::new(Obj::new(&v, "params").unwrap()), &mut s.clone())
    };
    assert_eq!(parse("alpha = 0.1").unwrap_err().path, "params.alpha");
    let c = parse("alpha = 0.05\ncode_bits = 4").unwrap();
    assert_eq!(Jcc::build(&c, 20).alpha, 7.0, "0.05 of 0.1 in 14 steps");
    let names: Vec<&str> = Params::describe(|p| Jcc::decode(p, &mut s.clone())).iter().map(|d| d.name).collect();
    assert_eq!(
        names,
        [
            "rto_k",
            "initial_cwnd",
            "dupack_threshold",
            "alpha",
            "max_p",
            "code_bits",
            "increase",
            "loss_response",
            "recover_guard",
            "cut_ssthresh",
            "probing",
            "beta_bounds",
        ]
    );
    let mut out = [0.0; 2];
    Jcc::build(&JccConfig::default(), 20).trace_values(&mut out);
    assert!(out[0].is_nan() && (out[1] - 0.1).abs() < 1e-12, "{out:?}");
}
