//===- LowerViews.cpp - Inputs, scalars, broadcasts, slices, transposes ---===//
//
// Views cost nothing at run time: an input is a view of the caller's array,
// a broadcast gives zero strides, a slice moves the pointer to its start and
// keeps (or drops) strides, a transpose permutes strides. Constants and dims
// are scalars, and a broadcast scalar stays a scalar. Only iota writes
// memory.
//
//===----------------------------------------------------------------------===//
#include "EntryBuilder.h"

namespace aimz {
namespace lowering {

/// Observation-aligned inputs start at the block's row; the others (no
/// observation axis) are whole in every call. A score-only output's
/// values are the observed array's (only the log-likelihood has them).
View EntryBuilder::lowerInput(ir::InputOp Op) {
  auto T = Op.getResult().getType();
  Value Off = obsAxis(T) >= 0
                  ? Value(B->create<arith::SubIOp>(Loc, BlockStart, InputOrigin))
                  : Value();
  return viewOfCallArray(Op.getObserved() ? FObserved : FInputs, Op.getIndex(),
                         T, false, Value(), Off);
}

View EntryBuilder::lowerConstant(ir::ConstantOp Op) {
  View V;
  V.Elem = Op.getResult().getType().getElementType();
  V.Scalar = B->create<arith::ConstantOp>(Loc, cast<TypedAttr>(Op.getValue()));
  return V;
}

/// The whole extent from the dims array (dimSize gives the block's for the
/// observation axis).
View EntryBuilder::lowerDim(ir::DimOp Op) {
  View V;
  V.Elem = B->getI64Type();
  V.Scalar = toI64(extentOf(Op.getName()));
  return V;
}

View EntryBuilder::lowerBroadcast(ir::BroadcastOp Op) {
  View In = viewOf(Op.getInput());
  auto T = Op.getResult().getType();
  View V;
  V.Elem = In.Elem;
  V.Scalar = In.Scalar;
  V.Ptr = In.Ptr;
  V.Sizes = sizesOf(T, false);
  V.Strides.assign(T.getRank(), idx(0));
  auto InT = Op.getInput().getType();
  if (!V.Scalar)
    for (auto [I, To] : llvm::enumerate(Op.getDimMap())) {
      auto D = dyn_cast<IntegerAttr>(InT.getDims()[I]);
      if (!(D && D.getInt() == 1))
        V.Strides[To] = In.Strides[I];
    }
  return V;
}

View EntryBuilder::lowerSlice(ir::SliceOp Op) {
  View In = viewOf(Op.getInput());
  View V;
  V.Elem = In.Elem;
  V.Scalar = In.Scalar;
  V.Sizes = sizesOf(Op.getResult().getType(), false);
  if (!V.Scalar) {
    Value Offset = idx(0);
    for (auto [I, Start] : llvm::enumerate(Op.getStarts())) {
      Value S = isa<IntegerAttr>(Start)
                    ? idx(cast<IntegerAttr>(Start).getInt())
                    : extentOf(cast<StringAttr>(Start).getValue());
      Offset = B->create<arith::AddIOp>(
          Loc, Offset, B->create<arith::MulIOp>(Loc, S, In.Strides[I]));
      if (!Op.getDropped()[I])
        V.Strides.push_back(In.Strides[I]);
    }
    V.Ptr = gep(In.Ptr, storageType(In.Elem), toI64(Offset));
  }
  return V;
}

View EntryBuilder::lowerTranspose(ir::TransposeOp Op) {
  View In = viewOf(Op.getInput());
  View V;
  V.Elem = In.Elem;
  V.Scalar = In.Scalar;
  V.Ptr = In.Ptr;
  V.Sizes = sizesOf(Op.getResult().getType(), false);
  if (!V.Scalar)
    for (int64_t From : Op.getPermutation())
      V.Strides.push_back(In.Strides[From]);
  return V;
}

/// Indices along one axis: materialized (a loop store), like any value.
View EntryBuilder::lowerIota(ir::IotaOp Op) {
  auto T = Op.getResult().getType();
  View Out = buffer(Op, T);
  int64_t Axis = Op.getAxis();
  forEach(Out.Sizes, [&](ValueRange Ivs) {
    store(Out, Ivs,
          B->create<arith::IndexCastOp>(Loc, T.getElementType(), Ivs[Axis]));
  });
  return Out;
}

void populateViewLowering(RewritePatternSet &Patterns, EntryBuilder &E) {
  addLowering<ir::InputOp>(Patterns, E, &EntryBuilder::lowerInput);
  addLowering<ir::ConstantOp>(Patterns, E, &EntryBuilder::lowerConstant);
  addLowering<ir::DimOp>(Patterns, E, &EntryBuilder::lowerDim);
  addLowering<ir::BroadcastOp>(Patterns, E, &EntryBuilder::lowerBroadcast);
  addLowering<ir::SliceOp>(Patterns, E, &EntryBuilder::lowerSlice);
  addLowering<ir::TransposeOp>(Patterns, E, &EntryBuilder::lowerTranspose);
  addLowering<ir::IotaOp>(Patterns, E, &EntryBuilder::lowerIota);
}

} // namespace lowering
} // namespace aimz
