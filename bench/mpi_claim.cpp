//===- mpi_claim.cpp - What sharing a run costs per batch (MPI) -----------===//
//
// mpirun -n R aimz-bench-mpi-claim [BATCHES]: every rank claims batches
// from the run's counter (aimz-run's MpiRunGroup, unchanged) until BATCHES
// are handed out, doing no work: the time per claim is the coordination a
// batch costs. Then one agreement (the end-of-run reduction) is timed.
// Rank 0 prints the figures.
//
//===----------------------------------------------------------------------===//
#include "MpiRunGroup.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>

using namespace aimz::run;

int main(int argc, char **argv) {
  const int64_t Batches = argc > 1 ? std::atoll(argv[1]) : 20000;
  auto G = joinMpiRun();
  (void)G->agree(llvm::Error::success()); // start together
  auto T0 = std::chrono::steady_clock::now();
  int64_t Mine = 0;
  while (G->claimBatch() < Batches)
    ++Mine;
  (void)G->agree(llvm::Error::success());
  double Claims =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - T0)
          .count();
  auto T1 = std::chrono::steady_clock::now();
  const int Rounds = 200;
  for (int I = 0; I < Rounds; ++I)
    (void)G->agree(llvm::Error::success());
  double Agree =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - T1)
          .count();
  std::printf("rank %d: %lld batches\n", G->rank(),
              static_cast<long long>(Mine));
  std::fflush(stdout);
  if (G->rank() == 0)
    std::printf("ranks %d: %lld batches handed out in %.3f s: %.2f us per "
                "batch (all ranks together); one agreement %.1f us\n",
                G->size(), static_cast<long long>(Batches), Claims,
                1e6 * Claims / Batches, 1e6 * Agree / Rounds);
  return 0;
}
