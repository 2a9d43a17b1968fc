//===- DeviceTest.cpp - GpuDevice against the host entry points ----------===//
//
// Every test runs twice:
//  - "Fake": on libaimz_fake_cuda.so (FakeCuda.h), which runs the model's
//    host code thread by thread behind a lazy, checking stand-in of the
//    driver: results must be byte-identical to the host entry point's, and
//    no pointer, copy or free may break the rules a real GPU imposes;
//  - "Gpu": on the system's driver and GPU 0, JIT-compiling the model's PTX:
//    integer (and comparison-based) outputs byte-identical to the host's,
//    floating ones within 1e-5 relative. Skipped, with the reason, where
//    there is no driver or no GPU.
//
//===----------------------------------------------------------------------===//
#include "FakeDriver.h"
#include "GpuTestModel.h"

#include <chrono>
#include <iostream>

using namespace aimz::gpu;
using namespace aimz::gputest;

namespace {

enum class Backend { Fake, Gpu };

void PrintTo(Backend B, std::ostream *OS) { *OS << (B == Backend::Fake ? "Fake" : "Gpu"); }

std::string backendName(const ::testing::TestParamInfo<Backend> &I) {
  return I.param == Backend::Fake ? "Fake" : "Gpu";
}

class GpuDeviceTest : public ::testing::TestWithParam<Backend> {
protected:
  void SetUp() override {
    if (GetParam() == Backend::Gpu) {
      auto D = CudaDriver::get();
      if (!D)
        GTEST_SKIP() << "needs an NVIDIA GPU: " << llvm::toString(D.takeError());
      Drv = &*D;
      return;
    }
    ASSERT_TRUE(Fake.ok()) << "cannot load " << Fake.Path;
    auto D = Fake.open(FakeCuda::defaults());
    ASSERT_TRUE(static_cast<bool>(D)) << llvm::toString(D.takeError());
    Owned = std::move(*D);
    Drv = Owned.get();
  }
  void TearDown() override {
    if (GetParam() != Backend::Fake || !Fake.ok())
      return;
    EXPECT_STREQ(Fake.Violations(), "") << "the fake driver saw rule violations";
  }

  bool exact() const { return GetParam() == Backend::Fake; }
  // Problem sizes: the fake runs host code per thread, a GPU has room.
  int64_t draws() const { return exact() ? 5 : 24; }
  int64_t obs() const { return exact() ? 600 : 3000; }

  /// Loads a model and points the fake at its host code; skips when the
  /// model has no PTX.
  std::unique_ptr<Model> model(const std::string &Name, int CcMajor = 9,
                               int CcMinor = 0) {
    auto M = loadModel(Name);
    if (!M)
      return nullptr;
    if (!M->hasPtx()) {
      Skip = "model " + Name + " has no PTX (aimzc was built without CUDA's headers)";
      return nullptr;
    }
    if (GetParam() == Backend::Fake) {
      auto C = FakeCuda::defaults();
      C.cc_major = CcMajor;
      C.cc_minor = CcMinor;
      for (int K = 0; K < 3; ++K)
        C.entries[K] = M->Entries[K];
      C.num_dims = static_cast<int>(M->Manifest.at("dims").size());
      C.num_inputs = static_cast<int>(M->inputs().size());
      C.num_sites = static_cast<int>(M->sites().size());
      Fake.Configure(&C);
    }
    return M;
  }

  std::unique_ptr<GpuDevice> device(const Model &M, const GpuOptions &O = {}) {
    auto G = GpuDevice::create(*Drv, 0, M.Ptx80, M.Ptx90, O);
    if (!G) {
      ADD_FAILURE() << llvm::toString(G.takeError());
      return nullptr;
    }
    for (const std::string &N : (*G)->notes())
      std::cout << "[ note     ] " << N << "\n";
    return std::move(*G);
  }

  /// Host and GPU on the same rectangle; results compared whole.
  void compare(const std::string &Name, int Entry, std::map<std::string, int64_t> Dims,
               double Scale = 1.0, const GpuOptions &O = {}, int64_t ObsBlock = 0) {
    auto M = model(Name);
    if (!Skip.empty())
      GTEST_SKIP() << Skip;
    ASSERT_TRUE(M);
    Problem P(*M, Dims, obs(), draws(), 11, Scale);
    std::vector<Arr> Host = P.makeResults(Entry), Dev = P.makeResults(Entry);
    Call HC(P, Host, Entry, 0, P.D, 0, P.N, 5, ObsBlock);
    ASSERT_EQ(runHost(*M, Entry, HC.C), AIMZ_OK);
    auto G = device(*M, O);
    ASSERT_TRUE(G);
    Call GC(P, Dev, Entry, 0, P.D, 0, P.N, 5, ObsBlock);
    auto Scratch = scratchBytesPerThread(M->Entries[Entry], GC.C);
    ASSERT_TRUE(static_cast<bool>(Scratch)) << llvm::toString(Scratch.takeError());
    GC.L.ScratchBytes = *Scratch;
    auto T0 = std::chrono::steady_clock::now();
    llvm::Error E = G->run(Entry, GC.C, GC.L);
    double Secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - T0).count();
    ASSERT_FALSE(static_cast<bool>(E)) << llvm::toString(std::move(E));
    EXPECT_TRUE(sameResults(*M, Host, Dev, exact()));
    if (!exact())
      std::cout << "[ note     ] " << Name << " entry " << Entry << ": " << P.D
                << " draws x " << P.N << " obs on " << G->info().describe()
                << " (sm_" << G->ptxArch() << " PTX) in " << Secs << " s (first "
                << "run, uploads included)\n";
  }

  FakeCuda Fake;
  std::unique_ptr<CudaDriver> Owned;
  CudaDriver *Drv = nullptr;
  std::string Skip;
};

const std::map<std::string, int64_t> LinregDims = {{"k", 3}};
const std::map<std::string, int64_t> MlpDims = {{"d", 100}};
const std::map<std::string, int64_t> NoDims = {};

TEST_P(GpuDeviceTest, PredictLinreg) { compare("linreg", EntryPredict, LinregDims); }
TEST_P(GpuDeviceTest, PredictMlp) {
  GpuOptions O;
  O.UploadChunkBytes = 1 << 16; // X goes up in several pinned chunks
  compare("mlp", EntryPredict, MlpDims, 0.1, O);
}
TEST_P(GpuDeviceTest, PredictLogistic) { compare("logistic", EntryPredict, LinregDims); }
TEST_P(GpuDeviceTest, PredictHierarchical) { compare("hierarchical", EntryPredict, NoDims); }
TEST_P(GpuDeviceTest, PredictLocalLatent) { compare("local_latent", EntryPredict, NoDims); }
TEST_P(GpuDeviceTest, LogLikelihoodLinreg) { compare("linreg", EntryLogLikelihood, LinregDims); }
TEST_P(GpuDeviceTest, LogLikelihoodMlp) { compare("mlp", EntryLogLikelihood, MlpDims, 0.1); }
TEST_P(GpuDeviceTest, LogLikelihoodHierarchical) {
  compare("hierarchical", EntryLogLikelihood, NoDims);
}
TEST_P(GpuDeviceTest, LogLikelihoodLocalLatent) {
  compare("local_latent", EntryLogLikelihood, NoDims);
}
TEST_P(GpuDeviceTest, PriorLinreg) { compare("linreg", EntryPriorPredictive, LinregDims); }
TEST_P(GpuDeviceTest, PriorMlp) { compare("mlp", EntryPriorPredictive, MlpDims); }
TEST_P(GpuDeviceTest, PredictLinregSmallBlocks) {
  compare("linreg", EntryPredict, LinregDims, 1.0, {}, 48);
}
// One observation per thread: many thread blocks, the last one partial.
TEST_P(GpuDeviceTest, PredictLogisticOneObservationPerThread) {
  compare("logistic", EntryPredict, LinregDims, 1.0, {}, 1);
}

// Launch splitting: a few draws per launch, then single draws cut along
// the observations.
TEST_P(GpuDeviceTest, ManyLaunchesPerRectangle) {
  GpuOptions O;
  O.MaxThreadsPerLaunch = 5; // 3 blocks per draw: one draw per launch
  compare("linreg", EntryPredict, LinregDims, 1.0, O);
  if (IsSkipped() || HasFailure())
    return;
  O.MaxThreadsPerLaunch = 2; // a draw's 3 blocks over two launches
  compare("logistic", EntryLogLikelihood, LinregDims, 1.0, O);
}

// A rectangle inside a chunk whose origin is not observation 0, as under the
// 'obs' plan: only the rectangle's elements change.
TEST_P(GpuDeviceTest, RectangleInsideAChunk) {
  auto M = model("linreg");
  if (!Skip.empty())
    GTEST_SKIP() << Skip;
  ASSERT_TRUE(M);
  Problem P(*M, LinregDims, obs(), draws() + 3, 3);
  const int64_t Origin = 100; // the chunk's first observation
  const int64_t D0 = 2, D1 = P.D - 1, O0 = 170, O1 = P.N - 61;
  std::vector<Arr> Host = P.makeResults(EntryPredict), Dev = P.makeResults(EntryPredict);
  auto Shift = [&](Call &C) {
    // The views point at (draw 0, observation Origin) of the buffers.
    for (size_t S = 0; S < C.ResViews.size(); ++S)
      if (C.ResViews[S].data && C.L.Results[S].ObsAxis >= 0)
        C.ResViews[S].data = static_cast<uint8_t *>(C.ResViews[S].data) +
                             Origin * C.ResViews[S].strides[1 + C.L.Results[S].ObsAxis] *
                                 C.L.Results[S].ElemBytes;
    C.C.result_obs_origin = Origin;
  };
  Call HC(P, Host, EntryPredict, D0, D1, O0, O1, 9, 64);
  Shift(HC);
  ASSERT_EQ(runHost(*M, EntryPredict, HC.C), AIMZ_OK);
  auto G = device(*M);
  ASSERT_TRUE(G);
  Call GC(P, Dev, EntryPredict, D0, D1, O0, O1, 9, 64);
  Shift(GC);
  GC.L.ScratchBytes = *scratchBytesPerThread(M->Entries[EntryPredict], GC.C);
  llvm::Error E = G->run(EntryPredict, GC.C, GC.L);
  ASSERT_FALSE(static_cast<bool>(E)) << llvm::toString(std::move(E));
  EXPECT_TRUE(sameResults(*M, Host, Dev, exact()));
  // Untouched outside the rectangle (the fill byte survives).
  const Arr &Y = Dev[M->outputSite()];
  EXPECT_EQ(Y.data()[0], 0xA5);
  EXPECT_EQ(Y.data()[Y.bytes() - 1], 0xA5);
}

// Many rectangles tiling the problem, submitted back to back (two slots in
// flight), equal the host's single pass: partition-free randomness.
TEST_P(GpuDeviceTest, TiledSubmissionsOverlap) {
  auto M = model("logistic");
  if (!Skip.empty())
    GTEST_SKIP() << Skip;
  ASSERT_TRUE(M);
  Problem P(*M, LinregDims, obs(), draws() + 2, 5);
  std::vector<Arr> Host = P.makeResults(EntryPredict), Dev = P.makeResults(EntryPredict);
  Call HC(P, Host, EntryPredict, 0, P.D, 0, P.N, 21);
  ASSERT_EQ(runHost(*M, EntryPredict, HC.C), AIMZ_OK);
  auto G = device(*M);
  ASSERT_TRUE(G);
  const int64_t DStep = 3, OStep = 250;
  int Submitted = 0;
  for (int64_t D = 0; D < P.D; D += DStep)
    for (int64_t O = 0; O < P.N; O += OStep) {
      Call GC(P, Dev, EntryPredict, D, std::min(P.D, D + DStep), O,
              std::min(P.N, O + OStep), 21);
      GC.L.ScratchBytes = *scratchBytesPerThread(M->Entries[EntryPredict], GC.C);
      llvm::Error E = G->submit(EntryPredict, GC.C, GC.L);
      ASSERT_FALSE(static_cast<bool>(E)) << llvm::toString(std::move(E));
      ++Submitted;
    }
  llvm::Error E = G->finish();
  ASSERT_FALSE(static_cast<bool>(E)) << llvm::toString(std::move(E));
  EXPECT_TRUE(sameResults(*M, Host, Dev, exact()));
  EXPECT_EQ(G->stats().Rectangles, static_cast<uint64_t>(Submitted));
  // Inputs and posterior went up once, not once per rectangle.
  EXPECT_EQ(G->stats().ResidentUploads, 3u); // X, intercept, coef
}

// Arrays copied with every rectangle instead of kept resident.
TEST_P(GpuDeviceTest, StreamedArrays) {
  auto M = model("hierarchical");
  if (!Skip.empty())
    GTEST_SKIP() << Skip;
  ASSERT_TRUE(M);
  Problem P(*M, NoDims, obs(), draws(), 8);
  std::vector<Arr> Host = P.makeResults(EntryLogLikelihood),
                   Dev = P.makeResults(EntryLogLikelihood);
  Call HC(P, Host, EntryLogLikelihood, 0, P.D, 0, P.N);
  ASSERT_EQ(runHost(*M, EntryLogLikelihood, HC.C), AIMZ_OK);
  auto G = device(*M);
  ASSERT_TRUE(G);
  for (int64_t O = 0; O < P.N; O += 200) {
    Call GC(P, Dev, EntryLogLikelihood, 0, P.D, O, std::min(P.N, O + 200), 7, 0,
            /*Resident=*/false);
    GC.L.ScratchBytes = *scratchBytesPerThread(M->Entries[EntryLogLikelihood], GC.C);
    llvm::Error E = G->submit(EntryLogLikelihood, GC.C, GC.L);
    ASSERT_FALSE(static_cast<bool>(E)) << llvm::toString(std::move(E));
  }
  llvm::Error E = G->finish();
  ASSERT_FALSE(static_cast<bool>(E)) << llvm::toString(std::move(E));
  EXPECT_TRUE(sameResults(*M, Host, Dev, exact()));
  EXPECT_EQ(G->stats().ResidentUploads, 0u);
}

// A bad index: the kernel's status 2 comes back naming where.
TEST_P(GpuDeviceTest, IndexOutOfRangeNamesTheThread) {
  auto M = model("hierarchical");
  if (!Skip.empty())
    GTEST_SKIP() << Skip;
  ASSERT_TRUE(M);
  Problem P(*M, NoDims, obs(), draws(), 8);
  int GInput = M->inputs()[0].at("name") == "g" ? 0 : 1;
  P.Inputs[GInput].set(300, 8); // groups are 0..7
  std::vector<Arr> Host = P.makeResults(EntryPredict), Dev = P.makeResults(EntryPredict);
  Call HC(P, Host, EntryPredict, 0, P.D, 0, P.N);
  EXPECT_EQ(runHost(*M, EntryPredict, HC.C), AIMZ_INDEX_OUT_OF_RANGE);
  auto G = device(*M);
  ASSERT_TRUE(G);
  Call GC(P, Dev, EntryPredict, 0, P.D, 0, P.N);
  GC.L.ScratchBytes = *scratchBytesPerThread(M->Entries[EntryPredict], GC.C);
  llvm::Error E = G->run(EntryPredict, GC.C, GC.L);
  ASSERT_TRUE(static_cast<bool>(E));
  std::string Msg = llvm::toString(std::move(E));
  EXPECT_NE(Msg.find("at draw 0, observations 256..511"), std::string::npos) << Msg;
  EXPECT_NE(Msg.find("status 2: an integer index input is outside its dimension"),
            std::string::npos)
      << Msg;
  // The device stays usable.
  P.Inputs[GInput].set(300, 7);
  GC.L.ScratchBytes = *scratchBytesPerThread(M->Entries[EntryPredict], GC.C);
  Call HC2(P, Host, EntryPredict, 0, P.D, 0, P.N);
  ASSERT_EQ(runHost(*M, EntryPredict, HC2.C), AIMZ_OK);
  // The input changed under the same pointer: drop the resident copy.
  ASSERT_FALSE(static_cast<bool>(G->forgetResident(P.Inputs[GInput].data())));
  E = G->run(EntryPredict, GC.C, GC.L);
  ASSERT_FALSE(static_cast<bool>(E)) << llvm::toString(std::move(E));
  EXPECT_TRUE(sameResults(*M, Host, Dev, exact()));
}

TEST_P(GpuDeviceTest, EmptyRectangles) {
  auto M = model("linreg");
  if (!Skip.empty())
    GTEST_SKIP() << Skip;
  ASSERT_TRUE(M);
  Problem P(*M, LinregDims, 10, 2);
  std::vector<Arr> Dev = P.makeResults(EntryPredict);
  auto G = device(*M);
  ASSERT_TRUE(G);
  Call NoDraws(P, Dev, EntryPredict, 1, 1, 0, P.N);
  EXPECT_FALSE(static_cast<bool>(G->run(EntryPredict, NoDraws.C, NoDraws.L)));
  EXPECT_EQ(G->stats().Rectangles, 0u);
  Call NoObs(P, Dev, EntryPredict, 0, 2, 4, 4);
  llvm::Error E = G->run(EntryPredict, NoObs.C, NoObs.L);
  ASSERT_TRUE(static_cast<bool>(E));
  EXPECT_NE(llvm::toString(std::move(E)).find("with no observations cannot run on the GPU"),
            std::string::npos);
  for (const Arr &A : Dev)
    for (int64_t I = 0; !A.Store.empty() && I < A.bytes(); ++I)
      ASSERT_EQ(A.data()[I], 0xA5);
}

TEST_P(GpuDeviceTest, ScratchSizeIsTheHostsForAnyRectangle) {
  auto M = model("mlp");
  if (!Skip.empty())
    GTEST_SKIP() << Skip;
  ASSERT_TRUE(M);
  Problem P(*M, MlpDims, 300, 2);
  std::vector<Arr> R = P.makeResults(EntryPredict);
  for (int64_t Block : {0, 32, 1000}) {
    Call C(P, R, EntryPredict, 0, 2, 0, 300, 1, Block);
    auto S = scratchBytesPerThread(M->Entries[EntryPredict], C.C);
    ASSERT_TRUE(static_cast<bool>(S)) << llvm::toString(S.takeError());
    aimz_call Full = C.C;
    Full.scratch = nullptr;
    Full.scratch_bytes = 0;
    EXPECT_EQ(M->Entries[EntryPredict](&Full), AIMZ_SCRATCH_TOO_SMALL);
    EXPECT_EQ(*S, Full.scratch_needed) << "obs_block " << Block;
    EXPECT_GT(*S, 0);
  }
  // Nothing was written by the sizing calls.
  for (const Arr &A : R)
    for (int64_t I = 0; !A.Store.empty() && I < A.bytes(); ++I)
      ASSERT_EQ(A.data()[I], 0xA5);
}

INSTANTIATE_TEST_SUITE_P(Backends, GpuDeviceTest,
                         ::testing::Values(Backend::Fake, Backend::Gpu), backendName);

//===----------------------------------------------------------------------===//
// Fake-driver only: PTX choice, JIT failures, clean-up.
//===----------------------------------------------------------------------===//

class FakeOnly : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_TRUE(Fake.ok()) << "cannot load " << Fake.Path;
    M = loadModel("linreg");
    ASSERT_TRUE(M);
    if (!M->hasPtx())
      GTEST_SKIP() << "linreg has no PTX (aimzc was built without CUDA's headers)";
  }
  std::unique_ptr<CudaDriver> open(int Major, int Minor, int FailSm90 = 0,
                                   int FailAll = 0) {
    auto C = FakeCuda::defaults();
    C.cc_major = Major;
    C.cc_minor = Minor;
    C.fail_jit_sm90 = FailSm90;
    C.fail_jit_all = FailAll;
    for (int K = 0; K < 3; ++K)
      C.entries[K] = M->Entries[K];
    auto D = Fake.open(C);
    if (!D) {
      ADD_FAILURE() << llvm::toString(D.takeError());
      return nullptr;
    }
    return std::move(*D);
  }
  void expectClean() {
    auto S = Fake.stats();
    EXPECT_EQ(S.live_device_allocations, 0);
    EXPECT_EQ(S.live_pinned_allocations, 0);
    EXPECT_EQ(S.live_contexts, 0);
    EXPECT_STREQ(Fake.Violations(), "");
  }
  FakeCuda Fake;
  std::unique_ptr<Model> M;
};

TEST_F(FakeOnly, PtxChoiceFollowsComputeCapability) {
  struct Case {
    int Major, Minor, Want;
  } Cases[] = {{9, 0, 90}, {10, 0, 90}, {8, 0, 80}, {8, 9, 80}};
  for (const Case &C : Cases) {
    auto D = open(C.Major, C.Minor);
    ASSERT_TRUE(D);
    {
      auto G = GpuDevice::create(*D, 0, M->Ptx80, M->Ptx90);
      ASSERT_TRUE(static_cast<bool>(G)) << llvm::toString(G.takeError());
      EXPECT_EQ((*G)->ptxArch(), C.Want) << C.Major << "." << C.Minor;
      EXPECT_EQ(Fake.stats().last_ptx_arch, C.Want);
      EXPECT_TRUE((*G)->notes().empty());
    }
    expectClean();
  }
  auto D = open(9, 0);
  GpuOptions O;
  O.PreferSm80 = true;
  auto G = GpuDevice::create(*D, 0, M->Ptx80, M->Ptx90, O);
  ASSERT_TRUE(static_cast<bool>(G));
  EXPECT_EQ((*G)->ptxArch(), 80);
  // No sm_90 PTX: sm_80 on a 9.0 device.
  auto G2 = GpuDevice::create(*D, 0, M->Ptx80, "");
  ASSERT_TRUE(static_cast<bool>(G2));
  EXPECT_EQ((*G2)->ptxArch(), 80);
}

TEST_F(FakeOnly, Sm90JitFailureFallsBackToSm80) {
  auto D = open(9, 0, /*FailSm90=*/1);
  ASSERT_TRUE(D);
  auto G = GpuDevice::create(*D, 0, M->Ptx80, M->Ptx90);
  ASSERT_TRUE(static_cast<bool>(G)) << llvm::toString(G.takeError());
  EXPECT_EQ((*G)->ptxArch(), 80);
  ASSERT_EQ((*G)->notes().size(), 1u);
  EXPECT_NE((*G)->notes()[0].find("fake JIT failure for sm_90"), std::string::npos)
      << (*G)->notes()[0];
}

TEST_F(FakeOnly, JitFailureReportsTheLog) {
  {
    auto D = open(9, 0, 0, /*FailAll=*/1);
    ASSERT_TRUE(D);
    auto G = GpuDevice::create(*D, 0, M->Ptx80, M->Ptx90);
    ASSERT_FALSE(G);
    std::string Msg = llvm::toString(G.takeError());
    EXPECT_NE(Msg.find("GPU 0 (Fake GPU 0): JIT compilation of the model's sm_90 PTX "
                       "failed: a PTX JIT compilation failed (CUDA_ERROR_INVALID_PTX)\n"
                       "ptxas application ptx input, line 1; fatal   : fake JIT "
                       "failure for sm_90"),
              std::string::npos)
        << Msg;
    EXPECT_NE(Msg.find("fake JIT failure for sm_80"), std::string::npos) << Msg;
  }
  expectClean();
}

TEST_F(FakeOnly, OldGpusAreRefused) {
  auto D = open(7, 5);
  ASSERT_TRUE(D);
  auto G = GpuDevice::create(*D, 0, M->Ptx80, M->Ptx90);
  ASSERT_FALSE(G);
  EXPECT_EQ(llvm::toString(G.takeError()),
            "GPU 0 (Fake GPU 0) has compute capability 7.5; the model's kernels "
            "need 8.0 (sm_80) or newer");
  expectClean();
}

TEST_F(FakeOnly, NothingLeaksAndWorkRunsOnlyWhenWaitedFor) {
  auto D = open(9, 0);
  ASSERT_TRUE(D);
  auto C = FakeCuda::defaults();
  for (int K = 0; K < 3; ++K)
    C.entries[K] = M->Entries[K];
  C.num_dims = 2;
  C.num_inputs = 1;
  C.num_sites = 5;
  Fake.Configure(&C);
  {
    auto G = GpuDevice::create(*D, 0, M->Ptx80, M->Ptx90);
    ASSERT_TRUE(static_cast<bool>(G));
    Problem P(*M, LinregDims, 300, 3);
    std::vector<Arr> Host = P.makeResults(EntryPredict), Dev = P.makeResults(EntryPredict);
    Call HC(P, Host, EntryPredict, 0, 3, 0, 300);
    ASSERT_EQ(runHost(*M, EntryPredict, HC.C), AIMZ_OK);
    Call GC(P, Dev, EntryPredict, 0, 3, 0, 300);
    GC.L.ScratchBytes = *scratchBytesPerThread(M->Entries[EntryPredict], GC.C);
    ASSERT_FALSE(static_cast<bool>((*G)->submit(EntryPredict, GC.C, GC.L)));
    // Queued, not run: the fake runs work when the host waits for it.
    EXPECT_EQ(Fake.stats().launches, 0);
    EXPECT_FALSE(sameResults(*M, Host, Dev, true));
    ASSERT_FALSE(static_cast<bool>((*G)->finish()));
    EXPECT_EQ(Fake.stats().launches, 1);
    EXPECT_EQ(Fake.stats().threads_run, 3 * 2);
    EXPECT_TRUE(sameResults(*M, Host, Dev, true));
    // A rectangle left queued at destruction is waited for, not leaked.
    ASSERT_FALSE(static_cast<bool>((*G)->submit(EntryPredict, GC.C, GC.L)));
  }
  expectClean();
}

} // namespace
