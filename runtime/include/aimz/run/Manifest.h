//===- Manifest.h - A compiled model's self-description ---------*- C++ -*-===//
//
// The runtime's view of the manifest JSON that aimzc embeds in model.so:
// inputs, output, sites with classes and symbolic shapes, and the plan.
//
//===----------------------------------------------------------------------===//
#ifndef AIMZ_RUN_MANIFEST_H
#define AIMZ_RUN_MANIFEST_H

#include "aimz/io/DType.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <variant>
#include <vector>

struct aimz_call;

namespace aimz::run {

/// A dimension: a symbol bound from the data, or a known extent.
using ManifestDim = std::variant<std::string, int64_t>;

struct ManifestArray {
  std::string Name;
  io::DType Type = io::DType::Float32;
  std::string TypeName; // as the manifest spells it: f32, i32, ...
  std::vector<ManifestDim> Shape;
};

enum class SiteKind { Latent, Deterministic, Observed, Factor };

struct ManifestSite : ManifestArray {
  SiteKind Kind = SiteKind::Latent;
  bool ObsAligned = false; // shape involves the observation axis
  /// The compiler's class: global, obs_aligned, observed or joint.
  std::string Class;
  std::string Dist;        // empty for deterministic sites
  /// A flat prior (ImproperUniform): no draws, the posterior must give it.
  bool improper() const { return Dist == "ImproperUniform"; }
  std::string Support;     // ImproperUniform's: "real" or "positive"
  /// Trailing axes of Shape that form one value (a vector or matrix):
  /// the log-likelihood has one number per value, without them.
  unsigned EventRank = 0;
  /// An output the model scores only with factors (Stan's `target +=`):
  /// the log-likelihood's data, with nothing to draw it from.
  bool ScoreOnly = false;
  /// The plate each axis of Shape lies in, empty where none (or for a
  /// model compiled before manifests named them).
  std::vector<std::string> Plates;
  /// The plate of axis `I`, or "".
  llvm::StringRef plate(size_t I) const {
    return I < Plates.size() ? llvm::StringRef(Plates[I]) : "";
  }
};

struct Manifest {
  std::string Model;
  std::string ObsDim;
  std::string Plan; // "obs" or "draw"
  std::vector<std::string> PlanReason;
  /// A joint site couples every observation: each call covers them all
  /// (plan "draw", obs_block = every observation).
  bool JointObservations = false;
  io::DType Precision = io::DType::Float32;
  std::vector<std::string> Dims; // order of aimz_call::dims
  /// Dims no input binds: set by the posterior's arrays (or --dim).
  std::vector<std::string> PosteriorDims;
  /// Inputs used directly as indices, with the dimension each indexes.
  struct IndexUse {
    std::string Input;
    ManifestDim Extent;
  };
  std::vector<IndexUse> IndexInputs;
  /// Dimension arithmetic that must be >= 0 once the dims are bound.
  struct DimCheck {
    std::string Expr, What;
  };
  std::vector<DimCheck> DimChecks;
  /// Statistics of the data (transformed data's reductions along the
  /// observation axis), passed after the inputs.
  struct DerivedInput : ManifestArray {
    std::string Op;    // sum mean min max sd logsumexp
    std::string Input; // the input it reduces; empty: Argument
    bool AllAxes = false;
    /// A statistic of an expression: the rows the pre-pass writes as its
    /// result ArgumentSlot (observation axis first), in round Round.
    int ArgumentSlot = -1;
    ManifestArray Argument;
    int Round = 0;
  };
  std::vector<DerivedInput> DerivedInputs;
  /// The model library's aimz_prepass (set by ModelLibrary::open; null
  /// when no derived input has an argument).
  int32_t (*Prepass)(aimz_call *) = nullptr;
  std::vector<ManifestArray> Inputs;
  /// The observed outputs, in signature order (the ABI's observed[]).
  std::vector<ManifestArray> Outputs;
  std::vector<ManifestSite> Sites;

  static llvm::Expected<Manifest> parse(llvm::StringRef JSON);

  int siteIndex(llvm::StringRef Name) const;
  /// The index among Sites of output `I`.
  int outputSiteIndex(size_t I) const { return siteIndex(Outputs[I].Name); }
  /// Whether site `S` is an output (scored by the log-likelihood).
  bool isOutputSite(int S) const {
    return S >= 0 && Sites[S].Kind == SiteKind::Observed;
  }
  /// The outputs' names, comma-separated (for messages).
  std::string outputNames() const;
  /// Position of the observation axis in a shape, or -1.
  int obsAxis(const std::vector<ManifestDim> &Shape) const;
};

/// The value of a dimension's text (a name or arithmetic on names, as in
/// `K - 1`) under the bindings; nullopt when a name is unbound.
std::optional<int64_t> dimValue(const std::string &Text,
                                const std::map<std::string, int64_t> &Bindings);

/// Whether a dimension's text is arithmetic (`K - 1`) rather than a name.
bool isDerivedDim(const std::string &Text);

/// Extents of a symbolic shape under the given bindings; Unbound names a
/// missing symbol.
llvm::Expected<std::vector<uint64_t>>
resolveShape(const std::vector<ManifestDim> &Shape,
             const std::map<std::string, int64_t> &Bindings);

/// `[n, 128]`
std::string shapeString(const std::vector<ManifestDim> &Shape);

} // namespace aimz::run

#endif // AIMZ_RUN_MANIFEST_H
