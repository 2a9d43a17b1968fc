//===- Zip.h - Minimal zip container reading and writing --------*- C++ -*-===//
//
// Just enough of the zip format (PKWARE APPNOTE 6.3) for .npz archives:
// stored and deflated members, ZIP64 sizes and offsets, no encryption, no
// multi-disk archives.
//
//===----------------------------------------------------------------------===//

#ifndef AIMZ_IO_LIB_ZIP_H
#define AIMZ_IO_LIB_ZIP_H

#include "aimz/io/MappedFile.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>
#include <vector>

namespace aimz::io {

class OutputFile;

namespace zip {

constexpr uint16_t MethodStored = 0;
constexpr uint16_t MethodDeflated = 8;

struct Entry {
  std::string Name;
  uint16_t Method = MethodStored;
  uint16_t Flags = 0;
  uint32_t Crc32 = 0;
  uint64_t CompressedSize = 0;
  uint64_t UncompressedSize = 0;
  uint64_t LocalHeaderOffset = 0;
};

/// Reads the central directory of the mapped archive.
llvm::Expected<std::vector<Entry>> readDirectory(const MappedFile &F);

/// The member's (possibly compressed) bytes inside the mapping, after
/// validating its local header and that the bytes are all present.
llvm::Expected<llvm::ArrayRef<uint8_t>> memberBytes(const MappedFile &F,
                                                    const Entry &E);

/// CRC-32 of a buffer of any size (zlib's crc32 takes 32-bit lengths).
uint32_t crc32(uint32_t Crc, const void *Data, uint64_t Size);

/// Writes stored members one after another, then the central directory.
class Writer {
public:
  /// Alignment of each member's data start; .npz writers pass 64 so that
  /// array data (after a 64-byte-multiple .npy header) is aligned too.
  explicit Writer(OutputFile &Out, unsigned Alignment, bool ForceZip64)
      : Out(Out), Alignment(Alignment), ForceZip64(ForceZip64) {}

  /// Appends one stored member made of the concatenation of Pieces.
  llvm::Error addStored(llvm::StringRef Name,
                        llvm::ArrayRef<llvm::ArrayRef<uint8_t>> Pieces);
  /// Writes the central directory and end records.
  llvm::Error finish();

private:
  OutputFile &Out;
  unsigned Alignment;
  bool ForceZip64;
  std::vector<Entry> Entries;
};

} // namespace zip
} // namespace aimz::io

#endif // AIMZ_IO_LIB_ZIP_H
