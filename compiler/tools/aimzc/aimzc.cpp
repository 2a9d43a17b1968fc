//===- aimzc.cpp - The .aimz model compiler driver ------------------------===//
//
// Parses a model, checks it, infers shapes and classes, and emits the stage
// asked for with --emit.
//
//===----------------------------------------------------------------------===//
#include "aimz/AST.h"
#include "aimz/Builtins.h"
#include "aimz/Diagnostics.h"
#include "aimz/Distributions.h"
#include "aimz/Driver.h"
#include "aimz/Manifest.h"
#include "aimz/Parser.h"
#include "aimz/PhaseTimes.h"
#include "aimz/Sema.h"
#include "aimz/Version.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdio>
#include <optional>

using namespace aimz;
namespace cl = llvm::cl;

namespace {

cl::OptionCategory Category("aimzc options");

cl::opt<std::string> InputFile(cl::Positional, cl::desc("<model.aimz>"),
                               cl::Required, cl::cat(Category));
cl::opt<std::string> OutputFile("o", cl::desc("Write the output here"),
                                cl::value_desc("file"), cl::cat(Category));
cl::opt<EmitKind> Emit(
    "emit",
    cl::desc("What to produce (default: the shared library with -o, else "
             "the site table)"),
    cl::values(
        clEnumValN(EmitKind::AST, "ast", "the syntax tree, user-defined functions inlined"),
        clEnumValN(EmitKind::Sites, "sites",
                   "a table of sites, classes, shapes and the plan"),
        clEnumValN(EmitKind::Manifest, "manifest",
                   "the manifest JSON embedded in compiled models"),
        clEnumValN(EmitKind::MLIR, "mlir", "the model in the aimz dialect"),
        clEnumValN(EmitKind::Lowered, "lowered",
                   "the entry points in scf/arith/math/llvm"),
        clEnumValN(EmitKind::LLVM, "llvm", "optimized LLVM IR"),
        clEnumValN(EmitKind::Asm, "asm", "assembly for the target CPU"),
        clEnumValN(EmitKind::PTX, "ptx", "PTX of the GPU kernels (--gpu-arch)"),
        clEnumValN(EmitKind::Library, "so", "the model's shared library")),
    cl::init(EmitKind::Sites), cl::cat(Category));
cl::opt<std::string> TargetCPU(
    "target-cpu",
    cl::desc("CPU to generate code for (default: this host's; e.g. "
             "x86-64-v3 for a portable library)"),
    cl::value_desc("name"), cl::cat(Category));

cl::opt<std::string> GPUArch("gpu-arch",
                            cl::desc("GPU architecture for --emit=ptx "
                                     "(sm_80 or sm_90; default sm_80)"),
                            cl::init("sm_80"), cl::cat(Category));
enum class PrecisionKind { Auto, F32, F64 };
cl::opt<PrecisionKind> Precision(
    "precision",
    cl::desc("Floating precision of latents and arithmetic (default auto: "
             "f64 when an input or output is f64, else f32; ask for f64 "
             "where the data are all integers)"),
    cl::values(clEnumValN(PrecisionKind::Auto, "auto", "from the inputs"),
               clEnumValN(PrecisionKind::F32, "f32", "single precision"),
               clEnumValN(PrecisionKind::F64, "f64", "double precision")),
    cl::init(PrecisionKind::Auto), cl::cat(Category));
cl::opt<bool> TimeReport(
    "time-report",
    cl::desc("Print the time of each phase (parse, analysis, MLIR, LLVM "
             "optimization, CPU code, PTX, link) to stderr"),
    cl::cat(Category));
cl::opt<bool> ListDiagnostics(
    "list-diagnostics",
    cl::desc("Print every diagnostic's code, severity and message (the "
             "table in docs/diagnostics.md) and exit"),
    cl::cat(Category));
cl::opt<bool> ListFunctions(
    "list-functions",
    cl::desc("Print every function a model may call, with its other "
             "spellings (the table in docs/functions.md) and exit"),
    cl::cat(Category));
cl::opt<std::string> ListDistributions(
    "list-distributions", cl::ValueOptional,
    cl::value_desc("markdown|json"),
    cl::desc("Print every distribution with NumPyro's signature (the table "
             "in docs/distributions.md; =json for programs) and exit"),
    cl::cat(Category));
cl::opt<bool> NoPTX("no-ptx",
                    cl::desc("Do not embed PTX in the shared library"),
                    cl::cat(Category));
cl::opt<bool> NoPrecompiledSupport(
    "no-precompiled-support",
    cl::desc("Optimize the support library's samplers "
             "with the model instead of linking their object precompiled "
             "for this CPU's x86-64 level (slower; the same results)"),
    cl::Hidden, cl::cat(Category));
cl::opt<unsigned> CodegenThreads(
    "codegen-threads",
    cl::desc("Threads that generate the library's CPU code, each for a part "
             "of its functions (default 0: one per hardware thread, at most "
             "4; the same results whatever the number)"),
    cl::init(0), cl::Hidden, cl::cat(Category));

int fail(const llvm::Twine &Msg) {
  llvm::WithColor::error(llvm::errs(), "aimzc") << Msg << "\n";
  return 1;
}

int fail(llvm::Error E) {
  std::string Msg = llvm::toString(std::move(E));
  return fail(Msg);
}

/// The largest model source read: far beyond any real model, small enough
/// that a wrong path (a device, a huge file) fails at once.
constexpr uint64_t MaxSourceBytes = 16u << 20;

llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>> readSource() {
  auto Err = [](const llvm::Twine &Msg) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(), Msg);
  };
  if (InputFile == "-") {
    std::string Text;
    char Buf[65536];
    while (size_t N = std::fread(Buf, 1, sizeof Buf, stdin)) {
      Text.append(Buf, N);
      if (Text.size() > MaxSourceBytes)
        return Err("the model on standard input is larger than " +
                   llvm::Twine(MaxSourceBytes >> 20) +
                   " MiB; that is not a model source");
    }
    return llvm::MemoryBuffer::getMemBufferCopy(Text, "<stdin>");
  }
  llvm::sys::fs::file_status St;
  if (std::error_code EC = llvm::sys::fs::status(InputFile, St))
    return Err("cannot read '" + InputFile + "': " + EC.message());
  if (St.type() != llvm::sys::fs::file_type::regular_file)
    return Err("cannot read '" + InputFile +
               "': not a regular file; give the path of a .aimz source");
  if (St.getSize() > MaxSourceBytes)
    return Err("'" + InputFile + "' is " + llvm::Twine(St.getSize() >> 20) +
               " MiB, larger than the " + llvm::Twine(MaxSourceBytes >> 20) +
               " MiB a model source may be; is it the right file?");
  auto Buffer = llvm::MemoryBuffer::getFile(InputFile, /*IsText=*/true);
  if (std::error_code EC = Buffer.getError())
    return Err("cannot read '" + InputFile + "': " + EC.message());
  return std::move(*Buffer);
}

} // namespace

/// The command line's options for compileModel.
CompileOptions compileOptions(EmitKind What, std::optional<DType> Forced,
                              PhaseTimes *T) {
  CompileOptions O;
  O.Emit = What;
  O.OutputFile = OutputFile;
  O.TargetCPU = TargetCPU;
  O.GPUArch = GPUArch;
  O.EmbedPTX = !NoPTX;
  O.PrecompiledSupport = !NoPrecompiledSupport;
  O.CodegenThreads = CodegenThreads;
  O.Precision = Forced;
  O.PassManagerCLOptions = true;
  O.Times = T;
  return O;
}

/// Writes what O.Emit asks for (the library, a table, the manifest, IR or
/// PTX); the exit status.
int emitOutput(const Model &M, const ModelInfo &Info, const CompileOptions &O,
               llvm::SourceMgr &SM) {
  // An error already printed as a diagnostic comes back without a message.
  auto Finish = [](llvm::Error E) {
    if (!E)
      return 0;
    std::string Msg = llvm::toString(std::move(E));
    return Msg.empty() ? 1 : fail(Msg);
  };
  if (O.Emit == EmitKind::Library) {
    if (OutputFile.empty())
      return fail("--emit=so needs an output file: -o model.so");
    llvm::raw_null_ostream Null;
    return Finish(compileModel(M, Info, O, SM, Null, llvm::errs()));
  }
  std::error_code EC;
  llvm::raw_fd_ostream Out(OutputFile.empty() ? "-" : OutputFile.getValue(),
                           EC);
  if (EC)
    return fail("cannot write '" + OutputFile + "': " + EC.message());
  switch (O.Emit) {
  case EmitKind::Sites:
    printSiteTable(Info, Out);
    return 0;
  case EmitKind::Manifest:
    Out << manifestJSON(Info) << "\n";
    return 0;
  default:
    return Finish(compileModel(M, Info, O, SM, Out, llvm::errs()));
  }
}

int main(int argc, char **argv) {
  // MLIR's own options (--mlir-print-debuginfo, --mlir-print-ir-after-all,
  // ...) for looking inside the pipeline; hidden from --help.
  mlir::registerAsmPrinterCLOptions();
  mlir::registerMLIRContextCLOptions();
  mlir::registerPassManagerCLOptions();
  cl::HideUnrelatedOptions(Category);
  cl::SetVersionPrinter([](llvm::raw_ostream &OS) {
    OS << "aimzc " << AIMZ_VERSION_STRING << "\n";
  });
  // --list-diagnostics needs no model: it is answered before the options
  // (and the model path they require) are parsed.
  // Likewise --list-distributions[=json].
  for (int I = 1; I < argc; ++I) {
    llvm::StringRef A = argv[I];
    A.consume_front("-");
    if (A == "-list-diagnostics" || A == "list-diagnostics") {
      diag::printCatalogue(llvm::outs());
      return 0;
    }
    A.consume_front("-");
    if (A == "list-functions") {
      printFunctionCatalogue(llvm::outs());
      return 0;
    }
    if (A == "list-distributions" || A == "list-distributions=json" ||
        A == "list-distributions=markdown") {
      printDistributionCatalogue(llvm::outs(), A.ends_with("=json"));
      return 0;
    }
  }
  cl::ParseCommandLineOptions(
      argc, argv,
      "aimzc: compile a .aimz probabilistic model\n\n"
      "  aimzc model.aimz -o model.so       compile to a shared library\n"
      "  aimzc model.aimz --emit=manifest   print the manifest JSON\n"
      "  aimzc model.aimz --emit=sites      print the site table\n");

  // Each code-generation thread holds a module and a target machine: more
  // than a few hundred only costs memory (a billion took 8 GB, then
  // aborted).
  if (CodegenThreads > 256)
    return fail("--codegen-threads=" + llvm::Twine(CodegenThreads.getValue()) +
                " is out of range; give 1 to 256, or 0 for one per hardware "
                "thread");
  // Writing the output over the source would destroy the model.
  bool Same = false;
  if (!OutputFile.empty() && InputFile != "-" &&
      !llvm::sys::fs::equivalent(InputFile, OutputFile, Same) && Same)
    return fail("the output '" + OutputFile + "' is the model source '" +
                InputFile + "'; choose another output path, e.g. -o model.so");
  auto Buffer = readSource();
  if (!Buffer)
    return fail(Buffer.takeError());
  llvm::SourceMgr SM;
  llvm::StringRef Source = (*Buffer)->getBuffer();
  SM.AddNewSourceBuffer(std::move(*Buffer), llvm::SMLoc());
  Diagnostics Diags(SM, llvm::errs());

  // Printed when main returns, whatever the outcome.
  std::optional<PhaseTimes> Times;
  if (TimeReport)
    Times.emplace();
  struct PrintTimes {
    std::optional<PhaseTimes> &T;
    ~PrintTimes() {
      if (T)
        T->print(llvm::errs());
    }
  } Print{Times};
  PhaseTimes *T = Times ? &*Times : nullptr;
  std::unique_ptr<Model> M;
  {
    PhaseScope P(T, "parse");
    M = parseModel(Source, Diags);
  }
  if (!M)
    return 1;
  if (Emit == EmitKind::AST && !Diags.hadError()) {
    // The tree analysis sees: user-defined functions inlined.
    if (!inlineFunctions(*M, Diags))
      return 1;
    dumpAST(*M, llvm::outs());
    return 0;
  }
  std::optional<DType> Forced;
  if (Precision != PrecisionKind::Auto)
    Forced = Precision == PrecisionKind::F64 ? DType::F64 : DType::F32;
  std::optional<ModelInfo> Info;
  {
    PhaseScope P(T, "analysis");
    Info = analyzeModel(*M, Diags, Forced);
  }
  if (!Info) {
    Diags.printSummary();
    return 1;
  }

  EmitKind What = Emit;
  if (!Emit.getNumOccurrences() && !OutputFile.empty())
    What = EmitKind::Library;
  return emitOutput(*M, *Info, compileOptions(What, Forced, T), SM);
}
