//===- Npy.h - NumPy .npy arrays, memory-mapped -----------------*- C++ -*-===//
//
// Reads .npy files (format versions 1.0, 2.0 and 3.0) without copying: the
// array data is a view into a memory map, so files larger than RAM work.
// Only C-order, little-endian, fixed-size numeric arrays are accepted; every
// other input is rejected with a message saying how to convert it in NumPy.
//
//===----------------------------------------------------------------------===//

#ifndef AIMZ_IO_NPY_H
#define AIMZ_IO_NPY_H

#include "aimz/io/DType.h"
#include "aimz/io/MappedFile.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace aimz::io {

/// The parsed preamble of a .npy image.
struct NpyHeader {
  DType Type = DType::Float64;
  std::vector<uint64_t> Shape;
  uint8_t MajorVersion = 1;
  uint8_t MinorVersion = 0;
  /// Offset of the first data byte from the start of the image.
  uint64_t DataOffset = 0;
};

/// Parses the header at the start of Bytes. Name (a path, or
/// "archive.npz:member") is used in error messages. Does not check that the
/// data is present; NpyArray does.
llvm::Expected<NpyHeader> parseNpyHeader(llvm::ArrayRef<uint8_t> Bytes,
                                         llvm::StringRef Name);

/// Serialises a header (magic, version, length, dict, padding) such that the
/// data that follows starts at a multiple of 64 bytes, as NumPy does. Uses
/// format 1.0 unless the dict needs 2.0's wider length field.
std::string makeNpyHeader(DType Type, llvm::ArrayRef<uint64_t> Shape);

class NpyArray {
public:
  /// Memory-maps Path and validates its header and size.
  static llvm::Expected<NpyArray> open(llvm::StringRef Path);

  /// Interprets Bytes as a complete .npy image. Owner keeps Bytes alive for
  /// the lifetime of the array (and its copies). If Bytes lie inside File's
  /// mapping, pass File so advise() can forward hints to it.
  static llvm::Expected<NpyArray>
  fromBytes(llvm::ArrayRef<uint8_t> Bytes, std::string Name,
            std::shared_ptr<const void> Owner,
            std::shared_ptr<const MappedFile> File = nullptr);

  /// Wraps C-order elements already in memory (an array handed over by
  /// Python, a reader's result): no copy. Owner keeps Data alive.
  static NpyArray fromMemory(DType Type, std::vector<uint64_t> Shape,
                             const void *Data, std::string Name,
                             std::shared_ptr<const void> Owner);

  DType dtype() const { return Header.Type; }
  llvm::ArrayRef<uint64_t> shape() const { return Header.Shape; }
  size_t elementSize() const { return dtypeSize(Header.Type); }
  uint64_t numElements() const { return NumElements; }
  uint64_t numBytes() const { return NumElements * elementSize(); }
  /// Format major version: 1, 2 or 3.
  unsigned formatVersion() const { return Header.MajorVersion; }
  /// Path, or "archive.npz:member" for archive members.
  const std::string &name() const { return Name; }

  /// The first element. May be misaligned for members of archives written by
  /// other tools; use isAligned() or values<T>() when that matters.
  const void *data() const { return Data; }
  bool isAligned() const {
    return reinterpret_cast<uintptr_t>(Data) % elementSize() == 0;
  }

  /// The data as a typed array; fails if T does not match dtype() or the
  /// data is misaligned for T.
  template <typename T> llvm::Expected<llvm::ArrayRef<T>> values() const {
    if (llvm::Error E = checkAccess(DTypeOf<T>::value, alignof(T)))
      return {std::move(E)};
    return llvm::ArrayRef<T>(static_cast<const T *>(Data), NumElements);
  }

  /// madvise hint for the data (no-op for arrays that are not mapped).
  llvm::Error advise(Access A) const;
  /// Read-ahead for one pass from front to back, the common case.
  llvm::Error adviseSequential() const { return advise(Access::Sequential); }

private:
  NpyArray() = default;
  llvm::Error checkAccess(DType Want, size_t Align) const;

  NpyHeader Header;
  std::string Name;
  uint64_t NumElements = 0;
  const void *Data = nullptr;
  std::shared_ptr<const void> Owner;
  std::shared_ptr<const MappedFile> File;
};

/// Writes a C-order .npy file. Bytes go to "<Path>.partial" first and are
/// renamed into place, so a reader never sees a half-written file.
llvm::Error writeNpy(llvm::StringRef Path, DType Type,
                     llvm::ArrayRef<uint64_t> Shape, const void *Data);

} // namespace aimz::io

#endif // AIMZ_IO_NPY_H
