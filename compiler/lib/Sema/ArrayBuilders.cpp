//===- ArrayBuilders.cpp - Arrays from dimensions, matrix helpers ---------===//
//
// ones(K), zeros(K, J), full(K, v), eye(K), arange(K): arrays whose shape is
// given by dimensions (integers, constants, dimension names, arithmetic);
// transpose(A), outer(a, b), diag(v | M) and vec_to_tril(v, R, C), the
// helpers factor-analysis and covariance code reach for. None may involve
// the observation axis.
//
//===----------------------------------------------------------------------===//
#include "Analyzer.h"
#include "aimz/Builtins.h"

namespace aimz {
namespace sema {

/// zeros_like(x), ones_like(x), full_like(x, v): x's shape and dtype (as
/// NumPy's), x itself never computed; v broadcasts to that shape.
bool Analyzer::analyzeLikeConstructor(CallExpr &E) {
  for (const Arg &A : E.Args) {
    if (!A.Keyword.empty()) {
      Diags.report(diag::E_FUNCTION_KEYWORD, A.Loc) << E.Callee << "";
      return false;
    }
    if (!analyzeExpr(*A.Value))
      return false;
    if (!isNumeric(A.Value->Ty.Type)) {
      Diags.report(diag::E_FUNCTION_BOOL, A.Loc) << E.Callee;
      return false;
    }
  }
  const Expr &X = *E.Args[0].Value;
  if (E.Args.size() == 2) {
    const Expr &V = *E.Args[1].Value;
    if (!broadcastsTo(V.Ty.Dims, X.Ty.Dims)) {
      Diags.report(diag::E_FULL_BROADCAST, V.Loc)
          << shapeStr(V.Ty.Dims) << shapeStr(X.Ty.Dims);
      return false;
    }
  }
  E.Ty = {X.Ty.Type, X.Ty.Dims, false};
  return true;
}

bool Analyzer::analyzeConstructor(CallExpr &E, const Builtin &Fn) {
  // NumPy's shape tuple, zeros((N, K)), full((K,), v): its dimensions as
  // arguments.
  if (!E.Args.empty() && E.Args[0].Keyword.empty() &&
      llvm::isa<ArrayExpr>(*E.Args[0].Value) &&
      (E.Callee == "zeros" || E.Callee == "ones" || E.Callee == "full")) {
    ExprPtr Tuple = E.Args[0].Value;
    std::vector<Arg> Args;
    for (const ExprPtr &D : llvm::cast<ArrayExpr>(*Tuple).Elements)
      Args.push_back({"", D->Loc, D});
    Args.insert(Args.end(), E.Args.begin() + 1, E.Args.end());
    E.Args = std::move(Args);
  }
  if (E.Args.size() < Fn.MinArgs || E.Args.size() > Fn.MaxArgs) {
    std::string Want = Fn.MinArgs == Fn.MaxArgs
                           ? (llvm::Twine(Fn.MinArgs) + " argument" +
                              (Fn.MinArgs == 1 ? "" : "s"))
                                 .str()
                           : (llvm::Twine(Fn.MinArgs) + " to " +
                              llvm::Twine(Fn.MaxArgs) + " arguments")
                                 .str();
    Diags.report(diag::E_FUNCTION_ARITY, E.Loc)
        << E.Callee << Want << E.Args.size();
    return false;
  }
  if (llvm::StringRef(E.Callee).ends_with("_like"))
    return analyzeLikeConstructor(E);
  bool IsFull = E.Callee == "full";
  size_t NumDims = E.Args.size() - (IsFull ? 1 : 0);
  Shape Dims;
  for (size_t I = 0; I < E.Args.size(); ++I) {
    const Arg &A = E.Args[I];
    if (!A.Keyword.empty()) {
      Diags.report(diag::E_FUNCTION_KEYWORD, A.Loc) << E.Callee << "";
      return false;
    }
    if (I >= NumDims)
      continue;
    // zeros(n), full(n, v): a value per observation, each row its own
    // (arange(n) would number the rows of a shard, eye(n) pairs them).
    if (E.Callee != "eye" && E.Callee != "arange" && isObsAxisName(*A.Value)) {
      Dims.push_back(Dim::symbol(Info.ObsDim));
      continue;
    }
    auto P = dimPoly(*A.Value, true);
    if (!P)
      return false;
    auto D = dimOf(*P, A.Loc);
    if (!D)
      return false;
    if (D->isSymbol() && !P->isSymbol())
      requireNonNegative(*P, A.Loc, "dimension '" + D->Symbol + "'");
    Dims.push_back(*D);
  }
  if (E.Callee == "eye")
    Dims.push_back(Dims.front());
  if (IsFull) {
    Expr &V = *E.Args.back().Value;
    if (!analyzeExpr(V))
      return false;
    if (!broadcastsTo(V.Ty.Dims, Dims)) {
      Diags.report(diag::E_FULL_BROADCAST, V.Loc)
          << shapeStr(V.Ty.Dims) << shapeStr(Dims);
      return false;
    }
    E.Ty = {V.Ty.Type, Dims, false};
    return true;
  }
  E.Ty = {E.Callee == "arange" ? DType::I64 : Info.Precision, Dims, false};
  return true;
}

/// transpose(A), outer(a, b), diag(v | M), cholesky(A), inverse(A): their
/// arguments analyzed.
bool Analyzer::analyzeMatrixHelper(CallExpr &E, const Builtin &Fn) {
  // transpose and outer keep each observation's values apart (a result
  // with the observation axis twice is refused by analyzeExpr); diag(M)
  // reads across rows.
  if (Fn.Family == BuiltinFamily::Diag &&
      E.Args[0].Value->Ty.Dims.size() == 2)
    for (const Arg &A : E.Args)
      for (const Dim &D : A.Value->Ty.Dims)
        noteObservationMixing(A.Loc, D, "'diag'");
  const ExprType &A = E.Args[0].Value->Ty;
  switch (Fn.Family) {
  case BuiltinFamily::Transpose: {
    Shape S = A.Dims;
    if (E.Args.size() == 1) {
      std::reverse(S.begin(), S.end());
      E.Ty = {A.Type, S, A.WeakLiteral};
      return true;
    }
    auto Perm = axesPermutation(E);
    if (!Perm)
      return false;
    for (size_t I = 0; I < Perm->size(); ++I)
      S[I] = A.Dims[(*Perm)[I]];
    E.Axes = *Perm;
    E.Ty = {A.Type, S, A.WeakLiteral};
    return true;
  }
  case BuiltinFamily::Outer: {
    const ExprType &B = E.Args[1].Value->Ty;
    if (A.Dims.size() != 1 || B.Dims.size() != 1 || !isNumeric(A.Type) ||
        !isNumeric(B.Type)) {
      Diags.report(diag::E_OUTER_SHAPES, E.Loc)
          << shapeStr(A.Dims) << shapeStr(B.Dims);
      return false;
    }
    E.Ty = {arithmeticType(A, B), {A.Dims[0], B.Dims[0]}, false};
    return true;
  }
  case BuiltinFamily::Diag:
    if (A.Dims.size() == 1) {
      E.Ty = {A.Type, {A.Dims[0], A.Dims[0]}, false};
      return true;
    }
    if (A.Dims.size() == 2 && A.Dims[0] == A.Dims[1]) {
      E.Ty = {A.Type, {A.Dims[0]}, false};
      return true;
    }
    Diags.report(diag::E_DIAG_SHAPE, E.Loc) << shapeStr(A.Dims);
    return false;
  case BuiltinFamily::Factorization: {
    const size_t R = A.Dims.size();
    if (R < 2 || A.Dims[R - 1] != A.Dims[R - 2] || !isNumeric(A.Type)) {
      Diags.report(diag::E_FACTORIZATION_SHAPE, E.Loc)
          << E.Callee << shapeStr(A.Dims) << dtypeName(A.Type);
      return false;
    }
    // Each matrix mixes its rows and columns; a batch axis does not.
    noteObservationMixing(E.Loc, A.Dims[R - 1],
                          ("'" + E.Callee + "'").c_str());
    E.Ty = {Info.Precision, A.Dims, false};
    return true;
  }
  default:
    llvm_unreachable("not a matrix helper");
  }
}

/// transpose(A, axes), swapaxes(A, i, j), moveaxis(A, source,
/// destination): result axis k is A's axis Perm[k], as NumPy defines them.
std::optional<std::vector<int64_t>> Analyzer::axesPermutation(CallExpr &E) {
  const Shape &Dims = E.Args[0].Value->Ty.Dims;
  const int64_t Rank = static_cast<int64_t>(Dims.size());
  const bool Transpose = E.Callee == "transpose";
  std::vector<int64_t> Given;
  bool Ok = true;
  for (size_t I = 1; I < E.Args.size() && Ok; ++I) {
    auto L = integerList(*E.Args[I].Value);
    Ok = L && (Transpose || L->size() == 1);
    if (Ok)
      llvm::append_range(Given, *L);
  }
  for (int64_t &A : Given) {
    Ok = Ok && A >= -Rank && A < Rank;
    A = A < 0 ? A + Rank : A;
  }
  std::vector<int64_t> Perm;
  for (int64_t I = 0; I < Rank; ++I)
    Perm.push_back(I);
  if (Ok && Transpose) {
    std::vector<int64_t> Sorted = Given;
    llvm::sort(Sorted);
    Ok = Sorted == Perm;
    Perm = Given;
  } else if (Ok && E.Callee == "swapaxes") {
    std::swap(Perm[Given[0]], Perm[Given[1]]);
  } else if (Ok) { // moveaxis
    Perm.erase(Perm.begin() + Given[0]);
    Perm.insert(Perm.begin() + Given[1], Given[0]);
  }
  if (!Ok) {
    Diags.report(diag::E_AXES_PERMUTATION, E.Loc)
        << E.Callee
        << (Transpose ? "a permutation of its axes" : "two axes in range")
        << shapeStr(Dims);
    return std::nullopt;
  }
  return Perm;
}

/// The number of entries vec_to_tril keeps in R rows of C columns with
/// diagonal K: row i keeps min(max(i + 1 + K, 0), C), in all C (C + 1) / 2
/// + (R + K - C) C once R + K >= C, which the runtime checks for a
/// run-time R.
std::optional<DimPoly> Analyzer::trilLength(const DimPoly &Rows, int64_t C,
                                            int64_t K, SMLoc RowsLoc,
                                            SMLoc Loc) {
  if (Rows.isConstant()) {
    int64_t Full = Rows.constantValue() + K; // rows whose triangle starts
    int64_t Head = std::min(std::max<int64_t>(Full, 0), C);
    int64_t Below = 0; // the rows after the triangle, C entries each
    if (Full > C && __builtin_mul_overflow(Full - C, C, &Below))
      return overflow(Loc);
    return DimPoly::constant(Head * (Head + 1) / 2 + Below);
  }
  DimPoly Tail = Rows;
  Tail.add(DimPoly::constant(K - C));
  requireNonNegative(Tail, RowsLoc,
                     "vec_to_tril's rows minus its columns" +
                         std::string(K ? " minus 1" : "") + " (" +
                         Tail.str() + ")");
  DimPoly Length = Tail;
  if (!Length.mul(DimPoly::constant(C)) ||
      !Length.add(DimPoly::constant(C * (C + 1) / 2)))
    return overflow(Loc);
  return Length;
}

/// vec_to_tril(v, R[, C][, diagonal=0|-1]): the R x C matrix whose entries
/// (i, j) with j <= i + diagonal are v's elements, row by row (NumPyro's
/// vec_to_tril_matrix for a square one; a D x K loading matrix otherwise),
/// zeros above. C must be a constant: the triangle's C (C + 1) / 2 is not
/// a dimension polynomial with integer coefficients.
bool Analyzer::analyzeVecToTril(CallExpr &E) {

  std::vector<const Arg *> Pos;
  std::optional<int64_t> Diagonal;
  for (const Arg &A : E.Args) {
    if (A.Keyword.empty()) {
      Pos.push_back(&A);
      continue;
    }
    auto V = literalValue(*A.Value);
    if (A.Keyword != "diagonal" || !V || (*V != 0 && *V != -1) || Diagonal) {
      Diags.report(diag::E_TRIL_KEYWORD, A.Loc);
      return false;
    }
    Diagonal = static_cast<int64_t>(*V);
  }
  if (Pos.size() < 2 || Pos.size() > 3) {
    Diags.report(diag::E_TRIL_ARITY, E.Loc)
        << Pos.size() << (Pos.size() == 1 ? "" : "s");
    return false;
  }
  Expr &V = *Pos[0]->Value;
  if (!analyzeExpr(V))
    return false;
  if (V.Ty.Dims.size() != 1 || !isNumeric(V.Ty.Type)) {
    Diags.report(diag::E_TRIL_VECTOR, V.Loc) << shapeStr(V.Ty.Dims);
    return false;
  }
  noteObservationMixing(V.Loc, V.Ty.Dims[0], "'vec_to_tril'");
  std::vector<DimPoly> RC;
  Shape Dims;
  for (size_t I = 1; I < Pos.size(); ++I) {
    auto P = dimPoly(*Pos[I]->Value, true);
    if (!P)
      return false;
    auto D = dimOf(*P, Pos[I]->Loc);
    if (!D)
      return false;
    RC.push_back(*P);
    Dims.push_back(*D);
  }
  if (RC.size() == 1) {
    RC.push_back(RC.front());
    Dims.push_back(Dims.front());
  }
  const int64_t K = Diagonal.value_or(0);
  const Arg &ColArg = *Pos.back();
  if (!RC[1].isConstant()) {
    Diags.report(diag::E_TRIL_COLUMNS, ColArg.Loc)
        << (RC.size() == 2 && Pos.size() == 2
                ? "; a square one of a run-time size is an LKJCholesky or "
                  "cholesky(...) factor"
                : "");
    return false;
  }
  const int64_t C = RC[1].constantValue();
  auto Length = trilLength(RC[0], C, K, Pos[1]->Loc, E.Loc);
  if (!Length)
    return false;
  if (Length->isConstant() && Length->constantValue() < 1) {
    Diags.report(diag::E_TRIL_EMPTY, E.Loc);
    return false;
  }
  if (polyOf(V.Ty.Dims[0]).Terms != Length->Terms) {
    Diags.report(diag::E_TRIL_LENGTH, V.Loc)
        << Dims[0].str() << Dims[1].str() << (K ? ", diagonal=-1" : "")
        << Length->str() << shapeStr(V.Ty.Dims);
    return false;
  }
  E.TrilDiagonal = K;
  E.Ty = {V.Ty.Type, Dims, V.Ty.WeakLiteral};
  return true;
}

} // namespace sema
} // namespace aimz
