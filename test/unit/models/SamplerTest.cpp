//===- SamplerTest.cpp - Samplers through compiled models -----------------===//
//
// 100k draws of each dist_<variant>_<prec> model's output site (parameters
// constant over a run of observations, several parameter sets per model) at
// fixed seeds, through aimz_prior_predictive (f32) and aimz_predict (f64):
//  - every draw lies in the support;
//  - mean (and variance where the fourth moment exists) within 5 standard
//    errors of the analytic moments;
//  - continuous: Kolmogorov-Smirnov against Boost.Math's CDF;
//    discrete: chi-square goodness of fit against Boost.Math's pmf;
// both at significance 1e-6, so a correct sampler fails with negligible
// probability while a biased one is caught at this sample size.
// Sample sites (latents) go through the same checks via latent_* models.
//
//===----------------------------------------------------------------------===//
#include "TestModel.h"

#include <boost/math/distributions/beta.hpp>
#include <boost/math/distributions/binomial.hpp>
#include <boost/math/distributions/cauchy.hpp>
#include <boost/math/distributions/chi_squared.hpp>
#include <boost/math/distributions/exponential.hpp>
#include <boost/math/distributions/gamma.hpp>
#include <boost/math/distributions/lognormal.hpp>
#include <boost/math/distributions/normal.hpp>
#include <boost/math/distributions/poisson.hpp>
#include <boost/math/distributions/students_t.hpp>
#include <boost/math/distributions/uniform.hpp>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <sstream>

using namespace aimz::test;
namespace bm = boost::math;

namespace {

constexpr int64_t kSamples = 100000;
constexpr double kAlpha = 1e-6;
constexpr double kInf = std::numeric_limits<double>::infinity();

/// The reference law of one parameter set.
struct Law {
  bool Discrete = false;
  double Lo = -kInf, Hi = kInf; // closed support bounds
  std::function<double(double)> Cdf; // continuous
  std::function<double(int64_t)> Pmf; // discrete
  double Mean = NAN, Var = NAN; // NaN: does not exist
  bool VarCheck = true;         // fourth moment finite
};

template <class D> std::function<double(double)> cdfOf(D Dist) {
  return [Dist](double X) {
    if (X <= bm::support(Dist).first)
      return 0.0;
    if (X >= bm::support(Dist).second)
      return 1.0;
    return bm::cdf(Dist, X);
  };
}

double sigmoid(double L) { return 1.0 / (1.0 + std::exp(-L)); }

/// The law of `Variant` with parameters P (the DSL's parameter order).
Law lawOf(const std::string &Variant, const std::vector<double> &P) {
  Law L;
  if (Variant == "normal") {
    bm::normal D(P[0], P[1]);
    L.Cdf = cdfOf(D);
    L.Mean = P[0];
    L.Var = P[1] * P[1];
  } else if (Variant == "halfnormal") {
    double S = P[0];
    L.Lo = 0;
    L.Cdf = [S](double X) { return X <= 0 ? 0.0 : std::erf(X / (S * std::sqrt(2.0))); };
    L.Mean = S * std::sqrt(2.0 / M_PI);
    L.Var = S * S * (1 - 2.0 / M_PI);
  } else if (Variant == "lognormal") {
    bm::lognormal D(P[0], P[1]);
    L.Lo = 0;
    L.Cdf = cdfOf(D);
    L.Mean = bm::mean(D);
    L.Var = bm::variance(D);
  } else if (Variant == "exponential") {
    bm::exponential D(P[0]);
    L.Lo = 0;
    L.Cdf = cdfOf(D);
    L.Mean = 1 / P[0];
    L.Var = 1 / (P[0] * P[0]);
  } else if (Variant == "gamma") {
    bm::gamma_distribution<> D(P[0], 1 / P[1]);
    L.Lo = 0;
    L.Cdf = cdfOf(D);
    L.Mean = P[0] / P[1];
    L.Var = P[0] / (P[1] * P[1]);
  } else if (Variant == "beta") {
    bm::beta_distribution<> D(P[0], P[1]);
    L.Lo = 0;
    L.Hi = 1;
    L.Cdf = cdfOf(D);
    L.Mean = P[0] / (P[0] + P[1]);
    L.Var = P[0] * P[1] / ((P[0] + P[1]) * (P[0] + P[1]) * (P[0] + P[1] + 1));
  } else if (Variant == "uniform") {
    bm::uniform D(P[0], P[1]);
    L.Lo = P[0];
    L.Hi = P[1];
    L.Cdf = cdfOf(D);
    L.Mean = (P[0] + P[1]) / 2;
    L.Var = (P[1] - P[0]) * (P[1] - P[0]) / 12;
  } else if (Variant == "cauchy") {
    bm::cauchy D(P[0], P[1]);
    L.Cdf = [D](double X) { return bm::cdf(D, X); };
  } else if (Variant == "halfcauchy") {
    double S = P[0];
    L.Lo = 0;
    L.Cdf = [S](double X) { return X <= 0 ? 0.0 : 2 / M_PI * std::atan(X / S); };
  } else if (Variant == "studentt") {
    double Df = P[0], Loc = P[1], Scale = P[2];
    bm::students_t D(Df);
    L.Cdf = [D, Loc, Scale](double X) { return bm::cdf(D, (X - Loc) / Scale); };
    if (Df > 1)
      L.Mean = Loc;
    if (Df > 2)
      L.Var = Scale * Scale * Df / (Df - 2);
    L.VarCheck = Df > 4;
  } else if (Variant == "bernoulli_probs" || Variant == "bernoulli_logits") {
    double Pr = Variant == "bernoulli_probs" ? P[0] : sigmoid(P[0]);
    L.Discrete = true;
    L.Lo = 0;
    L.Hi = 1;
    L.Pmf = [Pr](int64_t K) { return K == 1 ? Pr : K == 0 ? 1 - Pr : 0.0; };
    L.Mean = Pr;
    L.Var = Pr * (1 - Pr);
  } else if (Variant == "binomial_probs" || Variant == "binomial_logits") {
    double N = P[0];
    double Pr = Variant == "binomial_probs" ? P[1] : sigmoid(P[1]);
    bm::binomial D(N, Pr);
    L.Discrete = true;
    L.Lo = 0;
    L.Hi = N;
    L.Pmf = [D, N](int64_t K) { return K < 0 || K > N ? 0.0 : bm::pdf(D, static_cast<double>(K)); };
    L.Mean = N * Pr;
    L.Var = N * Pr * (1 - Pr);
  } else if (Variant == "poisson") {
    bm::poisson D(P[0]);
    L.Discrete = true;
    L.Lo = 0;
    L.Pmf = [D](int64_t K) { return K < 0 ? 0.0 : bm::pdf(D, static_cast<double>(K)); };
    L.Mean = P[0];
    L.Var = P[0];
  } else {
    throw std::runtime_error("no law for " + Variant);
  }
  return L;
}

/// Kolmogorov's limiting tail probability P(sqrt(n) D > lambda).
double kolmogorovQ(double Lambda) {
  if (Lambda < 0.2)
    return 1.0;
  double Sum = 0;
  for (int K = 1; K <= 100; ++K)
    Sum += (K % 2 ? 2.0 : -2.0) * std::exp(-2.0 * K * K * Lambda * Lambda);
  return std::min(1.0, std::max(0.0, Sum));
}

/// Checks the support, the moments and the goodness of fit of Xs.
void checkSample(std::vector<double> Xs, const Law &L, const std::string &What) {
  SCOPED_TRACE(What);
  const double N = static_cast<double>(Xs.size());
  int64_t Bad = 0;
  for (double X : Xs)
    if (!(X >= L.Lo && X <= L.Hi) || std::isnan(X) ||
        (L.Discrete && X != std::floor(X)))
      ++Bad;
  EXPECT_EQ(Bad, 0) << "draws outside the support [" << L.Lo << ", " << L.Hi << "]";
  if (Bad)
    return;

  // Moments.
  long double Sum = 0;
  for (double X : Xs)
    Sum += X;
  double Mean = static_cast<double>(Sum / N);
  long double M2 = 0, M4 = 0;
  for (double X : Xs) {
    long double D = X - Mean;
    M2 += D * D;
    M4 += D * D * D * D;
  }
  double Var = static_cast<double>(M2 / (N - 1));
  double Kurt = static_cast<double>(M4 / N);
  if (!std::isnan(L.Mean)) {
    double Se = std::sqrt((std::isnan(L.Var) ? Var : L.Var) / N);
    EXPECT_LE(std::fabs(Mean - L.Mean), 5 * Se)
        << "sample mean " << Mean << ", expected " << L.Mean;
  }
  if (!std::isnan(L.Var) && L.VarCheck) {
    // The standard error of the sample variance, plus its O(Var / N) bias
    // and second-order terms (they dominate when the fourth central moment
    // equals Var^2, as for Bernoulli(1/2)).
    double Se = std::sqrt(std::max(Kurt - Var * Var, 0.0) / N) + 2 * L.Var / N;
    EXPECT_LE(std::fabs(Var - L.Var), 5 * Se)
        << "sample variance " << Var << ", expected " << L.Var;
  }

  if (!L.Discrete) {
    std::sort(Xs.begin(), Xs.end());
    double D = 0;
    for (size_t I = 0; I < Xs.size(); ++I) {
      double F = L.Cdf(Xs[I]);
      D = std::max({D, F - I / N, (I + 1) / N - F});
    }
    double SqrtN = std::sqrt(N);
    double P = kolmogorovQ((SqrtN + 0.12 + 0.11 / SqrtN) * D);
    EXPECT_GT(P, kAlpha) << "Kolmogorov-Smirnov D = " << D << ", p = " << P;
    return;
  }

  // Chi-square: cells of expected count >= 20 around the mode, tails pooled.
  std::map<int64_t, int64_t> Counts;
  for (double X : Xs)
    ++Counts[static_cast<int64_t>(X)];
  int64_t Lo = static_cast<int64_t>(L.Lo);
  int64_t Mode = static_cast<int64_t>(std::floor(L.Mean));
  int64_t A = Mode, B = Mode;
  while (A - 1 >= Lo && N * L.Pmf(A - 1) >= 20)
    --A;
  while (N * L.Pmf(B + 1) >= 20)
    ++B;
  double Chi = 0;
  int Cells = 0;
  double Covered = 0;
  int64_t Inside = 0;
  for (int64_t K = A; K <= B; ++K) {
    double E = N * L.Pmf(K);
    double O = Counts.count(K) ? Counts[K] : 0;
    Chi += (O - E) * (O - E) / E;
    Covered += L.Pmf(K);
    Inside += static_cast<int64_t>(O);
    ++Cells;
  }
  // The left and right remainders as one or two cells.
  double PLeft = 0;
  for (int64_t K = Lo; K < A; ++K)
    PLeft += L.Pmf(K);
  double PRight = std::max(0.0, 1 - Covered - PLeft);
  int64_t OLeft = 0;
  for (auto [K, C] : Counts)
    if (K < A)
      OLeft += C;
  int64_t ORight = static_cast<int64_t>(N) - Inside - OLeft;
  for (auto [Pp, O] : {std::pair<double, int64_t>{PLeft, OLeft}, {PRight, ORight}}) {
    double E = N * Pp;
    if (E >= 5) {
      Chi += (O - E) * (O - E) / E;
      ++Cells;
    } else {
      EXPECT_LE(O, std::max(25.0, 10 * E)) << "too many draws in a tail of probability " << Pp;
    }
  }
  ASSERT_GE(Cells, 2);
  bm::chi_squared Ref(Cells - 1);
  double Crit = bm::quantile(bm::complement(Ref, kAlpha));
  EXPECT_LT(Chi, Crit) << "chi-square " << Chi << " on " << Cells - 1
                       << " degrees of freedom";
}

struct SamplerCase {
  const char *Variant;
  std::vector<std::vector<double>> ParamSets;
};

// Parameter sets cover each sampler's branches (Gamma and Beta below and
// above 1, small and large Poisson rates and binomial means).
const SamplerCase kCases[] = {
    {"normal", {{0, 1}, {3, 0.25}, {-100, 20}}},
    {"halfnormal", {{1}, {0.3}}},
    {"lognormal", {{0.5, 0.4}, {-2, 0.8}}},
    {"exponential", {{1}, {0.02}}},
    {"gamma", {{0.3, 1}, {1, 2}, {4.5, 0.5}, {80, 3}}},
    {"beta", {{0.4, 0.6}, {2, 5}, {30, 0.8}, {1, 1}}},
    {"uniform", {{0, 1}, {-3, 7}}},
    {"cauchy", {{0, 1}, {5, 0.1}}},
    {"halfcauchy", {{1}, {3}}},
    {"studentt", {{1, 0, 1}, {2.5, 1, 3}, {10, -2, 0.5}, {50, 0, 1}}},
    {"bernoulli_probs", {{0.02}, {0.5}, {0.9}}},
    {"bernoulli_logits", {{-3}, {0}, {1.5}}},
    {"binomial_probs", {{5, 0.3}, {20, 0.02}, {100, 0.5}, {1000, 0.35}}},
    {"binomial_logits", {{10, -1}, {500, 0.4}}},
    {"poisson", {{0.5}, {5}, {12}, {60}, {2000}}},
};

void PrintTo(const SamplerCase &C, std::ostream *OS) { *OS << C.Variant; }

using SamplerParam = std::tuple<SamplerCase, const char *>;

/// A fixed seed per model (FNV-1a of its name).
uint64_t fnv1a(const std::string &S) {
  uint64_t H = 1469598103934665603ull;
  for (unsigned char Ch : S)
    H = (H ^ Ch) * 1099511628211ull;
  return H;
}

class Sampler : public ::testing::TestWithParam<SamplerParam> {};

TEST_P(Sampler, MomentsAndGoodnessOfFit) {
  const SamplerCase &C = std::get<0>(GetParam());
  std::string Prec = std::get<1>(GetParam());
  std::string Name = std::string("dist_") + C.Variant + "_" + Prec;
  auto M = loadModel(Name);
  ASSERT_TRUE(M);

  // One run of kSamples observations per parameter set, in one call.
  int64_t Sets = static_cast<int64_t>(C.ParamSets.size());
  int64_t N = Sets * kSamples;
  Request Q;
  Q.Dims[M->obsDim()] = N;
  std::vector<std::string> Names;
  for (const auto &In : M->inputs()) {
    Names.push_back(In.at("name"));
    Q.Inputs[In.at("name")] = Array::make(parseDType(In.at("dtype")), {N});
  }
  ASSERT_EQ(Names.size(), C.ParamSets[0].size());
  for (int64_t S = 0; S < Sets; ++S)
    for (int64_t I = 0; I < kSamples; ++I)
      for (size_t P = 0; P < Names.size(); ++P)
        Q.Inputs[Names[P]].set(S * kSamples + I, C.ParamSets[S][P]);

  EntryKind K = Prec == "f32" ? EntryKind::Prior : EntryKind::Predict;
  Rect Rc;
  Rc.DrawEnd = 1;
  Rc.ObsEnd = N;
  Rc.Seed = fnv1a(Name);
  Results R = makeResults(*M, K, Q.Dims, 1, N, 0, 0, {M->outputName()});
  ASSERT_TRUE(runOk(*M, K, Q, Rc, R));
  const Array &Y = R.Sites.at(M->outputName());

  for (int64_t S = 0; S < Sets; ++S) {
    std::vector<double> Xs(kSamples);
    for (int64_t I = 0; I < kSamples; ++I)
      Xs[I] = Y.get(S * kSamples + I);
    std::ostringstream What;
    What << Name << " with parameters (";
    for (size_t P = 0; P < C.ParamSets[S].size(); ++P)
      What << (P ? ", " : "") << C.ParamSets[S][P];
    What << ")";
    checkSample(std::move(Xs), lawOf(C.Variant, C.ParamSets[S]), What.str());
  }
}

std::string samplerName(const ::testing::TestParamInfo<SamplerParam> &I) {
  return std::string(std::get<0>(I.param).Variant) + "_" + std::get<1>(I.param);
}

INSTANTIATE_TEST_SUITE_P(Models, Sampler,
                         ::testing::Combine(::testing::ValuesIn(kCases),
                                            ::testing::Values("f32", "f64")),
                         samplerName);

// Sample sites take the same path as the output: an observation-aligned
// latent rate ~ Gamma(2, 1) (one per observation), and the output
// y ~ Poisson(rate) whose marginal is negative binomial:
// P(y = k) = (k + 1) / 2^(k + 2).
TEST(SamplerLatent, ObsAlignedGammaAndItsPoissonMixture) {
  auto M = loadModel("latent_local_poisson_f64");
  ASSERT_TRUE(M);
  int64_t N = kSamples;
  Request Q;
  Q.Dims[M->obsDim()] = N;
  Q.Inputs["x"] = Array::make(DType::F64, {N});
  Rect Rc;
  Rc.ObsEnd = N;
  Rc.Seed = 77;
  Results R = makeResults(*M, EntryKind::Prior, Q.Dims, 1, N, 0, 0);
  ASSERT_TRUE(runOk(*M, EntryKind::Prior, Q, Rc, R));
  std::vector<double> Rate(N), Y(N);
  for (int64_t I = 0; I < N; ++I) {
    Rate[I] = R.Sites.at("rate").get(I);
    Y[I] = R.Sites.at("y").get(I);
  }
  checkSample(Rate, lawOf("gamma", {2, 1}), "latent rate ~ Gamma(2, 1)");
  Law NB;
  NB.Discrete = true;
  NB.Lo = 0;
  NB.Pmf = [](int64_t K) { return K < 0 ? 0.0 : (K + 1) * std::ldexp(1.0, -static_cast<int>(K) - 2); };
  NB.Mean = 2;
  NB.Var = 4; // E[rate] + Var[rate]
  checkSample(Y, NB, "y ~ Poisson(Gamma(2, 1))");
}

// Global latents: one value per draw. 20000 draws of one observation each
// through the prior predictive: mu ~ Normal(0, 1), s ~ HalfNormal(1).
TEST(SamplerLatent, GlobalLatentsAcrossDraws) {
  auto M = loadModel("latent_normal_f32");
  ASSERT_TRUE(M);
  const int64_t D = 20000;
  Request Q;
  Q.Dims[M->obsDim()] = 1;
  Q.Inputs["x"] = Array::make(DType::F32, {1});
  Rect Rc;
  Rc.DrawEnd = D;
  Rc.ObsEnd = 1;
  Rc.Seed = 4242;
  Results R = makeResults(*M, EntryKind::Prior, Q.Dims, D, 1, 0, 0);
  ASSERT_TRUE(runOk(*M, EntryKind::Prior, Q, Rc, R));
  std::vector<double> Mu(D), S(D), Z(D);
  for (int64_t I = 0; I < D; ++I) {
    Mu[I] = R.Sites.at("mu").get(I);
    S[I] = R.Sites.at("s").get(I);
    Z[I] = (R.Sites.at("y").get(I) - Mu[I]) / S[I];
  }
  checkSample(Mu, lawOf("normal", {0, 1}), "mu ~ Normal(0, 1) over draws");
  checkSample(S, lawOf("halfnormal", {1}), "s ~ HalfNormal(1) over draws");
  // y | mu, s ~ Normal(mu, s): standardized, N(0, 1).
  checkSample(Z, lawOf("normal", {0, 1}), "(y - mu) / s over draws");
}

} // namespace
