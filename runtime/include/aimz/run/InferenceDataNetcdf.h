//===- InferenceDataNetcdf.h - Posteriors from ArviZ netCDF -----*- C++ -*-===//
//
// An ArviZ InferenceData written by `idata.to_netcdf("fit.nc")` (PyMC,
// NumPyro through az.from_numpyro, CmdStanPy through az.from_cmdstanpy) is
// a netCDF-4 file with one group per kind; the `posterior` group holds one
// variable per latent with dims (chain, draw, <name>_dim_0, ...) and a
// coordinate variable per dim. Read with libnetcdf; (chain, draw) become one
// draw axis, chain-major, and the chain count is kept.
//
//===----------------------------------------------------------------------===//
#ifndef AIMZ_RUN_INFERENCEDATANETCDF_H
#define AIMZ_RUN_INFERENCEDATANETCDF_H

#include "aimz/io/Npy.h"
#include "aimz/io/SpillBuffer.h"
#include "aimz/run/DimLabels.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <functional>
#include <map>
#include <string>
#include <vector>

namespace aimz::run {

/// The posterior group's variables as arrays of shape (chains * draws, ...).
struct InferenceDataDraws {
  std::vector<std::string> Names; // the group's order, coordinates dropped
  int64_t Chains = 0;
  int64_t DrawsPerChain = 0;
  /// The coordinates (chain, draw, a dim such as beta_dim_0 or one named
  /// by the user; numbers or text), by dim: read whole.
  Coordinates Coords;
  /// Each of Names' own dims after (chain, draw), as the file names them.
  std::map<std::string, std::vector<std::string>> Dims;
  /// Reads one of Names (the file stays open until the last copy of Read
  /// goes): a run reads only the variables its model needs, each checked
  /// against the file's size before anything is allocated.
  std::function<llvm::Expected<io::NpyArray>(const std::string &)> Read;
};

/// Reads the `posterior` group of an ArviZ netCDF file.
llvm::Expected<InferenceDataDraws>
readInferenceDataNetcdf(const std::string &Path);

/// Reads variable Var of a netCDF file, as an input (`--data
/// X=inputs.nc:X`): "name" in the root group, else in an InferenceData's
/// constant_data or observed_data group; "group/name" in that group. Read
/// in slabs of its first axis into memory, or into a spill file when it is
/// larger than Mem.ArrayBytes (SpillBuffer.h); a size the file cannot hold
/// is refused before anything is allocated.
llvm::Expected<io::NpyArray> readNetcdfInput(const std::string &Path,
                                             const std::string &Var,
                                             const io::InputMemory &Mem);

/// Whether a --posterior argument names a netCDF file (.nc or .netcdf).
bool isNetcdfArgument(llvm::StringRef Path);

} // namespace aimz::run

#endif // AIMZ_RUN_INFERENCEDATANETCDF_H
