//===- ZarrMetadata.cpp - Zarr v2/v3 metadata documents -------------------===//

#include "ZarrMetadata.h"

#include "aimz/io/Shape.h"

#include "Errors.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>

using namespace llvm;
using json = nlohmann::json;

namespace aimz::io::zarr {

namespace {
double defaultFill(DType T) {
  return isFloating(T) ? std::numeric_limits<double>::quiet_NaN() : 0.0;
}

double fillOf(const ZarrArraySpec &S) {
  return S.FillValue ? *S.FillValue : defaultFill(S.Type);
}

/// IEEE binary16 from binary32, rounding to nearest even.
uint16_t halfFromFloat(float F) {
  uint32_t X;
  std::memcpy(&X, &F, 4);
  uint16_t Sign = static_cast<uint16_t>((X >> 16) & 0x8000);
  uint32_t Abs = X & 0x7fffffff;
  if (Abs > 0x7f800000)
    return Sign | 0x7e00; // NaN.
  if (Abs >= 0x477ff000)
    return Sign | 0x7c00; // Rounds to infinity.
  if (Abs < 0x38800000) { // Subnormal half: scale by 2^24 and round.
    float A;
    std::memcpy(&A, &Abs, 4);
    return Sign | static_cast<uint16_t>(std::nearbyint(A * 16777216.0f));
  }
  uint32_t H = ((Abs >> 23) - 112) << 10 | ((Abs & 0x7fffff) >> 13);
  uint32_t Rem = Abs & 0x1fff;
  if (Rem > 0x1000 || (Rem == 0x1000 && (H & 1)))
    ++H;
  return Sign | static_cast<uint16_t>(H);
}

template <typename T> std::vector<uint8_t> bytesOf(T V) {
  std::vector<uint8_t> B(sizeof(T));
  std::memcpy(B.data(), &V, sizeof(T));
  return B;
}

bool validName(StringRef N) {
  return !N.empty() && N != "." && N != ".." && !N.starts_with(".") &&
         N.find_first_of("/\\") == StringRef::npos && N != "zarr.json";
}

} // namespace

bool validNodePath(StringRef Path) {
  if (Path.empty())
    return false;
  SmallVector<StringRef, 4> Parts;
  Path.split(Parts, '/');
  return llvm::all_of(Parts, validName);
}

namespace {

std::string formatNumber(double V) {
  char Buf[32];
  std::snprintf(Buf, sizeof(Buf), "%.17g", V);
  return Buf;
}

/// Integer types' representable ranges, as doubles for the fill check.
bool fitsInteger(DType T, double V) {
  if (V != std::floor(V))
    return false;
  switch (T) {
  case DType::Bool:
    return V == 0 || V == 1;
  case DType::Int8:
    return V >= -128 && V <= 127;
  case DType::Int16:
    return V >= -32768 && V <= 32767;
  case DType::Int32:
    return V >= -2147483648.0 && V <= 2147483647.0;
  case DType::Int64:
    return V >= -9223372036854775808.0 && V < 9223372036854775808.0;
  case DType::UInt8:
    return V >= 0 && V <= 255;
  case DType::UInt16:
    return V >= 0 && V <= 65535;
  case DType::UInt32:
    return V >= 0 && V <= 4294967295.0;
  case DType::UInt64:
    return V >= 0 && V < 18446744073709551616.0;
  default:
    return true;
  }
}
} // namespace

std::string dtypeName(const ZarrArraySpec &S) {
  return S.TextWidth ? "<U" + std::to_string(S.TextWidth)
                     : dtypeDescr(S.Type).str();
}

Error validateSpec(const ZarrArraySpec &S) {
  if (!validNodePath(S.Name))
    return ioError("invalid Zarr array name '" + S.Name +
                   "': use a non-empty name without '\\' or a leading "
                   "'.', other than 'zarr.json' (a '/' separates the group "
                   "it is in)");
  size_t Rank = S.Shape.size();
  if (S.Chunks.size() != Rank || S.DimNames.size() != Rank)
    return ioError("array '" + S.Name + "' has shape " + formatShape(S.Shape) +
                   " (rank " + Twine(Rank) + ") but " + Twine(S.Chunks.size()) +
                   " chunk extents and " + Twine(S.DimNames.size()) +
                   " dimension names; all three must have the same length");
  for (size_t I = 0; I < Rank; ++I) {
    if (S.Chunks[I] == 0)
      return ioError("array '" + S.Name + "' has chunk shape " +
                     formatShape(S.Chunks) + "; chunk extents must be >= 1");
    if (S.DimNames[I].empty())
      return ioError("array '" + S.Name + "' has an empty name for dimension " +
                     Twine(I));
  }
  if (S.TextWidth && (S.Type != DType::UInt32 || S.FillValue))
    return ioError("text array '" + S.Name + "' must be declared with type "
                   "UInt32 (its code points) and no fill value");
  if (!checkedNumBytes(S.Shape, elementBytes(S)) ||
      !checkedNumBytes(S.Chunks, elementBytes(S)))
    return ioError("array '" + S.Name + "' with shape " + formatShape(S.Shape) +
                   " and chunks " + formatShape(S.Chunks) +
                   " overflows 64-bit sizes");
  if (!S.Attrs.is_object())
    return ioError("attributes of array '" + S.Name +
                   "' must be a JSON object, got " + S.Attrs.dump());
  if (S.Attrs.contains("_ARRAY_DIMENSIONS"))
    return ioError("attributes of array '" + S.Name +
                   "' must not set _ARRAY_DIMENSIONS; pass dimension names "
                   "instead");
  double F = fillOf(S);
  if (!isFloating(S.Type) && !fitsInteger(S.Type, F))
    return ioError("fill value " + formatNumber(F) + " of array '" + S.Name +
                   "' is not representable as " + dtypeDescr(S.Type));
  return Error::success();
}

std::vector<uint8_t> fillBytes(const ZarrArraySpec &S) {
  if (S.TextWidth) // the empty string
    return std::vector<uint8_t>(elementBytes(S), 0);
  double F = fillOf(S);
  switch (S.Type) {
  case DType::Bool:
    return {static_cast<uint8_t>(F != 0)};
  case DType::Int8:
    return bytesOf(static_cast<int8_t>(F));
  case DType::Int16:
    return bytesOf(static_cast<int16_t>(F));
  case DType::Int32:
    return bytesOf(static_cast<int32_t>(F));
  case DType::Int64:
    return bytesOf(static_cast<int64_t>(F));
  case DType::UInt8:
    return bytesOf(static_cast<uint8_t>(F));
  case DType::UInt16:
    return bytesOf(static_cast<uint16_t>(F));
  case DType::UInt32:
    return bytesOf(static_cast<uint32_t>(F));
  case DType::UInt64:
    return bytesOf(static_cast<uint64_t>(F));
  case DType::Float16:
    return bytesOf(halfFromFloat(static_cast<float>(F)));
  case DType::Float32:
    return bytesOf(static_cast<float>(F));
  case DType::Float64:
    return bytesOf(F);
  }
  return {0};
}

json fillJson(const ZarrArraySpec &S) {
  if (S.TextWidth)
    return "";
  double F = fillOf(S);
  if (S.Type == DType::Bool)
    return F != 0;
  if (std::isnan(F))
    return "NaN";
  if (std::isinf(F))
    return F > 0 ? "Infinity" : "-Infinity";
  if (isFloating(S.Type))
    return F;
  if (S.Type == DType::UInt64)
    return static_cast<uint64_t>(F);
  return static_cast<int64_t>(F);
}

bool v2FillIsNull(const ZarrArraySpec &S) {
  return !isFloating(S.Type) && !S.FillValue;
}

json v2ArrayMeta(const ZarrArraySpec &S, const CodecOptions &Codec) {
  return {{"zarr_format", 2},
          {"shape", S.Shape},
          {"chunks", S.Chunks},
          {"dtype", dtypeName(S)},
          {"compressor", zarrV2Compressor(Codec, S.Type)},
          {"fill_value", v2FillIsNull(S) ? json(nullptr) : fillJson(S)},
          {"order", "C"},
          {"filters", nullptr},
          {"dimension_separator", "."}};
}

json v2ArrayAttrs(const ZarrArraySpec &S) {
  json A = S.Attrs;
  A["_ARRAY_DIMENSIONS"] = S.DimNames;
  return A;
}

namespace {
/// zarr-python's name for NumPy's <U, as xarray writes text coordinates
/// to a v3 store (a data type of zarr-extensions, not the core spec).
json v3TextType(const ZarrArraySpec &S) {
  return {{"name", "fixed_length_utf32"},
          {"configuration", {{"length_bytes", elementBytes(S)}}}};
}
} // namespace

json v3ArrayMeta(const ZarrArraySpec &S, const CodecOptions &Codec) {
  return {
      {"zarr_format", 3},
      {"node_type", "array"},
      {"shape", S.Shape},
      {"data_type", S.TextWidth ? v3TextType(S) : json(dtypeV3Name(S.Type))},
      {"chunk_grid",
       {{"name", "regular"}, {"configuration", {{"chunk_shape", S.Chunks}}}}},
      {"chunk_key_encoding",
       {{"name", "default"}, {"configuration", {{"separator", "/"}}}}},
      {"fill_value", fillJson(S)},
      {"codecs", zarrV3Codecs(Codec, S.Type)},
      {"attributes", S.Attrs},
      {"dimension_names", S.DimNames}};
}

json v3GroupMeta(const json &Attrs) {
  return {{"zarr_format", 3}, {"node_type", "group"}, {"attributes", Attrs}};
}

std::string chunkKey(ZarrFormat Format, ArrayRef<uint64_t> Coords) {
  std::string K = Format == ZarrFormat::V3 ? "c" : "";
  for (size_t I = 0; I < Coords.size(); ++I) {
    if (Format == ZarrFormat::V3 || I > 0)
      K += Format == ZarrFormat::V3 ? '/' : '.';
    K += std::to_string(Coords[I]);
  }
  if (K.empty())
    K = "0"; // v2 names the only chunk of a 0-d array "0".
  return K;
}

} // namespace aimz::io::zarr

namespace aimz::io {
uint64_t elementBytes(const ZarrArraySpec &S) {
  return S.TextWidth ? 4 * uint64_t(S.TextWidth) : dtypeSize(S.Type);
}
} // namespace aimz::io
