// Count distributions beyond BinomialFamilies.h and PoissonFamilies.h, each
// with its log mass and sampler:
//
//   DiscreteUniform(low, high)       NumPyro: every integer of [low, high];
//                                    low >= 0, as for every count here (a
//                                    draw of -1 is the invalid-draw marker)
//   BetaNegativeBinomial(concentration1, concentration0, n)
//                                    NumPyro: NegativeBinomialProbs(n, p)
//                                    with p ~ Beta(concentration1,
//                                    concentration0)
//   ZeroInflatedBinomial(psi, n, p)  PyMC: Binomial(n, p) with probability
//                                    psi, else 0 (psi is the Binomial's
//                                    share, not the zeros')
#pragma once

#include "aimz/math/BinomialFamilies.h"
#include "aimz/math/GammaFamilies.h"
#include "aimz/math/LogDensity.h"
#include "aimz/math/PoissonFamilies.h"
#include "aimz/math/Samplers.h"

namespace aimz {
namespace math {

// --------------------------------------------------------- DiscreteUniform

namespace detail {
template <class T> AIMZ_MATH_FN bool discrete_uniform_ok(T low, T high) {
  return valid_total_count(low) && valid_total_count(high) && low <= high && double(high) <= kMaxBinomialCount;
}
}  // namespace detail

template <class T, class X> AIMZ_MATH_FN T discrete_uniform_log_prob(X x, T low, T high) {
  double k;
  const int kind = detail::count_value(x, &k);
  if (!detail::discrete_uniform_ok(low, high) || kind == 1) return detail::nan<T>();
  if (kind == 2 || k < double(low) || k > double(high)) return -detail::inf<T>();
  return T(-std::log(double(high) - double(low) + 1.0));
}

/// low + floor(u (high - low + 1)).
template <class T> AIMZ_MATH_FN std::int32_t discrete_uniform_sample(RandomStream& s, T low, T high) {
  if (!detail::discrete_uniform_ok(low, high)) return kInvalidCount;
  const double n = double(high) - double(low) + 1.0;
  double k = double(low) + std::floor(uniform01<double>(s) * n);
  k = k > double(high) ? double(high) : k;
  return detail::finish_count(s, k);
}

// ---------------------------------------------------- BetaNegativeBinomial

/// C(n + k - 1, k) B(a + k, b + n) / B(a, b), the binomial coefficient as
/// 1 / ((n + k) B(n, k + 1)).
template <class T, class X>
AIMZ_MATH_FN T beta_negative_binomial_log_prob(X x, T concentration1, T concentration0, T n) {
  const bool valid = detail::pos_finite(concentration1) && detail::pos_finite(concentration0) && detail::pos_finite(n);
  const detail::CountObservation<T> c = detail::count_observation<T>(x);
  const double a = valid ? double(concentration1) : 1.0, b = valid ? double(concentration0) : 1.0,
               m = valid ? double(n) : 1.0, k = double(c.k);
  const double value = -log_beta(m, k + 1.0) - std::log(m + k) + log_beta(a + k, b + m) - log_beta(a, b);
  return c.density(valid, T(value));
}

template <class T>
AIMZ_MATH_FN std::int32_t beta_negative_binomial_sample(RandomStream& s, T concentration1, T concentration0, T n) {
  if (!detail::pos_finite(concentration1) || !detail::pos_finite(concentration0) || !detail::pos_finite(n))
    return kInvalidCount;
  const double p = beta_sample<double>(s, double(concentration1), double(concentration0));
  return negative_binomial_probs_sample<double>(s, double(n), p);
}

// ---------------------------------------------------- ZeroInflatedBinomial

template <class T, class X> AIMZ_MATH_FN T zero_inflated_binomial_log_prob(X x, T psi, T n, T p) {
  const bool valid = detail::valid_prob(psi) && detail::valid_total_count(n) && detail::valid_prob(p);
  const detail::CountObservation<T> c = detail::count_observation<T>(x);
  const T base = binomial_log_prob<T>(x, valid ? n : T(0), valid ? p : T(0.5));
  const T value = detail::zero_inflated(c.k, T(std::log1p(-double(psi))), T(std::log(double(psi))), base);
  return c.density(valid, c.k > n ? -detail::inf<T>() : value);
}

template <class T> AIMZ_MATH_FN std::int32_t zero_inflated_binomial_sample(RandomStream& s, T psi, T n, T p) {
  if (!detail::valid_prob(psi) || !detail::valid_total_count(n) || double(n) > kMaxBinomialCount ||
      !detail::valid_prob(p))
    return kInvalidCount;
  if (uniform01<double>(s) >= static_cast<double>(psi)) return detail::finish_count(s, 0.0);
  return binomial_sample<T>(s, n, p);
}

}  // namespace math
}  // namespace aimz
