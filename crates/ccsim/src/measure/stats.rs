//! Batch means and fairness.

/// Mean and sample standard deviation of interval means, after discarding the first
/// `discard` intervals (Keshav 1991 §6.4). NaN entries (intervals without a sample) are
/// excluded (keshav91-experiments.md gap G9). Returns (mean, sd, intervals used); with one
/// interval the sd is NaN (undefined), not 0, so no one reads a zero-width spread.
pub fn batch_means(values: &[f64], discard: usize) -> (f64, f64, usize) {
    let kept: Vec<f64> = values.iter().skip(discard).copied().filter(|v| !v.is_nan()).collect();
    let n = kept.len();
    if n == 0 {
        return (f64::NAN, f64::NAN, 0);
    }
    let mean = kept.iter().sum::<f64>() / n as f64;
    let sd = if n > 1 { (kept.iter().map(|v| (v - mean) * (v - mean)).sum::<f64>() / (n - 1) as f64).sqrt() } else { f64::NAN };
    (mean, sd, n)
}

/// Jain's fairness index: (sum x)^2 / (n sum x^2); 1 when all equal, 1/n when one takes all.
pub fn jain_index(xs: &[f64]) -> f64 {
    let n = xs.len() as f64;
    let s: f64 = xs.iter().sum();
    let s2: f64 = xs.iter().map(|x| x * x).sum();
    if n == 0.0 || s2 == 0.0 {
        return f64::NAN;
    }
    s * s / (n * s2)
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn batch_means_of_one_interval_has_no_spread() {
        let (m, sd, n) = batch_means(&[5.0, 7.0], 1);
        assert_eq!((m, n), (7.0, 1));
        assert!(sd.is_nan());
    }
    #[test]
    fn batch_means_discards_first_and_skips_nan() {
        let (m, sd, n) = batch_means(&[100.0, 1.0, 3.0, f64::NAN], 1);
        assert_eq!((m, n), (2.0, 2));
        assert!((sd - 2f64.sqrt()).abs() < 1e-12);
    }
    #[test]
    fn jain() {
        assert!((jain_index(&[1.0, 1.0, 1.0]) - 1.0).abs() < 1e-12);
        assert!((jain_index(&[1.0, 0.0, 0.0, 0.0]) - 0.25).abs() < 1e-12);
    }
}
