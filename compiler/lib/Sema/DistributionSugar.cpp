//===- DistributionSugar.cpp - Distributions that are others, reparameterized -===//
//
// NumPyro (and PyMC) classes that are another distribution of the table
// under other parameters: the call is rewritten into that distribution
// before it is bound, with NumPyro's own formulas, so its density and draws
// are the target's (NumPyro computes them the same way):
//
//   AsymmetricLaplaceQuantile(loc, scale, quantile)
//       AsymmetricLaplace(loc, scale * a / quantile, a),
//       a = (1 / (1 / quantile - 1)) ** 0.5
//   LeftTruncatedDistribution(base, low)    TruncatedDistribution(base, low=)
//   RightTruncatedDistribution(base, high)  TruncatedDistribution(base, high=)
//   TwoSidedTruncatedDistribution(base, low, high)
//                                 TruncatedDistribution(base, low=, high=)
//   PyMC's HalfStudentT(nu, sigma)
//       TruncatedDistribution(StudentT(nu, 0, sigma), low=0)
//
//===----------------------------------------------------------------------===//
#include "Analyzer.h"

namespace aimz {
namespace sema {
namespace {

struct SugarParam {
  const char *Name;
  std::optional<double> Default; // nullopt: required
  /// A literal argument's domain: the rewrite computes from the argument,
  /// so the target's own check would not see it.
  Constraint Domain = Constraint::Real;
};

struct SugarForm {
  const char *Name;
  std::vector<SugarParam> Params;
  const char *Shown; // the call, for messages and the catalogue
  const char *Means;
};

const SugarForm SugarForms[] = {
    {"AsymmetricLaplaceQuantile",
     {{"loc", 0.0},
      {"scale", 1.0, Constraint::Positive},
      {"quantile", 0.5, Constraint::OpenUnitInterval}},
     "AsymmetricLaplaceQuantile(loc=0.0, scale=1.0, quantile=0.5)",
     "AsymmetricLaplace(loc, scale * a / quantile, a), a = (1 / (1 / "
     "quantile - 1)) ** 0.5 (NumPyro's own construction)"},
    {"LeftTruncatedDistribution",
     {{"base_dist", std::nullopt}, {"low", 0.0}},
     "LeftTruncatedDistribution(base_dist, low=0.0)",
     "TruncatedDistribution(base_dist, low=low)"},
    {"RightTruncatedDistribution",
     {{"base_dist", std::nullopt}, {"high", 0.0}},
     "RightTruncatedDistribution(base_dist, high=0.0)",
     "TruncatedDistribution(base_dist, high=high)"},
    {"TwoSidedTruncatedDistribution",
     {{"base_dist", std::nullopt}, {"low", 0.0}, {"high", 1.0}},
     "TwoSidedTruncatedDistribution(base_dist, low=0.0, high=1.0)",
     "TruncatedDistribution(base_dist, low=low, high=high)"},
    {"HalfStudentT",
     {{"nu", 1.0, Constraint::Positive}, {"sigma", 1.0, Constraint::Positive}},
     "HalfStudentT(nu=1.0, sigma=1.0) (PyMC's)",
     "TruncatedDistribution(StudentT(nu, 0.0, sigma), low=0.0)"},
};

const SugarForm *sugarForm(llvm::StringRef Name) {
  for (const SugarForm &F : SugarForms)
    if (Name == F.Name)
      return &F;
  return nullptr;
}

ExprPtr number(SMLoc Loc, double V) {
  return std::make_shared<NumberExpr>(Loc, V, false);
}

ExprPtr binary(BinaryOp Op, ExprPtr L, ExprPtr R) {
  auto Node = std::make_shared<BinaryExpr>(L->Loc, Op, L, R);
  Node->Depth = std::max(L->Depth, R->Depth) + 1;
  return Node;
}

} // namespace
} // namespace sema

bool isDistributionSugar(llvm::StringRef Name) {
  return sema::sugarForm(Name) != nullptr;
}

void printDistributionSugar(llvm::raw_ostream &OS) {
  for (const sema::SugarForm &F : sema::SugarForms)
    OS << "| `" << F.Shown << "` | `" << F.Means << "` |\n";
}

namespace sema {

/// `Dist(Args)` rewritten into the distribution it is, when it is one of
/// the forms above; false after an error (reported).
bool Analyzer::rewriteDistributionSugar(std::string &Dist,
                                        std::vector<Arg> &Args, SMLoc Loc) {
  const SugarForm *F = sugarForm(Dist);
  if (!F)
    return true;
  std::vector<ExprPtr> Bound(F->Params.size());
  auto Fail = [&](const std::string &What, SMLoc At) {
    Diags.report(diag::E_SUGAR_ARGS, At) << What << F->Shown;
    return false;
  };
  for (size_t I = 0; I < Args.size(); ++I) {
    size_t At = I;
    if (!Args[I].Keyword.empty()) {
      auto It = llvm::find_if(F->Params, [&](const SugarParam &P) {
        return Args[I].Keyword == P.Name;
      });
      if (It == F->Params.end())
        return Fail(Dist + " has no parameter '" + Args[I].Keyword + "'",
                    Args[I].Loc);
      At = It - F->Params.begin();
    } else if (I >= F->Params.size()) {
      return Fail("too many arguments to " + Dist, Args[I].Loc);
    }
    if (Bound[At])
      return Fail(std::string("argument '") + F->Params[At].Name +
                      "' given twice",
                  Args[I].Loc);
    Bound[At] = Args[I].Value;
  }
  for (size_t I = 0; I < Bound.size(); ++I) {
    auto V = Bound[I] ? literalValue(*Bound[I]) : std::nullopt;
    if (V && !satisfies(F->Params[I].Domain, *V)) {
      Diags.report(diag::E_PARAMETER_CONSTRAINT, Bound[I]->Loc)
          << F->Params[I].Name << Dist
          << constraintDescription(F->Params[I].Domain) << formatNumber(*V);
      return false;
    }
    if (Bound[I])
      continue;
    if (!F->Params[I].Default)
      return Fail(std::string("missing argument '") + F->Params[I].Name + "'",
                  Loc);
    Bound[I] = number(Loc, *F->Params[I].Default);
  }
  auto Kw = [&](const char *K, ExprPtr V) { return Arg{K, V->Loc, V}; };
  llvm::StringRef Name = F->Name;
  if (Name == "AsymmetricLaplaceQuantile") {
    auto Asymmetry = [&]() {
      ExprPtr Q = cloneExpr(*Bound[2]);
      ExprPtr Odds = binary(BinaryOp::Sub,
                            binary(BinaryOp::Div, number(Loc, 1), Q),
                            number(Loc, 1));
      return binary(BinaryOp::Pow, binary(BinaryOp::Div, number(Loc, 1), Odds),
                    number(Loc, 0.5));
    };
    ExprPtr Scale = binary(BinaryOp::Div,
                           binary(BinaryOp::Mul, Bound[1], Asymmetry()),
                           Bound[2]);
    Dist = "AsymmetricLaplace";
    Args = {Kw("loc", Bound[0]), Kw("scale", Scale),
            Kw("asymmetry", Asymmetry())};
    return true;
  }
  if (Name == "HalfStudentT") {
    std::vector<Arg> T{Kw("df", Bound[0]), Kw("loc", number(Loc, 0)),
                       Kw("scale", Bound[1])};
    auto Base = std::make_shared<CallExpr>(Loc, "StudentT", std::move(T));
    Base->Depth = std::max(Bound[0]->Depth, Bound[1]->Depth) + 1;
    Dist = "TruncatedDistribution";
    Args = {Arg{"", Loc, Base}, Kw("low", number(Loc, 0))};
    return true;
  }
  // The truncations: the base, then the bounds by name.
  std::vector<Arg> T{Arg{"", Bound[0]->Loc, Bound[0]}};
  for (size_t I = 1; I < Bound.size(); ++I)
    T.push_back(Kw(F->Params[I].Name, Bound[I]));
  Dist = "TruncatedDistribution";
  Args = std::move(T);
  return true;
}

} // namespace sema
} // namespace aimz
