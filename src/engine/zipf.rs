//! The Zipf sampler of the workload generator ([`super::workload`]): not a Flink rule, a
//! deterministic sampler that draws the same keys natively and in wasm.

use rand::RngExt;
use rand_pcg::Pcg64Mcg;

/// Zipf's law over ranks `1 ..= n` with exponent `s` (P(k) ∝ 1 / k^s), sampled by
/// rejection-inversion (W. Hörmann and G. Derflinger, "Rejection-inversion to generate variates
/// from monotone discrete distributions", 1996), the method of Apache Commons'
/// `RejectionInversionZipfSampler` and `rand_distr::Zipf`. Written here, with `libm`, so that
/// the same seed draws the same keys natively and in wasm.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ZipfSampler {
    n: f64,
    s: f64,
    h_integral_x1: f64,
    h_integral_n: f64,
    threshold: f64,
}

impl ZipfSampler {
    pub fn new(n: f64, s: f64) -> Self {
        let mut z = ZipfSampler { n, s, h_integral_x1: 0.0, h_integral_n: 0.0, threshold: 0.0 };
        z.h_integral_x1 = z.h_integral(1.5) - 1.0;
        z.h_integral_n = z.h_integral(n + 0.5);
        z.threshold = 2.0 - z.h_integral_inverse(z.h_integral(2.5) - z.h(2.0));
        z
    }

    fn h(&self, x: f64) -> f64 {
        libm::exp(-self.s * libm::log(x))
    }

    fn h_integral(&self, x: f64) -> f64 {
        let log_x = libm::log(x);
        helper2((1.0 - self.s) * log_x) * log_x
    }

    fn h_integral_inverse(&self, x: f64) -> f64 {
        let t = (x * (1.0 - self.s)).max(-1.0);
        libm::exp(helper1(t) * x)
    }

    /// A rank in `1 ..= n`.
    pub fn sample(&self, rng: &mut Pcg64Mcg) -> u64 {
        loop {
            let u = self.h_integral_n + rng.random::<f64>() * (self.h_integral_x1 - self.h_integral_n);
            let x = self.h_integral_inverse(u);
            let k = (x + 0.5).floor().clamp(1.0, self.n);
            if k - x <= self.threshold || u >= self.h_integral(k + 0.5) - self.h(k) {
                return k as u64;
            }
        }
    }
}

/// `log1p(x) / x`, accurate near 0.
fn helper1(x: f64) -> f64 {
    if x.abs() > 1e-8 {
        libm::log1p(x) / x
    } else {
        1.0 - x * (0.5 - x * (1.0 / 3.0 - 0.25 * x))
    }
}

/// `expm1(x) / x`, accurate near 0.
fn helper2(x: f64) -> f64 {
    if x.abs() > 1e-8 {
        libm::expm1(x) / x
    } else {
        1.0 + x * 0.5 * (1.0 + x * (1.0 / 3.0) * (1.0 + 0.25 * x))
    }
}
