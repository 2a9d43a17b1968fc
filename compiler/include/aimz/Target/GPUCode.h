//===- GPUCode.h - The same kernels as PTX for NVIDIA GPUs ------*- C++ -*-===//
#ifndef AIMZ_TARGET_GPUCODE_H
#define AIMZ_TARGET_GPUCODE_H

#include "llvm/IR/Module.h"
#include "llvm/Support/Error.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <string>
#include <vector>

namespace aimz {

/// Registers the NVPTX back end; call once before generating PTX on several
/// threads.
void initializeGPUTargets();

/// Whether aimzc was built with the CUDA-compiled support library.
bool gpuSupportAvailable();

/// PTX for `Arch` (sm_80, sm_90) of the entry points in `HostIR` (the
/// unoptimized LLVM IR of the model; left unchanged), with one __global__
/// kernel per entry point.
llvm::Expected<std::string> generatePTX(const llvm::Module &HostIR,
                                        llvm::StringRef Arch);

/// PTX for each of Archs from one optimization and one back-end run of
/// HostIR, for the first; the others get that PTX with their own .version
/// and .target lines (the kernels use no instruction that differs between
/// sm_80 and sm_90).
llvm::Expected<std::vector<std::string>>
generatePTXs(const llvm::Module &HostIR, llvm::ArrayRef<llvm::StringRef> Archs);

} // namespace aimz

#endif // AIMZ_TARGET_GPUCODE_H
