//===- Pipelines.cpp - From the loop form to the LLVM dialect -------------===//
#include "aimz/Conversion/Passes.h"

#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/FuncToLLVM/ConvertFuncToLLVMPass.h"
#include "mlir/Conversion/IndexToLLVM/IndexToLLVM.h"
#include "mlir/Conversion/MathToLLVM/MathToLLVM.h"
#include "mlir/Conversion/MathToLibm/MathToLibm.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "mlir/Transforms/Passes.h"

namespace aimz {

void buildLoopsToLLVMPipeline(mlir::OpPassManager &PM, bool ForGPU) {
  // Bottom-up: the top-down worklist made canonicalization quadratic in the
  // number of sites (31 s of 36 at 1,000 chained latents; 1.2 s bottom-up).
  mlir::GreedyRewriteConfig Canonicalize;
  Canonicalize.useTopDownTraversal = false;
  // Per function, so that the entry points are cleaned up in parallel.
  mlir::OpPassManager &PerFunction = PM.nest<mlir::func::FuncOp>();
  PerFunction.addPass(mlir::createCanonicalizerPass(Canonicalize));
  PerFunction.addPass(mlir::createCSEPass());
  PerFunction.addPass(mlir::createLoopInvariantCodeMotionPass());
  // After the clean-up, so that constants are shared and invariants hoisted
  // before the cut.
  PM.addPass(createOutlineLargeBlocks());
  // log1p and tanh have no exact LLVM intrinsic, so math goes to libm calls,
  // which LLVM's vectorizer maps to libmvec's vector variants.
  if (!ForGPU)
    PM.addPass(mlir::createConvertMathToLibmPass());
  PM.addPass(mlir::createConvertSCFToCFPass());
  PM.addPass(mlir::createConvertMathToLLVMPass());
  PM.addPass(mlir::createArithToLLVMConversionPass());
  PM.addPass(mlir::createConvertIndexToLLVMPass());
  PM.addPass(mlir::createConvertFuncToLLVMPass());
  PM.addPass(mlir::createConvertControlFlowToLLVMPass());
  PM.addPass(mlir::createReconcileUnrealizedCastsPass());
}

void registerAimzPasses() {
  registerAimzConversionPasses();
  mlir::PassPipelineRegistration<>(
      "aimz-loops-to-llvm",
      "Lower the entry points' loop form to the LLVM dialect",
      [](mlir::OpPassManager &PM) { buildLoopsToLLVMPipeline(PM); });
  mlir::PassPipelineRegistration<>(
      "aimz-to-llvm", "Lower an aimz.model all the way to the LLVM dialect",
      [](mlir::OpPassManager &PM) {
        PM.addPass(createLowerModelToLoopsPass());
        buildLoopsToLLVMPipeline(PM);
      });
}

} // namespace aimz
