//===- Driver.cpp - From a checked model to each output stage -------------===//
#include "aimz/Driver.h"
#include "aimz/Conversion/Passes.h"
#include "aimz/Diagnostics.h"
#include "aimz/MLIRGen.h"
#include "aimz/Manifest.h"
#include "aimz/Parser.h"
#include "aimz/PhaseTimes.h"
#include "aimz/Sema.h"
#include "aimz/Target/GPUCode.h"
#include "aimz/Target/ModelLibrary.h"
#include "aimz/Target/PartitionedCodegen.h"
#include "aimz/Target/PrecompiledSupport.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/Bitcode/BitcodeWriter.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <cstdlib>
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

#include <optional>
#include <thread>
#include <vector>

namespace aimz {

namespace {

llvm::Error fail(const llvm::Twine &Msg) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), Msg);
}

/// A failure whose diagnostics are already printed.
llvm::Error printed() { return fail(""); }

} // namespace


/// A linker that failed (a full disk) may leave its own temporaries beside
/// Tmp ("<Tmp>.tmpXXXX"): removed with Tmp, so that a failed aimzc leaves
/// nothing behind.
static void removeLinkerTemporaries(llvm::StringRef Tmp) {
  llvm::StringRef Dir = llvm::sys::path::parent_path(Tmp);
  llvm::StringRef Name = llvm::sys::path::filename(Tmp);
  std::error_code EC;
  for (llvm::sys::fs::directory_iterator It(Dir.empty() ? "." : Dir, EC), End;
       It != End && !EC; It.increment(EC))
    if (llvm::sys::path::filename(It->path()).starts_with(Name))
      llvm::sys::fs::remove(It->path());
}

namespace {

/// The model in MLIR, lowered to the LLVM dialect (or only to loops for
/// --emit=lowered); printed and null when Emit stops at an MLIR stage.
llvm::Expected<mlir::OwningOpRef<mlir::ModuleOp>>
lowerToLLVMDialect(mlir::MLIRContext &Ctx, const Model &M,
                   const ModelInfo &Info, const CompileOptions &O,
                   llvm::SourceMgr &SM, llvm::raw_ostream &Out) {
  mlir::OwningOpRef<mlir::ModuleOp> Module;
  {
    PhaseScope T(O.Times, "MLIR generation");
    Module = generateMLIR(Ctx, M, Info, &SM);
  }
  if (!Module)
    return printed();
  if (O.Emit == EmitKind::MLIR) {
    Module->print(Out);
    return mlir::OwningOpRef<mlir::ModuleOp>();
  }
  PhaseScope T(O.Times, "MLIR lowering");
  // Our own lowering's output is verified; the upstream clean-up and
  // conversions after it are not re-verified after each pass (aimz-opt and
  // the lit tests still do): that took 0.9 of 1.6 s at 1,000 latents.
  mlir::PassManager Lower(&Ctx);
  mlir::PassManager ToLLVM(&Ctx);
  ToLLVM.enableVerifier(false);
  for (mlir::PassManager *PM : {&Lower, &ToLLVM})
    if (O.PassManagerCLOptions &&
        mlir::failed(mlir::applyPassManagerCLOptions(*PM)))
      return printed();
  Lower.addPass(createLowerModelToLoopsPass());
  if (mlir::failed(Lower.run(*Module)))
    return fail("internal error: lowering failed");
  if (O.Emit != EmitKind::Lowered) {
    buildLoopsToLLVMPipeline(ToLLVM);
    if (mlir::failed(ToLLVM.run(*Module)))
      return fail("internal error: lowering to the LLVM dialect failed");
  }
  if (O.Emit == EmitKind::Lowered) {
    Module->print(Out);
    return mlir::OwningOpRef<mlir::ModuleOp>();
  }
  return std::move(Module);
}

/// Both GPU architectures' PTX, made on one thread in its own context (from
/// a bitcode copy of the module) while the caller's thread optimizes the CPU
/// code: one optimization serves both (generatePTXs), only the back end
/// runs twice. join() waits for it.
class PTXJobs {
public:
  PTXJobs(const llvm::Module &M, PhaseTimes *Times) {
    llvm::raw_svector_ostream BS(Bitcode);
    llvm::WriteBitcodeToFile(M, BS);
    initializeGPUTargets();
    Thread = std::thread([this, Times] { run(Times); });
  }
  ~PTXJobs() { join(); }
  void join() {
    if (Thread.joinable())
      Thread.join();
  }
  static constexpr const char *Archs[2] = {"sm_80", "sm_90"};
  std::string Text[2], Warning[2];

private:
  void run(PhaseTimes *Times) {
    PhaseScope T(Times, "PTX");
    llvm::LLVMContext Ctx;
    auto Copy = llvm::parseBitcodeFile(
        llvm::MemoryBufferRef(llvm::StringRef(Bitcode.data(), Bitcode.size()),
                              "model"),
        Ctx);
    auto P = Copy ? generatePTXs(**Copy, {Archs[0], Archs[1]})
                  : llvm::Expected<std::vector<std::string>>(Copy.takeError());
    if (!P) {
      Warning[0] = Warning[1] = llvm::toString(P.takeError());
      return;
    }
    Text[0] = std::move((*P)[0]);
    Text[1] = std::move((*P)[1]);
  }
  llvm::SmallVector<char, 0> Bitcode;
  std::thread Thread;
};

/// Bytes in a fresh temporary object file Path; Remove removes it once
/// created (written or not) when the caller is done.
llvm::Error writeTemporary(llvm::StringRef Prefix, llvm::StringRef Bytes,
                           llvm::SmallVectorImpl<char> &Path,
                           llvm::FileRemover &Remove) {
  int FD;
  if (auto EC = llvm::sys::fs::createTemporaryFile(Prefix, "o", FD, Path))
    return fail(temporaryFileProblem(EC));
  Remove.setFile(Path);
  llvm::raw_fd_ostream OS(FD, true);
  OS << Bytes;
  OS.close();
  if (!OS.has_error())
    return llvm::Error::success();
  std::string Why = OS.error().message();
  OS.clear_error();
  return fail("cannot write the object file '" +
              std::string(Path.begin(), Path.end()) + "': " + Why +
              (Why.find("space") != std::string::npos
                   ? "; free some space in the temporary directory (TMPDIR)"
                   : ""));
}

/// The library's data symbols, in Data: the manifest, the PTX (waited for
/// here; a failure is a warning) and the ABI version.
void addDataSymbols(llvm::Module &Data, const ModelInfo &Info,
                    std::optional<PTXJobs> &PTX, llvm::raw_ostream &Errs) {
  if (PTX)
    PTX->join();
  for (int I = 0; PTX && I < 2; ++I)
    if (!PTX->Warning[I].empty())
      llvm::WithColor::warning(Errs, "aimzc")
          << "no " << PTXJobs::Archs[I] << " PTX embedded: " << PTX->Warning[I]
          << "\n";
  addLibraryData(Data, manifestJSON(Info), PTX ? PTX->Text[0] : "",
                 PTX ? PTX->Text[1] : "");
}

/// --time-report's line on the code generator's threads.
std::string codegenNote(llvm::ArrayRef<uint64_t> Instructions) {
  std::string Note = "CPU code: " + std::to_string(Instructions.size()) +
                     (Instructions.size() == 1 ? " thread" : " threads") +
                     " (instructions:";
  for (uint64_t N : Instructions)
    Note += " " + std::to_string(N);
  return Note + ")";
}

/// The object code of the optimized module (PartitionedCodegen.h) and of
/// the data symbols AddData defines, in an object of their own so that the
/// model's code need not wait for the PTX.
llvm::Expected<std::vector<llvm::SmallString<0>>>
emitObjects(llvm::Module &LL, const CompileOptions &O,
            llvm::function_ref<void(llvm::Module &)> AddData) {
  auto MakeTM = [&] { return createHostTargetMachine(O.TargetCPU); };
  unsigned Threads =
      O.CodegenThreads ? O.CodegenThreads : defaultCodegenPartitions();
  std::optional<PhaseScope> T(std::in_place, O.Times, "CPU code");
  auto Code = emitPartitionedObjects(LL, Threads, MakeTM);
  if (!Code)
    return Code.takeError();
  if (O.Times)
    O.Times->note(codegenNote(Code->Instructions));
  T.reset(); // waiting for the PTX is no phase of its own
  llvm::Module Data("data", LL.getContext());
  Data.setDataLayout(LL.getDataLayout());
  Data.setTargetTriple(LL.getTargetTriple());
  AddData(Data);
  T.emplace(O.Times, "CPU code");
  auto TM = MakeTM();
  if (!TM)
    return TM.takeError();
  llvm::raw_svector_ostream OS(Code->Objects.emplace_back());
  if (llvm::Error E = emitMachineCode(Data, **TM, OS, /*Assembly=*/false))
    return std::move(E);
  return std::move(Code->Objects);
}

/// The library's objects (the model's code, its data and SupportObject, the
/// precompiled support functions, when not empty) in temporary files,
/// linked into a library beside O.OutputFile under a fresh name, then
/// renamed over it: an existing library is replaced whole or not at all,
/// and a file planted at a fixed temporary name is never written through.
llvm::Error writeLibrary(llvm::Module &LL, const CompileOptions &O,
                         llvm::StringRef SupportObject,
                         llvm::function_ref<void(llvm::Module &)> AddData) {
  const std::string &OutputFile = O.OutputFile;
  auto Code = emitObjects(LL, O, AddData);
  if (!Code)
    return Code.takeError();
  std::vector<llvm::StringRef> Contents(Code->begin(), Code->end());
  if (!SupportObject.empty())
    Contents.push_back(SupportObject);
  std::vector<std::string> Objects;
  std::vector<llvm::FileRemover> Removers(Contents.size());
  for (size_t I = 0; I < Contents.size(); ++I) {
    llvm::SmallString<128> Path;
    if (auto E = writeTemporary("aimz-model", Contents[I], Path, Removers[I]))
      return E;
    Objects.push_back(Path.str().str());
  }
  PhaseScope T(O.Times, "link");
  llvm::SmallString<256> Tmp;
  if (auto EC = llvm::sys::fs::createUniqueFile(
          OutputFile + ".%%%%%%%%.tmp", Tmp))
    return fail("cannot create a temporary file next to '" + OutputFile +
                "': " + EC.message());
  llvm::FileRemover RemoveTmp(Tmp);
  if (auto E = linkSharedLibrary(Objects, Tmp)) {
    removeLinkerTemporaries(Tmp);
    // The user named the output, not its temporary.
    std::string Msg = llvm::toString(std::move(E));
    for (size_t At; (At = Msg.find(Tmp.str())) != std::string::npos;)
      Msg.replace(At, Tmp.size(), OutputFile);
    return fail(Msg);
  }
  if (auto EC = llvm::sys::fs::rename(Tmp, OutputFile))
    return fail("cannot write '" + OutputFile + "': " + EC.message());
  RemoveTmp.releaseFile();
  return llvm::Error::success();
}

/// --emit=ptx: one architecture's kernels, on this thread.
llvm::Error emitPTX(llvm::Module &LL, const CompileOptions &O,
                    llvm::raw_ostream &Out) {
  if (O.GPUArch != "sm_80" && O.GPUArch != "sm_90")
    return fail("--gpu-arch must be sm_80 or sm_90");
  PhaseScope T(O.Times, "PTX");
  auto PTX = generatePTX(LL, O.GPUArch);
  if (!PTX)
    return PTX.takeError();
  Out << *PTX;
  return llvm::Error::success();
}

} // namespace

llvm::Error compileModel(const Model &M, const ModelInfo &Info,
                         const CompileOptions &O, llvm::SourceMgr &SM,
                         llvm::raw_ostream &Out, llvm::raw_ostream &Errs) {
  mlir::MLIRContext Ctx;
  // Ops carry the model's file:line:col; an MLIR diagnostic then prints as
  // our own do, with the source line and a caret.
  mlir::SourceMgrDiagnosticHandler Handler(SM, &Ctx, Errs);
  auto Module = lowerToLLVMDialect(Ctx, M, Info, O, SM, Out);
  if (!Module)
    return Module.takeError();
  if (!*Module) // an MLIR stage, printed
    return llvm::Error::success();
  llvm::LLVMContext LLCtx;
  std::unique_ptr<llvm::Module> LL;
  {
    PhaseScope T(O.Times, "LLVM IR translation");
    auto Translated = translateToLLVMIR(**Module, LLCtx);
    if (!Translated)
      return Translated.takeError();
    LL = std::move(*Translated);
  }
  if (O.Emit == EmitKind::PTX)
    return emitPTX(*LL, O, Out);
  // The library carries the GPU kernels too, when this aimzc can make them.
  std::optional<PTXJobs> PTX;
  if (O.Emit == EmitKind::Library && O.EmbedPTX && gpuSupportAvailable())
    PTX.emplace(*LL, O.Times);
  auto TM = createHostTargetMachine(O.TargetCPU);
  if (!TM)
    return TM.takeError();
  // A library links the support functions precompiled for this CPU's level
  // when there is one (--emit=llvm and asm still show all of the code).
  llvm::StringRef Level;
  if (O.Emit == EmitKind::Library && O.PrecompiledSupport)
    Level = supportLevelFor(**TM);
  llvm::StringRef SupportObject = embeddedSupportObject(Level);
  if (O.Times)
    O.Times->note(SupportObject.empty()
                      ? "support library: optimized with the model"
                      : "support library: precompiled for " + Level.str());
  llvm::Error Optimized = llvm::Error::success();
  {
    PhaseScope T(O.Times, "LLVM optimization");
    Optimized = optimizeModule(*LL, **TM, !SupportObject.empty());
  }
  if (Optimized)
    return Optimized;
  auto AddData = [&](llvm::Module &Data) {
    addDataSymbols(Data, Info, PTX, Errs);
  };
  if (O.Emit == EmitKind::Library)
    return writeLibrary(*LL, O, SupportObject, AddData);
  AddData(*LL);
  if (O.Emit == EmitKind::LLVM) {
    LL->print(Out, nullptr);
    return llvm::Error::success();
  }
  if (O.Emit == EmitKind::Asm) {
    // The code generator wants a seekable stream.
    llvm::SmallString<0> Asm;
    llvm::raw_svector_ostream AsmOut(Asm);
    if (llvm::Error E = emitMachineCode(*LL, **TM, AsmOut, true))
      return E;
    Out << Asm;
  }
  return llvm::Error::success();
}

bool compileSource(llvm::StringRef Source, llvm::StringRef Name,
                   const CompileOptions &O, llvm::raw_ostream &Errs) {
  llvm::SourceMgr SM;
  SM.AddNewSourceBuffer(llvm::MemoryBuffer::getMemBufferCopy(Source, Name),
                        llvm::SMLoc());
  llvm::StringRef Text = SM.getMemoryBuffer(1)->getBuffer();
  Diagnostics Diags(SM, Errs);
  std::unique_ptr<Model> M = parseModel(Text, Diags);
  if (!M)
    return false;
  std::optional<ModelInfo> Info = analyzeModel(*M, Diags, O.Precision);
  if (!Info) {
    Diags.printSummary();
    return false;
  }
  llvm::raw_null_ostream Null;
  if (llvm::Error E = compileModel(*M, *Info, O, SM, Null, Errs)) {
    std::string Msg = llvm::toString(std::move(E));
    if (!Msg.empty())
      llvm::WithColor::error(Errs, "aimzc") << Msg << "\n";
    return false;
  }
  return true;
}

} // namespace aimz
