//===- FrontendFuzzer.cpp - libFuzzer target for parser and Sema ----------===//
//
// Feeds arbitrary bytes through the parser and semantic analysis. Any crash,
// sanitizer report or hang is a bug: bad input must only ever produce
// diagnostics. Build with -DAIMZ_ENABLE_FUZZERS=ON and clang-19.
//
//===----------------------------------------------------------------------===//
#include "aimz/Diagnostics.h"
#include "aimz/Manifest.h"
#include "aimz/Parser.h"
#include "aimz/Sema.h"

#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  llvm::SourceMgr SM;
  llvm::StringRef Text(reinterpret_cast<const char *>(Data), Size);
  SM.AddNewSourceBuffer(llvm::MemoryBuffer::getMemBufferCopy(Text, "fuzz"),
                        llvm::SMLoc());
  std::string Errors;
  llvm::raw_string_ostream ES(Errors);
  aimz::Diagnostics Diags(SM, ES);
  auto M = aimz::parseModel(SM.getMemoryBuffer(1)->getBuffer(), Diags);
  if (!M)
    return 0;
  auto Info = aimz::analyzeModel(*M, Diags);
  if (Info)
    (void)aimz::manifestJSON(*Info);
  return 0;
}
