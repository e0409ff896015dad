//! Kalman state estimator for packet-pair: an optional alternative to the fuzzy predictor.
//!
//! Source: Keshav 1991 §5.5 (spec keshav91-fq-packet-pair.md M5.6). The thesis derives it and
//! then sets it aside because the two noise variances cannot be told apart from observations
//! and must be supplied by an administrator; chapter 6 uses the fuzzy predictor. Model, per
//! control step k with step length Rtt:
//!     x = [n_b, μ, μ₋₁]ᵀ,   u = λ (the sending rate),   y(k) = μ(k−1) + v₂
//!     n_b(k+1) = n_b(k) + (λ(k) − μ(k))·Rtt,  μ(k+1) = μ(k) + ω(k),  μ₋₁(k+1) = μ(k)
//!     G = [[1, −Rtt, 0], [0, 1, 0], [0, 1, 0]],  H = [Rtt, 0, 0]ᵀ,  C = [0, 0, 1]
//!     Q = diag(0, E[ω²], 0),  R = E[v₂²],  S = 0 (independent noises)
//! and the predictor-form filter of the thesis's reference [49] p. 249:
//!     K(k) = G·Σ(k)·Cᵀ·(C·Σ(k)·Cᵀ + R)⁻¹
//!     x̂(k+1) = G·x̂(k) + K(k)·(y(k) − C·x̂(k)) + H·u(k)
//!     Σ(k+1) = G·Σ(k)·Gᵀ + Q − K(k)·(C·Σ(k)·Cᵀ + R)·K(k)ᵀ
//! with the queue component clamped to [0, B] after each step, as the non-linear state
//! equation of §5.4 requires (spec M5.5). G's rows are the spec's repair of the garbled text;
//! C is implied by y = μ₋₁ and not printed (spec §6 A19).
//!
//! Choices where the source is silent, each a parameter of [`KalmanConfig`]:
//! - `system_var` (E[ω²]) and `obs_var` (E[v₂²]) in (packets/s)²: when not given, they are
//!   taken relative to the first probe μ̃₀ as (0.05·μ̃₀)² and (0.2·μ̃₀)² [NOT IN THESIS];
//! - start: the thesis starts from x̂(0) = 0, Σ(0) = 0, which believes μ = 0 with certainty
//!   and needs many probes to forget it. Default `init_from_first_probe` = true: x̂(0) =
//!   [0, μ̃₀, μ̃₀] and Σ(0) = diag(0, R, R); false gives the thesis's start;
//! - packet-pair steps the filter once per probe (each pair's second ACK), with Rtt = the
//!   time since the previous probe, so n_b integrates over real time (the thesis steps once
//!   per RTT epoch); the controller uses μ̂ = x̂[1];
//! - B, the clamp's upper bound, is `buffer` (packet-pair passes 2 x its setpoint, since the
//!   setpoint is B/2, unless configured).

/// Parameters of the Kalman estimator.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct KalmanConfig {
    /// E[ω²], the variance of the random walk of μ per step, (packets/s)².
    pub system_var: Option<f64>,
    /// E[v₂²], the variance of one probe's observation noise, (packets/s)².
    pub obs_var: Option<f64>,
    /// Upper bound of the n_b clamp, packets (None: twice the packet-pair setpoint).
    pub buffer: Option<f64>,
    /// Start from the first probe (true) or from x̂ = 0, Σ = 0 as the thesis writes (false).
    pub init_from_first_probe: bool,
}

impl Default for KalmanConfig {
    fn default() -> Self {
        KalmanConfig { system_var: None, obs_var: None, buffer: None, init_from_first_probe: true }
    }
}

/// Relative standard deviations used when the variances are not given.
const REL_SYSTEM_SD: f64 = 0.05;
const REL_OBS_SD: f64 = 0.2;

type M3 = [[f64; 3]; 3];

fn mul(a: &M3, b: &M3) -> M3 {
    let mut c = [[0.0; 3]; 3];
    for i in 0..3 {
        for j in 0..3 {
            c[i][j] = (0..3).map(|k| a[i][k] * b[k][j]).sum();
        }
    }
    c
}

fn transpose(a: &M3) -> M3 {
    let mut t = [[0.0; 3]; 3];
    for i in 0..3 {
        for j in 0..3 {
            t[i][j] = a[j][i];
        }
    }
    t
}

#[derive(Clone, Debug)]
pub struct Kalman {
    pub cfg: KalmanConfig,
    /// State estimate [n_b, μ, μ₋₁].
    x: [f64; 3],
    /// Error covariance Σ.
    sigma: M3,
    q: f64,
    r: f64,
    nb_max: f64,
    steps: u64,
}

impl Kalman {
    /// `nb_max`: the clamp's upper bound when the configuration does not give one.
    pub fn new(cfg: KalmanConfig, nb_max: f64) -> Self {
        Kalman { cfg, x: [0.0; 3], sigma: [[0.0; 3]; 3], q: 0.0, r: 0.0, nb_max: cfg.buffer.unwrap_or(nb_max), steps: 0 }
    }

    /// Predicted service rate μ̂ (packets/s).
    pub fn mu(&self) -> f64 {
        self.x[1]
    }

    /// Estimated bottleneck queue n̂_b (packets), clamped to [0, B].
    pub fn n_b(&self) -> f64 {
        self.x[0]
    }

    pub fn state(&self) -> [f64; 3] {
        self.x
    }

    pub fn covariance(&self) -> M3 {
        self.sigma
    }

    /// One filter step: observation `y` (a probe of μ, packets/s), input `u` (the sending
    /// rate during the step, packets/s), step length `rtt` (seconds). Returns μ̂.
    pub fn step(&mut self, y: f64, u: f64, rtt: f64) -> f64 {
        if self.steps == 0 {
            let scale = y.abs();
            self.q = self.cfg.system_var.unwrap_or((REL_SYSTEM_SD * scale).powi(2));
            self.r = self.cfg.obs_var.unwrap_or((REL_OBS_SD * scale).powi(2));
            if self.cfg.init_from_first_probe {
                self.x = [0.0, y, y];
                self.sigma = [[0.0; 3], [0.0, self.r, 0.0], [0.0, 0.0, self.r]];
                self.steps = 1;
                return self.x[1];
            }
        }
        self.steps += 1;
        let g: M3 = [[1.0, -rtt, 0.0], [0.0, 1.0, 0.0], [0.0, 1.0, 0.0]];
        let gs = mul(&g, &self.sigma);
        // C = [0, 0, 1]: C Σ Cᵀ = Σ[2][2], G Σ Cᵀ = column 2 of G Σ.
        let s = self.sigma[2][2] + self.r;
        let k = if s > 0.0 { [gs[0][2] / s, gs[1][2] / s, gs[2][2] / s] } else { [0.0; 3] };
        let innov = y - self.x[2];
        let gx = [self.x[0] - rtt * self.x[1], self.x[1], self.x[1]];
        let mut next = [0.0; 3];
        for i in 0..3 {
            next[i] = gx[i] + k[i] * innov;
        }
        next[0] += rtt * u;
        next[0] = next[0].clamp(0.0, self.nb_max.max(0.0));
        let mut sig = mul(&gs, &transpose(&g));
        sig[1][1] += self.q;
        for i in 0..3 {
            for j in 0..3 {
                sig[i][j] -= k[i] * s * k[j];
            }
        }
        self.x = next;
        self.sigma = sig;
        self.x[1]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::Rng;

    fn gauss(rng: &mut Rng) -> f64 {
        // Box-Muller from two uniforms.
        let u1 = rng.uniform_open0();
        let u2 = rng.uniform_open0();
        (-2.0 * u1.ln()).sqrt() * (2.0 * std::f64::consts::PI * u2).cos()
    }

    #[test]
    fn tracks_a_constant_rate() {
        let mut rng = Rng::stream(7, "kalman-test");
        let cfg = KalmanConfig { system_var: Some(0.01), obs_var: Some(100.0), buffer: Some(10.0), init_from_first_probe: true };
        let mut k = Kalman::new(cfg, 10.0);
        let (mut se_k, mut se_raw) = (0.0, 0.0);
        for i in 0..400 {
            let y = 100.0 + 10.0 * gauss(&mut rng);
            let m = k.step(y, 100.0, 0.1);
            if i >= 100 {
                se_k += (m - 100.0).powi(2);
                se_raw += (y - 100.0).powi(2);
            }
        }
        assert!((k.mu() - 100.0).abs() < 3.0, "mu {}", k.mu());
        assert!(se_k < se_raw / 10.0, "kalman mse {} raw {}", se_k / 300.0, se_raw / 300.0);
        // The delayed component follows too, and the covariance stays symmetric and finite.
        let x = k.state();
        assert!((x[2] - 100.0).abs() < 3.0);
        let s = k.covariance();
        assert!(s.iter().flatten().all(|v| v.is_finite()));
        assert!((s[1][2] - s[2][1]).abs() < 1e-9);
    }

    #[test]
    fn follows_a_step_in_rate() {
        let cfg = KalmanConfig { system_var: Some(4.0), obs_var: Some(4.0), buffer: None, init_from_first_probe: true };
        let mut k = Kalman::new(cfg, 10.0);
        for _ in 0..50 {
            k.step(50.0, 50.0, 0.1);
        }
        assert!((k.mu() - 50.0).abs() < 1e-6);
        for _ in 0..30 {
            k.step(25.0, 50.0, 0.1);
        }
        assert!((k.mu() - 25.0).abs() < 0.5, "mu {}", k.mu());
    }

    #[test]
    fn thesis_start_from_zero_converges_slowly_but_does() {
        let cfg = KalmanConfig { system_var: Some(1.0), obs_var: Some(1.0), buffer: None, init_from_first_probe: false };
        let mut k = Kalman::new(cfg, 10.0);
        k.step(40.0, 0.0, 0.1);
        assert_eq!(k.mu(), 0.0, "Σ(0) = 0: the first probe has no weight");
        for _ in 0..200 {
            k.step(40.0, 40.0, 0.1);
        }
        assert!((k.mu() - 40.0).abs() < 0.5, "mu {}", k.mu());
    }

    #[test]
    fn queue_estimate_integrates_and_is_clamped() {
        let cfg = KalmanConfig { system_var: Some(1e-6), obs_var: Some(1.0), buffer: Some(8.0), init_from_first_probe: true };
        let mut k = Kalman::new(cfg, 99.0);
        k.step(10.0, 0.0, 0.0);
        // Sending 2 packets/s above the service rate for 1 s adds about 2 packets.
        k.step(10.0, 12.0, 1.0);
        assert!((k.n_b() - 2.0).abs() < 1e-6, "n_b {}", k.n_b());
        for _ in 0..10 {
            k.step(10.0, 12.0, 1.0);
        }
        assert_eq!(k.n_b(), 8.0, "clamped at B");
        for _ in 0..10 {
            k.step(10.0, 0.0, 1.0);
        }
        assert_eq!(k.n_b(), 0.0, "clamped at 0");
    }
}
