//===- Diagnostics.cpp - Compiler-style error reporting -------------------===//
#include "aimz/Diagnostics.h"

#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

namespace aimz {

void Diagnostics::error(llvm::SMLoc Loc, const llvm::Twine &Msg) {
  if (++Errors > MaxPrintedErrors)
    return;
  SM.PrintMessage(OS, Loc, llvm::SourceMgr::DK_Error, Msg);
}

void Diagnostics::warning(llvm::SMLoc Loc, const llvm::Twine &Msg) {
  SM.PrintMessage(OS, Loc, llvm::SourceMgr::DK_Warning, Msg);
}

void Diagnostics::note(llvm::SMLoc Loc, const llvm::Twine &Msg) {
  if (Errors > MaxPrintedErrors)
    return;
  SM.PrintMessage(OS, Loc, llvm::SourceMgr::DK_Note, Msg);
}

void Diagnostics::printSummary() {
  if (Errors > MaxPrintedErrors)
    OS << Errors << " errors in all; the first " << MaxPrintedErrors
       << " are shown\n";
}

} // namespace aimz
