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

// ------------------------------------------------ more continuous families

/// Laplace(loc, scale).
template <class T> AIMZ_MATH_FN T laplace_log_prob(T x, T loc, T scale) {
  if (!std::isfinite(loc) || !detail::pos_finite(scale) || std::isnan(x)) return detail::nan<T>();
  if (std::isinf(x)) return -detail::inf<T>();
  return -T(detail::kLn2) - std::log(scale) - std::fabs(x - loc) / scale;
}

/// Logistic(loc, scale).
template <class T> AIMZ_MATH_FN T logistic_log_prob(T x, T loc, T scale) {
  if (!std::isfinite(loc) || !detail::pos_finite(scale) || std::isnan(x)) return detail::nan<T>();
  if (std::isinf(x)) return -detail::inf<T>();
  const T az = std::fabs((x - loc) / scale);
  return -az - T(2) * std::log1p(std::exp(-az)) - std::log(scale);
}

/// Gumbel(loc, scale) (the maximum's Gumbel, scipy's gumbel_r).
template <class T> AIMZ_MATH_FN T gumbel_log_prob(T x, T loc, T scale) {
  if (!std::isfinite(loc) || !detail::pos_finite(scale) || std::isnan(x)) return detail::nan<T>();
  if (std::isinf(x)) return -detail::inf<T>();
  const T z = (x - loc) / scale;
  return -(z + std::exp(-z)) - std::log(scale);
}

/// InverseGamma(concentration, rate) on x > 0.
template <class T> AIMZ_MATH_FN T inverse_gamma_log_prob(T x, T concentration, T rate) {
  const T a = concentration;
  if (!detail::pos_finite(a) || !detail::pos_finite(rate) || std::isnan(x)) return detail::nan<T>();
  if (!(x > T(0)) || std::isinf(x)) return -detail::inf<T>();
  // f = (rate/x)^a e^{-rate/x} / (x Gamma(a))
  return detail::log_poisson_raw(a, rate / x) + std::log(a / x);
}

/// Pareto(scale, alpha) on x >= scale.
template <class T> AIMZ_MATH_FN T pareto_log_prob(T x, T scale, T alpha) {
  if (!detail::pos_finite(scale) || !detail::pos_finite(alpha) || std::isnan(x)) return detail::nan<T>();
  if (x < scale || std::isinf(x)) return -detail::inf<T>();
  return std::log(alpha) - std::log(scale) - (alpha + T(1)) * std::log(x / scale);
}

/// Weibull(scale, concentration) on x >= 0.
template <class T> AIMZ_MATH_FN T weibull_log_prob(T x, T scale, T concentration) {
  const T k = concentration;
  if (!detail::pos_finite(scale) || !detail::pos_finite(k) || std::isnan(x)) return detail::nan<T>();
  if (x < T(0) || std::isinf(x)) return -detail::inf<T>();
  const T z = x / scale;
  if (x == T(0)) return k < T(1) ? detail::inf<T>() : k == T(1) ? -std::log(scale) : -detail::inf<T>();
  return std::log(k / scale) + (k - T(1)) * std::log(z) - std::pow(z, k);
}

/// TruncatedNormal(loc, scale, low, high): the normal density renormalized
/// on [low, high] (bounds may be infinite). Computes in double.
template <class T> AIMZ_MATH_FN T truncated_normal_log_prob(T x, T loc, T scale, T low, T high) {
  if (!std::isfinite(loc) || !detail::pos_finite(scale) || std::isnan(low) || std::isnan(high) || !(low < high) ||
      std::isnan(x))
    return detail::nan<T>();
  if (x < low || x > high || std::isinf(x)) return -detail::inf<T>();
  const double m = static_cast<double>(loc), sd = static_cast<double>(scale);
  const double z = (static_cast<double>(x) - m) / sd;
  const double a = (static_cast<double>(low) - m) / sd, b = (static_cast<double>(high) - m) / sd;
  return static_cast<T>(-0.5 * z * z - std::log(sd) - detail::kLnSqrt2Pi - log_normal_mass(a, b));
}

// --------------------------------------------------- more discrete families

namespace detail {

/// log of Gamma(k + a) / (Gamma(a) k!) p0^a p1^k, given log p0 and log p1:
/// the negative binomial family.
template <class T> AIMZ_MATH_FN T log_nb_raw(T k, T a, T log_p0, T log_p1) {
  if (k == T(0)) return a * log_p0;
  return -log_beta(a, k + T(1)) - std::log(a + k) + a * log_p0 + k * log_p1;
}

/// log(exp(x) + exp(y)) with -inf arguments allowed.
template <class T> AIMZ_MATH_FN T log_add_exp(T x, T y) {
  const T m = x > y ? x : y;
  if (m == -inf<T>()) return m;
  return m + std::log1p(std::exp(-std::fabs(x - y)));
}

/// A zero-inflated count: log_gate / log_keep are log(gate), log(1 - gate);
/// base is the base distribution's log mass at k.
template <class T> AIMZ_MATH_FN T zero_inflated(double k, T log_gate, T log_keep, T base) {
  if (k == 0.0) return log_add_exp(log_gate, log_keep + base);
  return log_keep + base;
}

}  // namespace detail

#define AIMZ_COUNT_OBSERVATION(x, k)                                  \
  double k;                                                           \
  {                                                                   \
    const int c_ = detail::count_value(x, &k);                        \
    if (c_ == 1) return detail::nan<T>();                             \
    if (c_ == 2 || k < 0.0) return -detail::inf<T>();                 \
  }

/// GammaPoisson(concentration, rate): Poisson(Gamma(concentration, rate)).
template <class T, class X> AIMZ_MATH_FN T gamma_poisson_log_prob(X x, T concentration, T rate) {
  if (!detail::pos_finite(concentration) || !detail::pos_finite(rate)) return detail::nan<T>();
  AIMZ_COUNT_OBSERVATION(x, k)
  return detail::log_nb_raw(static_cast<T>(k), concentration, -std::log1p(T(1) / rate), -std::log1p(rate));
}

/// NegativeBinomial2(mean, concentration).
template <class T, class X> AIMZ_MATH_FN T negative_binomial2_log_prob(X x, T mean, T concentration) {
  if (!detail::pos_finite(mean) || !detail::pos_finite(concentration)) return detail::nan<T>();
  AIMZ_COUNT_OBSERVATION(x, k)
  return detail::log_nb_raw(static_cast<T>(k), concentration, -std::log1p(mean / concentration),
                            -std::log1p(concentration / mean));
}

/// NegativeBinomialProbs(total_count, probs): mean total_count p / (1 - p).
template <class T, class X> AIMZ_MATH_FN T negative_binomial_probs_log_prob(X x, T total_count, T probs) {
  if (!detail::pos_finite(total_count) || !(probs >= T(0) && probs < T(1))) return detail::nan<T>();
  AIMZ_COUNT_OBSERVATION(x, k)
  if (probs == T(0)) return k == 0.0 ? T(0) : -detail::inf<T>();
  return detail::log_nb_raw(static_cast<T>(k), total_count, std::log1p(-probs), std::log(probs));
}

/// NegativeBinomialLogits(total_count, logits): probs = sigmoid(logits).
template <class T, class X> AIMZ_MATH_FN T negative_binomial_logits_log_prob(X x, T total_count, T logits) {
  if (!detail::pos_finite(total_count) || std::isnan(logits) || logits == detail::inf<T>()) return detail::nan<T>();
  AIMZ_COUNT_OBSERVATION(x, k)
  if (logits == -detail::inf<T>()) return k == 0.0 ? T(0) : -detail::inf<T>();
  return detail::log_nb_raw(static_cast<T>(k), total_count, -softplus(logits), -softplus(-logits));
}

/// ZeroInflatedPoisson(gate, rate).
template <class T, class X> AIMZ_MATH_FN T zero_inflated_poisson_log_prob(X x, T gate, T rate) {
  if (!detail::valid_prob(gate) || !(rate >= T(0)) || std::isinf(rate)) return detail::nan<T>();
  AIMZ_COUNT_OBSERVATION(x, k)
  return detail::zero_inflated(k, std::log(gate), std::log1p(-gate),
                               detail::log_poisson_raw(static_cast<T>(k), rate));
}

/// ZeroInflatedPoisson(gate_logits=, rate); parameters in (rate, logits) order.
template <class T, class X> AIMZ_MATH_FN T zero_inflated_poisson_logits_log_prob(X x, T rate, T gate_logits) {
  if (std::isnan(gate_logits) || !(rate >= T(0)) || std::isinf(rate)) return detail::nan<T>();
  AIMZ_COUNT_OBSERVATION(x, k)
  return detail::zero_inflated(k, -softplus(-gate_logits), -softplus(gate_logits),
                               detail::log_poisson_raw(static_cast<T>(k), rate));
}

/// ZeroInflatedNegativeBinomial2(mean, concentration, gate).
template <class T, class X>
AIMZ_MATH_FN T zero_inflated_negative_binomial2_log_prob(X x, T mean, T concentration, T gate) {
  if (!detail::valid_prob(gate)) return detail::nan<T>();
  const T base = negative_binomial2_log_prob<T, X>(x, mean, concentration);
  if (std::isnan(base)) return base;
  AIMZ_COUNT_OBSERVATION(x, k)
  return detail::zero_inflated(k, std::log(gate), std::log1p(-gate), base);
}

/// ZeroInflatedNegativeBinomial2(mean, concentration, gate_logits=).
template <class T, class X>
AIMZ_MATH_FN T zero_inflated_negative_binomial2_logits_log_prob(X x, T mean, T concentration, T gate_logits) {
  if (std::isnan(gate_logits)) return detail::nan<T>();
  const T base = negative_binomial2_log_prob<T, X>(x, mean, concentration);
  if (std::isnan(base)) return base;
  AIMZ_COUNT_OBSERVATION(x, k)
  return detail::zero_inflated(k, -softplus(-gate_logits), -softplus(gate_logits), base);
}

/// BetaBinomial(concentration1, concentration0, total_count).
template <class T, class X>
AIMZ_MATH_FN T beta_binomial_log_prob(X x, T concentration1, T concentration0, T total_count) {
  const T a = concentration1, b = concentration0, n = total_count;
  if (!detail::pos_finite(a) || !detail::pos_finite(b) || !detail::valid_total_count(n)) return detail::nan<T>();
  AIMZ_COUNT_OBSERVATION(x, k)
  if (k > static_cast<double>(n)) return -detail::inf<T>();
  const T kt = static_cast<T>(k);
  // log C(n, k) + log B(k + a, n - k + b) - log B(a, b)
  return -std::log(n + T(1)) - log_beta(n - kt + T(1), kt + T(1)) + log_beta(kt + a, n - kt + b) - log_beta(a, b);
}

#undef AIMZ_COUNT_OBSERVATION

}  // namespace math
}  // namespace aimz
