//===- EntryBuilder.cpp - Views, scratch and loops -----------------------===//
//
// The parts of an entry point every op family uses: symbolic sizes, the
// scratch plan, strided views of the caller's arrays, loads and stores,
// loop nests, and the dispatch from aimz ops to their lowering.
//
//===----------------------------------------------------------------------===//
#include "EntryBuilder.h"
#include "aimz/DimExpr.h"
#include "aimz/abi.h"

#include <limits>

namespace aimz {
namespace lowering {

// The field indices and the ABI: checked once, here.
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
  return extentOf(Name);
}

/// The whole extent of a symbol, or of arithmetic on symbols (`K - 1`:
/// Sema keeps the observation axis out of arithmetic).
Value EntryBuilder::extentOf(StringRef Text) {
  for (auto [I, S] : llvm::enumerate(Model.getSymbols()))
    if (cast<StringAttr>(S).getValue() == Text)
      return DimValues[I];
  auto P = DimPoly::parse(Text.str());
  assert(P && "the verifier accepted only symbols and their arithmetic");
  Value Sum = idx(0);
  for (const auto &[Mono, Coeff] : P->Terms) {
    Value T = idx(Coeff);
    for (const std::string &N : Mono)
      T = B.create<arith::MulIOp>(Loc, T, extentOf(N));
    Sum = B.create<arith::AddIOp>(Loc, Sum, T);
  }
  return Sum;
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
  return !isa<ir::InputOp, ir::ConstantOp, ir::DimOp, ir::BroadcastOp,
              ir::SliceOp, ir::TransposeOp>(Op);
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
  for (Operation *Op : Obs)
    if (auto M = dyn_cast<ir::MatMulOp>(Op);
        M && packsLeftSide(M, Model.getObsDim())) {
      PackOffsets[Op] = Offset;
      Offset = B.create<arith::AddIOp>(Loc, Offset, packedBytes(M));
    }
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

std::string precisionSuffix(Type T) {
  return T.isF64() ? "f64" : "f32";
}

void EntryBuilder::emit(Operation *Op) {
  Location Saved = Loc;
  Loc = Op->getLoc();
  emitOp(Op);
  Loc = Saved;
}

Value EntryBuilder::siteWanted(int64_t SiteId) {
  Value Table = loadField(Call, FResults, ptrType());
  Value Data = B.create<LLVM::LoadOp>(
      Loc, ptrType(), gep(Table, B.getI64Type(), i64(2 * SiteId)));
  return B.create<LLVM::ICmpOp>(Loc, LLVM::ICmpPredicate::ne, Data,
                                B.create<LLVM::ZeroOp>(Loc, ptrType()));
}

void EntryBuilder::emitDemanded(Operation *Op) {
  auto It = Demand.find(Op);
  if (!needsBuffer(Op) || Op->getNumResults() != 1 || It == Demand.end() ||
      It->second.Always)
    return emit(Op);
  const SiteDemand &D = It->second;
  if (D.Sites.empty())
    return; // No recorded site reads it.
  Location Saved = Loc;
  Loc = Op->getLoc();
  Value Wanted;
  for (int64_t S : D.Sites) {
    Value W = siteWanted(S);
    Wanted = Wanted ? B.create<arith::OrIOp>(Loc, Wanted, W).getResult() : W;
  }
  // The value's view is made before the test, where later ops can use it;
  // the op fills the same scratch inside.
  View Out = buffer(Op, cast<ir::ArrayType>(Op->getResult(0).getType()));
  auto If = B.create<scf::IfOp>(Loc, Wanted, /*withElse=*/false);
  {
    OpBuilder::InsertionGuard G(B);
    B.setInsertionPointToStart(If.thenBlock());
    emit(Op);
  }
  Views[Op->getResult(0)] = Out;
  Loc = Saved;
}

void EntryBuilder::emitOp(Operation *Op) {
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
  if (auto D = dyn_cast<ir::DimOp>(Op)) {
    // The whole extent from the dims array (dimSize gives the block's for
    // the observation axis).
    View V;
    V.Elem = B.getI64Type();
    V.Scalar = toI64(extentOf(D.getName()));
    Views[D.getResult()] = V;
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
  if (auto Sl = dyn_cast<ir::SliceOp>(Op))
    return emitSlice(Sl);
  if (auto Tr = dyn_cast<ir::TransposeOp>(Op))
    return emitTranspose(Tr);
  if (auto Io = dyn_cast<ir::IotaOp>(Op))
    return emitIota(Io);
  if (isa<ir::CastOp, ir::UnaryOp, ir::BinaryOp, ir::SelectOp>(Op))
    return emitElementwise(Op);
  if (auto M = dyn_cast<ir::MatMulOp>(Op))
    return emitMatMul(M);
  if (auto L = dyn_cast<ir::LogProbOp>(Op))
    return emitLogProb(L);
  if (auto R = dyn_cast<ir::ReduceOp>(Op))
    return emitReduce(R);
  if (auto C = dyn_cast<ir::CumSumOp>(Op))
    return emitCumSum(C);
  if (auto G = dyn_cast<ir::GatherOp>(Op))
    return emitGather(G);
  if (auto Ch = dyn_cast<ir::CholeskyOp>(Op))
    return emitCholesky(Ch);
  if (auto St = dyn_cast<ir::StackOp>(Op))
    return emitStack(St);
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
    // Materialize (a copy) so a broadcast value reads out with real strides;
    // an intervention's value (posterior[site] given) replaces it, and
    // everything after reads that.
    auto T = D.getResult().getType();
    View Out = buffer(Op, T);
    const View In = Views.lookup(D.getValue());
    givenOr(D.getSiteId(), T, Out, [&] {
      forEach(Out.Sizes, [&](ValueRange Ivs) { store(Out, Ivs, load(In, Ivs)); });
    });
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
  ObsEnd = fieldIndex(FObsEnd);
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

  Demand = computeSiteDemand(Model.getBody().front(), Kind);
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
    for (Operation *Op : Obs)
      if (PackOffsets.count(Op))
        emitPack(cast<ir::MatMulOp>(Op));
    auto DrawLoop = B.create<scf::ForOp>(Loc, DrawBegin, DrawEnd, idx(1));
    B.setInsertionPointToStart(DrawLoop.getBody());
    Draw = DrawLoop.getInductionVar();
    BlockStart = Value();
    for (Operation *Op : Global)
      emitDemanded(Op);
    auto ObsLoop = B.create<scf::ForOp>(Loc, ObsBegin, ObsEnd, ObsBlock);
    B.setInsertionPointToStart(ObsLoop.getBody());
    BlockStart = ObsLoop.getInductionVar();
    BlockLen = B.create<arith::MinSIOp>(
        Loc, ObsBlock, B.create<arith::SubIOp>(Loc, ObsEnd, BlockStart));
    for (Operation *Op : Obs)
      emitDemanded(Op);
  }
  Value Result = B.create<LLVM::LoadOp>(Loc, B.getI32Type(), Status);
  B.create<scf::YieldOp>(Loc, Result);
  B.setInsertionPointAfter(AbiIf);
  B.create<func::ReturnOp>(Loc, AbiIf.getResult(0));
  return F;
}

} // namespace lowering
} // namespace aimz
