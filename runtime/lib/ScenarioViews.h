//===- ScenarioViews.h - A scenario's arrays as the kernels see them -*- C++ -*-===//
//
// The aimz_view of every input, observed output and posterior site of one
// scenario (inputs + posterior), built once per run: every call of the
// kernels points at them. An effect run has two, the scenario's and the
// baseline's.
//
//===----------------------------------------------------------------------===//
#ifndef AIMZ_RUN_SCENARIOVIEWS_H
#define AIMZ_RUN_SCENARIOVIEWS_H

#include "aimz/abi.h"
#include "aimz/run/Data.h"

#include <cstdint>
#include <vector>

namespace aimz::run {

class ScenarioViews {
public:
  /// Views of Data's arrays and, when Post is not null, the posterior's.
  ScenarioViews(const Manifest &M, const DataSet &Data, const Posterior *Post);
  // The views point into the strides held here.
  ScenarioViews(const ScenarioViews &) = delete;
  ScenarioViews &operator=(const ScenarioViews &) = delete;

  /// One per manifest input.
  const aimz_view *inputs() const { return Inputs.data(); }
  /// One per manifest output (the log-likelihood reads them all).
  const aimz_view *observed() const { return Observed.data(); }
  /// One per manifest site.
  const aimz_view *posterior() const { return Post.data(); }

private:
  std::vector<std::vector<int64_t>> InStrides, ObservedStrides, PostStrides;
  std::vector<aimz_view> Inputs, Observed, Post;
};

} // namespace aimz::run

#endif // AIMZ_RUN_SCENARIOVIEWS_H
