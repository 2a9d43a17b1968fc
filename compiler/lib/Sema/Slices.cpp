//===- Slices.cpp - NumPy's basic indexing and the transpose --------------===//
//
// `X[:, 1:]`, `beta[1:]`, `v[:K - 1]`, `X[:, 0]`, `L[-1]`, `A.T`: views of
// a value on axes other than the observation axis. Bounds are dimension
// arithmetic (integers, constants, dimension names; negative counts from
// the end); a slice's extent is a derived dimension (`K - 1`). What cannot
// be checked at compile time is checked by the runtime once the dimensions
// are bound.
//
//===----------------------------------------------------------------------===//
#include "Analyzer.h"

namespace aimz {
namespace sema {

/// Whether `E` is dimension arithmetic (checked quietly: a gather's index
/// is any integer expression).
bool Analyzer::isDimArith(const Expr &E) const {
  switch (E.K) {
  case Expr::Kind::Number:
    return static_cast<const NumberExpr &>(E).IsInteger;
  case Expr::Kind::Name: {
    const std::string &N = static_cast<const NameExpr &>(E).Name;
    auto S = Names.find(N);
    if (S != Names.end())
      return S->second.K == Symbol::Kind::Const;
    return Info.Constants.count(N) || ConstArith.count(N) ||
           (BoundSymbols.count(N) && N != Info.ObsDim);
  }
  case Expr::Kind::Unary:
    return isDimArith(*static_cast<const UnaryExpr &>(E).Operand);
  case Expr::Kind::Binary: {
    const auto &B = static_cast<const BinaryExpr &>(E);
    return (B.Op == BinaryOp::Add || B.Op == BinaryOp::Sub ||
            B.Op == BinaryOp::Mul || B.Op == BinaryOp::Div) &&
           isDimArith(*B.LHS) && isDimArith(*B.RHS);
  }
  default:
    return false;
  }
}

/// A bound along an axis of extent `Extent`: a negative constant counts
/// from the end.
static DimPoly fromEnd(DimPoly P, const DimPoly &Extent) {
  if (P.isConstant() && P.constantValue() < 0)
    P.add(Extent);
  return P;
}

/// `Lo <= V` (and `V <= Hi`) where both are known; nullopt when symbolic.
static std::optional<bool> within(const DimPoly &V, const DimPoly &Lo,
                                  const DimPoly &Hi) {
  DimPoly A = V, B = Hi;
  if (!A.add(Lo, -1) || !B.add(V, -1) || !A.isConstant() || !B.isConstant())
    return std::nullopt;
  return A.constantValue() >= 0 && B.constantValue() >= 0;
}

bool Analyzer::analyzeSlices(IndexExpr &E) {
  const Shape &Base = E.Base->Ty.Dims;
  size_t Consumed = 0;
  for (const ExprPtr &I : E.Indices) {
    auto *A = llvm::dyn_cast<AxisExpr>(I.get());
    Consumed += !(A && A->NewAxis);
  }
  if (Consumed > Base.size()) {
    Diags.report(diag::E_TOO_MANY_INDICES, E.Loc)
        << shapeStr(Base) << Base.size() << Consumed;
    return false;
  }
  E.Basic.assign(Base.size(), {Dim::known(0), false});
  Shape Out;
  size_t Ax = 0;
  for (const ExprPtr &I : E.Indices) {
    if (auto *A = llvm::dyn_cast<AxisExpr>(I.get())) {
      if (A->NewAxis)
        Out.push_back(Dim::known(1));
      else
        Out.push_back(Base[Ax++]);
      continue;
    }
    const Dim &D = Base[Ax];
    auto *Sl = llvm::dyn_cast<SliceExpr>(I.get());
    noteObservationMixing(I->Loc, D, Sl ? "this slice" : "this index");
    if (!Sl) {
      // An integer constant: the axis is indexed away.
      auto At = constantIndex(*I, D);
      if (!At)
        return false;
      E.Basic[Ax++] = {*At, true};
      continue;
    }
    bool Ok = true;
    if (!sliceAxis(*Sl, D, Ok))
      return Ok;
    E.Basic[Ax++] = {Sl->From, false};
    Out.push_back(Sl->Extent);
  }
  Out.insert(Out.end(), Base.begin() + Ax, Base.end());
  E.Ty = {E.Base->Ty.Type, Out, false};
  return true;
}

/// `x[i]` for a constant `i` along an axis of `D`: where it is, in range
/// when both are known, else checked by the runtime. Nullopt after an
/// error.
std::optional<Dim> Analyzer::constantIndex(const Expr &I, const Dim &D) {
  DimPoly Extent = polyOf(D);
  auto P = dimPoly(I, true);
  if (!P)
    return std::nullopt;
  DimPoly At = fromEnd(*P, Extent), Last = Extent;
  Last.add(DimPoly::constant(1), -1);
  if (auto Ok = within(At, DimPoly::constant(0), Last); Ok && !*Ok) {
    Diags.report(diag::E_INDEX_RANGE, I.Loc) << P->str() << D.str();
    return std::nullopt;
  }
  std::string What = "index " + P->str() + " of a dimension " + D.str();
  requireNonNegative(At, I.Loc, What);
  DimPoly Room = Last;
  Room.add(At, -1);
  requireNonNegative(Room, I.Loc, What);
  return *dimOf(At, I.Loc, true);
}

/// `x[a:b]` along an axis of `D`: its start and extent set on `Sl`, in
/// range when known, else checked by the runtime. False when the index
/// expression is done, `Ok` saying how (true after an overflow, which is
/// reported).
bool Analyzer::sliceAxis(SliceExpr &Sl, const Dim &D, bool &Ok) {
  DimPoly Extent = polyOf(D);
  std::optional<DimPoly> Start = DimPoly::constant(0), Stop = Extent;
  if (Sl.Start)
    Start = dimPoly(*Sl.Start, true);
  if (Sl.Stop)
    Stop = dimPoly(*Sl.Stop, true);
  if (!Start || !Stop)
    return Ok = false;
  DimPoly From = fromEnd(*Start, Extent), To = fromEnd(*Stop, Extent);
  DimPoly Len = To;
  if (!Len.add(From, -1)) {
    Ok = !overflow(Sl.Loc);
    return false;
  }
  std::string Text = (Sl.Start ? Start->str() : std::string()) + ":" +
                     (Sl.Stop ? Stop->str() : std::string());
  auto InRange = within(From, DimPoly::constant(0), To);
  auto EndOk = within(To, From, Extent);
  if ((InRange && !*InRange) || (EndOk && !*EndOk)) {
    Diags.report(diag::E_SLICE_RANGE, Sl.Loc) << Text << D.str();
    return Ok = false;
  }
  if (Len.isConstant() && Len.constantValue() == 0) {
    Diags.report(diag::E_SLICE_EMPTY, Sl.Loc) << Text;
    return Ok = false;
  }
  std::string What = "slice " + Text + " of a dimension " + D.str();
  DimPoly Room = Extent;
  Room.add(To, -1);
  requireNonNegative(From, Sl.Loc, What);
  requireNonNegative(Len, Sl.Loc, What);
  requireNonNegative(Room, Sl.Loc, What);
  auto L = dimOf(Len, Sl.Loc);
  if (!L)
    return Ok = false;
  Sl.From = *dimOf(From, Sl.Loc, true);
  Sl.Extent = *L;
  return true;
}

/// `x.T`: the local axes reversed (NumPy; a vector stays as it is).
bool Analyzer::analyzeAttr(AttrExpr &E) {
  if (!analyzeExpr(*E.Base))
    return false;
  if (E.Name != "T") {
    Diags.report(diag::E_UNKNOWN_ATTRIBUTE, E.Loc) << E.Name;
    return false;
  }
  // The observation axis may move: each row is still one observation's.
  Shape S = E.Base->Ty.Dims;
  std::reverse(S.begin(), S.end());
  E.Ty = {E.Base->Ty.Type, S, E.Base->Ty.WeakLiteral};
  return true;
}

} // namespace sema
} // namespace aimz
