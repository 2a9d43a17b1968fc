//===- LowerArrays.cpp - Reductions, running sums, gathers, stacks -------===//
//
// Ops that move or combine elements along an axis: reduce (in element
// order, so results never depend on the split), cumsum, gather (with the
// bounds check that turns a bad index into a status) and stack.
//
//===----------------------------------------------------------------------===//
#include "EntryBuilder.h"
#include "aimz/abi.h"

#include <functional>
#include <limits>

namespace aimz {
namespace lowering {

/// Folds In's elements over the Reduced dims into Init, in element order;
/// Ivs holds the kept dims' indices and receives the reduced ones.
Value EntryBuilder::reduceNest(const Elements &In, ArrayRef<unsigned> Reduced,
                               ArrayRef<Value> InSizes,
                               SmallVectorImpl<Value> &Ivs, Value Init,
                               function_ref<Value(Value, Value)> Combine) {
  // scf.for built with iter_args has an implicit terminator we replace.
  std::function<Value(unsigned, Value)> Nest = [&](unsigned R,
                                                   Value Acc) -> Value {
    if (R == Reduced.size())
      return Combine(Acc, In(Ivs));
    auto For = B->create<scf::ForOp>(Loc, idx(0), InSizes[Reduced[R]],
                                     idx(1), ValueRange{Acc});
    OpBuilder::InsertionGuard G(*B);
    B->setInsertionPointToStart(For.getBody());
    Ivs[Reduced[R]] = For.getInductionVar();
    Value Res = Nest(R + 1, For.getRegionIterArgs()[0]);
    B->create<scf::YieldOp>(Loc, Res);
    return For.getResult(0);
  };
  return Nest(0, Init);
}

/// max, then the sum of exp(x - max) in the same element order: no
/// overflow, and -inf when every element is -inf.
void EntryBuilder::emitLogSumExp(const Elements &In,
                                 ArrayRef<unsigned> Reduced,
                                 ArrayRef<Value> InSizes,
                                 SmallVectorImpl<Value> &Ivs, Type Elem,
                                 const View &Out, ValueRange OutIvs,
                                 Type OutElem) {
  SmallVector<Value> First(Ivs.begin(), Ivs.end());
  for (unsigned D : Reduced)
    First[D] = idx(0);
  Value M = reduceNest(In, Reduced, InSizes, Ivs, In(First),
                       [&](Value A, Value X) {
                         return binary(ir::BinaryFn::Max, A, X);
                       });
  auto FConst = [&](double V) {
    return B->create<arith::ConstantOp>(Loc, B->getFloatAttr(Elem, V));
  };
  Value NegInf = FConst(-std::numeric_limits<double>::infinity());
  Value AllNegInf =
      B->create<arith::CmpFOp>(Loc, arith::CmpFPredicate::OEQ, M, NegInf);
  Value Shift = B->create<arith::SelectOp>(Loc, AllNegInf, FConst(0), M);
  Value S = reduceNest(In, Reduced, InSizes, Ivs, FConst(0),
                       [&](Value A, Value X) {
                         return B->create<arith::AddFOp>(
                             Loc, A,
                             elementary("exp", B->create<arith::SubFOp>(
                                                   Loc, X, Shift)));
                       });
  Value R = B->create<arith::AddFOp>(Loc, Shift, elementary("log", S));
  store(Out, OutIvs, convert(R, OutElem));
}

View EntryBuilder::lowerReduce(ir::ReduceOp Op) {
  auto T = Op.getResult().getType();
  auto IT = Op.getInput().getType();
  unsigned Bt = Op.getBatchRank();
  View Out = buffer(Op, T);
  // The input's elements: loaded, or computed in the loop when fused.
  Elements In = [&](ValueRange Ivs) { return elementAt(Op.getInput(), Ivs); };
  Type Elem = IT.getElementType();
  ir::ReduceFn Fn = Op.getFn();
  bool Additive = Fn == ir::ReduceFn::Sum || Fn == ir::ReduceFn::Mean;
  bool Product = Fn == ir::ReduceFn::Prod;
  SmallVector<Value> InSizes = sizesOf(IT, false);
  // The dims reduced (one `axis`, or all after the batch dims) and kept
  // (the result's, in order).
  SmallVector<unsigned> Reduced, Kept;
  for (unsigned D = 0; D < IT.getRank(); ++D) {
    bool R = Op.getAxis() ? D == *Op.getAxis() : D >= Bt;
    (R ? Reduced : Kept).push_back(D);
  }
  SmallVector<Value> KeptSizes;
  for (unsigned D : Kept)
    KeptSizes.push_back(InSizes[D]);
  hoistInvariantLeaves(Op.getInput());
  forEach(KeptSizes, [&](ValueRange OutIvs) {
    SmallVector<Value> Ivs(IT.getRank());
    for (auto [D, Iv] : llvm::zip(Kept, OutIvs))
      Ivs[D] = Iv;
    if (Fn == ir::ReduceFn::LogSumExp)
      return emitLogSumExp(In, Reduced, InSizes, Ivs, Elem, Out, OutIvs,
                           T.getElementType());
    Value Init;
    if (Additive || Product) {
      Init = scalarConstant(Elem, Product ? 1 : 0);
    } else {
      SmallVector<Value> First(Ivs);
      for (unsigned D : Reduced)
        First[D] = idx(0);
      Init = In(First);
    }
    ir::BinaryFn Combine = Additive                  ? ir::BinaryFn::Add
                           : Product                 ? ir::BinaryFn::Mul
                           : Fn == ir::ReduceFn::Min ? ir::BinaryFn::Min
                                                     : ir::BinaryFn::Max;
    Value Acc = reduceNest(In, Reduced, InSizes, Ivs, Init,
                           [&](Value A, Value X) {
                             return binary(Combine, A, X);
                           });
    if (Fn == ir::ReduceFn::Mean) {
      SmallVector<Value> Counted;
      for (unsigned D : Reduced)
        Counted.push_back(InSizes[D]);
      Value C =
          B->create<arith::SIToFPOp>(Loc, Elem, toI64(product(Counted)));
      Acc = B->create<arith::DivFOp>(Loc, Acc, C);
    }
    store(Out, OutIvs, convert(Acc, T.getElementType()));
  });
  Hoisted.clear();
  return Out;
}

/// Zero or one (or any small integer) of a float or integer type.
Value EntryBuilder::scalarConstant(Type Elem, int64_t V) {
  if (isa<FloatType>(Elem))
    return B->create<arith::ConstantOp>(Loc, B->getFloatAttr(Elem, V));
  return B->create<arith::ConstantOp>(Loc, B->getIntegerAttr(Elem, V));
}

/// Running sums (or products) along `axis`, in index order.
View EntryBuilder::lowerCumSum(ir::CumSumOp Op) {
  auto T = Op.getResult().getType();
  View Out = buffer(Op, T);
  View In = viewOf(Op.getInput());
  unsigned Axis = Op.getAxis();
  SmallVector<Value> Sizes(Out.Sizes);
  Value Len = Sizes[Axis];
  Sizes.erase(Sizes.begin() + Axis);
  Type Elem = T.getElementType();
  forEach(Sizes, [&](ValueRange Ivs) {
    SmallVector<Value> At(Ivs.begin(), Ivs.end());
    At.insert(At.begin() + Axis, Value());
    bool Product = Op.getProduct();
    auto For = B->create<scf::ForOp>(Loc, idx(0), Len, idx(1),
                                     ValueRange{scalarConstant(Elem, Product)});
    OpBuilder::InsertionGuard G(*B);
    B->setInsertionPointToStart(For.getBody());
    At[Axis] = For.getInductionVar();
    Value S = binary(Product ? ir::BinaryFn::Mul : ir::BinaryFn::Add,
                     For.getRegionIterArgs()[0], load(In, At));
    store(Out, At, S);
    B->create<scf::YieldOp>(Loc, S);
  });
  return Out;
}

View EntryBuilder::lowerGather(ir::GatherOp Op) {
  auto T = Op.getResult().getType();
  auto BT = Op.getBase().getType();
  unsigned Bt = Op.getBatchRank();
  unsigned NIdx = Op.getIndices().size();
  View Out = buffer(Op, T);
  View Base = viewOf(Op.getBase());
  SmallVector<View> Indices = viewsOf(Op.getIndices());
  unsigned Rest = BT.getRank() - Bt - NIdx;
  unsigned IdxRank = T.getRank() - Bt - Rest;
  forEach(Out.Sizes, [&](ValueRange Ivs) {
    SmallVector<Value> BaseIvs(Ivs.begin(), Ivs.begin() + Bt);
    SmallVector<Value> IdxIvs(Ivs.begin(), Ivs.begin() + Bt + IdxRank);
    for (unsigned K = 0; K < NIdx; ++K) {
      Value I = load(Indices[K], IdxIvs);
      I = toIndex(convert(I, B->getI64Type()));
      Value Size = Base.Sizes[Bt + K];
      // Anything outside [0, size) is an error, negative indices included:
      // wrapping them NumPy-style would hide 1-based off-by-one mistakes.
      Value Bad = B->create<arith::OrIOp>(
          Loc,
          B->create<arith::CmpIOp>(Loc, arith::CmpIPredicate::slt, I, idx(0)),
          B->create<arith::CmpIOp>(Loc, arith::CmpIPredicate::sge, I, Size));
      auto If = B->create<scf::IfOp>(Loc, Bad, false);
      {
        OpBuilder::InsertionGuard G(*B);
        B->setInsertionPointToStart(If.thenBlock());
        B->create<LLVM::StoreOp>(Loc, B->create<arith::ConstantIntOp>(Loc, AIMZ_INDEX_OUT_OF_RANGE, 32),
                                Status);
      }
      I = B->create<arith::SelectOp>(Loc, Bad, idx(0), I);
      BaseIvs.push_back(I);
    }
    BaseIvs.append(Ivs.begin() + Bt + IdxRank, Ivs.end());
    store(Out, Ivs, load(Base, BaseIvs));
  });
  return Out;
}

/// Elements copied into their slot along `axis`.
View EntryBuilder::lowerStack(ir::StackOp St) {
  auto T = St.getResult().getType();
  View Out = buffer(St, T);
  int64_t Axis = St.getAxis();
  for (auto [I, E] : llvm::enumerate(St.getElements())) {
    View In = viewOf(E);
    SmallVector<Value> Sizes(Out.Sizes);
    Sizes.erase(Sizes.begin() + Axis);
    forEach(Sizes, [&](ValueRange Ivs) {
      SmallVector<Value> At(Ivs.begin(), Ivs.end());
      At.insert(At.begin() + Axis, idx(I));
      store(Out, At, load(In, Ivs));
    });
  }
  return Out;
}

/// Each element copied to its offset along `axis`: the extents before it.
View EntryBuilder::lowerConcat(ir::ConcatOp Op) {
  auto T = Op.getResult().getType();
  View Out = buffer(Op, T);
  int64_t Axis = Op.getAxis();
  Value Offset = idx(0);
  for (Value E : Op.getElements()) {
    View In = viewOf(E);
    forEach(In.Sizes, [&](ValueRange Ivs) {
      SmallVector<Value> At(Ivs.begin(), Ivs.end());
      At[Axis] = B->create<arith::AddIOp>(Loc, At[Axis], Offset);
      store(Out, At, load(In, Ivs));
    });
    Offset = B->create<arith::AddIOp>(Loc, Offset, In.Sizes[Axis]);
  }
  return Out;
}

void populateArrayLowering(RewritePatternSet &Patterns, EntryBuilder &E) {
  addLowering<ir::ConcatOp>(Patterns, E, &EntryBuilder::lowerConcat);
  addLowering<ir::ReduceOp>(Patterns, E, &EntryBuilder::lowerReduce);
  addLowering<ir::CumSumOp>(Patterns, E, &EntryBuilder::lowerCumSum);
  addLowering<ir::GatherOp>(Patterns, E, &EntryBuilder::lowerGather);
  addLowering<ir::StackOp>(Patterns, E, &EntryBuilder::lowerStack);
}

} // namespace lowering
} // namespace aimz
