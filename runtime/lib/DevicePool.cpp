//===- DevicePool.cpp - One thread per device of a run --------------------===//
#include "DevicePool.h"
#include "RunError.h"

namespace aimz::run {

DevicePool::DevicePool(unsigned N) : Errors(N) {
  for (unsigned I = 0; I < N; ++I)
    Threads.emplace_back([this, I] { loop(I); });
}

DevicePool::~DevicePool() {
  {
    std::lock_guard<std::mutex> L(M);
    Stop = true;
  }
  Wake.notify_all();
  for (auto &T : Threads)
    T.join();
}

llvm::Error DevicePool::run(Task T) {
  {
    std::unique_lock<std::mutex> L(M);
    Current = std::move(T);
    Pending = size();
    ++Generation;
  }
  Wake.notify_all();
  std::unique_lock<std::mutex> L(M);
  Done.wait(L, [&] { return Pending == 0; });
  for (auto &E : Errors)
    if (E)
      return error(*std::exchange(E, std::nullopt));
  return llvm::Error::success();
}

void DevicePool::loop(unsigned I) {
  uint64_t Seen = 0;
  while (true) {
    Task T;
    {
      std::unique_lock<std::mutex> L(M);
      Wake.wait(L, [&] { return Stop || Generation != Seen; });
      if (Stop)
        return;
      Seen = Generation;
      T = Current;
    }
    if (llvm::Error E = T(I))
      Errors[I] = llvm::toString(std::move(E));
    std::lock_guard<std::mutex> L(M);
    if (--Pending == 0)
      Done.notify_all();
  }
}

} // namespace aimz::run
