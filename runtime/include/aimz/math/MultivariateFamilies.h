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
//   LKJ(dimension, concentration)              the correlation matrix L L^T
//                                              of an LKJCholesky draw
//   ZeroSumNormal(scale, event_shape)          K - 1 Normal(0, scale) draws
//                                              mapped to K values summing
//                                              to zero (one axis: K)
//   ProjectedNormal(concentration)             (c + z) / |c + z|, z
//                                              standard normal: a direction
//                                              on the unit sphere in K
//                                              dimensions
//   MatrixNormal(loc, scale_tril_row,          loc + A Z B^T, Z an R x K
//                scale_tril_column)            matrix of standard normals
//                                              (drawn row by row), A and B
//                                              the two factors
#pragma once

#include "aimz/math/EventDistributions.h"
#include "aimz/math/MatrixFamilies.h"

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


// --------------------------------------------------------------------- LKJ

/// L L^T of an LKJCholesky draw, formed in place (MatrixFamilies.h), the
/// diagonal exactly 1.
template <class T>
AIMZ_MATH_FN void lkj_sample(RandomStream& s, std::int64_t K, EventView<T> out, EventView<const T> concentration) {
  lkj_cholesky_sample<T>(s, K, out, concentration);
  detail::gram_in_place<T>(K, out);
  for (std::int64_t i = 0; i < K; ++i) out(i, i) = std::isnan(out(i, i)) ? detail::nan<T>() : T(1);
}

/// NumPyro's LKJ.log_prob: LKJCholesky's density at the matrix's Cholesky
/// factor less the Jacobian of L -> L L^T, which is (concentration - 1) log
/// det C less the normalizer. The factor is formed in double
/// (MatrixFamilies.h's factor_into: a scratch up to 16 x 16, in place in
/// the value's copy beyond). Off the support (not
/// symmetric, a diagonal entry not 1 to 1e-4, or not positive definite):
/// -inf.
template <class T>
AIMZ_MATH_FN T lkj_log_prob(EventView<T> x, std::int64_t K, EventView<const T> concentration) {
  const double eta = double(concentration[0]);
  if (!detail::pos_finite(eta) || K < 2) return detail::nan<T>();
  bool outside = false;
  for (std::int64_t i = 0; i < K; ++i)
    for (std::int64_t j = 0; j <= i; ++j) {
      if (std::isnan(x(i, j)) || std::isnan(x(j, i))) return detail::nan<T>();
      if (std::fabs(double(x(i, j)) - double(x(j, i))) > 1e-4 || (i == j && std::fabs(double(x(i, i)) - 1.0) > 1e-4))
        outside = true;
    }
  if (outside) return -detail::inf<T>();
  constexpr std::int64_t kScratch = detail::FactorWork<T>::kScratch;
  double scratch[kScratch * kScratch];
  const double log_det = detail::factor_into<T>(K, x, {x, K <= kScratch ? scratch : nullptr});
  if (!(log_det > -detail::inf<double>())) return -detail::inf<T>();
  return T((eta - 1.0) * log_det - detail::lkj_log_normalizer(eta, K));
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

// --------------------------------------------------------- ProjectedNormal

template <class T>
AIMZ_MATH_FN void projected_normal_sample(RandomStream& s, std::int64_t K, EventView<T> out,
                                          EventView<const T> concentration) {
  bool ok = K >= 1;
  double norm2 = 0.0;
  for (std::int64_t i = 0; i < K; ++i) {
    ok = ok && std::isfinite(concentration[i]);
    const double v = double(concentration[i]) + double(standard_normal<T>(s));
    out[i] = T(v);
    norm2 += v * v;
  }
  const double inv = 1.0 / std::sqrt(norm2);
  for (std::int64_t i = 0; i < K; ++i) out[i] = ok && s.ok() && norm2 > 0.0 ? T(double(out[i]) * inv) : detail::nan<T>();
}

namespace detail {
/// log of the integral along the ray, int_0^inf r^(K-1) exp(-(r - t)^2 / 2)
/// dr, plus t^2 / 2 (the part of -|c|^2 / 2 the ray takes back): by the
/// recurrence I_k = t I_{k-1} + (k - 1) I_{k-2}, I_0 = sqrt(2 pi) Phi(t), I_1 =
/// exp(-t^2 / 2) + t I_0, all terms positive for t >= 0; for t < 0 on I
/// exp(t^2 / 2), which stays below 1 / |t| where I itself underflows.
AIMZ_MATH_FN double projected_normal_log_ray(double t, std::int64_t K) {
  const bool scaled = t < 0.0;
  const double log_i0 = kLnSqrt2Pi + log_ndtr(t) + (scaled ? 0.5 * t * t : 0.0);
  if (K == 1) return log_i0 + (scaled ? 0.0 : 0.5 * t * t);
  double prev = std::exp(log_i0), cur = (scaled ? 1.0 : std::exp(-0.5 * t * t)) + t * prev;
  double log_scale = 0.0;
  for (std::int64_t k = 2; k < K; ++k) {
    const double next = t * cur + double(k - 1) * prev;
    prev = cur;
    cur = next;
    if (cur > 1e250) {  // rescale: large t and K
      prev *= 1e-250;
      cur *= 1e-250;
      log_scale += 250.0 * 2.302585092994046;
    }
  }
  return std::log(cur) + log_scale + (scaled ? 0.0 : 0.5 * t * t);
}
}  // namespace detail

/// The density on the unit sphere (for every K; NumPyro has K = 2 and 3):
/// (2 pi)^(-K/2) exp(-|c|^2 / 2) int_0^inf r^(K-1) exp(-(r^2 - 2 r t) / 2)
/// dr with t = c . u. A value off the sphere (| |u| - 1 | above 1e-6, 1e-5
/// for f32): -inf.
template <class T>
AIMZ_MATH_FN T projected_normal_log_prob(EventView<T> x, std::int64_t K, EventView<const T> concentration) {
  double t = 0.0, c2 = 0.0, u2 = 0.0;
  for (std::int64_t i = 0; i < K; ++i) {
    const double c = double(concentration[i]), u = double(x[i]);
    if (!std::isfinite(c) || std::isnan(u)) return detail::nan<T>();
    t += c * u;
    c2 += c * c;
    u2 += u * u;
  }
  if (K < 1) return detail::nan<T>();
  const double tol = sizeof(T) == sizeof(float) ? 1e-5 : 1e-6;
  if (!(std::fabs(std::sqrt(u2) - 1.0) <= tol)) return -detail::inf<T>();
  return T(-double(K) * detail::kLnSqrt2Pi - 0.5 * c2 + detail::projected_normal_log_ray(t, K));
}

// ------------------------------------------------------------ MatrixNormal
//
// The value is R x K (R the rows, a count of its own: EventDistributions.def's
// AIMZ_ROWS_EVENT_DISTRIBUTION). NaN unless both factors are lower
// triangular with a positive diagonal, as MultivariateNormal's scale_tril.

template <class T>
AIMZ_MATH_FN void matrix_normal_sample(RandomStream& s, std::int64_t K, std::int64_t R, EventView<T> out,
                                       EventView<const T> loc, EventView<const T> row, EventView<const T> col) {
  bool ok = detail::lower_cholesky<T>(R, row) && detail::lower_cholesky<T>(K, col);
  for (std::int64_t i = 0; i < R; ++i)
    for (std::int64_t j = 0; j < K; ++j) out(i, j) = standard_normal<T>(s);
  // Z B^T row by row, then A (Z B^T) column by column, each in place: an
  // entry is overwritten only after the entries that read it (the
  // triangles' later rows read earlier entries, so go from the last).
  for (std::int64_t i = 0; i < R; ++i)
    for (std::int64_t j = K - 1; j >= 0; --j) {
      T acc = T(0);
      for (std::int64_t k = 0; k <= j; ++k) acc += col(j, k) * out(i, k);
      out(i, j) = acc;
    }
  for (std::int64_t j = 0; j < K; ++j)
    for (std::int64_t i = R - 1; i >= 0; --i) {
      T acc = T(0);
      for (std::int64_t k = 0; k <= i; ++k) acc += row(i, k) * out(k, j);
      ok = ok && std::isfinite(loc(i, j));
      out(i, j) = loc(i, j) + acc;
    }
  if (!ok || !s.ok())
    for (std::int64_t i = 0; i < R; ++i)
      for (std::int64_t j = 0; j < K; ++j) out(i, j) = detail::nan<T>();
}

/// Y = A^{-1} (x - loc) B^{-T} by two forward substitutions in place of x
/// (the caller passes a copy); -|Y|^2 / 2 - K log|A| - R log|B| - R K
/// log(2 pi) / 2.
template <class T>
AIMZ_MATH_FN T matrix_normal_log_prob(EventView<T> x, std::int64_t K, std::int64_t R, EventView<const T> loc,
                                      EventView<const T> row, EventView<const T> col) {
  if (!detail::lower_cholesky<T>(R, row) || !detail::lower_cholesky<T>(K, col)) return detail::nan<T>();
  for (std::int64_t j = 0; j < K; ++j)
    for (std::int64_t i = 0; i < R; ++i) {
      if (!std::isfinite(loc(i, j)) || std::isnan(x(i, j))) return detail::nan<T>();
      T r = x(i, j) - loc(i, j);
      for (std::int64_t k = 0; k < i; ++k) r -= row(i, k) * x(k, j);
      x(i, j) = r / row(i, i);
    }
  T quad = T(0);
  for (std::int64_t i = 0; i < R; ++i)
    for (std::int64_t j = 0; j < K; ++j) {
      T r = x(i, j);
      for (std::int64_t k = 0; k < j; ++k) r -= col(j, k) * x(i, k);
      x(i, j) = r / col(j, j);
      quad += x(i, j) * x(i, j);
    }
  T row_logdet = T(0), col_logdet = T(0);
  for (std::int64_t i = 0; i < R; ++i) row_logdet += std::log(row(i, i));
  for (std::int64_t j = 0; j < K; ++j) col_logdet += std::log(col(j, j));
  return T(-0.5) * quad - T(K) * row_logdet - T(R) * col_logdet - T(R) * T(K) * T(detail::kLnSqrt2Pi);
}

}  // namespace math
}  // namespace aimz
