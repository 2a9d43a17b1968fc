//===- PrecompiledSupport.h - Support code built per CPU level -*- C++ -*-===//
//
// The support library's out-of-line functions (scalar and event samplers,
// matrix products, row-tile packing, Cholesky, lgamma) are the same code
// in every model for a given CPU, yet re-optimizing and re-generating them
// was a large part of a compile. They are compiled once when aimzc is
// built, per x86-64 level, with the very pipeline a model's own compile
// would run on them (same attributes, O3, vector width), so a model that
// links the object computes the same bits. Densities and elementary
// functions stay bitcode so that they inline into the model's loops, and
// the row samplers so that the model's O3 specializes them to its strides.
//
//===----------------------------------------------------------------------===//
#ifndef AIMZ_TARGET_PRECOMPILEDSUPPORT_H
#define AIMZ_TARGET_PRECOMPILEDSUPPORT_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"

namespace aimz {

/// The levels built, widest first.
inline constexpr const char *SupportLevels[] = {"x86-64-v4", "x86-64-v3",
                                                "x86-64-v2"};

/// Whether support function Name is one of those compiled ahead of time.
bool isPrecompiledSupport(llvm::StringRef Name);

/// The level whose object is exactly what compiling the support library
/// for TM would give in bits: TM has the level's instructions, the same
/// vector width and the same FMA (fused or not: a different rounding).
/// Empty when none does (the support library is then optimized with the
/// model, as bitcode).
llvm::StringRef supportLevelFor(const llvm::TargetMachine &TM);

/// The precompiled functions for Level as an ELF object (aimz-support-gen,
/// at aimzc's build time); with function sections, so that the link keeps
/// only what a model calls.
llvm::Error emitSupportObject(llvm::StringRef Level,
                              llvm::raw_pwrite_stream &OS);

/// The object for Level embedded in this aimzc, or empty (SupportObjects.cpp,
/// generated; aimz-support-gen itself has none).
llvm::StringRef embeddedSupportObject(llvm::StringRef Level);

} // namespace aimz

#endif // AIMZ_TARGET_PRECOMPILEDSUPPORT_H
