// The special functions a model may call that libm and libdevice lack:
// digamma and trigamma (Stan, jax.scipy.special), the normal quantile
// (ndtri, Stan's inv_Phi) and the exponentially scaled modified Bessel
// functions of the first kind of order 0 and 1 (i0e, i1e; i0 = i0e e^|x|).
// Computed in double whatever the model's precision, then rounded once.
// Outside its domain a function gives NaN (SciPy's values at poles: -inf or
// NaN as documented per function), which aimz-run counts.
#pragma once

#include "aimz/math/Special.h"

namespace aimz {
namespace math {
namespace special {

/// psi(x) = d/dx log Gamma(x): the recurrence up to x >= 10, then the
/// asymptotic series; reflection below 0 (psi(1 - x) - pi cot(pi x)). NaN
/// at the poles 0, -1, -2, ... (SciPy gives -inf at 0 and NaN below; we
/// give NaN at every pole: the function has no value there).
AIMZ_MATH_FN double digamma(double x) {
  if (std::isnan(x) || x == -detail::inf<double>()) return detail::nan<double>();
  if (x == detail::inf<double>()) return x;
  double acc = 0.0;
  if (x <= 0.0) {
    if (x == std::floor(x)) return detail::nan<double>();
    // psi(x) = psi(1 - x) - pi / tan(pi x); tan from the fractional part.
    const double r = x - std::floor(x);
    acc = -detail::kPi / std::tan(detail::kPi * r);
    x = 1.0 - x;
  }
  while (x < 10.0) {
    acc -= 1.0 / x;
    x += 1.0;
  }
  const double f = 1.0 / (x * x);
  // Bernoulli terms B_2k / (2k x^2k): 1/12, -1/120, 1/252, -1/240, 1/132,
  // -691/32760, 1/12.
  const double series =
      f * (1.0 / 12 - f * (1.0 / 120 - f * (1.0 / 252 - f * (1.0 / 240 - f * (1.0 / 132 - f * (691.0 / 32760 - f / 12))))));
  return acc + std::log(x) - 0.5 / x - series;
}

/// psi'(x): the recurrence up to x >= 10, then the asymptotic series;
/// reflection below 0 (psi'(1 - x) + psi'(x) = pi^2 / sin^2(pi x)). +inf at
/// the poles 0, -1, ... (SciPy's polygamma(1, x)).
AIMZ_MATH_FN double trigamma(double x) {
  if (std::isnan(x) || x == -detail::inf<double>()) return detail::nan<double>();
  if (x == detail::inf<double>()) return 0.0;
  if (x <= 0.0) {
    if (x == std::floor(x)) return detail::inf<double>();
    const double s = std::sin(detail::kPi * (x - std::floor(x)));
    return detail::kPi * detail::kPi / (s * s) - trigamma(1.0 - x);
  }
  double acc = 0.0;
  while (x < 10.0) {
    acc += 1.0 / (x * x);
    x += 1.0;
  }
  const double f = 1.0 / (x * x);
  // 1/x + 1/(2x^2) + sum B_2k / x^(2k+1): 1/6, -1/30, 1/42, -1/30, 5/66,
  // -691/2730, 7/6.
  const double series =
      f * (1.0 / 6 - f * (1.0 / 30 - f * (1.0 / 42 - f * (1.0 / 30 - f * (5.0 / 66 - f * (691.0 / 2730 - f * 7.0 / 6))))));
  return acc + 1.0 / x + 0.5 * f + series / x;
}

/// Phi^-1(p) (scipy.special.ndtri, Stan's inv_Phi): AS 241 from the
/// logarithm of the smaller tail, refined beyond its fitted range; -inf at
/// 0, +inf at 1, NaN outside [0, 1].
AIMZ_MATH_FN double ndtri(double p) {
  if (!(p >= 0.0 && p <= 1.0)) return detail::nan<double>();
  if (p == 0.5) return 0.0;
  return p < 0.5 ? -normal_isf_log_refined(std::log(p)) : normal_isf_log_refined(std::log1p(-p));
}

/// Hankel's asymptotic series for I_v(z) sqrt(2 pi z) e^-z, z large: its
/// terms fall until k ~ 2z, the smallest about e^-2z; summed until one is
/// below 1e-17 of the sum (17 terms at z = 30).
AIMZ_MATH_FN double hankel_series_i(double v, double z) {
  const double mu = 4.0 * v * v;
  double term = 1.0, sum = 1.0;
  for (int k = 1; k < 200; ++k) {
    const double odd = 2.0 * k - 1.0;
    term *= -(mu - odd * odd) / (k * 8.0 * z);
    sum += term;
    if (std::fabs(term) < 1e-17 * std::fabs(sum)) break;
  }
  return sum;
}

/// e^-|x| I_nu(x) for nu = 0 or 1: the power series (all terms
/// positive: no cancellation) up to 30, Hankel's asymptotic series above.
AIMZ_MATH_FN double bessel_ie(int nu, double x) {
  if (std::isnan(x)) return x;
  const double ax = std::fabs(x);
  const double sign = nu == 1 && x < 0.0 ? -1.0 : 1.0;
  if (ax == detail::inf<double>()) return 0.0 * sign;
  if (ax <= 30.0) {
    const double q = 0.25 * ax * ax;
    double term = nu == 0 ? 1.0 : 0.5 * ax, sum = term;
    for (int k = 1; k < 400; ++k) {
      term *= q / (double(k) * double(k + nu));
      sum += term;
      if (term < 1e-17 * sum) break;
    }
    return sign * sum * std::exp(-ax);
  }
  return sign * hankel_series_i(nu, ax) / std::sqrt(2.0 * detail::kPi * ax);
}

AIMZ_MATH_FN double i0e(double x) { return bessel_ie(0, x); }
AIMZ_MATH_FN double i1e(double x) { return bessel_ie(1, x); }
/// I_0 and I_1: +inf (I_1: -inf below 0) once e^|x| overflows.
AIMZ_MATH_FN double i0(double x) { return bessel_ie(0, x) * std::exp(std::fabs(x)); }
AIMZ_MATH_FN double i1(double x) { return bessel_ie(1, x) * std::exp(std::fabs(x)); }

/// log(e^-z I_v(z)) of real order v > -1, also a negative integer order
/// (I_-n = I_n): Hankel's asymptotic series where z >= max(40, v^2) (its
/// terms then fall from the first, the smallest below e^-2z), otherwise the
/// power series (all terms positive: no cancellation; about z / 2 +
/// 10 sqrt(z) terms), rescaled as it grows so that it never overflows.
/// The scaled form keeps ive's digits where z is large (e^-z I_v(z) as the
/// exponential of a difference of two values near z lost them). 0 at z = 0
/// for v = 0, -inf for v > 0; NaN for z < 0 or another order.
AIMZ_MATH_OUTLINED_FN double log_bessel_ie(double v, double z) {
  if (std::isnan(v) || std::isnan(z)) return v + z;
  if (v <= -1.0 && v == std::floor(v)) v = -v;
  if (!(v > -1.0) || z < 0.0 || v == detail::inf<double>()) return detail::nan<double>();
  if (z == 0.0) return v == 0.0 ? 0.0 : -detail::inf<double>();
  if (z == detail::inf<double>()) return -0.5 * std::log(z);  // -inf
  if (z >= 40.0 && z >= v * v)
    return std::log(hankel_series_i(v, z)) - 0.5 * std::log(2.0 * detail::kPi * z);
  const double q = 0.25 * z * z;
  double term = 1.0, sum = 1.0, offset = 0.0;
  for (double k = 1.0;; k += 1.0) {
    term *= q / (k * (v + k));
    sum += term;
    if (term < 1e-17 * sum) break;
    if (sum > 1e280) {  // rescale: the terms still grow
      sum *= 1e-280;
      term *= 1e-280;
      offset += 644.72382603833282;  // 280 log(10)
    }
  }
  return v * std::log(0.5 * z) - std::lgamma(v + 1.0) + std::log(sum) + (offset - z);
}

/// log I_v(z) (Stan's log_modified_bessel_first_kind), e^-z I_v(z) and
/// I_v(z) (SciPy's ive and iv) of real order, for z >= 0.
AIMZ_MATH_FN double log_bessel_i(double v, double z) {
  return z == detail::inf<double>() && !std::isnan(v) && v > -1.0 ? z : log_bessel_ie(v, z) + z;
}
AIMZ_MATH_FN double ive(double v, double z) { return std::exp(log_bessel_ie(v, z)); }
AIMZ_MATH_FN double iv(double v, double z) { return std::exp(log_bessel_i(v, z)); }

/// The 24-point Gauss-Legendre rule over [lo, hi] (nodes and weights as
/// literals: device code has no static tables).
template <class F>
AIMZ_MATH_FN double gauss_legendre_24(F f, double lo, double hi) {
  const double m = 0.5 * (lo + hi), r = 0.5 * (hi - lo);
  auto pair = [&](double x, double w) { return w * (f(m - r * x) + f(m + r * x)); };
  return r * (pair(0.06405689286260563, 0.12793819534675221) +
              pair(0.19111886747361631, 0.1258374563468283) +
              pair(0.3150426796961634, 0.12167047292780342) +
              pair(0.43379350762604513, 0.11550566805372561) +
              pair(0.54542147138883956, 0.10744427011596561) +
              pair(0.64809365193697555, 0.097618652104114065) +
              pair(0.74012419157855436, 0.086190161531953288) +
              pair(0.82000198597390295, 0.073346481411080411) +
              pair(0.88641552700440096, 0.059298584915436742) +
              pair(0.9382745520027328, 0.044277438817419551) +
              pair(0.97472855597130947, 0.028531388628933743) +
              pair(0.99518721999702131, 0.012341229799987091));
}

/// T(h, a) for h >= 0 and 0 <= a <= 1: e^(-h^2/2) / (2 pi) times the
/// integral over [0, a] of e^(-h^2 x^2 / 2) / (1 + x^2), cut where the
/// Gaussian is below e^-40.5 (x = 9 / h), on two Gauss-Legendre panels:
/// within a few ulps of the exact value, in relative terms, for any h.
AIMZ_MATH_OUTLINED_FN double owens_t_unit(double h, double a) {
  const double c = h * a <= 9.0 ? a : 9.0 / h;
  const double hh = 0.5 * h * h;
  auto f = [hh](double x) { return std::exp(-hh * x * x) / (1.0 + x * x); };
  const double half = 0.5 * c;
  return std::exp(-hh) / (2.0 * detail::kPi) *
         (gauss_legendre_24(f, 0.0, half) + gauss_legendre_24(f, half, c));
}

/// Owen's T function T(h, a) (SciPy's owens_t, Stan's owens_t): the
/// probability that X > h and 0 < Y < a X for independent standard
/// normals. Even in h, odd in a; for a > 1 Owen's identity
/// T(h, a) = (Phi(h) Q(a h) + Phi(a h) Q(h)) / 2 - T(a h, 1 / a), with Q
/// the upper tail (no cancellation: T(a h, 1 / a) is below Q(h) / 2).
AIMZ_MATH_FN double owens_t(double h, double a) {
  if (std::isnan(h) || std::isnan(a)) return h + a;
  const double sign = a < 0.0 ? -1.0 : 1.0;
  h = std::fabs(h);
  a = std::fabs(a);
  if (h == detail::inf<double>()) return 0.0 * sign;
  if (a <= 1.0) return sign * owens_t_unit(h, a);
  const double ah = a * h;
  auto lower = [](double x) { return 0.5 * std::erfc(-x * 0.70710678118654752440); };
  auto upper = [](double x) { return 0.5 * std::erfc(x * 0.70710678118654752440); };
  const double inv = a == detail::inf<double>() ? 0.0 : 1.0 / a;
  const double ahs = a == detail::inf<double>() ? (h == 0.0 ? 0.0 : detail::inf<double>()) : ah;
  const double rest = ahs == detail::inf<double>() ? 0.0 : owens_t_unit(ahs, inv);
  return sign * (0.5 * (lower(h) * upper(ahs) + lower(ahs) * upper(h)) - rest);
}

/// log B(a, b) without cancellation when one argument is large (lbeta(3,
/// 1e10) lost six digits as lgamma(a) + lgamma(b) - lgamma(a + b)): R's
/// and SciPy's splitting, in double (Special.h's log_beta).
AIMZ_MATH_FN double lbeta(double a, double b) { return log_beta<double>(a, b); }

/// log(n choose k) = -log1p(n) - log B(n - k + 1, k + 1) (Stan's
/// binomial_coefficient_log): stable for large n.
AIMZ_MATH_FN double lchoose(double n, double k) {
  if (std::isnan(n) || std::isnan(k)) return n + k;
  return -std::log1p(n) - log_beta<double>(n - k + 1.0, k + 1.0);
}

}  // namespace special
}  // namespace math
}  // namespace aimz
