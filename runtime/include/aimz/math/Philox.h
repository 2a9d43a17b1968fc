// Philox4x32-10 counter-based generator and the RandomStream addressing
// scheme used by generated kernels.  See docs/math.md.
//
// Philox (Salmon, Moraes, Dror, Shaw: "Parallel random numbers: as easy as
// 1, 2, 3", SC'11) with the Random123 constants; the 10-round variant is
// bit-identical to Random123's philox4x32 (see the known-answer tests).
#pragma once

#include "aimz/math/Config.h"

namespace aimz {
namespace math {

struct U32x4 {
  std::uint32_t v[4];
};
struct U32x2 {
  std::uint32_t v[2];
};

namespace detail {

constexpr std::uint32_t kPhiloxM0 = 0xD2511F53u;
constexpr std::uint32_t kPhiloxM1 = 0xCD9E8D57u;
constexpr std::uint32_t kPhiloxW0 = 0x9E3779B9u;
constexpr std::uint32_t kPhiloxW1 = 0xBB67AE85u;

AIMZ_HOT_FN std::uint32_t mulhilo32(std::uint32_t a, std::uint32_t b, std::uint32_t* hi) {
  const std::uint64_t p = static_cast<std::uint64_t>(a) * static_cast<std::uint64_t>(b);
  *hi = static_cast<std::uint32_t>(p >> 32);
  return static_cast<std::uint32_t>(p);
}

AIMZ_HOT_FN void philox_round(std::uint32_t c[4], const std::uint32_t k[2]) {
  std::uint32_t hi0, hi1;
  const std::uint32_t lo0 = mulhilo32(kPhiloxM0, c[0], &hi0);
  const std::uint32_t lo1 = mulhilo32(kPhiloxM1, c[2], &hi1);
  const std::uint32_t n0 = hi1 ^ c[1] ^ k[0];
  const std::uint32_t n2 = hi0 ^ c[3] ^ k[1];
  c[0] = n0;
  c[1] = lo1;
  c[2] = n2;
  c[3] = lo0;
}

}  // namespace detail

/// Philox4x32 with R rounds (Random123 semantics: the key is bumped between
/// rounds).  R = 10 is the standard, crush-resistant variant.
template <int R>
AIMZ_HOT_FN U32x4 philox4x32(U32x4 ctr, U32x2 key) {
  static_assert(R >= 1 && R <= 16, "Philox4x32 supports 1..16 rounds");
  std::uint32_t c[4] = {ctr.v[0], ctr.v[1], ctr.v[2], ctr.v[3]};
  std::uint32_t k[2] = {key.v[0], key.v[1]};
  detail::philox_round(c, k);
  for (int r = 1; r < R; ++r) {
    k[0] += detail::kPhiloxW0;
    k[1] += detail::kPhiloxW1;
    detail::philox_round(c, k);
  }
  U32x4 out = {{c[0], c[1], c[2], c[3]}};
  return out;
}

AIMZ_HOT_FN U32x4 philox4x32_10(U32x4 ctr, U32x2 key) { return philox4x32<10>(ctr, key); }

/// A stream of uint32 words addressed by absolute coordinates.
///
/// Mapping (collision-free within the limits below):
///   key     = seed (64 bits: key[0] = low word, key[1] = high word)
///   counter = a 128-bit integer, least significant field first:
///       block : 12 bits  (index of the Philox call inside this stream)
///       elem  : 24 bits
///       obs   : 40 bits
///       draw  : 32 bits
///       site  : 20 bits
///     counter word i holds bits [32i, 32i+32).
/// Because the packing is a mixed-radix number it is injective on the
/// documented ranges, and since Philox is a bijection of the counter for a
/// fixed key, distinct (seed, site, draw, obs, elem, block) tuples never share
/// a Philox block.  A stream can deliver kMaxBlocks * 4 = 16384 words.
///
/// Coordinates outside the ranges make the stream invalid (ok() == false);
/// the stream then still produces words (from the masked coordinates) but
/// every sampler returns NaN / kInvalidCount for it.  The same happens once
/// the block budget is exhausted.  Nothing is ever silently aliased with a
/// valid stream's output in a way a sampler would accept.
class RandomStream {
 public:
  static constexpr std::uint32_t kSiteBits = 20;
  static constexpr std::uint32_t kDrawBits = 32;
  static constexpr std::uint32_t kObsBits = 40;
  static constexpr std::uint32_t kElemBits = 24;
  static constexpr std::uint32_t kBlockBits = 12;
  static constexpr std::uint64_t kMaxSite = (std::uint64_t{1} << kSiteBits) - 1;
  static constexpr std::uint64_t kMaxDraw = (std::uint64_t{1} << kDrawBits) - 1;
  static constexpr std::uint64_t kMaxObs = (std::uint64_t{1} << kObsBits) - 1;
  static constexpr std::uint64_t kMaxElem = (std::uint64_t{1} << kElemBits) - 1;
  static constexpr std::uint32_t kMaxBlocks = std::uint32_t{1} << kBlockBits;

  AIMZ_HOT_FN RandomStream(std::uint64_t seed, std::uint32_t site_id, std::uint64_t draw, std::uint64_t obs,
                            std::uint64_t elem)
      : key_(make_key(seed)),
        base_(make_counter(site_id, draw, obs, elem, 0)),
        block_(0),
        pos_(4),
        ok_(site_id <= kMaxSite && draw <= kMaxDraw && obs <= kMaxObs && elem <= kMaxElem) {
    buf_.v[0] = buf_.v[1] = buf_.v[2] = buf_.v[3] = 0;
  }

  /// Philox key for a seed.
  AIMZ_HOT_FN static U32x2 make_key(std::uint64_t seed) {
    U32x2 k = {{static_cast<std::uint32_t>(seed), static_cast<std::uint32_t>(seed >> 32)}};
    return k;
  }

  /// The Philox counter of block `block` of the stream (site, draw, obs, elem).
  /// Out-of-range coordinates are masked to their field width.
  AIMZ_HOT_FN static U32x4 make_counter(std::uint32_t site, std::uint64_t draw, std::uint64_t obs, std::uint64_t elem,
                                         std::uint32_t block) {
    const std::uint64_t b = block & (kMaxBlocks - 1);
    const std::uint64_t e = elem & kMaxElem;
    const std::uint64_t o = obs & kMaxObs;
    const std::uint64_t d = draw & kMaxDraw;
    const std::uint64_t s = site & kMaxSite;
    // bits 0..11 block, 12..35 elem, 36..75 obs, 76..107 draw, 108..127 site
    const std::uint64_t lo = b | (e << 12) | (o << 36);  // obs bits 0..27 land in 36..63
    const std::uint64_t hi = (o >> 28) | (d << 12) | (s << 44);
    U32x4 c = {{static_cast<std::uint32_t>(lo), static_cast<std::uint32_t>(lo >> 32), static_cast<std::uint32_t>(hi),
                static_cast<std::uint32_t>(hi >> 32)}};
    return c;
  }

  /// Next 32 random bits.
  AIMZ_HOT_FN std::uint32_t next_u32() {
    if (pos_ == 4) refill();
    // Constant indices only (a select, not buf_.v[pos_]): once inlined,
    // the buffer splits into scalars however many blocks a sampler reads,
    // which keeps a row's loop vectorizable.
    const std::uint32_t p = pos_++;
    return p == 0 ? buf_.v[0] : p == 1 ? buf_.v[1] : p == 2 ? buf_.v[2] : buf_.v[3];
  }

  /// Next 64 random bits (two words, the first one in the high half).
  AIMZ_HOT_FN std::uint64_t next_u64() {
    const std::uint64_t hi = next_u32();
    const std::uint64_t lo = next_u32();
    return (hi << 32) | lo;
  }

  /// False when the coordinates were out of range or more than
  /// kMaxBlocks Philox blocks have been requested.
  AIMZ_HOT_FN bool ok() const { return ok_; }

  /// Number of Philox blocks generated so far.
  AIMZ_MATH_FN std::uint32_t blocks_used() const { return block_; }

 private:
  AIMZ_HOT_FN void refill() {
    if (block_ >= kMaxBlocks) {
      ok_ = false;
    }
    U32x4 c = base_;
    c.v[0] |= (block_ & (kMaxBlocks - 1));  // block occupies the low 12 bits of word 0
    buf_ = philox4x32_10(c, key_);
    ++block_;
    if (block_ > kMaxBlocks) block_ = kMaxBlocks + 1;  // saturate, never wraps back to valid
    pos_ = 0;
  }

  U32x2 key_;
  U32x4 base_;
  U32x4 buf_;
  std::uint32_t block_;
  std::uint32_t pos_;
  bool ok_;
};

/// uint32 -> float uniformly on the open interval (0, 1): the top 23 bits k
/// give (2k + 1) / 2^24, so the result lies in [2^-24, 1 - 2^-24] and is
/// computed exactly.
AIMZ_HOT_FN float u32_to_float_open(std::uint32_t x) {
  const std::uint32_t k = x >> 9;
  return static_cast<float>(2u * k + 1u) * 5.9604644775390625e-08f;  // 2^-24
}

/// Two uint32 words -> double uniformly on the open interval (0, 1): 52
/// random bits k (hi word first) give (2k + 1) / 2^53, in
/// [2^-53, 1 - 2^-53], computed exactly.
AIMZ_HOT_FN double u32x2_to_double_open(std::uint32_t hi, std::uint32_t lo) {
  const std::uint64_t k = ((static_cast<std::uint64_t>(hi) << 32) | lo) >> 12;
  return static_cast<double>(2u * k + 1u) * 1.1102230246251565404236316680908203125e-16;  // 2^-53
}

/// Uniform on (0, 1) of type T from a stream: float consumes one word,
/// double consumes two.
template <class T> AIMZ_MATH_FN T uniform01(RandomStream& s);

template <> AIMZ_HOT_FN float uniform01<float>(RandomStream& s) { return u32_to_float_open(s.next_u32()); }

template <> AIMZ_HOT_FN double uniform01<double>(RandomStream& s) {
  const std::uint32_t hi = s.next_u32();
  const std::uint32_t lo = s.next_u32();
  return u32x2_to_double_open(hi, lo);
}

}  // namespace math
}  // namespace aimz
