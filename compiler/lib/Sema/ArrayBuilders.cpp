//===- ArrayBuilders.cpp - Arrays from dimensions, matrix helpers ---------===//
//
// ones(K), zeros(K, J), full(K, v), eye(K), arange(K): arrays whose shape is
// given by dimensions (integers, constants, dimension names, arithmetic);
// transpose(A), outer(a, b) and diag(v | M), the helpers factor-analysis
// and covariance code reach for. None may involve the observation axis.
//
//===----------------------------------------------------------------------===//
#include "Analyzer.h"
#include "aimz/Builtins.h"

namespace aimz {
namespace sema {

bool Analyzer::analyzeConstructor(CallExpr &E, const Builtin &Fn) {
  if (E.Args.size() < Fn.MinArgs || E.Args.size() > Fn.MaxArgs) {
    Diags.error(E.Loc, "function '" + E.Callee + "' takes " +
                           (Fn.MinArgs == Fn.MaxArgs
                                ? llvm::Twine(Fn.MinArgs) + " argument" +
                                      (Fn.MinArgs == 1 ? "" : "s")
                                : llvm::Twine(Fn.MinArgs) + " to " +
                                      llvm::Twine(Fn.MaxArgs) + " arguments") +
                           "; got " + llvm::Twine(E.Args.size()));
    return false;
  }
  bool IsFull = E.Callee == "full";
  size_t NumDims = E.Args.size() - (IsFull ? 1 : 0);
  Shape Dims;
  for (size_t I = 0; I < E.Args.size(); ++I) {
    const Arg &A = E.Args[I];
    if (!A.Keyword.empty()) {
      Diags.error(A.Loc, "function '" + E.Callee + "' takes no keyword "
                                                    "arguments");
      return false;
    }
    if (I >= NumDims)
      continue;
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
      Diags.error(V.Loc, "full's value of shape " + shapeStr(V.Ty.Dims) +
                             " does not broadcast to " + shapeStr(Dims));
      return false;
    }
    E.Ty = {V.Ty.Type, Dims, false};
    return true;
  }
  E.Ty = {E.Callee == "arange" ? DType::I64 : Info.Precision, Dims, false};
  return true;
}

/// transpose(A), outer(a, b), diag(v | M): their arguments analyzed.
bool Analyzer::analyzeMatrixHelper(CallExpr &E, const Builtin &Fn) {
  for (const Arg &A : E.Args)
    for (const Dim &D : A.Value->Ty.Dims)
      if (mixesObservations(A.Loc, D, ("'" + E.Callee + "'").c_str()))
        return false;
  const ExprType &A = E.Args[0].Value->Ty;
  switch (Fn.Family) {
  case BuiltinFamily::Transpose: {
    Shape S = A.Dims;
    std::reverse(S.begin(), S.end());
    E.Ty = {A.Type, S, A.WeakLiteral};
    return true;
  }
  case BuiltinFamily::Outer: {
    const ExprType &B = E.Args[1].Value->Ty;
    if (A.Dims.size() != 1 || B.Dims.size() != 1 || !isNumeric(A.Type) ||
        !isNumeric(B.Type)) {
      Diags.error(E.Loc, "outer needs two vectors of numbers; got shapes " +
                             shapeStr(A.Dims) + " and " + shapeStr(B.Dims));
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
    Diags.error(E.Loc, "diag needs a vector (to build a diagonal matrix) or "
                       "a square matrix (to take its diagonal); got shape " +
                           shapeStr(A.Dims));
    return false;
  default:
    llvm_unreachable("not a matrix helper");
  }
}

} // namespace sema
} // namespace aimz
