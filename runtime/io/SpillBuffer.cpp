//===- SpillBuffer.cpp - Memory for a decoded input, spilled to disk ------===//
#include "aimz/io/SpillBuffer.h"

#include "Errors.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <new>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/statvfs.h>
#include <unistd.h>

namespace aimz::io {

std::string spillDirectory() {
  const char *T = std::getenv("TMPDIR");
  return T && *T ? T : "/tmp";
}

llvm::Expected<SpillBuffer> allocateSpillable(uint64_t Bytes,
                                              uint64_t MemoryBytes,
                                              llvm::StringRef What) {
  SpillBuffer B;
  const uint64_t N = Bytes ? Bytes : 1;
  if (N <= MemoryBytes) {
    uint8_t *P = N <= SIZE_MAX ? new (std::nothrow) uint8_t[N]() : nullptr;
    if (!P)
      return ioError(What + ": " + llvm::Twine(Bytes) +
                     " bytes, more than this process can allocate");
    B.Data.reset(P, [](uint8_t *Q) { delete[] Q; });
    return B;
  }
  const std::string Dir = spillDirectory();
  // Unnamed from the start (O_TMPFILE): nothing to clean up after a crash.
  int Fd = ::open(Dir.c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
  if (Fd < 0)
    return ioError(What + " (" + llvm::Twine(Bytes) + " bytes) does not "
                   "fit in memory and cannot be spilled to '" + Dir +
                   "': " + std::strerror(errno) +
                   "; set TMPDIR to a directory on a disk with room");
  struct statvfs S;
  if (::fstatvfs(Fd, &S) == 0 &&
      static_cast<uint64_t>(S.f_bavail) * S.f_frsize < N) {
    ::close(Fd);
    return ioError(What + " (" + llvm::Twine(Bytes) + " bytes) does not "
                   "fit in memory, and '" + Dir + "' has only " +
                   llvm::Twine(static_cast<uint64_t>(S.f_bavail) * S.f_frsize) +
                   " bytes free to spill it to; set TMPDIR to a directory "
                   "on a disk with room");
  }
  void *P = MAP_FAILED;
  if (::ftruncate(Fd, static_cast<off_t>(N)) == 0)
    P = ::mmap(nullptr, N, PROT_READ | PROT_WRITE, MAP_SHARED, Fd, 0);
  const int Err = errno;
  ::close(Fd); // the mapping keeps the file
  if (P == MAP_FAILED)
    return ioError(What + " (" + llvm::Twine(Bytes) + " bytes): cannot map "
                   "a spill file in '" + Dir + "': " + std::strerror(Err));
  B.Data.reset(static_cast<uint8_t *>(P), [N](uint8_t *Q) { ::munmap(Q, N); });
  B.Spilled = true;
  return B;
}

} // namespace aimz::io
