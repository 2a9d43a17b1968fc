//===- SampleSites.cpp - Sample statements -------------------------------===//
//
// `x ~ Dist(...)`: arguments bound to the distribution's parameters
// (Distributions.def), NumPyro's batch/event shape rule, composites
// (MixtureSameFamily, TransformedDistribution, TruncatedDistribution), and
// the output's checks.
//
//===----------------------------------------------------------------------===//
#include "Analyzer.h"

namespace aimz {
namespace sema {

std::optional<Analyzer::BoundCall>
Analyzer::bindCall(const DistSpec &Spec, const std::vector<Arg> &Args,
                   SMLoc DistLoc, bool ShapeMayGiveEvent) {
  BoundCall R;
  R.Dist = Spec.Name;
  R.Discrete = Spec.Discrete;
  R.ValueEventRank = Spec.ValueEventRank;
  bool &Ok = R.Ok;
  // Bind arguments to parameters: positional first, then keywords.
  std::vector<ExprPtr> Bound(Spec.Params.size());
  size_t Positional = 0;
  for (const Arg &A : Args) {
    size_t Index = Spec.Params.size();
    if (A.Keyword.empty()) {
      if (Positional >= Spec.Params.size() ||
          (Spec.ExactlyOneOf.size() > 1 &&
           Spec.Params[Positional].Name ==
               llvm::StringRef(Spec.ExactlyOneOf.back()))) {
        Diags.report(diag::E_TOO_MANY_POSITIONAL, A.Loc)
            << Spec.Name << Positional << (Positional == 1 ? "" : "s");
        Ok = false;
        continue;
      }
      Index = Positional++;
    } else {
      for (size_t I = 0; I < Spec.Params.size(); ++I)
        if (A.Keyword == Spec.Params[I].Name)
          Index = I;
      if (Index == Spec.Params.size()) {
        std::vector<std::string> Names;
        for (const DistParam &P : Spec.Params)
          Names.push_back(P.Name);
        Diags.report(diag::E_NO_SUCH_PARAMETER, A.Loc)
            << Spec.Name << A.Keyword << llvm::join(Names, ", ");
        Ok = false;
        continue;
      }
    }
    if (Bound[Index]) {
      Diags.report(diag::E_PARAMETER_TWICE, A.Loc)
          << Spec.Params[Index].Name << Spec.Name;
      Ok = false;
      continue;
    }
    Bound[Index] = A.Value;
  }
  if (!Spec.ExactlyOneOf.empty()) {
    std::vector<std::string> Given;
    for (size_t I = 0; I < Spec.Params.size(); ++I)
      if (Bound[I] && llvm::is_contained(Spec.ExactlyOneOf,
                                         llvm::StringRef(Spec.Params[I].Name)))
        Given.push_back(Spec.Params[I].Name);
    if (Given.size() != 1) {
      Diags.report(diag::E_EXACTLY_ONE_OF, DistLoc)
          << Spec.Name << Spec.ExactlyOneOf.front() << Spec.ExactlyOneOf.back()
          << (Given.empty() ? "" : "; both were given");
      Ok = false;
    }
  }

  // Type every argument and check it against its constraint; split its
  // shape into batch and event axes.
  std::optional<Shape> &Batch = R.Batch;
  Batch = Shape{};
  std::optional<Dim> &K = R.EventSize;
  const char *KFrom = nullptr;
  Shape KShape;
  for (size_t I = 0; I < Spec.Params.size(); ++I) {
    const DistParam &P = Spec.Params[I];
    bool InGroup = llvm::is_contained(Spec.ExactlyOneOf,
                                      llvm::StringRef(P.Name));
    if (!Bound[I]) {
      if (!P.Default && !InGroup) {
        Diags.report(diag::E_MISSING_PARAMETER, DistLoc) << Spec.Name << P.Name;
        Ok = false;
      } else if (P.Default) {
        Bound[I] = std::make_shared<NumberExpr>(
            DistLoc, *P.Default, P.Domain == Constraint::NonNegativeInteger);
        Bound[I]->Ty = {P.Domain == Constraint::NonNegativeInteger
                            ? DType::I32
                            : Info.Precision,
                        {}, true};
        if (!P.SizeOnly)
          R.Params.push_back({P.Name, Bound[I], Shape(P.EventRank, Dim()),
                              SampleStmt::LoweredParam::Transform::None});
      }
      continue;
    }
    Expr &E = *Bound[I];
    if (!analyzeExpr(E)) {
      Ok = false;
      continue;
    }
    if (!isNumeric(E.Ty.Type)) {
      Diags.report(diag::E_PARAMETER_BOOL, E.Loc) << P.Name << Spec.Name;
      Ok = false;
      continue;
    }
    if (P.Domain == Constraint::NonNegativeInteger && isFloat(E.Ty.Type)) {
      Diags.report(diag::E_PARAMETER_NOT_INTEGER, E.Loc)
          << P.Name << Spec.Name << dtypeName(E.Ty.Type);
      Ok = false;
      continue;
    }
    auto V = literalValue(E);
    if (V && !satisfies(P.Domain, *V)) {
      Diags.report(diag::E_PARAMETER_CONSTRAINT, E.Loc)
          << P.Name << Spec.Name << constraintDescription(P.Domain)
          << formatNumber(*V);
      Ok = false;
    }
    if (P.SizeOnly) {
      // LKJCholesky's dimension: the event is [dimension, dimension].
      if (!V || *V < 2 || !E.Ty.Dims.empty()) {
        Diags.report(diag::E_PARAMETER_SIZE, E.Loc) << P.Name << Spec.Name;
        Ok = false;
      } else {
        K = Dim::known(static_cast<int64_t>(*V));
      }
      continue;
    }
    if (P.EventRank == 2 && E.Ty.Dims.size() < 2) {
      Diags.report(diag::E_PARAMETER_NOT_MATRIX, E.Loc)
          << P.Name << Spec.Name << shapeStr(E.Ty.Dims);
      Ok = false;
      continue;
    }
    // Batch axes lead, the parameter's event axes trail (NumPyro's rule).
    size_t EventAxes = std::min<size_t>(P.EventRank, E.Ty.Dims.size());
    Shape PBatch(E.Ty.Dims.begin(), E.Ty.Dims.end() - EventAxes);
    Shape PEvent(E.Ty.Dims.end() - EventAxes, E.Ty.Dims.end());
    for (const Dim &D : PEvent) {
      if (D.isOne() && P.EventRank)
        continue; // broadcasts along the event
      if (D == Dim::symbol(Info.ObsDim)) {
        Diags.report(diag::E_PARAMETER_OBS_EVENT, E.Loc)
            << P.Name << Spec.Name << Info.ObsDim;
        Ok = false;
        break;
      }
      if (K && *K != D) {
        Diags.report(diag::E_PARAMETER_EVENT_MISMATCH, E.Loc)
            << P.Name << Spec.Name << shapeStr(PEvent)
            << (KFrom ? "'" + std::string(KFrom) + "' with " +
                            "event shape " + shapeStr(KShape)
                      : std::string("its event size ") + shapeStr({*K}));
        Ok = false;
        break;
      }
      K = D;
      KFrom = P.Name;
      KShape = PEvent;
    }
    if (Batch) {
      auto B = broadcastShapes(*Batch, PBatch);
      if (!B) {
        Diags.report(diag::E_PARAMETER_BATCH_MISMATCH, E.Loc)
            << P.Name << Spec.Name << (P.EventRank ? "batch shape" : "shape")
            << shapeStr(PBatch) << shapeStr(*Batch);
        Ok = false;
      }
      Batch = B;
    }
    bool Chol = llvm::StringRef(P.Name) == "covariance_matrix";
    R.Params.push_back(
        {Chol ? "scale_tril" : P.Name, Bound[I], Shape(P.EventRank, Dim()),
         Chol ? SampleStmt::LoweredParam::Transform::Cholesky
              : SampleStmt::LoweredParam::Transform::None});
  }
  if (Spec.hasEvent() && !K && Ok) {
    for (const DistParam &P : Spec.Params)
      if (P.EventRank)
        R.EventParams += std::string(R.EventParams.empty() ? "" : " or ") +
                         "'" + P.Name + "'";
    if (ShapeMayGiveEvent)
      R.EventFromShape = true;
    else
      reportMissingEventSize(Spec, R, DistLoc);
  }
  if (Spec.Kind == DistKind::Uniform && Bound[0] && Bound[1]) {
    auto Lo = literalValue(*Bound[0]), Hi = literalValue(*Bound[1]);
    if (Lo && Hi && !(*Lo < *Hi)) {
      Diags.report(diag::E_UNIFORM_BOUNDS, DistLoc)
          << formatNumber(*Lo) << formatNumber(*Hi);
      Ok = false;
    }
  }
  return R;
}

void Analyzer::reportMissingEventSize(const DistSpec &Spec,
                                      const BoundCall &R, SMLoc Loc) {
  Diags.report(diag::E_MISSING_EVENT_SIZE, Loc) << Spec.Name << R.EventParams;
}

/// Argument `Index` of a composite (positional or by the parameter's
/// name), which must be a distribution call.
const CallExpr *Analyzer::distributionArg(const SampleStmt &S, size_t Index,
                                          const char *What) {
  const DistSpec &Spec = *S.Spec;
  const Expr *Found = nullptr;
  size_t Positional = 0;
  for (const Arg &A : S.Args) {
    size_t I = A.Keyword.empty() ? Positional++ : Spec.Params.size();
    for (size_t J = 0; J < Spec.Params.size() && !A.Keyword.empty(); ++J)
      if (A.Keyword == Spec.Params[J].Name)
        I = J;
    if (I >= Spec.Params.size()) {
      std::vector<std::string> Names;
      for (const DistParam &P : Spec.Params)
        Names.push_back(P.Name);
      std::string Last = Names.back();
      Names.pop_back();
      Diags.report(diag::E_COMPOSITE_ARGS, A.Loc)
          << Spec.Name << llvm::join(Names, ", ") << Last;
      return nullptr;
    }
    if (I == Index)
      Found = A.Value.get();
  }
  if (!Found) {
    Diags.report(diag::E_COMPOSITE_MISSING, S.DistLoc)
        << Spec.Name << Spec.Params[Index].Name;
    return nullptr;
  }
  const Expr *E = Found;
  if (auto *Ix = llvm::dyn_cast<IndexExpr>(E))
    E = Ix->Base.get();
  const auto *C = llvm::dyn_cast<CallExpr>(E);
  if (!C || (!lookupDistribution(C->Callee) &&
             llvm::StringRef(What) != "a transform")) {
    Diags.report(diag::E_COMPOSITE_ARG_KIND, Found->Loc)
        << Spec.Name << Spec.Params[Index].Name << What;
    return nullptr;
  }
  return C;
}

/// MixtureSameFamily(Categorical(probs=|logits=), Component(...)): the
/// component's last batch axis is the component axis; the mixing weights
/// arrive as logits (log of probs).
std::optional<Analyzer::BoundCall> Analyzer::bindMixture(SampleStmt &S) {
  const CallExpr *Mix = distributionArg(S, 0, "a Categorical(probs=...) or "
                                              "Categorical(logits=...)");
  const CallExpr *Comp = distributionArg(S, 1, "a distribution call");
  if (!Mix || !Comp)
    return std::nullopt;
  if (Mix->Callee != "Categorical") {
    Diags.report(diag::E_MIXTURE_NOT_CATEGORICAL, Mix->Loc) << Mix->Callee;
    return std::nullopt;
  }
  const DistSpec *Base = lookupDistribution(Comp->Callee);
  if (Base->hasEvent() || Base->isComposite() || Base->Improper) {
    Diags.report(diag::E_MIXTURE_COMPONENT_KIND, Comp->Loc) << Comp->Callee;
    return std::nullopt;
  }
  auto M = bindCall(*lookupDistribution("Categorical"), Mix->Args, Mix->Loc);
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
  R.Dist = compositeName(DistKind::MixtureSameFamily, Base->Name);
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
        else {
          Diags.report(diag::E_ORDERED_BASE_SHAPE, I->Loc);
          return std::nullopt;
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
  R.Dist = compositeName(DistKind::TransformedDistribution, Base->Name);
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
/// renormalized on [low, high] (either bound may be left out), for the
/// real-valued symmetric bases NumPyro truncates.
std::optional<Analyzer::BoundCall> Analyzer::bindTruncated(SampleStmt &S) {
  const CallExpr *BaseCall = distributionArg(S, 0, "a distribution call");
  if (!BaseCall)
    return std::nullopt;
  if (!llvm::is_contained(truncatableBases(), BaseCall->Callee)) {
    std::vector<std::string> Names(truncatableBases().begin(),
                                   truncatableBases().end());
    Diags.report(diag::E_TRUNCATED_BASE, BaseCall->Loc)
        << llvm::join(Names, ", ") << BaseCall->Callee;
    return std::nullopt;
  }
  const DistSpec *Base = lookupDistribution(BaseCall->Callee);
  auto C = bindCall(*Base, BaseCall->Args, BaseCall->Loc);
  if (!C || !C->Ok || !C->Batch)
    return std::nullopt;
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
  R.Dist = compositeName(DistKind::TruncatedDistribution, Base->Name);
  R.Params = C->Params;
  R.Batch = C->Batch;
  for (int I = 0; I < 2; ++I) {
    if (!Bounds[I]) {
      Bounds[I] = std::make_shared<NumberExpr>(
          S.DistLoc, I == 0 ? -HUGE_VAL : HUGE_VAL, false);
      Bounds[I]->Ty = {Info.Precision, {}, true};
    } else if (!analyzeExpr(*Bounds[I])) {
      Ok = false;
      continue;
    } else if (!isNumeric(Bounds[I]->Ty.Type)) {
      Diags.report(diag::E_BOUND_NOT_NUMBER, Bounds[I]->Loc) << Names[I];
      Ok = false;
      continue;
    }
    auto B = broadcastShapes(*R.Batch, Bounds[I]->Ty.Dims);
    if (!B) {
      Diags.report(diag::E_BOUND_BROADCAST, Bounds[I]->Loc)
          << Names[I] << shapeStr(Bounds[I]->Ty.Dims) << shapeStr(*R.Batch);
      Ok = false;
      continue;
    }
    R.Batch = B;
    R.Params.push_back({Names[I], Bounds[I], Shape(),
                        SampleStmt::LoweredParam::Transform::None});
  }
  if (!Ok)
    return std::nullopt;
  return R;
}

void Analyzer::analyzeSample(SampleStmt &S) {
  if (isGatedComposite(S.Dist) && !rewriteGatedComposite(S)) {
    poison(S);
    return;
  }
  const DistSpec *Spec = lookupDistribution(S.Dist);
  const Param *OutParam = M.findOutput(S.Name);
  bool IsOutput = OutParam != nullptr;
  bool Ok = true;
  if (const BlockStmt *Scan = enclosingScan()) {
    Diags.report(diag::E_SAMPLE_IN_SCAN, S.NameLoc) << S.Name << Scan->Name;
    Ok = false;
  }
  if (!Spec) {
    std::vector<std::string> Known;
    for (const DistSpec &D : allDistributions())
      Known.push_back(D.Name);
    Known.push_back("ZeroInflatedDistribution");
    Known.push_back("HurdleDistribution");
    Diags.report(diag::E_UNKNOWN_DISTRIBUTION, S.DistLoc)
        << S.Dist << llvm::join(Known, ", ");
    poison(S);
    return;
  }
  S.Spec = Spec;

  // ImproperUniform(support=real|positive): a flat prior with no density
  // to score and no draws; only a latent that the posterior gives.
  std::string Support;
  if (Spec->Improper) {
    Support = "real";
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
  }

  // The call's parameters, its batch shape and (with an event axis) the
  // event size K; composites by their own rules.
  std::optional<BoundCall> Call;
  if (Spec->Kind == DistKind::MixtureSameFamily)
    Call = bindMixture(S);
  else if (Spec->Kind == DistKind::TransformedDistribution)
    Call = bindOrdered(S, IsOutput);
  else if (Spec->Kind == DistKind::TruncatedDistribution)
    Call = bindTruncated(S);
  else
    Call = bindCall(*Spec, S.Args, S.DistLoc, S.ExplicitShape.has_value());
  if (!Call) {
    poison(S);
    return;
  }
  Ok = Ok && Call->Ok;
  std::optional<Shape> Batch = Call->Batch;

  Shape Own = Batch ? *Batch : Shape{};
  if (S.ExplicitShape) {
    AllowPosteriorDims = true;
    auto E = resolveDims(*S.ExplicitShape, true);
    AllowPosteriorDims = false;
    if (E && Call->EventFromShape && !E->empty()) {
      // Dirichlet(1.0)[J, K]: J draws of K-vectors, the scalar
      // parameters broadcast along the event.
      Call->EventSize = E->back();
      E->pop_back();
      Call->EventFromShape = false;
    }
    if (!E)
      Ok = false;
    else if (Batch && !broadcastsTo(*Batch, *E)) {
      Diags.report(diag::E_SITE_SHAPE_BROADCAST, S.DistLoc)
          << shapeStr(*Batch) << shapeStr(*E);
      Ok = false;
    } else {
      Own = *E;
    }
  }
  if (Call->EventFromShape) {
    if (Ok)
      reportMissingEventSize(*Spec, *Call, S.DistLoc);
    poison(S);
    return;
  }
  // Every argument broadcasts to the batch shape followed by its event.
  S.LoweredDist = Call->Dist;
  S.Lowered = std::move(Call->Params);
  for (SampleStmt::LoweredParam &P : S.Lowered) {
    Shape Target = Own;
    if (Call->EventSize)
      Target.insert(Target.end(), P.Target.size(), *Call->EventSize);
    P.Target = Target;
  }
  Shape ValueEvent;
  if (Call->EventSize)
    ValueEvent.assign(Call->ValueEventRank, *Call->EventSize);
  S.OwnShape = Own;
  llvm::append_range(S.OwnShape, ValueEvent);
  Own = S.OwnShape;

  Shape Full = plateDims();
  llvm::append_range(Full, Own);
  bool Discrete = Call->Discrete;
  DType T = Discrete ? DType::I32 : Info.Precision;

  if (IsOutput && Ok) {
    const TypedArray &Out = Info.Outputs[Info.outputIndex(S.Name)];
    if (Full != Out.Dims) {
      Diags.report(diag::E_OUTPUT_SHAPE, S.NameLoc)
          << S.Name << dtypeName(Out.Type) + shapeStr(Out.Dims)
          << shapeStr(Full);
      Diags.report(diag::N_OUTPUT_DECLARED_HERE, OutParam->Loc);
      Ok = false;
    }
    bool TypeOk = Discrete
                      ? (isInteger(Out.Type) ||
                         (Out.Type == DType::Bool &&
                          Spec->Kind == DistKind::Bernoulli))
                      : isFloat(Out.Type);
    if (!TypeOk) {
      Diags.report(diag::E_OUTPUT_TYPE, S.DistLoc)
          << Spec->Name << (Discrete ? "integers" : "real numbers") << S.Name
          << dtypeName(Out.Type)
          << (Discrete ? "i32" : dtypeName(Info.Precision));
      Ok = false;
    }
    if (TypeOk && Call->ValueEventRank && Call->EventSize &&
        Out.Type != T) {
      Diags.report(diag::E_OUTPUT_VECTOR_TYPE, S.DistLoc)
          << Spec->Name << dtypeName(T) << S.Name;
      Ok = false;
    }
    T = Out.Type;
  }
  if (!define(S, {Symbol::Kind::Sample, T, Full, S.NameLoc}) || !Ok)
    return;

  Site Si;
  Si.Name = S.Name;
  Si.Type = T;
  Si.Dims = Full;
  Si.Dist = Spec;
  Si.Decl = &S;
  Si.Support = Support;
  Si.EventRank = Call->EventSize ? Call->ValueEventRank : 0;
  if (IsOutput) {
    SampledOutputs.insert(S.Name);
    Si.Kind = SiteKind::Observed;
    Si.Class = SiteClass::Observed;
  } else {
    Si.Kind = SiteKind::Latent;
    Si.Class = classify(Full);
  }
  Info.Sites.push_back(Si);
}

} // namespace sema
} // namespace aimz
