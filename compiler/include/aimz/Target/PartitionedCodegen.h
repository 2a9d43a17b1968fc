//===- PartitionedCodegen.h - Machine code on several threads ---*- C++ -*-===//
//
// Code generation is the longest phase of a model's compile, and it works
// one function at a time. The optimized module is split into partitions of
// about equal size, each emitted on its own thread (in its own LLVMContext,
// with its own TargetMachine) to its own object file; the linker joins
// them. Every function is generated from the same IR, use lists included,
// as in one module, so each gets the same machine code and the library
// computes the same bits.
//
//===----------------------------------------------------------------------===//
#ifndef AIMZ_TARGET_PARTITIONEDCODEGEN_H
#define AIMZ_TARGET_PARTITIONEDCODEGEN_H

#include "llvm/ADT/SmallString.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/Error.h"
#include "llvm/Target/TargetMachine.h"

#include <functional>
#include <memory>
#include <vector>

namespace aimz {

/// Makes the target machine of one partition (each thread needs its own).
using TargetMachineFactory =
    std::function<llvm::Expected<std::unique_ptr<llvm::TargetMachine>>()>;

/// The object files of a module, one per partition, and each partition's
/// instruction count.
struct PartitionedObjects {
  std::vector<llvm::SmallString<0>> Objects;
  std::vector<uint64_t> Instructions;
};

/// M's object code as up to Partitions object files, emitted on as many
/// threads (one file, M unchanged, when Partitions is 1 or M defines
/// fewer than two functions). Splitting gives M's local functions hidden
/// external linkage, so that calls may cross partitions; the library still
/// exports only what it did.
llvm::Expected<PartitionedObjects>
emitPartitionedObjects(llvm::Module &M, unsigned Partitions,
                       const TargetMachineFactory &MakeTM);

/// How many partitions a compile uses: one per hardware thread, at most 4.
unsigned defaultCodegenPartitions();

} // namespace aimz

#endif // AIMZ_TARGET_PARTITIONEDCODEGEN_H
