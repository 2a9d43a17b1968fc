// Censored likelihoods (survival analysis) over CdfDistributions.def's
// continuous rows, in two forms:
//
//   censored_<base>(params..., lower, upper)   PyMC's Censored(dist, lower,
//       upper): a value at `lower` scores log F(lower), at `upper` log
//       S(upper), between them the base's density, outside -inf; a draw is
//       the base's draw clipped to [lower, upper], as PyMC draws it.
//   flagged_<base>(params..., left, right)     NumPyro's
//       LeftCensoredDistribution / RightCensoredDistribution(base,
//       censored=c): where `left` is non-zero the value scores log F(x),
//       where `right` is non-zero log S(x), else the base's density; a draw
//       is the base's own (NumPyro's sample ignores the indicator).
//   interval_<base>(params..., left, right)    NumPyro's
//       IntervalCensoredDistribution(base, left_censored, right_censored),
//       an event distribution (EventDistributions.def's convention) whose
//       value is (lower, upper): log F(upper) where only `left` is non-zero,
//       log S(lower) where only `right`, log(F(lower) + S(upper)) (outside
//       the interval) where both, and where neither log(F(upper) -
//       F(lower)), or the density at a point interval (lower and upper equal
//       to NumPyro's isclose). A reversed interval is NaN. A draw is the
//       point interval (x, x) of a base draw x.
//
// Over counts (CdfDistributions.def's AIMZ_COUNT_FAMILY rows) the
// truncation truncated_<base> (TruncatedCounts.h) and the same three forms, with the tails of a discrete law: log F(k) = log
// P(X <= k), log S(k) = log P(X > k) (NumPyro's right censoring, Stan's
// _lccdf), a value at PyMC's `upper` scored log P(X >= upper) (PyMC adds
// the bound's own mass for a discrete base), and a PyMC bound that is not
// a whole number (or infinite) NaN, as is a draw clipped to it.
//
// The tails are Cdf.h's, computed without cancellation, so a far-censored
// value scores its true log tail where NumPyro clips F at 100 tiny.
//
// The AIMZ_CDF_FAMILY rows (families whose every derived form comes from
// their CDF) also get truncated_<base>(params..., low, high) here: draws
// by inverting the CDF on the side where it does not cancel, the density
// normalized by the interval's mass (TruncatedByCdf.h).
#pragma once

#include "aimz/math/BoundedFamilies.h"
#include "aimz/math/Cdf.h"
#include "aimz/math/Circular.h"
#include "aimz/math/EventDistributions.h"
#include "aimz/math/Folded.h"
#include "aimz/math/PositiveFamilies.h"
#include "aimz/math/RealLineFamilies.h"

namespace aimz {
namespace math {
namespace detail {

template <class T> AIMZ_MATH_FN T censor_draw(T x, T lower, T upper) {
  if (lower != lower || upper != upper || lower > upper) return nan<T>();
  return x < lower ? lower : (x > upper ? upper : x);
}

template <class T, class B, class Density>
AIMZ_MATH_FN T censored_log_prob(T x, T lower, T upper, const B& base, Density density) {
  if (x != x || lower != lower || upper != upper || lower > upper || !base.valid()) return nan<T>();
  if (x < lower || x > upper) return -inf<T>();
  if (x == lower && lower > -inf<T>()) return log_cdf_of<T>(base, x);
  if (x == upper && upper < inf<T>()) return log_ccdf_of<T>(base, x);
  return density();
}

template <class T, class B, class Density>
AIMZ_MATH_FN T flagged_log_prob(T x, T left, T right, const B& base, Density density) {
  if (left != left || right != right || (left != T(0) && right != T(0))) return nan<T>();
  if (left != T(0)) return log_cdf_of<T>(base, x);
  if (right != T(0)) return log_ccdf_of<T>(base, x);
  return density();
}

/// log P(lower < X <= upper) for lower < upper, either end possibly past
/// the support.
template <class T, class B> AIMZ_MATH_FN T log_interval_of(const B& base, T lower, T upper) {
  if (double(lower) <= base.lo()) return log_cdf_of<T>(base, upper);
  if (double(upper) >= base.hi()) return log_ccdf_of<T>(base, lower);
  return T(log_interval_mass(base, double(lower), double(upper)));
}

template <class T, class B, class Density>
AIMZ_MATH_FN T interval_log_prob(EventView<T> x, T left, T right, const B& base, Density density) {
  const T lower = x[0], upper = x[1];
  if (lower != lower || upper != upper || left != left || right != right || !base.valid()) return nan<T>();
  if (left != T(0) && right == T(0)) return log_cdf_of<T>(base, upper);
  if (right != T(0) && left == T(0)) return log_ccdf_of<T>(base, lower);
  // NumPyro's jnp.isclose(lower, upper): a point, scored by the density.
  const bool point = std::fabs(double(lower) - double(upper)) <= 1e-8 + 1e-5 * std::fabs(double(upper));
  if (left == T(0) && point) return density(lower);
  if (lower > upper) return nan<T>();
  if (left == T(0)) return log_interval_of<T>(base, lower, upper);
  // Both: outside the interval, F(lower) + S(upper).
  return T(log_add_exp(double(log_cdf_of<T>(base, lower)), double(log_ccdf_of<T>(base, upper))));
}

/// A PyMC bound on counts: a whole number or infinite.
template <class T> AIMZ_MATH_FN bool count_bound_ok(T b) { return std::isinf(b) || std::floor(b) == b; }

template <class T> AIMZ_MATH_FN std::int32_t censor_count_draw(std::int32_t k, T lower, T upper) {
  if (!count_bound_ok(lower) || !count_bound_ok(upper) || lower > upper || k == kInvalidCount) return kInvalidCount;
  if (double(k) < double(lower)) return lower < T(2147483647.0) ? std::int32_t(lower) : kInvalidCount;
  if (double(k) > double(upper)) return std::int32_t(upper);
  return k;
}

template <class T, class B, class Density>
AIMZ_MATH_FN T censored_count_log_prob(T x, T lower, T upper, const B& base, Density density) {
  if (x != x || !count_bound_ok(lower) || !count_bound_ok(upper) || lower > upper || !base.valid()) return nan<T>();
  if (x < lower || x > upper) return -inf<T>();
  if (x == lower && lower > -inf<T>()) return log_cdf_of<T>(base, x);
  if (x == upper && upper < inf<T>()) return log_ccdf_of<T>(base, T(double(x) - 1.0));
  return density();
}

template <class T> AIMZ_MATH_FN void point_interval(EventView<T> out, T x) {
  out[0] = x;
  out[1] = x;
}

}  // namespace detail

#define AIMZ_CENSORED_PARAMS_1(T) T a
#define AIMZ_CENSORED_PARAMS_2(T) T a, T b
#define AIMZ_CENSORED_PARAMS_3(T) T a, T b, T c
#define AIMZ_CENSORED_ARGS_1 a
#define AIMZ_CENSORED_ARGS_2 a, b
#define AIMZ_CENSORED_ARGS_3 a, b, c
#define AIMZ_INTERVAL_PARAMS_1(T) EventView<const T> a
#define AIMZ_INTERVAL_PARAMS_2(T) EventView<const T> a, EventView<const T> b
#define AIMZ_INTERVAL_PARAMS_3(T) EventView<const T> a, EventView<const T> b, EventView<const T> c
#define AIMZ_INTERVAL_ARGS_1 a[0]
#define AIMZ_INTERVAL_ARGS_2 a[0], b[0]
#define AIMZ_INTERVAL_ARGS_3 a[0], b[0], c[0]
#define AIMZ_INTERVAL(SYM, ARITY, CDF, SAMPLE, LOG_PROB)                                                        \
  template <class T>                                                                                             \
  AIMZ_MATH_FN void interval_##SYM##_sample(RandomStream& s, std::int64_t, EventView<T> out,                    \
                                            AIMZ_INTERVAL_PARAMS_##ARITY(T), EventView<const T>,                \
                                            EventView<const T>) {                                                \
    detail::point_interval<T>(out, SAMPLE<T>(s, AIMZ_INTERVAL_ARGS_##ARITY));                                   \
  }                                                                                                              \
  template <class T>                                                                                             \
  AIMZ_MATH_FN T interval_##SYM##_log_prob(EventView<T> x, std::int64_t, AIMZ_INTERVAL_PARAMS_##ARITY(T),       \
                                           EventView<const T> left, EventView<const T> right) {                 \
    return detail::interval_log_prob<T>(x, left[0], right[0], CDF<T>(AIMZ_INTERVAL_ARGS_##ARITY),               \
                                        [&](T v) { return LOG_PROB<T>(v, AIMZ_INTERVAL_ARGS_##ARITY); });       \
  }
#define AIMZ_CENSORABLE(SYM, ARITY, CARITY, CDF, SAMPLE, LOG_PROB)                                              \
  AIMZ_INTERVAL(SYM, ARITY, CDF, SAMPLE, LOG_PROB)                                                               \
  template <class T>                                                                                             \
  AIMZ_MATH_FN T censored_##SYM##_sample(RandomStream& s, AIMZ_CENSORED_PARAMS_##ARITY(T), T lower, T upper) { \
    return detail::censor_draw(SAMPLE<T>(s, AIMZ_CENSORED_ARGS_##ARITY), lower, upper);                         \
  }                                                                                                              \
  template <class T>                                                                                             \
  AIMZ_MATH_FN T censored_##SYM##_log_prob(T x, AIMZ_CENSORED_PARAMS_##ARITY(T), T lower, T upper) {          \
    return detail::censored_log_prob<T>(x, lower, upper, CDF<T>(AIMZ_CENSORED_ARGS_##ARITY),                    \
                                        [&] { return LOG_PROB<T>(x, AIMZ_CENSORED_ARGS_##ARITY); });           \
  }                                                                                                              \
  template <class T>                                                                                             \
  AIMZ_MATH_FN T flagged_##SYM##_sample(RandomStream& s, AIMZ_CENSORED_PARAMS_##ARITY(T), T, T) {              \
    return SAMPLE<T>(s, AIMZ_CENSORED_ARGS_##ARITY);                                                             \
  }                                                                                                              \
  template <class T>                                                                                             \
  AIMZ_MATH_FN T flagged_##SYM##_log_prob(T x, AIMZ_CENSORED_PARAMS_##ARITY(T), T left, T right) {             \
    return detail::flagged_log_prob<T>(x, left, right, CDF<T>(AIMZ_CENSORED_ARGS_##ARITY),                      \
                                       [&] { return LOG_PROB<T>(x, AIMZ_CENSORED_ARGS_##ARITY); });            \
  }
#define AIMZ_DOUBLE_ARGS_1 double(a)
#define AIMZ_DOUBLE_ARGS_2 double(a), double(b)
#define AIMZ_DOUBLE_ARGS_3 double(a), double(b), double(c)
#define AIMZ_COUNT_FAMILY(SYM, ARITY, CARITY, CDF, SAMPLE, LOG_PROB)                                       \
  template <class T>                                                                                             \
  AIMZ_MATH_FN std::int32_t truncated_##SYM##_sample(RandomStream& s, AIMZ_CENSORED_PARAMS_##ARITY(T), T low,   \
                                                     T high) {                                                   \
    return detail::truncated_count_sample(s, CDF<double>(AIMZ_DOUBLE_ARGS_##ARITY).counts, low, high,           \
                                          [&] { return SAMPLE<double>(s, AIMZ_DOUBLE_ARGS_##ARITY); });         \
  }                                                                                                              \
  template <class T, class X>                                                                                    \
  AIMZ_MATH_FN T truncated_##SYM##_log_prob(X x, AIMZ_CENSORED_PARAMS_##ARITY(T), T low, T high) {             \
    return detail::truncated_count_log_prob<T>(LOG_PROB<double, X>(x, AIMZ_DOUBLE_ARGS_##ARITY), x,             \
                                               CDF<double>(AIMZ_DOUBLE_ARGS_##ARITY).counts, low, high);        \
  }                                                                                                              \
  template <class T>                                                                                             \
  AIMZ_MATH_FN void interval_##SYM##_sample(RandomStream& s, std::int64_t, EventView<std::int32_t> out,         \
                                            AIMZ_INTERVAL_PARAMS_##ARITY(T), EventView<const T>,                \
                                            EventView<const T>) {                                                \
    detail::point_interval<std::int32_t>(out, SAMPLE<T>(s, AIMZ_INTERVAL_ARGS_##ARITY));                        \
  }                                                                                                              \
  template <class T>                                                                                             \
  AIMZ_MATH_FN T interval_##SYM##_log_prob(EventView<T> x, std::int64_t, AIMZ_INTERVAL_PARAMS_##ARITY(T),       \
                                           EventView<const T> left, EventView<const T> right) {                 \
    return detail::interval_log_prob<T>(x, left[0], right[0], CDF<T>(AIMZ_INTERVAL_ARGS_##ARITY),               \
                                        [&](T v) { return LOG_PROB<T, T>(v, AIMZ_INTERVAL_ARGS_##ARITY); });    \
  }                                                                                                              \
  template <class T>                                                                                             \
  AIMZ_MATH_FN std::int32_t censored_##SYM##_sample(RandomStream& s, AIMZ_CENSORED_PARAMS_##ARITY(T), T lower,  \
                                                    T upper) {                                                   \
    return detail::censor_count_draw(SAMPLE<T>(s, AIMZ_CENSORED_ARGS_##ARITY), lower, upper);                   \
  }                                                                                                              \
  template <class T, class X>                                                                                    \
  AIMZ_MATH_FN T censored_##SYM##_log_prob(X x, AIMZ_CENSORED_PARAMS_##ARITY(T), T lower, T upper) {          \
    return detail::censored_count_log_prob<T>(T(x), lower, upper, CDF<T>(AIMZ_CENSORED_ARGS_##ARITY),           \
                                              [&] { return LOG_PROB<T, X>(x, AIMZ_CENSORED_ARGS_##ARITY); });  \
  }                                                                                                              \
  template <class T>                                                                                             \
  AIMZ_MATH_FN std::int32_t flagged_##SYM##_sample(RandomStream& s, AIMZ_CENSORED_PARAMS_##ARITY(T), T, T) {    \
    return SAMPLE<T>(s, AIMZ_CENSORED_ARGS_##ARITY);                                                             \
  }                                                                                                              \
  template <class T, class X>                                                                                    \
  AIMZ_MATH_FN T flagged_##SYM##_log_prob(X x, AIMZ_CENSORED_PARAMS_##ARITY(T), T left, T right) {             \
    return detail::flagged_log_prob<T>(T(x), left, right, CDF<T>(AIMZ_CENSORED_ARGS_##ARITY),                   \
                                       [&] { return LOG_PROB<T, X>(x, AIMZ_CENSORED_ARGS_##ARITY); });         \
  }
#define AIMZ_CDF_FAMILY(SYM, ARITY, CARITY, CDF, SAMPLE, LOG_PROB)                                            \
  template <class T>                                                                                            \
  AIMZ_MATH_FN T truncated_##SYM##_sample(RandomStream& s, AIMZ_CENSORED_PARAMS_##ARITY(T), T low, T high) {  \
    return detail::truncated_cdf_sample(s, CDF<T>(AIMZ_CENSORED_ARGS_##ARITY), low, high);                     \
  }                                                                                                             \
  template <class T>                                                                                            \
  AIMZ_MATH_FN T truncated_##SYM##_log_prob(T x, AIMZ_CENSORED_PARAMS_##ARITY(T), T low, T high) {           \
    return detail::truncated_cdf_log_prob(double(LOG_PROB<double>(x, AIMZ_CENSORED_ARGS_##ARITY)), x,          \
                                          CDF<T>(AIMZ_CENSORED_ARGS_##ARITY), low, high);                      \
  }                                                                                                             \
  AIMZ_CENSORABLE(SYM, ARITY, CARITY, CDF, SAMPLE, LOG_PROB)
#include "aimz/math/CdfDistributions.def"
#undef AIMZ_CENSORED_PARAMS_1
#undef AIMZ_CENSORED_PARAMS_2
#undef AIMZ_CENSORED_PARAMS_3
#undef AIMZ_CENSORED_ARGS_1
#undef AIMZ_CENSORED_ARGS_2
#undef AIMZ_CENSORED_ARGS_3
#undef AIMZ_INTERVAL_PARAMS_1
#undef AIMZ_INTERVAL_PARAMS_2
#undef AIMZ_INTERVAL_PARAMS_3
#undef AIMZ_INTERVAL_ARGS_1
#undef AIMZ_INTERVAL_ARGS_2
#undef AIMZ_INTERVAL_ARGS_3
#undef AIMZ_INTERVAL
#undef AIMZ_DOUBLE_ARGS_1
#undef AIMZ_DOUBLE_ARGS_2
#undef AIMZ_DOUBLE_ARGS_3

}  // namespace math
}  // namespace aimz
