//===- NpzTest.cpp - .npz reading and writing -----------------------------===//

#include "aimz/io/Npz.h"

#include "TestUtil.h"

#include "llvm/Support/Endian.h"

#include <cstring>
#include <fcntl.h>
#include <optional>
#include <unistd.h>
#include <zlib.h>

using namespace aimz::io;
using namespace aimz::io::test;
namespace endian = llvm::support::endian;

namespace {

/// Arrays following make_fixtures.py's rules, owned by the fixture.
struct RuleArrays {
  std::vector<float> Theta = fill<float>(15);
  std::vector<double> Beta = fill<double>(24);
  std::vector<int32_t> Counts = fill<int32_t>(7);
  std::vector<int64_t> Ids = fill<int64_t>(8);
  std::vector<uint8_t> Mask, Bytes = fill<uint8_t>(300);

  RuleArrays() {
    for (uint64_t I = 0; I < 10; ++I)
      Mask.push_back(ruleValue<bool>(I));
  }
  template <typename T> static std::vector<T> fill(uint64_t N) {
    std::vector<T> V;
    for (uint64_t I = 0; I < N; ++I)
      V.push_back(ruleValue<T>(I));
    return V;
  }
  std::vector<NpzMember> members() const {
    return {{"theta", DType::Float32, {3, 5}, Theta.data()},
            {"beta", DType::Float64, {2, 3, 4}, Beta.data()},
            {"counts", DType::Int32, {7}, Counts.data()},
            {"ids", DType::Int64, {4, 2}, Ids.data()},
            {"mask", DType::Bool, {10}, Mask.data()},
            {"bytes", DType::UInt8, {300}, Bytes.data()}};
  }
};

template <typename T>
void expectRule(const NpzArchive &Z, const std::string &Name, DType Type,
                std::vector<uint64_t> Shape) {
  SCOPED_TRACE(Name);
  auto A = Z.array(Name);
  ASSERT_EXPECTED(A);
  EXPECT_EQ(A->dtype(), Type);
  EXPECT_EQ(std::vector<uint64_t>(A->shape().begin(), A->shape().end()), Shape);
  const auto *Raw = static_cast<const uint8_t *>(A->data());
  for (uint64_t I = 0; I < A->numElements(); ++I) {
    T Got;
    std::memcpy(&Got, Raw + I * sizeof(T), sizeof(T));
    ASSERT_EQ(Got, ruleValue<T>(I)) << "element " << I;
  }
}

/// Checks every member of an archive written from make_fixtures.members().
void expectFixtureMembers(const NpzArchive &Z, bool WithExtras) {
  expectRule<float>(Z, "theta", DType::Float32, {3, 5});
  expectRule<double>(Z, "beta", DType::Float64, {2, 3, 4});
  expectRule<int32_t>(Z, "counts", DType::Int32, {7});
  expectRule<int64_t>(Z, "ids", DType::Int64, {4, 2});
  expectRule<bool>(Z, "mask", DType::Bool, {10});
  expectRule<uint8_t>(Z, "bytes", DType::UInt8, {300});
  if (!WithExtras)
    return;
  auto S = Z.array("scalar");
  ASSERT_EXPECTED(S);
  EXPECT_TRUE(S->shape().empty());
  double X; // NumPy does not align members inside the zip.
  std::memcpy(&X, S->data(), 8);
  EXPECT_EQ(X, 3.5);
  auto E = Z.array("empty");
  ASSERT_EXPECTED(E);
  EXPECT_EQ(E->numElements(), 0u);
}

TEST(Npz, WriteThenRead) {
  TempDir Tmp;
  RuleArrays R;
  ASSERT_OK(writeNpz(Tmp / "a.npz", R.members()));
  EXPECT_FALSE(exists(Tmp / "a.npz.partial"));
  auto Z = NpzArchive::open(Tmp / "a.npz");
  ASSERT_EXPECTED(Z);
  std::vector<std::string> Want = {"theta", "beta", "counts",
                                   "ids",   "mask", "bytes"};
  EXPECT_EQ(Z->names(), Want);
  expectFixtureMembers(*Z, false);
  for (const std::string &N : Want) {
    EXPECT_TRUE(Z->isStored(N));
    auto A1 = Z->array(N), A2 = Z->array(N);
    ASSERT_EXPECTED(A1);
    ASSERT_EXPECTED(A2);
    // Stored members are views into one mapping: same address, no copy,
    // and our writer aligns them to 64 bytes.
    EXPECT_EQ(A1->data(), A2->data());
    EXPECT_EQ(reinterpret_cast<uintptr_t>(A1->data()) % 64, 0u) << N;
    ASSERT_OK(A1->adviseSequential());
  }
}

TEST(Npz, ViewsOutliveArchive) {
  TempDir Tmp;
  RuleArrays R;
  ASSERT_OK(writeNpz(Tmp / "a.npz", R.members()));
  std::optional<NpyArray> A;
  {
    auto Z = NpzArchive::open(Tmp / "a.npz");
    ASSERT_EXPECTED(Z);
    auto X = Z->array("counts");
    ASSERT_EXPECTED(X);
    A.emplace(std::move(*X));
  }
  auto V = A->values<int32_t>();
  ASSERT_EXPECTED(V);
  EXPECT_EQ((*V)[6], ruleValue<int32_t>(6));
  EXPECT_EQ(A->name(), Tmp / "a.npz:counts");
}

TEST(Npz, ForcedZip64RoundTrip) {
  TempDir Tmp;
  RuleArrays R;
  ASSERT_OK(writeNpz(Tmp / "z.npz", R.members(), {/*ForceZip64=*/true}));
  auto Z = NpzArchive::open(Tmp / "z.npz");
  ASSERT_EXPECTED(Z);
  expectFixtureMembers(*Z, false);
}

TEST(Npz, NumpyReadsOurArchives) {
  if (!havePythonNumpy())
    GTEST_SKIP() << "/usr/bin/python3 with numpy is not available";
  TempDir Tmp;
  RuleArrays R;
  ASSERT_OK(writeNpz(Tmp / "a.npz", R.members()));
  ASSERT_OK(writeNpz(Tmp / "z.npz", R.members(), {true}));
  std::string Out;
  EXPECT_EQ(runPython({scriptPath("check_npz.py"), Tmp / "a.npz"}, &Out), 0)
      << Out;
  EXPECT_EQ(
      runPython({scriptPath("check_npz.py"), Tmp / "z.npz", "--zip64"}, &Out),
      0)
      << Out;
}

TEST(Npz, ReadsNumpyArchives) {
  std::string Dir = fixturesDir();
  if (Dir.empty())
    GTEST_SKIP() << "/usr/bin/python3 with numpy is not available";
  for (const char *F :
       {"stored.npz", "deflated.npz", "zip64.npz", "zip64-deflated.npz"}) {
    SCOPED_TRACE(F);
    auto Z = NpzArchive::open(Dir + "/" + F);
    ASSERT_EXPECTED(Z);
    EXPECT_EQ(Z->names().size(), 8u);
    bool Deflated = std::strstr(F, "deflated");
    EXPECT_EQ(Z->isStored("theta"), !Deflated);
    expectFixtureMembers(*Z, true);
  }
}

TEST(Npz, Errors) {
  TempDir Tmp;
  RuleArrays R;
  ASSERT_OK(writeNpz(Tmp / "a.npz", R.members()));
  auto Z = NpzArchive::open(Tmp / "a.npz");
  ASSERT_EXPECTED(Z);
  std::string M = errorText(Z->array("gamma").takeError());
  EXPECT_NE(M.find("no array named 'gamma'"), std::string::npos) << M;
  EXPECT_NE(M.find("theta, beta"), std::string::npos) << M;

  // Cut off the central directory, as an interrupted copy would.
  std::vector<uint8_t> Bytes = readFile(Tmp / "a.npz");
  writeFile(Tmp / "cut.npz", Bytes.data(), Bytes.size() - 100);
  M = errorText(NpzArchive::open(Tmp / "cut.npz").takeError());
  EXPECT_NE(M.find("truncated"), std::string::npos) << M;

  writeFile(Tmp / "junk.npz", std::string(1000, 'x'));
  M = errorText(NpzArchive::open(Tmp / "junk.npz").takeError());
  EXPECT_NE(M.find("not a valid zip/.npz archive"), std::string::npos) << M;

  writeFile(Tmp / "tiny.npz", std::string("PK"));
  M = errorText(NpzArchive::open(Tmp / "tiny.npz").takeError());
  EXPECT_NE(M.find("too short"), std::string::npos) << M;

  float X = 1;
  ASSERT_OK(writeNpy(Tmp / "x.npy", DType::Float32, {}, &X));
  M = errorText(NpzArchive::open(Tmp / "x.npy").takeError());
  EXPECT_NE(M.find("is a .npy file"), std::string::npos) << M;

  M = errorText(writeNpz(Tmp / "d.npz", {{"a", DType::Float32, {}, &X},
                                         {"a", DType::Float32, {}, &X}}));
  EXPECT_NE(M.find("'a' is used twice"), std::string::npos) << M;
  EXPECT_FALSE(exists(Tmp / "d.npz"));
}

TEST(Npz, CorruptDeflatedMember) {
  std::string Dir = fixturesDir();
  if (Dir.empty())
    GTEST_SKIP() << "/usr/bin/python3 with numpy is not available";
  TempDir Tmp;
  std::vector<uint8_t> Bytes = readFile(Dir + "/deflated.npz");
  // The first member's deflate stream starts after its local header.
  size_t Start =
      30 + endian::read16le(&Bytes[26]) + endian::read16le(&Bytes[28]);
  for (size_t I = Start + 20; I < Start + 40; ++I)
    Bytes[I] ^= 0x5a;
  writeFile(Tmp / "bad.npz", Bytes.data(), Bytes.size());
  auto Z = NpzArchive::open(Tmp / "bad.npz");
  ASSERT_EXPECTED(Z);
  std::string M = errorText(Z->array(Z->names()[0]).takeError());
  EXPECT_NE(M.find("cannot inflate"), std::string::npos) << M;
  EXPECT_NE(M.find("bad.npz:theta"), std::string::npos) << M;
}

/// CRC-32 of N zero bytes, by doubling (without touching N bytes).
uLong zerosCrc(uint64_t N) {
  static const Bytef Zero = 0;
  uLong Result = 0, Pow = crc32(0, &Zero, 1);
  uint64_t PowLen = 1;
  for (; N; N >>= 1) {
    if (N & 1)
      Result = crc32_combine64(Result, Pow, PowLen);
    Pow = crc32_combine64(Pow, Pow, PowLen);
    PowLen *= 2;
  }
  return Result;
}

/// A real ZIP64 archive whose first member is larger than 4 GiB, so the
/// second member's offset needs 64 bits. The big member's data is a hole in
/// a sparse file: nothing is written but headers (reading it checks its
/// CRC-32 over 4 GiB of zeros).
TEST(Npz, HugeStoredMemberInSparseFile) {
  TempDir Tmp;
  std::string Path = Tmp / "huge.npz";
  const uint64_t BigElems = (uint64_t(1) << 30) + 16; // 4 GiB + 64 bytes.
  std::string BigHeader = makeNpyHeader(DType::Float32, {BigElems});
  uint64_t BigSize = BigHeader.size() + BigElems * 4;
  int32_t Small[3] = {7, 8, 9};
  std::string SmallImage = makeNpyHeader(DType::Int32, {3});
  SmallImage.append(reinterpret_cast<const char *>(Small), sizeof(Small));

  std::string Out;
  auto U16 = [&](uint16_t V) {
    char B[2];
    endian::write16le(B, V);
    Out.append(B, 2);
  };
  auto U32 = [&](uint32_t V) {
    char B[4];
    endian::write32le(B, V);
    Out.append(B, 4);
  };
  auto U64 = [&](uint64_t V) {
    char B[8];
    endian::write64le(B, V);
    Out.append(B, 8);
  };
  const uLong BigCrc = crc32_combine64(
      crc32(0, reinterpret_cast<const Bytef *>(BigHeader.data()),
            BigHeader.size()),
      zerosCrc(BigElems * 4), BigElems * 4);
  const uLong SmallCrc =
      crc32(0, reinterpret_cast<const Bytef *>(SmallImage.data()),
            SmallImage.size());
  auto Local = [&](const std::string &Name, uint64_t Size, bool Zip64,
                   uLong Crc) {
    U32(0x04034b50);
    U16(45);
    U16(0);
    U16(0);
    U16(0);
    U16(0x21);
    U32(uint32_t(Crc));
    U32(Zip64 ? 0xffffffff : uint32_t(Size));
    U32(Zip64 ? 0xffffffff : uint32_t(Size));
    U16(uint16_t(Name.size()));
    U16(Zip64 ? 20 : 0);
    Out += Name;
    if (Zip64) {
      U16(1);
      U16(16);
      U64(Size);
      U64(Size);
    }
  };
  Local("big.npy", BigSize, true, BigCrc);
  Out += BigHeader;
  int FD = ::open(Path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  ASSERT_GE(FD, 0);
  ASSERT_EQ(::write(FD, Out.data(), Out.size()), ssize_t(Out.size()));
  uint64_t SmallOffset = Out.size() + BigElems * 4;
  Out.clear();
  Local("small.npy", SmallImage.size(), false, SmallCrc);
  Out += SmallImage;
  uint64_t DirOffset = SmallOffset + Out.size();
  auto Central = [&](const std::string &Name, uint64_t Size, uint64_t Off,
                     uLong Crc) {
    bool SizeSat = Size >= 0xffffffff, OffSat = Off >= 0xffffffff;
    U32(0x02014b50);
    U16(45);
    U16(45);
    U16(0);
    U16(0);
    U16(0);
    U16(0x21);
    U32(uint32_t(Crc));
    U32(SizeSat ? 0xffffffff : uint32_t(Size));
    U32(SizeSat ? 0xffffffff : uint32_t(Size));
    U16(uint16_t(Name.size()));
    U16(uint16_t((SizeSat || OffSat) ? 4 + 16 * SizeSat + 8 * OffSat : 0));
    U16(0);
    U16(0);
    U16(0);
    U32(0);
    U32(OffSat ? 0xffffffff : uint32_t(Off));
    Out += Name;
    if (SizeSat || OffSat) {
      U16(1);
      U16(uint16_t(16 * SizeSat + 8 * OffSat));
      if (SizeSat) {
        U64(Size);
        U64(Size);
      }
      if (OffSat)
        U64(Off);
    }
  };
  size_t DirStart = Out.size();
  Central("big.npy", BigSize, 0, BigCrc);
  Central("small.npy", SmallImage.size(), SmallOffset, SmallCrc);
  uint64_t DirSize = Out.size() - DirStart;
  uint64_t End64 = DirOffset + DirSize;
  U32(0x06064b50);
  U64(44);
  U16(45);
  U16(45);
  U32(0);
  U32(0);
  U64(2);
  U64(2);
  U64(DirSize);
  U64(DirOffset);
  U32(0x07064b50);
  U32(0);
  U64(End64);
  U32(1);
  U32(0x06054b50);
  U16(0);
  U16(0);
  U16(2);
  U16(2);
  U32(uint32_t(DirSize));
  U32(0xffffffff);
  U16(0);
  if (::pwrite(FD, Out.data(), Out.size(), off_t(SmallOffset)) !=
      ssize_t(Out.size())) {
    ::close(FD);
    GTEST_SKIP() << "this filesystem cannot hold a 4 GiB sparse file";
  }
  ::close(FD);

  auto Z = NpzArchive::open(Path);
  ASSERT_EXPECTED(Z);
  EXPECT_EQ(Z->names(), (std::vector<std::string>{"big", "small"}));
  auto Big = Z->array("big");
  ASSERT_EXPECTED(Big);
  EXPECT_EQ(Big->numBytes(), BigElems * 4);
  EXPECT_EQ(Big->shape()[0], BigElems);
  auto S = Z->array("small");
  ASSERT_EXPECTED(S);
  int32_t Got[3];
  ASSERT_EQ(S->numBytes(), sizeof(Got));
  std::memcpy(Got, S->data(), sizeof(Got));
  EXPECT_EQ(Got[2], 9);
}

} // namespace
