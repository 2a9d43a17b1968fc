//===- Statements.cpp - Statements, plates and scans ---------------------===//
//
// let, deterministic and factor statements, definitions and their
// diagnostics, and the plate/scan blocks whose dims prefix the shapes of
// what they contain.
//
//===----------------------------------------------------------------------===//
#include "Analyzer.h"

namespace aimz {
namespace sema {

Shape Analyzer::plateDims() const {
  Shape S;
  for (const OpenBlock &B : Blocks)
    S.push_back(B.D);
  return S;
}

std::vector<std::string> Analyzer::plateNames(size_t Rank) const {
  std::vector<std::string> Names(Rank);
  for (size_t I = 0; I < Blocks.size() && I < Rank; ++I)
    if (Blocks[I].Block->K == Stmt::Kind::Plate)
      Names[I] = Blocks[I].Block->Name;
  return Names;
}

const BlockStmt *Analyzer::enclosingScan() const {
  for (const OpenBlock &B : Blocks)
    if (B.Block->K == Stmt::Kind::Scan)
      return B.Block;
  return nullptr;
}

bool Analyzer::define(const Stmt &S, Symbol Sym) {
  const bool IsOutput = M.findOutput(S.Name) != nullptr;
  if (IsOutput && S.K != Stmt::Kind::Sample) {
    Diags.report(diag::E_OUTPUT_NOT_SAMPLED_DEF, S.NameLoc) << S.Name;
    return false;
  }
  auto [It, New] = Names.emplace(S.Name, Sym);
  if (!New || (IsOutput && SampledOutputs.count(S.Name))) {
    Diags.report(diag::E_ALREADY_DEFINED, S.NameLoc) << S.Name;
    Diags.report(diag::N_PREVIOUS_DEFINITION, It->second.Loc);
    return false;
  }
  return true;
}

void Analyzer::analyzeBody(const std::vector<StmtPtr> &Body) {
  for (const StmtPtr &S : Body)
    analyzeStmt(*S);
}

void Analyzer::analyzeStmt(Stmt &S) {
  StmtReadsScoreOnly.clear();
  switch (S.K) {
  case Stmt::Kind::Const:
    analyzeConst(static_cast<ConstStmt &>(S));
    return;
  case Stmt::Kind::Factor:
    analyzeFactor(static_cast<AssignStmt &>(S));
    return;
  case Stmt::Kind::Transformed:
    analyzeTransformed(static_cast<AssignStmt &>(S));
    return;
  case Stmt::Kind::Let:
  case Stmt::Kind::Deterministic:
    analyzeAssign(static_cast<AssignStmt &>(S));
    return;
  case Stmt::Kind::Sample:
    analyzeSample(static_cast<SampleStmt &>(S));
    return;
  case Stmt::Kind::Plate:
  case Stmt::Kind::Scan:
    analyzeBlock(static_cast<BlockStmt &>(S));
    return;
  }
}

/// `const NAME = ...;`: its value was found by collectNames; here it is
/// defined in program order.
void Analyzer::analyzeConst(ConstStmt &C) {
  Symbol Sym{Symbol::Kind::Const, DType::I64, {}, C.NameLoc, C.Value};
  auto Prev = Names.find(C.Name);
  if (Prev != Names.end()) {
    Diags.report(diag::E_ALREADY_DEFINED, C.NameLoc) << C.Name;
    Diags.report(diag::N_PREVIOUS_DEFINITION, Prev->second.Loc);
    return;
  }
  auto Known = Info.Constants.find(C.Name);
  auto Arith = ConstArith.find(C.Name);
  if (Known != Info.Constants.end() ? Known->second != C.Value
                                    : Arith->second != &C) {
    // An earlier const of this name is further down in a nested block.
    Diags.report(diag::E_ALREADY_DEFINED, C.NameLoc) << C.Name;
    return;
  }
  if (Known == Info.Constants.end()) {
    // Arithmetic on dimensions: a number the model may compute with.
    auto P = dimPoly(*C.Arith, true);
    if (!P) {
      poison(C);
      return;
    }
    Sym.DimText = P->str();
  }
  define(C, Sym);
}

/// `factor NAME = expr;`: a log-density term, in the model's float
/// precision. A term that mixes observations (a sum over the data, Stan's
/// marginalized change point) is joint: it needs every observation of a
/// draw at once, as a joint site does, and makes such uses legal.
void Analyzer::analyzeFactor(AssignStmt &A) {
  const unsigned Before = Diags.provisionalCount();
  if (!analyzeExpr(*A.Value)) {
    poison(A);
    return;
  }
  if (!isNumeric(A.Value->Ty.Type)) {
    Diags.report(diag::E_FACTOR_NOT_NUMBER, A.Value->Loc) << A.Name;
    poison(A);
    return;
  }
  Shape Full = plateDims();
  llvm::append_range(Full, A.Value->Ty.Dims);
  if (!define(A, {Symbol::Kind::Factor, Info.Precision, Full, A.NameLoc}) ||
      !checkSiteRows(A, A.Value->Ty.Dims, 0))
    return;
  addValueSite(A, Info.Precision, Full, SiteKind::Factor);
  if (Diags.provisionalCount() != Before)
    Info.Sites.back().Class = SiteClass::Joint;
}

/// `let NAME = expr;` and `deterministic NAME = expr;` (a site too).
void Analyzer::analyzeAssign(AssignStmt &A) {
  unsigned Errors = Diags.errorCount();
  bool Ok = analyzeExpr(*A.Value) && (!A.Inlined || checkDeclaredType(A));
  noteInlinedCall(A, Errors);
  if (!Ok) {
    poison(A);
    return;
  }
  Shape Full = plateDims();
  llvm::append_range(Full, A.Value->Ty.Dims);
  DType T = A.Value->Ty.Type;
  bool IsDet = A.K == Stmt::Kind::Deterministic;
  if (IsDet && !refuseScoreOnlyRead(A, "the deterministic site")) {
    poison(A);
    return;
  }
  if (!define(A, {IsDet ? Symbol::Kind::Deterministic : Symbol::Kind::Let, T,
                  Full, A.NameLoc}))
    return;
  Names[A.Name].ReadsScoreOnly = StmtReadsScoreOnly;
  if (IsDet && checkSiteRows(A, A.Value->Ty.Dims, 0))
    addValueSite(A, T, Full, SiteKind::Deterministic);
}

/// A site's rows are its observations: its own shape has the observation
/// axis first, or among its event axes (a joint site), or not at all. A
/// `let` may hold [K, n] on the way (`beta[:, jj]`).
bool Analyzer::checkSiteRows(const Stmt &S, const Shape &Own,
                             unsigned EventRank) {
  Shape Batch(Own.begin(), Own.end() - std::min<size_t>(EventRank, Own.size()));
  if (!mentions(Batch, Info.ObsDim) || Batch[0] == Dim::symbol(Info.ObsDim))
    return true;
  Diags.report(diag::E_SITE_OBS_AXIS_NOT_FIRST, S.NameLoc)
      << S.Name << shapeStr(Own) << Info.ObsDim;
  return false;
}

void Analyzer::analyzeBlock(BlockStmt &B) {
  const char *Word = B.K == Stmt::Kind::Plate ? "plate" : "scan";
  if (B.K == Stmt::Kind::Plate && (B.Name == "chain" || B.Name == "draw")) {
    Diags.report(diag::E_PLATE_NAME_RESERVED, B.NameLoc) << B.Name;
    poisonBody(B.Body);
    return;
  }
  AllowPosteriorDims = true;
  auto D = resolveDim(B.Dim, true);
  AllowPosteriorDims = false;
  if (!D) {
    poisonBody(B.Body); // its names exist; their uses need no more errors
    return;
  }
  for (const OpenBlock &O : Blocks) {
    if (O.D == *D) {
      Diags.report(diag::E_BLOCK_REUSES_DIM, B.Dim.Loc)
          << Word << B.Name << D->str() << O.Block->Name;
      return;
    }
  }
  B.Resolved = *D;
  Blocks.push_back({&B, *D});
  analyzeBody(B.Body);
  Blocks.pop_back();
}

std::optional<double> Analyzer::literalValue(const Expr &E) const {
  if (auto *N = llvm::dyn_cast<NumberExpr>(&E))
    return N->Value;
  if (auto *U = llvm::dyn_cast<UnaryExpr>(&E))
    if (auto V = literalValue(*U->Operand))
      return -*V;
  if (auto *N = llvm::dyn_cast<NameExpr>(&E)) {
    auto It = Names.find(N->Name);
    if (It != Names.end() && It->second.K == Symbol::Kind::Const &&
        It->second.DimText.empty())
      return static_cast<double>(It->second.ConstValue);
  }
  return std::nullopt;
}

void Analyzer::addValueSite(const AssignStmt &A, DType T, const Shape &Full,
                            SiteKind K) {
  Site Si;
  Si.Name = A.Name;
  Si.Type = T;
  Si.Dims = Full;
  Si.Kind = K;
  Si.Class = classify(Full);
  Si.Decl = &A;
  Si.Plates = plateNames(Full.size());
  Info.Sites.push_back(Si);
}

} // namespace sema
} // namespace aimz
