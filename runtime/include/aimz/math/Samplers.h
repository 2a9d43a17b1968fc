// Exact samplers driven by a RandomStream.  See docs/math.md for the
// algorithms and references.
//
// Conventions:
//   * continuous samplers return T; invalid parameters -> NaN;
//   * discrete samplers return int32_t; invalid parameters -> kInvalidCount
//     (-1), which is outside every discrete support;
//   * if the stream is not ok() (coordinates out of range, or its block
//     budget ran out) the result is NaN / kInvalidCount;
//   * every rejection loop is bounded (kMaxRejections); hitting the bound
//     (probability < 1e-300 for valid parameters) also yields NaN / -1.
// Continuous samplers compute in T and draw uniforms of type T (float: one
// 32-bit word, 24-bit resolution; double: two words, 53-bit resolution).
// Discrete samplers compute in double with double uniforms whatever T is, so
// float and double parameters with equal values give identical draws.
#pragma once

#include "aimz/math/Elementary.h"
#include "aimz/math/Philox.h"
#include "aimz/math/Special.h"

namespace aimz {
namespace math {

constexpr int kMaxRejections = 1000;

/// Largest Poisson rate accepted by poisson_sample (keeps draws in int32).
constexpr double kMaxPoissonRate = 1073741824.0;  // 2^30
/// Largest total_count accepted by the binomial samplers.
constexpr double kMaxBinomialCount = 2147483647.0;  // INT32_MAX

namespace detail {

/// Marsaglia & Tsang (2000) for a >= 1: returns a Gamma(a, 1) variate, or
/// NaN if the stream gives out.
template <class T> AIMZ_MATH_FN T mt_gamma(RandomStream& s, T a);

}  // namespace detail

/// Standard normal by Box-Muller (two uniforms; the cosine branch only),
/// with the branch-free log and cos(2 pi u) of Elementary.h (log without
/// the special cases a uniform never hits): once a sampler
/// is inlined into a loop over elements, the Philox block and this
/// transform vectorize, and every lane gives the scalar code's bits.
template <class T> AIMZ_HOT_FN T standard_normal(RandomStream& s) {
  static_assert(detail::IsReal<T>::value, "T must be float or double");
  const T u1 = uniform01<T>(s);
  const T u2 = uniform01<T>(s);
  const T r = std::sqrt(T(-2) * elementary::log_uniform(u1));
  return r * elementary::cos2pi(u2);
}

namespace detail {

template <class T> AIMZ_MATH_FN T mt_gamma(RandomStream& s, T a) {
  const T d = a - T(1.0 / 3.0);
  const T c = T(1) / (T(3) * std::sqrt(d));
  for (int it = 0; it < kMaxRejections && s.ok(); ++it) {
    const T z = standard_normal<T>(s);
    const T t = c * z;
    if (t <= T(-1)) continue;
    const T u = uniform01<T>(s);
    const T z2 = z * z;
    const T w = T(1) + t;
    const T v = w * w * w;
    if (u < T(1) - T(0.0331) * z2 * z2) return d * v;
    // log u < z^2/2 + d (1 - v + log v), with 1 - v + log v = 3 log1pmx(t) - t^2 (3 + t)
    if (std::log(u) < T(0.5) * z2 + d * (T(3) * log1pmx(t) - t * t * (T(3) + t))) return d * v;
  }
  return nan<T>();
}

/// log of a Gamma(a, 1) variate from a Gamma(a, 1) draw G (a >= 1) or a
/// Gamma(a + 1, 1) draw G and the boost's uniform U (a < 1): the one
/// expression log_std_gamma and the row samplers' first attempts share,
/// so that both give the same bits.
template <class T> AIMZ_HOT_FN T log_boosted(T g, T u, T a) {
  return a >= T(1) ? elementary::log(g) : elementary::log(g) + elementary::log_uniform(u) / a;
}

/// log of a Gamma(a, 1) variate, a > 0; uses the boost
/// Gamma(a) = Gamma(a + 1) * U^(1/a) for a < 1, in log space so that tiny
/// shapes do not underflow. The boost's U is drawn whatever a is, so what
/// follows in the stream (Beta's second gamma, a gamma-Poisson's count)
/// starts at the same word for every a, as in the row samplers' first
/// attempts (boosted_gamma_squeezed).
template <class T> AIMZ_MATH_FN T log_std_gamma(RandomStream& s, T a) {
  const T g = mt_gamma(s, a < T(1) ? a + T(1) : a);
  const T u = uniform01<T>(s);
  return log_boosted(g, u, a);
}

/// mt_gamma's first attempt when its squeeze accepts it (about 98% of
/// draws for a >= 1, without a log): Ok is false when mt_gamma would go on
/// to the log test or try again. Straight-line, so a row of these
/// vectorizes; when Ok, the value is mt_gamma's, bit for bit.
template <class T> AIMZ_HOT_FN T mt_gamma_squeezed(RandomStream& s, T a, bool& ok) {
  const T d = a - T(1.0 / 3.0);
  const T c = T(1) / (T(3) * std::sqrt(d));
  const T z = standard_normal<T>(s);
  const T t = c * z;
  const T u = uniform01<T>(s);
  const T z2 = z * z;
  const T w = T(1) + t;
  const T v = w * w * w;
  ok = (t > T(-1)) & (u < T(1) - T(0.0331) * z2 * z2);
  return d * v;
}

/// The squeezed first attempt of log_std_gamma's Gamma(a, 1) (a + 1 when a
/// < 1) and the boost's uniform U, drawn whatever a is, as log_std_gamma
/// draws it: the same stream words as log_std_gamma.
template <class T> AIMZ_HOT_FN T boosted_gamma_squeezed(RandomStream& s, T a, bool& ok, T& u) {
  const T g = mt_gamma_squeezed(s, a < T(1) ? a + T(1) : a, ok);
  u = uniform01<T>(s);
  return g;
}

template <class T> AIMZ_HOT_FN T finish(const RandomStream& s, T x) { return s.ok() ? x : nan<T>(); }

AIMZ_HOT_FN std::int32_t finish_count(const RandomStream& s, double k) {
  return s.ok() && k >= 0.0 && k <= kMaxBinomialCount ? static_cast<std::int32_t>(k) : kInvalidCount;
}

}  // namespace detail

// ---------------------------------------------------------------- continuous

/// Normal(loc, scale).
template <class T> AIMZ_HOT_FN T normal_sample(RandomStream& s, T loc, T scale) {
  if (!std::isfinite(loc) || !detail::pos_finite(scale)) return detail::nan<T>();
  return detail::finish(s, loc + scale * standard_normal<T>(s));
}

/// HalfNormal(scale) = |Normal(0, scale)|.
template <class T> AIMZ_HOT_FN T half_normal_sample(RandomStream& s, T scale) {
  if (!detail::pos_finite(scale)) return detail::nan<T>();
  return detail::finish(s, scale * std::fabs(standard_normal<T>(s)));
}

/// LogNormal(loc, scale) = exp(Normal(loc, scale)).
template <class T> AIMZ_HOT_FN T log_normal_sample(RandomStream& s, T loc, T scale) {
  if (!std::isfinite(loc) || !detail::pos_finite(scale)) return detail::nan<T>();
  return detail::finish(s, elementary::exp(loc + scale * standard_normal<T>(s)));
}

/// Exponential(rate) by inversion: -log(U) / rate.
template <class T> AIMZ_HOT_FN T exponential_sample(RandomStream& s, T rate) {
  if (!detail::pos_finite(rate)) return detail::nan<T>();
  return detail::finish(s, -elementary::log_uniform(uniform01<T>(s)) / rate);
}

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

/// Cauchy(loc, scale) by inversion: loc + scale tan(pi (U - 1/2)).
template <class T> AIMZ_HOT_FN T cauchy_sample(RandomStream& s, T loc, T scale) {
  if (!std::isfinite(loc) || !detail::pos_finite(scale)) return detail::nan<T>();
  const T u = uniform01<T>(s);
  return detail::finish(s, loc + scale * elementary::tanpi(u - T(0.5)));
}

/// HalfCauchy(scale) = |Cauchy(0, scale)|.
template <class T> AIMZ_HOT_FN T half_cauchy_sample(RandomStream& s, T scale) {
  if (!detail::pos_finite(scale)) return detail::nan<T>();
  const T u = uniform01<T>(s);
  return detail::finish(s, scale * std::fabs(elementary::tanpi(u - T(0.5))));
}

/// StudentT(df, loc, scale) = loc + scale Z / sqrt(G / (df/2)), Z ~ N(0,1),
/// G ~ Gamma(df/2, 1) (i.e. chi2_df / df = G / (df/2)); df = +inf gives
/// Normal(loc, scale).
template <class T> AIMZ_MATH_FN T student_t_sample(RandomStream& s, T df, T loc, T scale) {
  if (!(df > T(0)) || !std::isfinite(loc) || !detail::pos_finite(scale)) return detail::nan<T>();
  const T z = standard_normal<T>(s);
  if (std::isinf(df)) return detail::finish(s, loc + scale * z);
  const T half = T(0.5) * df;
  const T lg = detail::log_std_gamma(s, half);
  const T t = z * elementary::exp(T(0.5) * (elementary::log(half) - lg));
  return detail::finish(s, loc + scale * t);
}

/// student_t_sample where the gamma's first attempt is accepted by the
/// squeeze (or df is infinite), NaN elsewhere: the vector half of its row
/// sampler (the same stream words and arithmetic, the same bits).
template <class T> AIMZ_HOT_FN T student_t_sample_first(RandomStream& s, T df, T loc, T scale) {
  const bool streamOk = s.ok();  // as in gamma_sample_first
  const T z = standard_normal<T>(s);
  const T half = T(0.5) * df;
  bool ok;
  T u;
  const T g = detail::boosted_gamma_squeezed(s, half, ok, u);
  const T lg = detail::log_boosted(g, u, half);
  const T t = z * elementary::exp(T(0.5) * (elementary::log(half) - lg));
  const bool normal = std::isinf(df);
  const T x = normal ? loc + scale * z : loc + scale * t;
  ok = (ok | normal) & streamOk & (df > T(0)) & std::isfinite(loc) & detail::pos_finite(scale);
  return ok ? x : detail::nan<T>();
}

// ------------------------------------------------------------------ discrete

/// What a discrete first attempt returns when the full sampler must run.
constexpr std::int32_t kUnfinishedCount = -2;

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

/// The squeeze of Hormann's transformed rejection (PTRS and BTRS): the
/// pair (u, v), us = 1/2 - |u - 1/2|, is accepted without a logarithm.
/// The scalar samplers and the rows' first attempts share it.
AIMZ_HOT_FN bool tr_squeezed(double us, double v, double vr) { return (us >= 0.07) & (v <= vr); }

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

/// Poisson(rate): inversion for rate < 10, PTRS for rate >= 10.
/// rate must be in [0, 2^30].
template <class T> AIMZ_MATH_FN std::int32_t poisson_sample(RandomStream& s, T rate) {
  const double lam = static_cast<double>(rate);
  if (!(lam >= 0.0) || !(lam <= kMaxPoissonRate)) return kInvalidCount;
  if (lam == 0.0) return 0;
  const double k = lam < 10.0 ? detail::poisson_inversion(s, lam) : detail::poisson_ptrs(s, lam);
  return detail::finish_count(s, k);
}

/// Whether a row's first attempt left element x to the full sampler (NaN
/// for continuous samplers, kUnfinishedCount for counts).
template <class T> AIMZ_HOT_FN bool first_attempt_rejected(T x) { return x != x; }
AIMZ_HOT_FN bool first_attempt_rejected(std::int32_t x) { return x == kUnfinishedCount; }

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

// ------------------------------------------------ more continuous families

/// Laplace(loc, scale) by inversion: loc - scale sign(w) log1p(-2|w|),
/// w = U - 1/2.
template <class T> AIMZ_HOT_FN T laplace_sample(RandomStream& s, T loc, T scale) {
  if (!std::isfinite(loc) || !detail::pos_finite(scale)) return detail::nan<T>();
  const T w = uniform01<T>(s) - T(0.5);
  const T e = -elementary::log1p(T(-2) * std::fabs(w));
  return detail::finish(s, w < T(0) ? loc - scale * e : loc + scale * e);
}

/// Logistic(loc, scale) by inversion: loc + scale (log U - log1p(-U)).
template <class T> AIMZ_HOT_FN T logistic_sample(RandomStream& s, T loc, T scale) {
  if (!std::isfinite(loc) || !detail::pos_finite(scale)) return detail::nan<T>();
  const T u = uniform01<T>(s);
  return detail::finish(s, loc + scale * (elementary::log_uniform(u) - elementary::log1p(-u)));
}

/// Gumbel(loc, scale) by inversion: loc - scale log(-log U).
template <class T> AIMZ_HOT_FN T gumbel_sample(RandomStream& s, T loc, T scale) {
  if (!std::isfinite(loc) || !detail::pos_finite(scale)) return detail::nan<T>();
  const T u = uniform01<T>(s);
  return detail::finish(s, loc - scale * elementary::log(-elementary::log_uniform(u)));
}

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

/// Pareto(scale, alpha) by inversion: scale U^(-1/alpha).
template <class T> AIMZ_HOT_FN T pareto_sample(RandomStream& s, T scale, T alpha) {
  if (!detail::pos_finite(scale) || !detail::pos_finite(alpha)) return detail::nan<T>();
  return detail::finish(s, scale * elementary::exp(-elementary::log_uniform(uniform01<T>(s)) / alpha));
}

/// Weibull(scale, concentration) by inversion: scale (-log U)^(1/k).
template <class T> AIMZ_HOT_FN T weibull_sample(RandomStream& s, T scale, T concentration) {
  if (!detail::pos_finite(scale) || !detail::pos_finite(concentration)) return detail::nan<T>();
  const T e = -elementary::log_uniform(uniform01<T>(s));
  return detail::finish(s, scale * elementary::exp(elementary::log(e) / concentration));
}

// --------------------------------------------------- more discrete families
//
// Mixtures draw their mixing variable first (in double, as every discrete
// sampler computes), then the count.

namespace detail {
/// log(kMaxPoissonRate): larger log rates are invalid draws.
constexpr double kLogMaxPoissonRate = 20.79441541679836;  // log(2^30)
static_assert(kMaxPoissonRate == 1073741824.0, "update kLogMaxPoissonRate");

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
template <class T> struct NegativeBinomial2First {
  T mean, concentration;
  AIMZ_HOT_FN std::int32_t operator()(RandomStream& r) const;
};
}  // namespace detail

template <class T> AIMZ_HOT_FN std::int32_t detail::PoissonFirst<T>::operator()(RandomStream& r) const {
  return poisson_sample_first<T>(r, rate);
}
template <class T> AIMZ_HOT_FN std::int32_t detail::NegativeBinomial2First<T>::operator()(RandomStream& r) const {
  return negative_binomial2_sample_first<T>(r, mean, concentration);
}

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

}  // namespace math
}  // namespace aimz
