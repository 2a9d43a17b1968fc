//===- Scenario.h - Inputs, posterior, interventions of a run ---*- C++ -*-===//
//
// What both front ends (aimz-run and the Python module) load before a run:
// a scenario, and for `effect` its baseline. Loading them lives here once,
// so the formats, checks and messages are the same whichever front end a
// user calls; a front end only turns its arguments (flags, or keywords and
// arrays) into these structs.
//
//===----------------------------------------------------------------------===//
#ifndef AIMZ_RUN_SCENARIO_H
#define AIMZ_RUN_SCENARIO_H

#include "aimz/run/Data.h"
#include "aimz/run/Intervention.h"
#include "aimz/run/ScenarioSpec.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace aimz::run {

/// Where inputs come from: the CLI's `--data` arguments (NAME=FILE.npy, or
/// FILE.npz for every member), or named arrays in memory (the Python
/// module's dicts).
struct InputSource {
  std::vector<std::string> Files;
  std::optional<std::map<std::string, io::NpyArray>> Arrays;

  /// The input names the source gives (Files: those of NAME=FILE
  /// arguments; an .npz's members are known only once it is read).
  std::vector<std::string> names() const;
  llvm::Expected<DataSet> load(const Manifest &M, ObservedUse Observed,
                               Warnings &W, int64_t NumObservations) const;
};

/// The inputs, posterior and interventions of one scenario (the
/// interventions parsed; applied to Post by applyInterventions).
struct Scenario {
  DataSet Data;
  std::optional<Posterior> Post;
  std::vector<Intervention> Interventions;
};

/// effect's baseline, as the front end names its parts in messages.
struct BaselineArgs {
  /// The inputs the baseline replaces (the rest are the scenario's).
  InputSource Data;
  std::vector<Intervention> Interventions;
  /// "--baseline-data" / "baseline_data", "--baseline-intervene" /
  /// "baseline_intervention".
  std::string DataOption, InterventionOption;
  bool hasData() const {
    return !Data.Files.empty() || (Data.Arrays && !Data.Arrays->empty());
  }
};

/// effect's input-name checks, before anything is read: a name the model
/// lacks would leave both scenarios equal, an effect of exactly 0 that must
/// not pass for a result. `--data` may name the output, the baseline not.
llvm::Error checkEffectInputNames(const Manifest &M, const InputSource &Data,
                                  const std::string &DataOption,
                                  const BaselineArgs &Base);

/// effect's baseline for scenario S (loaded, its interventions not yet
/// applied): the inputs of Data with the baseline's replaced, the dims S
/// bound (its posterior's group counts, --dim), S's posterior with the
/// baseline's interventions applied. Warnings the scenario's load gave
/// already are not repeated.
llvm::Expected<Scenario> loadBaseline(const Manifest &M, const Scenario &S,
                                      const InputSource &Data,
                                      const BaselineArgs &Base,
                                      int64_t NumObservations, Warnings &W);

/// The runtime's view of the scenarios (Base: effect's baseline, else
/// null; BaselineHasData: whether it has inputs of its own).
ScenarioSpec scenarioSpec(const Scenario &S, const Scenario *Base,
                          bool BaselineHasData, bool KeepScenarios);

} // namespace aimz::run

#endif // AIMZ_RUN_SCENARIO_H
