//===- Codec.cpp - Chunk compression for Zarr stores ----------------------===//

#include "aimz/io/Codec.h"

#include "Errors.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"

#include <blosc.h>
#include <cstring>
#include <memory>
#include <zstd.h>

using namespace llvm;
using json = nlohmann::json;

namespace aimz::io {

namespace {
StringRef shuffleName(Shuffle S) {
  switch (S) {
  case Shuffle::Auto:
    return "auto";
  case Shuffle::None:
    return "noshuffle";
  case Shuffle::Byte:
    return "shuffle";
  case Shuffle::Bit:
    return "bitshuffle";
  }
  return "noshuffle";
}

int bloscShuffle(Shuffle S) {
  switch (S) {
  case Shuffle::Auto:
  case Shuffle::None:
    return BLOSC_NOSHUFFLE;
  case Shuffle::Byte:
    return BLOSC_SHUFFLE;
  case Shuffle::Bit:
    return BLOSC_BITSHUFFLE;
  }
  return BLOSC_NOSHUFFLE;
}

struct CCtxDeleter {
  void operator()(ZSTD_CCtx *C) const { ZSTD_freeCCtx(C); }
};

/// One compression context per thread: creating one per chunk would cost
/// more than compressing a small chunk.
ZSTD_CCtx *threadCCtx() {
  thread_local std::unique_ptr<ZSTD_CCtx, CCtxDeleter> C(ZSTD_createCCtx());
  return C.get();
}

size_t bloscTypeSize(DType T) {
  size_t S = dtypeSize(T);
  return S > BLOSC_MAX_TYPESIZE ? 1 : S;
}
} // namespace

Expected<CodecOptions> CodecOptions::parse(StringRef Spec) {
  SmallVector<StringRef, 4> Parts;
  Spec.split(Parts, ':');
  CodecOptions O;
  auto Bad = [&](const Twine &Why) {
    return ioError("invalid codec '" + Spec + "': " + Why +
                   "; expected none, zstd[:LEVEL] or "
                   "blosc[:zstd|lz4[:LEVEL[:noshuffle|shuffle|bitshuffle]]]");
  };
  auto Level = [&](StringRef S) -> Error {
    if (S.getAsInteger(10, O.Level))
      return Bad("level '" + S + "' is not an integer");
    return Error::success();
  };
  StringRef Kind = Parts[0];
  if (Kind == "none") {
    if (Parts.size() != 1)
      return Bad("'none' takes no parameters");
    O.Kind = Compressor::None;
  } else if (Kind == "zstd") {
    if (Parts.size() > 2)
      return Bad("too many parameters");
    O.Kind = Compressor::Zstd;
    O.Shuffling = Shuffle::None;
    if (Parts.size() == 2)
      if (Error E = Level(Parts[1]))
        return {std::move(E)};
  } else if (Kind == "blosc") {
    if (Parts.size() > 5)
      return Bad("too many parameters");
    O.Kind = Compressor::Blosc;
    if (Parts.size() > 1)
      O.BloscCompressor = Parts[1].str();
    if (Parts.size() > 2)
      if (Error E = Level(Parts[2]))
        return {std::move(E)};
    if (Parts.size() > 3) {
      if (Parts[3] == "auto")
        O.Shuffling = Shuffle::Auto;
      else if (Parts[3] == "noshuffle")
        O.Shuffling = Shuffle::None;
      else if (Parts[3] == "shuffle")
        O.Shuffling = Shuffle::Byte;
      else if (Parts[3] == "bitshuffle")
        O.Shuffling = Shuffle::Bit;
      else
        return Bad("unknown shuffle '" + Parts[3] + "'");
    }
    if (Parts.size() > 4) {
      StringRef B = Parts[4];
      size_t Scale = B.consume_back("K")   ? size_t(1) << 10
                     : B.consume_back("M") ? size_t(1) << 20
                                           : 1;
      if (B.getAsInteger(10, O.BloscBlockSize))
        return Bad("block size '" + Parts[4] + "' is not a number");
      O.BloscBlockSize *= Scale;
    }
  } else {
    return Bad("unknown compressor '" + Kind + "'");
  }
  if (Error E = validateCodec(O))
    return Bad(toString(std::move(E)));
  return O;
}

std::string CodecOptions::str() const {
  switch (Kind) {
  case Compressor::None:
    return "none";
  case Compressor::Zstd:
    return "zstd:" + std::to_string(Level);
  case Compressor::Blosc:
    return "blosc:" + BloscCompressor + ":" + std::to_string(Level) + ":" +
           shuffleName(Shuffling).str() +
           (BloscBlockSize != CodecOptions().BloscBlockSize
                ? ":" + std::to_string(BloscBlockSize)
                : "");
  }
  return "none";
}

Shuffle effectiveShuffle(const CodecOptions &O, DType Type) {
  if (O.Kind != Compressor::Blosc)
    return Shuffle::None;
  if (O.Shuffling != Shuffle::Auto)
    return O.Shuffling;
  return isFloating(Type) ? Shuffle::Byte : Shuffle::Bit;
}

Error validateCodec(const CodecOptions &O) {
  switch (O.Kind) {
  case Compressor::None:
    return Error::success();
  case Compressor::Zstd:
    if (O.Level < ZSTD_minCLevel() || O.Level > ZSTD_maxCLevel())
      return ioError("zstd level " + Twine(O.Level) + " is out of range " +
                     Twine(ZSTD_minCLevel()) + ".." + Twine(ZSTD_maxCLevel()));
    if (O.Shuffling != Shuffle::None && O.Shuffling != Shuffle::Auto)
      return ioError("shuffling is only available with the blosc codec "
                     "(e.g. blosc:zstd:3:shuffle)");
    return Error::success();
  case Compressor::Blosc:
    if (O.Level < 0 || O.Level > 9)
      return ioError("blosc level " + Twine(O.Level) + " is out of range 0..9");
    if (O.BloscCompressor != "zstd" && O.BloscCompressor != "lz4")
      return ioError("blosc inner compressor '" + O.BloscCompressor +
                     "' is not supported; use zstd or lz4");
    return Error::success();
  }
  return ioError("unknown compressor kind");
}

json zarrV2Compressor(const CodecOptions &O, DType Type) {
  switch (O.Kind) {
  case Compressor::None:
    return nullptr;
  case Compressor::Zstd:
    return {{"id", "zstd"}, {"level", O.Level}};
  case Compressor::Blosc:
    return {{"id", "blosc"},
            {"cname", O.BloscCompressor},
            {"clevel", O.Level},
            {"shuffle", bloscShuffle(effectiveShuffle(O, Type))},
            {"blocksize", O.BloscBlockSize}};
  }
  return nullptr;
}

json zarrV3Codecs(const CodecOptions &O, DType Type) {
  json Codecs = json::array();
  json Bytes = {{"name", "bytes"}};
  // Endianness is meaningless, and optional, for one-byte types.
  if (dtypeSize(Type) > 1)
    Bytes["configuration"] = {{"endian", "little"}};
  Codecs.push_back(Bytes);
  switch (O.Kind) {
  case Compressor::None:
    break;
  case Compressor::Zstd:
    Codecs.push_back(
        {{"name", "zstd"},
         {"configuration", {{"level", O.Level}, {"checksum", false}}}});
    break;
  case Compressor::Blosc:
    Codecs.push_back(
        {{"name", "blosc"},
         {"configuration",
          {{"cname", O.BloscCompressor},
           {"clevel", O.Level},
           {"shuffle", shuffleName(effectiveShuffle(O, Type)).str()},
           {"typesize", bloscTypeSize(Type)},
           {"blocksize", O.BloscBlockSize}}}});
    break;
  }
  return Codecs;
}

size_t encodedSizeBound(const CodecOptions &O, size_t Bytes) {
  switch (O.Kind) {
  case Compressor::None:
    return Bytes;
  case Compressor::Zstd:
    return ZSTD_compressBound(Bytes);
  case Compressor::Blosc:
    return Bytes + BLOSC_MAX_OVERHEAD;
  }
  return Bytes;
}

Expected<size_t> encodeChunk(const CodecOptions &O, DType Type,
                             ArrayRef<uint8_t> In, PageBuffer &Out) {
  if (O.Kind == Compressor::Blosc && In.size() > size_t(BLOSC_MAX_BUFFERSIZE))
    return ioError("a chunk of " + Twine(In.size()) +
                   " bytes exceeds Blosc's limit of " +
                   Twine(BLOSC_MAX_BUFFERSIZE) +
                   " bytes; use smaller chunks or the zstd codec");
  // The bound, not Out.size(): Out is scratch at its high-water mark, and
  // Blosc stores a chunk raw or compressed by the room it is given (an
  // incompressible chunk would change bytes with the buffer's history).
  const size_t Bound = encodedSizeBound(O, In.size());
  if (Error E = Out.reserve(Bound))
    return {std::move(E)};
  switch (O.Kind) {
  case Compressor::None:
    if (!In.empty())
      std::memcpy(Out.data(), In.data(), In.size());
    return In.size();
  case Compressor::Zstd: {
    ZSTD_CCtx *C = threadCCtx();
    if (!C)
      return ioError("cannot create a zstd compression context");
    size_t R = ZSTD_compressCCtx(C, Out.data(), Bound, In.data(),
                                 In.size(), O.Level);
    if (ZSTD_isError(R))
      return ioError(Twine("zstd compression failed: ") + ZSTD_getErrorName(R));
    return R;
  }
  case Compressor::Blosc: {
    int R = blosc_compress_ctx(O.Level, bloscShuffle(effectiveShuffle(O, Type)),
                               bloscTypeSize(Type), In.size(), In.data(),
                               Out.data(), Bound,
                               O.BloscCompressor.c_str(), O.BloscBlockSize,
                               /*numinternalthreads=*/1);
    if (R <= 0)
      return ioError("blosc compression failed (code " + Twine(R) + ")");
    return static_cast<size_t>(R);
  }
  }
  return ioError("unknown compressor kind");
}

Error decodeChunk(const CodecOptions &O, ArrayRef<uint8_t> In,
                  MutableArrayRef<uint8_t> Out) {
  switch (O.Kind) {
  case Compressor::None:
    if (In.size() != Out.size())
      return ioError("raw chunk has " + Twine(In.size()) + " bytes, expected " +
                     Twine(Out.size()));
    if (!In.empty())
      std::memcpy(Out.data(), In.data(), In.size());
    return Error::success();
  case Compressor::Zstd: {
    size_t R = ZSTD_decompress(Out.data(), Out.size(), In.data(), In.size());
    if (ZSTD_isError(R))
      return ioError(Twine("zstd decompression failed: ") +
                     ZSTD_getErrorName(R));
    if (R != Out.size())
      return ioError("zstd chunk decoded to " + Twine(R) + " bytes, expected " +
                     Twine(Out.size()));
    return Error::success();
  }
  case Compressor::Blosc: {
    size_t NBytes = 0, CBytes = 0, Block = 0;
    if (In.size() < BLOSC_MIN_HEADER_LENGTH)
      return ioError("blosc chunk is shorter than its header");
    blosc_cbuffer_sizes(In.data(), &NBytes, &CBytes, &Block);
    if (NBytes != Out.size() || CBytes != In.size())
      return ioError("blosc chunk header says " + Twine(NBytes) + "/" +
                     Twine(CBytes) + " bytes, expected " + Twine(Out.size()) +
                     "/" + Twine(In.size()));
    int R = blosc_decompress_ctx(In.data(), Out.data(), Out.size(), 1);
    if (R < 0 || static_cast<size_t>(R) != Out.size())
      return ioError("blosc decompression failed (code " + Twine(R) + ")");
    return Error::success();
  }
  }
  return ioError("unknown compressor kind");
}

} // namespace aimz::io
