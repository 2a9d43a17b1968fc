//===- MpiRunGroup.h - MPI ranks sharing one run ----------------*- C++ -*-===//
//
// Under mpirun, every rank of MPI_COMM_WORLD runs the same command: batches
// come from one counter on rank 0 (MPI one-sided fetch-and-add, so a rank
// takes the next batch when its devices are free), and the ranks agree on
// failures through a reduction. Built only when CMake finds MPI.
//
//===----------------------------------------------------------------------===//
#ifndef AIMZ_RUN_TOOLS_MPIRUNGROUP_H
#define AIMZ_RUN_TOOLS_MPIRUNGROUP_H

#include "aimz/run/RunGroup.h"

#include <cstdlib>
#include <memory>

namespace aimz::run {

/// True when this process was started by an MPI launcher (mpirun, srun);
/// MPI is initialized only then. (No MPI needed: it reads the environment
/// the launchers set.)
inline bool launchedByMpi() {
  for (const char *V : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK",
                        "PMI_SIZE", "MPI_LOCALNRANKS"})
    if (std::getenv(V))
      return true;
  return false;
}

/// Initializes MPI (once) and joins MPI_COMM_WORLD; finalizes MPI when
/// destroyed.
std::unique_ptr<RunGroup> joinMpiRun();

} // namespace aimz::run

#endif // AIMZ_RUN_TOOLS_MPIRUNGROUP_H
