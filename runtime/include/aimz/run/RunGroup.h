//===- RunGroup.h - The processes that share one run ------------*- C++ -*-===//
//
// A run may be shared by several processes (MPI ranks, see aimz-run's
// MpiRunGroup): they take batches from one counter, so a slow process takes
// fewer, and agree at a few points on whether every process is still fine.
// The default group is this process alone. The runtime itself knows no MPI.
//
//===----------------------------------------------------------------------===//
#ifndef AIMZ_RUN_RUNGROUP_H
#define AIMZ_RUN_RUNGROUP_H

#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>
#include <vector>

namespace aimz::run {

class RunGroup {
public:
  virtual ~RunGroup() = default;
  /// This process's index; process 0 creates and publishes the store.
  virtual int rank() const { return 0; }
  virtual int size() const { return 1; }
  /// The lowest batch index no process of the group has taken yet; every
  /// index is handed out once, in increasing order.
  virtual int64_t claimBatch() { return Next++; }
  /// Collective: every process calls it, in the same sequence, with its own
  /// outcome. Success when all succeeded; otherwise every process gets the
  /// error of the lowest failing rank (naming that rank when it is not 0).
  virtual llvm::Error agree(llvm::Error Local) { return Local; }
  /// Collective: each element summed (minimized) over every process.
  virtual void sumOverGroup(std::vector<int64_t> &) {}
  virtual void minOverGroup(std::vector<int64_t> &) {}
  /// Collective: rank 0's Text, on every process (Mine on rank 0 itself).
  virtual std::string fromRankZero(const std::string &Mine) { return Mine; }

private:
  int64_t Next = 0;
};

} // namespace aimz::run

#endif // AIMZ_RUN_RUNGROUP_H
