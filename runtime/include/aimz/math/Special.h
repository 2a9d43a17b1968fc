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
template <class T> AIMZ_HOT_FN T lgamma_2pz(T z) {
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
template <class T> AIMZ_HOT_FN T stirling_tail(T x) {
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

/// lgamma(x) for x > 0 (finite). Straight-line code with selects on
/// Elementary.h's log and log1p (no branch, no libm), so that a row of
/// densities calling it vectorizes and every lane gives the scalar bits:
/// x >= 10 by Stirling's series; x < 10 steps down by ones to y < 2.5 (at
/// most 8 steps, lgamma(x) = lgamma(y) + log of the values stepped to),
/// then lgamma(y) from lgamma(2 + z), |z| <= 1/2, shifted as needed.
/// Always inlined: log_beta calls it three times, and a call left in a row
/// of densities stops the row from vectorizing.
template <class T> AIMZ_HOT_FN T log_gamma_pos(T x) {
  const bool big = x >= T(10);
  const T xb = big ? x : T(10);
  const T stirling = (xb - T(0.5)) * elementary::log(xb) - xb + T(kLnSqrt2Pi) + stirling_tail(xb);
  T y = big ? T(2) : x;
  T prod = T(1);
#ifdef __clang__
#pragma unroll
#endif
  for (int step = 0; step < 8; ++step) {
    const bool down = y >= T(2.5);
    y = down ? y - T(1) : y;  // exact: y < 10 is a multiple of ulp(y) <= 1
    prod = down ? prod * y : prod;
  }
  // y < 2.5; prod > 1 only when y >= 1.5.
  const bool tiny = y < T(0.5);  // lgamma(y) = lgamma(2 + y) - log1p(y) - log(y)
  const bool low = y < T(1.5);   // lgamma(y) = lgamma(2 + (y - 1)) - log1p(y - 1)
  const T z = low ? (tiny ? y : y - T(1)) : y - T(2);
  const T l = elementary::log(tiny ? y : prod);
  const T shift = low ? -elementary::log1p(z) - (tiny ? l : T(0)) : l;
  return big ? stirling : lgamma_2pz(z) + shift;
}

/// stirlerr(x) at the half-integers x = twice / 2, twice = 1..19 (0 at
/// any other value); Whole: only the whole numbers (even twice). A chain of
/// selects rather than a table or a switch: it vectorizes, and device code
/// cannot use a static array portably.
template <bool Whole, class T> AIMZ_HOT_FN T stirlerr_half_integer(T twice) {
  T t = T(0);
  if (!Whole) t = twice == T(1) ? T(0.15342640972002736) : t;
  t = twice == T(2) ? T(0.081061466795327261) : t;
  if (!Whole) t = twice == T(3) ? T(0.054814121051917651) : t;
  t = twice == T(4) ? T(0.041340695955409297) : t;
  if (!Whole) t = twice == T(5) ? T(0.033162873519936291) : t;
  t = twice == T(6) ? T(0.027677925684998338) : t;
  if (!Whole) t = twice == T(7) ? T(0.023746163656297496) : t;
  t = twice == T(8) ? T(0.020790672103765093) : t;
  if (!Whole) t = twice == T(9) ? T(0.018488450532673187) : t;
  t = twice == T(10) ? T(0.016644691189821193) : t;
  if (!Whole) t = twice == T(11) ? T(0.015134973221917378) : t;
  t = twice == T(12) ? T(0.013876128823070748) : t;
  if (!Whole) t = twice == T(13) ? T(0.012810465242920227) : t;
  t = twice == T(14) ? T(0.01189670994589177) : t;
  if (!Whole) t = twice == T(15) ? T(0.011104559758206917) : t;
  t = twice == T(16) ? T(0.010411265261972096) : t;
  if (!Whole) t = twice == T(17) ? T(0.0097994161261588039) : t;
  t = twice == T(18) ? T(0.0092554621827127329) : t;
  if (!Whole) t = twice == T(19) ? T(0.0087687001341393862) : t;
  return t;
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
/// for x > 0 (Loader 2000). Tabulated at half-integers below 10, the series
/// above; between, the recurrence stirlerr(x) = stirlerr(x + 1) +
/// (x + 1/2) log1p(1 / x) - 1 up to 10, in ten fixed steps. Branch-free
/// (every path is computed and one selected), so that rows vectorize.
/// Whole numbers need only the table and the series: detail::stirlerr_count.
template <class T> AIMZ_HOT_FN T stirlerr(T x) {
  // In double whatever T is: the recurrence's terms cancel (1.0018 - 1 at
  // x = 9.9), which costs a float result its last digits.
  const double xd = static_cast<double>(x);
  const bool big = xd >= 10.0;
  const double twice = xd + xd;
  const bool half = !big && twice == std::floor(twice) && twice >= 1.0;
  double y = big || half || !(xd > 0.0) ? 10.0 : xd;
  double acc = 0.0;
#ifdef __clang__
#pragma unroll
#endif
  for (int step = 0; step < 10; ++step) {
    const bool going = y < 10.0;
    acc += going ? (y + 0.5) * elementary::log1p(1.0 / y) - 1.0 : 0.0;
    y = going ? y + 1.0 : y;
  }
  const double series = detail::stirling_tail(big ? xd : y);
  const double table = detail::stirlerr_half_integer<false>(twice);
  const double value = half ? table : acc + series;
  return static_cast<T>(xd > 0.0 ? value : detail::nan<double>());  // NaN, or x <= 0
}

namespace detail {

/// stirlerr(k) for a whole number k >= 1: the table below 10, the series
/// above; the cheap case of stirlerr for the count densities.
template <class T> AIMZ_HOT_FN T stirlerr_count(T k) {
  const bool big = k >= T(10);
  const T table = stirlerr_half_integer<true>(k + k);
  return big ? stirling_tail(k) : table;
}

}  // namespace detail

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
/// cancellation when x is close to m (|x - m| < (x + m) / 10: the series in
/// v = (x - m) / (x + m), 9 terms in double, 5 in float, enough since
/// v^2 < 1/100). x >= 0, m > 0. Branch-free, so that rows vectorize.
template <class T> AIMZ_HOT_FN T bd0(T x, T m) {
  const T d = x - m;
  const T sum = x + m;
  const bool near = std::fabs(d) < T(0.1) * sum;
  const T v = d / (near ? sum : T(1));
  const T v2 = v * v;
  // d v + 2 x v (v^2 / 3 + v^4 / 5 + ...)
  constexpr int kTerms = sizeof(T) == 8 ? 9 : 5;
  T poly = T(1) / T(2 * kTerms + 1);
#ifdef __clang__
#pragma unroll
#endif
  for (int j = kTerms - 1; j >= 1; --j) poly = poly * v2 + T(1) / T(2 * j + 1);
  const T series = d * v + T(2) * x * v * v2 * poly;
  const T ratio = x / m;
  const bool direct = std::isfinite(ratio) && ratio > T(0);
  const T lr = direct ? elementary::log(ratio) : elementary::log(x) - elementary::log(m);
  const T far = x * lr + m - x;
  return x == T(0) ? m : near ? series : far;
}

/// log B(a, b) for a, b > 0, stable for large and very unequal arguments
/// (same splitting as R's lbeta: both arguments >= 10, only the larger, or
/// neither). NaN for negative/NaN arguments, +inf if an argument is 0.
/// Branch-free: the three formulas share their logarithms and are selected,
/// so that rows of the densities that use it vectorize.
template <class T> AIMZ_HOT_FN T log_beta(T a, T b) {
  const T p = a < b ? a : b;
  const T q = a < b ? b : a;
  const bool ok = p > T(0) && q < detail::inf<T>();
  const T ps = ok ? p : T(1), qs = ok ? q : T(1);
  const T pq = ps + qs;
  const T r = ps / pq;
  const T l1mr = elementary::log1p(-r);
  // Both >= 10: Stirling's series for all three.
  const T corr_q = detail::stirling_tail(qs >= T(10) ? qs : T(10)) - detail::stirling_tail(pq >= T(10) ? pq : T(10));
  const T both = T(-0.5) * elementary::log(qs) + T(detail::kLnSqrt2Pi) + detail::stirling_tail(ps >= T(10) ? ps : T(10)) +
                 corr_q + (ps - T(0.5)) * elementary::log(r) + qs * l1mr;
  // Only q >= 10.
  const T lg_p = detail::log_gamma_pos(ps);
  const T one = lg_p + corr_q + ps - ps * elementary::log(pq) + (qs - T(0.5)) * l1mr;
  // Neither.
  const T neither = lg_p + detail::log_gamma_pos(qs) - detail::log_gamma_pos(pq);
  const T value = ps >= T(10) ? both : qs >= T(10) ? one : neither;
  const T special = std::isnan(a) || std::isnan(b) || p < T(0) ? detail::nan<T>()
                    : p == T(0)                                ? detail::inf<T>()
                                                               : -detail::inf<T>();
  return ok ? value : special;
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

/// stirlerr(x) for the densities below: Whole says x is a whole number
/// (a count), which needs only the table and the series.
template <bool Whole, class T> AIMZ_HOT_FN T stirlerr_of(T x) {
  return Whole ? stirlerr_count(x) : stirlerr(x);
}

/// log(lambda^x exp(-lambda) / Gamma(x + 1)) for real x >= 0, lambda >= 0
/// (Loader's dpois_raw, on the log scale); Whole: x is a whole number.
/// Branch-free: the special cases are selected at the end, from the value
/// computed on sanitized arguments, so that rows vectorize.
template <class T, bool Whole = false> AIMZ_HOT_FN T log_poisson_raw(T x, T lambda) {
  const bool finite = std::isfinite(lambda) && std::isfinite(x);
  const bool loader = finite && x >= T(1) && lambda > T(0);
  const T xs = loader ? x : T(1), ls = loader ? lambda : T(1);
  const T value = -stirlerr_of<Whole>(xs) - bd0(xs, ls) - T(0.5) * elementary::log(T(2.0 * kPi) * xs);
  // 0 < x < 1 (real x only): x log(lambda) - lambda - lgamma(x + 1).
  const bool fraction = !Whole && finite && x > T(0) && x < T(1) && lambda > T(0);
  const T xf = fraction ? x : T(0.5), lf = fraction ? lambda : T(1);
  const T small = Whole ? T(0) : xf * elementary::log(lf) - lf - log_gamma_pos(xf + T(1));
  const T point_mass = x == T(0) ? T(0) : -inf<T>();  // lambda = 0
  return lambda == T(0)            ? point_mass
         : !finite || x < T(0)    ? -inf<T>()
         : x == T(0)              ? -lambda
         : x < T(1)               ? small
                                  : value;
}

/// log(C(n, k) p^k q^(n-k)) for real 0 <= k <= n with nmk = n - k passed
/// exactly, q = 1 - p, and log p / log q supplied accurately by the caller
/// (Loader's dbinom_raw, on the log scale); Whole: k, nmk and n are whole
/// numbers. Branch-free, as log_poisson_raw.
template <class T, bool Whole = false>
AIMZ_HOT_FN T log_binom_raw(T k, T nmk, T n, T p, T q, T log_p, T log_q) {
  const bool inner = k > T(0) && nmk > T(0) && p > T(0) && q > T(0);
  const T ks = inner ? k : T(1), nmks = inner ? nmk : T(1), ns = inner ? n : T(2);
  const T ps = inner ? p : T(0.5), qs = inner ? q : T(0.5);
  const T lc = stirlerr_of<Whole>(ns) - stirlerr_of<Whole>(ks) - stirlerr_of<Whole>(nmks) - bd0(ks, ns * ps) -
               bd0(nmks, ns * qs);
  const T lf = T(kLn2Pi) + elementary::log(ks) + elementary::log(nmks / ns);
  const T value = lc - T(0.5) * lf;
  return k < T(0) || nmk < T(0) ? -inf<T>()
         : p == T(0)            ? (k == T(0) ? T(0) : -inf<T>())
         : q == T(0)            ? (nmk == T(0) ? T(0) : -inf<T>())
         : k == T(0)            ? (n == T(0) ? T(0) : n * log_q)
         : nmk == T(0)          ? n * log_p
                                : value;
}

}  // namespace detail

// ------------------------------------------------------- the normal CDF
//
// Branch-free (Elementary.h's log erfc, exp and log, and sqrt), so that
// rows of the truncated normal vectorize; in logarithms where the tail
// underflows.

constexpr double kSqrtHalf = 0.70710678118654752440;

/// log(1 - Phi(z)) for z >= 0: log(erfc(z / sqrt 2) / 2), finite for every
/// finite z (about -z^2 / 2 - log(z sqrt(2 pi)) far out, where the tail
/// itself underflows).
AIMZ_HOT_FN double normal_log_tail(double z) { return elementary::log_erfc_positive(z * kSqrtHalf) - detail::kLn2; }

/// Below this log q, AS 241's tail approximation is past the range it was
/// fitted on (p >= 1e-300): normal_isf_log's caller refines its value.
constexpr double kNormalIsfLogFitted = -690.0;

/// The z >= 0 with log(1 - Phi(z)) = lq, for lq <= log(1/2): Wichura's
/// AS 241 (PPND16, relative error about 1e-16), from log q (its tails need
/// only log q, so it holds down to q = 1e-300). Straight-line: its three
/// rational functions are one evaluation, variable and coefficients
/// selected per lane, and one division.
AIMZ_HOT_FN double normal_isf_log(double lq) {
  const double q = elementary::exp(lq) - 0.5;  // in [-1/2, 0]
  const bool central = q >= -0.425;
  const double r = std::sqrt(-lq);
  const bool near = r <= 5.0;
  const double v = central ? 0.180625 - q * q : (near ? r - 1.6 : r - 5.0);
  auto sel = [&](double c, double n, double f) { return central ? c : (near ? n : f); };
  double num = sel(2.5090809287301226727e+3, 7.74545014278341407640e-4, 2.01033439929228813265e-7);
  num = num * v + sel(3.3430575583588128105e+4, 2.27238449892691845833e-2, 2.71155556874348757815e-5);
  num = num * v + sel(6.7265770927008700853e+4, 2.41780725177450611770e-1, 1.24266094738807843860e-3);
  num = num * v + sel(4.5921953931549871457e+4, 1.27045825245236838258e+0, 2.65321895265761230930e-2);
  num = num * v + sel(1.3731693765509461125e+4, 3.64784832476320460504e+0, 2.96560571828504891230e-1);
  num = num * v + sel(1.9715909503065514427e+3, 5.76949722146069140550e+0, 1.78482653991729133580e+0);
  num = num * v + sel(1.3314166789178437745e+2, 4.63033784615654529590e+0, 5.46378491116411436990e+0);
  num = num * v + sel(3.3871328727963666080e+0, 1.42343711074968357734e+0, 6.65790464350110377720e+0);
  double den = sel(5.2264952788528545610e+3, 1.05075007164441684324e-9, 2.04426310338993978564e-15);
  den = den * v + sel(2.8729085735721942674e+4, 5.47593808499534494600e-4, 1.42151175831644588870e-7);
  den = den * v + sel(3.9307895800092710610e+4, 1.51986665636164571966e-2, 1.84631831751005468180e-5);
  den = den * v + sel(2.1213794301586595867e+4, 1.48103976427480074590e-1, 7.86869131145613259100e-4);
  den = den * v + sel(5.3941960214247511077e+3, 6.89767334985100004550e-1, 1.48753612908506148525e-2);
  den = den * v + sel(6.8718700749205790830e+2, 1.67638483018380384940e+0, 1.36929880922735805310e-1);
  den = den * v + sel(4.2313330701600911252e+1, 2.05319162663775882187e+0, 5.99832206555887937690e-1);
  den = den * v + 1.0;
  const double z = (central ? -q : 1.0) * (num / den);
  return lq == -detail::inf<double>() ? -lq : z;
}

/// normal_isf_log with Newton's method on log(1 - Phi(z)) = lq beyond AS
/// 241's fitted range, where the tail's logarithm is still exact (z up to
/// ~1e154): the same bits as normal_isf_log wherever that is fitted.
AIMZ_MATH_FN double normal_isf_log_refined(double lq) {
  double z = normal_isf_log(lq);
  if (!(lq < kNormalIsfLogFitted) || std::isinf(lq)) return z;
  for (int i = 0; i < 8; ++i) {
    // d/dz log sf(z) = -phi(z) / sf(z): the step is (log sf - lq) sf / phi.
    const double log_sf = normal_log_tail(z);
    const double step = (log_sf - lq) * std::exp(log_sf + 0.5 * z * z + detail::kLnSqrt2Pi);
    if (!std::isfinite(step)) break;
    z += step;
    if (std::fabs(step) <= 1e-16 * z) break;
  }
  return z;
}

/// log Phi(z), the standard normal's log CDF, for every z: the tail's
/// logarithm below 0, log(1 - tail) above (neither cancels).
AIMZ_MATH_FN double log_ndtr(double z) {
  if (z != z) return z;
  return z < 0.0 ? normal_log_tail(-z) : std::log1p(-std::exp(normal_log_tail(z)));
}

/// The z with log(1 - Phi(z)) = lq for every lq <= 0 (negative z above
/// log(1/2), by symmetry from the other tail).
AIMZ_MATH_FN double normal_isf_log_any(double lq) {
  if (lq <= -detail::kLn2) return normal_isf_log_refined(lq);
  return -normal_isf_log_refined(std::log(-std::expm1(lq)));  // log(1 - q), q > 1/2
}

}  // namespace math
}  // namespace aimz
