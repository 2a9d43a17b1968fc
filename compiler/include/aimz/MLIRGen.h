//===- MLIRGen.h - Checked AST to the aimz dialect --------------*- C++ -*-===//
#ifndef AIMZ_MLIRGEN_H
#define AIMZ_MLIRGEN_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

namespace aimz {

struct Model;
struct ModelInfo;

/// Builds an `aimz.model` for a model that semantic analysis accepted.
mlir::OwningOpRef<mlir::ModuleOp>
generateMLIR(mlir::MLIRContext &Ctx, const Model &M, const ModelInfo &Info);

} // namespace aimz

#endif // AIMZ_MLIRGEN_H
