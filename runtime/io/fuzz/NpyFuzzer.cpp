//===- NpyFuzzer.cpp - Arbitrary bytes as a .npy image --------------------===//
//
// The header parser and the array view over its data: any input may only
// give an error, never a crash, a read out of bounds or a hang. Built as a
// libFuzzer target with -DAIMZ_ENABLE_FUZZERS=ON (clang), and replayed with
// random mutations by the normal test suite (docs/fuzzing.md).
//
//===----------------------------------------------------------------------===//
#include "aimz/io/Npy.h"

#include <cstdint>
#include <cstring>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  llvm::ArrayRef<uint8_t> Bytes(Data, Size);
  if (auto H = aimz::io::parseNpyHeader(Bytes, "fuzz.npy"))
    (void)H->Shape.size();
  else
    llvm::consumeError(H.takeError());
  auto A = aimz::io::NpyArray::fromBytes(Bytes, "fuzz.npy", nullptr);
  if (!A) {
    llvm::consumeError(A.takeError());
    return 0;
  }
  // Touch the first and last bytes of the data the view claims to hold.
  volatile uint8_t Sink = 0;
  if (A->numBytes()) {
    const uint8_t *P = static_cast<const uint8_t *>(A->data());
    Sink = Sink + P[0] + P[A->numBytes() - 1];
  }
  return 0;
}
