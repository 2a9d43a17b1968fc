//===- ArrayFunctions.cpp - stack, concatenate, pad, flip, repeat, ... ----===//
//
// NumPy's array manipulation functions, called with NumPy's signatures
// (positional or by keyword) and typed by NumPy's shape rules. Axes are
// integer constants; counts and widths are dimension arithmetic, so a
// result's extents stay symbolic (`K + 1`, `2 * J`). Along the observation
// axis each would move rows between observations: refused as mixing
// (legal with a joint site).
//
//===----------------------------------------------------------------------===//
#include "Analyzer.h"
#include "aimz/Builtins.h"

namespace aimz {
namespace sema {

namespace {

/// A function's parameters in NumPy's order; the first `Required` must be
/// given. `Shown` is how the messages spell the call.
struct ArraySignature {
  llvm::StringRef Name;
  std::vector<llvm::StringRef> Params;
  unsigned Required;
  llvm::StringRef Shown;
};

const ArraySignature Signatures[] = {
    {"stack", {"arrays", "axis"}, 1, "stack(arrays, axis=0)"},
    {"concatenate", {"arrays", "axis"}, 1, "concatenate(arrays, axis=0)"},
    {"pad",
     {"array", "pad_width", "constant_values"},
     2,
     "pad(array, pad_width, constant_values=0) (constant padding)"},
    {"broadcast_to", {"array", "shape"}, 2, "broadcast_to(array, shape)"},
    {"flip", {"m", "axis"}, 1, "flip(m, axis=None)"},
    {"repeat", {"a", "repeats", "axis"}, 2, "repeat(a, repeats, axis=None)"},
    {"tile", {"A", "reps"}, 2, "tile(A, reps)"},
    {"take", {"a", "indices", "axis"}, 2, "take(a, indices, axis=None)"},
};

const ArraySignature &signatureOf(llvm::StringRef Name) {
  for (const ArraySignature &S : Signatures)
    if (S.Name == Name)
      return S;
  llvm_unreachable("an array function without a signature");
}

} // namespace

std::vector<const Expr *> elementsOf(const Expr &E) {
  std::vector<const Expr *> Out;
  if (const auto *A = llvm::dyn_cast<ArrayExpr>(&E))
    for (const ExprPtr &X : A->Elements)
      Out.push_back(X.get());
  else
    Out.push_back(&E);
  return Out;
}

/// The call's arguments in the signature's order (null: not given), bound
/// as Python binds them; E's arguments become those given, in that order,
/// each with its parameter's name as keyword.
bool Analyzer::bindArrayArgs(CallExpr &E, std::vector<Expr *> &Bound) {
  const ArraySignature &Sig = signatureOf(E.Callee);
  Bound.assign(Sig.Params.size(), nullptr);
  auto Fail = [&](const std::string &What, SMLoc Loc) {
    Diags.report(diag::E_ARRAY_FN_ARGS, Loc) << What << Sig.Shown.str();
    return false;
  };
  for (size_t I = 0; I < E.Args.size(); ++I) {
    const Arg &A = E.Args[I];
    size_t At = I;
    if (!A.Keyword.empty()) {
      auto It = llvm::find(Sig.Params, A.Keyword);
      if (It == Sig.Params.end())
        return Fail("'" + E.Callee + "' has no parameter '" + A.Keyword + "'",
                    A.Loc);
      At = It - Sig.Params.begin();
    } else if (I >= Sig.Params.size()) {
      return Fail("too many arguments", A.Loc);
    }
    if (Bound[At])
      return Fail("argument '" + Sig.Params[At].str() + "' given twice",
                  A.Loc);
    Bound[At] = A.Value.get();
  }
  for (unsigned I = 0; I < Sig.Required; ++I)
    if (!Bound[I])
      return Fail("missing argument '" + Sig.Params[I].str() + "'", E.Loc);
  // In the signature's order, each named by its parameter (argNamed).
  std::vector<Arg> Ordered;
  for (size_t I = 0; I < Bound.size(); ++I)
    for (Arg &A : E.Args)
      if (A.Value.get() == Bound[I])
        Ordered.push_back({Sig.Params[I].str(), A.Loc, A.Value});
  E.Args = std::move(Ordered);
  return true;
}

/// An axis of a value of shape `S` (of a result of rank `Rank`, which
/// stack makes one more): an integer literal or const, made non-negative.
std::optional<int64_t> Analyzer::constantAxis(const Expr &A, const Shape &S,
                                              int64_t Rank) {
  auto V = literalValue(A);
  if (!V || *V != std::floor(*V) || !isDimArith(A)) {
    Diags.report(diag::E_AXIS_NOT_LITERAL, A.Loc);
    return std::nullopt;
  }
  int64_t Ax = static_cast<int64_t>(*V);
  if (Ax < -Rank || Ax >= Rank) {
    Diags.report(diag::E_AXIS_RANGE, A.Loc) << Ax << shapeStr(S);
    return std::nullopt;
  }
  return Ax < 0 ? Ax + Rank : Ax;
}

/// A count (a width, a number of repetitions) as a dimension: constants,
/// dimension names and their arithmetic, not the observation axis.
std::optional<Dim> Analyzer::countArg(const Expr &C, const CallExpr &E,
                                      llvm::StringRef What) {
  if (!isDimArith(C)) {
    Diags.report(diag::E_COUNT_NOT_DIM, C.Loc) << What.str() << E.Callee;
    return std::nullopt;
  }
  auto P = dimPoly(C, true);
  if (!P)
    return std::nullopt;
  return dimOf(*P, C.Loc, true);
}

/// `D * R` or `D + A + B` as a dimension.
std::optional<Dim> Analyzer::dimArith(const Dim &D, const Dim &R, bool Times,
                                      SMLoc Loc) {
  DimPoly P = polyOf(D);
  bool Ok = Times ? P.mul(polyOf(R)) : P.add(polyOf(R));
  if (!Ok) {
    overflow(Loc);
    return std::nullopt;
  }
  return dimOf(P, Loc, true);
}

bool Analyzer::analyzeArrayFunction(CallExpr &E, const Builtin &Fn) {
  std::vector<Expr *> Args;
  if (!bindArrayArgs(E, Args))
    return false;
  // Every value argument analyzed; counts and axes are read as constants.
  static const llvm::StringRef Values[] = {"arrays", "array", "m", "a", "A",
                                           "indices", "constant_values"};
  const ArraySignature &Sig = signatureOf(E.Callee);
  bool Ok = true;
  for (size_t I = 0; I < Args.size(); ++I) {
    if (!Args[I] || !llvm::is_contained(Values, Sig.Params[I]))
      continue;
    if (Sig.Params[I] != "arrays" || !llvm::isa<ArrayExpr>(Args[I]))
      Ok &= analyzeExpr(*Args[I]);
    else // the list's elements, each of its own shape
      for (ExprPtr &X : llvm::cast<ArrayExpr>(Args[I])->Elements)
        Ok &= analyzeExpr(*X);
  }
  if (!Ok)
    return false;
  switch (Fn.Family) {
  case BuiltinFamily::Join:
    return analyzeJoin(E, *Args[0], Args[1]);
  case BuiltinFamily::Pad:
    return analyzePad(E, *Args[0], *Args[1], Args[2]);
  case BuiltinFamily::BroadcastTo:
    return analyzeBroadcastTo(E, *Args[0], *Args[1]);
  default:
    return analyzeReorder(E, Args);
  }
}

/// stack: equal shapes, a new axis; concatenate: equal ranks and extents
/// off the axis, whose extents add up.
bool Analyzer::analyzeJoin(CallExpr &E, Expr &List, const Expr *AxisArg) {
  if (!llvm::isa<ArrayExpr>(List)) {
    Diags.report(diag::E_ARRAY_FN_LIST, List.Loc) << E.Callee;
    return false;
  }
  const bool Stack = E.Callee == "stack";
  auto Elements = elementsOf(List);
  ExprType T = Elements.front()->Ty;
  for (const Expr *X : Elements) {
    if ((X->Ty.Type == DType::Bool) != (T.Type == DType::Bool)) {
      Diags.report(diag::E_ARRAY_MIXES_BOOL, X->Loc);
      return false;
    }
    if (T.Type != DType::Bool)
      T.Type = arithmeticType(T, X->Ty);
    T.WeakLiteral = T.WeakLiteral && X->Ty.WeakLiteral;
  }
  const Shape &First = Elements.front()->Ty.Dims;
  const int64_t Rank = First.size() + (Stack ? 1 : 0);
  if (!Stack && First.empty()) {
    Diags.report(diag::E_ARRAY_FN_SHAPES, List.Loc)
        << E.Callee << "arrays of rank 1 or more" << "[]" << "[]";
    return false;
  }
  int64_t Axis = 0;
  if (AxisArg) {
    auto A = constantAxis(*AxisArg, First, Rank);
    if (!A)
      return false;
    Axis = *A;
  }
  Shape Out = First;
  for (const Expr *X : Elements) {
    const Shape &S = X->Ty.Dims;
    bool Same = S.size() == First.size();
    for (size_t D = 0; Same && D < S.size(); ++D)
      Same = S[D] == First[D] || (!Stack && D == static_cast<size_t>(Axis));
    if (!Same) {
      Diags.report(diag::E_ARRAY_FN_SHAPES, X->Loc)
          << E.Callee
          << (Stack ? "arrays of one shape"
                    : "arrays of one rank whose extents agree off the axis")
          << shapeStr(First) << shapeStr(S);
      return false;
    }
    if (!Stack && X != Elements.front()) {
      auto D = dimArith(Out[Axis], S[Axis], false, X->Loc);
      if (!D)
        return false;
      Out[Axis] = *D;
    }
  }
  if (Stack)
    Out.insert(Out.begin() + Axis,
               Dim::known(static_cast<int64_t>(Elements.size())));
  else
    noteObservationMixing(E.Loc, First[Axis], "'concatenate'");
  E.Axes = {Axis};
  E.Ty = {T.Type, Out, T.WeakLiteral};
  return true;
}

/// pad(x, w): w a count, (before, after), or one pair per axis; the
/// padding value a scalar.
bool Analyzer::analyzePad(CallExpr &E, Expr &X, const Expr &Width,
                          const Expr *Value) {
  const Shape &S = X.Ty.Dims;
  auto Bad = [&]() {
    Diags.report(diag::E_PAD_WIDTH, Width.Loc) << shapeStr(S);
    return false;
  };
  // NumPy's forms: p, (p,), (b, a), ((b, a),), ((b0, a0), (b1, a1), ...).
  std::vector<const Expr *> Pairs = elementsOf(Width);
  bool PerAxis = llvm::isa<ArrayExpr>(Width) &&
                 llvm::all_of(Pairs, [](const Expr *P) {
                   return llvm::isa<ArrayExpr>(P);
                 });
  if (PerAxis && Pairs.size() != S.size() && Pairs.size() != 1)
    return Bad();
  if (!PerAxis && llvm::any_of(Pairs, [](const Expr *P) {
        return llvm::isa<ArrayExpr>(P);
      }))
    return Bad();
  E.Counts.clear();
  Shape Out;
  for (size_t Ax = 0; Ax < S.size(); ++Ax) {
    std::vector<const Expr *> Pair =
        PerAxis ? elementsOf(*Pairs[Pairs.size() == 1 ? 0 : Ax]) : Pairs;
    if (Pair.size() > 2)
      return Bad();
    auto Before = countArg(*Pair.front(), E, "pad_width");
    auto After = countArg(*Pair.back(), E, "pad_width");
    if (!Before || !After)
      return false;
    auto D = dimArith(S[Ax], *Before, false, Width.Loc);
    D = D ? dimArith(*D, *After, false, Width.Loc) : D;
    if (!D)
      return false;
    if (*D != S[Ax])
      noteObservationMixing(Width.Loc, S[Ax], "'pad'");
    E.Counts.push_back(*Before);
    E.Counts.push_back(*After);
    Out.push_back(*D);
  }
  DType T = X.Ty.Type;
  if (Value) {
    if (!Value->Ty.Dims.empty() || Value->Ty.Type == DType::Bool ||
        T == DType::Bool) {
      Diags.report(diag::E_ARRAY_FN_ARGS, Value->Loc)
          << "constant_values must be one number, padding numbers"
          << signatureOf("pad").Shown.str();
      return false;
    }
    T = arithmeticType(X.Ty, Value->Ty);
  }
  E.Ty = {T, Out, false};
  return true;
}

/// broadcast_to(x, shape): NumPy's broadcasting to a shape of dimensions
/// (`n`, the observation axis, gives a value per observation).
bool Analyzer::analyzeBroadcastTo(CallExpr &E, Expr &X, const Expr &ShapeArg) {
  Shape To;
  for (const Expr *D : elementsOf(ShapeArg)) {
    if (isObsAxisName(*D)) {
      To.push_back(Dim::symbol(Info.ObsDim));
      continue;
    }
    auto C = countArg(*D, E, "shape");
    if (!C)
      return false;
    To.push_back(*C);
  }
  if (!broadcastsTo(X.Ty.Dims, To)) {
    Diags.report(diag::E_BROADCAST_TO, E.Loc)
        << shapeStr(X.Ty.Dims) << shapeStr(To);
    return false;
  }
  E.Ty = {X.Ty.Type, To, X.Ty.WeakLiteral};
  return true;
}

/// flip, repeat, tile, take: a gather along axes (ArrayFunctions in
/// MLIRGen), typed here.
bool Analyzer::analyzeReorder(CallExpr &E, const std::vector<Expr *> &Args) {
  Expr &X = *Args[0];
  Shape S = X.Ty.Dims;
  const int64_t Rank = S.size();
  const Expr *AxisArg = E.Callee == "tile" ? nullptr : Args.back();
  if (E.Callee == "flip" && !AxisArg) {
    for (int64_t I = 0; I < Rank; ++I)
      E.Axes.push_back(I);
  } else if (E.Callee == "flip" || AxisArg) {
    for (const Expr *A : elementsOf(*AxisArg)) {
      auto Ax = constantAxis(*A, S, Rank);
      if (!Ax)
        return false;
      if (llvm::is_contained(E.Axes, *Ax)) { // NumPy: "repeated axis"
        Diags.report(diag::E_ARRAY_FN_ARGS, A->Loc)
            << "axis " + std::to_string(*Ax) + " is given twice"
            << signatureOf(E.Callee).Shown.str();
        return false;
      }
      E.Axes.push_back(*Ax);
    }
  } else if (E.Callee != "tile") {
    if (Rank != 1) { // NumPy would flatten
      Diags.report(diag::E_NEEDS_AXIS, E.Loc) << E.Callee << shapeStr(S);
      return false;
    }
    E.Axes = {0};
  }
  if (E.Callee == "flip") {
    for (int64_t Ax : E.Axes)
      noteObservationMixing(E.Loc, S[Ax], "'flip'");
    E.Ty = {X.Ty.Type, S, X.Ty.WeakLiteral};
    return true;
  }
  if (E.Callee == "take")
    return analyzeTake(E, X, *Args[1]);
  if (E.Callee == "repeat") {
    auto R = countArg(*Args[1], E, "repeats");
    auto D = R ? dimArith(S[E.Axes[0]], *R, true, E.Loc) : R;
    if (!D)
      return false;
    noteObservationMixing(E.Loc, S[E.Axes[0]], "'repeat'");
    E.Counts = {*R};
    S[E.Axes[0]] = *D;
    E.Ty = {X.Ty.Type, S, false};
    return true;
  }
  return analyzeTile(E, X, *Args[1]);
}

/// tile(x, reps): x gains leading axes of extent 1 up to len(reps), reps
/// gains leading 1s up to x's rank; each axis repeats whole.
bool Analyzer::analyzeTile(CallExpr &E, Expr &X, const Expr &Reps) {
  std::vector<Dim> R;
  for (const Expr *C : elementsOf(Reps)) {
    auto D = countArg(*C, E, "reps");
    if (!D)
      return false;
    R.push_back(*D);
  }
  Shape S = X.Ty.Dims;
  while (S.size() < R.size())
    S.insert(S.begin(), Dim::known(1));
  while (R.size() < S.size())
    R.insert(R.begin(), Dim::known(1));
  for (size_t Ax = 0; Ax < S.size(); ++Ax) {
    if (R[Ax] == Dim::known(1))
      continue;
    auto D = dimArith(S[Ax], R[Ax], true, Reps.Loc);
    if (!D)
      return false;
    noteObservationMixing(E.Loc, S[Ax], "'tile'");
    S[Ax] = *D;
  }
  E.Counts = R;
  E.Ty = {X.Ty.Type, S, false};
  return true;
}

/// take(x, idx, axis): x[:, ..., idx] with `axis` ':'s before it.
bool Analyzer::analyzeTake(CallExpr &E, Expr &X, Expr &Idx) {
  int64_t Ax = E.Axes[0];
  if (!checkGatherIndex(Idx, X.Ty.Dims[Ax]))
    return false;
  Shape Out(X.Ty.Dims.begin(), X.Ty.Dims.begin() + Ax);
  llvm::append_range(Out, Idx.Ty.Dims);
  Out.insert(Out.end(), X.Ty.Dims.begin() + Ax + 1, X.Ty.Dims.end());
  E.Ty = {X.Ty.Type, Out, false};
  return true;
}

} // namespace sema
} // namespace aimz
