//===- Runner.h - Shard a model's work over devices, stream results -*- C++ -*-===//
//
// Splits draws x observations into batches along the plan's axis, computes
// each batch on every device (CPU worker threads) in rectangles, and hands
// the filled chunks to a sink: a Zarr store compressed by a thread pool
// while the next batch computes, or one in-memory .npz.
//
//===----------------------------------------------------------------------===//
#ifndef AIMZ_RUN_RUNNER_H
#define AIMZ_RUN_RUNNER_H

#include "aimz/run/Data.h"
#include "aimz/run/ModelLibrary.h"
#include "aimz/run/RunOptions.h"

#include <atomic>
#include <string>
#include <vector>

namespace aimz::run {

struct RunReport {
  std::string Plan;
  int64_t Draws = 0, Observations = 0, BatchSize = 0, Batches = 0;
  unsigned Devices = 0;
  std::string DeviceNames; // "2 CPU threads", "1 GPU (NVIDIA H200 ...)"
  double Seconds = 0;
  std::vector<std::string> Sites;
  /// --resume: batches the interrupted run had finished (not redone).
  int64_t ResumedBatches = 0;
};

/// The devices `Choice` selects, described for `aimz-run devices`; an
/// error when GPUs are required and there are none.
llvm::Expected<std::vector<std::string>> describeDevices(DeviceChoice Choice,
                                                         unsigned Max);

/// Set from a signal handler; a run polls it and stops within a rectangle.
extern std::atomic<bool> InterruptRequested;

/// Runs `Opts.Kind` over `Data` (and `Post`, null for prior predictive)
/// and writes the result to `Opts.OutPath`.
llvm::Expected<RunReport> runModel(const ModelLibrary &Lib,
                                   const DataSet &Data, const Posterior *Post,
                                   const RunOptions &Opts, Warnings &W);

} // namespace aimz::run

#endif // AIMZ_RUN_RUNNER_H
