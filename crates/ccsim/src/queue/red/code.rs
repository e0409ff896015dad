//! The code of Hua 2002's modified RED, which JCC's probes collect (`red.rs` applies it).
//!
//! Hua 2002's modified RED for JCC (§4.2.5, eq. 4.4, Fig 4.4; spec §1.2.2 and §1.4.2), off
//! unless `code_bits` (m) is set; the drop decisions stay RED's (spec [REC]):
//! - the port's congestion level r is the m-bit code of its pre-count probability p_b (eq. 4.4
//!   is linear in avg, so it quantises p_b, not p_a; A-J15), from the average after this
//!   arrival's update: 0 below min_th, floor((avg - min_th)/(max_th - min_th) x S) between the
//!   thresholds, and 2^m - 1 ("probability 1") above max_th. `code_scale` [REC: "prose"]:
//!   S = 2^m - 2, clamped to 2^m - 2, so codes 0..2^m - 2 cover 0..max_p in equal steps as the
//!   prose says and avg = max_th gives 2^m - 2; "literal" takes eq. 4.4 as printed,
//!   S = 2^m - 1, where avg = max_th gives the "probability 1" code (A-J4). Gentle RED's region
//!   above max_th codes 2^m - 1 too [INF];
//! - a probe (`flags::PROBE`) that the port accepts leaves with code = max(code, r) (eq. 4.2),
//!   so it reaches the sink with the path's largest r (eq. 4.1); other packets' codes are left
//!   alone, and so are all codes at ports without RED (r = 0);
//! - `exempt_probes` [REC: on; whatever `code_bits`] ("routers should not drop the probing packets", §4.2.3, A-J9):
//!   a probe is not subject to RED's own drops, random or forced: it draws no random number and
//!   leaves `count` as it was. The buffer can still refuse it (the thesis's occasional probe
//!   loss "in case of severe congestion"). Off, probes are ordinary packets.

/// The scale of eq. 4.4's middle line (Hua 2002 §4.2.5; see the module header).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CodeScale {
    /// floor(x (2^m - 2)), clamped to 2^m - 2: codes 0..2^m - 2 are 0..max_p (the prose).
    Prose,
    /// floor(x (2^m - 1)), eq. 4.4 as printed (max_th itself gets the top code).
    Literal,
}

/// Eq. 4.4: the m-bit code of RED's pre-count probability at average `avg` (`m` in 1..=8;
/// thresholds in the average's unit). 0 below min_th, 2^m - 1 above max_th.
pub fn red_code(avg: f64, min_th: f64, max_th: f64, m: u8, scale: CodeScale) -> u8 {
    let top = (1u16 << m) - 1;
    if avg > max_th {
        top as u8
    } else if avg < min_th {
        0
    } else {
        let steps = match scale {
            CodeScale::Prose => top - 1,
            CodeScale::Literal => top,
        };
        let c = ((avg - min_th) / (max_th - min_th) * steps as f64).floor();
        (c.max(0.0) as u16).min(steps) as u8
    }
}

impl super::Red {
    /// The probability the port's code stands for (`code_drops`): code x max_p / (2^m - 2) for
    /// the codes of 0..max_p, 1 for the top code (spec §1.2.2). The literal scale's code at
    /// max_th is the top code, so it drops every arrival there, as eq. 4.4 printed implies; and
    /// gentle RED's region above max_th codes the top code too, so with `code_drops` gentle's
    /// ramp from max_p to 1 is not used.
    pub(super) fn code_probability(&self) -> f64 {
        let top = (1u16 << self.cfg.code_bits) - 1;
        match self.code() as u16 {
            r if r >= top => 1.0,
            r => r as f64 * self.cfg.max_p / (top - 1).max(1) as f64,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn v2_3_the_code_table() {
        // Spec V2.3: m = 8, min_th 5, max_th 15.
        let code = |avg, scale| red_code(avg, 5.0, 15.0, 8, scale);
        for (avg, want) in [(0.0, 0), (4.9, 0), (5.0, 0), (10.0, 127), (15.0, 254), (15.01, 255), (40.0, 255)] {
            assert_eq!(code(avg, CodeScale::Prose), want, "prose, avg {avg}");
        }
        // As printed: 2^m - 1 steps, and max_th itself is the "probability 1" code.
        for (avg, want) in [(4.9, 0), (5.0, 0), (10.0, 127), (15.0, 255), (15.01, 255)] {
            assert_eq!(code(avg, CodeScale::Literal), want, "literal, avg {avg}");
        }
        // Equal steps of (max_th - min_th)/254 below max_th: code c from 5 + 10 c/254 on.
        for c in 0..=254u16 {
            let at = 5.0 + 10.0 * (c as f64 + 0.5) / 254.0;
            assert_eq!(code(at.min(15.0), CodeScale::Prose), c.min(254) as u8);
        }
        // Fewer bits: m = 4 gives 0..14 and 15.
        assert_eq!(red_code(10.0, 5.0, 15.0, 4, CodeScale::Prose), 7);
        assert_eq!(red_code(15.0, 5.0, 15.0, 4, CodeScale::Prose), 14);
        assert_eq!(red_code(15.5, 5.0, 15.0, 4, CodeScale::Prose), 15);
        assert_eq!(red_code(15.0, 5.0, 15.0, 4, CodeScale::Literal), 15);
    }
}
