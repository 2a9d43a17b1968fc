//===- ScenarioSpec.h - The scenarios a run computes on ---------*- C++ -*-===//
//
// A run computes on one scenario (the inputs, the posterior, the
// interventions applied to it), or for `aimz-run effect` on two: the
// scenario and a baseline run on the same draws with the same seed, the
// store then holding their difference.
//
//===----------------------------------------------------------------------===//
#ifndef AIMZ_RUN_SCENARIOSPEC_H
#define AIMZ_RUN_SCENARIOSPEC_H

#include "aimz/run/Data.h"
#include "aimz/run/Intervention.h"

#include <vector>

namespace aimz::run {

struct ScenarioSpec {
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

  /// Whether this is an effect run (two scenarios).
  bool isEffect() const { return BaselinePost != nullptr; }
};

} // namespace aimz::run

#endif // AIMZ_RUN_SCENARIOSPEC_H
