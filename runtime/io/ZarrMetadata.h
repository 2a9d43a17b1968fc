//===- ZarrMetadata.h - Zarr v2/v3 metadata documents -----------*- C++ -*-===//
//
// Pure functions from an array spec to the JSON documents and chunk keys of
// each format, kept apart from file handling so tests can check them
// directly.
//
//===----------------------------------------------------------------------===//

#ifndef AIMZ_IO_LIB_ZARRMETADATA_H
#define AIMZ_IO_LIB_ZARRMETADATA_H

#include "aimz/io/Zarr.h"

namespace aimz::io::zarr {

/// Whether Path names a node: '/'-separated components, each non-empty,
/// without '\\', not starting with '.', not "zarr.json".
bool validNodePath(llvm::StringRef Path);

/// The element type as NumPy names it ("<f4", "<U12" for text).
std::string dtypeName(const ZarrArraySpec &Spec);

/// Checks names, ranks, extents and the fill value of a spec.
llvm::Error validateSpec(const ZarrArraySpec &Spec);

/// The fill value as one element's little-endian bytes.
std::vector<uint8_t> fillBytes(const ZarrArraySpec &Spec);

/// The fill value as JSON ("NaN", "Infinity", a number or a bool).
nlohmann::json fillJson(const ZarrArraySpec &Spec);

/// Whether v2 metadata states no fill value (null). For integer and bool
/// arrays without an explicit fill value it does: xarray would otherwise
/// mask every 0 as missing and turn the array into floats. Padding and
/// unwritten chunks still hold 0.
bool v2FillIsNull(const ZarrArraySpec &Spec);

nlohmann::json v2ArrayMeta(const ZarrArraySpec &Spec,
                           const CodecOptions &Codec);
/// User attributes plus _ARRAY_DIMENSIONS, which xarray needs.
nlohmann::json v2ArrayAttrs(const ZarrArraySpec &Spec);
nlohmann::json v3ArrayMeta(const ZarrArraySpec &Spec,
                           const CodecOptions &Codec);
nlohmann::json v3GroupMeta(const nlohmann::json &Attrs);

/// "0.1" (v2, "." separator; "0" for 0-d) or "c/0/1" (v3 default encoding;
/// "c" for 0-d).
std::string chunkKey(ZarrFormat Format, llvm::ArrayRef<uint64_t> Coords);

} // namespace aimz::io::zarr

#endif // AIMZ_IO_LIB_ZARRMETADATA_H
