//===- NpyTest.cpp - .npy reading and writing -----------------------------===//

#include "aimz/io/Npy.h"

#include "TestUtil.h"

#include "llvm/Support/Endian.h"

#include <cmath>
#include <cstring>
#include <unistd.h>

using namespace aimz::io;
using namespace aimz::io::test;

namespace {

/// Deterministic bytes for any dtype (bools must be 0/1).
std::vector<uint8_t> pattern(DType T, uint64_t N) {
  std::vector<uint8_t> B(N * dtypeSize(T));
  for (size_t I = 0; I < B.size(); ++I)
    B[I] = T == DType::Bool ? uint8_t(I % 3 == 0) : uint8_t(I * 37 + 11);
  return B;
}

/// A .npy image with an arbitrary version and raw dict text.
std::string npyImage(unsigned Major, const std::string &Dict,
                     const std::vector<uint8_t> &Data) {
  std::string H = "\x93NUMPY";
  H += char(Major);
  H += char(0);
  std::string Text = Dict;
  size_t Prefix = Major == 1 ? 10 : 12;
  while ((Prefix + Text.size() + 1) % 64)
    Text += ' ';
  Text += '\n';
  char Len[4];
  llvm::support::endian::write32le(Len, uint32_t(Text.size()));
  H.append(Len, Major == 1 ? 2 : 4);
  H += Text;
  H.append(Data.begin(), Data.end());
  return H;
}

class NpyDTypeTest : public ::testing::TestWithParam<DType> {};

TEST_P(NpyDTypeTest, RoundTrip) {
  DType T = GetParam();
  TempDir Tmp;
  std::string Path = Tmp / "a.npy";
  std::vector<uint64_t> Shape = {3, 4, 5};
  std::vector<uint8_t> Data = pattern(T, 60);
  ASSERT_OK(writeNpy(Path, T, Shape, Data.data()));
  EXPECT_FALSE(exists(Path + ".partial"));

  auto A = NpyArray::open(Path);
  ASSERT_EXPECTED(A);
  EXPECT_EQ(A->dtype(), T);
  EXPECT_EQ(std::vector<uint64_t>(A->shape().begin(), A->shape().end()), Shape);
  EXPECT_EQ(A->elementSize(), dtypeSize(T));
  EXPECT_EQ(A->numElements(), 60u);
  EXPECT_EQ(A->numBytes(), Data.size());
  EXPECT_EQ(A->formatVersion(), 1u);
  EXPECT_TRUE(A->isAligned());
  // NumPy's writers, and ours, start data on a 64-byte boundary.
  EXPECT_EQ(reinterpret_cast<uintptr_t>(A->data()) % 64, 0u);
  EXPECT_EQ(std::memcmp(A->data(), Data.data(), Data.size()), 0);
  ASSERT_OK(A->adviseSequential());
}

INSTANTIATE_TEST_SUITE_P(AllDTypes, NpyDTypeTest,
                         ::testing::Values(DType::Bool, DType::Int8,
                                           DType::Int16, DType::Int32,
                                           DType::Int64, DType::UInt8,
                                           DType::UInt16, DType::UInt32,
                                           DType::UInt64, DType::Float16,
                                           DType::Float32, DType::Float64),
                         [](const ::testing::TestParamInfo<DType> &I) {
                           std::string S = dtypeV3Name(I.param).str();
                           return S;
                         });

TEST(Npy, ScalarAndEmpty) {
  TempDir Tmp;
  double X = 2.25;
  ASSERT_OK(writeNpy(Tmp / "s.npy", DType::Float64, {}, &X));
  auto S = NpyArray::open(Tmp / "s.npy");
  ASSERT_EXPECTED(S);
  EXPECT_TRUE(S->shape().empty());
  EXPECT_EQ(S->numElements(), 1u);
  auto V = S->values<double>();
  ASSERT_EXPECTED(V);
  EXPECT_EQ((*V)[0], 2.25);

  ASSERT_OK(writeNpy(Tmp / "e.npy", DType::Float32, {0, 3}, nullptr));
  auto E = NpyArray::open(Tmp / "e.npy");
  ASSERT_EXPECTED(E);
  EXPECT_EQ(E->numElements(), 0u);
  EXPECT_EQ(E->shape().size(), 2u);
}

TEST(Npy, HeaderVersions) {
  TempDir Tmp;
  std::vector<uint8_t> Data = pattern(DType::Int32, 6);
  for (unsigned Major : {1u, 2u, 3u}) {
    std::string P = Tmp / ("v" + std::to_string(Major) + ".npy");
    writeFile(P, npyImage(Major,
                          "{'descr': '<i4', 'fortran_order': False, "
                          "'shape': (2, 3), }",
                          Data));
    auto A = NpyArray::open(P);
    ASSERT_EXPECTED(A);
    EXPECT_EQ(A->formatVersion(), Major);
    EXPECT_EQ(A->dtype(), DType::Int32);
    EXPECT_EQ(std::memcmp(A->data(), Data.data(), Data.size()), 0);
  }
}

TEST(Npy, HeaderSpellings) {
  TempDir Tmp;
  std::vector<uint8_t> Data = pattern(DType::Float32, 3);
  // Double quotes, Python 2 longs, no trailing comma, odd spacing.
  writeFile(Tmp / "a.npy",
            npyImage(1,
                     "{\"shape\":(3L,),\"fortran_order\" : False,"
                     "\"descr\":\"<f4\"}",
                     Data));
  auto A = NpyArray::open(Tmp / "a.npy");
  ASSERT_EXPECTED(A);
  ASSERT_EQ(A->shape().size(), 1u);
  EXPECT_EQ(A->shape()[0], 3u);
}

TEST(Npy, WideHeaderUsesVersion2) {
  // 25000 dimensions of extent 1 need more than 64 KiB of header text.
  std::vector<uint64_t> Shape(25000, 1);
  std::string H = makeNpyHeader(DType::Float32, Shape);
  EXPECT_EQ(H[6], 2);
  EXPECT_EQ(H.size() % 64, 0u);
  TempDir Tmp;
  float X = 1;
  ASSERT_OK(writeNpy(Tmp / "w.npy", DType::Float32, Shape, &X));
  auto A = NpyArray::open(Tmp / "w.npy");
  ASSERT_EXPECTED(A);
  EXPECT_EQ(A->formatVersion(), 2u);
  EXPECT_EQ(A->shape().size(), 25000u);
}

TEST(Npy, ReadsNumpyFiles) {
  std::string Dir = fixturesDir();
  if (Dir.empty())
    GTEST_SKIP() << "/usr/bin/python3 with numpy is not available";
  for (unsigned Major : {1u, 2u, 3u}) {
    auto A = NpyArray::open(Dir + "/v" + std::to_string(Major) + ".npy");
    ASSERT_EXPECTED(A);
    EXPECT_EQ(A->formatVersion(), Major);
    EXPECT_EQ(A->dtype(), DType::Float32);
    ASSERT_EQ(A->shape().size(), 2u);
    EXPECT_EQ(A->shape()[0], 3u);
    EXPECT_EQ(A->shape()[1], 5u);
    auto V = A->values<float>();
    ASSERT_EXPECTED(V);
    for (uint64_t I = 0; I < 15; ++I)
      EXPECT_EQ((*V)[I], ruleValue<float>(I));
  }
}

TEST(Npy, RejectsNumpyFortranBigEndianComplexStructured) {
  std::string Dir = fixturesDir();
  if (Dir.empty())
    GTEST_SKIP() << "/usr/bin/python3 with numpy is not available";
  auto F = NpyArray::open(Dir + "/fortran.npy");
  std::string M = errorText(F);
  EXPECT_NE(M.find("Fortran"), std::string::npos) << M;
  EXPECT_NE(M.find("np.ascontiguousarray"), std::string::npos) << M;
  EXPECT_NE(M.find("fortran.npy"), std::string::npos) << M;

  auto B = NpyArray::open(Dir + "/bigendian.npy");
  M = errorText(B);
  EXPECT_NE(M.find("big-endian dtype '>f4'"), std::string::npos) << M;
  EXPECT_NE(M.find("astype('<f4')"), std::string::npos) << M;

  auto C = NpyArray::open(Dir + "/complex.npy");
  M = errorText(C);
  EXPECT_NE(M.find("unsupported dtype '<c8'"), std::string::npos) << M;

  auto S = NpyArray::open(Dir + "/structured.npy");
  M = errorText(S);
  EXPECT_NE(M.find("structured"), std::string::npos) << M;
}

TEST(Npy, TruncatedData) {
  TempDir Tmp;
  std::string P = Tmp / "t.npy";
  std::vector<uint8_t> Data = pattern(DType::Float64, 100);
  ASSERT_OK(writeNpy(P, DType::Float64, {10, 10}, Data.data()));
  ASSERT_EQ(::truncate(P.c_str(), 128 + 500), 0);
  auto A = NpyArray::open(P);
  std::string M = errorText(A);
  EXPECT_NE(M.find("truncated"), std::string::npos) << M;
  EXPECT_NE(M.find("(10, 10)"), std::string::npos) << M;
  EXPECT_NE(M.find("800 data bytes"), std::string::npos) << M;
  EXPECT_NE(M.find("only 500"), std::string::npos) << M;
  EXPECT_NE(M.find(P), std::string::npos) << M;
}

TEST(Npy, TruncatedHeader) {
  TempDir Tmp;
  std::string Full = npyImage(1,
                              "{'descr': '<f4', 'fortran_order': False, "
                              "'shape': (2,), }",
                              pattern(DType::Float32, 2));
  for (size_t Cut : {7u, 9u, 40u}) {
    writeFile(Tmp / "h.npy", Full.substr(0, Cut));
    auto A = NpyArray::open(Tmp / "h.npy");
    std::string M = errorText(A);
    EXPECT_NE(M.find("truncated"), std::string::npos) << Cut << ": " << M;
  }
}

TEST(Npy, GarbageAndWrongKinds) {
  TempDir Tmp;
  writeFile(Tmp / "g.npy", std::string("hello, world, not an array"));
  std::string M = errorText(NpyArray::open(Tmp / "g.npy").takeError());
  EXPECT_NE(M.find("not a .npy file"), std::string::npos) << M;

  writeFile(Tmp / "empty.npy", std::string());
  M = errorText(NpyArray::open(Tmp / "empty.npy").takeError());
  EXPECT_NE(M.find("not a .npy file"), std::string::npos) << M;

  writeFile(Tmp / "z.npy", std::string("PK\x03\x04rest of a zip", 18));
  M = errorText(NpyArray::open(Tmp / "z.npy").takeError());
  EXPECT_NE(M.find("zip archive"), std::string::npos) << M;

  M = errorText(NpyArray::open(Tmp / "missing.npy").takeError());
  EXPECT_NE(M.find("missing.npy"), std::string::npos) << M;
  EXPECT_NE(M.find("No such file"), std::string::npos) << M;

  M = errorText(NpyArray::open(Tmp.path()).takeError());
  EXPECT_NE(M.find("not a regular file"), std::string::npos) << M;
}

TEST(Npy, MalformedHeaders) {
  TempDir Tmp;
  struct Case {
    unsigned Major;
    const char *Dict;
    const char *Want;
  } Cases[] = {
      {4, "{'descr': '<f4', 'fortran_order': False, 'shape': (1,), }",
       "version 4.0"},
      {1, "{'descr': '<f4', 'fortran_order': False, }", "must have"},
      {1, "{'descr': '<f4', 'fortran_order': Maybe, 'shape': (1,), }",
       "True or False"},
      {1, "{'descr': '<f4', 'fortran_order': False, 'shape': (-1,), }",
       "non-negative"},
      {1, "{'descr': '<f4', 'fortran_order': False, 'shape': (1,), 'x': 1}",
       "unexpected key 'x'"},
      {1, "['descr', '<f4']", "expected '{'"},
      {1,
       "{'descr': '<f8', 'fortran_order': False, "
       "'shape': (4294967296, 4294967296), }",
       "overflows"},
  };
  for (const Case &C : Cases) {
    writeFile(Tmp / "m.npy", npyImage(C.Major, C.Dict, {}));
    std::string M = errorText(NpyArray::open(Tmp / "m.npy").takeError());
    EXPECT_NE(M.find(C.Want), std::string::npos) << C.Dict << " -> " << M;
  }
}

TEST(Npy, TypedAccessChecksDType) {
  TempDir Tmp;
  std::vector<int32_t> Data = {1, 2, 3};
  ASSERT_OK(writeNpy(Tmp / "i.npy", DType::Int32, {3}, Data.data()));
  auto A = NpyArray::open(Tmp / "i.npy");
  ASSERT_EXPECTED(A);
  auto Bad = A->values<float>();
  std::string M = errorText(Bad);
  EXPECT_NE(M.find("holds <i4 values"), std::string::npos) << M;
  auto Good = A->values<int32_t>();
  ASSERT_EXPECTED(Good);
  EXPECT_EQ((*Good)[2], 3);
}

TEST(Npy, DescrParsing) {
  EXPECT_EQ(*parseDescr("=f8"), DType::Float64);
  EXPECT_EQ(*parseDescr("<u1"), DType::UInt8);
  EXPECT_EQ(*parseDescr(">b1"), DType::Bool); // Order is moot for one byte.
  std::string M = errorText(parseDescr("|f4").takeError());
  EXPECT_NE(M.find("unsupported dtype '|f4'"), std::string::npos) << M;
  M = errorText(parseDescr("<U10").takeError());
  EXPECT_NE(M.find("supported dtypes are"), std::string::npos) << M;
}

TEST(Npy, WriterRejectsMissingData) {
  TempDir Tmp;
  std::string M =
      errorText(writeNpy(Tmp / "x.npy", DType::Float32, {4}, nullptr));
  EXPECT_NE(M.find("no data"), std::string::npos) << M;
  EXPECT_FALSE(exists(Tmp / "x.npy"));
  M = errorText(
      writeNpy(Tmp.path() + "/no/such/dir/x.npy", DType::Float32, {}, &M));
  EXPECT_NE(M.find("cannot create"), std::string::npos) << M;
}

} // namespace
