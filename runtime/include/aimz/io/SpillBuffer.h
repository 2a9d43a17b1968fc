//===- SpillBuffer.h - Memory for a decoded input, spilled to disk -*- C++ -*-===//
//
// An input decoded from a store (a Zarr array, a netCDF variable) has no
// file of its own bytes to map, as an .npy has. It is decoded chunk by chunk
// into memory when it is small, and into a file-backed mapping when it is
// not: an unlinked temporary file whose pages the kernel writes back and
// evicts like any file's, so an input larger than memory still works.
//
//===----------------------------------------------------------------------===//
#ifndef AIMZ_IO_SPILLBUFFER_H
#define AIMZ_IO_SPILLBUFFER_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <memory>
#include <string>

namespace aimz::io {

/// How much memory an input read from a store may take.
struct InputMemory {
  /// Above this, the input is decoded into a spill file.
  uint64_t ArrayBytes = UINT64_MAX;
  /// One chunk (or slab) is decoded in memory: it must fit. 0: no bound.
  uint64_t ChunkBytes = 0;
  /// What ChunkBytes is, for messages ("half of the machine's memory").
  std::string What;
};

struct SpillBuffer {
  std::shared_ptr<uint8_t> Data; ///< Bytes writable bytes (freed or unmapped)
  bool Spilled = false;          ///< file-backed
};

/// Bytes of zeroed memory: anonymous when Bytes <= MemoryBytes, else a
/// shared mapping of an unlinked file in $TMPDIR (default /tmp). Refused,
/// naming What and the directory, when that file system has less room
/// than Bytes, or when the memory or the mapping cannot be had.
llvm::Expected<SpillBuffer> allocateSpillable(uint64_t Bytes,
                                              uint64_t MemoryBytes,
                                              llvm::StringRef What);

/// The directory spilled inputs go to: $TMPDIR, else /tmp.
std::string spillDirectory();

} // namespace aimz::io

#endif // AIMZ_IO_SPILLBUFFER_H
