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
  Diags.report(diag::E_MIXES_OBSERVATIONS, Loc) << What << Info.ObsDim;
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
      Diags.report(diag::E_NEGATE_BOOL, E.Loc);
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
    Diags.report(diag::E_AXIS_ONLY_INDEX, E.Loc)
        << (static_cast<AxisExpr &>(E).NewAxis ? "None" : ":");
    return false;
  case Expr::Kind::Slice:
    Diags.report(diag::E_SLICE_ONLY_INDEX, E.Loc);
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
      Diags.report(diag::E_ARRAY_MIXES_BOOL, X->Loc);
      return false;
    }
    auto S = broadcastShapes(T.Dims, XT.Dims);
    if (!S) {
      Diags.report(diag::E_ARRAY_SHAPES, X->Loc)
          << shapeStr(T.Dims) << shapeStr(XT.Dims);
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
      Diags.report(diag::E_NAME_IS_DISTRIBUTION, E.Loc) << E.Name;
      return false;
    }
    if (const Param *Out = M.findOutput(E.Name)) {
      // The output is what the model draws (predict) or scores
      // (log-likelihood); computing from it is refused. What the user
      // meant decides the alternative, so all three are named.
      Diags.report(diag::E_OUTPUT_READ, E.Loc) << E.Name;
      Diags.report(diag::N_OUTPUT_LAG, E.Loc)
          << E.Name << dtypeName(Out->Type.Type) << Info.ObsDim;
      // With several outputs, one response may depend on another.
      if (M.Outputs.size() > 1)
        Diags.report(diag::N_OUTPUT_AFTER_SAMPLE, Out->Loc) << E.Name;
      return false;
    }
    Diags.report(diag::E_UNKNOWN_NAME, E.Loc) << E.Name;
    auto Later = LaterDefinitions.find(E.Name);
    if (Later != LaterDefinitions.end())
      Diags.report(diag::N_DEFINED_LATER, Later->second) << E.Name;
    else if (const Param *Out = M.findOutput(E.Name))
      Diags.report(diag::N_OUTPUT_USE_AFTER_SAMPLED, Out->Loc);
    return false;
  }
  const Symbol &S = It->second;
  if (S.Poisoned)
    return false;
  if (InTransformed && S.K != Symbol::Kind::Input &&
      S.K != Symbol::Kind::Const && S.K != Symbol::Kind::Transformed) {
    Diags.report(diag::E_TRANSFORMED_USES_MODEL, E.Loc)
        << E.Name << article(kindWord(S.K)) << kindWord(S.K);
    return false;
  }
  if (S.K == Symbol::Kind::Factor) {
    Diags.report(diag::E_FACTOR_AS_VALUE, E.Loc) << E.Name;
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
    Diags.report(diag::E_OPERATOR_NEEDS_NUMBERS, E.Loc)
        << Op << dtypeName(A.Type) << dtypeName(B.Type);
    return false;
  }
  if (IsEquality && (A.Type == DType::Bool) != (B.Type == DType::Bool)) {
    Diags.report(diag::E_COMPARE_BOOL_NUMBER, E.Loc)
        << Op << dtypeName(A.Type) << dtypeName(B.Type);
    return false;
  }

  if (E.Op == BinaryOp::MatMul) {
    Shape SA = A.Dims, SB = B.Dims;
    if (SA.empty() || SB.empty()) {
      Diags.report(diag::E_MATMUL_RANK0, E.Loc) << shapeStr(SA) << shapeStr(SB);
      return false;
    }
    if (SA.size() > 2 || SB.size() > 2) {
      Diags.report(diag::E_MATMUL_RANK3, E.Loc) << shapeStr(SA) << shapeStr(SB);
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
      Diags.report(diag::E_MATMUL_INNER, E.Loc)
          << K1.str() << K2.str() << shapeStr(A.Dims) << shapeStr(B.Dims);
      return false;
    }
    Shape BatchA(SA.begin(), SA.end() - 2), BatchB(SB.begin(), SB.end() - 2);
    auto Batch = broadcastShapes(BatchA, BatchB);
    if (!Batch) {
      Diags.report(diag::E_MATMUL_BATCH, E.Loc)
          << shapeStr(A.Dims) << shapeStr(B.Dims);
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
    Diags.report(diag::E_BROADCAST, E.Loc)
        << shapeStr(A.Dims) << shapeStr(B.Dims) << Op;
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
  for (const Arg &A : E.Args) {
    if (!A.Keyword.empty()) {
      Diags.report(diag::E_FUNCTION_KEYWORD, A.Loc)
          << E.Callee << (AxisFn ? " but axis=" : "");
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
    Diags.report(diag::E_FUNCTION_ARITY, E.Loc)
        << E.Callee << Want << E.Args.size();
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
  const ExprType &A = E.Args[0].Value->Ty;
  // The axis a reduction, softmax or cumsum runs along (local dims).
  bool Reduction = Fn->Family == BuiltinFamily::Reduction;
  if (AxisFn && (Axis || !Reduction)) {
    int64_t Rank = static_cast<int64_t>(A.Dims.size());
    if (!Axis && Fn->Family == BuiltinFamily::CumSum && Rank > 1) {
      Diags.report(diag::E_CUMSUM_NEEDS_AXIS, E.Loc) << shapeStr(A.Dims);
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
    Diags.report(diag::E_SD_OUTSIDE_DATA, E.Loc);
    return false;
  }
  for (const Arg &Ar : E.Args) {
    if (!isNumeric(Ar.Value->Ty.Type) &&
        !(Reduction && (Fn->Result == BuiltinResult::Sum ||
                        Fn->Result == BuiltinResult::Float))) {
      Diags.report(diag::E_FUNCTION_BOOL, Ar.Loc) << E.Callee;
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
        Diags.report(diag::E_BROADCAST, E.Loc)
            << shapeStr(Out) << shapeStr(B.Dims) << E.Callee;
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
      Diags.report(diag::E_INDEX_MIXES_SLICES, E.Loc);
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
      Diags.report(diag::E_INDEX_MIXES_AXES, E.Loc);
      return false;
    }
    if (Kept > Base.size()) {
      Diags.report(diag::E_TOO_MANY_COLONS, E.Loc) << shapeStr(Base);
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
    Diags.report(diag::E_TOO_MANY_INDICES, E.Loc)
        << shapeStr(Base) << Base.size() << E.Indices.size();
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
      Diags.report(diag::E_INDEX_NOT_INTEGER, Ix.Loc) << dtypeName(Ix.Ty.Type);
      Ok = false;
      continue;
    }
    if (auto V = literalValue(Ix); V && !Base[I].isSymbol()) {
      int64_t Extent = Base[I].Extent;
      if (*V < -Extent || *V >= Extent) {
        Diags.report(diag::E_INDEX_RANGE, Ix.Loc)
            << static_cast<int64_t>(*V) << Extent;
        Ok = false;
        continue;
      }
    }
    auto B = broadcastShapes(IndexShape, Ix.Ty.Dims);
    if (!B) {
      Diags.report(diag::E_INDEX_BROADCAST, Ix.Loc)
          << shapeStr(IndexShape) << shapeStr(Ix.Ty.Dims);
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
