//===- CommitQueue.cpp - Synced commits off the compressor threads --------===//

#include "CommitQueue.h"

#include <algorithm>

using namespace llvm;

namespace aimz::io {

CommitQueue::CommitQueue(size_t MaxPending)
    : Jobs({std::max<size_t>(1, MaxPending), /*CountsRunning=*/true}) {}

Expected<std::unique_ptr<CommitQueue>> CommitQueue::create(unsigned Threads,
                                                           size_t MaxPending) {
  std::unique_ptr<CommitQueue> Q(new CommitQueue(MaxPending));
  auto Commit = [](Job &J) -> Error {
    if (Error E = J.File.commit(/*Sync=*/true))
      return E;
    if (J.Done)
      J.Done();
    return Error::success();
  };
  if (Error E = Q->Jobs.start(std::max(1u, Threads), std::move(Commit),
                              "output sync"))
    return std::move(E);
  return Q;
}

CommitQueue::~CommitQueue() { Jobs.cancel(); }

Error CommitQueue::submit(OutputFile F, Committed Done) {
  // Start the writeback now: by the time a queue thread syncs the file,
  // most of its bytes are on the disk.
  F.startWriteback();
  return Jobs.submit(Job{std::move(F), std::move(Done)});
}

Error CommitQueue::drain() { return Jobs.drain(); }

void CommitQueue::cancel() { Jobs.cancel(); }

} // namespace aimz::io
