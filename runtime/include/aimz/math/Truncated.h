// TruncatedDistribution(base, low, high) for the symmetric location-scale
// bases NumPyro truncates (Cauchy, Laplace, Logistic, StudentT; Normal is
// TruncatedNormal in Samplers.h / LogDensity.h): the base density
// renormalized on [low, high], drawn by inverting the base CDF.
//
// Each base is described by its standardized survival function sf(z) and
// its inverse isf(q), both in double and accurate in the upper tail; the
// lower tail uses the symmetry F(z) = sf(-z). Masses and draws are taken on
// the side of zero where they do not cancel, as for the normal.
#pragma once

#include "aimz/math/LogDensity.h"
#include "aimz/math/Samplers.h"

namespace aimz {
namespace math {
namespace detail {

/// I_x(a, b) by Lentz's continued fraction, for x <= (a + 1) / (a + b + 2)
/// where it converges quickly.
AIMZ_MATH_FN double incomplete_beta_cf(double a, double b, double x, double x1m) {
  const double front = std::exp(a * std::log(x) + b * std::log(x1m) - log_beta(a, b)) / a;
  const double tiny = 1e-300;
  double c = 1.0, d = 1.0 - (a + b) * x / (a + 1.0);
  d = 1.0 / (std::fabs(d) < tiny ? tiny : d);
  double f = d;
  for (int m = 1; m < 2000; ++m) {
    const double m2 = 2.0 * m;
    double num = m * (b - m) * x / ((a + m2 - 1.0) * (a + m2));
    d = 1.0 + num * d;
    d = 1.0 / (std::fabs(d) < tiny ? tiny : d);
    c = 1.0 + num / c;
    c = std::fabs(c) < tiny ? tiny : c;
    f *= c * d;
    num = -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1.0));
    d = 1.0 + num * d;
    d = 1.0 / (std::fabs(d) < tiny ? tiny : d);
    c = 1.0 + num / c;
    c = std::fabs(c) < tiny ? tiny : c;
    const double step = c * d;
    f *= step;
    if (std::fabs(step - 1.0) < 1e-16) break;
  }
  return front * f;
}

/// Regularized incomplete beta I_x(a, b) (x1m = 1 - x, passed to keep its
/// precision), on the side of the symmetry I_x(a, b) = 1 - I_{1-x}(b, a)
/// where the continued fraction converges.
AIMZ_MATH_FN double incomplete_beta(double a, double b, double x, double x1m) {
  if (x <= 0.0) return 0.0;
  if (x1m <= 0.0) return 1.0;
  if (x > (a + 1.0) / (a + b + 2.0)) return 1.0 - incomplete_beta_cf(b, a, x1m, x);
  return incomplete_beta_cf(a, b, x, x1m);
}

struct CauchyBase {
  double df;  // unused
  AIMZ_MATH_FN double sf(double z) const {
    return z > 0.0 ? std::atan(1.0 / z) / kPi : 0.5 - std::atan(z) / kPi;
  }
  AIMZ_MATH_FN double isf(double q) const {
    return q < 0.25 ? 1.0 / std::tan(kPi * q) : std::tan(kPi * (0.5 - q));
  }
};

struct LaplaceBase {
  double df;
  AIMZ_MATH_FN double sf(double z) const { return z >= 0.0 ? 0.5 * std::exp(-z) : 1.0 - 0.5 * std::exp(z); }
  AIMZ_MATH_FN double isf(double q) const { return q <= 0.5 ? -std::log(2.0 * q) : std::log(2.0 * (1.0 - q)); }
};

struct LogisticBase {
  double df;
  AIMZ_MATH_FN double sf(double z) const { return 1.0 / (1.0 + std::exp(z)); }
  AIMZ_MATH_FN double isf(double q) const { return std::log1p(-q) - std::log(q); }
};

struct StudentTBase {
  double df;
  AIMZ_MATH_FN double sf(double t) const {
    const double t2 = t * t;
    const double tail = 0.5 * incomplete_beta(0.5 * df, 0.5, df / (df + t2), t2 / (df + t2));
    return t >= 0.0 ? tail : 1.0 - tail;
  }
  /// A point inside (tlo, thi) where bisecting atan(t) finds none (both
  /// bounds beyond tan's range, 1.6e16): the square of the bound when the
  /// other is infinite, else the geometric mean.
  AIMZ_MATH_FN static double beyond_tangent(double tlo, double thi) {
    if (tlo > 0.0) return thi == inf<double>() ? tlo * (tlo > 2.0 ? tlo : 2.0) : std::sqrt(tlo) * std::sqrt(thi);
    if (thi < 0.0) return tlo == -inf<double>() ? thi * (thi < -2.0 ? -thi : 2.0) : -std::sqrt(-tlo) * std::sqrt(-thi);
    return 0.5 * (tlo + thi);
  }
  /// Newton's method on log sf(t) = log q (d/dt log sf = -pdf / sf: steps
  /// of about 1/t in the far tail would crawl on sf itself) inside a
  /// bracket [tlo, thi] that every evaluation shrinks; a step that leaves
  /// it bisects in w = atan(t) instead (beyond_tangent past tan's range).
  /// About 5-10 evaluations of sf where bisection alone took ~60 (each a
  /// continued fraction: ~33 us per draw). q > 1/2 by symmetry.
  AIMZ_MATH_FN double isf(double q) const {
    if (q > 0.5) return -isf(1.0 - q);
    const double log_c = log_gamma(0.5 * (df + 1.0)) - log_gamma(0.5 * df) - 0.5 * std::log(df * kPi);
    const double log_q = std::log(q);
    double tlo = 0.0, thi = inf<double>();  // sf(tlo) >= q >= sf(thi)
    double t = 0.0;
    for (int i = 0; i < 400; ++i) {
      const double p = sf(t);
      if (p == q) return t;
      (p > q ? tlo : thi) = t;
      const double log_pdf = log_c - 0.5 * (df + 1.0) * std::log1p(t * t / df);
      double tn = t + (std::log(p) - log_q) * std::exp(std::log(p) - log_pdf);
      if (tn > tlo && tn < thi && std::fabs(tn - t) <= 1e-15 * t) return tn;
      if (!(tn > tlo && tn < thi)) tn = std::tan(0.5 * (std::atan(tlo) + std::atan(thi)));
      if (!(tn > tlo && tn < thi)) tn = beyond_tangent(tlo, thi);
      if (!(tn > tlo && tn < thi)) return t;  // no double left between the bounds
      t = tn;
    }
    return t;
  }
};

/// log(F(b) - F(a)) in standardized units, a < b.
template <class B> AIMZ_MATH_FN double log_base_mass(const B& base, double a, double b) {
  if (a > 0.0) {
    const double qa = base.sf(a), qb = base.sf(b);
    return std::log(qa) + std::log1p(-qb / qa);
  }
  if (b < 0.0) {
    const double pa = base.sf(-a), pb = base.sf(-b);
    return std::log(pb) + std::log1p(-pa / pb);
  }
  return std::log1p(-(base.sf(b) + base.sf(-a)));
}

template <class T> AIMZ_MATH_FN bool truncation_ok(T loc, T scale, T low, T high) {
  return std::isfinite(loc) && pos_finite(scale) && !std::isnan(low) && !std::isnan(high) && low < high;
}

/// A draw on [a, b] (standardized) by inversion, on the tail side.
template <class B> AIMZ_MATH_FN double truncated_standard_draw(const B& base, double u, double a, double b) {
  double z;
  if (a > 0.0) {
    const double qa = base.sf(a), qb = base.sf(b);
    z = base.isf(qa - u * (qa - qb));
  } else if (b < 0.0) {
    const double pa = base.sf(-a), pb = base.sf(-b);
    z = -base.isf(pa + u * (pb - pa));
  } else {
    const double pa = base.sf(-a), pb = 1.0 - base.sf(b);
    const double p = pa + u * (pb - pa);
    z = p < 0.5 ? -base.isf(p) : base.isf(1.0 - p);
  }
  return z < a ? a : (z > b ? b : z);
}

template <class T, class B>
AIMZ_MATH_FN T truncated_sample(RandomStream& s, const B& base, T loc, T scale, T low, T high) {
  if (!truncation_ok(loc, scale, low, high)) return nan<T>();
  const double m = static_cast<double>(loc), sd = static_cast<double>(scale);
  const double a = (static_cast<double>(low) - m) / sd, b = (static_cast<double>(high) - m) / sd;
  T x = static_cast<T>(m + sd * truncated_standard_draw(base, uniform01<double>(s), a, b));
  x = x < low ? low : (x > high ? high : x);
  return finish(s, x);
}

template <class T, class B>
AIMZ_MATH_FN T truncated_log_prob(T base_log_prob, T x, const B& base, T loc, T scale, T low, T high) {
  if (!truncation_ok(loc, scale, low, high) || std::isnan(x)) return nan<T>();
  if (x < low || x > high || std::isinf(x)) return -inf<T>();
  const double m = static_cast<double>(loc), sd = static_cast<double>(scale);
  const double a = (static_cast<double>(low) - m) / sd, b = (static_cast<double>(high) - m) / sd;
  return static_cast<T>(static_cast<double>(base_log_prob) - log_base_mass(base, a, b));
}

}  // namespace detail

// TruncatedDistribution(Cauchy(loc, scale), low, high) (NumPyro's
// TruncatedCauchy), and likewise Laplace, Logistic and StudentT.

template <class T> AIMZ_MATH_FN T truncated_cauchy_sample(RandomStream& s, T loc, T scale, T low, T high) {
  return detail::truncated_sample(s, detail::CauchyBase{0}, loc, scale, low, high);
}
template <class T> AIMZ_MATH_FN T truncated_cauchy_log_prob(T x, T loc, T scale, T low, T high) {
  return detail::truncated_log_prob(cauchy_log_prob(x, loc, scale), x, detail::CauchyBase{0}, loc, scale, low, high);
}

template <class T> AIMZ_MATH_FN T truncated_laplace_sample(RandomStream& s, T loc, T scale, T low, T high) {
  return detail::truncated_sample(s, detail::LaplaceBase{0}, loc, scale, low, high);
}
template <class T> AIMZ_MATH_FN T truncated_laplace_log_prob(T x, T loc, T scale, T low, T high) {
  return detail::truncated_log_prob(laplace_log_prob(x, loc, scale), x, detail::LaplaceBase{0}, loc, scale, low, high);
}

template <class T> AIMZ_MATH_FN T truncated_logistic_sample(RandomStream& s, T loc, T scale, T low, T high) {
  return detail::truncated_sample(s, detail::LogisticBase{0}, loc, scale, low, high);
}
template <class T> AIMZ_MATH_FN T truncated_logistic_log_prob(T x, T loc, T scale, T low, T high) {
  return detail::truncated_log_prob(logistic_log_prob(x, loc, scale), x, detail::LogisticBase{0}, loc, scale, low,
                                    high);
}

template <class T> AIMZ_MATH_FN T truncated_student_t_sample(RandomStream& s, T df, T loc, T scale, T low, T high) {
  if (!detail::pos_finite(df)) return detail::nan<T>();
  return detail::truncated_sample(s, detail::StudentTBase{static_cast<double>(df)}, loc, scale, low, high);
}
template <class T> AIMZ_MATH_FN T truncated_student_t_log_prob(T x, T df, T loc, T scale, T low, T high) {
  if (!detail::pos_finite(df)) return detail::nan<T>();
  return detail::truncated_log_prob(student_t_log_prob(x, df, loc, scale), x,
                                    detail::StudentTBase{static_cast<double>(df)}, loc, scale, low, high);
}

}  // namespace math
}  // namespace aimz
