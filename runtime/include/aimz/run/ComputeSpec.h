//===- ComputeSpec.h - What a run computes ----------------------*- C++ -*-===//
//
// The part of a run's request that names the result: which entry point
// (predict, log-likelihood, prior predictive), which sites, how many prior
// draws and the seed. Everything else (the scenario, the output, the
// devices) leaves these bytes unchanged.
//
//===----------------------------------------------------------------------===//
#ifndef AIMZ_RUN_COMPUTESPEC_H
#define AIMZ_RUN_COMPUTESPEC_H

#include "aimz/run/ModelLibrary.h"

#include <cstdint>
#include <string>
#include <vector>

namespace aimz::run {

struct ComputeSpec {
  EntryKind Kind = EntryKind::Predict;
  uint64_t Seed = 0;
  std::vector<std::string> ReturnSites; // empty: the default set
  int64_t NumSamples = 1000;            // prior predictive draws
};

} // namespace aimz::run

#endif // AIMZ_RUN_COMPUTESPEC_H
