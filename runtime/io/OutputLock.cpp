//===- OutputLock.cpp - One writer per output path ------------------------===//

#include "aimz/io/OutputLock.h"

#include "Errors.h"

#include <cstdio>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace llvm;

namespace aimz::io {

Error checkNotSymlink(StringRef Output) {
  std::string P = Output.rtrim('/').str();
  struct stat St;
  if (::lstat(P.c_str(), &St) == 0 && S_ISLNK(St.st_mode))
    return ioError("refusing to write '" + P +
                   "': it is a symbolic link, and replacing what it points "
                   "to could delete files this run did not write; give the "
                   "real path instead");
  return Error::success();
}

Expected<std::unique_ptr<OutputLock>> OutputLock::acquire(StringRef Output) {
  std::string Path = Output.rtrim('/').str() + ".lock";
  // Retry when the holder removed the file between our open and our flock
  // (we would otherwise lock an unlinked file nobody else can see).
  for (int Attempt = 0; Attempt < 100; ++Attempt) {
    int FD = ::open(Path.c_str(),
                    O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK,
                    0644);
    if (FD < 0) {
      if (errno == ELOOP)
        return ioError("refusing to use the lock file '" + Path +
                       "': it is a symbolic link; remove it");
      return errnoError("cannot create the lock file", Path, errno);
    }
    struct stat Fd, Named;
    if (::fstat(FD, &Fd) != 0 || !S_ISREG(Fd.st_mode)) {
      ::close(FD);
      return ioError("refusing to use the lock file '" + Path +
                     "': it is not a regular file; remove it");
    }
    if (::flock(FD, LOCK_EX | LOCK_NB) != 0) {
      int E = errno;
      char Buf[32] = {};
      ssize_t N = ::pread(FD, Buf, sizeof Buf - 1, 0);
      ::close(FD);
      if (E != EWOULDBLOCK)
        return errnoError("cannot lock", Path, E);
      long Pid = N > 0 ? std::strtol(Buf, nullptr, 10) : 0;
      return ioError("'" + Output + "' is being written by another run" +
                     (Pid > 0 ? " (pid " + Twine(Pid) + ")" : Twine()) +
                     " holding '" + Path +
                     "'; wait for it to finish or choose another --out");
    }
    if (::lstat(Path.c_str(), &Named) != 0 || Named.st_ino != Fd.st_ino ||
        Named.st_dev != Fd.st_dev) {
      ::close(FD);
      continue;
    }
    std::string Pid = std::to_string(::getpid()) + "\n";
    if (::ftruncate(FD, 0) != 0 ||
        ::pwrite(FD, Pid.data(), Pid.size(), 0) !=
            static_cast<ssize_t>(Pid.size())) {
      int E = errno;
      ::unlink(Path.c_str());
      ::close(FD);
      return errnoError("cannot write the lock file", Path, E);
    }
    return std::unique_ptr<OutputLock>(new OutputLock(Path, FD));
  }
  return ioError("cannot lock '" + Path +
                 "': it keeps being replaced by another process");
}

OutputLock::~OutputLock() {
  // Unlink while still holding the lock, so that a waiter never locks a
  // file that is about to disappear without noticing (see acquire).
  ::unlink(Path.c_str());
  ::close(FD);
}

} // namespace aimz::io
