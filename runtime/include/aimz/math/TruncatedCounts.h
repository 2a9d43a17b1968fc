// TruncatedDistribution(Base, low, high) over counts: Poisson,
// NegativeBinomial2 and Binomial (probs or logits) restricted to the
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

#include "aimz/math/LogDensity.h"
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

struct NegativeBinomial2Counts {
  double mean, concentration;
  AIMZ_MATH_FN bool valid() const { return pos_finite(mean) && pos_finite(concentration); }
  AIMZ_MATH_FN double top() const { return inf<double>(); }
  AIMZ_MATH_FN void tails(double k, double* lp, double* lq) const {
    if (k < 0.0) {
      *lp = -inf<double>();
      *lq = 0.0;
      return;
    }
    const double sum = mean + concentration;
    log_incomplete_beta(concentration, k + 1.0, concentration / sum, mean / sum, lp, lq);
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

template <class T> AIMZ_MATH_FN std::int32_t truncated_poisson_sample(RandomStream& s, T rate, T low, T high) {
  return detail::truncated_count_sample(s, detail::PoissonCounts{double(rate)}, low, high,
                                        [&] { return poisson_sample<double>(s, double(rate)); });
}
template <class T, class X> AIMZ_MATH_FN T truncated_poisson_log_prob(X x, T rate, T low, T high) {
  return detail::truncated_count_log_prob<T>(poisson_log_prob<double, X>(x, double(rate)), x,
                                             detail::PoissonCounts{double(rate)}, low, high);
}

template <class T>
AIMZ_MATH_FN std::int32_t truncated_negative_binomial2_sample(RandomStream& s, T mean, T concentration, T low, T high) {
  return detail::truncated_count_sample(
      s, detail::NegativeBinomial2Counts{double(mean), double(concentration)}, low, high,
      [&] { return negative_binomial2_sample<double>(s, double(mean), double(concentration)); });
}
template <class T, class X>
AIMZ_MATH_FN T truncated_negative_binomial2_log_prob(X x, T mean, T concentration, T low, T high) {
  return detail::truncated_count_log_prob<T>(
      negative_binomial2_log_prob<double, X>(x, double(mean), double(concentration)), x,
      detail::NegativeBinomial2Counts{double(mean), double(concentration)}, low, high);
}

template <class T>
AIMZ_MATH_FN std::int32_t truncated_binomial_sample(RandomStream& s, T total_count, T probs, T low, T high) {
  return detail::truncated_count_sample(
      s, detail::BinomialCounts{double(total_count), double(probs), 1.0 - double(probs)}, low, high,
      [&] { return binomial_sample<double>(s, double(total_count), double(probs)); });
}
template <class T, class X> AIMZ_MATH_FN T truncated_binomial_log_prob(X x, T total_count, T probs, T low, T high) {
  return detail::truncated_count_log_prob<T>(
      binomial_log_prob<double, X>(x, double(total_count), double(probs)), x,
      detail::BinomialCounts{double(total_count), double(probs), 1.0 - double(probs)}, low, high);
}

template <class T>
AIMZ_MATH_FN std::int32_t truncated_binomial_logits_sample(RandomStream& s, T total_count, T logits, T low, T high) {
  const double l = double(logits);
  return detail::truncated_count_sample(
      s, detail::BinomialCounts{double(total_count), sigmoid(l), sigmoid(-l)}, low, high,
      [&] { return binomial_logits_sample<double>(s, double(total_count), l); });
}
template <class T, class X>
AIMZ_MATH_FN T truncated_binomial_logits_log_prob(X x, T total_count, T logits, T low, T high) {
  const double l = double(logits);
  return detail::truncated_count_log_prob<T>(binomial_logits_log_prob<double, X>(x, double(total_count), l), x,
                                             detail::BinomialCounts{double(total_count), sigmoid(l), sigmoid(-l)},
                                             low, high);
}

}  // namespace math
}  // namespace aimz
