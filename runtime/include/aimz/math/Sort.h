// sort(a, axis) and argsort(a, axis) of one vector: JAX's stable ascending
// order (equal values keep their order; NaN after every number, as NumPy
// and JAX put it). A bottom-up merge sort of positions, between two index
// buffers the caller provides, so it runs the same on the CPU and the GPU
// (no allocation) in O(K log K) comparisons whatever the input.
#pragma once

#include "aimz/math/Config.h"

#include <cstdint>

namespace aimz {
namespace math {
namespace detail {

/// Whether a sorts strictly before b: NaN last, NaNs equal to each other.
template <class T> AIMZ_MATH_FN bool sorts_before(T a, T b) {
  if (b != b) return a == a;
  return a < b;
}

}  // namespace detail

/// A strided vector of K elements.
template <class T> struct StridedVector {
  T* p;
  std::int64_t s;
  AIMZ_MATH_FN T& operator[](std::int64_t i) const { return p[i * s]; }
};

/// pos = the stable ascending order of x (pos[0] is the position of the
/// smallest); tmp is K more positions of scratch.
template <class T>
AIMZ_MATH_FN void stable_order(std::int64_t K, StridedVector<const T> x,
                               StridedVector<std::int64_t> pos,
                               StridedVector<std::int64_t> tmp) {
  for (std::int64_t i = 0; i < K; ++i) pos[i] = i;
  StridedVector<std::int64_t> src = pos, dst = tmp;
  for (std::int64_t width = 1; width < K; width *= 2) {
    for (std::int64_t lo = 0; lo < K; lo += 2 * width) {
      const std::int64_t mid = lo + width < K ? lo + width : K;
      const std::int64_t hi = lo + 2 * width < K ? lo + 2 * width : K;
      std::int64_t i = lo, j = mid, k = lo;
      // The right run's element goes first only when strictly before.
      while (i < mid && j < hi)
        dst[k++] = detail::sorts_before(x[src[j]], x[src[i]]) ? src[j++] : src[i++];
      while (i < mid) dst[k++] = src[i++];
      while (j < hi) dst[k++] = src[j++];
    }
    StridedVector<std::int64_t> t = src;
    src = dst;
    dst = t;
  }
  if (src.p != pos.p)
    for (std::int64_t i = 0; i < K; ++i) pos[i] = src[i];
}

}  // namespace math
}  // namespace aimz
