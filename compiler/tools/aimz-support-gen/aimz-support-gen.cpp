//===- aimz-support-gen.cpp - The precompiled support object of one level -===//
//
// Run while aimzc is built: writes the support library's out-of-line
// functions, compiled for one x86-64 level (PrecompiledSupport.h), as an
// object that aimzc embeds and links into each model.
//
//   aimz-support-gen x86-64-v4 -o support-x86-64-v4.o
//
//===----------------------------------------------------------------------===//
#include "aimz/Target/PrecompiledSupport.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

namespace cl = llvm::cl;

// Embedded objects: none here (this tool makes them).
llvm::StringRef aimz::embeddedSupportObject(llvm::StringRef) { return ""; }

int main(int argc, char **argv) {
  llvm::InitLLVM X(argc, argv);
  cl::opt<std::string> Level(cl::Positional, cl::Required,
                             cl::desc("<x86-64-v2|x86-64-v3|x86-64-v4>"));
  cl::opt<std::string> Output("o", cl::Required, cl::desc("Object file"),
                              cl::value_desc("file"));
  cl::ParseCommandLineOptions(argc, argv, "aimz-support-gen\n");
  std::error_code EC;
  llvm::raw_fd_ostream OS(Output, EC);
  if (EC) {
    llvm::WithColor::error(llvm::errs(), "aimz-support-gen")
        << "cannot write '" << Output << "': " << EC.message() << "\n";
    return 1;
  }
  if (llvm::Error E = aimz::emitSupportObject(Level, OS)) {
    llvm::WithColor::error(llvm::errs(), "aimz-support-gen")
        << llvm::toString(std::move(E)) << "\n";
    return 1;
  }
  return 0;
}
