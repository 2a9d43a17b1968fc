// Log densities against the reference table (float and double).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <map>
#include <string>
#include <type_traits>

#include "Reference.h"
#include "TestUtil.h"
#include "aimz/math/BinomialFamilies.h"
#include "aimz/math/Censored.h"
#include "aimz/math/ClosedFormFamilies.h"
#include "aimz/math/GammaFamilies.h"
#include "aimz/math/Hurdle.h"
#include "aimz/math/InvertibleFamilies.h"
#include "aimz/math/LogDensity.h"
#include "aimz/math/NormalFamilies.h"
#include "aimz/math/PoissonFamilies.h"
#include "aimz/math/Truncated.h"
#include "aimz/math/TruncatedByCdf.h"
#include "aimz/math/TruncatedCounts.h"

namespace am = aimz::math;
using aimz_test::close_to;
using aimz_test::LogDensityCase;

namespace {

bool is_discrete(const std::string& d) {
  return d == "bernoulli" || d == "bernoulli_logits" || d == "binomial" || d == "binomial_logits" || d == "poisson" ||
         d == "gamma_poisson" || d.rfind("negative_binomial", 0) == 0 || d.rfind("zero_inflated", 0) == 0 ||
         d == "beta_binomial" || d == "hurdle_poisson" || d == "hurdle_negative_binomial2" ||
         d == "geometric" || d == "geometric_logits" || d == "truncated_poisson" ||
         d == "truncated_negative_binomial2" || d.rfind("truncated_binomial", 0) == 0;
}

// X is the type the observation is passed as (continuous: always T).
template <class T, class X> T eval(const LogDensityCase& c, X x) {
  const T p0 = static_cast<T>(c.p[0]);
  const T p1 = static_cast<T>(c.p[1]);
  const T p2 = static_cast<T>(c.p[2]);
  const T p3 = static_cast<T>(c.p[3]);
  const std::string d = c.dist;
  const T xt = static_cast<T>(x);
  if (d == "normal") return am::normal_log_prob(xt, p0, p1);
  if (d == "half_normal") return am::half_normal_log_prob(xt, p0);
  if (d == "log_normal") return am::log_normal_log_prob(xt, p0, p1);
  if (d == "exponential") return am::exponential_log_prob(xt, p0);
  if (d == "gamma") return am::gamma_log_prob(xt, p0, p1);
  if (d == "beta") return am::beta_log_prob(xt, p0, p1);
  if (d == "uniform") return am::uniform_log_prob(xt, p0, p1);
  if (d == "cauchy") return am::cauchy_log_prob(xt, p0, p1);
  if (d == "half_cauchy") return am::half_cauchy_log_prob(xt, p0);
  if (d == "student_t") return am::student_t_log_prob(xt, p0, p1, p2);
  if (d == "bernoulli") return am::bernoulli_log_prob(x, p0);
  if (d == "bernoulli_logits") return am::bernoulli_logits_log_prob(x, p0);
  if (d == "binomial") return am::binomial_log_prob(x, p0, p1);
  if (d == "binomial_logits") return am::binomial_logits_log_prob(x, p0, p1);
  if (d == "poisson") return am::poisson_log_prob(x, p0);
  if (d == "laplace") return am::laplace_log_prob(xt, p0, p1);
  if (d == "logistic") return am::logistic_log_prob(xt, p0, p1);
  if (d == "gumbel") return am::gumbel_log_prob(xt, p0, p1);
  if (d == "inverse_gamma") return am::inverse_gamma_log_prob(xt, p0, p1);
  if (d == "pareto") return am::pareto_log_prob(xt, p0, p1);
  if (d == "weibull") return am::weibull_log_prob(xt, p0, p1);
  if (d == "truncated_normal") return am::truncated_normal_log_prob(xt, p0, p1, p2, p3);
  if (d == "gamma_poisson") return am::gamma_poisson_log_prob(x, p0, p1);
  if (d == "negative_binomial2") return am::negative_binomial2_log_prob(x, p0, p1);
  if (d == "negative_binomial_probs") return am::negative_binomial_probs_log_prob(x, p0, p1);
  if (d == "negative_binomial_logits") return am::negative_binomial_logits_log_prob(x, p0, p1);
  if (d == "zero_inflated_poisson") return am::zero_inflated_poisson_log_prob(x, p0, p1);
  if (d == "zero_inflated_poisson_logits") return am::zero_inflated_poisson_logits_log_prob(x, p0, p1);
  if (d == "zero_inflated_negative_binomial2") return am::zero_inflated_negative_binomial2_log_prob(x, p0, p1, p2);
  if (d == "zero_inflated_negative_binomial2_logits")
    return am::zero_inflated_negative_binomial2_logits_log_prob(x, p0, p1, p2);
  if (d == "beta_binomial") return am::beta_binomial_log_prob(x, p0, p1, p2);
  if (d == "truncated_exponential") return am::truncated_exponential_log_prob(xt, p0, p1, p2);
  if (d == "truncated_weibull") return am::truncated_weibull_log_prob(xt, p0, p1, p2, p3);
  if (d == "truncated_gumbel") return am::truncated_gumbel_log_prob(xt, p0, p1, p2, p3);
  if (d == "truncated_pareto") return am::truncated_pareto_log_prob(xt, p0, p1, p2, p3);
  if (d == "truncated_gamma") return am::truncated_gamma_log_prob(xt, p0, p1, p2, p3);
  if (d == "truncated_inverse_gamma") return am::truncated_inverse_gamma_log_prob(xt, p0, p1, p2, p3);
  if (d == "truncated_log_normal") return am::truncated_log_normal_log_prob(xt, p0, p1, p2, p3);
  if (d == "truncated_half_normal") return am::truncated_half_normal_log_prob(xt, p0, p1, p2);
  if (d == "truncated_half_cauchy") return am::truncated_half_cauchy_log_prob(xt, p0, p1, p2);
  if (d == "truncated_beta") return am::truncated_beta_log_prob(xt, p0, p1, p2, p3);
  if (d == "truncated_kumaraswamy") return am::truncated_kumaraswamy_log_prob(xt, p0, p1, p2, p3);
  if (d == "truncated_uniform") return am::truncated_uniform_log_prob(xt, p0, p1, p2, p3);
  if (d == "truncated_log_uniform") return am::truncated_log_uniform_log_prob(xt, p0, p1, p2, p3);
  if (d == "truncated_asymmetric_laplace")
    return am::truncated_asymmetric_laplace_log_prob(xt, p0, p1, p2, p3, static_cast<T>(c.p[4]));
  if (d == "truncated_chi2") return am::truncated_chi2_log_prob(xt, p0, p1, p2);
  if (d == "truncated_beta_proportion") return am::truncated_beta_proportion_log_prob(xt, p0, p1, p2, p3);
  if (d == "truncated_poisson") return am::truncated_poisson_log_prob(x, p0, p1, p2);
  if (d == "truncated_negative_binomial2") return am::truncated_negativebinomial2_log_prob(x, p0, p1, p2, p3);
  if (d == "truncated_binomial") return am::truncated_binomial_probs_log_prob(x, p0, p1, p2, p3);
  if (d == "truncated_binomial_logits") return am::truncated_binomial_logits_log_prob(x, p0, p1, p2, p3);
  if (d == "asymmetric_laplace") return am::asymmetric_laplace_log_prob(xt, p0, p1, p2);
  if (d == "kumaraswamy") return am::kumaraswamy_log_prob(xt, p0, p1);
  if (d == "log_uniform") return am::log_uniform_log_prob(xt, p0, p1);
  if (d == "beta_proportion") return am::beta_proportion_log_prob(xt, p0, p1);
  if (d == "chi2") return am::chi2_log_prob(xt, p0);
  if (d == "geometric") return am::geometric_log_prob(x, p0);
  if (d == "geometric_logits") return am::geometric_logits_log_prob(x, p0);
  if (d == "hurdle_poisson") return am::hurdle_poisson_log_prob(x, p0, p1);
  if (d == "hurdle_negative_binomial2") return am::hurdle_negative_binomial2_log_prob(x, p0, p1, p2);
  if (d == "hurdle_gamma") return am::hurdle_gamma_log_prob(xt, p0, p1, p2);
  if (d == "hurdle_log_normal") return am::hurdle_log_normal_log_prob(xt, p0, p1, p2);
  ADD_FAILURE() << "unknown distribution " << d;
  return T(0);
}

std::string describe(const LogDensityCase& c) {
  char buf[256];
  std::snprintf(buf, sizeof buf, "%s(%.17g, %.17g, %.17g, %.17g) at x=%.17g [scipy %.17g]", c.dist, c.p[0], c.p[1],
                c.p[2], c.p[3], c.x, c.scipy);
  return buf;
}

// Float evaluation cannot beat the conditioning of the problem: a row whose
// value moves by `float_sensitivity` (scaled) when one input moves by half a
// float ulp gets max(rtol, 8 * float_sensitivity).  Double rows always use rtol.
template <class T> double row_tolerance(const LogDensityCase& c, double rtol) {
  if (std::is_same<T, double>::value) return rtol;
  return std::max(rtol, 8 * c.float_sensitivity);
}

template <class T> void run_table(double base_rtol) {
  std::map<std::string, double> worst, worst_widened;
  int rows = 0, widened = 0;
  for (const LogDensityCase& c : aimz_test::kLogDensityCases) {
    ++rows;
    const double rtol = row_tolerance<T>(c, base_rtol);
    if (rtol > base_rtol) ++widened;
    double& w = rtol > base_rtol ? worst_widened[c.dist] : worst[c.dist];
    const double got = static_cast<double>(eval<T>(c, static_cast<T>(c.x)));
    EXPECT_TRUE(close_to<T>(got, c.expect, rtol, &w)) << aimz_test::type_name<T>() << " " << describe(c);
    if (is_discrete(c.dist)) {
      // the observation may be any numeric type: double, T, or an integer
      const double gd = static_cast<double>(eval<T>(c, c.x));
      EXPECT_TRUE(close_to<T>(gd, c.expect, rtol)) << "x as double: " << describe(c);
      if (std::isfinite(c.x) && std::floor(c.x) == c.x && std::fabs(c.x) < 9e18) {
        const double gi = static_cast<double>(eval<T>(c, static_cast<std::int64_t>(c.x)));
        EXPECT_TRUE(close_to<T>(gi, c.expect, rtol)) << "x as int64: " << describe(c);
        if (std::fabs(c.x) < 2e9) {
          const double g32 = static_cast<double>(eval<T>(c, static_cast<std::int32_t>(c.x)));
          EXPECT_TRUE(close_to<T>(g32, c.expect, rtol)) << "x as int32: " << describe(c);
        }
      }
    }
  }
  std::printf("  [%s] %d rows checked at rtol %g (scaled by max(1, |ref|); %d ill-conditioned rows widened);"
              " worst per distribution:\n",
              aimz_test::type_name<T>(), rows, base_rtol, widened);
  for (const auto& kv : worst) {
    auto it = worst_widened.find(kv.first);
    if (it == worst_widened.end())
      std::printf("    %-17s %.3g\n", kv.first.c_str(), kv.second);
    else
      std::printf("    %-17s %.3g   (ill-conditioned rows: %.3g)\n", kv.first.c_str(), kv.second, it->second);
  }
}

}  // namespace

TEST(LogDensity, ReferenceTableDouble) { run_table<double>(1e-12); }
TEST(LogDensity, ReferenceTableFloat) { run_table<float>(1e-5); }

TEST(LogDensity, ScipyAgreesWithReferenceWherePrecise) {
  // Sanity check of the generated table itself: the scipy column matches the
  // high-precision column except where scipy is known to cancel or uses a
  // different convention for infinite parameters.
  int agree = 0, total = 0;
  for (const LogDensityCase& c : aimz_test::kLogDensityCases) {
    ++total;
    if (close_to<double>(c.scipy, c.expect, 1e-9)) ++agree;
  }
  EXPECT_GT(agree, total * 95 / 100);
}

TEST(LogDensity, NormalizationByQuadrature) {
  // Integrate exp(log density) on a fine grid: catches a wrong constant
  // independently of the reference table.
  auto integrate = [](auto f, double lo, double hi, int n) {
    const double h = (hi - lo) / n;
    double s = 0.5 * (std::exp(f(lo)) + std::exp(f(hi)));
    for (int i = 1; i < n; ++i) s += std::exp(f(lo + i * h));
    return s * h;
  };
  EXPECT_NEAR(integrate([](double x) { return am::normal_log_prob(x, 0.3, 1.7); }, -15, 15, 20000), 1.0, 1e-8);
  EXPECT_NEAR(integrate([](double x) { return am::half_normal_log_prob(x, 1.7); }, 0, 15, 20000), 1.0, 1e-6);
  EXPECT_NEAR(integrate([](double x) { return am::gamma_log_prob(x, 3.5, 2.0); }, 0, 40, 40000), 1.0, 1e-8);
  EXPECT_NEAR(integrate([](double x) { return am::beta_log_prob(x, 2.5, 4.0); }, 0, 1, 20000), 1.0, 1e-6);
  EXPECT_NEAR(integrate([](double x) { return am::student_t_log_prob(x, 4.0, 1.0, 2.0); }, -3000, 3000, 600000),
              1.0, 1e-6);
  EXPECT_NEAR(integrate([](double x) { return am::log_normal_log_prob(x, 0.2, 0.4); }, 1e-9, 30, 60000), 1.0, 1e-7);
  double pois = 0, binom = 0;
  for (int k = 0; k < 200; ++k) pois += std::exp(am::poisson_log_prob(k, 17.5));
  for (int k = 0; k <= 60; ++k) binom += std::exp(am::binomial_logits_log_prob(k, 60.0, -0.7));
  EXPECT_NEAR(pois, 1.0, 1e-13);
  EXPECT_NEAR(binom, 1.0, 1e-13);
}

TEST(LogDensity, Conventions) {
  const double nan = std::nan("");
  // invalid parameters -> NaN
  EXPECT_TRUE(std::isnan(am::normal_log_prob(0.0, 0.0, -1.0)));
  EXPECT_TRUE(std::isnan(am::gamma_log_prob(1.0f, 0.0f, 1.0f)));
  EXPECT_TRUE(std::isnan(am::poisson_log_prob(1, -0.5)));
  EXPECT_TRUE(std::isnan(am::binomial_log_prob(1, 4.5, 0.5)));
  EXPECT_TRUE(std::isnan(am::bernoulli_log_prob(1, 1.5f)));
  // NaN observation -> NaN
  EXPECT_TRUE(std::isnan(am::normal_log_prob(nan, 0.0, 1.0)));
  EXPECT_TRUE(std::isnan(am::poisson_log_prob(nan, 1.0)));
  // outside the support -> -inf (never NaN)
  EXPECT_EQ(am::half_normal_log_prob(-1.0, 1.0), -HUGE_VAL);
  EXPECT_EQ(am::half_cauchy_log_prob(-1.0f, 1.0f), -HUGE_VALF);
  EXPECT_EQ(am::poisson_log_prob(2.5, 1.0), -HUGE_VAL);
  EXPECT_EQ(am::poisson_log_prob(-1, 1.0), -HUGE_VAL);
  EXPECT_EQ(am::binomial_log_prob(11, 10.0, 0.5), -HUGE_VAL);
  EXPECT_EQ(am::beta_log_prob(1.5, 2.0, 2.0), -HUGE_VAL);
  // support boundaries
  EXPECT_DOUBLE_EQ(am::half_normal_log_prob(0.0, 1.0), std::log(std::sqrt(2.0 / std::acos(-1.0))));
  EXPECT_DOUBLE_EQ(am::exponential_log_prob(0.0, 2.0), std::log(2.0));
  EXPECT_EQ(am::gamma_log_prob(0.0, 0.5, 1.0), HUGE_VAL);
  // discrete observations of various types agree
  EXPECT_EQ(am::poisson_log_prob(3, 2.5), am::poisson_log_prob(3.0, 2.5));
  EXPECT_EQ(am::poisson_log_prob(3.0f, 2.5), am::poisson_log_prob(std::int64_t{3}, 2.5));
  EXPECT_EQ(am::poisson_log_prob(std::uint8_t{3}, 2.5f), am::poisson_log_prob(3, 2.5f));
  EXPECT_EQ(am::bernoulli_log_prob(true, 0.25), std::log(0.25));
}

TEST(LogDensity, LogitsVariantsAreStable) {
  // Extreme logits must not lose precision through sigmoid().
  EXPECT_DOUBLE_EQ(am::bernoulli_logits_log_prob(0, 800.0), -800.0);
  EXPECT_DOUBLE_EQ(am::bernoulli_logits_log_prob(1, -800.0), -800.0);
  EXPECT_FLOAT_EQ(am::bernoulli_logits_log_prob(0, 90.0f), -90.0f);
  EXPECT_DOUBLE_EQ(am::binomial_logits_log_prob(0, 30.0, 50.0), -1500.0);
  EXPECT_NEAR(am::binomial_logits_log_prob(30, 30.0, -50.0), -1500.0, 1e-12);
}
