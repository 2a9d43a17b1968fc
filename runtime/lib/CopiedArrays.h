//===- CopiedArrays.h - Arrays written from the inputs, not computed -*- C++ -*-===//
#ifndef AIMZ_RUN_COPIEDARRAYS_H
#define AIMZ_RUN_COPIEDARRAYS_H

#include "aimz/run/Data.h"
#include "aimz/run/ResultSink.h"
#include "aimz/run/RunPlan.h"

namespace aimz::run {

/// Writes the plan's arrays that copy the data or the posterior before the
/// batches: InferenceData's observed_data, the posterior's coordinates and
/// --with-posterior's latents (computed arrays come from the batches).
llvm::Error writeCopiedArrays(ResultSink &Sink, const RunPlan &Plan,
                              const DataSet &Data, const Posterior *Post);

} // namespace aimz::run

#endif // AIMZ_RUN_COPIEDARRAYS_H
