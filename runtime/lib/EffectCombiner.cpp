//===- EffectCombiner.cpp - Scenario minus baseline, call by call ---------===//
#include "EffectCombiner.h"

#include "aimz/run/ChunkBox.h"
#include "aimz/run/EffectDifference.h"

namespace aimz::run {

void EffectCombiner::startRectangle(const DeviceTask &Task) {
  std::fill(Results.begin(), Results.end(), aimz_view{nullptr, nullptr});
  for (size_t I = 0; I < Outs.size(); ++I)
    if (Task.Results[Outs[I].Site].data && !Outs[I].Scenario) {
      Chunks[I].resize(Outs[I].ChunkBytes);
      Results[Outs[I].Site] = {Chunks[I].data(), Outs[I].ChunkStrides.data()};
    }
}

llvm::Error EffectCombiner::combine(
    const aimz_call &C, const DeviceTask &Task,
    llvm::function_ref<llvm::Error(aimz_call &)> CallKernel) {
  // The baseline over the same rectangle (same seed, same streams), into a
  // copy of the chunk; the chunk keeps the difference.
  aimz_call Base = C;
  Base.inputs = Baseline.inputs();
  Base.posterior = Baseline.posterior();
  Base.results = Results.data();
  if (llvm::Error E = CallKernel(Base))
    return E;
  const std::vector<void *> &Buffers = *Task.Buffers;
  // The chunk elements of this call's draws and observations.
  auto BoxOf = [&](const OutputArray &O) {
    return rectangleBox(O, C.draw_begin - C.result_draw_origin,
                        C.draw_end - C.result_draw_origin,
                        C.obs_begin - C.result_obs_origin,
                        C.obs_end - C.result_obs_origin);
  };
  // --keep-scenarios: copy both scenarios out before the difference.
  for (size_t J = 0; J < Outs.size(); ++J) {
    size_t I = Outs[J].EffectOf;
    if (!Outs[J].Scenario || !Task.Results[Outs[I].Site].data)
      continue;
    const void *From = Outs[J].Scenario == 1
                           ? Buffers[I]
                           : static_cast<const void *>(Chunks[I].data());
    copyInBox(io::dtypeSize(Outs[J].Type), Buffers[J], From,
              Outs[J].ChunkStrides, BoxOf(Outs[J]));
  }
  for (size_t I = 0; I < Outs.size(); ++I) {
    if (Outs[I].Scenario || !Task.Results[Outs[I].Site].data)
      continue;
    subtractInBox(Outs[I].Type, Buffers[I], Chunks[I].data(),
                  Outs[I].ChunkStrides, BoxOf(Outs[I]));
  }
  return llvm::Error::success();
}

} // namespace aimz::run
