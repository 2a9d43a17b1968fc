//===- ZipWriter.cpp - Write stored zip members ---------------------------===//
//
// Members are stored (not deflated) so readers can map them without a copy.
// ZIP64 records are emitted only when a size or offset needs them (or when a
// test forces them), which keeps small archives readable by old unzip tools.
//
//===----------------------------------------------------------------------===//

#include "Errors.h"
#include "OutputFile.h"
#include "Zip.h"

#include "llvm/Support/Endian.h"

using namespace llvm;

namespace aimz::io::zip {

namespace {
constexpr uint32_t Max32 = 0xffffffff;
constexpr uint16_t Max16 = 0xffff;
// Extra field id Android's zipalign uses for padding; readers skip it.
constexpr uint16_t AlignExtraId = 0xd935;
// Fixed 1980-01-01 00:00 timestamp keeps archives byte-for-byte reproducible.
constexpr uint16_t DosTime = 0;
constexpr uint16_t DosDate = (0 << 9) | (1 << 5) | 1;

class Buf {
public:
  void u16(uint16_t V) {
    char B[2];
    support::endian::write16le(B, V);
    S.append(B, 2);
  }
  void u32(uint32_t V) {
    char B[4];
    support::endian::write32le(B, V);
    S.append(B, 4);
  }
  void u64(uint64_t V) {
    char B[8];
    support::endian::write64le(B, V);
    S.append(B, 8);
  }
  void bytes(StringRef B) { S.append(B.data(), B.size()); }
  std::string S;
};

uint32_t sat32(uint64_t V, bool Zip64) {
  return Zip64 || V >= Max32 ? Max32 : static_cast<uint32_t>(V);
}
} // namespace

Error Writer::addStored(StringRef Name, ArrayRef<ArrayRef<uint8_t>> Pieces) {
  if (Name.size() > Max16)
    return ioError("zip member name is too long: " + Name.substr(0, 64) +
                   "...");
  Entry E;
  E.Name = Name.str();
  E.LocalHeaderOffset = Out.offset();
  for (ArrayRef<uint8_t> P : Pieces) {
    E.UncompressedSize += P.size();
    E.Crc32 = crc32(E.Crc32, P.data(), P.size());
  }
  E.CompressedSize = E.UncompressedSize;
  bool Zip64 = ForceZip64 || E.UncompressedSize >= Max32;

  Buf Extra;
  if (Zip64) {
    // The local ZIP64 extra must carry both sizes.
    Extra.u16(0x0001);
    Extra.u16(16);
    Extra.u64(E.UncompressedSize);
    Extra.u64(E.CompressedSize);
  }
  uint64_t DataStart = E.LocalHeaderOffset + 30 + Name.size() + Extra.S.size();
  if (Alignment > 1) {
    // A padding extra needs at least its 4-byte header plus 2 bytes.
    uint64_t Pad = (Alignment - (DataStart + 6) % Alignment) % Alignment;
    Extra.u16(AlignExtraId);
    Extra.u16(static_cast<uint16_t>(2 + Pad));
    Extra.u16(static_cast<uint16_t>(Alignment));
    Extra.bytes(std::string(Pad, '\0'));
  }

  Buf H;
  H.u32(0x04034b50);
  H.u16(Zip64 ? 45 : 20); // Version needed: 4.5 for ZIP64.
  H.u16(0);               // Flags.
  H.u16(MethodStored);
  H.u16(DosTime);
  H.u16(DosDate);
  H.u32(E.Crc32);
  H.u32(sat32(E.CompressedSize, Zip64));
  H.u32(sat32(E.UncompressedSize, Zip64));
  H.u16(static_cast<uint16_t>(Name.size()));
  H.u16(static_cast<uint16_t>(Extra.S.size()));
  H.bytes(Name);
  H.bytes(Extra.S);
  if (Error Err = Out.write(H.S))
    return Err;
  for (ArrayRef<uint8_t> P : Pieces)
    if (Error Err = Out.write(P.data(), P.size()))
      return Err;
  Entries.push_back(std::move(E));
  return Error::success();
}

Error Writer::finish() {
  uint64_t DirOffset = Out.offset();
  Buf D;
  for (const Entry &E : Entries) {
    bool SizeSat = ForceZip64 || E.UncompressedSize >= Max32;
    bool OffSat = ForceZip64 || E.LocalHeaderOffset >= Max32;
    Buf Extra;
    if (SizeSat || OffSat) {
      Extra.u16(0x0001);
      Extra.u16(static_cast<uint16_t>((SizeSat ? 16 : 0) + (OffSat ? 8 : 0)));
      if (SizeSat) {
        Extra.u64(E.UncompressedSize);
        Extra.u64(E.CompressedSize);
      }
      if (OffSat)
        Extra.u64(E.LocalHeaderOffset);
    }
    bool Zip64 = SizeSat || OffSat;
    D.u32(0x02014b50);
    D.u16((3 << 8) | 45); // Made by: Unix, spec 4.5.
    D.u16(Zip64 ? 45 : 20);
    D.u16(0);
    D.u16(MethodStored);
    D.u16(DosTime);
    D.u16(DosDate);
    D.u32(E.Crc32);
    D.u32(sat32(E.CompressedSize, SizeSat));
    D.u32(sat32(E.UncompressedSize, SizeSat));
    D.u16(static_cast<uint16_t>(E.Name.size()));
    D.u16(static_cast<uint16_t>(Extra.S.size()));
    D.u16(0);              // Comment length.
    D.u16(0);              // Disk number.
    D.u16(0);              // Internal attributes.
    D.u32(0100644u << 16); // External attributes: regular file, rw-r--r--.
    D.u32(sat32(E.LocalHeaderOffset, OffSat));
    D.bytes(E.Name);
    D.bytes(Extra.S);
  }
  uint64_t DirSize = D.S.size();
  uint64_t Count = Entries.size();
  bool Zip64End =
      ForceZip64 || Count >= Max16 || DirSize >= Max32 || DirOffset >= Max32;
  if (Zip64End) {
    uint64_t End64Offset = DirOffset + DirSize;
    D.u32(0x06064b50);
    D.u64(44); // Size of the rest of this record.
    D.u16((3 << 8) | 45);
    D.u16(45);
    D.u32(0);
    D.u32(0);
    D.u64(Count);
    D.u64(Count);
    D.u64(DirSize);
    D.u64(DirOffset);
    D.u32(0x07064b50);
    D.u32(0);
    D.u64(End64Offset);
    D.u32(1);
  }
  D.u32(0x06054b50);
  D.u16(0);
  D.u16(0);
  uint16_t Count16 = Zip64End || Count >= Max16 ? Max16 : uint16_t(Count);
  D.u16(Count16);
  D.u16(Count16);
  D.u32(sat32(DirSize, Zip64End));
  D.u32(sat32(DirOffset, Zip64End));
  D.u16(0);
  return Out.write(D.S);
}

} // namespace aimz::io::zip
