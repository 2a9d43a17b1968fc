// Distributions on a bounded interval beyond Beta, Kumaraswamy and Uniform,
// each with its log density, sampler and CDF (CdfDistributions.def's
// AIMZ_CDF_FAMILY rows take truncation, censoring and log_cdf / log_ccdf
// from it):
//
//   LogitNormal(mu, sigma)           PyMC: expit(Normal(mu, sigma)) on (0, 1)
//   Triangular(lower, upper, c)      PyMC (its positional order): mode c
//   TruncatedPolyaGamma()            NumPyro: PG(1, 0) truncated at 2.5
#pragma once

#include "aimz/math/Samplers.h"
#include "aimz/math/TruncatedByCdf.h"

namespace aimz {
namespace math {

// ------------------------------------------------------------- LogitNormal

template <class T> AIMZ_MATH_FN T logit_normal_log_prob(T x, T mu, T sigma) {
  if (!std::isfinite(mu) || !detail::pos_finite(sigma) || std::isnan(x)) return detail::nan<T>();
  if (!(x > T(0) && x < T(1))) return -detail::inf<T>();
  const double xd = double(x), lx = std::log(xd), l1x = std::log1p(-xd);
  const double z = (lx - l1x - double(mu)) / double(sigma);
  return T(-0.5 * z * z - detail::kLnSqrt2Pi - std::log(double(sigma)) - lx - l1x);
}

template <class T> AIMZ_MATH_FN T logit_normal_sample(RandomStream& s, T mu, T sigma) {
  if (!std::isfinite(mu) || !detail::pos_finite(sigma)) return detail::nan<T>();
  return detail::finish(s, T(sigmoid(double(mu) + double(sigma) * standard_normal<double>(s))));
}

namespace detail {
/// The normal's tails at (logit x - mu) / sigma.
struct LogitNormalCdf {
  double mu, sigma;
  AIMZ_MATH_FN bool valid() const { return std::isfinite(mu) && pos_finite(sigma); }
  AIMZ_MATH_FN double lo() const { return 0.0; }
  AIMZ_MATH_FN double hi() const { return 1.0; }
  AIMZ_MATH_FN double z(double x) const { return (std::log(x) - std::log1p(-x) - mu) / sigma; }
  AIMZ_MATH_FN double log_cdf(double x) const { return log_ndtr(z(x)); }
  AIMZ_MATH_FN double log_sf(double x) const { return log_ndtr(-z(x)); }
  AIMZ_MATH_FN double lower(double lp) const { return sigmoid(mu - sigma * normal_isf_log_any(lp)); }
  AIMZ_MATH_FN double upper(double lq) const { return sigmoid(mu + sigma * normal_isf_log_any(lq)); }
  AIMZ_MATH_FN double log_pdf(double x) const { return logit_normal_log_prob<double>(x, mu, sigma); }
};
}  // namespace detail

template <class T> AIMZ_MATH_FN auto logit_normal_cdf(T mu, T sigma) {
  return detail::LogitNormalCdf{double(mu), double(sigma)};
}

// -------------------------------------------------------------- Triangular

namespace detail {
/// F(x) = (x - a)^2 / ((b - a)(c - a)) up to c, S(x) = (b - x)^2 / ((b -
/// a)(b - c)) above it; each side inverted in closed form.
struct TriangularCdf {
  double a, b, c;
  AIMZ_MATH_FN bool valid() const {
    return std::isfinite(a) && std::isfinite(b) && a < b && c >= a && c <= b;
  }
  AIMZ_MATH_FN double lo() const { return a; }
  AIMZ_MATH_FN double hi() const { return b; }
  AIMZ_MATH_FN double left_mass() const { return (c - a) / (b - a); }
  AIMZ_MATH_FN double log_cdf(double x) const {
    if (x <= a) return -inf<double>();
    if (x >= b) return 0.0;
    if (x <= c) return 2.0 * std::log(x - a) - std::log(b - a) - std::log(c - a);
    return log1m_exp_d(log_sf(x));
  }
  AIMZ_MATH_FN double log_sf(double x) const {
    if (x <= a) return 0.0;
    if (x >= b) return -inf<double>();
    if (x > c) return 2.0 * std::log(b - x) - std::log(b - a) - std::log(b - c);
    return log1m_exp_d(log_cdf(x));
  }
  AIMZ_MATH_FN double lower(double lp) const {
    const double p = std::exp(lp);
    if (p <= left_mass()) return a + std::sqrt(p * (b - a) * (c - a));
    return b - std::sqrt(-std::expm1(lp) * (b - a) * (b - c));
  }
  AIMZ_MATH_FN double upper(double lq) const {
    const double q = std::exp(lq);
    if (q <= 1.0 - left_mass()) return b - std::sqrt(q * (b - a) * (b - c));
    return a + std::sqrt(-std::expm1(lq) * (b - a) * (c - a));
  }
  AIMZ_MATH_FN double log_pdf(double x) const {
    if (!(x >= a && x <= b)) return -inf<double>();
    const double side = x < c ? (x - a) / (c - a) : x > c ? (b - x) / (b - c) : 1.0;
    return std::log(2.0 * side / (b - a));
  }
};
}  // namespace detail

template <class T> AIMZ_MATH_FN auto triangular_cdf(T lower, T upper, T c) {
  return detail::TriangularCdf{double(lower), double(upper), double(c)};
}
template <class T> AIMZ_MATH_FN T triangular_log_prob(T x, T lower, T upper, T c) {
  return detail::log_prob_of_base(triangular_cdf(lower, upper, c), x);
}
template <class T> AIMZ_MATH_FN T triangular_sample(RandomStream& s, T lower, T upper, T c) {
  return detail::sample_by_inversion<T>(s, triangular_cdf(lower, upper, c));
}

// ----------------------------------------------------- TruncatedPolyaGamma
// NumPyro's TruncatedPolyaGamma(), without parameters: a draw is NumPyro's,
// the sum of 8 standard exponentials over (k + 1/2)^2 times 1 / (2 pi^2),
// clipped at 2.5; the density NumPyro's alternating series of 7 terms,
// summed in double, on [0, 2.5] (-inf outside).
namespace detail {
inline constexpr double kPolyaGammaTruncation = 2.5;
}  // namespace detail

template <class T> AIMZ_MATH_FN T truncated_polya_gamma_log_prob(T x, NoParam) {
  if (std::isnan(x)) return detail::nan<T>();
  if (!(x > T(0)) || double(x) > detail::kPolyaGammaTruncation) return -detail::inf<T>();
  const double v = double(x), lv = elementary::log(v);
  double even = 0.0, odd = 0.0;
  for (int n = 0; n < 7; ++n) {
    const double t = 2.0 * n + 1.0;
    const double term = elementary::exp(elementary::log(t) - 1.5 * lv - 0.125 * t * t / v);
    (n % 2 == 0 ? even : odd) += term;
  }
  return T(elementary::log(even - odd) - 0.5 * elementary::log(2.0 * detail::kPi));
}

template <class T> AIMZ_MATH_FN T truncated_polya_gamma_sample(RandomStream& s, NoParam) {
  double x = 0.0;
  for (int k = 0; k < 8; ++k) {
    const double d = k + 0.5;
    x += -elementary::log_uniform(uniform01<double>(s)) / (d * d);
  }
  x *= 0.5 / (detail::kPi * detail::kPi);
  return detail::finish(s, T(x < detail::kPolyaGammaTruncation ? x : detail::kPolyaGammaTruncation));
}

}  // namespace math
}  // namespace aimz
