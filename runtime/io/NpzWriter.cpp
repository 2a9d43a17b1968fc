//===- NpzWriter.cpp - Write uncompressed .npz archives -------------------===//

#include "aimz/io/Npz.h"
#include "aimz/io/Shape.h"

#include "Errors.h"
#include "OutputFile.h"
#include "Zip.h"

#include "llvm/ADT/StringSet.h"

using namespace llvm;

namespace aimz::io {

Error writeNpz(StringRef Path, ArrayRef<NpzMember> Members,
               const NpzWriteOptions &Options) {
  StringSet<> Seen;
  for (const NpzMember &M : Members) {
    if (M.Name.empty())
      return ioError("cannot write '" + Path + "': an array has an empty name");
    if (!Seen.insert(M.Name).second)
      return ioError("cannot write '" + Path + "': array name '" + M.Name +
                     "' is used twice");
    std::optional<uint64_t> Bytes = checkedNumBytes(M.Shape, dtypeSize(M.Type));
    if (!Bytes)
      return ioError("cannot write '" + Path + "': array '" + M.Name +
                     "' has shape " + formatShape(M.Shape) +
                     " which overflows 64 bits");
    if (*Bytes && !M.Data)
      return ioError("cannot write '" + Path + "': array '" + M.Name +
                     "' has no data");
  }
  Expected<OutputFile> Out = OutputFile::create(Path, ".partial");
  if (!Out)
    return Out.takeError();
  zip::Writer Zip(*Out, 64, Options.ForceZip64);
  for (const NpzMember &M : Members) {
    std::string Header = makeNpyHeader(M.Type, M.Shape);
    uint64_t Bytes = *checkedNumBytes(M.Shape, dtypeSize(M.Type));
    ArrayRef<uint8_t> Pieces[] = {
        ArrayRef<uint8_t>(reinterpret_cast<const uint8_t *>(Header.data()),
                          Header.size()),
        ArrayRef<uint8_t>(static_cast<const uint8_t *>(M.Data), Bytes)};
    if (Error E = Zip.addStored(M.Name + ".npy", Pieces))
      return E;
  }
  if (Error E = Zip.finish())
    return E;
  return Out->commit();
}

} // namespace aimz::io
