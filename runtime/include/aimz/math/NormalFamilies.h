// The normal family and the laws built on it, each with its sampler and log
// density (their truncated forms: Truncated.h; CDFs: Cdf.h):
//
//   Normal(loc, scale)          Box-Muller (Samplers.h's standard_normal)
//   HalfNormal(scale)           |Normal(0, scale)|
//   LogNormal(loc, scale)       exp(Normal(loc, scale))
//   StudentT(df, loc, scale)    a normal over the square root of a gamma
#pragma once

#include "aimz/math/LogDensity.h"
#include "aimz/math/Samplers.h"

namespace aimz {
namespace math {

// --------------------------------------------------------------------- Normal

/// Normal(loc, scale).
template <class T> AIMZ_HOT_FN T normal_sample(RandomStream& s, T loc, T scale) {
  if (!std::isfinite(loc) || !detail::pos_finite(scale)) return detail::nan<T>();
  return detail::finish(s, loc + scale * standard_normal<T>(s));
}

/// Normal(loc, scale), scale > 0.
template <class T> AIMZ_MATH_FN T normal_log_prob(T x, T loc, T scale) {
  static_assert(detail::IsReal<T>::value, "T must be float or double");
  if (!std::isfinite(loc) || !detail::pos_finite(scale) || std::isnan(x)) return detail::nan<T>();
  const T z = (x - loc) / scale;
  return T(-0.5) * z * z - elementary::log(scale) - T(detail::kLnSqrt2Pi);
}

// ----------------------------------------------------------------- HalfNormal

/// HalfNormal(scale) = |Normal(0, scale)|.
template <class T> AIMZ_HOT_FN T half_normal_sample(RandomStream& s, T scale) {
  if (!detail::pos_finite(scale)) return detail::nan<T>();
  return detail::finish(s, scale * std::fabs(standard_normal<T>(s)));
}

/// HalfNormal(scale): support x >= 0.
template <class T> AIMZ_MATH_FN T half_normal_log_prob(T x, T scale) {
  if (!detail::pos_finite(scale) || std::isnan(x)) return detail::nan<T>();
  if (x < T(0)) return -detail::inf<T>();
  const T z = x / scale;
  return T(-0.5) * z * z - elementary::log(scale) - T(detail::kLnSqrtPiOver2);
}

// ------------------------------------------------------------------ LogNormal

/// LogNormal(loc, scale) = exp(Normal(loc, scale)).
template <class T> AIMZ_HOT_FN T log_normal_sample(RandomStream& s, T loc, T scale) {
  if (!std::isfinite(loc) || !detail::pos_finite(scale)) return detail::nan<T>();
  return detail::finish(s, elementary::exp(loc + scale * standard_normal<T>(s)));
}

/// LogNormal(loc, scale): log(x) ~ Normal(loc, scale); support x > 0.
template <class T> AIMZ_MATH_FN T log_normal_log_prob(T x, T loc, T scale) {
  if (!std::isfinite(loc) || !detail::pos_finite(scale) || std::isnan(x)) return detail::nan<T>();
  if (!(x > T(0)) || std::isinf(x)) return -detail::inf<T>();
  const T lx = elementary::log(x);
  const T z = (lx - loc) / scale;
  return T(-0.5) * z * z - lx - elementary::log(scale) - T(detail::kLnSqrt2Pi);
}

// ------------------------------------------------------------------- StudentT

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

}  // namespace math
}  // namespace aimz
