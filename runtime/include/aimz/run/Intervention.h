//===- Intervention.h - do(site = value) for predictive runs ----*- C++ -*-===//
//
// `--intervene SITE=VALUE` or `SITE=FILE.npy`: the site takes the given
// value in every draw and everything computed from it sees it, as NumPyro's
// `do` handler does. A latent site's value replaces its posterior draws (or
// its fresh draws); a deterministic site's value replaces what the model
// computes for it. The value is one number (broadcast to the site's shape)
// or an array of exactly the site's shape (an observation-aligned site: one
// value per observation). Every draw reads the same value: the posterior
// array is a view whose draw axis has stride 0.
//
//===----------------------------------------------------------------------===//
#ifndef AIMZ_RUN_INTERVENTION_H
#define AIMZ_RUN_INTERVENTION_H

#include "aimz/io/Npy.h"
#include "aimz/run/Data.h"

#include <optional>

#include <string>
#include <vector>

namespace aimz::run {

struct Intervention {
  std::string Site;
  std::string Value; ///< as given: a number or a .npy path (or a label)
  /// An array handed over in memory (the Python module): used instead of
  /// reading Value.
  std::optional<io::NpyArray> Array;
};

/// Parses `SITE=VALUE` arguments; refuses a malformed or repeated one.
llvm::Expected<std::vector<Intervention>>
parseInterventions(const std::vector<std::string> &Args);

/// Sets each intervened site's values in `Post` (which must already hold
/// the run's draw count); refuses unknown sites, the output, factors, and
/// values of the wrong shape or type, each with one message. `Option` names
/// the flag in messages ("--intervene").
llvm::Error applyInterventions(const Manifest &M,
                               const std::vector<Intervention> &Given,
                               const DataSet &Data, Posterior &Post,
                               const std::string &Option = "--intervene");

} // namespace aimz::run

#endif // AIMZ_RUN_INTERVENTION_H
