// Distributions NumPyro users reach for beyond the first families, each with
// a closed-form density and a sampler by inversion or through a family
// already here (NumPyro's parameters and conventions):
//
//   AsymmetricLaplace(loc, scale, asymmetry)  left scale scale * asymmetry,
//                                             right scale scale / asymmetry
//   Kumaraswamy(concentration1, concentration0)  on [0, 1]
//   LogUniform(low, high)                     log x ~ Uniform(log low, log high)
//   BetaProportion(mean, concentration)       Beta(mean c, (1 - mean) c)
//   Chi2(df)                                  Gamma(df / 2, 1 / 2)
//   Geometric(probs=|logits=)                 failures before the first
//                                             success, P(k) = p (1 - p)^k
#pragma once

#include "aimz/math/GammaFamilies.h"
#include "aimz/math/LogDensity.h"
#include "aimz/math/Samplers.h"

namespace aimz {
namespace math {

// ------------------------------------------------------------ log densities

template <class T> AIMZ_MATH_FN T asymmetric_laplace_log_prob(T x, T loc, T scale, T asymmetry) {
  if (!std::isfinite(loc) || !detail::pos_finite(scale) || !detail::pos_finite(asymmetry) || std::isnan(x))
    return detail::nan<T>();
  if (std::isinf(x)) return -detail::inf<T>();
  const T left = scale * asymmetry, right = scale / asymmetry;
  const T z = x - loc;
  return -std::fabs(z) / (z < T(0) ? left : right) - elementary::log(left + right);
}

/// a b x^(a-1) (1 - x^a)^(b-1) on [0, 1]; at the ends the limits (+inf,
/// log(a b) or -inf as a or b is below, at or above 1).
template <class T> AIMZ_MATH_FN T kumaraswamy_log_prob(T x, T concentration1, T concentration0) {
  const T a = concentration1, b = concentration0;
  if (!detail::pos_finite(a) || !detail::pos_finite(b) || std::isnan(x)) return detail::nan<T>();
  if (x < T(0) || x > T(1)) return -detail::inf<T>();
  const T log_ab = elementary::log(a) + elementary::log(b);
  if (x == T(0)) return a < T(1) ? detail::inf<T>() : a == T(1) ? log_ab : -detail::inf<T>();
  if (x == T(1)) return b < T(1) ? detail::inf<T>() : b == T(1) ? log_ab : -detail::inf<T>();
  const T log_x = elementary::log(x);
  // log(1 - x^a) = log(-expm1(a log x)), accurate for x^a near 0 and near 1
  return log_ab + (a - T(1)) * log_x + (b - T(1)) * elementary::log(-std::expm1(a * log_x));
}

template <class T> AIMZ_MATH_FN T log_uniform_log_prob(T x, T low, T high) {
  if (!detail::pos_finite(low) || !detail::pos_finite(high) || !(low < high) || std::isnan(x))
    return detail::nan<T>();
  if (x < low || x > high) return -detail::inf<T>();
  return -elementary::log(x) - elementary::log(elementary::log(high) - elementary::log(low));
}

template <class T> AIMZ_MATH_FN T beta_proportion_log_prob(T x, T mean, T concentration) {
  if (!(mean > T(0) && mean < T(1)) || !detail::pos_finite(concentration)) return detail::nan<T>();
  return beta_log_prob(x, mean * concentration, (T(1) - mean) * concentration);
}

template <class T> AIMZ_MATH_FN T chi2_log_prob(T x, T df) {
  return gamma_log_prob(x, df * T(0.5), T(0.5));
}

/// Geometric(probs) with probs in (0, 1] (1: every value 0).
template <class T, class X> AIMZ_MATH_FN T geometric_log_prob(X x, T probs) {
  const bool valid = probs > T(0) && probs <= T(1);
  const detail::CountObservation<T> c = detail::count_observation<T>(x);
  const T p = valid ? probs : T(0.5);
  const T value = p == T(1) ? (c.k == T(0) ? T(0) : -detail::inf<T>())
                            : elementary::log(p) + c.k * elementary::log1p(-p);
  return c.density(valid, value);
}

/// Geometric(logits=): probs = sigmoid(logits), logits in (-inf, +inf].
template <class T, class X> AIMZ_MATH_FN T geometric_logits_log_prob(X x, T logits) {
  const bool valid = !std::isnan(logits) && logits != -detail::inf<T>();
  const detail::CountObservation<T> c = detail::count_observation<T>(x);
  const T l = valid ? logits : T(0);
  const T value = l == detail::inf<T>() ? (c.k == T(0) ? T(0) : -detail::inf<T>())
                                        : -softplus(-l) - c.k * softplus(l);
  return c.density(valid, value);
}

// ----------------------------------------------------------------- samplers

/// By inversion of the CDF: below loc with probability left / (left + right).
template <class T> AIMZ_HOT_FN T asymmetric_laplace_sample(RandomStream& s, T loc, T scale, T asymmetry) {
  if (!std::isfinite(loc) || !detail::pos_finite(scale) || !detail::pos_finite(asymmetry)) return detail::nan<T>();
  const T left = scale * asymmetry, right = scale / asymmetry;
  const T t = left / (left + right);
  const T u = uniform01<T>(s);
  const T x = u < t ? loc + left * elementary::log(u / t) : loc - right * elementary::log((T(1) - u) / (T(1) - t));
  return detail::finish(s, x);
}

/// By inversion: (1 - (1 - u)^(1/b))^(1/a).
template <class T> AIMZ_HOT_FN T kumaraswamy_sample(RandomStream& s, T concentration1, T concentration0) {
  const T a = concentration1, b = concentration0;
  if (!detail::pos_finite(a) || !detail::pos_finite(b)) return detail::nan<T>();
  const T u = uniform01<T>(s);
  const T y = -std::expm1(elementary::log1p(-u) / b);  // 1 - (1 - u)^(1/b)
  return detail::finish(s, elementary::exp(elementary::log(y) / a));
}

template <class T> AIMZ_HOT_FN T log_uniform_sample(RandomStream& s, T low, T high) {
  if (!detail::pos_finite(low) || !detail::pos_finite(high) || !(low < high)) return detail::nan<T>();
  const T lo = elementary::log(low), hi = elementary::log(high);
  T x = elementary::exp(lo + (hi - lo) * uniform01<T>(s));
  x = x < low ? low : x > high ? high : x;  // rounding at the ends
  return detail::finish(s, x);
}

template <class T> AIMZ_MATH_FN T beta_proportion_sample(RandomStream& s, T mean, T concentration) {
  if (!(mean > T(0) && mean < T(1)) || !detail::pos_finite(concentration)) return detail::nan<T>();
  return beta_sample<T>(s, mean * concentration, (T(1) - mean) * concentration);
}

template <class T> AIMZ_MATH_FN T chi2_sample(RandomStream& s, T df) {
  return gamma_sample<T>(s, df * T(0.5), T(0.5));
}

namespace detail {
/// floor(log u / log(1 - p)) given log(1 - p) < 0; kInvalidCount past int32.
AIMZ_MATH_FN std::int32_t geometric_inversion(RandomStream& s, double log_q) {
  const double k = std::floor(elementary::log_uniform(uniform01<double>(s)) / log_q);
  return k < 2147483647.0 ? finish_count(s, k) : kInvalidCount;
}
}  // namespace detail

template <class T> AIMZ_MATH_FN std::int32_t geometric_sample(RandomStream& s, T probs) {
  const double p = static_cast<double>(probs);
  if (!(p > 0.0 && p <= 1.0)) return kInvalidCount;
  if (p == 1.0) return detail::finish_count(s, 0.0);
  return detail::geometric_inversion(s, elementary::log1p(-p));
}

template <class T> AIMZ_MATH_FN std::int32_t geometric_logits_sample(RandomStream& s, T logits) {
  const double l = static_cast<double>(logits);
  if (std::isnan(l) || l == -detail::inf<double>()) return kInvalidCount;
  if (l == detail::inf<double>()) return detail::finish_count(s, 0.0);
  return detail::geometric_inversion(s, -softplus(l));
}

}  // namespace math
}  // namespace aimz
