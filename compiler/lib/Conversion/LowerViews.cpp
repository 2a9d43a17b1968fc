//===- LowerViews.cpp - Slices, transposes and indices --------------------===//
//
// Views cost nothing at run time: a slice moves the pointer to its start and
// keeps (or drops) strides, a transpose permutes strides. A scalar (a
// broadcast constant) stays a scalar.
//
//===----------------------------------------------------------------------===//
#include "EntryBuilder.h"

namespace aimz {
namespace lowering {

void EntryBuilder::emitSlice(ir::SliceOp Op) {
  const View &In = Views.lookup(Op.getInput());
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
      Offset = B.create<arith::AddIOp>(
          Loc, Offset, B.create<arith::MulIOp>(Loc, S, In.Strides[I]));
      if (!Op.getDropped()[I])
        V.Strides.push_back(In.Strides[I]);
    }
    V.Ptr = gep(In.Ptr, storageType(In.Elem), toI64(Offset));
  }
  Views[Op.getResult()] = V;
}

void EntryBuilder::emitTranspose(ir::TransposeOp Op) {
  const View &In = Views.lookup(Op.getInput());
  View V;
  V.Elem = In.Elem;
  V.Scalar = In.Scalar;
  V.Ptr = In.Ptr;
  V.Sizes = sizesOf(Op.getResult().getType(), false);
  if (!V.Scalar)
    for (int64_t From : Op.getPermutation())
      V.Strides.push_back(In.Strides[From]);
  Views[Op.getResult()] = V;
}

/// Indices along one axis: materialized (a loop store), like any value.
void EntryBuilder::emitIota(ir::IotaOp Op) {
  auto T = Op.getResult().getType();
  View Out = buffer(Op, T);
  int64_t Axis = Op.getAxis();
  forEach(Out.Sizes, [&](ValueRange Ivs) {
    store(Out, Ivs,
          B.create<arith::IndexCastOp>(Loc, T.getElementType(), Ivs[Axis]));
  });
  Views[Op.getResult()] = Out;
}

} // namespace lowering
} // namespace aimz
