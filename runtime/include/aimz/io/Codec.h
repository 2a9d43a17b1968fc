//===- Codec.h - Chunk compression for Zarr stores --------------*- C++ -*-===//
//
// What a chunk's bytes go through before they hit disk, and how that is
// spelled in Zarr v2 (.zarray "compressor") and v3 (zarr.json "codecs")
// metadata. Only codecs that both zarr-python/numcodecs and zarrita.js decode
// are offered. docs/io.md records the measurements behind the default.
//
//===----------------------------------------------------------------------===//

#ifndef AIMZ_IO_CODEC_H
#define AIMZ_IO_CODEC_H

#include "aimz/io/DType.h"
#include "aimz/io/PageBuffer.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <nlohmann/json.hpp>

#include <string>

namespace aimz::io {

enum class Compressor {
  None,  ///< Raw little-endian bytes.
  Zstd,  ///< One zstd frame per chunk.
  Blosc, ///< Blosc 1 container (shuffle + BloscCompressor per block).
};

enum class Shuffle {
  /// Bit shuffle for integers and bools, byte shuffle for floats: the best
  /// ratio for each in bench/io_codecs.cpp.
  Auto,
  None,
  Byte, ///< Group the i-th byte of every element together.
  Bit,  ///< Group the i-th bit of every element together.
};

/// The default is Blosc(zstd, level 1, auto shuffle, 1 MiB blocks); see
/// docs/io.md for the measurements behind it.
struct CodecOptions {
  Compressor Kind = Compressor::Blosc;
  /// zstd level (-7..22) or Blosc level (0..9; Blosc maps it onto zstd).
  int Level = 1;
  /// Blosc only: the byte transposition applied before compression.
  Shuffle Shuffling = Shuffle::Auto;
  /// Blosc only: the inner compressor, "zstd" or "lz4".
  std::string BloscCompressor = "zstd";
  /// Blosc only: bytes per independently compressed block; 0 lets Blosc
  /// choose (small blocks at low levels, which costs ratio).
  size_t BloscBlockSize = size_t(1) << 20;

  /// Parses a command-line spelling: "none", "zstd[:LEVEL]",
  /// "blosc[:INNER[:LEVEL[:SHUFFLE[:BLOCKSIZE]]]]" with SHUFFLE one of
  /// auto/noshuffle/shuffle/bitshuffle and BLOCKSIZE in bytes with an optional
  /// K or M suffix, e.g. "blosc:zstd:3:shuffle:1M".
  static llvm::Expected<CodecOptions> parse(llvm::StringRef Spec);
  /// The spelling parse() accepts.
  std::string str() const;
};

/// The shuffle actually applied to elements of Type (resolves Auto).
Shuffle effectiveShuffle(const CodecOptions &Options, DType Type);

/// Checks levels and names; ZarrWriter::create calls this.
llvm::Error validateCodec(const CodecOptions &Options);

/// Zarr v2 "compressor" object (null for None).
nlohmann::json zarrV2Compressor(const CodecOptions &Options, DType Type);

/// Zarr v3 "codecs" list: the bytes codec followed by the compressor.
nlohmann::json zarrV3Codecs(const CodecOptions &Options, DType Type);

/// Upper bound on the encoded size of a Bytes-byte chunk.
size_t encodedSizeBound(const CodecOptions &Options, size_t Bytes);

/// Encodes In into Out (grown as needed) and returns the encoded size.
/// Thread-safe: compression state is per call or per thread.
llvm::Expected<size_t> encodeChunk(const CodecOptions &Options, DType Type,
                                   llvm::ArrayRef<uint8_t> In, PageBuffer &Out);

/// Decodes a chunk encoded with Options into Out, which must have exactly
/// the decoded size. For tests and tools; readers use zarr itself.
llvm::Error decodeChunk(const CodecOptions &Options, llvm::ArrayRef<uint8_t> In,
                        llvm::MutableArrayRef<uint8_t> Out);

} // namespace aimz::io

#endif // AIMZ_IO_CODEC_H
