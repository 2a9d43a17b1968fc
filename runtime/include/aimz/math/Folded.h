// NumPyro's FoldedDistribution(base): the absolute value of a draw from a
// univariate base on the whole real line (FoldedDistributions.def lists
// them). Its density at x >= 0 is f(x) + f(-x), taken as
// logaddexp(log f(x), log f(-x)) as NumPyro takes it (so at 0 it is
// log 2 + log f(0)); below 0 it is -inf. A draw is |draw of the base|, so
// it uses the base's random numbers and is as reproducible as the base.
#pragma once

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

}  // namespace detail

#define AIMZ_FOLDED_PARAMS_2(T) T a, T b
#define AIMZ_FOLDED_PARAMS_3(T) T a, T b, T c
#define AIMZ_FOLDED_ARGS_2 a, b
#define AIMZ_FOLDED_ARGS_3 a, b, c
#define AIMZ_FOLDABLE(SYM, ARITY, SAMPLE, LOG_PROB)                                                 \
  template <class T>                                                                                \
  AIMZ_MATH_FN T folded_##SYM##_sample(RandomStream& s, AIMZ_FOLDED_PARAMS_##ARITY(T)) {          \
    T x = SAMPLE<T>(s, AIMZ_FOLDED_ARGS_##ARITY);                                                   \
    return x < T(0) ? -x : x;                                                                       \
  }                                                                                                 \
  template <class T>                                                                                \
  AIMZ_MATH_FN T folded_##SYM##_log_prob(T x, AIMZ_FOLDED_PARAMS_##ARITY(T)) {                    \
    return detail::folded_log_prob<T>(x, LOG_PROB<T>(x, AIMZ_FOLDED_ARGS_##ARITY),                  \
                                      LOG_PROB<T>(-x, AIMZ_FOLDED_ARGS_##ARITY));                   \
  }
#include "aimz/math/FoldedDistributions.def"
#undef AIMZ_FOLDED_PARAMS_2
#undef AIMZ_FOLDED_PARAMS_3
#undef AIMZ_FOLDED_ARGS_2
#undef AIMZ_FOLDED_ARGS_3

}  // namespace math
}  // namespace aimz
