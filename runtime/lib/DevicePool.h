//===- DevicePool.h - One thread per device of a run -------------*- C++ -*-===//
#ifndef AIMZ_RUN_DEVICEPOOL_H
#define AIMZ_RUN_DEVICEPOOL_H

#include "llvm/Support/Error.h"

#include <condition_variable>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace aimz::run {

/// One thread per device, kept for the whole run; run() hands every device
/// a task and waits for all of them.
class DevicePool {
public:
  using Task = std::function<llvm::Error(unsigned Device)>;

  explicit DevicePool(unsigned N);
  ~DevicePool();
  unsigned size() const { return static_cast<unsigned>(Threads.size()); }

  /// Runs T(device) on every device; returns the first device's error.
  llvm::Error run(Task T);

private:
  void loop(unsigned I);

  std::vector<std::thread> Threads;
  std::vector<std::optional<std::string>> Errors;
  std::mutex M;
  std::condition_variable Wake, Done;
  Task Current;
  unsigned Pending = 0;
  uint64_t Generation = 0;
  bool Stop = false;
};

} // namespace aimz::run

#endif // AIMZ_RUN_DEVICEPOOL_H
