//===- Passes.td - The aimz lowering passes ----------------*- tablegen -*-===//
//
// Declared here, generated into Passes.h.inc: aimz-opt lists and runs each
// by its name (`aimz-opt --aimz-lower-to-loops`), and the registration
// comes from the same list.
//
//===----------------------------------------------------------------------===//
#ifndef AIMZ_CONVERSION_PASSES_TD
#define AIMZ_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def LowerModelToLoops : Pass<"aimz-lower-to-loops", "mlir::ModuleOp"> {
  let summary = "Lower aimz.model to the three C entry points (predict, "
                "log-likelihood, prior predictive) in scf/arith/math/llvm";
  let description = [{
    One `aimz.model` becomes `aimz_predict` and `aimz_log_likelihood`
    (loops over draws and observation blocks; strided views of the caller's
    arrays; calls into the support library for samplers and log densities)
    and `aimz_prior_predictive`, a wrapper around `aimz_predict` with no
    posterior. The model op is erased; its manifest stays on the module.
  }];
  let constructor = "aimz::createLowerModelToLoopsPass()";
  let dependentDialects = [
    "mlir::arith::ArithDialect", "mlir::func::FuncDialect",
    "mlir::LLVM::LLVMDialect", "mlir::math::MathDialect",
    "mlir::scf::SCFDialect"
  ];
}

#endif // AIMZ_CONVERSION_PASSES_TD
