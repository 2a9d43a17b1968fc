// The gamma family and the laws drawn from gamma variates, each with its
// sampler and log density (their CDFs and truncated forms, through the
// regularized incomplete gamma and beta functions: TruncatedByCdf.h):
//
//   Exponential(rate)                       -log(U) / rate
//   Gamma(concentration, rate)              Marsaglia & Tsang (Samplers.h)
//   InverseGamma(concentration, rate)       1 / Gamma(concentration, rate)
//   Beta(concentration1, concentration0)    G1 / (G1 + G0), in log space
#pragma once

#include "aimz/math/LogDensity.h"
#include "aimz/math/Samplers.h"

namespace aimz {
namespace math {

// ---------------------------------------------------------------- Exponential

/// Exponential(rate) by inversion: -log(U) / rate.
template <class T> AIMZ_HOT_FN T exponential_sample(RandomStream& s, T rate) {
  if (!detail::pos_finite(rate)) return detail::nan<T>();
  return detail::finish(s, -elementary::log_uniform(uniform01<T>(s)) / rate);
}

/// Exponential(rate): support x >= 0.
template <class T> AIMZ_MATH_FN T exponential_log_prob(T x, T rate) {
  if (!detail::pos_finite(rate) || std::isnan(x)) return detail::nan<T>();
  if (x < T(0)) return -detail::inf<T>();
  return elementary::log(rate) - rate * x;
}

// ---------------------------------------------------------------------- Gamma

/// Gamma(concentration, rate): Marsaglia-Tsang, with the U^(1/a) boost for
/// concentration < 1.
template <class T> AIMZ_MATH_FN T gamma_sample(RandomStream& s, T concentration, T rate) {
  const T a = concentration;
  if (!detail::pos_finite(a) || !detail::pos_finite(rate)) return detail::nan<T>();
  if (a >= T(1)) return detail::finish(s, detail::mt_gamma(s, a) / rate);
  return detail::finish(s, elementary::exp(detail::log_std_gamma(s, a) - elementary::log(rate)));
}

/// gamma_sample where its first attempt is accepted by the squeeze, NaN
/// elsewhere: the vector half of the Gamma row sampler, which then runs
/// gamma_sample for the NaNs (the same bits for every element either way).
template <class T> AIMZ_HOT_FN T gamma_sample_first(RandomStream& s, T concentration, T rate) {
  const T a = concentration;
  // One or two blocks cannot exhaust the stream: its state now is its state
  // at the end (read first, which keeps the row's loop vectorizable).
  const bool streamOk = s.ok();
  bool ok;
  T u;
  const T g = detail::boosted_gamma_squeezed(s, a, ok, u);
  const T x = a < T(1) ? elementary::exp(elementary::log(g) + elementary::log_uniform(u) / a - elementary::log(rate))
                       : g / rate;
  ok = ok & streamOk & detail::pos_finite(a) & detail::pos_finite(rate);
  return ok ? x : detail::nan<T>();
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

// ----------------------------------------------------------------------- Beta

/// Beta(concentration1, concentration0) = X / (X + Y), X ~ Gamma(c1), Y ~ Gamma(c0),
/// formed in log space (sigmoid(log X - log Y)) so small concentrations do
/// not produce 0/0.
template <class T> AIMZ_MATH_FN T beta_sample(RandomStream& s, T concentration1, T concentration0) {
  if (!detail::pos_finite(concentration1) || !detail::pos_finite(concentration0)) return detail::nan<T>();
  const T lx = detail::log_std_gamma(s, concentration1);
  const T ly = detail::log_std_gamma(s, concentration0);
  if (std::isinf(lx) && std::isinf(ly)) {
    // both underflowed (concentrations near the smallest positive values):
    // the draw is 0 or 1 to working precision; pick by the larger shape.
    return detail::finish(s, concentration1 >= concentration0 ? T(1) : T(0));
  }
  return detail::finish(s, sigmoid(lx - ly));
}

/// beta_sample where both gammas' first attempts are accepted by the
/// squeeze, NaN elsewhere: the vector half of its row sampler.
template <class T> AIMZ_HOT_FN T beta_sample_first(RandomStream& s, T concentration1, T concentration0) {
  const bool streamOk = s.ok();  // as in gamma_sample_first
  bool ok1, ok0;
  T u1, u0;
  const T g1 = detail::boosted_gamma_squeezed(s, concentration1, ok1, u1);
  const T g0 = detail::boosted_gamma_squeezed(s, concentration0, ok0, u0);
  const T lx = detail::log_boosted(g1, u1, concentration1);
  const T ly = detail::log_boosted(g0, u0, concentration0);
  const bool ok = ok1 & ok0 & streamOk & detail::pos_finite(concentration1) & detail::pos_finite(concentration0) &
                  !(std::isinf(lx) & std::isinf(ly));
  return ok ? sigmoid(lx - ly) : detail::nan<T>();
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

// --------------------------------------------------------------- InverseGamma

/// InverseGamma(concentration, rate) = rate / Gamma(concentration, 1),
/// formed in log space so that small concentrations do not overflow.
template <class T> AIMZ_MATH_FN T inverse_gamma_sample(RandomStream& s, T concentration, T rate) {
  if (!detail::pos_finite(concentration) || !detail::pos_finite(rate)) return detail::nan<T>();
  return detail::finish(s, elementary::exp(elementary::log(rate) - detail::log_std_gamma(s, concentration)));
}

/// inverse_gamma_sample where the gamma's first attempt is accepted by the
/// squeeze, NaN elsewhere (the vector half of its row sampler).
template <class T> AIMZ_HOT_FN T inverse_gamma_sample_first(RandomStream& s, T concentration, T rate) {
  const T a = concentration;
  const bool streamOk = s.ok();  // as in gamma_sample_first
  bool ok;
  T u;
  const T g = detail::boosted_gamma_squeezed(s, a, ok, u);
  const T lg = detail::log_boosted(g, u, a);
  ok = ok & streamOk & detail::pos_finite(a) & detail::pos_finite(rate);
  return ok ? elementary::exp(elementary::log(rate) - lg) : detail::nan<T>();
}

/// InverseGamma(concentration, rate) on x > 0.
template <class T> AIMZ_MATH_FN T inverse_gamma_log_prob(T x, T concentration, T rate) {
  const T a = concentration;
  if (!detail::pos_finite(a) || !detail::pos_finite(rate) || std::isnan(x)) return detail::nan<T>();
  if (!(x > T(0)) || std::isinf(x)) return -detail::inf<T>();
  // f = (rate/x)^a e^{-rate/x} / (x Gamma(a))
  return detail::log_poisson_raw(a, rate / x) + elementary::log(a / x);
}

}  // namespace math
}  // namespace aimz
