//===- PhaseTimes.h - aimzc --time-report: time per phase -------*- C++ -*-===//
//
// Wall time of each phase of a compile (parse, analysis, MLIR, lowering,
// LLVM optimization, CPU code, PTX for both architectures, link),
// printed as LLVM's -time-passes prints passes, so that a slower compile
// shows at once where it went. PTX is made on its own thread while the CPU
// code is optimized, so the two overlap in wall time; the user and system
// columns are the whole process's (getrusage), so only wall time is a
// phase's own. Timers are made up front on the calling thread; each is then
// started and stopped by one thread only.
//
//===----------------------------------------------------------------------===//
#ifndef AIMZ_PHASETIMES_H
#define AIMZ_PHASETIMES_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Timer.h"

#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace aimz {

class PhaseTimes {
public:
  /// The phases, in the order they run.
  static constexpr const char *Names[] = {
      "parse",          "analysis",    "MLIR generation",
      "MLIR lowering",  "LLVM IR translation", "LLVM optimization",
      "CPU code",       "PTX",         "link"};

  PhaseTimes() : Group("aimzc", "aimzc phases (--time-report)") {
    for (const char *N : Names)
      Timers.emplace_back(N, std::make_unique<llvm::Timer>(N, N, Group));
  }
  /// The timer of phase Name (one of Names).
  llvm::Timer *operator[](llvm::StringRef Name) {
    for (auto &[N, T] : Timers)
      if (Name == N)
        return T.get();
    return nullptr;
  }
  /// A line printed under the table (how the compile went, e.g. which
  /// support code it linked).
  void note(std::string Line) { Notes.push_back(std::move(Line)); }
  /// The table, slowest phase first, then the notes.
  void print(llvm::raw_ostream &OS) {
    Group.print(OS, /*ResetAfterPrint=*/true);
    for (const std::string &N : Notes)
      OS << N << "\n";
  }

private:
  llvm::TimerGroup Group;
  std::vector<std::pair<std::string, std::unique_ptr<llvm::Timer>>> Timers;
  std::vector<std::string> Notes;
};

/// Times a scope with phase Name of Times (nothing when Times is null).
class PhaseScope {
public:
  PhaseScope(PhaseTimes *Times, llvm::StringRef Name)
      : Region(Times ? (*Times)[Name] : nullptr) {}

private:
  llvm::TimeRegion Region;
};

} // namespace aimz

#endif // AIMZ_PHASETIMES_H
