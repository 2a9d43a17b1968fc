//===- PrecompiledSupport.cpp - Support code compiled once per CPU level --===//
//
// Which support functions are compiled ahead of time, which level's object
// serves a target, and how aimz-support-gen makes that object: the same
// attributes, internalization and O3 pipeline as optimizeModule, on the
// support library alone.
//
//===----------------------------------------------------------------------===//
#include "aimz/Target/PrecompiledSupport.h"
#include "aimz/AbiSymbols.h"
#include "aimz/Target/ModelLibrary.h"

#include "llvm/IR/Module.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/Transforms/IPO/Internalize.h"

namespace aimz {

static llvm::Error makeError(const llvm::Twine &Msg) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), Msg);
}

bool isPrecompiledSupport(llvm::StringRef Name) {
  using abi::SupportFamily;
  // Out of line in every model: scalar samplers (rejection loops), event
  // samplers, a global site's rows (aimz_rt_sample_rows_, under the Sample
  // prefix) and its posterior and result copies, matrix products, row-tile
  // packing, Cholesky, lgamma.
  // Densities and elementary functions inline into the model's loops and
  // stay bitcode, and so do the row samplers: the model's O3 specializes
  // them to its call sites' constant strides (generic objects made
  // linreg's predict 2.6x slower). The matrix products run as fast
  // precompiled, since Gemm.h copies whole tiles at a fixed size.
  auto Prefix = [](SupportFamily F) {
    return abi::SupportPrefixes[static_cast<int>(F)];
  };
  if (Name.starts_with(Prefix(SupportFamily::SampleRow)))
    return false;
  for (SupportFamily F : {SupportFamily::Sample, SupportFamily::EventSample,
                          SupportFamily::Site, SupportFamily::Cholesky,
                          SupportFamily::MatMul, SupportFamily::PackRowTiles})
    if (Name.starts_with(Prefix(F)))
      return true;
  return Name.starts_with("aimz_rt_lgamma_");
}

namespace {

/// An x86-64 level: its instructions (features that change which code is
/// legal, not tuning), vector width and FMA.
struct Level {
  const char *Name;
  const char *Features;
  int32_t VectorBytes;
  bool FMA;
};

constexpr const char *V2 = "+cx16,+sahf,+popcnt,+sse3,+sse4.1,+sse4.2,+ssse3";
constexpr const char *V3 =
    "+avx,+avx2,+bmi,+bmi2,+f16c,+fma,+lzcnt,+movbe,+xsave";
constexpr const char *V4 = "+avx512f,+avx512bw,+avx512cd,+avx512dq,+avx512vl";

const Level Levels[] = {{"x86-64-v4", V4, 64, true},
                        {"x86-64-v3", V3, 32, true},
                        {"x86-64-v2", V2, 16, false}};

/// Whether STI has a level's instructions and those of the levels below.
bool hasLevel(const llvm::MCSubtargetInfo &STI, size_t Index) {
  for (size_t I = Index; I < std::size(Levels); ++I)
    if (!STI.checkFeatures(Levels[I].Features))
      return false;
  return true;
}

} // namespace

llvm::StringRef supportLevelFor(const llvm::TargetMachine &TM) {
  if (!TM.getTargetTriple().isX86() || TM.getTargetTriple().isArch32Bit())
    return "";
  const llvm::MCSubtargetInfo &STI = *TM.getMCSubtargetInfo();
  for (size_t I = 0; I < std::size(Levels); ++I) {
    if (!hasLevel(STI, I))
      continue;
    // The widest level the CPU has; it serves only when it rounds the same
    // (FMA, and no FMA4 that fmuladd could also use) and tiles the matrix
    // product for the same vector width. Otherwise (an AVX CPU without
    // AVX2, an AVX-512 one without BW/DQ/VL) the model compiles it all.
    const Level &L = Levels[I];
    bool SameRounding = STI.checkFeatures("+fma") == L.FMA &&
                        !STI.checkFeatures("+fma4");
    if (SameRounding && vectorBytes(TM) == L.VectorBytes)
      return L.Name;
    return "";
  }
  return "";
}

llvm::Error emitSupportObject(llvm::StringRef Level,
                              llvm::raw_pwrite_stream &OS) {
  if (!llvm::is_contained(SupportLevels, Level))
    return makeError("unknown support level '" + Level + "'");
  auto TM = createHostTargetMachine(Level);
  if (!TM)
    return TM.takeError();
  (*TM)->Options.FunctionSections = true;
  (*TM)->Options.DataSections = true;
  llvm::LLVMContext Ctx;
  auto M = parseSupportBitcode(Ctx);
  if (!M)
    return M.takeError();
  setTargetAttributes(**M, **TM);
  defineVectorBytes(**M, vectorBytes(**TM));
  // Hidden, as in the bitcode: the model's library never exports them.
  llvm::internalizeModule(**M, [](const llvm::GlobalValue &G) {
    return isPrecompiledSupport(G.getName());
  });
  if (auto E = runCPUPipeline(**M, **TM))
    return E;
  return emitMachineCode(**M, **TM, OS, /*Assembly=*/false);
}

} // namespace aimz
