//===- Diagnostics.h - Compiler-style error reporting -----------*- C++ -*-===//
//
// Reports `file:line:col: error: message`, the source line and a caret, in
// the format of a C compiler, through LLVM's SourceMgr.
//
//===----------------------------------------------------------------------===//
#ifndef AIMZ_DIAGNOSTICS_H
#define AIMZ_DIAGNOSTICS_H

#include "llvm/ADT/Twine.h"
#include "llvm/Support/SMLoc.h"

namespace llvm {
class SourceMgr;
class raw_ostream;
} // namespace llvm

namespace aimz {

class Diagnostics {
public:
  Diagnostics(llvm::SourceMgr &SM, llvm::raw_ostream &OS) : SM(SM), OS(OS) {}

  void error(llvm::SMLoc Loc, const llvm::Twine &Msg);
  void warning(llvm::SMLoc Loc, const llvm::Twine &Msg);
  void note(llvm::SMLoc Loc, const llvm::Twine &Msg);

  unsigned errorCount() const { return Errors; }
  bool hadError() const { return Errors != 0; }
  /// When more errors were reported than printed, says how many there were.
  void printSummary();

  /// After this many errors the rest are counted but not printed.
  static constexpr unsigned MaxPrintedErrors = 20;

private:
  llvm::SourceMgr &SM;
  llvm::raw_ostream &OS;
  unsigned Errors = 0;
};

} // namespace aimz

#endif // AIMZ_DIAGNOSTICS_H
