//===- Distributions.cpp - The distributions a model may sample -----------===//
#include "aimz/Distributions.h"

#include "llvm/ADT/STLExtras.h"

#include <cmath>

namespace aimz {

const std::vector<DistSpec> &allDistributions() {
  using C = Constraint;
  static const std::vector<DistSpec> Table = {
      {DistKind::Normal, "Normal",
       {{"loc", C::Real, 0.0}, {"scale", C::Positive, 1.0}}, false, {}},
      {DistKind::HalfNormal, "HalfNormal",
       {{"scale", C::Positive, 1.0}}, false, {}},
      {DistKind::LogNormal, "LogNormal",
       {{"loc", C::Real, 0.0}, {"scale", C::Positive, 1.0}}, false, {}},
      {DistKind::Exponential, "Exponential",
       {{"rate", C::Positive, 1.0}}, false, {}},
      {DistKind::Gamma, "Gamma",
       {{"concentration", C::Positive, std::nullopt},
        {"rate", C::Positive, 1.0}}, false, {}},
      {DistKind::Beta, "Beta",
       {{"concentration1", C::Positive, std::nullopt},
        {"concentration0", C::Positive, std::nullopt}}, false, {}},
      {DistKind::Uniform, "Uniform",
       {{"low", C::Real, 0.0}, {"high", C::Real, 1.0}}, false, {}},
      {DistKind::Cauchy, "Cauchy",
       {{"loc", C::Real, 0.0}, {"scale", C::Positive, 1.0}}, false, {}},
      {DistKind::HalfCauchy, "HalfCauchy",
       {{"scale", C::Positive, 1.0}}, false, {}},
      {DistKind::StudentT, "StudentT",
       {{"df", C::Positive, std::nullopt},
        {"loc", C::Real, 0.0},
        {"scale", C::Positive, 1.0}}, false, {}},
      {DistKind::Laplace, "Laplace",
       {{"loc", C::Real, 0.0}, {"scale", C::Positive, 1.0}}, false, {}},
      {DistKind::Logistic, "Logistic",
       {{"loc", C::Real, 0.0}, {"scale", C::Positive, 1.0}}, false, {}},
      {DistKind::Gumbel, "Gumbel",
       {{"loc", C::Real, 0.0}, {"scale", C::Positive, 1.0}}, false, {}},
      {DistKind::InverseGamma, "InverseGamma",
       {{"concentration", C::Positive, std::nullopt},
        {"rate", C::Positive, 1.0}}, false, {}},
      {DistKind::Pareto, "Pareto",
       {{"scale", C::Positive, std::nullopt},
        {"alpha", C::Positive, std::nullopt}}, false, {}},
      {DistKind::Weibull, "Weibull",
       {{"scale", C::Positive, std::nullopt},
        {"concentration", C::Positive, std::nullopt}}, false, {}},
      {DistKind::TruncatedNormal, "TruncatedNormal",
       {{"loc", C::Real, 0.0},
        {"scale", C::Positive, 1.0},
        {"low", C::Real, -HUGE_VAL},
        {"high", C::Real, HUGE_VAL}}, false, {}},
      {DistKind::Bernoulli, "Bernoulli",
       {{"probs", C::UnitInterval, std::nullopt},
        {"logits", C::Real, std::nullopt}}, true, {"probs", "logits"}},
      {DistKind::Binomial, "Binomial",
       {{"total_count", C::NonNegativeInteger, 1.0},
        {"probs", C::UnitInterval, std::nullopt},
        {"logits", C::Real, std::nullopt}}, true, {"probs", "logits"}},
      {DistKind::Poisson, "Poisson",
       {{"rate", C::Positive, std::nullopt}}, true, {}},
      {DistKind::GammaPoisson, "GammaPoisson",
       {{"concentration", C::Positive, std::nullopt},
        {"rate", C::Positive, 1.0}}, true, {}},
      {DistKind::NegativeBinomial2, "NegativeBinomial2",
       {{"mean", C::Positive, std::nullopt},
        {"concentration", C::Positive, std::nullopt}}, true, {}},
      {DistKind::NegativeBinomialProbs, "NegativeBinomialProbs",
       {{"total_count", C::Positive, std::nullopt},
        {"probs", C::UnitInterval, std::nullopt}}, true, {}},
      {DistKind::NegativeBinomialLogits, "NegativeBinomialLogits",
       {{"total_count", C::Positive, std::nullopt},
        {"logits", C::Real, std::nullopt}}, true, {}},
      {DistKind::ZeroInflatedPoisson, "ZeroInflatedPoisson",
       {{"gate", C::UnitInterval, std::nullopt},
        {"rate", C::Positive, 1.0},
        {"gate_logits", C::Real, std::nullopt}}, true, {"gate", "gate_logits"}},
      {DistKind::ZeroInflatedNegativeBinomial2, "ZeroInflatedNegativeBinomial2",
       {{"mean", C::Positive, std::nullopt},
        {"concentration", C::Positive, std::nullopt},
        {"gate", C::UnitInterval, std::nullopt},
        {"gate_logits", C::Real, std::nullopt}}, true, {"gate", "gate_logits"}},
      {DistKind::BetaBinomial, "BetaBinomial",
       {{"concentration1", C::Positive, std::nullopt},
        {"concentration0", C::Positive, std::nullopt},
        {"total_count", C::NonNegativeInteger, 1.0}}, true, {}},
      // ClosedFormFamilies.h.
      {DistKind::AsymmetricLaplace, "AsymmetricLaplace",
       {{"loc", C::Real, 0.0},
        {"scale", C::Positive, 1.0},
        {"asymmetry", C::Positive, 1.0}}, false, {}},
      {DistKind::Kumaraswamy, "Kumaraswamy",
       {{"concentration1", C::Positive, std::nullopt},
        {"concentration0", C::Positive, std::nullopt}}, false, {}},
      {DistKind::LogUniform, "LogUniform",
       {{"low", C::Positive, std::nullopt},
        {"high", C::Positive, std::nullopt}}, false, {}},
      {DistKind::BetaProportion, "BetaProportion",
       {{"mean", C::OpenUnitInterval, std::nullopt},
        {"concentration", C::Positive, std::nullopt}}, false, {}},
      {DistKind::Chi2, "Chi2", {{"df", C::Positive, std::nullopt}}, false, {}},
      {DistKind::Geometric, "Geometric",
       {{"probs", C::UnitInterval, std::nullopt},
        {"logits", C::Real, std::nullopt}}, true, {"probs", "logits"}},
      // Hurdles: gate is the probability of a zero (Hurdle.h).
      {DistKind::HurdlePoisson, "HurdlePoisson",
       {{"gate", C::UnitInterval, std::nullopt},
        {"rate", C::Positive, 1.0}}, true, {}},
      {DistKind::HurdleNegativeBinomial2, "HurdleNegativeBinomial2",
       {{"gate", C::UnitInterval, std::nullopt},
        {"mean", C::Positive, std::nullopt},
        {"concentration", C::Positive, std::nullopt}}, true, {}},
      {DistKind::HurdleGamma, "HurdleGamma",
       {{"gate", C::UnitInterval, std::nullopt},
        {"concentration", C::Positive, std::nullopt},
        {"rate", C::Positive, 1.0}}, false, {}},
      {DistKind::HurdleLogNormal, "HurdleLogNormal",
       {{"gate", C::UnitInterval, std::nullopt},
        {"loc", C::Real, 0.0},
        {"scale", C::Positive, 1.0}}, false, {}},
      {DistKind::Categorical, "Categorical",
       {{"probs", C::UnitInterval, std::nullopt, 1},
        {"logits", C::Real, std::nullopt, 1}}, true, {"probs", "logits"}},
      {DistKind::OrderedLogistic, "OrderedLogistic",
       {{"predictor", C::Real, std::nullopt},
        {"cutpoints", C::Real, std::nullopt, 1}}, true, {}},
      {DistKind::Multinomial, "Multinomial",
       {{"total_count", C::NonNegativeInteger, 1.0},
        {"probs", C::UnitInterval, std::nullopt, 1},
        {"logits", C::Real, std::nullopt, 1}}, true, {"probs", "logits"},
       false, 1},
      {DistKind::DirichletMultinomial, "DirichletMultinomial",
       {{"concentration", C::Positive, std::nullopt, 1},
        {"total_count", C::NonNegativeInteger, 1.0}}, true, {}, false, 1},
      {DistKind::Dirichlet, "Dirichlet",
       {{"concentration", C::Positive, std::nullopt, 1}}, false, {}, false, 1},
      {DistKind::MultivariateNormal, "MultivariateNormal",
       {{"loc", C::Real, 0.0, 1},
        {"scale_tril", C::Real, std::nullopt, 2},
        {"covariance_matrix", C::Real, std::nullopt, 2}}, false,
       {"scale_tril", "covariance_matrix"}, false, 1},
      {DistKind::LKJCholesky, "LKJCholesky",
       {{"dimension", C::NonNegativeInteger, std::nullopt, 0, true},
        {"concentration", C::Positive, 1.0}}, false, {}, false, 2},
      // A flat prior; `support=real|positive` is handled by Sema.
      {DistKind::ImproperUniform, "ImproperUniform", {}, false, {}, true},
      // Distributions as arguments (Sema's own rules).
      {DistKind::MixtureSameFamily, "MixtureSameFamily",
       {{"mixing_distribution", C::Real, std::nullopt},
        {"component_distribution", C::Real, std::nullopt}}, false, {}},
      {DistKind::TransformedDistribution, "TransformedDistribution",
       {{"base_distribution", C::Real, std::nullopt},
        {"transforms", C::Real, std::nullopt}}, false, {}},
      {DistKind::TruncatedDistribution, "TruncatedDistribution",
       {{"base_dist", C::Real, std::nullopt},
        {"low", C::Real, -HUGE_VAL},
        {"high", C::Real, HUGE_VAL}}, false, {}},
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
      "InverseGamma", "LogNormal", "HalfNormal", "HalfCauchy"};
  return Bases;
}

std::string truncatedSymbol(llvm::StringRef Base) {
  // The normal's is TruncatedNormal's.
  return Base == "Normal" ? "truncatednormal" : "truncated_" + Base.lower();
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
    if (!Dist.consume_back(")") ||
        !llvm::is_contained(truncatableBases(), Dist))
      return std::nullopt;
    RuntimeCall C;
    C.Symbol = truncatedSymbol(Dist);
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
