// Shared configuration for the header-only aimz maths library.
//
// Everything under aimz/math is meant to be inlined into generated model
// kernels, which are compiled both for host CPUs and (via clang) for NVPTX.
// Rules for code in this directory:
//   * only <cstdint>, <cmath>, <limits>, <type_traits>;
//   * no exceptions, no allocation, no global or static mutable state,
//     no static local tables (device code cannot use them portably);
//   * every free function and member function is marked AIMZ_MATH_FN.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#ifndef AIMZ_MATH_FN
#define AIMZ_MATH_FN inline
#endif

/// A function too large to inline at every call (a quadrature, a long
/// series): one copy, called. Inlined into each of the dozens of rows that
/// use it (truncation, censoring, CDFs at two precisions), Owen's T and the
/// skew normal's CDF made ptxas take minutes.
#ifndef AIMZ_MATH_OUTLINED_FN
#ifdef __CUDACC__
#define AIMZ_MATH_OUTLINED_FN __noinline__ AIMZ_MATH_FN
#else
#define AIMZ_MATH_OUTLINED_FN __attribute__((noinline)) AIMZ_MATH_FN
#endif
#endif

/// The random-number path every sampler shares (Philox, the uniforms,
/// Box-Muller): always inlined, so that a sampler inlined into a loop over
/// elements leaves straight-line code the loop vectorizer can widen.
#define AIMZ_HOT_FN AIMZ_MATH_FN __attribute__((always_inline))

namespace aimz {
namespace math {

/// Value returned by every discrete sampler when its parameters are invalid
/// (or when its random stream is unusable). It lies outside the support of
/// every discrete distribution in this library.
constexpr std::int32_t kInvalidCount = -1;

/// What a row without parameters (TruncatedPolyaGamma) takes where a
/// row's parameters go, so that the tables' call sites stay one form.
struct NoParam {};

namespace detail {

template <class T> struct IsReal : std::integral_constant<bool, std::is_same<T, float>::value || std::is_same<T, double>::value> {};

// NAN / INFINITY (from <cmath>) rather than std::numeric_limits, whose
// members are host-only constexpr functions under nvcc.
template <class T> AIMZ_MATH_FN T nan() { return static_cast<T>(NAN); }
template <class T> AIMZ_MATH_FN T inf() { return static_cast<T>(INFINITY); }

// Constants, written once in double and rounded to T.
constexpr double kPi = 3.141592653589793238462643383279502884;
constexpr double kLn2 = 0.693147180559945309417232121458176568;
constexpr double kLnPi = 1.144729885849400174143427351353058712;
constexpr double kLn2Pi = 1.837877066409345483560659472811235280;
constexpr double kLnSqrt2Pi = 0.918938533204672741780329736405617640;  // log(sqrt(2*pi))
constexpr double kLnSqrtPiOver2 = 0.225791352644727432363097614947441071;  // log(sqrt(pi/2))
constexpr double kEulerGamma = 0.577215664901532860606512090082402431;

template <class T> AIMZ_MATH_FN bool pos_finite(T x) { return x > T(0) && x < inf<T>(); }

/// total_count must be a finite non-negative integer.
template <class T> AIMZ_MATH_FN bool valid_total_count(T n) { return n >= T(0) && n < inf<T>() && std::floor(n) == n; }

template <class T> AIMZ_MATH_FN bool valid_prob(T p) { return p >= T(0) && p <= T(1); }

}  // namespace detail
}  // namespace math
}  // namespace aimz
