//===- NetcdfPosteriorFuzzer.cpp - Arbitrary bytes as an ArviZ .nc --------===//
//
// The InferenceData netCDF reader behind `--posterior fit.nc`: the
// posterior group, its variables' dims and types, the size bound checked
// before a variable is allocated, and the read. Any input may only be an
// error; a crash inside libnetcdf/HDF5 themselves is reported upstream
// (docs/fuzzing.md). The bytes go to a file that is read as aimz-run reads
// a posterior. Built as a libFuzzer target with -DAIMZ_ENABLE_FUZZERS=ON (clang),
// and replayed with random mutations by the test suite.
//
//===----------------------------------------------------------------------===//
#include "aimz/run/InferenceDataNetcdf.h"

#include <cstdint>
#include <string>
#include <fcntl.h>
#include <unistd.h>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  // A named file (in memory where /dev/shm exists): HDF5 reopens the path,
  // which a memfd's /proc/self/fd link does not survive.
  static const std::string Path =
      std::string(::access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp") +
      "/aimz-fuzz-" + std::to_string(::getpid()) + ".nc";
  int FD = ::open(Path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (FD < 0)
    return 0;
  bool Written = ::write(FD, Data, Size) == static_cast<ssize_t>(Size);
  ::close(FD);
  if (!Written)
    return 0;
  auto Draws = aimz::run::readInferenceDataNetcdf(Path);
  if (!Draws) {
    llvm::consumeError(Draws.takeError());
    return 0;
  }
  volatile uint8_t Sink = 0;
  for (const std::string &Name : Draws->Names) {
    auto A = Draws->Read(Name);
    if (!A) {
      llvm::consumeError(A.takeError());
      continue;
    }
    if (A->numBytes())
      Sink = Sink + static_cast<const uint8_t *>(A->data())[A->numBytes() - 1];
  }
  return 0;
}
