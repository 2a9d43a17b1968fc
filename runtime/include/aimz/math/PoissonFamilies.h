// Poisson counts and their mixtures, each with its sampler and log mass
// (truncated forms: TruncatedCounts.h; CDFs: Cdf.h):
//
//   Poisson(rate)                           inversion for rate < 10,
//                                           Hormann's PTRS otherwise
//   GammaPoisson(concentration, rate)       Poisson(Gamma(c, rate))
//   NegativeBinomial2(mean, concentration), NegativeBinomialProbs /
//   NegativeBinomialLogits(total_count, ...)  gamma-Poisson mixtures
//   ZeroInflatedPoisson(gate | gate_logits, rate),
//   ZeroInflatedNegativeBinomial2(mean, concentration, gate | gate_logits)
//
// Mixtures draw their mixing variable first (in double, as every discrete
// sampler computes), then the count.
#pragma once

#include "aimz/math/LogDensity.h"
#include "aimz/math/Samplers.h"

namespace aimz {
namespace math {

// -------------------------------------------------------------------- Poisson

namespace detail {

/// Poisson by sequential-search inversion, for rate < 10.
AIMZ_MATH_FN double poisson_inversion(RandomStream& s, double lam) {
  const double p0 = elementary::exp(-lam);
  const double bound = 200.0;  // P(X > 200 | rate < 10) < 1e-200
  for (int it = 0; it < kMaxRejections && s.ok(); ++it) {
    double u = uniform01<double>(s);
    double p = p0;
    double k = 0.0;
    while (u > p && k <= bound) {
      u -= p;
      k += 1.0;
      p *= lam / k;
    }
    if (k <= bound) return k;
    // rounding left u above the total mass: redraw (a null event)
  }
  return -1.0;
}

/// PTRS's constants for a rate: poisson_ptrs and poisson_sample_first
/// share them, so the same bits.
struct PtrsSetup {
  double a, b, vr;
};

AIMZ_HOT_FN PtrsSetup ptrs_setup(double lam) {
  const double b = 0.931 + 2.53 * std::sqrt(lam);
  return {-0.059 + 0.02483 * b, b, 0.9277 - 3.6224 / (b - 2.0)};
}

/// PTRS's candidate count for u = U - 1/2 (us = 1/2 - |u|).
AIMZ_HOT_FN double ptrs_candidate(const PtrsSetup& pt, double lam, double u, double us) {
  return std::floor((2.0 * pt.a / us + pt.b) * u + lam + 0.43);
}

/// Hormann (1993) PTRS transformed rejection, for rate >= 10.
AIMZ_MATH_FN double poisson_ptrs(RandomStream& s, double lam) {
  const PtrsSetup pt = ptrs_setup(lam);
  const double log_inv_alpha = std::log(1.1239 + 1.1328 / (pt.b - 3.4));
  for (int it = 0; it < kMaxRejections && s.ok(); ++it) {
    const double u = uniform01<double>(s) - 0.5;
    const double v = uniform01<double>(s);
    const double us = 0.5 - std::fabs(u);
    const double k = ptrs_candidate(pt, lam, u, us);
    if (tr_squeezed(us, v, pt.vr)) return k;
    if (k < 0.0 || (us < 0.013 && v > us)) continue;
    if (k > kMaxBinomialCount) continue;
    if (std::log(v) + log_inv_alpha - std::log(pt.a / (us * us) + pt.b) <= log_poisson_raw<double, true>(k, lam))
      return k;
  }
  return -1.0;
}

}  // namespace detail

/// Poisson(rate): inversion for rate < 10, PTRS for rate >= 10.
/// rate must be in [0, 2^30].
template <class T> AIMZ_MATH_FN std::int32_t poisson_sample(RandomStream& s, T rate) {
  const double lam = static_cast<double>(rate);
  if (!(lam >= 0.0) || !(lam <= kMaxPoissonRate)) return kInvalidCount;
  if (lam == 0.0) return 0;
  const double k = lam < 10.0 ? detail::poisson_inversion(s, lam) : detail::poisson_ptrs(s, lam);
  return detail::finish_count(s, k);
}

/// poisson_sample's first attempt, or kUnfinishedCount: for a rate in
/// (0, 10), poisson_inversion's first uniform and arithmetic step for step
/// in a fixed 32 steps (it ends within them for all but ~1e-7 of draws at
/// rate 10); for a rate of 10 or more, PTRS's first pair when its squeeze
/// accepts it (35 % of draws at rate 10, 80 % for large rates; the full
/// test's logarithms, computed in every lane, would slow the small rates'
/// rows 3-fold). Straight-line code, so that a row vectorizes; both
/// branches are computed and one selected.
template <class T> AIMZ_HOT_FN std::int32_t poisson_sample_first(RandomStream& s, T rate) {
  const bool streamOk = s.ok();  // as in gamma_sample_first
  const double lam = static_cast<double>(rate);
  const bool small = lam > 0.0 && lam < 10.0;
  const bool large = lam >= 10.0 && lam <= kMaxPoissonRate;
  const double l = small ? lam : 1.0;
  const double u0 = uniform01<double>(s);
  const double v = uniform01<double>(s);  // PTRS's second uniform
  double u = u0;
  double p = elementary::exp(-l);
  double k = 0.0;
  bool going = true;
#ifdef __clang__
#pragma unroll
#endif
  for (int step = 0; step < 32; ++step) {
    // While going, k is step + 1 when p is updated, so l / (step + 1) is
    // poisson_inversion's l / k; u and p run on unconditionally (their
    // values after the stop are unused). No select or division on the
    // recurrence's path: its latency, not the lanes, set the row's speed.
    going = going & (u > p);
    k = going ? step + 1.0 : k;
    u = u - p;
    p = p * (l / (step + 1.0));
  }
  // PTRS's squeeze on the same first uniform.
  const double lb = large ? lam : 10.0;
  const detail::PtrsSetup pt = detail::ptrs_setup(lb);
  const double uc = u0 - 0.5;
  const double us = 0.5 - std::fabs(uc);
  const double kp = detail::ptrs_candidate(pt, lb, uc, us);
  const bool accepted = detail::tr_squeezed(us, v, pt.vr);
  const std::int32_t x = static_cast<std::int32_t>(small ? k : accepted ? kp : 0.0);
  const bool done = small ? !going : large & accepted;
  return lam == 0.0 ? 0 : (done & streamOk) ? x : kUnfinishedCount;
}

namespace detail {

/// log(kMaxPoissonRate): larger log rates are invalid draws.
constexpr double kLogMaxPoissonRate = 20.79441541679836;  // log(2^30)

static_assert(kMaxPoissonRate == 1073741824.0, "update kLogMaxPoissonRate");

template <class T> AIMZ_HOT_FN bool valid_poisson_rate(T rate) {
  return (rate >= T(0)) & (rate <= T(kMaxPoissonRate));
}

// The base counts' first attempts for zero_inflated_first, as function
// objects whose call is always inlined (a lambda's is not, once the
// first attempt is large, and a call left in a row stops it vectorizing).
template <class T> struct PoissonFirst {
  T rate;
  AIMZ_HOT_FN std::int32_t operator()(RandomStream& r) const;
};

}  // namespace detail

template <class T> AIMZ_HOT_FN std::int32_t detail::PoissonFirst<T>::operator()(RandomStream& r) const {
  return poisson_sample_first<T>(r, rate);
}

/// Poisson(rate), rate >= 0 (rate = 0 is the point mass at 0).
template <class T, class X> AIMZ_MATH_FN T poisson_log_prob(X x, T rate) {
  static_assert(detail::IsReal<T>::value, "T must be float or double");
  const bool valid = rate >= T(0) && !std::isinf(rate);
  const detail::CountObservation<T> c = detail::count_observation<T>(x);
  const T value = detail::log_poisson_raw<T, true>(c.k, valid ? rate : T(1));
  return c.density(valid, value);
}

// --------------------------------------------------------------- GammaPoisson

namespace detail {

/// log of Gamma(k + a) / (Gamma(a) k!) p0^a p1^k, given log p0 and log p1:
/// the negative binomial family (k a whole number). Branch-free.
template <class T> AIMZ_HOT_FN T log_nb_raw(T k, T a, T log_p0, T log_p1) {
  const T value = -log_beta(a, k + T(1)) - elementary::log(a + k) + a * log_p0 + k * log_p1;
  return k == T(0) ? a * log_p0 : value;
}

/// Poisson(Gamma(a, rate)) with the gamma drawn in log space; a rate above
/// kMaxPoissonRate is an invalid draw.
AIMZ_MATH_FN std::int32_t gamma_poisson_core(RandomStream& s, double a, double log_rate) {
  const double log_lam = log_std_gamma(s, a) - log_rate;
  if (!(log_lam <= kLogMaxPoissonRate)) return log_lam < 0.0 ? 0 : kInvalidCount;
  return poisson_sample<double>(s, elementary::exp(log_lam));
}

/// gamma_poisson_core when the gamma's first attempt is accepted by the
/// squeeze and the count's by poisson_sample_first, else kUnfinishedCount.
AIMZ_HOT_FN std::int32_t gamma_poisson_first(RandomStream& s, double a, double log_rate) {
  bool ok;
  double u;
  const double g = boosted_gamma_squeezed(s, a, ok, u);
  const double log_lam = log_boosted(g, u, a) - log_rate;
  const std::int32_t k = poisson_sample_first<double>(s, elementary::exp(log_lam));
  return (ok & (log_lam <= kLogMaxPoissonRate)) ? k : kUnfinishedCount;
}

}  // namespace detail

/// GammaPoisson(concentration, rate): Poisson(Gamma(concentration, rate)).
template <class T> AIMZ_MATH_FN std::int32_t gamma_poisson_sample(RandomStream& s, T concentration, T rate) {
  const double a = static_cast<double>(concentration), r = static_cast<double>(rate);
  if (!detail::pos_finite(a) || !detail::pos_finite(r)) return kInvalidCount;
  return detail::gamma_poisson_core(s, a, elementary::log(r));
}

/// gamma_poisson_sample's first attempt (kUnfinishedCount when rejected or
/// invalid): the vector half of its row sampler.
template <class T> AIMZ_HOT_FN std::int32_t gamma_poisson_sample_first(RandomStream& s, T concentration, T rate) {
  const double a = static_cast<double>(concentration), r = static_cast<double>(rate);
  const bool valid = detail::pos_finite(a) & detail::pos_finite(r);
  const std::int32_t k = detail::gamma_poisson_first(s, valid ? a : 1.0, elementary::log(valid ? r : 1.0));
  return valid ? k : kUnfinishedCount;
}

/// GammaPoisson(concentration, rate): Poisson(Gamma(concentration, rate)).
template <class T, class X> AIMZ_MATH_FN T gamma_poisson_log_prob(X x, T concentration, T rate) {
  const bool valid = detail::pos_finite(concentration) && detail::pos_finite(rate);
  const detail::CountObservation<T> c = detail::count_observation<T>(x);
  const T a = valid ? concentration : T(1), r = valid ? rate : T(1);
  const T value = detail::log_nb_raw(c.k, a, -elementary::log1p(T(1) / r), -elementary::log1p(r));
  return c.density(valid, value);
}

// --- NegativeBinomial (NegativeBinomial2, NegativeBinomialProbs, NegativeBinomialLogits)

/// NegativeBinomial2(mean, concentration) = GammaPoisson(concentration,
/// concentration / mean).
template <class T> AIMZ_MATH_FN std::int32_t negative_binomial2_sample(RandomStream& s, T mean, T concentration) {
  const double m = static_cast<double>(mean), a = static_cast<double>(concentration);
  if (!detail::pos_finite(m) || !detail::pos_finite(a)) return kInvalidCount;
  return detail::gamma_poisson_core(s, a, elementary::log(a) - elementary::log(m));
}

/// negative_binomial2_sample's first attempt (kUnfinishedCount when
/// rejected or invalid): the vector half of its row sampler.
template <class T> AIMZ_HOT_FN std::int32_t negative_binomial2_sample_first(RandomStream& s, T mean, T concentration) {
  const double m = static_cast<double>(mean), a = static_cast<double>(concentration);
  const bool valid = detail::pos_finite(m) & detail::pos_finite(a);
  const double av = valid ? a : 1.0, mv = valid ? m : 1.0;
  const std::int32_t k = detail::gamma_poisson_first(s, av, elementary::log(av) - elementary::log(mv));
  return valid ? k : kUnfinishedCount;
}

/// NegativeBinomialProbs(total_count, probs) = GammaPoisson(total_count,
/// 1 / probs - 1), as NumPyro defines it (mean total_count p / (1 - p)).
template <class T> AIMZ_MATH_FN std::int32_t negative_binomial_probs_sample(RandomStream& s, T total_count, T probs) {
  const double n = static_cast<double>(total_count), p = static_cast<double>(probs);
  if (!detail::pos_finite(n) || !(p >= 0.0 && p < 1.0)) return kInvalidCount;
  if (p == 0.0) return detail::finish_count(s, 0.0);
  return detail::gamma_poisson_core(s, n, elementary::log1p(-p) - elementary::log(p));
}

/// negative_binomial_probs_sample's first attempt (kUnfinishedCount when
/// rejected, invalid or p = 0): the vector half of its row sampler.
template <class T>
AIMZ_HOT_FN std::int32_t negative_binomial_probs_sample_first(RandomStream& s, T total_count, T probs) {
  const double n = static_cast<double>(total_count), p = static_cast<double>(probs);
  const bool valid = detail::pos_finite(n) & (p > 0.0) & (p < 1.0);
  const double nv = valid ? n : 1.0, pv = valid ? p : 0.5;
  const std::int32_t k = detail::gamma_poisson_first(s, nv, elementary::log1p(-pv) - elementary::log(pv));
  return valid ? k : kUnfinishedCount;
}

/// NegativeBinomialLogits(total_count, logits): probs = sigmoid(logits).
template <class T> AIMZ_MATH_FN std::int32_t negative_binomial_logits_sample(RandomStream& s, T total_count, T logits) {
  const double n = static_cast<double>(total_count), l = static_cast<double>(logits);
  if (!detail::pos_finite(n) || std::isnan(l) || l == detail::inf<double>()) return kInvalidCount;
  return detail::gamma_poisson_core(s, n, -l);  // rate = exp(-logits)
}

/// negative_binomial_logits_sample's first attempt (kUnfinishedCount when
/// rejected or invalid): the vector half of its row sampler.
template <class T>
AIMZ_HOT_FN std::int32_t negative_binomial_logits_sample_first(RandomStream& s, T total_count, T logits) {
  const double n = static_cast<double>(total_count), l = static_cast<double>(logits);
  const bool valid = detail::pos_finite(n) & !std::isnan(l) & (l != detail::inf<double>());
  const std::int32_t k = detail::gamma_poisson_first(s, valid ? n : 1.0, valid ? -l : 0.0);
  return valid ? k : kUnfinishedCount;
}

namespace detail {

template <class T> struct NegativeBinomial2First {
  T mean, concentration;
  AIMZ_HOT_FN std::int32_t operator()(RandomStream& r) const;
};

}  // namespace detail

template <class T> AIMZ_HOT_FN std::int32_t detail::NegativeBinomial2First<T>::operator()(RandomStream& r) const {
  return negative_binomial2_sample_first<T>(r, mean, concentration);
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

// ------------------------- ZeroInflatedPoisson, ZeroInflatedNegativeBinomial2

/// ZeroInflatedPoisson(gate, rate): 0 with probability gate, else Poisson.
template <class T> AIMZ_MATH_FN std::int32_t zero_inflated_poisson_sample(RandomStream& s, T gate, T rate) {
  if (!detail::valid_prob(gate) || !(rate >= T(0)) || !(rate <= T(kMaxPoissonRate))) return kInvalidCount;
  if (uniform01<double>(s) < static_cast<double>(gate)) return detail::finish_count(s, 0.0);
  return poisson_sample<T>(s, rate);
}

/// ZeroInflatedPoisson(gate_logits=, rate); parameters in (rate, logits) order.
template <class T> AIMZ_MATH_FN std::int32_t zero_inflated_poisson_logits_sample(RandomStream& s, T rate, T gate_logits) {
  if (std::isnan(gate_logits) || !(rate >= T(0)) || !(rate <= T(kMaxPoissonRate))) return kInvalidCount;
  if (uniform01<double>(s) < sigmoid(static_cast<double>(gate_logits))) return detail::finish_count(s, 0.0);
  return poisson_sample<T>(s, rate);
}

namespace detail {

/// A zero-inflated first attempt: the gate's uniform (zero with probability
/// gate), then the base's first attempt base(s) on the words after it, as
/// the full samplers draw them; kUnfinishedCount when the gate's and the
/// base's parameters are not all valid (valid) or the base goes on.
template <class BaseFirst>
AIMZ_HOT_FN std::int32_t zero_inflated_first(RandomStream& s, double gate, bool valid, BaseFirst base) {
  const bool streamOk = s.ok();  // as in gamma_sample_first
  const bool zero = uniform01<double>(s) < gate;
  const std::int32_t k = base(s);
  return !valid ? kUnfinishedCount : zero ? (streamOk ? 0 : kUnfinishedCount) : k;
}

}  // namespace detail

/// zero_inflated_poisson_sample's first attempt: the vector half of its row.
template <class T> AIMZ_HOT_FN std::int32_t zero_inflated_poisson_sample_first(RandomStream& s, T gate, T rate) {
  return detail::zero_inflated_first(s, static_cast<double>(gate),
                                     detail::valid_prob(gate) & detail::valid_poisson_rate(rate),
                                     detail::PoissonFirst<T>{rate});
}

/// zero_inflated_poisson_logits_sample's first attempt.
template <class T>
AIMZ_HOT_FN std::int32_t zero_inflated_poisson_logits_sample_first(RandomStream& s, T rate, T gate_logits) {
  return detail::zero_inflated_first(s, sigmoid(static_cast<double>(gate_logits)),
                                     !std::isnan(gate_logits) & detail::valid_poisson_rate(rate),
                                     detail::PoissonFirst<T>{rate});
}

/// ZeroInflatedNegativeBinomial2(mean, concentration, gate).
template <class T> AIMZ_MATH_FN std::int32_t zero_inflated_negative_binomial2_sample(RandomStream& s, T mean, T concentration, T gate) {
  if (!detail::valid_prob(gate) || !detail::pos_finite(mean) || !detail::pos_finite(concentration)) return kInvalidCount;
  if (uniform01<double>(s) < static_cast<double>(gate)) return detail::finish_count(s, 0.0);
  return negative_binomial2_sample<T>(s, mean, concentration);
}

/// ZeroInflatedNegativeBinomial2(mean, concentration, gate_logits=).
template <class T> AIMZ_MATH_FN std::int32_t zero_inflated_negative_binomial2_logits_sample(RandomStream& s, T mean, T concentration, T gate_logits) {
  if (std::isnan(gate_logits) || !detail::pos_finite(mean) || !detail::pos_finite(concentration)) return kInvalidCount;
  if (uniform01<double>(s) < sigmoid(static_cast<double>(gate_logits))) return detail::finish_count(s, 0.0);
  return negative_binomial2_sample<T>(s, mean, concentration);
}

/// zero_inflated_negative_binomial2_sample's first attempt: the vector half
/// of its row sampler.
template <class T>
AIMZ_HOT_FN std::int32_t zero_inflated_negative_binomial2_sample_first(RandomStream& s, T mean, T concentration, T gate) {
  return detail::zero_inflated_first(
      s, static_cast<double>(gate),
      detail::valid_prob(gate) & detail::pos_finite(mean) & detail::pos_finite(concentration),
      detail::NegativeBinomial2First<T>{mean, concentration});
}

/// zero_inflated_negative_binomial2_logits_sample's first attempt.
template <class T>
AIMZ_HOT_FN std::int32_t zero_inflated_negative_binomial2_logits_sample_first(RandomStream& s, T mean, T concentration,
                                                                             T gate_logits) {
  return detail::zero_inflated_first(
      s, sigmoid(static_cast<double>(gate_logits)),
      !std::isnan(gate_logits) & detail::pos_finite(mean) & detail::pos_finite(concentration),
      detail::NegativeBinomial2First<T>{mean, concentration});
}

namespace detail {

/// A zero-inflated count: log_gate / log_keep are log(gate), log(1 - gate);
/// base is the base distribution's log mass at k.
template <class T> AIMZ_HOT_FN T zero_inflated(T k, T log_gate, T log_keep, T base) {
  return k == T(0) ? log_add_exp(log_gate, log_keep + base) : log_keep + base;
}

}  // namespace detail

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

}  // namespace math
}  // namespace aimz
