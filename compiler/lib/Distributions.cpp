//===- Distributions.cpp - The distributions a model may sample -----------===//
#include "aimz/Distributions.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/SmallVector.h"

#include <cmath>

namespace aimz {

const std::vector<DistSpec> &allDistributions() {
  static const std::vector<DistSpec> Table = {
#define NONE std::nullopt
#define CONTINUOUS false
#define DISCRETE true
#define PROPER false
#define IMPROPER true
#define AIMZ_LIST(...) {__VA_ARGS__}
#define AIMZ_PARAM(NAME, CONSTRAINT, ...)                                     \
  DistParam{#NAME, Constraint::CONSTRAINT, __VA_ARGS__}
#define AIMZ_KW_PARAM(...) keywordOnly(AIMZ_PARAM(__VA_ARGS__))
#define AIMZ_EXT_PARAM(...) extension(AIMZ_PARAM(__VA_ARGS__))
#define AIMZ_ROW_PARAM(NAME, CONSTRAINT, DEFAULT, EVENT_RANK, ROW_AXES)       \
  rowAxes(AIMZ_PARAM(NAME, CONSTRAINT, DEFAULT, EVENT_RANK), ROW_AXES)
#define AIMZ_NUMPYRO_DISTRIBUTION(KIND, VALUES, DENSITY, VALUE_EVENT_RANK,     \
                                  PARAMS, EXACTLY_ONE_OF)                      \
  DistSpec{DistKind::KIND,   #KIND,   AIMZ_LIST PARAMS, VALUES,                \
           AIMZ_LIST EXACTLY_ONE_OF, DENSITY, VALUE_EVENT_RANK},
#include "aimz/NumPyroDistributions.def"
#undef AIMZ_EXT_PARAM
#undef AIMZ_KW_PARAM
#undef AIMZ_PARAM
#undef AIMZ_LIST
#undef IMPROPER
#undef PROPER
#undef DISCRETE
#undef CONTINUOUS
#undef NONE
  };
  return Table;
}

const std::vector<DistAlias> &allDistributionAliases() {
  static const std::vector<DistAlias> Aliases = {
#define AIMZ_STRINGS_1(A) #A
#define AIMZ_STRINGS_2(A, B) #A, #B
#define AIMZ_PICK(_1, _2, NAME, ...) NAME
#define AIMZ_STRINGS(...)                                                      \
  AIMZ_PICK(__VA_ARGS__, AIMZ_STRINGS_2, AIMZ_STRINGS_1)(__VA_ARGS__)
#define AIMZ_NUMPYRO_ALIAS(NAME, TARGET, PARAMS)                               \
  DistAlias{#NAME, #TARGET, {AIMZ_STRINGS PARAMS}},
#include "aimz/NumPyroDistributions.def"
#undef AIMZ_STRINGS
#undef AIMZ_PICK
#undef AIMZ_STRINGS_2
#undef AIMZ_STRINGS_1
  };
  return Aliases;
}

const DistAlias *lookupDistributionAlias(llvm::StringRef Name) {
  for (const DistAlias &A : allDistributionAliases())
    if (Name == A.Name)
      return &A;
  return nullptr;
}

/// The spec of every alias, built once from its target's row.
static const std::vector<DistSpec> &aliasSpecs() {
  static const std::vector<DistSpec> Specs = [] {
    std::vector<DistSpec> R;
    for (const DistAlias &A : allDistributionAliases()) {
      const DistSpec *T = lookupDistribution(A.Target);
      DistSpec S = *T;
      S.Name = A.Name;
      S.AliasOf = T;
      S.ExactlyOneOf.clear();
      S.Params.clear();
      for (const char *Name : A.Params)
        for (const DistParam &P : T->Params)
          if (llvm::StringRef(Name) == P.Name)
            S.Params.push_back(P);
      R.push_back(std::move(S));
    }
    return R;
  }();
  return Specs;
}

size_t DistSpec::positionalCount() const {
  size_t N = 0;
  while (N < Params.size() && !Params[N].KeywordOnly)
    ++N;
  return N;
}

bool DistSpec::hasRowAxis() const {
  return llvm::any_of(Params, [](const DistParam &P) { return P.RowAxes; });
}

bool DistSpec::hasEvent() const {
  return ValueEventRank > 0 ||
         llvm::any_of(Params, [](const DistParam &P) { return P.EventRank; });
}

llvm::ArrayRef<RuntimeDistribution> runtimeDistributions() {
  static const RuntimeDistribution Rows[] = {
#define CONTINUOUS false
#define DISCRETE true
#define AIMZ_DISTRIBUTION(SYM, KIND, ARITY, SAMPLE, LOG_PROB)                 \
  {#SYM, KIND, ARITY},
#include "aimz/math/Distributions.def"
#define AIMZ_EVENT_DISTRIBUTION(SYM, KIND, ARITY, RANK, SAMPLE, LOG_PROB)     \
  {#SYM, KIND, ARITY, true, RANK},
#define AIMZ_ROWS_EVENT_DISTRIBUTION(SYM, KIND, ARITY, SAMPLE, LOG_PROB)      \
  {#SYM, KIND, ARITY, true, 2, true},
#include "aimz/math/EventDistributions.def"
#undef CONTINUOUS
#undef DISCRETE
  };
  return Rows;
}

/// The runtime's row of that symbol, or null.
static const RuntimeDistribution *runtimeRow(llvm::StringRef Symbol) {
  auto Rows = runtimeDistributions();
  auto It = llvm::find_if(
      Rows, [&](const RuntimeDistribution &R) { return Symbol == R.Symbol; });
  return It == Rows.end() ? nullptr : &*It;
}

PassedParam passedParam(llvm::StringRef Given) {
  if (Given == "covariance_matrix" || Given == "scale_matrix")
    return {"scale_tril", MatrixParamForm::Cholesky};
  if (Given == "rate_matrix")
    return {"scale_tril", MatrixParamForm::CholeskyOfInverse};
  if (Given == "precision_matrix")
    return {Given, MatrixParamForm::Cholesky};
  return {Given, MatrixParamForm::AsGiven};
}

std::string runtimeSymbol(const DistSpec &Called,
                          llvm::ArrayRef<llvm::StringRef> GivenParams) {
  const DistSpec &Spec = Called.canonical();
  std::string Symbol = llvm::StringRef(Spec.Name).lower();
  for (llvm::StringRef P : GivenParams)
    if (llvm::is_contained(Spec.ExactlyOneOf, P))
      Symbol += "_" + P.str();
  return Symbol;
}

bool hasRowSampler(llvm::StringRef Symbol) {
  static const llvm::StringRef Rows[] = {
#define AIMZ_VECTOR_SAMPLER(SYM, KIND, ARITY, SAMPLE) #SYM,
#include "aimz/math/Distributions.def"
  };
  return llvm::is_contained(Rows, Symbol);
}

std::string compositeName(DistKind Kind, llvm::StringRef Base) {
  const char *Prefix = Kind == DistKind::MixtureSameFamily ? "MixtureSameFamily("
                       : Kind == DistKind::TruncatedDistribution ? "Truncated("
                       : Kind == DistKind::Censored              ? "Censored("
                       : Kind == DistKind::FoldedDistribution    ? "Folded("
                       : Kind == DistKind::LeftCensoredDistribution ||
                               Kind == DistKind::RightCensoredDistribution
                           ? "Flagged("
                       : Kind == DistKind::IntervalCensoredDistribution
                           ? "Interval("
                       : Kind == DistKind::GaussianCopula ? "Copula("
                       : Kind == DistKind::SineSkewed     ? "SineSkewed("
                           : "OrderedTransform(";
  return Prefix + Base.str() + ")";
}

llvm::ArrayRef<const char *> truncatableBases() {
  // The distributions of numbers whose truncation the support library
  // defines (a truncated_<symbol> row, the normal's truncatednormal), in
  // the table's order: the runtime's rows are the one list.
  static const std::vector<const char *> Bases = [] {
    std::vector<const char *> B;
    for (const DistSpec &D : allDistributions()) {
      if (D.hasEvent() || D.isComposite() || D.Improper)
        continue;
      llvm::SmallVector<llvm::StringRef, 4> Given;
      for (const DistParam &P : D.Params)
        if (D.ExactlyOneOf.empty() || !llvm::is_contained(D.ExactlyOneOf, P.Name) ||
            P.Name == llvm::StringRef(D.ExactlyOneOf.front()))
          Given.push_back(P.Name);
      const std::string Sym = truncatedSymbol(D, Given);
      if (runtimeRow(Sym))
        B.push_back(D.Name);
    }
    return B;
  }();
  return Bases;
}

std::string truncatedSymbol(const DistSpec &Base,
                            llvm::ArrayRef<llvm::StringRef> GivenParams) {
  // The normal's is TruncatedNormal's.
  return Base.Kind == DistKind::Normal
             ? "truncatednormal"
             : "truncated_" + runtimeSymbol(Base, GivenParams);
}

std::string cdfBaseList(bool ContinuousOnly) {
  std::vector<llvm::StringRef> Names;
  for (const char *B : truncatableBases())
    if (const DistSpec *D = lookupDistribution(B);
        D && (!ContinuousOnly || !D->Discrete))
      Names.push_back(B);
  Names.push_back("FoldedDistribution(...)");
  return llvm::join(Names, ", ");
}

bool hasRuntimeCdf(llvm::StringRef Symbol) {
#define AIMZ_CDF(SYM, KIND, ARITY, CDF)                                       \
  if (Symbol == #SYM)                                                          \
    return true;
#include "aimz/math/CdfDistributions.def"
  return false;
}

bool isFoldable(llvm::StringRef Symbol) {
#define AIMZ_FOLDABLE(SYM, ARITY, CARITY, CDF, SAMPLE, LOG_PROB)               \
  if (Symbol == #SYM)                                                          \
    return true;
#include "aimz/math/FoldedDistributions.def"
  return false;
}

std::vector<std::string> foldableBases() {
  std::vector<std::string> Names;
  for (const DistSpec &D : allDistributions())
    if (!D.hasEvent() && !D.isComposite() && !D.Improper && !D.AliasOf &&
        isFoldable(runtimeSymbol(D, {})))
      Names.push_back(D.Name);
  return Names;
}

bool isCensorable(llvm::StringRef Symbol) {
#define AIMZ_CENSORABLE(SYM, ARITY, CARITY, CDF, SAMPLE, LOG_PROB)              \
  if (Symbol == #SYM)                                                          \
    return true;
#define AIMZ_COUNT_FAMILY(SYM, ARITY, CARITY, CDF, SAMPLE, LOG_PROB)       \
  AIMZ_CENSORABLE(SYM, ARITY, CARITY, CDF, SAMPLE, LOG_PROB)
#include "aimz/math/CdfDistributions.def"
  return false;
}

/// "MixtureGeneral(Normal,StudentT)" with the parameters "logits", "0.loc",
/// "0.scale", "1.df", ...: each component a distribution of numbers of its
/// row, all counts or all continuous; "Hurdle(Delta,Weibull)" the same with
/// a Delta first (RuntimeCall::Hurdle).
static std::optional<RuntimeCall>
generalMixtureCall(llvm::StringRef Dist, llvm::ArrayRef<llvm::StringRef> Params) {
  const bool Hurdle = Dist.consume_front("Hurdle(");
  if ((!Hurdle && !Dist.consume_front("MixtureGeneral(")) ||
      !Dist.consume_back(")") || Params.empty() || Params[0] != "logits")
    return std::nullopt;
  llvm::SmallVector<llvm::StringRef> Names;
  Dist.split(Names, ',');
  RuntimeCall C;
  C.Symbol = "mixture_general";
  size_t At = 1;
  for (size_t K = 0; K < Names.size(); ++K) {
    std::string Prefix = std::to_string(K) + ".";
    std::vector<llvm::StringRef> Own;
    size_t First = At;
    while (At < Params.size() && Params[At].starts_with(Prefix))
      Own.push_back(Params[At++].drop_front(Prefix.size()));
    // A component is a row of numbers: a table distribution's or a
    // truncation's.
    auto Row = runtimeCall(Names[K], Own);
    const RuntimeDistribution *R = Row ? runtimeRow(Row->Symbol) : nullptr;
    if (!R || Row->Event ||
        Row->Masked || !Row->Components.empty() ||
        (K && R->Discrete != C.Components[0].Discrete))
      return std::nullopt;
    C.Components.push_back({Row->Symbol, R->Discrete, First, Own.size()});
  }
  if (At != Params.size() || C.Components.size() < 2)
    return std::nullopt;
  C.Hurdle = Hurdle;
  if (Hurdle && (C.Components[0].Symbol != "delta" ||
                 C.Components[0].Discrete))
    return std::nullopt;
  return C;
}

/// The runtime row of a composite's base of numbers: a table
/// distribution's, or a row of numbers the base resolves to itself
/// ("Folded(Normal)", whose row is folded_normal).
static std::optional<std::string>
baseRowSymbol(llvm::StringRef Base, llvm::ArrayRef<llvm::StringRef> Params) {
  if (const DistSpec *Spec = lookupDistribution(Base))
    return runtimeSymbol(*Spec, Params);
  auto Row = runtimeCall(Base, Params);
  if (!Row || Row->Event || Row->Masked || !Row->Components.empty())
    return std::nullopt;
  return Row->Symbol;
}

std::optional<RuntimeCall> runtimeCall(llvm::StringRef Dist,
                                       llvm::ArrayRef<llvm::StringRef> Params) {
  if (Dist.starts_with("MixtureGeneral(") || Dist.starts_with("Hurdle("))
    return generalMixtureCall(Dist, Params);
  // Composites: "<Composite>(<Base>)", the base's parameters after the
  // mixing logits (MixtureSameFamily) or alone (OrderedTransform).
  for (auto [Prefix, Skip] : {std::pair<llvm::StringRef, size_t>{
                                  "MixtureSameFamily(", 1},
                              {"OrderedTransform(", 0}}) {
    if (!Dist.consume_front(Prefix))
      continue;
    const DistSpec *Base = lookupDistribution(Dist.drop_back());
    // Composites are over distributions of numbers only (an ordered
    // vector over continuous ones).
    if (!Base || !Dist.ends_with(")") || Params.size() < Skip ||
        Base->hasEvent() || Base->isComposite() || Base->Improper ||
        (!Skip && Base->Discrete))
      return std::nullopt;
    RuntimeCall C;
    C.Symbol = (Skip ? "mixture_" : "ordered_") +
               runtimeSymbol(*Base, Params.drop_front(Skip));
    C.Event = true;
    C.ValueEventRank = Skip ? 0 : 1;
    return C;
  }
  // Composites over a base of numbers: the base's parameters, then the
  // composite's own (two for a censoring: lower and upper, or the left and
  // right indicators; a copula's correlation factor; the skewness). The row
  // is the form's prefix on the base's symbol, where the support library
  // defines it (the censorable bases; VonMises for SineSkewed).
  struct OverBase {
    llvm::StringRef Prefix;
    const char *Symbol;
    size_t Trailing;
    bool Event; // a vector value: an interval's (lower, upper), the others'
  };
  static const OverBase Forms[] = {{"Censored(", "censored_", 2, false},
                                   {"Flagged(", "flagged_", 2, false},
                                   {"Interval(", "interval_", 2, true},
                                   {"Copula(", "copula_", 1, true},
                                   {"SineSkewed(", "sineskewed_", 1, true}};
  for (const OverBase &F : Forms) {
    if (!Dist.consume_front(F.Prefix))
      continue;
    if (!Dist.consume_back(")") || Params.size() < F.Trailing)
      return std::nullopt;
    auto Base = baseRowSymbol(Dist, Params.drop_back(F.Trailing));
    if (!Base)
      return std::nullopt;
    RuntimeCall C;
    C.Symbol = F.Symbol + *Base;
    if (!runtimeRow(C.Symbol))
      return std::nullopt;
    C.Event = F.Event;
    C.ValueEventRank = F.Event ? 1 : 0;
    return C;
  }
  // Masked(<any distribution of numbers>): the base's row, the mask last.
  if (Dist.consume_front("Masked(")) {
    if (!Dist.consume_back(")") || Params.empty())
      return std::nullopt;
    auto C = runtimeCall(Dist, Params.drop_back());
    if (!C || C->Event || C->Masked)
      return std::nullopt;
    C->Masked = true;
    return C;
  }
  if (Dist.consume_front("Folded(")) {
    const DistSpec *Base = lookupDistribution(Dist.drop_back());
    if (!Dist.consume_back(")") || !Base)
      return std::nullopt;
    std::string Sym = runtimeSymbol(*Base, Params);
    if (!isFoldable(Sym))
      return std::nullopt;
    RuntimeCall C;
    C.Symbol = "folded_" + Sym;
    return C;
  }
  if (Dist.consume_front("Truncated(")) {
    if (!Dist.consume_back(")") || Params.size() < 2)
      return std::nullopt;
    RuntimeCall C;
    if (const DistSpec *Base = lookupDistribution(Dist)) {
      if (!llvm::is_contained(truncatableBases(), Dist))
        return std::nullopt;
      C.Symbol = truncatedSymbol(*Base, Params.drop_back(2)); // low, high
      return C;
    }
    auto Base = baseRowSymbol(Dist, Params.drop_back(2));
    if (!Base || !runtimeRow("truncated_" + *Base))
      return std::nullopt;
    C.Symbol = "truncated_" + *Base;
    return C;
  }
  const DistSpec *Spec = lookupDistribution(Dist);
  if (!Spec)
    return std::nullopt;
  RuntimeCall C;
  C.Symbol = runtimeSymbol(*Spec, Params);
  C.Event = Spec->hasEvent();
  C.ValueEventRank = Spec->ValueEventRank;
  C.Rows = Spec->hasRowAxis();
  return C;
}

bool isPyMCOnly(const DistSpec &D) {
  switch (D.canonical().Kind) {
  case DistKind::SkewNormal:
  case DistKind::ExGaussian:
  case DistKind::Wald:
  case DistKind::Moyal:
  case DistKind::Rice:
  case DistKind::LogitNormal:
  case DistKind::Triangular:
  case DistKind::ZeroInflatedBinomial:
  case DistKind::Censored:
    return true;
  default:
    return false;
  }
}

const DistSpec *lookupDistribution(llvm::StringRef Name) {
  for (const DistSpec &D : allDistributions())
    if (Name == D.Name)
      return &D;
  for (const DistSpec &D : aliasSpecs())
    if (Name == D.Name)
      return &D;
  return nullptr;
}

const char *constraintDescription(Constraint C) {
  switch (C) {
  case Constraint::Real:
    return "a real number";
  case Constraint::Positive:
    return "positive";
  case Constraint::UnitInterval:
    return "in [0, 1]";
  case Constraint::OpenUnitInterval:
    return "in (0, 1)";
  case Constraint::NonNegativeInteger:
    return "a non-negative integer";
  }
  return "";
}

bool satisfies(Constraint C, double V) {
  switch (C) {
  case Constraint::Real:
    return std::isfinite(V);
  case Constraint::Positive:
    return std::isfinite(V) && V > 0;
  case Constraint::UnitInterval:
    return V >= 0 && V <= 1;
  case Constraint::OpenUnitInterval:
    return V > 0 && V < 1;
  case Constraint::NonNegativeInteger:
    return std::isfinite(V) && V >= 0 && V == std::floor(V);
  }
  return false;
}

} // namespace aimz
