//===- DevicePlan.h - Which devices a run uses -------------------*- C++ -*-===//
#ifndef AIMZ_RUN_DEVICEPLAN_H
#define AIMZ_RUN_DEVICEPLAN_H

#include "aimz/run/ExecutionSpec.h"

#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace aimz::run {

/// The devices of a run: GPU ordinals first, then CPU worker threads.
struct DevicePlan {
  std::vector<int> Gpus;
  unsigned Cpus = 0;
  unsigned size() const { return Gpus.size() + Cpus; }
  /// "2 CPU threads", "1 GPU + 3 CPU threads" (the run's report).
  std::string describe() const;
};

/// The devices Choice selects, at most Max (0: all); an error when GPUs
/// are required and there are none.
llvm::Expected<DevicePlan> planDevices(DeviceChoice Choice, unsigned Max);

} // namespace aimz::run

#endif // AIMZ_RUN_DEVICEPLAN_H
