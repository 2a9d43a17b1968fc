//===- OutputFile.cpp - Write-to-temporary-then-rename files --------------===//

#include "OutputFile.h"

#include "Errors.h"

#include <atomic>
#include <cstdio>
#include <random>
#include <fcntl.h>
#include <unistd.h>

using namespace llvm;

namespace aimz::io {

Expected<OutputFile> OutputFile::create(StringRef FinalPath,
                                        StringRef TempSuffix) {
  std::string Final = FinalPath.str();
  // A fresh name each time, created exclusively: O_EXCL never opens an
  // existing file or follows a symbolic link planted at the name.
  static std::atomic<uint64_t> Counter{0};
  static const char Digits[] = "0123456789abcdefghijklmnopqrstuvwxyz";
  std::random_device Rd;
  for (int Attempt = 0; Attempt < 100; ++Attempt) {
    uint64_t R = (uint64_t(Rd()) << 32) ^ Rd() ^ (Counter++ * 0x9E3779B97F4A7C15ull);
    std::string Tag;
    for (int I = 0; I < 8; ++I, R /= 36)
      Tag += Digits[R % 36];
    std::string Temp = Final + "." + Tag + TempSuffix.str();
    int FD = ::open(Temp.c_str(),
                    O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (FD >= 0)
      return OutputFile(FD, std::move(Final), std::move(Temp));
    if (errno != EEXIST)
      return errnoError("cannot create", Temp, errno);
  }
  return ioError("cannot create a temporary file next to '" + Final +
                 "': every name tried exists");
}

OutputFile::OutputFile(OutputFile &&O) noexcept
    : FD(O.FD), Offset(O.Offset), FinalPath(std::move(O.FinalPath)),
      TempPath(std::move(O.TempPath)) {
  O.FD = -1;
  O.TempPath.clear();
}

OutputFile::~OutputFile() {
  if (FD >= 0)
    ::close(FD);
  if (!TempPath.empty())
    ::unlink(TempPath.c_str());
}

Error OutputFile::write(const void *Bytes, size_t N) {
  if (Error E = writeAt(Offset, Bytes, N))
    return E;
  Offset += N;
  return Error::success();
}

Error OutputFile::writeDirect(const void *Bytes, size_t N) {
  // Direct I/O needs the buffer, the offset and the length aligned to the
  // device's logical block (512 or 4096 bytes): 4096 covers both.
  constexpr size_t Block = 4096;
  const char *P = static_cast<const char *>(Bytes);
  size_t Whole = N & ~(Block - 1);
  int Flags = Whole && Offset % Block == 0 &&
                      reinterpret_cast<uintptr_t>(P) % Block == 0
                  ? ::fcntl(FD, F_GETFL)
                  : -1;
  // File systems without direct I/O refuse the flag (EINVAL): buffered.
  if (Flags >= 0 && ::fcntl(FD, F_SETFL, Flags | O_DIRECT) == 0) {
    while (Whole > 0) {
      ssize_t W = ::pwrite(FD, P, std::min<size_t>(Whole, size_t(1) << 30),
                           static_cast<off_t>(Offset));
      if (W < 0 && errno == EINTR)
        continue;
      // EINVAL: a device block larger than 4 KiB, or a file system that
      // took the flag but not the write; the rest goes through the cache.
      if (W < 0 && errno != EINVAL) {
        int E = errno;
        (void)::fcntl(FD, F_SETFL, Flags);
        return errnoError("cannot write", TempPath, E);
      }
      if (W <= 0 || W % Block != 0) {
        if (W > 0)
          P += W, Offset += static_cast<uint64_t>(W), N -= size_t(W);
        break;
      }
      P += W;
      Offset += static_cast<uint64_t>(W);
      N -= static_cast<size_t>(W);
      Whole -= static_cast<size_t>(W);
    }
    if (::fcntl(FD, F_SETFL, Flags) != 0)
      return errnoError("cannot write", TempPath, errno);
  }
  return write(P, N);
}

Error OutputFile::writeAt(uint64_t At, const void *Bytes, size_t N) {
  const char *P = static_cast<const char *>(Bytes);
  while (N > 0) {
    // Linux transfers at most ~2 GiB per call; loop over larger buffers.
    ssize_t W = ::pwrite(FD, P, std::min<size_t>(N, size_t(1) << 30),
                         static_cast<off_t>(At));
    if (W < 0) {
      if (errno == EINTR)
        continue;
      return errnoError("cannot write", TempPath, errno);
    }
    P += W;
    At += static_cast<uint64_t>(W);
    N -= static_cast<size_t>(W);
  }
  return Error::success();
}

void OutputFile::startWriteback() {
  if (FD >= 0)
    (void)::sync_file_range(FD, 0, 0, SYNC_FILE_RANGE_WRITE);
}

Error OutputFile::commit(bool Sync) {
  int Fd = FD;
  FD = -1;
  if (Sync && ::fdatasync(Fd) != 0) {
    int E = errno;
    ::close(Fd);
    return errnoError("cannot sync", TempPath, E);
  }
  // close() reports deferred write errors (e.g. ENOSPC on NFS).
  if (::close(Fd) != 0)
    return errnoError("cannot finish writing", TempPath, errno);
  if (::rename(TempPath.c_str(), FinalPath.c_str()) != 0)
    return errnoError("cannot rename '" + TempPath + "' to", FinalPath, errno);
  TempPath.clear();
  return Error::success();
}

} // namespace aimz::io
