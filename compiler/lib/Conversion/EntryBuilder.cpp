//===- EntryBuilder.cpp - The frame, views, scratch and loops ------------===//
//
// The entry point's frame (the ABI check, the call's fields, the scratch
// plan, the draw and block loops with the model's ops cloned into them),
// the conversion that rewrites those ops with each family's patterns, and
// what every family uses: symbolic sizes, strided views of the caller's
// arrays and of scratch, loads and stores, loop nests.
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
      T = B->create<arith::MulIOp>(Loc, T, extentOf(N));
    Sum = B->create<arith::AddIOp>(Loc, Sum, T);
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
    P = B->create<arith::MulIOp>(Loc, P, V);
  return P;
}

func::FuncOp EntryBuilder::runtimeFunction(StringRef Name, TypeRange Args,
                                           TypeRange Results) {
  auto Module = Model->getParentOfType<ModuleOp>();
  if (auto F = Module.lookupSymbol<func::FuncOp>(Name))
    return F;
  OpBuilder::InsertionGuard G(*B);
  B->setInsertionPointToStart(Module.getBody());
  auto F = B->create<func::FuncOp>(Loc, Name, B->getFunctionType(Args, Results));
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
    if (!needsBuffer(Op) || Fused.contains(Op))
      return;
    auto T = cast<ir::ArrayType>(Op->getResult(0).getType());
    auto Take = [&](ir::ArrayType T) {
      Value Bytes =
          B->create<arith::MulIOp>(Loc, product(sizesOf(T, true)),
                                  idx(byteWidth(T.getElementType())));
      Value Rounded = B->create<arith::MulIOp>(
          Loc,
          B->create<arith::DivUIOp>(
              Loc, B->create<arith::AddIOp>(Loc, Bytes, idx(BufferAlign - 1)),
              idx(BufferAlign)),
          idx(BufferAlign));
      Value At = Offset;
      Offset = B->create<arith::AddIOp>(Loc, Offset, Rounded);
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
    // An inverse eliminates on a copy of its matrices; a sort merges
    // positions between two index buffers.
    if (isa<ir::InverseOp>(Op))
      CopyOffsets[Op] = Take(T);
    if (isa<ir::SortOp>(Op)) {
      auto Positions = ir::ArrayType::get(Ctx, T.getDims(), B->getI64Type());
      CopyOffsets[Op] = Take(Positions);
      WorkOffsets[Op] = Take(Positions);
    }
    // A vector log_prob scores a copy of its values in its precision.
    if (auto LP = dyn_cast<ir::LogProbOp>(Op)) {
      auto VT = LP.getValue().getType();
      if (distCall(LP.getDist(), distOperands(LP).Names).ValueEventRank)
        CopyOffsets[Op] = Take(ir::ArrayType::get(Ctx, VT.getDims(),
                                                  T.getElementType()));
    }
  };
  for (Operation *Op : Global)
    Reserve(Op);
  for (Operation *Op : Obs)
    Reserve(Op);
  for (Operation *Op : Obs)
    if (auto M = dyn_cast<ir::MatMulOp>(Op);
        M && packsLeftSide(M, Model.getObsDim())) {
      PackOffsets[Op] = Offset;
      Offset = B->create<arith::AddIOp>(Loc, Offset, packedBytes(M));
    }
  // scratch_needed = total; fail early when the caller gave less.
  Value Total = toI64(Offset);
  B->create<LLVM::StoreOp>(Loc, Total,
                          gep(Call, B->getI64Type(), i64(FScratchNeeded)));
  Value Have = loadField(Call, FScratchBytes, B->getI64Type());
  Value TooSmall =
      B->create<arith::CmpIOp>(Loc, arith::CmpIPredicate::sgt, Total, Have);
  Value Code = B->create<arith::SelectOp>(
      Loc, TooSmall, B->create<arith::ConstantIntOp>(Loc, AIMZ_SCRATCH_TOO_SMALL, 32),
      B->create<arith::ConstantIntOp>(Loc, 0, 32));
  B->create<LLVM::StoreOp>(Loc, Code, Status);
}

View EntryBuilder::buffer(Operation *Op, ir::ArrayType T) {
  return bufferAt(Offsets.lookup(Op), T);
}

/// A contiguous array of type T at byte `Offset` of scratch.
View EntryBuilder::bufferAt(Value Offset, ir::ArrayType T) {
  View V;
  V.Elem = T.getElementType();
  V.Sizes = sizesOf(T, false);
  V.Ptr = gep(Scratch, B->getI8Type(), toI64(Offset));
  // Contiguous, laid out for the full block so offsets stay fixed.
  SmallVector<Value> Alloc = sizesOf(T, true);
  V.Strides.resize(Alloc.size());
  Value S = idx(1);
  for (int I = Alloc.size() - 1; I >= 0; --I) {
    V.Strides[I] = S;
    S = B->create<arith::MulIOp>(Loc, S, Alloc[I]);
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
  Value Entry = gep(Table, B->getI64Type(), i64(2 * Slot));
  Value Data = B->create<LLVM::LoadOp>(Loc, ptrType(), Entry);
  Value StridesPtr = B->create<LLVM::LoadOp>(
      Loc, ptrType(), gep(Entry, B->getI64Type(), i64(1)));
  View V;
  V.Elem = T.getElementType();
  V.Sizes = sizesOf(T, false);
  int Base = DrawDim ? 1 : 0;
  Value Offset = idx(0);
  if (DrawDim) {
    Value S0 = toIndex(B->create<LLVM::LoadOp>(Loc, B->getI64Type(), StridesPtr));
    Offset = B->create<arith::MulIOp>(Loc, DrawIndex, S0);
  }
  int Axis = obsAxis(T);
  for (unsigned I = 0; I < T.getRank(); ++I) {
    Value S = toIndex(B->create<LLVM::LoadOp>(
        Loc, B->getI64Type(), gep(StridesPtr, B->getI64Type(), i64(Base + I))));
    V.Strides.push_back(S);
    if (static_cast<int>(I) == Axis)
      Offset = B->create<arith::AddIOp>(
          Loc, Offset, B->create<arith::MulIOp>(Loc, ObsOffset, S));
  }
  V.Ptr = gep(Data, storageType(V.Elem), toI64(Offset));
  return V;
}

Value EntryBuilder::load(const View &V, ValueRange Ivs) {
  if (V.Scalar)
    return V.Scalar;
  Value Off = idx(0);
  for (auto [Iv, S] : llvm::zip(Ivs, V.Strides))
    Off = B->create<arith::AddIOp>(Loc, Off, B->create<arith::MulIOp>(Loc, Iv, S));
  Type St = storageType(V.Elem);
  Value X = B->create<LLVM::LoadOp>(Loc, St, gep(V.Ptr, St, toI64(Off)));
  if (St != V.Elem)
    X = B->create<arith::TruncIOp>(Loc, V.Elem, X);
  return X;
}

void EntryBuilder::store(const View &V, ValueRange Ivs, Value X) {
  Value Off = idx(0);
  for (auto [Iv, S] : llvm::zip(Ivs, V.Strides))
    Off = B->create<arith::AddIOp>(Loc, Off, B->create<arith::MulIOp>(Loc, Iv, S));
  Type St = storageType(V.Elem);
  if (St != X.getType())
    X = B->create<arith::ExtUIOp>(Loc, St, X);
  B->create<LLVM::StoreOp>(Loc, X, gep(V.Ptr, St, toI64(Off)));
}

void EntryBuilder::forEach(ArrayRef<Value> Sizes,
                           function_ref<void(ValueRange)> Body) {
  SmallVector<Value> Ivs;
  std::function<void(size_t)> Nest = [&](size_t D) {
    if (D == Sizes.size()) {
      Body(Ivs);
      return;
    }
    auto For = B->create<scf::ForOp>(Loc, idx(0), Sizes[D], idx(1));
    OpBuilder::InsertionGuard G(*B);
    B->setInsertionPointToStart(For.getBody());
    Ivs.push_back(For.getInductionVar());
    Nest(D + 1);
    Ivs.pop_back();
  };
  Nest(0);
}

std::string precisionSuffix(Type T) {
  return T.isF64() ? "f64" : "f32";
}

std::string elementSuffix(Type T) {
  if (T.isInteger(32))
    return "i32";
  if (T.isInteger(64))
    return "i64";
  return precisionSuffix(T);
}

Value EntryBuilder::siteWanted(int64_t SiteId) {
  Value Table = loadField(Call, FResults, ptrType());
  Value Data = B->create<LLVM::LoadOp>(
      Loc, ptrType(), gep(Table, B->getI64Type(), i64(2 * SiteId)));
  return B->create<LLVM::ICmpOp>(Loc, LLVM::ICmpPredicate::ne, Data,
                                B->create<LLVM::ZeroOp>(Loc, ptrType()));
}

/// A view as the cast of its parts to the op's type: the scalar or the
/// pointer, the sizes, the strides. No parts: the value was not computed
/// in this entry (a factor of the predictive, an op no asked site needs).
Value EntryBuilder::pack(const std::optional<View> &V, Type T) {
  SmallVector<Value> Parts;
  if (V) {
    if (V->Elem != cast<ir::ArrayType>(T).getElementType())
      llvm::report_fatal_error("aimz lowering: a view's element type is not "
                               "its value's");
    Parts.push_back(V->Scalar ? V->Scalar : V->Ptr);
    Parts.append(V->Sizes.begin(), V->Sizes.end());
    Parts.append(V->Strides.begin(), V->Strides.end());
  }
  return B->create<UnrealizedConversionCastOp>(Loc, T, Parts).getResult(0);
}

View EntryBuilder::viewOf(Value Original) {
  FailureOr<Value> Mapped = Rewriter->getRemappedValue(Original);
  auto Cast = succeeded(Mapped)
                  ? Mapped->getDefiningOp<UnrealizedConversionCastOp>()
                  : UnrealizedConversionCastOp();
  if (!Cast || Cast.getInputs().empty())
    llvm::report_fatal_error("aimz lowering: a value is read before it is "
                             "lowered, or where it is not computed");
  ValueRange Parts = Cast.getInputs();
  View V;
  V.Elem = cast<ir::ArrayType>(Original.getType()).getElementType();
  (isa<LLVM::LLVMPointerType>(Parts[0].getType()) ? V.Ptr : V.Scalar) =
      Parts[0];
  size_t Rank = (Parts.size() - 1) / 2;
  V.Sizes.assign(Parts.begin() + 1, Parts.begin() + 1 + Rank);
  V.Strides.assign(Parts.begin() + 1 + Rank, Parts.end());
  return V;
}

SmallVector<View> EntryBuilder::viewsOf(ValueRange Originals) {
  SmallVector<View> Vs;
  for (Value O : Originals)
    Vs.push_back(viewOf(O));
  return Vs;
}

LogicalResult EntryBuilder::lowerOp(Operation *Op,
                                    ConversionPatternRewriter &R,
                                    function_ref<std::optional<View>()> Lower) {
  OpBuilder *Frame = B;
  B = &R;
  Rewriter = &R;
  Loc = Op->getLoc();
  // With a joint site every op is in the one block: a global value may
  // reduce an observation value, whose extent is the block's.
  bool InBlock =
      Model.getJointObservations() || isObsOp(Op, Model.getObsDim());
  BlockStart = InBlock ? ObsIv : Value();
  BlockLen = InBlock ? ObsLen : Value();
  std::optional<View> Result;
  auto It = Demand.find(Op);
  bool Always = It == Demand.end() || It->second.Always;
  if (Fused.contains(Op)) {
    // Computed element by element in its user's loop (elementAt).
  } else if (!Always && It->second.Sites.empty()) {
    // No recorded site reads it (nor, then, any op that would run).
  } else if (Always || !needsBuffer(Op) || Op->getNumResults() != 1) {
    Result = Lower();
  } else {
    // Run only when a site that needs the value is asked for. The value's
    // view is made before the test, where later ops can use it; the op
    // fills the same scratch inside.
    Value Wanted;
    for (int64_t S : It->second.Sites) {
      Value W = siteWanted(S);
      Wanted = Wanted ? B->create<arith::OrIOp>(Loc, Wanted, W).getResult() : W;
    }
    Result = buffer(Op, cast<ir::ArrayType>(Op->getResult(0).getType()));
    auto If = B->create<scf::IfOp>(Loc, Wanted, /*withElse=*/false);
    OpBuilder::InsertionGuard G(R);
    R.setInsertionPointToStart(If.thenBlock());
    Lower();
  }
  SmallVector<Value> Replacements;
  for (Value V : Op->getResults())
    Replacements.push_back(pack(Result, V.getType()));
  R.replaceOp(Op, Replacements);
  B = Frame;
  Rewriter = nullptr;
  return success();
}

void EntryBuilder::loadCallFields() {
  Status = B->create<LLVM::AllocaOp>(Loc, ptrType(), B->getI32Type(), i64(1));
  DrawBegin = fieldIndex(FDrawBegin);
  DrawEnd = fieldIndex(FDrawEnd);
  ObsBegin = fieldIndex(FObsBegin);
  ObsEnd = fieldIndex(FObsEnd);
  InputOrigin = fieldIndex(FInputOrigin);
  ResultDraw0 = fieldIndex(FResultDrawOrigin);
  ResultObs0 = fieldIndex(FResultObsOrigin);
  Seed = loadField(Call, FSeed, B->getI64Type());
  Scratch = loadField(Call, FScratch, ptrType());
  Value Block = fieldIndex(FObsBlock);
  Value BlockGiven = B->create<arith::CmpIOp>(Loc, arith::CmpIPredicate::sgt,
                                             Block, idx(0));
  ObsBlock = B->create<arith::SelectOp>(Loc, BlockGiven, Block,
                                       idx(DefaultObsBlock));
  // A joint site: one block of every observation, whatever was asked
  // (at least 1, since sizes divide by it).
  if (Model.getJointObservations())
    ObsBlock = B->create<arith::MaxSIOp>(
        Loc, B->create<arith::SubIOp>(Loc, ObsEnd, ObsBegin), idx(1));
  Value DimsPtr = loadField(Call, FDims, ptrType());
  for (size_t I = 0; I < Model.getSymbols().size(); ++I)
    DimValues.push_back(toIndex(B->create<LLVM::LoadOp>(
        Loc, B->getI64Type(), gep(DimsPtr, B->getI64Type(), i64(I)))));
}

/// A joint site's density couples every observation: a call over part of
/// them would compute another model's, so it fails instead.
void EntryBuilder::requireEveryObservation() {
  Value Whole = B->create<arith::AndIOp>(
      Loc,
      B->create<arith::CmpIOp>(Loc, arith::CmpIPredicate::eq, ObsBegin,
                               idx(0)),
      B->create<arith::CmpIOp>(Loc, arith::CmpIPredicate::eq, ObsEnd,
                               extentOf(Model.getObsDim())));
  Value Code = B->create<LLVM::LoadOp>(Loc, B->getI32Type(), Status);
  B->create<LLVM::StoreOp>(
      Loc,
      B->create<arith::SelectOp>(
          Loc, Whole, Code,
          B->create<arith::ConstantIntOp>(Loc, AIMZ_NEEDS_ALL_OBSERVATIONS,
                                          32)),
      Status);
}

/// Clones the model's ops into the loops (observation ops before `ObsAt`,
/// the others before `GlobalAt`) and moves every per-op plan to the clones.
void EntryBuilder::cloneBody(Operation *ObsAt, Operation *GlobalAt) {
  IRMapping Map;
  DenseMap<Operation *, Operation *> Clones;
  OpBuilder::InsertionGuard G(*B);
  for (Operation &Op : Model.getBody().front()) {
    B->setInsertionPoint(isObsOp(&Op, Model.getObsDim()) ? ObsAt : GlobalAt);
    Clones[&Op] = B->clone(Op, Map);
  }
  for (auto *Plan : {&Offsets, &CopyOffsets, &WorkOffsets, &PackOffsets}) {
    DenseMap<Operation *, Value> Moved;
    for (auto &[Op, V] : *Plan)
      Moved[Clones.lookup(Op)] = V;
    *Plan = std::move(Moved);
  }
  DenseMap<Operation *, SiteDemand> Moved;
  for (auto &[Op, D] : Demand)
    Moved[Clones.lookup(Op)] = D;
  Demand = std::move(Moved);
  DenseSet<Operation *> FusedClones;
  for (Operation *Op : Fused)
    FusedClones.insert(Clones.lookup(Op));
  Fused = std::move(FusedClones);
}

/// Every aimz op of F through its family's patterns; the views' casts,
/// unused once every op is rewritten, go.
LogicalResult EntryBuilder::convertOps(func::FuncOp F) {
  RewritePatternSet Patterns(Ctx);
  populateViewLowering(Patterns, *this);
  populateElementwiseLowering(Patterns, *this);
  populateSiteLowering(Patterns, *this);
  populateLinearAlgebraLowering(Patterns, *this);
  populateArrayLowering(Patterns, *this);
  ConversionTarget Target(*Ctx);
  Target.addIllegalDialect<ir::AimzDialect>();
  Target.addLegalDialect<arith::ArithDialect, func::FuncDialect,
                         LLVM::LLVMDialect, math::MathDialect,
                         scf::SCFDialect>();
  Target.addLegalOp<UnrealizedConversionCastOp>();
  if (failed(applyFullConversion(F, Target, std::move(Patterns))))
    return failure();
  bool Dangling = false;
  F.walk([&](UnrealizedConversionCastOp C) {
    if (!isa<ir::ArrayType>(C.getResult(0).getType()))
      return;
    if (C->use_empty())
      C.erase();
    else
      Dangling = true;
  });
  if (Dangling)
    return F.emitError("internal error: an aimz value is still used after "
                       "lowering");
  return success();
}

func::FuncOp EntryBuilder::build(StringRef Name) {
  auto Module = Model->getParentOfType<ModuleOp>();
  B->setInsertionPointToEnd(Module.getBody());
  auto F = B->create<func::FuncOp>(
      Loc, Name, B->getFunctionType({ptrType()}, {B->getI32Type()}));
  Block *Entry = F.addEntryBlock();
  EntryBlock = Entry;
  B->setInsertionPointToStart(Entry);
  Call = F.getArgument(0);

  // Refuse a caller built against another ABI.
  Value Abi = loadField(Call, FAbi, B->getI64Type());
  Value AbiOk = B->create<arith::CmpIOp>(Loc, arith::CmpIPredicate::eq, Abi,
                                         i64(AIMZ_ABI_VERSION));
  auto AbiIf = B->create<scf::IfOp>(Loc, B->getI32Type(), AbiOk, true);
  B->setInsertionPointToStart(AbiIf.elseBlock());
  B->create<scf::YieldOp>(
      Loc, ValueRange{B->create<arith::ConstantIntOp>(
               Loc, AIMZ_BAD_ABI_VERSION, 32)});
  B->setInsertionPointToStart(AbiIf.thenBlock());

  loadCallFields();
  Demand = computeSiteDemand(Model.getBody().front(), Kind);
  Fused = chooseFused(Model.getBody().front(), Model.getObsDim());
  SmallVector<Operation *> Global, Obs;
  for (Operation &Op : Model.getBody().front())
    (isObsOp(&Op, Model.getObsDim()) ? Obs : Global).push_back(&Op);
  planScratch(Global, Obs);
  if (Model.getJointObservations())
    requireEveryObservation();
  Value Code = B->create<LLVM::LoadOp>(Loc, B->getI32Type(), Status);
  Value Ok = B->create<arith::CmpIOp>(
      Loc, arith::CmpIPredicate::eq, Code,
      B->create<arith::ConstantIntOp>(Loc, 0, 32));
  auto Run = B->create<scf::IfOp>(Loc, Ok, false);
  {
    OpBuilder::InsertionGuard G(*B);
    B->setInsertionPointToStart(Run.thenBlock());
    for (Operation *Op : Obs)
      if (PackOffsets.count(Op))
        emitPack(cast<ir::MatMulOp>(Op));
    auto DrawLoop = B->create<scf::ForOp>(Loc, DrawBegin, DrawEnd, idx(1));
    B->setInsertionPointToStart(DrawLoop.getBody());
    Draw = DrawLoop.getInductionVar();
    if (Model.getJointObservations()) {
      // Every observation is one block: every op runs once per draw, in
      // program order (a global value may reduce an observation value).
      Operation *End = DrawLoop.getBody()->getTerminator();
      ObsIv = ObsBegin;
      ObsLen = B->create<arith::SubIOp>(Loc, ObsEnd, ObsBegin);
      cloneBody(End, End);
    } else {
      auto ObsLoop = B->create<scf::ForOp>(Loc, ObsBegin, ObsEnd, ObsBlock);
      B->setInsertionPointToStart(ObsLoop.getBody());
      ObsIv = ObsLoop.getInductionVar();
      ObsLen = B->create<arith::MinSIOp>(
          Loc, ObsBlock, B->create<arith::SubIOp>(Loc, ObsEnd, ObsIv));
      cloneBody(ObsLoop.getBody()->getTerminator(), ObsLoop);
    }
  }
  Value Result = B->create<LLVM::LoadOp>(Loc, B->getI32Type(), Status);
  B->create<scf::YieldOp>(Loc, Result);
  B->setInsertionPointAfter(AbiIf);
  B->create<func::ReturnOp>(Loc, AbiIf.getResult(0));
  if (failed(convertOps(F)))
    return nullptr;
  return F;
}

} // namespace lowering
} // namespace aimz
