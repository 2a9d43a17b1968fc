// Philox4x32-10 known answers and RandomStream addressing.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <set>
#include <tuple>
#include <utility>
#include <vector>

#include "aimz/math/Philox.h"

using aimz::math::RandomStream;
using aimz::math::U32x2;
using aimz::math::U32x4;

namespace {

void expect_kat(U32x4 ctr, U32x2 key, U32x4 want) {
  const U32x4 got = aimz::math::philox4x32_10(ctr, key);
  for (int i = 0; i < 4; ++i) EXPECT_EQ(got.v[i], want.v[i]) << "word " << i;
}

}  // namespace

// Random123 kat_vectors: philox4x32 10 rounds.
TEST(Philox, KnownAnswerZero) {
  expect_kat({{0, 0, 0, 0}}, {{0, 0}}, {{0x6627e8d5u, 0xe169c58du, 0xbc57ac4cu, 0x9b00dbd8u}});
}

TEST(Philox, KnownAnswerOnes) {
  expect_kat({{0xffffffffu, 0xffffffffu, 0xffffffffu, 0xffffffffu}}, {{0xffffffffu, 0xffffffffu}},
             {{0x408f276du, 0x41c83b0eu, 0xa20bc7c6u, 0x6d5451fdu}});
}

TEST(Philox, KnownAnswerPi) {
  expect_kat({{0x243f6a88u, 0x85a308d3u, 0x13198a2eu, 0x03707344u}}, {{0xa4093822u, 0x299f31d0u}},
             {{0xd16cfe09u, 0x94fdccebu, 0x5001e420u, 0x24126ea1u}});
}

TEST(Philox, RoundsTemplateMatches) {
  const U32x4 c = {{1, 2, 3, 4}};
  const U32x2 k = {{5, 6}};
  const U32x4 a = aimz::math::philox4x32<10>(c, k);
  const U32x4 b = aimz::math::philox4x32_10(c, k);
  for (int i = 0; i < 4; ++i) EXPECT_EQ(a.v[i], b.v[i]);
  const U32x4 seven = aimz::math::philox4x32<7>(c, k);
  EXPECT_NE(seven.v[0], a.v[0]);
}

TEST(RandomStream, WordsAreConsecutivePhiloxBlocks) {
  const std::uint64_t seed = 0x0123456789abcdefull;
  RandomStream s(seed, 7, 11, 13, 17);
  const U32x2 key = RandomStream::make_key(seed);
  EXPECT_EQ(key.v[0], 0x89abcdefu);
  EXPECT_EQ(key.v[1], 0x01234567u);
  for (std::uint32_t block = 0; block < 3; ++block) {
    const U32x4 want = aimz::math::philox4x32_10(RandomStream::make_counter(7, 11, 13, 17, block), key);
    for (int i = 0; i < 4; ++i) EXPECT_EQ(s.next_u32(), want.v[i]) << "block " << block << " word " << i;
  }
  EXPECT_EQ(s.blocks_used(), 3u);
  EXPECT_TRUE(s.ok());
}

TEST(RandomStream, CounterLayout) {
  // bits 0..11 block, 12..35 elem, 36..75 obs, 76..107 draw, 108..127 site
  const U32x4 c = RandomStream::make_counter(0xABCDEu, 0x89ABCDEFull, 0xFEDCBA9876ull, 0x123456ull, 0x789u);
  // lo64 = block | elem << 12 | obs << 36  (obs low 28 bits)
  const std::uint64_t lo = (std::uint64_t{c.v[1]} << 32) | c.v[0];
  const std::uint64_t hi = (std::uint64_t{c.v[3]} << 32) | c.v[2];
  EXPECT_EQ(lo & 0xFFFu, 0x789u);
  EXPECT_EQ((lo >> 12) & 0xFFFFFFu, 0x123456u);
  EXPECT_EQ((lo >> 36) | ((hi & 0xFFFu) << 28), 0xFEDCBA9876ull);
  EXPECT_EQ((hi >> 12) & 0xFFFFFFFFull, 0x89ABCDEFull);
  EXPECT_EQ(hi >> 44, 0xABCDEu);
}

TEST(RandomStream, CounterIsInjectiveAtFieldBoundaries) {
  // Neighbouring values of every field, including the field maxima, must map
  // to distinct counters (no carry into a neighbouring field).
  const std::uint64_t site_v[] = {0, 1, RandomStream::kMaxSite - 1, RandomStream::kMaxSite};
  const std::uint64_t draw_v[] = {0, 1, RandomStream::kMaxDraw};
  const std::uint64_t obs_v[] = {0, 1, (1ull << 28) - 1, 1ull << 28, RandomStream::kMaxObs};
  const std::uint64_t elem_v[] = {0, 1, RandomStream::kMaxElem};
  const std::uint32_t block_v[] = {0, 1, RandomStream::kMaxBlocks - 1};
  std::set<std::tuple<std::uint32_t, std::uint32_t, std::uint32_t, std::uint32_t>> seen;
  std::size_t n = 0;
  for (auto si : site_v)
    for (auto d : draw_v)
      for (auto o : obs_v)
        for (auto e : elem_v)
          for (auto b : block_v) {
            const U32x4 c = RandomStream::make_counter(static_cast<std::uint32_t>(si), d, o, e, b);
            seen.insert(std::make_tuple(c.v[0], c.v[1], c.v[2], c.v[3]));
            ++n;
          }
  EXPECT_EQ(seen.size(), n);
}

TEST(RandomStream, SameCoordinatesSameNumbersInAnyOrder) {
  std::vector<std::uint32_t> first;
  {
    RandomStream a(42, 3, 100, 5, 9);
    for (int i = 0; i < 37; ++i) first.push_back(a.next_u32());
  }
  // Create unrelated streams in between and interleave.
  RandomStream other(42, 3, 100, 5, 10);
  RandomStream b(42, 3, 100, 5, 9);
  RandomStream other2(43, 3, 100, 5, 9);
  for (int i = 0; i < 37; ++i) {
    other.next_u32();
    EXPECT_EQ(b.next_u32(), first[static_cast<std::size_t>(i)]) << i;
    other2.next_u64();
  }
}

TEST(RandomStream, DifferentCoordinatesDifferentNumbers) {
  struct C {
    std::uint64_t seed;
    std::uint32_t site;
    std::uint64_t draw, obs, elem;
  };
  const C base = {1234, 5, 6, 7, 8};
  std::vector<C> cs = {base};
  const std::uint64_t deltas[] = {1, 2, 1000};
  for (auto d : deltas) {
    C c = base;
    c.seed += d;
    cs.push_back(c);
    c = base;
    c.seed += d << 32;
    cs.push_back(c);
    c = base;
    c.site += static_cast<std::uint32_t>(d);
    cs.push_back(c);
    c = base;
    c.draw += d;
    cs.push_back(c);
    c = base;
    c.obs += d;
    cs.push_back(c);
    c = base;
    c.elem += d;
    cs.push_back(c);
  }
  // Swapped coordinates must not alias either.
  cs.push_back({1234, 6, 5, 7, 8});
  cs.push_back({1234, 5, 7, 6, 8});
  cs.push_back({1234, 5, 6, 8, 7});
  std::set<std::vector<std::uint32_t>> seen;
  for (const C& c : cs) {
    RandomStream s(c.seed, c.site, c.draw, c.obs, c.elem);
    std::vector<std::uint32_t> w;
    for (int i = 0; i < 8; ++i) w.push_back(s.next_u32());
    seen.insert(w);
  }
  EXPECT_EQ(seen.size(), cs.size());
}

TEST(RandomStream, OutOfRangeCoordinatesInvalidate) {
  EXPECT_TRUE(RandomStream(0, RandomStream::kMaxSite, RandomStream::kMaxDraw, RandomStream::kMaxObs,
                           RandomStream::kMaxElem)
                  .ok());
  EXPECT_FALSE(RandomStream(0, RandomStream::kMaxSite + 1, 0, 0, 0).ok());
  EXPECT_FALSE(RandomStream(0, 0, RandomStream::kMaxDraw + 1, 0, 0).ok());
  EXPECT_FALSE(RandomStream(0, 0, 0, RandomStream::kMaxObs + 1, 0).ok());
  EXPECT_FALSE(RandomStream(0, 0, 0, 0, RandomStream::kMaxElem + 1).ok());
}

TEST(RandomStream, BlockBudgetExhaustionInvalidates) {
  RandomStream s(9, 1, 2, 3, 4);
  for (std::uint32_t i = 0; i < RandomStream::kMaxBlocks * 4; ++i) s.next_u32();
  EXPECT_TRUE(s.ok());
  s.next_u32();
  EXPECT_FALSE(s.ok());
  for (int i = 0; i < 100; ++i) s.next_u32();
  EXPECT_FALSE(s.ok());
}

TEST(Uniform, FloatOpenInterval) {
  const float lo = aimz::math::u32_to_float_open(0u);
  const float hi = aimz::math::u32_to_float_open(0xffffffffu);
  EXPECT_GT(lo, 0.0f);
  EXPECT_LT(hi, 1.0f);
  EXPECT_EQ(lo, 5.9604644775390625e-08f);
  EXPECT_EQ(hi, 1.0f - 5.9604644775390625e-08f);
  // midpoint of the grid
  EXPECT_EQ(aimz::math::u32_to_float_open(0x80000000u), 0.5f + 5.9604644775390625e-08f);
}

TEST(Uniform, DoubleOpenInterval) {
  const double lo = aimz::math::u32x2_to_double_open(0u, 0u);
  const double hi = aimz::math::u32x2_to_double_open(0xffffffffu, 0xffffffffu);
  EXPECT_GT(lo, 0.0);
  EXPECT_LT(hi, 1.0);
  EXPECT_EQ(lo, 0x1p-53);
  EXPECT_EQ(hi, 1.0 - 0x1p-53);
  EXPECT_EQ(aimz::math::u32x2_to_double_open(0x80000000u, 0u), 0.5 + 0x1p-53);
}

TEST(Uniform, StreamConsumption) {
  RandomStream a(1, 2, 3, 4, 5), b(1, 2, 3, 4, 5);
  const float f = aimz::math::uniform01<float>(a);
  EXPECT_EQ(f, aimz::math::u32_to_float_open(b.next_u32()));
  const double d = aimz::math::uniform01<double>(a);
  const std::uint32_t hi = b.next_u32();
  const std::uint32_t lo = b.next_u32();
  EXPECT_EQ(d, aimz::math::u32x2_to_double_open(hi, lo));
}

template <class T> void check_uniform_moments() {
  const int n = 200000;
  double sum = 0, sum2 = 0;
  for (int i = 0; i < n; ++i) {
    RandomStream s(77, 1, 0, static_cast<std::uint64_t>(i), 0);  // one stream per observation
    const double u = aimz::math::uniform01<T>(s);
    ASSERT_GT(u, 0.0);
    ASSERT_LT(u, 1.0);
    sum += u;
    sum2 += u * u;
  }
  const double mean = sum / n;
  const double var = sum2 / n - mean * mean;
  EXPECT_NEAR(mean, 0.5, 5 * std::sqrt(1.0 / 12 / n));
  EXPECT_NEAR(var, 1.0 / 12, 5 * std::sqrt(1.0 / 180 / n));
}

TEST(Uniform, MomentsFloat) { check_uniform_moments<float>(); }
TEST(Uniform, MomentsDouble) { check_uniform_moments<double>(); }
