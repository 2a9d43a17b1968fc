//===- ErrorTest.cpp - Status codes of the entry points -------------------===//
//
// abi.h: AIMZ_INDEX_OUT_OF_RANGE when an index input is outside its
// dimension (hierarchical's g >= G = 8), AIMZ_BAD_ABI_VERSION for a caller
// built against another ABI, and the scratch protocol: too little scratch
// returns AIMZ_SCRATCH_TOO_SMALL and sets scratch_needed.
//
//===----------------------------------------------------------------------===//
#include "ExampleData.h"

#include <algorithm>

using namespace aimz::test;

namespace {

class Errors : public ::testing::Test {
protected:
  void SetUp() override {
    M = loadModel("hierarchical");
    ASSERT_TRUE(M);
    Q.Dims = {{"n", N}};
    std::mt19937_64 Rng(8);
    Q.Inputs = makeInputs(*M, Q.Dims, N, Rng, 8);
    Q.Posterior = makePosterior(*M, Q.Dims, N, D, Rng, {"sigma"});
    Q.Observed = Array::make(DType::F32, {N});
    fillNormal(Q.Observed, Rng);
  }
  static constexpr int64_t N = 50, D = 2;
  std::unique_ptr<CompiledModel> M;
  Request Q;
};

const EntryKind kEntries[] = {EntryKind::Predict, EntryKind::LogLikelihood,
                              EntryKind::Prior};

TEST_F(Errors, ValidGroupIndicesSucceed) {
  for (EntryKind K : kEntries) {
    Results R = makeResults(*M, K, Q.Dims, D, N, 0, 0, {"y"});
    EXPECT_TRUE(runOk(*M, K, Q, Rect{0, D, 0, N, 0, 1}, R)) << entryName(K);
  }
}

TEST_F(Errors, GroupIndexOutOfRange) {
  // Negative indices are errors too: never wrapped around NumPy-style.
  for (int32_t Bad : {8, 9, 1000000, -1, -8, -9}) {
    for (int64_t At : {int64_t{0}, int64_t{17}, N - 1}) {
      Request B = Q;
      B.Inputs["g"] = Q.Inputs.at("g").copy();
      B.Inputs["g"].at<int32_t>({At}) = Bad;
      for (EntryKind K : kEntries) {
        Results R = makeResults(*M, K, Q.Dims, D, N, 0, 0, {"y"});
        CallOutcome O = run(*M, K, B, Rect{0, D, 0, N, 0, 1}, R);
        EXPECT_EQ(O.Status, AIMZ_INDEX_OUT_OF_RANGE)
            << entryName(K) << " with g[" << At << "] = " << Bad;
      }
    }
  }
}

// The bad index lies outside the rectangle: it is never read, so no error.
TEST_F(Errors, OutOfRangeIndexOutsideTheRectangleIsNotAnError) {
  Request B = Q;
  B.Inputs["g"] = Q.Inputs.at("g").copy();
  B.Inputs["g"].at<int32_t>({N - 1}) = 8;
  for (EntryKind K : kEntries) {
    Results R = makeResults(*M, K, Q.Dims, D, N, 0, 0, {"y"});
    EXPECT_TRUE(runOk(*M, K, B, Rect{0, D, 0, N - 1, 0, 1}, R)) << entryName(K);
  }
}

TEST_F(Errors, BadAbiVersion) {
  for (int64_t Version : {int64_t{0}, int64_t{AIMZ_ABI_VERSION + 1}, int64_t{-1}}) {
    for (EntryKind K : kEntries) {
      Results R = makeResults(*M, K, Q.Dims, D, N, 0, 0, {"y"});
      CallBuilder CB(*M, Q, Rect{0, D, 0, N, 0, 1}, R);
      CB.Call.abi_version = Version;
      Storage Scratch(1 << 20);
      CB.Call.scratch = Scratch.Ptr;
      CB.Call.scratch_bytes = 1 << 20;
      EXPECT_EQ(M->entry(K)(&CB.Call), AIMZ_BAD_ABI_VERSION)
          << entryName(K) << " abi_version " << Version;
      // Nothing written for a caller it cannot understand.
      std::vector<uint8_t> Bytes = R.Sites.at("y").bytes();
      EXPECT_TRUE(std::all_of(Bytes.begin(), Bytes.end(), [](uint8_t B) { return B == 0xA5; }));
    }
  }
}

TEST_F(Errors, ScratchProtocol) {
  for (EntryKind K : kEntries) {
    SCOPED_TRACE(entryName(K));
    Results R = makeResults(*M, K, Q.Dims, D, N, 0, 0, {"y"});
    CallBuilder CB(*M, Q, Rect{0, D, 0, N, 0, 1}, R);
    // No scratch: status 1 and the size needed.
    ASSERT_EQ(M->entry(K)(&CB.Call), AIMZ_SCRATCH_TOO_SMALL);
    int64_t Need = CB.Call.scratch_needed;
    ASSERT_GT(Need, 0);
    // One byte short: still 1, the same size asked for.
    Storage Scratch(static_cast<size_t>(Need));
    CB.Call.scratch = Scratch.Ptr;
    CB.Call.scratch_bytes = Need - 1;
    CB.Call.scratch_needed = -1;
    EXPECT_EQ(M->entry(K)(&CB.Call), AIMZ_SCRATCH_TOO_SMALL);
    EXPECT_EQ(CB.Call.scratch_needed, Need);
    // Exactly enough: success.
    CB.Call.scratch_bytes = Need;
    EXPECT_EQ(M->entry(K)(&CB.Call), AIMZ_OK);
    // More than enough: success too.
    Storage Big(static_cast<size_t>(2 * Need));
    CB.Call.scratch = Big.Ptr;
    CB.Call.scratch_bytes = 2 * Need;
    EXPECT_EQ(M->entry(K)(&CB.Call), AIMZ_OK);
  }
}

// A joint site's density couples every observation: a call over part of
// them fails with AIMZ_NEEDS_ALL_OBSERVATIONS and writes nothing; over all
// of them it succeeds whatever obs_block asks (one block is forced).
TEST(JointObservations, CallsCoverEveryObservation) {
  auto M = loadModel("gp_joint");
  ASSERT_TRUE(M);
  EXPECT_EQ(M->manifest().at("joint_observations"), true);
  constexpr int64_t N = 12, D = 3;
  Request Q;
  Q.Dims = {{"N", N}};
  std::mt19937_64 Rng(4);
  Q.Inputs = makeInputs(*M, Q.Dims, N, Rng);
  Q.Posterior = makePosterior(*M, Q.Dims, N, D, Rng, {});
  Q.Observed = Array::make(DType::F64, {N});
  fillNormal(Q.Observed, Rng);
  for (EntryKind K : kEntries) {
    SCOPED_TRACE(entryName(K));
    for (Rect Part : {Rect{0, D, 0, N - 1}, Rect{0, D, 1, N}, Rect{0, D, 4, 8}}) {
      Results R = makeResults(*M, K, Q.Dims, D, N, 0, 0, {"Y"});
      CallOutcome O = run(*M, K, Q, Part, R);
      EXPECT_EQ(O.Status, AIMZ_NEEDS_ALL_OBSERVATIONS);
      std::vector<uint8_t> Bytes = R.Sites.at("Y").bytes();
      EXPECT_TRUE(std::all_of(Bytes.begin(), Bytes.end(),
                              [](uint8_t B) { return B == 0xA5; }));
    }
    Results Whole = makeResults(*M, K, Q.Dims, D, N, 0, 0, {"Y"});
    ASSERT_TRUE(runOk(*M, K, Q, Rect{0, D, 0, N}, Whole));
    Results Blocked = makeResults(*M, K, Q.Dims, D, N, 0, 0, {"Y"});
    ASSERT_TRUE(runOk(*M, K, Q, Rect{0, D, 0, N, /*ObsBlock=*/5}, Blocked));
    EXPECT_EQ(Whole.Sites.at("Y").bytes(), Blocked.Sites.at("Y").bytes());
  }
}

// Entry points and data symbols are exported as abi.h declares.
TEST(Exports, ManifestAndVersion) {
  for (const char *Name : {"linreg", "logistic", "hierarchical", "poisson",
                           "local_latent", "mlp"}) {
    auto M = loadModel(Name);
    ASSERT_TRUE(M) << Name;
    EXPECT_EQ(M->abiVersion(), AIMZ_ABI_VERSION);
    EXPECT_EQ(M->manifest().at("model"), Name);
  }
  auto L = loadModel("local_latent");
  ASSERT_TRUE(L);
  EXPECT_EQ(L->manifest().at("plan"), "draw");
  EXPECT_EQ(L->site("z").at("class"), "obs_aligned");
}

} // namespace
