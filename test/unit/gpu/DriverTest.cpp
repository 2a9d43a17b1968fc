//===- DriverTest.cpp - Loading the CUDA driver; the strided copy ---------===//
#include "FakeDriver.h"
#include "aimz/gpu/GpuDevice.h"

#include <gtest/gtest.h>

#include <iostream>
#include <numeric>

using namespace aimz::gpu;
using aimz::gputest::FakeCuda;

namespace {

TEST(CudaDriver, MissingLibraryIsOneClearLine) {
  auto D = CudaDriver::open("libaimz-no-such-driver.so.1");
  ASSERT_FALSE(D);
  EXPECT_EQ(llvm::toString(D.takeError()),
            "no NVIDIA driver (libaimz-no-such-driver.so.1) found");
}

// The system's driver: a clear error where there is none (this test passes
// either way and says what it saw).
TEST(CudaDriver, SystemDriverOrClearError) {
  auto D = CudaDriver::get();
  if (!D) {
    std::string Msg = llvm::toString(D.takeError());
    EXPECT_TRUE(Msg == "no NVIDIA driver (libcuda.so.1) found" ||
                Msg == "the NVIDIA driver found no GPU")
        << Msg;
    std::cout << "[ note     ] no GPU: " << Msg << "\n";
    // The outcome is remembered.
    auto Again = CudaDriver::get();
    ASSERT_FALSE(Again);
    EXPECT_EQ(llvm::toString(Again.takeError()), Msg);
    return;
  }
  ASSERT_FALSE(D->devices().empty());
  std::cout << "[ note     ] driver " << D->version() << ", "
            << D->devices().size() << " GPU(s)\n";
  for (const GpuInfo &G : D->devices()) {
    std::cout << "[ note     ] GPU " << G.Ordinal << ": " << G.describe() << "\n";
    EXPECT_GE(G.CcMajor, 1);
    EXPECT_GT(G.TotalMemory, 0u);
  }
  auto Again = CudaDriver::get();
  ASSERT_TRUE(static_cast<bool>(Again));
  EXPECT_EQ(&*Again, &*D);
}

TEST(FakeDriver, NoDeviceIsOneClearLine) {
  FakeCuda F;
  ASSERT_TRUE(F.ok()) << F.Path;
  auto C = FakeCuda::defaults();
  C.devices = 0;
  auto D = F.open(C);
  ASSERT_FALSE(D);
  EXPECT_EQ(llvm::toString(D.takeError()), "the NVIDIA driver found no GPU");
}

TEST(FakeDriver, ListsDevices) {
  FakeCuda F;
  ASSERT_TRUE(F.ok()) << F.Path;
  auto C = FakeCuda::defaults();
  C.devices = 2;
  C.cc_major = 8;
  C.cc_minor = 6;
  C.total_memory = 24ull << 30;
  auto D = F.open(C);
  ASSERT_TRUE(static_cast<bool>(D)) << llvm::toString(D.takeError());
  ASSERT_EQ((*D)->devices().size(), 2u);
  const GpuInfo &G = (*D)->devices()[1];
  EXPECT_EQ(G.Ordinal, 1);
  EXPECT_EQ(G.Name, "Fake GPU 1");
  EXPECT_EQ(G.CcMajor, 8);
  EXPECT_EQ(G.CcMinor, 6);
  EXPECT_EQ(G.TotalMemory, 24ull << 30);
  EXPECT_EQ(G.describe(), "Fake GPU 1 (sm_86, 24.0 GiB, 4 SMs)");
  EXPECT_EQ((*D)->version(), 13000);
  EXPECT_EQ((*D)->errorText(2), "out of memory (CUDA_ERROR_OUT_OF_MEMORY)");
  EXPECT_EQ((*D)->errorText(12345), "CUDA error 12345");
  llvm::Error E = (*D)->check(2, "cuMemAlloc");
  EXPECT_EQ(llvm::toString(std::move(E)), "cuMemAlloc: out of memory (CUDA_ERROR_OUT_OF_MEMORY)");
}

TEST(FakeDriver, BadOrdinalAndNoPtx) {
  FakeCuda F;
  ASSERT_TRUE(F.ok()) << F.Path;
  auto D = F.open(FakeCuda::defaults());
  ASSERT_TRUE(static_cast<bool>(D)) << llvm::toString(D.takeError());
  const char *Ptx = ".version 7.0\n.target sm_80\n";
  auto G = GpuDevice::create(**D, 3, Ptx, "");
  ASSERT_FALSE(G);
  EXPECT_EQ(llvm::toString(G.takeError()),
            "GPU 3 does not exist (the NVIDIA driver sees 1 GPU)");
  auto G2 = GpuDevice::create(**D, 0, "", "");
  ASSERT_FALSE(G2);
  EXPECT_NE(llvm::toString(G2.takeError()).find("the model has no PTX"), std::string::npos);
  EXPECT_EQ(F.stats().live_device_allocations, 0);
  EXPECT_EQ(F.stats().live_contexts, 0);
}

// copyStrided: the scatter of compact GPU results into host views.
TEST(CopyStrided, CompactIntoStridedAndBack) {
  // A [3, 4, 5] block into a [6, 4, 9] buffer at (2, 0, 3), element 4 bytes.
  std::vector<int32_t> Src(3 * 4 * 5), Dst(6 * 4 * 9, -1);
  std::iota(Src.begin(), Src.end(), 0);
  const int64_t Origin = 2 * 36 + 3;
  copyStrided(reinterpret_cast<uint8_t *>(Dst.data() + Origin), {36, 9, 1},
              reinterpret_cast<const uint8_t *>(Src.data()), {20, 5, 1}, {3, 4, 5}, 4);
  for (int A = 0; A < 6; ++A)
    for (int B = 0; B < 4; ++B)
      for (int C = 0; C < 9; ++C) {
        int32_t V = Dst[A * 36 + B * 9 + C];
        bool In = A >= 2 && A < 5 && C >= 3 && C < 8;
        EXPECT_EQ(V, In ? ((A - 2) * 20 + B * 5 + (C - 3)) : -1) << A << B << C;
      }
  // Back, through a transposed (non-unit innermost) layout.
  std::vector<int32_t> Back(60, -7);
  copyStrided(reinterpret_cast<uint8_t *>(Back.data()), {1, 3, 12},
              reinterpret_cast<const uint8_t *>(Dst.data() + Origin), {36, 9, 1},
              {3, 4, 5}, 4);
  for (int A = 0; A < 3; ++A)
    for (int B = 0; B < 4; ++B)
      for (int C = 0; C < 5; ++C)
        EXPECT_EQ(Back[A + B * 3 + C * 12], A * 20 + B * 5 + C);
}

TEST(CopyStrided, EmptyScalarAndBytes) {
  std::vector<uint8_t> Dst(8, 0), Src = {1, 2, 3, 4, 5, 6, 7, 8};
  copyStrided(Dst.data(), {1}, Src.data(), {1}, {0}, 1); // nothing
  EXPECT_EQ(Dst[0], 0);
  copyStrided(Dst.data(), {}, Src.data(), {}, {}, 8); // one element, rank 0
  EXPECT_EQ(Dst, Src);
  std::vector<uint8_t> Odd(8, 0);
  copyStrided(Odd.data(), {2}, Src.data(), {1}, {4}, 1);
  EXPECT_EQ(Odd, (std::vector<uint8_t>{1, 0, 2, 0, 3, 0, 4, 0}));
}

TEST(SpanBytes, Shapes) {
  EXPECT_EQ(spanBytes({10, 3}, {3, 1}, 4), 120);
  EXPECT_EQ(spanBytes({10, 3}, {1, 10}, 8), 240);
  EXPECT_EQ(spanBytes({}, {}, 4), 4);
  EXPECT_EQ(spanBytes({5, 0}, {1, 1}, 4), 0);
  EXPECT_EQ(spanBytes({4}, {0}, 4), 4); // a broadcast
}

} // namespace
