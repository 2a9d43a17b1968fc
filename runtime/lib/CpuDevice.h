//===- CpuDevice.h - A CPU worker thread as a device -------------*- C++ -*-===//
#ifndef AIMZ_RUN_CPUDEVICE_H
#define AIMZ_RUN_CPUDEVICE_H

#include "Device.h"
#include "EffectCombiner.h"

#include <memory>
#include <optional>

namespace aimz::run {

/// Calls the model's CPU entry point over its rectangle, a few draws per
/// call, in its own reused scratch; an effect run's baseline after each
/// call (Effect).
class CpuDevice final : public Device {
public:
  CpuDevice(const KernelContext &Ctx, std::optional<EffectCombiner> Effect);
  llvm::Error compute(DeviceTask &Task) override;

private:
  /// The draws of the next call after one of Drawn draws took Took s.
  void adaptStep(double Drawn, double Took);

  const KernelContext &Ctx;
  std::optional<EffectCombiner> Effect;
  std::vector<uint8_t> Scratch;
  /// Draws per call, carried from batch to batch (see DrawStep).
  int64_t Step;
};

} // namespace aimz::run

#endif // AIMZ_RUN_CPUDEVICE_H
