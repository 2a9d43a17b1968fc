//===- MixtureGeneral.cpp - A mixture of different families ---------------===//
//
// NumPyro's MixtureGeneral(Categorical(probs=|logits=), [A(...), B(...)])
// (and PyMC's Mixture(w, [A.dist(...), B.dist(...)])) whose components are
// not one family (one family is MixtureSameFamily, MixtureSugar.cpp): each
// component a distribution of numbers of the table, all continuous or all
// counts, one per category of the mixing distribution. The site's batch
// shape broadcasts the mixing distribution's with every component's. The
// lowered call is "MixtureGeneral(A,B,...)" with the mixing logits (the
// log of probs) along a last axis of K, then each component's parameters
// named "k.<name>"; Conversion/LowerGeneralMixture.cpp draws and scores
// it. With hurdle=True (HurdleDistribution over a continuous base,
// GatedComposites.cpp) the call is "Hurdle(Delta,B)": the Delta's value
// is scored by its mass alone.
//
//===----------------------------------------------------------------------===//
#include "Analyzer.h"

#include "llvm/ADT/StringExtras.h"

namespace aimz {
namespace sema {

/// One component: a distribution of numbers of the table, or a truncation
/// of one (a hurdle's positive part, PyMC's Mixture of Truncated.dist
/// components), bound with its canonical name; none (reported) otherwise.
std::optional<Analyzer::BoundCall>
Analyzer::bindMixtureComponent(const Expr &E) {
  const auto *C = llvm::dyn_cast<CallExpr>(&E);
  const DistSpec *Spec = C ? lookupDistribution(C->Callee) : nullptr;
  const bool Truncated = Spec && Spec->Kind == DistKind::TruncatedDistribution;
  if (!Spec || Spec->hasEvent() || (Spec->isComposite() && !Truncated) ||
      Spec->Improper) {
    Diags.report(diag::E_MIXTURE_GENERAL_COMPONENT, E.Loc)
        << (C ? C->Callee : std::string("an expression"));
    return std::nullopt;
  }
  std::optional<BoundCall> B;
  if (Truncated) {
    SampleStmt Site = siteOfCall(*C, *Spec);
    B = bindTruncated(Site);
  } else {
    B = bindCall(*Spec, C->Args, C->Loc);
    if (B)
      B->Dist = Spec->canonical().Name;
  }
  if (!B || !B->Ok || !B->Batch)
    return std::nullopt;
  return B;
}

std::optional<Analyzer::BoundCall>
Analyzer::bindMixtureGeneral(SampleStmt &S) {
  const CallExpr *Mix = distributionArg(S, 0,
                                        "a Categorical(probs=...) or "
                                        "Categorical(logits=...)");
  ExprPtr ListE = compositeArg(S, 1);
  const auto *List = llvm::dyn_cast_or_null<ArrayExpr>(ListE.get());
  if (!Mix)
    return std::nullopt;
  if (!List) {
    Diags.report(diag::E_COMPOSITE_ARG_KIND, ListE ? ListE->Loc : S.DistLoc)
        << "MixtureGeneral" << "component_distributions"
        << "a list of distributions";
    return std::nullopt;
  }
  const DistSpec *MixSpec = lookupDistribution(Mix->Callee);
  if (MixSpec->canonical().Kind != DistKind::Categorical) {
    Diags.report(diag::E_MIXTURE_NOT_CATEGORICAL, Mix->Loc) << Mix->Callee;
    return std::nullopt;
  }
  auto M = bindCall(*MixSpec, Mix->Args, Mix->Loc);
  if (!M || !M->Ok || !M->Batch || !M->EventSize)
    return std::nullopt;
  const size_t K = List->Elements.size();
  if (!(*M->EventSize == Dim::known(static_cast<int64_t>(K)))) {
    const std::string Categories = shapeStr({*M->EventSize});
    Diags.report(diag::E_MIXTURE_GENERAL_COUNT, Mix->Loc)
        << std::to_string(K) << Categories.substr(1, Categories.size() - 2);
    return std::nullopt;
  }
  BoundCall R;
  R.EventSize = M->EventSize;
  R.Batch = M->Batch;
  SampleStmt::LoweredParam W = M->Params.front();
  if (W.Name == "probs")
    W.Fn = SampleStmt::LoweredParam::Transform::Log;
  W.Name = "logits";
  R.Params.push_back(W);
  std::vector<std::string> Names;
  for (size_t I = 0; I < K; ++I) {
    std::optional<BoundCall> B = bindMixtureComponent(*List->Elements[I]);
    if (!B)
      return std::nullopt;
    // Bound, so a call.
    const auto &C = llvm::cast<CallExpr>(*List->Elements[I]);
    if (I && B->Discrete != R.Discrete) {
      Diags.report(diag::E_MIXTURE_GENERAL_COMPONENT, C.Loc) << C.Callee;
      return std::nullopt;
    }
    R.Discrete = B->Discrete;
    auto Both = broadcastShapes(*R.Batch, *B->Batch);
    if (!Both) {
      Diags.report(diag::E_MIXTURE_GENERAL_BATCH, C.Loc)
          << shapeStr(*B->Batch) << shapeStr(*R.Batch);
      return std::nullopt;
    }
    R.Batch = Both;
    for (SampleStmt::LoweredParam P : B->Params) {
      P.Name = std::to_string(I) + "." + P.Name;
      P.Target = Shape{}; // the batch: one value per element and component
      R.Params.push_back(P);
    }
    Names.push_back(B->Dist);
  }
  // hurdle=True: an exact value (the first component, a Delta) whose mass
  // alone scores it, the others' densities there left out.
  if (ExprPtr H = compositeArg(S, 2)) {
    const auto *Yes = llvm::dyn_cast<BoolExpr>(H.get());
    const auto *One = llvm::dyn_cast<NumberExpr>(H.get());
    const DistSpec *First = lookupDistribution(
        llvm::cast<CallExpr>(*List->Elements[0]).Callee);
    if (!((Yes && Yes->Value) || (One && One->Value == 1)) || R.Discrete ||
        First->canonical().Kind != DistKind::Delta) {
      Diags.report(diag::E_MIXTURE_HURDLE, H->Loc);
      return std::nullopt;
    }
    R.Dist = "Hurdle(" + llvm::join(Names, ",") + ")";
    return R;
  }
  R.Dist = "MixtureGeneral(" + llvm::join(Names, ",") + ")";
  return R;
}

} // namespace sema
} // namespace aimz
