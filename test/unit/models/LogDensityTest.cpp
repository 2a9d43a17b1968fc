//===- LogDensityTest.cpp - Log densities through compiled models ---------===//
//
// Each dist_<variant>_<prec> model's output site uses one distribution with
// its parameters as inputs; latent_* models take some parameters from the
// posterior. aimz_log_likelihood must reproduce scipy.stats' log densities
// (logdensity_reference.inc, from make_reference.py): relative 1e-5 in f32
// models, 1e-12 in f64 models, -inf (never NaN) outside the support.
//
//===----------------------------------------------------------------------===//
#include "TestModel.h"

#include <cmath>
#include <sstream>

using namespace aimz::test;

namespace {

struct RefModel {
  const char *Name;
  const char *Precision;
  int NumParams;
  const char *Params[4];
};

struct RefCase {
  const char *Model;
  double Params[4];
  double X;
  double Expected;
};

#include "logdensity_reference.inc"

void PrintTo(const RefModel &M, std::ostream *OS) { *OS << M.Name; }

std::vector<const RefCase *> casesOf(const std::string &Model) {
  std::vector<const RefCase *> R;
  for (const RefCase &C : kRefCases)
    if (Model == C.Model)
      R.push_back(&C);
  return R;
}

/// Checks one density against the reference.
::testing::AssertionResult closeTo(double Got, double Expected, double RelTol) {
  if (std::isinf(Expected) && Expected < 0) {
    if (std::isinf(Got) && Got < 0)
      return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure()
           << "got " << Got << ", expected -inf (outside the support)";
  }
  if (!std::isfinite(Got))
    return ::testing::AssertionFailure() << "got " << Got << ", expected "
                                         << Expected;
  double Err = std::fabs(Got - Expected);
  if (Err <= RelTol * std::fabs(Expected))
    return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << "got " << Got << ", expected " << Expected << " (relative error "
         << Err / std::fabs(Expected) << " > " << RelTol << ")";
}

std::string describe(const RefModel &M, const RefCase &C) {
  std::ostringstream S;
  S.precision(17);
  S << M.Name << "(";
  for (int I = 0; I < M.NumParams; ++I)
    S << (I ? ", " : "") << M.Params[I] << "=" << C.Params[I];
  S << ") at x=" << C.X;
  return S.str();
}

class LogDensity : public ::testing::TestWithParam<RefModel> {};

TEST_P(LogDensity, MatchesScipy) {
  const RefModel &RM = GetParam();
  auto M = loadModel(RM.Name);
  ASSERT_TRUE(M);
  bool F64 = std::string(RM.Precision) == "f64";
  double Tol = F64 ? 1e-12 : 1e-5;
  // The model's precision follows the spec's rule, and the manifest agrees.
  ASSERT_EQ(M->specPrecision(), F64 ? DType::F64 : DType::F32);
  EXPECT_EQ(M->manifest().value("precision", ""), RM.Precision);

  std::vector<const RefCase *> Cases = casesOf(RM.Name);
  ASSERT_FALSE(Cases.empty());
  DType Out = parseDType(M->manifest().at("outputs").at(0).at("dtype"));

  // Parameters that are inputs vary per observation; those that are sites
  // come from the posterior and vary per draw.
  bool AllInputs = true;
  for (int I = 0; I < RM.NumParams; ++I)
    if (M->inputIndex(RM.Params[I]) < 0) {
      ASSERT_GE(M->siteIndex(RM.Params[I]), 0) << RM.Params[I];
      AllInputs = false;
    }

  auto MakeRequest = [&](const std::vector<const RefCase *> &Cs) {
    int64_t N = static_cast<int64_t>(Cs.size());
    Request Q;
    Q.Dims[M->obsDim()] = N;
    for (const auto &In : M->inputs())
      Q.Inputs[In.at("name")] =
          Array::make(parseDType(In.at("dtype")), M->resolve(In.at("shape"), Q.Dims, N));
    Q.Observed = Array::make(Out, {N});
    for (int64_t I = 0; I < N; ++I) {
      Q.Observed.set(I, Cs[I]->X);
      for (int P = 0; P < RM.NumParams; ++P) {
        std::string Name = RM.Params[P];
        if (M->inputIndex(Name) >= 0) {
          Q.Inputs[Name].set(I, Cs[I]->Params[P]);
        } else {
          // One draw: [1] for a global scalar, [1, N] when obs-aligned.
          const auto &S = M->site(Name);
          if (!Q.Posterior.count(Name)) {
            std::vector<int64_t> Shape = {1};
            for (int64_t D : M->resolve(S.at("shape"), Q.Dims, N))
              Shape.push_back(D);
            Q.Posterior[Name] = Array::make(parseDType(S.at("dtype")), Shape);
          }
          Q.Posterior[Name].set(I, Cs[I]->Params[P]);
        }
      }
    }
    return Q;
  };

  auto Check = [&](const std::vector<const RefCase *> &Cs) {
    Request Q = MakeRequest(Cs);
    int64_t N = static_cast<int64_t>(Cs.size());
    Rect Rc;
    Rc.DrawEnd = 1;
    Rc.ObsEnd = N;
    Results R = makeResults(*M, EntryKind::LogLikelihood, Q.Dims, 1, N, 0, 0,
                            {M->outputName()});
    ASSERT_TRUE(runOk(*M, EntryKind::LogLikelihood, Q, Rc, R));
    const Array &LL = R.Sites.at(M->outputName());
    ASSERT_EQ(LL.type(), F64 ? DType::F64 : DType::F32);
    for (int64_t I = 0; I < N; ++I)
      EXPECT_TRUE(closeTo(LL.get(I), Cs[I]->Expected, Tol))
          << describe(RM, *Cs[I]);
  };

  if (AllInputs) {
    // Every case at once, one observation each.
    Check(Cases);
  } else {
    // One draw and one observation per case.
    for (const RefCase *C : Cases)
      Check({C});
  }
}

std::string modelName(const ::testing::TestParamInfo<RefModel> &I) {
  return I.param.Name;
}

INSTANTIATE_TEST_SUITE_P(Models, LogDensity, ::testing::ValuesIn(kRefModels),
                         modelName);

} // namespace
