// Distributions of angles:
//
//   VonMises(loc, concentration)     NumPyro: density e^(k cos(x - loc)) /
//                                    (2 pi I0(k)), periodic in x; draws in
//                                    [-pi, pi)
#pragma once

#include "aimz/math/Samplers.h"
#include "aimz/math/SpecialFunctions.h"

namespace aimz {
namespace math {

/// k (cos(x - loc) - 1) - log(2 pi i0e(k)): i0e keeps large k finite. Any
/// finite x is an angle (the density is periodic); an infinite one is not.
template <class T> AIMZ_MATH_FN T von_mises_log_prob(T x, T loc, T concentration) {
  if (!std::isfinite(loc) || !detail::pos_finite(concentration) || std::isnan(x)) return detail::nan<T>();
  if (std::isinf(x)) return -detail::inf<T>();
  const double k = double(concentration);
  const double d = std::fmod(double(x) - double(loc), 2.0 * detail::kPi);
  return T(k * (std::cos(d) - 1.0) - detail::kLn2Pi - std::log(special::i0e(k)));
}

namespace detail {
/// Best and Fisher (1979): the centred angle, by rejection from a wrapped
/// Cauchy envelope. Beyond k = 1e6 the envelope's constants lose their
/// digits; there, as NumPy does, the normal of variance 1 / k, which the
/// density matches to within O(1 / k).
AIMZ_MATH_FN double von_mises_centred(RandomStream& s, double k) {
  if (k > 1e6) return standard_normal<double>(s) / std::sqrt(k);
  const double tau = 1.0 + std::sqrt(1.0 + 4.0 * k * k);
  const double rho = (tau - std::sqrt(2.0 * tau)) / (2.0 * k);
  const double r = (1.0 + rho * rho) / (2.0 * rho);
  for (;;) {
    const double u1 = uniform01<double>(s), u2 = uniform01<double>(s), u3 = uniform01<double>(s);
    const double z = std::cos(kPi * u1);
    const double f = (1.0 + r * z) / (r + z);
    const double c = k * (r - f);
    if (!s.ok()) return nan<double>();
    if (c * (2.0 - c) > u2 || std::log(c / u2) + 1.0 - c >= 0.0) {
      const double theta = std::acos(f < -1.0 ? -1.0 : f > 1.0 ? 1.0 : f);
      return u3 < 0.5 ? -theta : theta;
    }
  }
}
}  // namespace detail

template <class T> AIMZ_MATH_FN T von_mises_sample(RandomStream& s, T loc, T concentration) {
  if (!std::isfinite(loc) || !detail::pos_finite(concentration)) return detail::nan<T>();
  const double two_pi = 2.0 * detail::kPi;
  double x = std::fmod(double(loc) + detail::von_mises_centred(s, double(concentration)) + detail::kPi, two_pi);
  x = (x < 0.0 ? x + two_pi : x) - detail::kPi;
  T y = T(x);
  y = y < T(-detail::kPi) ? T(-detail::kPi) : y;
  return detail::finish(s, y >= T(detail::kPi) ? T(-detail::kPi) : y);
}

}  // namespace math
}  // namespace aimz
