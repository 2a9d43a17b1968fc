//===- KernelCall.h - One CPU call of a model's entry point ------*- C++ -*-===//
#ifndef AIMZ_RUN_KERNELCALL_H
#define AIMZ_RUN_KERNELCALL_H

#include "aimz/abi.h"
#include "aimz/run/ModelLibrary.h"

#include "llvm/Support/Error.h"

#include <cstdint>
#include <vector>

namespace aimz::run {

/// Calls Entry on C with Scratch, growing Scratch once when the kernel asks
/// for more; a kernel's failure becomes the error the user reads
/// (Observations: how many the run has, for the joint-site message).
/// Threads: the CPU devices, each with a scratch of its own, so that their
/// total is checked against the memory limit.
llvm::Error callKernel(EntryFn Entry, aimz_call &C,
                       std::vector<uint8_t> &Scratch, int64_t Observations,
                       unsigned Threads = 1);

} // namespace aimz::run

#endif // AIMZ_RUN_KERNELCALL_H
