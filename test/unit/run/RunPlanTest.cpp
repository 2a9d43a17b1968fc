//===- RunPlanTest.cpp - The run's geometry, without devices --------------===//
//
// Every element of every output array is computed by exactly one batch, and
// the offset the kernels write it at (their view of the chunk: draws x the
// site's shape) is where the store's chunk holds it, in both layouts and
// both plans, with chains, edge batches and odd batch sizes.
//
//===----------------------------------------------------------------------===//
#include "aimz/run/RunPlan.h"

#include <gtest/gtest.h>

#include <map>

using namespace aimz;
using namespace aimz::run;

namespace {

ManifestSite site(const std::string &Name, SiteKind Kind,
                  std::vector<ManifestDim> Shape, bool ObsAligned) {
  ManifestSite S;
  S.Name = Name;
  S.Kind = Kind;
  S.Shape = std::move(Shape);
  S.ObsAligned = ObsAligned;
  S.Dist = Kind == SiteKind::Latent || Kind == SiteKind::Observed ? "Normal"
                                                                  : "";
  return S;
}

/// linreg with a deterministic site and a local latent (z: one per
/// observation, two values each).
Manifest linregManifest() {
  Manifest M;
  M.Model = "linreg";
  M.ObsDim = "n";
  M.Plan = "obs";
  M.Dims = {"n", "k"};
  M.Outputs.resize(1);
  M.Outputs[0].Name = "y";
  M.Outputs[0].Shape = {std::string("n")};
  M.Sites = {site("alpha", SiteKind::Latent, {}, false),
             site("beta", SiteKind::Latent, {std::string("k")}, false),
             site("z", SiteKind::Latent, {std::string("n"), int64_t(2)}, true),
             site("y", SiteKind::Observed, {std::string("n")}, true),
             site("eta", SiteKind::Deterministic, {std::string("n")}, true)};
  // z, y and eta lie in `plate obs(n)`; z's own axis in none.
  M.Sites[2].Plates = {"obs", ""};
  M.Sites[3].Plates = {"obs"};
  M.Sites[4].Plates = {"obs"};
  return M;
}

DataSet dataOf(int64_t N) {
  DataSet D;
  D.NumObs = N;
  D.Bindings = {{"n", N}, {"k", 3}};
  return D;
}

Posterior posteriorOf(const Manifest &M, int64_t Draws, int64_t Chains) {
  Posterior P;
  P.NumDraws = Draws;
  P.Chains = Chains;
  P.Sites.resize(M.Sites.size());
  return P;
}

/// Checks that every (draw, element) of every array is written by exactly
/// one batch, at the place its store chunk holds it.
void checkCoverage(const RunPlan &P) {
  for (size_t I = 0; I < P.Outs.size(); ++I) {
    const OutputArray &O = P.Outs[I];
    if (O.Observed)
      continue;
    const size_t Lead = P.InferenceData ? 2 : 1;
    ASSERT_EQ(O.Shape.size(), O.Extents.size() + Lead);
    ASSERT_EQ(O.Chunk.size(), O.Shape.size());
    ASSERT_EQ(O.KernelChunk.size(), O.Extents.size() + 1);
    uint64_t StoreChunkElems = 1;
    for (uint64_t C : O.Chunk)
      StoreChunkElems *= C;
    EXPECT_EQ(O.ChunkBytes, StoreChunkElems * io::dtypeSize(O.Type))
        << O.Path << ": the kernels' chunk and the store's differ in size";
    uint64_t SiteElems = 1;
    for (uint64_t X : O.Extents)
      SiteElems *= X;
    std::map<std::pair<int64_t, uint64_t>, int> Seen;
    for (int64_t B = 0; B < P.Batches; ++B) {
      if (!P.fills(I, B))
        continue;
      BatchRect R = P.batch(B);
      std::vector<uint64_t> Coords = P.chunkCoords(I, B);
      for (int64_t D = R.Draw0; D < R.Draw1; ++D)
        for (uint64_t E = 0; E < SiteElems; ++E) {
          // The element's index within the site's shape.
          std::vector<uint64_t> Idx(O.Extents.size());
          uint64_t Rest = E;
          for (size_t K = O.Extents.size(); K-- > 0;) {
            Idx[K] = Rest % O.Extents[K];
            Rest /= O.Extents[K];
          }
          if (O.ObsAxis >= 0 && (static_cast<int64_t>(Idx[O.ObsAxis]) <
                                     R.Obs0 ||
                                 static_cast<int64_t>(Idx[O.ObsAxis]) >=
                                     R.Obs1))
            continue; // another batch's observations
          // Where the store has it...
          std::vector<uint64_t> Store;
          if (P.InferenceData) {
            Store = {static_cast<uint64_t>(D / P.DrawsPerChain),
                     static_cast<uint64_t>(D % P.DrawsPerChain)};
          } else {
            Store = {static_cast<uint64_t>(D)};
          }
          Store.insert(Store.end(), Idx.begin(), Idx.end());
          int64_t InChunk = 0;
          for (size_t K = 0; K < Store.size(); ++K) {
            ASSERT_EQ(Store[K] / O.Chunk[K], Coords[K])
                << O.Path << " batch " << B << " draw " << D << " axis " << K;
            InChunk = InChunk * O.Chunk[K] + Store[K] % O.Chunk[K];
          }
          // ... and where the kernels write it.
          int64_t Kernel = (D - P.chunkDraw0(B)) * O.ChunkStrides[0];
          for (size_t K = 0; K < Idx.size(); ++K) {
            int64_t Origin = static_cast<int>(K) == O.ObsAxis ? P.chunkObs0(B)
                                                             : 0;
            Kernel += (static_cast<int64_t>(Idx[K]) - Origin) *
                      O.ChunkStrides[K + 1];
          }
          ASSERT_EQ(Kernel, InChunk) << O.Path << " batch " << B;
          ++Seen[{D, E}];
        }
    }
    ASSERT_EQ(Seen.size(), static_cast<size_t>(P.Draws) * SiteElems)
        << O.Path << ": elements no batch computes";
    for (const auto &[Key, Count] : Seen)
      ASSERT_EQ(Count, 1) << O.Path << ": draw " << Key.first << " element "
                          << Key.second << " written by " << Count
                          << " batches";
  }
}

struct Case {
  OutputLayout Layout;
  ShardAxis Axis;
  int64_t Draws, Chains, Obs, Batch;
};

class Geometry : public ::testing::TestWithParam<Case> {};

TEST_P(Geometry, EveryElementOnceWhereTheStoreHoldsIt) {
  Case C = GetParam();
  Manifest M = linregManifest();
  DataSet D = dataOf(C.Obs);
  Posterior Post = posteriorOf(M, C.Draws, C.Chains);
  RunOptions O;
  O.Layout = C.Layout;
  O.Axis = C.Axis;
  O.BatchSize = C.Batch;
  O.ReturnSites = {"y", "eta", "alpha", "beta", "z"};
  O.OutPath = "out.zarr";
  Warnings W;
  auto P = planRun(M, D, &Post, O, 2, W);
  ASSERT_TRUE(static_cast<bool>(P)) << llvm::toString(P.takeError());
  EXPECT_EQ(P->ObsPlan, C.Axis != ShardAxis::Draw);
  if (C.Layout == OutputLayout::InferenceData) {
    EXPECT_EQ(P->Chains, C.Chains);
    if (!P->ObsPlan)
      for (int64_t B = 0; B < P->Batches; ++B) {
        BatchRect R = P->batch(B);
        EXPECT_EQ(R.Draw0 / P->DrawsPerChain, (R.Draw1 - 1) / P->DrawsPerChain)
            << "batch " << B << " crosses a chain";
      }
  } else {
    EXPECT_EQ(P->Chains, 1);
  }
  checkCoverage(*P);
}

INSTANTIATE_TEST_SUITE_P(
    Layouts, Geometry,
    ::testing::Values(
        Case{OutputLayout::Flat, ShardAxis::Obs, 40, 4, 37, 8},
        Case{OutputLayout::Flat, ShardAxis::Draw, 40, 4, 37, 7},
        Case{OutputLayout::InferenceData, ShardAxis::Obs, 40, 4, 37, 8},
        // Blocks of 3 in chains of 10: edge blocks in every chain.
        Case{OutputLayout::InferenceData, ShardAxis::Draw, 40, 4, 37, 3},
        // A batch larger than a chain is cut to the chain.
        Case{OutputLayout::InferenceData, ShardAxis::Draw, 40, 4, 5, 25},
        Case{OutputLayout::InferenceData, ShardAxis::Draw, 21, 1, 6, 4}));

RunPlan planOf(const RunOptions &O, int64_t Chains = 2,
               bool WithObserved = false,
               const Manifest &M = linregManifest()) {
  static DataSet D;
  D = dataOf(5);
  static std::vector<float> Y(5, 1.0f);
  if (WithObserved) {
    HostArray H;
    H.Name = "y";
    H.Shape = {5};
    H.Data = Y.data();
    D.Observed = {H};
  }
  static Posterior Post;
  Post = posteriorOf(M, 8, Chains);
  Warnings W;
  auto P = planRun(M, D, O.Kind == EntryKind::PriorPredictive ? nullptr : &Post,
                   O, 2, W);
  EXPECT_TRUE(static_cast<bool>(P)) << llvm::toString(P.takeError());
  return P ? std::move(*P) : RunPlan();
}

std::vector<std::string> pathsOf(const RunPlan &P) {
  std::vector<std::string> Out;
  for (const OutputArray &O : P.Outs)
    Out.push_back(O.Path);
  return Out;
}

TEST(InferenceDataLayout, GroupsFollowArviZSchema) {
  RunOptions O;
  O.Layout = OutputLayout::InferenceData;
  O.OutPath = "out.zarr";
  O.ReturnSites = {"y", "eta"};
  EXPECT_EQ(pathsOf(planOf(O, 2, true)),
            (std::vector<std::string>{"posterior_predictive/y",
                                      "posterior_predictive/eta",
                                      "observed_data/y"}));
  O.OutOfSample = true;
  EXPECT_EQ(pathsOf(planOf(O, 2, true)),
            (std::vector<std::string>{"predictions/y", "predictions/eta"}));
  O.OutOfSample = false;
  O.Kind = EntryKind::PriorPredictive;
  O.NumSamples = 6;
  O.ReturnSites = {"y", "alpha"};
  RunPlan Prior = planOf(O);
  EXPECT_EQ(pathsOf(Prior), (std::vector<std::string>{"prior_predictive/y",
                                                      "prior/alpha"}));
  EXPECT_EQ(Prior.Chains, 1);
  EXPECT_EQ(Prior.Outs[1].DimNames,
            (std::vector<std::string>{"chain", "draw"}));
  O.Kind = EntryKind::LogLikelihood;
  O.ReturnSites = {};
  RunPlan LL = planOf(O, 4, true);
  EXPECT_EQ(pathsOf(LL), (std::vector<std::string>{"log_likelihood/y",
                                                   "observed_data/y"}));
  EXPECT_EQ(LL.Outs[0].Shape, (std::vector<uint64_t>{4, 2, 5}));
  EXPECT_EQ(LL.Outs[0].DimNames,
            (std::vector<std::string>{"chain", "draw", "obs"}));
  EXPECT_EQ(LL.Outs[1].DimNames, (std::vector<std::string>{"obs"}));
  // Groups carry ArviZ's attributes.
  ASSERT_EQ(LL.Groups.size(), 2u);
  EXPECT_EQ(LL.Groups[0].first, "log_likelihood");
  EXPECT_EQ(LL.Groups[0].second["inference_library"], "aimzc");
  EXPECT_TRUE(LL.Groups[0].second.contains("created_at"));
  EXPECT_EQ(LL.Attrs["layout"], "inference-data");
}

TEST(InferenceDataLayout, ObservedDataChunksAlongObservations) {
  RunOptions O;
  O.Layout = OutputLayout::InferenceData;
  O.OutPath = "out.zarr";
  O.ChunkBudgetBytes = 8; // two float32 values per chunk
  RunPlan P = planOf(O, 2, true);
  const OutputArray &Obs = P.Outs.back();
  ASSERT_TRUE(Obs.Observed);
  EXPECT_EQ(Obs.Chunk, (std::vector<uint64_t>{2}));
  EXPECT_EQ(Obs.ChunkRows, 2u);
  for (int64_t B = 0; B < P.Batches; ++B)
    EXPECT_FALSE(P.fills(P.Outs.size() - 1, B));
}

TEST(FlatLayout, UnchangedByChains) {
  RunOptions O;
  O.OutPath = "out.zarr";
  O.Axis = ShardAxis::Draw;
  O.BatchSize = 3;
  RunPlan P = planOf(O, 2);
  EXPECT_EQ(P.Chains, 1);
  EXPECT_EQ(P.Batches, 3); // 8 draws in blocks of 3, across the chains
  EXPECT_EQ(P.Outs[0].Path, "y");
  EXPECT_EQ(P.Outs[0].Shape, (std::vector<uint64_t>{8, 5}));
  EXPECT_EQ(P.Outs[0].DimNames, (std::vector<std::string>{"draw", "obs"}));
  EXPECT_EQ(P.Attrs["num_chains"], 2);
  EXPECT_FALSE(P.Attrs.contains("layout"));
}

std::vector<std::vector<std::string>> dimNamesOf(const RunPlan &P) {
  std::vector<std::vector<std::string>> Out;
  for (const OutputArray &O : P.Outs)
    Out.push_back(O.DimNames);
  return Out;
}

TEST(DimNames, FollowThePlatesAsArviZNamesNumPyros) {
  RunOptions O;
  O.OutPath = "out.zarr";
  O.ReturnSites = {"y", "z", "beta"};
  using Dims = std::vector<std::vector<std::string>>;
  EXPECT_EQ(dimNamesOf(planOf(O)), (Dims{{"draw", "obs"},
                                         {"draw", "obs", "z_dim_1"},
                                         {"draw", "beta_dim_0"}}));
  // A model compiled before manifests named plates: generic names.
  Manifest Old = linregManifest();
  for (ManifestSite &S : Old.Sites)
    S.Plates.clear();
  EXPECT_EQ(dimNamesOf(planOf(O, 2, false, Old)),
            (Dims{{"draw", "y_dim_0"},
                  {"draw", "z_dim_0", "z_dim_1"},
                  {"draw", "beta_dim_0"}}));
}

TEST(DimNames, APlateNameXarrayCouldNotOpenIsNotUsed) {
  RunOptions O;
  O.OutPath = "out.zarr";
  O.ReturnSites = {"y", "z", "beta"};
  using Dims = std::vector<std::vector<std::string>>;
  // A plate named like the draw axis, or like an array of the store.
  for (const char *Clash : {"draw", "beta"}) {
    Manifest M = linregManifest();
    M.Sites[2].Plates = {Clash, ""};
    EXPECT_EQ(dimNamesOf(planOf(O, 2, false, M)),
              (Dims{{"draw", "obs"},
                    {"draw", "z_dim_0", "z_dim_1"},
                    {"draw", "beta_dim_0"}}))
        << Clash;
  }
  // One name over axes of different extents (5 observations, k = 3): a
  // Dataset has one size per dimension, so neither keeps it.
  Manifest M = linregManifest();
  M.Sites[1].Plates = {"obs"};
  EXPECT_EQ(dimNamesOf(planOf(O, 2, false, M)),
            (Dims{{"draw", "y_dim_0"},
                  {"draw", "z_dim_0", "z_dim_1"},
                  {"draw", "beta_dim_0"}}));
  // Groups are separate Datasets: y in prior_predictive keeps the name
  // that z and beta in prior cannot share.
  O.Layout = OutputLayout::InferenceData;
  O.Kind = EntryKind::PriorPredictive;
  O.NumSamples = 4;
  RunPlan Prior = planOf(O, 2, false, M);
  EXPECT_EQ(pathsOf(Prior), (std::vector<std::string>{
                                "prior_predictive/y", "prior/z", "prior/beta"}));
  EXPECT_EQ(dimNamesOf(Prior),
            (Dims{{"chain", "draw", "obs"},
                  {"chain", "draw", "z_dim_0", "z_dim_1"},
                  {"chain", "draw", "beta_dim_0"}}));
}

/// A manifest whose one site, y: f32[n, 2], has the given "plates" JSON
/// (or none).
llvm::Expected<Manifest> manifestWithPlates(const std::string &Plates) {
  std::string Site = R"({"name":"y","kind":"observed","class":"observed",)"
                     R"("dist":"Normal","dtype":"f32","shape":["n",2])";
  if (!Plates.empty())
    Site += R"(,"plates":)" + Plates;
  return Manifest::parse(
      R"({"model":"m","obs_dim":"n","plan":"obs","plan_reason":[],)"
      R"("precision":"f32","dims":["n"],"inputs":[],"outputs":[{"name":"y",)"
      R"("dtype":"f32","shape":["n",2]}],"sites":[)" +
      Site + "}]}");
}

TEST(ManifestPlates, ANameOrNullPerAxis) {
  auto M = manifestWithPlates(R"(["obs",null])");
  ASSERT_TRUE(static_cast<bool>(M)) << llvm::toString(M.takeError());
  EXPECT_EQ(M->Sites[0].Plates, (std::vector<std::string>{"obs", ""}));
  EXPECT_EQ(M->Sites[0].plate(0), "obs");
  EXPECT_EQ(M->Sites[0].plate(1), "");
  // An older model's manifest has no plates: no axis lies in one.
  auto Old = manifestWithPlates("");
  ASSERT_TRUE(static_cast<bool>(Old)) << llvm::toString(Old.takeError());
  EXPECT_EQ(Old->Sites[0].plate(0), "");
  for (const char *Bad : {R"(["obs"])", R"(["obs",3])", R"("obs")"}) {
    auto E = manifestWithPlates(Bad);
    ASSERT_FALSE(static_cast<bool>(E)) << Bad;
    EXPECT_NE(llvm::toString(E.takeError()).find("site 'y'"),
              std::string::npos);
  }
}

TEST(RunPlanErrors, SayWhatToChange) {
  Manifest M = linregManifest();
  DataSet D = dataOf(5);
  Posterior Post = posteriorOf(M, 8, 2);
  Warnings W;
  auto messageOf = [&](const RunOptions &O) {
    auto P = planRun(M, D, &Post, O, 2, W);
    return P ? std::string() : llvm::toString(P.takeError());
  };
  RunOptions O;
  O.Layout = OutputLayout::InferenceData;
  O.OutPath = "out.npz";
  EXPECT_NE(messageOf(O).find("give --out a directory"), std::string::npos);
  O.OutPath = "out.zarr";
  O.BaselinePost = &Post;
  EXPECT_NE(messageOf(O).find("drop --layout inference-data"),
            std::string::npos);
  O.BaselinePost = nullptr;
  O.Layout = OutputLayout::Flat;
  O.OutOfSample = true;
  EXPECT_NE(messageOf(O).find("--layout inference-data"), std::string::npos);
}

} // namespace
