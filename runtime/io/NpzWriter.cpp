//===- NpzWriter.cpp - Write uncompressed .npz archives -------------------===//

#include "aimz/io/Npz.h"
#include "aimz/io/Shape.h"

#include "Errors.h"
#include "OutputFile.h"
#include "StoreTree.h"
#include "Zip.h"

#include "aimz/io/OutputLock.h"

#include "llvm/ADT/StringSet.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace llvm;

namespace aimz::io {

namespace {
/// Only an .npz (a zip archive) is ever replaced, never through a link.
Error checkReplaceableFile(StringRef Path) {
  if (Error E = checkNotSymlink(Path))
    return E;
  std::string P = Path.str();
  struct stat St;
  if (::stat(P.c_str(), &St) != 0)
    return Error::success();
  char Magic[4] = {};
  bool Zip = false;
  if (S_ISREG(St.st_mode)) {
    if (St.st_size == 0)
      Zip = true; // An empty file holds nothing to lose.
    int FD = ::open(P.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (FD >= 0) {
      Zip = Zip || (::read(FD, Magic, 4) == 4 && Magic[0] == 'P' &&
                    Magic[1] == 'K');
      ::close(FD);
    }
  }
  if (!Zip)
    return ioError("refusing to write '" + Path +
                   "': the path exists and is not an .npz archive; remove "
                   "it or choose another output path");
  return Error::success();
}
} // namespace

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
  if (Error E = checkReplaceableFile(Path))
    return E;
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
  if (Error E = Out->commit(Options.Sync))
    return E;
  return Options.Sync ? syncParentDirectory(Path.str()) : Error::success();
}

} // namespace aimz::io
