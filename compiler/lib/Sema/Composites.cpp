//===- Composites.cpp - Distributions over distributions ------------------===//
//
// MixtureSameFamily(Categorical(...), Component(...)),
// TransformedDistribution(Base(...)[K], OrderedTransform()) and
// TruncatedDistribution(Base(...), low=, high=): their distribution
// arguments bound by DistributionCalls.cpp's rules, the composite's own
// shape rule on top. ZeroInflated/HurdleDistribution are rewritten to the
// named distributions they equal (GatedComposites.cpp).
//
//===----------------------------------------------------------------------===//
#include "Analyzer.h"

namespace aimz {
namespace sema {
namespace {

/// The parameter of `Spec` that argument `A` binds: the next positional
/// one, or the one it names; Spec.Params.size() when none.
size_t paramIndex(const DistSpec &Spec, const Arg &A, size_t &Positional) {
  if (A.Keyword.empty())
    return Positional++;
  for (size_t J = 0; J < Spec.Params.size(); ++J)
    if (A.Keyword == Spec.Params[J].Name)
      return J;
  return Spec.Params.size();
}

} // namespace

ExprPtr Analyzer::compositeArg(const SampleStmt &S, size_t Index) const {
  ExprPtr Found;
  size_t Positional = 0;
  for (const Arg &A : S.Args)
    if (paramIndex(*S.Spec, A, Positional) == Index)
      Found = A.Value;
  return Found;
}

ExprPtr Analyzer::precisionLiteral(SMLoc Loc, double V) {
  auto N = std::make_shared<NumberExpr>(Loc, V, false);
  N->Ty = {Info.Precision, {}, true};
  return N;
}

bool Analyzer::bindTrailingParam(const char *Name, const ExprPtr &E,
                                 BoundCall &R,
                                 llvm::function_ref<void()> NotNumber) {
  if (!analyzeExpr(*E))
    return false;
  if (NotNumber && !isNumeric(E->Ty.Type)) {
    NotNumber();
    return false;
  }
  auto B = broadcastShapes(*R.Batch, E->Ty.Dims);
  if (!B) {
    Diags.report(diag::E_BOUND_BROADCAST, E->Loc)
        << Name << shapeStr(E->Ty.Dims) << shapeStr(*R.Batch);
    return false;
  }
  R.Batch = B;
  R.Params.push_back(
      {Name, E, Shape(), SampleStmt::LoweredParam::Transform::None});
  return true;
}

/// Argument `Index` of a composite (positional or by the parameter's
/// name), which must be a distribution call.
const CallExpr *Analyzer::distributionArg(const SampleStmt &S, size_t Index,
                                          const char *What) {
  const DistSpec &Spec = *S.Spec;
  size_t Positional = 0;
  for (const Arg &A : S.Args) {
    if (paramIndex(Spec, A, Positional) >= Spec.Params.size()) {
      std::vector<std::string> Names;
      for (const DistParam &P : Spec.Params)
        Names.push_back(P.Name);
      std::string List = Names.back();
      Names.pop_back();
      if (!Names.empty())
        List = llvm::join(Names, ", ") + " and " + List;
      Diags.report(diag::E_COMPOSITE_ARGS, A.Loc) << Spec.Name << List;
      return nullptr;
    }
  }
  Expr *Found = compositeArg(S, Index).get();
  if (!Found) {
    Diags.report(diag::E_COMPOSITE_MISSING, S.DistLoc)
        << Spec.Name << Spec.Params[Index].Name;
    return nullptr;
  }
  Expr *E = Found;
  if (auto *Ix = llvm::dyn_cast<IndexExpr>(E))
    E = Ix->Base.get();
  auto *C = llvm::dyn_cast<CallExpr>(E);
  // A base written as another distribution (HalfStudentT, ...) is that one.
  if (C && !lookupDistribution(C->Callee) &&
      !rewriteDistributionSugar(C->Callee, C->Args, C->Loc))
    return nullptr;
  if (!C || (!lookupDistribution(C->Callee) &&
             llvm::StringRef(What) != "a transform")) {
    Diags.report(diag::E_COMPOSITE_ARG_KIND, Found->Loc)
        << Spec.Name << Spec.Params[Index].Name << What;
    return nullptr;
  }
  return C;
}

std::optional<Analyzer::NumberBase>
Analyzer::bindNumberBase(SampleStmt &S) {
  const CallExpr *BaseCall = distributionArg(S, 0, "a distribution call");
  if (!BaseCall)
    return std::nullopt;
  const DistSpec *Base = lookupDistribution(BaseCall->Callee);
  if (Base->canonical().Kind == DistKind::FoldedDistribution)
    return bindFoldedBase(*BaseCall, *Base);
  if (Base->isComposite()) {
    Diags.report(diag::E_NESTED_COMPOSITE, BaseCall->Loc)
        << S.Spec->Name << BaseCall->Callee;
    return std::nullopt;
  }
  auto C = bindCall(*Base, BaseCall->Args, BaseCall->Loc);
  if (!C || !C->Ok || !C->Batch)
    return std::nullopt;
  NumberBase R{BaseCall, Base, std::move(*C), "", Base->canonical().Name};
  if (Base->hasEvent() || Base->Improper)
    return R;
  std::vector<llvm::StringRef> Given;
  for (const SampleStmt::LoweredParam &P : R.Bound.Params)
    Given.push_back(P.Name);
  R.Symbol = runtimeSymbol(Base->canonical(), Given);
  return R;
}

SampleStmt Analyzer::siteOfCall(const CallExpr &Call, const DistSpec &Spec) {
  SampleStmt Site(Call.Loc, "", Call.Loc, Call.Callee, Call.Loc, Call.Args,
                  std::nullopt);
  Site.Spec = &Spec;
  return Site;
}

/// A base written as FoldedDistribution(B(...)): bound as its own site
/// would be; its row is folded_<B>, which has a CDF (runtime
/// CdfDistributions.def), and its name in the composite's is "Folded(B)".
std::optional<Analyzer::NumberBase>
Analyzer::bindFoldedBase(const CallExpr &Call, const DistSpec &Spec) {
  SampleStmt Inner = siteOfCall(Call, Spec);
  auto B = bindFolded(Inner);
  if (!B)
    return std::nullopt;
  std::vector<llvm::StringRef> Given;
  for (const SampleStmt::LoweredParam &P : B->Params)
    Given.push_back(P.Name);
  auto Row = runtimeCall(B->Dist, Given);
  if (!Row)
    return std::nullopt;
  std::string Name = B->Dist;
  return NumberBase{&Call, &Spec, std::move(*B), Row->Symbol, std::move(Name)};
}

/// A composite over a base whose last batch axis is the event (a copula's
/// marginal, a sine-skewed von Mises; parameters without it broadcast
/// along the event): the base's parameters along the event, then the
/// composite's own `Extra` (its argument `ExtraName`, whose leading axes
/// `ExtraBatch` are a batch). R.EventSize is the event size.
bool Analyzer::bindEventComposite(SampleStmt &S, const NumberBase &NB,
                                  SampleStmt::LoweredParam Extra,
                                  const char *ExtraName,
                                  const Shape &ExtraBatch, BoundCall &R) {
  const DistSpec &Spec = *S.Spec;
  for (SampleStmt::LoweredParam P : NB.Bound.Params) {
    P.Target = Shape(1, Dim()); // along the event
    R.Params.push_back(P);
  }
  R.Params.push_back(std::move(Extra));
  Shape Base = *NB.Bound.Batch;
  if (!Base.empty()) {
    if (Base.back() != *R.EventSize && !Base.back().isOne()) {
      Diags.report(diag::E_PARAMETER_EVENT_MISMATCH, NB.Call->Loc)
          << Spec.Params[0].Name << Spec.Name << shapeStr({Base.back()})
          << "the event size " + shapeStr({*R.EventSize}) + " of '" +
                 ExtraName + "'";
      return false;
    }
    Base.pop_back();
  }
  R.Batch = broadcastShapes(Base, ExtraBatch);
  if (!R.Batch) {
    Diags.report(diag::E_PARAMETER_BATCH_MISMATCH, S.DistLoc)
        << ExtraName << Spec.Name << "batch shape" << shapeStr(ExtraBatch)
        << shapeStr(Base);
    return false;
  }
  return true;
}

/// MixtureSameFamily(Categorical(probs=|logits=), Component(...)): the
/// component's last batch axis is the component axis; the mixing weights
/// arrive as logits (log of probs).
std::optional<Analyzer::BoundCall> Analyzer::bindMixture(SampleStmt &S) {
  const CallExpr *Mix = distributionArg(S, 0,
                                        "a Categorical(probs=...) or "
                                        "Categorical(logits=...)");
  const CallExpr *Comp = distributionArg(S, 1, "a distribution call");
  if (!Mix || !Comp)
    return std::nullopt;
  const DistSpec *MixSpec = lookupDistribution(Mix->Callee);
  if (MixSpec->canonical().Kind != DistKind::Categorical) {
    Diags.report(diag::E_MIXTURE_NOT_CATEGORICAL, Mix->Loc) << Mix->Callee;
    return std::nullopt;
  }
  const DistSpec *Base = lookupDistribution(Comp->Callee);
  if (Base->hasEvent() || Base->isComposite() || Base->Improper) {
    Diags.report(diag::E_MIXTURE_COMPONENT_KIND, Comp->Loc) << Comp->Callee;
    return std::nullopt;
  }
  auto M = bindCall(*MixSpec, Mix->Args, Mix->Loc);
  auto C = bindCall(*Base, Comp->Args, Comp->Loc);
  if (!M || !C || !M->Ok || !C->Ok || !M->Batch || !C->Batch)
    return std::nullopt;
  if (C->Batch->empty() || !M->EventSize ||
      (C->Batch->back() != *M->EventSize && !C->Batch->back().isOne())) {
    Diags.report(diag::E_MIXTURE_COMPONENT_AXIS, Comp->Loc)
        << (M->EventSize ? shapeStr({*M->EventSize}) : "[K]")
        << shapeStr(*C->Batch);
    return std::nullopt;
  }
  BoundCall R;
  R.Dist = compositeName(DistKind::MixtureSameFamily, Base->canonical().Name);
  R.Discrete = Base->Discrete;
  R.EventSize = M->EventSize;
  Shape CompBatch(C->Batch->begin(), C->Batch->end() - 1);
  R.Batch = broadcastShapes(*M->Batch, CompBatch);
  if (!R.Batch) {
    Diags.report(diag::E_MIXTURE_BATCH, S.DistLoc)
        << shapeStr(*M->Batch) << shapeStr(CompBatch);
    return std::nullopt;
  }
  SampleStmt::LoweredParam W = M->Params.front();
  if (W.Name == "probs")
    W.Fn = SampleStmt::LoweredParam::Transform::Log;
  W.Name = "logits";
  R.Params.push_back(W);
  for (SampleStmt::LoweredParam P : C->Params) {
    P.Target = Shape(1, Dim()); // along the component axis
    R.Params.push_back(P);
  }
  return R;
}

/// TransformedDistribution(Base(...)[K], OrderedTransform()): an ordered
/// vector; only a latent (it has no log density here).
std::optional<Analyzer::BoundCall> Analyzer::bindOrdered(SampleStmt &S,
                                                         bool IsOutput) {
  const CallExpr *BaseCall = distributionArg(S, 0, "a distribution call");
  const CallExpr *T = distributionArg(S, 1, "a transform");
  if (!BaseCall || !T)
    return std::nullopt;
  if (T->Callee != "OrderedTransform" || !T->Args.empty()) {
    Diags.report(diag::E_TRANSFORM_NOT_ORDERED, T->Loc);
    return std::nullopt;
  }
  if (IsOutput) {
    Diags.report(diag::E_OUTPUT_TRANSFORMED, S.DistLoc) << S.Name;
    return std::nullopt;
  }
  const DistSpec *Base = lookupDistribution(BaseCall->Callee);
  if (Base->hasEvent() || Base->isComposite() || Base->Improper ||
      Base->Discrete) {
    Diags.report(diag::E_ORDERED_BASE, BaseCall->Loc) << BaseCall->Callee;
    return std::nullopt;
  }
  auto C = bindCall(*Base, BaseCall->Args, BaseCall->Loc);
  if (!C || !C->Ok || !C->Batch)
    return std::nullopt;
  Shape Vec = *C->Batch;
  // `Base(...)[K]`: NumPyro's .expand([K]).
  for (const Arg &A : S.Args)
    if (auto *Ix = llvm::dyn_cast<IndexExpr>(A.Value.get());
        Ix && Ix->Base.get() == BaseCall) {
      std::vector<DimSyntax> Ds;
      for (const ExprPtr &I : Ix->Indices) {
        if (auto *N = llvm::dyn_cast<NameExpr>(I.get()))
          Ds.push_back({N->Name, 0, N->Loc});
        else if (auto *L = llvm::dyn_cast<NumberExpr>(I.get());
                 L && L->IsInteger && L->Value >= 1)
          Ds.push_back({"", static_cast<int64_t>(L->Value), L->Loc});
        else if (llvm::isa<SliceExpr, AxisExpr>(I.get())) {
          Diags.report(diag::E_ORDERED_BASE_SHAPE, I->Loc);
          return std::nullopt;
        } else {
          // Dimension arithmetic, as anywhere a dimension is written
          // (`[n_classes - 1]`); resolveDims checks it.
          DimSyntax D;
          D.Loc = I->Loc;
          D.Arith = I;
          Ds.push_back(std::move(D));
        }
      }
      AllowPosteriorDims = true;
      auto E = resolveDims(Ds, true);
      AllowPosteriorDims = false;
      if (!E)
        return std::nullopt;
      if (!broadcastsTo(Vec, *E)) {
        Diags.report(diag::E_ORDERED_BASE_BROADCAST, Ix->Loc)
            << shapeStr(Vec) << shapeStr(*E);
        return std::nullopt;
      }
      Vec = *E;
    }
  if (Vec.empty()) {
    Diags.report(diag::E_ORDERED_NO_LENGTH, BaseCall->Loc);
    return std::nullopt;
  }
  if (Vec.back() == Dim::symbol(Info.ObsDim)) {
    Diags.report(diag::E_ORDERED_OBS_AXIS, BaseCall->Loc);
    return std::nullopt;
  }
  BoundCall R;
  R.Dist = compositeName(DistKind::TransformedDistribution, Base->canonical().Name);
  R.EventSize = Vec.back();
  R.ValueEventRank = 1;
  R.Batch = Shape(Vec.begin(), Vec.end() - 1);
  for (SampleStmt::LoweredParam P : C->Params) {
    P.Target = Shape(1, Dim());
    R.Params.push_back(P);
  }
  return R;
}

/// TruncatedDistribution(Base(...), low=, high=): the base's density
/// renormalized on [low, high] (either bound may be left out; for counts,
/// the integers in it, both ends included).
std::optional<Analyzer::BoundCall> Analyzer::bindTruncated(SampleStmt &S) {
  // A vector base is refused as such, before its own shape rules.
  const CallExpr *BaseCall = distributionArg(S, 0, "a distribution call");
  if (!BaseCall)
    return std::nullopt;
  auto Refuse = [&] {
    Diags.report(diag::E_TRUNCATED_BASE, BaseCall->Loc)
        << cdfBaseList(/*ContinuousOnly=*/false) << BaseCall->Callee;
    return std::nullopt;
  };
  if (const DistSpec *B = lookupDistribution(BaseCall->Callee);
      B->hasEvent() || B->Improper)
    return Refuse();
  auto NB = bindNumberBase(S);
  if (!NB)
    return std::nullopt;
  const std::string Dist =
      compositeName(DistKind::TruncatedDistribution, NB->Name);
  std::vector<llvm::StringRef> Given;
  for (const SampleStmt::LoweredParam &P : NB->Bound.Params)
    Given.push_back(P.Name);
  Given.insert(Given.end(), {"low", "high"});
  if (NB->Symbol.empty() || !runtimeCall(Dist, Given))
    return Refuse();
  // low and high: by keyword, or positional after the base.
  ExprPtr Bounds[2];
  const char *Names[2] = {"low", "high"};
  size_t Positional = 0;
  bool Ok = true;
  for (const Arg &A : S.Args) {
    int I = -1;
    if (A.Keyword.empty())
      I = static_cast<int>(Positional++) - 1;
    else if (A.Keyword == "low" || A.Keyword == "high")
      I = A.Keyword == "low" ? 0 : 1;
    else if (A.Keyword == "base_dist")
      continue;
    if (I < 0 || I > 1) {
      if (!(A.Keyword.empty() && I == -1)) {
        Diags.report(diag::E_TRUNCATED_ARGS, A.Loc);
        Ok = false;
      }
      continue;
    }
    if (Bounds[I]) {
      Diags.report(diag::E_ARGUMENT_TWICE, A.Loc) << Names[I];
      Ok = false;
      continue;
    }
    Bounds[I] = A.Value;
  }
  BoundCall R;
  R.Dist = Dist;
  R.Discrete = NB->Spec->Discrete; // a truncated count is a count
  R.Params = NB->Bound.Params;
  R.Batch = NB->Bound.Batch;
  for (int I = 0; I < 2; ++I) {
    if (!Bounds[I]) {
      Bounds[I] = precisionLiteral(S.DistLoc, I == 0 ? -HUGE_VAL : HUGE_VAL);
      R.Params.push_back({Names[I], Bounds[I], Shape(),
                          SampleStmt::LoweredParam::Transform::None});
      continue;
    }
    Ok &= bindTrailingParam(Names[I], Bounds[I], R, [&] {
      Diags.report(diag::E_BOUND_NOT_NUMBER, Bounds[I]->Loc) << Names[I];
    });
  }
  if (Ok)
    Ok = checkTruncationInterval(*Bounds[0], *Bounds[1], NB->Spec->Discrete,
                                 S.DistLoc);
  if (!Ok)
    return std::nullopt;
  return R;
}

/// Literal bounds that leave nothing to draw: low not below high, or, for
/// counts, no integer between them.
bool Analyzer::checkTruncationInterval(const Expr &Low, const Expr &High,
                                       bool Counts, SMLoc Loc) {
  auto Lo = literalValue(Low), Hi = literalValue(High);
  if (!Lo || !Hi)
    return true;
  bool Empty = Counts ? std::ceil(*Lo) > std::floor(*Hi) : !(*Lo < *Hi);
  if (!Empty)
    return true;
  Diags.report(diag::E_TRUNCATION_EMPTY, Loc)
      << formatNumber(*Lo) << formatNumber(*Hi)
      << (Counts ? "integer" : "value");
  return false;
}

} // namespace sema
} // namespace aimz
