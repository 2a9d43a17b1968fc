//===- LogProb.cpp - log_prob(Dist(...), x) -------------------------------===//
//
// A distribution's log density (log mass for counts) at a value, as an
// expression: NumPyro's `dist.Normal(mu, s).log_prob(x)`, Stan's
// `normal_lpdf(x | mu, s)`; with `log_cdf` / `log_ccdf` its log CDF and log
// survival function (Stan's `_lcdf`, `_lccdf`) where the support library
// has them (CdfDistributions.def). A TruncatedDistribution or a censoring
// is scored as its sample site would be. The distribution's arguments are
// bound and checked as a sample site's are; the result broadcasts the
// parameters' batch shape with the value's and has the model's precision.
// A vector or matrix distribution (MultivariateNormal, Dirichlet,
// Categorical's probability vector, LKJ) scores each value along the
// value's last axes, as its sample site would; a MixtureSameFamily scores
// numbers with its weights and components along the component axis; a
// MaskedDistribution is NumPyro's where(mask, base.log_prob(x), 0); a
// TransformedDistribution over elementwise transforms (Transformed.cpp)
// is its base's density at the inverse plus the log Jacobian. Not flat
// priors (no normalized density) nor an ordered transform.
//
//===----------------------------------------------------------------------===//
#include "Analyzer.h"
#include "SyntaxBuilders.h"

#include "aimz/Distributions.h"

namespace aimz {
namespace sema {

bool Analyzer::analyzeLogProb(CallExpr &E) {
  for (const Arg &A : E.Args)
    if (!A.Keyword.empty()) {
      Diags.report(diag::E_LOGPROB_KEYWORD, A.Loc) << E.Callee;
      return false;
    }
  if (E.Args.size() != 2) {
    Diags.report(diag::E_LOGPROB_ARITY, E.Loc) << E.Args.size() << E.Callee;
    return false;
  }
  auto *D = llvm::dyn_cast<CallExpr>(E.Args[0].Value.get());
  if (D && !rewriteDistributionSugar(D->Callee, D->Args, D->Loc))
    return false;
  const DistSpec *Spec = D ? lookupDistribution(D->Callee) : nullptr;
  if (!Spec) {
    Diags.report(diag::E_LOGPROB_NOT_DIST, E.Args[0].Loc) << E.Callee;
    return false;
  }
  if (Spec->Kind == DistKind::MaskedDistribution)
    return analyzeMaskedLogProb(E, *D, *Spec);
  // A truncation, a censoring, a folding, a mixture, a copula or a skewing
  // is bound as its sample site would be and scored by its runtime row (a
  // mixture's weights and components along the component axis).
  const bool Mixture = Spec->Kind == DistKind::MixtureSameFamily ||
                       Spec->Kind == DistKind::MixtureGeneral;
  ExprPtr Transforms = D ? argumentAt(D->Args, 1, "transforms") : nullptr;
  const bool Mapped = Spec->Kind == DistKind::TransformedDistribution &&
                      Transforms && !isOrderedTransform(Transforms);
  bool Scalar = Mapped || Spec->Kind == DistKind::TruncatedDistribution ||
                Spec->Kind == DistKind::FoldedDistribution ||
                Spec->isCensored() || Mixture ||
                Spec->Kind == DistKind::GaussianCopula ||
                Spec->Kind == DistKind::SineSkewed;
  if (!Scalar && (Spec->isComposite() || Spec->Improper)) {
    Diags.report(diag::E_LOGPROB_DIST_KIND, D->Loc)
        << Spec->Name
        << (Spec->Improper ? "has no normalized density"
                           : "has no density here (an ordered vector is a "
                             "latent's prior only)")
        << E.Callee;
    return false;
  }
  std::optional<BoundCall> Bound;
  if (Scalar) {
    SampleStmt Site = siteOfCall(*D, *Spec);
    Bound = bindSampleCall(Site, *Spec, /*IsOutput=*/false);
  } else {
    Bound = bindCall(*Spec, D->Args, D->Loc, /*ShapeMayGiveEvent=*/true);
  }
  Expr &X = *E.Args[1].Value;
  bool ValueOk = analyzeExpr(X);
  if (!Bound || !Bound->Ok || !Bound->Batch || !ValueOk)
    return false;
  // The `dist` attribute the lowering resolves to a runtime row.
  const std::string Dist = Scalar ? Bound->Dist : Spec->Name;
  if (E.Callee != "log_prob" && !Bound->ValueMap.empty()) {
    Diags.report(diag::E_NO_CDF, D->Loc) << "a TransformedDistribution"
                                         << E.Callee;
    return false;
  } else if (E.Callee != "log_prob") {
    std::vector<llvm::StringRef> Names;
    for (const SampleStmt::LoweredParam &P : Bound->Params)
      Names.push_back(P.Name);
    auto C = runtimeCall(Dist, Names);
    if (!C || !hasRuntimeCdf(C->Symbol)) {
      Diags.report(diag::E_NO_CDF, D->Loc) << Spec->Name << E.Callee;
      return false;
    }
  }
  if (!isNumeric(X.Ty.Type)) {
    Diags.report(diag::E_LOGPROB_VALUE_BOOL, X.Loc) << E.Callee;
    return false;
  }
  // An interval-censored value is (lower, upper): one event axis of 2.
  const bool Event =
      (!Scalar && Spec->hasEvent()) || Mixture || Bound->ValueEventRank;
  Shape ValueEvent, XBatch = X.Ty.Dims;
  if (Event && !bindLogProbEvent(E, *Spec, *Bound, X, ValueEvent, XBatch))
    return false;
  auto Out = broadcastShapes(*Bound->Batch, XBatch);
  if (!Out) {
    Diags.report(diag::E_LOGPROB_BROADCAST, E.Loc)
        << shapeStr(XBatch) << shapeStr(*Bound->Batch) << E.Callee;
    return false;
  }
  recordLogProb(E, *Bound, Dist, *Out, Event ? &ValueEvent : nullptr);
  return true;
}

/// What code generation needs of a checked log_prob call: the runtime
/// row, the parameters and, with event axes (`ValueEvent` given), each
/// parameter's and the value's shape and transform.
void Analyzer::recordLogProb(CallExpr &E, const BoundCall &Bound,
                             const std::string &Dist, const Shape &Out,
                             const Shape *ValueEvent) {
  E.LogProbParamNames.clear();
  E.LogProbParams.clear();
  E.LogProbParamTargets.clear();
  E.LogProbParamTransforms.clear();
  for (const SampleStmt::LoweredParam &P : Bound.Params) {
    E.LogProbParamNames.push_back(P.Name);
    E.LogProbParams.push_back(P.Value);
    if (!ValueEvent)
      continue;
    Shape Target = Out;
    llvm::append_range(Target, Bound.eventAxes(P.Target.size(), P.RowAxes));
    E.LogProbParamTargets.push_back(Target);
    E.LogProbParamTransforms.push_back(static_cast<int>(P.Fn));
  }
  if (ValueEvent) {
    E.LogProbValueTarget = Out;
    llvm::append_range(E.LogProbValueTarget, *ValueEvent);
  }
  E.LogProbDist = Dist;
  E.LogProbValueMap = Bound.ValueMap;
  E.Ty = {Info.Precision, Out, false};
}

/// log_prob(MaskedDistribution(base, mask), x): NumPyro's
/// where(mask, base.log_prob(x), 0), a mask of numbers true where non-zero.
bool Analyzer::analyzeMaskedLogProb(CallExpr &E, const CallExpr &D,
                                    const DistSpec &Spec) {
  if (E.Callee != "log_prob") {
    Diags.report(diag::E_NO_CDF, D.Loc) << Spec.Name << E.Callee;
    return false;
  }
  SampleStmt Site = siteOfCall(D, Spec);
  ExprPtr Base = compositeArg(Site, 0), Mask = compositeArg(Site, 1);
  if (!Base || !Mask) {
    Diags.report(diag::E_COMPOSITE_MISSING, D.Loc)
        << Spec.Name << (Base ? "mask" : "base_dist");
    return false;
  }
  ExprPtr Probe = cloneExpr(*Mask); // its dtype decides the condition
  if (!analyzeExpr(*Probe))
    return false;
  ExprPtr Cond = cloneExpr(*Mask);
  if (Probe->Ty.Type != DType::Bool)
    Cond = binary(BinaryOp::Ne, Cond, number(Mask->Loc, 0));
  const ExprPtr &X = E.Args[1].Value;
  ExprPtr Density = call(E.Loc, "log_prob",
                         {Arg{"", Base->Loc, cloneExpr(*Base)},
                          Arg{"", X->Loc, cloneExpr(*X)}});
  ExprPtr Where = call(E.Loc, "where",
                       {Arg{"", Cond->Loc, Cond}, Arg{"", E.Loc, Density},
                        Arg{"", E.Loc, number(E.Loc, 0)}});
  if (!analyzeExpr(*Where))
    return false;
  E.Ty = Where->Ty;
  E.Desugared = Where;
  return true;
}

/// A vector or matrix distribution's value: its last ValueEventRank axes
/// are one value (the event size from the parameters, or from the value
/// where they leave it open: Dirichlet(1.0)); the axes before, a batch.
bool Analyzer::bindLogProbEvent(CallExpr &E, const DistSpec &Spec,
                                BoundCall &Bound, const Expr &X,
                                Shape &ValueEvent, Shape &XBatch) {
  const unsigned Rank = Bound.ValueEventRank;
  if (!Bound.EventSize && Rank && !X.Ty.Dims.empty())
    Bound.EventSize = X.Ty.Dims.back();
  if (!Bound.EventSize) {
    reportMissingEventSize(Spec, Bound, E.Loc);
    return false;
  }
  ValueEvent = Bound.valueEvent();
  const Shape &XD = X.Ty.Dims;
  if (XD.size() < Rank ||
      !std::equal(ValueEvent.begin(), ValueEvent.end(), XD.end() - Rank)) {
    Diags.report(diag::E_LOGPROB_EVENT, X.Loc)
        << E.Callee << shapeStr(XD) << Spec.Name << shapeStr(ValueEvent);
    return false;
  }
  XBatch.assign(XD.begin(), XD.end() - Rank);
  return true;
}

} // namespace sema
} // namespace aimz
