//===- NetcdfPosteriorFuzzer.cpp - Arbitrary bytes as an ArviZ .nc --------===//
//
// The InferenceData netCDF reader behind `--posterior fit.nc`: the
// posterior group, its variables' dims and types, the size bound checked
// before a variable is allocated, and the read. Any input may only be an
// error; a crash inside libnetcdf/HDF5 themselves is reported upstream
// (docs/fuzzing.md). The bytes go through a memfd, read as aimz-run reads a
// file. Built as a libFuzzer target with -DAIMZ_ENABLE_FUZZERS=ON (clang),
// and replayed with random mutations by the test suite.
//
//===----------------------------------------------------------------------===//
#include "aimz/run/InferenceDataNetcdf.h"

#include <cstdint>
#include <string>
#include <sys/mman.h>
#include <unistd.h>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  int FD = ::memfd_create("fuzz.nc", MFD_CLOEXEC);
  if (FD < 0)
    return 0;
  if (::write(FD, Data, Size) != static_cast<ssize_t>(Size)) {
    ::close(FD);
    return 0;
  }
  std::string Path = "/proc/self/fd/" + std::to_string(FD);
  auto Draws = aimz::run::readInferenceDataNetcdf(Path);
  if (!Draws) {
    llvm::consumeError(Draws.takeError());
    ::close(FD);
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
  Draws->Read = nullptr; // closes the file before its descriptor
  ::close(FD);
  return 0;
}
