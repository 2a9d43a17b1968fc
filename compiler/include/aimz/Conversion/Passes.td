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

def OutlineLargeBlocks : Pass<"aimz-outline-large-blocks", "mlir::ModuleOp"> {
  let summary = "Move runs of operations of a block larger than max-ops into "
                "functions of their own";
  let description = [{
    LLVM's optimizer and code generator take more than linear time in the
    size of one function, and an entry point holds every site's loops. A
    block with more than `max-ops` operations (nested ones counted) is cut
    into runs of consecutive operations of at most `max-ops` each; each run
    becomes a private `noinline` function (values from before it are its
    arguments, constants are cloned into it, values used after it are its
    results) called in its place. An operation larger than `max-ops` is
    split inside its regions instead; stack allocations stay in place.
    Functions under the limit are unchanged.
  }];
  let options = [
    Option<"maxOps", "max-ops", "int64_t", /*default=*/"1000",
           "Largest block left whole (operations, nested ones counted)">
  ];
  let dependentDialects = ["mlir::func::FuncDialect"];
}

#endif // AIMZ_CONVERSION_PASSES_TD
