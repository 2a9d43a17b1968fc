//===- ChunkBox.h - A box of elements within a chunk buffer -----*- C++ -*-===//
//
// A device computes a rectangle of draws x observations into chunk buffers
// that other devices share: whatever the runner does to a chunk after the
// kernels (the effect's difference, counting non-finite results) covers
// only the box that device computed.
//
//===----------------------------------------------------------------------===//
#ifndef AIMZ_RUN_CHUNKBOX_H
#define AIMZ_RUN_CHUNKBOX_H

#include <cstddef>
#include <cstdint>
#include <vector>

namespace aimz::run {

/// A box of a chunk: per dimension of the chunk (draw first), [Lo, Hi).
struct ChunkBox {
  std::vector<int64_t> Lo, Hi;
};

/// Calls Run(Offset, Count, Stride) for each innermost run of Box in a
/// chunk with element strides Strides: Count elements from element Offset,
/// Stride apart.
template <class Fn>
void forEachRun(const std::vector<int64_t> &Strides, const ChunkBox &Box,
                Fn Run) {
  const size_t Rank = Strides.size();
  if (Rank == 0)
    return;
  for (size_t D = 0; D < Rank; ++D)
    if (Box.Hi[D] <= Box.Lo[D])
      return;
  // Odometer over every dimension but the last; the last is one run.
  std::vector<int64_t> Idx(Box.Lo.begin(), Box.Lo.end());
  const int64_t Count = Box.Hi[Rank - 1] - Box.Lo[Rank - 1];
  for (;;) {
    int64_t Off = 0;
    for (size_t D = 0; D < Rank; ++D)
      Off += Idx[D] * Strides[D];
    Run(Off, Count, Strides[Rank - 1]);
    size_t D = Rank - 1;
    while (D-- > 0) {
      if (++Idx[D] < Box.Hi[D])
        break;
      Idx[D] = Box.Lo[D];
    }
    if (D == static_cast<size_t>(-1))
      return;
  }
}

} // namespace aimz::run

#endif // AIMZ_RUN_CHUNKBOX_H
