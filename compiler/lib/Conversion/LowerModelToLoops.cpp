//===- LowerModelToLoops.cpp - aimz.model to entry-point functions --------===//
//
// Turns an `aimz.model` into the three C entry points of abi.h, written in
// func, scf, arith, math and the LLVM dialect's memory ops:
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
#include "aimz/Distributions.h"
#include "aimz/Conversion/Passes.h"
#include "aimz/abi.h"
#include "aimz/Dialect/AimzDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

#include "llvm/ADT/StringExtras.h"

#include <limits>

using namespace mlir;

namespace aimz {
namespace {

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

// The generated code addresses aimz_call by these indices: they must be
// the fields' offsets in abi.h, 8 bytes each.
#define AIMZ_FIELD_AT(FIELD, INDEX)                                           \
  static_assert(offsetof(aimz_call, FIELD) == 8 * (INDEX) &&                  \
                    sizeof(aimz_call::FIELD) == 8,                            \
                "aimz_call." #FIELD " moved: update CallField")
AIMZ_FIELD_AT(abi_version, FAbi);
AIMZ_FIELD_AT(draw_begin, FDrawBegin);
AIMZ_FIELD_AT(draw_end, FDrawEnd);
AIMZ_FIELD_AT(obs_begin, FObsBegin);
AIMZ_FIELD_AT(obs_end, FObsEnd);
AIMZ_FIELD_AT(input_obs_origin, FInputOrigin);
AIMZ_FIELD_AT(seed, FSeed);
AIMZ_FIELD_AT(dims, FDims);
AIMZ_FIELD_AT(inputs, FInputs);
AIMZ_FIELD_AT(observed, FObserved);
AIMZ_FIELD_AT(posterior, FPosterior);
AIMZ_FIELD_AT(results, FResults);
AIMZ_FIELD_AT(scratch, FScratch);
AIMZ_FIELD_AT(scratch_bytes, FScratchBytes);
AIMZ_FIELD_AT(obs_block, FObsBlock);
AIMZ_FIELD_AT(scratch_needed, FScratchNeeded);
AIMZ_FIELD_AT(result_draw_origin, FResultDrawOrigin);
AIMZ_FIELD_AT(result_obs_origin, FResultObsOrigin);
static_assert(sizeof(aimz_call) == 8 * (FResultObsOrigin + 1),
              "aimz_call grew: add its field to CallField");
static_assert(sizeof(aimz_view) == 16, "aimz_view is {data, strides}");
#undef AIMZ_FIELD_AT

constexpr int64_t DefaultObsBlock = 256;
/// Parameters of every scalar sampler and log density (Distributions.def);
/// unused ones are passed as 0.
constexpr unsigned ScalarParamSlots = 5;
constexpr int64_t BufferAlign = 64;

static std::string precisionSuffix(Type T);

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
  Value DrawBegin, ObsBegin, InputOrigin, Seed; // index / i64
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

  void emit(Operation *Op);
  Value convert(Value X, Type To);
  Value unary(StringRef Fn, Value X);
  Value elementary(StringRef Fn, Value X);
  Value binary(StringRef Fn, Value X, Value Y);
  void emitSample(Operation *Op, StringRef Dist, ArrayAttr ParamNames,
                  ValueRange Params, int64_t SiteId, bool Draws,
                  bool ReadsPosterior);
  void emitLogDensity(ir::ObserveOp Op);
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
};

bool EntryBuilder::isObsOp(Operation *Op, StringRef ObsDim) {
  for (Value R : Op->getResults())
    if (auto T = dyn_cast<ir::ArrayType>(R.getType()))
      for (Attribute D : T.getDims())
        if (auto S = dyn_cast<StringAttr>(D); S && S.getValue() == ObsDim)
          return true;
  return false;
}

Value EntryBuilder::dimSize(Attribute D, bool ForAllocation) {
  if (auto I = dyn_cast<IntegerAttr>(D))
    return idx(I.getInt());
  StringRef Name = cast<StringAttr>(D).getValue();
  if (Name == Model.getObsDim())
    return ForAllocation ? ObsBlock : BlockLen;
  for (auto [I, S] : llvm::enumerate(Model.getSymbols()))
    if (cast<StringAttr>(S).getValue() == Name)
      return DimValues[I];
  llvm_unreachable("dimension symbol missing from the model's symbols");
}

SmallVector<Value> EntryBuilder::sizesOf(ir::ArrayType T, bool ForAllocation) {
  SmallVector<Value> S;
  for (Attribute D : T.getDims())
    S.push_back(dimSize(D, ForAllocation));
  return S;
}

int EntryBuilder::obsAxis(ir::ArrayType T) {
  for (auto [I, D] : llvm::enumerate(T.getDims()))
    if (auto S = dyn_cast<StringAttr>(D); S && S.getValue() == Model.getObsDim())
      return I;
  return -1;
}

Value EntryBuilder::product(ArrayRef<Value> Vs) {
  Value P = idx(1);
  for (Value V : Vs)
    P = B.create<arith::MulIOp>(Loc, P, V);
  return P;
}

func::FuncOp EntryBuilder::runtimeFunction(StringRef Name, TypeRange Args,
                                           TypeRange Results) {
  auto Module = Model->getParentOfType<ModuleOp>();
  if (auto F = Module.lookupSymbol<func::FuncOp>(Name))
    return F;
  OpBuilder::InsertionGuard G(B);
  B.setInsertionPointToStart(Module.getBody());
  auto F = B.create<func::FuncOp>(Loc, Name, B.getFunctionType(Args, Results));
  F.setPrivate();
  return F;
}

/// Ops whose value lives in scratch: everything but views and scalars.
static bool needsBuffer(Operation *Op) {
  return !isa<ir::InputOp, ir::ConstantOp, ir::BroadcastOp>(Op);
}

void EntryBuilder::planScratch(ArrayRef<Operation *> Global,
                               ArrayRef<Operation *> Obs) {
  // Offsets are fixed for the whole call: sizes depend only on the dims and
  // the block length, so one check up front covers every draw and block.
  Value Offset = idx(0);
  auto Reserve = [&](Operation *Op) {
    if (!needsBuffer(Op))
      return;
    auto T = cast<ir::ArrayType>(Op->getResult(0).getType());
    auto Take = [&](ir::ArrayType T) {
      Value Bytes =
          B.create<arith::MulIOp>(Loc, product(sizesOf(T, true)),
                                  idx(byteWidth(T.getElementType())));
      Value Rounded = B.create<arith::MulIOp>(
          Loc,
          B.create<arith::DivUIOp>(
              Loc, B.create<arith::AddIOp>(Loc, Bytes, idx(BufferAlign - 1)),
              idx(BufferAlign)),
          idx(BufferAlign));
      Value At = Offset;
      Offset = B.create<arith::AddIOp>(Loc, Offset, Rounded);
      return At;
    };
    auto Obs = dyn_cast<ir::ObserveOp>(Op);
    // Log-likelihood replaces the output's values by densities (and a
    // vector-valued output's log density overwrites a copy of each value).
    if (Kind == Entry::LogLikelihood && Obs) {
      ir::ArrayType LL = logDensityType(Obs);
      Offsets[Op] = Take(LL);
      if (LL.getRank() != T.getRank())
        CopyOffsets[Op] =
            Take(ir::ArrayType::get(Ctx, T.getDims(), LL.getElementType()));
      return;
    }
    Offsets[Op] = Take(T);
  };
  for (Operation *Op : Global)
    Reserve(Op);
  for (Operation *Op : Obs)
    Reserve(Op);
  // scratch_needed = total; fail early when the caller gave less.
  Value Total = toI64(Offset);
  B.create<LLVM::StoreOp>(Loc, Total,
                          gep(Call, B.getI64Type(), i64(FScratchNeeded)));
  Value Have = loadField(Call, FScratchBytes, B.getI64Type());
  Value TooSmall =
      B.create<arith::CmpIOp>(Loc, arith::CmpIPredicate::sgt, Total, Have);
  Value Code = B.create<arith::SelectOp>(
      Loc, TooSmall, B.create<arith::ConstantIntOp>(Loc, AIMZ_SCRATCH_TOO_SMALL, 32),
      B.create<arith::ConstantIntOp>(Loc, 0, 32));
  B.create<LLVM::StoreOp>(Loc, Code, Status);
}

View EntryBuilder::buffer(Operation *Op, ir::ArrayType T) {
  return bufferAt(Offsets.lookup(Op), T);
}

/// A contiguous array of type T at byte `Offset` of scratch.
View EntryBuilder::bufferAt(Value Offset, ir::ArrayType T) {
  View V;
  V.Elem = T.getElementType();
  V.Sizes = sizesOf(T, false);
  V.Ptr = gep(Scratch, B.getI8Type(), toI64(Offset));
  // Contiguous, laid out for the full block so offsets stay fixed.
  SmallVector<Value> Alloc = sizesOf(T, true);
  V.Strides.resize(Alloc.size());
  Value S = idx(1);
  for (int I = Alloc.size() - 1; I >= 0; --I) {
    V.Strides[I] = S;
    S = B.create<arith::MulIOp>(Loc, S, Alloc[I]);
  }
  return V;
}

/// A view of inputs[Slot], observed, posterior[Slot] or results[Slot].
/// `DrawDim`: the view has a leading draw stride (posterior, results).
/// `ObsOffset` is added to the observation axis index.
View EntryBuilder::viewOfCallArray(int64_t Field, int64_t Slot,
                                   ir::ArrayType T, bool DrawDim,
                                   Value DrawIndex, Value ObsOffset) {
  Value Table = loadField(Call, Field, ptrType());
  Value Entry = gep(Table, B.getI64Type(), i64(2 * Slot));
  Value Data = B.create<LLVM::LoadOp>(Loc, ptrType(), Entry);
  Value StridesPtr = B.create<LLVM::LoadOp>(
      Loc, ptrType(), gep(Entry, B.getI64Type(), i64(1)));
  View V;
  V.Elem = T.getElementType();
  V.Sizes = sizesOf(T, false);
  int Base = DrawDim ? 1 : 0;
  Value Offset = idx(0);
  if (DrawDim) {
    Value S0 = toIndex(B.create<LLVM::LoadOp>(Loc, B.getI64Type(), StridesPtr));
    Offset = B.create<arith::MulIOp>(Loc, DrawIndex, S0);
  }
  int Axis = obsAxis(T);
  for (unsigned I = 0; I < T.getRank(); ++I) {
    Value S = toIndex(B.create<LLVM::LoadOp>(
        Loc, B.getI64Type(), gep(StridesPtr, B.getI64Type(), i64(Base + I))));
    V.Strides.push_back(S);
    if (static_cast<int>(I) == Axis)
      Offset = B.create<arith::AddIOp>(
          Loc, Offset, B.create<arith::MulIOp>(Loc, ObsOffset, S));
  }
  V.Ptr = gep(Data, storageType(V.Elem), toI64(Offset));
  return V;
}

Value EntryBuilder::load(const View &V, ValueRange Ivs) {
  if (V.Scalar)
    return V.Scalar;
  Value Off = idx(0);
  for (auto [Iv, S] : llvm::zip(Ivs, V.Strides))
    Off = B.create<arith::AddIOp>(Loc, Off, B.create<arith::MulIOp>(Loc, Iv, S));
  Type St = storageType(V.Elem);
  Value X = B.create<LLVM::LoadOp>(Loc, St, gep(V.Ptr, St, toI64(Off)));
  if (St != V.Elem)
    X = B.create<arith::TruncIOp>(Loc, V.Elem, X);
  return X;
}

void EntryBuilder::store(const View &V, ValueRange Ivs, Value X) {
  Value Off = idx(0);
  for (auto [Iv, S] : llvm::zip(Ivs, V.Strides))
    Off = B.create<arith::AddIOp>(Loc, Off, B.create<arith::MulIOp>(Loc, Iv, S));
  Type St = storageType(V.Elem);
  if (St != X.getType())
    X = B.create<arith::ExtUIOp>(Loc, St, X);
  B.create<LLVM::StoreOp>(Loc, X, gep(V.Ptr, St, toI64(Off)));
}

void EntryBuilder::forEach(ArrayRef<Value> Sizes,
                           function_ref<void(ValueRange)> Body) {
  SmallVector<Value> Ivs;
  std::function<void(size_t)> Nest = [&](size_t D) {
    if (D == Sizes.size()) {
      Body(Ivs);
      return;
    }
    auto For = B.create<scf::ForOp>(Loc, idx(0), Sizes[D], idx(1));
    OpBuilder::InsertionGuard G(B);
    B.setInsertionPointToStart(For.getBody());
    Ivs.push_back(For.getInductionVar());
    Nest(D + 1);
    Ivs.pop_back();
  };
  Nest(0);
}

Value EntryBuilder::convert(Value X, Type To) {
  Type From = X.getType();
  if (From == To)
    return X;
  bool FF = isa<FloatType>(From), FT = isa<FloatType>(To);
  if (FF && FT)
    return From.getIntOrFloatBitWidth() < To.getIntOrFloatBitWidth()
               ? Value(B.create<arith::ExtFOp>(Loc, To, X))
               : Value(B.create<arith::TruncFOp>(Loc, To, X));
  if (!FF && FT)
    return From.isInteger(1) ? Value(B.create<arith::UIToFPOp>(Loc, To, X))
                             : Value(B.create<arith::SIToFPOp>(Loc, To, X));
  if (FF && !FT)
    return B.create<arith::FPToSIOp>(Loc, To, X);
  unsigned WF = From.getIntOrFloatBitWidth(), WT = To.getIntOrFloatBitWidth();
  if (WF < WT)
    return From.isInteger(1) ? Value(B.create<arith::ExtUIOp>(Loc, To, X))
                             : Value(B.create<arith::ExtSIOp>(Loc, To, X));
  return B.create<arith::TruncIOp>(Loc, To, X);
}

/// exp, log, log1p, tanh from the support library: branch-free, so loops
/// vectorize and every lane and remainder gives the same bits.
Value EntryBuilder::elementary(StringRef Fn, Value X) {
  Type T = X.getType();
  std::string Name = ("aimz_rt_" + Fn + "_").str() + precisionSuffix(T);
  func::FuncOp Callee = runtimeFunction(Name, {T}, {T});
  return B.create<func::CallOp>(Loc, Callee, ValueRange{X}).getResult(0);
}

Value EntryBuilder::unary(StringRef Fn, Value X) {
  Type T = X.getType();
  bool F = isa<FloatType>(T);
  auto FConst = [&](double V) {
    return B.create<arith::ConstantOp>(Loc, B.getFloatAttr(T, V));
  };
  if (Fn == "neg")
    return F ? Value(B.create<arith::NegFOp>(Loc, X))
             : Value(B.create<arith::SubIOp>(
                   Loc, B.create<arith::ConstantOp>(Loc, B.getIntegerAttr(T, 0)),
                   X));
  if (Fn == "abs")
    return F ? Value(B.create<math::AbsFOp>(Loc, X))
             : Value(B.create<math::AbsIOp>(Loc, X));
  if (Fn == "relu")
    return F ? Value(B.create<arith::MaximumFOp>(Loc, X, FConst(0)))
             : Value(B.create<arith::MaxSIOp>(
                   Loc, X,
                   B.create<arith::ConstantOp>(Loc, B.getIntegerAttr(T, 0))));
  if (Fn == "exp" || Fn == "log" || Fn == "log1p" || Fn == "tanh")
    return elementary(Fn, X);
  if (Fn == "sqrt")
    return B.create<math::SqrtOp>(Loc, X);
  if (Fn == "sigmoid") {
    Value E = elementary("exp", B.create<arith::NegFOp>(Loc, X));
    return B.create<arith::DivFOp>(Loc, FConst(1),
                                   B.create<arith::AddFOp>(Loc, FConst(1), E));
  }
  if (Fn == "log_sigmoid") { // min(x, 0) - log1p(exp(-|x|))
    Value A = B.create<math::AbsFOp>(Loc, X);
    Value L = elementary("log1p",
                         elementary("exp", B.create<arith::NegFOp>(Loc, A)));
    return B.create<arith::SubFOp>(
        Loc, B.create<arith::MinimumFOp>(Loc, X, FConst(0)), L);
  }
  // libm through MathToLibm (scalar calls: the same bits in every lane and
  // remainder); libdevice on the GPU.
  if (Fn == "expm1")
    return B.create<math::ExpM1Op>(Loc, X);
  if (Fn == "erf")
    return B.create<math::ErfOp>(Loc, X);
  if (Fn == "sin")
    return B.create<math::SinOp>(Loc, X);
  if (Fn == "cos")
    return B.create<math::CosOp>(Loc, X);
  // From the support library (log|Gamma| by our own Special.h; the normal
  // CDF through erfc).
  if (Fn == "lgamma" || Fn == "Phi")
    return elementary(Fn == "lgamma" ? "lgamma" : "phi", X);
  if (Fn == "softplus") { // max(x, 0) + log1p(exp(-|x|)), stable both ways
    Value A = B.create<math::AbsFOp>(Loc, X);
    Value L = elementary("log1p",
                         elementary("exp", B.create<arith::NegFOp>(Loc, A)));
    return B.create<arith::AddFOp>(
        Loc, B.create<arith::MaximumFOp>(Loc, X, FConst(0)), L);
  }
  llvm_unreachable("unknown unary function");
}

Value EntryBuilder::binary(StringRef Fn, Value X, Value Y) {
  bool F = isa<FloatType>(X.getType());
  if (Fn == "add")
    return F ? Value(B.create<arith::AddFOp>(Loc, X, Y))
             : Value(B.create<arith::AddIOp>(Loc, X, Y));
  if (Fn == "sub")
    return F ? Value(B.create<arith::SubFOp>(Loc, X, Y))
             : Value(B.create<arith::SubIOp>(Loc, X, Y));
  if (Fn == "mul")
    return F ? Value(B.create<arith::MulFOp>(Loc, X, Y))
             : Value(B.create<arith::MulIOp>(Loc, X, Y));
  if (Fn == "div")
    return B.create<arith::DivFOp>(Loc, X, Y);
  if (Fn == "pow")
    return B.create<math::PowFOp>(Loc, X, Y);
  if (Fn == "min")
    return F ? Value(B.create<arith::MinimumFOp>(Loc, X, Y))
             : Value(B.create<arith::MinSIOp>(Loc, X, Y));
  if (Fn == "max")
    return F ? Value(B.create<arith::MaximumFOp>(Loc, X, Y))
             : Value(B.create<arith::MaxSIOp>(Loc, X, Y));
  if (F) {
    auto P = llvm::StringSwitch<arith::CmpFPredicate>(Fn)
                 .Case("lt", arith::CmpFPredicate::OLT)
                 .Case("le", arith::CmpFPredicate::OLE)
                 .Case("gt", arith::CmpFPredicate::OGT)
                 .Case("ge", arith::CmpFPredicate::OGE)
                 .Case("eq", arith::CmpFPredicate::OEQ)
                 .Default(arith::CmpFPredicate::UNE);
    return B.create<arith::CmpFOp>(Loc, P, X, Y);
  }
  auto P = llvm::StringSwitch<arith::CmpIPredicate>(Fn)
               .Case("lt", arith::CmpIPredicate::slt)
               .Case("le", arith::CmpIPredicate::sle)
               .Case("gt", arith::CmpIPredicate::sgt)
               .Case("ge", arith::CmpIPredicate::sge)
               .Case("eq", arith::CmpIPredicate::eq)
               .Default(arith::CmpIPredicate::ne);
  return B.create<arith::CmpIOp>(Loc, P, X, Y);
}

/// How the runtime is called for a site's distribution (the verifier
/// accepted the name, so it resolves).
static RuntimeCall distCall(StringRef Dist, ArrayAttr ParamNames) {
  SmallVector<StringRef> Given;
  for (Attribute A : ParamNames)
    Given.push_back(cast<StringAttr>(A).getValue());
  std::optional<RuntimeCall> C = runtimeCall(Dist, Given);
  assert(C && "the verifier accepted an unknown distribution");
  return *C;
}

static std::string precisionSuffix(Type T) {
  return T.isF64() ? "f64" : "f32";
}

/// The element's (observation, element) address: the absolute observation
/// when the site has the observation axis (else 0) and the row-major index
/// over its other dims, whose extents do not depend on the block.
Value EntryBuilder::siteAddressElement(ir::ArrayType T, ValueRange Ivs,
                                       Value &ObsOut) {
  int Axis = obsAxis(T);
  ObsOut = i64(0);
  Value Elem = idx(0);
  // Only the leading dims Ivs covers (an event distribution's batch dims).
  for (unsigned I = 0; I < Ivs.size(); ++I) {
    if (static_cast<int>(I) == Axis) {
      ObsOut = toI64(B.create<arith::AddIOp>(Loc, BlockStart, Ivs[I]));
      continue;
    }
    Value Extent = dimSize(T.getDims()[I], false);
    Elem = B.create<arith::AddIOp>(
        Loc, B.create<arith::MulIOp>(Loc, Elem, Extent), Ivs[I]);
  }
  return toI64(Elem);
}

void EntryBuilder::emitSample(Operation *Op, StringRef Dist,
                              ArrayAttr ParamNames, ValueRange Params,
                              int64_t SiteId, bool Draws,
                              bool ReadsPosterior) {
  auto T = cast<ir::ArrayType>(Op->getResult(0).getType());
  View Out = buffer(Op, T);
  Views[Op->getResult(0)] = Out;
  Type Prec = Params.empty() ? T.getElementType()
                             : cast<ir::ArrayType>(Params[0].getType())
                                   .getElementType();
  // A flat prior (ImproperUniform) has no sampler: its values always come
  // from the posterior (aimz-run refuses a run without them); the draw
  // branch, never taken, writes NaN.
  if (const DistSpec *Spec = lookupDistribution(Dist); Spec && Spec->Improper) {
    auto DrawNaN = [&]() {
      Value NaN = B.create<arith::ConstantOp>(
          Loc, B.getFloatAttr(T.getElementType(),
                              std::numeric_limits<double>::quiet_NaN()));
      forEach(Out.Sizes, [&](ValueRange Ivs) { store(Out, Ivs, NaN); });
    };
    if (!ReadsPosterior)
      return DrawNaN();
    Value Table = loadField(Call, FPosterior, ptrType());
    Value Data = B.create<LLVM::LoadOp>(
        Loc, ptrType(), gep(Table, B.getI64Type(), i64(2 * SiteId)));
    Value Given = B.create<LLVM::ICmpOp>(
        Loc, LLVM::ICmpPredicate::ne, Data,
        B.create<LLVM::ZeroOp>(Loc, ptrType()));
    auto If = B.create<scf::IfOp>(Loc, Given, /*withElse=*/true);
    OpBuilder::InsertionGuard G(B);
    B.setInsertionPointToStart(If.thenBlock());
    View Post = viewOfCallArray(FPosterior, SiteId, T, true, Draw, BlockStart);
    forEach(Out.Sizes, [&](ValueRange Ivs) { store(Out, Ivs, load(Post, Ivs)); });
    B.setInsertionPointToStart(If.elseBlock());
    DrawNaN();
    return;
  }
  RuntimeCall C = distCall(Dist, ParamNames);
  std::function<void()> DrawAll = [&]() {
    emitEventSample(Op, C, Out, Params, SiteId, Prec);
  };
  if (!C.Event) {
    std::string Fn = "aimz_rt_sample_" + C.Symbol + "_" + precisionSuffix(Prec);
    bool Discrete = T.getElementType().isInteger(32) ||
                    T.getElementType().isInteger(64) ||
                    T.getElementType().isInteger(1);
    Type Ret = Discrete ? Type(B.getI32Type()) : Prec;
    SmallVector<Type> ArgTypes(5, B.getI64Type());
    ArgTypes.append(ScalarParamSlots, Prec);
    // Called after this block: capture what it needs by value.
    size_t NumArgs = ArgTypes.size();
    // A straight-line sampler draws each innermost row with one call of its
    // row function, whose loop vectorizes (same values as per element).
    if (hasRowSampler(C.Symbol) && T.getRank() > 0 &&
        T.getElementType() == Ret && Params.size() <= 2) {
      DrawAll = [&]() { emitRowSample(T, Out, C.Symbol, Params, SiteId, Prec); };
    } else {
      func::FuncOp Callee = runtimeFunction(Fn, ArgTypes, Ret);
      DrawAll = [&, Callee, NumArgs]() mutable {
      forEach(Out.Sizes, [&](ValueRange Ivs) {
        Value Obs;
        Value Elem = siteAddressElement(T, Ivs, Obs);
        SmallVector<Value> Args = {Seed, i64(SiteId), toI64(Draw), Obs, Elem};
        for (Value P : Params)
          Args.push_back(load(Views.lookup(P), Ivs));
        while (Args.size() < NumArgs)
          Args.push_back(
              B.create<arith::ConstantOp>(Loc, B.getFloatAttr(Prec, 0)));
        Value X = B.create<func::CallOp>(Loc, Callee, Args).getResult(0);
        store(Out, Ivs, convert(X, T.getElementType()));
      });
      };
    }
  }
  if (!ReadsPosterior) {
    DrawAll();
    return;
  }
  // posterior[site].data != NULL: copy the given draw, else draw it.
  Value Table = loadField(Call, FPosterior, ptrType());
  Value Data = B.create<LLVM::LoadOp>(
      Loc, ptrType(), gep(Table, B.getI64Type(), i64(2 * SiteId)));
  Value Null = B.create<LLVM::ZeroOp>(Loc, ptrType());
  Value Given =
      B.create<LLVM::ICmpOp>(Loc, LLVM::ICmpPredicate::ne, Data, Null);
  auto If = B.create<scf::IfOp>(Loc, Given, /*withElse=*/Draws);
  {
    OpBuilder::InsertionGuard G(B);
    B.setInsertionPointToStart(If.thenBlock());
    View Post = viewOfCallArray(FPosterior, SiteId, T, true, Draw, BlockStart);
    forEach(Out.Sizes,
            [&](ValueRange Ivs) { store(Out, Ivs, load(Post, Ivs)); });
    if (Draws) {
      B.setInsertionPointToStart(If.elseBlock());
      DrawAll();
    }
  }
}

/// One element of stack memory, allocated once in the entry block (an
/// alloca inside the loops would grow the stack every iteration).
Value EntryBuilder::stackSlot(Type T) {
  OpBuilder::InsertionGuard G(B);
  B.setInsertionPointToStart(EntryBlock);
  return B.create<LLVM::AllocaOp>(Loc, ptrType(), storageType(T), i64(1));
}

/// (pointer, stride of the second-to-last event axis, stride of the last)
/// of `V` at the batch position `BatchIvs`; a constant goes through a stack
/// slot repeated by zero strides.
void EntryBuilder::eventArgs(const View &V, ValueRange BatchIvs,
                             unsigned EventRank,
                             SmallVectorImpl<Value> &Args) {
  if (V.Scalar) {
    Value Slot = stackSlot(V.Elem);
    B.create<LLVM::StoreOp>(Loc, V.Scalar, Slot);
    Args.append({Slot, i64(0), i64(0)});
    return;
  }
  Value Off = idx(0);
  for (auto [Iv, S] : llvm::zip(BatchIvs, V.Strides))
    Off = B.create<arith::AddIOp>(Loc, Off, B.create<arith::MulIOp>(Loc, Iv, S));
  size_t R = V.Strides.size();
  Args.push_back(gep(V.Ptr, storageType(V.Elem), toI64(Off)));
  Args.push_back(EventRank >= 2 ? toI64(V.Strides[R - 2]) : i64(0));
  Args.push_back(EventRank >= 1 ? toI64(V.Strides[R - 1]) : i64(0));
}

/// Every parameter's (pointer, s0, s1) at the batch position, then null
/// slots up to the callee's `NumArgs` arguments.
void EntryBuilder::appendEventParams(ValueRange Params, ArrayRef<View> PViews,
                                     ValueRange BatchIvs, unsigned BatchRank,
                                     size_t NumArgs,
                                     SmallVectorImpl<Value> &Args) {
  for (auto [P, V] : llvm::zip(Params, PViews))
    eventArgs(V, BatchIvs,
              cast<ir::ArrayType>(P.getType()).getRank() - BatchRank, Args);
  Value Null = B.create<LLVM::ZeroOp>(Loc, ptrType());
  while (Args.size() < NumArgs)
    Args.append({Null, i64(0), i64(0)});
}

/// K: the value's last extent for a vector or matrix, else the last extent
/// of the first parameter with an event axis (categories, cutpoints,
/// components).
Value EntryBuilder::eventSize(const RuntimeCall &C, const View &Value0,
                              ArrayRef<View> Params, unsigned BatchRank) {
  if (C.ValueEventRank)
    return toI64(Value0.Sizes.back());
  for (const View &P : Params)
    if (P.Sizes.size() > BatchRank)
      return toI64(P.Sizes.back());
  return i64(1);
}

ir::ArrayType EntryBuilder::logDensityType(ir::ObserveOp Op) {
  auto T = Op.getResult().getType();
  Type Prec = cast<ir::ArrayType>(Op.getParams()[0].getType()).getElementType();
  unsigned Event = distCall(Op.getDist(), Op.getParamNames()).ValueEventRank;
  return ir::ArrayType::get(
      Ctx, B.getArrayAttr(T.getDims().getValue().drop_back(Event)), Prec);
}

/// Six parameter slots; the ones a distribution does not take are null.
static constexpr unsigned EventParamSlots = 6;

void EntryBuilder::emitEventSample(Operation *Op, const RuntimeCall &C,
                                   const View &Out, ValueRange Params,
                                   int64_t SiteId, Type Prec) {
  auto T = cast<ir::ArrayType>(Op->getResult(0).getType());
  unsigned Rb = T.getRank() - C.ValueEventRank;
  Type Elem = T.getElementType();
  Type Native = isa<FloatType>(Elem) ? Prec : Type(B.getI32Type());
  SmallVector<View> PViews;
  for (Value P : Params)
    PViews.push_back(Views.lookup(P));
  std::string Fn = "aimz_rt_vsample_" + C.Symbol + "_" + precisionSuffix(Prec);
  SmallVector<Type> ArgTypes(6, B.getI64Type());
  for (unsigned I = 0; I < 1 + EventParamSlots; ++I)
    ArgTypes.append({ptrType(), B.getI64Type(), B.getI64Type()});
  func::FuncOp Callee = runtimeFunction(Fn, ArgTypes, {});
  // A number per batch element goes through a slot when the site's type
  // is not the runtime's (an i64 output); vectors are checked by Sema.
  Value Slot = C.ValueEventRank == 0 && Native != Elem ? stackSlot(Native)
                                                       : Value();
  forEach(ArrayRef<Value>(Out.Sizes).take_front(Rb), [&](ValueRange Ivs) {
    Value Obs;
    Value ElemAddr = siteAddressElement(T, Ivs, Obs);
    SmallVector<Value> Args = {Seed, i64(SiteId), toI64(Draw), Obs, ElemAddr,
                               eventSize(C, Out, PViews, Rb)};
    if (Slot)
      Args.append({Slot, i64(0), i64(0)});
    else
      eventArgs(Out, Ivs, C.ValueEventRank, Args);
    appendEventParams(Params, PViews, Ivs, Rb, ArgTypes.size(), Args);
    B.create<func::CallOp>(Loc, Callee, Args);
    if (Slot)
      store(Out, Ivs,
            convert(B.create<LLVM::LoadOp>(Loc, Native, Slot), Elem));
  });
}

void EntryBuilder::emitEventLogDensity(ir::ObserveOp Op, const RuntimeCall &C,
                                       const View &Y, const View &Out,
                                       Type Prec) {
  auto T = Op.getResult().getType();
  unsigned Rb = T.getRank() - C.ValueEventRank;
  SmallVector<View> PViews;
  for (Value P : Op.getParams())
    PViews.push_back(Views.lookup(P));
  std::string Fn = "aimz_rt_vlogp_" + C.Symbol + "_" + precisionSuffix(Prec);
  SmallVector<Type> ArgTypes = {ptrType(), B.getI64Type(), B.getI64Type(),
                                B.getI64Type()};
  for (unsigned I = 0; I < EventParamSlots; ++I)
    ArgTypes.append({ptrType(), B.getI64Type(), B.getI64Type()});
  func::FuncOp Callee = runtimeFunction(Fn, ArgTypes, Prec);
  // The value in the parameters' precision, in memory the function may
  // overwrite: a slot for a number, else this block's copy of the values.
  View Copy;
  Value Slot;
  if (C.ValueEventRank == 0) {
    Slot = stackSlot(Prec);
  } else {
    Copy = bufferAt(CopyOffsets.lookup(Op),
                    ir::ArrayType::get(Ctx, T.getDims(), Prec));
  }
  forEach(Out.Sizes, [&](ValueRange Ivs) {
    SmallVector<Value> Args;
    if (Slot) {
      B.create<LLVM::StoreOp>(Loc, convert(load(Y, Ivs), Prec), Slot);
      Args.append({Slot, i64(0), i64(0)});
    } else {
      forEach(ArrayRef<Value>(Y.Sizes).drop_front(Rb), [&](ValueRange Ev) {
        SmallVector<Value> All(Ivs.begin(), Ivs.end());
        All.append(Ev.begin(), Ev.end());
        store(Copy, All, convert(load(Y, All), Prec));
      });
      eventArgs(Copy, Ivs, C.ValueEventRank, Args);
    }
    Args.push_back(eventSize(C, Y, PViews, Rb));
    appendEventParams(Op.getParams(), PViews, Ivs, Rb, ArgTypes.size(), Args);
    store(Out, Ivs, B.create<func::CallOp>(Loc, Callee, Args).getResult(0));
  });
}

/// One call of aimz_rt_sample_row_<symbol> per innermost row of the site:
/// the row's first (observation, element) address and how each advances
/// along the row (the innermost dim is the observation axis, or the fastest
/// of the element index).
void EntryBuilder::emitRowSample(ir::ArrayType T, const View &Out,
                                 StringRef Symbol, ValueRange Params,
                                 int64_t SiteId, Type Prec) {
  std::string Fn = ("aimz_rt_sample_row_" + Symbol + "_").str() +
                   precisionSuffix(Prec);
  SmallVector<Type> ArgTypes(8, B.getI64Type());
  for (int I = 0; I < 3; ++I)
    ArgTypes.append({ptrType(), B.getI64Type()});
  func::FuncOp Callee = runtimeFunction(Fn, ArgTypes, {});
  unsigned Last = T.getRank() - 1; // the row; int32 or Prec elements
  bool ObsRow = obsAxis(T) == static_cast<int>(Last);
  forEach(ArrayRef<Value>(Out.Sizes).drop_back(), [&](ValueRange Ivs) {
    SmallVector<Value> First(Ivs.begin(), Ivs.end());
    First.push_back(idx(0));
    Value Obs;
    Value Elem = siteAddressElement(T, First, Obs);
    SmallVector<Value> Args = {Seed,
                               i64(SiteId),
                               toI64(Draw),
                               Obs,
                               i64(ObsRow ? 1 : 0),
                               Elem,
                               i64(ObsRow ? 0 : 1),
                               toI64(Out.Sizes.back())};
    auto RowArgs = [&](const View &V) {
      SmallVector<Value> Three;
      eventArgs(V, Ivs, 1, Three); // (pointer, unused, last stride)
      Args.append({Three[0], Three[2]});
    };
    RowArgs(Out);
    for (Value P : Params)
      RowArgs(Views.lookup(P));
    while (Args.size() < ArgTypes.size())
      Args.append({B.create<LLVM::ZeroOp>(Loc, ptrType()), i64(0)});
    B.create<func::CallOp>(Loc, Callee, Args);
  });
}

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

void EntryBuilder::emitLogDensity(ir::ObserveOp Op) {
  auto T = Op.getResult().getType();
  Type Prec = cast<ir::ArrayType>(Op.getParams()[0].getType()).getElementType();
  // The observed values, viewed like an input.
  View Y = viewOfCallArray(FObserved, 0, T, false, Value(),
                           B.create<arith::SubIOp>(Loc, BlockStart,
                                                   InputOrigin));
  ir::ArrayType LLType = logDensityType(Op);
  View Out = buffer(Op, LLType);
  RuntimeCall C = distCall(Op.getDist(), Op.getParamNames());
  if (C.Event) {
    emitEventLogDensity(Op, C, Y, Out, Prec);
  } else {
    std::string Fn = "aimz_rt_logp_" + C.Symbol + "_" + precisionSuffix(Prec);
    func::FuncOp Callee =
        runtimeFunction(Fn, SmallVector<Type>(1 + ScalarParamSlots, Prec), Prec);
    forEach(Out.Sizes, [&](ValueRange Ivs) {
      SmallVector<Value> Args = {convert(load(Y, Ivs), Prec)};
      for (Value P : Op.getParams())
        Args.push_back(load(Views.lookup(P), Ivs));
      while (Args.size() < 1 + ScalarParamSlots)
        Args.push_back(
            B.create<arith::ConstantOp>(Loc, B.getFloatAttr(Prec, 0)));
      store(Out, Ivs, B.create<func::CallOp>(Loc, Callee, Args).getResult(0));
    });
  }
  Views[Op.getResult()] = Y;
  // Write the densities to the output site's result slot.
  Value Table = loadField(Call, FResults, ptrType());
  Value Data = B.create<LLVM::LoadOp>(
      Loc, ptrType(), gep(Table, B.getI64Type(), i64(2 * Op.getSiteId())));
  Value Wanted = B.create<LLVM::ICmpOp>(Loc, LLVM::ICmpPredicate::ne, Data,
                                        B.create<LLVM::ZeroOp>(Loc, ptrType()));
  auto If = B.create<scf::IfOp>(Loc, Wanted, false);
  OpBuilder::InsertionGuard G(B);
  B.setInsertionPointToStart(If.thenBlock());
  View R = viewOfCallArray(FResults, Op.getSiteId(), LLType, true,
                           B.create<arith::SubIOp>(Loc, Draw, ResultDraw0),
                           B.create<arith::SubIOp>(Loc, BlockStart, ResultObs0));
  forEach(Out.Sizes, [&](ValueRange Ivs) { store(R, Ivs, load(Out, Ivs)); });
}

void EntryBuilder::copyOut(Value V, int64_t SiteId) {
  auto T = cast<ir::ArrayType>(V.getType());
  Value Table = loadField(Call, FResults, ptrType());
  Value Data = B.create<LLVM::LoadOp>(
      Loc, ptrType(), gep(Table, B.getI64Type(), i64(2 * SiteId)));
  Value Wanted = B.create<LLVM::ICmpOp>(Loc, LLVM::ICmpPredicate::ne, Data,
                                        B.create<LLVM::ZeroOp>(Loc, ptrType()));
  auto If = B.create<scf::IfOp>(Loc, Wanted, false);
  OpBuilder::InsertionGuard G(B);
  B.setInsertionPointToStart(If.thenBlock());
  Value ObsOff = BlockStart ? Value(B.create<arith::SubIOp>(Loc, BlockStart,
                                                            ResultObs0))
                            : idx(0);
  View R = viewOfCallArray(FResults, SiteId, T, true,
                           B.create<arith::SubIOp>(Loc, Draw, ResultDraw0),
                           ObsOff);
  const View &Src = Views.lookup(V);
  forEach(R.Sizes, [&](ValueRange Ivs) { store(R, Ivs, load(Src, Ivs)); });
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

void EntryBuilder::emitReduce(ir::ReduceOp Op) {
  auto T = Op.getResult().getType();
  auto IT = Op.getInput().getType();
  unsigned Bt = Op.getBatchRank();
  View Out = buffer(Op, T);
  Views[Op.getResult()] = Out;
  const View &In = Views.lookup(Op.getInput());
  Type Elem = IT.getElementType();
  bool F = isa<FloatType>(Elem);
  StringRef Fn = Op.getFn();
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
  forEach(KeptSizes, [&](ValueRange OutIvs) {
    SmallVector<Value> Ivs(IT.getRank());
    for (auto [D, Iv] : llvm::zip(Kept, OutIvs))
      Ivs[D] = Iv;
    Value Init;
    if (Fn == "sum" || Fn == "mean")
      Init = F ? Value(B.create<arith::ConstantOp>(Loc, B.getFloatAttr(Elem, 0)))
               : Value(B.create<arith::ConstantOp>(Loc, B.getIntegerAttr(Elem, 0)));
    else {
      SmallVector<Value> First(Ivs);
      for (unsigned D : Reduced)
        First[D] = idx(0);
      Init = load(In, First);
    }
    using Combine = std::function<Value(Value, Value)>;
    // scf.for built with iter_args has an implicit terminator we replace.
    std::function<Value(unsigned, Value, const Combine &)> Nest =
        [&](unsigned R, Value Acc, const Combine &C) -> Value {
      if (R == Reduced.size())
        return C(Acc, load(In, Ivs));
      auto For = B.create<scf::ForOp>(Loc, idx(0), InSizes[Reduced[R]],
                                      idx(1), ValueRange{Acc});
      OpBuilder::InsertionGuard G(B);
      B.setInsertionPointToStart(For.getBody());
      Ivs[Reduced[R]] = For.getInductionVar();
      Value Res = Nest(R + 1, For.getRegionIterArgs()[0], C);
      B.create<scf::YieldOp>(Loc, Res);
      return For.getResult(0);
    };
    if (Fn == "logsumexp") {
      // max, then the sum of exp(x - max) in the same element order: no
      // overflow, and -inf when every element is -inf.
      Value M = Nest(0, Init, [&](Value A, Value X) {
        return binary("max", A, X);
      });
      Value NegInf = B.create<arith::ConstantOp>(
          Loc, B.getFloatAttr(Elem, -std::numeric_limits<double>::infinity()));
      Value AllNegInf = B.create<arith::CmpFOp>(Loc, arith::CmpFPredicate::OEQ,
                                                M, NegInf);
      Value Shift = B.create<arith::SelectOp>(
          Loc, AllNegInf,
          B.create<arith::ConstantOp>(Loc, B.getFloatAttr(Elem, 0)), M);
      Value S = Nest(0, B.create<arith::ConstantOp>(Loc, B.getFloatAttr(Elem, 0)),
                     [&](Value A, Value X) {
                       return B.create<arith::AddFOp>(
                           Loc, A,
                           elementary("exp",
                                      B.create<arith::SubFOp>(Loc, X, Shift)));
                     });
      Value R = B.create<arith::AddFOp>(Loc, Shift, elementary("log", S));
      store(Out, OutIvs, convert(R, T.getElementType()));
      return;
    }
    Value Acc = Nest(0, Init, [&](Value A, Value X) {
      return binary(Fn == "mean" || Fn == "sum" ? "add" : Fn, A, X);
    });
    if (Fn == "mean") {
      SmallVector<Value> Counted;
      for (unsigned D : Reduced)
        Counted.push_back(InSizes[D]);
      Value C = B.create<arith::SIToFPOp>(Loc, Elem, toI64(product(Counted)));
      Acc = B.create<arith::DivFOp>(Loc, Acc, C);
    }
    store(Out, OutIvs, convert(Acc, T.getElementType()));
  });
}

/// Running sums along `axis`, in index order.
void EntryBuilder::emitCumSum(ir::CumSumOp Op) {
  auto T = Op.getResult().getType();
  View Out = buffer(Op, T);
  Views[Op.getResult()] = Out;
  const View &In = Views.lookup(Op.getInput());
  unsigned Axis = Op.getAxis();
  SmallVector<Value> Sizes(Out.Sizes);
  Value Len = Sizes[Axis];
  Sizes.erase(Sizes.begin() + Axis);
  Type Elem = T.getElementType();
  forEach(Sizes, [&](ValueRange Ivs) {
    SmallVector<Value> At(Ivs.begin(), Ivs.end());
    At.insert(At.begin() + Axis, Value());
    Value Zero = isa<FloatType>(Elem)
                     ? Value(B.create<arith::ConstantOp>(
                           Loc, B.getFloatAttr(Elem, 0)))
                     : Value(B.create<arith::ConstantOp>(
                           Loc, B.getIntegerAttr(Elem, 0)));
    auto For = B.create<scf::ForOp>(Loc, idx(0), Len, idx(1), ValueRange{Zero});
    OpBuilder::InsertionGuard G(B);
    B.setInsertionPointToStart(For.getBody());
    At[Axis] = For.getInductionVar();
    Value S = binary("add", For.getRegionIterArgs()[0], load(In, At));
    store(Out, At, S);
    B.create<scf::YieldOp>(Loc, S);
  });
}

void EntryBuilder::emitGather(ir::GatherOp Op) {
  auto T = Op.getResult().getType();
  auto BT = Op.getBase().getType();
  unsigned Bt = Op.getBatchRank();
  unsigned NIdx = Op.getIndices().size();
  View Out = buffer(Op, T);
  Views[Op.getResult()] = Out;
  const View &Base = Views.lookup(Op.getBase());
  unsigned Rest = BT.getRank() - Bt - NIdx;
  unsigned IdxRank = T.getRank() - Bt - Rest;
  forEach(Out.Sizes, [&](ValueRange Ivs) {
    SmallVector<Value> BaseIvs(Ivs.begin(), Ivs.begin() + Bt);
    SmallVector<Value> IdxIvs(Ivs.begin(), Ivs.begin() + Bt + IdxRank);
    for (unsigned K = 0; K < NIdx; ++K) {
      Value I = load(Views.lookup(Op.getIndices()[K]), IdxIvs);
      I = toIndex(convert(I, B.getI64Type()));
      Value Size = Base.Sizes[Bt + K];
      // Anything outside [0, size) is an error, negative indices included:
      // wrapping them NumPy-style would hide 1-based off-by-one mistakes.
      Value Bad = B.create<arith::OrIOp>(
          Loc,
          B.create<arith::CmpIOp>(Loc, arith::CmpIPredicate::slt, I, idx(0)),
          B.create<arith::CmpIOp>(Loc, arith::CmpIPredicate::sge, I, Size));
      auto If = B.create<scf::IfOp>(Loc, Bad, false);
      {
        OpBuilder::InsertionGuard G(B);
        B.setInsertionPointToStart(If.thenBlock());
        B.create<LLVM::StoreOp>(Loc, B.create<arith::ConstantIntOp>(Loc, AIMZ_INDEX_OUT_OF_RANGE, 32),
                                Status);
      }
      I = B.create<arith::SelectOp>(Loc, Bad, idx(0), I);
      BaseIvs.push_back(I);
    }
    BaseIvs.append(Ivs.begin() + Bt + IdxRank, Ivs.end());
    store(Out, Ivs, load(Base, BaseIvs));
  });
}

void EntryBuilder::emit(Operation *Op) {
  if (auto In = dyn_cast<ir::InputOp>(Op)) {
    // Observation-aligned inputs start at the block's row; the others (no
    // observation axis) are whole in every call.
    auto T = In.getResult().getType();
    Value Off = obsAxis(T) >= 0
                    ? Value(B.create<arith::SubIOp>(Loc, BlockStart, InputOrigin))
                    : Value();
    Views[In.getResult()] =
        viewOfCallArray(FInputs, In.getIndex(), T, false, Value(), Off);
    return;
  }
  if (auto C = dyn_cast<ir::ConstantOp>(Op)) {
    View V;
    V.Elem = C.getResult().getType().getElementType();
    V.Scalar = B.create<arith::ConstantOp>(Loc, cast<TypedAttr>(C.getValue()));
    Views[C.getResult()] = V;
    return;
  }
  if (auto Bc = dyn_cast<ir::BroadcastOp>(Op)) {
    const View &In = Views.lookup(Bc.getInput());
    auto T = Bc.getResult().getType();
    View V;
    V.Elem = In.Elem;
    V.Scalar = In.Scalar;
    V.Ptr = In.Ptr;
    V.Sizes = sizesOf(T, false);
    V.Strides.assign(T.getRank(), idx(0));
    auto InT = Bc.getInput().getType();
    if (!V.Scalar)
      for (auto [I, To] : llvm::enumerate(Bc.getDimMap())) {
        auto D = dyn_cast<IntegerAttr>(InT.getDims()[I]);
        if (!(D && D.getInt() == 1))
          V.Strides[To] = In.Strides[I];
      }
    Views[Bc.getResult()] = V;
    return;
  }
  if (isa<ir::CastOp, ir::UnaryOp, ir::BinaryOp, ir::SelectOp>(Op)) {
    auto T = cast<ir::ArrayType>(Op->getResult(0).getType());
    View Out = buffer(Op, T);
    SmallVector<View> Ins;
    for (Value O : Op->getOperands())
      Ins.push_back(Views.lookup(O));
    forEach(Out.Sizes, [&](ValueRange Ivs) {
      SmallVector<Value> Xs;
      for (const View &I : Ins)
        Xs.push_back(load(I, Ivs));
      Value R;
      if (isa<ir::CastOp>(Op))
        R = convert(Xs[0], T.getElementType());
      else if (auto U = dyn_cast<ir::UnaryOp>(Op))
        R = unary(U.getFn(), Xs[0]);
      else if (isa<ir::SelectOp>(Op))
        R = B.create<arith::SelectOp>(Loc, Xs[0], Xs[1], Xs[2]);
      else
        R = binary(cast<ir::BinaryOp>(Op).getFn(), Xs[0], Xs[1]);
      store(Out, Ivs, R);
    });
    Views[Op->getResult(0)] = Out;
    return;
  }
  if (auto M = dyn_cast<ir::MatMulOp>(Op))
    return emitMatMul(M);
  if (auto R = dyn_cast<ir::ReduceOp>(Op))
    return emitReduce(R);
  if (auto C = dyn_cast<ir::CumSumOp>(Op))
    return emitCumSum(C);
  if (auto G = dyn_cast<ir::GatherOp>(Op))
    return emitGather(G);
  if (auto Ch = dyn_cast<ir::CholeskyOp>(Op))
    return emitCholesky(Ch);
  if (auto St = dyn_cast<ir::StackOp>(Op)) {
    auto T = St.getResult().getType();
    View Out = buffer(Op, T);
    int64_t Axis = St.getAxis();
    for (auto [I, E] : llvm::enumerate(St.getElements())) {
      const View &In = Views.lookup(E);
      SmallVector<Value> Sizes(Out.Sizes);
      Sizes.erase(Sizes.begin() + Axis);
      forEach(Sizes, [&](ValueRange Ivs) {
        SmallVector<Value> At(Ivs.begin(), Ivs.end());
        At.insert(At.begin() + Axis, idx(I));
        store(Out, At, load(In, Ivs));
      });
    }
    Views[St.getResult()] = Out;
    return;
  }
  if (auto S = dyn_cast<ir::SampleOp>(Op)) {
    emitSample(S, S.getDist(), S.getParamNames(), S.getParams(),
               S.getSiteId(), /*Draws=*/true,
               /*ReadsPosterior=*/true);
    copyOut(S.getResult(), S.getSiteId());
    return;
  }
  if (auto O = dyn_cast<ir::ObserveOp>(Op)) {
    if (Kind == Entry::LogLikelihood)
      return emitLogDensity(O);
    emitSample(O, O.getDist(), O.getParamNames(), O.getParams(),
               O.getSiteId(), true, false);
    copyOut(O.getResult(), O.getSiteId());
    return;
  }
  if (auto F = dyn_cast<ir::FactorOp>(Op)) {
    // Only the log-likelihood returns factors (materialized like a
    // deterministic so that broadcast values read out with real strides).
    if (Kind != Entry::LogLikelihood)
      return;
    auto T = F.getResult().getType();
    View Out = buffer(Op, T);
    const View &In = Views.lookup(F.getValue());
    forEach(Out.Sizes, [&](ValueRange Ivs) { store(Out, Ivs, load(In, Ivs)); });
    Views[F.getResult()] = Out;
    copyOut(F.getResult(), F.getSiteId());
    return;
  }
  if (auto D = dyn_cast<ir::DeterministicOp>(Op)) {
    // Materialize (a copy) so a broadcast value reads out with real strides.
    auto T = D.getResult().getType();
    View Out = buffer(Op, T);
    const View &In = Views.lookup(D.getValue());
    forEach(Out.Sizes, [&](ValueRange Ivs) { store(Out, Ivs, load(In, Ivs)); });
    Views[D.getResult()] = Out;
    if (Kind != Entry::LogLikelihood)
      copyOut(D.getResult(), D.getSiteId());
    return;
  }
  llvm_unreachable("unhandled aimz op");
}

func::FuncOp EntryBuilder::build(StringRef Name) {
  auto Module = Model->getParentOfType<ModuleOp>();
  B.setInsertionPointToEnd(Module.getBody());
  auto F = B.create<func::FuncOp>(
      Loc, Name, B.getFunctionType({ptrType()}, {B.getI32Type()}));
  Block *Entry = F.addEntryBlock();
  EntryBlock = Entry;
  B.setInsertionPointToStart(Entry);
  Call = F.getArgument(0);

  // Refuse a caller built against another ABI.
  Value Abi = loadField(Call, FAbi, B.getI64Type());
  Value AbiOk =
      B.create<arith::CmpIOp>(Loc, arith::CmpIPredicate::eq, Abi, i64(AIMZ_ABI_VERSION));
  auto AbiIf = B.create<scf::IfOp>(Loc, B.getI32Type(), AbiOk, true);
  B.setInsertionPointToStart(AbiIf.elseBlock());
  B.create<scf::YieldOp>(Loc, ValueRange{B.create<arith::ConstantIntOp>(Loc, AIMZ_BAD_ABI_VERSION, 32)});
  B.setInsertionPointToStart(AbiIf.thenBlock());

  Status = B.create<LLVM::AllocaOp>(Loc, ptrType(), B.getI32Type(), i64(1));
  DrawBegin = fieldIndex(FDrawBegin);
  Value DrawEnd = fieldIndex(FDrawEnd);
  ObsBegin = fieldIndex(FObsBegin);
  Value ObsEnd = fieldIndex(FObsEnd);
  InputOrigin = fieldIndex(FInputOrigin);
  ResultDraw0 = fieldIndex(FResultDrawOrigin);
  ResultObs0 = fieldIndex(FResultObsOrigin);
  Seed = loadField(Call, FSeed, B.getI64Type());
  Scratch = loadField(Call, FScratch, ptrType());
  Value Block = fieldIndex(FObsBlock);
  Value BlockGiven = B.create<arith::CmpIOp>(Loc, arith::CmpIPredicate::sgt,
                                             Block, idx(0));
  ObsBlock = B.create<arith::SelectOp>(Loc, BlockGiven, Block,
                                       idx(DefaultObsBlock));
  Value DimsPtr = loadField(Call, FDims, ptrType());
  for (size_t I = 0; I < Model.getSymbols().size(); ++I)
    DimValues.push_back(toIndex(B.create<LLVM::LoadOp>(
        Loc, B.getI64Type(), gep(DimsPtr, B.getI64Type(), i64(I)))));

  SmallVector<Operation *> Global, Obs;
  for (Operation &Op : Model.getBody().front())
    (isObsOp(&Op, Model.getObsDim()) ? Obs : Global).push_back(&Op);
  planScratch(Global, Obs);
  Value Code = B.create<LLVM::LoadOp>(Loc, B.getI32Type(), Status);
  Value Ok = B.create<arith::CmpIOp>(
      Loc, arith::CmpIPredicate::eq, Code,
      B.create<arith::ConstantIntOp>(Loc, 0, 32));
  auto Run = B.create<scf::IfOp>(Loc, Ok, false);
  {
    OpBuilder::InsertionGuard G(B);
    B.setInsertionPointToStart(Run.thenBlock());
    auto DrawLoop = B.create<scf::ForOp>(Loc, DrawBegin, DrawEnd, idx(1));
    B.setInsertionPointToStart(DrawLoop.getBody());
    Draw = DrawLoop.getInductionVar();
    BlockStart = Value();
    for (Operation *Op : Global)
      emit(Op);
    auto ObsLoop = B.create<scf::ForOp>(Loc, ObsBegin, ObsEnd, ObsBlock);
    B.setInsertionPointToStart(ObsLoop.getBody());
    BlockStart = ObsLoop.getInductionVar();
    BlockLen = B.create<arith::MinSIOp>(
        Loc, ObsBlock, B.create<arith::SubIOp>(Loc, ObsEnd, BlockStart));
    for (Operation *Op : Obs)
      emit(Op);
  }
  Value Result = B.create<LLVM::LoadOp>(Loc, B.getI32Type(), Status);
  B.create<scf::YieldOp>(Loc, Result);
  B.setInsertionPointAfter(AbiIf);
  B.create<func::ReturnOp>(Loc, AbiIf.getResult(0));
  return F;
}

/// The prior predictive is the posterior predictive with no posterior:
/// a copy of the call whose posterior table is all NULL, passed on to
/// aimz_predict (one kernel instead of two: half the code to compile).
void buildPriorWrapper(ir::ModelOp Model, OpBuilder &B) {
  Location Loc = Model.getLoc();
  MLIRContext *Ctx = Model.getContext();
  auto Module = Model->getParentOfType<ModuleOp>();
  int64_t Sites = 0;
  Model.getBody().walk([&](Operation *Op) {
    if (auto Id = Op->getAttrOfType<IntegerAttr>("site_id"))
      Sites = std::max(Sites, Id.getInt() + 1);
  });
  auto Ptr = LLVM::LLVMPointerType::get(Ctx);
  auto I64 = B.getI64Type();
  B.setInsertionPointToEnd(Module.getBody());
  auto F = B.create<func::FuncOp>(Loc, "aimz_prior_predictive",
                                  B.getFunctionType({Ptr}, {B.getI32Type()}));
  B.setInsertionPointToStart(F.addEntryBlock());
  Value Call = F.getArgument(0);
  auto C64 = [&](int64_t V) {
    return B.create<arith::ConstantIntOp>(Loc, V, 64);
  };
  constexpr int64_t Fields = FResultObsOrigin + 1;
  Value Copy = B.create<LLVM::AllocaOp>(Loc, Ptr, I64, C64(Fields));
  B.create<LLVM::MemcpyOp>(Loc, Copy, Call, C64(Fields * 8), false);
  Value Table = B.create<LLVM::AllocaOp>(Loc, Ptr, I64, C64(2 * Sites));
  B.create<LLVM::MemsetOp>(Loc, Table,
                           B.create<arith::ConstantIntOp>(Loc, 0, 8),
                           C64(16 * Sites), false);
  auto Field = [&](Value Base, int64_t Index) {
    return B.create<LLVM::GEPOp>(Loc, Ptr, I64, Base, ValueRange{C64(Index)});
  };
  B.create<LLVM::StoreOp>(Loc, Table, Field(Copy, FPosterior));
  auto Predict = Module.lookupSymbol<func::FuncOp>("aimz_predict");
  Value R = B.create<func::CallOp>(Loc, Predict, ValueRange{Copy}).getResult(0);
  // The scratch protocol reports through the caller's struct.
  Value Needed = B.create<LLVM::LoadOp>(Loc, I64, Field(Copy, FScratchNeeded));
  B.create<LLVM::StoreOp>(Loc, Needed, Field(Call, FScratchNeeded));
  B.create<func::ReturnOp>(Loc, R);
}

struct LowerModelToLoopsPass
    : PassWrapper<LowerModelToLoopsPass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(LowerModelToLoopsPass)

  StringRef getArgument() const override { return "aimz-lower-to-loops"; }
  StringRef getDescription() const override {
    return "Lower aimz.model to the three C entry points (predict, "
           "log-likelihood, prior predictive) in scf/arith/math/llvm";
  }
  void getDependentDialects(DialectRegistry &R) const override {
    R.insert<arith::ArithDialect, func::FuncDialect, LLVM::LLVMDialect,
             math::MathDialect, scf::SCFDialect>();
  }
  void runOnOperation() override {
    ModuleOp Module = getOperation();
    SmallVector<ir::ModelOp> Models(Module.getOps<ir::ModelOp>());
    if (Models.size() != 1) {
      Module.emitError("expected exactly one aimz.model");
      return signalPassFailure();
    }
    ir::ModelOp Model = Models.front();
    OpBuilder B(Module.getContext());
    EntryBuilder(Model, Entry::Predict, B).build("aimz_predict");
    EntryBuilder(Model, Entry::LogLikelihood, B).build("aimz_log_likelihood");
    buildPriorWrapper(Model, B);
    // Keep what the later stages need to describe the library.
    Module->setAttr("aimz.manifest", Model.getManifestAttr());
    Model.erase();
  }
};

} // namespace

void registerLowerModelToLoopsPass() {
  PassRegistration<LowerModelToLoopsPass>();
}

std::unique_ptr<Pass> createLowerModelToLoopsPass() {
  return std::make_unique<LowerModelToLoopsPass>();
}

} // namespace aimz
