//===- StanCsv.h - Posterior draws from CmdStan CSV files -------*- C++ -*-===//
//
// CmdStan (and rstan's sample_file) write one CSV file per chain: comment
// lines starting with '#' (the configuration, the adaptation, the timing),
// one header line of column names, then one line per draw. A parameter
// `beta` of shape (2, 3) is six columns `beta.1.1`, `beta.2.1`, ... (Stan's
// 1-based indices, column-major order); sampler diagnostics end in `__`
// (`lp__`, `accept_stat__`, ...). Warmup draws are in the file only when the
// run saved them (`save_warmup = 1`); they come before the comment
// "Adaptation terminated" and are skipped.
//
//===----------------------------------------------------------------------===//
#ifndef AIMZ_RUN_STANCSV_H
#define AIMZ_RUN_STANCSV_H

#include "aimz/io/Npy.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <map>
#include <string>
#include <vector>

namespace aimz::run {

/// Every parameter of one or more chains as a float64 array of shape
/// (draws, ...), chains concatenated in file order (chain-major).
struct StanCsvDraws {
  std::vector<std::string> Names; // header order, diagnostics dropped
  std::map<std::string, io::NpyArray> Arrays;
  int64_t Chains = 0;
  int64_t Draws = 0; // over all chains
};

/// Reads the chains in `Files` (in that order). Every file must have the
/// same columns; a malformed line is an error naming the file and line.
llvm::Expected<StanCsvDraws> readStanCsv(const std::vector<std::string> &Files);

/// Whether a --posterior argument names CmdStan CSV files: it ends in
/// ".csv" or is a glob pattern (`fit-*.csv`).
bool isStanCsvArgument(llvm::StringRef Arg);

/// The files a --posterior argument names: the pattern's matches in sorted
/// order (at least one), or the one file.
llvm::Expected<std::vector<std::string>> expandPosteriorFiles(
    llvm::StringRef Arg);

} // namespace aimz::run

#endif // AIMZ_RUN_STANCSV_H
