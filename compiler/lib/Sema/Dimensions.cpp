//===- Dimensions.cpp - Arithmetic on dimensions -------------------------===//
//
// `K - 1`, `n_classes - 1`, `2 * J + 1`, `const K1 = K - 1;`: a dimension
// may be arithmetic on dimension names, constants and integers. It becomes
// a polynomial (DimExpr.h) whose canonical text is the dimension's symbol,
// so shapes compare exactly (`K - 1` is not `K`); the runtime evaluates the
// same text from the bound dimensions and checks it is not negative.
//
//===----------------------------------------------------------------------===//
#include "Analyzer.h"

namespace aimz {
namespace sema {

std::optional<DimPoly> Analyzer::dimPoly(const Expr &E, bool MustBeBound,
                                         unsigned Depth) {
  if (Depth > 64) {
    Diags.report(diag::E_DIM_CYCLE, E.Loc);
    return std::nullopt;
  }
  switch (E.K) {
  case Expr::Kind::Number: {
    const auto &N = static_cast<const NumberExpr &>(E);
    if (!N.IsInteger) {
      Diags.report(diag::E_DIM_NOT_INTEGER, E.Loc) << formatNumber(N.Value);
      return std::nullopt;
    }
    return DimPoly::constant(static_cast<int64_t>(N.Value));
  }
  case Expr::Kind::Name:
    return namePoly(static_cast<const NameExpr &>(E), MustBeBound, Depth);
  case Expr::Kind::Unary: {
    auto P = dimPoly(*static_cast<const UnaryExpr &>(E).Operand, MustBeBound,
                     Depth + 1);
    if (P && !P->mul(DimPoly::constant(-1)))
      return overflow(E.Loc);
    return P;
  }
  case Expr::Kind::Binary: {
    const auto &B = static_cast<const BinaryExpr &>(E);
    auto L = dimPoly(*B.LHS, MustBeBound, Depth + 1);
    auto R = dimPoly(*B.RHS, MustBeBound, Depth + 1);
    if (!L || !R)
      return std::nullopt;
    bool Ok = true;
    switch (B.Op) {
    case BinaryOp::Add:
      Ok = L->add(*R);
      break;
    case BinaryOp::Sub:
      Ok = L->add(*R, -1);
      break;
    case BinaryOp::Mul:
      Ok = L->mul(*R);
      break;
    case BinaryOp::Div:
      if (!R->isConstant() || R->constantValue() == 0 ||
          !L->divideExactly(R->constantValue())) {
        Diags.report(diag::E_DIM_INEXACT_DIVISION, E.Loc)
            << L->str() << R->str();
        return std::nullopt;
      }
      break;
    default:
      Diags.report(diag::E_DIM_BAD_OPERATOR, E.Loc) << binaryOpSpelling(B.Op);
      return std::nullopt;
    }
    if (!Ok)
      return overflow(E.Loc);
    return L;
  }
  default:
    Diags.report(diag::E_NOT_DIM_ARITH, E.Loc);
    return std::nullopt;
  }
}

std::optional<DimPoly> Analyzer::overflow(SMLoc Loc) {
  Diags.report(diag::E_DIM_OVERFLOW, Loc);
  return std::nullopt;
}

std::optional<DimPoly> Analyzer::namePoly(const NameExpr &N, bool MustBeBound,
                                          unsigned Depth) {
  if (auto C = Info.Constants.find(N.Name); C != Info.Constants.end())
    return DimPoly::constant(C->second);
  if (auto F = FunctionDims.find(N.Name); F != FunctionDims.end()) {
    if (F->second == Dim::symbol(Info.ObsDim)) {
      Diagnostics::ProvisionalScope Provisional(Diags);
      Diags.report(diag::E_OBS_AXIS_IN_DIM_ARITH, N.Loc) << Info.ObsDim;
    }
    return polyOf(F->second);
  }
  if (auto A = ConstArith.find(N.Name); A != ConstArith.end())
    return dimPoly(*A->second->Arith, MustBeBound, Depth + 1);
  if (BoundSymbols.count(N.Name)) {
    if (N.Name == Info.ObsDim) {
      // Legal in a model with a joint site, where a call sees every
      // observation (noteObservationMixing).
      Diagnostics::ProvisionalScope Provisional(Diags);
      Diags.report(diag::E_OBS_AXIS_IN_DIM_ARITH, N.Loc) << N.Name;
    }
    return DimPoly::symbol(N.Name);
  }
  auto S = Names.find(N.Name);
  if (S == Names.end() && AllowPosteriorDims && N.Name != Info.ObsDim) {
    // `[T - 1]`, `zeros(K)` in a latent's statement: K from the posterior.
    bindPosteriorDim(N.Name, N.Loc);
    return DimPoly::symbol(N.Name);
  }
  if (S != Names.end())
    Diags.report(diag::E_NOT_A_DIMENSION, N.Loc)
        << N.Name << article(kindWord(S->second.K)) << kindWord(S->second.K);
  else
    Diags.report(diag::E_UNKNOWN_DIM_IN_ARITH, N.Loc) << N.Name;
  (void)MustBeBound;
  return std::nullopt;
}

std::optional<Dim> Analyzer::dimOf(const DimPoly &P, SMLoc Loc,
                                   bool AllowZero) {
  if (P.isConstant()) {
    int64_t V = P.constantValue();
    if (V < 0 || (V == 0 && !AllowZero)) {
      Diags.report(diag::E_DIM_NOT_POSITIVE, Loc) << V;
      return std::nullopt;
    }
    return Dim::known(V);
  }
  std::string Text = P.str();
  if (!P.isSymbol() && !llvm::is_contained(Info.DimExprs, Text))
    Info.DimExprs.push_back(Text);
  return Dim::symbol(Text);
}

void Analyzer::requireNonNegative(const DimPoly &P, SMLoc Loc,
                                  const std::string &What) {
  if (P.isConstant()) {
    if (P.constantValue() < 0)
      Diags.report(diag::E_DIM_NEGATIVE, Loc) << What << P.str();
    return;
  }
  std::string Text = P.str();
  auto Same = [&](const ModelInfo::DimCheck &C) { return C.Expr == Text; };
  if (!llvm::any_of(Info.DimChecks, Same))
    Info.DimChecks.push_back({Text, What});
}

/// A shape's dimension as a polynomial (a plain symbol or known extent
/// included).
DimPoly polyOf(const Dim &D) {
  if (!D.isSymbol())
    return DimPoly::constant(D.Extent);
  if (auto P = DimPoly::parse(D.Symbol))
    return *P;
  return DimPoly::symbol(D.Symbol);
}

} // namespace sema
} // namespace aimz
