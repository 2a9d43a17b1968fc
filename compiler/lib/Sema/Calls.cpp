//===- Calls.cpp - Calls of the builtin functions -------------------------===//
//
// `f(args)` for the functions of Builtins.def: the arguments (axis= taken
// out), the arity, then each family's rule for the result's dtype and
// shape. Constructors, matrix helpers and vec_to_tril are in
// ArrayBuilders.cpp, log_prob in LogProb.cpp, statistics of the data in
// TransformedData.cpp.
//
//===----------------------------------------------------------------------===//
#include "Analyzer.h"
#include "SyntaxBuilders.h"
#include "aimz/Builtins.h"

namespace aimz {
namespace sema {

/// Stan's log_mix(theta, lp1, lp2) = log(theta e^lp1 + (1 - theta) e^lp2),
/// written as the builtins it is made of: logaddexp(log(theta) + lp1,
/// log1m(theta) + lp2). False (and E unchanged) for any other call.
static bool rewriteLogMix(CallExpr &E) {
  if (E.Callee != "log_mix" || E.Args.size() != 3 ||
      llvm::any_of(E.Args, [](const Arg &A) { return !A.Keyword.empty(); }))
    return false;
  auto Term = [&](const char *Weight, const Arg &LogDensity) {
    std::vector<Arg> Theta{{"", E.Args[0].Loc, E.Args[0].Value}};
    auto W = std::make_shared<CallExpr>(E.Loc, Weight, std::move(Theta));
    auto Sum = std::make_shared<BinaryExpr>(E.Loc, BinaryOp::Add, W,
                                            LogDensity.Value);
    return Arg{"", LogDensity.Loc, Sum};
  };
  std::vector<Arg> Args{Term("log", E.Args[1]), Term("log1m", E.Args[2])};
  E.Callee = "logaddexp";
  E.Args = std::move(Args);
  return true;
}

bool Analyzer::analyzeCall(CallExpr &E) {
  rewriteLogMix(E);
  const Builtin *Fn = lookupBuiltin(E.Callee);
  if (!Fn) {
    if (lookupDistribution(E.Callee))
      Diags.report(diag::E_CALL_DISTRIBUTION, E.Loc) << E.Callee;
    else
      Diags.report(diag::E_UNKNOWN_FUNCTION, E.Loc)
          << E.Callee << builtinNameList();
    return false;
  }
  if (Fn->Family == BuiltinFamily::Constructor)
    return analyzeConstructor(E, *Fn);
  if (Fn->Family == BuiltinFamily::LogProb)
    return analyzeLogProb(E);
  if (Fn->Family == BuiltinFamily::VecToTril)
    return analyzeVecToTril(E);
  if (Fn->Family == BuiltinFamily::Join || Fn->Family == BuiltinFamily::Pad ||
      Fn->Family == BuiltinFamily::BroadcastTo ||
      Fn->Family == BuiltinFamily::Reorder)
    return analyzeArrayFunction(E, *Fn);
  bool AxisFn = Fn->takesAxis();
  std::optional<int64_t> Axis;
  SMLoc AxisLoc;
  // NumPy's positional axis: sum(x, -1), cumsum(x, 0), softmax(x, 1).
  if (AxisFn && Fn->MaxArgs == 1 && E.Args.size() == 2 &&
      E.Args[1].Keyword.empty())
    E.Args[1].Keyword = "axis";
  if (Fn->Family == BuiltinFamily::Reduction)
    if (auto Done = reduceOverAxes(E, *Fn))
      return *Done;
  bool Ok = !AxisFn || takeAxisArg(E, Axis, AxisLoc);
  Ok &= analyzeCallArgs(E, AxisFn);
  if (!Ok || !checkCallArity(E, *Fn))
    return false;
  if (Fn->Family == BuiltinFamily::Transpose ||
      Fn->Family == BuiltinFamily::Outer || Fn->Family == BuiltinFamily::Diag ||
      Fn->Family == BuiltinFamily::Factorization)
    return analyzeMatrixHelper(E, *Fn);
  if (Fn->Family == BuiltinFamily::Where)
    return analyzeWhere(E);
  if (!checkMinMaxAxis(E))
    return false;
  if (auto Done = analyzeCallAxis(E, *Fn, Axis, AxisLoc))
    return *Done;
  if (E.Callee == "sd") {
    Diags.report(diag::E_SD_OUTSIDE_DATA, E.Loc);
    return false;
  }
  // Sums and running sums count booleans (NumPy's: bool sums are i32 here).
  bool Reduction = Fn->Family == BuiltinFamily::Reduction ||
                   Fn->Family == BuiltinFamily::CumSum;
  for (const Arg &Ar : E.Args) {
    if (!isNumeric(Ar.Value->Ty.Type) &&
        !(Reduction && (Fn->Result == BuiltinResult::Sum ||
                        Fn->Result == BuiltinResult::Float))) {
      Diags.report(diag::E_FUNCTION_BOOL, Ar.Loc) << E.Callee;
      return false;
    }
  }
  return typeCall(E, *Fn);
}

/// min(x, 1) on an array: NumPy's axis (np.min(a, axis)) or Stan's pair
/// (min(a, b))? Either reading is someone's silent wrong result, so an
/// integer literal after an array is refused with both spellings.
bool Analyzer::checkMinMaxAxis(const CallExpr &E) {
  if ((E.Callee != "min" && E.Callee != "max") || E.Args.size() != 2 ||
      E.Args[0].Value->Ty.Dims.empty())
    return true;
  const Expr *B = E.Args[1].Value.get();
  bool Negative = false;
  if (const auto *U = llvm::dyn_cast<UnaryExpr>(B)) {
    B = U->Operand.get();
    Negative = true;
  }
  const auto *N = llvm::dyn_cast<NumberExpr>(B);
  if (!N || !N->IsInteger)
    return true;
  Diags.report(diag::E_MIN_MAX_AXIS_AMBIGUOUS, E.Loc)
      << E.Callee << (Negative ? "-" : "") + formatNumber(N->Value)
      << (E.Callee == "min" ? "minimum" : "maximum");
  return false;
}

/// axis=: an integer literal or const (negative counts from the end), taken
/// out of the arguments; checked against the value's rank later.
/// The integer literals (or consts) of `E`: one, or a tuple of them;
/// nullopt when any is something else.
std::optional<std::vector<int64_t>> Analyzer::integerList(const Expr &E) const {
  std::vector<int64_t> Out;
  for (const Expr *X : elementsOf(E)) {
    auto V = literalValue(*X);
    if (!V || *V != static_cast<double>(static_cast<int64_t>(*V)))
      return std::nullopt;
    Out.push_back(static_cast<int64_t>(*V));
  }
  return Out;
}

/// sum(x, axis=(1, 2)): NumPy's reduction over several axes, as one
/// reduction per axis from the last (the same value; the order of the
/// sums is fixed). Nullopt when the axis is not a tuple.
std::optional<bool> Analyzer::reduceOverAxes(CallExpr &E, const Builtin &Fn) {
  auto It = llvm::find_if(E.Args, [](const Arg &A) {
    return A.Keyword == "axis" && llvm::isa<ArrayExpr>(*A.Value);
  });
  if (It == E.Args.end() || E.Args.size() != 2)
    return std::nullopt;
  auto Axes = integerList(*It->Value);
  if (!Axes) {
    Diags.report(diag::E_AXIS_NOT_LITERAL, It->Loc);
    return false;
  }
  if (E.Callee == "sd" && Axes->size() > 1) {
    Diags.report(diag::E_SD_AXES, It->Loc);
    return false;
  }
  const Arg &X = E.Args[It == E.Args.begin() ? 1 : 0];
  ExprPtr Probe = cloneExpr(*X.Value); // the rank decides negative axes
  if (!analyzeExpr(*Probe))
    return false;
  const int64_t Rank = static_cast<int64_t>(Probe->Ty.Dims.size());
  for (int64_t &A : *Axes) {
    if (A < -Rank || A >= Rank) {
      Diags.report(diag::E_AXIS_RANGE, It->Loc)
          << A << shapeStr(Probe->Ty.Dims);
      return false;
    }
    A = A < 0 ? A + Rank : A;
  }
  llvm::sort(*Axes, std::greater<int64_t>());
  if (std::adjacent_find(Axes->begin(), Axes->end()) != Axes->end()) {
    Diags.report(diag::E_AXES_PERMUTATION, It->Loc)
        << E.Callee << "distinct axes" << shapeStr(Probe->Ty.Dims);
    return false;
  }
  ExprPtr Value = cloneExpr(*X.Value);
  for (int64_t A : *Axes)
    Value = call(E.Loc, E.Callee.c_str(),
                 {Arg{"", X.Loc, Value},
                  Arg{"axis", It->Loc,
                      std::make_shared<NumberExpr>(It->Loc, A, true)}});
  if (Axes->empty()) // axis=(): NumPy reduces nothing
    Value = cloneExpr(*X.Value);
  if (!analyzeExpr(*Value))
    return false;
  E.Ty = Value->Ty;
  E.Desugared = Value;
  E.Args.clear(); // walkers see the analyzed form only
  return true;
}

bool Analyzer::takeAxisArg(CallExpr &E, std::optional<int64_t> &Axis,
                           SMLoc &AxisLoc) {
  bool Ok = true;
  for (auto It = E.Args.begin(); It != E.Args.end();) {
    if (It->Keyword != "axis") {
      ++It;
      continue;
    }
    auto V = literalValue(*It->Value);
    auto *N = llvm::dyn_cast<NumberExpr>(It->Value.get());
    auto *U = llvm::dyn_cast<UnaryExpr>(It->Value.get());
    bool IsInt = (N && N->IsInteger) ||
                 (U && llvm::isa<NumberExpr>(*U->Operand) &&
                  llvm::cast<NumberExpr>(*U->Operand).IsInteger) ||
                 (V && llvm::isa<NameExpr>(*It->Value));
    if (!V || !IsInt || Axis) {
      if (Axis)
        Diags.report(diag::E_ARGUMENT_TWICE, It->Loc) << "axis";
      else
        Diags.report(diag::E_AXIS_NOT_LITERAL, It->Loc);
      Ok = false;
    } else {
      Axis = static_cast<int64_t>(*V);
      AxisLoc = It->Loc;
    }
    It = E.Args.erase(It);
  }
  return Ok;
}

/// Every argument analyzed; keywords (axis= aside) refused.
bool Analyzer::analyzeCallArgs(CallExpr &E, bool AxisFn) {
  bool Ok = true;
  for (const Arg &A : E.Args) {
    if (!A.Keyword.empty()) {
      Diags.report(diag::E_FUNCTION_KEYWORD, A.Loc)
          << E.Callee << (AxisFn ? " but axis=" : "");
      Ok = false;
    }
    Ok &= analyzeExpr(*A.Value);
  }
  return Ok;
}

/// What a function's arity says in its message: "3 arguments (cond, a,
/// b)", "1 or 2 arguments", "1 argument".
static std::string arityText(const Builtin &Fn) {
  if (Fn.Family == BuiltinFamily::Where)
    return "3 arguments (cond, a, b)";
  if (Fn.Family == BuiltinFamily::Clip)
    return "3 arguments (x, lo, hi)";
  if (Fn.MinArgs != Fn.MaxArgs)
    return (llvm::Twine(Fn.MinArgs) + " or " + llvm::Twine(Fn.MaxArgs) +
            " arguments")
        .str();
  if (Fn.MinArgs == 1)
    return "1 argument";
  return (llvm::Twine(Fn.MinArgs) + " arguments").str();
}

bool Analyzer::checkCallArity(CallExpr &E, const Builtin &Fn) {
  if (E.Args.size() >= Fn.MinArgs && E.Args.size() <= Fn.MaxArgs)
    return true;
  Diags.report(diag::E_FUNCTION_ARITY, E.Loc)
      << E.Callee << arityText(Fn) << E.Args.size();
  return false;
}

/// where(cond, a, b): a bool condition; a and b numbers (or both bool), all
/// three broadcast together.
bool Analyzer::analyzeWhere(CallExpr &E) {
  const ExprType &C = E.Args[0].Value->Ty, &A = E.Args[1].Value->Ty,
                 &B = E.Args[2].Value->Ty;
  if (C.Type != DType::Bool) {
    Diags.report(diag::E_WHERE_CONDITION, E.Args[0].Loc) << dtypeName(C.Type);
    return false;
  }
  if ((A.Type == DType::Bool) != (B.Type == DType::Bool)) {
    Diags.report(diag::E_WHERE_BRANCHES, E.Loc)
        << dtypeName(A.Type) << dtypeName(B.Type);
    return false;
  }
  auto AB = broadcastShapes(A.Dims, B.Dims);
  auto Out = AB ? broadcastShapes(C.Dims, *AB) : std::nullopt;
  if (!Out) {
    Diags.report(diag::E_WHERE_BROADCAST, E.Loc)
        << shapeStr(C.Dims) << shapeStr(A.Dims) << shapeStr(B.Dims);
    return false;
  }
  DType T = A.Type == DType::Bool ? DType::Bool : arithmeticType(A, B);
  E.Ty = {T, *Out, A.WeakLiteral && B.WeakLiteral};
  return true;
}

/// The axis a reduction, softmax, cumsum or sort runs along (local dims): in
/// range and not the observation axis, unless it is a statistic of an input
/// in transformed data. Nullopt when the call is typed by its family; else
/// the call's outcome.
std::optional<bool> Analyzer::analyzeCallAxis(CallExpr &E, const Builtin &Fn,
                                              std::optional<int64_t> Axis,
                                              SMLoc AxisLoc) {
  const ExprType &A = E.Args[0].Value->Ty;
  bool Reduction = Fn.Family == BuiltinFamily::Reduction;
  std::string Name = "'" + E.Callee + "'";
  if (Fn.takesAxis() && (Axis || !Reduction)) {
    int64_t Rank = static_cast<int64_t>(A.Dims.size());
    if (!Axis && Fn.Family == BuiltinFamily::CumSum && Rank > 1) {
      Diags.report(diag::E_NEEDS_AXIS, E.Loc) << E.Callee << shapeStr(A.Dims);
      return false;
    }
    int64_t Ax = Axis ? *Axis : -1;
    if (Ax < 0)
      Ax += Rank;
    if (Ax < 0 || Ax >= Rank) {
      Diags.report(diag::E_AXIS_RANGE, Axis ? AxisLoc : E.Loc)
          << (Axis ? *Axis : int64_t(-1)) << shapeStr(A.Dims);
      return false;
    }
    E.Axis = Ax;
    if (Reduction && InTransformed && A.Dims[Ax] == Dim::symbol(Info.ObsDim))
      return analyzeDataReduction(E, Fn);
    noteObservationMixing(E.Loc, A.Dims[Ax], Name.c_str(),
                          Reduction ? &E : nullptr);
  }
  if (E.Args.size() == 1 && Reduction && !E.Axis) {
    if (InTransformed && llvm::is_contained(A.Dims, Dim::symbol(Info.ObsDim)))
      return analyzeDataReduction(E, Fn);
    if (mentions(A.Dims, Info.ObsDim)) // once, however many such axes
      noteObservationMixing(E.Loc, Dim::symbol(Info.ObsDim), Name.c_str(),
                            &E);
  }
  return std::nullopt;
}

/// The result's dtype and shape by the function's family.
bool Analyzer::typeCall(CallExpr &E, const Builtin &Fn) {
  const ExprType &A = E.Args[0].Value->Ty;
  // The element type of a reduction or running sum over A.
  DType Reduced = Fn.Result == BuiltinResult::Float ? Info.Precision
                  : Fn.Result == BuiltinResult::Sum && A.Type == DType::Bool
                      ? DType::I32
                      : A.Type;
  if (Fn.Family == BuiltinFamily::Softmax) {
    E.Ty = {Info.Precision, A.Dims, false};
  } else if (Fn.Family == BuiltinFamily::Sort) {
    E.Ty = {Fn.Result == BuiltinResult::Index ? DType::I64 : A.Type, A.Dims,
            false};
  } else if (Fn.Family == BuiltinFamily::CumSum) {
    E.Ty = {Reduced, A.Dims, false};
  } else if (E.Axis) {
    Shape Kept = A.Dims;
    Kept.erase(Kept.begin() + *E.Axis);
    E.Ty = {Reduced, Kept, false};
  } else if (Fn.Family == BuiltinFamily::Elementwise) {
    if (Fn.Result == BuiltinResult::Float)
      E.Ty = {Info.Precision, A.Dims, A.WeakLiteral};
    else
      E.Ty = A;
  } else if (E.Args.size() >= 2) {
    return typeBroadcastCall(E, Fn);
  } else {
    E.Ty = {Reduced, {}, false};
  }
  return true;
}

/// Elementwise over broadcast arguments: min/max/minimum/maximum/clip keep
/// the arithmetic type, pow computes in the float precision.
bool Analyzer::typeBroadcastCall(CallExpr &E, const Builtin &Fn) {
  const ExprType &A = E.Args[0].Value->Ty;
  Shape Out = A.Dims;
  DType T = A.Type;
  bool Weak = A.WeakLiteral;
  for (size_t I = 1; I < E.Args.size(); ++I) {
    const ExprType &B = E.Args[I].Value->Ty;
    auto O = broadcastShapes(Out, B.Dims);
    if (!O) {
      Diags.report(diag::E_BROADCAST, E.Loc)
          << shapeStr(Out) << shapeStr(B.Dims) << E.Callee;
      return false;
    }
    Out = *O;
    T = arithmeticType({T, {}, Weak}, B);
    Weak = Weak && B.WeakLiteral;
  }
  E.Ty = {Fn.Result == BuiltinResult::Float ? Info.Precision : T, Out, Weak};
  return true;
}

} // namespace sema
} // namespace aimz
