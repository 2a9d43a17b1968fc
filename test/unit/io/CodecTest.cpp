//===- CodecTest.cpp - Chunk codecs and their metadata --------------------===//

#include "aimz/io/Codec.h"

#include "TestUtil.h"

#include <cstring>
#include <random>

using namespace aimz::io;
using namespace aimz::io::test;
using json = nlohmann::json;

namespace {

TEST(Codec, DefaultIsBloscZstdAutoShuffle) {
  CodecOptions O;
  EXPECT_EQ(O.Kind, Compressor::Blosc);
  EXPECT_EQ(O.BloscCompressor, "zstd");
  EXPECT_EQ(effectiveShuffle(O, DType::Float32), Shuffle::Byte);
  EXPECT_EQ(effectiveShuffle(O, DType::Int32), Shuffle::Bit);
  EXPECT_EQ(effectiveShuffle(O, DType::Bool), Shuffle::Bit);
  json V2 = zarrV2Compressor(O, DType::Float32);
  EXPECT_EQ(V2["id"], "blosc");
  EXPECT_EQ(V2["cname"], "zstd");
  EXPECT_EQ(V2["shuffle"], 1);
  EXPECT_EQ(zarrV2Compressor(O, DType::Int64)["shuffle"], 2);
  json V3 = zarrV3Codecs(O, DType::Int32);
  ASSERT_EQ(V3.size(), 2u);
  EXPECT_EQ(V3[0]["name"], "bytes");
  EXPECT_EQ(V3[0]["configuration"]["endian"], "little");
  EXPECT_EQ(V3[1]["name"], "blosc");
  EXPECT_EQ(V3[1]["configuration"]["shuffle"], "bitshuffle");
  EXPECT_EQ(V3[1]["configuration"]["typesize"], 4);
  EXPECT_EQ(V3[1]["configuration"]["blocksize"], 1 << 20);
  EXPECT_EQ(V2["blocksize"], 1 << 20);
  // One-byte types carry no endianness.
  EXPECT_FALSE(zarrV3Codecs(O, DType::Bool)[0].contains("configuration"));
}

TEST(Codec, ParseAndPrint) {
  for (const char *S : {"none", "zstd:7", "blosc:lz4:5:bitshuffle",
                        "blosc:zstd:1:auto:65536", "blosc:zstd:3:noshuffle"})
    EXPECT_EQ(llvm::cantFail(CodecOptions::parse(S)).str(), S);
  auto K = CodecOptions::parse("blosc:zstd:2:shuffle:256K");
  ASSERT_EXPECTED(K);
  EXPECT_EQ(K->BloscBlockSize, 256u * 1024);
  EXPECT_EQ(K->Shuffling, Shuffle::Byte);
  struct {
    const char *Spec, *Want;
  } Bad[] = {{"gzip", "unknown compressor 'gzip'"},
             {"zstd:x", "level 'x' is not an integer"},
             {"zstd:99", "out of range"},
             {"blosc:zstd:12", "out of range 0..9"},
             {"blosc:snappy", "'snappy' is not supported"},
             {"blosc:zstd:1:wiggle", "unknown shuffle 'wiggle'"},
             {"none:3", "takes no parameters"}};
  for (auto &B : Bad) {
    std::string M = errorText(CodecOptions::parse(B.Spec).takeError());
    EXPECT_NE(M.find(B.Want), std::string::npos) << B.Spec << " -> " << M;
    EXPECT_NE(M.find("expected none, zstd"), std::string::npos) << M;
  }
}

TEST(Codec, RoundTripEveryCodec) {
  std::vector<float> Data(100000);
  std::mt19937 Rng(1);
  std::normal_distribution<float> N;
  for (float &X : Data)
    X = N(Rng);
  llvm::ArrayRef<uint8_t> In(reinterpret_cast<const uint8_t *>(Data.data()),
                             Data.size() * 4);
  for (const char *S :
       {"none", "zstd:1", "zstd:-3", "blosc:zstd:1:shuffle",
        "blosc:zstd:5:bitshuffle:64K", "blosc:lz4:5:noshuffle", "blosc"}) {
    SCOPED_TRACE(S);
    CodecOptions O = llvm::cantFail(CodecOptions::parse(S));
    PageBuffer Enc;
    auto Size = encodeChunk(O, DType::Float32, In, Enc);
    ASSERT_EXPECTED(Size);
    EXPECT_LE(*Size, encodedSizeBound(O, In.size()));
    std::vector<uint8_t> Out(In.size());
    ASSERT_OK(decodeChunk(O, llvm::ArrayRef<uint8_t>(Enc.data(), *Size), Out));
    EXPECT_EQ(std::vector<uint8_t>(In.begin(), In.end()), Out);
  }
}

TEST(Codec, BytesDoNotDependOnTheOutputBuffersHistory) {
  // A small chunk of random floats (a posterior's draws) compresses to
  // more than its size: Blosc then stores it raw or compressed by the room
  // it is given. Encoding into a fresh buffer and into scratch grown by an
  // earlier, larger chunk must give the same bytes.
  std::vector<float> Data(36);
  std::mt19937 Rng(3);
  std::normal_distribution<float> N;
  for (float &X : Data)
    X = N(Rng);
  llvm::ArrayRef<uint8_t> In(reinterpret_cast<const uint8_t *>(Data.data()),
                             Data.size() * 4);
  for (const char *S : {"blosc", "blosc:lz4:5:noshuffle", "zstd:3"}) {
    SCOPED_TRACE(S);
    CodecOptions O = llvm::cantFail(CodecOptions::parse(S));
    PageBuffer Fresh, Grown;
    ASSERT_OK(Grown.reserve(1 << 20));
    auto A = encodeChunk(O, DType::Float32, In, Fresh);
    auto B = encodeChunk(O, DType::Float32, In, Grown);
    ASSERT_EXPECTED(A);
    ASSERT_EXPECTED(B);
    ASSERT_EQ(*A, *B);
    EXPECT_EQ(std::memcmp(Fresh.data(), Grown.data(), *A), 0);
  }
}

TEST(Codec, ZstdRejectsShuffle) {
  CodecOptions O;
  O.Kind = Compressor::Zstd;
  O.Shuffling = Shuffle::Byte;
  std::string M = errorText(validateCodec(O));
  EXPECT_NE(M.find("only available with the blosc codec"), std::string::npos)
      << M;
}

} // namespace
