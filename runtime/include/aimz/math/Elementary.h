// Branch-free exp, log, log1p, expm1, tanh, cos(2 pi u), tan(pi w),
// log(erfc(x)) and atan for generated kernels.
//
// Written as straight-line arithmetic with selects so that LLVM vectorizes
// loops that call them, and so that a value is bit-for-bit the same whether
// it is computed in a vector lane or in a scalar remainder loop, on the CPU
// or on the GPU (glibc's libmvec differs from its scalar libm in the last
// bit, which would make results depend on how the work was split).
// Algorithms: Cephes (exp, atan), FreeBSD msun / fdlibm (log, erfc), Kahan's
// log1p and expm1 corrections; errors within about 1 ulp (tested in ElementaryTest.cpp).
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
  // |N| <= 1076: through int32, whose conversion AVX2 has for vectors (a
  // 64-bit one it lacks, which LLVM would do lane by lane); the same value.
  std::int64_t K = static_cast<std::int32_t>(N);
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
  double Dk = static_cast<double>(static_cast<std::int32_t>(E)); // as in exp
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

// expm1: exp(x) - 1 without losing x's digits when |x| is small ----------

/// Kahan's correction, as for log1p: (e^x - 1) * x / log(e^x) cancels the
/// rounding of e^x (within a few ulps; tested in ElementaryTest.cpp).
template <class T> AIMZ_HOT_FN T expm1(T X) {
  T U = exp(X);
  T Um1 = U - T(1);
  T Y = Um1 * (X / log(U == T(1) ? T(2) : U));
  Y = U == T(1) ? X : Y;
  Y = Um1 == T(-1) ? T(-1) : Y;
  Y = U == detail::infinity<T>() ? U : Y;
  return X != X ? X : Y;
}

// log(erfc(x)) (double) -------------------------------------------------------
//
// From FreeBSD msun / fdlibm's s_erf.c: rational approximations on [0,
// 0.84375), [0.84375, 1.25), [1.25, 1/0.35) and [1/0.35, 28). One rational
// function is evaluated, its variable and coefficients selected per lane
// (fdlibm's shorter ones padded with leading zeros: the same Horner sums),
// so a vector of mixed regions costs one evaluation and one division.
// Within about 4 ulps of log(erfc) in long double.

namespace detail {

/// fdlibm's erfc pieces at x >= 0: R, its region's rational function, and
/// Z, x with its low 32 bits cleared. Below 0.84375 erf(x) = x + x R;
/// below 1.25 erfc(x) = 1 - erx - R; from there erfc(x) = exp(Big) *
/// exp(Small) / x with Big = -Z^2 - 0.5625 exact and Small = (Z - x)(Z +
/// x) + R small, so its logarithm, Big + Small - log x, keeps its
/// precision and never underflows.
struct ErfcPieces {
  bool Head, Mid; // x < 0.84375, 0.84375 <= x < 1.25
  double R, Big, Small;
};

AIMZ_HOT_FN ErfcPieces erfcPieces(double X) {
  ErfcPieces E;
  E.Head = X < 0.84375;
  E.Mid = !E.Head & (X < 1.25);
  const bool Near = X < 2.857142857142857; // 1 / 0.35
  // sel(head, mid, [1.25, 1/0.35), beyond) per coefficient.
  auto Sel = [&](double H, double M, double A, double B) {
    return E.Head ? H : (E.Mid ? M : (Near ? A : B));
  };
  // Every candidate computed, then selected: a division left under a
  // condition would stay a branch, which stops a loop vectorizing.
  const double Square = X * X, Shifted = X - 1.0, Inverse = 1.0 / Square;
  const double V = E.Head ? Square : (E.Mid ? Shifted : Inverse);
  double P = Sel(0.0, 0.0, -9.81432934416914548592e+00, 0.0);
  P = P * V + Sel(0.0, -2.16637559486879084300e-03, -8.12874355063065934246e+01, -4.83519191608651397019e+02);
  P = P * V + Sel(0.0, 3.54783043256182359371e-02, -1.84605092906711035994e+02, -1.02509513161107724954e+03);
  P = P * V + Sel(-2.37630166566501626084e-05, -1.10894694282396677476e-01, -1.62396669462573470355e+02,
                  -6.37566443368389627722e+02);
  P = P * V + Sel(-5.77027029648944159157e-03, 3.18346619901161753674e-01, -6.23753324503260060396e+01,
                  -1.60636384855821916062e+02);
  P = P * V + Sel(-2.84817495755985104766e-02, -3.72207876035701323847e-01, -1.05586262253232909814e+01,
                  -1.77579549177547519889e+01);
  P = P * V + Sel(-3.25042107247001499370e-01, 4.14856118683748331666e-01, -6.93858572707181764372e-01,
                  -7.99283237680523006574e-01);
  P = P * V + Sel(1.28379167095512558561e-01, -2.36211856075265944077e-03, -9.86494403484714822705e-03,
                  -9.86494292470009928597e-03);
  double Q = Sel(0.0, 0.0, -6.04244152148580987438e-02, 0.0);
  Q = Q * V + Sel(0.0, 0.0, 6.57024977031928170135e+00, -2.24409524465858183362e+01);
  Q = Q * V + Sel(0.0, 1.19844998467991074170e-02, 1.08635005541779435134e+02, 4.74528541206955367215e+02);
  Q = Q * V + Sel(-3.96022827877536812320e-06, 1.36370839120290507362e-02, 4.29008140027567833386e+02,
                  2.55305040643316442583e+03);
  Q = Q * V + Sel(1.32494738004321644526e-04, 1.26171219808761642112e-01, 6.45387271733267880336e+02,
                  3.19985821950859553908e+03);
  Q = Q * V + Sel(5.08130628187576562776e-03, 7.18286544141962662868e-02, 4.34565877475229228821e+02,
                  1.53672958608443695994e+03);
  Q = Q * V + Sel(6.50222499887672944485e-02, 5.40397917702171048937e-01, 1.37657754143519042600e+02,
                  3.25792512996573918826e+02);
  Q = Q * V + Sel(3.97917223959155352819e-01, 1.06420880400844228286e-01, 1.96512716674392571292e+01,
                  3.03380607434824582924e+01);
  Q = Q * V + 1.0;
  E.R = P / Q;
  const double Z = asDouble(asBits(X) & 0xffffffff00000000ull);
  E.Big = -Z * Z - 0.5625;
  E.Small = (Z - X) * (Z + X) + E.R;
  return E;
}

constexpr double kErx = 8.45062911510467529297e-01;

} // namespace detail

/// log(erfc(x)) for x >= 0, finite where erfc underflows (up to x ~ 1e154):
/// one log, of 1 - erf(x) with log1p's correction near 0 (where erfc's
/// rounding would swamp a small log), of erfc(x) up to 1.25, of x beyond.
AIMZ_HOT_FN double log_erfc_positive(double X) {
  using namespace detail;
  const ErfcPieces E = erfcPieces(X);
  const double Erf = X + X * E.R;
  const double U = 1.0 - Erf;
  const double D = U - 1.0;
  const double L = log(E.Head ? U : (E.Mid ? (1.0 - kErx) - E.R : X));
  // Kahan: log(u) (-erf) / (u - 1) corrects the rounding of 1 - erf.
  const double Head = D == 0.0 ? -Erf : L * (-Erf / D);
  const double Y = E.Head ? Head : (E.Mid ? L : (E.Big + E.Small) - L);
  return X != X ? X : (X == infinity<double>() ? -X : Y);
}

// atan (double) ----------------------------------------------------------------
//
// Cephes' atan: the argument reduced to [0, 0.66] (by (x - 1) / (x + 1)
// above 0.66, by -1 / x above tan(3 pi / 8)), both reductions selected per
// lane, then one rational function.

AIMZ_HOT_FN double atan(double X) {
  const double A = std::fabs(X);
  const bool Far = A > 2.41421356237309504880; // tan(3 pi / 8)
  const bool Mid = A > 0.66;
  const double T = Far ? -1.0 / A : (Mid ? (A - 1.0) / (A + 1.0) : A);
  const double Base = Far ? 1.57079632679489661923 : (Mid ? 0.78539816339744830962 : 0.0);
  const double More = Far ? 6.123233995736765886130e-17 : (Mid ? 3.061616997868382943065e-17 : 0.0);
  double Z = T * T;
  const double P = (((-8.750608600031904122785e-01 * Z + -1.615753718733365076637e+01) * Z +
                     -7.500855792314704667340e+01) * Z + -1.228866684490136173410e+02) * Z +
                   -6.485021904942025371773e+01;
  const double Q = ((((Z + 2.485846490142306297962e+01) * Z + 1.650270098316988542046e+02) * Z +
                     4.328810604912902668951e+02) * Z + 4.853903996359136964868e+02) * Z +
                   1.945506571482613964425e+02;
  Z = Z * P / Q;
  const double Y = Base + ((T * Z + T) + More);
  return X != X ? X : (X < 0.0 ? -Y : Y);
}

} // namespace elementary
} // namespace math
} // namespace aimz
