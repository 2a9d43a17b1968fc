//===- EntryBuilder.h - One entry point of a lowered aimz.model -*- C++ -*-===//
//
// Private to lib/Conversion. EntryBuilder writes one C entry point of abi.h
// for an `aimz.model`; its pieces live in one file per op family:
//
//   EntryBuilder.cpp        views, scratch, loops, the per-op dispatch
//   LowerElementwise.cpp    cast, unary, binary, select
//   LowerSites.cpp          sample, observe (log densities), copy-out
//   LowerLinearAlgebra.cpp  matmul, cholesky
//   LowerArrays.cpp         reduce, cumsum, gather, stack
//   LowerViews.cpp          slice, transpose (strided views, no copy)
//   LowerModelToLoops.cpp   the pass and the prior-predictive wrapper
//
// The loop structure it emits:
//
//   for draw in [draw_begin, draw_end):
//     <global ops: values that do not involve the observation axis>
//     for block in [obs_begin, obs_end) step obs_block:
//       <observation ops, with the observation axis cut to the block>
//
// Every array value is a strided view {pointer, sizes, strides}; broadcasts
// are views with zero strides, constants are scalars, and everything else is
// materialized in the caller's scratch buffer at offsets fixed once per call.
// Random draws and log densities call the support library (linked in as
// bitcode and inlined), addressed by (site, draw, observation, element) so
// results do not depend on how the work is split.
//
//===----------------------------------------------------------------------===//
#ifndef AIMZ_CONVERSION_ENTRYBUILDER_H
#define AIMZ_CONVERSION_ENTRYBUILDER_H

#include "aimz/Dialect/AimzDialect.h"
#include "aimz/Distributions.h"
#include "SiteDemand.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"

#include <string>

namespace aimz {
namespace lowering {

using namespace mlir;

// The prior predictive is a wrapper around Predict (buildPriorWrapper).
enum class Entry { Predict, LogLikelihood };

// Field indices of aimz_call (every field is 8 bytes).
enum CallField {
  FAbi = 0,
  FDrawBegin,
  FDrawEnd,
  FObsBegin,
  FObsEnd,
  FInputOrigin,
  FSeed,
  FDims,
  FInputs,
  FObserved,
  FPosterior,
  FResults,
  FScratch,
  FScratchBytes,
  FObsBlock,
  FScratchNeeded,
  FResultDrawOrigin,
  FResultObsOrigin,
};


inline constexpr int64_t DefaultObsBlock = 256;
/// Parameters of every scalar sampler and log density (Distributions.def);
/// unused ones are passed as 0.
inline constexpr unsigned ScalarParamSlots = 5;
inline constexpr int64_t BufferAlign = 64;

/// Parameter slots of every row sampler (a pointer and a stride each).
inline constexpr unsigned RowParamSlots = 5;

/// Parameter slots of every event sampler and log density
/// (EventDistributions.def's strided convention); unused ones are null.
inline constexpr unsigned EventParamSlots = 6;

/// "f32" or "f64": the support library's suffix for a float type.
std::string precisionSuffix(Type T);

/// How the runtime is called for a site's distribution (the verifier
/// accepted the name, so it resolves).
RuntimeCall distCall(StringRef Dist, ArrayAttr ParamNames);

/// A lowered array: either a scalar SSA value (constants and their
/// broadcasts) or a strided view of memory.
struct View {
  Value Scalar;                // set for scalars
  Value Ptr;                   // !llvm.ptr otherwise
  SmallVector<Value> Sizes;    // index
  SmallVector<Value> Strides;  // index, in elements
  Type Elem;                   // value type (i1 for bool)
};

class EntryBuilder {
public:
  EntryBuilder(ir::ModelOp Model, Entry Kind, OpBuilder &B)
      : Model(Model), Kind(Kind), B(B), Loc(Model.getLoc()),
        Ctx(Model.getContext()) {}

  func::FuncOp build(StringRef Name);

private:
  ir::ModelOp Model;
  Entry Kind;
  OpBuilder &B;
  Location Loc;
  MLIRContext *Ctx;

  Value Call;              // !llvm.ptr to aimz_call
  Value Status;            // !llvm.ptr to an i32 status slot
  Value Scratch;           // !llvm.ptr
  Value ObsBlock;          // index
  Value Draw;              // index, current absolute draw
  Value DrawBegin, ObsBegin, ObsEnd, InputOrigin, Seed; // index / i64
  Value ResultDraw0, ResultObs0; // index: absolute origin of results views
  Value BlockStart, BlockLen; // index, inside the observation loop
  SmallVector<Value> DimValues; // index, per model symbol
  DenseMap<Operation *, Value> Offsets; // scratch byte offset per buffer
  DenseMap<Value, View> Views;

  Type ptrType() { return LLVM::LLVMPointerType::get(Ctx); }
  Value idx(int64_t V) { return B.create<arith::ConstantIndexOp>(Loc, V); }
  Value i64(int64_t V) {
    return B.create<arith::ConstantIntOp>(Loc, V, 64);
  }
  Value toI64(Value V) {
    return B.create<arith::IndexCastOp>(Loc, B.getI64Type(), V);
  }
  Value toIndex(Value V) {
    return B.create<arith::IndexCastOp>(Loc, B.getIndexType(), V);
  }
  Value gep(Value Ptr, Type Elem, Value Offset) {
    return B.create<LLVM::GEPOp>(Loc, ptrType(), Elem, Ptr,
                                 ValueRange{Offset});
  }
  Value loadField(Value StructPtr, int64_t Field, Type T) {
    Value P = gep(StructPtr, B.getI64Type(), i64(Field));
    return B.create<LLVM::LoadOp>(Loc, T, P);
  }
  Value fieldIndex(int64_t Field) {
    return toIndex(loadField(Call, Field, B.getI64Type()));
  }

  static bool isObsOp(Operation *Op, StringRef ObsDim);
  Type storageType(Type T) {
    return T.isInteger(1) ? Type(B.getI8Type()) : T;
  }
  int64_t byteWidth(Type T) {
    return std::max<int64_t>(1, storageType(T).getIntOrFloatBitWidth() / 8);
  }

  Value dimSize(Attribute D, bool ForAllocation);
  Value extentOf(StringRef Text);
  SmallVector<Value> sizesOf(ir::ArrayType T, bool ForAllocation);
  int obsAxis(ir::ArrayType T);
  Value product(ArrayRef<Value> Vs);

  void planScratch(ArrayRef<Operation *> Global, ArrayRef<Operation *> Obs);
  View buffer(Operation *Op, ir::ArrayType T);
  View bufferAt(Value Offset, ir::ArrayType T);
  View viewOfCallArray(int64_t Field, int64_t Slot, ir::ArrayType T,
                       bool DrawDim, Value DrawIndex, Value ObsOffset);

  Value load(const View &V, ValueRange Ivs);
  void store(const View &V, ValueRange Ivs, Value X);
  void forEach(ArrayRef<Value> Sizes,
               function_ref<void(ValueRange)> Body);

  /// Emits `Op` with its location (the model's line) on what it creates.
  void emit(Operation *Op);
  /// emit(Op), run only when a site that needs its value is asked for
  /// (SiteDemand); not at all when no recorded site needs it.
  void emitDemanded(Operation *Op);
  /// i1: results[SiteId] is given (the caller asked for the site).
  Value siteWanted(int64_t SiteId);
  DenseMap<Operation *, SiteDemand> Demand;
  void emitOp(Operation *Op);
  void emitElementwise(Operation *Op);
  void emitStack(ir::StackOp Op);
  void emitSlice(ir::SliceOp Op);
  void emitTranspose(ir::TransposeOp Op);
  void emitIota(ir::IotaOp Op);
  Value convert(Value X, Type To);
  Value unary(ir::UnaryFn Fn, Value X);
  Value elementary(StringRef Fn, Value X);
  Value binary(ir::BinaryFn Fn, Value X, Value Y);
  Value log1mExp(Value X);
  Value logAddExp(Value X, Value Y);
  void emitSample(Operation *Op, StringRef Dist, ArrayAttr ParamNames,
                  ValueRange Params, int64_t SiteId, bool Draws,
                  bool ReadsPosterior);
  void emitLogDensity(ir::ObserveOp Op);
  /// Out[i] = aimz_rt_logp_<Symbol>(Y[i], Params[i]...) for a distribution
  /// of numbers; every view of Out's dims.
  void emitScalarLogDensities(StringRef Symbol, Type Prec, const View &Y,
                              ValueRange Params, const View &Out);
  void emitLogProb(ir::LogProbOp Op);
  void givenOr(int64_t SiteId, ir::ArrayType T, const View &Out,
               const std::function<void()> &Otherwise);
  void emitMatMul(ir::MatMulOp Op);
  void emitReduce(ir::ReduceOp Op);
  void emitCumSum(ir::CumSumOp Op);
  void emitGather(ir::GatherOp Op);
  void copyOut(Value V, int64_t SiteId);
  func::FuncOp runtimeFunction(StringRef Name, TypeRange Args,
                               TypeRange Results);
  Value siteAddressElement(ir::ArrayType T, ValueRange Ivs, Value &ObsOut);

  // Event distributions (EventDistributions.def's strided convention).
  Block *EntryBlock = nullptr;
  Value stackSlot(Type T);
  void eventArgs(const View &V, ValueRange BatchIvs, unsigned EventRank,
                 SmallVectorImpl<Value> &Args);
  void appendEventParams(ValueRange Params, ArrayRef<View> PViews,
                         ValueRange BatchIvs, unsigned BatchRank,
                         size_t NumArgs, SmallVectorImpl<Value> &Args);
  Value eventSize(const RuntimeCall &C, const View &Value0,
                  ArrayRef<View> Params, unsigned BatchRank);
  void emitEventSample(Operation *Op, const RuntimeCall &C, const View &Out,
                       ValueRange Params, int64_t SiteId, Type Prec);
  void emitEventLogDensity(ir::ObserveOp Op, const RuntimeCall &C,
                           const View &Y, const View &Out, Type Prec);
  void emitCholesky(ir::CholeskyOp Op);
  void emitRowSample(ir::ArrayType T, const View &Out, StringRef Symbol,
                     ValueRange Params, int64_t SiteId, Type Prec);
  /// The log-likelihood's type for the output: one number per value.
  ir::ArrayType logDensityType(ir::ObserveOp Op);
  DenseMap<Operation *, Value> CopyOffsets; // an observed vector's copy

  // Draw-invariant left sides of X @ beta, packed once per call
  // (LowerLinearAlgebra.cpp): the scratch offset of each packed input.
  static bool packsLeftSide(ir::MatMulOp Op, StringRef ObsDim);
  Value packedBlockElems(ir::MatMulOp Op);
  Value packedBytes(ir::MatMulOp Op);
  void emitPack(ir::MatMulOp Op);
  DenseMap<Operation *, Value> PackOffsets;
};

/// aimz_prior_predictive: aimz_predict with an all-NULL posterior table.
void buildPriorWrapper(ir::ModelOp Model, OpBuilder &B);

} // namespace lowering
} // namespace aimz

#endif // AIMZ_CONVERSION_ENTRYBUILDER_H
