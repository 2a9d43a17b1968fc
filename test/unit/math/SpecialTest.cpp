// Special functions against 70-digit reference values.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <map>
#include <string>

#include "Reference.h"
#include "TestUtil.h"
#include "aimz/math/Special.h"

namespace am = aimz::math;
using aimz_test::close_to;

namespace {

template <class T> T eval_special(const aimz_test::SpecialCase& c) {
  const T a = static_cast<T>(c.a[0]);
  const T b = static_cast<T>(c.a[1]);
  const std::string fn = c.fn;
  if (fn == "log_gamma") return am::log_gamma(a);
  if (fn == "log_beta") return am::log_beta(a, b);
  if (fn == "stirlerr") return am::stirlerr(a);
  if (fn == "softplus") return am::softplus(a);
  if (fn == "log1mexp") return am::log1mexp(a);
  if (fn == "log1pmx") return am::log1pmx(a);
  ADD_FAILURE() << "unknown function " << fn;
  return T(0);
}

struct Tol {
  double rtol;
  double floor;  // relative to max(floor, |expect|)
};

template <class T> Tol tolerance(const std::string& fn) {
  const bool f = std::is_same<T, float>::value;
  if (fn == "log_gamma") return f ? Tol{2e-6, 1e-30} : Tol{1e-14, 1e-300};
  if (fn == "stirlerr") return f ? Tol{1e-5, 1e-30} : Tol{1e-12, 1e-300};
  if (fn == "log1pmx") return f ? Tol{1e-6, 1e-30} : Tol{1e-14, 1e-300};
  if (fn == "log1mexp") return f ? Tol{1e-6, 1e-30} : Tol{1e-14, 1e-300};
  if (fn == "softplus") return f ? Tol{1e-6, 1e-30} : Tol{1e-14, 1e-300};
  return f ? Tol{1e-5, 1.0} : Tol{1e-13, 1.0};  // log_beta
}

template <class T> void run_special_table() {
  std::map<std::string, double> worst;
  for (const auto& c : aimz_test::kSpecialCases) {
    const Tol tol = tolerance<T>(c.fn);
    double& w = worst[c.fn];
    const double got = static_cast<double>(eval_special<T>(c));
    EXPECT_TRUE(close_to<T>(got, c.expect, tol.rtol, &w, tol.floor))
        << aimz_test::type_name<T>() << " " << c.fn << "(" << c.a[0] << ", " << c.a[1] << ")";
  }
  for (const auto& kv : worst)
    std::printf("  [%s] %-10s worst scaled error %.3g\n", aimz_test::type_name<T>(), kv.first.c_str(), kv.second);
}

}  // namespace

TEST(Special, ReferenceTableDouble) { run_special_table<double>(); }
TEST(Special, ReferenceTableFloat) { run_special_table<float>(); }

// The branch-free building blocks compute every case and select one: the
// selection must still give NaN, the table and the limits where the
// branchy versions did, and the cheap whole-number stirlerr must be the
// general one.
template <class T> void checkBranchFreeEdges() {
  const T nan = std::numeric_limits<T>::quiet_NaN(), inf = std::numeric_limits<T>::infinity();
  EXPECT_TRUE(std::isnan(am::stirlerr(nan)));
  EXPECT_TRUE(std::isnan(am::stirlerr(T(0))));
  EXPECT_TRUE(std::isnan(am::stirlerr(T(-1.5))));
  // (stirlerr computes in double; in float the count version's series
  // may round differently by an ulp.)
  for (int k = 1; k <= 40; ++k)
    EXPECT_NEAR(am::detail::stirlerr_count(T(k)), am::stirlerr(T(k)),
                sizeof(T) == 8 ? 0.0 : 2 * std::numeric_limits<T>::epsilon() * am::stirlerr(T(k)))
        << "k " << k;
  EXPECT_EQ(am::stirlerr(T(0.5)), T(0.15342640972002736));
  EXPECT_EQ(am::stirlerr(T(9.5)), T(0.0087687001341393862));
  // bd0 on either side of its series' boundary |x - m| = (x + m) / 10 and at 0.
  EXPECT_EQ(am::bd0(T(0), T(3)), T(3));
  for (double m : {0.5, 7.0, 1e4}) {
    for (double x : {m * 11 / 9 * (1 - 1e-6), m * 11 / 9 * (1 + 1e-6), m * 9 / 11 * (1 + 1e-6),
                     m * 9 / 11 * (1 - 1e-6), m * 1.01, m * 3}) {
      const long double xl = T(x), ml = T(m);  // the arguments as T holds them
      const long double want = xl * std::log(xl / ml) + ml - xl;
      EXPECT_NEAR(static_cast<double>(am::bd0(T(x), T(m))), static_cast<double>(want),
                  (sizeof(T) == 8 ? 1e-13 : 1e-5) * static_cast<double>(want) + 1e-300)
          << "x " << x << " m " << m;
    }
  }
  EXPECT_TRUE(std::isnan(am::log_beta(nan, T(1))));
  EXPECT_TRUE(std::isnan(am::log_beta(T(-1), T(2))));
  EXPECT_EQ(am::log_beta(T(0), T(2)), inf);
  EXPECT_EQ(am::log_beta(T(2), inf), -inf);
  EXPECT_EQ(am::log_beta(T(1), T(1)), T(0));
}

TEST(Special, BranchFreeEdgeCasesDouble) { checkBranchFreeEdges<double>(); }
TEST(Special, BranchFreeEdgeCasesFloat) { checkBranchFreeEdges<float>(); }

TEST(Special, LogGammaEdgeCases) {
  EXPECT_TRUE(std::isnan(am::log_gamma(std::nan(""))));
  EXPECT_EQ(am::log_gamma(0.0), HUGE_VAL);
  EXPECT_EQ(am::log_gamma(-3.0), HUGE_VAL);
  EXPECT_EQ(am::log_gamma(HUGE_VAL), HUGE_VAL);
  EXPECT_EQ(am::log_gamma(-HUGE_VAL), HUGE_VAL);
  EXPECT_EQ(am::log_gamma(1.0), 0.0);
  EXPECT_EQ(am::log_gamma(2.0), 0.0);
  EXPECT_EQ(am::log_gamma(1.0f), 0.0f);
  EXPECT_EQ(am::log_gamma(2.0f), 0.0f);
}

TEST(Special, LogGammaMatchesStdOnAGrid) {
  // std::lgamma is accurate to a few ulp away from its zeros; this sweeps
  // every branch boundary of log_gamma.
  double worst = 0;
  for (double x = 0.0123; x < 60; x += 0.0371) {
    const double want = std::lgamma(x);
    if (std::fabs(want) < 0.05) continue;  // near the zeros std::lgamma itself loses relative accuracy
    const double err = std::fabs(am::log_gamma(x) - want) / std::fabs(want);
    worst = std::max(worst, err);
  }
  EXPECT_LT(worst, 1e-14);
}

TEST(Special, LogGammaRecurrence) {
  // lgamma(x + 1) = lgamma(x) + log(x)
  for (double x = 0.01; x < 30; x *= 1.37) {
    EXPECT_NEAR(am::log_gamma(x + 1), am::log_gamma(x) + std::log(x), 1e-13 * std::max(1.0, std::fabs(am::log_gamma(x + 1))))
        << x;
  }
}

TEST(Special, SigmoidAndLogSigmoid) {
  EXPECT_DOUBLE_EQ(am::sigmoid(0.0), 0.5);
  EXPECT_NEAR(am::sigmoid(-800.0), 0.0, 1e-300);
  EXPECT_EQ(am::sigmoid(800.0), 1.0);
  EXPECT_NEAR(am::sigmoid(-30.0) / std::exp(-30.0), 1.0, 1e-12);
  EXPECT_DOUBLE_EQ(am::log_sigmoid(-1000.0), -1000.0);
  EXPECT_DOUBLE_EQ(am::log_sigmoid(1000.0), 0.0);
  EXPECT_NEAR(am::log_sigmoid(40.0), -std::exp(-40.0), 1e-30);
  EXPECT_EQ(am::softplus(HUGE_VAL), HUGE_VAL);
  EXPECT_EQ(am::softplus(-HUGE_VAL), 0.0);
  EXPECT_EQ(am::softplus(1e30f), 1e30f);
}

TEST(Special, Log1mexpEdges) {
  EXPECT_EQ(am::log1mexp(0.0), -HUGE_VAL);
  EXPECT_TRUE(std::isnan(am::log1mexp(-1.0)));
  EXPECT_EQ(am::log1mexp(HUGE_VAL), 0.0);
}

TEST(Special, XlogyConventions) {
  EXPECT_EQ(am::xlogy(0.0, 0.0), 0.0);
  EXPECT_EQ(am::xlog1py(0.0, -1.0), 0.0);
  EXPECT_TRUE(std::isnan(am::xlogy(0.0, std::nan(""))));
  EXPECT_EQ(am::xlogy(2.0, 0.0), -HUGE_VAL);
}

TEST(Special, Bd0MatchesDefinitionAwayFromMode) {
  for (double x : {0.5, 3.0, 40.0, 1e4}) {
    for (double m : {0.1, 2.0, 100.0}) {
      const double want = x * std::log(x / m) + m - x;
      EXPECT_NEAR(am::bd0(x, m), want, 1e-12 * std::max(1.0, std::fabs(want))) << x << " " << m;
    }
  }
  EXPECT_EQ(am::bd0(0.0, 3.0), 3.0);
  // near the mode: bd0 ~ (x - m)^2 / (2 m)
  EXPECT_NEAR(am::bd0(1e8 + 1.0, 1e8) / (0.5 / 1e8), 1.0, 1e-7);
}

// The normal tail's logarithm and its inverse, against glibc's erfc in long
// double and (where that underflows) the asymptotic series of log erfc.
namespace {
double refNormalLogTail(double Z) {
  if (Z < 35) return static_cast<double>(std::log(0.5L * std::erfcl(static_cast<long double>(Z) / std::sqrt(2.0L))));
  const double R = 1 / (Z * Z);
  return -0.5 * Z * Z - std::log(Z * std::sqrt(2 * M_PI)) +
         std::log1p(R * (-1 + R * (3 + R * (-15 + R * (105 - 945 * R)))));
}
} // namespace

TEST(Special, NormalLogTail) {
  for (double Z = 0; Z < 2000; Z = Z < 8 ? Z + 0.01 : Z * 1.01) {
    const double Want = refNormalLogTail(Z);
    EXPECT_NEAR(am::normal_log_tail(Z), Want, 1e-15 * std::fabs(Want) + 1e-300) << "z " << Z;
  }
  EXPECT_EQ(am::normal_log_tail(std::numeric_limits<double>::infinity()), -std::numeric_limits<double>::infinity());
}

// AS 241 from log q: sf(isf(q)) = q to a few ulps of log q (a relative
// error of q that small) over its fitted range, and with Newton's method
// beyond it, out to tails of 1e-400000.
TEST(Special, NormalIsfFromLogQ) {
  for (double Lq = std::log(0.5); Lq > -1e6; Lq = Lq > -1 ? Lq - 0.003 : Lq * 1.01) {
    const double Z = Lq >= am::kNormalIsfLogFitted ? am::normal_isf_log(Lq) : am::normal_isf_log_refined(Lq);
    ASSERT_TRUE(std::isfinite(Z)) << "log q " << Lq;
    ASSERT_GE(Z, 0.0) << "log q " << Lq;
    // The error in log q that a few ulps of Z make (d log sf / dz ~ z).
    const double Slack = 1e-15 * (std::fabs(Lq) + 1) + 1e-15 * Z * (Z + 1);
    EXPECT_NEAR(refNormalLogTail(Z), Lq, Slack) << "log q " << Lq << " z " << Z;
    if (Lq >= am::kNormalIsfLogFitted) {
      EXPECT_EQ(am::normal_isf_log_refined(Lq), Z);
    }
  }
  EXPECT_EQ(am::normal_isf_log(std::log(0.5)), 0.0);
  EXPECT_EQ(am::normal_isf_log(-std::numeric_limits<double>::infinity()), std::numeric_limits<double>::infinity());
}
