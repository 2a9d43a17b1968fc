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
//   SineBivariateVonMises(phi_loc, psi_loc, phi_concentration,
//                         psi_concentration, correlation |
//                         weighted_correlation)
//                                    NumPyro: a pair of angles, density
//                                    e^(k1 cos a + k2 cos b + lam sin a
//                                    sin b) / C (a = phi - phi_loc, b = psi
//                                    - psi_loc); phi's marginal by Kent,
//                                    Ganeiber & Mardia's (2018) rejection
//                                    from an angular central Gaussian, psi
//                                    given phi a von Mises
//   SineSkewed(SineBivariateVonMises(...), s)  the same skewing on the
//                                    2-torus, loc = (phi_loc, psi_loc)
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

// -------------------------------------------------- SineBivariateVonMises

namespace detail {
/// log I0(k), k >= 0, without overflow.
AIMZ_MATH_FN double log_i0(double k) { return std::log(special::i0e(k)) + k; }

/// log C of the sine model: C = 4 pi^2 sum_m binom(2m, m) (lam^2 / (4 k1
/// k2))^m I_m(k1) I_m(k2) (Singh, Hnizdo & Demchuk 2002), summed in logs
/// until the terms fall below 1e-17 of the largest (they grow while lam^2
/// outweighs k1 k2, then fall faster than geometrically); NaN if that takes
/// more than 100000 terms (lam above ~2e5).
AIMZ_MATH_FN double sine_bivariate_log_norm(double k1, double k2, double lam) {
  const double first = log_i0(k1) + log_i0(k2);
  double max = first, sum = 1.0;  // sum of e^(t_m - max)
  if (lam != 0.0) {
    const double log_ratio = std::log(lam * lam) - std::log(4.0 * k1) - std::log(k2);
    double prev = first;
    for (int m = 1;; ++m) {
      if (m > 100000) return nan<double>();
      const double t = std::lgamma(2.0 * m + 1.0) - 2.0 * std::lgamma(m + 1.0) + m * log_ratio +
                       special::log_bessel_i(m, k1) + special::log_bessel_i(m, k2);
      if (t > max) {
        sum = sum * std::exp(max - t) + 1.0;
        max = t;
      } else {
        sum += std::exp(t - max);
      }
      if (t < prev && t < max - 40.0) break;
      prev = t;
    }
  }
  return 2.0 * std::log(2.0 * kPi) + max + std::log(sum);
}

struct SineBivariate {
  double phi_loc, psi_loc, k1, k2, lam;
  AIMZ_MATH_FN bool valid() const {
    return std::isfinite(phi_loc) && std::isfinite(psi_loc) && pos_finite(k1) && pos_finite(k2) && std::isfinite(lam);
  }
};

/// phi - phi_loc from its marginal, e^(k1 cos a) I0(sqrt(k2^2 + lam^2
/// sin^2 a)): x = (cos a, sin a) is drawn from the angular central Gaussian
/// of the matrix I + 2 A / b, A = diag(0, (k1 - lam^2 / k2) / 2) shifted
/// to be non-negative, and accepted with the target's ratio to Kent et
/// al.'s envelope (1 - cos a >= sin^2 a / 2 and log I0's slope in its
/// argument squared, at most 1 / (2 k2), make e^(-x'Ax) bound the target).
AIMZ_MATH_FN double sine_bivariate_phi(RandomStream& s, const SineBivariate& d) {
  const double eig = 0.5 * (d.k1 - d.lam * d.lam / d.k2);
  const double shift = eig < 0.0 ? eig : 0.0;
  const double a0 = -shift, a1 = eig - shift;  // one of them is 0
  const double sum = a0 + a1;
  // Kent et al.'s b: 1 / (b + 2 a0) + 1 / (b + 2 a1) = 1.
  const double b = 1.0 + 1.0 / (sum + std::sqrt(sum * sum + 1.0));
  const double sd0 = 1.0 / std::sqrt(1.0 + 2.0 * a0 / b), sd1 = 1.0 / std::sqrt(1.0 + 2.0 * a1 / b);
  const double log_i0_k2 = log_i0(d.k2);
  for (int it = 0; it < kMaxRejections && s.ok(); ++it) {
    const double y0 = sd0 * standard_normal<double>(s), y1 = sd1 * standard_normal<double>(s);
    const double u = uniform01<double>(s);
    const double r = std::sqrt(y0 * y0 + y1 * y1);
    if (!(r > 0.0)) continue;
    const double x0 = y0 / r, x1 = y1 / r;
    const double log_target = d.k1 * (x0 - 1.0) + shift +
                              log_i0(std::sqrt(d.k2 * d.k2 + d.lam * d.lam * x1 * x1)) - log_i0_k2;
    const double log_envelope_inv = 1.0 - 0.5 * b + std::log(0.5 * b + a0 * x0 * x0 + a1 * x1 * x1);
    if (std::log(u) < log_target + log_envelope_inv) return std::atan2(x1, x0);
  }
  return nan<double>();
}

/// A draw of the pair; with a skewness (SineSkewed), reflected about the
/// locations when a uniform exceeds (1 + s0 sin(phi - phi_loc) + s1
/// sin(psi - psi_loc)) / 2, as for a skewed von Mises.
template <class T>
AIMZ_MATH_FN void sine_pair_sample(RandomStream& s, EventView<T> out, const SineBivariate& d,
                                   const EventView<const T>* skew) {
  double x[2] = {nan<double>(), nan<double>()};
  if (d.valid() && (!skew || l1_ball<T>(2, *skew))) {
    const double a = sine_bivariate_phi(s, d);
    // psi - psi_loc given a: k2 cos b + lam sin a sin b = k cos(b - mu).
    const double ls = d.lam * std::sin(a);
    const double b = std::atan(ls / d.k2) + von_mises_centred(s, std::sqrt(d.k2 * d.k2 + ls * ls));
    const double loc[2] = {d.phi_loc, d.psi_loc}, c[2] = {a, b};
    const double u = skew ? uniform01<double>(s) : 0.0;
    const double keep = skew ? 0.5 * (1.0 + double((*skew)[0]) * std::sin(a) + double((*skew)[1]) * std::sin(b)) : 1.0;
    for (int i = 0; i < 2; ++i) x[i] = wrap_angle(u <= keep ? loc[i] + c[i] : loc[i] - c[i]);
  }
  for (int i = 0; i < 2; ++i) out[i] = s.ok() ? T(x[i]) : nan<T>();
}

/// The pair's log density; with a skewness, plus log(1 + s0 sin(phi -
/// phi_loc) + s1 sin(psi - psi_loc)).
template <class T>
AIMZ_MATH_FN T sine_pair_log_prob(EventView<T> x, const SineBivariate& d, const EventView<const T>* skew) {
  if (!d.valid() || std::isnan(x[0]) || std::isnan(x[1]) || (skew && !l1_ball<T>(2, *skew))) return nan<T>();
  if (std::isinf(x[0]) || std::isinf(x[1])) return -inf<T>();
  const double a = double(x[0]) - d.phi_loc, b = double(x[1]) - d.psi_loc;
  const double skewing =
      skew ? std::log(1.0 + double((*skew)[0]) * std::sin(a) + double((*skew)[1]) * std::sin(b)) : 0.0;
  return T(d.k1 * std::cos(a) + d.k2 * std::cos(b) + d.lam * std::sin(a) * std::sin(b) -
           sine_bivariate_log_norm(d.k1, d.k2, d.lam) + skewing);
}

/// The pair's parameters; Weighted: NumPyro's weighted_correlation w,
/// lam = w sqrt(k1 k2), else its correlation lam.
template <bool Weighted, class T>
AIMZ_MATH_FN SineBivariate sine_pair(EventView<const T> phi_loc, EventView<const T> psi_loc, EventView<const T> k1,
                                     EventView<const T> k2, EventView<const T> c) {
  const double lam = Weighted ? double(c[0]) * std::sqrt(double(k1[0]) * double(k2[0])) : double(c[0]);
  return {double(phi_loc[0]), double(psi_loc[0]), double(k1[0]), double(k2[0]), lam};
}
}  // namespace detail

// The runtime's rows (EventDistributions.def): the event is the pair (phi,
// psi), K = 2; correlation= or weighted_correlation=, then for SineSkewed
// the skewness.
#define AIMZ_SINE_PAIR_PARAMS                                                                       \
  EventView<const T> phi_loc, EventView<const T> psi_loc, EventView<const T> k1, EventView<const T> k2, \
      EventView<const T> c
#define AIMZ_SINE_PAIR_ROWS(NAME, WEIGHTED)                                                            \
  template <class T>                                                                                   \
  AIMZ_MATH_FN void NAME##_sample(RandomStream& s, std::int64_t, EventView<T> out, AIMZ_SINE_PAIR_PARAMS) { \
    detail::sine_pair_sample<T>(s, out, detail::sine_pair<WEIGHTED, T>(phi_loc, psi_loc, k1, k2, c), nullptr); \
  }                                                                                                    \
  template <class T>                                                                                   \
  AIMZ_MATH_FN T NAME##_log_prob(EventView<T> x, std::int64_t, AIMZ_SINE_PAIR_PARAMS) {                \
    return detail::sine_pair_log_prob<T>(x, detail::sine_pair<WEIGHTED, T>(phi_loc, psi_loc, k1, k2, c), nullptr); \
  }                                                                                                    \
  template <class T>                                                                                   \
  AIMZ_MATH_FN void sine_skewed_##NAME##_sample(RandomStream& s, std::int64_t, EventView<T> out,      \
                                                AIMZ_SINE_PAIR_PARAMS, EventView<const T> skew) {      \
    detail::sine_pair_sample<T>(s, out, detail::sine_pair<WEIGHTED, T>(phi_loc, psi_loc, k1, k2, c), &skew); \
  }                                                                                                    \
  template <class T>                                                                                   \
  AIMZ_MATH_FN T sine_skewed_##NAME##_log_prob(EventView<T> x, std::int64_t, AIMZ_SINE_PAIR_PARAMS,   \
                                               EventView<const T> skew) {                              \
    return detail::sine_pair_log_prob<T>(x, detail::sine_pair<WEIGHTED, T>(phi_loc, psi_loc, k1, k2, c), &skew); \
  }
AIMZ_SINE_PAIR_ROWS(sine_bivariate_von_mises, false)
AIMZ_SINE_PAIR_ROWS(sine_bivariate_von_mises_weighted, true)
#undef AIMZ_SINE_PAIR_ROWS
#undef AIMZ_SINE_PAIR_PARAMS

}  // namespace math
}  // namespace aimz
