//===- StanCsvFuzzer.cpp - Arbitrary bytes as a CmdStan CSV file ----------===//
//
// The CmdStan CSV reader (comments, header, warmup, column names and their
// indices, numbers) behind `--posterior fit.csv`: any input may only be an
// error. The bytes go through a memfd, so the file is read exactly as
// aimz-run reads one. Built as a libFuzzer target with
// -DAIMZ_ENABLE_FUZZERS=ON (clang), and replayed with random mutations by
// the test suite.
//
//===----------------------------------------------------------------------===//
#include "aimz/run/StanCsv.h"

#include "../io/fuzz/FuzzInputFile.h"

#include <cstdint>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  aimz::fuzz::FuzzInputFile File(Data, Size);
  if (!File.ok())
    return 0;
  auto Draws = aimz::run::readStanCsv({File.path(), File.path()}); // 2 chains
  if (!Draws) {
    llvm::consumeError(Draws.takeError());
    return 0;
  }
  volatile double Sink = 0;
  for (const auto &[Name, A] : Draws->Arrays)
    if (A.numBytes())
      Sink = Sink + static_cast<const double *>(A.data())[0] +
             static_cast<const double *>(A.data())[A.numBytes() / 8 - 1];
  return 0;
}
