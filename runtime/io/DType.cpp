//===- DType.cpp - Element types shared by npy, npz and Zarr --------------===//

#include "aimz/io/DType.h"

#include "Errors.h"

using namespace llvm;

namespace aimz::io {

namespace {
struct DTypeInfo {
  DType Type;
  size_t Size;
  const char *Descr;
  const char *V3Name;
};

// Indexed by DType; keep in enum order.
constexpr DTypeInfo Infos[] = {
    {DType::Bool, 1, "|b1", "bool"},
    {DType::Int8, 1, "|i1", "int8"},
    {DType::Int16, 2, "<i2", "int16"},
    {DType::Int32, 4, "<i4", "int32"},
    {DType::Int64, 8, "<i8", "int64"},
    {DType::UInt8, 1, "|u1", "uint8"},
    {DType::UInt16, 2, "<u2", "uint16"},
    {DType::UInt32, 4, "<u4", "uint32"},
    {DType::UInt64, 8, "<u8", "uint64"},
    {DType::Float16, 2, "<f2", "float16"},
    {DType::Float32, 4, "<f4", "float32"},
    {DType::Float64, 8, "<f8", "float64"},
};

const DTypeInfo &info(DType T) { return Infos[static_cast<size_t>(T)]; }
} // namespace

size_t dtypeSize(DType T) { return info(T).Size; }
StringRef dtypeDescr(DType T) { return info(T).Descr; }
StringRef dtypeV3Name(DType T) { return info(T).V3Name; }

bool isFloating(DType T) {
  return T == DType::Float16 || T == DType::Float32 || T == DType::Float64;
}

Expected<DType> parseDescr(StringRef Descr) {
  if (Descr.size() >= 2) {
    char Order = Descr.front();
    StringRef Kind = Descr.drop_front();
    for (const DTypeInfo &I : Infos) {
      StringRef Want = StringRef(I.Descr).drop_front();
      if (Kind != Want)
        continue;
      // '=' is native order, which is little-endian on every host we build
      // for; '|' (not applicable) only makes sense for one-byte types.
      if (Order == '<' || Order == '=' || (Order == '|' && I.Size == 1))
        return I.Type;
      if (Order == '>') {
        if (I.Size == 1)
          return I.Type;
        return ioError("big-endian dtype '" + Descr +
                       "' is not supported; convert it in NumPy with "
                       "arr.astype('<" +
                       Kind + "')");
      }
    }
  }
  return ioError("unsupported dtype '" + Descr +
                 "'; supported dtypes are |b1 |i1 |u1 <i2 <i4 <i8 <u2 <u4 "
                 "<u8 <f2 <f4 <f8 (little-endian, fixed-size numbers)");
}

} // namespace aimz::io
