//===- CpuDevice.cpp - A CPU worker thread as a device --------------------===//
#include "CpuDevice.h"
#include "KernelCall.h"

#include <algorithm>
#include <chrono>

namespace aimz::run {

namespace {

// Draws per kernel call. The draw plan takes one at a time. The obs plan
// starts with 16, then sizes each call to about CallSeconds from the
// device's last one: calls short enough to notice Ctrl-C quickly, and few
// enough that what a call does once for all its draws (packing an input's
// rows for X @ beta) is not repeated many times per chunk. The values do
// not depend on the split (the same streams and sums in any call).
constexpr int64_t ObsPlanFirstStep = 16;
constexpr double CallSeconds = 0.02;

} // namespace

CpuDevice::CpuDevice(const KernelContext &Ctx,
                     std::optional<EffectCombiner> Effect)
    : Ctx(Ctx), Effect(std::move(Effect)),
      Step(Ctx.Plan.ObsPlan ? ObsPlanFirstStep : 1) {}

void CpuDevice::adaptStep(double Drawn, double Took) {
  // Grows at most 8x per call (a first call slowed by page faults does not
  // make the next one huge), never below the start.
  Step = std::clamp<int64_t>(
      static_cast<int64_t>(Drawn * CallSeconds / std::max(Took, 1e-6)),
      ObsPlanFirstStep, 8 * Step);
}

llvm::Error CpuDevice::compute(DeviceTask &Task) {
  const int64_t N = Ctx.Plan.Observations;
  aimz_call &Call = Task.Call;
  // A joint site: one block of every observation; else the model's
  // default.
  Call.obs_block = Ctx.M.JointObservations ? std::max<int64_t>(N, 1) : 0;
  if (Effect)
    Effect->startRectangle(Task);
  auto CallKernel = [&](aimz_call &C) {
    return callKernel(Ctx.Entry, C, Scratch, N, Ctx.CpuThreads);
  };
  // Each call ends where the next begins (draw_end).
  for (int64_t G = Task.Draw0; G < Task.Draw1; G = Call.draw_end) {
    if (Ctx.stopRequested())
      return llvm::Error::success();
    Call.draw_begin = G;
    Call.draw_end = std::min(Task.Draw1, G + Step);
    const auto CallStart = std::chrono::steady_clock::now();
    if (llvm::Error E = CallKernel(Call))
      return E;
    if (Ctx.Plan.ObsPlan)
      adaptStep(static_cast<double>(Call.draw_end - G),
                std::chrono::duration<double>(
                    std::chrono::steady_clock::now() - CallStart)
                    .count());
    if (Effect)
      if (llvm::Error E = Effect->combine(Call, Task, CallKernel))
        return E;
  }
  return llvm::Error::success();
}

} // namespace aimz::run
