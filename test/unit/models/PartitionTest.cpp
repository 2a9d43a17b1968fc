//===- PartitionTest.cpp - Same seed, any split, identical bytes ----------===//
//
// The counter-based generator addresses every random number by (site, draw,
// observation, element), so for one seed every returned site must be
// bit-for-bit identical whatever the rectangle split: observation block
// sizes, draw ranges, observation ranges, where the inputs start
// (input_obs_origin) and where the results start (result_*_origin). Global
// latents missing from the posterior are drawn once per draw: every call
// covering a draw, whatever its observation range, returns the same value.
// Checked for the three entry points on the examples of dsl-examples/.
//
//===----------------------------------------------------------------------===//
#include "ExampleData.h"

#include <sstream>

using namespace aimz::test;

namespace {

constexpr int64_t kObs = 1000;
constexpr int64_t kDraws = 3;
constexpr uint64_t kSeed = 20240917;

struct PartitionCase {
  const char *Label;
  const char *Model;
  std::map<std::string, int64_t> Dims; // all but the observation axis
  std::set<std::string> Missing;       // latents drawn fresh
  std::vector<EntryKind> Entries = {EntryKind::Predict,
                                    EntryKind::LogLikelihood,
                                    EntryKind::Prior};
};

const PartitionCase kCases[] = {
    {"linreg", "linreg", {{"k", 3}}, {"sigma"}},
    {"logistic", "logistic", {{"k", 4}}, {"intercept"}},
    {"hierarchical", "hierarchical", {}, {"sigma_a", "a", "sigma"}},
    {"poisson", "poisson", {{"k", 3}}, {"beta"}},
    {"local_latent", "local_latent", {}, {"z", "tau"}},
    {"local_latent_given_z", "local_latent", {}, {"beta"}},
    // The MLP's predictive and prior draws (its output is discrete); its
    // log-likelihood is in kMatMulBlockCases below.
    {"mlp", "mlp", {{"d", 100}}, {"w4", "b4"}, {EntryKind::Predict, EntryKind::Prior}},
    {"global_bcast", "global_bcast", {}, {"mu", "s"}},
    // Test models: a [n, K] local latent under nested plates, and a [K, n]
    // one whose observation axis is not the leading dim.
    {"nested", "nested", {}, {"a", "z"}},
    {"nested_given_z", "nested", {}, {"tau"}},
    {"obs_inner", "obs_inner", {}, {"z", "s"}},
    {"obs_inner_given_z", "obs_inner", {}, {"s"}},
};

// Floating values computed from matrix products whose right side is a
// matrix (the MLP's X @ w1, h @ w2, h @ w3): each element is a fixed-order
// sum (runtime/include/aimz/math/Gemm.h), so a row's hidden activations
// must not depend on obs_block or on where the rectangle starts.
const PartitionCase kMatMulBlockCases[] = {
    {"mlp_loglik", "mlp", {{"d", 100}}, {"w4", "b4"}, {EntryKind::LogLikelihood}},
    {"mlp_logits", "mlp_logits", {{"d", 100}}, {"w4", "b4"}},
};

// Row samplers: vector lanes and a scalar remainder, and for Gamma and
// InverseGamma the rejected first attempts redrawn by the full sampler
// (the inputs are normal draws, so some parameters are invalid: NaN).
const PartitionCase kRowSamplerCases[] = {
    {"gamma_f32", "dist_gamma_f32", {}, {}},
    {"gamma_f64", "dist_gamma_f64", {}, {}},
    {"inversegamma_f32", "dist_inversegamma_f32", {}, {}},
    {"studentt_f64", "dist_studentt_f64", {}, {}},
    {"poisson_f32", "dist_poisson_f32", {}, {}},
    {"cauchy_f32", "dist_cauchy_f32", {}, {}},
    {"halfcauchy_f64", "dist_halfcauchy_f64", {}, {}},
};

void PrintTo(const PartitionCase &C, std::ostream *OS) { *OS << C.Label; }

/// Byte equality of two arrays of one shape, with the first difference.
::testing::AssertionResult sameBytes(const Array &A, const Array &B) {
  if (A.shape() != B.shape() || A.type() != B.type())
    return ::testing::AssertionFailure() << "shapes or dtypes differ";
  std::vector<uint8_t> X = A.bytes(), Y = B.bytes();
  if (X == Y)
    return ::testing::AssertionSuccess();
  int64_t W = byteWidth(A.type()), Count = 0, First = -1;
  for (int64_t I = 0; I < A.size(); ++I)
    if (std::memcmp(&X[I * W], &Y[I * W], W)) {
      ++Count;
      if (First < 0)
        First = I;
    }
  std::ostringstream S;
  S.precision(9);
  S << Count << " of " << A.size() << " elements differ; first at [";
  auto Idx = A.unflatten(First);
  for (size_t I = 0; I < Idx.size(); ++I)
    S << (I ? ", " : "") << Idx[I];
  S << "]: " << A.get(First) << " vs " << B.get(First);
  return ::testing::AssertionFailure() << S.str();
}

/// Copies every element of Src into Dst shifted by Shift (per dim).
void copyInto(const Array &Src, const Array &Dst, const std::vector<int64_t> &Shift) {
  int64_t W = byteWidth(Src.type());
  for (int64_t I = 0; I < Src.size(); ++I) {
    auto Idx = Src.unflatten(I);
    auto *From = static_cast<uint8_t *>(Src.data()) + Src.linear(Idx) * W;
    for (size_t K = 0; K < Idx.size(); ++K)
      Idx[K] += Shift[K];
    auto *To = static_cast<uint8_t *>(Dst.data()) + Dst.linear(Idx) * W;
    std::memcpy(To, From, W);
  }
}

class Partition : public ::testing::TestWithParam<PartitionCase> {
protected:
  void SetUp() override {
    const PartitionCase &C = GetParam();
    M = loadModel(C.Model);
    ASSERT_TRUE(M);
    Q.Dims = C.Dims;
    Q.Dims[M->obsDim()] = kObs;
    std::mt19937_64 Rng(99);
    Q.Inputs = makeInputs(*M, Q.Dims, kObs, Rng);
    Q.Posterior = makePosterior(*M, Q.Dims, kObs, kDraws, Rng, C.Missing, 0.3);
    for (const std::string &S : C.Missing)
      ASSERT_GE(M->siteIndex(S), 0) << S;
    // Observed values for the log-likelihood: a predictive draw.
    Rect Rc{0, 1, 0, kObs, 0, kSeed + 1};
    Results Y = makeResults(*M, EntryKind::Predict, Q.Dims, 1, kObs, 0, 0,
                            {M->outputName()});
    ASSERT_TRUE(runOk(*M, EntryKind::Predict, Q, Rc, Y));
    Q.Observed = Y.Sites.at(M->outputName()).slice(0, 0, 1).copy();
    Q.Observed = reshapeDrop(Q.Observed);
  }

  static Array reshapeDrop(const Array &A) {
    // [1, ...] -> [...] (C-contiguous copy).
    std::vector<int64_t> Shape(A.shape().begin() + 1, A.shape().end());
    Array R = Array::make(A.type(), Shape);
    std::memcpy(R.data(), A.data(), A.size() * byteWidth(A.type()));
    return R;
  }

  /// Sites each entry returns: every site, but only the output's densities
  /// for the log-likelihood.
  std::vector<std::string> wanted(EntryKind K) const {
    if (K == EntryKind::LogLikelihood)
      return {M->outputName()};
    std::vector<std::string> N;
    for (const auto &S : M->sites())
      N.push_back(S.at("name"));
    return N;
  }

  Results reference(EntryKind K) {
    Results R = makeResults(*M, K, Q.Dims, kDraws, kObs, 0, 0, wanted(K));
    Rect Rc{0, kDraws, 0, kObs, 0, kSeed};
    EXPECT_TRUE(runOk(*M, K, Q, Rc, R));
    return R;
  }

  /// Runs the rectangles of a split (draw cuts x obs cuts) with rectangle
  /// results and inputs that start at the rectangle; checks global sites of
  /// every call against Ref and assembles the others.
  void checkSplit(EntryKind K, const Results &Ref,
                  const std::vector<int64_t> &DrawCuts,
                  const std::vector<int64_t> &ObsCuts, int64_t Block) {
    std::ostringstream Label;
    Label << entryName(K) << " split draws";
    for (int64_t C : DrawCuts) Label << " " << C;
    Label << " / obs";
    for (int64_t C : ObsCuts) Label << " " << C;
    Label << " / obs_block " << Block;
    SCOPED_TRACE(Label.str());
    Results Whole = makeResults(*M, K, Q.Dims, kDraws, kObs, 0, 0, wanted(K));
    for (size_t Di = 0; Di + 1 < DrawCuts.size(); ++Di)
      for (size_t Oi = 0; Oi + 1 < ObsCuts.size(); ++Oi) {
        int64_t Db = DrawCuts[Di], De = DrawCuts[Di + 1];
        int64_t Ob = ObsCuts[Oi], Oe = ObsCuts[Oi + 1];
        Request Sub = Q;
        Sub.InputObsOrigin = Ob;
        for (auto &[Name, A] : Sub.Inputs)
          A = A.slice(0, Ob, Oe).copy();
        Sub.Observed = Q.Observed.slice(0, Ob, Oe).copy();
        Results R = makeResults(*M, K, Q.Dims, De - Db, Oe - Ob, Db, Ob, wanted(K));
        Rect Rc{Db, De, Ob, Oe, Block, kSeed};
        ASSERT_TRUE(runOk(*M, K, Sub, Rc, R));
        for (auto &[Name, A] : R.Sites) {
          int Axis = M->obsAxis(M->site(Name).at("shape"));
          if (Axis < 0) {
            // A global site: this call's draws equal the whole run's.
            EXPECT_TRUE(sameBytes(A, Ref.Sites.at(Name).slice(0, Db, De)))
                << "global site " << Name << " in draws [" << Db << ", " << De
                << ") obs [" << Ob << ", " << Oe << ")";
            continue;
          }
          std::vector<int64_t> Shift(A.rank(), 0);
          Shift[0] = Db;
          Shift[1 + Axis] = Ob;
          copyInto(A, Whole.Sites.at(Name), Shift);
        }
      }
    for (auto &[Name, A] : Whole.Sites) {
      if (M->obsAxis(M->site(Name).at("shape")) >= 0) {
        EXPECT_TRUE(sameBytes(A, Ref.Sites.at(Name))) << "site " << Name;
      }
    }
  }

  std::unique_ptr<CompiledModel> M;
  Request Q;
};

TEST_P(Partition, ObsBlockSizes) {
  for (EntryKind K : GetParam().Entries) {
    Results Ref = reference(K);
    for (int64_t Block : {1, 7, 256, 1000, 4096}) {
      Results R = makeResults(*M, K, Q.Dims, kDraws, kObs, 0, 0, wanted(K));
      Rect Rc{0, kDraws, 0, kObs, Block, kSeed};
      ASSERT_TRUE(runOk(*M, K, Q, Rc, R)) << "obs_block " << Block;
      for (auto &[Name, A] : R.Sites)
        EXPECT_TRUE(sameBytes(A, Ref.Sites.at(Name)))
            << entryName(K) << " obs_block " << Block << " site " << Name;
    }
  }
}

TEST_P(Partition, RectangleSplits) {
  for (EntryKind K : GetParam().Entries) {
    Results Ref = reference(K);
    checkSplit(K, Ref, {0, 1, kDraws}, {0, 333, 334, kObs}, 7);
    checkSplit(K, Ref, {0, 2, kDraws}, {0, 500, kObs}, 1);
    checkSplit(K, Ref, {0, 1, 2, kDraws}, {0, 1, 257, 999, kObs}, 256);
    checkSplit(K, Ref, {0, kDraws}, {0, 100, 200, 300, 400, 1000}, 1000);
  }
}

// A rectangle written into whole-size result arrays (origins 0): inside it
// the values are the whole run's, outside the caller's bytes are untouched.
TEST_P(Partition, WritesOnlyItsRectangle) {
  for (EntryKind K : GetParam().Entries) {
    SCOPED_TRACE(entryName(K));
    Results Ref = reference(K);
    const int64_t Db = 1, De = kDraws, Ob = 100, Oe = 357;
    Results R = makeResults(*M, K, Q.Dims, kDraws, kObs, 0, 0, wanted(K), 0xA5);
    Rect Rc{Db, De, Ob, Oe, 7, kSeed};
    ASSERT_TRUE(runOk(*M, K, Q, Rc, R));
    for (auto &[Name, A] : R.Sites) {
      int Axis = M->obsAxis(M->site(Name).at("shape"));
      const Array &Want = Ref.Sites.at(Name);
      int64_t W = byteWidth(A.type()), Outside = 0, Wrong = 0;
      for (int64_t I = 0; I < A.size(); ++I) {
        auto Idx = A.unflatten(I);
        bool In = Idx[0] >= Db && Idx[0] < De &&
                  (Axis < 0 || (Idx[1 + Axis] >= Ob && Idx[1 + Axis] < Oe));
        auto *P = static_cast<uint8_t *>(A.data()) + A.linear(Idx) * W;
        if (In) {
          auto *Q2 = static_cast<uint8_t *>(Want.data()) + Want.linear(Idx) * W;
          Wrong += std::memcmp(P, Q2, W) != 0;
        } else {
          for (int64_t B = 0; B < W; ++B)
            if (P[B] != 0xA5) {
              ++Outside;
              break;
            }
        }
      }
      EXPECT_EQ(Wrong, 0) << "site " << Name << ": elements inside differ";
      EXPECT_EQ(Outside, 0) << "site " << Name << ": elements outside written";
    }
  }
}

// Different seeds give different fresh draws (the seed is used at all).
TEST_P(Partition, SeedMatters) {
  Results A = reference(EntryKind::Prior);
  Results B = makeResults(*M, EntryKind::Prior, Q.Dims, kDraws, kObs, 0, 0,
                          wanted(EntryKind::Prior));
  Rect Rc{0, kDraws, 0, kObs, 0, kSeed + 12345};
  ASSERT_TRUE(runOk(*M, EntryKind::Prior, Q, Rc, B));
  for (auto &[Name, X] : A.Sites) {
    if (M->site(Name).at("kind") == "latent" && !Q.Posterior.count(Name)) {
      EXPECT_NE(X.bytes(), B.Sites.at(Name).bytes()) << Name;
    }
  }
}

std::string caseName(const ::testing::TestParamInfo<PartitionCase> &I) {
  return I.param.Label;
}

INSTANTIATE_TEST_SUITE_P(Examples, Partition, ::testing::ValuesIn(kCases),
                         caseName);
INSTANTIATE_TEST_SUITE_P(MatMulBlocks, Partition,
                         ::testing::ValuesIn(kMatMulBlockCases), caseName);
INSTANTIATE_TEST_SUITE_P(RowSamplers, Partition,
                         ::testing::ValuesIn(kRowSamplerCases), caseName);

} // namespace
