//===- ArrayFunctions.cpp - stack, concatenate, pad, flip, repeat, ... ----===//
//
// NumPy's array manipulation as views, joins and gathers: stack and
// concatenate join their (cast, aligned) elements; pad joins constant
// blocks to each padded axis; broadcast_to is a view; flip, repeat, tile
// and take gather along their axes by index arithmetic on iota.
//
//===----------------------------------------------------------------------===//
#include "Generator.h"

namespace aimz {
namespace mlirgen {

/// The argument given for NumPy's parameter `Name` (Sema named each), or
/// null.
static const Expr *argNamed(const CallExpr &E, llvm::StringRef Name) {
  for (const Arg &A : E.Args)
    if (A.Keyword == Name)
      return A.Value.get();
  return nullptr;
}

/// A dimension's extent as an i64 scalar in the open plates.
Value Generator::extent(const Dim &D) {
  if (!D.isSymbol())
    return constant(static_cast<double>(D.Extent), DType::I64);
  Value V = B.create<ir::DimOp>(CurLoc, arrayType({}, DType::I64),
                                B.getStringAttr(D.Symbol));
  return broadcast(V, {}, inPlates({}));
}

/// `V` (local shape `Viewed`) with its axes `Gathered` indexed by
/// `Indices` (each of local shape `IndexShape`): the index block lands at
/// axis `At` of the rest, in order.
Value Generator::gatherAxes(Value V, const Shape &Viewed,
                            ArrayRef<unsigned> Gathered,
                            ArrayRef<Value> Indices, const Shape &IndexShape,
                            unsigned At, DType T) {
  SmallVector<int64_t> Order(Gathered.begin(), Gathered.end());
  Shape Moved, Rest;
  for (unsigned G : Gathered)
    Moved.push_back(Viewed[G]);
  for (size_t I = 0; I < Viewed.size(); ++I)
    if (!llvm::is_contained(Gathered, I)) {
      Order.push_back(I);
      Rest.push_back(Viewed[I]);
    }
  llvm::append_range(Moved, Rest);
  V = permuteLocal(V, Order, Moved, T);
  Shape Result = IndexShape;
  llvm::append_range(Result, Rest);
  V = B.create<ir::GatherOp>(CurLoc, arrayType(inPlates(Result), T), V,
                             Indices, B.getI64IntegerAttr(Plates.size()));
  if (At == 0)
    return V;
  const size_t IndexRank = IndexShape.size();
  SmallVector<int64_t> Back;
  Shape Out(Rest.begin(), Rest.begin() + At);
  for (size_t I = 0; I < At; ++I)
    Back.push_back(IndexRank + I);
  for (size_t I = 0; I < IndexRank; ++I)
    Back.push_back(I);
  for (size_t I = IndexRank + At; I < Result.size(); ++I)
    Back.push_back(I);
  llvm::append_range(Out, IndexShape);
  Out.insert(Out.end(), Rest.begin() + At, Rest.end());
  return permuteLocal(V, Back, Out, T);
}

Value Generator::genArrayFunction(const CallExpr &E, const Builtin &Fn) {
  const DType T = E.Ty.Type;
  const Expr &X = *E.Args[0].Value;
  if (Fn.Family == BuiltinFamily::Join) {
    const auto &List = cast<ArrayExpr>(X);
    SmallVector<Value> Parts;
    for (const ExprPtr &P : List.Elements)
      Parts.push_back(castTo(gen(*P), P->Ty.Type, T, P->Ty.Dims));
    auto Axis = B.getI64IntegerAttr(Plates.size() + E.Axes[0]);
    auto Result = arrayType(inPlates(E.Ty.Dims), T);
    if (E.Callee == "stack")
      return B.create<ir::StackOp>(CurLoc, Result, Parts, Axis);
    return B.create<ir::ConcatOp>(CurLoc, Result, Parts, Axis);
  }
  Value V = castTo(gen(X), X.Ty.Type, T, X.Ty.Dims);
  switch (Fn.Family) {
  case BuiltinFamily::Pad:
    return genPad(E, V);
  case BuiltinFamily::BroadcastTo:
    return alignLocal(V, X.Ty.Dims, E.Ty.Dims);
  default:
    return genReorder(E, V);
  }
}

/// Each padded axis in turn: constant blocks joined before and after.
Value Generator::genPad(const CallExpr &E, Value V) {
  const DType T = E.Ty.Type;
  Shape Cur = E.Args[0].Value->Ty.Dims;
  Value Fill = constant(0, T);
  if (const Expr *C = argNamed(E, "constant_values"))
    Fill = castTo(gen(*C), C->Ty.Type, T, {});
  for (size_t Ax = 0; Ax < Cur.size(); ++Ax) {
    SmallVector<Value> Parts;
    for (int Side = 0; Side < 2; ++Side) {
      const Dim &W = E.Counts[2 * Ax + Side];
      if (W == Dim::known(0))
        continue;
      Shape Block = Cur;
      Block[Ax] = W;
      Parts.insert(Side ? Parts.end() : Parts.begin(),
                   alignLocal(Fill, {}, Block));
    }
    if (Parts.empty())
      continue;
    Parts.insert(Parts.begin() + (E.Counts[2 * Ax] == Dim::known(0) ? 0 : 1),
                 V);
    Cur[Ax] = E.Ty.Dims[Ax];
    V = B.create<ir::ConcatOp>(CurLoc, arrayType(inPlates(Cur), T), Parts,
                               B.getI64IntegerAttr(Plates.size() + Ax));
  }
  return V;
}

/// flip, repeat, tile, take: one gather per axis, its index computed from
/// the result's positions (take's is given).
Value Generator::genReorder(const CallExpr &E, Value V) {
  const DType T = E.Ty.Type;
  Shape Cur = E.Args[0].Value->Ty.Dims;
  auto Bin = [&](ir::BinaryFn Fn, Value L, Value R) {
    return B.create<ir::BinaryOp>(CurLoc, L.getType(), Fn, L, R).getResult();
  };
  if (E.Callee == "take") {
    const Expr &Idx = *argNamed(E, "indices");
    return gatherAxes(V, Cur, {static_cast<unsigned>(E.Axes[0])}, {gen(Idx)},
                      Idx.Ty.Dims, E.Axes[0], T);
  }
  if (E.Callee == "tile") // leading axes of extent 1 first
    while (Cur.size() < E.Ty.Dims.size()) {
      Shape Wider = Cur;
      Wider.insert(Wider.begin(), Dim::known(1));
      V = alignLocal(V, Cur, Wider);
      Cur = Wider;
    }
  SmallVector<unsigned> Axes;
  if (E.Callee == "tile") {
    for (size_t Ax = 0; Ax < Cur.size(); ++Ax)
      if (E.Counts[Ax] != Dim::known(1))
        Axes.push_back(Ax);
  } else {
    Axes.assign(E.Axes.begin(), E.Axes.end());
  }
  for (unsigned Ax : Axes) {
    Shape Out{E.Ty.Dims[Ax]};
    Value I = iota(Out, 0);
    auto Along = [&](const Dim &D) { return alignLocal(extent(D), {}, Out); };
    Value Index;
    if (E.Callee == "flip") // n - 1 - i
      Index = Bin(ir::BinaryFn::Sub,
                  Bin(ir::BinaryFn::Sub, Along(Cur[Ax]),
                      alignLocal(constant(1, DType::I64), {}, Out)),
                  I);
    else if (E.Callee == "repeat") // i / r
      Index = Bin(ir::BinaryFn::Div, I, Along(E.Counts[0]));
    else // tile: i - (i / n) n
      Index = Bin(ir::BinaryFn::Sub, I,
                  Bin(ir::BinaryFn::Mul,
                      Bin(ir::BinaryFn::Div, I, Along(Cur[Ax])),
                      Along(Cur[Ax])));
    V = gatherAxes(V, Cur, {Ax}, {Index}, Out, Ax, T);
    Cur[Ax] = E.Ty.Dims[Ax];
  }
  return V;
}

} // namespace mlirgen
} // namespace aimz
