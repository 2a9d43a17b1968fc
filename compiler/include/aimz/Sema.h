//===- Sema.h - Types, shapes, site classes and the plan --------*- C++ -*-===//
//
// Semantic analysis checks a parsed model, infers every value's dtype and
// symbolic shape, classifies each recorded site and picks the sharding plan:
// `obs` when every latent is global, `draw` when a latent involves the
// observation axis.
//
//===----------------------------------------------------------------------===//
#ifndef AIMZ_SEMA_H
#define AIMZ_SEMA_H

#include "aimz/AST.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace aimz {

class Diagnostics;
struct DistSpec;

/// Factor: a term added to the log density (numpyro.factor, Stan's
/// `target +=`), returned by log-likelihood beside the observed site.
enum class SiteKind { Latent, Deterministic, Observed, Factor };
/// Joint: the observation axis is one of the site's event axes (a
/// MultivariateNormal over every observation, as in a Gaussian process):
/// one value couples all observations, so a draw needs them all at once.
enum class SiteClass { Global, ObsAligned, Observed, Joint };
enum class Plan { Obs, Draw };

const char *siteKindName(SiteKind K);
const char *siteClassName(SiteClass C);
const char *planName(Plan P);

/// A typed array in the model's signature, or a recorded site.
struct TypedArray {
  std::string Name;
  DType Type;
  Shape Dims;
};

struct Site : TypedArray {
  SiteKind Kind;
  SiteClass Class;
  const DistSpec *Dist = nullptr; // null for deterministic sites
  /// The distribution the site table names where it is not Dist's: a
  /// hurdle or zero-inflated form written over a base with no table row
  /// of its own (HurdleDistribution(Weibull(...)) is a MixtureGeneral).
  std::string DistLabel;
  const Stmt *Decl = nullptr;
  /// ImproperUniform's support: "real" or "positive" (else empty).
  std::string Support;
  /// An output with no `~` statement, scored by the factors that read it
  /// (Stan's `target +=`): the log-likelihood's data, never drawn.
  bool ScoreOnly = false;
  /// Trailing axes of Dims that form one value (a vector: 1); the
  /// log-likelihood of an observed site has one number per value.
  unsigned EventRank = 0;
  /// The plate of each axis of Dims, empty where none: the enclosing
  /// plates lead the shape, outer to inner. The runtime names result
  /// dimensions after them, as ArviZ's from_numpyro does.
  std::vector<std::string> Plates;
};

/// Everything later stages need to know about a checked model.
struct ModelInfo {
  std::string Name;
  std::string ObsDim;
  DType Precision = DType::F32; // of latents and floating arithmetic
  Plan ChosenPlan = Plan::Obs;
  /// Obs-aligned latents and joint sites forcing `draw`.
  std::vector<std::string> PlanReason;
  /// A site is joint: every call sees every observation as one block.
  bool JointObservations = false;
  std::vector<TypedArray> Inputs;
  /// The observed outputs in signature order; each leads with ObsDim.
  std::vector<TypedArray> Outputs;
  std::vector<Site> Sites; // program order
  std::map<std::string, int64_t> Constants;
  /// Dimension symbols bound from the data, in first-appearance order over
  /// the inputs then the output: the order of the runtime's dims array.
  std::vector<std::string> Symbols;
  /// Symbols no input or output binds: named only in latents' shapes (a
  /// group count), they are bound at run time by the posterior's arrays (or
  /// given with aimz-run --dim for the prior predictive). Also in Symbols.
  std::vector<std::string> PosteriorDims;
  /// Inputs used directly as indices (`a[g]`) and the dimension each
  /// indexes: the runtime checks their values before running.
  struct IndexUse {
    std::string Input;
    Dim Extent;
    bool operator==(const IndexUse &O) const {
      return Input == O.Input && Extent == O.Extent;
    }
  };
  std::vector<IndexUse> IndexInputs;
  /// Dimensions written as arithmetic (`K - 1`), by canonical text.
  std::vector<std::string> DimExprs;
  /// What the runtime checks is >= 0 once the dimensions are bound: every
  /// derived dimension, and what slices need (`K - 5` for `v[2:5]`).
  struct DimCheck {
    std::string Expr;
    std::string What;
  };
  std::vector<DimCheck> DimChecks;
  /// Reductions along the observation axis in transformed data: the
  /// runtime computes each from the whole input before the run and passes
  /// it after the inputs (aimz_call::inputs[Inputs.size() + i]).
  struct DerivedInput {
    std::string Name;  // "mean(X, axis=0)": what the user wrote
    std::string Op;    // sum mean min max sd logsumexp
    std::string Input; // the input reduced; empty: Argument is
    bool AllAxes = false; // every axis, else the observation axis only
    DType Type;
    Shape Dims;
    /// Any other expression of the data, observation axis first: the
    /// compiled pre-pass (aimz_prepass) writes its rows as its result
    /// `ArgumentSlot`, which the runtime reduces. Round: the pre-pass runs
    /// once per round; an argument that reads derived inputs of round r
    /// (`sd(x - mean(x))`) is computed in round r + 1.
    ExprPtr Argument;
    DType ArgumentType = DType::F32;
    Shape ArgumentDims;
    int ArgumentSlot = -1;
    int Round = 0;
  };
  std::vector<DerivedInput> DerivedInputs;

  const Site *findSite(llvm::StringRef Name) const;
  /// The position of output `Name` in Outputs (the runtime's observed[]),
  /// or -1.
  int outputIndex(llvm::StringRef Name) const;
};

/// The element type arithmetic on `A` and `B` produces: floats win (in the
/// model's precision); an untyped literal adapts to its typed peer.
DType promoteArithmetic(const ExprType &A, const ExprType &B, DType Precision);

/// Expands every call of a user-defined function (`def`) in `M`'s body into
/// statements before the call (Functions.cpp); false after an error.
bool inlineFunctions(Model &M, Diagnostics &Diags);

/// Checks `M`, annotating its expressions; reports problems to `Diags`.
/// Returns std::nullopt when there was an error. `Precision` forces the
/// model's floating precision (default: f64 when an input is f64, else
/// f32); f32 with an f64 input is an error.
std::optional<ModelInfo> analyzeModel(Model &M, Diagnostics &Diags,
                                      std::optional<DType> Precision = {});

} // namespace aimz

#endif // AIMZ_SEMA_H
