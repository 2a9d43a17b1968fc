//===- CudaDevice.h - A GPU as a device --------------------------*- C++ -*-===//
#ifndef AIMZ_RUN_CUDADEVICE_H
#define AIMZ_RUN_CUDADEVICE_H

#include "Device.h"

#include "aimz/gpu/GpuDevice.h"

#include <memory>

namespace aimz::run {

/// Runs the model's PTX kernels on one GPU through the CUDA driver: its
/// rectangle's calls queued back to back (a call's copy-back overlaps the
/// next one's kernel), then waited for.
class CudaDevice final : public Device {
public:
  CudaDevice(const KernelContext &Ctx, std::unique_ptr<gpu::GpuDevice> Gpu)
      : Ctx(Ctx), Gpu(std::move(Gpu)) {}
  llvm::Error compute(DeviceTask &Task) override;

private:
  /// What the GPU must copy for a rectangle: every array's bytes and rank.
  gpu::RectangleLayout layout(const DeviceTask &Task) const;

  const KernelContext &Ctx;
  std::unique_ptr<gpu::GpuDevice> Gpu;
};

} // namespace aimz::run

#endif // AIMZ_RUN_CUDADEVICE_H
