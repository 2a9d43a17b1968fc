// Families drawn by inverting a closed-form CDF, each with its sampler and
// log density (their CDFs and truncated forms: Truncated.h for the
// symmetric ones, TruncatedByCdf.h for the others):
//
//   Uniform(low, high)          Cauchy(loc, scale)      HalfCauchy(scale)
//   Laplace(loc, scale)         Logistic(loc, scale)    Gumbel(loc, scale)
//   Pareto(scale, alpha)        Weibull(scale, concentration)
#pragma once

#include "aimz/math/LogDensity.h"
#include "aimz/math/Samplers.h"

namespace aimz {
namespace math {

// -------------------------------------------------------------------- Uniform

/// Uniform(low, high): low + (high - low) U, clamped to [low, high].
template <class T> AIMZ_HOT_FN T uniform_sample(RandomStream& s, T low, T high) {
  if (!std::isfinite(low) || !std::isfinite(high) || !(low < high)) return detail::nan<T>();
  const T u = uniform01<T>(s);
  const T w = high - low;
  T x = std::isfinite(w) ? low + w * u : low * (T(1) - u) + high * u;
  if (x < low) x = low;
  if (x > high) x = high;
  return detail::finish(s, x);
}

/// Uniform(low, high): support [low, high].
template <class T> AIMZ_MATH_FN T uniform_log_prob(T x, T low, T high) {
  if (!std::isfinite(low) || !std::isfinite(high) || !(low < high) || std::isnan(x)) return detail::nan<T>();
  if (x < low || x > high) return -detail::inf<T>();
  return -elementary::log(high - low);
}

// --------------------------------------------------------------------- Cauchy

/// Cauchy(loc, scale) by inversion: loc + scale tan(pi (U - 1/2)).
template <class T> AIMZ_HOT_FN T cauchy_sample(RandomStream& s, T loc, T scale) {
  if (!std::isfinite(loc) || !detail::pos_finite(scale)) return detail::nan<T>();
  const T u = uniform01<T>(s);
  return detail::finish(s, loc + scale * elementary::tanpi(u - T(0.5)));
}

/// Cauchy(loc, scale).
template <class T> AIMZ_MATH_FN T cauchy_log_prob(T x, T loc, T scale) {
  if (!std::isfinite(loc) || !detail::pos_finite(scale) || std::isnan(x)) return detail::nan<T>();
  if (std::isinf(x)) return -detail::inf<T>();
  const T z = (x - loc) / scale;
  return -T(detail::kLnPi) - elementary::log(scale) - detail::log1p_sq(z);
}

// ----------------------------------------------------------------- HalfCauchy

/// HalfCauchy(scale) = |Cauchy(0, scale)|.
template <class T> AIMZ_HOT_FN T half_cauchy_sample(RandomStream& s, T scale) {
  if (!detail::pos_finite(scale)) return detail::nan<T>();
  const T u = uniform01<T>(s);
  return detail::finish(s, scale * std::fabs(elementary::tanpi(u - T(0.5))));
}

/// HalfCauchy(scale): support x >= 0.
template <class T> AIMZ_MATH_FN T half_cauchy_log_prob(T x, T scale) {
  if (!detail::pos_finite(scale) || std::isnan(x)) return detail::nan<T>();
  if (x < T(0) || std::isinf(x)) return -detail::inf<T>();
  const T z = x / scale;
  return T(detail::kLn2 - detail::kLnPi) - elementary::log(scale) - detail::log1p_sq(z);
}

// -------------------------------------------------------------------- Laplace

/// Laplace(loc, scale) by inversion: loc - scale sign(w) log1p(-2|w|),
/// w = U - 1/2.
template <class T> AIMZ_HOT_FN T laplace_sample(RandomStream& s, T loc, T scale) {
  if (!std::isfinite(loc) || !detail::pos_finite(scale)) return detail::nan<T>();
  const T w = uniform01<T>(s) - T(0.5);
  const T e = -elementary::log1p(T(-2) * std::fabs(w));
  return detail::finish(s, w < T(0) ? loc - scale * e : loc + scale * e);
}

/// Laplace(loc, scale).
template <class T> AIMZ_MATH_FN T laplace_log_prob(T x, T loc, T scale) {
  if (!std::isfinite(loc) || !detail::pos_finite(scale) || std::isnan(x)) return detail::nan<T>();
  if (std::isinf(x)) return -detail::inf<T>();
  return -T(detail::kLn2) - elementary::log(scale) - std::fabs(x - loc) / scale;
}

// ------------------------------------------------------------------- Logistic

/// Logistic(loc, scale) by inversion: loc + scale (log U - log1p(-U)).
template <class T> AIMZ_HOT_FN T logistic_sample(RandomStream& s, T loc, T scale) {
  if (!std::isfinite(loc) || !detail::pos_finite(scale)) return detail::nan<T>();
  const T u = uniform01<T>(s);
  return detail::finish(s, loc + scale * (elementary::log_uniform(u) - elementary::log1p(-u)));
}

/// Logistic(loc, scale).
template <class T> AIMZ_MATH_FN T logistic_log_prob(T x, T loc, T scale) {
  if (!std::isfinite(loc) || !detail::pos_finite(scale) || std::isnan(x)) return detail::nan<T>();
  if (std::isinf(x)) return -detail::inf<T>();
  const T az = std::fabs((x - loc) / scale);
  return -az - T(2) * elementary::log1p(elementary::exp(-az)) - elementary::log(scale);
}

// --------------------------------------------------------------------- Gumbel

/// Gumbel(loc, scale) by inversion: loc - scale log(-log U).
template <class T> AIMZ_HOT_FN T gumbel_sample(RandomStream& s, T loc, T scale) {
  if (!std::isfinite(loc) || !detail::pos_finite(scale)) return detail::nan<T>();
  const T u = uniform01<T>(s);
  return detail::finish(s, loc - scale * elementary::log(-elementary::log_uniform(u)));
}

/// Gumbel(loc, scale) (the maximum's Gumbel, scipy's gumbel_r).
template <class T> AIMZ_MATH_FN T gumbel_log_prob(T x, T loc, T scale) {
  if (!std::isfinite(loc) || !detail::pos_finite(scale) || std::isnan(x)) return detail::nan<T>();
  if (std::isinf(x)) return -detail::inf<T>();
  const T z = (x - loc) / scale;
  return -(z + elementary::exp(-z)) - elementary::log(scale);
}

// --------------------------------------------------------------------- Pareto

/// Pareto(scale, alpha) by inversion: scale U^(-1/alpha).
template <class T> AIMZ_HOT_FN T pareto_sample(RandomStream& s, T scale, T alpha) {
  if (!detail::pos_finite(scale) || !detail::pos_finite(alpha)) return detail::nan<T>();
  return detail::finish(s, scale * elementary::exp(-elementary::log_uniform(uniform01<T>(s)) / alpha));
}

/// Pareto(scale, alpha) on x >= scale.
template <class T> AIMZ_MATH_FN T pareto_log_prob(T x, T scale, T alpha) {
  if (!detail::pos_finite(scale) || !detail::pos_finite(alpha) || std::isnan(x)) return detail::nan<T>();
  if (x < scale || std::isinf(x)) return -detail::inf<T>();
  return elementary::log(alpha) - elementary::log(scale) - (alpha + T(1)) * elementary::log(x / scale);
}

// -------------------------------------------------------------------- Weibull

/// Weibull(scale, concentration) by inversion: scale (-log U)^(1/k).
template <class T> AIMZ_HOT_FN T weibull_sample(RandomStream& s, T scale, T concentration) {
  if (!detail::pos_finite(scale) || !detail::pos_finite(concentration)) return detail::nan<T>();
  const T e = -elementary::log_uniform(uniform01<T>(s));
  return detail::finish(s, scale * elementary::exp(elementary::log(e) / concentration));
}

/// Weibull(scale, concentration) on x >= 0.
template <class T> AIMZ_MATH_FN T weibull_log_prob(T x, T scale, T concentration) {
  const T k = concentration;
  if (!detail::pos_finite(scale) || !detail::pos_finite(k) || std::isnan(x)) return detail::nan<T>();
  if (x < T(0) || std::isinf(x)) return -detail::inf<T>();
  const T z = x / scale;
  if (x == T(0)) return k < T(1) ? detail::inf<T>() : k == T(1) ? -elementary::log(scale) : -detail::inf<T>();
  return elementary::log(k / scale) + (k - T(1)) * elementary::log(z) - std::pow(z, k);
}

}  // namespace math
}  // namespace aimz
