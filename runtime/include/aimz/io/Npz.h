//===- Npz.h - NumPy .npz archives ------------------------------*- C++ -*-===//
//
// An .npz is a zip of .npy members, as np.savez and np.savez_compressed
// write it (ZIP64 included). Stored members are views into the memory-mapped
// archive; deflated members are inflated into memory on request.
//
//===----------------------------------------------------------------------===//

#ifndef AIMZ_IO_NPZ_H
#define AIMZ_IO_NPZ_H

#include "aimz/io/DType.h"
#include "aimz/io/MappedFile.h"
#include "aimz/io/Npy.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace aimz::io {

class NpzArchive {
public:
  /// Maps Path and reads its zip directory. Members that are not .npy files
  /// are ignored.
  static llvm::Expected<NpzArchive> open(llvm::StringRef Path);

  /// Array names (member names without ".npy"), in archive order.
  const std::vector<std::string> &names() const { return Names; }
  bool contains(llvm::StringRef Name) const;
  /// True if the member is stored uncompressed (so array() does not copy).
  bool isStored(llvm::StringRef Name) const;

  /// The named array: a view into the mapping for stored members, an
  /// inflated and CRC-checked copy for deflated ones.
  llvm::Expected<NpyArray> array(llvm::StringRef Name) const;

  const std::string &path() const { return File->path(); }

private:
  /// A zip directory entry, restated so Zip.h can stay private.
  struct Member {
    std::string ZipName;
    uint16_t Method = 0;
    uint16_t Flags = 0;
    uint32_t Crc32 = 0;
    uint64_t CompressedSize = 0;
    uint64_t UncompressedSize = 0;
    uint64_t LocalHeaderOffset = 0;
  };
  NpzArchive() = default;
  const Member *find(llvm::StringRef Name) const;

  std::shared_ptr<const MappedFile> File;
  std::vector<std::string> Names;
  std::vector<Member> Members; ///< Parallel to Names.
};

/// One array to write: Data holds product(Shape) elements in C order.
struct NpzMember {
  std::string Name;
  DType Type = DType::Float64;
  std::vector<uint64_t> Shape;
  const void *Data = nullptr;
};

struct NpzWriteOptions {
  /// Emit ZIP64 records even when nothing needs them (for tests).
  bool ForceZip64 = false;
  /// Make the file durable (fdatasync, then the directory) before it
  /// appears under its name.
  bool Sync = false;
};

/// Writes an uncompressed .npz that np.load reads, with each array's data
/// 64-byte aligned in the file so readers can map it in place. Written to
/// a fresh "<Path>.<random>.partial" and renamed on success. Refuses a Path
/// that is a symbolic link, or an existing file that is not a zip archive.
llvm::Error writeNpz(llvm::StringRef Path, llvm::ArrayRef<NpzMember> Members,
                     const NpzWriteOptions &Options = {});

} // namespace aimz::io

#endif // AIMZ_IO_NPZ_H
