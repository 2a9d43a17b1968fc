//===- DevicePlan.cpp - Which devices a run uses --------------------------===//
#include "DevicePlan.h"
#include "RunError.h"

#include "aimz/gpu/CudaDriver.h"
#include "aimz/run/Runner.h"

#include <algorithm>
#include <thread>

namespace aimz::run {

std::string DevicePlan::describe() const {
  std::string Names;
  if (!Gpus.empty())
    Names = std::to_string(Gpus.size()) + " GPU" +
            (Gpus.size() == 1 ? "" : "s");
  if (!Gpus.empty() && Cpus)
    Names += " + ";
  if (Cpus)
    Names += std::to_string(Cpus) + " CPU thread" + (Cpus == 1 ? "" : "s");
  return Names;
}

llvm::Expected<DevicePlan> planDevices(DeviceChoice Choice, unsigned Max) {
  DevicePlan P;
  unsigned Threads = std::max(1u, std::thread::hardware_concurrency());
  std::vector<int> Present;
  std::string Why;
  if (Choice != DeviceChoice::CPU) {
    auto Driver = gpu::CudaDriver::get();
    if (Driver) {
      for (const gpu::GpuInfo &G : Driver->devices())
        Present.push_back(G.Ordinal);
    } else {
      Why = llvm::toString(Driver.takeError());
    }
  }
  if (Choice == DeviceChoice::GPU && Present.empty())
    return error("no GPU to run on: " + Why +
                 "; use --device cpu to run on the CPU");
  bool UseGpus = Choice == DeviceChoice::GPU || Choice == DeviceChoice::All ||
                 (Choice == DeviceChoice::Default && !Present.empty());
  bool UseCpus = Choice == DeviceChoice::CPU || Choice == DeviceChoice::All ||
                 (Choice == DeviceChoice::Default && Present.empty());
  if (UseGpus)
    P.Gpus = Present;
  if (Max && P.Gpus.size() > Max)
    P.Gpus.resize(Max);
  if (UseCpus) {
    unsigned Room = Max ? Max - P.Gpus.size() : Threads;
    P.Cpus = std::min(Room, Max ? Max : Threads);
    if (P.Gpus.empty())
      P.Cpus = std::max(1u, P.Cpus);
  }
  return P;
}

llvm::Expected<std::vector<std::string>> describeDevices(DeviceChoice Choice,
                                                         unsigned Max) {
  auto P = planDevices(Choice, Max);
  if (!P)
    return P.takeError();
  std::vector<std::string> Lines;
  if (!P->Gpus.empty()) {
    auto Driver = gpu::CudaDriver::get();
    for (int G : P->Gpus)
      Lines.push_back("gpu:" + std::to_string(G) + "  " +
                      Driver->devices()[G].describe());
  }
  for (unsigned I = 0; I < P->Cpus; ++I)
    Lines.push_back("cpu:" + std::to_string(I) + "  CPU worker thread");
  return Lines;
}

} // namespace aimz::run
