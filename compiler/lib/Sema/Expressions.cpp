//===- Expressions.cpp - Types and shapes of expressions -----------------===//
//
// Each expression gets its dtype and symbolic shape as seen inside the
// open plates: literals adapt to their typed peers, operands broadcast as
// in NumPy, builtins follow their family's rule (Calls.cpp), and nothing
// may mix observations.
//
//===----------------------------------------------------------------------===//
#include "Analyzer.h"
#include "aimz/Builtins.h"

namespace aimz {
namespace sema {

/// Each observation must be computable from its own row: an operation that
/// contracts, reduces or indexes along the observation axis would make a
/// shard's result depend on other shards' data. Unless the model has a
/// joint site (then a draw sees every observation at once): the error is
/// provisional until the sites are known, and analysis goes on as if the
/// use were legal. After a reduction of an input (`Reduced`), a note says
/// that transformed data can compute it.
void Analyzer::noteObservationMixing(SMLoc Loc, const Dim &D,
                                     const char *What,
                                     const CallExpr *Reduced) {
  if (D != Dim::symbol(Info.ObsDim))
    return;
  Diagnostics::ProvisionalScope Provisional(Diags);
  Diags.report(diag::E_MIXES_OBSERVATIONS, Loc) << What << Info.ObsDim;
  if (Reduced)
    noteTransformedData(*Reduced);
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

/// How many times a value of local shape `S` has the observation axis,
/// the open plate over it included.
size_t Analyzer::obsAxisCount(const Shape &S) const {
  Dim Obs = Dim::symbol(Info.ObsDim);
  return llvm::count(S, Obs) + llvm::any_of(Blocks, [&](const OpenBlock &B) {
           return B.D == Obs;
         });
}

/// `n`, the observation axis' name, as a constructor's argument.
bool Analyzer::isObsAxisName(const Expr &E) const {
  const auto *N = llvm::dyn_cast<NameExpr>(&E);
  if (!N || Names.count(N->Name))
    return false;
  if (auto F = FunctionDims.find(N->Name); F != FunctionDims.end())
    return F->second == Dim::symbol(Info.ObsDim);
  return N->Name == Info.ObsDim;
}

/// The rule on rows: a value may have the observation axis anywhere
/// (`beta[:, jj]` is [K, n]) but once; twice pairs observations (`x[:, None]
/// - x[None, :]`), legal only with a joint site. Reported where it starts.
bool Analyzer::analyzeExpr(Expr &E) {
  if (!analyzeNode(E))
    return false;
  if (Info.ObsDim.empty() || obsAxisCount(E.Ty.Dims) < 2)
    return true;
  bool Inherited = false;
  forEachChild(E, [&](const ExprPtr &C) {
    Inherited |= C && obsAxisCount(C->Ty.Dims) >= 2;
  });
  if (!Inherited) {
    Diagnostics::ProvisionalScope Provisional(Diags);
    Diags.report(diag::E_OBS_AXIS_TWICE, E.Loc)
        << shapeStr(E.Ty.Dims) << Info.ObsDim;
  }
  return true;
}

bool Analyzer::analyzeNode(Expr &E) {
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
        << (static_cast<AxisExpr &>(E).Ellipsis  ? "..."
            : static_cast<AxisExpr &>(E).NewAxis ? "None"
                                                 : ":");
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
  if (auto F = FunctionDims.find(E.Name); F != FunctionDims.end()) {
    // A function's dimension name: the extent its call bound.
    E.Ty = {DType::I64, {}, true};
    E.DimensionText = F->second.str();
    return true;
  }
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
  if (S.K == Symbol::Kind::ScoreOnly) {
    noteScoreOnlyRead(E.Name, S.Dims);
    StmtReadsScoreOnly = E.Name;
  } else if (!S.ReadsScoreOnly.empty()) {
    StmtReadsScoreOnly = S.ReadsScoreOnly;
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
  // [K, n] read inside the plate over n: its rows are not observations.
  if (mentions(E.Ty.Dims, Info.ObsDim) &&
      llvm::any_of(Blocks, [&](const OpenBlock &B) {
        return B.D == Dim::symbol(Info.ObsDim);
      })) {
    Diags.report(diag::E_OBS_AXIS_NOT_FIRST_IN_PLATE, E.Loc)
        << E.Name << shapeStr(S.Dims) << Info.ObsDim;
    return false;
  }
  return true;
}

/// `a @ b`: NumPy's matmul for ranks 1 and 2 (a vector is a row on the
/// left, a column on the right); the contracted axis may not be the
/// observation axis, except in transformed data (analyzeDataMatMul).
bool Analyzer::analyzeMatMul(BinaryExpr &E) {
  const ExprType &A = E.LHS->Ty, &B = E.RHS->Ty;
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
  noteObservationMixing(E.Loc, K1, "this matrix product");
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

bool Analyzer::analyzeBinary(BinaryExpr &E) {
  // A product over the observation axis in transformed data is rewritten
  // from the operands' syntax (analysis changes the nodes).
  ExprPtr SyntaxL, SyntaxR;
  if (E.Op == BinaryOp::MatMul && InTransformed) {
    SyntaxL = cloneExpr(*E.LHS);
    SyntaxR = cloneExpr(*E.RHS);
  }
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

  if (E.Op == BinaryOp::MatMul && SyntaxL && A.Dims.size() <= 2 &&
      B.Dims.size() <= 2 && !A.Dims.empty() && !B.Dims.empty() &&
      A.Dims.back() == Dim::symbol(Info.ObsDim) &&
      B.Dims.front() == Dim::symbol(Info.ObsDim))
    return analyzeDataMatMul(E, SyntaxL, SyntaxR);
  if (E.Op == BinaryOp::MatMul)
    return analyzeMatMul(E);

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

} // namespace sema
} // namespace aimz
