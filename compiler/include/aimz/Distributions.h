//===- Distributions.h - The distributions a model may sample ---*- C++ -*-===//
//
// One table describes every distribution's parameters (NumPyro's names and
// order), their defaults and constraints, and whether it is discrete; the
// enum and the table both come from NumPyroDistributions.def. The front end
// checks calls against it; the back end lowers by its enum.
//
//===----------------------------------------------------------------------===//
#ifndef AIMZ_DISTRIBUTIONS_H
#define AIMZ_DISTRIBUTIONS_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

namespace llvm {
class raw_ostream;
}

#include <optional>
#include <string>
#include <vector>

namespace aimz {

enum class DistKind {
#define AIMZ_NUMPYRO_DISTRIBUTION(KIND, VALUES, DENSITY, VALUE_EVENT_RANK,     \
                                  PARAMS, EXACTLY_ONE_OF)                      \
  KIND,
#include "aimz/NumPyroDistributions.def"
};

/// What values a parameter may take; checked on literal arguments.
enum class Constraint {
  Real,
  Positive,
  UnitInterval,
  OpenUnitInterval,
  NonNegativeInteger
};

struct DistParam {
  const char *Name;
  Constraint Domain;
  std::optional<double> Default; // NumPyro's default, when it has one
  /// Trailing axes that form one event of the parameter: 1 for a vector
  /// (Categorical's probs), 2 for a matrix (scale_tril).
  unsigned EventRank = 0;
  /// A compile-time size, not passed at run time (LKJCholesky's dimension).
  bool SizeOnly = false;
  /// Given by keyword only, as NumPyro's parameters after `*`
  /// (TruncatedNormal's low and high).
  bool KeywordOnly = false;
  /// The project's own parameter, which NumPyro's class lacks; always
  /// keyword-only, so that it never changes what a NumPyro call means.
  bool Extension = false;
  /// Of its event axes, how many lead with the value's row count rather
  /// than the event size K (MatrixNormal's loc [rows, K]: 1;
  /// scale_tril_row [rows, rows]: 2).
  unsigned RowAxes = 0;
};

/// AIMZ_KW_PARAM and AIMZ_EXT_PARAM of NumPyroDistributions.def.
inline DistParam keywordOnly(DistParam P) {
  P.KeywordOnly = true;
  return P;
}
inline DistParam extension(DistParam P) {
  P.KeywordOnly = P.Extension = true;
  return P;
}
/// AIMZ_ROW_PARAM: a parameter whose first `N` event axes are the rows.
inline DistParam rowAxes(DistParam P, unsigned N) {
  P.RowAxes = N;
  return P;
}

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
  /// Trailing axes of one value: 0 (a number, also for Categorical), 1 (a
  /// vector: Dirichlet, MultivariateNormal, Multinomial), 2 (LKJCholesky).
  unsigned ValueEventRank = 0;
  /// The row this alias calls (null for a row of its own).
  const DistSpec *AliasOf = nullptr;

  /// Has a parameter or value with an event axis: called through the
  /// strided convention of EventDistributions.def.
  bool hasEvent() const;
  /// A matrix value [rows, K] whose row count is its own (MatrixNormal):
  /// the runtime functions take the rows after K.
  bool hasRowAxis() const;
  /// The row a call of this spec lowers to (itself, or an alias's target).
  const DistSpec &canonical() const { return AliasOf ? *AliasOf : *this; }
  /// How many parameters may be given by position (those before the
  /// first keyword-only one).
  size_t positionalCount() const;
  bool isComposite() const {
    return Kind == DistKind::MixtureSameFamily ||
           Kind == DistKind::MixtureGeneral ||
           Kind == DistKind::TransformedDistribution ||
           Kind == DistKind::TruncatedDistribution ||
           Kind == DistKind::FoldedDistribution ||
           Kind == DistKind::MaskedDistribution ||
           Kind == DistKind::GaussianCopula ||
           Kind == DistKind::SineSkewed || isCensored();
  }
  bool isCensored() const {
    return Kind == DistKind::LeftCensoredDistribution ||
           Kind == DistKind::RightCensoredDistribution ||
           Kind == DistKind::IntervalCensoredDistribution ||
           Kind == DistKind::Censored;
  }
};

/// A sampler / log density pair the support library defines
/// (runtime/include/aimz/math/Distributions.def).
struct RuntimeDistribution {
  const char *Symbol;
  bool Discrete;
  unsigned Arity;
  bool Event = false;         // a row of EventDistributions.def
  unsigned ValueEventRank = 0;
  bool Rows = false; // AIMZ_ROWS_EVENT_DISTRIBUTION: takes the rows after K
};

/// Every row of Distributions.def, then of EventDistributions.def.
llvm::ArrayRef<RuntimeDistribution> runtimeDistributions();

/// How the back end calls the distribution of an aimz.sample or
/// aimz.observe op, from its `dist` attribute ("Normal",
/// "MixtureSameFamily(Normal)", "OrderedTransform(Normal)") and the names
/// of the parameters it passes.
struct RuntimeCall {
  std::string Symbol;          // aimz_rt_[v]sample_<Symbol>_<f32|f64>
  bool Event = false;          // the strided convention ([v]sample, [v]logp)
  unsigned ValueEventRank = 0; // trailing axes of the value
  /// The value is [rows, K], the rows its own count: passed after K.
  bool Rows = false;
  /// MaskedDistribution: the last parameter is the mask, the others the
  /// base's (scored where the mask is non-zero, 0 elsewhere).
  bool Masked = false;
  /// MixtureGeneral(<Dist>,<Dist>,...): each component's row and where its
  /// parameters are among the call's (after the mixing logits, first).
  struct Component {
    std::string Symbol;
    bool Discrete = false;
    size_t First = 0, Count = 0;
  };
  std::vector<Component> Components;
  /// "Hurdle(Delta,<Dist>,...)": a mixture whose first component's value
  /// (a Delta's v) is scored by that component alone.
  bool Hurdle = false;
};
std::optional<RuntimeCall> runtimeCall(llvm::StringRef Dist,
                                       llvm::ArrayRef<llvm::StringRef> Params);

/// The support library has aimz_rt_lcdf_/lccdf_<Symbol>
/// (CdfDistributions.def).
bool hasRuntimeCdf(llvm::StringRef Symbol);
/// The bases whose censored forms exist (CdfDistributions.def's
/// AIMZ_CENSORABLE rows, continuous, and AIMZ_COUNT_FAMILY rows), by
/// runtime symbol.
bool isCensorable(llvm::StringRef Symbol);

/// Whether the support library folds the row Symbol (folded_<Symbol>,
/// runtime FoldedDistributions.def), and those rows' distributions.
bool isFoldable(llvm::StringRef Symbol);
std::vector<std::string> foldableBases();

/// The runtime symbol has a row function, aimz_rt_sample_row_<symbol>, that
/// draws a row of elements in a vectorizable loop (Distributions.def's
/// AIMZ_VECTOR_SAMPLER rows).
bool hasRowSampler(llvm::StringRef Symbol);

/// The `dist` attribute of a composite over `Base`.
std::string compositeName(DistKind Kind, llvm::StringRef Base);

/// The bases TruncatedDistribution accepts (the symmetric location-scale
/// families of Truncated.h, those of TruncatedByCdf.h and the counts of
/// TruncatedCounts.h) and the runtime symbol of a truncation of Base
/// called with the given parameters (table order, without low and high).
llvm::ArrayRef<const char *> truncatableBases();
std::string truncatedSymbol(const DistSpec &Base,
                            llvm::ArrayRef<llvm::StringRef> GivenParams);
/// The bases with a CDF for a message: truncatableBases() (the continuous
/// ones only if asked), then "FoldedDistribution(...)".
std::string cdfBaseList(bool ContinuousOnly);

/// How a matrix parameter reaches the runtime: under another name and
/// transformed (a covariance_matrix or scale_matrix as its Cholesky factor
/// scale_tril, a rate_matrix as the factor of its inverse; a
/// precision_matrix keeps its name and passes its own factor).
enum class MatrixParamForm { AsGiven, Cholesky, CholeskyOfInverse };
struct PassedParam {
  llvm::StringRef Name;
  MatrixParamForm Form;
};
PassedParam passedParam(llvm::StringRef Given);

/// The runtime symbol for a distribution called with the given parameters
/// (table order): the name in lower case, plus "_<param>" for the member
/// of an exactly-one-of group that was given ("bernoulli_logits").
std::string runtimeSymbol(const DistSpec &Spec,
                          llvm::ArrayRef<llvm::StringRef> GivenParams);

/// A NumPyro class of one parameterization (BinomialProbs): its target
/// called with these parameters in this positional order.
struct DistAlias {
  const char *Name;
  const char *Target;
  std::vector<const char *> Params;
};

/// Every alias of NumPyroDistributions.def.
const std::vector<DistAlias> &allDistributionAliases();

/// The alias called `Name`, or null.
const DistAlias *lookupDistributionAlias(llvm::StringRef Name);

/// The distribution called `Name`, or null. An alias's name gives a spec
/// of its own: the target's kind and parameters, under the alias's name,
/// in the alias's positional order, with AliasOf set.
const DistSpec *lookupDistribution(llvm::StringRef Name);

/// A PyMC class that NumPyro lacks (SkewNormal, Wald, Censored, ...): its
/// row has PyMC's parameter names, positional order and defaults.
bool isPyMCOnly(const DistSpec &D);

/// All distributions, in declaration order.
const std::vector<DistSpec> &allDistributions();

/// aimzc --list-distributions: the table as Markdown (docs/distributions.md)
/// or, with Json, as a JSON array of every row and alias.
void printDistributionCatalogue(llvm::raw_ostream &OS, bool Json);

/// NumPyro (and PyMC) classes that Sema rewrites into a distribution of the
/// table (DistributionSugar.cpp): AsymmetricLaplaceQuantile, the
/// Left/Right/TwoSidedTruncatedDistribution, PyMC's HalfStudentT.
bool isDistributionSugar(llvm::StringRef Name);
/// Their rows for the catalogue: "| `call` | `what it is` |".
void printDistributionSugar(llvm::raw_ostream &OS);
/// Every name a model may call a distribution by: the table's rows and
/// aliases, the rewritten classes, PyMC's class names and the composites
/// Sema builds (ZeroInflatedDistribution, HurdleDistribution).
std::vector<std::string> distributionSpellings();
/// The spelling closest to an unknown `Name` ("Normal" for "Gaussian" or
/// "normal"), or empty when none is near.
std::string closestDistribution(llvm::StringRef Name);
/// PyMC's keyword names that mean a table parameter: "| PyMC class |
/// table name | `mu=` is `loc=`, ... |".
void printPyMCKeywords(llvm::raw_ostream &OS);

const char *constraintDescription(Constraint C);
bool satisfies(Constraint C, double V);

} // namespace aimz

#endif // AIMZ_DISTRIBUTIONS_H
