// NumPyro's GaussianCopula(marginal_dist, correlation_matrix= |
// correlation_cholesky=) over every continuous base with a CDF
// (CdfDistributions.def's AIMZ_CENSORABLE rows), as the event distribution
// copula_<base>(params..., scale_tril) of EventDistributions.def: the
// base's parameters vary along the event (the marginal's last batch axis),
// scale_tril is the correlation's Cholesky factor L.
//
//   draw      z = L e (MultivariateNormal's draw at loc 0), x_i = F_i^-1(
//             Phi(z_i)), the quantile found from log Phi(z_i) or log
//             Phi(-z_i), whichever is the tail, so the tails keep their
//             digits
//   density   sum_i log f_i(x_i) + log N(q | 0, L L^T) + |q|^2 / 2 + K
//             log(2 pi) / 2 with q_i = Phi^-1(F_i(x_i)), again from the
//             smaller tail (NumPyro clamps F to [eps, 1 - eps] first)
//
// A value outside a marginal's support scores -inf, one at a pole of a
// marginal's density (a Beta's 0 below concentration 1) +inf, as
// NumPyro's; invalid parameters or a factor that is not lower triangular
// with a positive diagonal give NaN.
#pragma once

#include "aimz/math/Censored.h"
#include "aimz/math/EventDistributions.h"

namespace aimz {
namespace math {
namespace detail {

/// The base's quantile at standard normal z: Newton's method on the
/// logarithm of the tail z lies in, kept in a bracket (bisect_quantile).
template <class B, class Pdf> AIMZ_MATH_FN double copula_quantile(const B& base, Pdf log_pdf, double z) {
  if (z <= 0.0) return tail_quantile<false>(base, log_pdf, log_ndtr(z), base.lo(), base.hi());
  return tail_quantile<true>(base, log_pdf, log_ndtr(-z), base.lo(), base.hi());
}

/// Phi^-1(F(x)) from the smaller of log F(x) and log S(x).
template <class B> AIMZ_MATH_FN double copula_normal_score(const B& base, double x) {
  const double lc = base.log_cdf(x), ls = base.log_sf(x);
  return lc < ls ? -normal_isf_log_any(lc) : normal_isf_log_any(ls);
}

/// The copula's part of the density once the marginals are scored: q (in
/// place of x, a copy) solved by L y = q; -|y|^2 / 2 - sum log L_ii +
/// |q|^2 / 2.
template <class T>
AIMZ_MATH_FN double copula_log_density(EventView<T> q, std::int64_t K, EventView<const T> scale_tril) {
  double quad = 0.0, norm2 = 0.0, logdet = 0.0;
  for (std::int64_t i = 0; i < K; ++i) {
    double r = double(q[i]);
    norm2 += r * r;
    for (std::int64_t j = 0; j < i; ++j) r -= double(scale_tril(i, j)) * double(q[j]);
    const double y = r / double(scale_tril(i, i));
    q[i] = T(y);
    quad += y * y;
    logdet += std::log(double(scale_tril(i, i)));
  }
  return -0.5 * quad - logdet + 0.5 * norm2;
}

}  // namespace detail

#define AIMZ_COPULA_PARAMS_1(T) EventView<const T> a
#define AIMZ_COPULA_PARAMS_2(T) EventView<const T> a, EventView<const T> b
#define AIMZ_COPULA_PARAMS_3(T) EventView<const T> a, EventView<const T> b, EventView<const T> c
#define AIMZ_COPULA_ARGS_1 a[i]
#define AIMZ_COPULA_ARGS_2 a[i], b[i]
#define AIMZ_COPULA_ARGS_3 a[i], b[i], c[i]
#define AIMZ_CENSORABLE(SYM, ARITY, CARITY, CDF, SAMPLE, LOG_PROB)                                           \
  template <class T>                                                                                          \
  AIMZ_MATH_FN void copula_##SYM##_sample(RandomStream& s, std::int64_t K, EventView<T> out,                 \
                                          AIMZ_COPULA_PARAMS_##ARITY(T), EventView<const T> scale_tril) {    \
    const T zero = T(0);                                                                                      \
    multivariate_normal_sample<T>(s, K, out, EventView<const T>{&zero, 0, 0}, scale_tril);                    \
    bool ok = detail::lower_cholesky<T>(K, scale_tril);                                                       \
    for (std::int64_t i = 0; i < K; ++i) {                                                                    \
      const auto base = CDF<T>(AIMZ_COPULA_ARGS_##ARITY);                                                     \
      ok = ok && base.valid();                                                                                \
      const auto pdf = [&](double v) { return LOG_PROB<double>(v, AIMZ_COPULA_ARGS_##ARITY); };               \
      out[i] = ok ? T(detail::copula_quantile(base, pdf, double(out[i]))) : detail::nan<T>();                \
    }                                                                                                         \
    if (!ok || !s.ok())                                                                                       \
      for (std::int64_t i = 0; i < K; ++i) out[i] = detail::nan<T>();                                         \
  }                                                                                                           \
  template <class T>                                                                                          \
  AIMZ_MATH_FN T copula_##SYM##_log_prob(EventView<T> x, std::int64_t K, AIMZ_COPULA_PARAMS_##ARITY(T),     \
                                         EventView<const T> scale_tril) {                                     \
    if (!detail::lower_cholesky<T>(K, scale_tril)) return detail::nan<T>();                                   \
    double marginals = 0.0;                                                                                   \
    bool outside = false, pole = false;                                                                       \
    for (std::int64_t i = 0; i < K; ++i) {                                                                    \
      const auto base = CDF<T>(AIMZ_COPULA_ARGS_##ARITY);                                                     \
      const double lp = double(LOG_PROB<T>(x[i], AIMZ_COPULA_ARGS_##ARITY));                                 \
      if (!base.valid() || lp != lp) return detail::nan<T>();                                                 \
      outside = outside || lp == -detail::inf<double>();                                                      \
      pole = pole || lp == detail::inf<double>();                                                             \
      marginals += lp;                                                                                        \
      if (!outside && !pole) x[i] = T(detail::copula_normal_score(base, double(x[i])));                      \
    }                                                                                                         \
    if (outside || pole) return outside ? -detail::inf<T>() : detail::inf<T>();                              \
    return T(marginals + detail::copula_log_density<T>(x, K, scale_tril));                                   \
  }
#include "aimz/math/CdfDistributions.def"
#undef AIMZ_COPULA_PARAMS_1
#undef AIMZ_COPULA_PARAMS_2
#undef AIMZ_COPULA_PARAMS_3
#undef AIMZ_COPULA_ARGS_1
#undef AIMZ_COPULA_ARGS_2
#undef AIMZ_COPULA_ARGS_3

}  // namespace math
}  // namespace aimz
