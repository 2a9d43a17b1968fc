// Distributions on the positive half-line (from a location, for Levy and
// Wald) beyond those of GammaFamilies.h, each with its log density, sampler
// and, where it has one, its CDF (CdfDistributions.def's AIMZ_CDF_FAMILY
// rows take truncation, censoring and log_cdf / log_ccdf from it):
//
//   Levy(loc, scale)                 NumPyro: loc + scale / Z^2; CDF
//                                    erfc(sqrt(scale / (2 (x - loc))))
//   Gompertz(concentration, rate)    NumPyro: S(x) = exp(-c expm1(rate x))
//   Dagum(concentration, sharpness,  NumPyro: F(x) = (1 + (x / scale)^-a)^-p
//         scale)
//   Wald(mu, lam, alpha)             PyMC: the inverse Gaussian of mean mu
//                                    and shape lam, shifted by alpha
//   Rice(nu, sigma)                  PyMC: |(nu + sigma Z0, sigma Z1)|
//   LowerTruncatedPowerLaw(alpha, low)         NumPyro: density x^alpha on
//                                              [low, inf), alpha < -1
//   DoublyTruncatedPowerLaw(alpha, low, high)  NumPyro: density x^alpha on
//                                              [low, high]
#pragma once

#include "aimz/math/Samplers.h"
#include "aimz/math/SpecialFunctions.h"
#include "aimz/math/TruncatedByCdf.h"

namespace aimz {
namespace math {

// -------------------------------------------------------------------- Levy

template <class T> AIMZ_MATH_FN T levy_log_prob(T x, T loc, T scale) {
  if (!std::isfinite(loc) || !detail::pos_finite(scale) || std::isnan(x)) return detail::nan<T>();
  if (!(x > loc) || std::isinf(x)) return -detail::inf<T>();
  const double d = double(x) - double(loc), c = double(scale);
  return T(0.5 * (std::log(c) - detail::kLn2Pi) - 1.5 * std::log(d) - 0.5 * c / d);
}

template <class T> AIMZ_MATH_FN T levy_sample(RandomStream& s, T loc, T scale) {
  if (!std::isfinite(loc) || !detail::pos_finite(scale)) return detail::nan<T>();
  const double z = standard_normal<double>(s);
  return detail::finish(s, T(double(loc) + double(scale) / (z * z)));
}

namespace detail {
/// F(x) = erfc(t) = 2 Q(t sqrt 2) and S(x) = erf(t), t = sqrt(c / (2 d)).
struct LevyCdf {
  double loc, scale;
  AIMZ_MATH_FN bool valid() const { return std::isfinite(loc) && pos_finite(scale); }
  AIMZ_MATH_FN double lo() const { return loc; }
  AIMZ_MATH_FN double hi() const { return inf<double>(); }
  AIMZ_MATH_FN double root2t(double x) const { return std::sqrt(scale / (x - loc)); }
  AIMZ_MATH_FN double log_cdf(double x) const { return kLn2 + normal_log_tail(root2t(x)); }
  AIMZ_MATH_FN double log_sf(double x) const { return log1m_exp_d(log_cdf(x)); }
  AIMZ_MATH_FN double at(double root2t) const { return loc + scale / (root2t * root2t); }
  AIMZ_MATH_FN double lower(double lp) const { return at(normal_isf_log_any(lp - kLn2)); }
  AIMZ_MATH_FN double upper(double lq) const { return at(normal_isf_log_any(log1m_exp_d(lq) - kLn2)); }
  AIMZ_MATH_FN double log_pdf(double x) const { return levy_log_prob<double>(x, loc, scale); }
};
}  // namespace detail

template <class T> AIMZ_MATH_FN auto levy_cdf(T loc, T scale) { return detail::LevyCdf{double(loc), double(scale)}; }

// ---------------------------------------------------------------- Gompertz

template <class T> AIMZ_MATH_FN T gompertz_log_prob(T x, T concentration, T rate) {
  if (!detail::pos_finite(concentration) || !detail::pos_finite(rate) || std::isnan(x)) return detail::nan<T>();
  if (x < T(0) || std::isinf(x)) return -detail::inf<T>();
  const double c = double(concentration), r = double(rate), rx = r * double(x);
  return T(std::log(c) + std::log(r) + rx - c * std::expm1(rx));
}

namespace detail {
struct GompertzCdf {
  double c, rate;
  AIMZ_MATH_FN bool valid() const { return pos_finite(c) && pos_finite(rate); }
  AIMZ_MATH_FN double lo() const { return 0.0; }
  AIMZ_MATH_FN double hi() const { return inf<double>(); }
  AIMZ_MATH_FN double log_sf(double x) const { return x <= 0.0 ? 0.0 : -c * std::expm1(rate * x); }
  AIMZ_MATH_FN double log_cdf(double x) const { return x <= 0.0 ? -inf<double>() : log1m_exp_d(log_sf(x)); }
  AIMZ_MATH_FN double upper(double lq) const { return std::log1p(-lq / c) / rate; }
  AIMZ_MATH_FN double lower(double lp) const { return upper(log1m_exp_d(lp)); }
  AIMZ_MATH_FN double log_pdf(double x) const { return gompertz_log_prob<double>(x, c, rate); }
};
}  // namespace detail

template <class T> AIMZ_MATH_FN auto gompertz_cdf(T concentration, T rate) {
  return detail::GompertzCdf{double(concentration), double(rate)};
}

/// By inversion of the survival function: log1p(E / c) / rate, E ~ Exp(1).
template <class T> AIMZ_MATH_FN T gompertz_sample(RandomStream& s, T concentration, T rate) {
  if (!detail::pos_finite(concentration) || !detail::pos_finite(rate)) return detail::nan<T>();
  const double lq = elementary::log_uniform(uniform01<double>(s));
  return detail::finish(s, T(detail::GompertzCdf{double(concentration), double(rate)}.upper(lq)));
}

// ------------------------------------------------------------------- Dagum

namespace detail {
/// log F(x) = -p softplus(-u), u = a log(x / b).
struct DagumCdf {
  double p, a, b;
  AIMZ_MATH_FN bool valid() const { return pos_finite(p) && pos_finite(a) && pos_finite(b); }
  AIMZ_MATH_FN double lo() const { return 0.0; }
  AIMZ_MATH_FN double hi() const { return inf<double>(); }
  AIMZ_MATH_FN double u(double x) const { return a * (std::log(x) - std::log(b)); }
  AIMZ_MATH_FN double log_cdf(double x) const { return x <= 0.0 ? -inf<double>() : -p * softplus(-u(x)); }
  AIMZ_MATH_FN double log_sf(double x) const { return x <= 0.0 ? 0.0 : log1m_exp_d(log_cdf(x)); }
  /// softplus(-u) = -lp / p: e^-u = expm1(-lp / p).
  AIMZ_MATH_FN double lower(double lp) const { return b * std::exp(-std::log(std::expm1(-lp / p)) / a); }
  AIMZ_MATH_FN double upper(double lq) const { return lower(log1m_exp_d(lq)); }
  AIMZ_MATH_FN double log_pdf(double x) const {
    if (!(x > 0.0) || std::isinf(x)) return -inf<double>();
    const double v = u(x);
    return std::log(a) + std::log(p) - std::log(x) + p * v - (p + 1.0) * softplus(v);
  }
};
}  // namespace detail

template <class T> AIMZ_MATH_FN auto dagum_cdf(T concentration, T sharpness, T scale) {
  return detail::DagumCdf{double(concentration), double(sharpness), double(scale)};
}
template <class T> AIMZ_MATH_FN T dagum_log_prob(T x, T concentration, T sharpness, T scale) {
  return detail::log_prob_of_base(dagum_cdf(concentration, sharpness, scale), x);
}
template <class T> AIMZ_MATH_FN T dagum_sample(RandomStream& s, T concentration, T sharpness, T scale) {
  return detail::sample_by_inversion<T>(s, dagum_cdf(concentration, sharpness, scale));
}

// -------------------------------------------------------------------- Wald

namespace detail {
AIMZ_MATH_FN bool wald_ok(double mu, double lam, double alpha) {
  return pos_finite(mu) && pos_finite(lam) && std::isfinite(alpha);
}
}  // namespace detail

template <class T> AIMZ_MATH_FN T wald_log_prob(T x, T mu, T lam, T alpha) {
  if (!detail::wald_ok(double(mu), double(lam), double(alpha)) || std::isnan(x)) return detail::nan<T>();
  const double y = double(x) - double(alpha), m = double(mu), l = double(lam);
  if (!(y > 0.0) || std::isinf(y)) return -detail::inf<T>();
  const double d = (y - m) / m;
  return T(0.5 * (std::log(l) - detail::kLn2Pi) - 1.5 * std::log(y) - 0.5 * l * d * d / y);
}

/// Michael, Schucany and Haas (1976): the root of the quadratic taken
/// without cancellation, then the other root with probability y / (mu + y).
template <class T> AIMZ_MATH_FN T wald_sample(RandomStream& s, T mu, T lam, T alpha) {
  if (!detail::wald_ok(double(mu), double(lam), double(alpha))) return detail::nan<T>();
  const double m = double(mu), l = double(lam);
  const double z = standard_normal<double>(s), w = m * z * z;
  const double y = m - 2.0 * m * w / (w + std::sqrt(w * w + 4.0 * l * w));
  const double u = uniform01<double>(s);
  const double x = u * (m + y) <= m ? y : m * m / y;
  return detail::finish(s, T(double(alpha) + x));
}

namespace detail {
/// F(y) = Phi(a) + e^(2 lam / mu) Phi(-b), a, b = sqrt(lam / y) (y / mu -+ 1).
struct WaldCdf {
  double mu, lam, alpha;
  AIMZ_MATH_FN bool valid() const { return wald_ok(mu, lam, alpha); }
  AIMZ_MATH_FN double lo() const { return alpha; }
  AIMZ_MATH_FN double hi() const { return inf<double>(); }
  AIMZ_MATH_FN double second(double y) const {
    return 2.0 * lam / mu + log_ndtr(-std::sqrt(lam / y) * (y / mu + 1.0));
  }
  AIMZ_MATH_FN double log_cdf(double x) const {
    const double y = x - alpha;
    if (!(y > 0.0)) return -inf<double>();
    const double first = log_ndtr(std::sqrt(lam / y) * (y / mu - 1.0)), other = second(y);
    const double hi = first > other ? first : other, lo = first > other ? other : first;
    return hi + std::log1p(std::exp(lo - hi));
  }
  AIMZ_MATH_FN double log_sf(double x) const {
    const double y = x - alpha;
    if (!(y > 0.0)) return 0.0;
    const double first = log_ndtr(-std::sqrt(lam / y) * (y / mu - 1.0)), other = second(y);
    return other < first ? log_diff_exp_d(first, other) : -inf<double>();
  }
  AIMZ_MATH_FN double lower(double) const { return nan<double>(); }  // bisection
  AIMZ_MATH_FN double upper(double) const { return nan<double>(); }
  AIMZ_MATH_FN double log_pdf(double x) const { return wald_log_prob<double>(x, mu, lam, alpha); }
};
}  // namespace detail

template <class T> AIMZ_MATH_FN auto wald_cdf(T mu, T lam, T alpha) {
  return detail::WaldCdf{double(mu), double(lam), double(alpha)};
}

// -------------------------------------------------------------------- Rice

/// log x - 2 log sigma - (x - nu)^2 / (2 sigma^2) + log i0e(x nu / sigma^2).
template <class T> AIMZ_MATH_FN T rice_log_prob(T x, T nu, T sigma) {
  if (!(nu >= T(0)) || std::isinf(nu) || !detail::pos_finite(sigma) || std::isnan(x)) return detail::nan<T>();
  if (!(x > T(0)) || std::isinf(x)) return -detail::inf<T>();
  const double xd = double(x), n = double(nu), s2 = double(sigma) * double(sigma), d = xd - n;
  return T(std::log(xd) - std::log(s2) - 0.5 * d * d / s2 + std::log(special::i0e(xd * n / s2)));
}

namespace detail {

/// (X / sigma)^2 is a noncentral chi-square of 2 degrees of freedom and
/// noncentrality (nu / sigma)^2: a Poisson(lambda) mixture of Gamma(j + 1)
/// laws in t = x^2 / (2 sigma^2), lambda = nu^2 / (2 sigma^2). F = sum_j
/// Pois(j; lambda) P(j + 1, t) and S the same with Q, each a sum of
/// positive terms, summed out from the Poisson's mode until the weights
/// (which bound the terms) fall e^-40 below both sums.
struct RiceCdf {
  double nu, sigma;
  AIMZ_MATH_FN bool valid() const { return nu >= 0.0 && !std::isinf(nu) && pos_finite(sigma); }
  AIMZ_MATH_FN double lo() const { return 0.0; }
  AIMZ_MATH_FN double hi() const { return inf<double>(); }
  AIMZ_MATH_FN void tails(double x, double* lp, double* lq) const {
    const double lam = 0.5 * (nu / sigma) * (nu / sigma), t = 0.5 * (x / sigma) * (x / sigma);
    const double log_lam = std::log(lam), mode = std::floor(lam);
    LogSum f, s;
    auto add = [&](double j) {
      const double lw = -lam + (j > 0.0 ? j * log_lam : 0.0) - std::lgamma(j + 1.0);
      double p, q;
      log_incomplete_gamma(j + 1.0, t, &p, &q);
      f.add(lw + p);
      s.add(lw + q);
      return lw < f.value() - 40.0 && lw < s.value() - 40.0;
    };
    for (double j = mode; !add(j) && j < mode + 1e6; j += 1.0) {
    }
    for (double j = mode - 1.0; j >= 0.0 && !add(j) && j > mode - 1e6; j -= 1.0) {
    }
    *lp = f.value();
    *lq = s.value();
  }
  AIMZ_MATH_FN double log_cdf(double x) const {
    double p, q;
    tails(x, &p, &q);
    return p;
  }
  AIMZ_MATH_FN double log_sf(double x) const {
    double p, q;
    tails(x, &p, &q);
    return q;
  }
  AIMZ_MATH_FN double lower(double) const { return nan<double>(); }  // bisection
  AIMZ_MATH_FN double upper(double) const { return nan<double>(); }
  AIMZ_MATH_FN double log_pdf(double x) const { return rice_log_prob<double>(x, nu, sigma); }
};

}  // namespace detail

template <class T> AIMZ_MATH_FN auto rice_cdf(T nu, T sigma) { return detail::RiceCdf{double(nu), double(sigma)}; }

template <class T> AIMZ_MATH_FN T rice_sample(RandomStream& s, T nu, T sigma) {
  if (!(nu >= T(0)) || std::isinf(nu) || !detail::pos_finite(sigma)) return detail::nan<T>();
  const double z0 = standard_normal<double>(s), z1 = standard_normal<double>(s);
  return detail::finish(s, T(std::hypot(double(nu) + double(sigma) * z0, double(sigma) * z1)));
}

// -------------------------------------------------------------- power laws

namespace detail {
/// S(x) = (x / low)^(1 + alpha), alpha < -1.
struct LowerPowerLawCdf {
  double alpha, low;
  AIMZ_MATH_FN bool valid() const { return alpha < -1.0 && pos_finite(low); }
  AIMZ_MATH_FN double lo() const { return low; }
  AIMZ_MATH_FN double hi() const { return inf<double>(); }
  AIMZ_MATH_FN double log_sf(double x) const { return x <= low ? 0.0 : (1.0 + alpha) * std::log(x / low); }
  AIMZ_MATH_FN double log_cdf(double x) const { return x <= low ? -inf<double>() : log1m_exp_d(log_sf(x)); }
  AIMZ_MATH_FN double upper(double lq) const { return low * std::exp(lq / (1.0 + alpha)); }
  AIMZ_MATH_FN double lower(double lp) const { return upper(log1m_exp_d(lp)); }
  AIMZ_MATH_FN double log_pdf(double x) const {
    if (!(x >= low) || std::isinf(x)) return -inf<double>();
    return alpha * std::log(x) + std::log(-(1.0 + alpha)) - (1.0 + alpha) * std::log(low);
  }
};

/// F(x) = (x^b - low^b) / (high^b - low^b), b = 1 + alpha (log x / low
/// over log high / low at b = 0), each difference of powers taken as a
/// difference of logarithms on the side where it is positive.
struct DoublePowerLawCdf {
  double alpha, low, high;
  AIMZ_MATH_FN bool valid() const {
    return std::isfinite(alpha) && low >= 0.0 && high > low && high < inf<double>() && (low > 0.0 || alpha > -1.0);
  }
  AIMZ_MATH_FN double lo() const { return low; }
  AIMZ_MATH_FN double hi() const { return high; }
  /// log |F(v) - F(u)| times the normalizer, u < v.
  AIMZ_MATH_FN double log_between(double u, double v) const {
    const double b = 1.0 + alpha;
    if (b == 0.0) return std::log(std::log(v) - std::log(u));
    const double lu = b * std::log(u), lv = b * std::log(v);
    return (b > 0.0 ? log_diff_exp_d(lv, lu) : log_diff_exp_d(lu, lv)) - std::log(std::fabs(b));
  }
  AIMZ_MATH_FN double log_cdf(double x) const {
    return x <= low ? -inf<double>() : x >= high ? 0.0 : log_between(low, x) - log_between(low, high);
  }
  AIMZ_MATH_FN double log_sf(double x) const {
    return x <= low ? 0.0 : x >= high ? -inf<double>() : log_between(x, high) - log_between(low, high);
  }
  AIMZ_MATH_FN double lower(double) const { return nan<double>(); }  // bisection
  AIMZ_MATH_FN double upper(double) const { return nan<double>(); }
  AIMZ_MATH_FN double log_pdf(double x) const {
    if (!(x >= low && x <= high)) return -inf<double>();
    return alpha * std::log(x) - log_between(low, high);
  }
};
}  // namespace detail

template <class T> AIMZ_MATH_FN auto lower_truncated_power_law_cdf(T alpha, T low) {
  return detail::LowerPowerLawCdf{double(alpha), double(low)};
}
template <class T> AIMZ_MATH_FN T lower_truncated_power_law_log_prob(T x, T alpha, T low) {
  return detail::log_prob_of_base(lower_truncated_power_law_cdf(alpha, low), x);
}
template <class T> AIMZ_MATH_FN T lower_truncated_power_law_sample(RandomStream& s, T alpha, T low) {
  return detail::sample_by_inversion<T>(s, lower_truncated_power_law_cdf(alpha, low));
}

template <class T> AIMZ_MATH_FN auto doubly_truncated_power_law_cdf(T alpha, T low, T high) {
  return detail::DoublePowerLawCdf{double(alpha), double(low), double(high)};
}
template <class T> AIMZ_MATH_FN T doubly_truncated_power_law_log_prob(T x, T alpha, T low, T high) {
  return detail::log_prob_of_base(doubly_truncated_power_law_cdf(alpha, low, high), x);
}
/// By inversion, x^b = low^b + u (high^b - low^b) (low (high / low)^u at
/// b = 0), clamped to [low, high] against rounding.
template <class T> AIMZ_MATH_FN T doubly_truncated_power_law_sample(RandomStream& s, T alpha, T low, T high) {
  const auto d = doubly_truncated_power_law_cdf(alpha, low, high);
  if (!d.valid()) return detail::nan<T>();
  const double u = uniform01<double>(s), b = 1.0 + d.alpha;
  double x;
  if (b == 0.0) {
    x = d.low * std::exp(u * (std::log(d.high) - std::log(d.low)));
  } else {
    const double lb = std::pow(d.low, b), hb = std::pow(d.high, b);
    x = std::pow(lb + u * (hb - lb), 1.0 / b);
  }
  x = x < d.low ? d.low : x > d.high ? d.high : x;
  return detail::finish(s, T(x));
}

}  // namespace math
}  // namespace aimz
