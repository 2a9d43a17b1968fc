//===- Distributions.h - The distributions a model may sample ---*- C++ -*-===//
//
// One table describes every distribution's parameters (NumPyro's names and
// order), their defaults and constraints, and whether it is discrete. The
// front end checks calls against it; the back end lowers by its enum.
//
//===----------------------------------------------------------------------===//
#ifndef AIMZ_DISTRIBUTIONS_H
#define AIMZ_DISTRIBUTIONS_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>
#include <vector>

namespace aimz {

enum class DistKind {
  Normal,
  HalfNormal,
  LogNormal,
  Exponential,
  Gamma,
  Beta,
  Uniform,
  Cauchy,
  HalfCauchy,
  StudentT,
  Laplace,
  Logistic,
  Gumbel,
  InverseGamma,
  Pareto,
  Weibull,
  TruncatedNormal,
  Bernoulli,
  Binomial,
  Poisson,
  GammaPoisson,
  NegativeBinomial2,
  NegativeBinomialProbs,
  NegativeBinomialLogits,
  ZeroInflatedPoisson,
  ZeroInflatedNegativeBinomial2,
  BetaBinomial,
  ImproperUniform,
};

/// What values a parameter may take; checked on literal arguments.
enum class Constraint { Real, Positive, UnitInterval, NonNegativeInteger };

struct DistParam {
  const char *Name;
  Constraint Domain;
  std::optional<double> Default; // NumPyro's default, when it has one
};

struct DistSpec {
  DistKind Kind;
  const char *Name;
  std::vector<DistParam> Params; // positional order
  bool Discrete;
  /// Parameters of which exactly one must be given (`probs` / `logits`).
  std::vector<const char *> ExactlyOneOf;
  /// No normalized density and no sampler (a flat prior): only a latent,
  /// always given by the posterior.
  bool Improper = false;
};

/// A sampler / log density pair the support library defines
/// (runtime/include/aimz/math/Distributions.def).
struct RuntimeDistribution {
  const char *Symbol;
  bool Discrete;
  unsigned Arity;
};

/// Every row of Distributions.def.
llvm::ArrayRef<RuntimeDistribution> runtimeDistributions();

/// The runtime symbol for a distribution called with the given parameters
/// (table order): the name in lower case, plus "_<param>" for the member
/// of an exactly-one-of group that was given ("bernoulli_logits").
std::string runtimeSymbol(const DistSpec &Spec,
                          llvm::ArrayRef<llvm::StringRef> GivenParams);

/// The distribution called `Name`, or null.
const DistSpec *lookupDistribution(llvm::StringRef Name);

/// All distributions, in declaration order.
const std::vector<DistSpec> &allDistributions();

const char *constraintDescription(Constraint C);
bool satisfies(Constraint C, double V);

} // namespace aimz

#endif // AIMZ_DISTRIBUTIONS_H
