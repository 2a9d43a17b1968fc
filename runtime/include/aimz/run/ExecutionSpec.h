//===- ExecutionSpec.h - How a run's work is spread and watched -*- C++ -*-===//
//
// The devices a run shards over, along which axis, in batches of which
// size, the processes sharing it (MPI ranks), and how its progress is shown
// and it is stopped. None of it changes the bytes of the results.
//
//===----------------------------------------------------------------------===//
#ifndef AIMZ_RUN_EXECUTIONSPEC_H
#define AIMZ_RUN_EXECUTIONSPEC_H

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>

namespace aimz::run {

class RunGroup;

enum class ShardAxis { Auto, Obs, Draw };

/// Which devices a run uses: GPUs when present (Default), CPU worker
/// threads, GPUs only, or both.
enum class DeviceChoice { Default, CPU, GPU, All };

struct ExecutionSpec {
  ShardAxis Axis = ShardAxis::Auto;
  int64_t BatchSize = 0;  // 0: chosen from ChunkBudgetBytes
  DeviceChoice Device = DeviceChoice::Default;
  unsigned Devices = 0;   // at most this many devices; 0: all of them
  size_t ChunkBudgetBytes = 8u << 20; // target size of one chunk
  bool Progress = false;
  /// Called after each batch is committed, with the batches done and the
  /// total (the Python module's progress bar); on the run's thread.
  std::function<void(int64_t Done, int64_t Total)> OnBatch;
  /// The processes sharing this run (MPI ranks), each calling runModel with
  /// the same arguments; null: this process alone.
  RunGroup *Group = nullptr;
  /// This run's own stop, polled like InterruptRequested (which stops
  /// every run of the process): the Python module stops one run without
  /// touching the others. Null: none.
  const std::atomic<bool> *Stop = nullptr;
};

} // namespace aimz::run

#endif // AIMZ_RUN_EXECUTIONSPEC_H
