//===- Sema.cpp - Types, shapes, site classes and the plan ----------------===//
//
// The public entry of semantic analysis (Sema.h); the Analyzer's parts are
// in this directory, one concern per file (see Analyzer.h).
//
//===----------------------------------------------------------------------===//
#include "Analyzer.h"

namespace aimz {

const char *siteKindName(SiteKind K) {
  switch (K) {
  case SiteKind::Latent:
    return "latent";
  case SiteKind::Deterministic:
    return "deterministic";
  case SiteKind::Factor:
    return "factor";
  case SiteKind::Observed:
    return "observed";
  }
  return "";
}

const char *siteClassName(SiteClass C) {
  switch (C) {
  case SiteClass::Global:
    return "global";
  case SiteClass::ObsAligned:
    return "obs_aligned";
  case SiteClass::Observed:
    return "observed";
  case SiteClass::Joint:
    return "joint";
  }
  return "";
}

const char *planName(Plan P) { return P == Plan::Obs ? "obs" : "draw"; }

int ModelInfo::outputIndex(llvm::StringRef N) const {
  for (size_t I = 0; I < Outputs.size(); ++I)
    if (Outputs[I].Name == N)
      return static_cast<int>(I);
  return -1;
}

const Site *ModelInfo::findSite(llvm::StringRef N) const {
  for (const Site &S : Sites)
    if (S.Name == N)
      return &S;
  return nullptr;
}

DType promoteArithmetic(const ExprType &A, const ExprType &B,
                        DType Precision) {
  if (isFloat(A.Type) || isFloat(B.Type))
    return Precision;
  // A weak literal adapts to its typed peer.
  if (A.WeakLiteral && !B.WeakLiteral)
    return B.Type;
  if (B.WeakLiteral && !A.WeakLiteral)
    return A.Type;
  return A.Type == DType::I64 || B.Type == DType::I64 ? DType::I64
                                                      : DType::I32;
}

namespace sema {

const char *kindWord(Symbol::Kind K) {
  switch (K) {
  case Symbol::Kind::Input:
    return "input";
  case Symbol::Kind::Const:
    return "constant";
  case Symbol::Kind::Let:
    return "local value";
  case Symbol::Kind::Transformed:
    return "transformed data value";
  case Symbol::Kind::Deterministic:
    return "deterministic site";
  case Symbol::Kind::Factor:
    return "factor";
  case Symbol::Kind::Sample:
    return "sample site";
  case Symbol::Kind::ScoreOnly:
    return "output";
  }
  return "";
}


std::string formatNumber(double V) {
  std::string S;
  llvm::raw_string_ostream OS(S);
  if (V == std::floor(V) && std::abs(V) < 1e15)
    OS << static_cast<int64_t>(V);
  else
    OS << llvm::format("%.10g", V);
  return S;
}

const char *article(llvm::StringRef Word) {
  return Word.find_first_of("aeiou") == 0 ? "an" : "a";
}

std::optional<ModelInfo> Analyzer::run() {
  collectNames(M.Body);
  if (!checkSignature())
    return std::nullopt;
  defineScoreOnlyOutputs();
  // Uses that mix observations are errors unless a site turns out joint.
  Diags.hold();
  analyzeBody(M.Body);
  Info.JointObservations = llvm::any_of(
      Info.Sites, [](const Site &S) { return S.Class == SiteClass::Joint; });
  Diags.releaseHeld(/*KeepProvisional=*/!Info.JointObservations);
  for (const Param &Out : M.Outputs)
    if (!SampledOutputs.count(Out.Name) && !ScoreOnlyUsed.count(Out.Name) &&
        !Diags.hadError())
      Diags.report(diag::E_OUTPUT_NEVER_SAMPLED, Out.Loc) << Out.Name;
  addScoreOnlySites();
  // A dimension only the posterior can bind must be in a latent's shape.
  for (const auto &[Name, Loc] : PosteriorDimLocs) {
    bool Carried = llvm::any_of(Info.Sites, [&, &Name = Name](const Site &S) {
      return S.Kind == SiteKind::Latent &&
             llvm::is_contained(S.Dims, Dim::symbol(Name));
    });
    if (!Carried)
      Diags.report(diag::E_UNBOUND_POSTERIOR_DIM, Loc) << Name;
  }
  if (Diags.hadError())
    return std::nullopt;

  choosePlan();
  return std::move(Info);
}

} // namespace sema

std::optional<ModelInfo> analyzeModel(Model &M, Diagnostics &Diags,
                                      std::optional<DType> Precision) {
  if (!inlineFunctions(M, Diags))
    return std::nullopt;
  return sema::Analyzer(M, Diags, Precision).run();
}

} // namespace aimz
