//===- Diagnostics.h - Compiler-style error reporting -----------*- C++ -*-===//
//
// Reports `file:line:col: error: message [E0123]`, the source line and a
// caret, in the format of a C compiler, through LLVM's SourceMgr. Every
// message the front end prints is a row of Diagnostics.def: a stable id, a
// printable code, a severity and a format with numbered placeholders (%0,
// %1, ...); a call site names the row and gives the arguments:
//
//   Diags.report(diag::E_UNKNOWN_NAME, Loc) << Name;
//
//===----------------------------------------------------------------------===//
#ifndef AIMZ_DIAGNOSTICS_H
#define AIMZ_DIAGNOSTICS_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/SMLoc.h"

#include <string>
#include <type_traits>
#include <vector>

namespace llvm {
class SourceMgr;
class raw_ostream;
} // namespace llvm

namespace aimz {

namespace diag {

/// One id per row of Diagnostics.def, in its order.
enum DiagId : unsigned {
#define AIMZ_DIAG(Id, Code, Severity, NumArgs, Format) Id,
#include "aimz/Diagnostics.def"
  NumDiagnostics
};

enum class Severity { Error, Warning, Note };

/// A row of the catalogue.
struct DiagInfo {
  const char *Name; // E_UNKNOWN_NAME
  const char *Code; // E0501
  Severity Sev;
  unsigned NumArgs;   // the arguments a report must give
  const char *Format; // the message, %0 ... %9 for the arguments
};

/// The catalogue, indexed by DiagId.
llvm::ArrayRef<DiagInfo> catalogue();
const DiagInfo &info(DiagId Id);
const char *severityName(Severity S);

/// `Format` with %N replaced by Args[N] and %% by %.
std::string format(llvm::StringRef Format, llvm::ArrayRef<std::string> Args);

/// The highest placeholder index `Format` uses plus one (0 when none); -1
/// when it is malformed (a % followed by neither a digit nor %).
int placeholderCount(llvm::StringRef Format);

/// docs/diagnostics.md: every code, severity and format, as a Markdown
/// table (aimzc --list-diagnostics).
void printCatalogue(llvm::raw_ostream &OS);

} // namespace diag

class Diagnostics;

/// Collects a report's arguments; prints the diagnostic when it goes out
/// of scope (at the end of the statement that made it).
class DiagBuilder {
public:
  DiagBuilder(Diagnostics &D, diag::DiagId Id, llvm::SMLoc Loc)
      : D(&D), Id(Id), Loc(Loc) {}
  DiagBuilder(const DiagBuilder &) = delete;
  DiagBuilder &operator=(const DiagBuilder &) = delete;
  ~DiagBuilder();

  DiagBuilder &operator<<(const llvm::Twine &Arg) {
    Args.push_back(Arg.str());
    return *this;
  }
  template <typename T>
  std::enable_if_t<std::is_integral_v<T> && !std::is_same_v<T, bool> &&
                       !std::is_same_v<T, char>,
                   DiagBuilder &>
  operator<<(T V) {
    Args.push_back(std::to_string(V));
    return *this;
  }

private:
  Diagnostics *D;
  diag::DiagId Id;
  llvm::SMLoc Loc;
  llvm::SmallVector<std::string, 4> Args;
};

class Diagnostics {
public:
  Diagnostics(llvm::SourceMgr &SM, llvm::raw_ostream &OS) : SM(SM), OS(OS) {}

  /// Reports the catalogue's row `Id` at `Loc`; stream its arguments in.
  DiagBuilder report(diag::DiagId Id, llvm::SMLoc Loc) {
    return DiagBuilder(*this, Id, Loc);
  }
  /// Prints a formatted report (DiagBuilder's destructor calls this).
  void emit(diag::DiagId Id, llvm::SMLoc Loc, llvm::ArrayRef<std::string> Args);

  unsigned errorCount() const { return Errors + HeldErrors; }
  bool hadError() const { return errorCount() != 0; }

  /// Keeps reports, in order, until releaseHeld(). A report made while
  /// provisional is one a later fact may lift (a use of the observation
  /// axis that mixes observations is legal in a model with a joint site):
  /// it counts and prints only if releaseHeld keeps provisional reports.
  void hold() { Holding = true; }
  void releaseHeld(bool KeepProvisional);
  /// How many provisional reports are held so far.
  unsigned provisionalCount() const { return HeldProvisional; }

  /// While one is alive, every report is provisional (nested scopes and
  /// early returns included).
  class ProvisionalScope {
  public:
    explicit ProvisionalScope(Diagnostics &D) : D(D), Was(D.Provisional) {
      D.Provisional = true;
    }
    ~ProvisionalScope() { D.Provisional = Was; }
    ProvisionalScope(const ProvisionalScope &) = delete;
    ProvisionalScope &operator=(const ProvisionalScope &) = delete;

  private:
    Diagnostics &D;
    bool Was;
  };
  /// When more errors were reported than printed, says how many there were.
  void printSummary();

  /// After this many errors the rest are counted but not printed.
  static constexpr unsigned MaxPrintedErrors = 20;

private:
  llvm::SourceMgr &SM;
  llvm::raw_ostream &OS;
  unsigned Errors = 0;
  struct HeldReport {
    diag::DiagId Id;
    llvm::SMLoc Loc;
    llvm::SmallVector<std::string, 4> Args;
    bool Provisional;
  };
  bool Holding = false, Provisional = false;
  std::vector<HeldReport> Held;
  unsigned HeldErrors = 0; // the held reports' firm errors
  unsigned HeldProvisional = 0;
  void print(diag::DiagId Id, llvm::SMLoc Loc,
             llvm::ArrayRef<std::string> Args);
};

inline DiagBuilder::~DiagBuilder() { D->emit(Id, Loc, Args); }

} // namespace aimz

#endif // AIMZ_DIAGNOSTICS_H
