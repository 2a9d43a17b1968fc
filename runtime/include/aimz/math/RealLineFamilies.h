// Distributions on the whole real line beyond the location-scale families
// of NormalFamilies.h and InvertibleFamilies.h, each with its log density,
// sampler and (where it has one in closed form) its CDF, whose table row
// gives it truncation, censoring and log_cdf / log_ccdf
// (CdfDistributions.def's AIMZ_CDF_FAMILY):
//
//   SoftLaplace(loc, scale)          NumPyro: density 1 / (pi scale cosh z);
//                                    CDF (2 / pi) atan(e^z)
//   Moyal(mu, sigma)                 PyMC: mu - 2 sigma log|Z|; CDF
//                                    erfc(e^(-z/2) / sqrt 2)
//   SkewNormal(alpha, mu, sigma)     PyMC (its positional order): density
//                                    2 phi(z) Phi(alpha z) / sigma
//   ExGaussian(mu, sigma, nu)        PyMC: Normal(mu, sigma) + Exponential
//                                    of mean nu
//   Delta(v, log_density, event_dim) NumPyro: a point mass at v, density
//                                    log_density there, -inf elsewhere
#pragma once

#include "aimz/math/Samplers.h"
#include "aimz/math/SpecialFunctions.h"
#include "aimz/math/TruncatedByCdf.h"

namespace aimz {
namespace math {

// ------------------------------------------------------------------- Delta

/// NumPyro's log(x == v) + log_density (event_dim is 0: Sema checks it).
template <class T> AIMZ_MATH_FN T delta_log_prob(T x, T v, T log_density, T) {
  return x == v ? log_density : -detail::inf<T>();
}

/// v itself; no random numbers.
template <class T> AIMZ_MATH_FN T delta_sample(RandomStream& s, T v, T, T) {
  return detail::finish(s, v);
}

// ------------------------------------------------------------- SoftLaplace

template <class T> AIMZ_MATH_FN T soft_laplace_log_prob(T x, T loc, T scale) {
  if (!std::isfinite(loc) || !detail::pos_finite(scale) || std::isnan(x)) return detail::nan<T>();
  if (std::isinf(x)) return -detail::inf<T>();
  const double az = std::fabs((double(x) - double(loc)) / double(scale));
  // log(2 / pi) - log(scale) - logaddexp(z, -z)
  return T(std::log(2.0 / detail::kPi) - std::log(double(scale)) - az - std::log1p(std::exp(-2.0 * az)));
}

template <class T> AIMZ_MATH_FN T soft_laplace_sample(RandomStream& s, T loc, T scale) {
  if (!std::isfinite(loc) || !detail::pos_finite(scale)) return detail::nan<T>();
  const double u = uniform01<double>(s);
  return detail::finish(s, T(double(loc) + double(scale) * std::log(std::tan(0.5 * detail::kPi * u))));
}

namespace detail {
struct SoftLaplaceCdf {
  double loc, scale;
  AIMZ_MATH_FN bool valid() const { return std::isfinite(loc) && pos_finite(scale); }
  AIMZ_MATH_FN double lo() const { return -inf<double>(); }
  AIMZ_MATH_FN double hi() const { return inf<double>(); }
  /// log((2 / pi) atan(e^t)); for t far below 0, atan(e^t) = e^t.
  AIMZ_MATH_FN static double log_tail(double t) {
    return t < -40.0 ? std::log(2.0 / kPi) + t : std::log(2.0 / kPi * std::atan(std::exp(t)));
  }
  /// t with (2 / pi) atan(e^t) = e^l.
  AIMZ_MATH_FN static double tail_inverse(double l) {
    return l < -40.0 ? l - std::log(2.0 / kPi) : std::log(std::tan(0.5 * kPi * std::exp(l)));
  }
  AIMZ_MATH_FN double log_cdf(double x) const { return log_tail((x - loc) / scale); }
  AIMZ_MATH_FN double log_sf(double x) const { return log_tail((loc - x) / scale); }
  AIMZ_MATH_FN double lower(double lp) const { return loc + scale * tail_inverse(lp); }
  AIMZ_MATH_FN double upper(double lq) const { return loc - scale * tail_inverse(lq); }
  AIMZ_MATH_FN double log_pdf(double x) const { return soft_laplace_log_prob<double>(x, loc, scale); }
};
}  // namespace detail

template <class T> AIMZ_MATH_FN auto soft_laplace_cdf(T loc, T scale) {
  return detail::SoftLaplaceCdf{double(loc), double(scale)};
}

// ------------------------------------------------------------------- Moyal

template <class T> AIMZ_MATH_FN T moyal_log_prob(T x, T mu, T sigma) {
  if (!std::isfinite(mu) || !detail::pos_finite(sigma) || std::isnan(x)) return detail::nan<T>();
  if (std::isinf(x)) return -detail::inf<T>();
  const double z = (double(x) - double(mu)) / double(sigma);
  return T(-0.5 * (z + std::exp(-z)) - detail::kLnSqrt2Pi - std::log(double(sigma)));
}

/// e^-z is chi-square with one degree of freedom: z = -2 log|Z|.
template <class T> AIMZ_MATH_FN T moyal_sample(RandomStream& s, T mu, T sigma) {
  if (!std::isfinite(mu) || !detail::pos_finite(sigma)) return detail::nan<T>();
  const double z = standard_normal<double>(s);
  return detail::finish(s, T(double(mu) - 2.0 * double(sigma) * std::log(std::fabs(z))));
}

namespace detail {
/// F(x) = 2 Q(w) and S(x) = 1 - 2 Q(w), w = e^(-z/2), Q the normal tail.
struct MoyalCdf {
  double mu, sigma;
  AIMZ_MATH_FN bool valid() const { return std::isfinite(mu) && pos_finite(sigma); }
  AIMZ_MATH_FN double lo() const { return -inf<double>(); }
  AIMZ_MATH_FN double hi() const { return inf<double>(); }
  AIMZ_MATH_FN double w(double x) const { return std::exp(-0.5 * (x - mu) / sigma); }
  AIMZ_MATH_FN double log_cdf(double x) const { return kLn2 + normal_log_tail(w(x)); }
  AIMZ_MATH_FN double log_sf(double x) const { return log1m_exp_d(log_cdf(x)); }
  AIMZ_MATH_FN double at(double w) const { return mu - 2.0 * sigma * std::log(w); }
  AIMZ_MATH_FN double lower(double lp) const { return at(normal_isf_log_any(lp - kLn2)); }
  AIMZ_MATH_FN double upper(double lq) const { return at(normal_isf_log_any(log1m_exp_d(lq) - kLn2)); }
  AIMZ_MATH_FN double log_pdf(double x) const { return moyal_log_prob<double>(x, mu, sigma); }
};
}  // namespace detail

template <class T> AIMZ_MATH_FN auto moyal_cdf(T mu, T sigma) { return detail::MoyalCdf{double(mu), double(sigma)}; }

// -------------------------------------------------------------- SkewNormal

template <class T> AIMZ_MATH_FN T skew_normal_log_prob(T x, T alpha, T mu, T sigma) {
  if (!std::isfinite(alpha) || !std::isfinite(mu) || !detail::pos_finite(sigma) || std::isnan(x))
    return detail::nan<T>();
  if (std::isinf(x)) return -detail::inf<T>();
  const double z = (double(x) - double(mu)) / double(sigma);
  return T(detail::kLn2 - 0.5 * z * z - detail::kLnSqrt2Pi - std::log(double(sigma)) + log_ndtr(double(alpha) * z));
}

namespace detail {
/// log F(z) of the standard skew normal, F(z) = Phi(z) - 2 T(z, alpha)
/// (Owen's T). Where that difference cancels (the light tail: z < 0 with
/// alpha > 0, or z near 0 with a large alpha) it is computed instead as
/// 2 times the integral of phi(t) Phi(alpha t) below z, t = z - s, on
/// Gauss-Legendre panels of doubling width scaled to the integrand's
/// decay, relative to its value at s = 0 (no underflow down to -1e300).
AIMZ_MATH_OUTLINED_FN double skew_normal_log_cdf_std(double z, double alpha) {
  const double phi = 0.5 * std::erfc(-z * 0.70710678118654752440);
  const double direct = phi - 2.0 * special::owens_t(z, alpha);
  if (phi > 0.0 && direct >= 0.125 * phi) return std::log(direct);
  const double lz = log_ndtr(alpha * z);
  auto f = [&](double s) { return std::exp(z * s - 0.5 * s * s + log_ndtr(alpha * (z - s)) - lz); };
  const double r = std::sqrt(1.0 + alpha * alpha);
  double width = 1.0 / (std::fabs(z) * r * r + r), lo = 0.0, sum = 0.0;
  for (int panel = 0; panel < 60; ++panel, lo += width, width *= 2.0) {
    const double part = special::gauss_legendre_24(f, lo, lo + width);
    sum += part;
    if (part <= 1e-17 * sum) break;
  }
  return kLn2 - kLnSqrt2Pi - 0.5 * z * z + lz + std::log(sum);
}

/// SkewNormal(alpha, mu, sigma)'s CDF; its quantiles by bisection.
struct SkewNormalCdf {
  double alpha, mu, sigma;
  AIMZ_MATH_FN bool valid() const { return std::isfinite(alpha) && std::isfinite(mu) && pos_finite(sigma); }
  AIMZ_MATH_FN double lo() const { return -inf<double>(); }
  AIMZ_MATH_FN double hi() const { return inf<double>(); }
  AIMZ_MATH_FN double log_cdf(double x) const {
    if (x == hi()) return 0.0;
    return x == lo() ? -inf<double>() : skew_normal_log_cdf_std((x - mu) / sigma, alpha);
  }
  /// P(X > x) = F_-alpha(-z): the other tail is the mirrored distribution's.
  AIMZ_MATH_FN double log_sf(double x) const {
    if (x == lo()) return 0.0;
    return x == hi() ? -inf<double>() : skew_normal_log_cdf_std(-(x - mu) / sigma, -alpha);
  }
  AIMZ_MATH_FN double lower(double) const { return nan<double>(); }  // bisection
  AIMZ_MATH_FN double upper(double) const { return nan<double>(); }
  AIMZ_MATH_FN double log_pdf(double x) const { return skew_normal_log_prob<double>(x, alpha, mu, sigma); }
};
}  // namespace detail

template <class T> AIMZ_MATH_FN auto skew_normal_cdf(T alpha, T mu, T sigma) {
  return detail::SkewNormalCdf{double(alpha), double(mu), double(sigma)};
}

/// delta |Z0| + sqrt(1 - delta^2) Z1, delta = alpha / sqrt(1 + alpha^2).
template <class T> AIMZ_MATH_FN T skew_normal_sample(RandomStream& s, T alpha, T mu, T sigma) {
  if (!std::isfinite(alpha) || !std::isfinite(mu) || !detail::pos_finite(sigma)) return detail::nan<T>();
  const double a = double(alpha), r = std::sqrt(1.0 + a * a);
  const double z0 = standard_normal<double>(s), z1 = standard_normal<double>(s);
  return detail::finish(s, T(double(mu) + double(sigma) * ((a / r) * std::fabs(z0) + z1 / r)));
}

// -------------------------------------------------------------- ExGaussian

namespace detail {
/// log(erfcx(t)) = log(erfc(t)) + t^2 for t >= 0; past 25 the asymptotic
/// series, where the sum would cancel.
AIMZ_MATH_FN double log_erfcx(double t) {
  if (t <= 25.0) return elementary::log_erfc_positive(t) + t * t;
  const double r = 1.0 / (2.0 * t * t);
  // erfcx(t) t sqrt(pi) = 1 - r + 3 r^2 - 15 r^3 + 105 r^4 - 945 r^5
  const double series = 1.0 + r * (-1.0 + r * (3.0 + r * (-15.0 + r * (105.0 + r * -945.0))));
  return std::log(series) - std::log(t) - 0.5 * kLnPi;
}
}  // namespace detail

/// log(1 / nu) + (sigma / nu)^2 / 2 - z sigma / nu + log Phi(z - sigma / nu)
/// (scipy's exponnorm), written as -z^2 / 2 + log(erfcx(s) / 2) when s =
/// (sigma / nu - z) / sqrt 2 is far above 0, where those terms cancel.
template <class T> AIMZ_MATH_FN T ex_gaussian_log_prob(T x, T mu, T sigma, T nu) {
  if (!std::isfinite(mu) || !detail::pos_finite(sigma) || !detail::pos_finite(nu) || std::isnan(x))
    return detail::nan<T>();
  if (std::isinf(x)) return -detail::inf<T>();
  const double z = (double(x) - double(mu)) / double(sigma), ik = double(sigma) / double(nu);
  const double t = (ik - z) * kSqrtHalf;
  const double log_nu = std::log(double(nu));
  if (t > 5.0) return T(-log_nu - 0.5 * z * z - detail::kLn2 + detail::log_erfcx(t));
  return T(-log_nu + ik * (0.5 * ik - z) + log_ndtr(z - ik));
}

namespace detail {
/// ExGaussian's CDF (scipy's exponnorm): with E = nu f(x) = exp(ik^2 / 2 - z
/// ik) Phi(z - ik), ik = sigma / nu, S(x) = Phi(-z) + E (two positive terms)
/// and F(x) = Phi(z) - E, taken as 1 - S above the median; quantiles by
/// bisection.
struct ExGaussianCdf {
  double mu, sigma, nu;
  AIMZ_MATH_FN bool valid() const { return std::isfinite(mu) && pos_finite(sigma) && pos_finite(nu); }
  AIMZ_MATH_FN double lo() const { return -inf<double>(); }
  AIMZ_MATH_FN double hi() const { return inf<double>(); }
  AIMZ_MATH_FN double log_e(double x) const { return std::log(nu) + log_pdf(x); }
  AIMZ_MATH_FN double log_sf(double x) const {
    if (x == lo()) return 0.0;
    if (x == hi()) return -inf<double>();
    return log_add_exp(log_ndtr(-(x - mu) / sigma), log_e(x));
  }
  AIMZ_MATH_FN double log_cdf(double x) const {
    if (x == lo()) return -inf<double>();
    if (x == hi()) return 0.0;
    const double ls = log_sf(x);
    if (ls < -0.6931471805599453) return log1m_exp_d(ls);
    const double lphi = log_ndtr((x - mu) / sigma);
    return lphi + log1m_exp_d(log_e(x) - lphi);
  }
  AIMZ_MATH_FN double lower(double) const { return nan<double>(); }  // bisection
  AIMZ_MATH_FN double upper(double) const { return nan<double>(); }
  AIMZ_MATH_FN double log_pdf(double x) const { return ex_gaussian_log_prob<double>(x, mu, sigma, nu); }
};
}  // namespace detail

template <class T> AIMZ_MATH_FN auto ex_gaussian_cdf(T mu, T sigma, T nu) {
  return detail::ExGaussianCdf{double(mu), double(sigma), double(nu)};
}

template <class T> AIMZ_MATH_FN T ex_gaussian_sample(RandomStream& s, T mu, T sigma, T nu) {
  if (!std::isfinite(mu) || !detail::pos_finite(sigma) || !detail::pos_finite(nu)) return detail::nan<T>();
  const double z = standard_normal<double>(s);
  const double e = -elementary::log_uniform(uniform01<double>(s));
  return detail::finish(s, T(double(mu) + double(sigma) * z + double(nu) * e));
}

}  // namespace math
}  // namespace aimz
