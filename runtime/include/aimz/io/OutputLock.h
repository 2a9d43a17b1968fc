//===- OutputLock.h - One writer per output path ----------------*- C++ -*-===//
//
// An exclusive flock on "<path>.lock", beside the output, held for the
// whole run. A second run on the same output is refused with the holder's
// pid instead of deleting the first run's partial output under it. The
// kernel drops the lock when its holder dies (even by kill -9), so a
// partial output whose owner is gone is recognised as stale.
//
//===----------------------------------------------------------------------===//

#ifndef AIMZ_IO_OUTPUTLOCK_H
#define AIMZ_IO_OUTPUTLOCK_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <memory>
#include <string>

namespace aimz::io {

class OutputLock {
public:
  /// Takes the lock for Output or fails with a message naming the pid of
  /// the run that holds it. Never waits.
  static llvm::Expected<std::unique_ptr<OutputLock>>
  acquire(llvm::StringRef Output);
  /// Removes the lock file and releases the lock.
  ~OutputLock();

  OutputLock(const OutputLock &) = delete;
  OutputLock &operator=(const OutputLock &) = delete;

  const std::string &path() const { return Path; }

private:
  OutputLock(std::string Path, int FD) : Path(std::move(Path)), FD(FD) {}
  std::string Path;
  int FD;
};

/// Refuses an output path that is a symbolic link: replacing what a link
/// points to would delete files the run did not write.
llvm::Error checkNotSymlink(llvm::StringRef Output);

} // namespace aimz::io

#endif // AIMZ_IO_OUTPUTLOCK_H
