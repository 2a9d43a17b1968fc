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
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

namespace aimz {

void buildLoopsToLLVMPipeline(mlir::OpPassManager &PM, bool ForGPU) {
  PM.addPass(mlir::createCanonicalizerPass());
  PM.addPass(mlir::createCSEPass());
  PM.addPass(mlir::createLoopInvariantCodeMotionPass());
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
