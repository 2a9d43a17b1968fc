// The CDFs of CdfDistributions.def's rows: each row's CDF<T>(params...)
// builds a base in double with valid(), its support [lo(), hi()] and
// log_cdf / log_sf inside it (log P(X <= x), log P(X > x)), each computed
// where it does not cancel (the tail's own formula, not log(1 - F)). The
// bases are TruncatedDistribution's (Truncated.h, TruncatedByCdf.h,
// TruncatedCounts.h), so a truncation and a censoring of the same base
// agree. log_cdf_of / log_ccdf_of add the support's ends and NaN for an
// invalid parameter or value.
#pragma once

#include "aimz/math/Truncated.h"
#include "aimz/math/TruncatedByCdf.h"
#include "aimz/math/TruncatedCounts.h"

namespace aimz {
namespace math {
namespace detail {

/// A symmetric location-scale family from its standardized tail.
template <class B> struct SymmetricCdf {
  B base;
  double loc, scale;
  bool extra_ok = true;
  AIMZ_MATH_FN bool valid() const { return std::isfinite(loc) && pos_finite(scale) && extra_ok; }
  AIMZ_MATH_FN double lo() const { return -inf<double>(); }
  AIMZ_MATH_FN double hi() const { return inf<double>(); }
  AIMZ_MATH_FN double log_sf(double x) const { return detail::log_sf(base, (x - loc) / scale); }
  AIMZ_MATH_FN double log_cdf(double x) const { return detail::log_sf(base, (loc - x) / scale); }
};

/// LogNormal: the normal's CDF at log x.
struct LogNormalCdf {
  SymmetricCdf<NormalBase<true>> normal;
  AIMZ_MATH_FN bool valid() const { return normal.valid(); }
  AIMZ_MATH_FN double lo() const { return 0.0; }
  AIMZ_MATH_FN double hi() const { return inf<double>(); }
  AIMZ_MATH_FN double log_sf(double x) const { return normal.log_sf(std::log(x)); }
  AIMZ_MATH_FN double log_cdf(double x) const { return normal.log_cdf(std::log(x)); }
};

/// HalfNormal: S(x) = 2 sf(x / scale), F(x) = erf(x / (scale sqrt 2)).
struct HalfNormalCdf {
  double scale;
  AIMZ_MATH_FN bool valid() const { return pos_finite(scale); }
  AIMZ_MATH_FN double lo() const { return 0.0; }
  AIMZ_MATH_FN double hi() const { return inf<double>(); }
  AIMZ_MATH_FN double log_sf(double x) const { return kLn2 + normal_log_tail(x / scale); }
  AIMZ_MATH_FN double log_cdf(double x) const {
    const double z = x / scale;
    return z < 1.0 ? std::log(std::erf(z * kSqrtHalf)) : log1m_exp_d(log_sf(x));
  }
};

/// HalfCauchy: F(x) = (2 / pi) atan(x / scale), S(x) = (2 / pi) atan(scale / x).
struct HalfCauchyCdf {
  double scale;
  AIMZ_MATH_FN bool valid() const { return pos_finite(scale); }
  AIMZ_MATH_FN double lo() const { return 0.0; }
  AIMZ_MATH_FN double hi() const { return inf<double>(); }
  AIMZ_MATH_FN double log_sf(double x) const { return std::log(2.0 / kPi * std::atan(scale / x)); }
  AIMZ_MATH_FN double log_cdf(double x) const { return std::log(2.0 / kPi * std::atan(x / scale)); }
};

/// A count base: P(X <= floor(x)) and P(X > floor(x)).
template <class C> struct CountCdf {
  C counts;
  AIMZ_MATH_FN bool valid() const { return counts.valid(); }
  AIMZ_MATH_FN double lo() const { return -inf<double>(); }
  AIMZ_MATH_FN double hi() const { return inf<double>(); }
  AIMZ_MATH_FN double log_cdf(double x) const { return count_log_cdf(counts, std::floor(x)); }
  AIMZ_MATH_FN double log_sf(double x) const { return count_log_sf(counts, std::floor(x)); }
};

template <class T, class B> AIMZ_MATH_FN T log_cdf_or_sf(const B& base, T x, bool upper) {
  if (!base.valid() || x != x) return nan<T>();
  const double v = static_cast<double>(x);
  if (v <= base.lo()) return upper ? T(0) : -inf<T>();
  if (v >= base.hi()) return upper ? -inf<T>() : T(0);
  return static_cast<T>(upper ? base.log_sf(v) : base.log_cdf(v));
}

}  // namespace detail

/// log P(X <= x) and log P(X > x) (Stan's _lcdf and _lccdf).
template <class T, class B> AIMZ_MATH_FN T log_cdf_of(const B& base, T x) {
  return detail::log_cdf_or_sf(base, x, false);
}
template <class T, class B> AIMZ_MATH_FN T log_ccdf_of(const B& base, T x) {
  return detail::log_cdf_or_sf(base, x, true);
}

// -------------------------------------------------- the rows' bases

template <class T> AIMZ_MATH_FN auto normal_cdf(T loc, T scale) {
  return detail::SymmetricCdf<detail::NormalBase<true>>{{}, double(loc), double(scale)};
}
template <class T> AIMZ_MATH_FN auto cauchy_cdf(T loc, T scale) {
  return detail::SymmetricCdf<detail::CauchyBase>{{}, double(loc), double(scale)};
}
template <class T> AIMZ_MATH_FN auto laplace_cdf(T loc, T scale) {
  return detail::SymmetricCdf<detail::LaplaceBase>{{}, double(loc), double(scale)};
}
template <class T> AIMZ_MATH_FN auto logistic_cdf(T loc, T scale) {
  return detail::SymmetricCdf<detail::LogisticBase>{{}, double(loc), double(scale)};
}
template <class T> AIMZ_MATH_FN auto student_t_cdf(T df, T loc, T scale) {
  return detail::SymmetricCdf<detail::StudentTBase>{{double(df)}, double(loc), double(scale),
                                                    detail::pos_finite(double(df))};
}
template <class T> AIMZ_MATH_FN auto exponential_cdf(T rate) { return detail::ExponentialCdf{double(rate)}; }
template <class T> AIMZ_MATH_FN auto weibull_cdf(T scale, T k) { return detail::WeibullCdf{double(scale), double(k)}; }
template <class T> AIMZ_MATH_FN auto gumbel_cdf(T loc, T scale) { return detail::GumbelCdf{double(loc), double(scale)}; }
template <class T> AIMZ_MATH_FN auto pareto_cdf(T scale, T alpha) {
  return detail::ParetoCdf{double(scale), double(alpha)};
}
template <class T> AIMZ_MATH_FN auto gamma_cdf(T concentration, T rate) {
  return detail::GammaCdf{double(concentration), double(rate)};
}
template <class T> AIMZ_MATH_FN auto inverse_gamma_cdf(T concentration, T rate) {
  return detail::InverseGammaCdf{double(concentration), double(rate)};
}
template <class T> AIMZ_MATH_FN auto log_normal_cdf(T loc, T scale) {
  return detail::LogNormalCdf{{{}, double(loc), double(scale)}};
}
template <class T> AIMZ_MATH_FN auto half_normal_cdf(T scale) { return detail::HalfNormalCdf{double(scale)}; }
template <class T> AIMZ_MATH_FN auto half_cauchy_cdf(T scale) { return detail::HalfCauchyCdf{double(scale)}; }
template <class T> AIMZ_MATH_FN auto beta_cdf(T concentration1, T concentration0) {
  return detail::BetaCdf{double(concentration1), double(concentration0)};
}
template <class T> AIMZ_MATH_FN auto kumaraswamy_cdf(T concentration1, T concentration0) {
  return detail::KumaraswamyCdf{double(concentration1), double(concentration0)};
}
template <class T> AIMZ_MATH_FN auto uniform_cdf(T low, T high) { return detail::UniformCdf{double(low), double(high)}; }
template <class T> AIMZ_MATH_FN auto log_uniform_cdf(T low, T high) {
  return detail::LogUniformCdf{double(low), double(high)};
}
template <class T> AIMZ_MATH_FN auto asymmetric_laplace_cdf(T loc, T scale, T asymmetry) {
  return detail::AsymmetricLaplaceCdf{double(loc), double(scale), double(asymmetry)};
}
template <class T> AIMZ_MATH_FN auto chi2_cdf(T df) { return detail::GammaCdf{0.5 * double(df), 0.5}; }
/// BetaProportion(mean, c) is Beta(mean c, (1 - mean) c); a mean outside
/// (0, 1) makes both concentrations invalid.
template <class T> AIMZ_MATH_FN auto beta_proportion_cdf(T mean, T concentration) {
  const bool ok = beta_proportion_ok(mean, concentration);
  const double m = double(mean), c = double(concentration);
  return detail::BetaCdf{ok ? m * c : detail::nan<double>(), ok ? (1.0 - m) * c : detail::nan<double>()};
}
template <class T> AIMZ_MATH_FN auto poisson_cdf(T rate) {
  return detail::CountCdf<detail::PoissonCounts>{{double(rate)}};
}
template <class T> AIMZ_MATH_FN auto negative_binomial2_cdf(T mean, T concentration) {
  const double m = double(mean), c = double(concentration), sum = m + c;
  return detail::CountCdf<detail::NegativeBinomialCounts>{
      {c, c / sum, m / sum, detail::pos_finite(m) && detail::pos_finite(c)}};
}
template <class T> AIMZ_MATH_FN auto gamma_poisson_cdf(T concentration, T rate) {
  const double c = double(concentration), r = double(rate);
  return detail::CountCdf<detail::NegativeBinomialCounts>{
      {c, r / (1.0 + r), 1.0 / (1.0 + r), detail::pos_finite(c) && detail::pos_finite(r)}};
}
template <class T> AIMZ_MATH_FN auto negative_binomial_probs_cdf(T total_count, T probs) {
  const double n = double(total_count), p = double(probs);
  return detail::CountCdf<detail::NegativeBinomialCounts>{{n, 1.0 - p, p, detail::pos_finite(n) && p >= 0.0 && p < 1.0}};
}
template <class T> AIMZ_MATH_FN auto negative_binomial_logits_cdf(T total_count, T logits) {
  const double n = double(total_count), l = double(logits);
  return detail::CountCdf<detail::NegativeBinomialCounts>{
      {n, sigmoid(-l), sigmoid(l), detail::pos_finite(n) && !std::isnan(l) && l != detail::inf<double>()}};
}
template <class T> AIMZ_MATH_FN auto geometric_cdf(T probs) {
  const double p = double(probs);
  return detail::CountCdf<detail::GeometricCounts>{{std::log1p(-p), p > 0.0 && p <= 1.0}};
}
template <class T> AIMZ_MATH_FN auto geometric_logits_cdf(T logits) {
  const double l = double(logits);
  return detail::CountCdf<detail::GeometricCounts>{{-softplus(l), !std::isnan(l) && l != -detail::inf<double>()}};
}
template <class T> AIMZ_MATH_FN auto binomial_cdf(T total_count, T probs) {
  const double p = double(probs);
  return detail::CountCdf<detail::BinomialCounts>{{double(total_count), p, 1.0 - p}};
}
template <class T> AIMZ_MATH_FN auto binomial_logits_cdf(T total_count, T logits) {
  const double l = double(logits);
  return detail::CountCdf<detail::BinomialCounts>{{double(total_count), sigmoid(l), sigmoid(-l)}};
}
template <class T> AIMZ_MATH_FN auto beta_binomial_cdf(T concentration1, T concentration0, T total_count) {
  return detail::CountCdf<detail::BetaBinomialCounts>{
      {double(concentration1), double(concentration0), double(total_count)}};
}
template <class T> AIMZ_MATH_FN auto discrete_uniform_cdf(T low, T high) {
  return detail::CountCdf<detail::DiscreteUniformCounts>{{double(low), double(high)}};
}
// The zero-inflated counts: the base's CDF and the gate (a probability, or
// its logits), in the rows' parameter orders.
template <class T> AIMZ_MATH_FN auto zero_inflated_poisson_cdf(T gate, T rate) {
  const double g = double(gate);
  return detail::CountCdf<detail::ZeroInflatedCounts<detail::PoissonCounts>>{
      {{double(rate)}, std::log(g), std::log1p(-g), detail::valid_prob(g)}};
}
template <class T> AIMZ_MATH_FN auto zero_inflated_poisson_logits_cdf(T rate, T gate_logits) {
  const double l = double(gate_logits);
  return detail::CountCdf<detail::ZeroInflatedCounts<detail::PoissonCounts>>{
      {{double(rate)}, -softplus(-l), -softplus(l), !std::isnan(l)}};
}
template <class T> AIMZ_MATH_FN auto zero_inflated_negative_binomial2_cdf(T mean, T concentration, T gate) {
  const double g = double(gate);
  return detail::CountCdf<detail::ZeroInflatedCounts<detail::NegativeBinomialCounts>>{
      {negative_binomial2_cdf(mean, concentration).counts, std::log(g), std::log1p(-g), detail::valid_prob(g)}};
}
template <class T>
AIMZ_MATH_FN auto zero_inflated_negative_binomial2_logits_cdf(T mean, T concentration, T gate_logits) {
  const double l = double(gate_logits);
  return detail::CountCdf<detail::ZeroInflatedCounts<detail::NegativeBinomialCounts>>{
      {negative_binomial2_cdf(mean, concentration).counts, -softplus(-l), -softplus(l), !std::isnan(l)}};
}
/// PyMC's ZeroInflatedBinomial(psi, n, p): psi is the binomial's share.
template <class T> AIMZ_MATH_FN auto zero_inflated_binomial_cdf(T psi, T n, T p) {
  const double s = double(psi), pr = double(p);
  return detail::CountCdf<detail::ZeroInflatedCounts<detail::BinomialCounts>>{
      {{double(n), pr, 1.0 - pr}, std::log1p(-s), std::log(s), detail::valid_prob(s)}};
}
template <class T> AIMZ_MATH_FN auto bernoulli_cdf(T probs) { return binomial_cdf(T(1), probs); }
template <class T> AIMZ_MATH_FN auto bernoulli_logits_cdf(T logits) { return binomial_logits_cdf(T(1), logits); }

}  // namespace math
}  // namespace aimz
