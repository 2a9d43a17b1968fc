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

/// e^-|x| I_nu(x) for nu = 0 or 1: the power series (all terms
/// positive: no cancellation) up to 30, Hankel's asymptotic series above
/// (its terms fall until k ~ 2x, the smallest about e^-2x: below 1e-26).
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
  const double mu = 4.0 * nu * nu;
  double term = 1.0, sum = 1.0;
  for (int k = 1; k < 30; ++k) {
    const double odd = 2.0 * k - 1.0;
    term *= -(mu - odd * odd) / (k * 8.0 * ax);
    sum += term;
    if (std::fabs(term) < 1e-17 * std::fabs(sum)) break;
  }
  return sign * sum / std::sqrt(2.0 * detail::kPi * ax);
}

AIMZ_MATH_FN double i0e(double x) { return bessel_ie(0, x); }
AIMZ_MATH_FN double i1e(double x) { return bessel_ie(1, x); }
/// I_0 and I_1: +inf (I_1: -inf below 0) once e^|x| overflows.
AIMZ_MATH_FN double i0(double x) { return bessel_ie(0, x) * std::exp(std::fabs(x)); }
AIMZ_MATH_FN double i1(double x) { return bessel_ie(1, x) * std::exp(std::fabs(x)); }

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
