//===- Device.h - What computes a rectangle of a batch -----------*- C++ -*-===//
//
// The executor hands each device of a run its share of every batch: a
// rectangle of draws x observations and the chunk buffers it fills. A
// device (CPU worker thread, GPU) computes it however it likes; the
// executor does not know which kind it has.
//
//===----------------------------------------------------------------------===//
#ifndef AIMZ_RUN_DEVICE_H
#define AIMZ_RUN_DEVICE_H

#include "aimz/abi.h"
#include "aimz/run/Data.h"
#include "aimz/run/ModelLibrary.h"
#include "aimz/run/RunPlan.h"

#include "llvm/Support/Error.h"

#include <atomic>
#include <vector>

namespace aimz::run {

/// What every device of a run reads and never changes: the model, the
/// scenario's arrays (a GPU sizes its copies from them) and the stops.
struct KernelContext {
  const Manifest &M;
  EntryFn Entry;
  EntryKind Kind;
  const RunPlan &Plan;
  const DataSet &Data;
  const Posterior *Post; // null for prior predictive
  /// This run's own stop (ExecutionSpec::Stop), or null.
  const std::atomic<bool> *Stop;
  /// The run's CPU devices (threads), each with its own scratch.
  unsigned CpuThreads = 1;

  /// The process's signal (the CLI's Ctrl-C), or this run's own stop (one
  /// Python thread's run, whose progress callback raised).
  bool stopRequested() const;
};

/// One device's share of one batch.
struct DeviceTask {
  /// Everything of the kernel call but the draws (set per call by the
  /// device), the scratch and obs_block (the device's own).
  aimz_call Call{};
  /// The draws of the rectangle; its observations are Call.obs_begin/end.
  int64_t Draw0 = 0, Draw1 = 0;
  /// The batch's chunk buffer of every output array (null: not filled by
  /// this batch), and the one per site the kernels write (Call.results).
  const std::vector<void *> *Buffers = nullptr;
  std::vector<aimz_view> Results;
};

class Device {
public:
  virtual ~Device() = default;
  /// Computes Task's rectangle into its chunk buffers; returns early (with
  /// success) when a stop is requested.
  virtual llvm::Error compute(DeviceTask &Task) = 0;
};

} // namespace aimz::run

#endif // AIMZ_RUN_DEVICE_H
