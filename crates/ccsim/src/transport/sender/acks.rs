//! What an arriving ACK does: RTT samples, the cumulative and duplicate ACK, the algorithm's
//! answers, the timer's restart, and echoed ECN marks.

use super::sack::SackAck;
use super::{AckOutcome, Sender, NEVER, NO_ECN};
use crate::sim::SimTime;
use crate::transport::cc::{AckInfo, AckResponse, CongestionControl};
use crate::transport::config::TimerMode;
use crate::transport::rtt::{RttSamples, SampleFrom, SamplePacket};

impl Sender {
    /// Pass echoed ECN marks to the algorithm (`SenderConfig::ecn`).
    pub fn enable_ecn(&mut self) {
        self.ecn_guard = 0;
    }

    /// An ACK echoed a congestion mark: for an ECN flow, the algorithm's `on_ecn` once the data
    /// outstanding at the last reduction is acknowledged (out of line: marks are rare).
    #[cold]
    #[inline(never)]
    fn on_ce(&mut self, info: &AckInfo) {
        if self.ecn_guard != NO_ECN && info.ack >= self.ecn_guard && self.cc.on_ecn(info) {
            self.ecn_guard = self.high_sent;
        }
    }

    /// An RTT sample for the estimator (and a pacer that keeps its own average).
    #[inline]
    fn rtt_sample(&mut self, rtt: SimTime) {
        self.rtt.sample(rtt);
        if self.pacer.as_deref().is_some_and(|p| p.keeps_rtt()) {
            let cwnd = self.cc.cwnd();
            self.pacer.as_deref_mut().expect("checked").on_rtt_sample(rtt, cwnd);
        }
    }

    /// The ACK of data packet `seq` arrived at `now` (before `on_ack`). With per-packet timers
    /// and `own_ack_stops_timer`, that packet is known received even if it arrived out of
    /// order, so its timer stops: Keshav's Generic "retransmits packets that have not been
    /// acknowledged" (keshav91 finding S2-generic-retransmission-reading). With
    /// `RttSamples::EachPacket` it gives its RTT sample now, once.
    #[inline]
    pub fn on_own_ack(&mut self, seq: u64, now: SimTime) {
        if seq < self.snd_una || seq >= self.high_sent {
            return;
        }
        if self.own_ack_stops_timer {
            self.slots.get_mut(seq).deadline = NEVER;
        }
        if self.rtt.cfg.samples == RttSamples::EachPacket && !self.slots.sampled(seq) {
            self.slots.set_sampled(seq, true);
            self.rtt_sample(now - self.slots.get(seq).first_tx);
        }
    }

    /// An ACK arrived. `echo_*` and `code` are the fields of the data packet that caused it
    /// (`echo_seq` its sequence number).
    #[inline]
    #[allow(clippy::too_many_arguments)]
    pub fn on_ack(
        &mut self,
        ack: u64,
        echo_seq: u64,
        echo_tx: SimTime,
        echo_first_tx: SimTime,
        echo_retx: bool,
        ce: bool,
        code: u8,
        now: SimTime,
    ) -> AckOutcome {
        // The packet whose ACK this is: the one that caused it, or the last in-order one the
        // cumulative number names (its send times are in the ring for a new ACK and kept in
        // `in_order_tx` for a duplicate).
        let named = match self.rtt.cfg.sample_packet {
            SamplePacket::Cumulative if ack > self.snd_una && ack <= self.high_sent => {
                let s = self.slots.get(ack - 1);
                Some((s.first_tx, s.last_tx))
            }
            SamplePacket::Cumulative if ack == self.snd_una => (self.in_order_tx.0 != NEVER).then_some(self.in_order_tx),
            _ => None,
        };
        let from = match (named, self.rtt.cfg.sample_from) {
            (Some((first, _)), SampleFrom::First) => first,
            (Some((_, last)), SampleFrom::Last | SampleFrom::Latest) => last,
            (None, SampleFrom::First) => echo_first_tx,
            (None, SampleFrom::Last) => echo_tx,
            (None, SampleFrom::Latest) if echo_seq >= self.snd_una && echo_seq < self.high_sent => self.slots.get(echo_seq).last_tx,
            (None, SampleFrom::Latest) => echo_tx,
        };
        let rtt_sample = now - from;
        // Karn's rule asks whether the timed packet was resent: the echoed copy says so itself;
        // a packet named by the ACK number was resent if its send times differ.
        let sampled_retx = named.map_or(echo_retx, |(first, last)| first != last);
        let info = AckInfo {
            now,
            newly_acked: ack.saturating_sub(self.snd_una),
            ack,
            flight_before: self.snd_nxt.max(self.snd_una) - self.snd_una,
            high_sent: self.high_sent,
            echo_tx,
            echo_seq,
            echo_retx,
            ce,
            code,
        };
        self.cc.on_ack_info(&info);
        if ce {
            self.on_ce(&info);
        }
        let sack = if self.sack.is_some() { Some(self.sack_on_ack(ack, echo_seq)) } else { None };
        if ack > self.snd_una {
            if self.rtt.cfg.samples.per_packet() {
                for seq in self.snd_una..ack.min(self.high_sent) {
                    if !self.slots.sampled(seq) {
                        self.rtt_sample(now - self.slots.get(seq).first_tx);
                    }
                }
            } else if self.rtt.cfg.samples == RttSamples::OnePerRtt {
                let (seq, sent) = self.timed;
                if sent != NEVER && ack > seq {
                    self.timed.1 = NEVER;
                    self.rtt_sample(now - sent);
                }
            } else if !(self.rtt.cfg.karn && sampled_retx) {
                self.rtt_sample(rtt_sample);
            }
            if self.rtt.cfg.sample_packet == SamplePacket::Cumulative && ack <= self.high_sent {
                let s = self.slots.get(ack - 1);
                self.in_order_tx = (s.first_tx, s.last_tx);
            }
            self.snd_una = ack;
            self.rtt.on_progress();
            if self.snd_nxt < self.snd_una {
                self.snd_nxt = self.snd_una;
            }
            self.slots.shrink_to_fit(self.snd_una, self.high_sent);
            self.dupacks = 0;
            let response = self.cc.on_new_ack(&info);
            // A SACK recovery chooses its own retransmissions and timer restarts.
            let restart = match sack {
                Some(SackAck::Recovering { restart_timer }) => restart_timer,
                _ => {
                    if response != AckResponse::Nothing && self.snd_una < self.high_sent {
                        self.retransmit.push_back(self.snd_una);
                    }
                    response != AckResponse::RetransmitKeepTimer
                }
            };
            if matches!(self.timer_mode, TimerMode::Single | TimerMode::SingleBsd) && restart {
                self.deadline = if self.snd_una < self.high_sent { now + self.rtt.rto() } else { NEVER };
            }
        } else if ack == self.snd_una && self.snd_una < self.high_sent {
            match sack {
                None => {
                    self.dupacks += 1;
                    if self.cc.on_dup_ack(self.dupacks, &info) {
                        self.retransmit.push_back(self.snd_una);
                        if self.timer_mode == TimerMode::SingleBsd {
                            self.deadline = NEVER; // re-armed by the retransmission
                        }
                    }
                }
                Some(SackAck::Open { new_info: true }) => {
                    self.dupacks += 1;
                    if self.cc.on_dup_ack(self.dupacks, &info) {
                        self.sack_enter(now);
                    }
                }
                Some(_) => {} // nothing new, or recovering: pipe has counted it
            }
        }
        if let Some(p) = self.pacer.as_deref_mut() {
            p.adjust(self.cc.take_pace_adjust());
        }
        AckOutcome { rtt_sample }
    }
}
