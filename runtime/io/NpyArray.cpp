//===- NpyArray.cpp - Memory-mapped .npy arrays ---------------------------===//

#include "aimz/io/Npy.h"
#include "aimz/io/Shape.h"

#include "Errors.h"

using namespace llvm;

namespace aimz::io {

Expected<NpyArray> NpyArray::open(StringRef Path) {
  Expected<std::shared_ptr<const MappedFile>> File = MappedFile::open(Path);
  if (!File)
    return File.takeError();
  const MappedFile &F = **File;
  ArrayRef<uint8_t> Bytes(F.data(), F.size());
  return fromBytes(Bytes, Path.str(), *File, *File);
}

Expected<NpyArray> NpyArray::fromBytes(ArrayRef<uint8_t> Bytes,
                                       std::string Name,
                                       std::shared_ptr<const void> Owner,
                                       std::shared_ptr<const MappedFile> File) {
  Expected<NpyHeader> H = parseNpyHeader(Bytes, Name);
  if (!H)
    return H.takeError();
  // parseNpyHeader has checked that this product does not overflow.
  uint64_t NumElements = *checkedNumElements(H->Shape);
  uint64_t Want = NumElements * dtypeSize(H->Type);
  uint64_t Have = Bytes.size() - H->DataOffset;
  if (Have < Want)
    return ioError("'" + Name + "' is truncated: its header promises shape " +
                   formatShape(H->Shape) + " of " + dtypeDescr(H->Type) +
                   " = " + Twine(Want) + " data bytes, but only " +
                   Twine(Have) + " follow the header");
  NpyArray A;
  A.Header = std::move(*H);
  A.Name = std::move(Name);
  A.NumElements = NumElements;
  A.Data = Bytes.data() + A.Header.DataOffset;
  A.Owner = std::move(Owner);
  A.File = std::move(File);
  return A;
}

NpyArray NpyArray::fromMemory(DType Type, std::vector<uint64_t> Shape,
                              const void *Data, std::string Name,
                              std::shared_ptr<const void> Owner) {
  NpyArray A;
  A.Header.Type = Type;
  A.Header.Shape = std::move(Shape);
  A.Name = std::move(Name);
  A.NumElements = 1;
  for (uint64_t D : A.Header.Shape)
    A.NumElements *= D;
  A.Data = Data;
  A.Owner = std::move(Owner);
  return A;
}

Error NpyArray::advise(Access A) const {
  if (!File || numBytes() == 0)
    return Error::success();
  uint64_t Offset = static_cast<const uint8_t *>(Data) - File->data();
  return File->advise(A, Offset, numBytes());
}

Error NpyArray::checkAccess(DType Want, size_t Align) const {
  if (Want != dtype() || dtypeSize(Want) != elementSize())
    return ioError("'" + Name + "' holds " + dtypeDescr(dtype()) +
                   " values, but they were requested as " + dtypeDescr(Want));
  if (reinterpret_cast<uintptr_t>(Data) % Align != 0)
    return ioError("'" + Name +
                   "' has misaligned data (the archive was written without "
                   "alignment padding); copy it out with memcpy instead");
  return Error::success();
}

} // namespace aimz::io
