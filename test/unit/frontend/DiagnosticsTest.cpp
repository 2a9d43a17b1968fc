//===- DiagnosticsTest.cpp - The catalogue of diagnostics -----------------===//
//
// Diagnostics.def: codes unique and well formed, each format's placeholders
// within its declared arguments (and every argument used), ids in the
// style of their severity; a report formats and prints as users see it.
//
//===----------------------------------------------------------------------===//
#include "aimz/Diagnostics.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

using namespace aimz;

namespace {

TEST(Diagnostics, CodesAreUniqueAndWellFormed) {
  std::set<std::string> Codes, Names;
  ASSERT_EQ(diag::catalogue().size(), size_t(diag::NumDiagnostics));
  for (const diag::DiagInfo &D : diag::catalogue()) {
    llvm::StringRef Code(D.Code), Name(D.Name);
    EXPECT_TRUE(Codes.insert(D.Code).second) << "code used twice: " << D.Code;
    EXPECT_TRUE(Names.insert(D.Name).second) << "id used twice: " << D.Name;
    ASSERT_EQ(Code.size(), 5u) << D.Name;
    for (char C : Code.drop_front())
      EXPECT_TRUE(C >= '0' && C <= '9') << D.Name << ": " << D.Code;
    // E for errors, W for warnings, N for notes, in the code and the id.
    char Letter = D.Sev == diag::Severity::Error     ? 'E'
                  : D.Sev == diag::Severity::Warning ? 'W'
                                                     : 'N';
    EXPECT_EQ(Code.front(), Letter) << D.Name << ": " << D.Code;
    EXPECT_TRUE(Name.starts_with(std::string(1, Letter) + "_")) << D.Name;
  }
}

TEST(Diagnostics, PlaceholdersMatchTheArguments) {
  for (const diag::DiagInfo &D : diag::catalogue()) {
    llvm::StringRef Format(D.Format);
    EXPECT_FALSE(Format.empty()) << D.Name;
    EXPECT_LE(D.NumArgs, 10u) << D.Name;
    // A placeholder past the declared arguments would print as written; an
    // argument no placeholder uses would be lost.
    int Count = diag::placeholderCount(Format);
    EXPECT_GE(Count, 0) << D.Name << ": a stray '%' in \"" << D.Format << "\"";
    EXPECT_EQ(Count, int(D.NumArgs)) << D.Name;
    for (unsigned I = 0; I < D.NumArgs; ++I)
      EXPECT_NE(Format.find("%" + std::to_string(I)), llvm::StringRef::npos)
          << D.Name << " never uses %" << I;
    // Messages read as the rest of a sentence after "error: ".
    EXPECT_FALSE(Format.ends_with(".")) << D.Name;
    EXPECT_FALSE(Format.ends_with(" ")) << D.Name;
  }
}

TEST(Diagnostics, PlaceholderCount) {
  EXPECT_EQ(diag::placeholderCount("no arguments"), 0);
  EXPECT_EQ(diag::placeholderCount("'%0' and '%1', again %0"), 2);
  EXPECT_EQ(diag::placeholderCount("100%% sure of %0"), 1);
  EXPECT_EQ(diag::placeholderCount("a stray % sign"), -1);
  EXPECT_EQ(diag::placeholderCount("ends in %"), -1);
}

TEST(Diagnostics, FormatsOneRow) {
  const diag::DiagInfo &D = diag::info(diag::E_PARAMETER_CONSTRAINT);
  EXPECT_EQ(diag::format(D.Format, {"scale", "Normal", "positive", "-1"}),
            "parameter 'scale' of Normal must be positive; got -1");
  EXPECT_EQ(diag::format("%0_lag: %1[%2], 100%%", {"y", "f32", "n"}),
            "y_lag: f32[n], 100%");
}

TEST(Diagnostics, ReportPrintsTheCodeAfterTheMessage) {
  llvm::SourceMgr SM;
  SM.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy("mu ~ Gaussian(0, 1);\n", "t.aimz"),
      llvm::SMLoc());
  const char *Start = SM.getMemoryBuffer(1)->getBufferStart();
  std::string Out;
  llvm::raw_string_ostream OS(Out);
  Diagnostics Diags(SM, OS);
  Diags.report(diag::E_TOO_MANY_POSITIONAL, llvm::SMLoc::getFromPointer(Start))
      << "Poisson" << size_t(1) << "" << "";
  Diags.report(diag::N_PREVIOUS_DEFINITION,
               llvm::SMLoc::getFromPointer(Start + 5));
  EXPECT_EQ(Diags.errorCount(), 1u);
  EXPECT_EQ(OS.str(), "t.aimz:1:1: error: Poisson takes at most 1 positional "
                      "argument [E0401]\n"
                      "mu ~ Gaussian(0, 1);\n"
                      "^\n"
                      "t.aimz:1:6: note: previous definition is here [N0003]\n"
                      "mu ~ Gaussian(0, 1);\n"
                      "     ^\n");
}

} // namespace
