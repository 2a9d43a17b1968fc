//===- CommitQueue.h - Synced commits off the compressors ---*- C++ -*-===//
//
// A synced commit (fdatasync, close, rename) waits for the disk. Done on the
// thread that compressed the chunk, that wait idles a core which could be
// compressing the next one. The queue takes written files, starts their
// writeback at once (so the disk works while the CPU goes on) and commits
// them on threads of its own that do nothing but wait.
//
//===----------------------------------------------------------------------===//

#ifndef AIMZ_IO_LIB_COMMITQUEUE_H
#define AIMZ_IO_LIB_COMMITQUEUE_H

#include "OutputFile.h"
#include "aimz/io/WorkQueue.h"

#include "llvm/Support/Error.h"

#include <functional>
#include <memory>

namespace aimz::io {

class CommitQueue {
public:
  /// Runs after a file's synced commit succeeded (on a queue thread).
  using Committed = std::function<void()>;

  /// Threads commit files concurrently; at most MaxPending files wait or
  /// are being committed (bounding the dirty pages and open descriptors).
  static llvm::Expected<std::unique_ptr<CommitQueue>> create(unsigned Threads,
                                                             size_t MaxPending);

  CommitQueue(const CommitQueue &) = delete;
  CommitQueue &operator=(const CommitQueue &) = delete;
  /// Drops what is still queued (their temporaries are removed) and waits
  /// for the commits under way.
  ~CommitQueue();

  /// Queues F for a synced commit, blocking while the queue is full. Fails
  /// with the first commit error seen so far; F is then dropped.
  llvm::Error submit(OutputFile F, Committed Done);

  /// Waits until every queued file is committed; the first error, if any.
  llvm::Error drain();

  /// Drops the files not yet being committed and waits for the others.
  void cancel();

private:
  struct Job {
    OutputFile File;
    Committed Done;
  };
  explicit CommitQueue(size_t MaxPending);

  WorkQueue<Job> Jobs;
};

} // namespace aimz::io

#endif // AIMZ_IO_LIB_COMMITQUEUE_H
