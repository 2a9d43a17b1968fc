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

#include "aimz/io/Codec.h"
#include "aimz/io/Zarr.h"
#include "aimz/run/Data.h"
#include "aimz/run/Intervention.h"
#include "aimz/run/ModelLibrary.h"

#include <atomic>
#include <functional>
#include <string>
#include <vector>

namespace aimz::run {

class RunGroup;

enum class ShardAxis { Auto, Obs, Draw };

/// Which devices a run uses: GPUs when present (Default), CPU worker
/// threads, GPUs only, or both.
enum class DeviceChoice { Default, CPU, GPU, All };

/// How the store is organized: aimz's flat group, or ArviZ's
/// InferenceData schema (a group per kind of result, dims (chain, draw,
/// ...)).
enum class OutputLayout { Flat, InferenceData };

struct RunOptions {
  EntryKind Kind = EntryKind::Predict;
  ShardAxis Axis = ShardAxis::Auto;
  int64_t BatchSize = 0;  // 0: chosen from ChunkBudgetBytes
  DeviceChoice Device = DeviceChoice::Default;
  unsigned Devices = 0;   // at most this many devices; 0: all of them
  uint64_t Seed = 0;
  std::vector<std::string> ReturnSites; // empty: the default set
  /// Applied to the posterior already (applyInterventions); recorded in
  /// the store's attributes.
  std::vector<Intervention> Interventions;
  /// `aimz-run effect`: the baseline scenario (its inputs and its posterior,
  /// with its own interventions applied), run on the same draws with the
  /// same seed; the store then holds scenario minus baseline (Kind must be
  /// Predict). Null: an ordinary run.
  const DataSet *BaselineData = nullptr;
  const Posterior *BaselinePost = nullptr;
  std::vector<Intervention> BaselineInterventions; // recorded only
  /// effect: also write each array's scenario and baseline values, as
  /// <site>_scenario and <site>_baseline.
  bool KeepScenarios = false;
  int64_t NumSamples = 1000;            // prior predictive draws
  std::string OutPath;                  // a directory store, or *.npz
  io::ZarrFormat Format = io::ZarrFormat::V2;
  OutputLayout Layout = OutputLayout::Flat;
  /// InferenceData: the inputs are new observations, so predictive draws
  /// go to the 'predictions' group (aimz's in_sample=False).
  bool OutOfSample = false;
  /// InferenceData: also copy the posterior's latents into the 'posterior'
  /// group (a whole InferenceData: az.loo(result) works on its own).
  bool WithPosterior = false;
  io::CodecOptions Codec;
  bool Progress = false;
  /// Called after each batch is committed, with the batches done and the
  /// total (the Python module's progress bar); on the run's thread.
  std::function<void(int64_t Done, int64_t Total)> OnBatch;
  bool Sync = true; // make the output durable before it appears
  /// Continue the partial Zarr store an interrupted run left at
  /// "<OutPath>.partial", skipping the batches whose chunks are all there;
  /// refused when anything that determines the bytes differs.
  bool Resume = false;
  /// The processes sharing this run (MPI ranks), each calling runModel with
  /// the same arguments; null: this process alone.
  RunGroup *Group = nullptr;
  /// This run's own stop, polled like InterruptRequested (which stops
  /// every run of the process): the Python module stops one run without
  /// touching the others. Null: none.
  const std::atomic<bool> *Stop = nullptr;
  /// Refuse (publish nothing) when the results hold NaN or infinities;
  /// otherwise warn (NonFiniteResults.h).
  bool Strict = false;
  size_t ChunkBudgetBytes = 8u << 20; // target size of one chunk
  std::string ToolVersion;
};

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
