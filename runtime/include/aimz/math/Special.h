// Portable special functions for generated kernels (host and device).
//
// All functions are templated on T in {float, double} and computed in T.
// log_gamma is self-contained (glibc's lgamma writes the global `signgam`
// and is not available on GPUs).
#pragma once

#include "aimz/math/Config.h"
#include "aimz/math/Elementary.h"

namespace aimz {
namespace math {

namespace detail {

/// lgamma(2 + z) for |z| <= 1/2:
///   z (1 - gamma) + sum_{k>=2} (-1)^k (zeta(k) - 1) / k * z^k
/// (Abramowitz & Stegun 6.1.33 shifted by one); relative accuracy ~1 ulp
/// including near the zero at z = 0.
template <class T> AIMZ_MATH_FN T lgamma_2pz(T z) {
  T s = T(-2.7595228851242334e-10);
  s = s * z + T(5.7313672416788623e-10);
  s = s * z + T(-1.1921401405860912e-09);
  s = s * z + T(2.4836745438024785e-09);
  s = s * z + T(-5.1834750419700466e-09);
  s = s * z + T(1.0838659214896955e-08);
  s = s * z + T(-2.2711094608943164e-08);
  s = s * z + T(4.7698101693639811e-08);
  s = s * z + T(-1.00432248239681e-07);
  s = s * z + T(2.1207184805554667e-07);
  s = s * z + T(-4.4924691987645662e-07);
  s = s * z + T(9.5514121304074194e-07);
  s = s * z + T(-2.0392157538013662e-06);
  s = s * z + T(4.3748667899074873e-06);
  s = s * z + T(-9.439488275268395e-06);
  s = s * z + T(2.0507212775670694e-05);
  s = s * z + T(-4.4926236738133142e-05);
  s = s * z + T(9.9457512781808531e-05);
  s = s * z + T(-0.00022315475845357936);
  s = s * z + T(0.00050966952474304245);
  s = s * z + T(-0.001192753911703261);
  s = s * z + T(0.0028905103307415234);
  s = s * z + T(-0.0073855510286739857);
  s = s * z + T(0.020580808427784546);
  s = s * z + T(-0.067352301053198102);
  s = s * z + T(0.3224670334241132);
  s = s * z + T(1.0 - kEulerGamma);
  return s * z;
}

/// Stirling's series for lgamma(x) - ((x - 1/2) log x - x + log sqrt(2 pi)),
/// accurate to < 1e-16 absolute for x >= 10.
template <class T> AIMZ_MATH_FN T stirling_tail(T x) {
  const T r = T(1) / x;
  const T r2 = r * r;
  T s = T(-3617.0 / 122400.0);
  s = s * r2 + T(1.0 / 156.0);
  s = s * r2 + T(-691.0 / 360360.0);
  s = s * r2 + T(1.0 / 1188.0);
  s = s * r2 + T(-1.0 / 1680.0);
  s = s * r2 + T(1.0 / 1260.0);
  s = s * r2 + T(-1.0 / 360.0);
  s = s * r2 + T(1.0 / 12.0);
  return s * r;
}

/// lgamma(x) for x > 0 (finite).
template <class T> AIMZ_MATH_FN T log_gamma_pos(T x) {
  if (x < T(0.5)) {
    // lgamma(x) = lgamma(1 + x) - log x = lgamma(2 + x) - log1p(x) - log(x)
    return lgamma_2pz(x) - std::log1p(x) - std::log(x);
  }
  if (x < T(1.5)) {
    const T z = x - T(1);
    return lgamma_2pz(z) - std::log1p(z);
  }
  if (x < T(2.5)) return lgamma_2pz(x - T(2));
  if (x < T(10)) {
    T prod = T(1);
    while (x >= T(2.5)) {
      x -= T(1);  // exact: x < 10 is a multiple of ulp(x) <= 1
      prod *= x;
    }
    return lgamma_2pz(x - T(2)) + std::log(prod);
  }
  return (x - T(0.5)) * std::log(x) - x + T(kLnSqrt2Pi) + stirling_tail(x);
}

/// sin(pi x) with exact argument reduction (fmod is exact).
template <class T> AIMZ_MATH_FN T sinpi(T x) {
  T sign = x < T(0) ? T(-1) : T(1);
  T r = std::fmod(std::fabs(x), T(2));  // [0, 2), exact
  if (r >= T(1)) {
    r -= T(1);  // exact
    sign = -sign;
  }
  if (r > T(0.5)) r = T(1) - r;  // exact for r in [1/2, 1]
  return sign * std::sin(T(kPi) * r);
}

}  // namespace detail

/// log|Gamma(x)|.  +inf at the poles (0, -1, -2, ...) and at +inf; NaN for
/// NaN.  Relative error ~1e-15 (double) for x > 0, including near the zeros
/// at x = 1 and x = 2.  Negative arguments use the reflection formula.
template <class T> AIMZ_MATH_FN T log_gamma(T x) {
  static_assert(detail::IsReal<T>::value, "T must be float or double");
  if (std::isnan(x)) return x;
  if (x > T(0)) {
    if (std::isinf(x)) return x;
    return detail::log_gamma_pos(x);
  }
  if (std::isinf(x) || std::floor(x) == x) return detail::inf<T>();
  // Gamma(x) Gamma(1 - x) = pi / sin(pi x)
  const T s = std::fabs(detail::sinpi(x));
  return T(detail::kLnPi) - std::log(s) - detail::log_gamma_pos(T(1) - x);
}

/// Stirling error term: lgamma(x + 1) - (x + 1/2) log(x) + x - log(sqrt(2 pi)),
/// for x > 0 (Loader 2000).  Tabulated at half-integers below 10, series above.
template <class T> AIMZ_MATH_FN T stirlerr(T x) {
  if (x >= T(10)) return detail::stirling_tail(x);
  const T twice = x + x;
  if (twice == std::floor(twice) && twice >= T(1)) {
    switch (static_cast<int>(twice)) {
      case 1: return T(0.15342640972002736);
      case 2: return T(0.081061466795327261);
      case 3: return T(0.054814121051917651);
      case 4: return T(0.041340695955409297);
      case 5: return T(0.033162873519936291);
      case 6: return T(0.027677925684998338);
      case 7: return T(0.023746163656297496);
      case 8: return T(0.020790672103765093);
      case 9: return T(0.018488450532673187);
      case 10: return T(0.016644691189821193);
      case 11: return T(0.015134973221917378);
      case 12: return T(0.013876128823070748);
      case 13: return T(0.012810465242920227);
      case 14: return T(0.01189670994589177);
      case 15: return T(0.011104559758206917);
      case 16: return T(0.010411265261972096);
      case 17: return T(0.0097994161261588039);
      case 18: return T(0.0092554621827127329);
      case 19: return T(0.0087687001341393862);
      default: break;  // 20 cannot happen (x < 10)
    }
  }
  // stirlerr(x) = stirlerr(x + 1) + (x + 1/2) log(1 + 1/x) - 1
  T acc = T(0);
  while (x < T(10)) {
    acc += (x + T(0.5)) * std::log1p(T(1) / x) - T(1);
    x += T(1);
  }
  return acc + detail::stirling_tail(x);
}

/// log1p(t) - t, accurate for small |t| (no cancellation).  t > -1.
template <class T> AIMZ_MATH_FN T log1pmx(T t) {
  if (std::fabs(t) < T(0.25)) {
    // log1p(t) = 2 atanh(s), s = t / (2 + t);  2 s - t = -t^2 / (2 + t)
    const T s = t / (T(2) + t);
    const T s2 = s * s;
    T sum = T(0);
    T p = s * s2;
    for (int k = 3; k < 60; k += 2) {
      const T term = p / T(k);
      const T next = sum + term;
      if (next == sum) break;
      sum = next;
      p *= s2;
    }
    return -t * t / (T(2) + t) + T(2) * sum;
  }
  return std::log1p(t) - t;
}

/// Loader's deviance term bd0(x, m) = x log(x / m) + m - x, computed without
/// cancellation when x is close to m.  x >= 0, m > 0.
template <class T> AIMZ_MATH_FN T bd0(T x, T m) {
  if (x == T(0)) return m;
  const T d = x - m;
  const T sum = x + m;
  if (std::fabs(d) < T(0.1) * sum) {
    T v = d / sum;
    T s = d * v;
    T ej = T(2) * x * v;
    v = v * v;
    for (int j = 1; j < 100; ++j) {
      ej *= v;
      const T s1 = s + ej / T(2 * j + 1);
      if (s1 == s) return s1;
      s = s1;
    }
    return s;
  }
  const T ratio = x / m;
  const T lr = (std::isfinite(ratio) && ratio > T(0)) ? std::log(ratio) : std::log(x) - std::log(m);
  return x * lr + m - x;
}

/// log B(a, b) for a, b > 0, stable for large and very unequal arguments
/// (same splitting as R's lbeta).  NaN for negative/NaN arguments, +inf if
/// an argument is 0.
template <class T> AIMZ_MATH_FN T log_beta(T a, T b) {
  if (std::isnan(a) || std::isnan(b)) return detail::nan<T>();
  const T p = a < b ? a : b;
  const T q = a < b ? b : a;
  if (p < T(0)) return detail::nan<T>();
  if (p == T(0)) return detail::inf<T>();
  if (std::isinf(q)) return -detail::inf<T>();
  if (p >= T(10)) {
    const T corr = stirlerr(p) + stirlerr(q) - stirlerr(p + q);
    const T r = p / (p + q);
    return T(-0.5) * std::log(q) + T(detail::kLnSqrt2Pi) + corr + (p - T(0.5)) * std::log(r) + q * std::log1p(-r);
  }
  if (q >= T(10)) {
    const T corr = stirlerr(q) - stirlerr(p + q);
    return log_gamma(p) + corr + p - p * std::log(p + q) + (q - T(0.5)) * std::log1p(-p / (p + q));
  }
  return log_gamma(p) + log_gamma(q) - log_gamma(p + q);
}

/// log(1 + exp(x)) = max(x, 0) + log1p(exp(-|x|)), stable for all x.
/// Branch-free on Elementary.h's exp and log1p, so that rows of it (the
/// logits families' densities and samplers) vectorize with the same bits.
template <class T> AIMZ_MATH_FN T softplus(T x) {
  const T m = x > T(0) ? x : T(0);
  return m + elementary::log1p(elementary::exp(-std::fabs(x)));
}

/// log(sigmoid(x)) = -softplus(-x).
template <class T> AIMZ_MATH_FN T log_sigmoid(T x) { return -softplus(-x); }

/// 1 / (1 + exp(-x)), accurate in both tails.
template <class T> AIMZ_HOT_FN T sigmoid(T x) {
  // Branch-free (Elementary.h's exp): Bernoulli(logits=) rows vectorize.
  const T e = elementary::exp(-std::fabs(x));
  const T r = T(1) / (T(1) + e);
  return x >= T(0) ? r : e * r;
}

/// log(1 - exp(-x)) for x > 0 (Maechler 2012).  -inf at 0, NaN for x < 0.
template <class T> AIMZ_MATH_FN T log1mexp(T x) {
  if (std::isnan(x) || x < T(0)) return detail::nan<T>();
  if (x <= T(detail::kLn2)) return std::log(-std::expm1(-x));
  return std::log1p(-std::exp(-x));
}

/// x * log(y) with 0 * log(0) = 0.
template <class T> AIMZ_MATH_FN T xlogy(T x, T y) {
  if (x == T(0) && !std::isnan(y)) return T(0);
  return x * std::log(y);
}

/// x * log1p(y) with 0 * log1p(-1) = 0.
template <class T> AIMZ_MATH_FN T xlog1py(T x, T y) {
  if (x == T(0) && !std::isnan(y)) return T(0);
  return x * std::log1p(y);
}

namespace detail {

/// log(lambda^x exp(-lambda) / Gamma(x + 1)) for real x >= 0, lambda >= 0
/// (Loader's dpois_raw, on the log scale).
template <class T> AIMZ_MATH_FN T log_poisson_raw(T x, T lambda) {
  if (lambda == T(0)) return x == T(0) ? T(0) : -inf<T>();
  if (!std::isfinite(lambda) || !std::isfinite(x) || x < T(0)) return -inf<T>();
  if (x == T(0)) return -lambda;
  if (x < T(1)) return x * std::log(lambda) - lambda - log_gamma(x + T(1));
  return -stirlerr(x) - bd0(x, lambda) - T(0.5) * std::log(T(2.0 * kPi) * x);
}

/// log(C(n, k) p^k q^(n-k)) for real 0 <= k <= n with nmk = n - k passed
/// exactly, q = 1 - p, and log p / log q supplied accurately by the caller
/// (Loader's dbinom_raw, on the log scale).
template <class T> AIMZ_MATH_FN T log_binom_raw(T k, T nmk, T n, T p, T q, T log_p, T log_q) {
  if (k < T(0) || nmk < T(0)) return -inf<T>();
  if (p == T(0)) return k == T(0) ? T(0) : -inf<T>();
  if (q == T(0)) return nmk == T(0) ? T(0) : -inf<T>();
  if (k == T(0)) return n == T(0) ? T(0) : n * log_q;
  if (nmk == T(0)) return n * log_p;
  const T lc = stirlerr(n) - stirlerr(k) - stirlerr(nmk) - bd0(k, n * p) - bd0(nmk, n * q);
  const T lf = T(kLn2Pi) + std::log(k) + std::log(nmk / n);
  return lc - T(0.5) * lf;
}

}  // namespace detail

// ------------------------------------------------------- the normal CDF

/// Upper tail of the standard normal, 1 - Phi(z) = erfc(z / sqrt 2) / 2,
/// accurate in the tail (underflows to 0 beyond z ~ 37.5).
AIMZ_MATH_FN double normal_sf(double z) { return 0.5 * std::erfc(z * 0.70710678118654752440); }

/// log(Phi(b) - Phi(a)) for a < b, computed on the side of zero where the
/// difference does not cancel.
AIMZ_MATH_FN double log_normal_mass(double a, double b) {
  if (a > 0.0) {
    const double qa = normal_sf(a), qb = normal_sf(b);
    return std::log(qa) + std::log1p(-qb / qa);
  }
  if (b < 0.0) {
    const double pa = normal_sf(-a), pb = normal_sf(-b);
    return std::log(pb) + std::log1p(-pa / pb);
  }
  return std::log1p(-(normal_sf(b) + normal_sf(-a)));
}

/// The standard normal quantile Phi^{-1}(p) for p in (0, 1): Acklam's
/// rational approximation (relative error 1.15e-9) and one Halley step on
/// erfc, which brings it to double precision. Pass the smaller of p and
/// 1 - p for accuracy in the upper tail (Phi^{-1}(1 - q) = -Phi^{-1}(q)).
AIMZ_MATH_FN double normal_quantile(double p) {
  if (!(p > 0.0)) return p == 0.0 ? -detail::inf<double>() : detail::nan<double>();
  if (!(p < 1.0)) return p == 1.0 ? detail::inf<double>() : detail::nan<double>();
  const double a1 = -3.969683028665376e+01, a2 = 2.209460984245205e+02, a3 = -2.759285104469687e+02,
               a4 = 1.383577518672690e+02, a5 = -3.066479806614716e+01, a6 = 2.506628277459239e+00;
  const double b1 = -5.447609879822406e+01, b2 = 1.615858368580409e+02, b3 = -1.556989798598866e+02,
               b4 = 6.680131188771972e+01, b5 = -1.328068155288572e+01;
  const double c1 = -7.784894002430293e-03, c2 = -3.223964580411365e-01, c3 = -2.400758277161838e+00,
               c4 = -2.549732539343734e+00, c5 = 4.374664141464968e+00, c6 = 2.938163982698783e+00;
  const double d1 = 7.784695709041462e-03, d2 = 3.224671290700398e-01, d3 = 2.445134137142996e+00,
               d4 = 3.754408661907416e+00;
  const double plow = 0.02425;
  double x;
  if (p < plow) {
    const double q = std::sqrt(-2.0 * std::log(p));
    x = (((((c1 * q + c2) * q + c3) * q + c4) * q + c5) * q + c6) / ((((d1 * q + d2) * q + d3) * q + d4) * q + 1.0);
  } else if (p <= 1.0 - plow) {
    const double q = p - 0.5, r = q * q;
    x = (((((a1 * r + a2) * r + a3) * r + a4) * r + a5) * r + a6) * q /
        (((((b1 * r + b2) * r + b3) * r + b4) * r + b5) * r + 1.0);
  } else {
    const double q = std::sqrt(-2.0 * std::log1p(-p));
    x = -(((((c1 * q + c2) * q + c3) * q + c4) * q + c5) * q + c6) / ((((d1 * q + d2) * q + d3) * q + d4) * q + 1.0);
  }
  // Halley's step on Phi(x) - p (Phi from erfc, accurate in the lower tail).
  const double e = 0.5 * std::erfc(-x * 0.70710678118654752440) - p;
  const double u = e * 2.50662827463100050242 * std::exp(0.5 * x * x);
  return x - u / (1.0 + 0.5 * x * u);
}

}  // namespace math
}  // namespace aimz
