//===- aimz-opt.cpp - Run aimz passes one at a time -----------------------===//
//
// Like mlir-opt, with the aimz dialect and passes registered, so lit tests
// can check each lowering step on its own.
//
//===----------------------------------------------------------------------===//
#include "aimz/Conversion/Passes.h"
#include "aimz/Dialect/AimzDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "mlir/Transforms/Passes.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry Registry;
  Registry.insert<aimz::ir::AimzDialect, mlir::arith::ArithDialect,
                  mlir::cf::ControlFlowDialect, mlir::func::FuncDialect,
                  mlir::LLVM::LLVMDialect, mlir::math::MathDialect,
                  mlir::scf::SCFDialect>();
  mlir::registerCanonicalizerPass();
  mlir::registerCSEPass();
  aimz::registerAimzPasses();
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "aimz optimizer driver\n", Registry));
}
