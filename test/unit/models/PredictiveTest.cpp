//===- PredictiveTest.cpp - Predictive values against plain C++ -----------===//
//
// Given a posterior, the compiled examples must compute what their source
// says: linreg's eta = exp(alpha + X @ beta) and its Normal log-likelihood,
// the MLP's logits (100 -> 128 -> 128 -> 128 -> 1, ReLU) and Bernoulli
// log-likelihood, logistic's p, poisson's rate and hierarchical's gathered
// intercepts, each recomputed here in double precision. Inputs and
// posteriors are passed with non-contiguous strides where that exercises the
// ABI's views. Latents missing from the posterior are drawn once per draw:
// every observation of a draw sees the same value.
//
//===----------------------------------------------------------------------===//
#include "ExampleData.h"

#include <algorithm>
#include <cmath>

using namespace aimz::test;

namespace {

double logSigmoid(double X) {
  return X >= 0 ? -std::log1p(std::exp(-X)) : X - std::log1p(std::exp(X));
}

double normalLogPdf(double X, double Mu, double S) {
  double Z = (X - Mu) / S;
  return -0.5 * Z * Z - std::log(S) - 0.5 * std::log(2 * M_PI);
}

/// A column-major (Fortran-order) copy of a 2-D array.
Array columnMajor(const Array &A) {
  Array F = Array::strided(A.type(), A.shape(), {1, A.shape()[0]});
  for (int64_t I = 0; I < A.size(); ++I)
    F.set(I, A.get(I));
  return F;
}

/// A copy with the leading (draw) stride padded by `Pad` elements.
Array padded(const Array &A, int64_t Pad) {
  std::vector<int64_t> St(A.rank(), 1);
  for (int64_t I = A.rank() - 2; I >= 0; --I)
    St[I] = St[I + 1] * A.shape()[I + 1];
  St[0] += Pad;
  Array P = Array::strided(A.type(), A.shape(), St, 0x7F);
  for (int64_t I = 0; I < A.size(); ++I)
    P.set(I, A.get(I));
  return P;
}

TEST(Predictive, LinregEtaAndLogLikelihood) {
  auto M = loadModel("linreg");
  ASSERT_TRUE(M);
  const int64_t N = 500, K = 3, D = 4;
  Request Q;
  Q.Dims = {{"n", N}, {"k", K}};
  std::mt19937_64 Rng(1);
  auto In = makeInputs(*M, Q.Dims, N, Rng);
  Q.Inputs["X"] = columnMajor(In.at("X"));
  auto Post = makePosterior(*M, Q.Dims, N, D, Rng, {}, 0.5);
  Q.Posterior = Post;
  Q.Posterior["beta"] = padded(Post.at("beta"), 5);
  const Array &X = In.at("X");

  auto Mu = [&](int64_t Di, int64_t I, const Array &Alpha, const Array &Beta) {
    double S = Alpha.at<float>({Di});
    for (int64_t J = 0; J < K; ++J)
      S += static_cast<double>(X.at<float>({I, J})) * Beta.at<float>({Di, J});
    return S;
  };

  Results R = makeResults(*M, EntryKind::Predict, Q.Dims, D, N, 0, 0);
  ASSERT_TRUE(runOk(*M, EntryKind::Predict, Q, Rect{0, D, 0, N, 0, 5}, R));
  const Array &Eta = R.Sites.at("eta"), &Y = R.Sites.at("y");
  double SumZ = 0, SumZ2 = 0;
  for (int64_t Di = 0; Di < D; ++Di) {
    // Given latents come back as given.
    EXPECT_EQ(R.Sites.at("alpha").at<float>({Di}), Post.at("alpha").at<float>({Di}));
    EXPECT_EQ(R.Sites.at("sigma").at<float>({Di}), Post.at("sigma").at<float>({Di}));
    for (int64_t J = 0; J < K; ++J)
      EXPECT_EQ(R.Sites.at("beta").at<float>({Di, J}), Post.at("beta").at<float>({Di, J}));
    for (int64_t I = 0; I < N; ++I) {
      double Ref = std::exp(Mu(Di, I, Post.at("alpha"), Post.at("beta")));
      ASSERT_NEAR(Eta.at<float>({Di, I}), Ref, 1e-5 * Ref) << "draw " << Di << " obs " << I;
      double Z = (Y.at<float>({Di, I}) - Mu(Di, I, Post.at("alpha"), Post.at("beta"))) /
                 Post.at("sigma").at<float>({Di});
      SumZ += Z;
      SumZ2 += Z * Z;
    }
  }
  // y ~ Normal(mu, sigma): standardized residuals have mean 0, variance 1.
  double Cnt = D * N, MeanZ = SumZ / Cnt, VarZ = SumZ2 / Cnt - MeanZ * MeanZ;
  EXPECT_LT(std::fabs(MeanZ), 5 / std::sqrt(Cnt));
  EXPECT_LT(std::fabs(VarZ - 1), 5 * std::sqrt(2 / Cnt));

  // Pointwise log-likelihood of an observed y.
  Q.Observed = Array::make(DType::F32, {N});
  fillNormal(Q.Observed, Rng, 2);
  Results L = makeResults(*M, EntryKind::LogLikelihood, Q.Dims, D, N, 0, 0, {"y"});
  ASSERT_TRUE(runOk(*M, EntryKind::LogLikelihood, Q, Rect{0, D, 0, N, 0, 5}, L));
  for (int64_t Di = 0; Di < D; ++Di)
    for (int64_t I = 0; I < N; ++I) {
      double Ref = normalLogPdf(Q.Observed.at<float>({I}),
                                Mu(Di, I, Post.at("alpha"), Post.at("beta")),
                                Post.at("sigma").at<float>({Di}));
      ASSERT_NEAR(L.Sites.at("y").at<float>({Di, I}), Ref, 1e-5 * std::fabs(Ref) + 1e-6)
          << "draw " << Di << " obs " << I;
    }
}

// beta missing from the posterior: drawn once per draw, so eta at every
// observation (in every block) is exp(alpha + X @ beta) for the returned beta.
TEST(Predictive, LinregFreshGlobalLatentIsSharedByObservations) {
  auto M = loadModel("linreg");
  ASSERT_TRUE(M);
  const int64_t N = 700, K = 3, D = 3;
  Request Q;
  Q.Dims = {{"n", N}, {"k", K}};
  std::mt19937_64 Rng(2);
  Q.Inputs = makeInputs(*M, Q.Dims, N, Rng);
  Q.Posterior = makePosterior(*M, Q.Dims, N, D, Rng, {"beta"}, 0.5);
  Results R = makeResults(*M, EntryKind::Predict, Q.Dims, D, N, 0, 0);
  ASSERT_TRUE(runOk(*M, EntryKind::Predict, Q, Rect{0, D, 0, N, 64, 11}, R));
  const Array &X = Q.Inputs.at("X"), &Beta = R.Sites.at("beta");
  for (int64_t Di = 0; Di < D; ++Di)
    for (int64_t I = 0; I < N; ++I) {
      double S = Q.Posterior.at("alpha").at<float>({Di});
      for (int64_t J = 0; J < K; ++J)
        S += static_cast<double>(X.at<float>({I, J})) * Beta.at<float>({Di, J});
      ASSERT_NEAR(R.Sites.at("eta").at<float>({Di, I}), std::exp(S), 1e-5 * std::exp(S))
          << "draw " << Di << " obs " << I;
    }
}

TEST(Predictive, GlobalLatentSameAtEveryObservation) {
  auto M = loadModel("global_bcast");
  ASSERT_TRUE(M);
  const int64_t N = 1000, D = 5;
  Request Q;
  Q.Dims = {{"n", N}};
  std::mt19937_64 Rng(3);
  Q.Inputs = makeInputs(*M, Q.Dims, N, Rng);
  for (EntryKind K : {EntryKind::Predict, EntryKind::Prior}) {
    for (int64_t Block : {1, 7, 256}) {
      Results R = makeResults(*M, K, Q.Dims, D, N, 0, 0);
      ASSERT_TRUE(runOk(*M, K, Q, Rect{0, D, 0, N, Block, 8}, R));
      for (int64_t Di = 0; Di < D; ++Di)
        for (int64_t I = 0; I < N; ++I)
          ASSERT_EQ(R.Sites.at("m").at<float>({Di, I}), R.Sites.at("mu").at<float>({Di}))
              << entryName(K) << " block " << Block << " draw " << Di << " obs " << I;
    }
  }
}

/// The MLP's logits in double precision, and the same network on absolute
/// values (a bound on the magnitudes that float rounding scales with).
struct MlpRef {
  std::vector<double> Logit, Mag;
};

MlpRef mlpReference(const Array &X, const std::map<std::string, Array> &P,
                    int64_t Di, int64_t N, int64_t Din) {
  const int64_t H = 128;
  // This draw's weights as doubles, row-major [in, out].
  auto Take = [&](const char *Name) {
    const Array &A = P.at(Name);
    int64_t Per = A.size() / A.shape()[0];
    std::vector<double> W(Per);
    for (int64_t I = 0; I < Per; ++I)
      W[I] = A.get(Di * Per + I);
    return W;
  };
  const std::vector<double> Ws[3] = {Take("w1"), Take("w2"), Take("w3")};
  const std::vector<double> Bs[3] = {Take("b1"), Take("b2"), Take("b3")};
  const std::vector<double> W4 = Take("w4"), B4 = Take("b4");
  MlpRef R;
  for (int64_t I = 0; I < N; ++I) {
    std::vector<double> Cur(Din), CurM(Din);
    for (int64_t J = 0; J < Din; ++J) {
      Cur[J] = X.at<float>({I, J});
      CurM[J] = std::fabs(Cur[J]);
    }
    for (int L = 0; L < 3; ++L) {
      std::vector<double> Hn(H), Hm(H);
      for (int64_t O = 0; O < H; ++O) {
        double S = Bs[L][O], Sm = std::fabs(S);
        for (size_t J = 0; J < Cur.size(); ++J) {
          double Wv = Ws[L][J * H + O];
          S += Cur[J] * Wv;
          Sm += CurM[J] * std::fabs(Wv);
        }
        Hn[O] = std::max(S, 0.0);
        Hm[O] = Sm;
      }
      Cur = std::move(Hn);
      CurM = std::move(Hm);
    }
    double S = B4[0], Sm = std::fabs(S);
    for (int64_t J = 0; J < H; ++J) {
      S += Cur[J] * W4[J];
      Sm += CurM[J] * std::fabs(W4[J]);
    }
    R.Logit.push_back(S);
    R.Mag.push_back(Sm);
  }
  return R;
}

class MlpTest : public ::testing::Test {
protected:
  static constexpr int64_t N = 300, Din = 100, D = 2;
  void prepare(const CompiledModel &M) {
    Q.Dims = {{"n", N}, {"d", Din}};
    std::mt19937_64 Rng(4);
    Q.Inputs = makeInputs(M, Q.Dims, N, Rng);
    Q.Posterior = makePosterior(M, Q.Dims, N, D, Rng, {});
    // Weights ~ N(0, 1/fan_in) keep the activations of order one.
    for (auto &[Name, A] : Q.Posterior) {
      double Fan = Name == "w1" ? Din : Name[0] == 'w' ? 128 : 10;
      fillNormal(A, Rng, 1 / std::sqrt(Fan));
    }
    for (int64_t Di = 0; Di < D; ++Di)
      Ref.push_back(mlpReference(Q.Inputs.at("X"), Q.Posterior, Di, N, Din));
  }
  Request Q;
  std::vector<MlpRef> Ref;
};

TEST_F(MlpTest, LogitsMatchReference) {
  auto M = loadModel("mlp_logits");
  ASSERT_TRUE(M);
  prepare(*M);
  for (int64_t Block : {0, 1, 37}) {
    Results R = makeResults(*M, EntryKind::Predict, Q.Dims, D, N, 0, 0);
    ASSERT_TRUE(runOk(*M, EntryKind::Predict, Q, Rect{0, D, 0, N, Block, 3}, R));
    for (int64_t Di = 0; Di < D; ++Di)
      for (int64_t I = 0; I < N; ++I)
        ASSERT_NEAR(R.Sites.at("logit").at<float>({Di, I}), Ref[Di].Logit[I],
                    3e-5 * Ref[Di].Mag[I])
            << "obs_block " << Block << " draw " << Di << " obs " << I;
  }
}

TEST_F(MlpTest, ExampleLogLikelihoodAndPredictive) {
  auto M = loadModel("mlp");
  ASSERT_TRUE(M);
  prepare(*M);
  // Log-likelihood of y = (obs index is odd).
  Q.Observed = Array::make(DType::I32, {N});
  for (int64_t I = 0; I < N; ++I)
    Q.Observed.set(I, I % 2);
  Results L = makeResults(*M, EntryKind::LogLikelihood, Q.Dims, D, N, 0, 0, {"y"});
  ASSERT_TRUE(runOk(*M, EntryKind::LogLikelihood, Q, Rect{0, D, 0, N, 0, 3}, L));
  for (int64_t Di = 0; Di < D; ++Di)
    for (int64_t I = 0; I < N; ++I) {
      double Lg = Ref[Di].Logit[I];
      double Want = logSigmoid(I % 2 ? Lg : -Lg);
      ASSERT_NEAR(L.Sites.at("y").at<float>({Di, I}), Want,
                  3e-5 * Ref[Di].Mag[I] + 1e-5 * std::fabs(Want))
          << "draw " << Di << " obs " << I;
    }
  // Predictive y ~ Bernoulli(sigmoid(logit)): the count of ones matches.
  Results R = makeResults(*M, EntryKind::Predict, Q.Dims, D, N, 0, 0);
  ASSERT_TRUE(runOk(*M, EntryKind::Predict, Q, Rect{0, D, 0, N, 0, 3}, R));
  double Ones = 0, Expect = 0, Var = 0;
  for (int64_t Di = 0; Di < D; ++Di)
    for (int64_t I = 0; I < N; ++I) {
      int32_t Yv = R.Sites.at("y").at<int32_t>({Di, I});
      ASSERT_TRUE(Yv == 0 || Yv == 1) << Yv;
      double P = 1 / (1 + std::exp(-Ref[Di].Logit[I]));
      Ones += Yv;
      Expect += P;
      Var += P * (1 - P);
    }
  EXPECT_LT(std::fabs(Ones - Expect), 5 * std::sqrt(Var));
}

TEST(Predictive, LogisticProbabilities) {
  auto M = loadModel("logistic");
  ASSERT_TRUE(M);
  const int64_t N = 400, K = 4, D = 3;
  Request Q;
  Q.Dims = {{"n", N}, {"k", K}};
  std::mt19937_64 Rng(5);
  Q.Inputs = makeInputs(*M, Q.Dims, N, Rng);
  Q.Posterior = makePosterior(*M, Q.Dims, N, D, Rng, {});
  Results R = makeResults(*M, EntryKind::Predict, Q.Dims, D, N, 0, 0);
  ASSERT_TRUE(runOk(*M, EntryKind::Predict, Q, Rect{0, D, 0, N, 0, 1}, R));
  for (int64_t Di = 0; Di < D; ++Di)
    for (int64_t I = 0; I < N; ++I) {
      double L = Q.Posterior.at("intercept").at<float>({Di});
      for (int64_t J = 0; J < K; ++J)
        L += static_cast<double>(Q.Inputs.at("X").at<float>({I, J})) *
             Q.Posterior.at("coef").at<float>({Di, J});
      double P = 1 / (1 + std::exp(-L));
      ASSERT_NEAR(R.Sites.at("p").at<float>({Di, I}), P, 1e-6)
          << "draw " << Di << " obs " << I;
    }
}

TEST(Predictive, PoissonRate) {
  auto M = loadModel("poisson");
  ASSERT_TRUE(M);
  const int64_t N = 400, K = 3, D = 3;
  Request Q;
  Q.Dims = {{"n", N}, {"k", K}};
  std::mt19937_64 Rng(6);
  Q.Inputs = makeInputs(*M, Q.Dims, N, Rng);
  Q.Posterior = makePosterior(*M, Q.Dims, N, D, Rng, {}, 0.5);
  Results R = makeResults(*M, EntryKind::Predict, Q.Dims, D, N, 0, 0);
  ASSERT_TRUE(runOk(*M, EntryKind::Predict, Q, Rect{0, D, 0, N, 0, 1}, R));
  for (int64_t Di = 0; Di < D; ++Di)
    for (int64_t I = 0; I < N; ++I) {
      double E = Q.Posterior.at("beta0").at<float>({Di});
      for (int64_t J = 0; J < K; ++J)
        E += static_cast<double>(Q.Inputs.at("X").at<float>({I, J})) *
             Q.Posterior.at("beta").at<float>({Di, J});
      double Rate = Q.Inputs.at("exposure").at<float>({I}) * std::exp(E);
      ASSERT_NEAR(R.Sites.at("rate").at<float>({Di, I}), Rate, 1e-5 * Rate)
          << "draw " << Di << " obs " << I;
      EXPECT_GE(R.Sites.at("y").at<int32_t>({Di, I}), 0);
    }
}

TEST(Predictive, HierarchicalGatherLogLikelihood) {
  auto M = loadModel("hierarchical");
  ASSERT_TRUE(M);
  const int64_t N = 300, D = 3;
  Request Q;
  Q.Dims = {{"n", N}};
  std::mt19937_64 Rng(7);
  Q.Inputs = makeInputs(*M, Q.Dims, N, Rng, 8);
  Q.Posterior = makePosterior(*M, Q.Dims, N, D, Rng, {});
  Q.Observed = Array::make(DType::F32, {N});
  fillNormal(Q.Observed, Rng);
  Results L = makeResults(*M, EntryKind::LogLikelihood, Q.Dims, D, N, 0, 0, {"y"});
  ASSERT_TRUE(runOk(*M, EntryKind::LogLikelihood, Q, Rect{0, D, 0, N, 0, 1}, L));
  const auto &P = Q.Posterior;
  for (int64_t Di = 0; Di < D; ++Di)
    for (int64_t I = 0; I < N; ++I) {
      int32_t G = Q.Inputs.at("g").at<int32_t>({I});
      double Mu = static_cast<double>(P.at("a").at<float>({Di, G})) +
                  static_cast<double>(P.at("b").at<float>({Di})) * Q.Inputs.at("x").at<float>({I});
      double Ref = normalLogPdf(Q.Observed.at<float>({I}), Mu, P.at("sigma").at<float>({Di}));
      ASSERT_NEAR(L.Sites.at("y").at<float>({Di, I}), Ref, 1e-5 * std::fabs(Ref) + 1e-6)
          << "draw " << Di << " obs " << I << " group " << G;
    }
}

// Nested plates: y ~ Normal(x + sum over K of z[i, :], 1) with z given.
TEST(Predictive, NestedPlateLogLikelihood) {
  auto M = loadModel("nested");
  ASSERT_TRUE(M);
  const int64_t N = 200, D = 2, K = 3;
  Request Q;
  Q.Dims = {{"n", N}};
  std::mt19937_64 Rng(9);
  Q.Inputs = makeInputs(*M, Q.Dims, N, Rng);
  Q.Posterior = makePosterior(*M, Q.Dims, N, D, Rng, {});
  ASSERT_EQ(Q.Posterior.at("z").shape(), (std::vector<int64_t>{D, N, K}));
  Q.Observed = Array::make(DType::F32, {N});
  fillNormal(Q.Observed, Rng, 2);
  Results L = makeResults(*M, EntryKind::LogLikelihood, Q.Dims, D, N, 0, 0, {"y"});
  ASSERT_TRUE(runOk(*M, EntryKind::LogLikelihood, Q, Rect{0, D, 0, N, 16, 1}, L));
  for (int64_t Di = 0; Di < D; ++Di)
    for (int64_t I = 0; I < N; ++I) {
      double Mu = Q.Inputs.at("x").at<float>({I});
      for (int64_t J = 0; J < K; ++J)
        Mu += Q.Posterior.at("z").at<float>({Di, I, J});
      double Ref = normalLogPdf(Q.Observed.at<float>({I}), Mu, 1);
      ASSERT_NEAR(L.Sites.at("y").at<float>({Di, I}), Ref, 1e-5 * std::fabs(Ref) + 1e-6)
          << "draw " << Di << " obs " << I;
    }
}

/// |a - b| within `Ulps` units in the last place of b (doubles).
::testing::AssertionResult ulpClose(double A, double B, double Ulps) {
  if (A == B || (std::isnan(A) && std::isnan(B)))
    return ::testing::AssertionSuccess();
  double Tol = Ulps * std::nextafter(std::fabs(B), INFINITY) - Ulps * std::fabs(B);
  if (std::fabs(A - B) <= std::max(Tol, 1e-300))
    return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << A << " vs " << B << " (difference " << A - B << ")";
}

// Every function, operator and reduction against <cmath> in f64 (4 ulp:
// vector math libraries are allowed a few ulp).
TEST(Predictive, ElementwiseOpsAndReductions) {
  auto M = loadModel("ops");
  ASSERT_TRUE(M);
  const std::vector<double> Special = {0.0, -0.5, 3.0, 800.0, -800.0, 1e-10, -1e-10, 0.25, 40.0, -40.0};
  const int64_t N = 64 + static_cast<int64_t>(Special.size()), K = 5;
  Request Q;
  Q.Dims = {{"n", N}, {"k", K}};
  std::mt19937_64 Rng(10);
  Q.Inputs = makeInputs(*M, Q.Dims, N, Rng, 1000);
  Array X = Q.Inputs.at("x"), V = Q.Inputs.at("v"), C = Q.Inputs.at("c"), Iv = Q.Inputs.at("i");
  fillNormal(X, Rng, 3);
  for (size_t S = 0; S < Special.size(); ++S)
    X.set(static_cast<int64_t>(S), Special[S]);
  for (int64_t I = 0; I < N; ++I) {
    C.set(I, I % 3 == 0);
    Iv.set(I, static_cast<double>(I * 1000003 % 2000001) - 1000000.0);
  }
  Results R = makeResults(*M, EntryKind::Predict, Q.Dims, 1, N, 0, 0);
  ASSERT_TRUE(runOk(*M, EntryKind::Predict, Q, Rect{0, 1, 0, N, 0, 1}, R));
  auto Site = [&](const char *Name, int64_t I) { return R.Sites.at(Name).get(I); };
  for (int64_t I = 0; I < N; ++I) {
    SCOPED_TRACE("x = " + std::to_string(X.get(I)));
    double x = X.get(I), ax = std::fabs(x);
    EXPECT_TRUE(ulpClose(Site("d_exp", I), std::exp(-ax), 4)) << "exp";
    EXPECT_TRUE(ulpClose(Site("d_log", I), std::log(ax + 1e-3), 4)) << "log";
    EXPECT_TRUE(ulpClose(Site("d_log1p", I), std::log1p(ax), 4)) << "log1p";
    EXPECT_TRUE(ulpClose(Site("d_sqrt", I), std::sqrt(ax), 1)) << "sqrt";
    EXPECT_EQ(Site("d_abs", I), ax);
    EXPECT_EQ(Site("d_neg", I), -x);
    EXPECT_TRUE(ulpClose(Site("d_tanh", I), std::tanh(x), 4)) << "tanh";
    EXPECT_TRUE(ulpClose(Site("d_sigmoid", I), 1 / (1 + std::exp(-x)), 4)) << "sigmoid";
    EXPECT_EQ(Site("d_relu", I), std::max(x, 0.0));
    double Softplus = std::max(x, 0.0) + std::log1p(std::exp(-ax));
    EXPECT_TRUE(ulpClose(Site("d_softplus", I), Softplus, 4)) << "softplus";
    EXPECT_TRUE(ulpClose(Site("d_pow", I), std::pow(ax, 1.5), 4)) << "pow";
    EXPECT_TRUE(ulpClose(Site("d_arith", I), (x - 1) * 2 / 3 + x, 1)) << "arithmetic";
    double Sum = 0, Mn = INFINITY, Mx = -INFINITY;
    for (int64_t J = 0; J < K; ++J) {
      double Vj = V.at<double>({I, J});
      Sum += Vj;
      Mn = std::min(Mn, Vj);
      Mx = std::max(Mx, Vj);
    }
    EXPECT_TRUE(ulpClose(Site("d_sum", I), Sum, 4)) << "sum";
    EXPECT_TRUE(ulpClose(Site("d_mean", I), Sum / K, 4)) << "mean";
    EXPECT_EQ(Site("d_min", I), Mn);
    EXPECT_EQ(Site("d_max", I), Mx);
    EXPECT_EQ(Site("d_min2", I), std::min(x, 0.5));
    EXPECT_EQ(Site("d_max2", I), std::max(x, 0.5));
    EXPECT_EQ(R.Sites.at("d_gt").at<uint8_t>({0, I}), x > 0 ? 1 : 0);
    EXPECT_EQ(R.Sites.at("d_le").at<uint8_t>({0, I}), x <= 0.25 ? 1 : 0);
    EXPECT_EQ(R.Sites.at("d_int").at<int64_t>({0, I}), Iv.at<int64_t>({I}) * 2 + 1);
    EXPECT_EQ(R.Sites.at("d_bool").at<uint8_t>({0, I}), I % 3 == 0 ? 1 : 0);
    EXPECT_TRUE(ulpClose(Site("d_expm1", I), std::expm1(x / 10), 4)) << "expm1";
    double LogSig = std::min(x, 0.0) - std::log1p(std::exp(-ax));
    EXPECT_TRUE(ulpClose(Site("d_log_sigmoid", I), LogSig, 4)) << "log_sigmoid";
    double LG = std::lgamma(x);
    if (std::isinf(LG))
      EXPECT_TRUE(std::isinf(Site("d_lgamma", I))) << "lgamma pole";
    else
      EXPECT_NEAR(Site("d_lgamma", I), LG, 1e-13 * std::max(1.0, std::fabs(LG)))
          << "lgamma";
    EXPECT_TRUE(ulpClose(Site("d_erf", I), std::erf(x), 2)) << "erf";
    // erfc magnifies the argument's rounding by ~2 x^2 in the lower tail.
    double Phi = 0.5 * std::erfc(-x / std::sqrt(2.0));
    EXPECT_NEAR(Site("d_phi", I), Phi, 1e-15 * (1 + 2 * x * x) * Phi) << "Phi";
    EXPECT_TRUE(ulpClose(Site("d_sin", I), std::sin(x), 1)) << "sin";
    EXPECT_TRUE(ulpClose(Site("d_cos", I), std::cos(x), 1)) << "cos";
    EXPECT_EQ(Site("d_minimum", I), std::min(x, V.at<double>({I, 0})));
    EXPECT_EQ(Site("d_maximum", I), std::max(x, 0.5));
    EXPECT_TRUE(ulpClose(Site("d_pow2", I), std::pow(ax, 0.75), 4)) << "pow";
    EXPECT_EQ(Site("d_clip", I), std::min(std::max(x, -1.0), 2.0));
    EXPECT_EQ(Site("d_where", I), x > 0.25 ? x : -2 * x);
    // logsumexp without overflow (v * 300 reaches exp(1000)), softmax and
    // log_softmax over the row.
    double M300 = -INFINITY, Mv = -INFINITY;
    for (int64_t J = 0; J < K; ++J) {
      M300 = std::max(M300, 300 * V.at<double>({I, J}));
      Mv = std::max(Mv, V.at<double>({I, J}));
    }
    double S300 = 0, Sv = 0;
    for (int64_t J = 0; J < K; ++J) {
      S300 += std::exp(300 * V.at<double>({I, J}) - M300);
      Sv += std::exp(V.at<double>({I, J}) - Mv);
    }
    EXPECT_TRUE(ulpClose(Site("d_lse", I), M300 + std::log(S300), 8)) << "logsumexp";
    double RowSum = 0;
    for (int64_t J = 0; J < K; ++J) {
      double Want = V.at<double>({I, J}) - (Mv + std::log(Sv));
      double GotLog = R.Sites.at("d_log_softmax").at<double>({0, I, J});
      EXPECT_NEAR(GotLog, Want, 1e-14 * (1 + std::fabs(Want))) << "log_softmax";
      double GotP = R.Sites.at("d_softmax").at<double>({0, I, J});
      EXPECT_NEAR(GotP, std::exp(Want), 1e-14) << "softmax";
      RowSum += GotP;
    }
    EXPECT_NEAR(RowSum, 1.0, 1e-13) << "softmax sums to 1";
    EXPECT_EQ(R.Sites.at("d_where_int").at<int64_t>({0, I}),
              I % 3 == 0 ? Iv.at<int64_t>({I}) : 7);
    // Log-density arithmetic (Stan's names) against its definitions.
    double Sig8 = 1 / (1 + std::exp(-x / 8));
    EXPECT_EQ(Site("d_square", I), x * x);
    // (from the model's own sigmoid: log1m magnifies its last bit near 1)
    EXPECT_TRUE(ulpClose(Site("d_log1m", I), std::log1p(-Site("d_sigmoid", I)), 4))
        << "log1m";
    double L1mE = ax < M_LN2 ? std::log(-std::expm1(-ax)) : std::log1p(-std::exp(-ax));
    EXPECT_TRUE(ulpClose(Site("d_log1m_exp", I), L1mE, 8)) << "log1m_exp";
    double Logit = std::log(Sig8) - std::log1p(-Sig8);
    if (std::isinf(Logit))
      EXPECT_EQ(Site("d_logit", I), Logit) << "logit";
    else // (near p = 1/2 the result is near 0: an absolute bound)
      EXPECT_NEAR(Site("d_logit", I), Logit, 1e-13 * (1 + std::fabs(Logit))) << "logit";
    double LogSigNeg = std::min(-x, 0.0) - std::log1p(std::exp(-ax));
    EXPECT_TRUE(ulpClose(Site("d_log1m_inv_logit", I), LogSigNeg, 4)) << "log1m_inv_logit";
    EXPECT_EQ(Site("d_inv_logit", I), Site("d_sigmoid", I));
    auto LogAdd = [](double A, double B) {
      double M = std::max(A, B);
      return M == -INFINITY ? M : M + std::log1p(std::exp(-std::fabs(A - B)));
    };
    // max + log1p(...) cancels: a bound relative to the terms, not the sum.
    double V0 = V.at<double>({I, 0});
    EXPECT_NEAR(Site("d_logaddexp", I), LogAdd(x, V0),
                4e-16 * (1 + std::max(std::fabs(x), std::fabs(V0))))
        << "logaddexp";
    EXPECT_NEAR(Site("d_log_sum_exp2", I), LogAdd(x, -2 * x), 4e-16 * (1 + 2 * ax))
        << "log_sum_exp";
    // log(e^|x| - e^-|x|) = |x| + log1m_exp(-2|x|): -inf at 0.
    double D2 = -2 * ax;
    double LDE = ax + (D2 > -M_LN2 ? std::log(-std::expm1(D2)) : std::log1p(-std::exp(D2)));
    EXPECT_TRUE(ulpClose(Site("d_log_diff_exp", I), LDE, 8)) << "log_diff_exp";
    double A5 = ax + 0.5;
    double LBeta = std::lgamma(A5) + std::lgamma(2.5) - std::lgamma(A5 + 2.5);
    EXPECT_NEAR(Site("d_lbeta", I), LBeta, 1e-12 * std::max(1.0, std::fabs(LBeta))) << "lbeta";
    double N3 = ax + 3;
    double LChoose = std::lgamma(N3 + 1) - std::lgamma(3.0) - std::lgamma(N3 - 1);
    EXPECT_NEAR(Site("d_lchoose", I), LChoose, 1e-12 * std::max(1.0, std::fabs(LChoose)))
        << "lchoose";
    // Dimensions as values: the whole extents, whatever the block.
    EXPECT_TRUE(ulpClose(Site("d_per_obs", I), x / N + std::log(double(K)), 4)) << "x / n + log(k)";
  }
  EXPECT_EQ(R.Sites.at("d_dims").at<int64_t>({0}), N * K - 1);
}

/// |a - b| within `Ulps` float ulps of b (NaN matches NaN).
::testing::AssertionResult ulpCloseF(float A, float B, float Ulps) {
  if (A == B || (std::isnan(A) && std::isnan(B)))
    return ::testing::AssertionSuccess();
  float Ulp = std::nextafter(std::fabs(B), INFINITY) - std::fabs(B);
  if (std::fabs(A - B) <= Ulps * Ulp)
    return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << A << " vs " << B << " (difference "
                                       << A - B << ", " << (A - B) / Ulp
                                       << " ulp)";
}

// The same functions in f32 against <cmath> evaluated in double and
// rounded (4 float ulp), and '^' on negative bases.
TEST(Predictive, ElementwiseOpsInF32) {
  auto M = loadModel("ops32");
  ASSERT_TRUE(M);
  const std::vector<float> Special = {0.0f, -0.5f, 3.0f, 80.0f, -80.0f, 1e-10f,
                                      -1e-10f, 0.25f, -2.0f, -1.0f};
  const int64_t N = 256 + static_cast<int64_t>(Special.size()), K = 7;
  Request Q;
  Q.Dims = {{"n", N}, {"k", K}};
  std::mt19937_64 Rng(12);
  Q.Inputs = makeInputs(*M, Q.Dims, N, Rng, 1000);
  Array X = Q.Inputs.at("x"), V = Q.Inputs.at("v");
  fillNormal(X, Rng, 3);
  for (size_t S = 0; S < Special.size(); ++S)
    X.set(static_cast<int64_t>(S), Special[S]);
  Results R = makeResults(*M, EntryKind::Predict, Q.Dims, 1, N, 0, 0);
  ASSERT_TRUE(runOk(*M, EntryKind::Predict, Q, Rect{0, 1, 0, N, 0, 1}, R));
  auto Site = [&](const char *Name, int64_t I) {
    return R.Sites.at(Name).at<float>({0, I});
  };
  auto F = [](double D) { return static_cast<float>(D); };
  for (int64_t I = 0; I < N; ++I) {
    float x = X.at<float>({I});
    double xd = x, ax = std::fabs(xd);
    SCOPED_TRACE("x = " + std::to_string(x));
    EXPECT_TRUE(ulpCloseF(Site("d_exp", I), F(std::exp(-ax)), 4)) << "exp";
    EXPECT_TRUE(ulpCloseF(Site("d_log", I), F(std::log(F(ax + 1e-3f))), 4))
        << "log";
    EXPECT_TRUE(ulpCloseF(Site("d_log1p", I), F(std::log1p(ax)), 4)) << "log1p";
    EXPECT_TRUE(ulpCloseF(Site("d_sqrt", I), F(std::sqrt(ax)), 1)) << "sqrt";
    EXPECT_TRUE(ulpCloseF(Site("d_tanh", I), F(std::tanh(xd)), 4)) << "tanh";
    EXPECT_TRUE(ulpCloseF(Site("d_sigmoid", I), F(1 / (1 + std::exp(-xd))), 4))
        << "sigmoid";
    double Softplus = std::max(xd, 0.0) + std::log1p(std::exp(-ax));
    EXPECT_TRUE(ulpCloseF(Site("d_softplus", I), F(Softplus), 4)) << "softplus";
    EXPECT_TRUE(ulpCloseF(Site("d_pow", I), F(std::pow(ax, 1.5)), 4)) << "pow";
    EXPECT_TRUE(ulpCloseF(Site("d_pow3", I), F(xd * xd * xd), 4)) << "x ^ 3";
    EXPECT_TRUE(ulpCloseF(Site("d_pow2", I), F(xd * xd), 4)) << "x ^ 2";
    if (x < 0)
      EXPECT_TRUE(std::isnan(Site("d_pow_half", I))) << "negative ^ 0.5";
    else
      EXPECT_TRUE(ulpCloseF(Site("d_pow_half", I), F(std::sqrt(xd)), 4))
          << "x ^ 0.5";
    EXPECT_TRUE(ulpCloseF(Site("d_arith", I), (x - 1.0f) * 2.0f / 3.0f + x, 1))
        << "arithmetic";
    double Sum = 0;
    float Mx = -INFINITY;
    for (int64_t J = 0; J < K; ++J) {
      Sum += V.at<float>({I, J});
      Mx = std::max(Mx, V.at<float>({I, J}));
    }
    EXPECT_NEAR(Site("d_sum", I), Sum, 1e-5 * (std::fabs(Sum) + K)) << "sum";
    EXPECT_EQ(Site("d_max", I), Mx);
  }
}

// abi.h: the prior predictive draws every latent from its prior, so a
// posterior passed to it changes nothing.
TEST(Predictive, PriorPredictiveIgnoresThePosterior) {
  for (const char *Name : {"linreg", "hierarchical", "local_latent"}) {
    SCOPED_TRACE(Name);
    auto M = loadModel(Name);
    ASSERT_TRUE(M);
    const int64_t N = 300, D = 3;
    Request Q;
    Q.Dims = {{"n", N}, {"k", 3}};
    std::mt19937_64 Rng(11);
    Q.Inputs = makeInputs(*M, Q.Dims, N, Rng);
    Results Without = makeResults(*M, EntryKind::Prior, Q.Dims, D, N, 0, 0);
    ASSERT_TRUE(runOk(*M, EntryKind::Prior, Q, Rect{0, D, 0, N, 0, 21}, Without));
    Q.Posterior = makePosterior(*M, Q.Dims, N, D, Rng, {});
    Results With = makeResults(*M, EntryKind::Prior, Q.Dims, D, N, 0, 0);
    ASSERT_TRUE(runOk(*M, EntryKind::Prior, Q, Rect{0, D, 0, N, 0, 21}, With));
    for (auto &[Site, A] : Without.Sites)
      EXPECT_EQ(A.bytes(), With.Sites.at(Site).bytes()) << "site " << Site;
  }
}

// abi.h: results[s].data == NULL means not wanted; asking for one site
// gives the values of a run that asks for all of them.
TEST(Predictive, OnlyTheWantedSites) {
  auto M = loadModel("linreg");
  ASSERT_TRUE(M);
  const int64_t N = 300, D = 2;
  Request Q;
  Q.Dims = {{"n", N}, {"k", 3}};
  std::mt19937_64 Rng(12);
  Q.Inputs = makeInputs(*M, Q.Dims, N, Rng);
  Q.Posterior = makePosterior(*M, Q.Dims, N, D, Rng, {"beta"});
  Results All = makeResults(*M, EntryKind::Predict, Q.Dims, D, N, 0, 0);
  ASSERT_TRUE(runOk(*M, EntryKind::Predict, Q, Rect{0, D, 0, N, 0, 4}, All));
  for (const char *Site : {"eta", "y", "beta"}) {
    Results One = makeResults(*M, EntryKind::Predict, Q.Dims, D, N, 0, 0, {Site});
    ASSERT_TRUE(runOk(*M, EntryKind::Predict, Q, Rect{0, D, 0, N, 0, 4}, One));
    EXPECT_EQ(One.Sites.at(Site).bytes(), All.Sites.at(Site).bytes()) << Site;
  }
}

// An empty rectangle is valid work: status OK, no observation written.
TEST(Predictive, EmptyRectangle) {
  auto M = loadModel("linreg");
  ASSERT_TRUE(M);
  const int64_t N = 100, D = 2;
  Request Q;
  Q.Dims = {{"n", N}, {"k", 3}};
  std::mt19937_64 Rng(13);
  Q.Inputs = makeInputs(*M, Q.Dims, N, Rng);
  Q.Posterior = makePosterior(*M, Q.Dims, N, D, Rng, {});
  for (Rect Rc : {Rect{0, D, 50, 50, 0, 1}, Rect{1, 1, 0, N, 0, 1}}) {
    Results R = makeResults(*M, EntryKind::Predict, Q.Dims, D, N, 0, 0, {"eta", "y"});
    CallOutcome O = run(*M, EntryKind::Predict, Q, Rc, R);
    EXPECT_EQ(O.Status, AIMZ_OK);
    for (auto &[Site, A] : R.Sites) {
      std::vector<uint8_t> B = A.bytes();
      EXPECT_TRUE(std::all_of(B.begin(), B.end(), [](uint8_t X) { return X == 0xA5; }))
          << Site << " written by an empty rectangle";
    }
  }
}

} // namespace
