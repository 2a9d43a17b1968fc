//===- SampleSites.cpp - Sample statements -------------------------------===//
//
// `x ~ Dist(...)`: the distribution found, its call bound
// (DistributionCalls.cpp, Composites.cpp), the site's shape (its batch
// shape, or the explicit `[...]` it broadcasts to, then the event), the
// output's checks, and the site recorded.
//
//===----------------------------------------------------------------------===//
#include "Analyzer.h"

#include "llvm/Support/SaveAndRestore.h"

namespace aimz {
namespace sema {

void Analyzer::analyzeSample(SampleStmt &S) {
  liftTransformedShape(S);
  if (!rewriteDistributionSugar(S.Dist, S.Args, S.DistLoc)) {
    poison(S);
    return;
  }
  const Param *OutParam = M.findOutput(S.Name);
  bool IsOutput = OutParam != nullptr;
  if (!applyDistMethods(S, IsOutput)) {
    poison(S);
    return;
  }
  const DistSpec *Spec = lookupDistribution(S.Dist);
  bool Ok = true;
  if (const BlockStmt *Scan = enclosingScan()) {
    Diags.report(diag::E_SAMPLE_IN_SCAN, S.NameLoc) << S.Name << Scan->Name;
    Ok = false;
  }
  if (!Spec) {
    reportUnknownDistribution(S);
    poison(S);
    return;
  }
  // An alias (BinomialProbs) is its target from here on; its arguments
  // bind by its own order (bindCall).
  S.Spec = &Spec->canonical();
  std::string Support;
  if (Spec->Improper)
    Support = takeImproperSupport(S, IsOutput, Ok);
  // A dimension first seen in the parameters (`Normal(zeros(K), 1)`) is
  // the posterior's, as one in the shape is.
  std::optional<BoundCall> Call;
  {
    llvm::SaveAndRestore Posterior(AllowPosteriorDims, true);
    Call = bindSampleCall(S, *Spec, IsOutput);
  }
  if (!Call || !refuseScoreOnlyRead(S, IsOutput ? "the output" : "the sample site")) {
    poison(S);
    return;
  }
  Ok = Ok && Call->Ok;
  S.Dist = S.Spec->Name;
  Shape Own = siteShape(S, *Call, Ok);
  if (Call->EventFromShape) {
    if (Ok)
      reportMissingEventSize(*Spec, *Call, S.DistLoc);
    poison(S);
    return;
  }
  lowerParams(S, *Call, Own);
  Shape Full = plateDims();
  llvm::append_range(Full, S.OwnShape);
  DType T = Call->Discrete ? DType::I32 : Info.Precision;
  if (IsOutput && Ok)
    Ok = checkOutputSite(S, *Spec, *Call, Full, T);
  Ok = Ok && checkSiteRows(S, S.OwnShape,
                           Call->EventSize ? Call->ValueEventRank : 0);
  if (!define(S, {Symbol::Kind::Sample, T, Full, S.NameLoc}) || !Ok)
    return;
  addSampleSite(S, T, Full, Support, *Call, IsOutput);
}

void Analyzer::reportUnknownDistribution(const SampleStmt &S) {
  const std::string Near = closestDistribution(S.Dist);
  Diags.report(diag::E_UNKNOWN_DISTRIBUTION, S.DistLoc)
      << S.Dist << (Near.empty() ? "" : "; did you mean '" + Near + "'?");
}

/// ImproperUniform(support=real|positive): a flat prior with no density to
/// score and no draws; only a latent that the posterior gives. Its support,
/// the arguments taken out.
std::string Analyzer::takeImproperSupport(SampleStmt &S, bool IsOutput,
                                          bool &Ok) {
  std::string Support = "real";
  for (const Arg &A : S.Args) {
    const auto *N = llvm::dyn_cast<NameExpr>(A.Value.get());
    if (A.Keyword != "support" || !N ||
        (N->Name != "real" && N->Name != "positive")) {
      Diags.report(diag::E_IMPROPER_ARGS, A.Loc);
      Ok = false;
      continue;
    }
    Support = N->Name;
  }
  if (IsOutput) {
    Diags.report(diag::E_OUTPUT_IMPROPER, S.DistLoc) << S.Name;
    Ok = false;
  }
  S.Args.clear();
  return Support;
}

/// The call's parameters, its batch shape and (with an event axis) the
/// event size K; composites by their own rules.
std::optional<Analyzer::BoundCall>
Analyzer::bindSampleCall(SampleStmt &S, const DistSpec &Spec, bool IsOutput) {
  if (Spec.Kind == DistKind::MixtureSameFamily)
    return bindMixture(S);
  if (Spec.Kind == DistKind::MixtureGeneral)
    return bindMixtureGeneral(S);
  if (Spec.Kind == DistKind::TransformedDistribution)
    return bindTransformed(S, IsOutput);
  if (Spec.Kind == DistKind::TruncatedDistribution)
    return bindTruncated(S);
  if (Spec.isCensored())
    return bindCensored(S);
  if (Spec.Kind == DistKind::GaussianCopula)
    return bindCopula(S);
  if (Spec.Kind == DistKind::SineSkewed)
    return bindSineSkewed(S);
  if (Spec.Kind == DistKind::FoldedDistribution)
    return bindFolded(S);
  if (Spec.Kind == DistKind::MaskedDistribution)
    return bindMasked(S, IsOutput);
  return bindCall(Spec, S.Args, S.DistLoc, S.ExplicitShape.has_value());
}

/// The site's shape without the event: the call's batch shape, or the
/// explicit `[...]` it must broadcast to (whose last axis may give the
/// event size the parameters do not).
Shape Analyzer::siteShape(SampleStmt &S, BoundCall &Call, bool &Ok) {
  const std::optional<Shape> &Batch = Call.Batch;
  Shape Own = Batch ? *Batch : Shape{};
  if (!S.ExplicitShape)
    return Own;
  AllowPosteriorDims = true;
  auto E = resolveDims(*S.ExplicitShape, true);
  AllowPosteriorDims = false;
  if (E && Call.EventFromShape && !E->empty()) {
    // Dirichlet(1.0)[J, K]: J draws of K-vectors, the scalar parameters
    // broadcast along the event.
    Call.EventSize = E->back();
    E->pop_back();
    Call.EventFromShape = false;
  }
  if (!E) {
    Ok = false;
  } else if (Batch && !broadcastsTo(*Batch, *E)) {
    Diags.report(diag::E_SITE_SHAPE_BROADCAST, S.DistLoc)
        << shapeStr(*Batch) << shapeStr(*E);
    Ok = false;
  } else {
    Own = *E;
  }
  return Own;
}

/// The lowered parameters, each broadcast to the site's shape `Own`
/// followed by its event; the site's own shape with the value's event.
void Analyzer::lowerParams(SampleStmt &S, BoundCall &Call, const Shape &Own) {
  S.LoweredDist = Call.Dist;
  S.Lowered = std::move(Call.Params);
  S.ValueMap = Call.ValueMap;
  for (SampleStmt::LoweredParam &P : S.Lowered) {
    Shape Target = Own;
    if (Call.EventSize)
      llvm::append_range(Target, Call.eventAxes(P.Target.size(), P.RowAxes));
    P.Target = Target;
  }
  S.OwnShape = Own;
  if (Call.EventSize)
    llvm::append_range(S.OwnShape, Call.valueEvent());
}

/// An output's site against its declaration: the same shape, a dtype
/// that holds the distribution's values. `T` becomes the declared dtype.
bool Analyzer::checkOutputSite(const SampleStmt &S, const DistSpec &Spec,
                               const BoundCall &Call, const Shape &Full,
                               DType &T) {
  bool Ok = true;
  const TypedArray &Out = Info.Outputs[Info.outputIndex(S.Name)];
  if (Full != Out.Dims) {
    Diags.report(diag::E_OUTPUT_SHAPE, S.NameLoc)
        << S.Name << dtypeName(Out.Type) + shapeStr(Out.Dims) << shapeStr(Full);
    Diags.report(diag::N_OUTPUT_DECLARED_HERE, M.findOutput(S.Name)->Loc);
    Ok = false;
  }
  bool Discrete = Call.Discrete;
  bool TypeOk =
      Discrete ? (isInteger(Out.Type) ||
                  (Out.Type == DType::Bool && Spec.Kind == DistKind::Bernoulli))
               : isFloat(Out.Type);
  if (!TypeOk) {
    Diags.report(diag::E_OUTPUT_TYPE, S.DistLoc)
        << Spec.Name << (Discrete ? "integers" : "real numbers") << S.Name
        << dtypeName(Out.Type)
        << (Discrete ? "i32" : dtypeName(Info.Precision));
    Ok = false;
  }
  if (TypeOk && Call.ValueEventRank && Call.EventSize && Out.Type != T) {
    Diags.report(diag::E_OUTPUT_VECTOR_TYPE, S.DistLoc)
        << Spec.Name << dtypeName(T) << S.Name;
    Ok = false;
  }
  T = Out.Type;
  return Ok;
}

void Analyzer::addSampleSite(const SampleStmt &S, DType T, const Shape &Full,
                             const std::string &Support, const BoundCall &Call,
                             bool IsOutput) {
  Site Si;
  Si.Name = S.Name;
  Si.Type = T;
  Si.Dims = Full;
  Si.Dist = S.Spec;
  // A zero-inflated or hurdle form with no table row of its own is a
  // MixtureGeneral underneath: the site table names the form written.
  const llvm::StringRef Written = S.WrittenDist;
  if (S.Spec->Kind == DistKind::MixtureGeneral &&
      (Written.starts_with("Hurdle") || Written.starts_with("ZeroInflated")))
    Si.DistLabel = S.WrittenDist;
  Si.Decl = &S;
  Si.Support = Support;
  Si.EventRank = Call.EventSize ? Call.ValueEventRank : 0;
  Si.Plates = plateNames(Full.size());
  if (IsOutput) {
    SampledOutputs.insert(S.Name);
    Si.Kind = SiteKind::Observed;
    Si.Class = classify(Full, Si.EventRank) == SiteClass::Joint
                   ? SiteClass::Joint
                   : SiteClass::Observed;
  } else {
    Si.Kind = SiteKind::Latent;
    Si.Class = classify(Full, Si.EventRank);
  }
  Info.Sites.push_back(Si);
}

} // namespace sema
} // namespace aimz
