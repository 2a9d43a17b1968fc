// Distributions of angles:
//
//   VonMises(loc, concentration)     NumPyro: density e^(k cos(x - loc)) /
//                                    (2 pi I0(k)), periodic in x; draws in
//                                    [-pi, pi); its CDF over that support,
//                                    P(-pi <= X <= x)
//   SineSkewed(VonMises(loc, k), s)  NumPyro: on the K-torus (the event),
//                                    density prod_i vm(x_i) (1 + sum_i s_i
//                                    sin(x_i - loc_i)); a draw reflects a
//                                    von Mises draw about loc when a
//                                    uniform exceeds (1 + that sum) / 2
#pragma once

#include "aimz/math/Samplers.h"
#include "aimz/math/SpecialFunctions.h"
#include "aimz/math/EventDistributions.h"
#include "aimz/math/TruncatedByCdf.h"

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
/// An angle in [-pi, pi).
AIMZ_MATH_FN double wrap_angle(double x) {
  const double two_pi = 2.0 * kPi;
  double y = std::fmod(x + kPi, two_pi);
  y = (y < 0.0 ? y + two_pi : y) - kPi;
  return y >= kPi ? -kPi : y;
}

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
  T y = T(detail::wrap_angle(double(loc) + detail::von_mises_centred(s, double(concentration))));
  y = y < T(-detail::kPi) ? T(-detail::kPi) : y;
  return detail::finish(s, y >= T(detail::kPi) ? T(-detail::kPi) : y);
}

namespace detail {
/// The unwrapped CDF G(y) of the centred von Mises (G(y + 2 pi) = G(y) +
/// 1), as SciPy's vonmises.cdf: Hill's (1977) backward series below k = 50,
/// the normal approximation Phi(b sin(y / 2)), b = sqrt(2 / pi) / i0e(k),
/// above. `log`: log G on [-pi, pi] (the normal's far tail keeps its
/// digits there).
AIMZ_MATH_FN double von_mises_unwrapped_cdf(double k, double y, bool log) {
  const double two_pi = 2.0 * kPi;
  const double turns = std::nearbyint(y / two_pi);
  const double x = y - turns * two_pi;
  double f;
  if (k < 50.0) {
    const int p = int(std::ceil(28.0 + 0.5 * k - 100.0 / (k + 5.0)));
    const double s = std::sin(x), c = std::cos(x);
    double sn = std::sin(p * x), cn = std::cos(p * x), r = 0.0, v = 0.0;
    for (int n = p - 1; n > 0; --n) {
      const double sn1 = sn * c - cn * s;
      cn = cn * c + sn * s;
      sn = sn1;
      r = 1.0 / (2.0 * n / k + r);
      v = r * (sn / n + v);
    }
    f = 0.5 + x / two_pi + v / kPi;
    f = f < 0.0 ? 0.0 : f > 1.0 ? 1.0 : f;
    if (log && turns == 0.0) return std::log(f);
  } else {
    const double z = std::sqrt(2.0 / kPi) / special::i0e(k) * std::sin(0.5 * x);
    if (log && turns == 0.0) return log_ndtr(z);
    f = 0.5 * std::erfc(-z * kSqrtHalf);
  }
  return log ? std::log(f + turns) : f + turns;
}

/// VonMises(loc, k) on its support [-pi, pi): F(x) = G(x - loc) - G(-pi -
/// loc), S(x) = G(pi - loc) - G(x - loc); whichever is the smaller side is
/// taken from its own end. Quantiles by bisection.
struct VonMisesCdf {
  double loc, k;
  AIMZ_MATH_FN bool valid() const { return std::isfinite(loc) && pos_finite(k); }
  AIMZ_MATH_FN double lo() const { return -kPi; }
  AIMZ_MATH_FN double hi() const { return kPi; }
  AIMZ_MATH_FN double g(double y) const { return von_mises_unwrapped_cdf(k, y, false); }
  AIMZ_MATH_FN double log_cdf(double x) const {
    if (x <= lo()) return -inf<double>();
    if (x >= hi()) return 0.0;
    return std::log(g(x - loc) - g(-kPi - loc));
  }
  AIMZ_MATH_FN double log_sf(double x) const {
    if (x <= lo()) return 0.0;
    if (x >= hi()) return -inf<double>();
    return std::log(g(kPi - loc) - g(x - loc));
  }
  AIMZ_MATH_FN double lower(double) const { return nan<double>(); }  // bisection
  AIMZ_MATH_FN double upper(double) const { return nan<double>(); }
  AIMZ_MATH_FN double log_pdf(double x) const { return von_mises_log_prob<double>(x, loc, k); }
};
}  // namespace detail

template <class T> AIMZ_MATH_FN auto von_mises_cdf(T loc, T concentration) {
  return detail::VonMisesCdf{double(loc), double(concentration)};
}

// ------------------------------------------------------------- SineSkewed

namespace detail {
/// 1 + sum_i s_i sin(x_i - loc_i): the skewing factor (NumPyro's eq. 2.1).
template <class T, class X>
AIMZ_MATH_FN double sine_skew_factor(std::int64_t K, X x, EventView<const T> loc, EventView<const T> skewness) {
  double acc = 0.0;
  for (std::int64_t i = 0; i < K; ++i) acc += double(skewness[i]) * std::sin(double(x(i)) - double(loc[i]));
  return 1.0 + acc;
}

/// NumPyro's l1_ball constraint on the skewness: sum |s_i| <= 1 (to f64
/// rounding), so the density stays normalized and non-negative.
template <class T> AIMZ_MATH_FN bool l1_ball(std::int64_t K, EventView<const T> skewness) {
  double acc = 0.0;
  for (std::int64_t i = 0; i < K; ++i) acc += std::fabs(double(skewness[i]));
  return acc == acc && acc <= 1.0 + 1e-6;
}
}  // namespace detail

template <class T>
AIMZ_MATH_FN void sine_skewed_von_mises_sample(RandomStream& s, std::int64_t K, EventView<T> out, EventView<const T> loc,
                                               EventView<const T> concentration, EventView<const T> skewness) {
  bool ok = detail::l1_ball<T>(K, skewness);
  for (std::int64_t i = 0; i < K; ++i) {
    ok = ok && std::isfinite(loc[i]) && detail::pos_finite(concentration[i]);
    out[i] = ok ? von_mises_sample<T>(s, loc[i], concentration[i]) : detail::nan<T>();
  }
  const double u = uniform01<double>(s);
  const double keep = 0.5 * detail::sine_skew_factor<T>(K, [&](std::int64_t i) { return out[i]; }, loc, skewness);
  for (std::int64_t i = 0; i < K; ++i)
    out[i] = !ok || !s.ok() ? detail::nan<T>()
             : u <= keep    ? out[i]
                            : T(detail::wrap_angle(2.0 * double(loc[i]) - double(out[i])));
}

/// sum_i log vm(x_i) + log(1 + sum_i s_i sin(x_i - loc_i)).
template <class T>
AIMZ_MATH_FN T sine_skewed_von_mises_log_prob(EventView<T> x, std::int64_t K, EventView<const T> loc,
                                              EventView<const T> concentration, EventView<const T> skewness) {
  if (!detail::l1_ball<T>(K, skewness)) return detail::nan<T>();
  double acc = 0.0;
  for (std::int64_t i = 0; i < K; ++i) acc += double(von_mises_log_prob<T>(x[i], loc[i], concentration[i]));
  if (acc != acc || acc == -detail::inf<double>()) return T(acc);
  return T(acc + std::log(detail::sine_skew_factor<T>(K, [&](std::int64_t i) { return x[i]; }, loc, skewness)));
}

}  // namespace math
}  // namespace aimz
