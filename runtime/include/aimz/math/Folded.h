// NumPyro's FoldedDistribution(base): the absolute value of a draw from a
// univariate base on the whole real line (FoldedDistributions.def lists
// them). Its density at x >= 0 is f(x) + f(-x), taken as
// logaddexp(log f(x), log f(-x)) as NumPyro takes it (so at 0 it is
// log 2 + log f(0)); below 0 it is -inf. A draw is |draw of the base|, so
// it uses the base's random numbers and is as reproducible as the base.
// Its CDF is the base's mass on [-x, x] (FoldedCdf), so a folded base
// truncates and censors as the bases of CdfDistributions.def do.
#pragma once

#include "aimz/math/Cdf.h"
#include "aimz/math/ClosedFormFamilies.h"
#include "aimz/math/Elementary.h"
#include "aimz/math/RealLineFamilies.h"
#include "aimz/math/Samplers.h"
#include "aimz/math/LogDensity.h"

namespace aimz {
namespace math {
namespace detail {

template <class T> AIMZ_MATH_FN T folded_log_prob(T x, T at_x, T at_minus_x) {
  if (x != x) return nan<T>();
  if (x < T(0)) return -inf<T>();
  if (at_x != at_x || at_minus_x != at_minus_x) return nan<T>();
  T hi = at_x > at_minus_x ? at_x : at_minus_x;
  T lo = at_x > at_minus_x ? at_minus_x : at_x;
  if (hi == -inf<T>()) return hi;
  return hi + log1p(exp(lo - hi));
}

/// The CDF of |X| from the base's (B, a CdfDistributions.def base) and the
/// base's log density: S(x) = S_B(x) + F_B(-x) and F(x) = F_B(x) - F_B(-x),
/// the difference taken between the smaller tails (the upper ones where
/// F_B(-x) is above 1/2), or as 1 - S(x) where F(x) is above 1/2. Quantiles
/// by bisection (tail_quantile).
template <class B, class Pdf> struct FoldedCdf {
  B base;
  Pdf base_log_pdf;
  AIMZ_MATH_FN bool valid() const { return base.valid(); }
  AIMZ_MATH_FN double lo() const { return 0.0; }
  AIMZ_MATH_FN double hi() const { return inf<double>(); }
  AIMZ_MATH_FN double log_sf(double x) const {
    LogSum S;
    S.add(base.log_sf(x));
    S.add(base.log_cdf(-x));
    return S.value();
  }
  AIMZ_MATH_FN double log_cdf(double x) const {
    const double ls = log_sf(x);
    if (ls < -kLn2) return log1m_exp_d(ls);
    const double below = base.log_cdf(-x);
    if (below > -kLn2) return log_diff_exp_d(base.log_sf(-x), base.log_sf(x));
    return log_diff_exp_d(base.log_cdf(x), below);
  }
  AIMZ_MATH_FN double lower(double) const { return nan<double>(); }
  AIMZ_MATH_FN double upper(double) const { return nan<double>(); }
  AIMZ_MATH_FN double log_pdf(double x) const {
    return folded_log_prob<double>(x, base_log_pdf(x), base_log_pdf(-x));
  }
};

template <class B, class Pdf> AIMZ_MATH_FN FoldedCdf<B, Pdf> folded_cdf(B base, Pdf pdf) {
  return FoldedCdf<B, Pdf>{base, pdf};
}

}  // namespace detail

#define AIMZ_FOLDED_PARAMS_2(T) T a, T b
#define AIMZ_FOLDED_PARAMS_3(T) T a, T b, T c
#define AIMZ_FOLDED_ARGS_2 a, b
#define AIMZ_FOLDED_ARGS_3 a, b, c
#define AIMZ_FOLDABLE(SYM, ARITY, CARITY, CDF, SAMPLE, LOG_PROB)                                    \
  template <class T>                                                                                \
  AIMZ_MATH_FN T folded_##SYM##_sample(RandomStream& s, AIMZ_FOLDED_PARAMS_##ARITY(T)) {          \
    T x = SAMPLE<T>(s, AIMZ_FOLDED_ARGS_##ARITY);                                                   \
    return x < T(0) ? -x : x;                                                                       \
  }                                                                                                 \
  template <class T>                                                                                \
  AIMZ_MATH_FN T folded_##SYM##_log_prob(T x, AIMZ_FOLDED_PARAMS_##ARITY(T)) {                    \
    return detail::folded_log_prob<T>(x, LOG_PROB<T>(x, AIMZ_FOLDED_ARGS_##ARITY),                  \
                                      LOG_PROB<T>(-x, AIMZ_FOLDED_ARGS_##ARITY));                   \
  }                                                                                                 \
  template <class T> AIMZ_MATH_FN auto folded_##SYM##_cdf(AIMZ_FOLDED_PARAMS_##ARITY(T)) {         \
    return detail::folded_cdf(CDF<T>(AIMZ_FOLDED_ARGS_##ARITY),                                     \
                              [=](double v) { return LOG_PROB<double>(v, AIMZ_FOLDED_ARGS_##ARITY); }); \
  }
#include "aimz/math/FoldedDistributions.def"
#undef AIMZ_FOLDED_PARAMS_2
#undef AIMZ_FOLDED_PARAMS_3
#undef AIMZ_FOLDED_ARGS_2
#undef AIMZ_FOLDED_ARGS_3

}  // namespace math
}  // namespace aimz
