//===- aimzc.cpp - The .aimz model compiler driver ------------------------===//
//
// Parses a model, checks it, infers shapes and classes, and emits the stage
// asked for with --emit.
//
//===----------------------------------------------------------------------===//
#include "aimz/AST.h"
#include "aimz/Diagnostics.h"
#include "aimz/Manifest.h"
#include "aimz/Parser.h"
#include "aimz/Sema.h"
#include "aimz/Version.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

using namespace aimz;
namespace cl = llvm::cl;

namespace {

enum class EmitKind { AST, Sites, Manifest };

cl::OptionCategory Category("aimzc options");

cl::opt<std::string> InputFile(cl::Positional, cl::desc("<model.aimz>"),
                               cl::Required, cl::cat(Category));
cl::opt<std::string> OutputFile("o", cl::desc("Write the output here"),
                                cl::value_desc("file"), cl::cat(Category));
cl::opt<EmitKind> Emit(
    "emit", cl::desc("What to produce (default: sites)"),
    cl::values(clEnumValN(EmitKind::AST, "ast", "the parsed syntax tree"),
               clEnumValN(EmitKind::Sites, "sites",
                          "a table of sites, classes, shapes and the plan"),
               clEnumValN(EmitKind::Manifest, "manifest",
                          "the manifest JSON embedded in compiled models")),
    cl::init(EmitKind::Sites), cl::cat(Category));

} // namespace

int main(int argc, char **argv) {
  cl::HideUnrelatedOptions(Category);
  cl::SetVersionPrinter([](llvm::raw_ostream &OS) {
    OS << "aimzc " << AIMZ_VERSION_STRING << "\n";
  });
  cl::ParseCommandLineOptions(
      argc, argv,
      "aimzc: compile a .aimz probabilistic model\n\n"
      "  aimzc model.aimz --emit=manifest   print the manifest JSON\n"
      "  aimzc model.aimz --emit=sites      print the site table\n");

  auto Buffer = llvm::MemoryBuffer::getFileOrSTDIN(InputFile);
  if (std::error_code EC = Buffer.getError()) {
    llvm::WithColor::error(llvm::errs(), "aimzc")
        << "cannot read '" << InputFile << "': " << EC.message() << "\n";
    return 1;
  }
  llvm::SourceMgr SM;
  llvm::StringRef Source = (*Buffer)->getBuffer();
  SM.AddNewSourceBuffer(std::move(*Buffer), llvm::SMLoc());
  Diagnostics Diags(SM, llvm::errs());

  std::unique_ptr<Model> M = parseModel(Source, Diags);
  if (!M)
    return 1;
  if (Emit == EmitKind::AST && !Diags.hadError()) {
    dumpAST(*M, llvm::outs());
    return 0;
  }
  std::optional<ModelInfo> Info = analyzeModel(*M, Diags);
  if (!Info) {
    if (Diags.errorCount() > Diagnostics::MaxPrintedErrors)
      llvm::errs() << Diags.errorCount() << " errors in all; the first "
                   << Diagnostics::MaxPrintedErrors << " are shown\n";
    return 1;
  }

  std::error_code EC;
  llvm::raw_fd_ostream Out(OutputFile.empty() ? "-" : OutputFile.getValue(),
                           EC);
  if (EC) {
    llvm::WithColor::error(llvm::errs(), "aimzc")
        << "cannot write '" << OutputFile << "': " << EC.message() << "\n";
    return 1;
  }
  switch (Emit) {
  case EmitKind::AST:
    break;
  case EmitKind::Sites:
    printSiteTable(*Info, Out);
    break;
  case EmitKind::Manifest:
    Out << manifestJSON(*Info) << "\n";
    break;
  }
  return 0;
}
