// Normalised log densities / log mass functions (all constants included),
// matching scipy.stats logpdf / logpmf.
//
// Conventions (see docs/math.md):
//   * invalid parameters (NaN, scale <= 0, probs outside [0, 1], non-integer
//     total_count, ...)            -> NaN
//   * NaN observation              -> NaN
//   * observation outside support  -> -inf (never NaN)
//   * at a boundary where the density is infinite (Gamma/Beta with
//     concentration < 1 at 0)      -> +inf, as scipy.
// Discrete log mass functions take the observation as any arithmetic type X
// (integers, float or double); non-integer or infinite values give -inf.
#pragma once

#include "aimz/math/Special.h"

namespace aimz {
namespace math {

namespace detail {

/// log1p(z^2) without overflow for large |z|.
template <class T> AIMZ_MATH_FN T log1p_sq(T z) {
  const T az = std::fabs(z);
  if (az <= T(1)) return std::log1p(az * az);
  const T r = T(1) / az;
  return T(2) * std::log(az) + std::log1p(r * r);
}

/// Classification of a discrete observation: returns 0 and sets *out when
/// x is a finite integer, 1 when x is NaN, 2 when x is not an integer / not
/// finite.
template <class X> AIMZ_MATH_FN int count_value(X x, double* out) {
  static_assert(std::is_arithmetic<X>::value, "observations must be arithmetic");
  const double d = static_cast<double>(x);
  if (std::is_integral<X>::value) {
    *out = d;
    return 0;
  }
  if (std::isnan(d)) return 1;
  if (!std::isfinite(d) || std::floor(d) != d) return 2;
  *out = d;
  return 0;
}

}  // namespace detail

// ---------------------------------------------------------------- continuous

/// Normal(loc, scale), scale > 0.
template <class T> AIMZ_MATH_FN T normal_log_prob(T x, T loc, T scale) {
  static_assert(detail::IsReal<T>::value, "T must be float or double");
  if (!std::isfinite(loc) || !detail::pos_finite(scale) || std::isnan(x)) return detail::nan<T>();
  const T z = (x - loc) / scale;
  return T(-0.5) * z * z - std::log(scale) - T(detail::kLnSqrt2Pi);
}

/// HalfNormal(scale): support x >= 0.
template <class T> AIMZ_MATH_FN T half_normal_log_prob(T x, T scale) {
  if (!detail::pos_finite(scale) || std::isnan(x)) return detail::nan<T>();
  if (x < T(0)) return -detail::inf<T>();
  const T z = x / scale;
  return T(-0.5) * z * z - std::log(scale) - T(detail::kLnSqrtPiOver2);
}

/// LogNormal(loc, scale): log(x) ~ Normal(loc, scale); support x > 0.
template <class T> AIMZ_MATH_FN T log_normal_log_prob(T x, T loc, T scale) {
  if (!std::isfinite(loc) || !detail::pos_finite(scale) || std::isnan(x)) return detail::nan<T>();
  if (!(x > T(0)) || std::isinf(x)) return -detail::inf<T>();
  const T lx = std::log(x);
  const T z = (lx - loc) / scale;
  return T(-0.5) * z * z - lx - std::log(scale) - T(detail::kLnSqrt2Pi);
}

/// Exponential(rate): support x >= 0.
template <class T> AIMZ_MATH_FN T exponential_log_prob(T x, T rate) {
  if (!detail::pos_finite(rate) || std::isnan(x)) return detail::nan<T>();
  if (x < T(0)) return -detail::inf<T>();
  return std::log(rate) - rate * x;
}

/// Gamma(concentration, rate): density rate^a x^(a-1) exp(-rate x) / Gamma(a)
/// on x >= 0 (x = 0 gives +inf for a < 1, log(rate) for a = 1, -inf for a > 1).
template <class T> AIMZ_MATH_FN T gamma_log_prob(T x, T concentration, T rate) {
  const T a = concentration;
  if (!detail::pos_finite(a) || !detail::pos_finite(rate) || std::isnan(x)) return detail::nan<T>();
  if (x < T(0) || std::isinf(x)) return -detail::inf<T>();
  if (x == T(0)) {
    if (a < T(1)) return detail::inf<T>();
    if (a == T(1)) return std::log(rate);
    return -detail::inf<T>();
  }
  const T lam = rate * x;
  if (a < T(1)) {
    // f = (rate x)^a e^{-rate x} / Gamma(a + 1) * a / x
    return detail::log_poisson_raw(a, lam) + std::log(a / x);
  }
  // f = rate * (rate x)^(a-1) e^{-rate x} / Gamma(a)
  return detail::log_poisson_raw(a - T(1), lam) + std::log(rate);
}

/// Beta(concentration1, concentration0) on [0, 1].
template <class T> AIMZ_MATH_FN T beta_log_prob(T x, T concentration1, T concentration0) {
  const T a = concentration1;
  const T b = concentration0;
  if (!detail::pos_finite(a) || !detail::pos_finite(b) || std::isnan(x)) return detail::nan<T>();
  if (x < T(0) || x > T(1)) return -detail::inf<T>();
  if (x == T(0)) {
    if (a < T(1)) return detail::inf<T>();
    if (a == T(1)) return std::log(b);  // 1 / B(1, b) = b
    return -detail::inf<T>();
  }
  if (x == T(1)) {
    if (b < T(1)) return detail::inf<T>();
    if (b == T(1)) return std::log(a);
    return -detail::inf<T>();
  }
  const T lx = std::log(x);
  const T l1mx = std::log1p(-x);
  if (a <= T(2) || b <= T(2)) {
    return xlogy(a - T(1), x) + (b - T(1)) * l1mx - log_beta(a, b);
  }
  // f = (a + b - 1) * Binomial(a - 1; a + b - 2, x)   (R's dbeta)
  return std::log(a + b - T(1)) + detail::log_binom_raw(a - T(1), b - T(1), a + b - T(2), x, T(1) - x, lx, l1mx);
}

/// Uniform(low, high): support [low, high].
template <class T> AIMZ_MATH_FN T uniform_log_prob(T x, T low, T high) {
  if (!std::isfinite(low) || !std::isfinite(high) || !(low < high) || std::isnan(x)) return detail::nan<T>();
  if (x < low || x > high) return -detail::inf<T>();
  return -std::log(high - low);
}

/// Cauchy(loc, scale).
template <class T> AIMZ_MATH_FN T cauchy_log_prob(T x, T loc, T scale) {
  if (!std::isfinite(loc) || !detail::pos_finite(scale) || std::isnan(x)) return detail::nan<T>();
  if (std::isinf(x)) return -detail::inf<T>();
  const T z = (x - loc) / scale;
  return -T(detail::kLnPi) - std::log(scale) - detail::log1p_sq(z);
}

/// HalfCauchy(scale): support x >= 0.
template <class T> AIMZ_MATH_FN T half_cauchy_log_prob(T x, T scale) {
  if (!detail::pos_finite(scale) || std::isnan(x)) return detail::nan<T>();
  if (x < T(0) || std::isinf(x)) return -detail::inf<T>();
  const T z = x / scale;
  return T(detail::kLn2 - detail::kLnPi) - std::log(scale) - detail::log1p_sq(z);
}

/// StudentT(df, loc, scale), df > 0; df = +inf is the Normal(loc, scale) limit.
template <class T> AIMZ_MATH_FN T student_t_log_prob(T x, T df, T loc, T scale) {
  if (!(df > T(0)) || !std::isfinite(loc) || !detail::pos_finite(scale) || std::isnan(x)) return detail::nan<T>();
  if (std::isinf(df)) return normal_log_prob(x, loc, scale);
  if (std::isinf(x)) return -detail::inf<T>();
  const T z = (x - loc) / scale;
  // log1p(z^2 / df) without overflow
  const T t = std::fabs(z) / std::sqrt(df);
  T l;
  if (t <= T(1)) {
    l = std::log1p(z * z / df);
  } else {
    const T r = T(1) / t;
    l = T(2) * std::log(t) + std::log1p(r * r);
  }
  // Gamma((df+1)/2) / (Gamma(df/2) sqrt(pi)) = 1 / B(df/2, 1/2)
  return -log_beta(T(0.5) * df, T(0.5)) - T(0.5) * std::log(df) - std::log(scale) - T(0.5) * (df + T(1)) * l;
}

// ------------------------------------------------------------------ discrete

/// Bernoulli(probs): support {0, 1}.
template <class T, class X> AIMZ_MATH_FN T bernoulli_log_prob(X x, T probs) {
  static_assert(detail::IsReal<T>::value, "T must be float or double");
  if (!detail::valid_prob(probs)) return detail::nan<T>();
  double k;
  const int c = detail::count_value(x, &k);
  if (c == 1) return detail::nan<T>();
  if (c == 2) return -detail::inf<T>();
  if (k == 1.0) return std::log(probs);
  if (k == 0.0) return std::log1p(-probs);
  return -detail::inf<T>();
}

/// Bernoulli with probs = sigmoid(logits); logits may be +-inf.
template <class T, class X> AIMZ_MATH_FN T bernoulli_logits_log_prob(X x, T logits) {
  static_assert(detail::IsReal<T>::value, "T must be float or double");
  if (std::isnan(logits)) return detail::nan<T>();
  double k;
  const int c = detail::count_value(x, &k);
  if (c == 1) return detail::nan<T>();
  if (c == 2) return -detail::inf<T>();
  if (k == 1.0) return -softplus(-logits);
  if (k == 0.0) return -softplus(logits);
  return -detail::inf<T>();
}

/// Binomial(total_count, probs): support {0, ..., total_count}.
template <class T, class X> AIMZ_MATH_FN T binomial_log_prob(X x, T total_count, T probs) {
  static_assert(detail::IsReal<T>::value, "T must be float or double");
  if (!detail::valid_total_count(total_count) || !detail::valid_prob(probs)) return detail::nan<T>();
  double k;
  const int c = detail::count_value(x, &k);
  if (c == 1) return detail::nan<T>();
  if (c == 2 || k < 0.0 || k > static_cast<double>(total_count)) return -detail::inf<T>();
  const T kt = static_cast<T>(k);
  const T n = total_count;
  return detail::log_binom_raw(kt, n - kt, n, probs, T(1) - probs, std::log(probs), std::log1p(-probs));
}

/// Binomial with probs = sigmoid(logits); logits may be +-inf.
template <class T, class X> AIMZ_MATH_FN T binomial_logits_log_prob(X x, T total_count, T logits) {
  static_assert(detail::IsReal<T>::value, "T must be float or double");
  if (!detail::valid_total_count(total_count) || std::isnan(logits)) return detail::nan<T>();
  double k;
  const int c = detail::count_value(x, &k);
  if (c == 1) return detail::nan<T>();
  if (c == 2 || k < 0.0 || k > static_cast<double>(total_count)) return -detail::inf<T>();
  const T kt = static_cast<T>(k);
  const T n = total_count;
  return detail::log_binom_raw(kt, n - kt, n, sigmoid(logits), sigmoid(-logits), -softplus(-logits),
                               -softplus(logits));
}

/// Poisson(rate), rate >= 0 (rate = 0 is the point mass at 0).
template <class T, class X> AIMZ_MATH_FN T poisson_log_prob(X x, T rate) {
  static_assert(detail::IsReal<T>::value, "T must be float or double");
  if (!(rate >= T(0)) || std::isinf(rate)) return detail::nan<T>();
  double k;
  const int c = detail::count_value(x, &k);
  if (c == 1) return detail::nan<T>();
  if (c == 2 || k < 0.0) return -detail::inf<T>();
  return detail::log_poisson_raw(static_cast<T>(k), rate);
}

}  // namespace math
}  // namespace aimz
