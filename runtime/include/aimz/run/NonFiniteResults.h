//===- NonFiniteResults.h - NaN and infinities a run computed ---*- C++ -*-===//
//
// A parameter outside its distribution's support (a scale of 0 or below, a
// probability above 1) gives NaN, and a value beyond the model's precision
// gives an infinity: the kernels write such values as they are (NaN is the
// honest answer), and the runner counts them per output array so that a
// store full of NaN never appears without a word. Warning by default, an
// error under --strict (docs/cli.md, "Non-finite results").
//
//===----------------------------------------------------------------------===//
#ifndef AIMZ_RUN_NONFINITERESULTS_H
#define AIMZ_RUN_NONFINITERESULTS_H

#include "aimz/io/DType.h"
#include "aimz/run/ChunkBox.h"

#include <cstdint>
#include <string>
#include <vector>

namespace aimz::run {

struct NonFiniteTally {
  int64_t NaN = 0, PosInf = 0, NegInf = 0;
  /// The lowest draw holding one, or -1.
  int64_t FirstDraw = -1;
  /// Draws of a count distribution marked invalid (kInvalidCount, -1: a
  /// gate above 1, a truncation holding no integer): the NaN of counts.
  int64_t Invalid = 0;
  int64_t total() const { return NaN + PosInf + NegInf + Invalid; }
  void add(const NonFiniteTally &O);
};

/// Counts the NaN and infinite elements of Box in a chunk of Type (float32
/// or float64) with element strides Strides, whose draw axis (the box's
/// first) starts at draw Draw0. In an int32 chunk of a count distribution's
/// draws (CountDraws), the invalid-count markers (-1); other types hold
/// none.
NonFiniteTally countNonFiniteInBox(io::DType Type, const void *Chunk,
                                   const std::vector<int64_t> &Strides,
                                   const ChunkBox &Box, int64_t Draw0,
                                   bool CountDraws = false);

/// "'y': 1000 of 1000 values are NaN (from draw 0)": what a run tells the
/// user about one array; "" when it holds none that count. -inf counts
/// unless NegInfIsAValue (a log-likelihood: an impossible observation).
std::string describeNonFinite(const std::string &Array,
                              const NonFiniteTally &T, uint64_t Values,
                              bool NegInfIsAValue);

} // namespace aimz::run

#endif // AIMZ_RUN_NONFINITERESULTS_H
