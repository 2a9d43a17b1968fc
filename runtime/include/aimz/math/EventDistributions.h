// Distributions with an event axis: a vector or matrix parameter or value
// (Categorical, OrderedLogistic, Multinomial, DirichletMultinomial, Dirichlet, MultivariateNormal,
// LKJCholesky), and the composites built on a scalar distribution (a
// mixture over a component axis, an ordered vector). NumPyro's definitions
// and parameter names throughout.
//
// Every function sees its parameters and value through strided views of one
// event, so compiled kernels pass slices of their arrays in place. K is the
// event size: categories (Categorical, Multinomial), cutpoints
// (OrderedLogistic), components (mixtures), or the vector's length.
//
// Conventions as in Samplers.h / LogDensity.h: invalid parameters give NaN
// (kInvalidCount for counts), a value outside the support -inf. Vectors are
// summed in index order, so results never depend on how work was split.
#pragma once

#include "aimz/math/BinomialFamilies.h"
#include "aimz/math/GammaFamilies.h"
#include "aimz/math/LogDensity.h"
#include "aimz/math/Samplers.h"

namespace aimz {
namespace math {

/// One event of an array: element i at p[i * s1], element (i, j) of a
/// matrix at p[i * s0 + j * s1]. A stride of 0 repeats one value.
template <class T> struct EventView {
  T* p;
  std::int64_t s0;
  std::int64_t s1;
  AIMZ_MATH_FN T& operator[](std::int64_t i) const { return p[i * s1]; }
  AIMZ_MATH_FN T& operator()(std::int64_t i, std::int64_t j) const { return p[i * s0 + j * s1]; }
};

namespace detail {

/// max and log(sum(exp(l - max))) of a logits vector; false when an entry
/// is NaN or +inf or every entry is -inf.
template <class T> AIMZ_MATH_FN bool logsumexp_vec(std::int64_t K, EventView<const T> l, T* lse) {
  if (K <= 0) return false;
  T m = -inf<T>();
  for (std::int64_t k = 0; k < K; ++k) {
    const T v = l[k];
    if (std::isnan(v) || v == inf<T>()) return false;
    m = v > m ? v : m;
  }
  if (m == -inf<T>()) return false;
  T s = T(0);
  for (std::int64_t k = 0; k < K; ++k) s += std::exp(l[k] - m);
  *lse = m + std::log(s);
  return true;
}

/// Inverse-CDF draw of a category from non-negative weights w_k = f(k):
/// the first k whose running sum exceeds U * total, never one of weight 0.
template <class T, class W> AIMZ_MATH_FN std::int32_t draw_category(RandomStream& s, std::int64_t K, W w, T total) {
  const T u = uniform01<T>(s) * total;
  T c = T(0);
  std::int64_t last = -1;
  for (std::int64_t k = 0; k < K; ++k) {
    const T wk = w(k);
    if (!(wk > T(0))) continue;
    c += wk;
    last = k;
    if (u < c) return finish_count(s, static_cast<double>(k));
  }
  return finish_count(s, static_cast<double>(last));  // rounding left u >= c
}

/// The category an observation names, or -1 (not an integer in [0, K)).
template <class T> AIMZ_MATH_FN std::int64_t category_of(T x, std::int64_t K) {
  double v;
  if (count_value(x, &v) != 0 || v < 0.0 || v >= static_cast<double>(K)) return -1;
  return static_cast<std::int64_t>(v);
}

/// log(sigmoid(a) - sigmoid(b)) for a >= b, without cancellation:
/// sigmoid(a) - sigmoid(b) = sigmoid(a) sigmoid(-b) (1 - exp(b - a)).
/// `b_minus_a` is passed separately: for cutpoints it is their difference,
/// exact when they are close, where (c1 - eta) - (c0 - eta) is not.
template <class T> AIMZ_MATH_FN T log_sigmoid_diff(T a, T b, T b_minus_a) {
  return log_sigmoid(a) + log_sigmoid(-b) + std::log(-std::expm1(b_minus_a));
}

}  // namespace detail

// ---------------------------------------------------------------- Categorical

/// Categorical(probs): K weights, used as given (NumPyro does not
/// renormalize); the draw is proportional to them.
template <class T>
AIMZ_MATH_FN void categorical_probs_sample(RandomStream& s, std::int64_t K, EventView<std::int32_t> out,
                                           EventView<const T> probs) {
  T total = T(0);
  for (std::int64_t k = 0; k < K; ++k) {
    const T p = probs[k];
    if (!detail::valid_prob(p)) {
      out[0] = kInvalidCount;
      return;
    }
    total += p;
  }
  out[0] = total > T(0) ? detail::draw_category(s, K, [&](std::int64_t k) { return probs[k]; }, total) : kInvalidCount;
}

template <class T, class X> AIMZ_MATH_FN T categorical_probs_log_prob(X x, std::int64_t K, EventView<const T> probs) {
  for (std::int64_t k = 0; k < K; ++k)
    if (!detail::valid_prob(probs[k])) return detail::nan<T>();
  if (std::isnan(static_cast<double>(x))) return detail::nan<T>();
  const std::int64_t k = detail::category_of(x, K);
  return k < 0 ? -detail::inf<T>() : std::log(probs[k]);
}

/// Categorical(logits): probabilities softmax(logits).
template <class T>
AIMZ_MATH_FN void categorical_logits_sample(RandomStream& s, std::int64_t K, EventView<std::int32_t> out,
                                            EventView<const T> logits) {
  T lse;
  if (!detail::logsumexp_vec(K, logits, &lse)) {
    out[0] = kInvalidCount;
    return;
  }
  out[0] = detail::draw_category(s, K, [&](std::int64_t k) { return std::exp(logits[k] - lse); }, T(1));
}

template <class T, class X> AIMZ_MATH_FN T categorical_logits_log_prob(X x, std::int64_t K, EventView<const T> logits) {
  T lse;
  if (!detail::logsumexp_vec(K, logits, &lse) || std::isnan(static_cast<double>(x))) return detail::nan<T>();
  const std::int64_t k = detail::category_of(x, K);
  return k < 0 ? -detail::inf<T>() : logits[k] - lse;
}

// ------------------------------------------------------------ OrderedLogistic

/// OrderedLogistic(predictor, cutpoints): K cutpoints give K + 1 categories
/// with P(y <= k) = sigmoid(cutpoints[k] - predictor).
template <class T>
AIMZ_MATH_FN void ordered_logistic_sample(RandomStream& s, std::int64_t K, EventView<std::int32_t> out,
                                          EventView<const T> predictor, EventView<const T> cutpoints) {
  const T eta = predictor[0];
  if (!std::isfinite(eta)) {
    out[0] = kInvalidCount;
    return;
  }
  for (std::int64_t k = 0; k < K; ++k)
    if (std::isnan(cutpoints[k]) || (k > 0 && !(cutpoints[k] >= cutpoints[k - 1]))) {
      out[0] = kInvalidCount;
      return;
    }
  const T u = uniform01<T>(s);
  std::int64_t k = 0;
  while (k < K && !(u < sigmoid(cutpoints[k] - eta))) ++k;
  out[0] = detail::finish_count(s, static_cast<double>(k));
}

template <class T, class X>
AIMZ_MATH_FN T ordered_logistic_log_prob(X x, std::int64_t K, EventView<const T> predictor,
                                         EventView<const T> cutpoints) {
  const T eta = predictor[0];
  if (!std::isfinite(eta) || std::isnan(static_cast<double>(x))) return detail::nan<T>();
  for (std::int64_t k = 0; k < K; ++k)
    if (std::isnan(cutpoints[k]) || (k > 0 && !(cutpoints[k] >= cutpoints[k - 1]))) return detail::nan<T>();
  const std::int64_t k = detail::category_of(x, K + 1);
  if (k < 0) return -detail::inf<T>();
  if (K == 0) return T(0);
  if (k == 0) return log_sigmoid(cutpoints[0] - eta);
  if (k == K) return log_sigmoid(eta - cutpoints[K - 1]);
  return detail::log_sigmoid_diff(cutpoints[k] - eta, cutpoints[k - 1] - eta, cutpoints[k - 1] - cutpoints[k]);
}

// ---------------------------------------------------------------- Multinomial

namespace detail {

/// Counts of total_count trials over K categories with weights w(k)
/// (summing to `total`): one conditional binomial per category.
template <class T, class W>
AIMZ_MATH_FN void multinomial_draw(RandomStream& s, std::int64_t K, EventView<std::int32_t> out, T total_count, W w,
                                   T total) {
  const double n = static_cast<double>(total_count);
  bool ok = valid_total_count(n) && n <= kMaxBinomialCount && total > T(0);
  double left = n, mass = static_cast<double>(total);
  for (std::int64_t k = 0; k < K; ++k) {
    const double wk = static_cast<double>(w(k));
    double c = 0.0;
    if (!ok || !(wk >= 0.0)) {
      ok = false;
    } else if (k == K - 1 || wk >= mass) {
      c = left;
    } else if (left > 0.0 && wk > 0.0) {
      const double p = wk / mass;
      if (p > 0.5) {
        const double d = binomial_core(s, left, 1.0 - p, p, std::log1p(-p), std::log(p));
        c = d < 0.0 ? -1.0 : left - d;
      } else {
        c = binomial_core(s, left, p, 1.0 - p, std::log(p), std::log1p(-p));
      }
    }
    if (c < 0.0) ok = false;
    out[k] = ok ? finish_count(s, c) : kInvalidCount;
    left -= c;
    mass -= wk;
    if (mass < 0.0) mass = 0.0;
  }
}

/// log multinomial mass given log p_k = logp(k).
template <class T, class LogP>
AIMZ_MATH_FN T multinomial_log_mass(EventView<T> x, std::int64_t K, T total_count, LogP logp) {
  const double n = static_cast<double>(total_count);
  if (!valid_total_count(n)) return nan<T>();
  double sum = 0.0;
  T acc = log_gamma(T(n + 1.0));
  bool outside = false;
  for (std::int64_t k = 0; k < K; ++k) {
    double v;
    const int c = count_value(x[k], &v);
    if (c == 1) return nan<T>();
    if (c == 2 || v < 0.0) {
      outside = true;
      continue;
    }
    sum += v;
    const T lp = logp(k);
    if (std::isnan(lp)) return nan<T>();
    acc -= log_gamma(T(v + 1.0));
    if (v > 0.0) acc += T(v) * lp;  // xlogy: 0 * log 0 = 0
  }
  if (outside || sum != n) return -inf<T>();
  return acc;
}

}  // namespace detail

/// Multinomial(total_count, probs): weights used as given.
template <class T>
AIMZ_MATH_FN void multinomial_probs_sample(RandomStream& s, std::int64_t K, EventView<std::int32_t> out,
                                           EventView<const T> total_count, EventView<const T> probs) {
  T total = T(0);
  for (std::int64_t k = 0; k < K; ++k) total += detail::valid_prob(probs[k]) ? probs[k] : detail::nan<T>();
  detail::multinomial_draw(s, K, out, total_count[0], [&](std::int64_t k) { return probs[k]; }, total);
}

template <class T>
AIMZ_MATH_FN T multinomial_probs_log_prob(EventView<T> x, std::int64_t K, EventView<const T> total_count,
                                          EventView<const T> probs) {
  for (std::int64_t k = 0; k < K; ++k)
    if (!detail::valid_prob(probs[k])) return detail::nan<T>();
  return detail::multinomial_log_mass(x, K, total_count[0], [&](std::int64_t k) { return std::log(probs[k]); });
}

/// Multinomial(total_count, logits): probabilities softmax(logits).
template <class T>
AIMZ_MATH_FN void multinomial_logits_sample(RandomStream& s, std::int64_t K, EventView<std::int32_t> out,
                                            EventView<const T> total_count, EventView<const T> logits) {
  T lse;
  const bool ok = detail::logsumexp_vec(K, logits, &lse);
  detail::multinomial_draw(
      s, K, out, total_count[0], [&](std::int64_t k) { return std::exp(logits[k] - lse); },
      ok ? T(1) : detail::nan<T>());
}

template <class T>
AIMZ_MATH_FN T multinomial_logits_log_prob(EventView<T> x, std::int64_t K, EventView<const T> total_count,
                                           EventView<const T> logits) {
  T lse;
  if (!detail::logsumexp_vec(K, logits, &lse)) return detail::nan<T>();
  return detail::multinomial_log_mass(x, K, total_count[0], [&](std::int64_t k) { return logits[k] - lse; });
}

// ----------------------------------------------------- DirichletMultinomial

/// DirichletMultinomial(concentration, total_count): the counts by
/// sequential beta-binomials, exact by the Dirichlet's aggregation
/// property: given the `left` trials not yet placed, category k takes
/// Binomial(left, p) with p ~ Beta(concentration_k, the concentration of the
/// categories after k); the last takes what is left. No buffer of K
/// probabilities is needed.
template <class T>
AIMZ_MATH_FN void dirichlet_multinomial_sample(RandomStream& s, std::int64_t K, EventView<std::int32_t> out,
                                               EventView<const T> concentration, EventView<const T> total_count) {
  const double n = static_cast<double>(total_count[0]);
  bool ok = K > 0 && detail::valid_total_count(n) && n <= kMaxBinomialCount;
  double rest = 0.0;
  for (std::int64_t k = 0; k < K; ++k) {
    const double a = static_cast<double>(concentration[k]);
    ok = ok && detail::pos_finite(a);
    rest += a;
  }
  double left = n;
  for (std::int64_t k = 0; k < K; ++k) {
    const double a = static_cast<double>(concentration[k]);
    rest -= a;
    if (ok && k < K - 1 && !(rest > 0.0)) {
      // Rounding ate the tail's concentration: sum it afresh.
      rest = 0.0;
      for (std::int64_t j = k + 1; j < K; ++j) rest += static_cast<double>(concentration[j]);
    }
    double c = 0.0;
    if (ok && (k == K - 1 || !(rest > 0.0))) {
      c = left;
    } else if (ok && left > 0.0) {
      const double p = beta_sample<double>(s, a, rest);
      const std::int32_t b = std::isnan(p) ? kInvalidCount : binomial_sample<double>(s, left, p);
      if (b < 0) ok = false;
      c = b < 0 ? 0.0 : static_cast<double>(b);
    }
    out[k] = ok ? detail::finish_count(s, c) : kInvalidCount;
    left -= c;
  }
}

/// log Gamma(a0) + log Gamma(n + 1) - log Gamma(n + a0)
///   + sum_k [log Gamma(x_k + a_k) - log Gamma(a_k) - log Gamma(x_k + 1)],
/// -inf off the support (a negative count, or counts not summing to n).
/// In double whatever T: the differences of log-gammas cancel (a large
/// concentration would lose f32's digits).
template <class T>
AIMZ_MATH_FN T dirichlet_multinomial_log_prob(EventView<T> x, std::int64_t K, EventView<const T> concentration,
                                              EventView<const T> total_count) {
  const double n = static_cast<double>(total_count[0]);
  if (!detail::valid_total_count(n) || K <= 0) return detail::nan<T>();
  double a0 = 0.0;
  for (std::int64_t k = 0; k < K; ++k) {
    if (!detail::pos_finite(concentration[k])) return detail::nan<T>();
    a0 += static_cast<double>(concentration[k]);
  }
  double acc = log_gamma(a0) + log_gamma(n + 1.0) - log_gamma(n + a0);
  double sum = 0.0;
  bool outside = false;
  for (std::int64_t k = 0; k < K; ++k) {
    double v;
    const int c = detail::count_value(x[k], &v);
    if (c == 1) return detail::nan<T>();
    if (c == 2 || v < 0.0) {
      outside = true;
      continue;
    }
    sum += v;
    const double a = static_cast<double>(concentration[k]);
    if (v > 0.0) acc += log_gamma(v + a) - log_gamma(a) - log_gamma(v + 1.0);
  }
  if (outside || sum != n) return -detail::inf<T>();
  return static_cast<T>(acc);
}

// ------------------------------------------------------------------ Dirichlet

/// Dirichlet(concentration): normalized Gamma(concentration_k) variates,
/// formed in log space so small concentrations do not give 0/0.
template <class T>
AIMZ_MATH_FN void dirichlet_sample(RandomStream& s, std::int64_t K, EventView<T> out, EventView<const T> concentration) {
  bool ok = K > 0;
  for (std::int64_t k = 0; k < K; ++k) {
    ok = ok && detail::pos_finite(concentration[k]);
    out[k] = ok ? detail::log_std_gamma(s, concentration[k]) : detail::nan<T>();
  }
  T m = -detail::inf<T>();
  for (std::int64_t k = 0; k < K; ++k) m = out[k] > m ? out[k] : m;
  T sum = T(0);
  for (std::int64_t k = 0; k < K; ++k) sum += std::exp(out[k] - m);
  const T lse = m + std::log(sum);
  for (std::int64_t k = 0; k < K; ++k) out[k] = ok && s.ok() ? std::exp(out[k] - lse) : detail::nan<T>();
}

template <class T>
AIMZ_MATH_FN T dirichlet_log_prob(EventView<T> x, std::int64_t K, EventView<const T> concentration) {
  T total = T(0), norm = T(0), acc = T(0);
  for (std::int64_t k = 0; k < K; ++k) {
    const T a = concentration[k];
    if (!detail::pos_finite(a) || std::isnan(x[k])) return detail::nan<T>();
    total += a;
    norm += log_gamma(a);
  }
  for (std::int64_t k = 0; k < K; ++k) {
    const T v = x[k], a = concentration[k];
    if (v < T(0) || v > T(1)) return -detail::inf<T>();
    if (a != T(1)) acc += (a - T(1)) * std::log(v);  // xlogy(a - 1, v)
  }
  return acc + log_gamma(total) - norm;
}

// -------------------------------------------------------- MultivariateNormal

namespace detail {

/// NumPyro's lower_cholesky constraint: a positive finite diagonal and
/// zeros above it. A scale_tril outside it is invalid (NaN), never read as
/// its lower triangle.
template <class T>
AIMZ_MATH_FN bool lower_cholesky(std::int64_t K, EventView<const T> l) {
  bool ok = true;
  for (std::int64_t i = 0; i < K; ++i) {
    ok = ok && pos_finite(l(i, i));
    for (std::int64_t j = i + 1; j < K; ++j) ok = ok && l(i, j) == T(0);
  }
  return ok;
}

}  // namespace detail

/// MultivariateNormal(loc, scale_tril): loc + L z, summed over z in index
/// order; NaN unless L is lower triangular with a positive diagonal.
template <class T>
AIMZ_MATH_FN void multivariate_normal_sample(RandomStream& s, std::int64_t K, EventView<T> out, EventView<const T> loc,
                                             EventView<const T> scale_tril) {
  bool ok = detail::lower_cholesky<T>(K, scale_tril);
  for (std::int64_t i = 0; i < K; ++i) {
    ok = ok && std::isfinite(loc[i]);
    out[i] = loc[i];
  }
  for (std::int64_t j = 0; j < K; ++j) {
    const T z = standard_normal<T>(s);
    for (std::int64_t i = j; i < K; ++i) out[i] += scale_tril(i, j) * z;
  }
  if (!ok || !s.ok())
    for (std::int64_t i = 0; i < K; ++i) out[i] = detail::nan<T>();
}

/// Solves L y = x - loc by forward substitution in place of x (the caller
/// passes a copy) and returns -|y|^2 / 2 - sum log L_ii - K log(2 pi) / 2.
/// Row i is (x_i - loc_i) less L_ij y_j for j in order, divided by L_ii.
/// Rows go in groups of kSolveRows whose sums over the columns before the
/// group advance side by side (independent chains, not one chain's
/// latency per product), then the group's triangle row by row: the same
/// operations in the same order as one row at a time.
template <class T>
AIMZ_MATH_FN T multivariate_normal_log_prob(EventView<T> x, std::int64_t K, EventView<const T> loc,
                                            EventView<const T> scale_tril) {
  if (!detail::lower_cholesky<T>(K, scale_tril)) return detail::nan<T>();
  for (std::int64_t i = 0; i < K; ++i) {
    if (!std::isfinite(loc[i]) || std::isnan(x[i])) return detail::nan<T>();
    x[i] = x[i] - loc[i];
  }
  constexpr int kSolveRows = 8;
  T quad = T(0), logdet = T(0);
  for (std::int64_t i0 = 0; i0 < K; i0 += kSolveRows) {
    const int n = K - i0 < kSolveRows ? int(K - i0) : kSolveRows;
    T r[kSolveRows];
    for (int g = 0; g < kSolveRows; ++g) r[g] = g < n ? x[i0 + g] : T(0);
    if (n == kSolveRows)
      for (std::int64_t j = 0; j < i0; ++j) {
        const T y = x[j];
        for (int g = 0; g < kSolveRows; ++g) r[g] -= scale_tril(i0 + g, j) * y;
      }
    else
      for (int g = 0; g < n; ++g)
        for (std::int64_t j = 0; j < i0; ++j) r[g] -= scale_tril(i0 + g, j) * x[j];
    for (int g = 0; g < n; ++g) {
      const std::int64_t i = i0 + g;
      const T d = scale_tril(i, i);
      for (std::int64_t j = i0; j < i; ++j) r[g] -= scale_tril(i, j) * x[j];
      x[i] = r[g] / d;
      quad += x[i] * x[i];
      logdet += std::log(d);
    }
  }
  return T(-0.5) * quad - logdet - T(K) * T(detail::kLnSqrt2Pi);
}

/// MultivariateNormal(loc, precision_matrix), given the Cholesky factor L
/// of the precision (P = L L^T; the compiler factors it): loc + L^-T z,
/// z drawn in index order and solved by back substitution in place.
template <class T>
AIMZ_MATH_FN void multivariate_normal_precision_sample(RandomStream& s, std::int64_t K, EventView<T> out,
                                                       EventView<const T> loc, EventView<const T> precision_tril) {
  bool ok = true;
  for (std::int64_t i = 0; i < K; ++i) {
    ok = ok && std::isfinite(loc[i]) && detail::pos_finite(precision_tril(i, i));
    out[i] = standard_normal<T>(s);
  }
  for (std::int64_t i = K - 1; i >= 0; --i) {
    T r = out[i];
    for (std::int64_t j = i + 1; j < K; ++j) r -= precision_tril(j, i) * out[j];
    out[i] = r / precision_tril(i, i);
  }
  for (std::int64_t i = 0; i < K; ++i) out[i] += loc[i];
  if (!ok || !s.ok())
    for (std::int64_t i = 0; i < K; ++i) out[i] = detail::nan<T>();
}

/// With r = x - loc (in place of x, a copy): -|L^T r|^2 / 2 + sum log L_ii
/// - K log(2 pi) / 2, L the Cholesky factor of the precision.
template <class T>
AIMZ_MATH_FN T multivariate_normal_precision_log_prob(EventView<T> x, std::int64_t K, EventView<const T> loc,
                                                      EventView<const T> precision_tril) {
  for (std::int64_t i = 0; i < K; ++i) {
    if (!detail::pos_finite(precision_tril(i, i)) || !std::isfinite(loc[i]) || std::isnan(x[i]))
      return detail::nan<T>();
    x[i] -= loc[i];
  }
  T quad = T(0), logdet = T(0);
  for (std::int64_t i = 0; i < K; ++i) {
    T w = T(0);
    for (std::int64_t j = i; j < K; ++j) w += precision_tril(j, i) * x[j];
    quad += w * w;
    logdet += std::log(precision_tril(i, i));
  }
  return T(-0.5) * quad + logdet - T(K) * T(detail::kLnSqrt2Pi);
}

namespace detail {

/// NumPyro's positive_definite constraint asks for a symmetric matrix; a
/// factor of its lower triangle alone would silently mean another matrix.
/// Entries may differ by rounding (sqrt(eps) relative), not more.
template <class T> AIMZ_MATH_FN T symmetry_tolerance() {
  // sqrt of the unit roundoff, written out (numeric_limits is host-only
  // under nvcc; Config.h).
  return sizeof(T) == 4 ? T(3.4526698e-4) : T(1.4901161193847656e-8);
}

/// a(i, j) and a(j, i) equal up to tol relative (false when either is NaN).
template <class T> AIMZ_MATH_FN bool nearly_equal(T x, T y, T tol) {
  return std::fabs(x - y) <= tol * std::fmax(std::fabs(x), std::fabs(y));
}

template <class T>
AIMZ_MATH_FN bool symmetric(std::int64_t K, EventView<const T> a) {
  const T tol = symmetry_tolerance<T>();
  bool ok = true;
  for (std::int64_t i = 0; i < K; ++i)
    for (std::int64_t j = 0; j < i; ++j) ok = ok && nearly_equal<T>(a(i, j), a(j, i), tol);
  return ok;
}

}  // namespace detail

/// Cholesky factor of a symmetric positive-definite matrix (lower
/// triangle read, lower factor written, upper triangle zeroed); NaN
/// everywhere when the matrix is not symmetric or not positive definite.
/// Every entry follows one sequence of operations: a(i, j) less
/// l(i, t) l(j, t) for t = 0, 1, ..., j - 1 in that order (each a
/// multiply-add the target fuses or not), then divided by l(j, j), or its
/// square root on the diagonal. The blocked factor of large matrices on the
/// CPU (BlockedCholesky.h) runs the same sequence in another loop order, so
/// both give the same bits, and the GPU's copy of this loop too.
template <class T>
AIMZ_MATH_FN void cholesky(std::int64_t K, EventView<const T> a, EventView<T> l) {
  bool ok = detail::symmetric<T>(K, a);
  for (std::int64_t j = 0; j < K && ok; ++j) {
    T d = a(j, j);
    for (std::int64_t t = 0; t < j; ++t) d -= l(j, t) * l(j, t);
    ok = d > T(0) && std::isfinite(d);
    const T ljj = std::sqrt(d);
    l(j, j) = ljj;
    for (std::int64_t i = j + 1; i < K; ++i) {
      T r = a(i, j);
      for (std::int64_t t = 0; t < j; ++t) r -= l(i, t) * l(j, t);
      l(i, j) = r / ljj;
      l(j, i) = T(0);
    }
  }
  if (!ok)
    for (std::int64_t i = 0; i < K; ++i)
      for (std::int64_t j = 0; j < K; ++j) l(i, j) = detail::nan<T>();
}

/// Inverse of a square matrix by Gauss-Jordan elimination with partial
/// pivoting on `work` (a copy of a), the row operations applied to the
/// identity in `inv`; NaN everywhere when a pivot is 0 or not finite (a
/// singular matrix, or one with non-finite entries).
template <class T>
AIMZ_MATH_FN void inverse(std::int64_t K, EventView<const T> a, EventView<T> inv,
                          EventView<T> work) {
  for (std::int64_t i = 0; i < K; ++i)
    for (std::int64_t j = 0; j < K; ++j) {
      work(i, j) = a(i, j);
      inv(i, j) = T(i == j);
    }
  bool ok = true;
  for (std::int64_t k = 0; k < K && ok; ++k) {
    std::int64_t p = k;
    for (std::int64_t i = k + 1; i < K; ++i)
      if (std::fabs(work(i, k)) > std::fabs(work(p, k)))
        p = i;
    const T pivot = work(p, k);
    ok = pivot != T(0) && std::isfinite(pivot);
    if (!ok)
      break;
    for (std::int64_t j = 0; j < K; ++j) {
      const T w = work(k, j), v = inv(k, j);
      work(k, j) = work(p, j) / pivot;
      inv(k, j) = inv(p, j) / pivot;
      if (p != k) {
        work(p, j) = w;
        inv(p, j) = v;
      }
    }
    for (std::int64_t i = 0; i < K; ++i) {
      const T f = work(i, k);
      if (i == k || f == T(0))
        continue;
      for (std::int64_t j = 0; j < K; ++j) {
        work(i, j) -= f * work(k, j);
        inv(i, j) -= f * inv(k, j);
      }
    }
  }
  if (!ok)
    for (std::int64_t i = 0; i < K; ++i)
      for (std::int64_t j = 0; j < K; ++j) inv(i, j) = detail::nan<T>();
}

// ---------------------------------------------------------------- LKJCholesky

/// LKJCholesky(dimension = K, concentration) by the onion method
/// (Lewandowski, Kurowicka and Joe 2009, section 3.2), as NumPyro's default:
/// row i > 0 is sqrt(y) u with y ~ Beta(i / 2, eta + (K - 2) / 2 - (i - 1) / 2)
/// and u uniform on the sphere, and sqrt(1 - y) on the diagonal.
template <class T>
AIMZ_MATH_FN void lkj_cholesky_sample(RandomStream& s, std::int64_t K, EventView<T> out,
                                      EventView<const T> concentration) {
  const T eta = concentration[0];
  const bool ok = detail::pos_finite(eta) && K >= 2;
  const T marginal = eta + T(0.5) * T(K - 2);
  for (std::int64_t i = 0; i < K; ++i)
    for (std::int64_t j = 0; j < K; ++j) out(i, j) = T(0);
  out(0, 0) = T(1);
  for (std::int64_t i = 1; i < K && ok; ++i) {
    const T offset = T(0.5) * T(i - 1);
    const T y = beta_sample(s, offset + T(0.5), marginal - offset);
    T norm = T(0);
    for (std::int64_t j = 0; j < i; ++j) {
      const T z = standard_normal<T>(s);
      out(i, j) = z;
      norm += z * z;
    }
    const T scale = std::sqrt(y) / std::sqrt(norm);
    for (std::int64_t j = 0; j < i; ++j) out(i, j) *= scale;
    out(i, i) = std::sqrt(T(1) - y);
  }
  if (!ok || !s.ok())
    for (std::int64_t i = 0; i < K; ++i)
      for (std::int64_t j = 0; j < K; ++j) out(i, j) = detail::nan<T>();
}

/// The density of the Cholesky factor L of a K x K correlation matrix, as
namespace detail {
/// The LKJ density's log normalizer (K - 1) / 2 log pi + log Gamma_{K-1}(eta
/// + (K - 2) / 2) - (K - 1) log Gamma(eta + (K - 1) / 2), shared by LKJ and
/// LKJCholesky.
AIMZ_MATH_FN double lkj_log_normalizer(double eta, std::int64_t K) {
  const double dm1 = double(K - 1), alpha = eta + 0.5 * dm1;
  // log Gamma_{K-1}(alpha - 1/2): the multivariate gamma function.
  double multigamma = 0.25 * dm1 * (dm1 - 1.0) * std::log(kPi);
  for (std::int64_t j = 1; j <= K - 1; ++j) multigamma += log_gamma(alpha - 0.5 + 0.5 * (1.0 - double(j)));
  return 0.5 * dm1 * std::log(kPi) + multigamma - dm1 * log_gamma(alpha);
}
}  // namespace detail

/// NumPyro's LKJCholesky.log_prob: sum_{i >= 1} (2 (eta - 1) + K - 1 - i)
/// log L_ii (the LKJ density times the Jacobian of L -> L L^T) minus the
/// log normalizer (K - 1) / 2 log pi + log Gamma_{K-1}(eta + (K - 2) / 2)
/// - (K - 1) log Gamma(eta + (K - 1) / 2). Off the support (a diagonal
/// entry not positive, an entry above it not 0, a row not of unit length
/// to 1e-4 relative): -inf. In double whatever T.
template <class T>
AIMZ_MATH_FN T lkj_cholesky_log_prob(EventView<T> x, std::int64_t K, EventView<const T> concentration) {
  const double eta = static_cast<double>(concentration[0]);
  if (!detail::pos_finite(eta) || K < 2) return detail::nan<T>();
  auto l = [&](std::int64_t i, std::int64_t j) { return static_cast<double>(x(i, j)); };
  bool outside = false;
  double acc = 0.0;
  for (std::int64_t i = 0; i < K; ++i) {
    double norm = 0.0;
    for (std::int64_t j = 0; j < K; ++j) {
      const double v = l(i, j);
      if (std::isnan(v)) return detail::nan<T>();
      if (j > i && v != 0.0) outside = true;
      if (j <= i) norm += v * v;
    }
    if (!(l(i, i) > 0.0) || std::fabs(norm - 1.0) > 1e-4) outside = true;
    if (i >= 1 && !outside) acc += (2.0 * (eta - 1.0) + double(K - 1 - i)) * std::log(l(i, i));
  }
  if (outside) return -detail::inf<T>();
  return static_cast<T>(acc - detail::lkj_log_normalizer(eta, K));
}

// ---------------------------------------------------------------- Composites

namespace detail {
template <class R> AIMZ_MATH_FN R invalid_value() { return nan<R>(); }
template <> AIMZ_MATH_FN std::int32_t invalid_value<std::int32_t>() { return kInvalidCount; }
}  // namespace detail

/// MixtureSameFamily(Categorical(logits=...), Component(...)): component k
/// with probability softmax(logits)_k, then `draw(s, k)` from it (the same
/// stream continues). A Categorical(probs=p) mixing distribution arrives
/// as logits log(p).
template <class T, class R, class Draw>
AIMZ_MATH_FN void mixture_sample(RandomStream& s, std::int64_t K, EventView<R> out, EventView<const T> logits,
                                 Draw draw) {
  std::int32_t k = kInvalidCount;
  categorical_logits_sample(s, K, EventView<std::int32_t>{&k, 0, 0}, logits);
  out[0] = k < 0 ? detail::invalid_value<R>() : draw(s, static_cast<std::int64_t>(k));
}

/// logsumexp_k(log_softmax(logits)_k + log_prob(k)), as NumPyro's
/// MixtureSameFamily.log_prob; one pass with a running maximum.
template <class T, class LogProb>
AIMZ_MATH_FN T mixture_log_prob(std::int64_t K, EventView<const T> logits, LogProb log_prob) {
  T lse;
  if (!detail::logsumexp_vec(K, logits, &lse)) return detail::nan<T>();
  T m = -detail::inf<T>(), sum = T(0);
  for (std::int64_t k = 0; k < K; ++k) {
    const T v = logits[k] - lse + log_prob(k);
    if (std::isnan(v)) return detail::nan<T>();
    if (v == -detail::inf<T>()) continue;
    if (v > m) {
      sum = sum * std::exp(m - v) + T(1);
      m = v;
    } else {
      sum += std::exp(v - m);
    }
  }
  return m == -detail::inf<T>() ? m : m + std::log(sum);
}

/// TransformedDistribution(Base[K], OrderedTransform()): y_0 = x_0 and
/// y_k = y_{k-1} + exp(x_k) for base draws x_k = draw(s, k).
template <class T, class Draw> AIMZ_MATH_FN void ordered_sample(RandomStream& s, std::int64_t K, EventView<T> out, Draw draw) {
  for (std::int64_t k = 0; k < K; ++k) {
    const T x = draw(s, k);
    out[k] = k == 0 ? x : out[k - 1] + std::exp(x);
  }
}

}  // namespace math
}  // namespace aimz
