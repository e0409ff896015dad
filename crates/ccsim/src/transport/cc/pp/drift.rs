//! The accumulating queue estimate of law (5.9) and its drift reset (Keshav 1991 §5.2-5.5 and
//! §5.8.1; spec keshav91-fq-packet-pair.md M5.2, M5.5, M5.9, A8, V27).
//!
//! `queue_estimate = "accumulate"` (with `law = "epoch"`) keeps §5.2's state equation instead
//! of §5.7's direct n̂_b = S − R·μ̂ (the default, `"direct"`):
//! n̂_b(k+1) = clamp(n̂_b(k) + S(k) − RTT(k)·μ̂(k), 0, B), S(k) the packets sent in epoch k,
//! B = 2 n* (the setpoint is B/2), clamped as M5.5 asks of the estimator; law (5.9) then reads
//! n̂_b(k) and S(k). The thesis replaces this estimate because it drifts (§5.7): errors in μ̂
//! accumulate.
//!
//! `drift_reset` = K > 0: every K epochs, §5.8.1's reset: the next pair is a special pair after
//! which the source sends nothing until it is acknowledged, so the bottleneck queue has drained
//! and n̂_b is set to 0 (V27; cost about one round trip of sending). The thesis does not say how
//! often (A8): K is a parameter, 0 (off) by default.
//!
//! Choices where the source is silent: the special pair is the next two new packets after the
//! decision (sent as the pacer sends them); the silence is a window that admits nothing past
//! them; packets already in flight are waited for too (the reset needs every one acknowledged).

/// The accumulating estimator's state.
#[derive(Clone, Debug, Default)]
pub struct Accumulator {
    reset_every: u32,
    epochs: u32,
    /// The sender's high-water mark at the start of the current epoch.
    sent_at_epoch_start: u64,
    /// Latest cumulative ACK and high-water mark seen.
    una: u64,
    high_sent: u64,
    /// During a reset: the sequence number after the special pair.
    reset_end: Option<u64>,
    resets: u64,
}

impl Accumulator {
    pub fn new(reset_every: u32) -> Self {
        Accumulator { reset_every, ..Accumulator::default() }
    }

    /// An ACK arrived (cumulative `ack`, sender's high-water mark `high_sent`). True when it
    /// completes a reset: the estimate is then 0.
    pub fn on_ack(&mut self, ack: u64, high_sent: u64) -> bool {
        self.una = self.una.max(ack);
        self.high_sent = self.high_sent.max(high_sent);
        match self.reset_end {
            Some(end) if self.una >= end => {
                self.reset_end = None;
                self.resets += 1;
                true
            }
            _ => false,
        }
    }

    /// At an epoch's end: the packets sent in it (S(k)); every `reset_every` epochs a reset
    /// starts (the next pair is the special one).
    pub fn end_epoch(&mut self) -> f64 {
        let sent = self.high_sent.saturating_sub(self.sent_at_epoch_start);
        self.sent_at_epoch_start = self.high_sent;
        self.epochs += 1;
        if self.reset_every > 0 && self.epochs.is_multiple_of(self.reset_every) && self.reset_end.is_none() {
            self.reset_end = Some(self.high_sent + 2);
        }
        sent as f64
    }

    /// The window during a reset (packets up to the special pair's end), else None.
    pub fn window(&self) -> Option<f64> {
        self.reset_end.map(|end| end.saturating_sub(self.una) as f64)
    }

    pub fn resets(&self) -> u64 {
        self.resets
    }
}

/// §5.2's update, clamped to [0, b].
pub fn accumulate(n_b: f64, sent: f64, rtt: f64, mu: f64, b: f64) -> f64 {
    (n_b + sent - rtt * mu).clamp(0.0, b)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_state_equation_clamps_to_the_buffer() {
        assert_eq!(accumulate(3.0, 10.0, 0.1, 50.0, 10.0), 8.0);
        assert_eq!(accumulate(3.0, 2.0, 0.1, 50.0, 10.0), 0.0);
        assert_eq!(accumulate(9.0, 10.0, 0.1, 50.0, 10.0), 10.0);
    }

    #[test]
    fn a_reset_sends_one_pair_then_waits_for_every_ack() {
        let mut a = Accumulator::new(2);
        a.on_ack(0, 10);
        assert_eq!(a.end_epoch(), 10.0);
        assert_eq!(a.window(), None, "no reset after the first epoch");
        a.on_ack(6, 18);
        assert_eq!(a.end_epoch(), 8.0);
        // The second epoch: a reset; packets 18 and 19 are the special pair.
        assert_eq!(a.window(), Some(14.0), "room up to the pair's end: 20 - 6");
        assert!(!a.on_ack(19, 20));
        assert_eq!(a.window(), Some(1.0));
        assert!(a.on_ack(20, 20), "the pair's ACK ends the reset");
        assert_eq!((a.window(), a.resets()), (None, 1));
    }
}
