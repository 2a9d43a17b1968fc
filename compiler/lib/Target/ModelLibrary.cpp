//===- ModelLibrary.cpp - LLVM dialect to an optimized model.so -----------===//
//
// Translates the lowered module to LLVM IR, links the support library's
// bitcode (densities, elementary functions; the samplers and matrix
// products too unless their precompiled object serves, see
// PrecompiledSupport.h) so it inlines, internalizes
// everything but the C entry points and data symbols of abi.h, optimizes at
// O3 for the target CPU (libmvec deliberately not declared: see below), and
// emits an object that clang links into a shared library.
//
//===----------------------------------------------------------------------===//
#include "aimz/Target/ModelLibrary.h"
#include "aimz/AbiSymbols.h"
#include "aimz/Target/PrecompiledSupport.h"

#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Export.h"

#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Verifier.h"
#include "llvm/Linker/Linker.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/Transforms/IPO/Internalize.h"

// The support library's bitcode, embedded when aimzc is built.
extern "C" const char aimz_support_bc[];
extern "C" const char aimz_support_bc_end[];

namespace aimz {

/// What the library exports: the entry points and its data, but not the
/// support library's internal constants.
static bool isExported(llvm::StringRef Name) {
  using namespace abi;
  return llvm::is_contained(EntryPointNames, Name) || Name == PrepassEntry ||
         (llvm::is_contained(DataSymbolNames, Name) &&
          Name != name(DataSymbol::VectorBytes));
}

static llvm::Error makeError(const llvm::Twine &Msg) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), Msg);
}

llvm::Expected<std::unique_ptr<llvm::Module>>
translateToLLVMIR(mlir::ModuleOp Module, llvm::LLVMContext &Ctx) {
  mlir::registerBuiltinDialectTranslation(*Module.getContext());
  mlir::registerLLVMDialectTranslation(*Module.getContext());
  auto M = mlir::translateModuleToLLVMIR(Module, Ctx, "model");
  if (!M)
    return makeError("internal error: translation to LLVM IR failed");
  return M;
}

/// The support library's bitcode embedded in aimzc.
static llvm::MemoryBufferRef supportBitcode() {
  return llvm::MemoryBufferRef(
      llvm::StringRef(aimz_support_bc, aimz_support_bc_end - aimz_support_bc),
      "aimz-support.bc");
}

llvm::Expected<std::unique_ptr<llvm::Module>>
parseSupportBitcode(llvm::LLVMContext &Ctx) {
  return llvm::parseBitcodeFile(supportBitcode(), Ctx);
}

/// Links what M calls from the support library; with Precompiled, the
/// out-of-line functions only as declarations (their object joins the link).
static llvm::Error linkSupport(llvm::Module &M, bool Precompiled) {
  // Lazily: the linker reads only the bodies the model needs (parsing all
  // 2 MB of it took longer than optimizing a small model).
  auto Support = llvm::getLazyBitcodeModule(supportBitcode(), M.getContext());
  if (!Support)
    return Support.takeError();
  (*Support)->setDataLayout(M.getDataLayout());
  (*Support)->setTargetTriple(M.getTargetTriple());
  if (Precompiled)
    for (llvm::Function &F : **Support)
      if (isPrecompiledSupport(F.getName()))
        F.deleteBody(); // never read: a declaration

  if (llvm::Linker::linkModules(M, std::move(*Support),
                                llvm::Linker::LinkOnlyNeeded))
    return makeError("internal error: linking the support library failed");
  return llvm::Error::success();
}

/// Defines the support library's aimz_rt_vector_bytes for the model's CPU
/// (the register tile of its matrix products follows the vector width).
void defineVectorBytes(llvm::Module &M, int32_t Bytes) {
  auto *I32 = llvm::Type::getInt32Ty(M.getContext());
  auto *Value = llvm::ConstantInt::get(I32, Bytes);
  // The support library itself declares it.
  if (auto *G = M.getNamedGlobal(abi::name(abi::DataSymbol::VectorBytes))) {
    G->setInitializer(Value);
    G->setConstant(true);
    return;
  }
  new llvm::GlobalVariable(M, I32, true, llvm::GlobalValue::ExternalLinkage,
                           Value, abi::name(abi::DataSymbol::VectorBytes));
}

static void addString(llvm::Module &M, llvm::StringRef Name,
                      llvm::StringRef Text) {
  auto *Init = llvm::ConstantDataArray::getString(M.getContext(), Text, true);
  auto *G = new llvm::GlobalVariable(M, Init->getType(), true,
                                     llvm::GlobalValue::ExternalLinkage, Init,
                                     Name);
  G->setVisibility(llvm::GlobalValue::DefaultVisibility);
}

void addLibraryData(llvm::Module &M, llvm::StringRef Manifest,
                    llvm::StringRef PTXsm80, llvm::StringRef PTXsm90) {
  addString(M, abi::name(abi::DataSymbol::Manifest), Manifest);
  addString(M, abi::name(abi::DataSymbol::PtxSm80), PTXsm80);
  addString(M, abi::name(abi::DataSymbol::PtxSm90), PTXsm90);
  auto *I64 = llvm::Type::getInt64Ty(M.getContext());
  new llvm::GlobalVariable(M, I64, true, llvm::GlobalValue::ExternalLinkage,
                           llvm::ConstantInt::get(I64, AbiVersion),
                           abi::name(abi::DataSymbol::AbiVersion));
}

llvm::Expected<std::unique_ptr<llvm::TargetMachine>>
createHostTargetMachine(llvm::StringRef CPU) {
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  std::string Triple = llvm::sys::getDefaultTargetTriple();
  std::string Error;
  const llvm::Target *T = llvm::TargetRegistry::lookupTarget(Triple, Error);
  if (!T)
    return makeError("no code generator for " + Triple + ": " + Error);
  std::string Name = CPU.empty() ? llvm::sys::getHostCPUName().str() : CPU.str();
  std::string Features;
  if (CPU.empty()) {
    for (auto &F : llvm::sys::getHostCPUFeatures())
      Features += (F.second ? "+" : "-") + F.first().str() + ",";
  }
  llvm::TargetOptions Opts;
  std::unique_ptr<llvm::TargetMachine> TM(T->createTargetMachine(
      Triple, Name, Features, Opts, llvm::Reloc::PIC_, std::nullopt,
      llvm::CodeGenOptLevel::Aggressive));
  if (!TM)
    return makeError("unknown target CPU '" + Name + "'");
  // An unknown CPU name only warns inside LLVM; refuse it here.
  if (!CPU.empty() && !TM->getMCSubtargetInfo()->isCPUStringValid(Name))
    return makeError("unknown target CPU '" + Name +
                     "'; try a name such as x86-64-v3 or native");
  return std::move(TM);
}

void runO3(llvm::Module &M, llvm::TargetMachine &TM,
           const llvm::PipelineTuningOptions &PTO) {
  llvm::LoopAnalysisManager LAM;
  llvm::FunctionAnalysisManager FAM;
  llvm::CGSCCAnalysisManager CGAM;
  llvm::ModuleAnalysisManager MAM;
  llvm::PassBuilder PB(&TM, PTO);
  PB.registerModuleAnalyses(MAM);
  PB.registerCGSCCAnalyses(CGAM);
  PB.registerFunctionAnalyses(FAM);
  PB.registerLoopAnalyses(LAM);
  PB.crossRegisterProxies(LAM, FAM, CGAM, MAM);
  PB.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O3).run(M, MAM);
}

int32_t vectorBytes(const llvm::TargetMachine &TM) {
  const llvm::MCSubtargetInfo &STI = *TM.getMCSubtargetInfo();
  return STI.checkFeatures("+avx512f") ? 64 : STI.checkFeatures("+avx") ? 32 : 16;
}

void setTargetAttributes(llvm::Module &M, const llvm::TargetMachine &TM) {
  M.setDataLayout(TM.createDataLayout());
  M.setTargetTriple(TM.getTargetTriple().str());
  // Every function gets the target's CPU and features so that the support
  // code inlines and the vectorizer uses the widest registers: LLVM keeps
  // to 256-bit vectors on AVX-512 CPUs unless told otherwise, and the
  // samplers and products run 1.3-1.5x faster with 512 (bench/samplers.cpp).
  const bool Avx512 = vectorBytes(TM) == 64;
  for (llvm::Function &F : M) {
    if (F.isDeclaration())
      continue;
    F.addFnAttr("target-cpu", TM.getTargetCPU());
    F.addFnAttr("target-features", TM.getTargetFeatureString());
    if (Avx512)
      F.addFnAttr("prefer-vector-width", "512");
    F.removeFnAttr(llvm::Attribute::OptimizeNone);
  }
}

llvm::Error runCPUPipeline(llvm::Module &M, llvm::TargetMachine &TM) {
  // glibc's libmvec is deliberately not declared to the vectorizer: its
  // vector exp/log differ from the scalar ones in the last bit, so a value
  // would depend on whether its element landed in a vector body or a
  // remainder loop, and results would change with the block split.
  llvm::PipelineTuningOptions PTO;
  PTO.LoopVectorization = true;
  PTO.SLPVectorization = true;
  runO3(M, TM, PTO);
  if (llvm::verifyModule(M, &llvm::errs()))
    return makeError("internal error: optimized module does not verify");
  return llvm::Error::success();
}

llvm::Error optimizeModule(llvm::Module &M, llvm::TargetMachine &TM,
                           bool Precompiled) {
  M.setDataLayout(TM.createDataLayout());
  M.setTargetTriple(TM.getTargetTriple().str());
  defineVectorBytes(M, vectorBytes(TM));
  if (auto E = linkSupport(M, Precompiled))
    return E;
  setTargetAttributes(M, TM);
  llvm::internalizeModule(M, [](const llvm::GlobalValue &G) {
    return isExported(G.getName());
  });
  return runCPUPipeline(M, TM);
}

llvm::Error emitMachineCode(llvm::Module &M, llvm::TargetMachine &TM,
                            llvm::raw_pwrite_stream &OS, bool Assembly) {
  llvm::legacy::PassManager PM;
  if (TM.addPassesToEmitFile(PM, OS, nullptr,
                             Assembly ? llvm::CodeGenFileType::AssemblyFile
                                      : llvm::CodeGenFileType::ObjectFile))
    return makeError("the target cannot emit this file type");
  PM.run(M);
  return llvm::Error::success();
}

/// What a failed link said, in one line: its first "error:" line, or
/// "No space left on device" when the disk filled up.
static std::string linkerComplaint(llvm::StringRef Log) {
  if (Log.contains("No space left on device") ||
      Log.contains("Bus error") || Log.contains("SIGBUS"))
    return "No space left on device";
  llvm::SmallVector<llvm::StringRef, 16> Lines;
  Log.split(Lines, '\n');
  for (llvm::StringRef L : Lines)
    if (L.contains("error:"))
      return L.substr(L.find("error:") + 6).trim().str();
  return "";
}

llvm::Error linkSharedLibrary(llvm::ArrayRef<std::string> Objects,
                              llvm::StringRef OutputPath) {
  auto Clang = llvm::sys::findProgramByName("clang-19");
  if (!Clang)
    Clang = llvm::sys::findProgramByName("clang-19", {"/usr/lib/llvm-19/bin"});
  if (!Clang)
    return makeError("cannot find clang-19 to link the shared library; "
                     "install it (tools/bootstrap.sh)");
  // lld writes through an mmap by default, and a full disk then kills it
  // with SIGBUS and a crash report; written in memory and then out, a full
  // disk is an ordinary write error.
  std::vector<std::string> Args = {*Clang, "-shared", "-fuse-ld=lld",
                                   "-Wl,--no-mmap-output-file",
                                   "-o", OutputPath.str()};
  Args.insert(Args.end(), Objects.begin(), Objects.end());
  // The precompiled support object has a section per function: only those
  // the model calls stay. -z defs: a support function missing from the
  // link fails here, not when aimz-run loads the library.
  for (const char *A :
       {"-Wl,--gc-sections", "-Wl,-z,defs", "-lm", "-Wl,--as-needed"})
    Args.push_back(A);
  std::vector<llvm::StringRef> Refs(Args.begin(), Args.end());
  llvm::SmallString<128> Log;
  if (auto EC = llvm::sys::fs::createTemporaryFile("aimz-link", "log", Log))
    return makeError(temporaryFileProblem(EC));
  llvm::FileRemover RemoveLog(Log);
  std::optional<llvm::StringRef> Redirects[] = {std::nullopt, Log.str(),
                                                Log.str()};
  std::string Error;
  int RC = llvm::sys::ExecuteAndWait(*Clang, Refs, std::nullopt, Redirects, 0,
                                     0, &Error);
  if (RC == 0)
    return llvm::Error::success();
  auto Text = llvm::MemoryBuffer::getFile(Log);
  std::string Why = linkerComplaint(Text ? (*Text)->getBuffer() : "");
  if (Why.empty())
    Why = Error.empty() ? "the linker exited with status " + std::to_string(RC)
                        : Error;
  if (Why == "No space left on device")
    return makeError("cannot write '" + OutputPath + "': " + Why +
                     "; free some space or choose another -o");
  return makeError("linking " + OutputPath + " failed: " + Why);
}

std::string temporaryFileProblem(std::error_code EC) {
  llvm::SmallString<128> Dir;
  llvm::sys::path::system_temp_directory(/*ErasedOnReboot=*/true, Dir);
  const char *Env = std::getenv("TMPDIR");
  return "cannot create a temporary file in '" + Dir.str().str() + "' (" +
         (Env && *Env ? "TMPDIR" : "the system's temporary directory") +
         "): " + EC.message() +
         "; set TMPDIR to a writable directory that exists";
}

} // namespace aimz
