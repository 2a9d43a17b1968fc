//===- EffectCombiner.h - Scenario minus baseline, call by call --*- C++ -*-===//
//
// `aimz-run effect` computes two scenarios on the same draws with the same
// seed: after each call of the scenario into the chunks, the baseline's
// call over the same rectangle goes to a copy of the chunks, and the chunks
// keep the difference (--keep-scenarios: both values too, in their own
// arrays). One per device: the copies are its own.
//
//===----------------------------------------------------------------------===//
#ifndef AIMZ_RUN_EFFECTCOMBINER_H
#define AIMZ_RUN_EFFECTCOMBINER_H

#include "Device.h"
#include "ScenarioViews.h"

#include "llvm/ADT/STLFunctionalExtras.h"

namespace aimz::run {

class EffectCombiner {
public:
  EffectCombiner(const std::vector<OutputArray> &Outs,
                 const ScenarioViews &Baseline, size_t Sites)
      : Outs(Outs), Baseline(Baseline), Chunks(Outs.size()),
        Results(Sites, aimz_view{nullptr, nullptr}) {}

  /// Before Task's calls: the baseline's results go to this device's
  /// copies of the chunks the scenario fills (the same size every batch).
  void startRectangle(const DeviceTask &Task);

  /// After the scenario's call C of Task: the baseline over C's draws and
  /// observations (through CallKernel), then the differences.
  llvm::Error combine(const aimz_call &C, const DeviceTask &Task,
                      llvm::function_ref<llvm::Error(aimz_call &)> CallKernel);

private:
  const std::vector<OutputArray> &Outs;
  const ScenarioViews &Baseline;
  std::vector<std::vector<uint8_t>> Chunks; // per output array
  std::vector<aimz_view> Results;           // per site, into Chunks
};

} // namespace aimz::run

#endif // AIMZ_RUN_EFFECTCOMBINER_H
