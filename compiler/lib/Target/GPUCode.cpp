//===- GPUCode.cpp - The same kernels as PTX for NVIDIA GPUs --------------===//
//
// The LLVM IR of the entry points is retargeted to nvptx64, linked with the
// support library built as CUDA device code (samplers, densities, and the
// __global__ wrappers that give each thread one draw and observation block)
// and with CUDA's libdevice for the maths, optimized, and printed as PTX by
// LLVM's NVPTX back end, in process. Maths the NVPTX back end cannot lower
// (llvm.exp, libm calls) is redirected to libdevice's __nv_* functions, and
// any __nv_* left unresolved is an error rather than a silently broken PTX.
//
//===----------------------------------------------------------------------===//
#include "aimz/Target/GPUCode.h"
#include "aimz/Target/ModelLibrary.h"
#include "aimz/AbiSymbols.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Verifier.h"
#include "llvm/Linker/Linker.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Transforms/IPO/Internalize.h"
#include "llvm/Transforms/Utils/Cloning.h"

extern "C" const char aimz_support_gpu_bc[];
extern "C" const char aimz_support_gpu_bc_end[];

namespace aimz {

static llvm::Error makeError(const llvm::Twine &Msg) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), Msg);
}

using abi::KernelNames;

void initializeGPUTargets() {
  static bool Done = [] {
    LLVMInitializeNVPTXTargetInfo();
    LLVMInitializeNVPTXTarget();
    LLVMInitializeNVPTXTargetMC();
    LLVMInitializeNVPTXAsmPrinter();
    return true;
  }();
  (void)Done;
}

bool gpuSupportAvailable() {
  return +aimz_support_gpu_bc_end > +aimz_support_gpu_bc;
}

/// CUDA's libdevice, from $CUDA_HOME or /usr/local/cuda.
static std::string findLibdevice() {
  std::vector<std::string> Roots;
  if (auto Home = llvm::sys::Process::GetEnv("CUDA_HOME"))
    Roots.push_back(*Home);
  Roots.push_back("/usr/local/cuda");
  for (const std::string &R : Roots) {
    llvm::SmallString<128> P(R);
    llvm::sys::path::append(P, "nvvm", "libdevice", "libdevice.10.bc");
    if (llvm::sys::fs::exists(P))
      return std::string(P);
  }
  return "";
}

/// Calls the NVPTX back end cannot lower become calls into libdevice.
static void redirectMaths(llvm::Module &M) {
  auto Target = [](llvm::Function &F) -> std::string {
    llvm::StringRef N = F.getName();
    static const char *LibM[] = {"exp",  "log",  "log1p", "tanh", "pow",
                                 "cos",  "sin",  "expm1", "atan", "lgamma",
                                 "tan",  "erf",  "erfc", "cosh",  "sinh", "exp2",
                                 "log2", "log10", "sqrt", "fabs", "cbrt",
                                 "floor", "ceil", "round", "trunc", "asin",
                                 "acos", "asinh", "acosh", "atanh", "atan2",
                                 "hypot", "fmod", "fmin", "fmax", "fdim",
                                 "tgamma", "rint", "nearbyint", "copysign"};
    // libm's roundeven is libdevice's rint (ties to even).
    if (N == "roundeven" || N == "roundevenf")
      return N == "roundeven" ? "__nv_rint" : "__nv_rintf";
    for (const char *L : LibM) {
      if (N == L || N == (std::string(L) + "f"))
        return "__nv_" + N.str();
    }
    if (!F.isIntrinsic())
      return "";
    bool F32 = F.getReturnType()->isFloatTy();
    const char *Base = nullptr;
    switch (F.getIntrinsicID()) {
    case llvm::Intrinsic::exp:
      Base = "exp";
      break;
    case llvm::Intrinsic::exp2:
      Base = "exp2";
      break;
    case llvm::Intrinsic::log:
      Base = "log";
      break;
    case llvm::Intrinsic::log2:
      Base = "log2";
      break;
    case llvm::Intrinsic::log10:
      Base = "log10";
      break;
    case llvm::Intrinsic::pow:
      Base = "pow";
      break;
    case llvm::Intrinsic::cos:
      Base = "cos";
      break;
    case llvm::Intrinsic::sin:
      Base = "sin";
      break;
    default:
      return "";
    }
    return std::string("__nv_") + Base + (F32 ? "f" : "");
  };
  std::vector<llvm::Function *> Fns;
  for (llvm::Function &F : M)
    if (F.isDeclaration())
      Fns.push_back(&F);
  for (llvm::Function *F : Fns) {
    std::string To = Target(*F);
    if (To.empty() || F->getFunctionType()->isVarArg())
      continue;
    llvm::FunctionCallee NV = M.getOrInsertFunction(To, F->getFunctionType());
    F->replaceAllUsesWith(NV.getCallee());
    F->eraseFromParent();
  }
}

/// The embedded bitcode, loaded lazily: the linker reads only the bodies of
/// the functions a model needs (parsing all 2.8 MB was most of the PTX time).
static llvm::Expected<std::unique_ptr<llvm::Module>>
loadEmbedded(const char *Begin, const char *End, llvm::StringRef Name,
             llvm::LLVMContext &Ctx) {
  llvm::StringRef Bitcode(Begin, End - Begin);
  return llvm::getLazyBitcodeModule(llvm::MemoryBufferRef(Bitcode, Name), Ctx);
}

/// The NVPTX target machine for Arch.
static llvm::Expected<std::unique_ptr<llvm::TargetMachine>>
gpuTargetMachine(llvm::StringRef Arch) {
  initializeGPUTargets();
  const char *Triple = "nvptx64-nvidia-cuda";
  std::string Err;
  const llvm::Target *T = llvm::TargetRegistry::lookupTarget(Triple, Err);
  if (!T)
    return makeError("no NVPTX code generator in this LLVM: " + Err);
  std::unique_ptr<llvm::TargetMachine> TM(T->createTargetMachine(
      Triple, Arch, "", llvm::TargetOptions(), std::nullopt, std::nullopt,
      llvm::CodeGenOptLevel::Aggressive));
  if (!TM)
    return makeError("cannot target " + Arch);
  return std::move(TM);
}

/// Pulls in only what is used from the GPU support library: the kernels
/// (kept alive through llvm.used while linking) and what they and the entry
/// points call.
static llvm::Error linkGPUSupport(llvm::Module &M,
                                  const llvm::TargetMachine &TM) {
  llvm::LLVMContext &Ctx = M.getContext();
  auto *PtrTy = llvm::PointerType::getUnqual(Ctx);
  std::vector<llvm::Constant *> Roots;
  auto *KernelTy = llvm::FunctionType::get(llvm::Type::getVoidTy(Ctx),
                                           {PtrTy, PtrTy}, false);
  for (const char *K : KernelNames)
    Roots.push_back(llvm::Function::Create(
        KernelTy, llvm::GlobalValue::ExternalLinkage, K, M));
  auto *ArrTy = llvm::ArrayType::get(PtrTy, Roots.size());
  new llvm::GlobalVariable(M, ArrTy, false, llvm::GlobalValue::AppendingLinkage,
                           llvm::ConstantArray::get(ArrTy, Roots), "llvm.used");
  auto Support = loadEmbedded(aimz_support_gpu_bc, aimz_support_gpu_bc_end,
                               "aimz-support-gpu.bc", Ctx);
  if (!Support)
    return Support.takeError();
  (*Support)->setTargetTriple(M.getTargetTriple());
  (*Support)->setDataLayout(TM.createDataLayout());
  if (llvm::Linker::linkModules(M, std::move(*Support),
                                llvm::Linker::LinkOnlyNeeded))
    return makeError("internal error: linking the GPU support library failed");
  if (auto *Used = M.getNamedGlobal("llvm.used"))
    Used->eraseFromParent();
  return llvm::Error::success();
}

/// CUDA's libdevice, for the maths the support library leaves to it.
static llvm::Error linkLibdevice(llvm::Module &M,
                                 const llvm::TargetMachine &TM,
                                 const std::string &Libdevice) {
  auto LibBuf = llvm::MemoryBuffer::getFile(Libdevice);
  if (!LibBuf)
    return makeError("cannot read " + Libdevice + ": " +
                     LibBuf.getError().message());
  // Lazily, as the support library: a model uses a few dozen of its
  // functions. The module owns the buffer it reads from.
  auto Lib = llvm::getOwningLazyBitcodeModule(std::move(*LibBuf),
                                              M.getContext());
  if (!Lib)
    return Lib.takeError();
  (*Lib)->setTargetTriple(M.getTargetTriple());
  (*Lib)->setDataLayout(TM.createDataLayout());
  if (llvm::Linker::linkModules(M, std::move(*Lib),
                                llvm::Linker::LinkOnlyNeeded))
    return makeError("internal error: linking libdevice failed");
  return llvm::Error::success();
}

/// The kernels of HostIR (left unchanged) as one optimized nvptx64 module:
/// linked with the GPU support library and libdevice, internalized and
/// optimized for Arch. Nothing in the pipeline depends on which of sm_80
/// and sm_90 it is (the same IR comes out for both), so a library's two
/// architectures share one optimization (emitPTXFor retargets it).
static llvm::Expected<std::unique_ptr<llvm::Module>>
optimizeForGPU(const llvm::Module &HostIR, llvm::StringRef Arch) {
  if (!gpuSupportAvailable())
    return makeError("this aimzc was built without CUDA headers, so it has "
                     "no GPU support library; rebuild it on a machine with "
                     "the CUDA toolkit");
  std::string Libdevice = findLibdevice();
  if (Libdevice.empty())
    return makeError("CUDA's libdevice (nvvm/libdevice/libdevice.10.bc) was "
                     "not found under $CUDA_HOME or /usr/local/cuda");
  auto TMOr = gpuTargetMachine(Arch);
  if (!TMOr)
    return TMOr.takeError();
  std::unique_ptr<llvm::TargetMachine> TM = std::move(*TMOr);
  const char *Triple = "nvptx64-nvidia-cuda";
  // Work on a copy: the host module goes on to the CPU pipeline.
  std::unique_ptr<llvm::Module> M = llvm::CloneModule(HostIR);
  M->setTargetTriple(Triple);
  M->setDataLayout(TM->createDataLayout());
  // The data symbols (manifest, PTX) belong to the host library only.
  for (llvm::GlobalVariable &G : llvm::make_early_inc_range(M->globals()))
    if (G.getName().starts_with("aimz_"))
      G.eraseFromParent();
  if (llvm::Error E = linkGPUSupport(*M, *TM))
    return std::move(E);
  redirectMaths(*M);
  if (llvm::Error E = linkLibdevice(*M, *TM, Libdevice))
    return std::move(E);
  for (llvm::Function &F : *M) {
    if (F.isDeclaration())
      continue;
    F.addFnAttr("target-cpu", Arch);
    F.removeFnAttr("target-features");
    F.removeFnAttr(llvm::Attribute::OptimizeNone);
  }
  llvm::internalizeModule(*M, [](const llvm::GlobalValue &G) {
    return llvm::is_contained(KernelNames, G.getName());
  });

  // Threads are the GPU's parallelism: vectorizing or unrolling loops only
  // costs compile time.
  llvm::PipelineTuningOptions PTO;
  PTO.LoopVectorization = false;
  PTO.SLPVectorization = false;
  PTO.LoopUnrolling = false;
  runO3(*M, *TM, PTO);
  if (llvm::verifyModule(*M, &llvm::errs()))
    return makeError("internal error: the GPU module does not verify");
  // Everything must be resolved (__nvvm_reflect is folded by the pipeline):
  // PTX cannot call into a host library.
  for (llvm::Function &F : *M)
    if (F.isDeclaration() && !F.isIntrinsic() && !F.use_empty())
      return makeError("internal error: the GPU code calls '" + F.getName() +
                       "', which neither the support library nor libdevice "
                       "defines");

  return std::move(M);
}

/// More calls of one function than this make emitPTXFor's back end slow.
static constexpr unsigned ManyCalls = 64;

/// PTX for Arch from a module optimizeForGPU made (for any architecture):
/// its functions are retargeted to Arch, then the back end runs.
static llvm::Expected<std::string> emitPTXFor(llvm::Module &M,
                                              llvm::StringRef Arch) {
  auto TM = gpuTargetMachine(Arch);
  if (!TM)
    return TM.takeError();
  for (llvm::Function &F : M)
    if (!F.isDeclaration())
      F.addFnAttr("target-cpu", Arch);
  // The back end asks of every argument of every call whether the callee's
  // address is taken, which walks all the callee's uses: quadratic in the
  // calls of one function (a sampler, a site's copies: called once per
  // site, 26 % of the PTX time at 1,000 latents). A function called that
  // often is made visible, which skips the question; its parameters, scalars
  // and pointers, have their ABI alignment either way.
  for (llvm::Function &F : M)
    if (!F.isDeclaration() && F.hasLocalLinkage() &&
        F.hasNUsesOrMore(ManyCalls))
      F.setLinkage(llvm::GlobalValue::ExternalLinkage);
  std::string PTX;
  {
    llvm::raw_string_ostream OS(PTX);
    llvm::buffer_ostream BOS(OS);
    llvm::legacy::PassManager PM;
    if ((*TM)->addPassesToEmitFile(PM, BOS, nullptr,
                                   llvm::CodeGenFileType::AssemblyFile))
      return makeError("the NVPTX back end cannot emit PTX");
    PM.run(M);
  }
  return PTX;
}

llvm::Expected<std::string> generatePTX(const llvm::Module &HostIR,
                                        llvm::StringRef Arch) {
  auto M = optimizeForGPU(HostIR, Arch);
  if (!M)
    return M.takeError();
  return emitPTXFor(**M, Arch);
}

/// The header lines (.version, .target) the back end writes for Arch: its
/// PTX of an empty module.
static llvm::Expected<std::string> ptxHeader(llvm::StringRef Arch) {
  llvm::LLVMContext Ctx;
  llvm::Module Empty("header", Ctx);
  Empty.setTargetTriple("nvptx64-nvidia-cuda");
  auto PTX = emitPTXFor(Empty, Arch);
  if (!PTX)
    return PTX.takeError();
  std::string Header;
  for (llvm::StringRef Line : llvm::split(*PTX, '\n'))
    if (Line.starts_with(".version ") || Line.starts_with(".target "))
      Header += Line.str() + "\n";
  return Header;
}

/// PTX made for one architecture, retargeted to Arch: its .version and
/// .target lines replaced by the ones the back end writes for Arch. The
/// kernels use no instruction that differs between the architectures
/// aimzc embeds (sm_80 and sm_90: scalar f32, f64 and integer code), so
/// the back end's output for Arch would differ in those lines only;
/// ptx/retargeted-ptx.test checks it against a full back-end run.
static llvm::Expected<std::string> retargetPTX(llvm::StringRef PTX,
                                               llvm::StringRef Arch) {
  auto Header = ptxHeader(Arch);
  if (!Header)
    return Header.takeError();
  std::string Out;
  Out.reserve(PTX.size() + 16);
  bool Replaced = false;
  while (!PTX.empty()) {
    auto [Line, Rest] = PTX.split('\n');
    bool Last = Rest.empty() && !PTX.ends_with("\n");
    PTX = Rest;
    if (Line.starts_with(".version ") || Line.starts_with(".target ")) {
      if (!Replaced)
        Out += *Header;
      Replaced = true;
      continue;
    }
    Out += Line;
    if (!Last)
      Out += '\n';
  }
  if (!Replaced)
    return makeError("internal error: the PTX has no .version or .target "
                     "line to retarget");
  return Out;
}

llvm::Expected<std::vector<std::string>>
generatePTXs(const llvm::Module &HostIR, llvm::ArrayRef<llvm::StringRef> Archs) {
  std::vector<std::string> Out;
  if (Archs.empty())
    return Out;
  auto M = optimizeForGPU(HostIR, Archs.front());
  if (!M)
    return M.takeError();
  // The back end runs once; the other architectures get its PTX
  // retargeted (running it again per architecture gave the same text
  // apart from the header, at a third of the compile's CPU time).
  auto First = emitPTXFor(**M, Archs.front());
  if (!First)
    return First.takeError();
  for (llvm::StringRef Arch : Archs.drop_front()) {
    auto PTX = retargetPTX(*First, Arch);
    if (!PTX)
      return PTX.takeError();
    Out.push_back(std::move(*PTX));
  }
  Out.insert(Out.begin(), std::move(*First));
  return Out;
}

} // namespace aimz
