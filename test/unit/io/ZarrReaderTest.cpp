//===- ZarrReaderTest.cpp - Arrays read back from Zarr stores -------------===//
#include "TestUtil.h"

#include "aimz/io/Codec.h"
#include "aimz/io/Zarr.h"
#include "aimz/io/ZarrReader.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <vector>

using namespace aimz::io;
using namespace aimz::io::test;

namespace {

/// A 5x4x7 float array in 2x3x3 chunks (edge chunks on every axis),
/// written through ZarrWriter with codec O, read back whole.
void roundTrip(ZarrFormat F, const std::string &Codec, bool DropOne,
               bool Spill = false) {
  TempDir Tmp;
  const std::string Dir = Tmp / "r.zarr";
  auto O = CodecOptions::parse(Codec);
  ASSERT_EXPECTED(O);
  auto W = ZarrWriter::create(Dir, F, *O);
  ASSERT_EXPECTED(W);
  ASSERT_OK((*W)->addGroup("g"));
  ASSERT_OK((*W)->addArray("g/x", DType::Float32, {5, 4, 7}, {2, 3, 3},
                           {"a", "b", "c"}));
  auto Value = [](uint64_t I, uint64_t J, uint64_t K) {
    return float(I * 100 + J * 10 + K) + 0.25f;
  };
  for (uint64_t I = 0; I < 3; ++I)
    for (uint64_t J = 0; J < 2; ++J)
      for (uint64_t K = 0; K < 3; ++K) {
        if (DropOne && I == 1 && J == 1 && K == 2)
          continue; // never written: the fill value (NaN)
        std::vector<float> Buf(18, -7.0f);
        for (uint64_t A = 0; A < 2; ++A)
          for (uint64_t B = 0; B < 3; ++B)
            for (uint64_t C = 0; C < 3; ++C)
              Buf[(A * 3 + B) * 3 + C] =
                  Value(I * 2 + A, J * 3 + B, K * 3 + C);
        ASSERT_OK((*W)->writeChunk("g/x", {I, J, K}, Buf.data(), 18 * 4));
      }
  ASSERT_OK((*W)->finish());
  // Spill: past a memory bound of 0 bytes, decoded into a spill file.
  auto A = readZarrArray(Dir, "g/x", {Spill ? 0 : UINT64_MAX, 0, ""});
  ASSERT_EXPECTED(A);
  EXPECT_EQ(A->dtype(), DType::Float32);
  ASSERT_EQ(std::vector<uint64_t>(A->shape().begin(), A->shape().end()),
            (std::vector<uint64_t>{5, 4, 7}));
  const float *P = static_cast<const float *>(A->data());
  for (uint64_t I = 0; I < 5; ++I)
    for (uint64_t J = 0; J < 4; ++J)
      for (uint64_t K = 0; K < 7; ++K) {
        const float Got = P[(I * 4 + J) * 7 + K];
        if (DropOne && I / 2 == 1 && J / 3 == 1 && K / 3 == 2)
          EXPECT_TRUE(std::isnan(Got)) << I << "," << J << "," << K;
        else
          EXPECT_EQ(Got, Value(I, J, K)) << I << "," << J << "," << K;
      }
}

TEST(ZarrReader, V2RoundTrip) { roundTrip(ZarrFormat::V2, "blosc", false); }
TEST(ZarrReader, V3RoundTrip) { roundTrip(ZarrFormat::V3, "zstd:3", false); }
TEST(ZarrReader, RawChunks) { roundTrip(ZarrFormat::V2, "none", false); }
TEST(ZarrReader, SpilledToAFile) {
  roundTrip(ZarrFormat::V3, "zstd:3", true, /*Spill=*/true);
}

TEST(SpillBuffer, MemoryOrAFile) {
  auto M = allocateSpillable(4096, 4096, "a test");
  ASSERT_EXPECTED(M);
  EXPECT_FALSE(M->Spilled);
  auto F = allocateSpillable(1 << 20, 4096, "a test");
  ASSERT_EXPECTED(F);
  EXPECT_TRUE(F->Spilled);
  EXPECT_EQ(F->Data.get()[(1 << 20) - 1], 0); // zeroed, writable
  F->Data.get()[12345] = 7;
  EXPECT_EQ(F->Data.get()[12345], 7);
  // Nowhere to spill to: an error that says what to do.
  const char *Old = std::getenv("TMPDIR");
  std::string Saved = Old ? Old : "";
  ::setenv("TMPDIR", "/nonexistent-aimz-spill", 1);
  auto E = allocateSpillable(1 << 20, 4096, "input 'X'");
  if (Old)
    ::setenv("TMPDIR", Saved.c_str(), 1);
  else
    ::unsetenv("TMPDIR");
  ASSERT_FALSE(static_cast<bool>(E));
  std::string Msg = errorText(E.takeError());
  EXPECT_NE(Msg.find("input 'X'"), std::string::npos) << Msg;
  EXPECT_NE(Msg.find("set TMPDIR"), std::string::npos) << Msg;
}
TEST(ZarrReader, MissingChunkIsTheFillValue) {
  roundTrip(ZarrFormat::V2, "blosc:lz4:5", true);
  roundTrip(ZarrFormat::V3, "blosc", true);
}

TEST(ZarrReader, ScalarsAndIntegers) {
  for (ZarrFormat F : {ZarrFormat::V2, ZarrFormat::V3}) {
    TempDir Tmp;
    auto W = ZarrWriter::create(Tmp / "s.zarr", F, CodecOptions{});
    ASSERT_EXPECTED(W);
    ASSERT_OK((*W)->addArray("lp", DType::Float64, {}, {}, {}));
    ASSERT_OK((*W)->addArray("k", DType::Int32, {5}, {2}, {"n"}));
    double X = -1.5;
    ASSERT_OK((*W)->writeChunk("lp", {}, &X, 8));
    for (uint64_t C = 0; C < 3; ++C) {
      int32_t V[2] = {int32_t(C * 2), int32_t(C * 2 + 1)};
      ASSERT_OK((*W)->writeChunk("k", {C}, V, C == 2 ? 4 : 8));
    }
    ASSERT_OK((*W)->finish());
    auto S = readZarrArray(Tmp / "s.zarr", "lp");
    ASSERT_EXPECTED(S);
    EXPECT_TRUE(S->shape().empty());
    EXPECT_EQ(*static_cast<const double *>(S->data()), -1.5);
    auto K = readZarrArray(Tmp / "s.zarr", "k");
    ASSERT_EXPECTED(K);
    const int32_t *P = static_cast<const int32_t *>(K->data());
    for (int I = 0; I < 5; ++I)
      EXPECT_EQ(P[I], I);
  }
}

TEST(ZarrReader, Refusals) {
  TempDir Tmp;
  const std::string Dir = Tmp / "h.zarr";
  auto W = ZarrWriter::create(Dir, ZarrFormat::V2, CodecOptions{});
  ASSERT_EXPECTED(W);
  ASSERT_OK((*W)->addArray("x", DType::Float32, {4}, {2}, {"n"}));
  float V[2] = {1, 2};
  ASSERT_OK((*W)->writeChunk("x", {0}, V, 8));
  ASSERT_OK((*W)->finish());
  EXPECT_NE(errorText(readZarrArray(Dir, "y").takeError()).find("no array 'y'"),
            std::string::npos);
  // Metadata of the wrong JSON types, or none: one error each, never a
  // throw or a crash.
  for (const char *Meta :
       {R"({"shape": [4], "chunks": [2], "dtype": "<f4", "order": 5})",
        R"({"shape": [4], "chunks": [2], "dtype": "<f4", "compressor": {"id": 7}})",
        R"({"shape": [4], "chunks": [0], "dtype": "<f4", "compressor": null})",
        R"({"shape": "x", "chunks": [2], "dtype": "<f4"})", R"([1, 2])", "{"}) {
    std::filesystem::create_directories(Dir + "/bad");
    std::ofstream(Dir + "/bad/.zarray") << Meta;
    EXPECT_FALSE(errorText(readZarrArray(Dir, "bad").takeError()).empty())
        << Meta;
  }
  // A chunk past the caller's memory bound: refused before any allocation.
  EXPECT_NE(errorText(readZarrArray(Dir, "x", {UINT64_MAX, 4, "a test's 4 bytes"})
                          .takeError())
                .find("a test's 4 bytes"),
            std::string::npos);
  // A chunk that does not decode to its size.
  std::filesystem::resize_file(Dir + "/x/0", 20);
  EXPECT_NE(errorText(readZarrArray(Dir, "x").takeError()).find("x/0"),
            std::string::npos);
}

} // namespace
