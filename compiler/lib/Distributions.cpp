//===- Distributions.cpp - The distributions a model may sample -----------===//
#include "aimz/Distributions.h"

#include "llvm/ADT/STLExtras.h"

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
#define AIMZ_NUMPYRO_DISTRIBUTION(KIND, VALUES, DENSITY, VALUE_EVENT_RANK,     \
                                  PARAMS, EXACTLY_ONE_OF)                      \
  DistSpec{DistKind::KIND,   #KIND,   AIMZ_LIST PARAMS, VALUES,                \
           AIMZ_LIST EXACTLY_ONE_OF, DENSITY, VALUE_EVENT_RANK},
#include "aimz/NumPyroDistributions.def"
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
#include "aimz/math/EventDistributions.def"
#undef CONTINUOUS
#undef DISCRETE
  };
  return Rows;
}

std::string runtimeSymbol(const DistSpec &Spec,
                          llvm::ArrayRef<llvm::StringRef> GivenParams) {
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
                       : Kind == DistKind::TruncatedDistribution
                           ? "Truncated("
                           : "OrderedTransform(";
  return Prefix + Base.str() + ")";
}

llvm::ArrayRef<const char *> truncatableBases() {
  static const char *Bases[] = {
      "Normal",      "Cauchy",   "StudentT",     "Laplace",    "Logistic",
      "Exponential", "Weibull",  "Gumbel",       "Pareto",     "Gamma",
      "InverseGamma", "LogNormal", "HalfNormal", "HalfCauchy", "Beta",
      "Kumaraswamy", "Uniform", "LogUniform", "AsymmetricLaplace", "Chi2",
      "BetaProportion", "Poisson", "NegativeBinomial2", "Binomial"};
  return Bases;
}

std::string truncatedSymbol(const DistSpec &Base,
                            llvm::ArrayRef<llvm::StringRef> GivenParams) {
  // The normal's is TruncatedNormal's.
  return Base.Kind == DistKind::Normal
             ? "truncatednormal"
             : "truncated_" + runtimeSymbol(Base, GivenParams);
}

std::optional<RuntimeCall> runtimeCall(llvm::StringRef Dist,
                                       llvm::ArrayRef<llvm::StringRef> Params) {
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
  if (Dist.consume_front("Truncated(")) {
    const DistSpec *Base = lookupDistribution(Dist.drop_back());
    if (!Dist.consume_back(")") || !Base || Params.size() < 2 ||
        !llvm::is_contained(truncatableBases(), Dist))
      return std::nullopt;
    RuntimeCall C;
    C.Symbol = truncatedSymbol(*Base, Params.drop_back(2)); // low, high
    return C;
  }
  const DistSpec *Spec = lookupDistribution(Dist);
  if (!Spec)
    return std::nullopt;
  RuntimeCall C;
  C.Symbol = runtimeSymbol(*Spec, Params);
  C.Event = Spec->hasEvent();
  C.ValueEventRank = Spec->ValueEventRank;
  return C;
}

const DistSpec *lookupDistribution(llvm::StringRef Name) {
  for (const DistSpec &D : allDistributions())
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
