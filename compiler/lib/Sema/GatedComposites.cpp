//===- GatedComposites.cpp - ZeroInflated/HurdleDistribution(base, gate) --===//
//
// NumPyro's ZeroInflatedDistribution(base, gate=|gate_logits=) and
// HurdleDistribution(base, gate=|gate_logits=) over the bases the runtime
// has rows for become the named distribution they equal
// (ZeroInflatedPoisson, HurdleNegativeBinomial2, ...): the base's arguments
// by their parameter names, then the gate. The hurdles take their gate as a
// probability only, so gate_logits=l becomes gate=sigmoid(l).
//
//===----------------------------------------------------------------------===//
#include "Analyzer.h"

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

/// The bases a composite accepts, for its error message.
std::string basesOf(llvm::StringRef Composite) {
  std::vector<std::string> Bases;
  for (const GatedForm &F : GatedForms)
    if (Composite == F.Composite)
      Bases.push_back(F.Base);
  return llvm::join(Bases, ", ");
}

} // namespace

bool Analyzer::isGatedComposite(llvm::StringRef Dist) {
  return llvm::any_of(GatedForms, [&](const GatedForm &F) {
    return Dist == F.Composite;
  });
}

bool Analyzer::rewriteGatedComposite(SampleStmt &S) {
  const std::string Composite = S.Dist;
  const CallExpr *Base = nullptr;
  std::vector<Arg> Gates;
  size_t Positional = 0;
  for (const Arg &A : S.Args) {
    if (A.Keyword == "gate" || A.Keyword == "gate_logits") {
      Gates.push_back(A);
      continue;
    }
    if ((A.Keyword.empty() && Positional++ == 0) ||
        A.Keyword == "base_dist") {
      Base = llvm::dyn_cast<CallExpr>(A.Value.get());
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
    Diags.report(diag::E_GATED_MISSING_BASE, S.DistLoc) << Composite;
    return false;
  }
  const GatedForm *Form = llvm::find_if(GatedForms, [&](const GatedForm &F) {
    return Composite == F.Composite && Base->Callee == F.Base;
  });
  if (Form == std::end(GatedForms)) {
    Diags.report(diag::E_GATED_BASE, Base->Loc)
        << Composite << basesOf(Composite) << Base->Callee;
    return false;
  }
  // The base's positional arguments take its parameters' names, so the
  // gate can follow them by keyword.
  const DistSpec *BaseSpec = lookupDistribution(Base->Callee);
  std::vector<Arg> Args;
  size_t At = 0;
  for (const Arg &A : Base->Args) {
    Arg Named = A;
    if (Named.Keyword.empty()) {
      if (At >= BaseSpec->positionalCount()) {
        Diags.report(diag::E_GATED_BASE_ARGS, A.Loc)
            << Base->Callee << BaseSpec->positionalCount();
        return false;
      }
      Named.Keyword = BaseSpec->Params[At++].Name;
    }
    Args.push_back(std::move(Named));
  }
  if (!Form->GateLogits && Gates.size() != 1) {
    Diags.report(diag::E_GATED_GATE, S.DistLoc) << Composite;
    return false;
  }
  for (Arg &G : Gates) {
    if (G.Keyword == "gate_logits" && !Form->GateLogits) {
      std::vector<Arg> Logits{{"", G.Loc, G.Value}};
      G.Value = std::make_shared<CallExpr>(G.Loc, "sigmoid", std::move(Logits));
      G.Keyword = "gate";
    }
    Args.push_back(G);
  }
  S.Dist = Form->Target;
  S.Args = std::move(Args);
  return true;
}

} // namespace sema
} // namespace aimz
