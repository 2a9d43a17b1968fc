//===- LowerModelToLoops.cpp - aimz.model to entry-point functions --------===//
//
// The pass: one aimz.model becomes aimz_predict and aimz_log_likelihood
// (EntryBuilder: a frame of loops, then one conversion pattern per op, one
// file per op family; see EntryBuilder.h) and
// aimz_prior_predictive, a wrapper around aimz_predict.
//
//===----------------------------------------------------------------------===//
#include "EntryBuilder.h"
#include "aimz/AbiSymbols.h"
#include "aimz/Conversion/Passes.h"

#include "mlir/Pass/Pass.h"

namespace aimz {
namespace lowering {

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
  auto F = B.create<func::FuncOp>(Loc, abi::name(abi::EntryPoint::PriorPredictive),
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
  auto Predict = Module.lookupSymbol<func::FuncOp>(
      abi::name(abi::EntryPoint::Predict));
  Value R = B.create<func::CallOp>(Loc, Predict, ValueRange{Copy}).getResult(0);
  // The scratch protocol reports through the caller's struct.
  Value Needed = B.create<LLVM::LoadOp>(Loc, I64, Field(Copy, FScratchNeeded));
  B.create<LLVM::StoreOp>(Loc, Needed, Field(Call, FScratchNeeded));
  B.create<func::ReturnOp>(Loc, R);
}

} // namespace lowering

#define GEN_PASS_DEF_LOWERMODELTOLOOPS
#include "aimz/Conversion/Passes.h.inc"

namespace {

using namespace mlir;
using lowering::Entry;
using lowering::EntryBuilder;
using lowering::buildPriorWrapper;

struct LowerModelToLoopsPass
    : impl::LowerModelToLoopsBase<LowerModelToLoopsPass> {
  void runOnOperation() override {
    ModuleOp Module = getOperation();
    // The model, and the pre-pass (`@prepass`) when transformed data has
    // statistics of expressions.
    ir::ModelOp Model, Prepass;
    for (ir::ModelOp M : Module.getOps<ir::ModelOp>())
      (M.getSymName() == "prepass" ? Prepass : Model) = M;
    if (!Model || llvm::range_size(Module.getOps<ir::ModelOp>()) !=
                      (Prepass ? 2u : 1u)) {
      Module.emitError("expected one aimz.model (and at most one @prepass)");
      return signalPassFailure();
    }
    OpBuilder B(Module.getContext());
    if (!EntryBuilder(Model, Entry::Predict, B)
             .build(abi::name(abi::EntryPoint::Predict)) ||
        !EntryBuilder(Model, Entry::LogLikelihood, B)
             .build(abi::name(abi::EntryPoint::LogLikelihood)))
      return signalPassFailure();
    if (Prepass && !EntryBuilder(Prepass, Entry::Predict, B)
                        .build(abi::PrepassEntry))
      return signalPassFailure();
    buildPriorWrapper(Model, B);
    // Keep what the later stages need to describe the library.
    Module->setAttr("aimz.manifest", Model.getManifestAttr());
    Model.erase();
    if (Prepass)
      Prepass.erase();
  }
};

} // namespace

std::unique_ptr<Pass> createLowerModelToLoopsPass() {
  return std::make_unique<LowerModelToLoopsPass>();
}

} // namespace aimz
