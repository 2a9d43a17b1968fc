//===- NpzArchive.cpp - Read NumPy .npz archives --------------------------===//

#include "aimz/io/Npz.h"
#include "aimz/io/PageBuffer.h"

#include "Errors.h"
#include "Zip.h"

#include "llvm/ADT/STLExtras.h"

#include <climits>
#include <zlib.h>

using namespace llvm;

namespace aimz::io {

Expected<NpzArchive> NpzArchive::open(StringRef Path) {
  Expected<std::shared_ptr<const MappedFile>> File = MappedFile::open(Path);
  if (!File)
    return File.takeError();
  const MappedFile &F = **File;
  if (F.size() >= 6 &&
      StringRef(reinterpret_cast<const char *>(F.data()), 6) == "\x93NUMPY")
    return ioError("'" + Path +
                   "' is a .npy file, not an .npz archive; open it as a "
                   "single array");
  Expected<std::vector<zip::Entry>> Entries = zip::readDirectory(F);
  if (!Entries)
    return Entries.takeError();
  NpzArchive A;
  A.File = std::move(*File);
  for (zip::Entry &E : *Entries) {
    StringRef N = E.Name;
    if (!N.consume_back(".npy"))
      continue;
    // zip allows a name twice; numpy would read the last, a naive reader
    // the first. Neither is safe to guess.
    if (llvm::is_contained(A.Names, N))
      return ioError("'" + Path + "' holds two arrays named '" + N +
                     "'; the archive is ambiguous, write it again with "
                     "np.savez");
    A.Names.push_back(N.str());
    A.Members.push_back({E.Name, E.Method, E.Flags, E.Crc32, E.CompressedSize,
                         E.UncompressedSize, E.LocalHeaderOffset});
  }
  return A;
}

const NpzArchive::Member *NpzArchive::find(StringRef Name) const {
  for (size_t I = 0; I < Names.size(); ++I)
    if (Names[I] == Name)
      return &Members[I];
  return nullptr;
}

bool NpzArchive::contains(StringRef Name) const { return find(Name); }

bool NpzArchive::isStored(StringRef Name) const {
  const Member *M = find(Name);
  return M && M->Method == zip::MethodStored;
}

namespace {
/// Inflates a raw deflate stream of known size and checks its CRC.
Expected<PageBuffer> inflateMember(ArrayRef<uint8_t> In, uint64_t OutSize,
                                   uint32_t Crc, const Twine &Name) {
  Expected<PageBuffer> Out = PageBuffer::allocate(OutSize);
  if (!Out)
    return ioError("cannot inflate " + Name + ": " + toString(Out.takeError()));
  z_stream Z{};
  // Negative window bits: raw deflate, as zip stores it (no zlib header).
  if (inflateInit2(&Z, -MAX_WBITS) != Z_OK)
    return ioError("cannot inflate " + Name + ": zlib failed to initialise");
  uint64_t InPos = 0, OutPos = 0;
  Bytef Probe; // Catches output beyond the declared size.
  int Rc = Z_OK;
  // zlib counts in 32-bit units; feed members larger than 4 GiB in slices.
  while (Rc == Z_OK && Z.total_out <= OutSize) {
    if (Z.avail_in == 0 && InPos < In.size()) {
      Z.next_in = const_cast<Bytef *>(In.data() + InPos);
      Z.avail_in =
          static_cast<uInt>(std::min<uint64_t>(In.size() - InPos, UINT_MAX));
      InPos += Z.avail_in;
    }
    if (Z.avail_out == 0) {
      if (OutPos == OutSize) {
        Z.next_out = &Probe;
        Z.avail_out = 1;
      } else {
        Z.next_out = Out->data() + OutPos;
        Z.avail_out =
            static_cast<uInt>(std::min<uint64_t>(OutSize - OutPos, UINT_MAX));
        OutPos += Z.avail_out;
      }
    }
    Rc = inflate(&Z, Z_NO_FLUSH);
    // No progress possible: fatal only once the input is used up.
    if (Rc == Z_BUF_ERROR && !(Z.avail_in == 0 && InPos == In.size()))
      Rc = Z_OK;
  }
  uint64_t Produced = Z.total_out;
  inflateEnd(&Z);
  if (Produced > OutSize || (Rc == Z_STREAM_END && Produced != OutSize))
    return ioError("cannot inflate " + Name + ": the directory declares " +
                   Twine(OutSize) + " bytes but the stream holds " +
                   (Produced > OutSize ? "more" : Twine(Produced).str()));
  if (Rc != Z_STREAM_END)
    return ioError("cannot inflate " + Name +
                   ": the deflate stream is corrupt or truncated");
  if (zip::crc32(0, Out->data(), OutSize) != Crc)
    return ioError("cannot inflate " + Name +
                   ": CRC-32 mismatch, the archive is corrupt");
  return Out;
}
} // namespace

Expected<NpyArray> NpzArchive::array(StringRef Name) const {
  const Member *M = find(Name);
  if (!M) {
    std::string Have;
    for (const std::string &N : Names)
      Have += (Have.empty() ? "" : ", ") + N;
    return ioError("'" + path() + "' has no array named '" + Name +
                   "'; it has: " + (Have.empty() ? "(none)" : Have));
  }
  zip::Entry E{M->ZipName,
               M->Method,
               M->Flags,
               M->Crc32,
               M->CompressedSize,
               M->UncompressedSize,
               M->LocalHeaderOffset};
  Expected<ArrayRef<uint8_t>> Bytes = zip::memberBytes(*File, E);
  if (!Bytes)
    return Bytes.takeError();
  std::string Label = path() + ":" + Name.str();
  if (M->Method == zip::MethodStored) {
    if (M->CompressedSize != M->UncompressedSize)
      return ioError("'" + Label +
                     "' is stored but its sizes disagree; the archive is "
                     "corrupt");
    // Checked once per read (numpy checks it too): a flipped bit in a
    // stored posterior would otherwise run to plausible-looking results.
    if (zip::crc32(0, Bytes->data(), Bytes->size()) != M->Crc32)
      return ioError("'" + Label +
                     "': CRC-32 mismatch, the archive is corrupt (numpy "
                     "refuses it too: 'Bad CRC-32')");
    // A view: the array keeps the mapping alive, not the archive object.
    return NpyArray::fromBytes(*Bytes, Label, File, File);
  }
  if (M->Method != zip::MethodDeflated)
    return ioError("'" + Label + "' uses zip compression method " +
                   Twine(M->Method) +
                   "; only stored and deflated members are supported (as "
                   "np.savez and np.savez_compressed write them)");
  Expected<PageBuffer> Out =
      inflateMember(*Bytes, M->UncompressedSize, M->Crc32, "'" + Label + "'");
  if (!Out)
    return Out.takeError();
  auto Owner = std::make_shared<PageBuffer>(std::move(*Out));
  ArrayRef<uint8_t> Image(Owner->data(), Owner->size());
  return NpyArray::fromBytes(Image, Label, Owner);
}

} // namespace aimz::io
