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

/// log(exp(x) + exp(y)) with -inf arguments allowed. Branch-free.
template <class T> AIMZ_HOT_FN T log_add_exp(T x, T y) {
  const T m = x > y ? x : y;
  const T value = m + elementary::log1p(elementary::exp(-std::fabs(x - y)));
  return m == -inf<T>() ? m : value;
}

}  // namespace detail

}  // namespace math
}  // namespace aimz
