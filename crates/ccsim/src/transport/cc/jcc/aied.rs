//! JCC's arithmetic: the AIED rule (Hua 2002 §4.2.2, eq. 4.3, Fig 4.2) and the m-bit code
//! space R, alpha and beta are held in (§4.2.5; spec §1.2.2, §1.4.5, A-J5).
//!
//! - [`aied`] is eq. 4.3 as printed, its branches taken in order: + 1 while R <= alpha, the
//!   factor 2^-((R - alpha)/(beta - alpha)) while alpha < R < beta, 1/2 from beta on. Taken in
//!   that order the rule is defined for any beta: with beta <= alpha the middle branch is
//!   empty (every R above alpha halves), so the thesis's own beta update, which can set beta to
//!   an R at or below alpha, never divides by zero. With integer codes the spec's guard
//!   (A-J2: beta >= alpha + one code) therefore changes nothing; it is kept so that beta, as
//!   reported, stays above alpha.
//! - [`Codes`]: codes 0..2^m - 2 cover probabilities 0..max_p in equal steps and 2^m - 1 means
//!   "probability 1" (the routers' `code_scale = "prose"`, RED's default). alpha is configured
//!   as a probability and held as the code round(alpha (2^m - 2)/max_p) [REC]; reports convert
//!   back with code x max_p/(2^m - 2). AIED uses only (R - alpha)/(beta - alpha), so the unit
//!   changes nothing but the granularity.

/// Eq. 4.3, AIED: the window after a probing ACK that reports `r`, with thresholds `alpha` and
/// `beta` (all three in the same unit, codes or probabilities).
pub fn aied(cwnd: f64, r: f64, alpha: f64, beta: f64) -> f64 {
    if r <= alpha {
        cwnd + 1.0
    } else if r < beta {
        cwnd * (-(r - alpha) / (beta - alpha)).exp2()
    } else {
        cwnd / 2.0
    }
}

/// The m-bit code space of R (see the module header).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Codes {
    /// The probability of one code, max_p / (2^m - 2).
    quantum: f64,
    /// 2^m - 2, the code of max_p.
    steps: f64,
}

impl Codes {
    /// Codes of `bits` bits (2..=8) for routers whose RED has `max_p`.
    pub fn new(bits: u8, max_p: f64) -> Self {
        let steps = ((1u16 << bits) - 2) as f64;
        Codes { quantum: max_p / steps, steps }
    }

    /// The code of max_p, 2^m - 2 (beta's start).
    pub fn max_p(&self) -> f64 {
        self.steps
    }

    /// A probability as the nearest code.
    pub fn code(&self, p: f64) -> f64 {
        (p / self.quantum).round()
    }

    /// A code in probability units: code x max_p/(2^m - 2), and 1 for the top code 2^m - 1.
    pub fn probability(&self, code: f64) -> f64 {
        if code > self.steps {
            1.0
        } else {
            code * self.quantum
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn v2_5_the_aied_table() {
        // Spec V2.5: alpha = 0, beta = 100 codes, from cwnd 10 (the same rule at a real
        // probing ACK: jcc/tests.rs).
        for (r, want) in [(0.0, 11.0), (50.0, 10.0 * 0.5f64.sqrt()), (100.0, 5.0), (180.0, 5.0)] {
            assert!((aied(10.0, r, 0.0, 100.0) - want).abs() < 1e-9, "R = {r}");
        }
        assert_eq!(aied(10.0, 50.7, 50.7, 100.0), 11.0, "at alpha: congestion-free");
        // The factor falls from 1 at alpha to 1/2 at beta, continuous with the halving.
        assert!((aied(1.0, 99.999_999, 0.0, 100.0) - 0.5).abs() < 1e-8);
        assert!((aied(1.0, 20.0 + 1e-9, 20.0, 60.0) - 1.0).abs() < 1e-9);
        // beta at or below alpha: no division, every R above alpha halves.
        assert_eq!([aied(8.0, 3.0, 3.0, 3.0), aied(8.0, 4.0, 3.0, 3.0), aied(8.0, 4.0, 3.0, 1.0)], [9.0, 4.0, 4.0]);
    }

    #[test]
    fn codes_and_probabilities() {
        let c = Codes::new(8, 0.1);
        assert_eq!((c.max_p(), c.code(0.02), c.code(0.1), c.code(0.0)), (254.0, 51.0, 254.0, 0.0));
        assert!((c.probability(127.0) - 0.05).abs() < 1e-12);
        assert_eq!((c.probability(254.0), c.probability(255.0)), (0.1, 1.0));
        let c = Codes::new(4, 0.1);
        assert_eq!((c.max_p(), c.code(0.05), c.probability(15.0)), (14.0, 7.0, 1.0));
    }
}
