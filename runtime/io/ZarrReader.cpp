//===- ZarrReader.cpp - An array of a Zarr store, read whole --------------===//
#include "aimz/io/ZarrReader.h"
#include "Errors.h"

#include "aimz/io/Codec.h"
#include "aimz/io/RegularFile.h"
#include "aimz/io/Shape.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <new>

namespace aimz::io {
namespace {

using nlohmann::json;

/// What an array's metadata says, in either format.
struct ZarrArrayMeta {
  DType Type = DType::Float64;
  std::vector<uint64_t> Shape, Chunks;
  CodecOptions Codec;
  json Fill;                 ///< null, a number, "NaN", "Infinity", ...
  bool V3 = false;
  std::string KeyPrefix;     ///< "c/" (v3 default), "" (v2)
  char Separator = '.';
};

llvm::Expected<json> readJson(const std::string &Path) {
  auto Buf = llvm::MemoryBuffer::getFile(Path);
  if (!Buf)
    return ioError("cannot read '" + Path + "': " + Buf.getError().message());
  json J = json::parse((*Buf)->getBuffer().begin(), (*Buf)->getBuffer().end(),
                       nullptr, /*allow_exceptions=*/false);
  if (J.is_discarded() || !J.is_object())
    return ioError("'" + Path + "' is not a JSON object");
  return J;
}

bool extents(const json &J, std::vector<uint64_t> &Out) {
  if (!J.is_array())
    return false;
  for (const json &E : J) {
    if (!E.is_number_unsigned())
      return false;
    Out.push_back(E.get<uint64_t>());
  }
  return true;
}

/// The compressor of a v2 "compressor" object or a v3 codec.
llvm::Error codecOf(const json &C, const std::string &Where, CodecOptions &O) {
  const std::string Id = C.is_object() ? C.value("id", C.value("name", ""))
                                       : std::string();
  if (C.is_null())
    O.Kind = Compressor::None;
  else if (Id == "zstd")
    O.Kind = Compressor::Zstd;
  else if (Id == "blosc")
    O.Kind = Compressor::Blosc;
  else
    return ioError("'" + Where + "': compressor " + C.dump() +
                   " is not one aimz-run reads (none, zstd, blosc); rewrite "
                   "the array with one of them");
  return llvm::Error::success();
}

llvm::Error parseV2(const json &J, const std::string &Where,
                    ZarrArrayMeta &M) {
  if (!J.contains("dtype") || !J["dtype"].is_string())
    return ioError("'" + Where + "' has no dtype");
  auto T = parseDescr(J["dtype"].get<std::string>());
  if (!T)
    return T.takeError();
  M.Type = *T;
  if (J.value("order", "C") != "C")
    return ioError("'" + Where + "': Fortran-ordered chunks are not read; "
                   "rewrite the array in C order");
  if (J.contains("filters") && !J["filters"].is_null())
    return ioError("'" + Where + "': filters " + J["filters"].dump() +
                   " are not read; rewrite the array without them");
  if (llvm::Error E = codecOf(J.value("compressor", json()), Where, M.Codec))
    return E;
  M.Fill = J.value("fill_value", json());
  const std::string Sep = J.value("dimension_separator", ".");
  M.Separator = Sep == "/" ? '/' : '.';
  return llvm::Error::success();
}

llvm::Error parseV3(const json &J, const std::string &Where,
                    ZarrArrayMeta &M) {
  M.V3 = true;
  const std::string Name = J.value("data_type", "");
  bool Known = false;
  for (int T = 0; T <= static_cast<int>(DType::Float64); ++T)
    if (dtypeV3Name(static_cast<DType>(T)) == Name) {
      M.Type = static_cast<DType>(T);
      Known = true;
    }
  if (!Known)
    return ioError("'" + Where + "': data type '" + Name +
                   "' is not a number type aimz-run reads");
  const json &Grid = J.value("chunk_grid", json());
  if (Grid.value("name", "") != "regular" ||
      !extents(Grid.value("configuration", json()).value("chunk_shape", json()),
               M.Chunks))
    return ioError("'" + Where + "': only a regular chunk grid is read");
  const json &Keys = J.value("chunk_key_encoding", json());
  const std::string Sep =
      Keys.value("configuration", json()).value("separator", "");
  M.KeyPrefix = Keys.value("name", "default") == "v2" ? "" : "c";
  M.Separator = Sep.empty() ? (M.KeyPrefix.empty() ? '.' : '/') : Sep[0];
  for (const json &C : J.value("codecs", json::array())) {
    const std::string Codec = C.value("name", "");
    if (Codec == "bytes") {
      if (C.value("configuration", json()).value("endian", "little") !=
          "little")
        return ioError("'" + Where + "': big-endian chunks are not read");
      continue;
    }
    if (llvm::Error E = codecOf(C, Where, M.Codec))
      return E;
  }
  M.Fill = J.value("fill_value", json());
  return llvm::Error::success();
}

/// One element of the fill value, as bytes of Type (0 for null).
std::vector<uint8_t> fillElement(const ZarrArrayMeta &M) {
  const size_t Size = dtypeSize(M.Type);
  std::vector<uint8_t> Out(Size, 0);
  double V = 0;
  if (M.Fill.is_number())
    V = M.Fill.get<double>();
  else if (M.Fill.is_boolean())
    V = M.Fill.get<bool>();
  else if (M.Fill.is_string())
    V = M.Fill == "NaN" ? std::nan("")
        : M.Fill == "-Infinity" ? -HUGE_VAL
        : M.Fill == "Infinity"  ? HUGE_VAL
                                : 0;
  auto Put = [&](auto X) { std::memcpy(Out.data(), &X, sizeof(X)); };
  switch (M.Type) {
  case DType::Float32: Put(static_cast<float>(V)); break;
  case DType::Float64: Put(V); break;
  case DType::Int32: Put(static_cast<int32_t>(V)); break;
  case DType::Int64: Put(static_cast<int64_t>(V)); break;
  default: Out[0] = static_cast<uint8_t>(V); break;
  }
  return Out;
}

std::string chunkPath(const std::string &Dir, const ZarrArrayMeta &M,
                      llvm::ArrayRef<uint64_t> Coords) {
  std::string Key = M.KeyPrefix;
  for (uint64_t C : Coords) {
    if (!Key.empty())
      Key += M.Separator;
    Key += std::to_string(C);
  }
  if (Key.empty())
    Key = "0"; // a 0-d v2 array's one chunk
  return Dir + "/" + Key;
}

/// Copies the part of chunk Coords (decoded in Chunk) that lies inside the
/// array into Out.
void placeChunk(const ZarrArrayMeta &M, llvm::ArrayRef<uint64_t> Coords,
                const uint8_t *Chunk, uint8_t *Out) {
  const size_t Rank = M.Shape.size(), Elem = dtypeSize(M.Type);
  if (Rank == 0) {
    std::memcpy(Out, Chunk, Elem);
    return;
  }
  // Rows along the last axis, one per index of the leading axes.
  std::vector<uint64_t> At(Rank - 1, 0);
  const uint64_t Last = Coords.back() * M.Chunks.back();
  const uint64_t RowLen = std::min(M.Chunks.back(), M.Shape.back() - Last);
  while (true) {
    uint64_t Src = 0, Dst = 0;
    bool Inside = true;
    for (size_t A = 0; A + 1 < Rank; ++A) {
      const uint64_t G = Coords[A] * M.Chunks[A] + At[A];
      Inside = Inside && G < M.Shape[A];
      Src = Src * M.Chunks[A] + At[A];
      Dst = Dst * M.Shape[A] + G;
    }
    if (Inside)
      std::memcpy(Out + (Dst * M.Shape.back() + Last) * Elem,
                  Chunk + Src * M.Chunks.back() * Elem, RowLen * Elem);
    size_t A = Rank - 1;
    while (A > 0 && ++At[A - 1] == M.Chunks[A - 1])
      At[--A] = 0;
    if (A == 0)
      return;
  }
}

/// The metadata of array Name (at Dir) of the store, checked: a shape,
/// chunks of the same rank, none of them 0.
llvm::Expected<ZarrArrayMeta> readArrayMeta(const std::string &Store,
                                            const std::string &Name,
                                            const std::string &Dir) {
  namespace fs = llvm::sys::fs;
  const bool V3 = fs::exists(Dir + "/zarr.json");
  if (!V3 && !fs::exists(Dir + "/.zarray"))
    return ioError("'" + Store + "' has no array '" + Name +
                   "' (no " + Dir + "/.zarray or zarr.json); name one with "
                   "--data NAME=STORE.zarr:ARRAY");
  const std::string MetaPath = Dir + (V3 ? "/zarr.json" : "/.zarray");
  auto J = readJson(MetaPath);
  if (!J)
    return J.takeError();
  ZarrArrayMeta M;
  // A member of the wrong JSON type (a number where a string belongs)
  // throws from json::value: malformed metadata, one error.
  try {
    if (!extents(J->value("shape", json()), M.Shape) ||
        (!V3 && !extents(J->value("chunks", json()), M.Chunks)))
      return ioError("'" + MetaPath + "' has no valid shape and chunks");
    if (llvm::Error E =
            V3 ? parseV3(*J, MetaPath, M) : parseV2(*J, MetaPath, M))
      return std::move(E);
  } catch (const json::exception &X) {
    return ioError("'" + MetaPath + "' is not Zarr array metadata aimz-run "
                   "reads: " + X.what());
  }
  if (M.Chunks.size() != M.Shape.size())
    return ioError("'" + MetaPath + "': chunks " + formatShape(M.Chunks) +
                   " do not match shape " + formatShape(M.Shape));
  for (uint64_t C : M.Chunks)
    if (C == 0)
      return ioError("'" + MetaPath + "': a chunk extent is 0");
  return M;
}

} // namespace

bool isZarrStore(llvm::StringRef Path) {
  namespace fs = llvm::sys::fs;
  return Path.ends_with(".zarr") || Path.ends_with(".zarr/") ||
         fs::exists(Path + "/.zgroup") || fs::exists(Path + "/zarr.json");
}

llvm::Expected<NpyArray> readZarrArray(const std::string &Store,
                                       const std::string &Name,
                                       const InputMemory &Mem) {
  namespace fs = llvm::sys::fs;
  const std::string Dir = Store + "/" + Name;
  auto Meta = readArrayMeta(Store, Name, Dir);
  if (!Meta)
    return Meta.takeError();
  const ZarrArrayMeta &M = *Meta;
  const size_t Elem = dtypeSize(M.Type);
  std::optional<uint64_t> Bytes = checkedNumBytes(M.Shape, Elem);
  std::optional<uint64_t> ChunkBytes = checkedNumBytes(M.Chunks, Elem);
  if (!Bytes || !ChunkBytes)
    return ioError("'" + Dir + "': array of shape " + formatShape(M.Shape) +
                   " in chunks of " + formatShape(M.Chunks) +
                   " overflows 64-bit sizes");
  // A chunk is decoded in memory: past the bound an allocation may
  // succeed and its first touch summon the OOM killer.
  if (Mem.ChunkBytes && *ChunkBytes > Mem.ChunkBytes)
    return ioError("'" + Dir + "': chunks of " + formatShape(M.Chunks) +
                   " need more memory than " + Mem.What +
                   " allows; rechunk the array smaller");
  auto Out = allocateSpillable(*Bytes, Mem.ArrayBytes,
                               "'" + Dir + "' (shape " + formatShape(M.Shape) +
                                   ")");
  if (!Out)
    return Out.takeError();
  std::unique_ptr<uint8_t[]> Chunk(
      *ChunkBytes <= SIZE_MAX
          ? new (std::nothrow) uint8_t[*ChunkBytes ? *ChunkBytes : 1]
          : nullptr);
  if (!Chunk)
    return ioError("'" + Dir + "': chunks of " + formatShape(M.Chunks) +
                   ", too large to decode in memory");
  // Every chunk of the grid, in C order; a missing one is the fill value.
  const std::vector<uint8_t> Fill = fillElement(M);
  std::vector<uint64_t> Grid, Coords(M.Shape.size(), 0);
  for (size_t A = 0; A < M.Shape.size(); ++A)
    Grid.push_back((M.Shape[A] + M.Chunks[A] - 1) / M.Chunks[A]);
  const bool Empty = *Bytes == 0;
  while (!Empty) {
    const std::string Path = chunkPath(Dir, M, Coords);
    const bool Present = fs::exists(Path);
    if (Present)
      if (llvm::Error E = requireRegularFile(Path, "a chunk",
                                             "a chunk is a file"))
        return std::move(E);
    llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> Buf =
        std::make_error_code(std::errc::no_such_file_or_directory);
    if (Present)
      Buf = llvm::MemoryBuffer::getFile(Path);
    if (Present && !Buf)
      return ioError("cannot read '" + Path + "': " +
                     Buf.getError().message());
    if (Buf) {
      if (llvm::Error E = decodeChunk(
              M.Codec,
              llvm::ArrayRef<uint8_t>(
                  reinterpret_cast<const uint8_t *>((*Buf)->getBufferStart()),
                  (*Buf)->getBufferSize()),
              llvm::MutableArrayRef<uint8_t>(Chunk.get(), *ChunkBytes)))
        return ioError("'" + Path + "': " + llvm::toString(std::move(E)));
    } else {
      for (uint64_t I = 0; I < *ChunkBytes; I += Elem)
        std::memcpy(Chunk.get() + I, Fill.data(), Elem);
    }
    placeChunk(M, Coords, Chunk.get(), Out->Data.get());
    size_t A = Coords.size();
    while (A > 0 && ++Coords[A - 1] == Grid[A - 1])
      Coords[--A] = 0;
    if (A == 0)
      break;
  }
  return NpyArray::fromMemory(M.Type, M.Shape, Out->Data.get(),
                              Store + ":" + Name, Out->Data);
}

} // namespace aimz::io
