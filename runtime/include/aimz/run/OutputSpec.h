//===- OutputSpec.h - Where and how a run's results are written -*- C++ -*-===//
//
// The store a run writes: its path and kind (a Zarr directory or one
// .npz), format, layout and codec, whether it is made durable, whether an
// interrupted run's partial store is continued, and what to do with NaN
// and infinities in the results.
//
//===----------------------------------------------------------------------===//
#ifndef AIMZ_RUN_OUTPUTSPEC_H
#define AIMZ_RUN_OUTPUTSPEC_H

#include "aimz/io/Codec.h"
#include "aimz/io/Zarr.h"
#include "aimz/run/DimLabels.h"

#include "llvm/ADT/StringRef.h"

#include <map>
#include <optional>
#include <string>

namespace aimz::run {

/// How the store is organized: aimz's flat group, or ArviZ's
/// InferenceData schema (a group per kind of result, dims (chain, draw,
/// ...)).
enum class OutputLayout { Flat, InferenceData };

struct OutputSpec {
  std::string OutPath; // a directory store, or *.npz
  io::ZarrFormat Format = io::ZarrFormat::V2;
  OutputLayout Layout = OutputLayout::Flat;
  /// InferenceData: the inputs are new observations, so predictive draws
  /// go to the 'predictions' group (aimz's in_sample=False).
  bool OutOfSample = false;
  /// InferenceData: also copy the posterior's latents into the 'posterior'
  /// group (a whole InferenceData: az.loo(result) works on its own).
  bool WithPosterior = false;
  io::CodecOptions Codec;
  bool Sync = true; // make the output durable before it appears
  /// Continue the partial Zarr store an interrupted run left at
  /// "<OutPath>.partial", skipping the batches whose chunks are all there;
  /// refused when anything that determines the bytes differs.
  bool Resume = false;
  /// Refuse (publish nothing) when the results hold NaN or infinities;
  /// otherwise warn (NonFiniteResults.h).
  bool Strict = false;
  std::string ToolVersion; // recorded in the store's attributes
  /// Labels of the result's dims, written beside every array of a Zarr
  /// store that has the dim (docs/cli.md, "Labels"): by dim name (--coords,
  /// Python's coords=), checked against the dim's extent; by index input,
  /// the labels of the values it holds (a categorical column's
  /// categories), which label the dim the input indexes; and the
  /// observations' (a data frame's index). They take precedence over the
  /// posterior's, in that order.
  Coordinates Coords;
  std::map<std::string, DimLabels> IndexLabels;
  std::optional<DimLabels> ObsLabels;

  /// One in-memory .npz written whole at the end, not a Zarr store.
  bool toNpz() const { return llvm::StringRef(OutPath).ends_with(".npz"); }
};

} // namespace aimz::run

#endif // AIMZ_RUN_OUTPUTSPEC_H
