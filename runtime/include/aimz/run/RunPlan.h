//===- RunPlan.h - What a run computes and where each batch goes -*- C++ -*-===//
//
// The pure part of a run, decided before any device works: the sharding
// plan, the arrays written (which sites, their shapes, dimension names,
// chunks and groups in the store), the batch size, and for every batch the
// rectangle of draws x observations it covers and the chunk it fills. The
// executor (Runner.cpp) only walks the batches; tests check the geometry
// here on its own (test/unit/run/RunPlanTest.cpp).
//
// Layouts: the flat one aimz writes (one group; dims (draw, <site>_dim_0,
// ...)) and ArviZ's InferenceData schema (a group per kind of result; dims
// (chain, draw, <site>_dim_0, ...)). Under the InferenceData layout a batch
// of the 'draw' plan never crosses a chain, so every chunk is a rectangle
// of (chain, draw) and the chunk buffer has the bytes of the flat layout's.
//
//===----------------------------------------------------------------------===//
#ifndef AIMZ_RUN_RUNPLAN_H
#define AIMZ_RUN_RUNPLAN_H

#include "aimz/run/ChunkBox.h"
#include "aimz/run/RunOptions.h"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace aimz::run {

/// One array the run writes.
struct OutputArray {
  int Site = -1;                  // manifest index
  std::string Name;               // the site's name (or <site>_scenario ...)
  std::string Path;               // in the store: Name, or "group/Name"
  io::DType Type = io::DType::Float32;
  std::vector<uint64_t> Extents;  // the site's own shape
  int ObsAxis = -1;               // within Extents, or -1
  /// In the store: (draw, ...Extents), or (chain, draw, ...Extents).
  std::vector<uint64_t> Shape, Chunk;
  std::vector<std::string> DimNames;
  /// What the kernels see: the chunk as (draws, ...Extents), C order.
  std::vector<uint64_t> KernelChunk;
  std::vector<int64_t> ChunkStrides; // elements, C order of KernelChunk
  uint64_t ChunkBytes = 0;
  /// effect --keep-scenarios: 1 or 2 for the scenario's or the baseline's
  /// copy of the effect array Outs[EffectOf] (0: computed by the model).
  int Scenario = 0;
  size_t EffectOf = 0;
  /// InferenceData's observed_data: a copy of the observed output, written
  /// from the data before the batches (ChunkRows rows per chunk).
  bool Observed = false;
  /// A count distribution's draws (predict, prior predictive): -1 marks an
  /// invalid one (kInvalidCount), counted as NaN is for floats.
  bool CountDraws = false;
  size_t ObservedOutput = 0; // which output (Data.Observed's slot)
  /// --with-posterior: a copy of the posterior's draws of the site (ArviZ's
  /// posterior group), written before the batches, ChunkRows draws per
  /// chunk of one chain.
  bool FromPosterior = false;
  /// The labels of dim Name (chain, draw, a plate, a latent's named dim),
  /// as xarray's coordinate variable in its group (Labels; Site is -1).
  /// Text is Type UInt32 with a last kernel axis of TextWidth code points.
  bool Coordinate = false;
  HostArray Labels;
  uint32_t TextWidth = 0;
  uint64_t ChunkRows = 0;
  /// Written from the data or the posterior before the batches, not by
  /// the kernels.
  bool copied() const { return Observed || FromPosterior || Coordinate; }
  /// The group the array is in ("" for the root).
  std::string group() const;
  /// ChunkStrides and ChunkBytes from KernelChunk and Type.
  void setKernelStrides();
};

/// The elements of O's chunk that draws [D0, D1) x observations [O0, O1)
/// of the chunk fill (every element of axes other than the two).
ChunkBox rectangleBox(const OutputArray &O, int64_t D0, int64_t D1,
                      int64_t O0, int64_t O1);

/// The rectangle of one batch: draws [Draw0, Draw1) x observations
/// [Obs0, Obs1), split over devices along the plan's axis.
struct BatchRect {
  int64_t Draw0 = 0, Draw1 = 0, Obs0 = 0, Obs1 = 0;
};

struct RunPlan {
  bool ObsPlan = true;
  int64_t Draws = 0, Observations = 0;
  /// Chains in the store's layout (1 for the flat layout); draws are
  /// chain-major, DrawsPerChain each.
  int64_t Chains = 1, DrawsPerChain = 0;
  int64_t BatchSize = 0, Batches = 0;
  bool InferenceData = false;
  std::vector<OutputArray> Outs;
  /// Subgroups of the store (InferenceData), with their attributes.
  std::vector<std::pair<std::string, nlohmann::json>> Groups;
  nlohmann::json Attrs; // the root group's

  /// The rectangle batch B covers.
  BatchRect batch(int64_t B) const;
  /// Whether batch B fills a chunk of Outs[I] (a global array under 'obs'
  /// is computed whole by the first batch; empty arrays have no chunks).
  bool fills(size_t I, int64_t B) const;
  /// The coordinates of the chunk of Outs[I] that batch B fills.
  std::vector<uint64_t> chunkCoords(size_t I, int64_t B) const;
  /// The first draw and observation of that chunk (the kernels' origin).
  int64_t chunkDraw0(int64_t B) const;
  int64_t chunkObs0(int64_t B) const;
};

/// Bytes of physical memory (0 when unknown).
uint64_t physicalMemory();

/// The tightest limit on this process's memory: physical memory, the
/// cgroup's (a Slurm job's or a container's cap: memory.max, or
/// memory.limit_in_bytes under cgroup v1) and the address-space limit
/// (ulimit -v); Bytes 0 when none is known. What names it for messages
/// ("the cgroup's memory.max of 2147483648 bytes").
struct MemoryLimit {
  uint64_t Bytes = 0;
  std::string What;
};
MemoryLimit memoryLimit();

/// Everything of the run that does not need a device: checks the options
/// against the model and the data, and lays out the store. `Devices`
/// rounds the default batch size; warnings go to W.
llvm::Expected<RunPlan> planRun(const Manifest &M, const DataSet &Data,
                                const Posterior *Post, const RunOptions &Opts,
                                unsigned Devices, Warnings &W);

} // namespace aimz::run

#endif // AIMZ_RUN_RUNPLAN_H
