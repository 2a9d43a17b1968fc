//===- MixtureSugar.cpp - Mixtures written as a list of components --------===//
//
// The other libraries' mixtures, rewritten into MixtureSameFamily before
// they are bound (Composites.cpp's bindMixture then checks them):
//
//   MixtureGeneral(mixing_distribution, component_distributions)  NumPyro
//   Mixture(mixing_distribution, component_distributions)         NumPyro
//   Mixture(w, comp_dists)                                        PyMC
//   NormalMixture(w, mu, sigma)                                   PyMC
//
// A mixing distribution is a Categorical (PyMC's weights w are its probs).
// Components given as one distribution whose parameters end in the
// component axis are MixtureSameFamily's as they are; a list of
// components of one family is that family with each parameter stacked
// along a new last axis, every component's parameter first broadcast
// with all the others (`p + zeros_like(q) + ...`), a parameter a
// component leaves out taking its default. A list of different families
// is MixtureGeneral's own (MixtureGeneral.cpp).
//
//===----------------------------------------------------------------------===//
#include "Analyzer.h"
#include "SyntaxBuilders.h"
#include "aimz/Distributions.h"

namespace aimz {
namespace sema {
namespace {

bool isCategoricalCall(const ExprPtr &E) {
  const auto *C = llvm::dyn_cast_or_null<CallExpr>(E.get());
  const DistSpec *S = C ? lookupDistribution(C->Callee) : nullptr;
  return S && S->canonical().Kind == DistKind::Categorical;
}

} // namespace

/// One family's components, their parameters stacked along a new last
/// axis; null after an error (reported).
ExprPtr Analyzer::stackComponents(const std::vector<CallExpr *> &Comps,
                                  SMLoc Loc) {
  const DistSpec *Spec = lookupDistribution(Comps[0]->Callee);
  // Every given parameter, in the family's order; a default where a
  // component leaves out one that another gives.
  std::vector<std::vector<ExprPtr>> Given(Spec->Params.size());
  std::vector<ExprPtr> All;
  for (size_t I = 0; I < Spec->Params.size(); ++I) {
    const DistParam &P = Spec->Params[I];
    const size_t Position = P.KeywordOnly ? SIZE_MAX : I;
    bool Any = false;
    for (CallExpr *C : Comps)
      Any = Any || argumentAt(C->Args, Position, P.Name);
    if (!Any)
      continue;
    for (CallExpr *C : Comps) {
      ExprPtr E = argumentAt(C->Args, Position, P.Name);
      if (!E && P.Default)
        E = number(C->Loc, *P.Default);
      if (!E) {
        Diags.report(diag::E_MISSING_PARAMETER, C->Loc) << C->Callee << P.Name;
        return nullptr;
      }
      Given[I].push_back(E);
      All.push_back(E);
    }
  }
  // zeros_like of every parameter: added to each, it broadcasts them all
  // to one shape (stack takes equal shapes) without changing a value.
  auto Zeros = [&]() {
    ExprPtr Z;
    for (const ExprPtr &E : All) {
      ExprPtr Zi = call(E->Loc, "zeros_like", {Arg{"", E->Loc, cloneExpr(*E)}});
      Z = Z ? binary(BinaryOp::Add, Z, Zi) : Zi;
    }
    return Z;
  };
  std::vector<Arg> Stacked;
  for (size_t I = 0; I < Given.size(); ++I) {
    if (Given[I].empty())
      continue;
    std::vector<ExprPtr> Elements;
    for (const ExprPtr &E : Given[I])
      Elements.push_back(binary(BinaryOp::Add, E, Zeros()));
    auto L = std::make_shared<ArrayExpr>(Loc, std::move(Elements));
    for (const ExprPtr &E : L->Elements)
      L->Depth = std::max(L->Depth, E->Depth + 1);
    Stacked.push_back(Arg{Spec->Params[I].Name, Loc,
                          call(Loc, "stack",
                               {Arg{"", Loc, L},
                                Arg{"axis", Loc,
                                    std::make_shared<NumberExpr>(Loc, -1, true)}})});
  }
  return call(Loc, Comps[0]->Callee.c_str(), std::move(Stacked));
}

bool Analyzer::rewriteMixture(std::string &Dist, std::vector<Arg> &Args,
                              SMLoc Loc) {
  const bool General = Dist == "MixtureGeneral";
  if (!General && Dist != "Mixture" && Dist != "NormalMixture")
    return true;
  auto Fail = [&](const char *What, SMLoc At) {
    Diags.report(diag::E_SUGAR_ARGS, At)
        << What
        << (Dist == "NormalMixture"
                ? "NormalMixture(w, mu, sigma) (PyMC's)"
                : Dist + "(mixing_distribution, component_distributions) "
                         "(NumPyro's), or PyMC's Mixture(w, comp_dists)");
    return false;
  };
  for (const Arg &A : Args)
    if (A.Keyword == "support")
      return Fail("a mixture's support is its components'; 'support' is not "
                  "taken",
                  A.Loc);
  // MixtureGeneral's hurdle= (an extension) stays with it.
  std::optional<Arg> Hurdle;
  if (General)
    for (auto It = Args.begin(); It != Args.end(); ++It)
      if (It->Keyword == "hurdle") {
        Hurdle = *It;
        Args.erase(It);
        break;
      }
  ExprPtr Mixing, Comps;
  if (Dist == "NormalMixture") {
    ExprPtr W = argumentAt(Args, 0, "w"), Mu = argumentAt(Args, 1, "mu"),
            Sigma = argumentAt(Args, 2, "sigma");
    if (!W || !Mu || !Sigma || Args.size() != 3)
      return Fail("NormalMixture takes w, mu and sigma", Loc);
    Mixing = call(Loc, "Categorical", {Arg{"probs", W->Loc, W}});
    Comps = call(Loc, "Normal", {Arg{"loc", Mu->Loc, Mu},
                                 Arg{"scale", Sigma->Loc, Sigma}});
  } else {
    Mixing = argumentAt(Args, 0, "mixing_distribution");
    Comps = argumentAt(Args, 1, "component_distributions");
    if (!General && !isCategoricalCall(Mixing)) {
      // PyMC's Mixture(w, comp_dists): the weights are the probabilities.
      ExprPtr W = argumentAt(Args, 0, "w");
      Comps = argumentAt(Args, 1, "comp_dists");
      if (!W || !Comps || Args.size() != 2)
        return Fail("Mixture takes a Categorical and the components, or "
                    "PyMC's weights w and comp_dists",
                    Loc);
      Mixing = call(Loc, "Categorical", {Arg{"probs", W->Loc, W}});
    }
    if (!Mixing || !Comps || Args.size() != 2)
      return Fail("a mixture takes its mixing distribution and its "
                  "components",
                  Loc);
  }
  if (const auto *L = llvm::dyn_cast<ArrayExpr>(Comps.get())) {
    // Each component's own spelling first (PyMC's keywords, a sugar form).
    std::vector<CallExpr *> Calls;
    for (const ExprPtr &E : L->Elements) {
      auto *C = llvm::dyn_cast<CallExpr>(E.get());
      if (C && !rewriteDistributionSugar(C->Callee, C->Args, C->Loc))
        return false;
      if (!C || !lookupDistribution(C->Callee)) {
        Diags.report(diag::E_MIXTURE_GENERAL_COMPONENT, E->Loc)
            << (C ? C->Callee : std::string("an expression"));
        return false;
      }
      Calls.push_back(C);
    }
    const bool OneFamily =
        !Calls.empty() && llvm::all_of(Calls, [&](const CallExpr *C) {
          return C->Callee == Calls[0]->Callee;
        });
    if (!OneFamily) {
      // Different families: MixtureGeneral's own lowering.
      Dist = "MixtureGeneral";
      Args = {Arg{"", Mixing->Loc, Mixing}, Arg{"", Comps->Loc, Comps}};
      if (Hurdle)
        Args.push_back(*Hurdle);
      return true;
    }
    Comps = stackComponents(Calls, L->Loc);
    if (!Comps)
      return false;
  }
  if (Hurdle) {
    Diags.report(diag::E_MIXTURE_HURDLE, Hurdle->Loc);
    return false;
  }
  Dist = "MixtureSameFamily";
  Args = {Arg{"", Mixing->Loc, Mixing}, Arg{"", Comps->Loc, Comps}};
  return true;
}

} // namespace sema
} // namespace aimz
