//===- DistributionCalls.cpp - A distribution's arguments -----------------===//
//
// `Dist(args)` in a sample site or log_prob: the arguments bound to the
// distribution's parameters (Distributions.def), positional first, then
// by keyword; each typed and checked against its domain; its shape split
// into batch axes, which broadcast across the parameters, and event axes,
// which agree on one event size (NumPyro's rule).
//
//===----------------------------------------------------------------------===//
#include "Analyzer.h"

namespace aimz {
namespace sema {

std::optional<Analyzer::BoundCall>
Analyzer::bindCall(const DistSpec &Called, const std::vector<Arg> &Args,
                   SMLoc DistLoc, bool ShapeMayGiveEvent) {
  // An alias (BinomialProbs) binds by its own order, then calls its target.
  const DistSpec &Spec = Called.canonical();
  BoundCall R;
  R.Dist = Spec.Name;
  R.Discrete = Spec.Discrete;
  R.ValueEventRank = Spec.ValueEventRank;
  std::vector<ExprPtr> Bound = bindArguments(Called, Args, R.Ok);
  // An alias takes one member of its target's group, by its own rule.
  if (Called.AliasOf)
    Bound = aliasArguments(Called, Bound, DistLoc, R.Ok);
  else
    checkExactlyOneOf(Spec, Bound, DistLoc, R.Ok);
  // Type every argument and check it against its constraint; split its
  // shape into batch and event axes.
  R.Batch = Shape{};
  EventSources Event;
  for (size_t I = 0; I < Spec.Params.size(); ++I)
    bindParam(Spec, Spec.Params[I], Bound[I], DistLoc, R, Event);
  // A pair of angles: the event is fixed, every parameter is batch.
  if (Spec.Kind == DistKind::SineBivariateVonMises)
    R.EventSize = Dim::known(2);
  // A matrix with rows of its own: every parameter is required, so an axis
  // no parameter sized is one that every parameter broadcasts (extent 1).
  if (Spec.hasRowAxis()) {
    R.EventRows = R.EventRows.value_or(Dim::known(1));
    R.EventSize = R.EventSize.value_or(Dim::known(1));
  }
  if (Spec.hasEvent() && !R.EventSize && R.Ok) {
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
      R.Ok = false;
    }
  }
  if (Spec.Kind == DistKind::TruncatedNormal && Bound[2] && Bound[3] &&
      !checkTruncationInterval(*Bound[2], *Bound[3], false, DistLoc))
    R.Ok = false;
  return R;
}

/// The arguments in the order of the parameters (null where none is
/// given): positional first, then keywords.
std::vector<ExprPtr> Analyzer::bindArguments(const DistSpec &Spec,
                                             const std::vector<Arg> &Args,
                                             bool &Ok) {
  std::vector<ExprPtr> Bound(Spec.Params.size());
  size_t Positional = 0;
  for (const Arg &A : Args) {
    // `kw=None` is the parameter left out (NumPyro's and PyMC's default).
    if (const auto *N = llvm::dyn_cast<NameExpr>(A.Value.get());
        N && N->Name == "None" && !A.Keyword.empty())
      continue;
    size_t Index = Spec.Params.size();
    if (A.Keyword.empty()) {
      // NumPyro's keyword-only parameters (after `*`) take no position.
      if (Positional >= Spec.positionalCount() ||
          (Spec.ExactlyOneOf.size() > 1 &&
           Spec.Params[Positional].Name ==
               llvm::StringRef(Spec.ExactlyOneOf.back()))) {
        std::vector<std::string> ByKeyword;
        for (size_t I = Spec.positionalCount(); I < Spec.Params.size(); ++I)
          ByKeyword.push_back(std::string(Spec.Params[I].Name) + "=");
        Diags.report(diag::E_TOO_MANY_POSITIONAL, A.Loc)
            << Spec.Name << Positional << (Positional == 1 ? "" : "s")
            << (ByKeyword.empty() ? std::string()
                                  : "; give " + llvm::join(ByKeyword, ", ") +
                                        " by keyword" +
                                        (isPyMCOnly(Spec)
                                             ? ""
                                             : ", as in NumPyro"));
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
        // NumPyro's shapes of a draw are the site's `[...]` here.
        const bool Shape =
            A.Keyword == "batch_shape" || A.Keyword == "event_shape";
        Diags.report(diag::E_NO_SUCH_PARAMETER, A.Loc)
            << Spec.Name << A.Keyword
            << (Names.empty() ? std::string("none") : llvm::join(Names, ", ")) +
                   (Shape ? "; a site's shape is written after the call: `" +
                                std::string(Spec.Name) + "(...)[dims]`"
                          : std::string());
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
  return Bound;
}

/// An alias's arguments (in its own order) in its target's order; a
/// parameter the alias requires (BinomialProbs's probs) is missing when not
/// given, under the alias's name.
std::vector<ExprPtr> Analyzer::aliasArguments(const DistSpec &Alias,
                                              const std::vector<ExprPtr> &Given,
                                              SMLoc DistLoc, bool &Ok) {
  const DistSpec &Target = Alias.canonical();
  std::vector<ExprPtr> Bound(Target.Params.size());
  for (size_t I = 0; I < Alias.Params.size(); ++I) {
    const DistParam &P = Alias.Params[I];
    if (!Given[I] && !P.Default) {
      Diags.report(diag::E_MISSING_PARAMETER, DistLoc) << Alias.Name << P.Name;
      Ok = false;
    }
    for (size_t J = 0; J < Target.Params.size(); ++J)
      if (llvm::StringRef(P.Name) == Target.Params[J].Name)
        Bound[J] = Given[I];
  }
  return Bound;
}

/// `probs=` or `logits=`: one of the group, not both, not neither.
void Analyzer::checkExactlyOneOf(const DistSpec &Spec,
                                 const std::vector<ExprPtr> &Bound,
                                 SMLoc DistLoc, bool &Ok) {
  if (Spec.ExactlyOneOf.empty())
    return;
  std::vector<std::string> Given;
  for (size_t I = 0; I < Spec.Params.size(); ++I)
    if (Bound[I] && llvm::is_contained(Spec.ExactlyOneOf,
                                       llvm::StringRef(Spec.Params[I].Name)))
      Given.push_back(Spec.Params[I].Name);
  if (Given.size() != 1) {
    std::vector<std::string> Front(Spec.ExactlyOneOf.begin(),
                                   Spec.ExactlyOneOf.end() - 1);
    Diags.report(diag::E_EXACTLY_ONE_OF, DistLoc)
        << Spec.Name << llvm::join(Front, "=', '") << Spec.ExactlyOneOf.back()
        << (Given.empty() ? "" : "; both were given");
    Ok = false;
  }
}

/// The least event size: a correlation matrix needs two variables.
static unsigned minEventSize(const DistSpec &Spec) {
  const DistKind K = Spec.canonical().Kind;
  return K == DistKind::LKJCholesky || K == DistKind::LKJ ? 2 : 1;
}

/// A size that fixes the event (LKJCholesky's dimension: [dimension,
/// dimension]; GaussianRandomWalk's num_steps: [num_steps];
/// ZeroSumNormal's event_shape, a one-axis tuple `(K,)` or K), a
/// dimension as anywhere (a literal, a const, a name the data or the
/// posterior binds, arithmetic), at least minEventSize when known.
void Analyzer::bindSizeParam(const DistSpec &Spec, const DistParam &P,
                             const Expr &Given, BoundCall &R) {
  const auto *Tuple = llvm::dyn_cast<ArrayExpr>(&Given);
  const Expr &E =
      Tuple && Tuple->Elements.size() == 1 ? *Tuple->Elements[0] : Given;
  auto Bad = [&]() {
    Diags.report(diag::E_PARAMETER_SIZE, E.Loc)
        << P.Name << Spec.Name << std::to_string(minEventSize(Spec));
    R.Ok = false;
  };
  if (!llvm::isa<NumberExpr, NameExpr, BinaryExpr, UnaryExpr>(E))
    return Bad();
  auto Poly = dimPoly(E, true);
  if (!Poly) {
    R.Ok = false;
    return;
  }
  if (Poly->isConstant() && Poly->constantValue() < minEventSize(Spec))
    return Bad();
  if (!Poly->isConstant())
    requireNonNegative(*Poly, E.Loc,
                       Spec.Name + std::string("'s ") + P.Name);
  auto D = dimOf(*Poly, E.Loc);
  if (!D) {
    R.Ok = false;
    return;
  }
  R.EventSize = *D;
}

/// One parameter: its default when not given, else its argument checked,
/// its event axes merged into the event size and its batch axes into the
/// call's batch shape.
void Analyzer::bindParam(const DistSpec &Spec, const DistParam &P, ExprPtr &Arg,
                         SMLoc DistLoc, BoundCall &R, EventSources &Event) {
  if (!Arg) {
    bindDefault(Spec, P, Arg, DistLoc, R);
    return;
  }
  Expr &E = *Arg;
  if (P.SizeOnly) {
    bindSizeParam(Spec, P, E, R);
    return;
  }
  std::optional<double> V;
  if (!checkParamValue(Spec, P, E, V, R.Ok))
    return;
  if (P.EventRank == 2 && E.Ty.Dims.size() < 2) {
    const char *Axes = P.RowAxes == 2   ? "rows, rows"
                       : P.RowAxes == 1 ? "rows, K"
                                        : "K, K";
    Diags.report(diag::E_PARAMETER_NOT_MATRIX, E.Loc)
        << P.Name << Spec.Name << shapeStr(E.Ty.Dims) << Axes;
    R.Ok = false;
    return;
  }
  // Batch axes lead, the parameter's event axes trail (NumPyro's rule).
  size_t EventAxes = std::min<size_t>(P.EventRank, E.Ty.Dims.size());
  Shape PBatch(E.Ty.Dims.begin(), E.Ty.Dims.end() - EventAxes);
  Shape PEvent(E.Ty.Dims.end() - EventAxes, E.Ty.Dims.end());
  mergeEventShape(Spec, P, E, PEvent, R, Event);
  if (R.Batch) {
    auto B = broadcastShapes(*R.Batch, PBatch);
    if (!B) {
      Diags.report(diag::E_PARAMETER_BATCH_MISMATCH, E.Loc)
          << P.Name << Spec.Name << (P.EventRank ? "batch shape" : "shape")
          << shapeStr(PBatch) << shapeStr(*R.Batch);
      R.Ok = false;
    }
    R.Batch = B;
  }
  // A covariance or scale matrix becomes scale_tril (a rate matrix by its
  // inverse); a precision matrix is passed as its own Cholesky factor.
  using Fn = SampleStmt::LoweredParam::Transform;
  PassedParam Passed = passedParam(P.Name);
  R.Params.push_back({Passed.Name.str(), Arg, Shape(P.EventRank, Dim()),
                      Passed.Form == MatrixParamForm::Cholesky ? Fn::Cholesky
                      : Passed.Form == MatrixParamForm::CholeskyOfInverse
                          ? Fn::CholeskyOfInverse
                          : Fn::None,
                      P.RowAxes});
}

/// A parameter not given: NumPyro's default when it has one; an error
/// when it has none and is not one of an exactly-one-of group.
void Analyzer::bindDefault(const DistSpec &Spec, const DistParam &P,
                           ExprPtr &Arg, SMLoc DistLoc, BoundCall &R) {
  bool InGroup = llvm::is_contained(Spec.ExactlyOneOf, llvm::StringRef(P.Name));
  if (!P.Default && !InGroup) {
    Diags.report(diag::E_MISSING_PARAMETER, DistLoc) << Spec.Name << P.Name;
    R.Ok = false;
  } else if (P.Default) {
    Arg = std::make_shared<NumberExpr>(
        DistLoc, *P.Default, P.Domain == Constraint::NonNegativeInteger);
    Arg->Ty = {P.Domain == Constraint::NonNegativeInteger ? DType::I32
                                                          : Info.Precision,
               {},
               true};
    if (!P.SizeOnly)
      R.Params.push_back({P.Name, Arg, Shape(P.EventRank, Dim()),
                          SampleStmt::LoweredParam::Transform::None});
    else
      R.EventSize = Dim::known(static_cast<int64_t>(*P.Default));
  }
}

/// An argument typed and checked against the parameter's domain; `V` its
/// literal value, if it has one. False when it cannot be used further (a
/// literal outside the domain is an error but its shape is still checked).
bool Analyzer::checkParamValue(const DistSpec &Spec, const DistParam &P,
                               Expr &E, std::optional<double> &V, bool &Ok) {
  if (!analyzeExpr(E)) {
    Ok = false;
    return false;
  }
  if (!isNumeric(E.Ty.Type)) {
    Diags.report(diag::E_PARAMETER_BOOL, E.Loc) << P.Name << Spec.Name;
    Ok = false;
    return false;
  }
  if (P.Domain == Constraint::NonNegativeInteger && isFloat(E.Ty.Type)) {
    Diags.report(diag::E_PARAMETER_NOT_INTEGER, E.Loc)
        << P.Name << Spec.Name << dtypeName(E.Ty.Type);
    Ok = false;
    return false;
  }
  V = literalValue(E);
  if (V && !satisfies(P.Domain, *V)) {
    Diags.report(diag::E_PARAMETER_CONSTRAINT, E.Loc)
        << P.Name << Spec.Name << constraintDescription(P.Domain)
        << formatNumber(*V);
    Ok = false;
  }
  if (Spec.Kind == DistKind::Delta && llvm::StringRef(P.Name) == "event_dim" &&
      (!V || *V != 0)) {
    Diags.report(diag::E_DELTA_EVENT_DIM, E.Loc)
        << (V ? formatNumber(*V) : "a value computed at run time");
    Ok = false;
  }
  return true;
}

/// The event axes `PEvent` of parameter `P` agree with the event size so
/// far (set by an earlier parameter, `Event` says which); none is the
/// observation axis unless the value has event axes. An axis of extent 1
/// broadcasts along the event.
void Analyzer::mergeEventShape(const DistSpec &Spec, const DistParam &P,
                               const Expr &E, const Shape &PEvent, BoundCall &R,
                               EventSources &Event) {
  for (size_t I = 0; I < PEvent.size(); ++I) {
    const Dim &D = PEvent[I];
    // A matrix value's rows lead the parameter's event axes.
    const bool Rows = PEvent.size() == P.EventRank && I < P.RowAxes;
    std::optional<Dim> &K = Rows ? R.EventRows : R.EventSize;
    EventSource &Source = Rows ? Event.Rows : Event.Size;
    if (D.isOne() && P.EventRank)
      continue; // broadcasts along the event
    // The observation axis as the value's event axis makes a joint site
    // (a MultivariateNormal over every observation); as the event of a
    // parameter alone (Categorical's probs), a mistake.
    if (D == Dim::symbol(Info.ObsDim) && !R.ValueEventRank) {
      Diags.report(diag::E_PARAMETER_OBS_EVENT, E.Loc)
          << P.Name << Spec.Name << Info.ObsDim;
      R.Ok = false;
      return;
    }
    if (K && *K != D) {
      Diags.report(diag::E_PARAMETER_EVENT_MISMATCH, E.Loc)
          << P.Name << Spec.Name << shapeStr(PEvent)
          << (Source.Param ? "'" + std::string(Source.Param) + "' with " +
                                 "event shape " + shapeStr(Source.Dims)
                           : std::string("its event size ") + shapeStr({*K}));
      R.Ok = false;
      return;
    }
    K = D;
    Source.Param = P.Name;
    Source.Dims = PEvent;
  }
}

void Analyzer::reportMissingEventSize(const DistSpec &Spec, const BoundCall &R,
                                      SMLoc Loc) {
  Diags.report(diag::E_MISSING_EVENT_SIZE, Loc) << Spec.Name << R.EventParams;
}

} // namespace sema
} // namespace aimz
