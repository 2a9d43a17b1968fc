//===- ScoreOnlyOutputs.cpp - Outputs scored by factors alone ------------===//
//
// Stan's hurdle, censored and change-point likelihoods score the data with
// `target +=` terms that branch on it. An output with no `~` statement is
// such a likelihood's data: factors (and the lets feeding them) read it
// within its own rows, the log-likelihood writes those factors, and since
// nothing says how to draw it, predict refuses the model (the runtime, from
// the manifest's site flag).
//
//===----------------------------------------------------------------------===//
#include "Analyzer.h"

namespace aimz {
namespace sema {

/// Each output with no `~` statement is a name from the start, read as the
/// observed data (as an input is).
void Analyzer::defineScoreOnlyOutputs() {
  for (const TypedArray &Out : Info.Outputs) {
    if (OutputsWithSample.count(Out.Name))
      continue;
    const Param *P = M.findOutput(Out.Name);
    Names.emplace(Out.Name, Symbol{Symbol::Kind::ScoreOnly, Out.Type, Out.Dims,
                                   P ? P->Loc : SMLoc()});
  }
}

/// The plates open over the output's leading axes name its dimensions in
/// the results, as a sampled output's do.
void Analyzer::noteScoreOnlyRead(const std::string &Name, const Shape &Dims) {
  std::vector<std::string> &Plates = ScoreOnlyUsed[Name];
  Plates.resize(Dims.size());
  for (size_t I = 0; I < Blocks.size() && I < Dims.size(); ++I) {
    if (!(Blocks[I].D == Dims[I]) || Blocks[I].Block->K != Stmt::Kind::Plate)
      break;
    Plates[I] = Blocks[I].Block->Name;
  }
}

std::string Analyzer::outputReadBy(const Expr &E) const {
  if (const auto *N = llvm::dyn_cast<NameExpr>(&E)) {
    auto It = Names.find(N->Name);
    if (It == Names.end())
      return "";
    if (It->second.K == Symbol::Kind::ScoreOnly ||
        (It->second.K == Symbol::Kind::Sample && M.findOutput(N->Name)))
      return N->Name;
    return It->second.ReadsScoreOnly;
  }
  std::string Found;
  forEachChild(E, [&](const ExprPtr &C) {
    if (C && Found.empty())
      Found = outputReadBy(*C);
  });
  return Found;
}

bool Analyzer::keepsOutputRows(const IndexExpr &E) {
  if (Info.ObsDim.empty())
    return true;
  // The index on the observation axis, if any, before the (tree-walking)
  // question whether the base reads an output: most indexing has none.
  const Shape &Base = E.Base->Ty.Dims;
  const Expr *AtObs = nullptr;
  size_t Ax = 0;
  for (const ExprPtr &I : E.Indices) {
    const auto *A = llvm::dyn_cast<AxisExpr>(I.get());
    if (A && A->NewAxis)
      continue;
    if (Ax < Base.size() && Base[Ax] == Dim::symbol(Info.ObsDim) && !A) {
      AtObs = I.get();
      break;
    }
    ++Ax;
  }
  if (!AtObs)
    return true;
  const std::string Out = outputReadBy(*E.Base);
  if (Out.empty())
    return true;
  const Param *P = M.findOutput(Out);
  Diags.report(diag::E_OUTPUT_READ, AtObs->Loc) << Out;
  Diags.report(diag::N_OUTPUT_LAG, AtObs->Loc)
      << Out << dtypeName(P ? P->Type.Type : DType::F64) << Info.ObsDim;
  return false;
}

bool Analyzer::refuseScoreOnlyRead(const Stmt &S, const char *What) {
  if (StmtReadsScoreOnly.empty())
    return true;
  Diags.report(diag::E_SCORE_ONLY_READ, S.NameLoc)
      << What << S.Name << StmtReadsScoreOnly;
  return false;
}

/// A site per score-only output that factors read: the runtime's observed
/// data (InferenceData's observed_data) and its refusal to draw it.
void Analyzer::addScoreOnlySites() {
  for (const TypedArray &Out : Info.Outputs) {
    auto Used = ScoreOnlyUsed.find(Out.Name);
    if (Used == ScoreOnlyUsed.end())
      continue;
    Site Si;
    Si.Name = Out.Name;
    Si.Type = Out.Type;
    Si.Dims = Out.Dims;
    Si.Kind = SiteKind::Observed;
    Si.Class = SiteClass::Observed;
    Si.ScoreOnly = true;
    Si.Plates = Used->second;
    Info.Sites.push_back(Si);
  }
}

} // namespace sema
} // namespace aimz
