// Reference CDFs and goodness-of-fit statistics for the sampler tests.
// Everything here is plain double-precision numerics (no scipy at run time);
// the incomplete gamma / beta helpers are checked against scipy values in
// logdensity_reference.inc (kCdfCases).
#pragma once

#include <algorithm>
#include <cmath>
#include <functional>
#include <vector>

namespace aimz_test {

inline double normal_cdf(double z) { return 0.5 * std::erfc(-z / std::sqrt(2.0)); }

/// Regularised lower incomplete gamma P(a, x) (Numerical Recipes gser/gcf).
inline double gamma_p(double a, double x) {
  if (x <= 0) return 0.0;
  const double lpre = -x + a * std::log(x) - std::lgamma(a);
  if (x < a + 1) {
    double ap = a, sum = 1.0 / a, del = sum;
    for (int n = 0; n < 100000; ++n) {
      ap += 1;
      del *= x / ap;
      sum += del;
      if (std::fabs(del) < std::fabs(sum) * 1e-16) break;
    }
    return sum * std::exp(lpre);
  }
  const double tiny = 1e-300;
  double b = x + 1 - a, c = 1 / tiny, d = 1 / b, h = d;
  for (int i = 1; i < 100000; ++i) {
    const double an = -i * (i - a);
    b += 2;
    d = an * d + b;
    if (std::fabs(d) < tiny) d = tiny;
    c = b + an / c;
    if (std::fabs(c) < tiny) c = tiny;
    d = 1 / d;
    const double del = d * c;
    h *= del;
    if (std::fabs(del - 1) < 1e-16) break;
  }
  return 1.0 - std::exp(lpre) * h;
}

inline double betacf(double a, double b, double x) {
  const double tiny = 1e-300;
  const double qab = a + b, qap = a + 1, qam = a - 1;
  double c = 1, d = 1 - qab * x / qap;
  if (std::fabs(d) < tiny) d = tiny;
  d = 1 / d;
  double h = d;
  for (int m = 1; m < 100000; ++m) {
    const int m2 = 2 * m;
    double aa = m * (b - m) * x / ((qam + m2) * (a + m2));
    d = 1 + aa * d;
    if (std::fabs(d) < tiny) d = tiny;
    c = 1 + aa / c;
    if (std::fabs(c) < tiny) c = tiny;
    d = 1 / d;
    h *= d * c;
    aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2));
    d = 1 + aa * d;
    if (std::fabs(d) < tiny) d = tiny;
    c = 1 + aa / c;
    if (std::fabs(c) < tiny) c = tiny;
    d = 1 / d;
    const double del = d * c;
    h *= del;
    if (std::fabs(del - 1) < 1e-16) break;
  }
  return h;
}

/// Regularised incomplete beta I_x(a, b).
inline double beta_i(double a, double b, double x) {
  if (x <= 0) return 0.0;
  if (x >= 1) return 1.0;
  const double lbt = std::lgamma(a + b) - std::lgamma(a) - std::lgamma(b) + a * std::log(x) + b * std::log1p(-x);
  if (x < (a + 1) / (a + b + 2)) return std::exp(lbt) * betacf(a, b, x) / a;
  return 1.0 - std::exp(lbt) * betacf(b, a, 1 - x) / b;
}

inline double student_t_cdf(double t, double df) {
  const double x = df / (df + t * t);
  const double tail = 0.5 * beta_i(0.5 * df, 0.5, x);
  return t > 0 ? 1.0 - tail : tail;
}

/// One-sample Kolmogorov-Smirnov statistic sqrt(n) * D_n.
inline double ks_statistic(std::vector<double> xs, const std::function<double(double)>& cdf) {
  std::sort(xs.begin(), xs.end());
  const double n = static_cast<double>(xs.size());
  double d = 0;
  for (std::size_t i = 0; i < xs.size(); ++i) {
    const double f = cdf(xs[i]);
    d = std::max(d, std::max((static_cast<double>(i) + 1) / n - f, f - static_cast<double>(i) / n));
  }
  return std::sqrt(n) * d;
}

/// Critical value of sqrt(n) D_n at level alpha (asymptotic Kolmogorov
/// distribution, P(K > t) ~ 2 exp(-2 t^2)).
inline double ks_critical(double alpha) { return std::sqrt(-0.5 * std::log(alpha / 2)); }

/// Upper alpha quantile of chi-square(df) (Wilson-Hilferty); z is the
/// standard normal upper quantile for alpha.
inline double chi2_critical(double df, double z) {
  const double h = 2.0 / (9.0 * df);
  const double c = 1 - h + z * std::sqrt(h);
  return df * c * c * c;
}

struct Moments {
  double mean, var, se_mean, se_var;
};

inline Moments moments(const std::vector<double>& xs) {
  const double n = static_cast<double>(xs.size());
  double m = 0;
  for (double x : xs) m += x;
  m /= n;
  double m2 = 0, m4 = 0;
  for (double x : xs) {
    const double d = (x - m) * (x - m);
    m2 += d;
    m4 += d * d;
  }
  m2 /= n;
  m4 /= n;
  return {m, m2 * n / (n - 1), std::sqrt(m2 / n), std::sqrt(std::max(m4 - m2 * m2, 0.0) / n)};
}

}  // namespace aimz_test
