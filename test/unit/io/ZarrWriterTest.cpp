//===- ZarrWriterTest.cpp - Zarr store layout, padding and atomicity ------===//

#include "aimz/io/Zarr.h"

#include "TestUtil.h"

#include "llvm/Support/FileSystem.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>
#include <thread>

using namespace aimz::io;
using namespace aimz::io::test;
using json = nlohmann::json;

namespace {

json readJson(const std::string &Path) {
  std::ifstream In(Path);
  json J = json::parse(In, nullptr, /*allow_exceptions=*/false);
  EXPECT_FALSE(J.is_discarded()) << Path;
  return J;
}

/// Decodes a chunk file of a store written with codec O.
std::vector<uint8_t> readChunk(const std::string &Path, const CodecOptions &O,
                               size_t Bytes) {
  std::vector<uint8_t> Enc = readFile(Path), Out(Bytes);
  llvm::Error E = decodeChunk(O, Enc, Out);
  EXPECT_FALSE(E) << Path << ": " << llvm::toString(std::move(E));
  return Out;
}

std::unique_ptr<ZarrWriter> makeWriter(const std::string &Dir, ZarrFormat F,
                                       CodecOptions O = {}) {
  auto W = ZarrWriter::create(Dir, F, O);
  EXPECT_TRUE(static_cast<bool>(W)) << llvm::toString(W.takeError());
  return W ? std::move(*W) : nullptr;
}

TEST(ZarrWriter, V2Metadata) {
  TempDir Tmp;
  std::string Dir = Tmp / "out.zarr";
  auto W = makeWriter(Dir, ZarrFormat::V2);
  ASSERT_TRUE(W);
  ASSERT_OK(W->addArray("theta", DType::Float32, {4, 6}, {2, 4},
                        {"draw", "theta_dim"}, {{"units", "m"}}));
  ASSERT_OK(W->addArray("y", DType::Int32, {5}, {5}, {"obs"}));
  ASSERT_OK(W->setGroupAttrs({{"model", "eight_schools"}, {"seed", 42}}));
  ASSERT_OK(W->finish());

  json Z = readJson(Dir + "/theta/.zarray");
  EXPECT_EQ(Z["zarr_format"], 2);
  EXPECT_EQ(Z["shape"], json({4, 6}));
  EXPECT_EQ(Z["chunks"], json({2, 4}));
  EXPECT_EQ(Z["dtype"], "<f4");
  EXPECT_EQ(Z["fill_value"], "NaN");
  EXPECT_EQ(Z["order"], "C");
  EXPECT_EQ(Z["filters"], nullptr);
  EXPECT_EQ(Z["dimension_separator"], ".");
  EXPECT_EQ(Z["compressor"]["id"], "blosc");
  EXPECT_EQ(Z["compressor"]["shuffle"], 1);
  json A = readJson(Dir + "/theta/.zattrs");
  EXPECT_EQ(A["_ARRAY_DIMENSIONS"], json({"draw", "theta_dim"}));
  EXPECT_EQ(A["units"], "m");
  // No fill value for integers, or xarray would mask every 0 as missing.
  EXPECT_EQ(readJson(Dir + "/y/.zarray")["fill_value"], nullptr);
  EXPECT_EQ(readJson(Dir + "/y/.zarray")["compressor"]["shuffle"], 2);
  EXPECT_EQ(readJson(Dir + "/.zgroup"), json({{"zarr_format", 2}}));
  EXPECT_EQ(readJson(Dir + "/.zattrs")["model"], "eight_schools");
  json C = readJson(Dir + "/.zmetadata");
  EXPECT_EQ(C["zarr_consolidated_format"], 1);
  EXPECT_EQ(C["metadata"]["theta/.zarray"], Z);
  EXPECT_EQ(C["metadata"]["theta/.zattrs"], A);
  EXPECT_EQ(C["metadata"][".zattrs"]["seed"], 42);
}

TEST(ZarrWriter, V3Metadata) {
  TempDir Tmp;
  std::string Dir = Tmp / "out.zarr";
  auto W = makeWriter(Dir, ZarrFormat::V3);
  ASSERT_TRUE(W);
  ASSERT_OK(W->addArray("theta", DType::Float64, {4, 6}, {2, 4},
                        {"draw", "theta_dim"}, {{"units", "m"}}));
  ASSERT_OK(W->addArray("flag", DType::Bool, {3}, {3}, {"obs"}));
  ASSERT_OK(W->setGroupAttrs({{"model", "m"}}));
  ASSERT_OK(W->finish());
  json Z = readJson(Dir + "/theta/zarr.json");
  EXPECT_EQ(Z["zarr_format"], 3);
  EXPECT_EQ(Z["node_type"], "array");
  EXPECT_EQ(Z["data_type"], "float64");
  EXPECT_EQ(Z["shape"], json({4, 6}));
  EXPECT_EQ(Z["chunk_grid"]["name"], "regular");
  EXPECT_EQ(Z["chunk_grid"]["configuration"]["chunk_shape"], json({2, 4}));
  EXPECT_EQ(Z["chunk_key_encoding"]["name"], "default");
  EXPECT_EQ(Z["chunk_key_encoding"]["configuration"]["separator"], "/");
  EXPECT_EQ(Z["fill_value"], "NaN");
  EXPECT_EQ(Z["dimension_names"], json({"draw", "theta_dim"}));
  EXPECT_EQ(Z["attributes"]["units"], "m");
  EXPECT_EQ(Z["codecs"][1]["configuration"]["shuffle"], "shuffle");
  EXPECT_EQ(readJson(Dir + "/flag/zarr.json")["fill_value"], false);
  json G = readJson(Dir + "/zarr.json");
  EXPECT_EQ(G["node_type"], "group");
  EXPECT_EQ(G["attributes"]["model"], "m");
}

/// Text (a coordinate's labels): NumPy's <U3 as xarray writes it, an
/// edge chunk padded with empty strings, in both formats.
TEST(ZarrWriter, TextArrays) {
  for (ZarrFormat F : {ZarrFormat::V2, ZarrFormat::V3}) {
    TempDir Tmp;
    std::string Dir = Tmp / "t.zarr";
    CodecOptions O;
    auto W = makeWriter(Dir, F, O);
    ASSERT_TRUE(W);
    ZarrArraySpec S;
    S.Name = "county";
    S.Type = DType::UInt32;
    S.Shape = {3};
    S.Chunks = {2};
    S.DimNames = {"county"};
    S.TextWidth = 3;
    ASSERT_OK(W->addArray(S));
    auto G = W->chunkGeometry("county", {1});
    ASSERT_TRUE(static_cast<bool>(G));
    EXPECT_EQ(G->FullBytes, 24u); // 2 labels x 3 code points x 4 bytes
    EXPECT_EQ(G->ValidBytes, 12u);
    const uint32_t Labels[] = {'a', 0, 0, 0xe9, 'b', 'c', 'z', 'z', 'z'};
    ASSERT_OK(W->writeChunk("county", {0}, Labels, 24));
    ASSERT_OK(W->writeChunk("county", {1}, Labels + 6, 12));
    ASSERT_OK(W->finish());
    std::vector<uint8_t> Edge;
    if (F == ZarrFormat::V2) {
      json Z = readJson(Dir + "/county/.zarray");
      EXPECT_EQ(Z["dtype"], "<U3");
      EXPECT_EQ(Z["fill_value"], nullptr);
      EXPECT_EQ(Z["shape"], json({3}));
      Edge = readChunk(Dir + "/county/1", O, 24);
    } else {
      json Z = readJson(Dir + "/county/zarr.json");
      EXPECT_EQ(Z["data_type"],
                json({{"name", "fixed_length_utf32"},
                      {"configuration", {{"length_bytes", 12}}}}));
      EXPECT_EQ(Z["fill_value"], "");
      Edge = readChunk(Dir + "/county/c/1", O, 24);
    }
    uint32_t Got[6];
    std::memcpy(Got, Edge.data(), 24);
    EXPECT_EQ(std::vector<uint32_t>(Got, Got + 6),
              std::vector<uint32_t>({'z', 'z', 'z', 0, 0, 0}));
  }
  // Text is declared over its code points, without a fill value.
  TempDir Tmp;
  auto W = makeWriter(Tmp / "bad.zarr", ZarrFormat::V2);
  ASSERT_TRUE(W);
  ZarrArraySpec S;
  S.Name = "c";
  S.Type = DType::Float32;
  S.Shape = S.Chunks = {2};
  S.DimNames = {"c"};
  S.TextWidth = 4;
  llvm::Error E = W->addArray(S);
  ASSERT_TRUE(static_cast<bool>(E));
  EXPECT_NE(llvm::toString(std::move(E)).find("UInt32"), std::string::npos);
}

/// Writes a 5x7 float array in 2x3 chunks (edge chunks on both axes) and
/// checks every chunk file, including that padding is NaN.
void checkPadding(ZarrFormat F, bool PassFullChunks) {
  TempDir Tmp;
  std::string Dir = Tmp / "p.zarr";
  CodecOptions O;
  auto W = makeWriter(Dir, F, O);
  ASSERT_TRUE(W);
  ASSERT_OK(W->addArray("x", DType::Float32, {5, 7}, {2, 3}, {"a", "b"}));
  for (uint64_t I = 0; I < 3; ++I)
    for (uint64_t J = 0; J < 3; ++J) {
      auto G = W->chunkGeometry("x", {I, J});
      ASSERT_EXPECTED(G);
      // Full-size buffers carry garbage (-7) where the padding goes.
      std::vector<float> Buf(PassFullChunks ? 6 : G->ValidBytes / 4, -7.0f);
      uint64_t Cols = PassFullChunks ? 3 : G->Valid[1];
      for (uint64_t R = 0; R < G->Valid[0]; ++R)
        for (uint64_t C = 0; C < G->Valid[1]; ++C)
          Buf[R * Cols + C] = float((I * 2 + R) * 10 + J * 3 + C);
      ASSERT_OK(W->writeChunk("x", {I, J}, Buf.data(), Buf.size() * 4));
    }
  EXPECT_EQ(W->chunksWritten("x"), 9u);
  ASSERT_OK(W->finish());
  for (uint64_t I = 0; I < 3; ++I)
    for (uint64_t J = 0; J < 3; ++J) {
      std::string Key =
          F == ZarrFormat::V2
              ? std::to_string(I) + "." + std::to_string(J)
              : "c/" + std::to_string(I) + "/" + std::to_string(J);
      std::vector<uint8_t> Raw = readChunk(Dir + "/x/" + Key, O, 24);
      float V[6];
      std::memcpy(V, Raw.data(), 24);
      for (uint64_t R = 0; R < 2; ++R)
        for (uint64_t C = 0; C < 3; ++C) {
          uint64_t Row = I * 2 + R, Col = J * 3 + C;
          if (Row < 5 && Col < 7)
            EXPECT_EQ(V[R * 3 + C], float(Row * 10 + Col)) << Key;
          else
            EXPECT_TRUE(std::isnan(V[R * 3 + C]))
                << Key << " padding (" << R << "," << C
                << ") = " << V[R * 3 + C];
        }
    }
  for (const std::string &N : listTree(Dir))
    EXPECT_EQ(N.find(".tmp"), std::string::npos) << N;
}

TEST(ZarrWriter, V2EdgeChunksFromValidPart) {
  checkPadding(ZarrFormat::V2, false);
}
TEST(ZarrWriter, V2EdgeChunksFromFullBuffers) {
  checkPadding(ZarrFormat::V2, true);
}
TEST(ZarrWriter, V3EdgeChunksFromValidPart) {
  checkPadding(ZarrFormat::V3, false);
}
TEST(ZarrWriter, V3EdgeChunksFromFullBuffers) {
  checkPadding(ZarrFormat::V3, true);
}

TEST(ZarrWriter, IntegerPaddingUsesFillValue) {
  TempDir Tmp;
  CodecOptions O = llvm::cantFail(CodecOptions::parse("zstd:3"));
  auto W = makeWriter(Tmp / "i.zarr", ZarrFormat::V2, O);
  ASSERT_TRUE(W);
  ZarrArraySpec S;
  S.Name = "n";
  S.Type = DType::Int16;
  S.Shape = {5};
  S.Chunks = {4};
  S.DimNames = {"obs"};
  S.FillValue = -1;
  ASSERT_OK(W->addArray(S));
  int16_t Tail = 42;
  ASSERT_OK(W->writeChunk("n", {1}, &Tail, 2));
  ASSERT_OK(W->finish());
  EXPECT_EQ(readJson(Tmp / "i.zarr/n/.zarray")["fill_value"], -1);
  std::vector<uint8_t> Raw = readChunk(Tmp / "i.zarr/n/1", O, 8);
  int16_t V[4];
  std::memcpy(V, Raw.data(), 8);
  EXPECT_EQ(V[0], 42);
  EXPECT_EQ(V[1], -1);
  EXPECT_EQ(V[3], -1);
}

TEST(ZarrWriter, V2IntegerChunksAreNeverMissing) {
  for (ZarrFormat F : {ZarrFormat::V2, ZarrFormat::V3}) {
    TempDir Tmp;
    CodecOptions O;
    auto W = makeWriter(Tmp / "i.zarr", F, O);
    ASSERT_TRUE(W);
    ASSERT_OK(W->addArray("y", DType::Int32, {3, 5}, {2, 2}, {"a", "b"}));
    int32_t V[4] = {1, 2, 3, 4};
    ASSERT_OK(W->writeChunk("y", {0, 1}, V, 16));
    ASSERT_OK(W->writeChunk("y", {0, 1}, V, 16)); // Rewrites count once.
    EXPECT_EQ(W->chunksWritten("y"), 1u);
    ASSERT_OK(W->finish());
    std::string Key = F == ZarrFormat::V2 ? "/y/1.2" : "/y/c/1/2";
    if (F == ZarrFormat::V3) {
      // v3 states fill_value 0, so readers fill missing chunks themselves.
      EXPECT_FALSE(exists(Tmp / "i.zarr" + Key));
      continue;
    }
    EXPECT_EQ(listTree(Tmp / "i.zarr/y").size(), 2u + 6u);
    std::vector<uint8_t> Raw = readChunk(Tmp / "i.zarr" + Key, O, 16);
    EXPECT_EQ(Raw, std::vector<uint8_t>(16, 0));
  }
}

TEST(ZarrWriter, ScalarArrays) {
  for (ZarrFormat F : {ZarrFormat::V2, ZarrFormat::V3}) {
    TempDir Tmp;
    auto W = makeWriter(Tmp / "s.zarr", F);
    ASSERT_TRUE(W);
    ASSERT_OK(W->addArray("lp", DType::Float64, {}, {}, {}));
    double X = -1.5;
    ASSERT_OK(W->writeChunk("lp", {}, &X, 8));
    ASSERT_OK(W->finish());
    EXPECT_TRUE(
        exists(Tmp / (F == ZarrFormat::V2 ? "s.zarr/lp/0" : "s.zarr/lp/c")));
  }
}

TEST(ZarrWriter, ChunkErrors) {
  TempDir Tmp;
  auto W = makeWriter(Tmp / "e.zarr", ZarrFormat::V2);
  ASSERT_TRUE(W);
  ASSERT_OK(W->addArray("x", DType::Float32, {5, 7}, {2, 3}, {"a", "b"}));
  std::vector<float> Buf(6);
  std::string M = errorText(W->writeChunk("x", {0, 0}, Buf.data(), 20));
  EXPECT_NE(M.find("chunk (0, 0) of array 'x'"), std::string::npos) << M;
  EXPECT_NE(M.find("got 20 bytes, expected 24"), std::string::npos) << M;
  M = errorText(W->writeChunk("x", {2, 2}, Buf.data(), 20));
  EXPECT_NE(M.find("expected 24 (the whole chunk (2, 3) of <f4) or 4 (its "
                   "in-bounds part (1, 1))"),
            std::string::npos)
      << M;
  M = errorText(W->writeChunk("x", {3, 0}, Buf.data(), 24));
  EXPECT_NE(M.find("outside the chunk grid (3, 3)"), std::string::npos) << M;
  M = errorText(W->writeChunk("x", {0}, Buf.data(), 24));
  EXPECT_NE(M.find("has rank 2"), std::string::npos) << M;
  M = errorText(W->writeChunk("z", {0}, Buf.data(), 24));
  EXPECT_NE(M.find("no array 'z'"), std::string::npos) << M;
}

TEST(ZarrWriter, SpecErrors) {
  TempDir Tmp;
  auto W = makeWriter(Tmp / "e.zarr", ZarrFormat::V3);
  ASSERT_TRUE(W);
  struct {
    std::string Name;
    std::vector<uint64_t> Shape, Chunks;
    std::vector<std::string> Dims;
    json Attrs;
    const char *Want;
  } Cases[] = {
      {"a/b", {1}, {1}, {"d"}, json::object(), "its group 'a' was not declared"},
      {"a//b", {1}, {1}, {"d"}, json::object(), "invalid Zarr array name"},
      {"a/.b", {1}, {1}, {"d"}, json::object(), "invalid Zarr array name"},
      {".hidden", {1}, {1}, {"d"}, json::object(), "invalid Zarr array name"},
      {"a", {1, 2}, {1}, {"d", "e"}, json::object(), "same length"},
      {"a", {4}, {0}, {"d"}, json::object(), "chunk extents must be >= 1"},
      {"a", {4}, {2}, {""}, json::object(), "empty name for dimension 0"},
      {"a", {4}, {2}, {"d"}, json::array(), "must be a JSON object"},
      {"a", {4}, {2}, {"d"}, {{"_ARRAY_DIMENSIONS", 1}}, "must not set"},
  };
  for (auto &C : Cases) {
    std::string M = errorText(W->addArray(C.Name, DType::Float32, C.Shape,
                                          C.Chunks, C.Dims, C.Attrs));
    EXPECT_NE(M.find(C.Want), std::string::npos) << C.Want << " -> " << M;
  }
  ASSERT_OK(W->addArray("a", DType::Int8, {4}, {2}, {"d"}));
  std::string M = errorText(W->addArray("a", DType::Int8, {4}, {2}, {"d"}));
  EXPECT_NE(M.find("already has a node 'a'"), std::string::npos) << M;
  ZarrArraySpec S;
  S.Name = "u";
  S.Type = DType::UInt8;
  S.Shape = S.Chunks = {1};
  S.DimNames = {"d"};
  S.FillValue = 300;
  M = errorText(W->addArray(S));
  EXPECT_NE(M.find("fill value 300 of array 'u' is not representable as |u1"),
            std::string::npos)
      << M;
  M = errorText(W->setGroupAttrs(json(3)));
  EXPECT_NE(M.find("must be a JSON object"), std::string::npos) << M;
}

TEST(ZarrWriter, Subgroups) {
  for (ZarrFormat F : {ZarrFormat::V2, ZarrFormat::V3}) {
    TempDir Tmp;
    std::string Dir = Tmp / "g.zarr";
    auto W = makeWriter(Dir, F);
    ASSERT_TRUE(W);
    ASSERT_OK(W->addGroup("posterior", {{"created_at", "now"}}));
    ASSERT_OK(W->addGroup("posterior/inner"));
    ASSERT_OK(W->addArray("posterior/mu", DType::Float32, {2}, {2}, {"draw"}));
    ASSERT_OK(W->addArray("posterior/inner/x", DType::Int8, {1}, {1}, {"d"}));
    ASSERT_OK(W->addArray("top", DType::Int8, {1}, {1}, {"d"}));
    std::string M = errorText(W->addGroup("top"));
    EXPECT_NE(M.find("already has a node 'top'"), std::string::npos) << M;
    M = errorText(W->addGroup("posterior/mu"));
    EXPECT_NE(M.find("already has a node 'posterior/mu'"), std::string::npos)
        << M;
    M = errorText(W->addGroup("top/below"));
    EXPECT_NE(M.find("its group 'top' was not declared"), std::string::npos)
        << M;
    M = errorText(W->addGroup("missing/below"));
    EXPECT_NE(M.find("its group 'missing' was not declared"),
              std::string::npos)
        << M;
    M = errorText(W->addGroup("bad//name"));
    EXPECT_NE(M.find("invalid Zarr group name"), std::string::npos) << M;
    M = errorText(W->addGroup("attrs", json::array()));
    EXPECT_NE(M.find("must be a JSON object"), std::string::npos) << M;
    float V[2] = {1, 2};
    ASSERT_OK(W->writeChunk("posterior/mu", {0}, V, sizeof(V)));
    ASSERT_OK(W->finish());
    if (F == ZarrFormat::V2) {
      EXPECT_EQ(readJson(Dir + "/posterior/.zgroup"), json({{"zarr_format", 2}}));
      EXPECT_EQ(readJson(Dir + "/posterior/.zattrs")["created_at"], "now");
      EXPECT_EQ(readJson(Dir + "/posterior/inner/.zgroup"),
                json({{"zarr_format", 2}}));
      json C = readJson(Dir + "/.zmetadata")["metadata"];
      EXPECT_TRUE(C.contains("posterior/.zgroup"));
      EXPECT_TRUE(C.contains("posterior/inner/.zattrs"));
      EXPECT_EQ(C["posterior/mu/.zarray"]["shape"], json({2}));
      EXPECT_EQ(C["posterior/inner/x/.zarray"]["dtype"], "|i1");
      EXPECT_TRUE(llvm::sys::fs::exists(Dir + "/posterior/mu/0"));
    } else {
      json G = readJson(Dir + "/posterior/zarr.json");
      EXPECT_EQ(G["node_type"], "group");
      EXPECT_EQ(G["attributes"]["created_at"], "now");
      EXPECT_EQ(readJson(Dir + "/posterior/inner/zarr.json")["node_type"],
                "group");
      EXPECT_EQ(readJson(Dir + "/posterior/mu/zarr.json")["node_type"],
                "array");
      EXPECT_TRUE(llvm::sys::fs::exists(Dir + "/posterior/mu/c/0"));
    }
  }
}

TEST(ZarrWriter, ResumeKeepsChunksOfTheSameRun) {
  TempDir Tmp;
  std::string Dir = Tmp / "r.zarr";
  json Record = {{"seed", 1}, {"inputs", {{"X", "<f4 (4,) 0123"}}}};
  std::vector<float> Chunk(2, 1.5f), Other(2, -2.f);
  {
    auto W = makeWriter(Dir, ZarrFormat::V2);
    ASSERT_TRUE(W);
    ASSERT_OK(W->setRunRecord(Record));
    ASSERT_OK(W->addArray("x", DType::Float32, {8}, {2}, {"d"}));
    ASSERT_OK(W->writeChunk("x", {0}, Chunk.data(), 8));
    ASSERT_OK(W->writeChunk("x", {2}, Chunk.data(), 8));
    EXPECT_TRUE(W->hasChunk("x", {2}));
    EXPECT_FALSE(W->hasChunk("x", {1}));
    W->suspend(); // As an interrupted run: the partial store stays.
  }
  EXPECT_FALSE(llvm::sys::fs::exists(Dir));
  ASSERT_TRUE(llvm::sys::fs::exists(Dir + ".partial/x/2"));

  json Other1 = Record;
  Other1["seed"] = 2;
  Other1["plan"] = "obs";
  auto Refused = ZarrWriter::resume(Dir, ZarrFormat::V2, {}, true, Other1);
  std::string M = errorText(Refused);
  EXPECT_NE(M.find("plan (none then, \"obs\" now), seed (1 then, 2 now)"),
            std::string::npos)
      << M;
  auto None = ZarrWriter::resume(Tmp / "none.zarr", ZarrFormat::V2, {},
                                 true, Record);
  M = errorText(None);
  EXPECT_NE(M.find("nothing to resume"), std::string::npos) << M;

  // A chunk being written when the run was killed.
  std::string Stray = Dir + ".partial/x/1.a1b2c3.tmp";
  std::ofstream(Stray) << "torn";
  auto Again = ZarrWriter::resume(Dir, ZarrFormat::V2, {}, true, Other1);
  EXPECT_FALSE(static_cast<bool>(Again));
  llvm::consumeError(Again.takeError());
  EXPECT_TRUE(llvm::sys::fs::exists(Stray)); // a refusal touches nothing
  auto W = ZarrWriter::resume(Dir, ZarrFormat::V2, {}, true, Record);
  ASSERT_TRUE(static_cast<bool>(W)) << llvm::toString(W.takeError());
  EXPECT_FALSE(llvm::sys::fs::exists(Stray));
  ASSERT_OK((*W)->addArray("x", DType::Float32, {8}, {2}, {"d"}));
  EXPECT_TRUE((*W)->hasChunk("x", {0}));
  EXPECT_FALSE((*W)->hasChunk("x", {1}));
  EXPECT_TRUE((*W)->hasChunk("x", {2}));
  EXPECT_FALSE((*W)->hasChunk("x", {3}));
  EXPECT_FALSE((*W)->hasChunk("x", {4})); // outside the grid
  EXPECT_FALSE((*W)->hasChunk("y", {0}));
  EXPECT_EQ((*W)->chunksWritten("x"), 2u);
  ASSERT_OK((*W)->writeChunk("x", {1}, Other.data(), 8));
  ASSERT_OK((*W)->writeChunk("x", {3}, Other.data(), 8));
  ASSERT_OK((*W)->finish());
  EXPECT_FALSE(llvm::sys::fs::exists(Dir + ".partial"));
  EXPECT_FALSE(llvm::sys::fs::exists(Dir + "/.aimz-run.json"));
  CodecOptions O;
  for (int C = 0; C < 4; ++C) {
    auto Bytes = readChunk(Dir + "/x/" + std::to_string(C), O, 8);
    float V[2];
    std::memcpy(V, Bytes.data(), 8);
    EXPECT_EQ(V[0], C % 2 ? -2.f : 1.5f) << C;
  }
}

TEST(ZarrWriter, ResumeNeedsARunRecord) {
  TempDir Tmp;
  std::string Dir = Tmp / "n.zarr";
  {
    auto W = makeWriter(Dir, ZarrFormat::V3);
    ASSERT_TRUE(W);
    W->suspend();
  }
  auto R = ZarrWriter::resume(Dir, ZarrFormat::V3, {}, true, json::object());
  std::string M = errorText(R);
  EXPECT_NE(M.find("run record"), std::string::npos) << M;
  EXPECT_NE(M.find("missing"), std::string::npos) << M;
}

TEST(ZarrWriter, StoreAppearsOnlyOnFinish) {
  TempDir Tmp;
  std::string Dir = Tmp / "a.zarr";
  auto W = makeWriter(Dir, ZarrFormat::V2);
  ASSERT_TRUE(W);
  ASSERT_OK(W->addArray("x", DType::Int32, {2}, {2}, {"d"}));
  int32_t V[2] = {1, 2};
  ASSERT_OK(W->writeChunk("x", {0}, V, 8));
  EXPECT_FALSE(exists(Dir));
  EXPECT_TRUE(exists(Dir + ".partial/x/0"));
  ASSERT_OK(W->finish());
  EXPECT_TRUE(exists(Dir + "/x/0"));
  EXPECT_FALSE(exists(Dir + ".partial"));
  W.reset(); // Destroying a finished writer keeps the store.
  EXPECT_TRUE(exists(Dir + "/.zgroup"));
}

// Chunks synced in the background: the same store, every file the same
// bytes, written from several threads; a chunk shows once flushed.
TEST(ZarrWriter, BackgroundCommitsWriteTheSameStore) {
  TempDir Tmp;
  const uint64_t N = 37, Len = 1000;
  auto Write = [&](const std::string &Dir, bool Background) {
    auto W = makeWriter(Dir, ZarrFormat::V2);
    ASSERT_TRUE(W);
    if (Background)
      ASSERT_OK(W->commitInBackground());
    // The last chunk is an edge chunk; integers get the v2 zero fill.
    ASSERT_OK(W->addArray("f", DType::Float32, {N * Len - 7}, {Len}, {"i"}));
    ASSERT_OK(W->addArray("k", DType::Int32, {4 * Len}, {Len}, {"i"}));
    std::vector<std::thread> Ts;
    for (int T = 0; T < 3; ++T)
      Ts.emplace_back([&, T] {
        std::vector<float> F(Len);
        for (uint64_t C = T; C < N; C += 3) {
          for (uint64_t I = 0; I < Len; ++I)
            F[I] = std::sin(float(C * Len + I));
          EXPECT_FALSE(static_cast<bool>(
              W->writeChunk("f", {C}, F.data(), Len * 4)));
        }
      });
    for (auto &T : Ts)
      T.join();
    std::vector<int32_t> K(Len, 5);
    ASSERT_OK(W->writeChunk("k", {2}, K.data(), Len * 4));
    ASSERT_OK(W->flushChunks());
    EXPECT_EQ(W->chunksWritten("f"), N);
    EXPECT_TRUE(exists(Dir + ".partial/f/36"));
    ASSERT_OK(W->finish());
  };
  Write(Tmp / "plain.zarr", false);
  Write(Tmp / "background.zarr", true);
  std::vector<std::string> Plain = listTree(Tmp / "plain.zarr");
  ASSERT_EQ(Plain, listTree(Tmp / "background.zarr"));
  // The filled integer chunks too.
  for (const char *F : {"f/36", "k/0", "k/2", "k/3", ".zmetadata"})
    EXPECT_NE(std::find(Plain.begin(), Plain.end(), F), Plain.end()) << F;
  for (const std::string &F : Plain) {
    if (llvm::sys::fs::is_directory(Tmp / ("plain.zarr/" + F)))
      continue;
    EXPECT_EQ(readFile(Tmp / ("plain.zarr/" + F)),
              readFile(Tmp / ("background.zarr/" + F)))
        << F;
  }
}

// A chunk whose background commit fails fails the flush and the finish,
// naming the file; nothing appears.
TEST(ZarrWriter, BackgroundCommitFailureIsReported) {
  TempDir Tmp;
  std::string Dir = Tmp / "a.zarr";
  auto W = makeWriter(Dir, ZarrFormat::V2);
  ASSERT_TRUE(W);
  ASSERT_OK(W->commitInBackground());
  ASSERT_OK(W->addArray("x", DType::Float32, {8}, {4}, {"i"}));
  // A non-empty directory where chunk 1 goes: its rename fails.
  ASSERT_FALSE(llvm::sys::fs::create_directories(Dir + ".partial/x/1"));
  writeFile(Dir + ".partial/x/1/in-the-way", "x");
  float V[4] = {1, 2, 3, 4};
  ASSERT_OK(W->writeChunk("x", {0}, V, 16));
  // The failure shows here or at the latest at the flush.
  llvm::Error E1 = W->writeChunk("x", {1}, V, 16);
  std::string M = E1 ? toString(std::move(E1)) : errorText(W->flushChunks());
  EXPECT_NE(M.find("cannot rename"), std::string::npos) << M;
  EXPECT_NE(M.find("x/1"), std::string::npos) << M;
  std::string F = errorText(W->finish());
  EXPECT_NE(F.find("cannot rename"), std::string::npos) << F;
  EXPECT_FALSE(exists(Dir));
}

TEST(ZarrWriter, FinishTwiceFails) {
  TempDir Tmp;
  auto W = makeWriter(Tmp / "a.zarr", ZarrFormat::V3);
  ASSERT_TRUE(W);
  ASSERT_OK(W->finish());
  std::string M = errorText(W->finish());
  EXPECT_NE(M.find("already finished"), std::string::npos) << M;
  M = errorText(W->addArray("x", DType::Int8, {1}, {1}, {"d"}));
  EXPECT_NE(M.find("already finished"), std::string::npos) << M;
}

TEST(ZarrWriter, InterruptedWriterLeavesNothing) {
  TempDir Tmp;
  std::string Dir = Tmp / "a.zarr";
  {
    auto W = makeWriter(Dir, ZarrFormat::V2);
    ASSERT_TRUE(W);
    ASSERT_OK(W->addArray("x", DType::Int32, {2}, {2}, {"d"}));
    int32_t V[2] = {1, 2};
    ASSERT_OK(W->writeChunk("x", {0}, V, 8));
  }
  EXPECT_FALSE(exists(Dir));
  EXPECT_FALSE(exists(Dir + ".partial"));
}

TEST(ZarrWriter, ReplacesExistingStoreOnlyOnFinish) {
  for (ZarrFormat F : {ZarrFormat::V2, ZarrFormat::V3}) {
    TempDir Tmp;
    std::string Dir = Tmp / "a.zarr";
    {
      auto W = makeWriter(Dir, F);
      ASSERT_TRUE(W);
      ASSERT_OK(W->addArray("old", DType::Int8, {1}, {1}, {"d"}));
      ASSERT_OK(W->finish());
    }
    {
      // An abandoned rewrite leaves the old store intact.
      auto W = makeWriter(Dir, F);
      ASSERT_TRUE(W);
      ASSERT_OK(W->addArray("new", DType::Int8, {1}, {1}, {"d"}));
    }
    EXPECT_TRUE(exists(Dir + "/old"));
    EXPECT_FALSE(exists(Dir + "/new"));
    {
      auto W = makeWriter(Dir, F);
      ASSERT_TRUE(W);
      ASSERT_OK(W->addArray("new", DType::Int8, {1}, {1}, {"d"}));
      EXPECT_TRUE(exists(Dir + "/old"));
      ASSERT_OK(W->finish());
    }
    EXPECT_FALSE(exists(Dir + "/old"));
    EXPECT_TRUE(exists(Dir + "/new"));
    EXPECT_FALSE(exists(Dir + ".partial"));
    EXPECT_FALSE(exists(Dir + ".old"));
  }
}

TEST(ZarrWriter, RefusesToReplaceOtherData) {
  TempDir Tmp;
  std::string Dir = Tmp / "results";
  ASSERT_FALSE(llvm::sys::fs::create_directory(Dir));
  writeFile(Dir + "/thesis.tex", std::string("precious"));
  auto W = ZarrWriter::create(Dir, ZarrFormat::V2);
  std::string M = errorText(W);
  EXPECT_NE(M.find("refusing to write the Zarr store"), std::string::npos) << M;
  EXPECT_NE(M.find("results"), std::string::npos) << M;
  EXPECT_TRUE(exists(Dir + "/thesis.tex"));
  EXPECT_FALSE(exists(Dir + ".partial"));
}

TEST(ZarrWriter, RemovesStalePartial) {
  TempDir Tmp;
  std::string Dir = Tmp / "a.zarr";
  ASSERT_FALSE(llvm::sys::fs::create_directories(Dir + ".partial/junk"));
  auto W = makeWriter(Dir, ZarrFormat::V3);
  ASSERT_TRUE(W);
  EXPECT_FALSE(exists(Dir + ".partial/junk"));
  ASSERT_OK(W->finish());
  EXPECT_FALSE(exists(Dir + "/junk"));
}

TEST(ZarrWriter, ConcurrentChunks) {
  TempDir Tmp;
  std::string Dir = Tmp / "c.zarr";
  CodecOptions O;
  auto W = makeWriter(Dir, ZarrFormat::V3, O);
  ASSERT_TRUE(W);
  const uint64_t Rows = 64, Cols = 1000;
  ASSERT_OK(
      W->addArray("x", DType::Int32, {Rows, Cols}, {1, Cols}, {"r", "c"}));
  std::vector<std::thread> Threads;
  std::atomic<int> Failures{0};
  for (unsigned T = 0; T < 4; ++T)
    Threads.emplace_back([&, T] {
      std::vector<int32_t> Buf(Cols);
      for (uint64_t R = T; R < Rows; R += 4) {
        for (uint64_t C = 0; C < Cols; ++C)
          Buf[C] = int32_t(R * Cols + C);
        if (llvm::Error E = W->writeChunk("x", {R, 0}, Buf.data(), Cols * 4)) {
          llvm::consumeError(std::move(E));
          ++Failures;
        }
      }
    });
  for (std::thread &T : Threads)
    T.join();
  EXPECT_EQ(Failures, 0);
  ASSERT_OK(W->finish());
  for (uint64_t R = 0; R < Rows; ++R) {
    std::vector<uint8_t> Raw =
        readChunk(Dir + "/x/c/" + std::to_string(R) + "/0", O, Cols * 4);
    int32_t First, Last;
    std::memcpy(&First, Raw.data(), 4);
    std::memcpy(&Last, Raw.data() + (Cols - 1) * 4, 4);
    EXPECT_EQ(First, int32_t(R * Cols));
    EXPECT_EQ(Last, int32_t(R * Cols + Cols - 1));
  }
}

} // namespace
