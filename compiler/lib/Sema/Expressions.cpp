//===- Expressions.cpp - Types and shapes of expressions -----------------===//
//
// Each expression gets its dtype and symbolic shape as seen inside the
// open plates: literals adapt to their typed peers, operands broadcast as
// in NumPy, builtins (Builtins.def) follow their family's rule, and nothing
// may mix observations.
//
//===----------------------------------------------------------------------===//
#include "Analyzer.h"
#include "aimz/Builtins.h"

namespace aimz {
namespace sema {

/// Each observation must be computable from its own row: an operation that
/// contracts, reduces or indexes along the observation axis would make a
/// shard's result depend on other shards' data.
bool Analyzer::mixesObservations(SMLoc Loc, const Dim &D, const char *What) {
  if (D != Dim::symbol(Info.ObsDim))
    return false;
  Diags.error(Loc, llvm::Twine(What) + " runs along the observation axis '" +
                       Info.ObsDim +
                       "', mixing observations; each observation must be "
                       "computed from its own data (work inside 'plate ... (" +
                       Info.ObsDim + ")' instead)");
  return true;
}

Shape Analyzer::viewInPlates(const Shape &Full) const {
  size_t Skip = 0;
  for (const OpenBlock &B : Blocks)
    if (Skip < Full.size() && Full[Skip] == B.D)
      ++Skip;
  return Shape(Full.begin() + Skip, Full.end());
}

DType Analyzer::arithmeticType(const ExprType &A, const ExprType &B) const {
  return promoteArithmetic(A, B, Info.Precision);
}

bool Analyzer::analyzeExpr(Expr &E) {
  switch (E.K) {
  case Expr::Kind::Number: {
    auto &N = static_cast<NumberExpr &>(E);
    E.Ty = {N.IsInteger ? DType::I32 : Info.Precision, {}, true};
    if (N.IsInteger && std::abs(N.Value) > 2147483647.0)
      E.Ty.Type = DType::I64;
    return true;
  }
  case Expr::Kind::Bool:
    E.Ty = {DType::Bool, {}, false};
    return true;
  case Expr::Kind::Name:
    return analyzeName(static_cast<NameExpr &>(E));
  case Expr::Kind::Unary: {
    auto &U = static_cast<UnaryExpr &>(E);
    if (!analyzeExpr(*U.Operand))
      return false;
    if (!isNumeric(U.Operand->Ty.Type)) {
      Diags.error(E.Loc, "cannot negate a bool value");
      return false;
    }
    E.Ty = U.Operand->Ty;
    return true;
  }
  case Expr::Kind::Binary:
    return analyzeBinary(static_cast<BinaryExpr &>(E));
  case Expr::Kind::Call:
    return analyzeCall(static_cast<CallExpr &>(E));
  case Expr::Kind::Index:
    return analyzeIndex(static_cast<IndexExpr &>(E));
  case Expr::Kind::Array:
    return analyzeArray(static_cast<ArrayExpr &>(E));
  case Expr::Kind::Axis:
    Diags.error(E.Loc, llvm::Twine("'") +
                           (static_cast<AxisExpr &>(E).NewAxis ? "None"
                                                               : ":") +
                           "' is only an index, as in x[:, None]");
    return false;
  case Expr::Kind::Slice:
    Diags.error(E.Loc, "a slice is only an index, as in x[1:]");
    return false;
  case Expr::Kind::Attr:
    return analyzeAttr(static_cast<AttrExpr &>(E));
  }
  return false;
}

/// `[a, b, ...]`: elements of one shape (after broadcasting) stacked along
/// a new leading axis; numbers promote as in arithmetic.
bool Analyzer::analyzeArray(ArrayExpr &E) {
  bool Ok = true;
  for (const ExprPtr &X : E.Elements)
    Ok &= analyzeExpr(*X);
  if (!Ok)
    return false;
  ExprType T = E.Elements.front()->Ty;
  for (const ExprPtr &X : E.Elements) {
    const ExprType &XT = X->Ty;
    if ((XT.Type == DType::Bool) != (T.Type == DType::Bool)) {
      Diags.error(X->Loc, "array literal mixes bool and numbers");
      return false;
    }
    auto S = broadcastShapes(T.Dims, XT.Dims);
    if (!S) {
      Diags.error(X->Loc, "array literal elements have shapes " +
                              shapeStr(T.Dims) + " and " + shapeStr(XT.Dims) +
                              ", which do not broadcast");
      return false;
    }
    DType Ty = T.Type == DType::Bool ? DType::Bool : arithmeticType(T, XT);
    T = {Ty, *S, T.WeakLiteral && XT.WeakLiteral};
  }
  Shape Out{Dim::known(static_cast<int64_t>(E.Elements.size()))};
  llvm::append_range(Out, T.Dims);
  E.Ty = {T.Type, Out, T.WeakLiteral};
  return true;
}

bool Analyzer::analyzeName(NameExpr &E) {
  auto It = Names.find(E.Name);
  if (It == Names.end() && BoundSymbols.count(E.Name)) {
    // A dimension's extent is a number the model may compute with
    // (`log(T)`, `1.0 / n`): an i64 scalar that adapts like a literal.
    E.Ty = {DType::I64, {}, true};
    E.DimensionText = E.Name;
    return true;
  }
  if (It == Names.end()) {
    if (lookupDistribution(E.Name)) {
      Diags.error(E.Loc, "'" + E.Name +
                             "' is a distribution; draw from it with 'x ~ " +
                             E.Name + "(...)'");
      return false;
    }
    if (const Param *Out = M.findOutput(E.Name)) {
      // The output is what the model draws (predict) or scores
      // (log-likelihood); computing from it is refused. What the user
      // meant decides the alternative, so all three are named.
      Diags.error(E.Loc, "the output '" + E.Name +
                             "' is read inside the model; a model draws or "
                             "scores its output but cannot compute from it");
      Diags.note(E.Loc,
                 "an autoregressive term such as " + E.Name +
                     "[t - 1] takes the lagged values as an input (e.g. " +
                     E.Name + "_lag: " + dtypeName(Out->Type.Type) + "[" +
                     Info.ObsDim + "]); a hurdle or a branch on the observed "
                     "value is a distribution over the output "
                     "(HurdlePoisson, ZeroInflatedPoisson, "
                     "TruncatedDistribution(...), "
                     "MixtureSameFamily(...)); a sum over latent positions "
                     "(a change point) is a 'factor' beside the output's own "
                     "distribution");
      // With several outputs, one response may depend on another.
      if (M.Outputs.size() > 1)
        Diags.note(Out->Loc, "an output's values may be used after its "
                             "'" + E.Name + " ~ ...' statement (a later "
                             "output depending on an earlier one): sample '" +
                             E.Name + "' first");
      return false;
    }
    Diags.error(E.Loc, "unknown name '" + E.Name + "'");
    auto Later = LaterDefinitions.find(E.Name);
    if (Later != LaterDefinitions.end())
      Diags.note(Later->second, "'" + E.Name +
                                    "' is defined here, after its use");
    else if (const Param *Out = M.findOutput(E.Name))
      Diags.note(Out->Loc, "the output can be used only after it is "
                           "sampled");
    return false;
  }
  const Symbol &S = It->second;
  if (S.Poisoned)
    return false;
  if (InTransformed && S.K != Symbol::Kind::Input &&
      S.K != Symbol::Kind::Const && S.K != Symbol::Kind::Transformed) {
    Diags.error(E.Loc, "transformed data is computed from the data alone: "
                       "inputs, constants, dimensions and earlier "
                       "transformed values; '" +
                           E.Name + "' is " + article(kindWord(S.K)) + " " +
                           kindWord(S.K));
    return false;
  }
  if (S.K == Symbol::Kind::Factor) {
    Diags.error(E.Loc, "'" + E.Name +
                           "' is a factor, a term of the log density, not a "
                           "value; compute the value with 'let' and add it "
                           "as a factor");
    return false;
  }
  if (S.K == Symbol::Kind::Const && !S.DimText.empty()) {
    E.Ty = {DType::I64, {}, true};
    E.DimensionText = S.DimText;
    return true;
  }
  if (S.K == Symbol::Kind::Const) {
    E.Ty = {S.ConstValue > 2147483647 || S.ConstValue < -2147483648LL
                ? DType::I64
                : DType::I32,
            {}, true};
    return true;
  }
  E.Ty = {S.Type, viewInPlates(S.Dims), false};
  return true;
}

bool Analyzer::analyzeBinary(BinaryExpr &E) {
  bool OkL = analyzeExpr(*E.LHS);
  bool OkR = analyzeExpr(*E.RHS);
  if (!OkL || !OkR)
    return false;
  const ExprType &A = E.LHS->Ty, &B = E.RHS->Ty;
  const char *Op = binaryOpSpelling(E.Op);
  bool IsCompare = E.Op >= BinaryOp::Lt;
  bool IsEquality = E.Op == BinaryOp::Eq || E.Op == BinaryOp::Ne;

  if (!IsEquality && (!isNumeric(A.Type) || !isNumeric(B.Type))) {
    Diags.error(E.Loc, llvm::Twine("operator '") + Op +
                           "' needs numbers; got " + dtypeName(A.Type) +
                           " and " + dtypeName(B.Type));
    return false;
  }
  if (IsEquality && (A.Type == DType::Bool) != (B.Type == DType::Bool)) {
    Diags.error(E.Loc, llvm::Twine("operator '") + Op +
                           "' compares a bool with a number (" +
                           dtypeName(A.Type) + " and " + dtypeName(B.Type) +
                           ")");
    return false;
  }

  if (E.Op == BinaryOp::MatMul) {
    Shape SA = A.Dims, SB = B.Dims;
    if (SA.empty() || SB.empty()) {
      Diags.error(E.Loc, "operator '@' needs arrays of rank 1 or more; got " +
                             shapeStr(SA) + " @ " + shapeStr(SB));
      return false;
    }
    if (SA.size() > 2 || SB.size() > 2) {
      Diags.error(E.Loc, "operator '@' on arrays of rank above 2 is not "
                         "supported (got " +
                             shapeStr(SA) + " @ " + shapeStr(SB) +
                             "); use a plate for the extra dims");
      return false;
    }
    bool VecA = SA.size() == 1, VecB = SB.size() == 1;
    if (VecA)
      SA.insert(SA.begin(), Dim::known(1));
    if (VecB)
      SB.push_back(Dim::known(1));
    const Dim &K1 = SA.back(), &K2 = SB[SB.size() - 2];
    if (mixesObservations(E.Loc, K1, "this matrix product"))
      return false;
    if (K1 != K2) {
      Diags.error(E.Loc, "operator '@': inner dimensions " + K1.str() +
                             " and " + K2.str() + " differ (" +
                             shapeStr(A.Dims) + " @ " + shapeStr(B.Dims) +
                             ")");
      return false;
    }
    Shape BatchA(SA.begin(), SA.end() - 2), BatchB(SB.begin(), SB.end() - 2);
    auto Batch = broadcastShapes(BatchA, BatchB);
    if (!Batch) {
      Diags.error(E.Loc, "operator '@': batch dimensions of " +
                             shapeStr(A.Dims) + " and " + shapeStr(B.Dims) +
                             " do not broadcast");
      return false;
    }
    Shape Out = *Batch;
    if (!VecA)
      Out.push_back(SA[SA.size() - 2]);
    if (!VecB)
      Out.push_back(SB.back());
    E.Ty = {arithmeticType(A, B), Out, false};
    return true;
  }

  auto Out = broadcastShapes(A.Dims, B.Dims);
  if (!Out) {
    Diags.error(E.Loc, llvm::Twine("shapes ") + shapeStr(A.Dims) + " and " +
                           shapeStr(B.Dims) +
                           " cannot be broadcast together in '" + Op + "'");
    return false;
  }
  bool Weak = A.WeakLiteral && B.WeakLiteral;
  if (IsCompare)
    E.Ty = {DType::Bool, *Out, false};
  else if (E.Op == BinaryOp::Div || E.Op == BinaryOp::Pow)
    E.Ty = {Info.Precision, *Out, Weak};
  else
    E.Ty = {arithmeticType(A, B), *Out, Weak};
  return true;
}

bool Analyzer::analyzeCall(CallExpr &E) {
  const Builtin *Fn = lookupBuiltin(E.Callee);
  if (!Fn) {
    if (lookupDistribution(E.Callee))
      Diags.error(E.Loc, "'" + E.Callee +
                             "' is a distribution, not a function; draw from "
                             "it with 'x ~ " +
                             E.Callee + "(...)'");
    else
      Diags.error(E.Loc, "unknown function '" + E.Callee +
                             "'; functions are " + builtinNameList());
    return false;
  }
  if (Fn->Family == BuiltinFamily::Constructor)
    return analyzeConstructor(E, *Fn);
  if (Fn->Family == BuiltinFamily::LogProb)
    return analyzeLogProb(E);
  if (Fn->Family == BuiltinFamily::VecToTril)
    return analyzeVecToTril(E);
  bool AxisFn = Fn->takesAxis();
  bool Ok = true;
  // axis=: an integer literal (negative counts from the end), taken out of
  // the arguments; checked against the value's rank below.
  std::optional<int64_t> Axis;
  SMLoc AxisLoc;
  for (auto It = E.Args.begin(); It != E.Args.end();) {
    if (It->Keyword != "axis" || !AxisFn) {
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
      Diags.error(It->Loc, Axis ? "'axis' is given twice"
                                : "'axis' must be an integer literal or const");
      Ok = false;
    } else {
      Axis = static_cast<int64_t>(*V);
      AxisLoc = It->Loc;
    }
    It = E.Args.erase(It);
  }
  for (const Arg &A : E.Args) {
    if (!A.Keyword.empty()) {
      Diags.error(A.Loc, "function '" + E.Callee + "' takes no keyword "
                             "arguments" + (AxisFn ? " but axis=" : ""));
      Ok = false;
    }
    Ok &= analyzeExpr(*A.Value);
  }
  if (!Ok)
    return false;
  if (E.Args.size() < Fn->MinArgs || E.Args.size() > Fn->MaxArgs) {
    std::string Want =
        Fn->Family == BuiltinFamily::Where ? "3 arguments (cond, a, b)"
        : Fn->Family == BuiltinFamily::Clip ? "3 arguments (x, lo, hi)"
        : Fn->MinArgs != Fn->MaxArgs
            ? (llvm::Twine(Fn->MinArgs) + " or " + llvm::Twine(Fn->MaxArgs) +
               " arguments")
                  .str()
        : Fn->MinArgs == 1 ? "1 argument"
                           : (llvm::Twine(Fn->MinArgs) + " arguments").str();
    Diags.error(E.Loc, "function '" + E.Callee + "' takes " + Want +
                           "; got " + llvm::Twine(E.Args.size()));
    return false;
  }
  if (Fn->Family == BuiltinFamily::Transpose ||
      Fn->Family == BuiltinFamily::Outer || Fn->Family == BuiltinFamily::Diag)
    return analyzeMatrixHelper(E, *Fn);
  if (Fn->Family == BuiltinFamily::Where) {
    // where(cond, a, b): a bool condition; a and b numbers (or both bool),
    // all three broadcast together.
    const ExprType &C = E.Args[0].Value->Ty, &A = E.Args[1].Value->Ty,
                   &B = E.Args[2].Value->Ty;
    if (C.Type != DType::Bool) {
      Diags.error(E.Args[0].Loc, llvm::Twine("the condition of 'where' must "
                                             "be bool (a comparison); got ") +
                                     dtypeName(C.Type));
      return false;
    }
    if ((A.Type == DType::Bool) != (B.Type == DType::Bool)) {
      Diags.error(E.Loc, "'where' needs two numbers or two bools after the "
                         "condition; got " +
                             llvm::Twine(dtypeName(A.Type)) + " and " +
                             dtypeName(B.Type));
      return false;
    }
    auto AB = broadcastShapes(A.Dims, B.Dims);
    auto Out = AB ? broadcastShapes(C.Dims, *AB) : std::nullopt;
    if (!Out) {
      Diags.error(E.Loc, "shapes " + shapeStr(C.Dims) + ", " + shapeStr(A.Dims) +
                             " and " + shapeStr(B.Dims) +
                             " cannot be broadcast together in 'where'");
      return false;
    }
    DType T = A.Type == DType::Bool ? DType::Bool : arithmeticType(A, B);
    E.Ty = {T, *Out, A.WeakLiteral && B.WeakLiteral};
    return true;
  }
  const ExprType &A = E.Args[0].Value->Ty;
  // The axis a reduction, softmax or cumsum runs along (local dims).
  bool Reduction = Fn->Family == BuiltinFamily::Reduction;
  if (AxisFn && (Axis || !Reduction)) {
    int64_t Rank = static_cast<int64_t>(A.Dims.size());
    if (!Axis && Fn->Family == BuiltinFamily::CumSum && Rank > 1) {
      Diags.error(E.Loc, "cumsum of an array of shape " + shapeStr(A.Dims) +
                             " needs axis= (NumPy would flatten it)");
      return false;
    }
    int64_t Ax = Axis ? *Axis : -1;
    if (Ax < 0)
      Ax += Rank;
    if (Ax < 0 || Ax >= Rank) {
      Diags.error(Axis ? AxisLoc : E.Loc,
                  "axis " + llvm::Twine(Axis ? *Axis : -1) +
                      " is out of range for a value of shape " +
                      shapeStr(A.Dims));
      return false;
    }
    E.Axis = Ax;
    if (Reduction && InTransformed && A.Dims[Ax] == Dim::symbol(Info.ObsDim))
      return analyzeDataReduction(E, *Fn);
    if (mixesObservations(E.Loc, A.Dims[Ax], ("'" + E.Callee + "'").c_str())) {
      if (Reduction)
        noteTransformedData(E);
      return false;
    }
  }
  if (E.Args.size() == 1 && Reduction && !E.Axis) {
    if (InTransformed && llvm::is_contained(A.Dims, Dim::symbol(Info.ObsDim)))
      return analyzeDataReduction(E, *Fn);
    for (const Dim &D : A.Dims)
      if (mixesObservations(E.Loc, D,
                            ("'" + E.Callee + "'").c_str()))
        return noteTransformedData(E), false;
  }
  if (E.Callee == "sd") {
    Diags.error(E.Loc, "sd is a statistic of the data: it runs along the "
                       "observation axis of an input, in transformed data "
                       "('transformed s = sd(x);'); elsewhere write "
                       "sqrt(mean(square(v - mean(v))))");
    return false;
  }
  for (const Arg &Ar : E.Args) {
    if (!isNumeric(Ar.Value->Ty.Type) &&
        !(Reduction && (Fn->Result == BuiltinResult::Sum ||
                        Fn->Result == BuiltinResult::Float))) {
      Diags.error(Ar.Loc, "function '" + E.Callee + "' needs numbers; got bool");
      return false;
    }
  }
  // The element type of a reduction or running sum over A.
  auto Reduced = [&] {
    return Fn->Result == BuiltinResult::Float ? Info.Precision
           : Fn->Result == BuiltinResult::Sum && A.Type == DType::Bool
               ? DType::I32
               : A.Type;
  };
  if (Fn->Family == BuiltinFamily::Softmax) {
    E.Ty = {Info.Precision, A.Dims, false};
  } else if (Fn->Family == BuiltinFamily::CumSum) {
    E.Ty = {Reduced(), A.Dims, false};
  } else if (E.Axis) {
    Shape Kept = A.Dims;
    Kept.erase(Kept.begin() + *E.Axis);
    E.Ty = {Reduced(), Kept, false};
  } else if (Fn->Family == BuiltinFamily::Elementwise) {
    if (Fn->Result == BuiltinResult::Float)
      E.Ty = {Info.Precision, A.Dims, A.WeakLiteral};
    else
      E.Ty = A;
  } else if (E.Args.size() >= 2) {
    // Elementwise over broadcast arguments: min/max/minimum/maximum/clip
    // keep the arithmetic type, pow computes in the float precision.
    Shape Out = A.Dims;
    DType T = A.Type;
    bool Weak = A.WeakLiteral;
    for (size_t I = 1; I < E.Args.size(); ++I) {
      const ExprType &B = E.Args[I].Value->Ty;
      auto O = broadcastShapes(Out, B.Dims);
      if (!O) {
        Diags.error(E.Loc, "shapes " + shapeStr(Out) + " and " +
                               shapeStr(B.Dims) +
                               " cannot be broadcast together in '" +
                               E.Callee + "'");
        return false;
      }
      Out = *O;
      T = arithmeticType({T, {}, Weak}, B);
      Weak = Weak && B.WeakLiteral;
    }
    E.Ty = {Fn->Result == BuiltinResult::Float ? Info.Precision : T, Out,
            Weak};
  } else {
    E.Ty = {Reduced(), {}, false};
  }
  return true;
}

bool Analyzer::analyzeIndex(IndexExpr &E) {
  // Slices, or integer constants beside ':' / None: NumPy's basic
  // indexing, a view (Slices.cpp). A gather's index list may end in ':'s
  // (`L[i, :]` is `L[i]`).
  auto IsInt = [](const ExprPtr &I) {
    return !llvm::isa<AxisExpr, SliceExpr>(I.get());
  };
  bool AnySlice = llvm::any_of(E.Indices, [](const ExprPtr &I) {
    return llvm::isa<SliceExpr>(I.get());
  });
  bool AnyInt = llvm::any_of(E.Indices, IsInt);
  // Constant indices (`v[0]`, `L[-1]`, `X[:, K - 1]`) are views too, with
  // NumPy's negative indices counting from the end.
  bool Basic = llvm::all_of(E.Indices, [&](const ExprPtr &I) {
    return !IsInt(I) || isDimArith(*I);
  });
  if (AnyInt && Basic)
    return analyzeExpr(*E.Base) && analyzeSlices(E);
  if (AnyInt && (AnySlice || !llvm::all_of(E.Indices, IsInt))) {
    while (!E.Indices.empty() && !IsInt(E.Indices.back()) &&
           !llvm::isa<SliceExpr>(E.Indices.back().get()) &&
           !llvm::cast<AxisExpr>(*E.Indices.back()).NewAxis)
      E.Indices.pop_back();
    if (!llvm::all_of(E.Indices, IsInt)) {
      Diags.error(E.Loc, "indices mix slices, ':' or None with an index "
                         "computed from values, which is not supported; "
                         "gather first (let a = x[g];) and slice after");
      return false;
    }
  } else if (AnySlice) {
    return analyzeExpr(*E.Base) && analyzeSlices(E);
  }
  bool Ok = analyzeExpr(*E.Base);
  size_t Axes = 0, Kept = 0;
  for (const ExprPtr &I : E.Indices) {
    if (auto *A = llvm::dyn_cast<AxisExpr>(I.get())) {
      ++Axes;
      Kept += !A->NewAxis;
      continue;
    }
    Ok &= analyzeExpr(*I);
  }
  if (!Ok)
    return false;
  const Shape &Base = E.Base->Ty.Dims;
  // `x[:, None]`: a view with axes of extent 1 inserted.
  if (Axes) {
    if (Axes != E.Indices.size()) {
      Diags.error(E.Loc, "indices mix ':' or None with integer indices, "
                         "which is not supported; index first (let a = "
                         "x[g];) and insert axes after (a[:, None])");
      return false;
    }
    if (Kept > Base.size()) {
      Diags.error(E.Loc, "too many ':' for a value of shape " +
                             shapeStr(Base));
      return false;
    }
    Shape Out;
    size_t Next = 0;
    for (const ExprPtr &I : E.Indices)
      Out.push_back(llvm::cast<AxisExpr>(*I).NewAxis ? Dim::known(1)
                                                     : Base[Next++]);
    Out.insert(Out.end(), Base.begin() + Next, Base.end());
    E.Ty = {E.Base->Ty.Type, Out, E.Base->Ty.WeakLiteral};
    return true;
  }
  if (E.Indices.size() > Base.size()) {
    Diags.error(E.Loc, "too many indices: the value has shape " +
                           shapeStr(Base) + " (rank " +
                           llvm::Twine(Base.size()) + ") but " +
                           llvm::Twine(E.Indices.size()) +
                           " indices were given");
    return false;
  }
  Shape IndexShape;
  for (size_t I = 0; I < E.Indices.size(); ++I) {
    const Expr &Ix = *E.Indices[I];
    if (const auto *N = llvm::dyn_cast<NameExpr>(&Ix)) {
      auto S = Names.find(N->Name);
      ModelInfo::IndexUse U{N->Name, Base[I]};
      if (S != Names.end() && S->second.K == Symbol::Kind::Input &&
          !llvm::is_contained(Info.IndexInputs, U))
        Info.IndexInputs.push_back(U);
    }
    if (mixesObservations(Ix.Loc, Base[I], "this index")) {
      Ok = false;
      continue;
    }
    if (!isInteger(Ix.Ty.Type)) {
      Diags.error(Ix.Loc, llvm::Twine("index must be an integer; got ") +
                              dtypeName(Ix.Ty.Type));
      Ok = false;
      continue;
    }
    if (auto V = literalValue(Ix); V && !Base[I].isSymbol()) {
      int64_t Extent = Base[I].Extent;
      if (*V < -Extent || *V >= Extent) {
        Diags.error(Ix.Loc, "index " + llvm::Twine(static_cast<int64_t>(*V)) +
                                " is out of range for a dimension of extent " +
                                llvm::Twine(Extent));
        Ok = false;
        continue;
      }
    }
    auto B = broadcastShapes(IndexShape, Ix.Ty.Dims);
    if (!B) {
      Diags.error(Ix.Loc, "index shapes " + shapeStr(IndexShape) + " and " +
                              shapeStr(Ix.Ty.Dims) + " do not broadcast");
      Ok = false;
      continue;
    }
    IndexShape = *B;
  }
  if (!Ok)
    return false;
  Shape Out = IndexShape;
  Out.insert(Out.end(), Base.begin() + E.Indices.size(), Base.end());
  E.Ty = {E.Base->Ty.Type, Out, false};
  return true;
}

} // namespace sema
} // namespace aimz
