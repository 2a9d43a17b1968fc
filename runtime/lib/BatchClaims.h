//===- BatchClaims.h - Which batch a process computes next -------*- C++ -*-===//
//
// The executor's loop claims a batch, computes it and commits it; which
// batches it gets is a claim strategy: the group's counter (in order for
// one process, shared by MPI ranks: RunGroup::claimBatch), and a resumed
// run's, which passes over the batches already in the store.
//
//===----------------------------------------------------------------------===//
#ifndef AIMZ_RUN_BATCHCLAIMS_H
#define AIMZ_RUN_BATCHCLAIMS_H

#include "aimz/run/RunGroup.h"

#include <cstdint>
#include <functional>

namespace aimz::run {

class BatchClaims {
public:
  virtual ~BatchClaims() = default;
  /// The next batch this process computes; the run's batch count or more
  /// when none is left.
  virtual int64_t next() = 0;
};

/// Batches from the group's counter.
class GroupClaims final : public BatchClaims {
public:
  explicit GroupClaims(RunGroup &Group) : Group(Group) {}
  int64_t next() override { return Group.claimBatch(); }

private:
  RunGroup &Group;
};

/// --resume: Inner's batches but those the interrupted run committed,
/// each of which is reported to Skipped (progress) instead.
class ResumeClaims final : public BatchClaims {
public:
  ResumeClaims(BatchClaims &Inner, int64_t Batches,
               std::function<bool(int64_t)> Committed,
               std::function<void(int64_t)> Skipped)
      : Inner(Inner), Batches(Batches), Committed(std::move(Committed)),
        Skipped(std::move(Skipped)) {}
  int64_t next() override {
    int64_t B = Inner.next();
    for (; B < Batches && Committed(B); B = Inner.next())
      Skipped(B);
    return B;
  }

private:
  BatchClaims &Inner;
  int64_t Batches;
  std::function<bool(int64_t)> Committed;
  std::function<void(int64_t)> Skipped;
};

} // namespace aimz::run

#endif // AIMZ_RUN_BATCHCLAIMS_H
