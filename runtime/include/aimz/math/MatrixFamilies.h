// Distributions of positive-definite matrices and their Cholesky factors,
// with NumPyro's parameters, through EventDistributions.def's strided views.
// The compiler passes the scale as its lower Cholesky factor L (a
// scale_matrix factored, a rate_matrix inverted and factored, as NumPyro's
// cholesky_of_inverse); nu is the concentration, p the matrix size K.
//
//   WishartCholesky(nu, L)         L A, A the Bartlett factor: lower, A_ii =
//                                  sqrt(chi2(nu - i)), A_ij ~ N(0, 1)
//   Wishart(nu, L)                 (L A)(L A)^T
//   InverseWishartCholesky(nu, L)  L B^-1, B lower with B_ii =
//                                  sqrt(chi2(nu - p + 1 + i)), B_ij ~ N(0, 1)
//   InverseWishart(nu, L)          (L B^-1)(L B^-1)^T
//
// nu must exceed p - 1 (NaN otherwise). Densities are NumPyro's: the
// factor's carries the Jacobian of C -> C C^T, p log 2 + sum (p - i) log
// C_ii. A value off the support (a factor not lower triangular with a
// positive diagonal; a matrix not symmetric to the model's rounding or not
// positive definite) has density 0 (-inf). Densities are computed in
// double: the factor in a 16 x 16 stack scratch (the triangular solve of
// the trace term kept above its diagonal), in the value's copy beyond.
#pragma once

#include "aimz/math/EventDistributions.h"

namespace aimz {
namespace math {
namespace detail {

/// Bartlett's lower factor in `out`: the diagonal sqrt(chi2(nu + shift +
/// step i)) for i < K, then the entries below it N(0, 1), row by row;
/// zeros above.
template <class T>
AIMZ_MATH_FN void bartlett_factor(RandomStream& s, std::int64_t K, EventView<T> out, double first_df, double step) {
  for (std::int64_t i = 0; i < K; ++i) {
    const double df = first_df + step * double(i);
    out(i, i) = T(std::sqrt(2.0 * gamma_sample<double>(s, 0.5 * (df > 0.0 ? df : 1.0), 1.0)));
  }
  for (std::int64_t i = 0; i < K; ++i)
    for (std::int64_t j = 0; j < K; ++j)
      if (j < i) out(i, j) = standard_normal<T>(s);
      else if (j > i) out(i, j) = T(0);
}

/// out := L out for lower triangular L and out, in place: row i of the
/// product reads rows <= i of out's column, so rows go bottom up.
template <class T>
AIMZ_MATH_FN void lower_times_lower(std::int64_t K, EventView<const T> l, EventView<T> out) {
  for (std::int64_t i = K - 1; i >= 0; --i)
    for (std::int64_t j = 0; j <= i; ++j) {
      double c = 0.0;
      for (std::int64_t k = j; k <= i; ++k) c += double(l(i, k)) * double(out(k, j));
      out(i, j) = T(c);
    }
}

/// The inverse of a lower triangular matrix with a non-zero diagonal, in
/// place, column by column: column j reads the columns after it unchanged.
template <class T> AIMZ_MATH_FN void invert_lower(std::int64_t K, EventView<T> b) {
  for (std::int64_t j = 0; j < K; ++j) {
    b(j, j) = T(1.0 / double(b(j, j)));
    for (std::int64_t i = j + 1; i < K; ++i) {
      double c = 0.0;
      for (std::int64_t k = j; k < i; ++k) c += double(b(i, k)) * double(b(k, j));
      b(i, j) = T(-c / double(b(i, i)));
    }
  }
}

/// C C^T of the lower factor C in `out`, in place: the upper triangle
/// first (C is read from the lower), then the diagonal, then mirrored.
template <class T> AIMZ_MATH_FN void gram_in_place(std::int64_t K, EventView<T> out) {
  for (std::int64_t i = 1; i < K; ++i)
    for (std::int64_t j = 0; j < i; ++j) {
      double c = 0.0;
      for (std::int64_t k = 0; k <= j; ++k) c += double(out(i, k)) * double(out(j, k));
      out(j, i) = T(c);
    }
  for (std::int64_t i = 0; i < K; ++i) {
    double c = 0.0;
    for (std::int64_t k = 0; k <= i; ++k) c += double(out(i, k)) * double(out(i, k));
    out(i, i) = T(c);
  }
  for (std::int64_t i = 0; i < K; ++i)
    for (std::int64_t j = 0; j < i; ++j) out(i, j) = out(j, i);
}

/// |A^-1 B|_F^2 for lower triangular A and B read through a(i, j) and
/// b(i, j) (lower triangles only): Z = A^-1 B by forward substitution,
/// Z_ij (i > j) kept by keep(j, i, Z_ij) in the work matrix `z` above its
/// diagonal, the diagonal Z_jj = B_jj / A_jj.
template <class A, class B, class Z, class Keep>
AIMZ_MATH_FN double tri_solve_norm2(std::int64_t K, const A& a, const B& b, const Z& z, Keep keep) {
  double acc = 0.0;
  for (std::int64_t j = 0; j < K; ++j) {
    const double zjj = b(j, j) / a(j, j);
    acc += zjj * zjj;
    for (std::int64_t i = j + 1; i < K; ++i) {
      double c = b(i, j) - a(i, j) * zjj;
      for (std::int64_t k = j + 1; k < i; ++k) c -= a(i, k) * z(j, k);
      const double v = c / a(i, i);
      keep(j, i, v);
      acc += v * v;
    }
  }
  return acc;
}

/// log Gamma_p(a) = p (p - 1) / 4 log pi + sum_{j < p} lgamma(a - j / 2).
AIMZ_MATH_FN double log_multigamma(double a, std::int64_t p) {
  double acc = 0.25 * double(p) * double(p - 1) * kLnPi;
  for (std::int64_t j = 0; j < p; ++j) acc += log_gamma(a - 0.5 * double(j));
  return acc;
}

/// nu finite and above p - 1, L a lower Cholesky factor.
template <class T>
AIMZ_MATH_FN bool wishart_params(std::int64_t K, double nu, EventView<const T> l) {
  return std::isfinite(nu) && nu > double(K - 1) && K >= 1 && lower_cholesky<T>(K, l);
}

/// The value's factor C (lower triangle) and the trace solve's Z (above
/// it) in double: a stack scratch up to 16 x 16 (a near-singular matrix
/// factored in f32 loses everything), the value's own copy beyond.
template <class T> struct FactorWork {
  static constexpr std::int64_t kScratch = 16;
  EventView<T> x;
  double* d;  // kScratch x kScratch, or null: x itself
  AIMZ_MATH_FN double operator()(std::int64_t i, std::int64_t j) const {
    return d ? d[i * kScratch + j] : double(x(i, j));
  }
  AIMZ_MATH_FN void set(std::int64_t i, std::int64_t j, double v) const {
    if (d) d[i * kScratch + j] = v;
    else x(i, j) = T(v);
  }
};

/// The value as a factor, copied to the work matrix: NaN (-1), off the
/// support (0: not lower triangular with a positive diagonal), or a factor
/// (1).
template <class T> AIMZ_MATH_FN int factor_value(std::int64_t K, EventView<T> x, const FactorWork<T>& w) {
  bool lower = true;
  for (std::int64_t i = 0; i < K; ++i)
    for (std::int64_t j = 0; j < K; ++j) {
      if (std::isnan(x(i, j))) return -1;
      lower = lower && (j < i || (j == i ? x(i, i) > T(0) && std::isfinite(x(i, i)) : x(i, j) == T(0)));
      if (j <= i) w.set(i, j, double(x(i, j)));
    }
  return lower ? 1 : 0;
}

/// The Cholesky factor of x's lower triangle, in double, into the work
/// matrix (in place when it is x: each entry is read before it is
/// written); its log determinant, -inf when x is not positive definite.
template <class T> AIMZ_MATH_FN double factor_into(std::int64_t K, EventView<T> x, const FactorWork<T>& w) {
  double log_det = 0.0;
  for (std::int64_t j = 0; j < K; ++j) {
    double d = double(x(j, j));
    for (std::int64_t k = 0; k < j; ++k) d -= w(j, k) * w(j, k);
    if (!(d > 0.0) || !std::isfinite(d)) return -inf<double>();
    const double root = std::sqrt(d);
    log_det += 2.0 * std::log(root);
    w.set(j, j, root);
    for (std::int64_t i = j + 1; i < K; ++i) {
      double v = double(x(i, j));
      for (std::int64_t k = 0; k < j; ++k) v -= w(i, k) * w(j, k);
      w.set(i, j, v / root);
    }
  }
  return log_det;
}

/// The matrix value factored into the work matrix: -1 NaN, 0 off the
/// support (not symmetric, or not positive definite), 1 factored.
template <class T> AIMZ_MATH_FN int factor_matrix_value(std::int64_t K, EventView<T> x, const FactorWork<T>& w) {
  for (std::int64_t i = 0; i < K; ++i)
    for (std::int64_t j = 0; j < K; ++j)
      if (std::isnan(x(i, j))) return -1;
  if (!symmetric<T>(K, EventView<const T>{x.p, x.s0, x.s1})) return 0;
  return factor_into<T>(K, x, w) > -inf<double>() ? 1 : 0;
}

/// sum_i (first + step i) log C_ii.
template <class W> AIMZ_MATH_FN double weighted_log_diag(std::int64_t K, const W& c, double first, double step) {
  double acc = 0.0;
  for (std::int64_t i = 0; i < K; ++i) acc += (first + step * double(i)) * std::log(c(i, i));
  return acc;
}

template <class T> AIMZ_MATH_FN double log_det_tril(std::int64_t K, EventView<const T> l) {
  double acc = 0.0;
  for (std::int64_t i = 0; i < K; ++i) acc += std::log(double(l(i, i)));
  return acc;
}

/// WishartCholesky's log density at the factor C in the work matrix (the
/// part above its diagonal is overwritten): (nu - p - 1) sum log C_ii -
/// |L^-1 C|^2 / 2 + p (1 - nu / 2) log 2 - log Gamma_p(nu / 2) - nu sum
/// log L_ii + sum (p - i) log C_ii.
template <class T>
AIMZ_MATH_FN double wishart_factor_log_prob(const FactorWork<T>& c, std::int64_t K, double nu,
                                            EventView<const T> l) {
  const double trace = tri_solve_norm2(
      K, [&](std::int64_t i, std::int64_t j) { return double(l(i, j)); }, c, c,
      [&](std::int64_t i, std::int64_t j, double v) { c.set(i, j, v); });
  return weighted_log_diag(K, c, nu - 1.0, -1.0) - 0.5 * trace + double(K) * (1.0 - 0.5 * nu) * kLn2 -
         log_multigamma(0.5 * nu, K) - nu * log_det_tril<T>(K, l);
}

/// InverseWishartCholesky's, likewise: nu sum log L_ii + p (1 - nu / 2)
/// log 2 - log Gamma_p(nu / 2) - sum (nu + 1 + i) log C_ii - |C^-1 L|^2 / 2.
template <class T>
AIMZ_MATH_FN double inverse_wishart_factor_log_prob(const FactorWork<T>& c, std::int64_t K, double nu,
                                                    EventView<const T> l) {
  const double trace = tri_solve_norm2(
      K, c, [&](std::int64_t i, std::int64_t j) { return double(l(i, j)); }, c,
      [&](std::int64_t i, std::int64_t j, double v) { c.set(i, j, v); });
  return nu * log_det_tril<T>(K, l) + double(K) * (1.0 - 0.5 * nu) * kLn2 - log_multigamma(0.5 * nu, K) -
         weighted_log_diag(K, c, nu + 1.0, 1.0) - 0.5 * trace;
}

/// The Jacobian of C -> C C^T: p log 2 + sum (p - i) log C_ii.
template <class W> AIMZ_MATH_FN double cholesky_jacobian(std::int64_t K, const W& c) {
  return double(K) * kLn2 + weighted_log_diag(K, c, double(K), -1.0);
}

/// One of the four densities: the value read as a factor (Cholesky) or
/// factored (a matrix), then the factor's density (Inverse: the inverse
/// Wishart's), less the Jacobian for a matrix.
template <bool Cholesky, bool Inverse, class T>
AIMZ_MATH_FN T wishart_family_log_prob(EventView<T> x, std::int64_t K, EventView<const T> concentration,
                                       EventView<const T> scale_tril) {
  const double nu = double(concentration[0]);
  if (!wishart_params<T>(K, nu, scale_tril)) return nan<T>();
  double scratch[FactorWork<T>::kScratch * FactorWork<T>::kScratch];
  const FactorWork<T> w{x, K <= FactorWork<T>::kScratch ? scratch : nullptr};
  const int v = Cholesky ? factor_value<T>(K, x, w) : factor_matrix_value<T>(K, x, w);
  if (v <= 0) return v < 0 ? nan<T>() : -inf<T>();
  const double jacobian = Cholesky ? 0.0 : cholesky_jacobian(K, w);
  const double lp = Inverse ? inverse_wishart_factor_log_prob<T>(w, K, nu, scale_tril)
                            : wishart_factor_log_prob<T>(w, K, nu, scale_tril);
  return T(lp - jacobian);
}

template <class T> AIMZ_MATH_FN void fill_nan(std::int64_t K, EventView<T> out) {
  for (std::int64_t i = 0; i < K; ++i)
    for (std::int64_t j = 0; j < K; ++j) out(i, j) = nan<T>();
}

}  // namespace detail

// ---------------------------------------------------------------- Wishart

template <class T>
AIMZ_MATH_FN void wishart_cholesky_sample(RandomStream& s, std::int64_t K, EventView<T> out,
                                          EventView<const T> concentration, EventView<const T> scale_tril) {
  const double nu = double(concentration[0]);
  const bool ok = detail::wishart_params<T>(K, nu, scale_tril);
  detail::bartlett_factor<T>(s, K, out, nu, -1.0);
  detail::lower_times_lower<T>(K, scale_tril, out);
  if (!ok || !s.ok()) detail::fill_nan<T>(K, out);
}

template <class T>
AIMZ_MATH_FN void wishart_sample(RandomStream& s, std::int64_t K, EventView<T> out, EventView<const T> concentration,
                                 EventView<const T> scale_tril) {
  wishart_cholesky_sample<T>(s, K, out, concentration, scale_tril);
  detail::gram_in_place<T>(K, out);
}

template <class T>
AIMZ_MATH_FN T wishart_cholesky_log_prob(EventView<T> x, std::int64_t K, EventView<const T> concentration,
                                         EventView<const T> scale_tril) {
  return detail::wishart_family_log_prob<true, false, T>(x, K, concentration, scale_tril);
}

template <class T>
AIMZ_MATH_FN T wishart_log_prob(EventView<T> x, std::int64_t K, EventView<const T> concentration,
                                EventView<const T> scale_tril) {
  return detail::wishart_family_log_prob<false, false, T>(x, K, concentration, scale_tril);
}

// --------------------------------------------------------- InverseWishart

template <class T>
AIMZ_MATH_FN void inverse_wishart_cholesky_sample(RandomStream& s, std::int64_t K, EventView<T> out,
                                                  EventView<const T> concentration, EventView<const T> scale_tril) {
  const double nu = double(concentration[0]);
  const bool ok = detail::wishart_params<T>(K, nu, scale_tril);
  detail::bartlett_factor<T>(s, K, out, nu - double(K) + 1.0, 1.0);
  detail::invert_lower<T>(K, out);
  detail::lower_times_lower<T>(K, scale_tril, out);
  if (!ok || !s.ok()) detail::fill_nan<T>(K, out);
}

template <class T>
AIMZ_MATH_FN void inverse_wishart_sample(RandomStream& s, std::int64_t K, EventView<T> out,
                                         EventView<const T> concentration, EventView<const T> scale_tril) {
  inverse_wishart_cholesky_sample<T>(s, K, out, concentration, scale_tril);
  detail::gram_in_place<T>(K, out);
}

template <class T>
AIMZ_MATH_FN T inverse_wishart_cholesky_log_prob(EventView<T> x, std::int64_t K, EventView<const T> concentration,
                                                 EventView<const T> scale_tril) {
  return detail::wishart_family_log_prob<true, true, T>(x, K, concentration, scale_tril);
}

template <class T>
AIMZ_MATH_FN T inverse_wishart_log_prob(EventView<T> x, std::int64_t K, EventView<const T> concentration,
                                        EventView<const T> scale_tril) {
  return detail::wishart_family_log_prob<false, true, T>(x, K, concentration, scale_tril);
}

}  // namespace math
}  // namespace aimz
