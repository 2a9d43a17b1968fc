//===- FakeDriver.h - Load libaimz_fake_cuda.so for a test -------*- C++ -*-===//
#ifndef AIMZ_TEST_GPU_FAKEDRIVER_H
#define AIMZ_TEST_GPU_FAKEDRIVER_H

#include "FakeCuda.h"
#include "aimz/gpu/CudaDriver.h"

#include <gtest/gtest.h>

#include <dlfcn.h>
#include <unistd.h>

#include <cstdlib>
#include <memory>
#include <string>

#ifndef AIMZ_FAKE_CUDA_PATH
#error "AIMZ_FAKE_CUDA_PATH must name libaimz_fake_cuda.so"
#endif

namespace aimz::gputest {

/// libaimz_fake_cuda.so: AIMZ_FAKE_CUDA_PATH, or the environment variable of
/// that name, or the file beside the test binary (a relocated bundle).
inline std::string fakeCudaPath() {
  if (const char *E = std::getenv("AIMZ_FAKE_CUDA_PATH"))
    return E;
  if (access(AIMZ_FAKE_CUDA_PATH, R_OK) == 0)
    return AIMZ_FAKE_CUDA_PATH;
  char Self[4096];
  ssize_t N = readlink("/proc/self/exe", Self, sizeof Self - 1);
  if (N > 0) {
    std::string Dir(Self, static_cast<size_t>(N));
    Dir = Dir.substr(0, Dir.rfind('/'));
    return Dir + "/libaimz_fake_cuda.so";
  }
  return AIMZ_FAKE_CUDA_PATH;
}

/// The fake's control functions (dlopen'ed with the same path CudaDriver
/// opens, so both see one copy of its state).
struct FakeCuda {
  void *Handle = nullptr;
  void (*Configure)(const aimz_fake_cuda_config *) = nullptr;
  void (*GetStats)(aimz_fake_cuda_stats *) = nullptr;
  const char *(*Violations)() = nullptr;
  std::string Path;

  FakeCuda() : Path(fakeCudaPath()) {
    Handle = dlopen(Path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!Handle)
      return;
    Configure = reinterpret_cast<decltype(Configure)>(dlsym(Handle, "aimz_fake_cuda_configure"));
    GetStats = reinterpret_cast<decltype(GetStats)>(dlsym(Handle, "aimz_fake_cuda_get_stats"));
    Violations = reinterpret_cast<decltype(Violations)>(dlsym(Handle, "aimz_fake_cuda_violations"));
  }
  bool ok() const { return Handle && Configure && GetStats && Violations; }
  static aimz_fake_cuda_config defaults() {
    aimz_fake_cuda_config C{};
    C.devices = 1;
    C.cc_major = 9;
    C.cc_minor = 0;
    C.total_memory = 80ull << 30;
    return C;
  }
  aimz_fake_cuda_stats stats() const {
    aimz_fake_cuda_stats S{};
    GetStats(&S);
    return S;
  }
  /// Configures the fake, then loads it as the driver.
  llvm::Expected<std::unique_ptr<aimz::gpu::CudaDriver>>
  open(const aimz_fake_cuda_config &C) {
    Configure(&C);
    return aimz::gpu::CudaDriver::open(Path);
  }
};

} // namespace aimz::gputest

#endif // AIMZ_TEST_GPU_FAKEDRIVER_H
