//===- GatedComposites.cpp - ZeroInflated/HurdleDistribution(base, gate) --===//
//
// NumPyro's ZeroInflatedDistribution(base, gate=|gate_logits=) and
// HurdleDistribution(base, gate=|gate_logits=), in a sample site or a
// log_prob. Over the bases the runtime has rows for they become the named
// distribution they equal (ZeroInflatedPoisson, HurdleNegativeBinomial2,
// ...): the base's arguments by their parameter names, then the gate. The
// hurdles take their gate as a probability only, so gate_logits=l becomes
// gate=sigmoid(l). A zero inflation of any other count distribution is the
// mixture NumPyro's law is: a point mass at 0 (Bernoulli(probs=0)) with
// weight gate, the base with weight 1 - gate (MixtureGeneral.cpp); a
// hurdle over any other count base with a CDF truncates it to the positive
// counts, and over any other continuous base puts Delta(0) in the point
// mass's place, with hurdle=True: an exact 0 is then scored by the gate
// alone (NumPyro's HurdleDistribution: log(gate) at 0, log(1 - gate) plus
// the base's log density elsewhere).
//
//===----------------------------------------------------------------------===//
#include "Analyzer.h"
#include "SyntaxBuilders.h"

#include "aimz/Distributions.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"

namespace aimz {
namespace sema {
namespace {

struct GatedForm {
  const char *Composite;
  const char *Base;
  const char *Target;
  bool GateLogits; // the target has a gate_logits= variant of its own
};

constexpr GatedForm GatedForms[] = {
    {"ZeroInflatedDistribution", "Poisson", "ZeroInflatedPoisson", true},
    {"ZeroInflatedDistribution", "NegativeBinomial2",
     "ZeroInflatedNegativeBinomial2", true},
    {"HurdleDistribution", "Poisson", "HurdlePoisson", false},
    {"HurdleDistribution", "NegativeBinomial2", "HurdleNegativeBinomial2",
     false},
    {"HurdleDistribution", "Gamma", "HurdleGamma", false},
    {"HurdleDistribution", "LogNormal", "HurdleLogNormal", false},
};

/// A count distribution of numbers of the table, which a mixture may hold.
bool isCountBase(const CallExpr &Base) {
  const DistSpec *Spec = lookupDistribution(Base.Callee);
  return Spec && Spec->Discrete && !Spec->hasEvent() && !Spec->isComposite() &&
         !Spec->Improper;
}

/// A continuous distribution of numbers of the table: a hurdle's base
/// besides the counts.
bool isContinuousBase(const CallExpr &Base) {
  const DistSpec *Spec = lookupDistribution(Base.Callee);
  return Spec && !Spec->Discrete && !Spec->hasEvent() &&
         !Spec->isComposite() && !Spec->Improper &&
         Spec->canonical().Kind != DistKind::Delta;
}

/// MixtureGeneral(Categorical(probs=[gate, 1 - gate]), [Bernoulli(probs=0),
/// base]); gate_logits=l as the mixing logits [l, 0]. A hurdle's base is
/// truncated to the positive counts; over a continuous base the zero is
/// Delta(0), and hurdle=True scores an exact 0 by the gate alone, as
/// NumPyro's HurdleDistribution does.
void gatedMixture(std::string &Dist, std::vector<Arg> &Args, ExprPtr Base,
                  const Arg &Gate, bool Hurdle, bool Continuous) {
  const SMLoc L = Gate.Loc;
  if (Hurdle && !Continuous)
    Base = call(L, "TruncatedDistribution",
                {Arg{"", L, Base}, Arg{"low", L, number(L, 1)}});
  const bool Logits = Gate.Keyword == "gate_logits";
  ExprPtr Other = Logits ? call(L, "zeros_like", {Arg{"", L, cloneExpr(*Gate.Value)}})
                         : binary(BinaryOp::Sub, number(L, 1),
                                  cloneExpr(*Gate.Value));
  ExprPtr Pair = std::make_shared<ArrayExpr>(
      L, std::vector<ExprPtr>{Gate.Value, Other});
  ExprPtr Weights =
      call(L, "stack",
           {Arg{"", L, Pair},
            Arg{"axis", L, std::make_shared<NumberExpr>(L, -1, true)}});
  ExprPtr Mixing =
      call(L, "Categorical", {Arg{Logits ? "logits" : "probs", L, Weights}});
  // The zero: a point mass among counts, Delta(0) among densities.
  ExprPtr Zero =
      call(L, Continuous ? "Delta" : "Bernoulli",
           {Arg{Continuous ? "v" : "probs", L, number(L, 0)}});
  ExprPtr Components =
      std::make_shared<ArrayExpr>(L, std::vector<ExprPtr>{Zero, Base});
  Dist = "MixtureGeneral";
  Args = {Arg{"", L, Mixing}, Arg{"", L, Components}};
  if (Continuous)
    Args.push_back(Arg{"hurdle", L, std::make_shared<BoolExpr>(L, true)});
}

} // namespace

/// The base's positional arguments under its parameters' names, so that
/// the gate can follow them by keyword.
bool Analyzer::nameBaseArguments(const CallExpr &Base, std::vector<Arg> &Named) {
  const DistSpec *BaseSpec = lookupDistribution(Base.Callee);
  size_t At = 0;
  for (const Arg &A : Base.Args) {
    Arg Given = A;
    if (Given.Keyword.empty()) {
      if (At >= BaseSpec->positionalCount()) {
        Diags.report(diag::E_GATED_BASE_ARGS, A.Loc)
            << Base.Callee << BaseSpec->positionalCount();
        return false;
      }
      Given.Keyword = BaseSpec->Params[At++].Name;
    }
    Named.push_back(std::move(Given));
  }
  return true;
}

bool Analyzer::rewriteGatedComposite(std::string &Dist, std::vector<Arg> &Args,
                                     SMLoc Loc) {
  if (!llvm::any_of(GatedForms,
                    [&](const GatedForm &F) { return Dist == F.Composite; }))
    return true;
  const std::string Composite = Dist;
  const CallExpr *Base = nullptr;
  ExprPtr BaseExpr;
  std::vector<Arg> Gates;
  size_t Positional = 0;
  for (const Arg &A : Args) {
    if (A.Keyword == "gate" || A.Keyword == "gate_logits") {
      Gates.push_back(A);
      continue;
    }
    if ((A.Keyword.empty() && Positional++ == 0) ||
        A.Keyword == "base_dist") {
      Base = llvm::dyn_cast<CallExpr>(A.Value.get());
      BaseExpr = A.Value;
      if (!Base) {
        Diags.report(diag::E_GATED_BASE_NOT_CALL, A.Loc) << Composite;
        return false;
      }
      continue;
    }
    Diags.report(diag::E_GATED_ARGS, A.Loc) << Composite;
    return false;
  }
  if (!Base) {
    Diags.report(diag::E_GATED_MISSING_BASE, Loc) << Composite;
    return false;
  }
  const GatedForm *Form = llvm::find_if(GatedForms, [&](const GatedForm &F) {
    return Composite == F.Composite && Base->Callee == F.Base;
  });
  const bool Inflated = Composite == "ZeroInflatedDistribution";
  // A hurdle truncates a count base: any count distribution with a CDF;
  // a continuous base has no mass at 0 to take away.
  const bool Continuous = !Inflated && isContinuousBase(*Base);
  const bool Mixable =
      Continuous ||
      (isCountBase(*Base) &&
       (Inflated || llvm::is_contained(truncatableBases(),
                                       llvm::StringRef(lookupDistribution(
                                           Base->Callee)->canonical().Name))));
  if (Form == std::end(GatedForms) && Mixable) {
    if (Gates.size() != 1) {
      Diags.report(diag::E_GATED_GATE, Loc) << Composite;
      return false;
    }
    gatedMixture(Dist, Args, BaseExpr, Gates.front(), !Inflated, Continuous);
    return true;
  }
  if (Form == std::end(GatedForms)) {
    Diags.report(diag::E_GATED_BASE, Base->Loc)
        << Composite
        << (Inflated ? "a distribution of counts (Poisson, Binomial, "
                       "GammaPoisson, ...)"
                     : "a continuous distribution of numbers (Gamma, "
                       "Weibull, ...) or a distribution of counts with a "
                       "CDF (Poisson, Binomial, GammaPoisson, ...)")
        << Base->Callee;
    return false;
  }
  std::vector<Arg> Named;
  if (!nameBaseArguments(*Base, Named))
    return false;
  if (!Form->GateLogits && Gates.size() != 1) {
    Diags.report(diag::E_GATED_GATE, Loc) << Composite;
    return false;
  }
  for (Arg &G : Gates) {
    if (G.Keyword == "gate_logits" && !Form->GateLogits) {
      std::vector<Arg> Logits{{"", G.Loc, G.Value}};
      G.Value = std::make_shared<CallExpr>(G.Loc, "sigmoid", std::move(Logits));
      G.Keyword = "gate";
    }
    Named.push_back(G);
  }
  Dist = Form->Target;
  Args = std::move(Named);
  return true;
}

} // namespace sema
} // namespace aimz
