// Truncated distributions: TruncatedNormal(loc, scale, low, high) and
// TruncatedDistribution(base, low, high) for the symmetric location-scale
// bases NumPyro truncates (Cauchy, Laplace, Logistic, StudentT): the base
// density renormalized on [low, high], drawn by inverting the base CDF.
//
// Each base is described by the logarithm of its standardized survival
// function on the upper half, log_tail(z) = log sf(z) for z >= 0 (below
// the centre, log(1 - sf(|z|)) does not cancel), and its inverse there,
// isf_log(log q) for q <= 1/2. An interval above the centre is reflected
// below it, so both ends' CDF values are small numbers kept in logarithms:
// no truncation is too far out to draw from or to normalize (the normal's
// tail underflows beyond 38 standard deviations; its logarithm does not).
//
// Normal, Cauchy, Laplace and Logistic are straight-line code on
// Elementary.h's functions (their rows vectorize, with the same bits in
// every lane and in the remainder). StudentT's survival function is a
// continued fraction; its draws first try the base's own sampler, folded to
// the interval's side of loc, in vector lanes
// (truncated_student_t_sample_first).
#pragma once

#include "aimz/math/GammaFamilies.h"
#include "aimz/math/InvertibleFamilies.h"
#include "aimz/math/LogDensity.h"
#include "aimz/math/NormalFamilies.h"
#include "aimz/math/Samplers.h"

namespace aimz {
namespace math {
namespace detail {

/// The continued fraction of I_x(a, b) by Lentz's method, without its
/// front factor x^a (1 - x)^b / (a B(a, b)): converges quickly for
/// x <= (a + 1) / (a + b + 2); at most max_terms pairs of terms.
AIMZ_MATH_FN double incomplete_beta_fraction(double a, double b, double x, int max_terms) {
  const double tiny = 1e-300;
  double c = 1.0, d = 1.0 - (a + b) * x / (a + 1.0);
  d = 1.0 / (std::fabs(d) < tiny ? tiny : d);
  double f = d;
  for (int m = 1; m < max_terms; ++m) {
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
  return f;
}

/// I_x(a, b), for x <= (a + 1) / (a + b + 2) where the fraction converges
/// quickly.
AIMZ_MATH_FN double incomplete_beta_cf(double a, double b, double x, double x1m) {
  const double front = std::exp(a * std::log(x) + b * std::log(x1m) - log_beta(a, b)) / a;
  return front * incomplete_beta_fraction(a, b, x, 2000);
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

/// The normal: Exact refines quantiles beyond AS 241's fitted range (q <
/// 1e-300, truncations past ~37 sd) with Newton's method, which branches;
/// without it those come back NaN (a row's vector half, whose NaNs the full
/// sampler then redraws: the same bits elsewhere).
template <bool Exact> struct NormalBase {
  AIMZ_HOT_FN double log_tail(double z) const { return normal_log_tail(z); }
  AIMZ_HOT_FN double isf_log(double lq) const {
    if constexpr (Exact) {
      return normal_isf_log_refined(lq);
    } else {
      return lq < kNormalIsfLogFitted ? nan<double>() : normal_isf_log(lq);
    }
  }
};

struct CauchyBase {
  /// atan(1 / z) / pi: no cancellation in the tail.
  AIMZ_HOT_FN double log_tail(double z) const { return elementary::log(elementary::atan(1.0 / z) / kPi); }
  /// 1 / tan(pi q) for small q, tan(pi (1/2 - q)) nearer the median.
  AIMZ_HOT_FN double isf_log(double lq) const {
    const double q = elementary::exp(lq);
    return q < 0.25 ? 1.0 / elementary::tanpi(q) : elementary::tanpi(0.5 - q);
  }
};

struct LaplaceBase {
  AIMZ_HOT_FN double log_tail(double z) const { return -kLn2 - z; }
  AIMZ_HOT_FN double isf_log(double lq) const { return -kLn2 - lq; }
};

struct LogisticBase {
  /// -log(1 + e^z).
  AIMZ_HOT_FN double log_tail(double z) const { return -(z + elementary::log1p(elementary::exp(-z))); }
  AIMZ_HOT_FN double isf_log(double lq) const { return elementary::log1p(-elementary::exp(lq)) - lq; }
};

struct StudentTBase {
  double df;
  AIMZ_MATH_FN double sf(double t) const {
    const double t2 = t * t;
    const double tail = 0.5 * incomplete_beta(0.5 * df, 0.5, df / (df + t2), t2 / (df + t2));
    return t >= 0.0 ? tail : 1.0 - tail;
  }
  AIMZ_MATH_FN double log_tail(double t) const { return std::log(sf(t)); }
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
  /// continued fraction: ~33 us per draw). For log q <= log(1/2).
  AIMZ_MATH_FN double isf_log(double log_q) const {
    const double log_c = log_gamma(0.5 * (df + 1.0)) - log_gamma(0.5 * df) - 0.5 * std::log(df * kPi);
    double tlo = 0.0, thi = inf<double>();  // log sf(tlo) >= log q >= log sf(thi)
    double t = 0.0;
    for (int i = 0; i < 400; ++i) {
      const double log_p = std::log(sf(t));
      if (log_p == log_q) return t;
      (log_p > log_q ? tlo : thi) = t;
      const double log_pdf = log_c - 0.5 * (df + 1.0) * std::log1p(t * t / df);
      double tn = t + (log_p - log_q) * std::exp(log_p - log_pdf);
      if (tn > tlo && tn < thi && std::fabs(tn - t) <= 1e-15 * t) return tn;
      if (!(tn > tlo && tn < thi)) tn = std::tan(0.5 * (std::atan(tlo) + std::atan(thi)));
      if (!(tn > tlo && tn < thi)) tn = beyond_tangent(tlo, thi);
      if (!(tn > tlo && tn < thi)) return t;  // no double left between the bounds
      t = tn;
    }
    return t;
  }
  /// sf^{-1}(q) for q in (0, 1), by symmetry above 1/2.
  AIMZ_MATH_FN double isf(double q) const { return q > 0.5 ? -isf_log(std::log1p(-q)) : isf_log(std::log(q)); }
};

/// log sf(z) for every z from a symmetric base's tail (z >= 0): below the
/// centre log(1 - sf(|z|)), which does not cancel (sf(|z|) <= 1/2).
template <class B> AIMZ_HOT_FN double log_sf(const B& base, double z) {
  const double tail = base.log_tail(std::fabs(z));
  return z >= 0.0 ? tail : elementary::log1p(-elementary::exp(tail));
}

/// An interval [a, b] (standardized) as [lo, hi] with lo <= 0: reflected
/// to the other side of the centre when it lies above it (flip), so that
/// log F(lo) and log F(hi), F(z) = sf(-z), are taken where they do not
/// cancel.
template <class B> struct LowerSide {
  bool flip;
  double log_flo, log_fhi;
  AIMZ_HOT_FN LowerSide(const B& base, double a, double b) : flip(a > 0.0) {
    const double lo = flip ? -b : a, hi = flip ? -a : b;
    log_flo = base.log_tail(0.0 - lo);  // +0 for lo = 0
    log_fhi = log_sf(base, -hi);
  }
};

/// log(F(b) - F(a)) in standardized units, a < b: log F(hi) + log(1 -
/// F(lo) / F(hi)).
template <class B> AIMZ_HOT_FN double log_base_mass(const B& base, double a, double b) {
  const LowerSide<B> side(base, a, b);
  return side.log_fhi + elementary::log(-elementary::expm1(side.log_flo - side.log_fhi));
}

template <class T> AIMZ_HOT_FN bool truncation_ok(T loc, T scale, T low, T high) {
  return std::isfinite(loc) & pos_finite(scale) & !std::isnan(low) & !std::isnan(high) & (low < high);
}

/// A draw on [a, b] (standardized) by inversion: p = F(lo) + u (F(hi) -
/// F(lo)) as log p = log F(hi) + log(u + (1 - u) F(lo) / F(hi)), then the
/// quantile from the smaller of p and 1 - p. Straight-line when the base's
/// functions are.
template <class B> AIMZ_HOT_FN double truncated_standard_draw(const B& base, double u, double a, double b) {
  const LowerSide<B> side(base, a, b);
  // log(u + (1 - u) r), r = F(lo) / F(hi): its absolute error, all that
  // matters to p's relative precision, is no worse than the bounds' own.
  const double log_p =
      side.log_fhi + elementary::log(u + (1.0 - u) * elementary::exp(side.log_flo - side.log_fhi));
  const bool below = log_p < -kLn2;
  // 1 - p is exact for p >= 1/2 (p's own rounding aside).
  const double z = base.isf_log(below ? log_p : elementary::log(1.0 - elementary::exp(log_p)));
  const double x = below != side.flip ? -z : z;
  return x < a ? a : (x > b ? b : x);
}

template <class T, class B>
AIMZ_HOT_FN T truncated_sample(RandomStream& s, const B& base, T loc, T scale, T low, T high) {
  if (!truncation_ok(loc, scale, low, high)) return nan<T>();
  const double m = static_cast<double>(loc), sd = static_cast<double>(scale);
  const double a = (static_cast<double>(low) - m) / sd, b = (static_cast<double>(high) - m) / sd;
  T x = static_cast<T>(m + sd * truncated_standard_draw(base, uniform01<double>(s), a, b));
  x = x < low ? low : (x > high ? high : x);
  return finish(s, x);
}

/// The base's log density at x, renormalized on [low, high]; the base's in
/// double when it has it, so that T rounds once.
template <class T, class B>
AIMZ_HOT_FN T truncated_log_prob(double base_log_prob, T x, const B& base, T loc, T scale, T low, T high) {
  if (!truncation_ok(loc, scale, low, high) || std::isnan(x)) return nan<T>();
  if (x < low || x > high || std::isinf(x)) return -inf<T>();
  const double m = static_cast<double>(loc), sd = static_cast<double>(scale);
  const double a = (static_cast<double>(low) - m) / sd, b = (static_cast<double>(high) - m) / sd;
  return static_cast<T>(base_log_prob - log_base_mass(base, a, b));
}

/// A symmetric base's draw t (standardized) folded to the interval's side
/// of loc: |t| when the interval lies at or above loc, -|t| at or below,
/// t when it straddles. Accepting the folded draw when it falls in the
/// interval is exact: |t| has density 2 f(t) on [0, inf).
template <class T> AIMZ_HOT_FN T fold_to_side(T t, T loc, T low, T high) {
  return low >= loc ? std::fabs(t) : (high <= loc ? -std::fabs(t) : t);
}

/// Where the normal's far tail is drawn by rejection, not inversion: an
/// interval at least this many standard deviations from loc. There log
/// sf < -726, below the vector half's fitted range (kNormalIsfLogFitted),
/// so that half gives NaN and the bits of both halves agree.
constexpr double kNormalTailStart = 38.0;

/// The excess e = z - a >= 0 of a standard normal draw z on [a, b], a >=
/// kNormalTailStart (b may be infinite), whose density is proportional to
/// exp(-a e - e^2 / 2): from an exponential of rate a accepted with
/// probability exp(-e^2 / 2) (Robert 1995; nearly always at such a), or,
/// when the interval is narrower than 1 / a, from a uniform on it accepted
/// with probability exp(-e (e + 2 a) / 2). Inversion cannot do this: at a
/// = 1e9 the draw is a + O(1e-9), whose log survival function (-5e17)
/// has no bits left for the uniform.
AIMZ_MATH_FN double normal_tail_excess(RandomStream& s, double a, double b) {
  if (!(a < inf<double>())) return 0.0;  // a bound beyond double's range in sd: the bound
  const double width = b - a;
  for (;;) {
    if (width * a < 1.0) {
      const double e = width * uniform01<double>(s);
      if (uniform01<double>(s) <= std::exp(-0.5 * e * (e + 2.0 * a)) || !s.ok()) return e;
    } else {
      const double e = -std::log1p(-uniform01<double>(s)) / a;
      if (e <= width && (uniform01<double>(s) <= std::exp(-0.5 * e * e) || !s.ok())) return e;
      if (!s.ok()) return 0.0;
    }
  }
}

/// A normal draw on [low, high] at least kNormalTailStart standard
/// deviations from loc, in the original units from the nearer bound (so
/// that a bound near the largest finite value does not overflow).
template <class T> AIMZ_MATH_FN T normal_far_tail_sample(RandomStream& s, double m, double sd, T low, T high) {
  const double a = (static_cast<double>(low) - m) / sd, b = (static_cast<double>(high) - m) / sd;
  const bool above = a >= kNormalTailStart;
  const double e = above ? normal_tail_excess(s, a, b) : normal_tail_excess(s, -b, -a);
  const double x = above ? static_cast<double>(low) + sd * e : static_cast<double>(high) - sd * e;
  T y = static_cast<T>(x);
  y = y < low ? low : (y > high ? high : y);
  return finish(s, y);
}

}  // namespace detail

/// TruncatedNormal(loc, scale, low, high); either bound may be infinite.
/// Computes in double; an interval in the far tail is drawn by rejection
/// (detail::normal_tail_excess).
template <class T> AIMZ_MATH_FN T truncated_normal_sample(RandomStream& s, T loc, T scale, T low, T high) {
  if (detail::truncation_ok(loc, scale, low, high)) {
    const double m = static_cast<double>(loc), sd = static_cast<double>(scale);
    const double a = (static_cast<double>(low) - m) / sd, b = (static_cast<double>(high) - m) / sd;
    if (a >= detail::kNormalTailStart || b <= -detail::kNormalTailStart)
      return detail::normal_far_tail_sample(s, m, sd, low, high);
  }
  return detail::truncated_sample(s, detail::NormalBase<true>{}, loc, scale, low, high);
}
/// truncated_normal_sample except beyond AS 241's range (NaN there):
/// straight-line, the vector half of its row.
template <class T> AIMZ_HOT_FN T truncated_normal_sample_first(RandomStream& s, T loc, T scale, T low, T high) {
  return detail::truncated_sample(s, detail::NormalBase<false>{}, loc, scale, low, high);
}
template <class T> AIMZ_MATH_FN T truncated_normal_log_prob(T x, T loc, T scale, T low, T high) {
  const double z = (static_cast<double>(x) - static_cast<double>(loc)) / static_cast<double>(scale);
  const double base = -0.5 * z * z - elementary::log(static_cast<double>(scale)) - detail::kLnSqrt2Pi;
  return detail::truncated_log_prob(base, x, detail::NormalBase<false>{}, loc, scale, low, high);
}

// TruncatedDistribution(Cauchy(loc, scale), low, high) (NumPyro's
// TruncatedCauchy), and likewise Laplace, Logistic and StudentT.

template <class T> AIMZ_HOT_FN T truncated_cauchy_sample(RandomStream& s, T loc, T scale, T low, T high) {
  return detail::truncated_sample(s, detail::CauchyBase{}, loc, scale, low, high);
}
template <class T> AIMZ_MATH_FN T truncated_cauchy_log_prob(T x, T loc, T scale, T low, T high) {
  return detail::truncated_log_prob(cauchy_log_prob(x, loc, scale), x, detail::CauchyBase{}, loc, scale, low, high);
}

template <class T> AIMZ_HOT_FN T truncated_laplace_sample(RandomStream& s, T loc, T scale, T low, T high) {
  return detail::truncated_sample(s, detail::LaplaceBase{}, loc, scale, low, high);
}
template <class T> AIMZ_MATH_FN T truncated_laplace_log_prob(T x, T loc, T scale, T low, T high) {
  return detail::truncated_log_prob(laplace_log_prob(x, loc, scale), x, detail::LaplaceBase{}, loc, scale, low, high);
}

template <class T> AIMZ_HOT_FN T truncated_logistic_sample(RandomStream& s, T loc, T scale, T low, T high) {
  return detail::truncated_sample(s, detail::LogisticBase{}, loc, scale, low, high);
}
template <class T> AIMZ_MATH_FN T truncated_logistic_log_prob(T x, T loc, T scale, T low, T high) {
  return detail::truncated_log_prob(logistic_log_prob(x, loc, scale), x, detail::LogisticBase{}, loc, scale, low,
                                    high);
}

/// Truncated StudentT: the base's own draw folded to the interval's side
/// of loc (fold_to_side) when it lands in the interval, else inversion
/// with the stream's next words. Exact either way (the inversion runs only
/// when the folded draw missed: a mixture of two exact draws with weights
/// that do not depend on where in the interval either lands).
template <class T> AIMZ_MATH_FN T truncated_student_t_sample(RandomStream& s, T df, T loc, T scale, T low, T high) {
  if (!detail::pos_finite(df) || !detail::truncation_ok(loc, scale, low, high)) return detail::nan<T>();
  const T t = student_t_sample(s, df, T(0), T(1));
  const T x = loc + scale * detail::fold_to_side(t, loc, low, high);
  if (x >= low && x <= high) return detail::finish(s, x);
  return detail::truncated_sample(s, detail::StudentTBase{static_cast<double>(df)}, loc, scale, low, high);
}

/// truncated_student_t_sample where the base's draw is accepted by its
/// gamma's squeeze and lands in the interval, NaN elsewhere: the vector
/// half of its row sampler (the same words and arithmetic, the same bits).
template <class T>
AIMZ_HOT_FN T truncated_student_t_sample_first(RandomStream& s, T df, T loc, T scale, T low, T high) {
  const bool streamOk = s.ok();  // as in gamma_sample_first
  const T t = student_t_sample_first(s, df, T(0), T(1));
  const T x = loc + scale * detail::fold_to_side(t, loc, low, high);
  const bool ok = streamOk & detail::pos_finite(df) & detail::truncation_ok(loc, scale, low, high) & (x >= low) &
                  (x <= high);
  return ok ? x : detail::nan<T>();
}
template <class T> AIMZ_MATH_FN T truncated_student_t_log_prob(T x, T df, T loc, T scale, T low, T high) {
  if (!detail::pos_finite(df)) return detail::nan<T>();
  return detail::truncated_log_prob(student_t_log_prob(x, df, loc, scale), x,
                                    detail::StudentTBase{static_cast<double>(df)}, loc, scale, low, high);
}

}  // namespace math
}  // namespace aimz
