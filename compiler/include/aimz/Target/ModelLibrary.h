//===- ModelLibrary.h - LLVM dialect to an optimized model.so ---*- C++ -*-===//
#ifndef AIMZ_TARGET_MODELLIBRARY_H
#define AIMZ_TARGET_MODELLIBRARY_H

#include "aimz/abi.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"

#include <memory>
#include <string>

namespace aimz {

constexpr int64_t AbiVersion = AIMZ_ABI_VERSION;

/// Why a temporary file could not be created, naming the directory and
/// where it came from (a missing or read-only TMPDIR is the usual cause).
std::string temporaryFileProblem(std::error_code EC);

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

/// The support library's bitcode embedded in aimzc, parsed into Ctx.
llvm::Expected<std::unique_ptr<llvm::Module>>
parseSupportBitcode(llvm::LLVMContext &Ctx);

/// The widest SIMD vector of TM's CPU in bytes: 64, 32 or 16.
int32_t vectorBytes(const llvm::TargetMachine &TM);

/// Defines the support library's aimz_rt_vector_bytes as Bytes.
void defineVectorBytes(llvm::Module &M, int32_t Bytes);

/// Sets M's data layout and triple for TM, and gives its functions TM's CPU,
/// features and (on AVX-512) a preferred vector width of 512 bits.
void setTargetAttributes(llvm::Module &M, const llvm::TargetMachine &TM);

/// The O3 pipeline of the CPU code (vectorizing), then the verifier.
llvm::Error runCPUPipeline(llvm::Module &M, llvm::TargetMachine &TM);

/// Links the support library, internalizes all but the C interface and runs
/// the O3 pipeline (libmvec deliberately not declared). With Precompiled,
/// the out-of-line support functions are left declared: their object
/// (PrecompiledSupport.h) joins the link instead.
llvm::Error optimizeModule(llvm::Module &M, llvm::TargetMachine &TM,
                           bool Precompiled);

/// Writes an object file (or assembly text).
llvm::Error emitMachineCode(llvm::Module &M, llvm::TargetMachine &TM,
                            llvm::raw_pwrite_stream &OS, bool Assembly);

/// Links objects (the model's, then any precompiled support) into a shared
/// library with its run-time dependencies.
llvm::Error linkSharedLibrary(llvm::ArrayRef<std::string> Objects,
                              llvm::StringRef OutputPath);

} // namespace aimz

#endif // AIMZ_TARGET_MODELLIBRARY_H
