//===- DType.h - Element types shared by npy, npz and Zarr ------*- C++ -*-===//
//
// The fixed-size, little-endian element types the runtime reads and writes.
// One enum serves every format so a value read from a .npy can be written to
// a Zarr array without a translation table at each call site.
//
//===----------------------------------------------------------------------===//

#ifndef AIMZ_IO_DTYPE_H
#define AIMZ_IO_DTYPE_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstddef>
#include <cstdint>

namespace aimz::io {

enum class DType : uint8_t {
  Bool,
  Int8,
  Int16,
  Int32,
  Int64,
  UInt8,
  UInt16,
  UInt32,
  UInt64,
  Float16,
  Float32,
  Float64,
};

/// Bytes per element.
size_t dtypeSize(DType T);

/// NumPy descriptor as written in .npy headers and Zarr v2 metadata, e.g.
/// "<f4" or "|b1".
llvm::StringRef dtypeDescr(DType T);

/// Zarr v3 data type name, e.g. "float32" or "bool".
llvm::StringRef dtypeV3Name(DType T);

bool isFloating(DType T);

/// Parses a NumPy descriptor ("<f4", "|u1", "=i8", ...). Big-endian,
/// structured and non-numeric descriptors are rejected with a message that
/// says how to convert the array in NumPy.
llvm::Expected<DType> parseDescr(llvm::StringRef Descr);

/// Maps a C++ element type to its DType, for typed accessors and writers.
template <typename T> struct DTypeOf;
template <> struct DTypeOf<bool> {
  static constexpr DType value = DType::Bool;
};
template <> struct DTypeOf<int8_t> {
  static constexpr DType value = DType::Int8;
};
template <> struct DTypeOf<int16_t> {
  static constexpr DType value = DType::Int16;
};
template <> struct DTypeOf<int32_t> {
  static constexpr DType value = DType::Int32;
};
template <> struct DTypeOf<int64_t> {
  static constexpr DType value = DType::Int64;
};
template <> struct DTypeOf<uint8_t> {
  static constexpr DType value = DType::UInt8;
};
template <> struct DTypeOf<uint16_t> {
  static constexpr DType value = DType::UInt16;
};
template <> struct DTypeOf<uint32_t> {
  static constexpr DType value = DType::UInt32;
};
template <> struct DTypeOf<uint64_t> {
  static constexpr DType value = DType::UInt64;
};
template <> struct DTypeOf<float> {
  static constexpr DType value = DType::Float32;
};
template <> struct DTypeOf<double> {
  static constexpr DType value = DType::Float64;
};

} // namespace aimz::io

#endif // AIMZ_IO_DTYPE_H
