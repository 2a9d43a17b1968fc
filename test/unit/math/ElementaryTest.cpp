// The kernels' branch-free exp/log/log1p/tanh against the C library, in
// units in the last place, plus the special values.
#include "aimz/math/Elementary.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

namespace el = aimz::math::elementary;

namespace {

/// Distance in representable values between A and B (both finite).
template <class T> double ulps(T A, T B) {
  if (A == B)
    return 0;
  T Scale = std::abs(B) > std::numeric_limits<T>::min()
                ? std::abs(B)
                : std::numeric_limits<T>::min();
  int E;
  std::frexp(Scale, &E);
  T Ulp = std::ldexp(T(1), E - std::numeric_limits<T>::digits);
  return std::abs(static_cast<double>(A) - static_cast<double>(B)) / Ulp;
}

template <class T, class F, class G>
double maxUlps(F Mine, G Ref, T Lo, T Hi, bool LogScale, int N = 200000) {
  std::mt19937_64 Rng(7);
  std::uniform_real_distribution<double> U(0, 1);
  double Worst = 0;
  for (int I = 0; I < N; ++I) {
    double V = U(Rng);
    T X = LogScale ? static_cast<T>(std::exp(std::log(double(Lo)) +
                                             V * (std::log(double(Hi)) -
                                                  std::log(double(Lo)))))
                   : static_cast<T>(Lo + V * (Hi - Lo));
    // The reference in double (or long double) rounded to T.
    T R = Ref(X);
    if (!std::isfinite(R))
      continue;
    Worst = std::max(Worst, ulps<T>(Mine(X), R));
  }
  return Worst;
}

} // namespace

TEST(Elementary, ExpFloat) {
  auto Ref = [](float X) { return static_cast<float>(std::exp(double(X))); };
  EXPECT_LE(maxUlps<float>([](float X) { return el::exp(X); }, Ref, -87.f, 88.f, false), 1.0);
  EXPECT_LE(maxUlps<float>([](float X) { return el::exp(X); }, Ref, -103.f, -87.f, false), 1.0);
}

TEST(Elementary, ExpDouble) {
  auto Ref = [](double X) { return static_cast<double>(std::exp((long double)X)); };
  // Cephes' double exp is within 2 ulp (two roundings in the final scaling).
  EXPECT_LE(maxUlps<double>([](double X) { return el::exp(X); }, Ref, -708., 709., false), 2.0);
  EXPECT_LE(maxUlps<double>([](double X) { return el::exp(X); }, Ref, -745., -708., false), 1.0);
}

TEST(Elementary, LogFloat) {
  auto Ref = [](float X) { return static_cast<float>(std::log(double(X))); };
  auto Mine = [](float X) { return el::log(X); };
  EXPECT_LE(maxUlps<float>(Mine, Ref, 1e-44f, 3e38f, true), 1.0);
  EXPECT_LE(maxUlps<float>(Mine, Ref, 0.5f, 2.0f, false), 1.0);
}

TEST(Elementary, LogDouble) {
  auto Ref = [](double X) { return static_cast<double>(std::log((long double)X)); };
  auto Mine = [](double X) { return el::log(X); };
  EXPECT_LE(maxUlps<double>(Mine, Ref, 1e-320, 1e308, true), 1.0);
  EXPECT_LE(maxUlps<double>(Mine, Ref, 0.5, 2.0, false), 1.0);
}

TEST(Elementary, Log1p) {
  auto RefF = [](float X) { return static_cast<float>(std::log1p(double(X))); };
  auto RefD = [](double X) { return static_cast<double>(std::log1p((long double)X)); };
  EXPECT_LE(maxUlps<float>([](float X) { return el::log1p(X); }, RefF, 1e-30f, 1e30f, true), 2.0);
  EXPECT_LE(maxUlps<float>([](float X) { return el::log1p(X); }, RefF, -0.9f, 1.0f, false), 2.0);
  EXPECT_LE(maxUlps<double>([](double X) { return el::log1p(X); }, RefD, 1e-300, 1e300, true), 2.0);
  EXPECT_LE(maxUlps<double>([](double X) { return el::log1p(X); }, RefD, -0.9, 1.0, false), 2.0);
}

TEST(Elementary, Tanh) {
  auto RefF = [](float X) { return static_cast<float>(std::tanh(double(X))); };
  auto RefD = [](double X) { return static_cast<double>(std::tanh((long double)X)); };
  EXPECT_LE(maxUlps<float>([](float X) { return el::tanh(X); }, RefF, -10.f, 10.f, false), 3.0);
  EXPECT_LE(maxUlps<float>([](float X) { return el::tanh(X); }, RefF, 1e-30f, 1.f, true), 3.0);
  EXPECT_LE(maxUlps<double>([](double X) { return el::tanh(X); }, RefD, -20., 20., false), 3.0);
  EXPECT_LE(maxUlps<double>([](double X) { return el::tanh(X); }, RefD, 1e-300, 1., true), 3.0);
}

TEST(Elementary, SpecialValues) {
  const float Inf = std::numeric_limits<float>::infinity();
  const float NaN = std::numeric_limits<float>::quiet_NaN();
  EXPECT_EQ(el::exp(Inf), Inf);
  EXPECT_EQ(el::exp(-Inf), 0.0f);
  EXPECT_EQ(el::exp(1000.0f), Inf);
  EXPECT_EQ(el::exp(0.0f), 1.0f);
  EXPECT_TRUE(std::isnan(el::exp(NaN)));
  EXPECT_EQ(el::log(0.0f), -Inf);
  EXPECT_TRUE(std::isnan(el::log(-1.0f)));
  EXPECT_EQ(el::log(Inf), Inf);
  EXPECT_EQ(el::log(1.0f), 0.0f);
  EXPECT_TRUE(std::isnan(el::log(NaN)));
  EXPECT_EQ(el::log1p(-1.0f), -Inf);
  EXPECT_EQ(el::log1p(0.0f), 0.0f);
  EXPECT_EQ(el::log1p(1e-30f), 1e-30f);
  EXPECT_EQ(el::log1p(Inf), Inf);
  EXPECT_EQ(el::tanh(Inf), 1.0f);
  EXPECT_EQ(el::tanh(-Inf), -1.0f);
  EXPECT_EQ(el::tanh(0.0f), 0.0f);
  EXPECT_EQ(el::exp(710.0), std::numeric_limits<double>::infinity());
  EXPECT_EQ(el::log(0.0), -std::numeric_limits<double>::infinity());
  EXPECT_EQ(el::tanh(1e-300), 1e-300);
}

TEST(Elementary, Expm1) {
  auto RefF = [](float X) { return static_cast<float>(std::expm1(double(X))); };
  auto RefD = [](double X) { return static_cast<double>(std::expm1l(X)); };
  EXPECT_LE(maxUlps<float>([](float X) { return el::expm1(X); }, RefF, -20.f, 20.f, false), 3.0);
  EXPECT_LE(maxUlps<float>([](float X) { return el::expm1(X); }, RefF, 1e-30f, 1.f, true), 3.0);
  EXPECT_LE(maxUlps<double>([](double X) { return el::expm1(X); }, RefD, -40., 700., false), 3.0);
  EXPECT_LE(maxUlps<double>([](double X) { return el::expm1(X); }, RefD, 1e-300, 1., true), 3.0);
  EXPECT_LE(maxUlps<double>([](double X) { return el::expm1(-X); }, [](double X) { return double(std::expm1l(-X)); },
                            1e-300, 1., true),
            3.0);
  EXPECT_EQ(el::expm1(-std::numeric_limits<double>::infinity()), -1.0);
  EXPECT_EQ(el::expm1(0.0), 0.0);
  EXPECT_EQ(el::expm1(1000.0), std::numeric_limits<double>::infinity());
}

TEST(Elementary, LogErfc) {
  // Where erfc is a normal number, its logarithm; beyond, the asymptotic
  // series log(e^-x^2 / (x sqrt(pi)) (1 - 1/(2x^2) + 3/(4x^4) - ...)).
  auto Ref = [](double X) {
    return static_cast<double>(X < 0.5 ? std::log1pl(-std::erfl(X)) : std::log(std::erfcl(X)));
  };
  EXPECT_LE(maxUlps<double>([](double X) { return el::log_erfc_positive(X); }, Ref, 1e-300, 26., true), 4.0);
  EXPECT_LE(maxUlps<double>([](double X) { return el::log_erfc_positive(X); }, Ref, 0., 26., false), 4.0);
  for (double X : {30.0, 100.0, 1e4, 1e100}) {
    const double R = 1 / (2 * X * X);
    const double Want = -X * X - std::log(X * std::sqrt(M_PI)) + std::log1p(R * (-1 + R * (3 + R * (-15 + R * (105 - 945 * R)))));
    EXPECT_NEAR(el::log_erfc_positive(X), Want, 4e-16 * std::fabs(Want)) << X;
  }
  EXPECT_EQ(el::log_erfc_positive(0.0), 0.0);
  EXPECT_EQ(el::log_erfc_positive(std::numeric_limits<double>::infinity()), -std::numeric_limits<double>::infinity());
}

TEST(Elementary, Atan) {
  auto Ref = [](double X) { return static_cast<double>(std::atan(static_cast<long double>(X))); };
  auto Mine = [](double X) { return el::atan(X); };
  EXPECT_LE(maxUlps<double>(Mine, Ref, -5., 5., false), 2.0);
  EXPECT_LE(maxUlps<double>(Mine, Ref, 1e-300, 1e300, true), 2.0);
  EXPECT_LE(maxUlps<double>([](double X) { return el::atan(-X); }, [](double X) { return double(std::atan(-(long double)X)); },
                            1e-300, 1e300, true),
            2.0);
  const double Inf = std::numeric_limits<double>::infinity();
  EXPECT_EQ(el::atan(0.0), 0.0);
  EXPECT_EQ(el::atan(Inf), M_PI / 2);
  EXPECT_EQ(el::atan(-Inf), -M_PI / 2);
  EXPECT_TRUE(std::isnan(el::atan(std::numeric_limits<double>::quiet_NaN())));
}
