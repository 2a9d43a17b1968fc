#include "aimz/Diagnostics.h"
#include "aimz/Distributions.h"
#include "aimz/Manifest.h"
#include "aimz/Parser.h"
#include "aimz/Sema.h"

#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

#include <set>

using namespace aimz;

namespace {

struct Analysis {
  std::optional<ModelInfo> Info;
  std::string Errors;
};

Analysis analyze(const std::string &Src) {
  llvm::SourceMgr SM;
  SM.AddNewSourceBuffer(llvm::MemoryBuffer::getMemBufferCopy(Src, "t.aimz"),
                        llvm::SMLoc());
  Analysis A;
  llvm::raw_string_ostream ES(A.Errors);
  Diagnostics D(SM, ES);
  auto M = parseModel(SM.getMemoryBuffer(1)->getBuffer(), D);
  if (M)
    A.Info = analyzeModel(*M, D);
  return A;
}

std::string shapeOf(const ModelInfo &I, const char *Site) {
  const aimz::Site *S = I.findSite(Site);
  return S ? shapeStr(S->Dims) : "<none>";
}

} // namespace

TEST(Sema, LinearRegressionIsObsPlan) {
  auto A = analyze(R"(
model linreg(X: f32[n, k]) -> (y: f32[n]) {
  alpha ~ Normal(0, 1);
  beta  ~ Normal(0, 1)[k];
  sigma ~ HalfNormal(1);
  plate obs(n) {
    let mu = alpha + X @ beta;
    deterministic eta = exp(mu);
    y ~ Normal(mu, sigma);
  }
})");
  ASSERT_TRUE(A.Info) << A.Errors;
  const ModelInfo &I = *A.Info;
  EXPECT_EQ(I.ObsDim, "n");
  EXPECT_EQ(I.ChosenPlan, Plan::Obs);
  EXPECT_EQ(shapeOf(I, "beta"), "[k]");
  EXPECT_EQ(shapeOf(I, "eta"), "[n]");
  EXPECT_EQ(I.findSite("eta")->Class, SiteClass::ObsAligned);
  EXPECT_EQ(I.findSite("alpha")->Class, SiteClass::Global);
  EXPECT_EQ(I.findSite("y")->Class, SiteClass::Observed);
  EXPECT_EQ(I.Precision, DType::F32);
}

TEST(Sema, LocalLatentForcesDrawPlan) {
  auto A = analyze(R"(
model m(X: f64[n]) -> (y: f64[n]) {
  plate obs(n) {
    z ~ Normal(0, 1);
    y ~ Normal(X + z, 1);
  }
})");
  ASSERT_TRUE(A.Info) << A.Errors;
  EXPECT_EQ(A.Info->ChosenPlan, Plan::Draw);
  ASSERT_EQ(A.Info->PlanReason.size(), 1u);
  EXPECT_EQ(A.Info->PlanReason[0], "z");
  EXPECT_EQ(A.Info->Precision, DType::F64);
}

TEST(Sema, NestedPlatesPrependDims) {
  auto A = analyze(R"(
model m(X: f32[n, G]) -> (y: f32[n]) {
  plate groups(G) { a ~ Normal(0, 1)[3]; }
  plate obs(n) {
    plate inner(G) { deterministic d = X * 2.0; }
    y ~ Normal(sum(a), 1);
  }
})");
  ASSERT_TRUE(A.Info) << A.Errors;
  EXPECT_EQ(shapeOf(*A.Info, "a"), "[G, 3]");
  EXPECT_EQ(A.Info->findSite("a")->Class, SiteClass::Global);
  EXPECT_EQ(shapeOf(*A.Info, "d"), "[n, G]");
}

TEST(Sema, GatherGivesOnePerObservation) {
  auto A = analyze(R"(
model h(g: i32[n]) -> (y: f32[n]) {
  plate groups(G) { a ~ Normal(0, 1); }
  plate obs(n) { y ~ Normal(a[g], 1); }
})");
  // G is bound by no input: the posterior's array a sets it at run time,
  // and the gather's index input is recorded against it.
  ASSERT_TRUE(A.Info) << A.Errors;
  EXPECT_EQ(A.Info->PosteriorDims, std::vector<std::string>{"G"});
  ASSERT_EQ(A.Info->IndexInputs.size(), 1u);
  EXPECT_EQ(A.Info->IndexInputs[0].Input, "g");
  EXPECT_EQ(A.Info->IndexInputs[0].Extent, aimz::Dim::symbol("G"));
  EXPECT_EQ(A.Info->findSite("y")->Dims.size(), 1u);
}

TEST(Sema, ManifestFieldsInOrder) {
  auto A = analyze(R"(
model m(X: f32[n]) -> (y: i32[n]) {
  p ~ Beta(2, 2);
  plate obs(n) { y ~ Bernoulli(probs=p); }
})");
  ASSERT_TRUE(A.Info) << A.Errors;
  EXPECT_EQ(manifestJSON(*A.Info),
            R"({"model":"m","obs_dim":"n","plan":"obs","plan_reason":[],)"
            R"("precision":"f32","dims":["n"],"inputs":[{"name":"X",)"
            R"("dtype":"f32",)"
            R"("shape":["n"]}],"outputs":[{"name":"y","dtype":"i32","shape":)"
            R"(["n"]}],"sites":[{"name":"p","kind":"latent","class":"global",)"
            R"("dist":"Beta","dtype":"f32","shape":[],"plates":[]},)"
            R"({"name":"y","kind":"observed","class":"observed",)"
            R"("dist":"Bernoulli","dtype":"i32","shape":["n"],)"
            R"("plates":["obs"]}]})");
}

TEST(Sema, SitesRecordThePlateOfEachAxis) {
  // Nested plates lead the shape outer to inner; a scan's axis and a
  // site's own axes lie in no plate.
  auto A = analyze(R"(
model m(x: f32[n]) -> (y: f32[n]) {
  const K = 3;
  b ~ Normal(0, 1)[K];
  plate groups(K) { plate obs(n) { z ~ Normal(0, 1)[2]; } }
  scan t(K) { deterministic c = b; }
  plate obs(n) { y ~ Normal(x, 1); }
})");
  ASSERT_TRUE(A.Info) << A.Errors;
  using Names = std::vector<std::string>;
  EXPECT_EQ(A.Info->findSite("b")->Plates, Names({""}));
  EXPECT_EQ(A.Info->findSite("z")->Plates, Names({"groups", "obs", ""}));
  EXPECT_EQ(A.Info->findSite("c")->Plates, Names({""}));
  EXPECT_EQ(A.Info->findSite("y")->Plates, Names({"obs"}));
}

TEST(Sema, ReportsSeveralErrorsInOneRun) {
  auto A = analyze(R"(
model m(X: f32[n]) -> (y: f32[n]) {
  a ~ Normal(0, -1);
  b ~ Gamma(rate=1);
  plate obs(n) { y ~ Normal(X + q, 1); }
})");
  ASSERT_FALSE(A.Info);
  EXPECT_NE(A.Errors.find("must be positive; got -1"), std::string::npos);
  EXPECT_NE(A.Errors.find("missing its parameter 'concentration'"),
            std::string::npos);
  EXPECT_NE(A.Errors.find("unknown name 'q'"), std::string::npos);
}

// Every distribution of the front end's table, in every variant, has its
// sampler and log density in the support library's list
// (runtime/include/aimz/math/Distributions.def) with the same kind and the
// number of parameters it is called with.
TEST(Distributions, EveryVariantHasItsRuntimeFunctions) {
  std::set<std::string> Used;
  for (const aimz::DistSpec &D : aimz::allDistributions()) {
    if (D.Improper || D.isComposite())
      continue; // no runtime functions of their own
    std::vector<std::vector<llvm::StringRef>> Variants;
    auto Passed = [](const aimz::DistParam &P) { return !P.SizeOnly; };
    if (D.ExactlyOneOf.empty()) {
      Variants.emplace_back();
      for (const aimz::DistParam &P : D.Params)
        if (Passed(P))
          Variants.back().push_back(P.Name);
    } else {
      for (const char *Chosen : D.ExactlyOneOf) {
        // covariance_matrix=, scale_matrix= and rate_matrix= are lowered
        // to a Cholesky factor, scale_tril=.
        if (aimz::passedParam(Chosen).Name != Chosen)
          continue;
        Variants.emplace_back();
        for (const aimz::DistParam &P : D.Params)
          if (Passed(P) &&
              (!llvm::is_contained(D.ExactlyOneOf, llvm::StringRef(P.Name)) ||
               llvm::StringRef(P.Name) == Chosen))
            Variants.back().push_back(P.Name);
      }
    }
    for (const auto &Given : Variants) {
      std::string Symbol = aimz::runtimeSymbol(D, Given);
      Used.insert(Symbol);
      const aimz::RuntimeDistribution *Row = nullptr;
      for (const aimz::RuntimeDistribution &R : aimz::runtimeDistributions())
        if (Symbol == R.Symbol)
          Row = &R;
      ASSERT_NE(Row, nullptr) << D.Name << ": no row '" << Symbol
                              << "' in Distributions.def";
      EXPECT_EQ(Row->Discrete, D.Discrete) << Symbol;
      EXPECT_EQ(Row->Arity, Given.size()) << Symbol;
      EXPECT_EQ(Row->Event, D.hasEvent()) << Symbol;
      EXPECT_EQ(Row->ValueEventRank, D.ValueEventRank) << Symbol;
    }
  }
  // TruncatedDistribution(Base, low, high): the base's parameters (each
  // choice of an exactly-one-of group), then the bounds.
  for (const char *Base : aimz::truncatableBases()) {
    const aimz::DistSpec *D = aimz::lookupDistribution(Base);
    ASSERT_NE(D, nullptr) << Base;
    std::vector<llvm::StringRef> Choices(D->ExactlyOneOf.begin(),
                                         D->ExactlyOneOf.end());
    if (Choices.empty())
      Choices.push_back("");
    for (llvm::StringRef Chosen : Choices) {
      std::vector<llvm::StringRef> Given;
      for (const aimz::DistParam &P : D->Params)
        if (Chosen.empty() || P.Name == Chosen ||
            !llvm::is_contained(D->ExactlyOneOf, llvm::StringRef(P.Name)))
          Given.push_back(P.Name);
      std::string Symbol = aimz::truncatedSymbol(*D, Given);
      const aimz::RuntimeDistribution *Row = nullptr;
      for (const aimz::RuntimeDistribution &R : aimz::runtimeDistributions())
        if (Symbol == R.Symbol)
          Row = &R;
      ASSERT_NE(Row, nullptr) << "no row '" << Symbol << "'";
      EXPECT_EQ(Row->Discrete, D->Discrete) << Symbol;
      EXPECT_EQ(Row->Arity, Given.size() + 2) << Symbol;
      Used.insert(Symbol);
      // Every truncatable base has a CDF (log_cdf, log_ccdf) and its
      // censored forms (the parameters, then two; a count's are counts);
      // every continuous one a copula too.
      std::string Own = aimz::runtimeSymbol(*D, Given);
      EXPECT_TRUE(aimz::hasRuntimeCdf(Own)) << Own;
      EXPECT_TRUE(aimz::isCensorable(Own)) << Own;
      for (const char *Form :
           {"censored_", "flagged_", "interval_", "copula_"}) {
        std::string Censored = Form + Own;
        const aimz::RuntimeDistribution *C = nullptr;
        for (const aimz::RuntimeDistribution &R :
             aimz::runtimeDistributions())
          if (Censored == R.Symbol)
            C = &R;
        if (D->Discrete && llvm::StringRef(Form) == "copula_") {
          EXPECT_EQ(C, nullptr) << Censored;
          continue;
        }
        ASSERT_NE(C, nullptr) << "no row '" << Censored << "'";
        EXPECT_EQ(C->Discrete, D->Discrete) << Censored;
        // A copula's parameters end in the correlation's factor.
        bool Copula = llvm::StringRef(Form) == "copula_";
        EXPECT_EQ(C->Arity, Given.size() + (Copula ? 1 : 2)) << Censored;
        // An interval's value is (lower, upper), a copula's a vector: one
        // event axis.
        bool Event = Copula || llvm::StringRef(Form) == "interval_";
        EXPECT_EQ(C->Event, Event) << Censored;
        EXPECT_EQ(C->ValueEventRank, Event ? 1u : 0u) << Censored;
        Used.insert(Censored);
      }
    }
  }
  // FoldedDistribution(Base): a folded_<base> row of the base's arity for
  // every base the compiler folds.
  EXPECT_FALSE(aimz::foldableBases().empty());
  for (const std::string &Base : aimz::foldableBases()) {
    const aimz::DistSpec *D = aimz::lookupDistribution(Base);
    ASSERT_NE(D, nullptr) << Base;
    EXPECT_FALSE(D->Discrete) << Base;
    std::string Symbol = "folded_" + aimz::runtimeSymbol(*D, {});
    const aimz::RuntimeDistribution *Row = nullptr;
    for (const aimz::RuntimeDistribution &R : aimz::runtimeDistributions())
      if (Symbol == R.Symbol)
        Row = &R;
    ASSERT_NE(Row, nullptr) << "no row '" << Symbol << "'";
    EXPECT_EQ(Row->Arity, D->Params.size()) << Symbol;
    Used.insert(Symbol);
    // A folded base has a CDF: its truncation and censored forms (the
    // parameters, then two; a copula's, then its factor).
    EXPECT_TRUE(aimz::hasRuntimeCdf(Symbol)) << Symbol;
    for (const char *Form :
         {"truncated_", "censored_", "flagged_", "interval_", "copula_"}) {
      const std::string Derived = Form + Symbol;
      const aimz::RuntimeDistribution *C = nullptr;
      for (const aimz::RuntimeDistribution &R : aimz::runtimeDistributions())
        if (Derived == R.Symbol)
          C = &R;
      ASSERT_NE(C, nullptr) << "no row '" << Derived << "'";
      const bool Copula = llvm::StringRef(Form) == "copula_";
      EXPECT_EQ(C->Arity, D->Params.size() + (Copula ? 1 : 2)) << Derived;
      Used.insert(Derived);
    }
  }
  // SineSkewed over its bases: VonMises's parameters, or a
  // SineBivariateVonMises's (either correlation), then the skewness.
  const std::vector<std::pair<const char *, std::vector<llvm::StringRef>>>
      Skewed = {{"SineSkewed(VonMises)", {"loc", "concentration", "skewness"}},
                {"SineSkewed(SineBivariateVonMises)",
                 {"phi_loc", "psi_loc", "phi_concentration",
                  "psi_concentration", "correlation", "skewness"}},
                {"SineSkewed(SineBivariateVonMises)",
                 {"phi_loc", "psi_loc", "phi_concentration",
                  "psi_concentration", "weighted_correlation", "skewness"}}};
  for (const auto &[Dist, Params] : Skewed) {
    auto C = aimz::runtimeCall(Dist, Params);
    ASSERT_TRUE(C.has_value()) << Dist;
    const aimz::RuntimeDistribution *Row = nullptr;
    for (const aimz::RuntimeDistribution &R : aimz::runtimeDistributions())
      if (C->Symbol == R.Symbol)
        Row = &R;
    ASSERT_NE(Row, nullptr) << "no row '" << C->Symbol << "'";
    EXPECT_TRUE(Row->Event && C->Event);
    EXPECT_EQ(Row->ValueEventRank, 1u);
    EXPECT_EQ(Row->Arity, Params.size());
    Used.insert(C->Symbol);
  }
  // And no row is left without a distribution.
  EXPECT_EQ(aimz::runtimeDistributions().size(), Used.size());
}
