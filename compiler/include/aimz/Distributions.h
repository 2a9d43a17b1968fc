//===- Distributions.h - The distributions a model may sample ---*- C++ -*-===//
//
// One table describes every distribution's parameters (NumPyro's names and
// order), their defaults and constraints, and whether it is discrete. The
// front end checks calls against it; the back end lowers by its enum.
//
//===----------------------------------------------------------------------===//
#ifndef AIMZ_DISTRIBUTIONS_H
#define AIMZ_DISTRIBUTIONS_H

#include "llvm/ADT/StringRef.h"

#include <optional>
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
  Bernoulli,
  Binomial,
  Poisson,
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
};

/// The distribution called `Name`, or null.
const DistSpec *lookupDistribution(llvm::StringRef Name);

/// All distributions, in declaration order.
const std::vector<DistSpec> &allDistributions();

const char *constraintDescription(Constraint C);
bool satisfies(Constraint C, double V);

} // namespace aimz

#endif // AIMZ_DISTRIBUTIONS_H
