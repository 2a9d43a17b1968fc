//===- RecordDifferences.h - What two run records disagree on ---*- C++ -*-===//
//
// A run record names everything a store's bytes depend on (RunRecord.h). Two
// records are compared when a run resumes an interrupted one and when MPI
// ranks check that they run the same thing; both say what differs the same
// way.
//
//===----------------------------------------------------------------------===//
#ifndef AIMZ_IO_RECORDDIFFERENCES_H
#define AIMZ_IO_RECORDDIFFERENCES_H

#include "llvm/ADT/StringRef.h"

#include <nlohmann/json.hpp>

#include <string>

namespace aimz::io {

/// "" when A equals B; else the differing keys, comma-separated, each with
/// both values when they are short: "seed (3 then, 4 now), inputs [X]"
/// (labels "then" and "now"). An object-valued key lists its differing
/// members ("inputs [X, y]") rather than the whole object.
std::string recordDifferences(const nlohmann::json &A,
                              const nlohmann::json &B, llvm::StringRef ALabel,
                              llvm::StringRef BLabel);

} // namespace aimz::io

#endif // AIMZ_IO_RECORDDIFFERENCES_H
