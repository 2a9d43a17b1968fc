//===- OutputFile.h - Write-to-temporary-then-rename files ------*- C++ -*-===//
//
// Every file the library writes goes through this class: bytes land in a
// temporary next to the target and are renamed over it only on commit(), so
// a crash or an error never leaves a truncated file under the final name.
//
//===----------------------------------------------------------------------===//

#ifndef AIMZ_IO_LIB_OUTPUTFILE_H
#define AIMZ_IO_LIB_OUTPUTFILE_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>

namespace aimz::io {

class OutputFile {
public:
  /// Creates "<FinalPath>.<random><TempSuffix>" exclusively (never an
  /// existing file, never through a symbolic link) for writing.
  static llvm::Expected<OutputFile> create(llvm::StringRef FinalPath,
                                           llvm::StringRef TempSuffix);

  OutputFile(OutputFile &&O) noexcept;
  OutputFile &operator=(OutputFile &&) = delete;
  OutputFile(const OutputFile &) = delete;
  /// Removes the temporary unless commit() succeeded.
  ~OutputFile();

  /// Appends; retries short writes and EINTR.
  llvm::Error write(const void *Bytes, size_t N);
  llvm::Error write(llvm::StringRef S) { return write(S.data(), S.size()); }
  /// Appends like write(), but the whole 4 KiB blocks of an aligned buffer
  /// go straight to the disk (O_DIRECT) where the file system allows it:
  /// no copy into the page cache, and nothing left for a later sync to
  /// wait for. The rest, and everything on file systems without direct
  /// I/O, is written through the page cache; the file's bytes are the same.
  llvm::Error writeDirect(const void *Bytes, size_t N);
  /// Overwrites already-written bytes (header back-patching).
  llvm::Error writeAt(uint64_t Offset, const void *Bytes, size_t N);
  /// Bytes appended so far.
  uint64_t offset() const { return Offset; }

  /// Asks the kernel to start writing the bytes so far to the disk, without
  /// waiting (advisory: a later synced commit still waits for them).
  void startWriteback();

  /// Closes and renames the temporary to the final path; with Sync, its
  /// data reaches the disk first (fdatasync).
  llvm::Error commit(bool Sync = false);

private:
  OutputFile(int FD, std::string Final, std::string Temp)
      : FD(FD), FinalPath(std::move(Final)), TempPath(std::move(Temp)) {}

  int FD = -1;
  uint64_t Offset = 0;
  std::string FinalPath;
  std::string TempPath;
};

} // namespace aimz::io

#endif // AIMZ_IO_LIB_OUTPUTFILE_H
