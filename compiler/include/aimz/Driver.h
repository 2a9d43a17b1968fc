//===- Driver.h - From a checked model to each output stage -----*- C++ -*-===//
//
// The compiler's pipeline after parsing and analysis: MLIR, the lowered
// loops, LLVM IR, assembly, PTX, or the shared library. aimzc's --emit
// stages and the Python module's in-process compile() both run it. No MLIR
// headers here: users of the pipeline need not parse them.
//
//===----------------------------------------------------------------------===//
#ifndef AIMZ_DRIVER_H
#define AIMZ_DRIVER_H

#include "aimz/AST.h"

#include "llvm/Support/Error.h"

#include <optional>
#include <string>

namespace llvm {
class SourceMgr;
class raw_ostream;
} // namespace llvm

namespace aimz {

struct ModelInfo;
class PhaseTimes;

enum class EmitKind { AST, Sites, Manifest, MLIR, Lowered, LLVM, Asm, PTX,
                      Library };

struct CompileOptions {
  EmitKind Emit = EmitKind::Library;
  /// The library written by EmitKind::Library (replaced atomically).
  std::string OutputFile;
  /// CPU to generate code for; empty: this host's.
  std::string TargetCPU;
  /// PTX architecture of EmitKind::PTX: sm_80 or sm_90.
  std::string GPUArch = "sm_80";
  /// Embed PTX in a library when this build can make it.
  bool EmbedPTX = true;
  /// Link the support functions precompiled for the target's x86-64 level
  /// (PrecompiledSupport.h) instead of optimizing them with the model.
  bool PrecompiledSupport = true;
  /// Threads (partitions of the module) that generate the library's CPU
  /// code; 0: one per hardware thread, at most 4 (PartitionedCodegen.h).
  unsigned CodegenThreads = 0;
  /// Forces f32 or f64 arithmetic; none: from the inputs.
  std::optional<DType> Precision;
  /// Apply MLIR's pass-manager command-line options (aimzc registers them;
  /// a library caller has none to apply).
  bool PassManagerCLOptions = false;
  /// aimzc --time-report: each phase's time goes here (null: not timed).
  PhaseTimes *Times = nullptr;
};

/// Lowers an analyzed model as far as O.Emit asks (MLIR stages and later):
/// text stages go to Out, a library to O.OutputFile. Diagnostics and
/// warnings go to Errs. A failure whose diagnostics were already printed
/// there comes back as an error with an empty message.
llvm::Error compileModel(const Model &M, const ModelInfo &Info,
                         const CompileOptions &O, llvm::SourceMgr &SM,
                         llvm::raw_ostream &Out, llvm::raw_ostream &Errs);

/// The whole pipeline from source text to the library at O.OutputFile:
/// parse, analyze, lower, link. Diagnostics (with source lines) and
/// warnings go to Errs; false when the model was not compiled.
bool compileSource(llvm::StringRef Source, llvm::StringRef Name,
                   const CompileOptions &O, llvm::raw_ostream &Errs);

} // namespace aimz

#endif // AIMZ_DRIVER_H
