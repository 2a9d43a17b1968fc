//===- Driver.cpp - From a checked model to each output stage -------------===//
#include "aimz/Driver.h"
#include "aimz/Conversion/Passes.h"
#include "aimz/Diagnostics.h"
#include "aimz/MLIRGen.h"
#include "aimz/Manifest.h"
#include "aimz/Parser.h"
#include "aimz/Sema.h"
#include "aimz/Target/GPUCode.h"
#include "aimz/Target/ModelLibrary.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/Bitcode/BitcodeWriter.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

#include <thread>

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

llvm::Error compileModel(const Model &M, const ModelInfo &Info,
                         const CompileOptions &O, llvm::SourceMgr &SM,
                         llvm::raw_ostream &Out, llvm::raw_ostream &Errs) {
  const EmitKind Emit = O.Emit;
  const std::string &OutputFile = O.OutputFile;
  mlir::MLIRContext Ctx;
  // Ops carry the model's file:line:col; an MLIR diagnostic then prints as
  // our own do, with the source line and a caret.
  mlir::SourceMgrDiagnosticHandler Handler(SM, &Ctx, Errs);
  auto Module = generateMLIR(Ctx, M, Info, &SM);
  if (!Module)
    return printed();
  if (Emit == EmitKind::MLIR) {
    Module->print(Out);
    return llvm::Error::success();
  }
  mlir::PassManager PM(&Ctx);
  if (O.PassManagerCLOptions && mlir::failed(mlir::applyPassManagerCLOptions(PM)))
    return printed();
  PM.addPass(createLowerModelToLoopsPass());
  if (Emit != EmitKind::Lowered)
    buildLoopsToLLVMPipeline(PM);
  if (mlir::failed(PM.run(*Module)))
    return fail("internal error: lowering failed");
  if (Emit == EmitKind::Lowered) {
    Module->print(Out);
    return llvm::Error::success();
  }
  llvm::LLVMContext LLCtx;
  auto LLModule = translateToLLVMIR(*Module, LLCtx);
  if (!LLModule)
    return LLModule.takeError();
  if (Emit == EmitKind::PTX) {
    if (O.GPUArch != "sm_80" && O.GPUArch != "sm_90")
      return fail("--gpu-arch must be sm_80 or sm_90");
    auto PTX = generatePTX(**LLModule, O.GPUArch);
    if (!PTX)
      return PTX.takeError();
    Out << *PTX;
    return llvm::Error::success();
  }
  // The library carries the GPU kernels too, when this aimzc can make them.
  // Each architecture is generated on its own thread, in its own context
  // (from a bitcode copy), while this thread optimizes the CPU code.
  std::string PTX80, PTX90;
  std::vector<std::thread> GPUThreads;
  std::string GPUWarnings[2];
  llvm::SmallVector<char, 0> Bitcode;
  if (Emit == EmitKind::Library && O.EmbedPTX && gpuSupportAvailable()) {
    llvm::raw_svector_ostream BS(Bitcode);
    llvm::WriteBitcodeToFile(**LLModule, BS);
    initializeGPUTargets();
    std::string *Texts[2] = {&PTX80, &PTX90};
    const char *Archs[2] = {"sm_80", "sm_90"};
    for (int I = 0; I < 2; ++I)
      GPUThreads.emplace_back([&, I] {
        llvm::LLVMContext Ctx;
        auto Copy = llvm::parseBitcodeFile(
            llvm::MemoryBufferRef(llvm::StringRef(Bitcode.data(), Bitcode.size()),
                                  "model"),
            Ctx);
        if (!Copy) {
          GPUWarnings[I] = llvm::toString(Copy.takeError());
          return;
        }
        auto P = generatePTX(**Copy, Archs[I]);
        if (!P)
          GPUWarnings[I] = llvm::toString(P.takeError());
        else
          *Texts[I] = std::move(*P);
      });
  }
  auto TM = createHostTargetMachine(O.TargetCPU);
  if (!TM) {
    for (auto &T : GPUThreads)
      T.join();
    return TM.takeError();
  }
  llvm::Error Optimized = optimizeModule(**LLModule, **TM);
  for (auto &T : GPUThreads)
    T.join();
  if (Optimized)
    return Optimized;
  for (int I = 0; I < 2; ++I)
    if (!GPUWarnings[I].empty())
      llvm::WithColor::warning(Errs, "aimzc")
          << "no " << (I ? "sm_90" : "sm_80")
          << " PTX embedded: " << GPUWarnings[I] << "\n";
  addLibraryData(**LLModule, manifestJSON(Info), PTX80, PTX90);
  if (Emit == EmitKind::LLVM) {
    (*LLModule)->print(Out, nullptr);
    return llvm::Error::success();
  }
  if (Emit == EmitKind::Asm) {
    // The code generator wants a seekable stream.
    llvm::SmallString<0> Asm;
    llvm::raw_svector_ostream AsmOut(Asm);
    if (llvm::Error E = emitMachineCode(**LLModule, **TM, AsmOut, true))
      return E;
    Out << Asm;
    return llvm::Error::success();
  }

  // A library: object to a temporary file, then link.
  llvm::SmallString<128> Obj;
  int FD;
  if (auto EC = llvm::sys::fs::createTemporaryFile("aimz-model", "o", FD, Obj))
    return fail("cannot create a temporary file: " + EC.message());
  llvm::FileRemover RemoveObj(Obj);
  {
    llvm::raw_fd_ostream ObjOut(FD, true);
    if (auto E = emitMachineCode(**LLModule, **TM, ObjOut, false))
      return E;
    ObjOut.close();
    if (ObjOut.has_error()) {
      std::string Why = ObjOut.error().message();
      ObjOut.clear_error();
      return fail("cannot write the object file '" + Obj + "': " + Why +
                  (Why.find("space") != std::string::npos
                       ? "; free some space in the temporary directory "
                         "(TMPDIR)"
                       : ""));
    }
  }
  // Linked beside the target under a fresh name, then renamed over it: an
  // existing library is replaced whole or not at all, and a file planted
  // at a fixed temporary name is never written through.
  llvm::SmallString<256> Tmp;
  if (auto EC = llvm::sys::fs::createUniqueFile(
          OutputFile + ".%%%%%%%%.tmp", Tmp))
    return fail("cannot create a temporary file next to '" + OutputFile +
                "': " + EC.message());
  llvm::FileRemover RemoveTmp(Tmp);
  if (auto E = linkSharedLibrary(Obj, Tmp)) {
    removeLinkerTemporaries(Tmp);
    return E;
  }
  if (auto EC = llvm::sys::fs::rename(Tmp, OutputFile))
    return fail("cannot write '" + OutputFile + "': " + EC.message());
  RemoveTmp.releaseFile();
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
