//===- Data.h - Inputs and posteriors, checked against a manifest -*- C++ -*-===//
#ifndef AIMZ_RUN_DATA_H
#define AIMZ_RUN_DATA_H

#include "aimz/run/DimLabels.h"
#include "aimz/run/HostArray.h"
#include "aimz/run/Manifest.h"

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace aimz::run {

/// Messages for the user that do not stop the run.
using Warnings = std::vector<std::string>;

struct DataSet {
  /// Manifest order, then the derived inputs (statistics of the data).
  std::vector<HostArray> Inputs;
  /// The outputs' values, when given (one slot per manifest output).
  std::vector<std::optional<HostArray>> Observed;
  bool anyObserved() const {
    for (const auto &O : Observed)
      if (O)
        return true;
    return false;
  }
  std::map<std::string, int64_t> Bindings;
  int64_t NumObs = 0;
  /// No input has the observation axis but a latent does (a per-item
  /// latent, a covariate measured with error): the posterior's array of it
  /// sets NumObs (ObsBoundBy names which), or --num-observations does.
  bool ObsFromPosterior = false;
  std::string ObsBoundBy;
  /// Statistics of the data (transformed data) that are NaN or infinite in
  /// the model's precision (an f32 sum beyond 3.4e38), one line each: the
  /// run reports them with its non-finite results (an error under
  /// --strict).
  std::vector<std::string> NonFiniteStatistics;
};

/// What a command does with the observed output when the data has it.
enum class ObservedUse {
  Ignore,  ///< sampled, not read: ignored with a warning (predict)
  IfGiven, ///< read when given (InferenceData's observed_data)
  Require  ///< log-likelihood: an error when one is missing
};

/// Loads `--data` arguments: `name=file.npy` or `file.npz` (every member).
/// Checks names, ranks, dtypes and that dims bind consistently; a name
/// given twice (by two arguments or archives) is refused.
/// `NumObservations` (> 0) sets the observation count for a model whose
/// inputs do not have the observation axis (or that has no inputs); it must
/// agree with the data when the data has the axis.
llvm::Expected<DataSet> loadData(const Manifest &M,
                                 const std::vector<std::string> &Args,
                                 ObservedUse Observed, Warnings &W,
                                 int64_t NumObservations = 0);

/// The same checks for arrays already in memory (the Python module): name ->
/// array, used in place when the dtype matches.
llvm::Expected<DataSet> dataFromArrays(const Manifest &M,
                                       std::map<std::string, io::NpyArray> Given,
                                       ObservedUse Observed, Warnings &W,
                                       int64_t NumObservations = 0);

/// Appends to D.Inputs each of the manifest's derived inputs: a statistic
/// (sum mean min max sd logsumexp) of an input along its observation axis
/// (or over every element), or of the rows of an expression that the
/// model's pre-pass (M.Prepass) computes, computed in one fixed order whatever the
/// partition: an integer sum, min or max exactly in 64-bit integers (an
/// overflow of its dtype is an error), the others in double, then rounded
/// to the dtype (a non-finite result is noted in D.NonFiniteStatistics).
/// An empty reduction (no observations) or an sd of one observation is an
/// error.
llvm::Error addDerivedInputs(const Manifest &M, DataSet &D);

struct Posterior {
  int64_t NumDraws = 0;
  /// Chains the draws came from (chain-major), when the source says: an
  /// ArviZ netCDF or CmdStan CSV files; 0 when unknown (an .npz).
  int64_t Chains = 0;
  std::vector<std::optional<HostArray>> Sites; // by manifest site index
  bool has(int Site) const { return Sites[Site].has_value(); }
  /// The coordinates the source gave (an ArviZ netCDF or an xarray
  /// Dataset: chain, draw, a latent's named dims; numbers or text), by dim.
  /// The result keeps them, so that it joins the fit it came from label
  /// for label.
  Coordinates Coords;
  /// By manifest site: the source's names for the site's own axes (empty
  /// when it names none).
  std::vector<std::vector<std::string>> SiteDims;
};

/// Loads a posterior .npz (one array per latent, leading axis = draws).
/// `RequireAll` (log-likelihood) refuses a partial posterior. NaN or
/// infinite values warn once per site with their count, or with `Strict`
/// are refused. f64 draws for an f32 model are rounded to nearest; one
/// beyond float32's range is refused, naming the site and its draw.
/// Dimensions only the posterior binds (a group count) are bound into
/// Data.Bindings from the first array that has them.
llvm::Expected<Posterior> loadPosterior(const Manifest &M,
                                        const std::string &Path,
                                        DataSet &Data, bool RequireAll,
                                        Warnings &W, bool Strict = false);

/// A posterior's arrays by name, opened on demand.
using PosteriorArrayFn =
    std::function<llvm::Expected<io::NpyArray>(const std::string &)>;

/// loadPosterior's checks over named arrays from anywhere; `Origin` names
/// the posterior in messages.
llvm::Expected<Posterior>
posteriorFromArrays(const Manifest &M, const std::vector<std::string> &Names,
                    const PosteriorArrayFn &ArrayOf, const std::string &Origin,
                    DataSet &Data, bool RequireAll, Warnings &W,
                    bool Strict = false);

/// Keeps a posterior's coordinates (dim -> labels) and the dim names it
/// gives each latent's own axes (site -> names; kept for the latents P
/// holds, when the count matches their rank), so that the result carries
/// them (ArviZ netCDF, the Python module's xarray posteriors).
void keepCoordinates(
    const Manifest &M, Coordinates Coords,
    const std::map<std::string, std::vector<std::string>> &SiteDims,
    Posterior &P);

/// Refuses a name that is not one of the model's inputs (nor, unless
/// OutputToo is false, its output): `effect`, where an ignored baseline
/// input would silently give an effect of 0. Option names the argument.
llvm::Error checkInputNames(const Manifest &M,
                            const std::vector<std::string> &Names,
                            const std::string &Option, bool OutputToo);

/// effect: the baseline's inputs must bind every dimension as the
/// scenario's do (the same observations, the same shapes); the error names
/// the baseline's argument (Option), the dimension and both values.
llvm::Error checkSameDims(const DataSet &Scenario, const DataSet &Baseline,
                          const std::string &Option);

/// `--dim NAME=VALUE` arguments: values for dimensions the posterior binds,
/// for runs that read none (prior predictive).
llvm::Error bindDimArgs(const Manifest &M, const std::vector<std::string> &Args,
                        DataSet &Data);

/// Checks every input used as an index (`a[g]`) against the dimension it
/// indexes, before anything runs: the first value outside [0, extent) is
/// named with its row ("input 'g' holds 85 at row 1234 ..."). Negative
/// values are errors, never wrapped around.
llvm::Error checkIndexInputs(const Manifest &M, const DataSet &Data);

/// Fails, naming what sets each, when a dimension of the model is unbound.
llvm::Error checkDimsBound(const Manifest &M, const DataSet &Data);

} // namespace aimz::run

#endif // AIMZ_RUN_DATA_H
