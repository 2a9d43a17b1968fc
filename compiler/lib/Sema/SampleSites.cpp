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
        Diags.error(A.Loc, llvm::Twine(Spec.Name) + " takes at most " +
                               llvm::Twine(Positional) +
                               " positional argument" +
                               (Positional == 1 ? "" : "s"));
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
        Diags.error(A.Loc, llvm::Twine(Spec.Name) + " has no parameter '" +
                               A.Keyword + "'; its parameters are " +
                               llvm::join(Names, ", "));
        Ok = false;
        continue;
      }
    }
    if (Bound[Index]) {
      Diags.error(A.Loc, llvm::Twine("parameter '") +
                             Spec.Params[Index].Name + "' of " + Spec.Name +
                             " is given twice");
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
      Diags.error(DistLoc,
                  llvm::Twine(Spec.Name) + " needs exactly one of '" +
                      Spec.ExactlyOneOf.front() + "=' or '" +
                      Spec.ExactlyOneOf.back() + "='" +
                      (Given.empty() ? "" : "; both were given"));
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
        Diags.error(DistLoc, llvm::Twine(Spec.Name) +
                                 " is missing its parameter '" + P.Name +
                                 "'");
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
      Diags.error(E.Loc, llvm::Twine("parameter '") + P.Name + "' of " +
                             Spec.Name + " must be numeric; got bool");
      Ok = false;
      continue;
    }
    if (P.Domain == Constraint::NonNegativeInteger && isFloat(E.Ty.Type)) {
      Diags.error(E.Loc, llvm::Twine("parameter '") + P.Name + "' of " +
                             Spec.Name + " must be an integer; got " +
                             dtypeName(E.Ty.Type));
      Ok = false;
      continue;
    }
    auto V = literalValue(E);
    if (V && !satisfies(P.Domain, *V)) {
      Diags.error(E.Loc, llvm::Twine("parameter '") + P.Name + "' of " +
                             Spec.Name + " must be " +
                             constraintDescription(P.Domain) + "; got " +
                             formatNumber(*V));
      Ok = false;
    }
    if (P.SizeOnly) {
      // LKJCholesky's dimension: the event is [dimension, dimension].
      if (!V || *V < 2 || !E.Ty.Dims.empty()) {
        Diags.error(E.Loc, llvm::Twine("parameter '") + P.Name + "' of " +
                               Spec.Name + " must be an integer literal or "
                               "const of at least 2 (it fixes the event "
                               "shape)");
        Ok = false;
      } else {
        K = Dim::known(static_cast<int64_t>(*V));
      }
      continue;
    }
    if (P.EventRank == 2 && E.Ty.Dims.size() < 2) {
      Diags.error(E.Loc, llvm::Twine("parameter '") + P.Name + "' of " +
                             Spec.Name + " must be a matrix (shape [..., K, "
                             "K]); got shape " + shapeStr(E.Ty.Dims));
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
        Diags.error(E.Loc, llvm::Twine("parameter '") + P.Name + "' of " +
                               Spec.Name + " has the observation axis '" +
                               Info.ObsDim + "' as its event axis; the "
                               "observation axis must be a batch axis (put "
                               "the categories or components last)");
        Ok = false;
        break;
      }
      if (K && *K != D) {
        Diags.error(E.Loc, llvm::Twine("parameter '") + P.Name + "' of " +
                               Spec.Name + " has event shape " +
                               shapeStr(PEvent) + ", which does not match " +
                               (KFrom ? "'" + std::string(KFrom) + "' with " +
                                            "event shape " + shapeStr(KShape)
                                      : std::string("its event size ") +
                                            shapeStr({*K})));
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
        Diags.error(E.Loc, llvm::Twine("parameter '") + P.Name + "' of " +
                               Spec.Name +
                               (P.EventRank ? " has batch shape "
                                            : " has shape ") +
                               shapeStr(PBatch) +
                               ", which does not broadcast with the other "
                               "parameters' shape " +
                               shapeStr(*Batch));
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
      Diags.error(DistLoc, "Uniform needs low < high; got low = " +
                               formatNumber(*Lo) + ", high = " +
                               formatNumber(*Hi));
      Ok = false;
    }
  }
  return R;
}

void Analyzer::reportMissingEventSize(const DistSpec &Spec,
                                      const BoundCall &R, SMLoc Loc) {
  Diags.error(Loc, llvm::Twine(Spec.Name) + " takes its event size from " +
                       R.EventParams +
                       ": give it as a vector (an input or latent of shape "
                       "[..., K], full(K, 1.0) or ones(K) for a constant one "
                       "(NumPyro's jnp.ones(K)), or an array literal such "
                       "as [1.0, 1.0, 1.0]), or give the site's shape, "
                       "whose last axis is then the event: " +
                       Spec.Name + "(1.0)[K]");
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
      Diags.error(A.Loc, llvm::Twine(Spec.Name) + " takes " +
                             llvm::join(Names, ", ") + " and " + Last +
                             " only");
      return nullptr;
    }
    if (I == Index)
      Found = A.Value.get();
  }
  if (!Found) {
    Diags.error(S.DistLoc, llvm::Twine(Spec.Name) + " is missing its " +
                               Spec.Params[Index].Name);
    return nullptr;
  }
  const Expr *E = Found;
  if (auto *Ix = llvm::dyn_cast<IndexExpr>(E))
    E = Ix->Base.get();
  const auto *C = llvm::dyn_cast<CallExpr>(E);
  if (!C || (!lookupDistribution(C->Callee) &&
             llvm::StringRef(What) != "a transform")) {
    Diags.error(Found->Loc, llvm::Twine(Spec.Name) + "'s " +
                                Spec.Params[Index].Name + " must be " + What);
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
    Diags.error(Mix->Loc, "MixtureSameFamily's mixing distribution must be "
                          "Categorical; got " + Mix->Callee);
    return std::nullopt;
  }
  const DistSpec *Base = lookupDistribution(Comp->Callee);
  if (Base->hasEvent() || Base->isComposite() || Base->Improper) {
    Diags.error(Comp->Loc, "MixtureSameFamily's components must be a "
                           "distribution of numbers (Normal, Poisson, ...); "
                           "got " + Comp->Callee);
    return std::nullopt;
  }
  auto M = bindCall(*lookupDistribution("Categorical"), Mix->Args, Mix->Loc);
  auto C = bindCall(*Base, Comp->Args, Comp->Loc);
  if (!M || !C || !M->Ok || !C->Ok || !M->Batch || !C->Batch)
    return std::nullopt;
  if (C->Batch->empty() || !M->EventSize ||
      (C->Batch->back() != *M->EventSize && !C->Batch->back().isOne())) {
    Diags.error(Comp->Loc,
                "MixtureSameFamily's component parameters need the component "
                "axis last, of the mixing weights' size " +
                    (M->EventSize ? shapeStr({*M->EventSize}) : "[K]") +
                    "; they have batch shape " + shapeStr(*C->Batch));
    return std::nullopt;
  }
  BoundCall R;
  R.Dist = compositeName(DistKind::MixtureSameFamily, Base->Name);
  R.Discrete = Base->Discrete;
  R.EventSize = M->EventSize;
  Shape CompBatch(C->Batch->begin(), C->Batch->end() - 1);
  R.Batch = broadcastShapes(*M->Batch, CompBatch);
  if (!R.Batch) {
    Diags.error(S.DistLoc, "MixtureSameFamily's mixing batch shape " +
                               shapeStr(*M->Batch) +
                               " does not broadcast with the components' " +
                               shapeStr(CompBatch));
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
    Diags.error(T->Loc, "TransformedDistribution supports the transform "
                        "OrderedTransform() only (ordered vectors such as "
                        "cutpoints)");
    return std::nullopt;
  }
  if (IsOutput) {
    Diags.error(S.DistLoc, "the output '" + S.Name + "' cannot be a "
                           "TransformedDistribution: it has no log density "
                           "here; use it for latents such as cutpoints");
    return std::nullopt;
  }
  const DistSpec *Base = lookupDistribution(BaseCall->Callee);
  if (Base->hasEvent() || Base->isComposite() || Base->Improper ||
      Base->Discrete) {
    Diags.error(BaseCall->Loc, "OrderedTransform needs a continuous "
                               "distribution of numbers as its base; got " +
                                   BaseCall->Callee);
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
          Diags.error(I->Loc, "the base distribution's shape must be dimension "
                              "names or positive integers");
          return std::nullopt;
        }
      }
      AllowPosteriorDims = true;
      auto E = resolveDims(Ds, true);
      AllowPosteriorDims = false;
      if (!E)
        return std::nullopt;
      if (!broadcastsTo(Vec, *E)) {
        Diags.error(Ix->Loc, "the base's parameters of shape " +
                                 shapeStr(Vec) + " do not broadcast to " +
                                 shapeStr(*E));
        return std::nullopt;
      }
      Vec = *E;
    }
  if (Vec.empty()) {
    Diags.error(BaseCall->Loc, "an ordered vector needs its length: give the "
                               "base a shape, as in Normal(0, 1)[K]");
    return std::nullopt;
  }
  if (Vec.back() == Dim::symbol(Info.ObsDim)) {
    Diags.error(BaseCall->Loc, "an ordered vector cannot run along the "
                               "observation axis");
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
/// renormalized on [low, high] (either bound may be left out; for counts,
/// the integers in it, both ends included).
std::optional<Analyzer::BoundCall> Analyzer::bindTruncated(SampleStmt &S) {
  const CallExpr *BaseCall = distributionArg(S, 0, "a distribution call");
  if (!BaseCall)
    return std::nullopt;
  if (!llvm::is_contained(truncatableBases(), BaseCall->Callee)) {
    std::vector<std::string> Names(truncatableBases().begin(),
                                   truncatableBases().end());
    Diags.error(BaseCall->Loc, "TruncatedDistribution truncates " +
                                   llvm::join(Names, ", ") + "; got " +
                                   BaseCall->Callee);
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
        Diags.error(A.Loc, "TruncatedDistribution takes base_dist, low and "
                           "high only");
        Ok = false;
      }
      continue;
    }
    if (Bounds[I]) {
      Diags.error(A.Loc, llvm::Twine("'") + Names[I] + "' is given twice");
      Ok = false;
      continue;
    }
    Bounds[I] = A.Value;
  }
  BoundCall R;
  R.Dist = compositeName(DistKind::TruncatedDistribution, Base->Name);
  R.Discrete = Base->Discrete; // a truncated count is a count
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
      Diags.error(Bounds[I]->Loc, llvm::Twine("'") + Names[I] +
                                      "' must be a number; got bool");
      Ok = false;
      continue;
    }
    auto B = broadcastShapes(*R.Batch, Bounds[I]->Ty.Dims);
    if (!B) {
      Diags.error(Bounds[I]->Loc, llvm::Twine("'") + Names[I] +
                                      "' has shape " +
                                      shapeStr(Bounds[I]->Ty.Dims) +
                                      ", which does not broadcast with the "
                                      "base's " + shapeStr(*R.Batch));
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
    Diags.error(S.NameLoc,
                "sample site '" + S.Name + "' inside scan '" + Scan->Name +
                    "': the number of sites would grow with the sequence "
                    "length, which neither sharding plan supports; move it "
                    "out of the scan (a plate gives one site of many "
                    "elements)");
    Ok = false;
  }
  if (!Spec) {
    std::vector<std::string> Known;
    for (const DistSpec &D : allDistributions())
      Known.push_back(D.Name);
    Known.push_back("ZeroInflatedDistribution");
    Known.push_back("HurdleDistribution");
    Diags.error(S.DistLoc, "unknown distribution '" + S.Dist +
                               "'; known: " + llvm::join(Known, ", "));
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
        Diags.error(A.Loc, "ImproperUniform takes only 'support=real' (the "
                           "default) or 'support=positive'; give the shape "
                           "as ImproperUniform()[k]");
        Ok = false;
        continue;
      }
      Support = N->Name;
    }
    if (IsOutput) {
      Diags.error(S.DistLoc, "the output '" + S.Name +
                                 "' cannot be ImproperUniform: a flat prior "
                                 "has no normalized density to score nor "
                                 "draws to predict");
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
      Diags.error(S.DistLoc, "parameters of shape " + shapeStr(*Batch) +
                                 " do not broadcast to the site's shape " +
                                 shapeStr(*E));
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
      Diags.error(S.NameLoc, "output '" + S.Name + "' is declared " +
                                 dtypeName(Out.Type) + shapeStr(Out.Dims) +
                                 " but this site has shape " + shapeStr(Full));
      Diags.note(OutParam->Loc, "output declared here");
      Ok = false;
    }
    bool TypeOk = Discrete
                      ? (isInteger(Out.Type) ||
                         (Out.Type == DType::Bool &&
                          Spec->Kind == DistKind::Bernoulli))
                      : isFloat(Out.Type);
    if (!TypeOk) {
      Diags.error(S.DistLoc,
                  llvm::Twine(Spec->Name) + " produces " +
                      (Discrete ? "integers" : "real numbers") +
                      " but output '" + S.Name + "' is declared " +
                      dtypeName(Out.Type) + "; declare it " +
                      (Discrete ? "i32" : dtypeName(Info.Precision)));
      Ok = false;
    }
    if (TypeOk && Call->ValueEventRank && Call->EventSize &&
        Out.Type != T) {
      Diags.error(S.DistLoc, llvm::Twine(Spec->Name) + " values are " +
                                 dtypeName(T) + " vectors; declare output '" +
                                 S.Name + "' " + dtypeName(T));
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
