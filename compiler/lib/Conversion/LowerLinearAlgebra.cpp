//===- LowerLinearAlgebra.cpp - Matrix products and Cholesky -------------===//
//
// aimz.matmul (in-order dot products over the inner dimension, blocked
// rows for X @ beta, an input's rows packed once per call), aimz.cholesky
// and aimz.inverse (the support library's, one call per matrix).
//
//===----------------------------------------------------------------------===//
#include "EntryBuilder.h"
#include "aimz/abi.h"

namespace aimz {
namespace lowering {

/// One call of support function `Name` per position of `Out`'s first `Bt`
/// dims: (K, then each of `Views` there as (pointer, s0, s1) of its last
/// `EventRank` dims), K the extent of `Out`'s last dim.
void EntryBuilder::callPerBatch(StringRef Name, const View &Out, unsigned Bt,
                                ArrayRef<const View *> Views,
                                unsigned EventRank) {
  SmallVector<Type> ArgTypes = {B->getI64Type()};
  for (size_t I = 0; I < Views.size(); ++I)
    ArgTypes.append({ptrType(), B->getI64Type(), B->getI64Type()});
  func::FuncOp Callee = runtimeFunction(Name, ArgTypes, {});
  forEach(ArrayRef<Value>(Out.Sizes).take_front(Bt), [&](ValueRange Ivs) {
    SmallVector<Value> Args = {toI64(Out.Sizes.back())};
    for (const View *V : Views)
      eventArgs(*V, Ivs, EventRank, Args);
    B->create<func::CallOp>(Loc, Callee, Args);
  });
}

/// Fn(K, in, out[, work]) per matrix of the batch; Work, when given, is
/// scratch of the result's type.
View EntryBuilder::lowerSquareMatrices(Operation *Op, Value Input,
                                       unsigned Bt, abi::SupportFamily Fn,
                                       Value WorkOffset) {
  auto T = cast<ir::ArrayType>(Op->getResult(0).getType());
  View Out = buffer(Op, T);
  View In = viewOf(Input);
  SmallVector<const View *, 3> Views = {&In, &Out};
  std::optional<View> Work;
  if (WorkOffset) {
    Work = bufferAt(WorkOffset, T);
    Views.push_back(&*Work);
  }
  callPerBatch(abi::supportFunction(Fn, "", precisionSuffix(T.getElementType())),
               Out, Bt, Views, 2);
  return Out;
}

View EntryBuilder::lowerCholesky(ir::CholeskyOp Op) {
  return lowerSquareMatrices(Op, Op.getInput(), Op.getBatchRank(),
                             abi::SupportFamily::Cholesky);
}

View EntryBuilder::lowerInverse(ir::InverseOp Op) {
  return lowerSquareMatrices(Op, Op.getInput(), Op.getBatchRank(),
                             abi::SupportFamily::Inverse,
                             CopyOffsets.lookup(Op));
}

/// sort / argsort along the last dim: (K, in, out, positions, merge
/// buffer) per vector of the batch.
View EntryBuilder::lowerSort(ir::SortOp Op) {
  auto T = Op.getResult().getType();
  View Out = buffer(Op, T);
  View In = viewOf(Op.getInput());
  auto Positions = ir::ArrayType::get(Ctx, T.getDims(), B->getI64Type());
  View P = bufferAt(CopyOffsets.lookup(Op), Positions);
  View Tmp = bufferAt(WorkOffsets.lookup(Op), Positions);
  callPerBatch(abi::supportFunction(Op.getIndices()
                                        ? abi::SupportFamily::ArgSort
                                        : abi::SupportFamily::Sort,
                                    "",
                                    elementSuffix(
                                        Op.getInput().getType().getElementType())),
               Out, Op.getBatchRank(), {&In, &Out, &P, &Tmp}, 1);
  return Out;
}

/// X @ beta inside the plate with X an input: rows of observations times a
/// vector that does not vary with them. X is the same for every draw, so
/// the call packs its rows once (aimz_rt_pack_row_tiles) and each draw's
/// product reads whole vectors (the same in-order sums, the same bits).
bool EntryBuilder::packsLeftSide(ir::MatMulOp Op, StringRef ObsDim) {
  auto LT = Op.getLhs().getType(), RT = Op.getRhs().getType();
  if (Op.getBatchRank() != 1 || LT.getRank() != 2 || RT.getRank() != 2 ||
      !isa<FloatType>(LT.getElementType()))
    return false;
  auto In = Op.getLhs().getDefiningOp<ir::InputOp>();
  auto ObsAxis = dyn_cast<StringAttr>(LT.getDims()[0]);
  if (!In || !ObsAxis || ObsAxis.getValue() != ObsDim)
    return false;
  // The right side: a value without the observation axis, broadcast along it.
  // (A broadcast constant is a scalar, not memory: the general path.)
  auto Bc = Op.getRhs().getDefiningOp<ir::BroadcastOp>();
  if (!Bc || llvm::is_contained(Bc.getDimMap(), 0))
    return false;
  Value V = Bc.getInput();
  while (auto Inner = V.getDefiningOp<ir::BroadcastOp>())
    V = Inner.getInput();
  Operation *Def = V.getDefiningOp();
  return Def && !isa<ir::ConstantOp, ir::DimOp>(Def) && !isObsOp(Def, ObsDim);
}

/// Elements of one packed block: whole tiles of 16 rows times K.
Value EntryBuilder::packedBlockElems(ir::MatMulOp Op) {
  constexpr int64_t Tile = AIMZ_ROW_TILE;
  Value Tiles = B->create<arith::DivUIOp>(
      Loc, B->create<arith::AddIOp>(Loc, ObsBlock, idx(Tile - 1)), idx(Tile));
  Value K = dimSize(Op.getLhs().getType().getDims()[1], true);
  return B->create<arith::MulIOp>(
      Loc, B->create<arith::MulIOp>(Loc, Tiles, idx(Tile)), K);
}

/// Scratch for the packed rows of the call (at least one block: the GPU
/// sizes a thread's scratch from an empty call), rounded to BufferAlign.
Value EntryBuilder::packedBytes(ir::MatMulOp Op) {
  Value Rows = B->create<arith::SubIOp>(Loc, ObsEnd, ObsBegin);
  Value Blocks = B->create<arith::MaxSIOp>(
      Loc, idx(1),
      B->create<arith::DivUIOp>(
          Loc, B->create<arith::AddIOp>(
                   Loc, Rows, B->create<arith::SubIOp>(Loc, ObsBlock, idx(1))),
          ObsBlock));
  Value Bytes = B->create<arith::MulIOp>(
      Loc, B->create<arith::MulIOp>(Loc, Blocks, packedBlockElems(Op)),
      idx(byteWidth(Op.getLhs().getType().getElementType())));
  return B->create<arith::MulIOp>(
      Loc,
      B->create<arith::DivUIOp>(
          Loc, B->create<arith::AddIOp>(Loc, Bytes, idx(BufferAlign - 1)),
          idx(BufferAlign)),
      idx(BufferAlign));
}

void EntryBuilder::emitPack(ir::MatMulOp Op) {
  auto In = Op.getLhs().getDefiningOp<ir::InputOp>();
  auto LT = In.getResult().getType();
  Type Elem = LT.getElementType();
  View X = viewOfCallArray(In.getObserved() ? FObserved : FInputs,
                           In.getIndex(), LT, false, Value(),
                           B->create<arith::SubIOp>(Loc, ObsBegin, InputOrigin));
  Value P = gep(Scratch, B->getI8Type(), toI64(PackOffsets.lookup(Op)));
  SmallVector<Type> Args(3, B->getI64Type());
  Args.append({ptrType(), B->getI64Type(), B->getI64Type(), ptrType()});
  func::FuncOp Callee = runtimeFunction(
      abi::supportFunction(abi::SupportFamily::PackRowTiles, "",
                           precisionSuffix(Elem)),
      Args, {});
  Value Rows = B->create<arith::SubIOp>(Loc, ObsEnd, ObsBegin);
  B->create<func::CallOp>(
      Loc, Callee,
      ValueRange{toI64(Rows), toI64(ObsBlock),
                 toI64(dimSize(LT.getDims()[1], true)), X.Ptr,
                 toI64(X.Strides[0]), toI64(X.Strides[1]), P});
}

View EntryBuilder::lowerMatMul(ir::MatMulOp Op) {
  auto T = Op.getResult().getType();
  auto LT = Op.getLhs().getType(), RT = Op.getRhs().getType();
  unsigned Bt = Op.getBatchRank();
  View Out = buffer(Op, T);
  View L = viewOf(Op.getLhs()), R = viewOf(Op.getRhs());
  if (Value PackOffset = PackOffsets.lookup(Op)) {
    // This block's packed rows: block (BlockStart - ObsBegin) / ObsBlock.
    Type Elem = T.getElementType();
    Value Block = B->create<arith::DivUIOp>(
        Loc, B->create<arith::SubIOp>(Loc, BlockStart, ObsBegin), ObsBlock);
    Value P = gep(gep(Scratch, B->getI8Type(), toI64(PackOffset)), Elem,
                  toI64(B->create<arith::MulIOp>(Loc, Block,
                                                packedBlockElems(Op))));
    SmallVector<Type> Args(2, B->getI64Type());
    Args.append({ptrType(), ptrType(), B->getI64Type(), ptrType(),
                 B->getI64Type()});
    func::FuncOp Callee = runtimeFunction(
        abi::supportFunction(abi::SupportFamily::RowTilesTimesVector, "",
                             precisionSuffix(Elem)),
        Args, {});
    B->create<func::CallOp>(
        Loc, Callee,
        ValueRange{toI64(BlockLen), toI64(L.Sizes[1]), P, R.Ptr,
                   toI64(R.Strides[1]), Out.Ptr, toI64(Out.Strides[0])});
    return Out;
  }
  // Materialize scalar operands (constants) is never needed: ranks >= 1.
  bool VecL = LT.getRank() - Bt == 1, VecR = RT.getRank() - Bt == 1;
  Value Zero = idx(0);
  Value M = VecL ? idx(1) : L.Sizes[Bt];
  Value K = L.Sizes[LT.getRank() - 1];
  Value N = VecR ? idx(1) : R.Sizes[Bt + 1];
  Value SAm = VecL ? Zero : L.Strides[Bt], SAk = L.Strides[LT.getRank() - 1];
  Value SBk = R.Strides[Bt], SBn = VecR ? Zero : R.Strides[Bt + 1];
  Value SCm = VecL ? Zero : Out.Strides[Bt];
  Value SCn = VecR ? Zero : Out.Strides[T.getRank() - 1];
  Type Elem = T.getElementType();
  std::string Fn = abi::supportFunction(
      abi::SupportFamily::MatMul, "",
      isa<FloatType>(Elem)
          ? precisionSuffix(Elem)
          : "i" + std::to_string(Elem.getIntOrFloatBitWidth()));
  SmallVector<Type> Args(4, B->getI64Type());
  for (int I = 0; I < 3; ++I) {
    Args.push_back(ptrType());
    Args.append(3, B->getI64Type());
  }
  func::FuncOp Callee = runtimeFunction(Fn, Args, {});
  // Loop over all batch dims but the innermost, which the runtime takes as
  // its batch (a GEMM with M * batch rows when the right side repeats).
  SmallVector<Value> Outer(Out.Sizes.begin(),
                           Out.Sizes.begin() + (Bt ? Bt - 1 : 0));
  forEach(Outer, [&](ValueRange Ivs) {
    auto Offset = [&](const View &V) {
      Value O = idx(0);
      for (auto [Iv, S] : llvm::zip(Ivs, V.Strides))
        O = B->create<arith::AddIOp>(Loc, O, B->create<arith::MulIOp>(Loc, Iv, S));
      return gep(V.Ptr, Elem, toI64(O));
    };
    Value Batch = Bt ? Out.Sizes[Bt - 1] : idx(1);
    Value SAb = Bt ? L.Strides[Bt - 1] : Zero;
    Value SBb = Bt ? R.Strides[Bt - 1] : Zero;
    Value SCb = Bt ? Out.Strides[Bt - 1] : Zero;
    SmallVector<Value> A = {toI64(Batch), toI64(M), toI64(N), toI64(K),
                            Offset(L),    toI64(SAb), toI64(SAm), toI64(SAk),
                            Offset(R),    toI64(SBb), toI64(SBk), toI64(SBn),
                            Offset(Out),  toI64(SCb), toI64(SCm), toI64(SCn)};
    B->create<func::CallOp>(Loc, Callee, A);
  });
  return Out;
}

void populateLinearAlgebraLowering(RewritePatternSet &Patterns,
                                   EntryBuilder &E) {
  addLowering<ir::MatMulOp>(Patterns, E, &EntryBuilder::lowerMatMul);
  addLowering<ir::CholeskyOp>(Patterns, E, &EntryBuilder::lowerCholesky);
  addLowering<ir::InverseOp>(Patterns, E, &EntryBuilder::lowerInverse);
  addLowering<ir::SortOp>(Patterns, E, &EntryBuilder::lowerSort);
}

} // namespace lowering
} // namespace aimz
