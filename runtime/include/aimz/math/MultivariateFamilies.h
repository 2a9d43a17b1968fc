// Vector distributions beyond MultivariateNormal, with NumPyro's
// parameters, through EventDistributions.def's strided views:
//
//   MultivariateStudentT(df, loc, scale_tril)  loc + L z / sqrt(w), z
//                                              standard normal, w ~
//                                              Gamma(df / 2, df / 2)
//   GaussianRandomWalk(scale, num_steps)       cumulative sums of
//                                              num_steps Normal(0, scale)
//                                              steps (num_steps is the
//                                              event size K)
//   ZeroSumNormal(scale, event_shape)          K - 1 Normal(0, scale) draws
//                                              mapped to K values summing
//                                              to zero (one axis: K)
#pragma once

#include "aimz/math/EventDistributions.h"

namespace aimz {
namespace math {

// ---------------------------------------------------- MultivariateStudentT

template <class T>
AIMZ_MATH_FN void multivariate_student_t_sample(RandomStream& s, std::int64_t K, EventView<T> out,
                                                EventView<const T> df, EventView<const T> loc,
                                                EventView<const T> scale_tril) {
  const T nu = df[0];
  bool ok = detail::pos_finite(nu) && detail::lower_cholesky<T>(K, scale_tril);
  const double w = ok ? gamma_sample<double>(s, 0.5 * double(nu), 0.5 * double(nu)) : 1.0;
  const T r = T(1.0 / std::sqrt(w));
  for (std::int64_t i = 0; i < K; ++i) {
    ok = ok && std::isfinite(loc[i]);
    out[i] = loc[i];
  }
  for (std::int64_t j = 0; j < K; ++j) {
    const T z = standard_normal<T>(s) * r;
    for (std::int64_t i = j; i < K; ++i) out[i] += scale_tril(i, j) * z;
  }
  if (!ok || !s.ok() || !(w > 0.0))
    for (std::int64_t i = 0; i < K; ++i) out[i] = detail::nan<T>();
}

/// Solves L y = x - loc in place of x (a copy), then lgamma((df + K) / 2)
/// - lgamma(df / 2) - K log(df pi) / 2 - sum log L_ii - (df + K) / 2
/// log1p(|y|^2 / df), in double.
template <class T>
AIMZ_MATH_FN T multivariate_student_t_log_prob(EventView<T> x, std::int64_t K, EventView<const T> df,
                                               EventView<const T> loc, EventView<const T> scale_tril) {
  const double nu = double(df[0]);
  if (!detail::pos_finite(nu) || !detail::lower_cholesky<T>(K, scale_tril)) return detail::nan<T>();
  double quad = 0.0, logdet = 0.0;
  for (std::int64_t i = 0; i < K; ++i) {
    if (!std::isfinite(loc[i]) || std::isnan(x[i])) return detail::nan<T>();
    double r = double(x[i]) - double(loc[i]);
    for (std::int64_t j = 0; j < i; ++j) r -= double(scale_tril(i, j)) * double(x[j]);
    const double y = r / double(scale_tril(i, i));
    x[i] = T(y);
    quad += y * y;
    logdet += std::log(double(scale_tril(i, i)));
  }
  const double k = double(K);
  return T(log_gamma(0.5 * (nu + k)) - log_gamma(0.5 * nu) - 0.5 * k * (std::log(nu) + detail::kLnPi) - logdet -
           0.5 * (nu + k) * std::log1p(quad / nu));
}

// ------------------------------------------------------ GaussianRandomWalk

template <class T>
AIMZ_MATH_FN void gaussian_random_walk_sample(RandomStream& s, std::int64_t K, EventView<T> out,
                                              EventView<const T> scale) {
  const T sc = scale[0];
  const bool ok = detail::pos_finite(sc);
  T sum = T(0);
  for (std::int64_t i = 0; i < K; ++i) {
    sum += sc * standard_normal<T>(s);
    out[i] = sum;
  }
  if (!ok || !s.ok())
    for (std::int64_t i = 0; i < K; ++i) out[i] = detail::nan<T>();
}

/// Normal(0, scale) at x[0], Normal(x[i - 1], scale) at x[i].
template <class T>
AIMZ_MATH_FN T gaussian_random_walk_log_prob(EventView<T> x, std::int64_t K, EventView<const T> scale) {
  const T sc = scale[0];
  if (!detail::pos_finite(sc)) return detail::nan<T>();
  double acc = 0.0;
  for (std::int64_t i = 0; i < K; ++i) {
    const T step = x[i] - (i ? x[i - 1] : T(0));
    acc += double(normal_log_prob<T>(step, T(0), sc));
  }
  return T(acc);
}


// ----------------------------------------------------------- ZeroSumNormal

/// K - 1 Normal(0, scale) draws z extended to K values summing to zero, as
/// NumPyro's ZeroSumTransform (PyMC's): with s = sum z and c = s / (sqrt K
/// + K), x_i = z_i - c for i < K - 1 and x_{K-1} = c - s / sqrt K - c.
template <class T>
AIMZ_MATH_FN void zero_sum_normal_sample(RandomStream& s, std::int64_t K, EventView<T> out, EventView<const T> scale) {
  const T sc = scale[0];
  const bool ok = detail::pos_finite(sc) && K >= 1;
  double sum = 0.0;
  for (std::int64_t i = 0; i + 1 < K; ++i) {
    const double z = double(sc) * double(standard_normal<T>(s));
    out[i] = T(z);
    sum += z;
  }
  const double root = std::sqrt(double(K)), norm = sum / (root + double(K));
  for (std::int64_t i = 0; i + 1 < K; ++i) out[i] = T(double(out[i]) - norm);
  if (K >= 1) out[K - 1] = T(-sum / root);
  if (!ok || !s.ok())
    for (std::int64_t i = 0; i < K; ++i) out[i] = detail::nan<T>();
}

/// NumPyro's log density: the K - 1 normal terms of the transform's
/// inverse (y_i + c, c = -y_{K-1} sqrt K / (sqrt K + K)); the transform is
/// an isometry, so its Jacobian adds nothing. Off the support (a sum
/// farther from 0 than NumPyro's tolerance, 10 K eps max(1, max |x|)):
/// -inf.
template <class T>
AIMZ_MATH_FN T zero_sum_normal_log_prob(EventView<T> x, std::int64_t K, EventView<const T> scale) {
  const double sc = double(scale[0]);
  if (!detail::pos_finite(sc) || K < 1) return detail::nan<T>();
  double sum = 0.0, largest = 1.0;
  for (std::int64_t i = 0; i < K; ++i) {
    if (std::isnan(x[i])) return detail::nan<T>();
    sum += double(x[i]);
    largest = std::fabs(double(x[i])) > largest ? std::fabs(double(x[i])) : largest;
  }
  const double eps = sizeof(T) == sizeof(float) ? 1.1920928955078125e-07 : 2.220446049250313e-16;
  if (!(std::fabs(sum) <= 10.0 * double(K) * eps * largest)) return -detail::inf<T>();
  const double root = std::sqrt(double(K));
  const double c = -double(x[K - 1]) * root / (root + double(K));
  double acc = 0.0;
  for (std::int64_t i = 0; i + 1 < K; ++i) acc += normal_log_prob<double>(double(x[i]) + c, 0.0, sc);
  return T(acc);
}

}  // namespace math
}  // namespace aimz
