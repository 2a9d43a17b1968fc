//===- Manifest.h - The model's self-description ----------------*- C++ -*-===//
//
// The manifest is the JSON contract between the compiler and the runtime:
// inputs, output, sites with kinds, classes and shapes, and the chosen plan.
// It is printed by `--emit=manifest` and embedded in every compiled model.
//
//===----------------------------------------------------------------------===//
#ifndef AIMZ_MANIFEST_H
#define AIMZ_MANIFEST_H

#include <string>

namespace llvm {
class raw_ostream;
}

namespace aimz {

struct ModelInfo;

/// The manifest as compact JSON text (one line).
std::string manifestJSON(const ModelInfo &Info);

/// The sites as an aligned, human-readable table (`--emit=sites`).
void printSiteTable(const ModelInfo &Info, llvm::raw_ostream &OS);

} // namespace aimz

#endif // AIMZ_MANIFEST_H
