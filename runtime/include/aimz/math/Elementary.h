// Branch-free exp, log, log1p, tanh and cos(2 pi u) for generated kernels.
//
// Written as straight-line arithmetic with selects so that LLVM vectorizes
// loops that call them, and so that a value is bit-for-bit the same whether
// it is computed in a vector lane or in a scalar remainder loop, on the CPU
// or on the GPU (glibc's libmvec differs from its scalar libm in the last
// bit, which would make results depend on how the work was split).
// Algorithms: Cephes (exp), FreeBSD msun / fdlibm (log), Kahan's log1p
// correction; errors within about 1 ulp (tested in ElementaryTest.cpp).
#pragma once

#include "aimz/math/Config.h"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

namespace aimz {
namespace math {
namespace elementary {

namespace detail {

AIMZ_MATH_FN float asFloat(std::uint32_t U) {
  float F;
  std::memcpy(&F, &U, sizeof F);
  return F;
}
AIMZ_MATH_FN std::uint32_t asBits(float F) {
  std::uint32_t U;
  std::memcpy(&U, &F, sizeof U);
  return U;
}
AIMZ_MATH_FN double asDouble(std::uint64_t U) {
  double D;
  std::memcpy(&D, &U, sizeof D);
  return D;
}
AIMZ_MATH_FN std::uint64_t asBits(double D) {
  std::uint64_t U;
  std::memcpy(&U, &D, sizeof U);
  return U;
}

// INFINITY / NAN (from <cmath>) rather than std::numeric_limits, whose
// members are host-only constexpr functions under nvcc (as in Config.h).
template <class T> AIMZ_MATH_FN T infinity() {
  return static_cast<T>(INFINITY);
}
template <class T> AIMZ_MATH_FN T quietNaN() {
  return static_cast<T>(NAN);
}

/// 2^N for N in [-126, 127].
AIMZ_MATH_FN float pow2(std::int32_t N) {
  return asFloat(static_cast<std::uint32_t>(N + 127) << 23);
}
/// 2^N for N in [-1022, 1023].
AIMZ_MATH_FN double pow2(std::int64_t N) {
  return asDouble(static_cast<std::uint64_t>(N + 1023) << 52);
}

} // namespace detail

// exp -----------------------------------------------------------------------

AIMZ_MATH_FN float exp(float X) {
  using namespace detail;
  const float Hi = 88.72283935546875f, Lo = -103.97207708f;
  float C = X > Hi ? Hi : (X < Lo ? Lo : X);
  float N = std::nearbyint(C * 1.44269504088896341f);
  float R = C - N * 0.693359375f;
  R = R - N * -2.12194440e-4f;
  float R2 = R * R;
  float P = 1.9875691500E-4f;
  P = P * R + 1.3981999507E-3f;
  P = P * R + 8.3334519073E-3f;
  P = P * R + 4.1665795894E-2f;
  P = P * R + 1.6666665459E-1f;
  P = P * R + 5.0000001201E-1f;
  P = P * R2 + R + 1.0f;
  // Two scalings keep 2^N representable down to the subnormal range.
  std::int32_t K = static_cast<std::int32_t>(N);
  std::int32_t K1 = K / 2;
  float Y = P * pow2(K1) * pow2(K - K1);
  Y = X > Hi ? infinity<float>() : Y;
  Y = X < Lo ? 0.0f : Y;
  return X != X ? X : Y;
}

AIMZ_MATH_FN double exp(double X) {
  using namespace detail;
  const double Hi = 709.782712893383973, Lo = -745.2;
  double C = X > Hi ? Hi : (X < Lo ? Lo : X);
  double N = std::nearbyint(C * 1.4426950408889634073599);
  double R = C - N * 6.93145751953125E-1;
  R = R - N * 1.42860682030941723212E-6;
  double R2 = R * R;
  double P = 1.26177193074810590878E-4;
  P = P * R2 + 3.02994407707441961300E-2;
  P = P * R2 + 9.99999999999999999910E-1;
  P = P * R;
  double Q = 3.00198505138664455042E-6;
  Q = Q * R2 + 2.52448340349684104192E-3;
  Q = Q * R2 + 2.27265548208155028766E-1;
  Q = Q * R2 + 2.00000000000000000009E0;
  double E = 1.0 + 2.0 * (P / (Q - P));
  std::int64_t K = static_cast<std::int64_t>(N);
  std::int64_t K1 = K / 2;
  double Y = E * pow2(K1) * pow2(K - K1);
  Y = X > Hi ? infinity<double>() : Y;
  Y = X < Lo ? 0.0 : Y;
  return X != X ? X : Y;
}

// log -----------------------------------------------------------------------

namespace detail {

/// log(Xs) - Shift * log(2) for a positive, finite, normal Xs: the
/// polynomial core of log (Shift undoes a subnormal's rescaling).
AIMZ_MATH_FN float logNormal(float Xs, int Shift) {
  std::uint32_t Bits = asBits(Xs);
  std::int32_t E = static_cast<std::int32_t>(Bits >> 23) - 127 - Shift;
  // Mantissa in [sqrt(1/2), sqrt(2)).
  std::uint32_t MBits = (Bits & 0x007fffffu) | 0x3f800000u;
  float M = asFloat(MBits);
  bool Big = M > 1.41421356f;
  M = Big ? M * 0.5f : M;
  E = Big ? E + 1 : E;
  float F = M - 1.0f;
  float S = F / (2.0f + F);
  float Z = S * S, W = Z * Z;
  float T1 = W * (0.40000972152f + W * 0.24279078841f);
  float T2 = Z * (0.66666662693f + W * 0.28498786688f);
  float R = T2 + T1;
  float Hfsq = 0.5f * F * F;
  float Dk = static_cast<float>(E);
  return Dk * 6.9313812256e-01f -
         ((Hfsq - (S * (Hfsq + R) + Dk * 9.0580006145e-06f)) - F);
}

AIMZ_MATH_FN double logNormal(double Xs, int Shift) {
  std::uint64_t Bits = asBits(Xs);
  std::int64_t E = static_cast<std::int64_t>(Bits >> 52) - 1023 - Shift;
  std::uint64_t MBits =
      (Bits & 0x000fffffffffffffull) | 0x3ff0000000000000ull;
  double M = asDouble(MBits);
  bool Big = M > 1.4142135623730951;
  M = Big ? M * 0.5 : M;
  E = Big ? E + 1 : E;
  double F = M - 1.0;
  double S = F / (2.0 + F);
  double Z = S * S, W = Z * Z;
  double T1 = W * (3.999999999940941908e-01 +
                   W * (2.222219843214978396e-01 + W * 1.531383769920937332e-01));
  double T2 =
      Z * (6.666666666666735130e-01 +
           W * (2.857142874366239149e-01 +
                W * (1.818357216161805012e-01 + W * 1.479819860511658591e-01)));
  double R = T2 + T1;
  double Hfsq = 0.5 * F * F;
  double Dk = static_cast<double>(E);
  return Dk * 6.93147180369123816490e-01 -
         ((Hfsq - (S * (Hfsq + R) + Dk * 1.90821492927058770002e-10)) - F);
}

} // namespace detail

AIMZ_MATH_FN float log(float X) {
  using namespace detail;
  // Subnormals: scale into the normal range first.
  bool Sub = X < 1.17549435e-38f;
  float Y = logNormal(Sub ? X * 16777216.0f : X, Sub ? 24 : 0);
  Y = X == 0.0f ? -infinity<float>() : Y;
  Y = X < 0.0f ? quietNaN<float>() : Y;
  Y = X == infinity<float>() ? X : Y;
  return X != X ? X : Y;
}

AIMZ_MATH_FN double log(double X) {
  using namespace detail;
  bool Sub = X < 2.2250738585072014e-308;
  double Y = logNormal(Sub ? X * 18014398509481984.0 : X, Sub ? 54 : 0); // 2^54
  Y = X == 0.0 ? -infinity<double>() : Y;
  Y = X < 0.0 ? quietNaN<double>() : Y;
  Y = X == infinity<double>() ? X : Y;
  return X != X ? X : Y;
}

/// log(U) for a uniform draw U in (0, 1) (never 0, never subnormal):
/// log's bits without its special cases, for the samplers' hot paths.
template <class T> AIMZ_MATH_FN T log_uniform(T U) {
  return detail::logNormal(U, 0);
}

// log1p: log(1 + x) without losing x's digits when |x| is small -------------

template <class T> AIMZ_MATH_FN T log1p(T X) {
  T U = T(1) + X;
  T D = U - T(1);
  // Kahan: log(u) * x / (u - 1) corrects the rounding of 1 + x.
  T Y = log(U) * (X / (D == T(0) ? T(1) : D));
  Y = D == T(0) ? X : Y;
  Y = U == detail::infinity<T>() ? U : Y;
  return X != X ? X : Y;
}

// tanh ----------------------------------------------------------------------
//
// Large |x|: 1 - 2 / (e^{2|x|} + 1), free of cancellation once |x| >= 0.625;
// small |x|: Cephes' odd polynomial (float) or rational function (double).

AIMZ_MATH_FN float tanh(float X) {
  float A = X < 0.0f ? -X : X;
  float Big = 1.0f - 2.0f / (exp(2.0f * A) + 1.0f);
  float Z = A * A;
  float P = -5.70498872745E-3f;
  P = P * Z + 2.06390887954E-2f;
  P = P * Z + -5.37397155531E-2f;
  P = P * Z + 1.33314422036E-1f;
  P = P * Z + -3.33332819422E-1f;
  float Small = A + A * Z * P;
  float Y = A < 0.625f ? Small : Big;
  Y = X < 0.0f ? -Y : Y;
  return X != X ? X : Y;
}

AIMZ_MATH_FN double tanh(double X) {
  double A = X < 0.0 ? -X : X;
  double Big = 1.0 - 2.0 / (exp(2.0 * A) + 1.0);
  double Z = A * A;
  double P = -9.64399179425052238628E-1;
  P = P * Z + -9.92877231001918586564E1;
  P = P * Z + -1.61468768441708447952E3;
  double Q = Z + 1.12811678491632931402E2;
  Q = Q * Z + 2.23548839060100448583E3;
  Q = Q * Z + 4.84406305325125486048E3;
  double Small = A + A * Z * (P / Q);
  double Y = A < 0.625 ? Small : Big;
  Y = X < 0.0 ? -Y : Y;
  return X != X ? X : Y;
}

// cos(2 pi u) for u in [0, 1] -----------------------------------------------
//
// The angle of Box-Muller's normal draws: the uniform is already the
// fraction of a turn, so no range reduction is needed.

namespace detail {

/// sin(2 pi t) for |t| <= 1/4, by its Taylor series: branch-free.
AIMZ_MATH_FN float sin2piQuarter(float Tt) {
  float Z = Tt * Tt;
  return Tt * (6.283185307179586f + Z * (-41.341702240399755f + Z * (81.60524927607504f + Z * (-76.70585975306136f + Z * (42.058693944897634f + Z * (-15.094642576822984f + Z * (3.8199525848482803f)))))));
}

AIMZ_MATH_FN double sin2piQuarter(double Tt) {
  double Z = Tt * Tt;
  return Tt * (6.283185307179586 + Z * (-41.341702240399755 + Z * (81.60524927607504 + Z * (-76.70585975306136 + Z * (42.058693944897634 + Z * (-15.094642576822984 + Z * (3.8199525848482803 + Z * (-0.7181223017785001 + Z * (0.10422916220813978 + Z * (-0.012031585942120619 + Z * (0.0011309237482517954)))))))))));
}

} // namespace detail

/// cos(2 pi u) = sin(2 pi t), t = |u - 1/2| - 1/4 in [-1/4, 1/4] (exact for
/// u in [0, 1]).
template <class T> AIMZ_MATH_FN T cos2pi(T U) {
  return detail::sin2piQuarter(std::fabs(U - T(0.5)) - T(0.25));
}

/// tan(pi w) for w in (-1/2, 1/2), branch-free and accurate up to the
/// poles: sin(pi |w|) / cos(pi |w|) with cos(pi |w|) = sin(pi (1/2 - |w|)),
/// whose argument is exact where it is small (|w| >= 1/4).
template <class T> AIMZ_HOT_FN T tanpi(T W) {
  T A = std::fabs(W);
  T Y = detail::sin2piQuarter(A * T(0.5)) /
        detail::sin2piQuarter((T(0.5) - A) * T(0.5));
  return W < T(0) ? -Y : Y;
}

} // namespace elementary
} // namespace math
} // namespace aimz
