//===- OutputFile.cpp - Write-to-temporary-then-rename files --------------===//

#include "OutputFile.h"

#include "Errors.h"

#include <cstdio>
#include <fcntl.h>
#include <unistd.h>

using namespace llvm;

namespace aimz::io {

Expected<OutputFile> OutputFile::create(StringRef FinalPath,
                                        StringRef TempSuffix) {
  std::string Final = FinalPath.str();
  std::string Temp = Final + TempSuffix.str();
  int FD = ::open(Temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (FD < 0)
    return errnoError("cannot create", Temp, errno);
  return OutputFile(FD, std::move(Final), std::move(Temp));
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

Error OutputFile::commit() {
  int Fd = FD;
  FD = -1;
  // close() reports deferred write errors (e.g. ENOSPC on NFS).
  if (::close(Fd) != 0)
    return errnoError("cannot finish writing", TempPath, errno);
  if (::rename(TempPath.c_str(), FinalPath.c_str()) != 0)
    return errnoError("cannot rename '" + TempPath + "' to", FinalPath, errno);
  TempPath.clear();
  return Error::success();
}

} // namespace aimz::io
