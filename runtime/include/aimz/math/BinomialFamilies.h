// Counts of successes, each with its sampler and log mass (truncated forms:
// TruncatedCounts.h; CDFs: Cdf.h):
//
//   Bernoulli(probs | logits)
//   Binomial(total_count, probs | logits)   BINV inversion for n p < 10,
//                                           Hormann's BTRS otherwise
//   BetaBinomial(concentration1, concentration0, total_count)
//                                           Binomial(n, Beta(c1, c0))
#pragma once

#include "aimz/math/GammaFamilies.h"
#include "aimz/math/LogDensity.h"
#include "aimz/math/Samplers.h"

namespace aimz {
namespace math {

// ------------------------------------------------------------------- Binomial

namespace detail {

/// BINV's constants for (n, p, q = 1 - p, log q): P(0) = q^n, the
/// recurrence's ratio p / q and a = (n + 1) p / q, and the search's bound.
/// binomial_inversion and binomial_first share them, so the same bits.
struct BinvSetup {
  double ratio, a, r0, bound;
};

AIMZ_HOT_FN BinvSetup binv_setup(double n, double p, double q, double log_q) {
  const double ratio = p / q;
  const double bound = std::floor(n * p + 20.0 * std::sqrt(n * p * q + 1.0) + 10.0);
  return {ratio, (n + 1.0) * ratio, elementary::exp(n * log_q), bound > n ? n : bound};
}

/// BTRS's constants (Hormann 1993) for (n, p, q = 1 - p), shared by
/// binomial_btrs and binomial_first's squeezed first pair.
struct BtrsSetup {
  double spq, b, a, c, vr;
};

AIMZ_HOT_FN BtrsSetup btrs_setup(double n, double p, double q) {
  const double spq = std::sqrt(n * p * q);
  const double b = 1.15 + 2.53 * spq;
  return {spq, b, -0.0873 + 0.0248 * b + 0.01 * p, n * p + 0.5, 0.92 - 4.2 / b};
}

/// BTRS's candidate count for u = U - 1/2 (us = 1/2 - |u|).
AIMZ_HOT_FN double btrs_candidate(const BtrsSetup& bt, double u, double us) {
  return std::floor((2.0 * bt.a / us + bt.b) * u + bt.c);
}

/// Binomial inversion (BINV, Kachitvichyanukul & Schmeiser 1988) for
/// n p < 10, p <= 1/2.
AIMZ_MATH_FN double binomial_inversion(RandomStream& s, double n, double p, double q, double log_q) {
  const BinvSetup c = binv_setup(n, p, q, log_q);
  const double ratio = c.ratio, a = c.a, r0 = c.r0, bound = c.bound;
  for (int it = 0; it < kMaxRejections && s.ok(); ++it) {
    double u = uniform01<double>(s);
    double px = r0;
    double x = 0.0;
    bool overflow = false;
    while (u > px) {
      x += 1.0;
      if (x > bound) {
        overflow = true;
        break;
      }
      u -= px;
      px *= a / x - ratio;
    }
    if (!overflow) return x;
  }
  return -1.0;
}

/// Hormann (1993) BTRS transformed rejection for n p >= 10, p <= 1/2.
AIMZ_MATH_FN double binomial_btrs(RandomStream& s, double n, double p, double q, double log_p, double log_q) {
  const BtrsSetup bt = btrs_setup(n, p, q);
  const double log_alpha = std::log((2.83 + 5.1 / bt.b) * bt.spq);
  const double m = std::floor((n + 1.0) * p);
  const double log_fm = log_binom_raw<double, true>(m, n - m, n, p, q, log_p, log_q);
  for (int it = 0; it < kMaxRejections && s.ok(); ++it) {
    const double u = uniform01<double>(s) - 0.5;
    const double v = uniform01<double>(s);
    const double us = 0.5 - std::fabs(u);
    const double k = btrs_candidate(bt, u, us);
    if (k < 0.0 || k > n) continue;
    if (tr_squeezed(us, v, bt.vr)) return k;
    const double lv = std::log(v) + log_alpha - std::log(bt.a / (us * us) + bt.b);
    if (lv <= log_binom_raw<double, true>(k, n - k, n, p, q, log_p, log_q) - log_fm) return k;
  }
  return -1.0;
}

/// binomial_core's first attempt for n > 0, 0 < p <= 1/2, in straight-line
/// code that a row vectorizes: BINV's first uniform, searched in at most 32
/// steps, when n p < 10; else BTRS's first pair when its squeeze accepts.
/// Either way the scalar sampler's words and arithmetic, so its bits; -1
/// when the scalar sampler would go on. (The caller checks the stream.)
AIMZ_HOT_FN double binomial_first(RandomStream& s, double n, double p, double q, double log_q) {
  const double u = uniform01<double>(s);
  const double v = uniform01<double>(s);
  // BINV (binomial_inversion's first uniform).
  const BinvSetup iv = binv_setup(n, p, q, log_q);
  const double ratio = iv.ratio, a = iv.a, bound = iv.bound;
  double ui = u;
  double px = iv.r0;
  double x = 0.0;
  bool going = true, overflow = false;
#ifdef __clang__
#pragma unroll
#endif
  for (int step = 0; step < 32; ++step) {
    // As in poisson_sample_first: x is step + 1 while going, and ui, px
    // run on unconditionally (their values after the stop are unused).
    const double xs = step + 1.0;
    going = going & (ui > px);
    x = going ? xs : x;
    overflow = overflow | (going & (xs > bound));
    going = going & !(xs > bound);
    ui = ui - px;
    px = px * (a / xs - ratio);
  }
  const bool inversionDone = !going & !overflow;
  // BTRS (binomial_btrs's first pair, squeeze only).
  const BtrsSetup bt = btrs_setup(n, p, q);
  const double ub = u - 0.5;
  const double us = 0.5 - std::fabs(ub);
  const double k = btrs_candidate(bt, ub, us);
  const bool squeezed = (k >= 0.0) & (k <= n) & tr_squeezed(us, v, bt.vr);
  const bool inversion = n * p < 10.0;
  const bool done = inversion ? inversionDone : squeezed;
  return done ? (inversion ? x : k) : -1.0;
}

/// Binomial(n, p) with p <= 1/2 and q = 1 - p given accurately.
AIMZ_MATH_FN double binomial_core(RandomStream& s, double n, double p, double q, double log_p, double log_q) {
  if (n == 0.0 || p == 0.0) return 0.0;
  if (n * p < 10.0) return binomial_inversion(s, n, p, q, log_q);
  return binomial_btrs(s, n, p, q, log_p, log_q);
}

}  // namespace detail

/// Binomial(total_count, probs): inversion for n min(p, 1-p) < 10, BTRS otherwise.
/// total_count must be an integer in [0, 2^31 - 1].
template <class T> AIMZ_MATH_FN std::int32_t binomial_sample(RandomStream& s, T total_count, T probs) {
  const double n = static_cast<double>(total_count);
  const double p = static_cast<double>(probs);
  if (!detail::valid_total_count(n) || n > kMaxBinomialCount || !detail::valid_prob(p)) return kInvalidCount;
  if (p > 0.5) {
    const double q = 1.0 - p;  // exact for p >= 1/2
    const double k = detail::binomial_core(s, n, q, p, elementary::log1p(-p), elementary::log(p));
    return k < 0.0 ? kInvalidCount : detail::finish_count(s, n - k);
  }
  return detail::finish_count(s, detail::binomial_core(s, n, p, 1.0 - p, elementary::log(p), elementary::log1p(-p)));
}

namespace detail {

/// The first attempt of binomial_sample (probs) or binomial_logits_sample
/// given p <= 1/2 of the flipped or unflipped count, q and log q as those
/// samplers compute them: the count, or kUnfinishedCount when the full
/// sampler must run (invalid parameters included).
AIMZ_HOT_FN std::int32_t binomial_sample_first(RandomStream& s, double n, bool valid, bool flip, double p,
                                               double q, double log_q) {
  const bool streamOk = s.ok();
  const bool trivial = (n == 0.0) | (p == 0.0);
  const bool run = valid & !trivial;
  const double k = binomial_first(s, run ? n : 1.0, run ? p : 0.25, run ? q : 0.75,
                                  run ? log_q : -0.28768207245178090);
  const double count = trivial ? 0.0 : k;
  const bool done = valid & streamOk & (count >= 0.0);
  return done ? static_cast<std::int32_t>(flip ? n - count : count) : kUnfinishedCount;
}

}  // namespace detail

/// binomial_sample's first attempt (kUnfinishedCount when it goes on or the
/// parameters are invalid): the vector half of its row sampler.
template <class T> AIMZ_HOT_FN std::int32_t binomial_sample_first(RandomStream& s, T total_count, T probs) {
  const double n = static_cast<double>(total_count);
  const double p = static_cast<double>(probs);
  const bool valid = detail::valid_total_count(n) & (n <= kMaxBinomialCount) & detail::valid_prob(p);
  const bool flip = p > 0.5;
  const double pv = valid ? p : 0.25;
  const double log_q = flip ? elementary::log(pv) : elementary::log1p(-pv);
  return detail::binomial_sample_first(s, n, valid, flip, flip ? 1.0 - pv : pv, flip ? pv : 1.0 - pv, log_q);
}

/// Binomial(total_count, sigmoid(logits)).
template <class T> AIMZ_MATH_FN std::int32_t binomial_logits_sample(RandomStream& s, T total_count, T logits) {
  const double n = static_cast<double>(total_count);
  const double l = static_cast<double>(logits);
  if (!detail::valid_total_count(n) || n > kMaxBinomialCount || std::isnan(l)) return kInvalidCount;
  const double p = sigmoid(l);
  const double q = sigmoid(-l);
  if (l > 0.0) {
    const double k = detail::binomial_core(s, n, q, p, -softplus(l), -softplus(-l));
    return k < 0.0 ? kInvalidCount : detail::finish_count(s, n - k);
  }
  return detail::finish_count(s, detail::binomial_core(s, n, p, q, -softplus(-l), -softplus(l)));
}

/// binomial_logits_sample's first attempt (kUnfinishedCount when it goes
/// on or the parameters are invalid): the vector half of its row sampler.
template <class T> AIMZ_HOT_FN std::int32_t binomial_logits_sample_first(RandomStream& s, T total_count, T logits) {
  const double n = static_cast<double>(total_count);
  const double l = static_cast<double>(logits);
  const bool valid = detail::valid_total_count(n) & (n <= kMaxBinomialCount) & (l == l);
  const double lv = valid ? l : 0.0;
  const bool flip = lv > 0.0;
  const double p = sigmoid(lv), q = sigmoid(-lv);
  return detail::binomial_sample_first(s, n, valid, flip, flip ? q : p, flip ? p : q,
                                       flip ? -softplus(-lv) : -softplus(lv));
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

// ------------------------------------------------------------------ Bernoulli

/// Bernoulli(probs): 1 if U < probs (U a double uniform).
template <class T> AIMZ_HOT_FN std::int32_t bernoulli_sample(RandomStream& s, T probs) {
  if (!detail::valid_prob(probs)) return kInvalidCount;
  const double u = uniform01<double>(s);
  return detail::finish_count(s, u < static_cast<double>(probs) ? 1.0 : 0.0);
}

/// Bernoulli(sigmoid(logits)).
template <class T> AIMZ_HOT_FN std::int32_t bernoulli_logits_sample(RandomStream& s, T logits) {
  if (std::isnan(logits)) return kInvalidCount;
  const double u = uniform01<double>(s);
  return detail::finish_count(s, u < sigmoid(static_cast<double>(logits)) ? 1.0 : 0.0);
}

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

// --------------------------------------------------------------- BetaBinomial

/// BetaBinomial(concentration1, concentration0, total_count):
/// Binomial(total_count, Beta(concentration1, concentration0)).
template <class T> AIMZ_MATH_FN std::int32_t beta_binomial_sample(RandomStream& s, T concentration1, T concentration0, T total_count) {
  const double n = static_cast<double>(total_count);
  if (!detail::pos_finite(concentration1) || !detail::pos_finite(concentration0) || !detail::valid_total_count(n) ||
      n > kMaxBinomialCount)
    return kInvalidCount;
  const double p = beta_sample<double>(s, static_cast<double>(concentration1), static_cast<double>(concentration0));
  if (std::isnan(p)) return kInvalidCount;
  return binomial_sample<double>(s, n, p);
}

/// beta_binomial_sample's first attempt (kUnfinishedCount when either
/// part goes on or the parameters are invalid): Beta's two squeezed gamma
/// attempts, which leave the stream where beta_sample leaves it when they
/// are accepted, then the binomial's first attempt on the words after them.
template <class T>
AIMZ_HOT_FN std::int32_t beta_binomial_sample_first(RandomStream& s, T concentration1, T concentration0, T total_count) {
  const double c1 = static_cast<double>(concentration1), c0 = static_cast<double>(concentration0);
  const double n = static_cast<double>(total_count);
  const bool valid = detail::pos_finite(c1) & detail::pos_finite(c0) & detail::valid_total_count(n) &
                     (n <= kMaxBinomialCount);
  const double p = beta_sample_first<double>(s, valid ? c1 : 1.0, valid ? c0 : 1.0);
  const std::int32_t k = binomial_sample_first<double>(s, valid ? n : 0.0, p);  // NaN p: unfinished
  return valid ? k : kUnfinishedCount;
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
