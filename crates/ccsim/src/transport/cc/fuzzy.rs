//! Fuzzy exponential-averaging predictor.
//!
//! Source: Keshav 1991 §5.6 (spec keshav91-fq-packet-pair.md M5.7; experiments spec §3.8 and
//! gap G13). Packet-pair uses it to predict the bottleneck service rate from the noisy series
//! of pair probes. The predictor is an exponential average
//!     θ̂_{k+1} = α·θ̂_k + (1 − α)·θ̃_k
//! whose weight α comes from a fuzzy controller fed by the relative prediction error
//! e_k = |θ̃_k − θ̂_k| / θ̃_k with three rules: error LOW → α HIGH, MEDIUM → MEDIUM,
//! HIGH → LOW (§5.6.5). The error is first smoothed, ē_k = β·ē_{k−1} + (1 − β)·e_k, by a
//! second averager whose β comes from a second fuzzy controller fed by the change in error:
//! LOW → β LOW, MEDIUM → MEDIUM, HIGH → HIGH, so a one-sample spike (a large change) barely
//! moves ē and α keeps the history, while a lasting shift (a large error that stays) drives
//! α down and the estimate catches up exponentially (chapter 6, Fig 6.21). Each controller
//! fuzzifies its input into LOW / MEDIUM / HIGH, fires each rule to its input's degree and
//! defuzzifies with the centroid (§5.6.5).
//!
//! The thesis defines the sets only in its Fig 5.2, which is missing (details are in ICSI
//! TR-91-028, not available). Choices where the source is silent, each a parameter of the
//! pp and pp2 flows (`params = { fuzzy_... }`, [`decode`]):
//! - sets (`fuzzy_error_sets`, `fuzzy_alpha_sets`, `fuzzy_change_sets`, `fuzzy_beta_sets`,
//!   each three [lo, peak, hi] triangles; spec [REC] placeholders):
//!   triangular on [0, 1], LOW 1 at 0 falling to 0 at 0.5, MEDIUM 0 / 1 / 0 at 0 / 0.5 / 1,
//!   HIGH 0 at 0.5 rising to 1 at 1; inputs are clipped to [0, 1]. With these sets the
//!   centroid keeps α and β within about [0.17, 0.83] — a property of the placeholder;
//! - Mamdani inference: each output set clipped at its rule's degree (min), union by max,
//!   centroid over [0, 1] computed exactly (the union is piecewise linear; it is integrated
//!   between its kinks, found as the breakpoints and the crossings of all its lines);
//! - α and β clamped to [`fuzzy_min_gain`, `fuzzy_max_gain`] = [0.05, 0.95] (spec G13);
//! - change in error = |e_k − e_{k−1}| on the raw relative errors (spec §6 A9);
//! - `fuzzy_alpha_timing` = next: the α derived from sample k's error weights sample k+1, so one
//!   sample never weighs more than 1 − α of the history before it (at most ~17% with the
//!   placeholder sets: the spike rejection of Fig 6.21). `current` applies it to sample k
//!   itself (follows a lasting shift one sample sooner, lets a spike in with ~45% weight);
//! - start: prediction = first sample, ē = 0, previous error = 0, α = `fuzzy_alpha0` = 0.5 and
//!   β = `fuzzy_beta0` = 0.5 until the controllers first run (spec §6 A9);
//! - a sample that is zero, negative or not finite is ignored (relative error undefined).

use crate::scenario::decode::Result;
use crate::scenario::params::Params;

/// A triangular membership function: 0 at `lo`, 1 at `peak`, 0 at `hi`. A shoulder has
/// `lo == peak` (1 everywhere below the peak) or `peak == hi` (1 everywhere above).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Tri {
    pub lo: f64,
    pub peak: f64,
    pub hi: f64,
}

impl Tri {
    pub const fn new(lo: f64, peak: f64, hi: f64) -> Self {
        Tri { lo, peak, hi }
    }

    /// Degree of membership of `x`, in [0, 1].
    #[inline]
    pub fn degree(&self, x: f64) -> f64 {
        let d = if x <= self.peak {
            if self.peak <= self.lo {
                1.0
            } else {
                (x - self.lo) / (self.peak - self.lo)
            }
        } else if self.hi <= self.peak {
            1.0
        } else {
            (self.hi - x) / (self.hi - self.peak)
        };
        d.clamp(0.0, 1.0)
    }
}

/// The three linguistic values of one variable.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sets {
    pub low: Tri,
    pub medium: Tri,
    pub high: Tri,
}

impl Sets {
    /// The spec's placeholder sets on [0, 1] (spec M5.7, [NOT IN THESIS]).
    pub const PLACEHOLDER: Sets = Sets { low: Tri::new(0.0, 0.0, 0.5), medium: Tri::new(0.0, 0.5, 1.0), high: Tri::new(0.5, 1.0, 1.0) };

    fn degrees(&self, x: f64) -> [f64; 3] {
        [self.low.degree(x), self.medium.degree(x), self.high.degree(x)]
    }
}

/// When the α computed from a sample's error takes effect (see the module header; scenario
/// names "next", "current").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AlphaTiming {
    /// From the next sample on (default).
    Next,
    /// Already for the sample that produced it.
    Current,
}

impl AlphaTiming {
    pub const NAMES: [&'static str; 2] = ["next", "current"];
    pub fn from_name(s: &str) -> Option<Self> {
        match s {
            "next" => Some(AlphaTiming::Next),
            "current" => Some(AlphaTiming::Current),
            _ => None,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FuzzyConfig {
    /// Input of the α controller: the smoothed relative error.
    pub error_sets: Sets,
    /// Output of the α controller.
    pub alpha_sets: Sets,
    /// Input of the β controller: the change in relative error.
    pub change_sets: Sets,
    /// Output of the β controller.
    pub beta_sets: Sets,
    /// Clamp for α and β.
    pub min_gain: f64,
    pub max_gain: f64,
    /// α and β before the controllers first run.
    pub alpha0: f64,
    pub beta0: f64,
    pub alpha_timing: AlphaTiming,
}

impl Default for FuzzyConfig {
    fn default() -> Self {
        FuzzyConfig {
            error_sets: Sets::PLACEHOLDER,
            alpha_sets: Sets::PLACEHOLDER,
            change_sets: Sets::PLACEHOLDER,
            beta_sets: Sets::PLACEHOLDER,
            min_gain: 0.05,
            max_gain: 0.95,
            alpha0: 0.5,
            beta0: 0.5,
            alpha_timing: AlphaTiming::Next,
        }
    }
}

/// Mamdani inference with centroid defuzzification over [0, 1]. `degrees[i]` fires output
/// set i (LOW, MEDIUM, HIGH). None if no rule fires.
///
/// The clipped union m(y) = max_k min(degree_k, set_k(y)) is piecewise linear, with kinks
/// only at the sets' breakpoints and where two of its lines cross (the sets' edges, extended,
/// and the clip levels). Between consecutive kinks it is linear, so the integrals of m and of
/// y·m are exact there; about 50 kinks at most, no grid.
fn centroid(out: &Sets, degrees: [f64; 3]) -> Option<f64> {
    let sets = [out.low, out.medium, out.high];
    let m = |y: f64| (0..3).filter(|&k| degrees[k] > 0.0).map(|k| degrees[k].min(sets[k].degree(y))).fold(0.0, f64::max);
    // Lines value = a·y + b: rising and falling edges, and the clip levels.
    let mut lines = [(0.0f64, 0.0f64); 9];
    let mut nl = 0;
    let mut xs = [0.0f64; 64];
    let mut nx = 0;
    let push = |xs: &mut [f64; 64], nx: &mut usize, x: f64| {
        if (0.0..=1.0).contains(&x) && *nx < xs.len() {
            xs[*nx] = x;
            *nx += 1;
        }
    };
    push(&mut xs, &mut nx, 0.0);
    push(&mut xs, &mut nx, 1.0);
    for (k, t) in sets.iter().enumerate() {
        for x in [t.lo, t.peak, t.hi] {
            push(&mut xs, &mut nx, x);
        }
        if t.peak > t.lo {
            lines[nl] = (1.0 / (t.peak - t.lo), -t.lo / (t.peak - t.lo));
            nl += 1;
        }
        if t.hi > t.peak {
            lines[nl] = (-1.0 / (t.hi - t.peak), t.hi / (t.hi - t.peak));
            nl += 1;
        }
        if degrees[k] > 0.0 {
            lines[nl] = (0.0, degrees[k]);
            nl += 1;
        }
    }
    for i in 0..nl {
        for j in i + 1..nl {
            let ((a1, b1), (a2, b2)) = (lines[i], lines[j]);
            if a1 != a2 {
                push(&mut xs, &mut nx, (b2 - b1) / (a1 - a2));
            }
        }
    }
    let xs = &mut xs[..nx];
    xs.sort_unstable_by(|a, b| a.total_cmp(b));
    let (mut num, mut den) = (0.0, 0.0);
    let mut prev = (xs[0], m(xs[0]));
    for &x in &xs[1..] {
        let (x0, m0) = prev;
        let m1 = m(x);
        let d = x - x0;
        if d > 0.0 {
            den += d * (m0 + m1) / 2.0;
            num += d * (x0 * (2.0 * m0 + m1) + x * (m0 + 2.0 * m1)) / 6.0;
        }
        prev = (x, m1);
    }
    (den > 0.0).then(|| num / den)
}

/// One fuzzy controller step: fuzzify `x` with `input`, map LOW/MEDIUM/HIGH to the output
/// sets directly (`inverse` = false) or reversed, defuzzify.
fn control(input: &Sets, output: &Sets, x: f64, inverse: bool) -> Option<f64> {
    let mut d = input.degrees(x.clamp(0.0, 1.0));
    if inverse {
        d.reverse();
    }
    centroid(output, d)
}

#[derive(Clone, Debug)]
pub struct FuzzyPredictor {
    pub cfg: FuzzyConfig,
    estimate: Option<f64>,
    alpha: f64,
    beta: f64,
    err_smooth: f64,
    err_prev: f64,
    samples: u64,
}

impl FuzzyPredictor {
    pub fn new(cfg: FuzzyConfig) -> Self {
        FuzzyPredictor { cfg, estimate: None, alpha: cfg.alpha0, beta: cfg.beta0, err_smooth: 0.0, err_prev: 0.0, samples: 0 }
    }

    /// The prediction of the next value (None before the first sample).
    pub fn estimate(&self) -> Option<f64> {
        self.estimate
    }

    /// The averaging weight α now (the weight of history).
    pub fn alpha(&self) -> f64 {
        self.alpha
    }

    /// The error-smoothing weight β now.
    pub fn beta(&self) -> f64 {
        self.beta
    }

    /// The smoothed relative error ē.
    pub fn smoothed_error(&self) -> f64 {
        self.err_smooth
    }

    /// Samples taken (ignored ones not counted).
    pub fn samples(&self) -> u64 {
        self.samples
    }

    /// Take observation `x`; return the new prediction.
    pub fn observe(&mut self, x: f64) -> f64 {
        if !(x.is_finite() && x > 0.0) {
            return self.estimate.unwrap_or(0.0);
        }
        self.samples += 1;
        let Some(est) = self.estimate else {
            self.estimate = Some(x);
            return x;
        };
        let c = &self.cfg;
        let err = ((x - est).abs() / x).min(1.0);
        let change = (err - self.err_prev).abs();
        if let Some(b) = control(&c.change_sets, &c.beta_sets, change, false) {
            self.beta = b.clamp(c.min_gain, c.max_gain);
        }
        self.err_smooth = self.beta * self.err_smooth + (1.0 - self.beta) * err;
        self.err_prev = err;
        let alpha_before = self.alpha;
        if let Some(a) = control(&c.error_sets, &c.alpha_sets, self.err_smooth, true) {
            self.alpha = a.clamp(c.min_gain, c.max_gain);
        }
        let a = match c.alpha_timing {
            AlphaTiming::Next => alpha_before,
            AlphaTiming::Current => self.alpha,
        };
        let next = a * est + (1.0 - a) * x;
        self.estimate = Some(next);
        next
    }
}

/// What the sets parameters accept.
const SETS_EXPECTED: &str = "three [lo, peak, hi] triangles, LOW, MEDIUM and HIGH, with 0 <= lo <= peak <= hi <= 1";

fn parse_sets(v: &toml::Value) -> std::result::Result<Sets, String> {
    let toml::Value::Array(items) = v else { return Err(SETS_EXPECTED.to_string()) };
    let num = |x: &toml::Value| match x {
        toml::Value::Integer(n) => Some(*n as f64),
        toml::Value::Float(f) => Some(*f),
        _ => None,
    };
    let tris: Vec<Tri> = items
        .iter()
        .filter_map(|t| match t {
            toml::Value::Array(ps) if ps.len() == 3 => {
                let p: Vec<f64> = ps.iter().filter_map(num).collect();
                (p.len() == 3 && 0.0 <= p[0] && p[0] <= p[1] && p[1] <= p[2] && p[2] <= 1.0).then(|| Tri::new(p[0], p[1], p[2]))
            }
            _ => None,
        })
        .collect();
    match tris[..] {
        [low, medium, high] if items.len() == 3 => Ok(Sets { low, medium, high }),
        _ => Err(SETS_EXPECTED.to_string()),
    }
}

/// The predictor's parameters from a packet-pair flow's `params` (`fuzzy_*`, pp and pp2).
pub fn decode(p: &mut Params) -> Result<FuzzyConfig> {
    let d = FuzzyConfig::default();
    const PLACEHOLDER: &str = "[[0, 0, 0.5], [0, 0.5, 1], [0.5, 1, 1]]";
    let error_sets = p.custom(
        "fuzzy_error_sets",
        d.error_sets,
        PLACEHOLDER,
        SETS_EXPECTED,
        "the α controller's input sets, over the smoothed relative error (Fig 5.2 is missing: placeholders)",
        parse_sets,
    )?;
    let alpha_sets = p.custom(
        "fuzzy_alpha_sets",
        d.alpha_sets,
        PLACEHOLDER,
        SETS_EXPECTED,
        "the α controller's output sets (error LOW -> α HIGH, MEDIUM -> MEDIUM, HIGH -> LOW)",
        parse_sets,
    )?;
    let change_sets = p.custom(
        "fuzzy_change_sets",
        d.change_sets,
        PLACEHOLDER,
        SETS_EXPECTED,
        "the β controller's input sets, over the change in relative error",
        parse_sets,
    )?;
    let beta_sets = p.custom(
        "fuzzy_beta_sets",
        d.beta_sets,
        PLACEHOLDER,
        SETS_EXPECTED,
        "the β controller's output sets (change LOW -> β LOW, MEDIUM -> MEDIUM, HIGH -> HIGH)",
        parse_sets,
    )?;
    let min_gain = p.number("fuzzy_min_gain", d.min_gain, 0.0, 1.0, "lower clamp of α and β (spec G13)")?;
    let max_gain = p.number("fuzzy_max_gain", d.max_gain, 0.0, 1.0, "upper clamp of α and β (spec G13)")?;
    if min_gain > max_gain {
        return Err(p.error("fuzzy_max_gain", format!("expected fuzzy_max_gain >= fuzzy_min_gain ({min_gain})")));
    }
    let alpha0 = p.number("fuzzy_alpha0", d.alpha0, 0.0, 1.0, "α before the controllers first run")?;
    let beta0 = p.number("fuzzy_beta0", d.beta0, 0.0, 1.0, "β before the controllers first run")?;
    let alpha_timing = p.choice(
        "fuzzy_alpha_timing",
        d.alpha_timing,
        &[("next", AlphaTiming::Next), ("current", AlphaTiming::Current)],
        "the α a sample's error yields weights the next sample (spike rejection) or that sample itself",
    )?;
    Ok(FuzzyConfig { error_sets, alpha_sets, change_sets, beta_sets, min_gain, max_gain, alpha0, beta0, alpha_timing })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(series: &[f64]) -> (FuzzyPredictor, Vec<(f64, f64)>) {
        let mut f = FuzzyPredictor::new(FuzzyConfig::default());
        let out = series.iter().map(|&x| (f.observe(x), f.alpha())).collect();
        (f, out)
    }

    #[test]
    fn placeholder_sets_and_centroids() {
        let s = Sets::PLACEHOLDER;
        assert_eq!(s.degrees(0.0), [1.0, 0.0, 0.0]);
        assert_eq!(s.degrees(0.25), [0.5, 0.5, 0.0]);
        assert_eq!(s.degrees(1.0), [0.0, 0.0, 1.0]);
        // Error 0 -> alpha HIGH alone: centroid of the rising ramp 0.5..1 is 5/6.
        let hi = control(&s, &s, 0.0, true).unwrap();
        assert!((hi - 5.0 / 6.0).abs() < 1e-12, "{hi}");
        let lo = control(&s, &s, 1.0, true).unwrap();
        assert!((lo - 1.0 / 6.0).abs() < 1e-12, "{lo}");
        let mid = control(&s, &s, 0.5, true).unwrap();
        assert!((mid - 0.5).abs() < 1e-9, "{mid}");
        // The beta controller is direct: a large change gives a large beta.
        assert!(control(&s, &s, 1.0, false).unwrap() > 0.8);
        // Inputs above 1 saturate.
        assert_eq!(control(&s, &s, 7.0, true), control(&s, &s, 1.0, true));
    }

    #[test]
    fn exact_centroid_matches_a_fine_grid() {
        let grid = |out: &Sets, d: [f64; 3]| {
            let sets = [out.low, out.medium, out.high];
            let n = 200_000;
            let (mut num, mut den) = (0.0, 0.0);
            for i in 0..n {
                let y = (i as f64 + 0.5) / n as f64;
                let m = (0..3).map(|k| d[k].min(sets[k].degree(y))).fold(0.0, f64::max);
                num += m * y;
                den += m;
            }
            num / den
        };
        let odd = Sets { low: Tri::new(0.0, 0.1, 0.4), medium: Tri::new(0.2, 0.45, 0.9), high: Tri::new(0.6, 0.95, 1.0) };
        for out in [Sets::PLACEHOLDER, odd] {
            for d in [[1.0, 0.0, 0.0], [0.3, 0.7, 0.0], [0.2, 0.5, 0.9], [0.0, 0.0, 0.4], [0.6, 0.6, 0.6], [0.05, 1.0, 0.3]] {
                let (a, b) = (centroid(&out, d).unwrap(), grid(&out, d));
                assert!((a - b).abs() < 1e-6, "{d:?}: exact {a} grid {b}");
            }
        }
        assert_eq!(centroid(&Sets::PLACEHOLDER, [0.0; 3]), None);
    }

    #[test]
    fn alpha_rises_when_probes_are_steady() {
        // Steady level with +-3% alternating noise: the error stays LOW, alpha climbs from
        // its initial 0.5 to near the top of the placeholder range, and the estimate's
        // spread is far below the input's.
        let series: Vec<f64> = (0..60).map(|k| if k % 2 == 0 { 103.0 } else { 97.0 }).collect();
        let (f, out) = run(&series);
        assert_eq!(out[0].1, 0.5);
        assert!(f.alpha() > 0.75, "alpha {}", f.alpha());
        assert!(out[10].1 > out[1].1, "alpha did not rise: {:?}", &out[..11]);
        let tail: Vec<f64> = out[40..].iter().map(|x| x.0).collect();
        let spread = tail.iter().cloned().fold(f64::MIN, f64::max) - tail.iter().cloned().fold(f64::MAX, f64::min);
        assert!(spread < 0.4 * 6.0, "estimate spread {spread} vs input spread 6");
        // A constant series: alpha reaches the centroid of HIGH, 5/6.
        let (f, _) = run(&[50.0; 30]);
        assert!((f.alpha() - 5.0 / 6.0).abs() < 1e-3);
        assert_eq!(f.estimate(), Some(50.0));
    }

    #[test]
    fn ignores_a_one_sample_spike() {
        for spike in [20.0, 5.0] {
            let mut s = vec![10.0; 30];
            s.push(spike);
            s.extend([10.0; 15]);
            let (_, out) = run(&s);
            let before = out[29];
            let at = out[30];
            // The spike enters with weight 1 - alpha (alpha ~ 5/6 after a steady run).
            let moved = (at.0 - 10.0).abs();
            assert!(moved <= (1.0 - before.1) * (spike - 10.0f64).abs() + 1e-9, "spike {spike}: moved {moved}");
            assert!(moved < 0.2 * (spike - 10.0f64).abs());
            // alpha does not collapse, and the estimate is back within 2% in 5 samples.
            assert!(out[30..].iter().all(|x| x.1 > 0.45), "{:?}", &out[30..36]);
            assert!((out[35].0 - 10.0).abs() < 0.2, "spike {spike}: {:?}", &out[30..36]);
        }
    }

    #[test]
    fn converges_exponentially_after_a_level_shift() {
        for new in [20.0, 5.0] {
            let mut s = vec![10.0; 30];
            s.extend(vec![new; 30]);
            let (_, out) = run(&s);
            // alpha drops when the error persists...
            let min_alpha = out[30..36].iter().map(|x| x.1).fold(1.0, f64::min);
            assert!(min_alpha < 0.6, "alpha stayed high: {:?}", &out[30..36]);
            // ...so the estimate gets within 10% of the new level in 5 samples, far sooner
            // than an average with fixed alpha = 5/6 (which is still ~40% away), ...
            let err = |k: usize| (out[k].0 - new).abs() / (new - 10.0f64).abs();
            assert!(err(34) < 0.1 * new / (new - 10.0f64).abs(), "{new}: {:?}", &out[30..36]);
            let fixed = (5.0f64 / 6.0).powi(5);
            assert!(err(34) < fixed / 2.0);
            // ...approaching monotonically (exponentially): each of the first steps closes
            // at least 30% of the gap, and no step is slower than the fixed-alpha average,
            // until the estimate is within 1%.
            for k in 31..35 {
                assert!(err(k) < 0.7 * err(k - 1), "{new}: step {k}: {:?}", &out[29..40]);
            }
            for k in 31..60 {
                if err(k - 1) > 0.01 {
                    assert!(err(k) < (5.0 / 6.0 + 0.01) * err(k - 1), "{new}: step {k}: {:?}", &out[29..45]);
                }
            }
            // Steady again: alpha climbs back.
            assert!(out[59].1 > 0.75);
        }
    }

    #[test]
    fn current_timing_reacts_one_sample_sooner() {
        let cfg = FuzzyConfig { alpha_timing: AlphaTiming::Current, ..FuzzyConfig::default() };
        let mut f = FuzzyPredictor::new(cfg);
        let mut g = FuzzyPredictor::new(FuzzyConfig::default());
        for _ in 0..30 {
            f.observe(10.0);
            g.observe(10.0);
        }
        let (a, b) = (f.observe(20.0), g.observe(20.0));
        assert!(a > b + 1.0, "current {a} next {b}");
    }

    #[test]
    fn ignores_invalid_samples() {
        let mut f = FuzzyPredictor::new(FuzzyConfig::default());
        assert_eq!(f.observe(0.0), 0.0);
        assert_eq!(f.observe(f64::NAN), 0.0);
        assert_eq!(f.observe(4.0), 4.0);
        assert_eq!(f.observe(-1.0), 4.0);
        assert_eq!(f.samples(), 1);
    }
}
