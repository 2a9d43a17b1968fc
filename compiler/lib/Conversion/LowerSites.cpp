//===- LowerSites.cpp - Sample, observe and copy-out ---------------------===//
//
// Sites: a latent read from the posterior or drawn, the output drawn or
// scored, scalar row samplers, the event (vector) distributions' strided
// calls, and the copy of recorded values into the caller's results.
//
//===----------------------------------------------------------------------===//
#include "EntryBuilder.h"
#include "aimz/abi.h"

namespace aimz {
namespace lowering {

RuntimeCall distCall(StringRef Dist, ArrayAttr ParamNames) {
  SmallVector<StringRef> Given;
  for (Attribute A : ParamNames)
    Given.push_back(cast<StringAttr>(A).getValue());
  std::optional<RuntimeCall> C = runtimeCall(Dist, Given);
  assert(C && "the verifier accepted an unknown distribution");
  return *C;
}

/// The model's precision, as the parameters have it (a row without
/// parameters, TruncatedPolyaGamma, is continuous: its value's).
Type paramPrecision(ir::ObserveOp Op) {
  ValueRange Params = Op.getParams();
  return cast<ir::ArrayType>(Params.empty() ? Op.getResult().getType()
                                            : Params[0].getType())
      .getElementType();
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
      ObsOut = toI64(B->create<arith::AddIOp>(Loc, BlockStart, Ivs[I]));
      continue;
    }
    Value Extent = dimSize(T.getDims()[I], false);
    Elem = B->create<arith::AddIOp>(
        Loc, B->create<arith::MulIOp>(Loc, Elem, Extent), Ivs[I]);
  }
  return toI64(Elem);
}

View EntryBuilder::emitSample(Operation *Op, StringRef Dist,
                              const ir::DistOperands &D, int64_t SiteId,
                              bool ReadsPosterior) {
  auto T = cast<ir::ArrayType>(Op->getResult(0).getType());
  ValueRange Params = D.Params;
  // A masked site draws as its base: the mask (last) only scores.
  RuntimeCall C = distCall(Dist, D.Names);
  if (C.Masked)
    Params = Params.drop_back();
  View Out = buffer(Op, T);
  Type Prec = Params.empty() ? T.getElementType()
                             : cast<ir::ArrayType>(Params[0].getType())
                                   .getElementType();
  // A flat prior (ImproperUniform) has no sampler: its values always come
  // from the posterior (aimz-run refuses a run without them); the draw
  // branch, never taken, writes NaN.
  if (const DistSpec *Spec = lookupDistribution(Dist); Spec && Spec->Improper) {
    auto DrawNaN = [&]() {
      Value NaN = B->create<arith::ConstantOp>(
          Loc, B->getFloatAttr(T.getElementType(),
                              std::numeric_limits<double>::quiet_NaN()));
      forEach(Out.Sizes, [&](ValueRange Ivs) { store(Out, Ivs, NaN); });
    };
    if (!ReadsPosterior)
      DrawNaN();
    else
      givenOr(SiteId, T, Out, DrawNaN);
    return Out;
  }
  std::function<void()> DrawAll = [&]() {
    emitEventSample(Op, C, Out, Params, SiteId, Prec);
  };
  if (!C.Components.empty()) {
    DrawAll = [&]() {
      emitGeneralMixtureSample(T, C, Out, Params, SiteId, Prec);
    };
  } else if (!C.Event) {
    std::string Fn = abi::supportFunction(abi::SupportFamily::Sample, C.Symbol,
                                          precisionSuffix(Prec));
    bool Discrete = T.getElementType().isInteger(32) ||
                    T.getElementType().isInteger(64) ||
                    T.getElementType().isInteger(1);
    Type Ret = Discrete ? Type(B->getI32Type()) : Prec;
    SmallVector<Type> ArgTypes(5, B->getI64Type());
    ArgTypes.append(ScalarParamSlots, Prec);
    // Called after this block: capture what it needs by value.
    size_t NumArgs = ArgTypes.size();
    // A straight-line sampler draws each innermost row with one call of its
    // row function, whose loop vectorizes (same values as per element).
    if (hasRowSampler(C.Symbol) && T.getRank() > 0 &&
        T.getElementType() == Ret && Params.size() <= RowParamSlots) {
      DrawAll = [&]() { emitRowSample(T, Out, C.Symbol, Params, SiteId, Prec); };
    } else {
      func::FuncOp Callee = runtimeFunction(Fn, ArgTypes, Ret);
      DrawAll = [&, Callee, NumArgs]() mutable {
      forEach(Out.Sizes, [&](ValueRange Ivs) {
        Value Obs;
        Value Elem = siteAddressElement(T, Ivs, Obs);
        SmallVector<Value> Args = {Seed, i64(SiteId), toI64(Draw), Obs, Elem};
        for (Value P : Params)
          Args.push_back(load(viewOf(P), Ivs));
        while (Args.size() < NumArgs)
          Args.push_back(
              B->create<arith::ConstantOp>(Loc, B->getFloatAttr(Prec, 0)));
        Value X = B->create<func::CallOp>(Loc, Callee, Args).getResult(0);
        store(Out, Ivs, convert(X, T.getElementType()));
      });
      };
    }
  }
  // A TransformedDistribution's draws go through its transforms; a
  // posterior's values are the site's own.
  std::function<void()> DrawMapped = [&]() {
    DrawAll();
    if (!D.Map.empty())
      applyValueMap(D, Out, Prec);
  };
  if (!ReadsPosterior)
    DrawMapped();
  else
    givenOr(SiteId, T, Out, DrawMapped);
  return Out;
}

/// posterior[site].data != NULL: copy the given draw (a posterior draw, or
/// an intervention's value) into Out, else run Otherwise (if any).
void EntryBuilder::givenOr(int64_t SiteId, ir::ArrayType T, const View &Out,
                           const std::function<void()> &Otherwise) {
  if (Value Got = siteCopyCall("given", SiteId, T, Out)) {
    if (!Otherwise)
      return;
    Value Missing =
        B->create<arith::CmpIOp>(Loc, arith::CmpIPredicate::eq, Got,
                                 B->create<arith::ConstantIntOp>(Loc, 0, 32));
    auto If = B->create<scf::IfOp>(Loc, Missing, /*withElse=*/false);
    OpBuilder::InsertionGuard G(*B);
    B->setInsertionPointToStart(If.thenBlock());
    Otherwise();
    return;
  }
  Value Table = loadField(Call, FPosterior, ptrType());
  Value Data = B->create<LLVM::LoadOp>(
      Loc, ptrType(), gep(Table, B->getI64Type(), i64(2 * SiteId)));
  Value Null = B->create<LLVM::ZeroOp>(Loc, ptrType());
  Value Given =
      B->create<LLVM::ICmpOp>(Loc, LLVM::ICmpPredicate::ne, Data, Null);
  auto If = B->create<scf::IfOp>(Loc, Given, /*withElse=*/bool(Otherwise));
  OpBuilder::InsertionGuard G(*B);
  B->setInsertionPointToStart(If.thenBlock());
  View Post = viewOfCallArray(FPosterior, SiteId, T, true, Draw, BlockStart);
  forEach(Out.Sizes, [&](ValueRange Ivs) { store(Out, Ivs, load(Post, Ivs)); });
  if (Otherwise) {
    B->setInsertionPointToStart(If.elseBlock());
    Otherwise();
  }
}

/// One element of stack memory, allocated once in the entry block (an
/// alloca inside the loops would grow the stack every iteration).
Value EntryBuilder::stackSlot(Type T) {
  OpBuilder::InsertionGuard G(*B);
  B->setInsertionPointToStart(EntryBlock);
  return B->create<LLVM::AllocaOp>(Loc, ptrType(), storageType(T), i64(1));
}

/// (pointer, stride of the second-to-last event axis, stride of the last)
/// of `V` at the batch position `BatchIvs`; a constant goes through a stack
/// slot repeated by zero strides.
void EntryBuilder::eventArgs(const View &V, ValueRange BatchIvs,
                             unsigned EventRank,
                             SmallVectorImpl<Value> &Args) {
  if (V.Scalar) {
    Value Slot = stackSlot(V.Elem);
    B->create<LLVM::StoreOp>(Loc, V.Scalar, Slot);
    Args.append({Slot, i64(0), i64(0)});
    return;
  }
  Value Off = idx(0);
  for (auto [Iv, S] : llvm::zip(BatchIvs, V.Strides))
    Off = B->create<arith::AddIOp>(Loc, Off, B->create<arith::MulIOp>(Loc, Iv, S));
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
  Value Null = B->create<LLVM::ZeroOp>(Loc, ptrType());
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

/// K, then the rows of a matrix value whose rows are their own count.
void EntryBuilder::appendEventSizes(const RuntimeCall &C, const View &Value0,
                                    ArrayRef<View> Params, unsigned BatchRank,
                                    SmallVectorImpl<Value> &Args) {
  Args.push_back(eventSize(C, Value0, Params, BatchRank));
  if (C.Rows)
    Args.push_back(toI64(Value0.Sizes[Value0.Sizes.size() - 2]));
}

ir::ArrayType EntryBuilder::logDensityType(ir::ObserveOp Op) {
  auto T = Op.getResult().getType();
  Type Prec = paramPrecision(Op);
  unsigned Event = distCall(Op.getDist(), distOperands(Op).Names).ValueEventRank;
  return ir::ArrayType::get(
      Ctx, B->getArrayAttr(T.getDims().getValue().drop_back(Event)), Prec);
}

void EntryBuilder::emitEventSample(Operation *Op, const RuntimeCall &C,
                                   const View &Out, ValueRange Params,
                                   int64_t SiteId, Type Prec) {
  auto T = cast<ir::ArrayType>(Op->getResult(0).getType());
  unsigned Rb = T.getRank() - C.ValueEventRank;
  Type Elem = T.getElementType();
  Type Native = isa<FloatType>(Elem) ? Prec : Type(B->getI32Type());
  SmallVector<View> PViews = viewsOf(Params);
  std::string Fn = abi::supportFunction(abi::SupportFamily::EventSample,
                                        C.Symbol, precisionSuffix(Prec));
  SmallVector<Type> ArgTypes(C.Rows ? 7 : 6, B->getI64Type());
  for (unsigned I = 0; I < 1 + EventParamSlots; ++I)
    ArgTypes.append({ptrType(), B->getI64Type(), B->getI64Type()});
  func::FuncOp Callee = runtimeFunction(Fn, ArgTypes, {});
  // A number per batch element goes through a slot when the site's type
  // is not the runtime's (an i64 output); vectors are checked by Sema.
  Value Slot = C.ValueEventRank == 0 && Native != Elem ? stackSlot(Native)
                                                       : Value();
  forEach(ArrayRef<Value>(Out.Sizes).take_front(Rb), [&](ValueRange Ivs) {
    Value Obs;
    Value ElemAddr = siteAddressElement(T, Ivs, Obs);
    SmallVector<Value> Args = {Seed, i64(SiteId), toI64(Draw), Obs, ElemAddr};
    appendEventSizes(C, Out, PViews, Rb, Args);
    if (Slot)
      Args.append({Slot, i64(0), i64(0)});
    else
      eventArgs(Out, Ivs, C.ValueEventRank, Args);
    appendEventParams(Params, PViews, Ivs, Rb, ArgTypes.size(), Args);
    B->create<func::CallOp>(Loc, Callee, Args);
    if (Slot)
      store(Out, Ivs,
            convert(B->create<LLVM::LoadOp>(Loc, Native, Slot), Elem));
  });
}

void EntryBuilder::emitEventLogDensity(Operation *Op, ir::ArrayType T,
                                       ValueRange Params, const RuntimeCall &C,
                                       const View &Y, const View &Out,
                                       Type Prec) {
  unsigned Rb = T.getRank() - C.ValueEventRank;
  SmallVector<View> PViews = viewsOf(Params);
  std::string Fn = abi::supportFunction(abi::SupportFamily::EventLogProb,
                                        C.Symbol, precisionSuffix(Prec));
  SmallVector<Type> ArgTypes = {ptrType(), B->getI64Type(), B->getI64Type(),
                                B->getI64Type()};
  if (C.Rows)
    ArgTypes.push_back(B->getI64Type());
  for (unsigned I = 0; I < EventParamSlots; ++I)
    ArgTypes.append({ptrType(), B->getI64Type(), B->getI64Type()});
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
      B->create<LLVM::StoreOp>(Loc, convert(load(Y, Ivs), Prec), Slot);
      Args.append({Slot, i64(0), i64(0)});
    } else {
      forEach(ArrayRef<Value>(Y.Sizes).drop_front(Rb), [&](ValueRange Ev) {
        SmallVector<Value> All(Ivs.begin(), Ivs.end());
        All.append(Ev.begin(), Ev.end());
        store(Copy, All, convert(load(Y, All), Prec));
      });
      eventArgs(Copy, Ivs, C.ValueEventRank, Args);
    }
    appendEventSizes(C, Y, PViews, Rb, Args);
    appendEventParams(Params, PViews, Ivs, Rb, ArgTypes.size(), Args);
    store(Out, Ivs, B->create<func::CallOp>(Loc, Callee, Args).getResult(0));
  });
}

/// One call of aimz_rt_sample_row_<symbol> per innermost row of the site:
/// the row's first (observation, element) address and how each advances
/// along the row (the innermost dim is the observation axis, or the fastest
/// of the element index).
void EntryBuilder::emitRowSample(ir::ArrayType T, const View &Out,
                                 StringRef Symbol, ValueRange Params,
                                 int64_t SiteId, Type Prec) {
  // Rows of observations call the row function that inlines into the
  // model and specializes to its strides; a global site's rows (short,
  // once per draw) its out-of-line copy, so that many vector latents do not
  // carry one inlined loop each.
  std::string Fn = abi::supportFunction(obsAxis(T) >= 0
                                            ? abi::SupportFamily::SampleRow
                                            : abi::SupportFamily::SampleRows,
                                        Symbol.str(), precisionSuffix(Prec));
  SmallVector<Type> ArgTypes(8, B->getI64Type());
  for (unsigned I = 0; I < 1 + RowParamSlots; ++I)
    ArgTypes.append({ptrType(), B->getI64Type()});
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
      RowArgs(viewOf(P));
    while (Args.size() < ArgTypes.size())
      Args.append({B->create<LLVM::ZeroOp>(Loc, ptrType()), i64(0)});
    B->create<func::CallOp>(Loc, Callee, Args);
  });
}

/// aimz_rt_<family>_<Symbol>_<prec>(Lead..., Params..., 0...): a scalar
/// row's sampler (Lead the stream's coordinates) or log density (Lead the
/// value), its parameter slots padded with zeros.
Value EntryBuilder::scalarRowCall(StringRef Symbol, abi::SupportFamily Family,
                                  Type Prec, Type Ret, ArrayRef<Value> Lead,
                                  ArrayRef<Value> Params) {
  SmallVector<Type> ArgTypes;
  for (Value V : Lead)
    ArgTypes.push_back(V.getType());
  ArgTypes.append(ScalarParamSlots, Prec);
  func::FuncOp Callee = runtimeFunction(
      abi::supportFunction(Family, Symbol.str(), precisionSuffix(Prec)),
      ArgTypes, Ret);
  SmallVector<Value> Args(Lead.begin(), Lead.end());
  Args.append(Params.begin(), Params.end());
  while (Args.size() < ArgTypes.size())
    Args.push_back(B->create<arith::ConstantOp>(Loc, B->getFloatAttr(Prec, 0)));
  return B->create<func::CallOp>(Loc, Callee, Args).getResult(0);
}

void EntryBuilder::emitScalarLogDensities(StringRef Symbol, Type Prec,
                                          const View &Y, ValueRange Params,
                                          const View &Out,
                                          abi::SupportFamily Family,
                                          const ir::DistOperands *Map) {
  SmallVector<View> PViews = viewsOf(Params);
  forEach(Out.Sizes, [&](ValueRange Ivs) {
    Value X = convert(load(Y, Ivs), Prec), LogDet, Outside;
    if (Map && !Map->Map.empty())
      X = invertValueMap(*Map, Ivs, X, LogDet, Outside);
    SmallVector<Value> Ps;
    for (const View &P : PViews)
      Ps.push_back(load(P, Ivs));
    Value L = scalarRowCall(Symbol, Family, Prec, Prec, {X}, Ps);
    if (LogDet)
      L = B->create<arith::SelectOp>(
          Loc, Outside,
          B->create<arith::ConstantOp>(
              Loc, B->getFloatAttr(Prec, -std::numeric_limits<double>::infinity())),
          B->create<arith::AddFOp>(Loc, L, LogDet));
    store(Out, Ivs, L);
  });
}

View EntryBuilder::lowerLogProb(ir::LogProbOp Op) {
  auto T = Op.getResult().getType();
  View Out = buffer(Op, T);
  ir::DistOperands D = distOperands(Op);
  RuntimeCall C = distCall(Op.getDist(), D.Names);
  if (!C.Components.empty()) {
    emitGeneralMixtureLogDensities(C, T.getElementType(),
                                   viewOf(Op.getValue()), D.Params, Out);
    return Out;
  }
  if (C.Event) { // a vector distribution (Sema allows only log_prob)
    emitEventLogDensity(Op, Op.getValue().getType(), D.Params, C,
                        viewOf(Op.getValue()), Out, T.getElementType());
    return Out;
  }
  auto Family = Op.getFn() == "log_cdf"    ? abi::SupportFamily::LogCdf
                : Op.getFn() == "log_ccdf" ? abi::SupportFamily::LogCcdf
                                           : abi::SupportFamily::LogProb;
  emitScalarLogDensities(C.Symbol, T.getElementType(), viewOf(Op.getValue()),
                         D.Params, Out, Family, &D);
  return Out;
}

/// The log-likelihood's observed site: its densities go to the site's
/// result slot; its value, for later ops, is the observed data.
View EntryBuilder::emitLogDensity(ir::ObserveOp Op) {
  auto T = Op.getResult().getType();
  Type Prec = paramPrecision(Op);
  // The observed values, viewed like an input.
  View Y = viewOfCallArray(FObserved, Op.getOutputIndex(), T, false, Value(),
                           B->create<arith::SubIOp>(Loc, BlockStart,
                                                   InputOrigin));
  ir::ArrayType LLType = logDensityType(Op);
  View Out = buffer(Op, LLType);
  ir::DistOperands D = distOperands(Op);
  RuntimeCall C = distCall(Op.getDist(), D.Names);
  if (!C.Components.empty())
    emitGeneralMixtureLogDensities(C, Prec, Y, D.Params, Out);
  else if (C.Event)
    emitEventLogDensity(Op, Op.getResult().getType(), D.Params, C, Y, Out,
                        Prec);
  else if (C.Masked)
    emitMaskedLogDensities(C.Symbol, Prec, Y, D.Params, Out);
  else
    emitScalarLogDensities(C.Symbol, Prec, Y, D.Params, Out,
                           abi::SupportFamily::LogProb, &D);
  // Write the densities to the output site's result slot.
  auto If = B->create<scf::IfOp>(Loc, siteWanted(Op.getSiteId()), false);
  OpBuilder::InsertionGuard G(*B);
  B->setInsertionPointToStart(If.thenBlock());
  View R = viewOfCallArray(FResults, Op.getSiteId(), LLType, true,
                           B->create<arith::SubIOp>(Loc, Draw, ResultDraw0),
                           B->create<arith::SubIOp>(Loc, BlockStart, ResultObs0));
  forEach(Out.Sizes, [&](ValueRange Ivs) { store(R, Ivs, load(Out, Ivs)); });
  return Y;
}

/// MaskedDistribution: the base's densities, then 0 where the mask (the
/// last parameter) is zero, whatever the value there (NumPyro's
/// `where(mask, log_prob, 0)`; a missing observation may hold NaN).
void EntryBuilder::emitMaskedLogDensities(StringRef Symbol, Type Prec,
                                          const View &Y, ValueRange Params,
                                          const View &Out) {
  emitScalarLogDensities(Symbol, Prec, Y, Params.drop_back(), Out);
  View Mask = viewOf(Params.back());
  Value Zero = B->create<arith::ConstantOp>(Loc, B->getFloatAttr(Prec, 0));
  forEach(Out.Sizes, [&](ValueRange Ivs) {
    Value M = convert(load(Mask, Ivs), Prec);
    Value Scored = B->create<arith::CmpFOp>(Loc, arith::CmpFPredicate::UNE, M,
                                            Zero);
    store(Out, Ivs,
          B->create<arith::SelectOp>(Loc, Scored, load(Out, Ivs), Zero));
  });
}

/// The copies of a site without an observation axis between its buffer V
/// (contiguous, from buffer()) and posterior[site] ("given": returns the i32
/// that says whether it copied) or results[site] ("emit": returns a
/// non-null placeholder), as one support call (ModelSupport.cpp):
/// aimz_rt_site_<What>_b<bytes>(call, site, draw, ptr) for a number,
/// aimz_rt_site_<What>_array_b<bytes>(call, site, draw, ptr, rank, n0, n1,
/// n2) for an array of rank 1 to 3. Inline, these loads, checks and loops
/// were most of a global site's code (and of the compile time of models with
/// many). Null where the copy stays inline (an observation axis, rank 4 and
/// more, a value held as a number).
Value EntryBuilder::siteCopyCall(StringRef What, int64_t SiteId,
                                 ir::ArrayType T, const View &V) {
  constexpr unsigned MaxRank = 3;
  if (V.Scalar || !V.Ptr || obsAxis(T) >= 0 || T.getRank() > MaxRank)
    return Value();
  bool Array = T.getRank() > 0;
  std::string Fn = abi::supportFunction(
      abi::SupportFamily::Site, (What + (Array ? "_array" : "")).str(),
      "b" + std::to_string(byteWidth(T.getElementType())));
  bool Given = What == "given";
  SmallVector<Type> Args = {ptrType(), B->getI64Type(), B->getI64Type(),
                            ptrType()};
  SmallVector<Value> Vals = {Call, i64(SiteId), toI64(Draw), V.Ptr};
  if (Array) {
    Args.append(1 + MaxRank, B->getI64Type());
    Vals.push_back(i64(T.getRank()));
    for (unsigned I = 0; I < MaxRank; ++I)
      Vals.push_back(I < V.Sizes.size() ? toI64(V.Sizes[I]) : i64(1));
  }
  SmallVector<Type> Results;
  if (Given)
    Results.push_back(B->getI32Type());
  func::FuncOp F = runtimeFunction(Fn, Args, Results);
  auto C = B->create<func::CallOp>(Loc, F, Vals);
  return Given ? C.getResult(0) : Value(V.Ptr);
}

void EntryBuilder::copyOut(Value V, const View &Src, int64_t SiteId) {
  auto T = cast<ir::ArrayType>(V.getType());
  if (siteCopyCall("emit", SiteId, T, Src))
    return;
  auto If = B->create<scf::IfOp>(Loc, siteWanted(SiteId), false);
  OpBuilder::InsertionGuard G(*B);
  B->setInsertionPointToStart(If.thenBlock());
  Value ObsOff = BlockStart ? Value(B->create<arith::SubIOp>(Loc, BlockStart,
                                                            ResultObs0))
                            : idx(0);
  View R = viewOfCallArray(FResults, SiteId, T, true,
                           B->create<arith::SubIOp>(Loc, Draw, ResultDraw0),
                           ObsOff);
  forEach(R.Sizes, [&](ValueRange Ivs) { store(R, Ivs, load(Src, Ivs)); });
}

/// A latent: the posterior's draw (or an intervention's value) when given,
/// else drawn.
View EntryBuilder::lowerSample(ir::SampleOp Op) {
  View Out = emitSample(Op, Op.getDist(), distOperands(Op), Op.getSiteId(),
                        /*ReadsPosterior=*/true);
  copyOut(Op.getResult(), Out, Op.getSiteId());
  return Out;
}

/// An output: scored against the observed values for the log-likelihood,
/// drawn for the predictive.
View EntryBuilder::lowerObserve(ir::ObserveOp Op) {
  if (Kind == Entry::LogLikelihood)
    return emitLogDensity(Op);
  View Out = emitSample(Op, Op.getDist(), distOperands(Op), Op.getSiteId(),
                        /*ReadsPosterior=*/false);
  copyOut(Op.getResult(), Out, Op.getSiteId());
  return Out;
}

/// Only the log-likelihood returns factors (materialized like a
/// deterministic so that broadcast values read out with real strides).
std::optional<View> EntryBuilder::lowerFactor(ir::FactorOp Op) {
  if (Kind != Entry::LogLikelihood)
    return std::nullopt;
  View Out = buffer(Op, Op.getResult().getType());
  View In = viewOf(Op.getValue());
  forEach(Out.Sizes, [&](ValueRange Ivs) { store(Out, Ivs, load(In, Ivs)); });
  copyOut(Op.getResult(), Out, Op.getSiteId());
  return Out;
}

/// Materialized (a copy) so a broadcast value reads out with real strides;
/// an intervention's value (posterior[site] given) replaces it, and
/// everything after reads that.
View EntryBuilder::lowerDeterministic(ir::DeterministicOp Op) {
  auto T = Op.getResult().getType();
  View Out = buffer(Op, T);
  View In = viewOf(Op.getValue());
  givenOr(Op.getSiteId(), T, Out, [&] {
    forEach(Out.Sizes, [&](ValueRange Ivs) { store(Out, Ivs, load(In, Ivs)); });
  });
  if (Kind != Entry::LogLikelihood)
    copyOut(Op.getResult(), Out, Op.getSiteId());
  return Out;
}

void populateSiteLowering(RewritePatternSet &Patterns, EntryBuilder &E) {
  addLowering<ir::SampleOp>(Patterns, E, &EntryBuilder::lowerSample);
  addLowering<ir::ObserveOp>(Patterns, E, &EntryBuilder::lowerObserve);
  addLowering<ir::FactorOp>(Patterns, E, &EntryBuilder::lowerFactor);
  addLowering<ir::DeterministicOp>(Patterns, E,
                                   &EntryBuilder::lowerDeterministic);
  addLowering<ir::LogProbOp>(Patterns, E, &EntryBuilder::lowerLogProb);
}

} // namespace lowering
} // namespace aimz
