//===- OutputFileTest.cpp - Writes past the page cache keep every byte ----===//
//
// writeDirect() sends a buffer's whole 4 KiB blocks with O_DIRECT and the
// rest through the page cache, falling back to plain writes whenever the
// buffer, the offset or the file system does not allow direct I/O. Whatever
// path a write takes, the committed file must hold exactly the bytes given,
// in order.
//
//===----------------------------------------------------------------------===//

#include "OutputFile.h"

#include "TestUtil.h"

#include <cstdlib>
#include <memory>
#include <random>

using namespace aimz::io;
using namespace aimz::io::test;

namespace {

struct FreeDeleter {
  void operator()(uint8_t *P) const { std::free(P); }
};

/// Page-aligned random bytes (the alignment direct I/O needs).
std::unique_ptr<uint8_t, FreeDeleter> alignedRandom(size_t N, unsigned Seed) {
  size_t Len = (N + 4096) / 4096 * 4096;
  std::unique_ptr<uint8_t, FreeDeleter> P(
      static_cast<uint8_t *>(std::aligned_alloc(4096, Len)));
  std::mt19937 Rng(Seed);
  for (size_t I = 0; I < Len; ++I)
    P.get()[I] = static_cast<uint8_t>(Rng());
  return P;
}

std::vector<uint8_t> committed(TempDir &Tmp, const std::string &Name,
                               OutputFile &F) {
  EXPECT_FALSE(static_cast<bool>(F.commit(/*Sync=*/true)));
  return readFile(Tmp / Name);
}

TEST(OutputFile, WriteDirectKeepsEveryByteForAnyLength) {
  TempDir Tmp;
  // Empty, shorter than a block, block edges, a large chunk with a tail.
  for (size_t N : {size_t(0), size_t(1), size_t(4095), size_t(4096),
                   size_t(4097), size_t(3 * 4096 + 17), size_t(1) << 20,
                   (size_t(8) << 20) + 5}) {
    auto Data = alignedRandom(N, static_cast<unsigned>(N));
    std::string Name = "chunk" + std::to_string(N);
    auto F = OutputFile::create(Tmp / Name, ".tmp");
    ASSERT_EXPECTED(F);
    ASSERT_OK(F->writeDirect(Data.get(), N));
    EXPECT_EQ(F->offset(), N);
    std::vector<uint8_t> Back = committed(Tmp, Name, *F);
    ASSERT_EQ(Back.size(), N) << "length " << N;
    EXPECT_TRUE(std::equal(Back.begin(), Back.end(), Data.get()))
        << "length " << N;
  }
}

TEST(OutputFile, WriteDirectAfterUnalignedBytesAndFromUnalignedBuffers) {
  TempDir Tmp;
  const size_t N = (size_t(1) << 20) + 333;
  auto Data = alignedRandom(N + 64, 7);
  auto F = OutputFile::create(Tmp / "mixed", ".tmp");
  ASSERT_EXPECTED(F);
  // A header of 10 bytes puts the next write off the block grid.
  ASSERT_OK(F->write(Data.get(), 10));
  ASSERT_OK(F->writeDirect(Data.get() + 10, 4096 * 3));
  // Back on an aligned buffer but at an unaligned offset, then a buffer
  // one byte off the page, then plain appends again.
  size_t At = 10 + 4096 * 3;
  ASSERT_OK(F->writeDirect(Data.get() + At, 8192));
  At += 8192;
  ASSERT_OK(F->writeDirect(Data.get() + At, 4096 * 5 + 1));
  At += 4096 * 5 + 1;
  ASSERT_OK(F->write(Data.get() + At, N - At));
  EXPECT_EQ(F->offset(), N);
  std::vector<uint8_t> Back = committed(Tmp, "mixed", *F);
  ASSERT_EQ(Back.size(), N);
  EXPECT_TRUE(std::equal(Back.begin(), Back.end(), Data.get()));
}

TEST(OutputFile, WriteDirectAppendsAfterADirectWrite) {
  // Two aligned direct writes in a row, then a tail: the second starts on
  // the grid where the first stopped.
  TempDir Tmp;
  const size_t N = 4096 * 7 + 100;
  auto Data = alignedRandom(N, 11);
  auto Second = alignedRandom(N, 12);
  auto F = OutputFile::create(Tmp / "twice", ".tmp");
  ASSERT_EXPECTED(F);
  ASSERT_OK(F->writeDirect(Data.get(), 4096 * 4));
  ASSERT_OK(F->writeDirect(Second.get(), N));
  EXPECT_EQ(F->offset(), 4096 * 4 + N);
  std::vector<uint8_t> Back = committed(Tmp, "twice", *F);
  ASSERT_EQ(Back.size(), 4096 * 4 + N);
  EXPECT_TRUE(std::equal(Back.begin(), Back.begin() + 4096 * 4, Data.get()));
  EXPECT_TRUE(std::equal(Back.begin() + 4096 * 4, Back.end(), Second.get()));
}

} // namespace
