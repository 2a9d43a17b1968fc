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
  if (az <= T(1)) return elementary::log1p(az * az);
  const T r = T(1) / az;
  return T(2) * elementary::log(az) + elementary::log1p(r * r);
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

/// A discrete observation for the branch-free densities below: ok when x is
/// a finite whole number >= 0 (k is then its value in T, else 0); other is
/// the density anywhere else: NaN at NaN, -inf off the support. The
/// densities compute on k unconditionally and select at the end, so that a
/// row of them vectorizes (no branch, no libm call) with the scalar bits.
template <class T> struct CountObservation {
  T k;
  bool ok;
  T other;

  /// The density: NaN for invalid parameters, `other` off the support,
  /// else value (computed on k whatever the case).
  AIMZ_HOT_FN T density(bool valid, T value) const { return !valid ? nan<T>() : !ok ? other : value; }
};

template <class T, class X> AIMZ_HOT_FN CountObservation<T> count_observation(X x) {
  static_assert(std::is_arithmetic<X>::value, "observations must be arithmetic");
  using C = typename std::conditional<std::is_integral<X>::value, double, X>::type;
  const C d = static_cast<C>(x);
  const bool ok = std::is_integral<X>::value ? d >= C(0) : std::isfinite(d) && std::floor(d) == d && d >= C(0);
  return {ok ? static_cast<T>(d) : T(0), ok, d != d ? nan<T>() : -inf<T>()};
}

}  // namespace detail

// ---------------------------------------------------------------- continuous

/// Normal(loc, scale), scale > 0.
template <class T> AIMZ_MATH_FN T normal_log_prob(T x, T loc, T scale) {
  static_assert(detail::IsReal<T>::value, "T must be float or double");
  if (!std::isfinite(loc) || !detail::pos_finite(scale) || std::isnan(x)) return detail::nan<T>();
  const T z = (x - loc) / scale;
  return T(-0.5) * z * z - elementary::log(scale) - T(detail::kLnSqrt2Pi);
}

/// HalfNormal(scale): support x >= 0.
template <class T> AIMZ_MATH_FN T half_normal_log_prob(T x, T scale) {
  if (!detail::pos_finite(scale) || std::isnan(x)) return detail::nan<T>();
  if (x < T(0)) return -detail::inf<T>();
  const T z = x / scale;
  return T(-0.5) * z * z - elementary::log(scale) - T(detail::kLnSqrtPiOver2);
}

/// LogNormal(loc, scale): log(x) ~ Normal(loc, scale); support x > 0.
template <class T> AIMZ_MATH_FN T log_normal_log_prob(T x, T loc, T scale) {
  if (!std::isfinite(loc) || !detail::pos_finite(scale) || std::isnan(x)) return detail::nan<T>();
  if (!(x > T(0)) || std::isinf(x)) return -detail::inf<T>();
  const T lx = elementary::log(x);
  const T z = (lx - loc) / scale;
  return T(-0.5) * z * z - lx - elementary::log(scale) - T(detail::kLnSqrt2Pi);
}

/// Exponential(rate): support x >= 0.
template <class T> AIMZ_MATH_FN T exponential_log_prob(T x, T rate) {
  if (!detail::pos_finite(rate) || std::isnan(x)) return detail::nan<T>();
  if (x < T(0)) return -detail::inf<T>();
  return elementary::log(rate) - rate * x;
}

/// Gamma(concentration, rate): density rate^a x^(a-1) exp(-rate x) / Gamma(a)
/// on x >= 0 (x = 0 gives +inf for a < 1, log(rate) for a = 1, -inf for a > 1).
template <class T> AIMZ_MATH_FN T gamma_log_prob(T x, T concentration, T rate) {
  const T a = concentration;
  if (!detail::pos_finite(a) || !detail::pos_finite(rate) || std::isnan(x)) return detail::nan<T>();
  if (x < T(0) || std::isinf(x)) return -detail::inf<T>();
  if (x == T(0)) {
    if (a < T(1)) return detail::inf<T>();
    if (a == T(1)) return elementary::log(rate);
    return -detail::inf<T>();
  }
  const T lam = rate * x;
  if (a < T(1)) {
    // f = (rate x)^a e^{-rate x} / Gamma(a + 1) * a / x
    return detail::log_poisson_raw(a, lam) + elementary::log(a / x);
  }
  // f = rate * (rate x)^(a-1) e^{-rate x} / Gamma(a)
  return detail::log_poisson_raw(a - T(1), lam) + elementary::log(rate);
}

/// Beta(concentration1, concentration0) on [0, 1].
template <class T> AIMZ_MATH_FN T beta_log_prob(T x, T concentration1, T concentration0) {
  const T a = concentration1;
  const T b = concentration0;
  if (!detail::pos_finite(a) || !detail::pos_finite(b) || std::isnan(x)) return detail::nan<T>();
  if (x < T(0) || x > T(1)) return -detail::inf<T>();
  if (x == T(0)) {
    if (a < T(1)) return detail::inf<T>();
    if (a == T(1)) return elementary::log(b);  // 1 / B(1, b) = b
    return -detail::inf<T>();
  }
  if (x == T(1)) {
    if (b < T(1)) return detail::inf<T>();
    if (b == T(1)) return elementary::log(a);
    return -detail::inf<T>();
  }
  const T lx = elementary::log(x);
  const T l1mx = elementary::log1p(-x);
  if (a <= T(2) || b <= T(2)) {
    return xlogy(a - T(1), x) + (b - T(1)) * l1mx - log_beta(a, b);
  }
  // f = (a + b - 1) * Binomial(a - 1; a + b - 2, x)   (R's dbeta)
  return elementary::log(a + b - T(1)) + detail::log_binom_raw(a - T(1), b - T(1), a + b - T(2), x, T(1) - x, lx, l1mx);
}

/// Uniform(low, high): support [low, high].
template <class T> AIMZ_MATH_FN T uniform_log_prob(T x, T low, T high) {
  if (!std::isfinite(low) || !std::isfinite(high) || !(low < high) || std::isnan(x)) return detail::nan<T>();
  if (x < low || x > high) return -detail::inf<T>();
  return -elementary::log(high - low);
}

/// Cauchy(loc, scale).
template <class T> AIMZ_MATH_FN T cauchy_log_prob(T x, T loc, T scale) {
  if (!std::isfinite(loc) || !detail::pos_finite(scale) || std::isnan(x)) return detail::nan<T>();
  if (std::isinf(x)) return -detail::inf<T>();
  const T z = (x - loc) / scale;
  return -T(detail::kLnPi) - elementary::log(scale) - detail::log1p_sq(z);
}

/// HalfCauchy(scale): support x >= 0.
template <class T> AIMZ_MATH_FN T half_cauchy_log_prob(T x, T scale) {
  if (!detail::pos_finite(scale) || std::isnan(x)) return detail::nan<T>();
  if (x < T(0) || std::isinf(x)) return -detail::inf<T>();
  const T z = x / scale;
  return T(detail::kLn2 - detail::kLnPi) - elementary::log(scale) - detail::log1p_sq(z);
}

/// StudentT(df, loc, scale), df > 0; df = +inf is the Normal(loc, scale) limit.
/// Branch-free, so that rows vectorize.
template <class T> AIMZ_MATH_FN T student_t_log_prob(T x, T df, T loc, T scale) {
  const bool valid = df > T(0) && std::isfinite(loc) && detail::pos_finite(scale) && !std::isnan(x);
  const T d = valid && !std::isinf(df) ? df : T(1);
  const T s = valid ? scale : T(1);
  const T z = (x - loc) / s;
  // log1p(z^2 / df) without overflow: 2 log t + log1p(1 / t^2) for t > 1
  const T t = std::fabs(z) / std::sqrt(d);
  const bool inner = t <= T(1);
  const T r = T(1) / (inner ? T(1) : t);
  const T l = elementary::log1p(inner ? z * z / d : r * r) + (inner ? T(0) : T(2) * elementary::log(t));
  // Gamma((df+1)/2) / (Gamma(df/2) sqrt(pi)) = 1 / B(df/2, 1/2)
  const T value = -log_beta(T(0.5) * d, T(0.5)) - T(0.5) * elementary::log(d) - elementary::log(s) - T(0.5) * (d + T(1)) * l;
  return !valid ? detail::nan<T>() : std::isinf(df) ? normal_log_prob(x, loc, scale) : std::isinf(x) ? -detail::inf<T>() : value;
}

// ------------------------------------------------------------------ discrete

/// Bernoulli(probs): support {0, 1}.
template <class T, class X> AIMZ_MATH_FN T bernoulli_log_prob(X x, T probs) {
  static_assert(detail::IsReal<T>::value, "T must be float or double");
  const detail::CountObservation<T> c = detail::count_observation<T>(x);
  const T value = c.k == T(1) ? elementary::log(probs) : elementary::log1p(-probs);
  return c.density(detail::valid_prob(probs), c.k > T(1) ? -detail::inf<T>() : value);
}

/// Bernoulli with probs = sigmoid(logits); logits may be +-inf.
template <class T, class X> AIMZ_MATH_FN T bernoulli_logits_log_prob(X x, T logits) {
  static_assert(detail::IsReal<T>::value, "T must be float or double");
  const detail::CountObservation<T> c = detail::count_observation<T>(x);
  const T value = -softplus(c.k == T(1) ? -logits : logits);
  return c.density(!std::isnan(logits), c.k > T(1) ? -detail::inf<T>() : value);
}

/// Binomial(total_count, probs): support {0, ..., total_count}.
template <class T, class X> AIMZ_MATH_FN T binomial_log_prob(X x, T total_count, T probs) {
  static_assert(detail::IsReal<T>::value, "T must be float or double");
  const bool valid = detail::valid_total_count(total_count) && detail::valid_prob(probs);
  const detail::CountObservation<T> c = detail::count_observation<T>(x);
  const T n = valid ? total_count : T(0);
  const T kt = c.k <= n ? c.k : n;
  const T value = detail::log_binom_raw<T, true>(kt, n - kt, n, probs, T(1) - probs, elementary::log(probs),
                                                 elementary::log1p(-probs));
  return c.density(valid, c.k > total_count ? -detail::inf<T>() : value);
}

/// Binomial with probs = sigmoid(logits); logits may be +-inf.
template <class T, class X> AIMZ_MATH_FN T binomial_logits_log_prob(X x, T total_count, T logits) {
  static_assert(detail::IsReal<T>::value, "T must be float or double");
  const bool valid = detail::valid_total_count(total_count) && !std::isnan(logits);
  const detail::CountObservation<T> c = detail::count_observation<T>(x);
  const T n = valid ? total_count : T(0);
  const T kt = c.k <= n ? c.k : n;
  const T value = detail::log_binom_raw<T, true>(kt, n - kt, n, sigmoid(logits), sigmoid(-logits),
                                                 -softplus(-logits), -softplus(logits));
  return c.density(valid, c.k > total_count ? -detail::inf<T>() : value);
}

/// Poisson(rate), rate >= 0 (rate = 0 is the point mass at 0).
template <class T, class X> AIMZ_MATH_FN T poisson_log_prob(X x, T rate) {
  static_assert(detail::IsReal<T>::value, "T must be float or double");
  const bool valid = rate >= T(0) && !std::isinf(rate);
  const detail::CountObservation<T> c = detail::count_observation<T>(x);
  const T value = detail::log_poisson_raw<T, true>(c.k, valid ? rate : T(1));
  return c.density(valid, value);
}

// ------------------------------------------------ more continuous families

/// Laplace(loc, scale).
template <class T> AIMZ_MATH_FN T laplace_log_prob(T x, T loc, T scale) {
  if (!std::isfinite(loc) || !detail::pos_finite(scale) || std::isnan(x)) return detail::nan<T>();
  if (std::isinf(x)) return -detail::inf<T>();
  return -T(detail::kLn2) - elementary::log(scale) - std::fabs(x - loc) / scale;
}

/// Logistic(loc, scale).
template <class T> AIMZ_MATH_FN T logistic_log_prob(T x, T loc, T scale) {
  if (!std::isfinite(loc) || !detail::pos_finite(scale) || std::isnan(x)) return detail::nan<T>();
  if (std::isinf(x)) return -detail::inf<T>();
  const T az = std::fabs((x - loc) / scale);
  return -az - T(2) * elementary::log1p(elementary::exp(-az)) - elementary::log(scale);
}

/// Gumbel(loc, scale) (the maximum's Gumbel, scipy's gumbel_r).
template <class T> AIMZ_MATH_FN T gumbel_log_prob(T x, T loc, T scale) {
  if (!std::isfinite(loc) || !detail::pos_finite(scale) || std::isnan(x)) return detail::nan<T>();
  if (std::isinf(x)) return -detail::inf<T>();
  const T z = (x - loc) / scale;
  return -(z + elementary::exp(-z)) - elementary::log(scale);
}

/// InverseGamma(concentration, rate) on x > 0.
template <class T> AIMZ_MATH_FN T inverse_gamma_log_prob(T x, T concentration, T rate) {
  const T a = concentration;
  if (!detail::pos_finite(a) || !detail::pos_finite(rate) || std::isnan(x)) return detail::nan<T>();
  if (!(x > T(0)) || std::isinf(x)) return -detail::inf<T>();
  // f = (rate/x)^a e^{-rate/x} / (x Gamma(a))
  return detail::log_poisson_raw(a, rate / x) + elementary::log(a / x);
}

/// Pareto(scale, alpha) on x >= scale.
template <class T> AIMZ_MATH_FN T pareto_log_prob(T x, T scale, T alpha) {
  if (!detail::pos_finite(scale) || !detail::pos_finite(alpha) || std::isnan(x)) return detail::nan<T>();
  if (x < scale || std::isinf(x)) return -detail::inf<T>();
  return elementary::log(alpha) - elementary::log(scale) - (alpha + T(1)) * elementary::log(x / scale);
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

// --------------------------------------------------- more discrete families

namespace detail {

/// log of Gamma(k + a) / (Gamma(a) k!) p0^a p1^k, given log p0 and log p1:
/// the negative binomial family (k a whole number). Branch-free.
template <class T> AIMZ_HOT_FN T log_nb_raw(T k, T a, T log_p0, T log_p1) {
  const T value = -log_beta(a, k + T(1)) - elementary::log(a + k) + a * log_p0 + k * log_p1;
  return k == T(0) ? a * log_p0 : value;
}

/// log(exp(x) + exp(y)) with -inf arguments allowed. Branch-free.
template <class T> AIMZ_HOT_FN T log_add_exp(T x, T y) {
  const T m = x > y ? x : y;
  const T value = m + elementary::log1p(elementary::exp(-std::fabs(x - y)));
  return m == -inf<T>() ? m : value;
}

/// A zero-inflated count: log_gate / log_keep are log(gate), log(1 - gate);
/// base is the base distribution's log mass at k.
template <class T> AIMZ_HOT_FN T zero_inflated(T k, T log_gate, T log_keep, T base) {
  return k == T(0) ? log_add_exp(log_gate, log_keep + base) : log_keep + base;
}

}  // namespace detail

/// GammaPoisson(concentration, rate): Poisson(Gamma(concentration, rate)).
template <class T, class X> AIMZ_MATH_FN T gamma_poisson_log_prob(X x, T concentration, T rate) {
  const bool valid = detail::pos_finite(concentration) && detail::pos_finite(rate);
  const detail::CountObservation<T> c = detail::count_observation<T>(x);
  const T a = valid ? concentration : T(1), r = valid ? rate : T(1);
  const T value = detail::log_nb_raw(c.k, a, -elementary::log1p(T(1) / r), -elementary::log1p(r));
  return c.density(valid, value);
}

/// NegativeBinomial2(mean, concentration).
template <class T, class X> AIMZ_MATH_FN T negative_binomial2_log_prob(X x, T mean, T concentration) {
  const bool valid = detail::pos_finite(mean) && detail::pos_finite(concentration);
  const detail::CountObservation<T> c = detail::count_observation<T>(x);
  const T m = valid ? mean : T(1), a = valid ? concentration : T(1);
  const T value = detail::log_nb_raw(c.k, a, -elementary::log1p(m / a), -elementary::log1p(a / m));
  return c.density(valid, value);
}

/// NegativeBinomialProbs(total_count, probs): mean total_count p / (1 - p).
template <class T, class X> AIMZ_MATH_FN T negative_binomial_probs_log_prob(X x, T total_count, T probs) {
  const bool valid = detail::pos_finite(total_count) && probs >= T(0) && probs < T(1);
  const detail::CountObservation<T> c = detail::count_observation<T>(x);
  const T n = valid ? total_count : T(1);
  const T value = detail::log_nb_raw(c.k, n, elementary::log1p(-probs), elementary::log(probs));
  const T degenerate = c.k == T(0) ? T(0) : -detail::inf<T>();  // probs = 0: all mass at 0
  return c.density(valid, probs == T(0) ? degenerate : value);
}

/// NegativeBinomialLogits(total_count, logits): probs = sigmoid(logits).
template <class T, class X> AIMZ_MATH_FN T negative_binomial_logits_log_prob(X x, T total_count, T logits) {
  const bool valid = detail::pos_finite(total_count) && !std::isnan(logits) && logits != detail::inf<T>();
  const detail::CountObservation<T> c = detail::count_observation<T>(x);
  const T n = valid ? total_count : T(1);
  const T value = detail::log_nb_raw(c.k, n, -softplus(logits), -softplus(-logits));
  const T degenerate = c.k == T(0) ? T(0) : -detail::inf<T>();  // logits = -inf: all mass at 0
  return c.density(valid, logits == -detail::inf<T>() ? degenerate : value);
}

/// ZeroInflatedPoisson(gate, rate).
template <class T, class X> AIMZ_MATH_FN T zero_inflated_poisson_log_prob(X x, T gate, T rate) {
  const bool valid = detail::valid_prob(gate) && rate >= T(0) && !std::isinf(rate);
  const detail::CountObservation<T> c = detail::count_observation<T>(x);
  const T value = detail::zero_inflated(c.k, elementary::log(gate), elementary::log1p(-gate),
                                        detail::log_poisson_raw<T, true>(c.k, valid ? rate : T(1)));
  return c.density(valid, value);
}

/// ZeroInflatedPoisson(gate_logits=, rate); parameters in (rate, logits) order.
template <class T, class X> AIMZ_MATH_FN T zero_inflated_poisson_logits_log_prob(X x, T rate, T gate_logits) {
  const bool valid = !std::isnan(gate_logits) && rate >= T(0) && !std::isinf(rate);
  const detail::CountObservation<T> c = detail::count_observation<T>(x);
  const T value = detail::zero_inflated(c.k, -softplus(-gate_logits), -softplus(gate_logits),
                                        detail::log_poisson_raw<T, true>(c.k, valid ? rate : T(1)));
  return c.density(valid, value);
}

/// ZeroInflatedNegativeBinomial2(mean, concentration, gate).
template <class T, class X>
AIMZ_MATH_FN T zero_inflated_negative_binomial2_log_prob(X x, T mean, T concentration, T gate) {
  const T base = negative_binomial2_log_prob<T, X>(x, mean, concentration);
  const detail::CountObservation<T> c = detail::count_observation<T>(x);
  const T value = detail::zero_inflated(c.k, elementary::log(gate), elementary::log1p(-gate), base);
  return !detail::valid_prob(gate) ? detail::nan<T>() : std::isnan(base) || !c.ok ? base : value;
}

/// ZeroInflatedNegativeBinomial2(mean, concentration, gate_logits=).
template <class T, class X>
AIMZ_MATH_FN T zero_inflated_negative_binomial2_logits_log_prob(X x, T mean, T concentration, T gate_logits) {
  const T base = negative_binomial2_log_prob<T, X>(x, mean, concentration);
  const detail::CountObservation<T> c = detail::count_observation<T>(x);
  const T value = detail::zero_inflated(c.k, -softplus(-gate_logits), -softplus(gate_logits), base);
  return std::isnan(gate_logits) ? detail::nan<T>() : std::isnan(base) || !c.ok ? base : value;
}

/// BetaBinomial(concentration1, concentration0, total_count).
template <class T, class X>
AIMZ_MATH_FN T beta_binomial_log_prob(X x, T concentration1, T concentration0, T total_count) {
  const bool valid =
      detail::pos_finite(concentration1) && detail::pos_finite(concentration0) && detail::valid_total_count(total_count);
  const detail::CountObservation<T> c = detail::count_observation<T>(x);
  const T a = valid ? concentration1 : T(1), b = valid ? concentration0 : T(1), n = valid ? total_count : T(0);
  const T kt = c.k <= n ? c.k : n;
  // log C(n, k) + log B(k + a, n - k + b) - log B(a, b)
  const T value = -elementary::log(n + T(1)) - log_beta(n - kt + T(1), kt + T(1)) + log_beta(kt + a, n - kt + b) -
                  log_beta(a, b);
  return c.density(valid, c.k > total_count ? -detail::inf<T>() : value);
}

}  // namespace math
}  // namespace aimz
