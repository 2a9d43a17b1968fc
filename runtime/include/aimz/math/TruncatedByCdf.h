// TruncatedDistribution(Base, low, high) for the bases that are not
// symmetric location-scale families (Truncated.h has those):
//
//   Exponential, Weibull, Gumbel, Pareto   CDF and quantile in closed form
//   Gamma, InverseGamma                    regularized incomplete gamma;
//                                          quantile by bisection
//   Beta                                   regularized incomplete beta;
//                                          quantile by bisection
//   Kumaraswamy, Uniform, LogUniform,      CDF and quantile in closed form
//   AsymmetricLaplace
//   Chi2, BetaProportion                   Gamma(df / 2, 1 / 2), Beta(m c,
//                                          (1 - m) c)
//   LogNormal                              exp of a truncated normal
//   HalfNormal, HalfCauchy                 the normal / Cauchy truncated to
//                                          [max(low, 0), high]
//
// Each base gives its log CDF and log survival function; the interval's
// mass is taken on the side where it does not cancel (1 - F on the upper
// side of the median), as a difference of logarithms, so a far tail still
// normalizes. Draws invert the CDF on that side with one uniform (p between
// F(low) and F(high)), in double; Gamma and InverseGamma first try up to
// eight of the base's own draws when the interval holds half the mass or
// more (exact: the inversion runs only when every try missed, whatever the
// interval holds).
#pragma once

#include "aimz/math/ClosedFormFamilies.h"
#include "aimz/math/GammaFamilies.h"
#include "aimz/math/InvertibleFamilies.h"
#include "aimz/math/LogDensity.h"
#include "aimz/math/Samplers.h"
#include "aimz/math/Truncated.h"

namespace aimz {
namespace math {
namespace detail {

/// log(exp(a) - exp(b)) for a >= b.
AIMZ_MATH_FN double log_diff_exp_d(double a, double b) {
  if (b == -inf<double>()) return a;
  return a + std::log(-std::expm1(b - a));
}

/// log(1 - exp(l)) for l <= 0.
AIMZ_MATH_FN double log1m_exp_d(double l) {
  return l > -0.6931471805599453 ? std::log(-std::expm1(l)) : std::log1p(-std::exp(l));
}

/// log(sum of exp(l)) over the terms added, without overflow.
struct LogSum {
  double m = -inf<double>(), s = 0.0;
  AIMZ_MATH_FN void add(double l) {
    if (l == -inf<double>()) return;
    if (l > m) {
      s = s * std::exp(m - l) + 1.0;
      m = l;
    } else {
      s += std::exp(l - m);
    }
  }
  AIMZ_MATH_FN double value() const { return m + std::log(s); }
};

/// log P(a, x) and log Q(a, x), the regularized incomplete gamma functions,
/// for a > 0: the series below a + 1, Lentz's continued fraction above,
/// with x^a e^-x / Gamma(a + 1) from Loader's form (no cancellation).
AIMZ_MATH_FN void log_incomplete_gamma(double a, double x, double* log_p, double* log_q) {
  if (!(x > 0.0)) {
    *log_p = -inf<double>();
    *log_q = 0.0;
    return;
  }
  if (x == inf<double>()) {
    *log_p = 0.0;
    *log_q = -inf<double>();
    return;
  }
  const double log_front = log_poisson_raw(a, x);  // log(x^a e^-x / Gamma(a + 1))
  if (x < a + 1.0) {
    double term = 1.0, sum = 1.0;
    for (int n = 1; n < 10000; ++n) {
      term *= x / (a + n);
      sum += term;
      if (term < sum * 1e-17) break;
    }
    *log_p = log_front + std::log(sum);
    *log_q = log1m_exp_d(*log_p);
    return;
  }
  const double tiny = 1e-300;
  double b = x + 1.0 - a, c = 1.0 / tiny, d = 1.0 / b, h = d;
  for (int i = 1; i < 10000; ++i) {
    const double an = -i * (i - a);
    b += 2.0;
    d = an * d + b;
    d = std::fabs(d) < tiny ? tiny : d;
    c = b + an / c;
    c = std::fabs(c) < tiny ? tiny : c;
    d = 1.0 / d;
    const double del = d * c;
    h *= del;
    if (std::fabs(del - 1.0) < 1e-16) break;
  }
  *log_q = log_front + std::log(a) + std::log(h);
  *log_p = log1m_exp_d(*log_q);
}

/// log I_x(a, b) and log(1 - I_x(a, b)), the regularized incomplete beta
/// function, for a, b > 0 and y = 1 - x given by the caller (exact where
/// it matters: NegativeBinomial2's 1 - p is mean / (mean + concentration)).
/// The continued fraction (Truncated.h's incomplete_beta_fraction) on the
/// side below the mean, where it converges, with x^a y^b / (a B(a, b)) from the beta density (Loader's
/// form for a, b > 2: no cancellation for large counts).
AIMZ_MATH_FN void log_incomplete_beta(double a, double b, double x, double y, double* log_p, double* log_q) {
  if (!(x > 0.0)) {
    *log_p = -inf<double>();
    *log_q = 0.0;
    return;
  }
  if (!(y > 0.0)) {
    *log_p = 0.0;
    *log_q = -inf<double>();
    return;
  }
  const bool swap = x > (a + 1.0) / (a + b + 2.0);
  if (swap) {
    const double t = a;
    a = b;
    b = t;
    const double u = x;
    x = y;
    y = u;
  }
  const double log_front = std::log(x) + std::log(y) + beta_log_prob<double>(x, a, b) - std::log(a);
  const double h = incomplete_beta_fraction(a, b, x, 20000);
  const double l = log_front + std::log(h);
  *(swap ? log_q : log_p) = l;
  *(swap ? log_p : log_q) = log1m_exp_d(l);
}

// The bases: log_cdf and log_sf in double; lower(log p) and upper(log q)
// the x with log F(x) = log p and log S(x) = log q in closed form, or NaN
// to ask for bisect_quantile, which also needs log_pdf; lo() and hi() the
// support's ends (an interval outside the support is invalid: NaN).

struct ExponentialCdf {
  double rate;
  AIMZ_MATH_FN bool valid() const { return pos_finite(rate); }
  AIMZ_MATH_FN double lo() const { return 0.0; }
  AIMZ_MATH_FN double hi() const { return inf<double>(); }
  AIMZ_MATH_FN double log_sf(double x) const { return x <= 0.0 ? 0.0 : -rate * x; }
  AIMZ_MATH_FN double log_cdf(double x) const { return x <= 0.0 ? -inf<double>() : std::log(-std::expm1(-rate * x)); }
  AIMZ_MATH_FN double lower(double lp) const { return -std::log(-std::expm1(lp)) / rate; }
  AIMZ_MATH_FN double upper(double lq) const { return -lq / rate; }
  AIMZ_MATH_FN double log_pdf(double x) const { return exponential_log_prob<double>(x, rate); }
};

struct WeibullCdf {
  double scale, k;
  AIMZ_MATH_FN bool valid() const { return pos_finite(scale) && pos_finite(k); }
  AIMZ_MATH_FN double lo() const { return 0.0; }
  AIMZ_MATH_FN double hi() const { return inf<double>(); }
  AIMZ_MATH_FN double z(double x) const { return std::pow(x / scale, k); }
  AIMZ_MATH_FN double log_sf(double x) const { return x <= 0.0 ? 0.0 : -z(x); }
  AIMZ_MATH_FN double log_cdf(double x) const { return x <= 0.0 ? -inf<double>() : std::log(-std::expm1(-z(x))); }
  AIMZ_MATH_FN double lower(double lp) const { return scale * std::pow(-std::log(-std::expm1(lp)), 1.0 / k); }
  AIMZ_MATH_FN double upper(double lq) const { return scale * std::pow(-lq, 1.0 / k); }
  AIMZ_MATH_FN double log_pdf(double x) const { return weibull_log_prob<double>(x, scale, k); }
};

struct GumbelCdf {
  double loc, scale;
  AIMZ_MATH_FN bool valid() const { return std::isfinite(loc) && pos_finite(scale); }
  AIMZ_MATH_FN double lo() const { return -inf<double>(); }
  AIMZ_MATH_FN double hi() const { return inf<double>(); }
  AIMZ_MATH_FN double t(double x) const { return std::exp(-(x - loc) / scale); }
  AIMZ_MATH_FN double log_cdf(double x) const { return -t(x); }
  AIMZ_MATH_FN double log_sf(double x) const { return std::log(-std::expm1(-t(x))); }
  AIMZ_MATH_FN double lower(double lp) const { return loc - scale * std::log(-lp); }
  AIMZ_MATH_FN double upper(double lq) const { return loc - scale * std::log(-std::log(-std::expm1(lq))); }
  AIMZ_MATH_FN double log_pdf(double x) const { return gumbel_log_prob<double>(x, loc, scale); }
};

struct ParetoCdf {
  double scale, alpha;
  AIMZ_MATH_FN bool valid() const { return pos_finite(scale) && pos_finite(alpha); }
  AIMZ_MATH_FN double lo() const { return scale; }
  AIMZ_MATH_FN double hi() const { return inf<double>(); }
  AIMZ_MATH_FN double log_sf(double x) const { return x <= scale ? 0.0 : alpha * std::log(scale / x); }
  AIMZ_MATH_FN double log_cdf(double x) const { return x <= scale ? -inf<double>() : log1m_exp_d(log_sf(x)); }
  AIMZ_MATH_FN double lower(double lp) const { return upper(log1m_exp_d(lp)); }
  AIMZ_MATH_FN double upper(double lq) const { return scale * std::exp(-lq / alpha); }
  AIMZ_MATH_FN double log_pdf(double x) const { return pareto_log_prob<double>(x, scale, alpha); }
};

struct GammaCdf {
  double a, rate;
  AIMZ_MATH_FN bool valid() const { return pos_finite(a) && pos_finite(rate); }
  AIMZ_MATH_FN double lo() const { return 0.0; }
  AIMZ_MATH_FN double hi() const { return inf<double>(); }
  AIMZ_MATH_FN double log_cdf(double x) const {
    double p, q;
    log_incomplete_gamma(a, rate * x, &p, &q);
    return p;
  }
  AIMZ_MATH_FN double log_sf(double x) const {
    double p, q;
    log_incomplete_gamma(a, rate * x, &p, &q);
    return q;
  }
  AIMZ_MATH_FN double log_pdf(double x) const { return gamma_log_prob<double>(x, a, rate); }
  AIMZ_MATH_FN double lower(double) const { return nan<double>(); }
  AIMZ_MATH_FN double upper(double) const { return nan<double>(); }
};

/// InverseGamma(a, rate): F(x) = Q(a, rate / x).
struct InverseGammaCdf {
  double a, rate;
  AIMZ_MATH_FN bool valid() const { return pos_finite(a) && pos_finite(rate); }
  AIMZ_MATH_FN double lo() const { return 0.0; }
  AIMZ_MATH_FN double hi() const { return inf<double>(); }
  AIMZ_MATH_FN double log_cdf(double x) const {
    double p, q;
    log_incomplete_gamma(a, x <= 0.0 ? inf<double>() : rate / x, &p, &q);
    return q;
  }
  AIMZ_MATH_FN double log_sf(double x) const {
    double p, q;
    log_incomplete_gamma(a, x <= 0.0 ? inf<double>() : rate / x, &p, &q);
    return p;
  }
  AIMZ_MATH_FN double log_pdf(double x) const { return inverse_gamma_log_prob<double>(x, a, rate); }
  AIMZ_MATH_FN double lower(double) const { return nan<double>(); }
  AIMZ_MATH_FN double upper(double) const { return nan<double>(); }
};

struct BetaCdf {
  double a, b;
  AIMZ_MATH_FN bool valid() const { return pos_finite(a) && pos_finite(b); }
  AIMZ_MATH_FN double lo() const { return 0.0; }
  AIMZ_MATH_FN double hi() const { return 1.0; }
  AIMZ_MATH_FN double log_cdf(double x) const {
    double p, q;
    log_incomplete_beta(a, b, x, 1.0 - x, &p, &q);
    return p;
  }
  AIMZ_MATH_FN double log_sf(double x) const {
    double p, q;
    log_incomplete_beta(a, b, x, 1.0 - x, &p, &q);
    return q;
  }
  AIMZ_MATH_FN double log_pdf(double x) const { return beta_log_prob<double>(x, a, b); }
  AIMZ_MATH_FN double lower(double) const { return nan<double>(); }
  AIMZ_MATH_FN double upper(double) const { return nan<double>(); }
};

/// Kumaraswamy(a, b): S(x) = (1 - x^a)^b on [0, 1].
struct KumaraswamyCdf {
  double a, b;
  AIMZ_MATH_FN bool valid() const { return pos_finite(a) && pos_finite(b); }
  AIMZ_MATH_FN double lo() const { return 0.0; }
  AIMZ_MATH_FN double hi() const { return 1.0; }
  AIMZ_MATH_FN double log_sf(double x) const {
    // log(1 - x^a) = log(-expm1(a log x)): accurate for x^a near 0 and 1
    return x <= 0.0 ? 0.0 : x >= 1.0 ? -inf<double>() : b * std::log(-std::expm1(a * std::log(x)));
  }
  AIMZ_MATH_FN double log_cdf(double x) const { return x <= 0.0 ? -inf<double>() : log1m_exp_d(log_sf(x)); }
  AIMZ_MATH_FN double lower(double lp) const { return upper(log1m_exp_d(lp)); }
  AIMZ_MATH_FN double upper(double lq) const { return std::pow(-std::expm1(lq / b), 1.0 / a); }
  AIMZ_MATH_FN double log_pdf(double x) const { return kumaraswamy_log_prob<double>(x, a, b); }
};

/// Uniform(a, b): F(x) = (x - a) / (b - a).
struct UniformCdf {
  double a, b;
  AIMZ_MATH_FN bool valid() const { return std::isfinite(a) && std::isfinite(b) && a < b; }
  AIMZ_MATH_FN double lo() const { return a; }
  AIMZ_MATH_FN double hi() const { return b; }
  AIMZ_MATH_FN double f(double x) const { return x <= a ? 0.0 : x >= b ? 1.0 : (x - a) / (b - a); }
  AIMZ_MATH_FN double log_cdf(double x) const { return std::log(f(x)); }
  AIMZ_MATH_FN double log_sf(double x) const { return x <= a ? 0.0 : x >= b ? -inf<double>() : std::log((b - x) / (b - a)); }
  AIMZ_MATH_FN double lower(double lp) const { return a + std::exp(lp) * (b - a); }
  AIMZ_MATH_FN double upper(double lq) const { return b - std::exp(lq) * (b - a); }
  AIMZ_MATH_FN double log_pdf(double x) const { return uniform_log_prob<double>(x, a, b); }
};

/// LogUniform(a, b): uniform in log x.
struct LogUniformCdf {
  double a, b;
  AIMZ_MATH_FN bool valid() const { return pos_finite(a) && pos_finite(b) && a < b; }
  AIMZ_MATH_FN double lo() const { return a; }
  AIMZ_MATH_FN double hi() const { return b; }
  AIMZ_MATH_FN double width() const { return std::log(b) - std::log(a); }
  AIMZ_MATH_FN double log_cdf(double x) const {
    return x <= a ? -inf<double>() : x >= b ? 0.0 : std::log((std::log(x) - std::log(a)) / width());
  }
  AIMZ_MATH_FN double log_sf(double x) const {
    return x <= a ? 0.0 : x >= b ? -inf<double>() : std::log((std::log(b) - std::log(x)) / width());
  }
  AIMZ_MATH_FN double lower(double lp) const { return std::exp(std::log(a) + std::exp(lp) * width()); }
  AIMZ_MATH_FN double upper(double lq) const { return std::exp(std::log(b) - std::exp(lq) * width()); }
  AIMZ_MATH_FN double log_pdf(double x) const { return log_uniform_log_prob<double>(x, a, b); }
};

/// AsymmetricLaplace(loc, scale, k): exponential tails of scales scale k
/// (left) and scale / k (right), with mass l / (l + r) left of loc.
struct AsymmetricLaplaceCdf {
  double loc, scale, k;
  AIMZ_MATH_FN bool valid() const { return std::isfinite(loc) && pos_finite(scale) && pos_finite(k); }
  AIMZ_MATH_FN double lo() const { return -inf<double>(); }
  AIMZ_MATH_FN double hi() const { return inf<double>(); }
  AIMZ_MATH_FN double left() const { return scale * k; }
  AIMZ_MATH_FN double right() const { return scale / k; }
  AIMZ_MATH_FN double log_left_mass() const { return std::log(left() / (left() + right())); }
  AIMZ_MATH_FN double log_right_mass() const { return std::log(right() / (left() + right())); }
  AIMZ_MATH_FN double log_cdf(double x) const {
    if (x != x) return x;
    return x < loc ? log_left_mass() + (x - loc) / left() : log1m_exp_d(log_sf(x));
  }
  AIMZ_MATH_FN double log_sf(double x) const {
    if (x != x) return x;
    return x >= loc ? log_right_mass() - (x - loc) / right() : log1m_exp_d(log_cdf(x));
  }
  // Each hands the other side's probability over once; NaN stays NaN
  // (it compares false both ways and would go round for ever).
  AIMZ_MATH_FN double lower(double lp) const {
    if (lp != lp) return lp;
    return lp <= log_left_mass() ? loc + left() * (lp - log_left_mass()) : upper(log1m_exp_d(lp));
  }
  AIMZ_MATH_FN double upper(double lq) const {
    if (lq != lq) return lq;
    return lq <= log_right_mass() ? loc - right() * (lq - log_right_mass()) : lower(log1m_exp_d(lq));
  }
  AIMZ_MATH_FN double log_pdf(double x) const { return asymmetric_laplace_log_prob<double>(x, loc, scale, k); }
};

/// Whether [low, high] is above the base's median: its mass is then
/// S(low) - S(high), else F(high) - F(low).
template <class B> AIMZ_MATH_FN bool upper_side(const B& base, double low) {
  return low > base.lo() && base.log_cdf(low) > -0.6931471805599453;
}

template <class B> AIMZ_MATH_FN double log_interval_mass(const B& base, double low, double high) {
  if (upper_side(base, low)) return log_diff_exp_d(base.log_sf(low), base.log_sf(high));
  return log_diff_exp_d(base.log_cdf(high), base.log_cdf(low));
}

/// x in [low, high] with log F(x) = target (Upper: log S(x) = target),
/// log_pdf the base's log density: Newton's method on the logarithm (its
/// slope is f / F, or -f / S), kept
/// inside a bracket that bisection shrinks whenever a step would leave it;
/// the bracket's ends found by doubling where they are infinite.
template <bool Upper, class B, class Pdf>
AIMZ_MATH_FN double tail_quantile(const B& base, Pdf log_pdf, double target, double low, double high) {
  // g(x) = log F(x) - target, increasing (Upper: target - log S(x)).
  auto g = [&](double x) { return Upper ? target - base.log_sf(x) : base.log_cdf(x) - target; };
  double lo = low > base.lo() ? low : base.lo(), hi = high;
  if (hi == inf<double>()) {
    hi = lo > 0.0 ? 2.0 * lo : 1.0;
    for (int i = 0; i < 2100 && g(hi) < 0.0; ++i) hi *= 2.0;
  }
  // Likewise the lower end on a support unbounded below (a truncation with
  // only `high`): halving from -inf would stay there.
  if (lo == -inf<double>()) {
    lo = hi < 0.0 ? 2.0 * hi : -1.0;
    for (int i = 0; i < 2100 && g(lo) > 0.0; ++i) lo *= 2.0;
  }
  double x = 0.5 * (lo + hi);
  for (int i = 0; i < 400; ++i) {
    const double gx = g(x);
    if (gx == 0.0) return x;
    (gx < 0.0 ? lo : hi) = x;
    // slope of g: f / F (or f / S), from the logarithms
    const double log_tail = Upper ? base.log_sf(x) : base.log_cdf(x);
    const double slope = std::exp(log_pdf(x) - log_tail);
    double next = x - gx / slope;
    if (!(next > lo && next < hi)) next = 0.5 * (lo + hi);
    if (next == x || !(next > lo && next < hi)) break;
    if (std::fabs(next - x) <= 4e-16 * std::fabs(x)) return next;
    x = next;
  }
  return x;
}

/// The same with the base's own log density.
template <bool Upper, class B> AIMZ_MATH_FN double bisect_quantile(const B& base, double target, double low, double high) {
  return tail_quantile<Upper>(base, [&](double x) { return base.log_pdf(x); }, target, low, high);
}

/// One draw from the base on [low, high] by inversion with uniform u.
template <class B> AIMZ_MATH_FN double truncated_cdf_draw(const B& base, double u, double low, double high) {
  double x;
  // An interval so far out that even the logarithm of its bound's tail is
  // -inf (an exponent beyond double's range): the draw is that bound to
  // within rounding (a light tail's excess is of order 1 / the log tail's
  // slope, nothing next to the bound).
  if (upper_side(base, low)) {
    const double ls = base.log_sf(low), hs = base.log_sf(high);
    if (!(ls > -inf<double>())) return low;
    const double lq = ls + std::log((1.0 - u) + u * std::exp(hs - ls));
    x = base.upper(lq);
    if (x != x) x = bisect_quantile<true>(base, lq, low, high);
  } else {
    const double lf = base.log_cdf(low), hf = base.log_cdf(high);
    if (!(hf > -inf<double>())) return high;
    const double lp = hf + std::log(u + (1.0 - u) * std::exp(lf - hf));
    x = base.lower(lp);
    if (x != x) x = bisect_quantile<false>(base, lp, low, high);
  }
  return x < low ? low : (x > high ? high : x);
}

template <class T, class B> AIMZ_MATH_FN bool cdf_truncation_ok(const B& base, T low, T high) {
  return base.valid() && !std::isnan(low) && !std::isnan(high) && low < high && high > T(base.lo()) &&
         low < T(base.hi());
}

template <class T, class B> AIMZ_MATH_FN T truncated_cdf_sample(RandomStream& s, const B& base, T low, T high) {
  if (!cdf_truncation_ok(base, low, high)) return nan<T>();
  const double x = truncated_cdf_draw(base, uniform01<double>(s), static_cast<double>(low), static_cast<double>(high));
  T y = static_cast<T>(x);
  y = y < low ? low : (y > high ? high : y);
  return finish(s, y);
}

template <class T, class B>
AIMZ_MATH_FN T truncated_cdf_log_prob(double base_log_prob, T x, const B& base, T low, T high) {
  if (!cdf_truncation_ok(base, low, high) || std::isnan(x)) return nan<T>();
  if (x < low || x > high || std::isinf(x)) return -inf<T>();
  return static_cast<T>(base_log_prob -
                        log_interval_mass(base, static_cast<double>(low), static_cast<double>(high)));
}

/// The density of a base that is its CDF struct (a family written once,
/// as valid(), log_pdf and the quantiles): NaN for invalid parameters or
/// value.
template <class T, class B> AIMZ_MATH_FN T log_prob_of_base(const B& base, T x) {
  if (!base.valid() || std::isnan(x)) return nan<T>();
  return static_cast<T>(base.log_pdf(static_cast<double>(x)));
}

/// A draw of such a base by inversion, lower(log U), kept in its support
/// against rounding.
template <class T, class B> AIMZ_MATH_FN T sample_by_inversion(RandomStream& s, const B& base) {
  if (!base.valid()) return nan<T>();
  double x = base.lower(elementary::log_uniform(uniform01<double>(s)));
  x = x < base.lo() ? base.lo() : x > base.hi() ? base.hi() : x;
  return finish(s, static_cast<T>(x));
}

/// Up to eight of the base's own draws (draw()) on [low, high] when the
/// interval holds half the mass or more, then inversion.
template <class T, class B, class Draw>
AIMZ_MATH_FN T truncated_cdf_sample_trying(RandomStream& s, const B& base, T low, T high, Draw draw) {
  if (!cdf_truncation_ok(base, low, high)) return nan<T>();
  if (log_interval_mass(base, static_cast<double>(low), static_cast<double>(high)) >= -0.6931471805599453)
    for (int i = 0; i < 8; ++i) {
      const T x = draw();
      if (x >= low && x <= high) return finish(s, x);
    }
  return truncated_cdf_sample(s, base, low, high);
}

}  // namespace detail

// -------------------------------------------------- closed-form CDF bases

template <class T> AIMZ_MATH_FN T truncated_exponential_sample(RandomStream& s, T rate, T low, T high) {
  return detail::truncated_cdf_sample(s, detail::ExponentialCdf{double(rate)}, low, high);
}
template <class T> AIMZ_MATH_FN T truncated_exponential_log_prob(T x, T rate, T low, T high) {
  return detail::truncated_cdf_log_prob(double(exponential_log_prob<double>(x, rate)), x, detail::ExponentialCdf{double(rate)}, low, high);
}

template <class T> AIMZ_MATH_FN T truncated_weibull_sample(RandomStream& s, T scale, T k, T low, T high) {
  return detail::truncated_cdf_sample(s, detail::WeibullCdf{double(scale), double(k)}, low, high);
}
template <class T> AIMZ_MATH_FN T truncated_weibull_log_prob(T x, T scale, T k, T low, T high) {
  return detail::truncated_cdf_log_prob(double(weibull_log_prob<double>(x, scale, k)), x,
                                        detail::WeibullCdf{double(scale), double(k)}, low, high);
}

template <class T> AIMZ_MATH_FN T truncated_gumbel_sample(RandomStream& s, T loc, T scale, T low, T high) {
  return detail::truncated_cdf_sample(s, detail::GumbelCdf{double(loc), double(scale)}, low, high);
}
template <class T> AIMZ_MATH_FN T truncated_gumbel_log_prob(T x, T loc, T scale, T low, T high) {
  return detail::truncated_cdf_log_prob(double(gumbel_log_prob<double>(x, loc, scale)), x,
                                        detail::GumbelCdf{double(loc), double(scale)}, low, high);
}

template <class T> AIMZ_MATH_FN T truncated_pareto_sample(RandomStream& s, T scale, T alpha, T low, T high) {
  return detail::truncated_cdf_sample(s, detail::ParetoCdf{double(scale), double(alpha)}, low, high);
}
template <class T> AIMZ_MATH_FN T truncated_pareto_log_prob(T x, T scale, T alpha, T low, T high) {
  return detail::truncated_cdf_log_prob(double(pareto_log_prob<double>(x, scale, alpha)), x,
                                        detail::ParetoCdf{double(scale), double(alpha)}, low, high);
}

// ------------------------------------------------ incomplete-gamma bases

template <class T> AIMZ_MATH_FN T truncated_gamma_sample(RandomStream& s, T concentration, T rate, T low, T high) {
  return detail::truncated_cdf_sample_trying(s, detail::GammaCdf{double(concentration), double(rate)}, low, high,
                                             [&] { return gamma_sample<T>(s, concentration, rate); });
}
template <class T> AIMZ_MATH_FN T truncated_gamma_log_prob(T x, T concentration, T rate, T low, T high) {
  return detail::truncated_cdf_log_prob(double(gamma_log_prob<double>(x, concentration, rate)), x,
                                        detail::GammaCdf{double(concentration), double(rate)}, low, high);
}

template <class T>
AIMZ_MATH_FN T truncated_inverse_gamma_sample(RandomStream& s, T concentration, T rate, T low, T high) {
  return detail::truncated_cdf_sample_trying(s, detail::InverseGammaCdf{double(concentration), double(rate)}, low,
                                             high, [&] { return inverse_gamma_sample<T>(s, concentration, rate); });
}
template <class T> AIMZ_MATH_FN T truncated_inverse_gamma_log_prob(T x, T concentration, T rate, T low, T high) {
  return detail::truncated_cdf_log_prob(double(inverse_gamma_log_prob<double>(x, concentration, rate)), x,
                                        detail::InverseGammaCdf{double(concentration), double(rate)}, low, high);
}

// ------------------------------------------------ on the unit interval

template <class T>
AIMZ_MATH_FN T truncated_beta_sample(RandomStream& s, T concentration1, T concentration0, T low, T high) {
  return detail::truncated_cdf_sample_trying(s, detail::BetaCdf{double(concentration1), double(concentration0)}, low,
                                             high, [&] { return beta_sample<T>(s, concentration1, concentration0); });
}
template <class T> AIMZ_MATH_FN T truncated_beta_log_prob(T x, T concentration1, T concentration0, T low, T high) {
  return detail::truncated_cdf_log_prob(double(beta_log_prob<double>(x, concentration1, concentration0)), x,
                                        detail::BetaCdf{double(concentration1), double(concentration0)}, low, high);
}

template <class T>
AIMZ_MATH_FN T truncated_kumaraswamy_sample(RandomStream& s, T concentration1, T concentration0, T low, T high) {
  return detail::truncated_cdf_sample(s, detail::KumaraswamyCdf{double(concentration1), double(concentration0)}, low,
                                      high);
}
template <class T>
AIMZ_MATH_FN T truncated_kumaraswamy_log_prob(T x, T concentration1, T concentration0, T low, T high) {
  return detail::truncated_cdf_log_prob(double(kumaraswamy_log_prob<double>(x, concentration1, concentration0)), x,
                                        detail::KumaraswamyCdf{double(concentration1), double(concentration0)}, low,
                                        high);
}

// ----------------------------------------- more closed forms and reparams

template <class T> AIMZ_MATH_FN T truncated_uniform_sample(RandomStream& s, T a, T b, T low, T high) {
  return detail::truncated_cdf_sample(s, detail::UniformCdf{double(a), double(b)}, low, high);
}
template <class T> AIMZ_MATH_FN T truncated_uniform_log_prob(T x, T a, T b, T low, T high) {
  return detail::truncated_cdf_log_prob(double(uniform_log_prob<double>(x, a, b)), x,
                                        detail::UniformCdf{double(a), double(b)}, low, high);
}

template <class T> AIMZ_MATH_FN T truncated_log_uniform_sample(RandomStream& s, T a, T b, T low, T high) {
  return detail::truncated_cdf_sample(s, detail::LogUniformCdf{double(a), double(b)}, low, high);
}
template <class T> AIMZ_MATH_FN T truncated_log_uniform_log_prob(T x, T a, T b, T low, T high) {
  return detail::truncated_cdf_log_prob(double(log_uniform_log_prob<double>(x, a, b)), x,
                                        detail::LogUniformCdf{double(a), double(b)}, low, high);
}

template <class T>
AIMZ_MATH_FN T truncated_asymmetric_laplace_sample(RandomStream& s, T loc, T scale, T k, T low, T high) {
  return detail::truncated_cdf_sample(s, detail::AsymmetricLaplaceCdf{double(loc), double(scale), double(k)}, low,
                                      high);
}
template <class T>
AIMZ_MATH_FN T truncated_asymmetric_laplace_log_prob(T x, T loc, T scale, T k, T low, T high) {
  return detail::truncated_cdf_log_prob(double(asymmetric_laplace_log_prob<double>(x, loc, scale, k)), x,
                                        detail::AsymmetricLaplaceCdf{double(loc), double(scale), double(k)}, low,
                                        high);
}

template <class T> AIMZ_MATH_FN T truncated_chi2_sample(RandomStream& s, T df, T low, T high) {
  return detail::truncated_cdf_sample_trying(s, detail::GammaCdf{0.5 * double(df), 0.5}, low, high,
                                             [&] { return chi2_sample<T>(s, df); });
}
template <class T> AIMZ_MATH_FN T truncated_chi2_log_prob(T x, T df, T low, T high) {
  return detail::truncated_cdf_log_prob(double(chi2_log_prob<double>(x, df)), x,
                                        detail::GammaCdf{0.5 * double(df), 0.5}, low, high);
}

/// BetaProportion(mean, concentration) is Beta(mean c, (1 - mean) c).
template <class T> AIMZ_MATH_FN bool beta_proportion_ok(T mean, T concentration) {
  return mean > T(0) && mean < T(1) && detail::pos_finite(concentration);
}
template <class T>
AIMZ_MATH_FN T truncated_beta_proportion_sample(RandomStream& s, T mean, T concentration, T low, T high) {
  if (!beta_proportion_ok(mean, concentration)) return detail::nan<T>();
  return truncated_beta_sample<T>(s, mean * concentration, (T(1) - mean) * concentration, low, high);
}
template <class T>
AIMZ_MATH_FN T truncated_beta_proportion_log_prob(T x, T mean, T concentration, T low, T high) {
  if (!beta_proportion_ok(mean, concentration)) return detail::nan<T>();
  const double a = double(mean) * double(concentration), b = (1.0 - double(mean)) * double(concentration);
  return detail::truncated_cdf_log_prob(double(beta_log_prob<double>(x, a, b)), x, detail::BetaCdf{a, b}, low, high);
}

// ------------------------------------------- through the symmetric bases

/// LogNormal on [low, high]: exp of the normal truncated to [log low,
/// log high], its density divided by x.
template <class T> AIMZ_MATH_FN bool log_normal_truncation_ok(T loc, T scale, T low, T high) {
  return std::isfinite(loc) && detail::pos_finite(scale) && low < high && high > T(0);
}
template <class T> AIMZ_MATH_FN T truncated_log_normal_sample(RandomStream& s, T loc, T scale, T low, T high) {
  if (!log_normal_truncation_ok(loc, scale, low, high)) return detail::nan<T>();
  const double lo = low > T(0) ? std::log(double(low)) : -detail::inf<double>();
  const double z = truncated_normal_sample<double>(s, double(loc), double(scale), lo, std::log(double(high)));
  T x = static_cast<T>(std::exp(z));
  x = x < low ? low : (x > high ? high : x);
  return z != z ? detail::nan<T>() : x;
}
template <class T> AIMZ_MATH_FN T truncated_log_normal_log_prob(T x, T loc, T scale, T low, T high) {
  if (!log_normal_truncation_ok(loc, scale, low, high) || std::isnan(x)) return detail::nan<T>();
  if (x < low || x > high || !(x > T(0)) || std::isinf(x)) return -detail::inf<T>();
  const double lo = low > T(0) ? std::log(double(low)) : -detail::inf<double>();
  const double lx = std::log(double(x));
  return static_cast<T>(truncated_normal_log_prob<double>(lx, double(loc), double(scale), lo, std::log(double(high))) -
                        lx);
}

/// HalfNormal(scale) on [low, high] is Normal(0, scale) on [max(low, 0), high].
template <class T> AIMZ_MATH_FN T truncated_half_normal_sample(RandomStream& s, T scale, T low, T high) {
  return truncated_normal_sample<T>(s, T(0), scale, low > T(0) ? low : T(0), high);
}
template <class T> AIMZ_MATH_FN T truncated_half_normal_log_prob(T x, T scale, T low, T high) {
  return truncated_normal_log_prob<T>(x, T(0), scale, low > T(0) ? low : T(0), high);
}

/// HalfCauchy(scale) on [low, high] is Cauchy(0, scale) on [max(low, 0), high].
template <class T> AIMZ_MATH_FN T truncated_half_cauchy_sample(RandomStream& s, T scale, T low, T high) {
  return truncated_cauchy_sample<T>(s, T(0), scale, low > T(0) ? low : T(0), high);
}
template <class T> AIMZ_MATH_FN T truncated_half_cauchy_log_prob(T x, T scale, T low, T high) {
  return truncated_cauchy_log_prob<T>(x, T(0), scale, low > T(0) ? low : T(0), high);
}

}  // namespace math
}  // namespace aimz
