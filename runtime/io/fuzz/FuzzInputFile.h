//===- FuzzInputFile.h - A fuzz input as a file of its own ------*- C++ -*-===//
//
// The readers under test take paths and memory-map or read them as aimz-run
// does; a memfd holds the bytes without touching the disk.
//
//===----------------------------------------------------------------------===//
#ifndef AIMZ_IO_FUZZ_FUZZINPUTFILE_H
#define AIMZ_IO_FUZZ_FUZZINPUTFILE_H

#include <cstddef>
#include <cstdint>
#include <string>
#include <sys/mman.h>
#include <sys/types.h>
#include <unistd.h>

namespace aimz::fuzz {

/// Data in a memfd, named by its /proc path; closes it when done.
class FuzzInputFile {
public:
  FuzzInputFile(const uint8_t *Data, size_t Size) {
    FD = ::memfd_create("fuzz-input", MFD_CLOEXEC);
    if (FD >= 0 && ::write(FD, Data, Size) != static_cast<ssize_t>(Size)) {
      ::close(FD);
      FD = -1;
    }
  }
  ~FuzzInputFile() {
    if (FD >= 0)
      ::close(FD);
  }
  FuzzInputFile(const FuzzInputFile &) = delete;
  FuzzInputFile &operator=(const FuzzInputFile &) = delete;
  bool ok() const { return FD >= 0; }
  std::string path() const { return "/proc/self/fd/" + std::to_string(FD); }

private:
  int FD = -1;
};

} // namespace aimz::fuzz

#endif // AIMZ_IO_FUZZ_FUZZINPUTFILE_H
