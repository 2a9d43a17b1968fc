//===- ModelLibrary.h - LLVM dialect to an optimized model.so ---*- C++ -*-===//
#ifndef AIMZ_TARGET_MODELLIBRARY_H
#define AIMZ_TARGET_MODELLIBRARY_H

#include "aimz/abi.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"

#include <memory>

namespace aimz {

constexpr int64_t AbiVersion = AIMZ_ABI_VERSION;

/// LLVM-dialect module -> LLVM IR.
llvm::Expected<std::unique_ptr<llvm::Module>>
translateToLLVMIR(mlir::ModuleOp Module, llvm::LLVMContext &Ctx);

/// Adds the exported data symbols: manifest JSON, PTX text for sm_80 and
/// sm_90 (empty when unavailable), ABI version.
void addLibraryData(llvm::Module &M, llvm::StringRef Manifest,
                    llvm::StringRef PTXsm80, llvm::StringRef PTXsm90);

/// A target machine for this host's CPU, or for `CPU` when given
/// (e.g. x86-64-v3 for portable libraries).
llvm::Expected<std::unique_ptr<llvm::TargetMachine>>
createHostTargetMachine(llvm::StringRef CPU);

/// LLVM's O3 pipeline for `TM` with the given loop tuning.
void runO3(llvm::Module &M, llvm::TargetMachine &TM,
           const llvm::PipelineTuningOptions &PTO);

/// Links the support library, internalizes all but the C interface and runs
/// the O3 pipeline with the vector maths library declared.
llvm::Error optimizeModule(llvm::Module &M, llvm::TargetMachine &TM);

/// Writes an object file (or assembly text).
llvm::Error emitMachineCode(llvm::Module &M, llvm::TargetMachine &TM,
                            llvm::raw_pwrite_stream &OS, bool Assembly);

/// Links an object into a shared library with its run-time dependencies.
llvm::Error linkSharedLibrary(llvm::StringRef ObjectPath,
                              llvm::StringRef OutputPath);

} // namespace aimz

#endif // AIMZ_TARGET_MODELLIBRARY_H
