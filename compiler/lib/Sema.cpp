//===- Sema.cpp - Types, shapes, site classes and the plan ----------------===//
//
// A single pass over the statements in program order with a stack of open
// plates. Every name is defined once and keeps its full shape (enclosing
// plate dims first); a reference inside plates sees it one element at a
// time along each open plate whose dim leads its remaining shape.
//
//===----------------------------------------------------------------------===//
#include "aimz/Sema.h"
#include "aimz/Diagnostics.h"
#include "aimz/Distributions.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <set>

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
  }
  return "";
}

const char *planName(Plan P) { return P == Plan::Obs ? "obs" : "draw"; }

const Site *ModelInfo::findSite(llvm::StringRef N) const {
  for (const Site &S : Sites)
    if (S.Name == N)
      return &S;
  return nullptr;
}

namespace {

/// What a name refers to.
struct Symbol {
  enum class Kind { Input, Const, Let, Deterministic, Factor, Sample } K;
  DType Type;
  Shape Dims; // full shape
  SMLoc Loc;
  int64_t ConstValue = 0;
  bool Poisoned = false; // its definition had an error: uses stay silent
};

/// One open plate or scan.
struct OpenBlock {
  const BlockStmt *Block;
  Dim D;
};

const char *kindWord(Symbol::Kind K) {
  switch (K) {
  case Symbol::Kind::Input:
    return "input";
  case Symbol::Kind::Const:
    return "constant";
  case Symbol::Kind::Let:
    return "local value";
  case Symbol::Kind::Deterministic:
    return "deterministic site";
  case Symbol::Kind::Factor:
    return "factor";
  case Symbol::Kind::Sample:
    return "sample site";
  }
  return "";
}

bool isNumeric(DType T) { return T != DType::Bool; }

/// A literal as the user would write it: `-1`, `0.5`.
std::string formatNumber(double V) {
  std::string S;
  llvm::raw_string_ostream OS(S);
  if (V == std::floor(V) && std::abs(V) < 1e15)
    OS << static_cast<int64_t>(V);
  else
    OS << llvm::format("%.10g", V);
  return S;
}

/// "a" or "an" before a word.
const char *article(llvm::StringRef Word) {
  return Word.find_first_of("aeiou") == 0 ? "an" : "a";
}

class Analyzer {
public:
  Analyzer(Model &M, Diagnostics &D, std::optional<DType> Requested)
      : M(M), Diags(D), Requested(Requested) {}

  std::optional<ModelInfo> run();

private:
  Model &M;
  Diagnostics &Diags;
  std::optional<DType> Requested; // --precision
  ModelInfo Info;
  std::map<std::string, Symbol> Names;
  std::map<std::string, SMLoc> LaterDefinitions; // for "defined later" notes
  std::set<std::string> BoundSymbols;            // dims the data binds
  /// While resolving a sample site's shape or a plate's extent: an unknown
  /// name becomes a dimension the posterior binds.
  bool AllowPosteriorDims = false;
  std::map<std::string, SMLoc> PosteriorDimLocs;
  std::vector<OpenBlock> Blocks;
  bool OutputSampled = false;

  // Signature and dimensions.
  std::optional<Dim> resolveDim(const DimSyntax &D, bool MustBeBound);
  std::optional<Shape> resolveDims(const std::vector<DimSyntax> &Ds,
                                   bool MustBeBound);
  bool checkSignature();
  void collectNames(const std::vector<StmtPtr> &Body);

  // Statements.
  void analyzeBody(const std::vector<StmtPtr> &Body);
  void analyzeStmt(Stmt &S);
  /// Records a deterministic or factor site: computed, not sampled.
  void addValueSite(const AssignStmt &A, DType T, const Shape &Full,
                    SiteKind K);
  void analyzeSample(SampleStmt &S);
  /// A distribution call's arguments checked against its parameters.
  struct BoundCall {
    std::string Dist; // the lowered `dist` attribute
    std::vector<SampleStmt::LoweredParam> Params; // Target: event rank only
    std::optional<Shape> Batch;
    std::optional<Dim> EventSize;
    unsigned ValueEventRank = 0;
    bool Discrete = false;
    bool Ok = true;
  };
  std::optional<BoundCall> bindCall(const DistSpec &Spec,
                                    const std::vector<Arg> &Args, SMLoc Loc);
  std::optional<BoundCall> bindMixture(SampleStmt &S);
  std::optional<BoundCall> bindOrdered(SampleStmt &S, bool IsOutput);
  std::optional<BoundCall> bindTruncated(SampleStmt &S);
  const CallExpr *distributionArg(const SampleStmt &S, size_t Index,
                                  const char *What);
  void analyzeBlock(BlockStmt &B);
  bool define(const Stmt &S, Symbol Sym);
  void poisonBody(const std::vector<StmtPtr> &Body) {
    for (const StmtPtr &S : Body) {
      if (auto *Bl = llvm::dyn_cast<BlockStmt>(S.get()))
        poisonBody(Bl->Body);
      else
        poison(*S);
    }
  }
  void poison(const Stmt &S) {
    Names.emplace(S.Name, Symbol{Symbol::Kind::Let, DType::F32, {}, S.NameLoc,
                                 0, true});
  }
  Shape plateDims() const;
  const BlockStmt *enclosingScan() const;

  // Expressions; each returns false after reporting an error.
  bool analyzeExpr(Expr &E);
  bool analyzeName(NameExpr &E);
  bool analyzeBinary(BinaryExpr &E);
  bool analyzeCall(CallExpr &E);
  bool analyzeIndex(IndexExpr &E);
  bool analyzeArray(ArrayExpr &E);
  Shape viewInPlates(const Shape &Full) const;
  DType arithmeticType(const ExprType &A, const ExprType &B) const;
  std::optional<double> literalValue(const Expr &E) const;
  bool mixesObservations(SMLoc Loc, const Dim &D, const char *What);
};

/// Each observation must be computable from its own row: an operation that
/// contracts, reduces or indexes along the observation axis would make a
/// shard's result depend on other shards' data.
bool Analyzer::mixesObservations(SMLoc Loc, const Dim &D, const char *What) {
  if (D != Dim::symbol(Info.ObsDim))
    return false;
  Diags.error(Loc, llvm::Twine(What) + " runs along the observation axis '" +
                       Info.ObsDim +
                       "', mixing observations; each observation must be "
                       "computed from its own data (work inside 'plate ... (" +
                       Info.ObsDim + ")' instead)");
  return true;
}

//===----------------------------------------------------------------------===//
// Signature
//===----------------------------------------------------------------------===//

std::optional<Dim> Analyzer::resolveDim(const DimSyntax &D, bool MustBeBound) {
  if (D.Name.empty()) {
    if (D.Value <= 0) {
      Diags.error(D.Loc, "dimension must be positive; got " +
                             llvm::Twine(D.Value));
      return std::nullopt;
    }
    return Dim::known(D.Value);
  }
  auto C = Info.Constants.find(D.Name);
  if (C != Info.Constants.end()) {
    if (C->second <= 0) {
      Diags.error(D.Loc, "dimension '" + D.Name + "' must be positive; it is " +
                             llvm::Twine(C->second));
      return std::nullopt;
    }
    return Dim::known(C->second);
  }
  if (MustBeBound && !BoundSymbols.count(D.Name) && AllowPosteriorDims &&
      !Names.count(D.Name)) {
    BoundSymbols.insert(D.Name);
    Info.Symbols.push_back(D.Name);
    Info.PosteriorDims.push_back(D.Name);
    PosteriorDimLocs.emplace(D.Name, D.Loc);
    return Dim::symbol(D.Name);
  }
  if (MustBeBound && !BoundSymbols.count(D.Name)) {
    auto N = Names.find(D.Name);
    if (N != Names.end())
      Diags.error(D.Loc, "'" + D.Name + "' is " +
                             article(kindWord(N->second.K)) + " " +
                             kindWord(N->second.K) +
                             ", not a dimension");
    else
      Diags.error(D.Loc, "unknown dimension '" + D.Name +
                             "'; dimensions are named in the input and output "
                             "shapes or declared with 'const'");
    return std::nullopt;
  }
  return Dim::symbol(D.Name);
}

std::optional<Shape> Analyzer::resolveDims(const std::vector<DimSyntax> &Ds,
                                           bool MustBeBound) {
  Shape Out;
  bool Ok = true;
  for (const DimSyntax &D : Ds) {
    if (auto R = resolveDim(D, MustBeBound))
      Out.push_back(*R);
    else
      Ok = false;
  }
  if (!Ok)
    return std::nullopt;
  return Out;
}

/// Constants may size the signature, so they are known before anything else.
void Analyzer::collectNames(const std::vector<StmtPtr> &Body) {
  for (const StmtPtr &S : Body) {
    if (auto *C = llvm::dyn_cast_or_null<ConstStmt>(S.get());
        C && !Info.Constants.count(C->Name))
      Info.Constants[C->Name] = C->Value;
    if (S->K != Stmt::Kind::Plate && S->K != Stmt::Kind::Scan)
      LaterDefinitions.emplace(S->Name, S->NameLoc);
    if (auto *B = llvm::dyn_cast_or_null<BlockStmt>(S.get()))
      collectNames(B->Body);
  }
}

bool Analyzer::checkSignature() {
  Info.Name = M.Name;
  const Param &Out = M.Output;
  bool Ok = true;

  // Symbols in the signature are bound by the data's shapes.
  auto Bind = [&](const Param &P) {
    for (const DimSyntax &D : P.Type.Dims)
      if (!D.Name.empty() && !Info.Constants.count(D.Name) &&
          BoundSymbols.insert(D.Name).second)
        Info.Symbols.push_back(D.Name);
  };
  for (const Param &P : M.Inputs)
    Bind(P);
  Bind(Out);

  auto OutShape = resolveDims(Out.Type.Dims, true);
  if (!OutShape)
    return false;
  if (OutShape->empty()) {
    Diags.error(Out.Type.Loc,
                "output '" + Out.Name +
                    "' is a scalar; its leading dimension is the observation "
                    "axis, as in 'f32[n]'");
    return false;
  }
  if (!(*OutShape)[0].isSymbol()) {
    Diags.error(Out.Type.Dims[0].Loc,
                "the output's leading dimension is the observation axis and "
                "must be a name bound from the data, not the fixed extent " +
                    (*OutShape)[0].str());
    return false;
  }
  Info.ObsDim = (*OutShape)[0].Symbol;
  Info.Output = {Out.Name, Out.Type.Type, *OutShape};

  bool AnyF64 = Out.Type.Type == DType::F64;
  if (AnyF64 && Requested == DType::F32) {
    Diags.error(Out.Type.Loc, "output '" + Out.Name + "' is f64 but the model "
                              "was asked to compute in f32 "
                              "(--precision=f32); declare it f32");
    Ok = false;
  }
  for (const Param &P : M.Inputs) {
    if (P.Name == Out.Name) {
      Diags.error(P.Loc, "input '" + P.Name + "' has the output's name");
      Ok = false;
      continue;
    }
    auto S = resolveDims(P.Type.Dims, true);
    if (!S) {
      Ok = false;
      continue;
    }
    // An input either leads with the observation axis (one row per
    // observation, sharded) or does not have it at all (a scalar or an
    // array of hyperparameters, the same for every observation).
    auto ObsAt = llvm::find(*S, Dim::symbol(Info.ObsDim));
    if (ObsAt != S->end() && ObsAt != S->begin()) {
      Diags.error(P.Type.Loc,
                  "input '" + P.Name + "' has shape " + shapeStr(*S) +
                      " with the observation axis '" + Info.ObsDim +
                      "' inside; an input either leads with it or does not "
                      "have it (transpose the data so that observations "
                      "come first)");
      Ok = false;
      continue;
    }
    Symbol Sym{Symbol::Kind::Input, P.Type.Type, *S, P.Loc};
    auto [It, New] = Names.emplace(P.Name, Sym);
    if (!New) {
      Diags.error(P.Loc, "input '" + P.Name + "' is declared twice");
      Diags.note(It->second.Loc, "previous declaration is here");
      Ok = false;
      continue;
    }
    if (P.Type.Type == DType::F64 && Requested == DType::F32) {
      Diags.error(P.Type.Loc, "input '" + P.Name + "' is f64 but the model "
                                  "was asked to compute in f32 "
                                  "(--precision=f32); declare it f32");
      Ok = false;
    }
    AnyF64 |= P.Type.Type == DType::F64;
    Info.Inputs.push_back({P.Name, P.Type.Type, *S});
  }
  // f64 when asked (aimzc --precision=f64: integer-only models) or when
  // an input is f64.
  Info.Precision = Requested ? *Requested
                   : AnyF64  ? DType::F64
                             : DType::F32;
  return Ok;
}

//===----------------------------------------------------------------------===//
// Statements
//===----------------------------------------------------------------------===//

Shape Analyzer::plateDims() const {
  Shape S;
  for (const OpenBlock &B : Blocks)
    S.push_back(B.D);
  return S;
}

const BlockStmt *Analyzer::enclosingScan() const {
  for (const OpenBlock &B : Blocks)
    if (B.Block->K == Stmt::Kind::Scan)
      return B.Block;
  return nullptr;
}

bool Analyzer::define(const Stmt &S, Symbol Sym) {
  if (S.Name == M.Output.Name && S.K != Stmt::Kind::Sample) {
    Diags.error(S.NameLoc, "output '" + S.Name +
                               "' must be defined by sampling it with '" +
                               S.Name + " ~ Dist(...)'");
    return false;
  }
  auto [It, New] = Names.emplace(S.Name, Sym);
  if (!New || (S.Name == M.Output.Name && OutputSampled)) {
    Diags.error(S.NameLoc, "'" + S.Name + "' is already defined");
    Diags.note(It->second.Loc, "previous definition is here");
    return false;
  }
  return true;
}

void Analyzer::analyzeBody(const std::vector<StmtPtr> &Body) {
  for (const StmtPtr &S : Body)
    analyzeStmt(*S);
}

void Analyzer::analyzeStmt(Stmt &S) {
  switch (S.K) {
  case Stmt::Kind::Const: {
    auto &C = static_cast<ConstStmt &>(S);
    Symbol Sym{Symbol::Kind::Const, DType::I64, {}, C.NameLoc, C.Value};
    auto Prev = Names.find(C.Name);
    if (Prev != Names.end()) {
      Diags.error(C.NameLoc, "'" + C.Name + "' is already defined");
      Diags.note(Prev->second.Loc, "previous definition is here");
      return;
    }
    if (Info.Constants.at(C.Name) != C.Value) {
      // An earlier const of this name is further down in a nested block.
      Diags.error(C.NameLoc, "'" + C.Name + "' is already defined");
      return;
    }
    define(C, Sym);
    return;
  }
  case Stmt::Kind::Factor: {
    auto &A = static_cast<AssignStmt &>(S);
    if (!analyzeExpr(*A.Value)) {
      poison(A);
      return;
    }
    if (!isNumeric(A.Value->Ty.Type)) {
      Diags.error(A.Value->Loc, "factor '" + A.Name +
                                    "' must be a number (a log density "
                                    "term); got bool");
      poison(A);
      return;
    }
    // A log-density term, in the model's float precision.
    Shape Full = plateDims();
    llvm::append_range(Full, A.Value->Ty.Dims);
    if (!define(A, {Symbol::Kind::Factor, Info.Precision, Full, A.NameLoc}))
      return;
    addValueSite(A, Info.Precision, Full, SiteKind::Factor);
    return;
  }
  case Stmt::Kind::Let:
  case Stmt::Kind::Deterministic: {
    auto &A = static_cast<AssignStmt &>(S);
    if (!analyzeExpr(*A.Value)) {
      poison(A);
      return;
    }
    Shape Full = plateDims();
    llvm::append_range(Full, A.Value->Ty.Dims);
    DType T = A.Value->Ty.Type;
    bool IsDet = S.K == Stmt::Kind::Deterministic;
    if (!define(A, {IsDet ? Symbol::Kind::Deterministic : Symbol::Kind::Let,
                    T, Full, A.NameLoc}))
      return;
    if (IsDet)
      addValueSite(A, T, Full, SiteKind::Deterministic);
    return;
  }
  case Stmt::Kind::Sample:
    analyzeSample(static_cast<SampleStmt &>(S));
    return;
  case Stmt::Kind::Plate:
  case Stmt::Kind::Scan:
    analyzeBlock(static_cast<BlockStmt &>(S));
    return;
  }
}

void Analyzer::analyzeBlock(BlockStmt &B) {
  const char *Word = B.K == Stmt::Kind::Plate ? "plate" : "scan";
  AllowPosteriorDims = true;
  auto D = resolveDim(B.Dim, true);
  AllowPosteriorDims = false;
  if (!D) {
    poisonBody(B.Body); // its names exist; their uses need no more errors
    return;
  }
  for (const OpenBlock &O : Blocks) {
    if (O.D == *D) {
      Diags.error(B.Dim.Loc, llvm::Twine(Word) + " '" + B.Name +
                                 "' runs over '" + D->str() +
                                 "', which the enclosing block '" +
                                 O.Block->Name + "' already runs over");
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
    if (It != Names.end() && It->second.K == Symbol::Kind::Const)
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
  Si.Class = mentions(Full, Info.ObsDim) ? SiteClass::ObsAligned
                                         : SiteClass::Global;
  Si.Decl = &A;
  Info.Sites.push_back(Si);
}

std::optional<Analyzer::BoundCall>
Analyzer::bindCall(const DistSpec &Spec, const std::vector<Arg> &Args,
                   SMLoc DistLoc) {
  BoundCall R;
  R.Dist = Spec.Name;
  R.Discrete = Spec.Discrete;
  R.ValueEventRank = Spec.ValueEventRank;
  bool &Ok = R.Ok;
  // Bind arguments to parameters: positional first, then keywords.
  std::vector<ExprPtr> Bound(Spec.Params.size());
  size_t Positional = 0;
  for (const Arg &A : Args) {
    size_t Index = Spec.Params.size();
    if (A.Keyword.empty()) {
      if (Positional >= Spec.Params.size() ||
          (Spec.ExactlyOneOf.size() > 1 &&
           Spec.Params[Positional].Name ==
               llvm::StringRef(Spec.ExactlyOneOf.back()))) {
        Diags.error(A.Loc, llvm::Twine(Spec.Name) + " takes at most " +
                               llvm::Twine(Positional) +
                               " positional argument" +
                               (Positional == 1 ? "" : "s"));
        Ok = false;
        continue;
      }
      Index = Positional++;
    } else {
      for (size_t I = 0; I < Spec.Params.size(); ++I)
        if (A.Keyword == Spec.Params[I].Name)
          Index = I;
      if (Index == Spec.Params.size()) {
        std::vector<std::string> Names;
        for (const DistParam &P : Spec.Params)
          Names.push_back(P.Name);
        Diags.error(A.Loc, llvm::Twine(Spec.Name) + " has no parameter '" +
                               A.Keyword + "'; its parameters are " +
                               llvm::join(Names, ", "));
        Ok = false;
        continue;
      }
    }
    if (Bound[Index]) {
      Diags.error(A.Loc, llvm::Twine("parameter '") +
                             Spec.Params[Index].Name + "' of " + Spec.Name +
                             " is given twice");
      Ok = false;
      continue;
    }
    Bound[Index] = A.Value;
  }
  if (!Spec.ExactlyOneOf.empty()) {
    std::vector<std::string> Given;
    for (size_t I = 0; I < Spec.Params.size(); ++I)
      if (Bound[I] && llvm::is_contained(Spec.ExactlyOneOf,
                                         llvm::StringRef(Spec.Params[I].Name)))
        Given.push_back(Spec.Params[I].Name);
    if (Given.size() != 1) {
      Diags.error(DistLoc,
                  llvm::Twine(Spec.Name) + " needs exactly one of '" +
                      Spec.ExactlyOneOf.front() + "=' or '" +
                      Spec.ExactlyOneOf.back() + "='" +
                      (Given.empty() ? "" : "; both were given"));
      Ok = false;
    }
  }

  // Type every argument and check it against its constraint; split its
  // shape into batch and event axes.
  std::optional<Shape> &Batch = R.Batch;
  Batch = Shape{};
  std::optional<Dim> &K = R.EventSize;
  const char *KFrom = nullptr;
  Shape KShape;
  for (size_t I = 0; I < Spec.Params.size(); ++I) {
    const DistParam &P = Spec.Params[I];
    bool InGroup = llvm::is_contained(Spec.ExactlyOneOf,
                                      llvm::StringRef(P.Name));
    if (!Bound[I]) {
      if (!P.Default && !InGroup) {
        Diags.error(DistLoc, llvm::Twine(Spec.Name) +
                                 " is missing its parameter '" + P.Name +
                                 "'");
        Ok = false;
      } else if (P.Default) {
        Bound[I] = std::make_shared<NumberExpr>(
            DistLoc, *P.Default, P.Domain == Constraint::NonNegativeInteger);
        Bound[I]->Ty = {P.Domain == Constraint::NonNegativeInteger
                            ? DType::I32
                            : Info.Precision,
                        {}, true};
        if (!P.SizeOnly)
          R.Params.push_back({P.Name, Bound[I], Shape(P.EventRank, Dim()),
                              SampleStmt::LoweredParam::Transform::None});
      }
      continue;
    }
    Expr &E = *Bound[I];
    if (!analyzeExpr(E)) {
      Ok = false;
      continue;
    }
    if (!isNumeric(E.Ty.Type)) {
      Diags.error(E.Loc, llvm::Twine("parameter '") + P.Name + "' of " +
                             Spec.Name + " must be numeric; got bool");
      Ok = false;
      continue;
    }
    if (P.Domain == Constraint::NonNegativeInteger && isFloat(E.Ty.Type)) {
      Diags.error(E.Loc, llvm::Twine("parameter '") + P.Name + "' of " +
                             Spec.Name + " must be an integer; got " +
                             dtypeName(E.Ty.Type));
      Ok = false;
      continue;
    }
    auto V = literalValue(E);
    if (V && !satisfies(P.Domain, *V)) {
      Diags.error(E.Loc, llvm::Twine("parameter '") + P.Name + "' of " +
                             Spec.Name + " must be " +
                             constraintDescription(P.Domain) + "; got " +
                             formatNumber(*V));
      Ok = false;
    }
    if (P.SizeOnly) {
      // LKJCholesky's dimension: the event is [dimension, dimension].
      if (!V || *V < 2 || !E.Ty.Dims.empty()) {
        Diags.error(E.Loc, llvm::Twine("parameter '") + P.Name + "' of " +
                               Spec.Name + " must be an integer literal or "
                               "const of at least 2 (it fixes the event "
                               "shape)");
        Ok = false;
      } else {
        K = Dim::known(static_cast<int64_t>(*V));
      }
      continue;
    }
    if (P.EventRank == 2 && E.Ty.Dims.size() < 2) {
      Diags.error(E.Loc, llvm::Twine("parameter '") + P.Name + "' of " +
                             Spec.Name + " must be a matrix (shape [..., K, "
                             "K]); got shape " + shapeStr(E.Ty.Dims));
      Ok = false;
      continue;
    }
    // Batch axes lead, the parameter's event axes trail (NumPyro's rule).
    size_t EventAxes = std::min<size_t>(P.EventRank, E.Ty.Dims.size());
    Shape PBatch(E.Ty.Dims.begin(), E.Ty.Dims.end() - EventAxes);
    Shape PEvent(E.Ty.Dims.end() - EventAxes, E.Ty.Dims.end());
    for (const Dim &D : PEvent) {
      if (D.isOne() && P.EventRank)
        continue; // broadcasts along the event
      if (D == Dim::symbol(Info.ObsDim)) {
        Diags.error(E.Loc, llvm::Twine("parameter '") + P.Name + "' of " +
                               Spec.Name + " has the observation axis '" +
                               Info.ObsDim + "' as its event axis; the "
                               "observation axis must be a batch axis (put "
                               "the categories or components last)");
        Ok = false;
        break;
      }
      if (K && *K != D) {
        Diags.error(E.Loc, llvm::Twine("parameter '") + P.Name + "' of " +
                               Spec.Name + " has event shape " +
                               shapeStr(PEvent) + ", which does not match " +
                               (KFrom ? "'" + std::string(KFrom) + "' with " +
                                            "event shape " + shapeStr(KShape)
                                      : std::string("its event size ") +
                                            shapeStr({*K})));
        Ok = false;
        break;
      }
      K = D;
      KFrom = P.Name;
      KShape = PEvent;
    }
    if (Batch) {
      auto B = broadcastShapes(*Batch, PBatch);
      if (!B) {
        Diags.error(E.Loc, llvm::Twine("parameter '") + P.Name + "' of " +
                               Spec.Name +
                               (P.EventRank ? " has batch shape "
                                            : " has shape ") +
                               shapeStr(PBatch) +
                               ", which does not broadcast with the other "
                               "parameters' shape " +
                               shapeStr(*Batch));
        Ok = false;
      }
      Batch = B;
    }
    bool Chol = llvm::StringRef(P.Name) == "covariance_matrix";
    R.Params.push_back(
        {Chol ? "scale_tril" : P.Name, Bound[I], Shape(P.EventRank, Dim()),
         Chol ? SampleStmt::LoweredParam::Transform::Cholesky
              : SampleStmt::LoweredParam::Transform::None});
  }
  if (Spec.hasEvent() && !K && Ok) {
    std::string Vec;
    for (const DistParam &P : Spec.Params)
      if (P.EventRank)
        Vec += std::string(Vec.empty() ? "" : " or ") + "'" + P.Name + "'";
    Diags.error(DistLoc, llvm::Twine(Spec.Name) + " takes its event size "
                             "from " + Vec + ": give it as a vector (an "
                             "input or latent of shape [..., K], or an "
                             "array literal such as [1.0, 1.0, 1.0])");
    Ok = false;
  }
  if (Spec.Kind == DistKind::Uniform && Bound[0] && Bound[1]) {
    auto Lo = literalValue(*Bound[0]), Hi = literalValue(*Bound[1]);
    if (Lo && Hi && !(*Lo < *Hi)) {
      Diags.error(DistLoc, "Uniform needs low < high; got low = " +
                               formatNumber(*Lo) + ", high = " +
                               formatNumber(*Hi));
      Ok = false;
    }
  }
  return R;
}

/// Argument `Index` of a composite (positional or by the parameter's
/// name), which must be a distribution call.
const CallExpr *Analyzer::distributionArg(const SampleStmt &S, size_t Index,
                                          const char *What) {
  const DistSpec &Spec = *S.Spec;
  const Expr *Found = nullptr;
  size_t Positional = 0;
  for (const Arg &A : S.Args) {
    size_t I = A.Keyword.empty() ? Positional++ : Spec.Params.size();
    for (size_t J = 0; J < Spec.Params.size() && !A.Keyword.empty(); ++J)
      if (A.Keyword == Spec.Params[J].Name)
        I = J;
    if (I >= Spec.Params.size()) {
      std::vector<std::string> Names;
      for (const DistParam &P : Spec.Params)
        Names.push_back(P.Name);
      std::string Last = Names.back();
      Names.pop_back();
      Diags.error(A.Loc, llvm::Twine(Spec.Name) + " takes " +
                             llvm::join(Names, ", ") + " and " + Last +
                             " only");
      return nullptr;
    }
    if (I == Index)
      Found = A.Value.get();
  }
  if (!Found) {
    Diags.error(S.DistLoc, llvm::Twine(Spec.Name) + " is missing its " +
                               Spec.Params[Index].Name);
    return nullptr;
  }
  const Expr *E = Found;
  if (auto *Ix = llvm::dyn_cast<IndexExpr>(E))
    E = Ix->Base.get();
  const auto *C = llvm::dyn_cast<CallExpr>(E);
  if (!C || (!lookupDistribution(C->Callee) &&
             llvm::StringRef(What) != "a transform")) {
    Diags.error(Found->Loc, llvm::Twine(Spec.Name) + "'s " +
                                Spec.Params[Index].Name + " must be " + What);
    return nullptr;
  }
  return C;
}

/// MixtureSameFamily(Categorical(probs=|logits=), Component(...)): the
/// component's last batch axis is the component axis; the mixing weights
/// arrive as logits (log of probs).
std::optional<Analyzer::BoundCall> Analyzer::bindMixture(SampleStmt &S) {
  const CallExpr *Mix = distributionArg(S, 0, "a Categorical(probs=...) or "
                                              "Categorical(logits=...)");
  const CallExpr *Comp = distributionArg(S, 1, "a distribution call");
  if (!Mix || !Comp)
    return std::nullopt;
  if (Mix->Callee != "Categorical") {
    Diags.error(Mix->Loc, "MixtureSameFamily's mixing distribution must be "
                          "Categorical; got " + Mix->Callee);
    return std::nullopt;
  }
  const DistSpec *Base = lookupDistribution(Comp->Callee);
  if (Base->hasEvent() || Base->isComposite() || Base->Improper) {
    Diags.error(Comp->Loc, "MixtureSameFamily's components must be a "
                           "distribution of numbers (Normal, Poisson, ...); "
                           "got " + Comp->Callee);
    return std::nullopt;
  }
  auto M = bindCall(*lookupDistribution("Categorical"), Mix->Args, Mix->Loc);
  auto C = bindCall(*Base, Comp->Args, Comp->Loc);
  if (!M || !C || !M->Ok || !C->Ok || !M->Batch || !C->Batch)
    return std::nullopt;
  if (C->Batch->empty() || !M->EventSize ||
      (C->Batch->back() != *M->EventSize && !C->Batch->back().isOne())) {
    Diags.error(Comp->Loc,
                "MixtureSameFamily's component parameters need the component "
                "axis last, of the mixing weights' size " +
                    (M->EventSize ? shapeStr({*M->EventSize}) : "[K]") +
                    "; they have batch shape " + shapeStr(*C->Batch));
    return std::nullopt;
  }
  BoundCall R;
  R.Dist = compositeName(DistKind::MixtureSameFamily, Base->Name);
  R.Discrete = Base->Discrete;
  R.EventSize = M->EventSize;
  Shape CompBatch(C->Batch->begin(), C->Batch->end() - 1);
  R.Batch = broadcastShapes(*M->Batch, CompBatch);
  if (!R.Batch) {
    Diags.error(S.DistLoc, "MixtureSameFamily's mixing batch shape " +
                               shapeStr(*M->Batch) +
                               " does not broadcast with the components' " +
                               shapeStr(CompBatch));
    return std::nullopt;
  }
  SampleStmt::LoweredParam W = M->Params.front();
  if (W.Name == "probs")
    W.Fn = SampleStmt::LoweredParam::Transform::Log;
  W.Name = "logits";
  R.Params.push_back(W);
  for (SampleStmt::LoweredParam P : C->Params) {
    P.Target = Shape(1, Dim()); // along the component axis
    R.Params.push_back(P);
  }
  return R;
}

/// TransformedDistribution(Base(...)[K], OrderedTransform()): an ordered
/// vector; only a latent (it has no log density here).
std::optional<Analyzer::BoundCall> Analyzer::bindOrdered(SampleStmt &S,
                                                         bool IsOutput) {
  const CallExpr *BaseCall = distributionArg(S, 0, "a distribution call");
  const CallExpr *T = distributionArg(S, 1, "a transform");
  if (!BaseCall || !T)
    return std::nullopt;
  if (T->Callee != "OrderedTransform" || !T->Args.empty()) {
    Diags.error(T->Loc, "TransformedDistribution supports the transform "
                        "OrderedTransform() only (ordered vectors such as "
                        "cutpoints)");
    return std::nullopt;
  }
  if (IsOutput) {
    Diags.error(S.DistLoc, "the output '" + S.Name + "' cannot be a "
                           "TransformedDistribution: it has no log density "
                           "here; use it for latents such as cutpoints");
    return std::nullopt;
  }
  const DistSpec *Base = lookupDistribution(BaseCall->Callee);
  if (Base->hasEvent() || Base->isComposite() || Base->Improper ||
      Base->Discrete) {
    Diags.error(BaseCall->Loc, "OrderedTransform needs a continuous "
                               "distribution of numbers as its base; got " +
                                   BaseCall->Callee);
    return std::nullopt;
  }
  auto C = bindCall(*Base, BaseCall->Args, BaseCall->Loc);
  if (!C || !C->Ok || !C->Batch)
    return std::nullopt;
  Shape Vec = *C->Batch;
  // `Base(...)[K]`: NumPyro's .expand([K]).
  for (const Arg &A : S.Args)
    if (auto *Ix = llvm::dyn_cast<IndexExpr>(A.Value.get());
        Ix && Ix->Base.get() == BaseCall) {
      std::vector<DimSyntax> Ds;
      for (const ExprPtr &I : Ix->Indices) {
        if (auto *N = llvm::dyn_cast<NameExpr>(I.get()))
          Ds.push_back({N->Name, 0, N->Loc});
        else if (auto *L = llvm::dyn_cast<NumberExpr>(I.get());
                 L && L->IsInteger && L->Value >= 1)
          Ds.push_back({"", static_cast<int64_t>(L->Value), L->Loc});
        else {
          Diags.error(I->Loc, "the base distribution's shape must be dimension "
                              "names or positive integers");
          return std::nullopt;
        }
      }
      AllowPosteriorDims = true;
      auto E = resolveDims(Ds, true);
      AllowPosteriorDims = false;
      if (!E)
        return std::nullopt;
      if (!broadcastsTo(Vec, *E)) {
        Diags.error(Ix->Loc, "the base's parameters of shape " +
                                 shapeStr(Vec) + " do not broadcast to " +
                                 shapeStr(*E));
        return std::nullopt;
      }
      Vec = *E;
    }
  if (Vec.empty()) {
    Diags.error(BaseCall->Loc, "an ordered vector needs its length: give the "
                               "base a shape, as in Normal(0, 1)[K]");
    return std::nullopt;
  }
  if (Vec.back() == Dim::symbol(Info.ObsDim)) {
    Diags.error(BaseCall->Loc, "an ordered vector cannot run along the "
                               "observation axis");
    return std::nullopt;
  }
  BoundCall R;
  R.Dist = compositeName(DistKind::TransformedDistribution, Base->Name);
  R.EventSize = Vec.back();
  R.ValueEventRank = 1;
  R.Batch = Shape(Vec.begin(), Vec.end() - 1);
  for (SampleStmt::LoweredParam P : C->Params) {
    P.Target = Shape(1, Dim());
    R.Params.push_back(P);
  }
  return R;
}

/// TruncatedDistribution(Base(...), low=, high=): the base's density
/// renormalized on [low, high] (either bound may be left out), for the
/// real-valued symmetric bases NumPyro truncates.
std::optional<Analyzer::BoundCall> Analyzer::bindTruncated(SampleStmt &S) {
  const CallExpr *BaseCall = distributionArg(S, 0, "a distribution call");
  if (!BaseCall)
    return std::nullopt;
  if (!llvm::is_contained(truncatableBases(), BaseCall->Callee)) {
    std::vector<std::string> Names(truncatableBases().begin(),
                                   truncatableBases().end());
    Diags.error(BaseCall->Loc, "TruncatedDistribution truncates " +
                                   llvm::join(Names, ", ") + "; got " +
                                   BaseCall->Callee);
    return std::nullopt;
  }
  const DistSpec *Base = lookupDistribution(BaseCall->Callee);
  auto C = bindCall(*Base, BaseCall->Args, BaseCall->Loc);
  if (!C || !C->Ok || !C->Batch)
    return std::nullopt;
  // low and high: by keyword, or positional after the base.
  ExprPtr Bounds[2];
  const char *Names[2] = {"low", "high"};
  size_t Positional = 0;
  bool Ok = true;
  for (const Arg &A : S.Args) {
    int I = -1;
    if (A.Keyword.empty())
      I = static_cast<int>(Positional++) - 1;
    else if (A.Keyword == "low" || A.Keyword == "high")
      I = A.Keyword == "low" ? 0 : 1;
    else if (A.Keyword == "base_dist")
      continue;
    if (I < 0 || I > 1) {
      if (!(A.Keyword.empty() && I == -1)) {
        Diags.error(A.Loc, "TruncatedDistribution takes base_dist, low and "
                           "high only");
        Ok = false;
      }
      continue;
    }
    if (Bounds[I]) {
      Diags.error(A.Loc, llvm::Twine("'") + Names[I] + "' is given twice");
      Ok = false;
      continue;
    }
    Bounds[I] = A.Value;
  }
  BoundCall R;
  R.Dist = compositeName(DistKind::TruncatedDistribution, Base->Name);
  R.Params = C->Params;
  R.Batch = C->Batch;
  for (int I = 0; I < 2; ++I) {
    if (!Bounds[I]) {
      Bounds[I] = std::make_shared<NumberExpr>(
          S.DistLoc, I == 0 ? -HUGE_VAL : HUGE_VAL, false);
      Bounds[I]->Ty = {Info.Precision, {}, true};
    } else if (!analyzeExpr(*Bounds[I])) {
      Ok = false;
      continue;
    } else if (!isNumeric(Bounds[I]->Ty.Type)) {
      Diags.error(Bounds[I]->Loc, llvm::Twine("'") + Names[I] +
                                      "' must be a number; got bool");
      Ok = false;
      continue;
    }
    auto B = broadcastShapes(*R.Batch, Bounds[I]->Ty.Dims);
    if (!B) {
      Diags.error(Bounds[I]->Loc, llvm::Twine("'") + Names[I] +
                                      "' has shape " +
                                      shapeStr(Bounds[I]->Ty.Dims) +
                                      ", which does not broadcast with the "
                                      "base's " + shapeStr(*R.Batch));
      Ok = false;
      continue;
    }
    R.Batch = B;
    R.Params.push_back({Names[I], Bounds[I], Shape(),
                        SampleStmt::LoweredParam::Transform::None});
  }
  if (!Ok)
    return std::nullopt;
  return R;
}

void Analyzer::analyzeSample(SampleStmt &S) {
  const DistSpec *Spec = lookupDistribution(S.Dist);
  bool IsOutput = S.Name == M.Output.Name;
  bool Ok = true;
  if (const BlockStmt *Scan = enclosingScan()) {
    Diags.error(S.NameLoc,
                "sample site '" + S.Name + "' inside scan '" + Scan->Name +
                    "': the number of sites would grow with the sequence "
                    "length, which neither sharding plan supports; move it "
                    "out of the scan (a plate gives one site of many "
                    "elements)");
    Ok = false;
  }
  if (!Spec) {
    std::vector<std::string> Known;
    for (const DistSpec &D : allDistributions())
      Known.push_back(D.Name);
    Diags.error(S.DistLoc, "unknown distribution '" + S.Dist +
                               "'; known: " + llvm::join(Known, ", "));
    poison(S);
    return;
  }
  S.Spec = Spec;

  // ImproperUniform(support=real|positive): a flat prior with no density
  // to score and no draws; only a latent that the posterior gives.
  std::string Support;
  if (Spec->Improper) {
    Support = "real";
    for (const Arg &A : S.Args) {
      const auto *N = llvm::dyn_cast<NameExpr>(A.Value.get());
      if (A.Keyword != "support" || !N ||
          (N->Name != "real" && N->Name != "positive")) {
        Diags.error(A.Loc, "ImproperUniform takes only 'support=real' (the "
                           "default) or 'support=positive'; give the shape "
                           "as ImproperUniform()[k]");
        Ok = false;
        continue;
      }
      Support = N->Name;
    }
    if (IsOutput) {
      Diags.error(S.DistLoc, "the output '" + S.Name +
                                 "' cannot be ImproperUniform: a flat prior "
                                 "has no normalized density to score nor "
                                 "draws to predict");
      Ok = false;
    }
    S.Args.clear();
  }

  // The call's parameters, its batch shape and (with an event axis) the
  // event size K; composites by their own rules.
  std::optional<BoundCall> Call;
  if (Spec->Kind == DistKind::MixtureSameFamily)
    Call = bindMixture(S);
  else if (Spec->Kind == DistKind::TransformedDistribution)
    Call = bindOrdered(S, IsOutput);
  else if (Spec->Kind == DistKind::TruncatedDistribution)
    Call = bindTruncated(S);
  else
    Call = bindCall(*Spec, S.Args, S.DistLoc);
  if (!Call) {
    poison(S);
    return;
  }
  Ok = Ok && Call->Ok;
  std::optional<Shape> Batch = Call->Batch;

  Shape Own = Batch ? *Batch : Shape{};
  if (S.ExplicitShape) {
    AllowPosteriorDims = true;
    auto E = resolveDims(*S.ExplicitShape, true);
    AllowPosteriorDims = false;
    if (!E)
      Ok = false;
    else if (Batch && !broadcastsTo(*Batch, *E)) {
      Diags.error(S.DistLoc, "parameters of shape " + shapeStr(*Batch) +
                                 " do not broadcast to the site's shape " +
                                 shapeStr(*E));
      Ok = false;
    } else {
      Own = *E;
    }
  }
  // Every argument broadcasts to the batch shape followed by its event.
  S.LoweredDist = Call->Dist;
  S.Lowered = std::move(Call->Params);
  for (SampleStmt::LoweredParam &P : S.Lowered) {
    Shape Target = Own;
    if (Call->EventSize)
      Target.insert(Target.end(), P.Target.size(), *Call->EventSize);
    P.Target = Target;
  }
  Shape ValueEvent;
  if (Call->EventSize)
    ValueEvent.assign(Call->ValueEventRank, *Call->EventSize);
  S.OwnShape = Own;
  llvm::append_range(S.OwnShape, ValueEvent);
  Own = S.OwnShape;

  Shape Full = plateDims();
  llvm::append_range(Full, Own);
  bool Discrete = Call->Discrete;
  DType T = Discrete ? DType::I32 : Info.Precision;

  if (IsOutput && Ok) {
    const TypedArray &Out = Info.Output;
    if (Full != Out.Dims) {
      Diags.error(S.NameLoc, "output '" + S.Name + "' is declared " +
                                 dtypeName(Out.Type) + shapeStr(Out.Dims) +
                                 " but this site has shape " + shapeStr(Full));
      Diags.note(M.Output.Loc, "output declared here");
      Ok = false;
    }
    bool TypeOk = Discrete
                      ? (isInteger(Out.Type) ||
                         (Out.Type == DType::Bool &&
                          Spec->Kind == DistKind::Bernoulli))
                      : isFloat(Out.Type);
    if (!TypeOk) {
      Diags.error(S.DistLoc,
                  llvm::Twine(Spec->Name) + " produces " +
                      (Discrete ? "integers" : "real numbers") +
                      " but output '" + S.Name + "' is declared " +
                      dtypeName(Out.Type) + "; declare it " +
                      (Discrete ? "i32" : dtypeName(Info.Precision)));
      Ok = false;
    }
    if (TypeOk && Call->ValueEventRank && Call->EventSize &&
        Out.Type != T) {
      Diags.error(S.DistLoc, llvm::Twine(Spec->Name) + " values are " +
                                 dtypeName(T) + " vectors; declare output '" +
                                 S.Name + "' " + dtypeName(T));
      Ok = false;
    }
    if (Spec->Kind == DistKind::LKJCholesky) {
      Diags.error(S.DistLoc, "the output '" + S.Name + "' cannot be "
                             "LKJCholesky: it is only a prior here (a "
                             "sampler without a log density)");
      Ok = false;
    }
    T = Out.Type;
  }
  if (!define(S, {Symbol::Kind::Sample, T, Full, S.NameLoc}) || !Ok)
    return;

  Site Si;
  Si.Name = S.Name;
  Si.Type = T;
  Si.Dims = Full;
  Si.Dist = Spec;
  Si.Decl = &S;
  Si.Support = Support;
  Si.EventRank = Call->EventSize ? Call->ValueEventRank : 0;
  if (IsOutput) {
    OutputSampled = true;
    Si.Kind = SiteKind::Observed;
    Si.Class = SiteClass::Observed;
  } else {
    Si.Kind = SiteKind::Latent;
    Si.Class = mentions(Full, Info.ObsDim) ? SiteClass::ObsAligned
                                           : SiteClass::Global;
  }
  Info.Sites.push_back(Si);
}

//===----------------------------------------------------------------------===//
// Expressions
//===----------------------------------------------------------------------===//

Shape Analyzer::viewInPlates(const Shape &Full) const {
  size_t Skip = 0;
  for (const OpenBlock &B : Blocks)
    if (Skip < Full.size() && Full[Skip] == B.D)
      ++Skip;
  return Shape(Full.begin() + Skip, Full.end());
}

DType Analyzer::arithmeticType(const ExprType &A, const ExprType &B) const {
  return promoteArithmetic(A, B, Info.Precision);
}

} // namespace

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

namespace {

bool Analyzer::analyzeExpr(Expr &E) {
  switch (E.K) {
  case Expr::Kind::Number: {
    auto &N = static_cast<NumberExpr &>(E);
    E.Ty = {N.IsInteger ? DType::I32 : Info.Precision, {}, true};
    if (N.IsInteger && std::abs(N.Value) > 2147483647.0)
      E.Ty.Type = DType::I64;
    return true;
  }
  case Expr::Kind::Bool:
    E.Ty = {DType::Bool, {}, false};
    return true;
  case Expr::Kind::Name:
    return analyzeName(static_cast<NameExpr &>(E));
  case Expr::Kind::Unary: {
    auto &U = static_cast<UnaryExpr &>(E);
    if (!analyzeExpr(*U.Operand))
      return false;
    if (!isNumeric(U.Operand->Ty.Type)) {
      Diags.error(E.Loc, "cannot negate a bool value");
      return false;
    }
    E.Ty = U.Operand->Ty;
    return true;
  }
  case Expr::Kind::Binary:
    return analyzeBinary(static_cast<BinaryExpr &>(E));
  case Expr::Kind::Call:
    return analyzeCall(static_cast<CallExpr &>(E));
  case Expr::Kind::Index:
    return analyzeIndex(static_cast<IndexExpr &>(E));
  case Expr::Kind::Array:
    return analyzeArray(static_cast<ArrayExpr &>(E));
  case Expr::Kind::Axis:
    Diags.error(E.Loc, llvm::Twine("'") +
                           (static_cast<AxisExpr &>(E).NewAxis ? "None"
                                                               : ":") +
                           "' is only an index, as in x[:, None]");
    return false;
  }
  return false;
}

/// `[a, b, ...]`: elements of one shape (after broadcasting) stacked along
/// a new leading axis; numbers promote as in arithmetic.
bool Analyzer::analyzeArray(ArrayExpr &E) {
  bool Ok = true;
  for (const ExprPtr &X : E.Elements)
    Ok &= analyzeExpr(*X);
  if (!Ok)
    return false;
  ExprType T = E.Elements.front()->Ty;
  for (const ExprPtr &X : E.Elements) {
    const ExprType &XT = X->Ty;
    if ((XT.Type == DType::Bool) != (T.Type == DType::Bool)) {
      Diags.error(X->Loc, "array literal mixes bool and numbers");
      return false;
    }
    auto S = broadcastShapes(T.Dims, XT.Dims);
    if (!S) {
      Diags.error(X->Loc, "array literal elements have shapes " +
                              shapeStr(T.Dims) + " and " + shapeStr(XT.Dims) +
                              ", which do not broadcast");
      return false;
    }
    DType Ty = T.Type == DType::Bool ? DType::Bool : arithmeticType(T, XT);
    T = {Ty, *S, T.WeakLiteral && XT.WeakLiteral};
  }
  Shape Out{Dim::known(static_cast<int64_t>(E.Elements.size()))};
  llvm::append_range(Out, T.Dims);
  E.Ty = {T.Type, Out, T.WeakLiteral};
  return true;
}

bool Analyzer::analyzeName(NameExpr &E) {
  auto It = Names.find(E.Name);
  if (It == Names.end()) {
    if (lookupDistribution(E.Name)) {
      Diags.error(E.Loc, "'" + E.Name +
                             "' is a distribution; draw from it with 'x ~ " +
                             E.Name + "(...)'");
      return false;
    }
    if (E.Name == M.Output.Name) {
      // Autoregressive terms (y[t - 1]) read the output inside the model,
      // which neither plan can shard: the lags must come as data.
      Diags.error(E.Loc, "the output '" + E.Name +
                             "' is used inside the model; autoregressive "
                             "terms such as " + E.Name +
                             "[t - 1] need the lagged values passed as an "
                             "input (e.g. " + E.Name + "_lag: " +
                             dtypeName(Info.Output.Type) + "[" + Info.ObsDim +
                             "])");
      return false;
    }
    Diags.error(E.Loc, "unknown name '" + E.Name + "'");
    auto Later = LaterDefinitions.find(E.Name);
    if (Later != LaterDefinitions.end())
      Diags.note(Later->second, "'" + E.Name +
                                    "' is defined here, after its use");
    else if (E.Name == M.Output.Name)
      Diags.note(M.Output.Loc, "the output can be used only after it is "
                               "sampled");
    return false;
  }
  const Symbol &S = It->second;
  if (S.Poisoned)
    return false;
  if (S.K == Symbol::Kind::Factor) {
    Diags.error(E.Loc, "'" + E.Name +
                           "' is a factor, a term of the log density, not a "
                           "value; compute the value with 'let' and add it "
                           "as a factor");
    return false;
  }
  if (S.K == Symbol::Kind::Const) {
    E.Ty = {S.ConstValue > 2147483647 || S.ConstValue < -2147483648LL
                ? DType::I64
                : DType::I32,
            {}, true};
    return true;
  }
  E.Ty = {S.Type, viewInPlates(S.Dims), false};
  return true;
}

bool Analyzer::analyzeBinary(BinaryExpr &E) {
  bool OkL = analyzeExpr(*E.LHS);
  bool OkR = analyzeExpr(*E.RHS);
  if (!OkL || !OkR)
    return false;
  const ExprType &A = E.LHS->Ty, &B = E.RHS->Ty;
  const char *Op = binaryOpSpelling(E.Op);
  bool IsCompare = E.Op >= BinaryOp::Lt;
  bool IsEquality = E.Op == BinaryOp::Eq || E.Op == BinaryOp::Ne;

  if (!IsEquality && (!isNumeric(A.Type) || !isNumeric(B.Type))) {
    Diags.error(E.Loc, llvm::Twine("operator '") + Op +
                           "' needs numbers; got " + dtypeName(A.Type) +
                           " and " + dtypeName(B.Type));
    return false;
  }
  if (IsEquality && (A.Type == DType::Bool) != (B.Type == DType::Bool)) {
    Diags.error(E.Loc, llvm::Twine("operator '") + Op +
                           "' compares a bool with a number (" +
                           dtypeName(A.Type) + " and " + dtypeName(B.Type) +
                           ")");
    return false;
  }

  if (E.Op == BinaryOp::MatMul) {
    Shape SA = A.Dims, SB = B.Dims;
    if (SA.empty() || SB.empty()) {
      Diags.error(E.Loc, "operator '@' needs arrays of rank 1 or more; got " +
                             shapeStr(SA) + " @ " + shapeStr(SB));
      return false;
    }
    if (SA.size() > 2 || SB.size() > 2) {
      Diags.error(E.Loc, "operator '@' on arrays of rank above 2 is not "
                         "supported (got " +
                             shapeStr(SA) + " @ " + shapeStr(SB) +
                             "); use a plate for the extra dims");
      return false;
    }
    bool VecA = SA.size() == 1, VecB = SB.size() == 1;
    if (VecA)
      SA.insert(SA.begin(), Dim::known(1));
    if (VecB)
      SB.push_back(Dim::known(1));
    const Dim &K1 = SA.back(), &K2 = SB[SB.size() - 2];
    if (mixesObservations(E.Loc, K1, "this matrix product"))
      return false;
    if (K1 != K2) {
      Diags.error(E.Loc, "operator '@': inner dimensions " + K1.str() +
                             " and " + K2.str() + " differ (" +
                             shapeStr(A.Dims) + " @ " + shapeStr(B.Dims) +
                             ")");
      return false;
    }
    Shape BatchA(SA.begin(), SA.end() - 2), BatchB(SB.begin(), SB.end() - 2);
    auto Batch = broadcastShapes(BatchA, BatchB);
    if (!Batch) {
      Diags.error(E.Loc, "operator '@': batch dimensions of " +
                             shapeStr(A.Dims) + " and " + shapeStr(B.Dims) +
                             " do not broadcast");
      return false;
    }
    Shape Out = *Batch;
    if (!VecA)
      Out.push_back(SA[SA.size() - 2]);
    if (!VecB)
      Out.push_back(SB.back());
    E.Ty = {arithmeticType(A, B), Out, false};
    return true;
  }

  auto Out = broadcastShapes(A.Dims, B.Dims);
  if (!Out) {
    Diags.error(E.Loc, llvm::Twine("shapes ") + shapeStr(A.Dims) + " and " +
                           shapeStr(B.Dims) +
                           " cannot be broadcast together in '" + Op + "'");
    return false;
  }
  bool Weak = A.WeakLiteral && B.WeakLiteral;
  if (IsCompare)
    E.Ty = {DType::Bool, *Out, false};
  else if (E.Op == BinaryOp::Div || E.Op == BinaryOp::Pow)
    E.Ty = {Info.Precision, *Out, Weak};
  else
    E.Ty = {arithmeticType(A, B), *Out, Weak};
  return true;
}

bool Analyzer::analyzeCall(CallExpr &E) {
  // Elementwise functions that compute in the model's float precision.
  static const std::set<std::string> FloatFns = {
      "exp",     "log",    "log1p", "expm1",  "sqrt", "tanh",
      "sigmoid", "softplus", "log_sigmoid", "lgamma", "erf", "Phi",
      "sin",     "cos"};
  static const std::set<std::string> SameTypeFns = {"abs", "relu"};
  static const std::set<std::string> Reductions = {"sum", "mean", "min",
                                                   "max", "logsumexp"};
  // Over the last axis of a per-observation vector (shape-preserving).
  static const std::set<std::string> VectorFns = {"softmax", "log_softmax"};
  // Elementwise, two arguments broadcast together (NumPy's names).
  static const std::set<std::string> PairFns = {"minimum", "maximum", "pow"};
  bool AxisFn = Reductions.count(E.Callee) || VectorFns.count(E.Callee) ||
                E.Callee == "cumsum";
  bool Known = FloatFns.count(E.Callee) || SameTypeFns.count(E.Callee) ||
               AxisFn || PairFns.count(E.Callee) || E.Callee == "clip" ||
               E.Callee == "where";
  if (!Known) {
    if (lookupDistribution(E.Callee))
      Diags.error(E.Loc, "'" + E.Callee +
                             "' is a distribution, not a function; draw from "
                             "it with 'x ~ " +
                             E.Callee + "(...)'");
    else
      Diags.error(E.Loc, "unknown function '" + E.Callee +
                             "'; functions are exp, log, log1p, expm1, sqrt, "
                             "abs, tanh, sigmoid, relu, softplus, log_sigmoid, "
                             "lgamma, erf, Phi, sin, cos, minimum, maximum, "
                             "pow, clip, where, sum, mean, min, max, "
                             "logsumexp, softmax, log_softmax, cumsum");
    return false;
  }
  bool Ok = true;
  // axis=: an integer literal (negative counts from the end), taken out of
  // the arguments; checked against the value's rank below.
  std::optional<int64_t> Axis;
  SMLoc AxisLoc;
  for (auto It = E.Args.begin(); It != E.Args.end();) {
    if (It->Keyword != "axis" || !AxisFn) {
      ++It;
      continue;
    }
    auto V = literalValue(*It->Value);
    auto *N = llvm::dyn_cast<NumberExpr>(It->Value.get());
    auto *U = llvm::dyn_cast<UnaryExpr>(It->Value.get());
    bool IsInt = (N && N->IsInteger) ||
                 (U && llvm::isa<NumberExpr>(*U->Operand) &&
                  llvm::cast<NumberExpr>(*U->Operand).IsInteger) ||
                 (V && llvm::isa<NameExpr>(*It->Value));
    if (!V || !IsInt || Axis) {
      Diags.error(It->Loc, Axis ? "'axis' is given twice"
                                : "'axis' must be an integer literal or const");
      Ok = false;
    } else {
      Axis = static_cast<int64_t>(*V);
      AxisLoc = It->Loc;
    }
    It = E.Args.erase(It);
  }
  for (const Arg &A : E.Args) {
    if (!A.Keyword.empty()) {
      Diags.error(A.Loc, "function '" + E.Callee + "' takes no keyword "
                             "arguments" + (AxisFn ? " but axis=" : ""));
      Ok = false;
    }
    Ok &= analyzeExpr(*A.Value);
  }
  if (!Ok)
    return false;
  bool Binary = (E.Callee == "min" || E.Callee == "max");
  size_t MinArgs = PairFns.count(E.Callee)                     ? 2
                   : E.Callee == "clip" || E.Callee == "where" ? 3
                                                                : 1;
  size_t MaxArgs = Binary ? 2 : MinArgs;
  if (E.Args.size() < MinArgs || E.Args.size() > MaxArgs) {
    const char *Want = Binary                ? "1 or 2 arguments"
                       : E.Callee == "where" ? "3 arguments (cond, a, b)"
                       : MinArgs == 3        ? "3 arguments (x, lo, hi)"
                       : MinArgs == 2 ? "2 arguments"
                                      : "1 argument";
    Diags.error(E.Loc, "function '" + E.Callee + "' takes " + Want +
                           "; got " + llvm::Twine(E.Args.size()));
    return false;
  }
  if (E.Callee == "where") {
    // where(cond, a, b): a bool condition; a and b numbers (or both bool),
    // all three broadcast together.
    const ExprType &C = E.Args[0].Value->Ty, &A = E.Args[1].Value->Ty,
                   &B = E.Args[2].Value->Ty;
    if (C.Type != DType::Bool) {
      Diags.error(E.Args[0].Loc, llvm::Twine("the condition of 'where' must "
                                             "be bool (a comparison); got ") +
                                     dtypeName(C.Type));
      return false;
    }
    if ((A.Type == DType::Bool) != (B.Type == DType::Bool)) {
      Diags.error(E.Loc, "'where' needs two numbers or two bools after the "
                         "condition; got " +
                             llvm::Twine(dtypeName(A.Type)) + " and " +
                             dtypeName(B.Type));
      return false;
    }
    auto AB = broadcastShapes(A.Dims, B.Dims);
    auto Out = AB ? broadcastShapes(C.Dims, *AB) : std::nullopt;
    if (!Out) {
      Diags.error(E.Loc, "shapes " + shapeStr(C.Dims) + ", " + shapeStr(A.Dims) +
                             " and " + shapeStr(B.Dims) +
                             " cannot be broadcast together in 'where'");
      return false;
    }
    DType T = A.Type == DType::Bool ? DType::Bool : arithmeticType(A, B);
    E.Ty = {T, *Out, A.WeakLiteral && B.WeakLiteral};
    return true;
  }
  const ExprType &A = E.Args[0].Value->Ty;
  // The axis a reduction, softmax or cumsum runs along (local dims).
  if (AxisFn && (Axis || VectorFns.count(E.Callee) || E.Callee == "cumsum")) {
    int64_t Rank = static_cast<int64_t>(A.Dims.size());
    if (!Axis && E.Callee == "cumsum" && Rank > 1) {
      Diags.error(E.Loc, "cumsum of an array of shape " + shapeStr(A.Dims) +
                             " needs axis= (NumPy would flatten it)");
      return false;
    }
    int64_t Ax = Axis ? *Axis : -1;
    if (Ax < 0)
      Ax += Rank;
    if (Ax < 0 || Ax >= Rank) {
      Diags.error(Axis ? AxisLoc : E.Loc,
                  "axis " + llvm::Twine(Axis ? *Axis : -1) +
                      " is out of range for a value of shape " +
                      shapeStr(A.Dims));
      return false;
    }
    if (mixesObservations(E.Loc, A.Dims[Ax], ("'" + E.Callee + "'").c_str()))
      return false;
    E.Axis = Ax;
  }
  if (E.Args.size() == 1 && Reductions.count(E.Callee) && !E.Axis)
    for (const Dim &D : A.Dims)
      if (mixesObservations(E.Loc, D,
                            ("'" + E.Callee + "'").c_str()))
        return false;
  for (const Arg &Ar : E.Args) {
    if (!isNumeric(Ar.Value->Ty.Type) &&
        !(E.Callee == "sum" || E.Callee == "mean")) {
      Diags.error(Ar.Loc, "function '" + E.Callee + "' needs numbers; got bool");
      return false;
    }
  }
  if (VectorFns.count(E.Callee)) {
    E.Ty = {Info.Precision, A.Dims, false};
  } else if (E.Callee == "cumsum") {
    E.Ty = {A.Type == DType::Bool ? DType::I32 : A.Type, A.Dims, false};
  } else if (E.Axis) {
    Shape Kept = A.Dims;
    Kept.erase(Kept.begin() + *E.Axis);
    DType T = E.Callee == "mean" || E.Callee == "logsumexp" ? Info.Precision
              : E.Callee == "sum" && A.Type == DType::Bool  ? DType::I32
                                                             : A.Type;
    E.Ty = {T, Kept, false};
  } else if (FloatFns.count(E.Callee)) {
    E.Ty = {Info.Precision, A.Dims, A.WeakLiteral};
  } else if (SameTypeFns.count(E.Callee)) {
    E.Ty = A;
  } else if (E.Args.size() >= 2) {
    // Elementwise over broadcast arguments: min/max/minimum/maximum/clip
    // keep the arithmetic type, pow computes in the float precision.
    Shape Out = A.Dims;
    DType T = A.Type;
    bool Weak = A.WeakLiteral;
    for (size_t I = 1; I < E.Args.size(); ++I) {
      const ExprType &B = E.Args[I].Value->Ty;
      auto O = broadcastShapes(Out, B.Dims);
      if (!O) {
        Diags.error(E.Loc, "shapes " + shapeStr(Out) + " and " +
                               shapeStr(B.Dims) +
                               " cannot be broadcast together in '" +
                               E.Callee + "'");
        return false;
      }
      Out = *O;
      T = arithmeticType({T, {}, Weak}, B);
      Weak = Weak && B.WeakLiteral;
    }
    E.Ty = {E.Callee == "pow" ? Info.Precision : T, Out, Weak};
  } else if (E.Callee == "mean" || E.Callee == "logsumexp") {
    E.Ty = {Info.Precision, {}, false};
  } else if (E.Callee == "sum") {
    E.Ty = {A.Type == DType::Bool ? DType::I32 : A.Type, {}, false};
  } else {
    E.Ty = {A.Type, {}, false};
  }
  return true;
}

bool Analyzer::analyzeIndex(IndexExpr &E) {
  bool Ok = analyzeExpr(*E.Base);
  size_t Axes = 0, Kept = 0;
  for (const ExprPtr &I : E.Indices) {
    if (auto *A = llvm::dyn_cast<AxisExpr>(I.get())) {
      ++Axes;
      Kept += !A->NewAxis;
      continue;
    }
    Ok &= analyzeExpr(*I);
  }
  if (!Ok)
    return false;
  const Shape &Base = E.Base->Ty.Dims;
  // `x[:, None]`: a view with axes of extent 1 inserted.
  if (Axes) {
    if (Axes != E.Indices.size()) {
      Diags.error(E.Loc, "indices mix ':' or None with integer indices, "
                         "which is not supported; index first (let a = "
                         "x[g];) and insert axes after (a[:, None])");
      return false;
    }
    if (Kept > Base.size()) {
      Diags.error(E.Loc, "too many ':' for a value of shape " +
                             shapeStr(Base));
      return false;
    }
    Shape Out;
    size_t Next = 0;
    for (const ExprPtr &I : E.Indices)
      Out.push_back(llvm::cast<AxisExpr>(*I).NewAxis ? Dim::known(1)
                                                     : Base[Next++]);
    Out.insert(Out.end(), Base.begin() + Next, Base.end());
    E.Ty = {E.Base->Ty.Type, Out, E.Base->Ty.WeakLiteral};
    return true;
  }
  if (E.Indices.size() > Base.size()) {
    Diags.error(E.Loc, "too many indices: the value has shape " +
                           shapeStr(Base) + " (rank " +
                           llvm::Twine(Base.size()) + ") but " +
                           llvm::Twine(E.Indices.size()) +
                           " indices were given");
    return false;
  }
  Shape IndexShape;
  for (size_t I = 0; I < E.Indices.size(); ++I) {
    const Expr &Ix = *E.Indices[I];
    if (const auto *N = llvm::dyn_cast<NameExpr>(&Ix)) {
      auto S = Names.find(N->Name);
      ModelInfo::IndexUse U{N->Name, Base[I]};
      if (S != Names.end() && S->second.K == Symbol::Kind::Input &&
          !llvm::is_contained(Info.IndexInputs, U))
        Info.IndexInputs.push_back(U);
    }
    if (mixesObservations(Ix.Loc, Base[I], "this index")) {
      Ok = false;
      continue;
    }
    if (!isInteger(Ix.Ty.Type)) {
      Diags.error(Ix.Loc, llvm::Twine("index must be an integer; got ") +
                              dtypeName(Ix.Ty.Type));
      Ok = false;
      continue;
    }
    if (auto V = literalValue(Ix); V && !Base[I].isSymbol()) {
      int64_t Extent = Base[I].Extent;
      if (*V < -Extent || *V >= Extent) {
        Diags.error(Ix.Loc, "index " + llvm::Twine(static_cast<int64_t>(*V)) +
                                " is out of range for a dimension of extent " +
                                llvm::Twine(Extent));
        Ok = false;
        continue;
      }
    }
    auto B = broadcastShapes(IndexShape, Ix.Ty.Dims);
    if (!B) {
      Diags.error(Ix.Loc, "index shapes " + shapeStr(IndexShape) + " and " +
                              shapeStr(Ix.Ty.Dims) + " do not broadcast");
      Ok = false;
      continue;
    }
    IndexShape = *B;
  }
  if (!Ok)
    return false;
  Shape Out = IndexShape;
  Out.insert(Out.end(), Base.begin() + E.Indices.size(), Base.end());
  E.Ty = {E.Base->Ty.Type, Out, false};
  return true;
}

std::optional<ModelInfo> Analyzer::run() {
  collectNames(M.Body);
  if (!checkSignature())
    return std::nullopt;
  analyzeBody(M.Body);
  if (!OutputSampled && !Diags.hadError())
    Diags.error(M.Output.Loc, "output '" + M.Output.Name +
                                  "' is never sampled; add '" + M.Output.Name +
                                  " ~ Dist(...);' to the model");
  // A dimension only the posterior can bind must be in a latent's shape.
  for (const auto &[Name, Loc] : PosteriorDimLocs) {
    bool Carried = llvm::any_of(Info.Sites, [&, &Name = Name](const Site &S) {
      return S.Kind == SiteKind::Latent &&
             llvm::is_contained(S.Dims, Dim::symbol(Name));
    });
    if (!Carried)
      Diags.error(Loc, "unknown dimension '" + Name +
                           "': no input's shape names it and no latent has "
                           "it in its shape, so nothing can set it at run "
                           "time; name it in an input's shape or declare it "
                           "with 'const'");
  }
  if (Diags.hadError())
    return std::nullopt;

  for (const Site &S : Info.Sites)
    if (S.Kind == SiteKind::Latent && S.Class == SiteClass::ObsAligned)
      Info.PlanReason.push_back(S.Name);
  Info.ChosenPlan = Info.PlanReason.empty() ? Plan::Obs : Plan::Draw;
  return std::move(Info);
}

} // namespace

std::optional<ModelInfo> analyzeModel(Model &M, Diagnostics &Diags,
                                      std::optional<DType> Precision) {
  return Analyzer(M, Diags, Precision).run();
}

} // namespace aimz
