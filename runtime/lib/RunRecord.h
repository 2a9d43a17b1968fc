//===- RunRecord.h - What determines a run's output bytes -------*- C++ -*-===//
//
// A resumed run (--resume) must produce the bytes the interrupted one would
// have: the record names everything those bytes depend on, and the partial
// store keeps the interrupted run's copy to compare with.
//
//===----------------------------------------------------------------------===//
#ifndef AIMZ_RUN_RUNRECORD_H
#define AIMZ_RUN_RUNRECORD_H

#include "aimz/run/Data.h"
#include "aimz/run/ModelLibrary.h"
#include "aimz/run/RunPlan.h"
#include "aimz/run/RunOptions.h"

#include <nlohmann/json.hpp>

namespace aimz::run {

/// The model library's and every array's content hashes (xxh3), the plan's
/// attributes (less the creation time), the output arrays' geometry, the
/// codec and the format.
llvm::Expected<nlohmann::json> runRecord(const ModelLibrary &Lib,
                                         const DataSet &Data,
                                         const Posterior *Post,
                                         const RunOptions &Opts,
                                         const RunPlan &Plan);

} // namespace aimz::run

#endif // AIMZ_RUN_RUNRECORD_H
