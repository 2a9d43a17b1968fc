//===- MLIRGen.cpp - Checked AST to the aimz dialect ----------------------===//
//
// Every value is built in its full shape: the open plates' dims, then its
// own. A name used inside plates is broadcast from its full shape to the
// current plates (no copy: aimz.broadcast is a view), and operands of
// elementwise operators are broadcast to the result's shape, so the ops
// below only ever see equally shaped operands.
//
//===----------------------------------------------------------------------===//
#include "aimz/MLIRGen.h"
#include "Generator.h"
#include "aimz/Builtins.h"
#include "aimz/Dialect/AimzDialect.h"
#include "aimz/Distributions.h"
#include "aimz/Manifest.h"
#include "aimz/Sema.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Verifier.h"
#include "llvm/Support/SourceMgr.h"

#include <map>

using namespace mlir;

namespace aimz {
namespace mlirgen {

Location Generator::loc(SMLoc L) {
  if (!SM || !L.isValid())
    return CurLoc;
  unsigned Buf = SM->FindBufferContainingLoc(L);
  if (!Buf)
    return CurLoc;
  auto [Line, Col] = SM->getLineAndColumn(L, Buf);
  return FileLineColLoc::get(
      B.getContext(), SM->getMemoryBuffer(Buf)->getBufferIdentifier(), Line,
      Col);
}

Type Generator::elementType(DType T) {
  switch (T) {
  case DType::F32:
    return B.getF32Type();
  case DType::F64:
    return B.getF64Type();
  case DType::I32:
    return B.getI32Type();
  case DType::I64:
    return B.getI64Type();
  case DType::Bool:
    return B.getI1Type();
  }
  return {};
}

Attribute Generator::dimAttr(const Dim &D) {
  if (D.isSymbol())
    return B.getStringAttr(D.Symbol);
  return B.getI64IntegerAttr(D.Extent);
}

ir::ArrayType Generator::arrayType(const Shape &S, DType T) {
  SmallVector<Attribute> Dims;
  for (const Dim &D : S)
    Dims.push_back(dimAttr(D));
  return ir::ArrayType::get(B.getContext(), B.getArrayAttr(Dims), elementType(T));
}

Shape Generator::inPlates(const Shape &Local) const {
  Shape S = Plates;
  S.insert(S.end(), Local.begin(), Local.end());
  return S;
}

Value Generator::broadcast(Value V, ArrayRef<int64_t> Map, const Shape &To) {
  auto T = cast<ir::ArrayType>(V.getType());
  bool Identity = Map.size() == To.size();
  for (size_t I = 0; Identity && I < Map.size(); ++I)
    Identity = Map[I] == static_cast<int64_t>(I) && T.getDims()[I] == dimAttr(To[I]);
  if (Identity)
    return V;
  SmallVector<Attribute> Dims;
  for (const Dim &D : To)
    Dims.push_back(dimAttr(D));
  auto R = ir::ArrayType::get(B.getContext(), B.getArrayAttr(Dims),
                          T.getElementType());
  return B.create<ir::BroadcastOp>(CurLoc, R, V,
                               B.getDenseI64ArrayAttr(Map));
}

/// `V` has shape Plates ++ From; returns it viewed as Plates ++ To, with
/// NumPy's right-aligned broadcasting of the local dims.
Value Generator::alignLocal(Value V, const Shape &From, const Shape &To) {
  SmallVector<int64_t> Map;
  for (size_t I = 0; I < Plates.size(); ++I)
    Map.push_back(I);
  for (size_t J = 0; J < From.size(); ++J)
    Map.push_back(Plates.size() + (To.size() - From.size()) + J);
  return broadcast(V, Map, inPlates(To));
}

Value Generator::castTo(Value V, DType From, DType To, const Shape &Local) {
  if (From == To)
    return V;
  // Literals convert at compile time.
  if (auto C = V.getDefiningOp<ir::ConstantOp>()) {
    double X;
    if (auto F = dyn_cast<FloatAttr>(C.getValue()))
      X = F.getValueAsDouble();
    else
      X = static_cast<double>(cast<IntegerAttr>(C.getValue()).getInt());
    return constant(X, To);
  }
  return B.create<ir::CastOp>(CurLoc, arrayType(inPlates(Local), To),
                          V);
}

Value Generator::constant(double V, DType T) {
  TypedAttr A;
  if (isFloat(T))
    A = B.getFloatAttr(elementType(T), V);
  else if (T == DType::Bool)
    A = B.getBoolAttr(V != 0);
  else
    A = B.getIntegerAttr(elementType(T), static_cast<int64_t>(V));
  Value C = B.create<ir::ConstantOp>(CurLoc, arrayType({}, T), A);
  return broadcast(C, {}, inPlates({}));
}

/// A named value seen from inside the open plates (Sema's view rule: each
/// open plate whose dim leads the remaining shape is stripped).
Value Generator::view(const std::string &Name) {
  Value V = Values.at(Name);
  const Shape &Full = FullShapes.at(Name);
  SmallVector<int64_t> Map;
  size_t Skip = 0;
  for (size_t P = 0; P < Plates.size(); ++P)
    if (Skip < Full.size() && Full[Skip] == Plates[P]) {
      Map.push_back(P);
      ++Skip;
    }
  Shape Local(Full.begin() + Skip, Full.end());
  for (size_t J = 0; J < Local.size(); ++J)
    Map.push_back(Plates.size() + J);
  return broadcast(V, Map, inPlates(Local));
}

Value Generator::gen(const Expr &E) {
  LocScope Scope(*this, E.Loc);
  switch (E.K) {
  case Expr::Kind::Number:
    return constant(static_cast<const NumberExpr &>(E).Value, E.Ty.Type);
  case Expr::Kind::Bool:
    return constant(static_cast<const BoolExpr &>(E).Value, DType::Bool);
  case Expr::Kind::Name: {
    const auto &N = static_cast<const NameExpr &>(E);
    auto C = Info.Constants.find(N.Name);
    if (C != Info.Constants.end())
      return constant(static_cast<double>(C->second), E.Ty.Type);
    int64_t Known;
    if (!N.DimensionText.empty() &&
        !llvm::StringRef(N.DimensionText).getAsInteger(10, Known))
      return constant(static_cast<double>(Known), E.Ty.Type);
    if (!N.DimensionText.empty()) {
      Value D = B.create<ir::DimOp>(CurLoc, arrayType({}, DType::I64),
                                    B.getStringAttr(N.DimensionText));
      return broadcast(D, {}, inPlates({}));
    }
    return view(N.Name);
  }
  case Expr::Kind::Unary: {
    const auto &U = static_cast<const UnaryExpr &>(E);
    Value V = gen(*U.Operand);
    return B.create<ir::UnaryOp>(CurLoc,
                             arrayType(inPlates(E.Ty.Dims), E.Ty.Type),
                             ir::UnaryFn::Neg, V);
  }
  case Expr::Kind::Binary:
    return genBinary(static_cast<const BinaryExpr &>(E));
  case Expr::Kind::Call:
    return genCall(static_cast<const CallExpr &>(E));
  case Expr::Kind::Index:
    return genIndex(static_cast<const IndexExpr &>(E));
  case Expr::Kind::Array: {
    // Elements cast to the array's type and broadcast to one shape.
    const auto &A = static_cast<const ArrayExpr &>(E);
    Shape Elem(E.Ty.Dims.begin() + 1, E.Ty.Dims.end());
    SmallVector<Value> Parts;
    for (const ExprPtr &X : A.Elements) {
      Value V = castTo(gen(*X), X->Ty.Type, E.Ty.Type, X->Ty.Dims);
      Parts.push_back(alignLocal(V, X->Ty.Dims, Elem));
    }
    return B.create<ir::StackOp>(CurLoc,
                                 arrayType(inPlates(E.Ty.Dims), E.Ty.Type),
                                 Parts, B.getI64IntegerAttr(Plates.size()));
  }
  case Expr::Kind::Attr:
    return genTranspose(static_cast<const AttrExpr &>(E));
  case Expr::Kind::Axis:
  case Expr::Kind::Slice:
    break; // only inside an index
  }
  return {};
}

ir::BinaryFn binaryFn(BinaryOp Op) {
  switch (Op) {
  case BinaryOp::Add:
    return ir::BinaryFn::Add;
  case BinaryOp::Sub:
    return ir::BinaryFn::Sub;
  case BinaryOp::Mul:
    return ir::BinaryFn::Mul;
  case BinaryOp::Div:
    return ir::BinaryFn::Div;
  case BinaryOp::Pow:
    return ir::BinaryFn::Pow;
  case BinaryOp::Lt:
    return ir::BinaryFn::Lt;
  case BinaryOp::Le:
    return ir::BinaryFn::Le;
  case BinaryOp::Gt:
    return ir::BinaryFn::Gt;
  case BinaryOp::Ge:
    return ir::BinaryFn::Ge;
  case BinaryOp::Eq:
    return ir::BinaryFn::Eq;
  case BinaryOp::Ne:
    return ir::BinaryFn::Ne;
  case BinaryOp::MatMul:
    break; // aimz.matmul
  }
  llvm_unreachable("not an elementwise operator");
}

Value Generator::genBinary(const BinaryExpr &E) {
  if (E.Desugared)
    return gen(*E.Desugared);
  const ExprType &TA = E.LHS->Ty, &TB = E.RHS->Ty;
  Value L = gen(*E.LHS), R = gen(*E.RHS);
  if (E.Op == BinaryOp::MatMul) {
    L = castTo(L, TA.Type, E.Ty.Type, TA.Dims);
    R = castTo(R, TB.Type, E.Ty.Type, TB.Dims);
    return B.create<ir::MatMulOp>(CurLoc,
                              arrayType(inPlates(E.Ty.Dims), E.Ty.Type), L, R,
                              B.getI64IntegerAttr(Plates.size()));
  }
  bool IsCompare = E.Op >= BinaryOp::Lt;
  DType Operand;
  if (IsCompare)
    Operand = TA.Type == DType::Bool ? DType::Bool
                                     : promoteArithmetic(TA, TB, Info.Precision);
  else
    Operand = E.Ty.Type;
  L = alignLocal(castTo(L, TA.Type, Operand, TA.Dims), TA.Dims, E.Ty.Dims);
  R = alignLocal(castTo(R, TB.Type, Operand, TB.Dims), TB.Dims, E.Ty.Dims);
  auto Op = B.create<ir::BinaryOp>(CurLoc,
                                   arrayType(inPlates(E.Ty.Dims), E.Ty.Type),
                                   binaryFn(E.Op), L, R);
  if (E.Op == BinaryOp::Pow)
    if (std::optional<int64_t> N = integerLiteral(*E.RHS))
      Op.setExponentAttr(B.getI64IntegerAttr(*N));
  return Op;
}

/// An integer literal, or its negation, exactly.
std::optional<int64_t> Generator::integerLiteral(const Expr &E) {
  if (const auto *N = llvm::dyn_cast<NumberExpr>(&E); N && N->IsInteger)
    return N->IntValue;
  if (const auto *U = llvm::dyn_cast<UnaryExpr>(&E))
    if (const auto *N = llvm::dyn_cast<NumberExpr>(U->Operand.get());
        N && N->IsInteger && N->IntValue != INT64_MIN)
      return -N->IntValue;
  return std::nullopt;
}

Value Generator::genCall(const CallExpr &E) {
  if (E.Desugared)
    return gen(*E.Desugared);
  // A statistic of the data: the runtime passes it after the inputs.
  if (E.DerivedInput >= 0) {
    const ModelInfo::DerivedInput &D = Info.DerivedInputs[E.DerivedInput];
    return B.create<ir::InputOp>(CurLoc, arrayType(inPlates(D.Dims), D.Type),
                                 D.Name, Info.Inputs.size() + E.DerivedInput);
  }
  const Builtin &Fn = *lookupBuiltin(E.Callee); // Sema checked the name
  if (Fn.Family == BuiltinFamily::Constructor)
    return genConstructor(E);
  if (Fn.Family == BuiltinFamily::LogProb)
    return genLogProb(E);
  if (Fn.Family == BuiltinFamily::VecToTril)
    return genVecToTril(E);
  if (Fn.Family == BuiltinFamily::Factorization)
    return genFactorization(E, Fn);
  if (Fn.Family == BuiltinFamily::Transpose ||
      Fn.Family == BuiltinFamily::Outer || Fn.Family == BuiltinFamily::Diag)
    return genMatrixHelper(E, Fn);
  if (Fn.Family == BuiltinFamily::Join || Fn.Family == BuiltinFamily::Pad ||
      Fn.Family == BuiltinFamily::BroadcastTo ||
      Fn.Family == BuiltinFamily::Reorder)
    return genArrayFunction(E, Fn);
  const ExprType &TA = E.Args[0].Value->Ty;
  Value A = gen(*E.Args[0].Value);
  if (Fn.Family == BuiltinFamily::Where)
    return genWhere(E, A);
  if (E.Args.size() >= 2)
    return genFoldedCall(E, Fn, A);
  auto Result = arrayType(inPlates(E.Ty.Dims), E.Ty.Type);
  // The axis of a reduction with axis=, a softmax or a cumsum, in the
  // value's full (plates ++ local) dims.
  IntegerAttr Axis = E.Axis ? B.getI64IntegerAttr(Plates.size() + *E.Axis)
                            : IntegerAttr();
  switch (Fn.Family) {
  case BuiltinFamily::Softmax:
    return genSoftmax(E, Fn, A, Axis);
  case BuiltinFamily::Sort:
    return genSort(E, Fn, A);
  case BuiltinFamily::CumSum:
    A = castTo(A, TA.Type, E.Ty.Type, TA.Dims);
    return B.create<ir::CumSumOp>(
        CurLoc, Result, A, Axis,
        E.Callee == "cumprod" ? B.getUnitAttr() : UnitAttr());
  case BuiltinFamily::Reduction: {
    DType In = Fn.Result == BuiltinResult::Float ? Info.Precision
               : TA.Type == DType::Bool          ? DType::I32
                                                 : TA.Type;
    A = castTo(A, TA.Type, In, TA.Dims);
    return B.create<ir::ReduceOp>(CurLoc, Result,
                                  reduceFn(*ir::symbolizeReduceFn(Fn.IrName)), A,
                                  B.getI64IntegerAttr(Plates.size()), Axis);
  }
  case BuiltinFamily::Elementwise:
    A = castTo(A, TA.Type, E.Ty.Type, TA.Dims);
    return B.create<ir::UnaryOp>(CurLoc, Result,
                                 *ir::symbolizeUnaryFn(Fn.IrName), A);
  case BuiltinFamily::Pair:
  case BuiltinFamily::Clip:
  case BuiltinFamily::Where:
  case BuiltinFamily::Constructor:
  case BuiltinFamily::Transpose:
  case BuiltinFamily::Outer:
  case BuiltinFamily::Diag:
  case BuiltinFamily::VecToTril:
  case BuiltinFamily::Factorization:
  case BuiltinFamily::LogProb:
  case BuiltinFamily::Join:
  case BuiltinFamily::Pad:
  case BuiltinFamily::BroadcastTo:
  case BuiltinFamily::Reorder:
    break; // handled above
  }
  llvm_unreachable("every builtin family is generated above");
}

/// where(cond, a, b): the three aligned to the result, one select. `A` is
/// the condition, already generated.
Value Generator::genWhere(const CallExpr &E, Value A) {
  auto Result = arrayType(inPlates(E.Ty.Dims), E.Ty.Type);
  auto Operand = [&](size_t I, DType To) {
    const ExprType &T = E.Args[I].Value->Ty;
    Value V = I == 0 ? A : gen(*E.Args[I].Value);
    return alignLocal(castTo(V, T.Type, To, T.Dims), T.Dims, E.Ty.Dims);
  };
  Value C = Operand(0, DType::Bool);
  Value X = Operand(1, E.Ty.Type), Y = Operand(2, E.Ty.Type);
  return B.create<ir::SelectOp>(CurLoc, Result, C, X, Y);
}

/// Elementwise over several broadcast arguments, folded left to right:
/// minimum/maximum/pow (and min/max with two arguments) are binary ops,
/// clip(x, lo, hi) = min(max(x, lo), hi). `A` is the first argument.
Value Generator::genFoldedCall(const CallExpr &E, const Builtin &Fn, Value A) {
  auto Result = arrayType(inPlates(E.Ty.Dims), E.Ty.Type);
  auto Operand = [&](size_t I) {
    const ExprType &T = E.Args[I].Value->Ty;
    Value V = I == 0 ? A : gen(*E.Args[I].Value);
    return alignLocal(castTo(V, T.Type, E.Ty.Type, T.Dims), T.Dims, E.Ty.Dims);
  };
  auto Bin = [&](ir::BinaryFn Op, Value X, Value Y) -> Value {
    return B.create<ir::BinaryOp>(CurLoc, Result, Op, X, Y);
  };
  Value X = Operand(0);
  if (Fn.Family == BuiltinFamily::Clip)
    return Bin(ir::BinaryFn::Min, Bin(ir::BinaryFn::Max, X, Operand(1)),
               Operand(2));
  return Bin(*ir::symbolizeBinaryFn(Fn.IrName), X, Operand(1));
}

/// log_softmax(x) = x - logsumexp(x) along the axis, broadcast back;
/// softmax is its exp. `A` is x, `Axis` in the full dims.
Value Generator::genSoftmax(const CallExpr &E, const Builtin &Fn, Value A,
                            IntegerAttr Axis) {
  const ExprType &TA = E.Args[0].Value->Ty;
  auto Result = arrayType(inPlates(E.Ty.Dims), E.Ty.Type);
  Value X = castTo(A, TA.Type, Info.Precision, TA.Dims);
  Shape Kept = TA.Dims;
  Kept.erase(Kept.begin() + *E.Axis);
  auto Row = arrayType(inPlates(Kept), Info.Precision);
  Value L =
      B.create<ir::ReduceOp>(CurLoc, Row, reduceFn(ir::ReduceFn::LogSumExp), X,
                             B.getI64IntegerAttr(Plates.size()), Axis);
  SmallVector<int64_t> Map;
  for (size_t I = 0; I < Plates.size() + TA.Dims.size(); ++I)
    if (I != static_cast<size_t>(Axis.getInt()))
      Map.push_back(I);
  Value LS = B.create<ir::BinaryOp>(CurLoc, Result, ir::BinaryFn::Sub, X,
                                    broadcast(L, Map, inPlates(TA.Dims)));
  if (auto Exp = ir::symbolizeUnaryFn(Fn.IrName)) // softmax
    return B.create<ir::UnaryOp>(CurLoc, Result, *Exp, LS);
  return LS;
}

/// sort / argsort along the call's axis: the axis moved last (a view),
/// sorted there, moved back.
Value Generator::genSort(const CallExpr &E, const Builtin &Fn, Value A) {
  const ExprType &TA = E.Args[0].Value->Ty;
  const int64_t Rank = static_cast<int64_t>(Plates.size() + TA.Dims.size());
  const int64_t Axis = static_cast<int64_t>(Plates.size()) + *E.Axis;
  SmallVector<int64_t> Swap;
  for (int64_t I = 0; I < Rank; ++I)
    Swap.push_back(I == Axis ? Rank - 1 : I == Rank - 1 ? Axis : I);
  auto Swapped = [&](Shape S) {
    std::swap(S[*E.Axis], S.back());
    return S;
  };
  const bool Moved = Axis != Rank - 1;
  Value V = A;
  if (Moved)
    V = B.create<ir::TransposeOp>(
        CurLoc, arrayType(inPlates(Swapped(TA.Dims)), TA.Type), V,
        B.getDenseI64ArrayAttr(Swap));
  auto Sorted = B.create<ir::SortOp>(
      CurLoc, arrayType(inPlates(Moved ? Swapped(E.Ty.Dims) : E.Ty.Dims),
                        E.Ty.Type),
      V, B.getI64IntegerAttr(Rank - 1),
      Fn.Result == BuiltinResult::Index ? B.getUnitAttr() : UnitAttr());
  if (!Moved)
    return Sorted;
  return B.create<ir::TransposeOp>(CurLoc,
                                   arrayType(inPlates(E.Ty.Dims), E.Ty.Type),
                                   Sorted, B.getDenseI64ArrayAttr(Swap));
}

/// `x.T`: the local dims reversed (the plates stay in front).
Value Generator::genTranspose(const AttrExpr &E) {
  return transposeLocal(gen(*E.Base), E.Base->Ty.Dims.size(), E.Ty);
}

Value Generator::transposeLocal(Value V, size_t Local,
                                const ExprType &Result) {
  if (Local < 2)
    return V;
  SmallVector<int64_t> Perm;
  for (size_t I = 0; I < Plates.size(); ++I)
    Perm.push_back(I);
  for (size_t I = 0; I < Local; ++I)
    Perm.push_back(Plates.size() + Local - 1 - I);
  return B.create<ir::TransposeOp>(
      CurLoc, arrayType(inPlates(Result.Dims), Result.Type), V,
      B.getDenseI64ArrayAttr(Perm));
}

/// Indices (i64) along local axis `Axis` of an array of shape `Local`.
Value Generator::iota(const Shape &Local, size_t Axis) {
  return B.create<ir::IotaOp>(CurLoc, arrayType(inPlates(Local), DType::I64),
                              B.getI64IntegerAttr(Plates.size() + Axis));
}

/// ones, zeros, full: a broadcast scalar (no memory); eye: where its two
/// indices agree; arange: the indices.
/// log_prob(Dist(...), x): the parameters in the model's precision and the
/// value, each broadcast to the result's shape.
Value Generator::genLogProb(const CallExpr &E) {
  auto Aligned = [&](const Expr &A, DType To) {
    return alignLocal(castTo(gen(A), A.Ty.Type, To, A.Ty.Dims), A.Ty.Dims,
                      E.Ty.Dims);
  };
  SmallVector<Value> Params;
  const Expr &X = *E.Args[1].Value;
  Value V;
  if (E.LogProbParamTargets.empty()) {
    for (const ExprPtr &P : E.LogProbParams)
      Params.push_back(Aligned(*P, Info.Precision));
    V = Aligned(X, X.Ty.Type);
  } else {
    // A vector distribution: parameters and value keep their event axes.
    for (size_t I = 0; I < E.LogProbParams.size(); ++I)
      Params.push_back(genDistParam(
          *E.LogProbParams[I],
          static_cast<SampleStmt::LoweredParam::Transform>(
              E.LogProbParamTransforms[I]),
          E.LogProbParamTargets[I]));
    V = alignLocal(gen(X), X.Ty.Dims, E.LogProbValueTarget);
  }
  SmallVector<StringRef> Names(E.LogProbParamNames.begin(),
                               E.LogProbParamNames.end());
  return B.create<ir::LogProbOp>(CurLoc, arrayType(inPlates(E.Ty.Dims),
                                                   Info.Precision),
                                 E.LogProbDist, B.getStrArrayAttr(Names), V,
                                 Params, E.Callee,
                                 strArray(E.LogProbValueMap));
}

Value Generator::genConstructor(const CallExpr &E) {
  const Shape &S = E.Ty.Dims;
  if (E.Callee == "arange")
    return iota(S, 0);
  if (E.Callee == "eye") {
    Value Eq = B.create<ir::BinaryOp>(CurLoc, arrayType(inPlates(S), DType::Bool),
                                      ir::BinaryFn::Eq, iota(S, 0), iota(S, 1));
    return B.create<ir::CastOp>(CurLoc, arrayType(inPlates(S), E.Ty.Type), Eq);
  }
  if (E.Callee == "full") {
    const Expr &V = *E.Args.back().Value;
    return alignLocal(gen(V), V.Ty.Dims, S);
  }
  if (E.Callee == "full_like") { // the value in the first argument's dtype
    const Expr &V = *E.Args.back().Value;
    return alignLocal(castTo(gen(V), V.Ty.Type, E.Ty.Type, V.Ty.Dims),
                      V.Ty.Dims, S);
  }
  const bool One = E.Callee == "ones" || E.Callee == "ones_like";
  return alignLocal(constant(One ? 1 : 0, E.Ty.Type), {}, S);
}

/// transpose(A), outer(a, b), diag(v): views and elementwise ops;
/// diag(M): a gather at (i, i).
Value Generator::genMatrixHelper(const CallExpr &E, const Builtin &Fn) {
  const ExprType &TA = E.Args[0].Value->Ty;
  Value A = gen(*E.Args[0].Value);
  auto Result = arrayType(inPlates(E.Ty.Dims), E.Ty.Type);
  size_t P = Plates.size();
  auto Plated = [&](std::initializer_list<int64_t> Local) {
    SmallVector<int64_t> Map;
    for (size_t I = 0; I < P; ++I)
      Map.push_back(I);
    for (int64_t L : Local)
      Map.push_back(P + L);
    return Map;
  };
  switch (Fn.Family) {
  case BuiltinFamily::Transpose: {
    if (E.Axes.empty())
      return transposeLocal(A, TA.Dims.size(), E.Ty);
    SmallVector<int64_t> Perm = Plated({});
    for (int64_t X : E.Axes)
      Perm.push_back(P + X);
    return B.create<ir::TransposeOp>(CurLoc, Result, A,
                                     B.getDenseI64ArrayAttr(Perm));
  }
  case BuiltinFamily::Outer: {
    const ExprType &TB = E.Args[1].Value->Ty;
    Value L = broadcast(castTo(A, TA.Type, E.Ty.Type, TA.Dims), Plated({0}),
                        inPlates(E.Ty.Dims));
    Value R = broadcast(
        castTo(gen(*E.Args[1].Value), TB.Type, E.Ty.Type, TB.Dims),
        Plated({1}), inPlates(E.Ty.Dims));
    return B.create<ir::BinaryOp>(CurLoc, Result, ir::BinaryFn::Mul, L, R);
  }
  case BuiltinFamily::Diag: {
    if (TA.Dims.size() == 2) {
      Value I = iota({TA.Dims[0]}, 0);
      return B.create<ir::GatherOp>(CurLoc, Result, A, ValueRange{I, I},
                                    B.getI64IntegerAttr(P));
    }
    const Shape &S = E.Ty.Dims;
    Value Eq = B.create<ir::BinaryOp>(CurLoc, arrayType(inPlates(S), DType::Bool),
                                      ir::BinaryFn::Eq, iota(S, 0), iota(S, 1));
    Value Row = broadcast(A, Plated({1}), inPlates(S));
    return B.create<ir::SelectOp>(CurLoc, Result, Eq, Row,
                                  alignLocal(constant(0, E.Ty.Type), {}, S));
  }
  default:
    llvm_unreachable("not a matrix helper");
  }
}

/// cholesky(A), inverse(A): the support library's, per matrix of the
/// batch (the plates and the argument's leading axes).
Value Generator::genFactorization(const CallExpr &E, const Builtin &Fn) {
  const ExprType &TA = E.Args[0].Value->Ty;
  Value A = castTo(gen(*E.Args[0].Value), TA.Type, E.Ty.Type, TA.Dims);
  auto Result = arrayType(inPlates(E.Ty.Dims), E.Ty.Type);
  auto Batch = B.getI64IntegerAttr(Plates.size() + TA.Dims.size() - 2);
  if (Fn.IrName == "cholesky")
    return B.create<ir::CholeskyOp>(CurLoc, Result, A, Batch);
  return B.create<ir::InverseOp>(CurLoc, Result, A, Batch);
}

/// vec_to_tril(v, R, C): a gather of v at each kept (i, j), zeros above.
/// Row i starts at T(min(i + k, C)) + max(i + k - C, 0) C, with T(m) =
/// m (m + 1) / 2 (taken in f64: exact for any C that fits in memory) and k
/// the diagonal (0 or -1); an entry above it gathers v[0] and is dropped.
Value Generator::genVecToTril(const CallExpr &E) {
  const Shape &S = E.Ty.Dims;
  const int64_t C = S[1].Extent, K = E.TrilDiagonal;
  const Expr &VArg = *E.Args[0].Value;
  Value V = gen(VArg);
  auto I64 = arrayType(inPlates(S), DType::I64);
  auto F64 = arrayType(inPlates(S), DType::F64);
  auto Bin = [&](ir::BinaryFn Fn, Value L, Value R, Type T = Type()) {
    return B.create<ir::BinaryOp>(CurLoc, T ? T : L.getType(), Fn, L, R)
        .getResult();
  };
  auto Int = [&](int64_t X) { return alignLocal(constant(X, DType::I64), {}, S); };
  Value I = iota(S, 0), J = iota(S, 1);
  Value IK = Bin(ir::BinaryFn::Add, I, Int(K));
  Value M = Bin(ir::BinaryFn::Min, IK, Int(C));
  Value MF = B.create<ir::CastOp>(CurLoc, F64, M);
  Value T = Bin(ir::BinaryFn::Mul, MF,
                Bin(ir::BinaryFn::Add, MF,
                    alignLocal(constant(1, DType::F64), {}, S)));
  T = Bin(ir::BinaryFn::Mul, T, alignLocal(constant(0.5, DType::F64), {}, S));
  Value Row = Bin(ir::BinaryFn::Add, B.create<ir::CastOp>(CurLoc, I64, T),
                  Bin(ir::BinaryFn::Mul,
                      Bin(ir::BinaryFn::Max,
                          Bin(ir::BinaryFn::Sub, IK, Int(C)), Int(0)),
                      Int(C)));
  Value Kept = Bin(ir::BinaryFn::Le, J, IK,
                   arrayType(inPlates(S), DType::Bool));
  Value Index = B.create<ir::SelectOp>(CurLoc, I64, Kept,
                                       Bin(ir::BinaryFn::Add, Row, J), Int(0));
  auto Result = arrayType(inPlates(S), E.Ty.Type);
  Value G = B.create<ir::GatherOp>(CurLoc, Result, V, ValueRange{Index},
                                   B.getI64IntegerAttr(Plates.size()));
  return B.create<ir::SelectOp>(CurLoc, Result, Kept, G,
                                alignLocal(constant(0, E.Ty.Type), {}, S));
}

int64_t Generator::siteId(const std::string &Name) const {
  for (size_t I = 0; I < Info.Sites.size(); ++I)
    if (Info.Sites[I].Name == Name)
      return I;
  return -1;
}

ArrayAttr Generator::plateNames() { return strArray(PlateNames); }

ArrayAttr Generator::strArray(ArrayRef<std::string> Words) {
  SmallVector<StringRef> Refs(Words.begin(), Words.end());
  return B.getStrArrayAttr(Refs);
}

/// A distribution's parameter in the model's precision, transformed as
/// its runtime row takes it, broadcast to `Target`.
Value Generator::genDistParam(const Expr &P, SampleStmt::LoweredParam::Transform Fn,
                              const Shape &Target) {
  const ExprType &Ty = P.Ty;
  Value V = castTo(gen(P), Ty.Type, Info.Precision, Ty.Dims);
  auto Local = arrayType(inPlates(Ty.Dims), Info.Precision);
  using T = SampleStmt::LoweredParam::Transform;
  if (Fn == T::Log) // Categorical probs as mixing logits
    V = B.create<ir::UnaryOp>(CurLoc, Local, ir::UnaryFn::Log, V);
  if (Fn != T::Cholesky && Fn != T::CholeskyOfInverse)
    return alignLocal(V, Ty.Dims, Target);
  auto Batch = B.getI64IntegerAttr(Plates.size() + Ty.Dims.size() - 2);
  if (Fn == T::CholeskyOfInverse) { // rate_matrix as scale_tril
    // The elimination's rounding is not symmetric; the factor asks for a
    // symmetric matrix: (A^-1 + A^-T) / 2.
    V = B.create<ir::InverseOp>(CurLoc, Local, V, Batch);
    SmallVector<int64_t> Swap;
    for (int64_t I = 0, R = Local.getRank(); I < R; ++I)
      Swap.push_back(I < R - 2 ? I : 2 * R - 3 - I);
    Value VT = B.create<ir::TransposeOp>(CurLoc, Local, V,
                                         B.getDenseI64ArrayAttr(Swap));
    V = B.create<ir::BinaryOp>(CurLoc, Local, ir::BinaryFn::Add, V, VT);
    V = B.create<ir::BinaryOp>(
        CurLoc, Local, ir::BinaryFn::Mul, V,
        alignLocal(constant(0.5, Info.Precision), {}, Ty.Dims));
  }
  // covariance_matrix, scale_matrix as scale_tril
  V = B.create<ir::CholeskyOp>(CurLoc, Local, V, Batch);
  return alignLocal(V, Ty.Dims, Target);
}

void Generator::genSample(const SampleStmt &S) {
  SmallVector<Value> Params;
  SmallVector<StringRef> ParamNames;
  for (const SampleStmt::LoweredParam &P : S.Lowered) {
    Params.push_back(genDistParam(*P.Value, P.Fn, P.Target));
    ParamNames.push_back(P.Name);
  }
  const Site *Si = Info.findSite(S.Name);
  Shape Full = inPlates(S.OwnShape);
  Value R;
  if (Si->Kind == SiteKind::Observed)
    R = B.create<ir::ObserveOp>(CurLoc, arrayType(Full, Si->Type),
                            S.Name, siteId(S.Name), S.LoweredDist,
                            B.getStrArrayAttr(ParamNames), plateNames(),
                            static_cast<uint64_t>(Info.outputIndex(S.Name)),
                            Params, strArray(S.ValueMap));
  else
    R = B.create<ir::SampleOp>(CurLoc, arrayType(Full, Si->Type),
                           S.Name, siteId(S.Name), S.LoweredDist,
                           B.getStrArrayAttr(ParamNames),
                           siteClassName(Si->Class), plateNames(), Params,
                           strArray(S.ValueMap));
  Values[S.Name] = R;
  FullShapes[S.Name] = Full;
}

void Generator::genStmt(const Stmt &S) {
  LocScope Scope(*this, S.Loc);
  switch (S.K) {
  case Stmt::Kind::Const:
    return;
  case Stmt::Kind::Factor: {
    const auto &A = static_cast<const AssignStmt &>(S);
    const ExprType &T = A.Value->Ty;
    Value V = castTo(gen(*A.Value), T.Type, Info.Precision, T.Dims);
    B.create<ir::FactorOp>(CurLoc, V.getType(), A.Name,
                           siteId(A.Name), plateNames(), V);
    return;
  }
  case Stmt::Kind::Let:
  case Stmt::Kind::Transformed:
  case Stmt::Kind::Deterministic: {
    const auto &A = static_cast<const AssignStmt &>(S);
    Value V = gen(*A.Value);
    Shape Full = inPlates(A.Value->Ty.Dims);
    if (S.K == Stmt::Kind::Deterministic)
      V = B.create<ir::DeterministicOp>(CurLoc, V.getType(), A.Name,
                                    siteId(A.Name), plateNames(), V);
    Values[A.Name] = V;
    FullShapes[A.Name] = Full;
    return;
  }
  case Stmt::Kind::Sample:
    genSample(static_cast<const SampleStmt &>(S));
    return;
  case Stmt::Kind::Plate:
  case Stmt::Kind::Scan: {
    const auto &Bl = static_cast<const BlockStmt &>(S);
    Plates.push_back(Bl.Resolved);
    PlateNames.push_back(Bl.Name);
    for (const StmtPtr &C : Bl.Body)
      genStmt(*C);
    Plates.pop_back();
    PlateNames.pop_back();
    return;
  }
  }
}

OwningOpRef<ModuleOp> Generator::run() {
  CurLoc = loc(M.NameLoc);
  OwningOpRef<ModuleOp> Module = ModuleOp::create(CurLoc);
  B.setInsertionPointToEnd(Module->getBody());
  SmallVector<StringRef> Symbols(Info.Symbols.begin(), Info.Symbols.end());
  auto Model = B.create<ir::ModelOp>(
      CurLoc, Info.Name, Info.ObsDim, planName(Info.ChosenPlan),
      B.getStrArrayAttr(Symbols), manifestJSON(Info),
      Info.JointObservations);
  Block *Body = new Block();
  Model.getBody().push_back(Body);
  B.setInsertionPointToStart(Body);
  genInputs();
  for (const Site &S : Info.Sites)
    if (S.ScoreOnly) {
      Values[S.Name] = B.create<ir::InputOp>(
          CurLoc, arrayType(S.Dims, S.Type), S.Name,
          static_cast<uint64_t>(Info.outputIndex(S.Name)), /*observed=*/true);
      FullShapes[S.Name] = S.Dims;
    }
  for (const StmtPtr &S : M.Body)
    genStmt(*S);
  B.setInsertionPointToEnd(Module->getBody());
  genPrepass();
  if (failed(verify(*Module))) {
    Module->emitError("internal error: the generated aimz module is invalid");
    return nullptr;
  }
  return Module;
}

void Generator::genInputs() {
  for (size_t I = 0; I < Info.Inputs.size(); ++I) {
    const TypedArray &In = Info.Inputs[I];
    Values[In.Name] = B.create<ir::InputOp>(
        I < M.Inputs.size() ? loc(M.Inputs[I].Loc) : CurLoc,
        arrayType(In.Dims, In.Type), In.Name, I);
    FullShapes[In.Name] = In.Dims;
  }
}

/// The transformed statements, then each argument as a deterministic
/// result: the runtime calls it over every observation, one draw, before
/// the run, and reduces the rows in a fixed order (DerivedInputs.cpp).
void Generator::genPrepass() {
  if (llvm::none_of(Info.DerivedInputs, [](const ModelInfo::DerivedInput &D) {
        return D.Argument != nullptr;
      }))
    return;
  SmallVector<StringRef> Symbols(Info.Symbols.begin(), Info.Symbols.end());
  auto Model = B.create<ir::ModelOp>(
      CurLoc, "prepass", Info.ObsDim, planName(Plan::Obs),
      B.getStrArrayAttr(Symbols), "", /*joint_observations=*/false);
  Block *Body = new Block();
  Model.getBody().push_back(Body);
  OpBuilder::InsertionGuard G(B);
  B.setInsertionPointToStart(Body);
  Values.clear();
  FullShapes.clear();
  genInputs();
  for (const StmtPtr &S : M.Body)
    if (S->K == Stmt::Kind::Transformed)
      genStmt(*S);
  for (const ModelInfo::DerivedInput &D : Info.DerivedInputs) {
    if (!D.Argument)
      continue;
    LocScope Scope(*this, D.Argument->Loc);
    Value V = gen(*D.Argument);
    B.create<ir::DeterministicOp>(CurLoc, V.getType(), D.Name,
                                  D.ArgumentSlot, plateNames(), V);
  }
}

} // namespace mlirgen

OwningOpRef<ModuleOp> generateMLIR(MLIRContext &Ctx, const Model &M,
                                   const ModelInfo &Info,
                                   const llvm::SourceMgr *SM) {
  Ctx.getOrLoadDialect<ir::AimzDialect>();
  return mlirgen::Generator(Ctx, M, Info, SM).run();
}

} // namespace aimz
