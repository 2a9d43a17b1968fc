//===- ZarrReader.h - An array of a Zarr store, read whole ------*- C++ -*-===//
//
// One array of a Zarr v2 or v3 group, as aimz-run, xarray and zarr-python
// write them (regular chunks in C order; no compressor, zstd or Blosc;
// little-endian numbers), read whole into memory: `--data X=pred.zarr:y`
// feeds one run's output to the next. Hostile stores are refused before
// anything large is allocated: the array's size is checked, every chunk
// decodes to exactly its size, and a missing chunk is the fill value.
//
//===----------------------------------------------------------------------===//

#ifndef AIMZ_IO_ZARRREADER_H
#define AIMZ_IO_ZARRREADER_H

#include "aimz/io/Npy.h"
#include "aimz/io/SpillBuffer.h"

#include "llvm/Support/Error.h"

#include <string>

namespace aimz::io {

/// Reads array `Name` ('/'-separated inside the group) of the Zarr store
/// at `Store`, chunk by chunk, into memory, or into a spill file when it
/// is larger than Mem.ArrayBytes (SpillBuffer.h). A chunk larger than
/// Mem.ChunkBytes is refused before anything is allocated, naming
/// Mem.What.
llvm::Expected<NpyArray> readZarrArray(const std::string &Store,
                                       const std::string &Name,
                                       const InputMemory &Mem = {});

/// Whether Path is a Zarr store (a directory with .zgroup, .zarray or
/// zarr.json), or names one by its .zarr suffix.
bool isZarrStore(llvm::StringRef Path);

} // namespace aimz::io

#endif // AIMZ_IO_ZARRREADER_H
