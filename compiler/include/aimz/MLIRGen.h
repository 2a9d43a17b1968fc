//===- MLIRGen.h - Checked AST to the aimz dialect --------------*- C++ -*-===//
#ifndef AIMZ_MLIRGEN_H
#define AIMZ_MLIRGEN_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

namespace llvm {
class SourceMgr;
} // namespace llvm

namespace aimz {

struct Model;
struct ModelInfo;

/// Builds an `aimz.model` for a model that semantic analysis accepted. With
/// the source manager that holds the model's text, every op carries its
/// `file:line:col` (else an unknown location).
mlir::OwningOpRef<mlir::ModuleOp>
generateMLIR(mlir::MLIRContext &Ctx, const Model &M, const ModelInfo &Info,
             const llvm::SourceMgr *SM = nullptr);

} // namespace aimz

#endif // AIMZ_MLIRGEN_H
