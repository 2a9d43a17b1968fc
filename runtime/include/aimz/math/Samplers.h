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

/// What a discrete first attempt returns when the full sampler must run.
constexpr std::int32_t kUnfinishedCount = -2;

namespace detail {

/// The squeeze of Hormann's transformed rejection (PTRS and BTRS): the
/// pair (u, v), us = 1/2 - |u - 1/2|, is accepted without a logarithm.
/// The scalar samplers and the rows' first attempts share it.
AIMZ_HOT_FN bool tr_squeezed(double us, double v, double vr) { return (us >= 0.07) & (v <= vr); }

}  // namespace detail

/// Whether a row's first attempt left element x to the full sampler (NaN
/// for continuous samplers, kUnfinishedCount for counts).
template <class T> AIMZ_HOT_FN bool first_attempt_rejected(T x) { return x != x; }

AIMZ_HOT_FN bool first_attempt_rejected(std::int32_t x) { return x == kUnfinishedCount; }

}  // namespace math
}  // namespace aimz
