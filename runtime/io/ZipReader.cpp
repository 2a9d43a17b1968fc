//===- ZipReader.cpp - Read zip central directories -----------------------===//
//
// The central directory, not the local headers, is authoritative: Python's
// zipfile leaves sizes out of local headers when it streams (flag bit 3), and
// numpy forces ZIP64 local extras even for small members.
//
//===----------------------------------------------------------------------===//

#include "Errors.h"
#include "Zip.h"

#include "llvm/Support/Endian.h"

#include <zlib.h>

using namespace llvm;
using support::endian::read16le;
using support::endian::read32le;
using support::endian::read64le;

namespace aimz::io::zip {

namespace {
constexpr uint32_t LocalSig = 0x04034b50;
constexpr uint32_t CentralSig = 0x02014b50;
constexpr uint32_t EndSig = 0x06054b50;
constexpr uint32_t End64Sig = 0x06064b50;
constexpr uint32_t End64LocatorSig = 0x07064b50;
constexpr size_t LocalSize = 30;
constexpr size_t CentralSize = 46;
constexpr size_t EndSize = 22;
constexpr size_t End64Size = 56;
constexpr size_t End64LocatorSize = 20;
constexpr uint32_t Max32 = 0xffffffff;
constexpr uint16_t Max16 = 0xffff;

Error corrupt(const MappedFile &F, const Twine &What) {
  return ioError("'" + F.path() + "' is not a valid zip/.npz archive: " + What);
}

struct Directory {
  uint64_t Entries = 0;
  uint64_t Size = 0;
  uint64_t Offset = 0;
};

Expected<Directory> findDirectory(const MappedFile &F) {
  const uint8_t *D = F.data();
  uint64_t N = F.size();
  if (N < EndSize) {
    if (N >= 4 && read32le(D) == 0x474d554e) // "NUMP" of \x93NUMPY
      return corrupt(F, "it is a .npy file, not an archive");
    return corrupt(F, "the file is too short (" + Twine(N) + " bytes)");
  }
  // The end record sits before a comment of at most 64 KiB; scan backwards.
  uint64_t Lowest = N > EndSize + Max16 ? N - EndSize - Max16 : 0;
  uint64_t At = N - EndSize;
  while (true) {
    if (read32le(D + At) == EndSig && At + EndSize + read16le(D + At + 20) <= N)
      break;
    if (At == Lowest) {
      if (read32le(D) == LocalSig)
        return corrupt(F, "the end of central directory record is missing "
                          "(the file was truncated or is still being "
                          "written)");
      return corrupt(F, "no end of central directory record was found");
    }
    --At;
  }
  const uint8_t *E = D + At;
  if (read16le(E + 4) != 0 || read16le(E + 6) != 0)
    return corrupt(F, "multi-disk archives are not supported");
  Directory Dir{read16le(E + 10), read32le(E + 12), read32le(E + 16)};
  // A ZIP64 locator right before the end record overrides saturated fields.
  if (At >= End64LocatorSize &&
      read32le(D + At - End64LocatorSize) == End64LocatorSig) {
    uint64_t Off64 = read64le(D + At - End64LocatorSize + 8);
    if (Off64 > N || N - Off64 < End64Size || read32le(D + Off64) != End64Sig)
      return corrupt(F, "the ZIP64 end of central directory record at "
                        "offset " +
                            Twine(Off64) + " is invalid");
    const uint8_t *E64 = D + Off64;
    Dir.Entries = read64le(E64 + 32);
    Dir.Size = read64le(E64 + 40);
    Dir.Offset = read64le(E64 + 48);
  } else if (Dir.Entries == Max16 || Dir.Size == Max32 || Dir.Offset == Max32) {
    return corrupt(F, "the ZIP64 end of central directory locator is "
                      "missing");
  }
  if (Dir.Offset > N || N - Dir.Offset < Dir.Size)
    return corrupt(F, "the central directory (offset " + Twine(Dir.Offset) +
                          ", " + Twine(Dir.Size) +
                          " bytes) lies beyond the end of the file (" +
                          Twine(N) + " bytes); it is probably truncated");
  return Dir;
}

/// Replaces saturated 32-bit fields with their ZIP64 extra values, which
/// appear in a fixed order and only for the fields that are saturated.
Error applyZip64Extra(const MappedFile &F, ArrayRef<uint8_t> Extra, Entry &E,
                      bool SizeSaturated, bool CompSaturated,
                      bool OffsetSaturated) {
  while (Extra.size() >= 4) {
    uint16_t Id = read16le(Extra.data());
    uint16_t Len = read16le(Extra.data() + 2);
    if (Extra.size() - 4 < Len)
      break;
    ArrayRef<uint8_t> Body = Extra.slice(4, Len);
    if (Id == 0x0001) {
      size_t P = 0;
      auto Take = [&](uint64_t &Field) -> bool {
        if (Body.size() - P < 8)
          return false;
        Field = read64le(Body.data() + P);
        P += 8;
        return true;
      };
      if ((SizeSaturated && !Take(E.UncompressedSize)) ||
          (CompSaturated && !Take(E.CompressedSize)) ||
          (OffsetSaturated && !Take(E.LocalHeaderOffset)))
        return corrupt(F, "the ZIP64 extra field of '" + E.Name +
                              "' is too short");
      return Error::success();
    }
    Extra = Extra.drop_front(4 + Len);
  }
  return corrupt(F, "member '" + E.Name +
                        "' has 32-bit sizes saturated but no ZIP64 extra "
                        "field");
}
} // namespace

Expected<std::vector<Entry>> readDirectory(const MappedFile &F) {
  Expected<Directory> Dir = findDirectory(F);
  if (!Dir)
    return Dir.takeError();
  std::vector<Entry> Entries;
  const uint8_t *P = F.data() + Dir->Offset;
  const uint8_t *End = P + Dir->Size;
  for (uint64_t I = 0; I < Dir->Entries; ++I) {
    if (End - P < static_cast<ptrdiff_t>(CentralSize) ||
        read32le(P) != CentralSig)
      return corrupt(F, "central directory entry " + Twine(I) + " is damaged");
    uint16_t NameLen = read16le(P + 28);
    uint16_t ExtraLen = read16le(P + 30);
    uint16_t CommentLen = read16le(P + 32);
    if (End - P <
        static_cast<ptrdiff_t>(CentralSize) + NameLen + ExtraLen + CommentLen)
      return corrupt(F, "central directory entry " + Twine(I) + " is damaged");
    Entry E;
    E.Flags = read16le(P + 8);
    E.Method = read16le(P + 10);
    E.Crc32 = read32le(P + 16);
    E.CompressedSize = read32le(P + 20);
    E.UncompressedSize = read32le(P + 24);
    E.LocalHeaderOffset = read32le(P + 42);
    E.Name.assign(reinterpret_cast<const char *>(P + CentralSize), NameLen);
    bool SizeSat = E.UncompressedSize == Max32;
    bool CompSat = E.CompressedSize == Max32;
    bool OffSat = E.LocalHeaderOffset == Max32;
    if (SizeSat || CompSat || OffSat)
      if (Error Err = applyZip64Extra(
              F, ArrayRef<uint8_t>(P + CentralSize + NameLen, ExtraLen), E,
              SizeSat, CompSat, OffSat))
        return {std::move(Err)};
    Entries.push_back(std::move(E));
    P += CentralSize + NameLen + ExtraLen + CommentLen;
  }
  return Entries;
}

Expected<ArrayRef<uint8_t>> memberBytes(const MappedFile &F, const Entry &E) {
  if (E.Flags & 1)
    return ioError("'" + F.path() + "': member '" + E.Name +
                   "' is encrypted, which is not supported");
  uint64_t N = F.size();
  uint64_t At = E.LocalHeaderOffset;
  if (At > N || N - At < LocalSize || read32le(F.data() + At) != LocalSig)
    return corrupt(F, "the local header of '" + E.Name + "' at offset " +
                          Twine(At) + " is missing or damaged");
  const uint8_t *L = F.data() + At;
  uint64_t DataStart = At + LocalSize + read16le(L + 26) + read16le(L + 28);
  if (DataStart > N || N - DataStart < E.CompressedSize)
    return ioError("'" + F.path() + "' is truncated: member '" + E.Name +
                   "' needs " + Twine(E.CompressedSize) + " bytes at offset " +
                   Twine(DataStart) + " but the file has " + Twine(N) +
                   " bytes");
  return ArrayRef<uint8_t>(F.data() + DataStart, E.CompressedSize);
}

uint32_t crc32(uint32_t Crc, const void *Data, uint64_t Size) {
  return static_cast<uint32_t>(
      ::crc32_z(Crc, static_cast<const Bytef *>(Data), Size));
}

} // namespace aimz::io::zip
