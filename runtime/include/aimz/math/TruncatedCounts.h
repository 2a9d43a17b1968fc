// TruncatedDistribution(Base, low, high) over counts (CdfDistributions.def's
// AIMZ_COUNT_FAMILY rows; Censored.h defines truncated_<row>) restricted to the
// integers k with low <= k <= high, both ends included (Stan's
// `poisson(lambda) T[L, U]`, PyMC's pm.Truncated):
//
//   P(k) = base(k) / (F(U) - F(L - 1)),   L = max(ceil(low), 0),
//                                         U = min(floor(high), support end)
//
// F from the regularized incomplete gamma (Poisson: F(k) = Q(k + 1, rate))
// and beta (NegativeBinomial2: F(k) = I_p(concentration, k + 1) with
// p = concentration / (concentration + mean); Binomial: F(k) =
// I_(1-p)(n - k, k + 1)). The mass is taken on the side of the median where
// it does not cancel, as in TruncatedByCdf.h. Draws: up to eight of the
// base's own draws when [L, U] holds half the mass or more, else inversion
// with one uniform, the count found by bisection on F (O(log U) CDF
// evaluations, wherever the interval lies).
#pragma once

#include "aimz/math/BinomialFamilies.h"
#include "aimz/math/CountFamilies.h"
#include "aimz/math/LogDensity.h"
#include "aimz/math/PoissonFamilies.h"
#include "aimz/math/Samplers.h"
#include "aimz/math/TruncatedByCdf.h"

namespace aimz {
namespace math {
namespace detail {

// The bases, in double: log_cdf(k) = log P(X <= k) and log_sf(k) =
// log P(X > k) for integer k (k < 0: all mass above), top() the support's
// upper end.

struct PoissonCounts {
  double rate;
  AIMZ_MATH_FN bool valid() const { return rate >= 0.0 && rate < inf<double>(); }
  AIMZ_MATH_FN double top() const { return inf<double>(); }
  AIMZ_MATH_FN void tails(double k, double* lp, double* lq) const {
    if (k < 0.0) {
      *lp = -inf<double>();
      *lq = 0.0;
      return;
    }
    log_incomplete_gamma(k + 1.0, rate, lq, lp);  // F(k) = Q(k + 1, rate)
  }
};

/// The negative binomial of r failures and success odds y / x (x + y = 1,
/// both given exactly): F(k) = I_x(r, k + 1); y = 0 puts all mass at 0.
/// `ok` is the family's own parameter check (NegativeBinomial2,
/// GammaPoisson, NegativeBinomialProbs / Logits).
struct NegativeBinomialCounts {
  double r, x, y;
  bool ok;
  AIMZ_MATH_FN bool valid() const { return ok; }
  AIMZ_MATH_FN double top() const { return inf<double>(); }
  AIMZ_MATH_FN void tails(double k, double* lp, double* lq) const {
    if (k < 0.0 || y == 0.0) {
      *lp = k < 0.0 ? -inf<double>() : 0.0;
      *lq = k < 0.0 ? 0.0 : -inf<double>();
      return;
    }
    log_incomplete_beta(r, k + 1.0, x, y, lp, lq);
  }
};

/// Geometric with log P(X > 0) = log_q: S(k) = q^(k + 1).
struct GeometricCounts {
  double log_q;
  bool ok;
  AIMZ_MATH_FN bool valid() const { return ok; }
  AIMZ_MATH_FN double top() const { return inf<double>(); }
  AIMZ_MATH_FN void tails(double k, double* lp, double* lq) const {
    if (k < 0.0) {
      *lp = -inf<double>();
      *lq = 0.0;
      return;
    }
    *lq = (k + 1.0) * log_q;
    *lp = log1m_exp_d(*lq);
  }
};

/// Binomial(n, p) with q = 1 - p given exactly (sigmoid(-logits)).
struct BinomialCounts {
  double n, p, q;
  AIMZ_MATH_FN bool valid() const {
    return valid_total_count(n) && p >= 0.0 && p <= 1.0 && q >= 0.0 && q <= 1.0;
  }
  AIMZ_MATH_FN double top() const { return n; }
  AIMZ_MATH_FN void tails(double k, double* lp, double* lq) const {
    if (k < 0.0 || k >= n) {
      *lp = k < 0.0 ? -inf<double>() : 0.0;
      *lq = k < 0.0 ? 0.0 : -inf<double>();
      return;
    }
    log_incomplete_beta(n - k, k + 1.0, q, p, lp, lq);
  }
};

/// BetaBinomial(a, b, n): F(k) and S(k) summed term by term from P(0) =
/// B(a, n + b) / B(a, b), each next term by the ratio P(j + 1) / P(j) =
/// (n - j)(j + a) / ((j + 1)(n - j - 1 + b)): O(n), both sides of k in one
/// pass (no cancellation: each is a sum of positive terms).
struct BetaBinomialCounts {
  double a, b, n;
  AIMZ_MATH_FN bool valid() const { return pos_finite(a) && pos_finite(b) && valid_total_count(n); }
  AIMZ_MATH_FN double top() const { return n; }
  AIMZ_MATH_FN void tails(double k, double* lp, double* lq) const {
    if (k < 0.0) {
      *lp = -inf<double>();
      *lq = 0.0;
      return;
    }
    LogSum lower, upper;
    double l = log_beta(a, n + b) - log_beta(a, b);
    for (double j = 0.0; j <= n; j += 1.0) {
      (j <= k ? lower : upper).add(l);
      l += std::log(n - j) + std::log(j + a) - std::log(j + 1.0) - std::log(n - j - 1.0 + b);
    }
    *lp = lower.value();
    *lq = upper.value();
  }
};

/// DiscreteUniform(low, high): F(k) = (k - low + 1) / (high - low + 1).
struct DiscreteUniformCounts {
  double low, high;
  AIMZ_MATH_FN bool valid() const { return discrete_uniform_ok(low, high); }
  AIMZ_MATH_FN double top() const { return high; }
  AIMZ_MATH_FN void tails(double k, double* lp, double* lq) const {
    if (k < low) {
      *lp = -inf<double>();
      *lq = 0.0;
      return;
    }
    const double c = k - low + 1.0, all = high - low + 1.0;
    *lp = std::log(c) - std::log(all);
    *lq = std::log(all - c) - std::log(all);
  }
};

/// A count base B with extra mass g at 0 (log g and log(1 - g) given
/// exactly): F(k) = g + (1 - g) F_B(k), S(k) = (1 - g) S_B(k).
template <class B> struct ZeroInflatedCounts {
  B base;
  double log_g, log_1mg;
  bool ok;
  AIMZ_MATH_FN bool valid() const { return ok && base.valid(); }
  AIMZ_MATH_FN double top() const { return base.top(); }
  AIMZ_MATH_FN void tails(double k, double* lp, double* lq) const {
    if (k < 0.0) {
      *lp = -inf<double>();
      *lq = 0.0;
      return;
    }
    double bp, bq;
    base.tails(k, &bp, &bq);
    const double hi = log_g > log_1mg + bp ? log_g : log_1mg + bp;
    const double lo = log_g > log_1mg + bp ? log_1mg + bp : log_g;
    *lp = hi + std::log1p(std::exp(lo - hi));
    *lq = log_1mg + bq;
  }
};

/// log F(k) and log S(k), past the support's end included.
template <class B> AIMZ_MATH_FN void count_tails(const B& base, double k, double* lp, double* lq) {
  if (k >= base.top()) {
    *lp = 0.0;
    *lq = -inf<double>();
    return;
  }
  base.tails(k, lp, lq);
}
template <class B> AIMZ_MATH_FN double count_log_cdf(const B& base, double k) {
  double lp, lq;
  count_tails(base, k, &lp, &lq);
  return lp;
}
template <class B> AIMZ_MATH_FN double count_log_sf(const B& base, double k) {
  double lp, lq;
  count_tails(base, k, &lp, &lq);
  return lq;
}

/// The integer interval [L, U] of [low, high] on the support, or L > U.
template <class T, class B> AIMZ_MATH_FN void count_interval(const B& base, T low, T high, double* L, double* U) {
  const double l = std::ceil(static_cast<double>(low)), h = std::floor(static_cast<double>(high));
  *L = l > 0.0 ? l : 0.0;
  *U = h < base.top() ? h : base.top();
}

template <class T, class B> AIMZ_MATH_FN bool count_truncation_ok(const B& base, T low, T high, double L, double U) {
  return base.valid() && !std::isnan(low) && !std::isnan(high) && L <= U && L < 2147483647.0;
}

/// Whether P(X <= L - 1) is past one half: the mass of [L, U] is then
/// S(L - 1) - S(U), else F(U) - F(L - 1).
template <class B> AIMZ_MATH_FN bool count_upper_side(const B& base, double L) {
  return L > 0.0 && count_log_cdf(base, L - 1.0) > -0.6931471805599453;
}

template <class B> AIMZ_MATH_FN double log_count_mass(const B& base, double L, double U) {
  if (count_upper_side(base, L)) return log_diff_exp_d(count_log_sf(base, L - 1.0), count_log_sf(base, U));
  return log_diff_exp_d(count_log_cdf(base, U), count_log_cdf(base, L - 1.0));
}

/// The smallest k in [L, U] with g(k) >= 0 (g increasing; g(U) >= 0 when U
/// is finite): the upper end found by doubling when U is infinite.
template <class G> AIMZ_MATH_FN double count_bisect(G g, double L, double U) {
  double lo = L, hi = U;
  if (hi == inf<double>()) {
    hi = L > 1.0 ? 2.0 * L : 2.0;
    while (hi < 2147483647.0 && g(hi) < 0.0) {
      lo = hi + 1.0;
      hi *= 2.0;
    }
    if (hi > 2147483647.0) hi = 2147483647.0;
  }
  while (lo < hi) {
    const double mid = std::floor(0.5 * (lo + hi));
    if (g(mid) >= 0.0) hi = mid;
    else lo = mid + 1.0;
  }
  return lo;
}

/// One count on [L, U] by inversion with uniform u.
template <class B> AIMZ_MATH_FN double truncated_count_draw(const B& base, double u, double L, double U) {
  if (count_upper_side(base, L)) {
    const double ls = count_log_sf(base, L - 1.0), hs = count_log_sf(base, U);
    const double lq = ls + std::log((1.0 - u) + u * std::exp(hs - ls));
    return count_bisect([&](double k) { return lq - count_log_sf(base, k); }, L, U);
  }
  const double lf = count_log_cdf(base, L - 1.0), hf = count_log_cdf(base, U);
  const double lp = hf + std::log(u + (1.0 - u) * std::exp(lf - hf));
  return count_bisect([&](double k) { return count_log_cdf(base, k) - lp; }, L, U);
}

template <class T, class B, class Draw>
AIMZ_MATH_FN std::int32_t truncated_count_sample(RandomStream& s, const B& base, T low, T high, Draw draw) {
  double L, U;
  count_interval(base, low, high, &L, &U);
  if (!count_truncation_ok(base, low, high, L, U)) return kInvalidCount;
  if (log_count_mass(base, L, U) >= -0.6931471805599453)
    for (int i = 0; i < 8; ++i) {
      const std::int32_t k = draw();
      if (k >= L && k <= U) return k;
    }
  return finish_count(s, truncated_count_draw(base, uniform01<double>(s), L, U));
}

template <class T, class X, class B>
AIMZ_MATH_FN T truncated_count_log_prob(double base_log_prob, X x, const B& base, T low, T high) {
  double L, U;
  count_interval(base, low, high, &L, &U);
  if (!count_truncation_ok(base, low, high, L, U)) return nan<T>();
  const CountObservation<double> c = count_observation<double>(x);
  if (!c.ok) return static_cast<T>(c.other);
  if (c.k < L || c.k > U) return -inf<T>();
  return static_cast<T>(base_log_prob - log_count_mass(base, L, U));
}

}  // namespace detail

}  // namespace math
}  // namespace aimz
