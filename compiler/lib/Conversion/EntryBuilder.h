//===- EntryBuilder.h - One entry point of a lowered aimz.model -*- C++ -*-===//
//
// Private to lib/Conversion. EntryBuilder writes one C entry point of abi.h
// for an `aimz.model` in two steps:
//
//  1. The frame (EntryBuilder.cpp): the function, the ABI check, the call's
//     fields, the scratch plan and the loops, with the model's ops cloned
//     into them:
//
//       for draw in [draw_begin, draw_end):
//         <global ops: values that do not involve the observation axis>
//         for block in [obs_begin, obs_end) step obs_block:
//           <observation ops, with the observation axis cut to the block>
//
//     A model with a joint site (the observation axis as an event axis) has
//     no block loop: every op runs once per draw over all observations.
//
//  2. The ops (a dialect conversion): every aimz op is rewritten in place by
//     its family's OpConversionPatterns, one file per family:
//
//       LowerViews.cpp          input, constant, dim, broadcast, slice,
//                               transpose, iota (views; no copy but iota)
//       LowerElementwise.cpp    cast, unary, binary, select
//       LowerSites.cpp          sample, observe, factor, deterministic,
//                               log_prob; copy-out to the results
//       LowerLinearAlgebra.cpp  matmul, cholesky
//       LowerArrays.cpp         reduce, cumsum, gather, stack
//
//     LowerModelToLoops.cpp holds the pass and the prior-predictive wrapper.
//
// Every array value is a strided view {pointer, sizes, strides}; broadcasts
// are views with zero strides, constants are scalars, and everything else is
// materialized in the caller's scratch buffer at offsets fixed once per call.
// A lowered value travels through the rewriter's mapping as an
// `unrealized_conversion_cast` of the view's parts to the op's own type
// (MLIR's idiom for a value that becomes several): a pattern reads its
// operands' views back from those casts (viewOf), and the casts, unused once
// every op is rewritten, are erased at the end.
//
// Random draws and log densities call the support library (linked in as
// bitcode and inlined), addressed by (site, draw, observation, element) so
// results do not depend on how the work is split.
//
//===----------------------------------------------------------------------===//
#ifndef AIMZ_CONVERSION_ENTRYBUILDER_H
#define AIMZ_CONVERSION_ENTRYBUILDER_H

#include "aimz/AbiSymbols.h"
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
#include "mlir/Transforms/DialectConversion.h"

#include <functional>
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
/// f32, f64, i32 or i64: a support function by its operand's type.
std::string elementSuffix(Type T);

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
  EntryBuilder(ir::ModelOp Model, Entry Kind, OpBuilder &FrameBuilder)
      : Model(Model), Kind(Kind), B(&FrameBuilder), Loc(Model.getLoc()),
        Ctx(Model.getContext()) {}

  /// The frame, then the conversion of its ops; null when a pattern failed
  /// (the error is reported on the op).
  func::FuncOp build(StringRef Name);

  // For the patterns (OpLowering): every family's lowering runs inside
  // lowerOp, which points the builder at the rewriter, sets the location
  // and the block, wraps the op in its site test (SiteDemand) and replaces
  // its result by the returned view.
  LogicalResult lowerOp(Operation *Op, ConversionPatternRewriter &Rewriter,
                        function_ref<std::optional<View>()> Lower);
  /// The view of an original operand, through the rewriter's mapping.
  View viewOf(Value Original);

  // Views and scalars (LowerViews.cpp).
  View lowerInput(ir::InputOp Op);
  View lowerConstant(ir::ConstantOp Op);
  View lowerDim(ir::DimOp Op);
  View lowerBroadcast(ir::BroadcastOp Op);
  View lowerSlice(ir::SliceOp Op);
  View lowerTranspose(ir::TransposeOp Op);
  View lowerIota(ir::IotaOp Op);
  // Elementwise (LowerElementwise.cpp).
  View lowerElementwise(Operation *Op);
  /// Elementwise ops computed in their one user's loop, not in scratch.
  static DenseSet<Operation *> chooseFused(Block &Body, StringRef ObsDim);
  /// The element at Ivs of an original value: computed there when its op
  /// is fused, else loaded from its view.
  Value elementAt(Value Original, ValueRange Ivs);
  // Sites (LowerSites.cpp); nullopt: no value in this entry.
  View lowerSample(ir::SampleOp Op);
  View lowerObserve(ir::ObserveOp Op);
  std::optional<View> lowerFactor(ir::FactorOp Op);
  View lowerDeterministic(ir::DeterministicOp Op);
  View lowerLogProb(ir::LogProbOp Op);
  // Linear algebra (LowerLinearAlgebra.cpp).
  View lowerMatMul(ir::MatMulOp Op);
  void callPerBatch(StringRef Name, const View &Out, unsigned Bt,
                    ArrayRef<const View *> Views, unsigned EventRank);
  View lowerSquareMatrices(Operation *Op, Value Input, unsigned BatchRank,
                           abi::SupportFamily Fn, Value WorkOffset = {});
  View lowerCholesky(ir::CholeskyOp Op);
  View lowerInverse(ir::InverseOp Op);
  View lowerSort(ir::SortOp Op);
  // Arrays (LowerArrays.cpp).
  View lowerReduce(ir::ReduceOp Op);
  View lowerCumSum(ir::CumSumOp Op);
  View lowerGather(ir::GatherOp Op);
  View lowerStack(ir::StackOp Op);
  View lowerConcat(ir::ConcatOp Op);
  Value scalarConstant(Type Elem, int64_t V);

private:
  ir::ModelOp Model;
  Entry Kind;
  /// The frame's builder, then the rewriter of the op being lowered.
  OpBuilder *B;
  ConversionPatternRewriter *Rewriter = nullptr;
  Location Loc;
  MLIRContext *Ctx;

  Value Call;              // !llvm.ptr to aimz_call
  Value Status;            // !llvm.ptr to an i32 status slot
  Value Scratch;           // !llvm.ptr
  Value ObsBlock;          // index
  Value Draw;              // index, current absolute draw
  Value DrawBegin, DrawEnd, ObsBegin, ObsEnd, InputOrigin; // index
  Value Seed;              // i64
  Value ResultDraw0, ResultObs0; // index: absolute origin of results views
  Value ObsIv, ObsLen;     // index: the observation loop's block and length
  Value BlockStart, BlockLen; // ObsIv and ObsLen for observation ops, else null
  SmallVector<Value> DimValues; // index, per model symbol
  DenseMap<Operation *, Value> Offsets; // scratch byte offset per buffer

  Type ptrType() { return LLVM::LLVMPointerType::get(Ctx); }
  Value idx(int64_t V) { return B->create<arith::ConstantIndexOp>(Loc, V); }
  Value i64(int64_t V) {
    return B->create<arith::ConstantIntOp>(Loc, V, 64);
  }
  Value toI64(Value V) {
    return B->create<arith::IndexCastOp>(Loc, B->getI64Type(), V);
  }
  Value toIndex(Value V) {
    return B->create<arith::IndexCastOp>(Loc, B->getIndexType(), V);
  }
  Value gep(Value Ptr, Type Elem, Value Offset) {
    return B->create<LLVM::GEPOp>(Loc, ptrType(), Elem, Ptr,
                                 ValueRange{Offset});
  }
  Value loadField(Value StructPtr, int64_t Field, Type T) {
    Value P = gep(StructPtr, B->getI64Type(), i64(Field));
    return B->create<LLVM::LoadOp>(Loc, T, P);
  }
  Value fieldIndex(int64_t Field) {
    return toIndex(loadField(Call, Field, B->getI64Type()));
  }

  static bool isObsOp(Operation *Op, StringRef ObsDim);
  Type storageType(Type T) {
    return T.isInteger(1) ? Type(B->getI8Type()) : T;
  }
  int64_t byteWidth(Type T) {
    return std::max<int64_t>(1, storageType(T).getIntOrFloatBitWidth() / 8);
  }

  // The frame (EntryBuilder.cpp).
  void loadCallFields();
  void cloneBody(Operation *ObsAt, Operation *GlobalAt);
  void requireEveryObservation();
  LogicalResult convertOps(func::FuncOp F);
  Value pack(const std::optional<View> &V, Type T);

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

  /// i1: results[SiteId] is given (the caller asked for the site).
  Value siteWanted(int64_t SiteId);
  /// Which recorded sites need each (cloned) op.
  DenseMap<Operation *, SiteDemand> Demand;
  DenseSet<Operation *> Fused;
  /// Leaves of the fused chains of the loop being generated that are one
  /// value for every element (a broadcast scalar), loaded before it.
  DenseMap<Value, Value> Hoisted;
  void hoistInvariantLeaves(Value Original);
  Value elementOf(Operation *Op, ArrayRef<Value> Xs);
  Value convert(Value X, Type To);
  Value unary(ir::UnaryFn Fn, Value X);
  /// A two-argument support function (hypot, lbeta, lchoose).
  Value elementary2(StringRef Fn, Value X, Value Y);
  Value elementary(StringRef Fn, Value X);
  Value binary(ir::BinaryFn Fn, Value X, Value Y);
  Value integerPow(Value X, int64_t N);
  Value log1mExp(Value X);
  Value logAddExp(Value X, Value Y);
  /// The site's values: given (posterior, intervention) or drawn (and
  /// mapped through `Map`'s transforms, when it has any).
  View emitSample(Operation *Op, StringRef Dist, const ir::DistOperands &D,
                  int64_t SiteId, bool ReadsPosterior);
  View emitLogDensity(ir::ObserveOp Op);
  /// Out[i] = aimz_rt_logp_<Symbol>(Y[i], Params[i]...) for a distribution
  /// of numbers (or its lcdf_ / lccdf_ by Family); every view of Out's dims.
  /// With a value map, the density is the base's at the map's inverse of
  /// Y[i] plus the inverse's log Jacobian (LowerValueMaps.cpp).
  void emitScalarLogDensities(
      StringRef Symbol, Type Prec, const View &Y, ValueRange Params,
      const View &Out,
      abi::SupportFamily Family = abi::SupportFamily::LogProb,
      const ir::DistOperands *Map = nullptr);
  // MixtureGeneral of different families (LowerGeneralMixture.cpp).
  Value logSumExpOf(ArrayRef<Value> Xs);
  Value scalarRowCall(StringRef Symbol, abi::SupportFamily Family, Type Prec,
                      Type Ret, ArrayRef<Value> Lead, ArrayRef<Value> Params);
  void mixtureOperandsAt(const RuntimeCall &C, ArrayRef<View> PViews,
                         ValueRange Ivs, SmallVectorImpl<Value> &Logits,
                         SmallVectorImpl<SmallVector<Value>> &Comp);
  void emitGeneralMixtureLogDensities(const RuntimeCall &C, Type Prec,
                                      const View &Y, ValueRange Params,
                                      const View &Out);
  void emitGeneralMixtureSample(ir::ArrayType T, const RuntimeCall &C,
                                const View &Out, ValueRange Params,
                                int64_t SiteId, Type Prec);
  // A TransformedDistribution's value map (LowerValueMaps.cpp), in the
  // parameters' precision: X through the transforms, in place on Out; the
  // inverse of Y at Ivs with the inverse's log Jacobian, and where Y is
  // outside the map's range.
  void applyValueMap(const ir::DistOperands &D, const View &Out, Type Prec);
  Value invertValueMap(const ir::DistOperands &D, ValueRange Ivs, Value Y,
                       Value &LogDet, Value &Outside);
  void emitMaskedLogDensities(StringRef Symbol, Type Prec, const View &Y,
                              ValueRange Params, const View &Out);
  void givenOr(int64_t SiteId, ir::ArrayType T, const View &Out,
               const std::function<void()> &Otherwise);
  void copyOut(Value V, const View &Src, int64_t SiteId);
  Value siteCopyCall(StringRef What, int64_t SiteId, ir::ArrayType T,
                     const View &V);
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
  void appendEventSizes(const RuntimeCall &C, const View &Value0,
                        ArrayRef<View> Params, unsigned BatchRank,
                        SmallVectorImpl<Value> &Args);
  void emitEventSample(Operation *Op, const RuntimeCall &C, const View &Out,
                       ValueRange Params, int64_t SiteId, Type Prec);
  /// One log density per value of `Op`'s value type `T` (its last
  /// C.ValueEventRank axes one value) into Out.
  void emitEventLogDensity(Operation *Op, ir::ArrayType T, ValueRange Params,
                           const RuntimeCall &C, const View &Y,
                           const View &Out, Type Prec);
  void emitRowSample(ir::ArrayType T, const View &Out, StringRef Symbol,
                     ValueRange Params, int64_t SiteId, Type Prec);
  /// The log-likelihood's type for the output: one number per value.
  ir::ArrayType logDensityType(ir::ObserveOp Op);
  DenseMap<Operation *, Value> CopyOffsets; // an observed vector's copy
  DenseMap<Operation *, Value> WorkOffsets; // a sort's second buffer
  SmallVector<View> viewsOf(ValueRange Originals);

  // Reductions (LowerArrays.cpp), over the elements of an input (loaded,
  // or computed in the loop when the input is fused).
  using Elements = std::function<Value(ValueRange)>;
  void emitLogSumExp(const Elements &In, ArrayRef<unsigned> Reduced,
                     ArrayRef<Value> InSizes, SmallVectorImpl<Value> &Ivs,
                     Type Elem, const View &Out, ValueRange OutIvs,
                     Type OutElem);
  Value reduceNest(const Elements &In, ArrayRef<unsigned> Reduced,
                   ArrayRef<Value> InSizes, SmallVectorImpl<Value> &Ivs,
                   Value Init, function_ref<Value(Value, Value)> Combine);

  // Draw-invariant left sides of X @ beta, packed once per call
  // (LowerLinearAlgebra.cpp): the scratch offset of each packed input.
  static bool packsLeftSide(ir::MatMulOp Op, StringRef ObsDim);
  Value packedBlockElems(ir::MatMulOp Op);
  Value packedBytes(ir::MatMulOp Op);
  void emitPack(ir::MatMulOp Op);
  DenseMap<Operation *, Value> PackOffsets;
};

/// The conversion pattern of one aimz op: its family's lowering, run through
/// EntryBuilder::lowerOp.
template <typename OpT>
class OpLowering : public OpConversionPattern<OpT> {
public:
  using LowerFn = std::function<std::optional<View>(OpT)>;
  OpLowering(MLIRContext *Ctx, EntryBuilder &E, LowerFn Lower)
      : OpConversionPattern<OpT>(Ctx), E(E), Lower(std::move(Lower)) {}

  LogicalResult
  matchAndRewrite(OpT Op, typename OpT::Adaptor,
                  ConversionPatternRewriter &Rewriter) const final {
    return E.lowerOp(Op, Rewriter, [&] { return Lower(Op); });
  }

private:
  EntryBuilder &E;
  LowerFn Lower;
};

/// Adds the pattern that lowers OpT by Lower (a member of EntryBuilder).
template <typename OpT, typename Fn>
void addLowering(RewritePatternSet &Patterns, EntryBuilder &E, Fn Lower) {
  Patterns.add<OpLowering<OpT>>(
      Patterns.getContext(), E,
      [&E, Lower](OpT Op) -> std::optional<View> { return (E.*Lower)(Op); });
}

// Each family's patterns (one file each).
void populateViewLowering(RewritePatternSet &Patterns, EntryBuilder &E);
void populateElementwiseLowering(RewritePatternSet &Patterns, EntryBuilder &E);
void populateSiteLowering(RewritePatternSet &Patterns, EntryBuilder &E);
void populateLinearAlgebraLowering(RewritePatternSet &Patterns,
                                   EntryBuilder &E);
void populateArrayLowering(RewritePatternSet &Patterns, EntryBuilder &E);

/// aimz_prior_predictive: aimz_predict with an all-NULL posterior table.
void buildPriorWrapper(ir::ModelOp Model, OpBuilder &B);

} // namespace lowering
} // namespace aimz

#endif // AIMZ_CONVERSION_ENTRYBUILDER_H
