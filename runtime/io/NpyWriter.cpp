//===- NpyWriter.cpp - Write .npy files -----------------------------------===//

#include "aimz/io/Npy.h"
#include "aimz/io/Shape.h"

#include "Errors.h"
#include "OutputFile.h"

using namespace llvm;

namespace aimz::io {

Error writeNpy(StringRef Path, DType Type, ArrayRef<uint64_t> Shape,
               const void *Data) {
  std::optional<uint64_t> Bytes = checkedNumBytes(Shape, dtypeSize(Type));
  if (!Bytes)
    return ioError("cannot write '" + Path + "': shape " + formatShape(Shape) +
                   " overflows 64 bits");
  if (*Bytes != 0 && !Data)
    return ioError("cannot write '" + Path + "': no data for shape " +
                   formatShape(Shape));
  Expected<OutputFile> Out = OutputFile::create(Path, ".partial");
  if (!Out)
    return Out.takeError();
  if (Error E = Out->write(makeNpyHeader(Type, Shape)))
    return E;
  if (Error E = Out->write(Data, *Bytes))
    return E;
  return Out->commit();
}

} // namespace aimz::io
