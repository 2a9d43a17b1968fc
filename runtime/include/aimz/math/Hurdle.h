// Hurdle distributions (NumPyro's HurdlePoisson, HurdleNegativeBinomial2,
// HurdleGamma, HurdleLogNormal; Stan's hurdle models): an exact zero with
// probability gate, otherwise a draw from the base distribution, truncated
// to the positive counts for the discrete bases:
//
//   P(0) = gate,   P(k) = (1 - gate) base(k) / (1 - base(0))   (k >= 1)
//
// Unlike a zero-inflated distribution, every zero comes from the gate. The
// continuous bases have no mass at 0, so their positive part is the base
// density itself times 1 - gate.
//
// The zero-truncated counts are drawn by rejection (a base draw until it is
// not 0) while the base puts at most 3/4 of its mass at 0, and otherwise by
// inversion from k = 1 with one uniform (a small rate would make rejection
// loop for long: 1000 tries at rate 0.001).
#pragma once

#include "aimz/math/GammaFamilies.h"
#include "aimz/math/LogDensity.h"
#include "aimz/math/NormalFamilies.h"
#include "aimz/math/PoissonFamilies.h"
#include "aimz/math/Samplers.h"

namespace aimz {
namespace math {
namespace detail {

/// Inversion of a zero-truncated count from k = 1: q is P(1 | k > 0) and
/// next(k) the ratio P(k + 1) / P(k). Ends where u falls or where the
/// cumulative sum stops growing (u within rounding of 1).
template <class Ratio>
AIMZ_MATH_FN std::int32_t positive_count_inversion(RandomStream& s, double q, Ratio next) {
  const double u = uniform01<double>(s);
  double k = 1.0, F = q;
  while (u > F && k < 2147483647.0) {
    q *= next(k);
    k += 1.0;
    const double G = F + q;
    if (G == F) break;
    F = G;
  }
  return finish_count(s, k);
}

/// Draws of a base count until one is positive (the base's own sampler, so
/// the accepted draw is the base's bits); kInvalidCount if the bound runs out.
template <class Draw> AIMZ_MATH_FN std::int32_t positive_count_rejection(RandomStream& s, Draw draw) {
  for (int it = 0; it < kMaxRejections && s.ok(); ++it) {
    const std::int32_t k = draw();
    if (k != 0) return k;
  }
  return kInvalidCount;
}

/// Poisson(lam) given k > 0; lam in (0, 2^30].
AIMZ_MATH_FN std::int32_t zero_truncated_poisson(RandomStream& s, double lam) {
  const double positive = -std::expm1(-lam);  // 1 - P(0)
  if (positive >= 0.25) return positive_count_rejection(s, [&] { return poisson_sample<double>(s, lam); });
  return positive_count_inversion(s, lam / std::expm1(lam), [lam](double k) { return lam / (k + 1.0); });
}

/// NegativeBinomial2(mean, concentration) given k > 0.
AIMZ_MATH_FN std::int32_t zero_truncated_negative_binomial2(RandomStream& s, double mean, double a) {
  const double log_p0 = -a * std::log1p(mean / a);
  const double positive = -std::expm1(log_p0);
  if (positive >= 0.25)
    return positive_count_rejection(s, [&] { return negative_binomial2_sample<double>(s, mean, a); });
  const double r = mean / (mean + a);  // P(k + 1) / P(k) = (k + a) / (k + 1) r
  return positive_count_inversion(s, a * r * std::exp(log_p0) / positive,
                                  [a, r](double k) { return (k + a) / (k + 1.0) * r; });
}

/// log((exp(lam) - 1) / lam) for 0 < lam < 1: log1p of the series
/// lam/2! + lam^2/3! + ... (20 terms reach double precision), which keeps
/// its relative accuracy where the hurdle's log mass at 1 is close to 0.
template <class T> AIMZ_MATH_FN T log_exprel(T lam) {
  T term = T(1), sum = T(0);
  for (int j = 1; j <= 20; ++j) {
    term *= lam / T(j + 1);
    sum += term;
  }
  return elementary::log1p(sum);
}

/// log(Poisson(k | lam) / (1 - exp(-lam))), k >= 1: for lam < 1 as
/// (k - 1) log lam - log k! - log_exprel(lam) (no cancellation between
/// log lam and log(1 - exp(-lam))), above from Loader's form.
template <class T> AIMZ_MATH_FN T log_positive_poisson(T k, T lam) {
  if (lam < T(1))
    return (k - T(1)) * elementary::log(lam) - log_gamma_pos(k + T(1)) - log_exprel(lam);
  return log_poisson_raw<T, true>(k, lam) - log1mexp(lam);
}

/// The hurdle's log mass at a count c, given the base's log mass there and
/// log(1 - base(0)).
template <class T>
AIMZ_MATH_FN T hurdle_count(const CountObservation<T>& c, bool valid, T gate, T base, T log_positive) {
  return c.density(valid, c.k == T(0) ? elementary::log(gate) : elementary::log1p(-gate) + base - log_positive);
}

/// The hurdle's log density at a continuous x, given the base's there.
template <class T> AIMZ_MATH_FN T hurdle_continuous(T x, bool valid, T gate, T base) {
  if (!valid || std::isnan(x)) return nan<T>();
  return x == T(0) ? elementary::log(gate) : elementary::log1p(-gate) + base;
}

}  // namespace detail

// ------------------------------------------------------------ log densities

/// HurdlePoisson(gate, rate), rate > 0.
template <class T, class X> AIMZ_MATH_FN T hurdle_poisson_log_prob(X x, T gate, T rate) {
  const bool valid = detail::valid_prob(gate) && detail::pos_finite(rate);
  const detail::CountObservation<T> c = detail::count_observation<T>(x);
  const T lam = valid ? rate : T(1);
  const T positive = detail::log_positive_poisson(c.k > T(0) ? c.k : T(1), lam);
  return detail::hurdle_count(c, valid, gate, positive, T(0));
}

/// HurdleNegativeBinomial2(gate, mean, concentration).
template <class T, class X>
AIMZ_MATH_FN T hurdle_negative_binomial2_log_prob(X x, T gate, T mean, T concentration) {
  const bool valid = detail::valid_prob(gate) && detail::pos_finite(mean) && detail::pos_finite(concentration);
  const detail::CountObservation<T> c = detail::count_observation<T>(x);
  const T m = valid ? mean : T(1), a = valid ? concentration : T(1);
  const T base = detail::log_nb_raw(c.k, a, -elementary::log1p(m / a), -elementary::log1p(a / m));
  return detail::hurdle_count(c, valid, gate, base, log1mexp(a * elementary::log1p(m / a)));
}

/// HurdleGamma(gate, concentration, rate).
template <class T> AIMZ_MATH_FN T hurdle_gamma_log_prob(T x, T gate, T concentration, T rate) {
  const bool valid = detail::valid_prob(gate) && detail::pos_finite(concentration) && detail::pos_finite(rate);
  return detail::hurdle_continuous(x, valid, gate, gamma_log_prob(x, concentration, rate));
}

/// HurdleLogNormal(gate, loc, scale).
template <class T> AIMZ_MATH_FN T hurdle_log_normal_log_prob(T x, T gate, T loc, T scale) {
  const bool valid = detail::valid_prob(gate) && std::isfinite(loc) && detail::pos_finite(scale);
  return detail::hurdle_continuous(x, valid, gate, log_normal_log_prob(x, loc, scale));
}

// ----------------------------------------------------------------- samplers

/// HurdlePoisson(gate, rate): 0 with probability gate, else Poisson(rate)
/// given a positive count.
template <class T> AIMZ_MATH_FN std::int32_t hurdle_poisson_sample(RandomStream& s, T gate, T rate) {
  const double lam = static_cast<double>(rate);
  if (!detail::valid_prob(gate) || !(lam > 0.0) || !(lam <= kMaxPoissonRate)) return kInvalidCount;
  if (uniform01<double>(s) < static_cast<double>(gate)) return detail::finish_count(s, 0.0);
  return detail::zero_truncated_poisson(s, lam);
}

/// HurdleNegativeBinomial2(gate, mean, concentration).
template <class T>
AIMZ_MATH_FN std::int32_t hurdle_negative_binomial2_sample(RandomStream& s, T gate, T mean, T concentration) {
  const double m = static_cast<double>(mean), a = static_cast<double>(concentration);
  if (!detail::valid_prob(gate) || !detail::pos_finite(m) || !detail::pos_finite(a)) return kInvalidCount;
  if (uniform01<double>(s) < static_cast<double>(gate)) return detail::finish_count(s, 0.0);
  return detail::zero_truncated_negative_binomial2(s, m, a);
}

/// HurdleGamma(gate, concentration, rate).
template <class T> AIMZ_MATH_FN T hurdle_gamma_sample(RandomStream& s, T gate, T concentration, T rate) {
  if (!detail::valid_prob(gate) || !detail::pos_finite(concentration) || !detail::pos_finite(rate))
    return detail::nan<T>();
  if (uniform01<T>(s) < gate) return detail::finish(s, T(0));
  return gamma_sample<T>(s, concentration, rate);
}

/// HurdleLogNormal(gate, loc, scale).
template <class T> AIMZ_MATH_FN T hurdle_log_normal_sample(RandomStream& s, T gate, T loc, T scale) {
  if (!detail::valid_prob(gate) || !std::isfinite(loc) || !detail::pos_finite(scale)) return detail::nan<T>();
  if (uniform01<T>(s) < gate) return detail::finish(s, T(0));
  return log_normal_sample<T>(s, loc, scale);
}

}  // namespace math
}  // namespace aimz
