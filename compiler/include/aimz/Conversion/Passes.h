//===- Passes.h - aimz lowering passes --------------------------*- C++ -*-===//
#ifndef AIMZ_CONVERSION_PASSES_H
#define AIMZ_CONVERSION_PASSES_H

#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"

#include <memory>

namespace aimz {

/// aimz-lower-to-loops: aimz.model -> the three entry-point functions in
/// func/scf/arith/math plus LLVM-dialect memory ops (Passes.td).
std::unique_ptr<mlir::Pass> createLowerModelToLoopsPass();

#define GEN_PASS_DECL
#define GEN_PASS_REGISTRATION
#include "aimz/Conversion/Passes.h.inc"

/// The upstream passes from the loop form to the LLVM dialect. `ForGPU`
/// keeps math ops for the NVPTX path instead of calling libm.
void buildLoopsToLLVMPipeline(mlir::OpPassManager &PM, bool ForGPU = false);

/// Registers every aimz pass and the `aimz-loops-to-llvm` and
/// `aimz-to-llvm` pipelines for aimz-opt.
void registerAimzPasses();

} // namespace aimz

#endif // AIMZ_CONVERSION_PASSES_H
