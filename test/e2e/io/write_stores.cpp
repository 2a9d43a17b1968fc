//===- write_stores.cpp - Zarr stores with known contents for reader tests ===//
//
// Writes the same group as Zarr v2 and v3 with several codecs, plus
// expected.json describing every array (dtype, shape, chunks, dims, attrs,
// values with null for NaN). read_v2.py (zarr-python, xarray) and
// read_v3.mjs (zarrita.js) check the stores against it.
//
// Usage: aimz-io-e2e-write-stores OUTDIR
//
//===----------------------------------------------------------------------===//

#include "aimz/io/ChunkPipeline.h"
#include "aimz/io/Zarr.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <cstring>
#include <fstream>

using namespace aimz::io;
using json = nlohmann::json;

namespace {

struct TestArray {
  ZarrArraySpec Spec;
  std::vector<uint8_t> Data; ///< Full array, C order.
  json Values;               ///< Same values for expected.json.
  bool V2Only = false;       ///< Float16: zarrita has no Float16Array here.
  /// Chunks (row-major index) deliberately left unwritten.
  std::vector<uint64_t> Skip;
};

template <typename T, typename F>
TestArray make(std::string Name, std::vector<uint64_t> Shape,
               std::vector<uint64_t> Chunks, std::vector<std::string> Dims,
               json Attrs, F Value) {
  TestArray A;
  A.Spec.Name = std::move(Name);
  A.Spec.Type = DTypeOf<T>::value;
  A.Spec.Shape = std::move(Shape);
  A.Spec.Chunks = std::move(Chunks);
  A.Spec.DimNames = std::move(Dims);
  A.Spec.Attrs = std::move(Attrs);
  uint64_t N = 1;
  for (uint64_t D : A.Spec.Shape)
    N *= D;
  A.Data.resize(N * sizeof(T));
  A.Values = json::array();
  for (uint64_t I = 0; I < N; ++I) {
    T V = Value(I);
    std::memcpy(A.Data.data() + I * sizeof(T), &V, sizeof(T));
    A.Values.push_back(V);
  }
  return A;
}

std::vector<TestArray> arrays() {
  std::vector<TestArray> As;
  // Dimension sizes are consistent across arrays (xarray requires it):
  // draw=5 school=7 chain=4 obs=6 k=10 k3=3.
  // 5x7 in 2x3 chunks: partial edge chunks along both axes.
  As.push_back(make<float>(
      "theta", {5, 7}, {2, 3}, {"draw", "school"},
      {{"units", "points"}, {"long_name", "school effect"}},
      [](uint64_t I) { return float(I / 7 * 10 + I % 7) + 0.25f; }));
  As.push_back(make<double>("mu", {5}, {2}, {"draw"}, json::object(),
                            [](uint64_t I) { return double(I) * 1.5 - 2; }));
  As.push_back(make<int32_t>(
      "y", {4, 6}, {4, 4}, {"chain", "obs"}, {{"distribution", "bernoulli"}},
      [](uint64_t I) { return int32_t(I * 7 % 3 == 0); }));
  As.push_back(
      make<int64_t>("count", {3}, {2}, {"k3"}, json::object(),
                    [](uint64_t I) { return int64_t(I) * 10000000000LL - 1; }));
  As.push_back(make<bool>("flag", {7}, {3}, {"school"}, json::object(),
                          [](uint64_t I) { return I % 3 == 0; }));
  As.push_back(make<uint8_t>("u8", {10}, {4}, {"k"}, json::object(),
                             [](uint64_t I) { return uint8_t(I * 25); }));
  As.push_back(make<int16_t>("i16", {5}, {2}, {"draw"}, json::object(),
                             [](uint64_t I) { return int16_t(-1000 * I); }));
  As.push_back(make<double>("lp", {}, {}, {}, {{"note", "scalar"}},
                            [](uint64_t) { return -12.5; }));
  // Second chunk never written: readers must see the fill value (NaN).
  TestArray Missing =
      make<float>("missing", {4}, {2}, {"chain"}, json::object(),
                  [](uint64_t I) { return float(I) + 1; });
  Missing.Skip = {1};
  Missing.Values[2] = nullptr;
  Missing.Values[3] = nullptr;
  As.push_back(std::move(Missing));
  // 1.5 in binary16 is 0x3e00.
  TestArray Half = make<uint16_t>("f16", {3}, {2}, {"k3"}, json::object(),
                                  [](uint64_t I) { return uint16_t(0x3e00); });
  Half.Spec.Type = DType::Float16;
  Half.Values = {1.5, 1.5, 1.5};
  Half.V2Only = true;
  As.push_back(std::move(Half));
  return As;
}

/// The in-bounds part of chunk Coords, packed; or, if Full, a whole chunk
/// whose padding holds garbage (which the writer must replace with fill).
std::vector<uint8_t> extract(const TestArray &A,
                             const std::vector<uint64_t> &Coords,
                             const ChunkGeometry &G, bool Full) {
  const ZarrArraySpec &S = A.Spec;
  size_t E = dtypeSize(S.Type), Rank = S.Shape.size();
  std::vector<uint64_t> Extents = Full ? S.Chunks : G.Valid;
  std::vector<uint8_t> Out(Full ? G.FullBytes : G.ValidBytes, 0xA5);
  uint64_t Count = 1;
  for (uint64_t V : G.Valid)
    Count *= V;
  std::vector<uint64_t> Idx(Rank, 0);
  for (uint64_t N = 0; N < Count; ++N) {
    uint64_t Src = 0, Dst = 0;
    for (size_t D = 0; D < Rank; ++D) {
      Src = Src * S.Shape[D] + Coords[D] * S.Chunks[D] + Idx[D];
      Dst = Dst * Extents[D] + Idx[D];
    }
    std::memcpy(Out.data() + Dst * E, A.Data.data() + Src * E, E);
    for (size_t D = Rank; D-- > 0;) {
      if (++Idx[D] < G.Valid[D])
        break;
      Idx[D] = 0;
    }
  }
  return Out;
}

bool fail(const std::string &What, llvm::Error E) {
  llvm::errs() << "error: " << What << ": " << llvm::toString(std::move(E))
               << "\n";
  return false;
}

bool writeStore(const std::string &Path, ZarrFormat F, const CodecOptions &O,
                bool UsePipeline) {
  auto W = ZarrWriter::create(Path, F, O);
  if (!W)
    return fail(Path, W.takeError());
  if (llvm::Error E =
          (*W)->setGroupAttrs({{"model", "eight_schools"},
                               {"seed", 42},
                               {"nested", {{"a", {1, 2, 3}}, {"b", "text"}}}}))
    return fail(Path, std::move(E));
  std::unique_ptr<ChunkPipeline> Pipe;
  if (UsePipeline) {
    auto P = ChunkPipeline::forWriter(**W, {2, 4, 64});
    if (!P)
      return fail(Path, P.takeError());
    Pipe = std::move(*P);
  }
  bool Full = false;
  for (const TestArray &A : arrays()) {
    if (A.V2Only && F == ZarrFormat::V3)
      continue;
    if (llvm::Error E = (*W)->addArray(A.Spec))
      return fail(Path, std::move(E));
    std::vector<uint64_t> Grid;
    uint64_t NumChunks = 1;
    for (size_t D = 0; D < A.Spec.Shape.size(); ++D) {
      Grid.push_back((A.Spec.Shape[D] + A.Spec.Chunks[D] - 1) /
                     A.Spec.Chunks[D]);
      NumChunks *= Grid.back();
    }
    for (uint64_t Index = 0; Index < NumChunks; ++Index) {
      if (std::count(A.Skip.begin(), A.Skip.end(), Index))
        continue;
      std::vector<uint64_t> Coords(Grid.size());
      uint64_t Rest = Index;
      for (size_t D = Grid.size(); D-- > 0;) {
        Coords[D] = Rest % Grid[D];
        Rest /= Grid[D];
      }
      auto G = (*W)->chunkGeometry(A.Spec.Name, Coords);
      if (!G)
        return fail(Path, G.takeError());
      Full = !Full; // Alternate both ways of passing edge chunks.
      std::vector<uint8_t> Bytes = extract(A, Coords, *G, Full);
      llvm::Error E = llvm::Error::success();
      if (Pipe) {
        auto B = Pipe->acquireBuffer();
        if (!B)
          return fail(Path, B.takeError());
        std::memcpy(B->data(), Bytes.data(), Bytes.size());
        E = Pipe->submit(A.Spec.Name, Coords, std::move(*B), Bytes.size());
      } else {
        E = (*W)->writeChunk(A.Spec.Name, Coords, Bytes.data(), Bytes.size());
      }
      if (E)
        return fail(Path, std::move(E));
    }
  }
  if (Pipe) {
    if (llvm::Error E = Pipe->drain())
      return fail(Path, std::move(E));
    Pipe.reset();
  }
  if (llvm::Error E = (*W)->finish())
    return fail(Path, std::move(E));
  return true;
}

} // namespace

int main(int Argc, char **Argv) {
  if (Argc != 2) {
    llvm::errs() << "usage: " << Argv[0] << " OUTDIR\n";
    return 2;
  }
  std::string Out = Argv[1];
  if (std::error_code EC = llvm::sys::fs::create_directories(Out)) {
    llvm::errs() << "error: cannot create " << Out << ": " << EC.message()
                 << "\n";
    return 1;
  }
  const char *Codecs[] = {"default", "zstd:3", "none", "blosc:lz4:5:noshuffle",
                          "blosc:zstd:3:bitshuffle"};
  json Stores = json::array();
  for (ZarrFormat F : {ZarrFormat::V2, ZarrFormat::V3})
    for (const char *C : Codecs) {
      CodecOptions O;
      if (std::string(C) != "default")
        O = llvm::cantFail(CodecOptions::parse(C));
      std::string Name = std::string(F == ZarrFormat::V2 ? "v2-" : "v3-") +
                         (std::string(C) == "default" ? "default" : C) +
                         ".zarr";
      std::replace(Name.begin(), Name.end(), ':', '_');
      bool UsePipeline = std::string(C) == "default";
      if (!writeStore(Out + "/" + Name, F, O, UsePipeline))
        return 1;
      Stores.push_back({{"path", Name},
                        {"format", F == ZarrFormat::V2 ? 2 : 3},
                        {"codec", O.str()}});
    }
  json Arrays = json::object();
  for (const TestArray &A : arrays())
    Arrays[A.Spec.Name] = {{"dtype", dtypeDescr(A.Spec.Type).str()},
                           {"v3_dtype", dtypeV3Name(A.Spec.Type).str()},
                           {"shape", A.Spec.Shape},
                           {"chunks", A.Spec.Chunks},
                           {"dims", A.Spec.DimNames},
                           {"attrs", A.Spec.Attrs},
                           {"values", A.Values},
                           {"v2_only", A.V2Only}};
  json Expected = {{"group_attrs",
                    {{"model", "eight_schools"},
                     {"seed", 42},
                     {"nested", {{"a", {1, 2, 3}}, {"b", "text"}}}}},
                   {"stores", Stores},
                   {"arrays", Arrays}};
  std::ofstream(Out + "/expected.json") << Expected.dump(1) << "\n";
  llvm::outs() << "wrote " << Stores.size() << " stores to " << Out << "\n";
  return 0;
}
