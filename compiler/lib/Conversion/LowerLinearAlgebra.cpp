//===- LowerLinearAlgebra.cpp - Matrix products and Cholesky -------------===//
//
// aimz.matmul (in-order dot products over the inner dimension, blocked
// rows for X @ beta) and aimz.cholesky (the support library's factor).
//
//===----------------------------------------------------------------------===//
#include "EntryBuilder.h"

namespace aimz {
namespace lowering {

void EntryBuilder::emitCholesky(ir::CholeskyOp Op) {
  auto T = Op.getResult().getType();
  View Out = buffer(Op, T);
  Views[Op.getResult()] = Out;
  const View &In = Views.lookup(Op.getInput());
  unsigned Bt = Op.getBatchRank();
  std::string Fn = "aimz_rt_cholesky_" + precisionSuffix(T.getElementType());
  SmallVector<Type> ArgTypes = {B.getI64Type()};
  for (int I = 0; I < 2; ++I)
    ArgTypes.append({ptrType(), B.getI64Type(), B.getI64Type()});
  func::FuncOp Callee = runtimeFunction(Fn, ArgTypes, {});
  forEach(ArrayRef<Value>(Out.Sizes).take_front(Bt), [&](ValueRange Ivs) {
    SmallVector<Value> Args = {toI64(Out.Sizes.back())};
    eventArgs(In, Ivs, 2, Args);
    eventArgs(Out, Ivs, 2, Args);
    B.create<func::CallOp>(Loc, Callee, Args);
  });
}

void EntryBuilder::emitMatMul(ir::MatMulOp Op) {
  auto T = Op.getResult().getType();
  auto LT = Op.getLhs().getType(), RT = Op.getRhs().getType();
  unsigned Bt = Op.getBatchRank();
  View Out = buffer(Op, T);
  Views[Op.getResult()] = Out;
  const View &L = Views.lookup(Op.getLhs()), &R = Views.lookup(Op.getRhs());
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
  std::string Fn = "aimz_rt_matmul_" +
                   (isa<FloatType>(Elem) ? precisionSuffix(Elem)
                                         : "i" + std::to_string(
                                                     Elem.getIntOrFloatBitWidth()));
  SmallVector<Type> Args(4, B.getI64Type());
  for (int I = 0; I < 3; ++I) {
    Args.push_back(ptrType());
    Args.append(3, B.getI64Type());
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
        O = B.create<arith::AddIOp>(Loc, O, B.create<arith::MulIOp>(Loc, Iv, S));
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
    B.create<func::CallOp>(Loc, Callee, A);
  });
}

} // namespace lowering
} // namespace aimz
