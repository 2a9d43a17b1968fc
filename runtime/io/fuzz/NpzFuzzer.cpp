//===- NpzFuzzer.cpp - Arbitrary bytes as an .npz archive -----------------===//
//
// The zip directory reader (ZIP64, names, offsets), member extraction
// (stored and deflated, CRC-32) and the .npy parser behind it. The bytes go
// through a memfd so the archive is read exactly as aimz-run reads files:
// memory-mapped. Built as a libFuzzer target with -DAIMZ_ENABLE_FUZZERS=ON
// (clang), and replayed with random mutations by the test suite.
//
//===----------------------------------------------------------------------===//
#include "aimz/io/Npz.h"

#include "FuzzInputFile.h"

#include <cstdint>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  aimz::fuzz::FuzzInputFile File(Data, Size);
  if (!File.ok())
    return 0;
  auto Z = aimz::io::NpzArchive::open(File.path());
  if (!Z) {
    llvm::consumeError(Z.takeError());
    return 0;
  }
  for (const std::string &Name : Z->names()) {
    auto A = Z->array(Name);
    if (!A) {
      llvm::consumeError(A.takeError());
      continue;
    }
    volatile uint8_t Sink = 0;
    if (A->numBytes()) {
      const uint8_t *P = static_cast<const uint8_t *>(A->data());
      Sink = Sink + P[0] + P[A->numBytes() - 1];
    }
  }
  return 0;
}
