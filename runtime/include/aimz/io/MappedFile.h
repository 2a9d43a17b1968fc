//===- MappedFile.h - Read-only memory map of a whole file ------*- C++ -*-===//
//
// Inputs may be larger than RAM, so they are mapped, never read: the kernel
// pages data in as kernels touch it and drops clean pages under pressure.
//
//===----------------------------------------------------------------------===//

#ifndef AIMZ_IO_MAPPEDFILE_H
#define AIMZ_IO_MAPPEDFILE_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <memory>
#include <string>

namespace aimz::io {

/// How a range of a mapping will be accessed (madvise hints).
enum class Access {
  Normal,
  Sequential, ///< Read ahead aggressively, free pages behind.
  Random,     ///< No read-ahead.
  WillNeed,   ///< Start reading the range now.
  DontNeed,   ///< Done with the range; the kernel may drop its pages.
};

class MappedFile {
public:
  /// Maps Path read-only. Shared ownership lets array views outlive the
  /// archive object that created them.
  static llvm::Expected<std::shared_ptr<const MappedFile>>
  open(llvm::StringRef Path);

  MappedFile(const MappedFile &) = delete;
  MappedFile &operator=(const MappedFile &) = delete;
  ~MappedFile();

  /// Null for an empty file.
  const uint8_t *data() const { return Data; }
  uint64_t size() const { return Size; }
  const std::string &path() const { return Path; }

  /// Applies an madvise hint to [Offset, Offset + Length), clamped to the
  /// file. Offsets need not be page aligned.
  llvm::Error advise(Access A, uint64_t Offset = 0,
                     uint64_t Length = UINT64_MAX) const;

private:
  MappedFile(std::string Path, const uint8_t *Data, uint64_t Size)
      : Path(std::move(Path)), Data(Data), Size(Size) {}

  std::string Path;
  const uint8_t *Data;
  uint64_t Size;
};

} // namespace aimz::io

#endif // AIMZ_IO_MAPPEDFILE_H
