//===- EffectDifference.h - Scenario minus baseline in a chunk --*- C++ -*-===//
//
// `aimz-run effect` runs the model twice over each rectangle, into the
// chunk buffer (the scenario) and a scratch copy of it (the baseline), and
// leaves scenario - baseline in the chunk: only over the rectangle the
// device computed, since other devices write the rest of the chunk.
//
//===----------------------------------------------------------------------===//
#ifndef AIMZ_RUN_EFFECTDIFFERENCE_H
#define AIMZ_RUN_EFFECTDIFFERENCE_H

#include "aimz/io/DType.h"
#include "aimz/run/ChunkBox.h"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace aimz::run {

/// Out[i] -= Base[i] for every element i of Box, in a chunk with element
/// strides Strides. Float types subtract in their precision; integers wrap
/// like NumPy's (they cannot overflow for counts below 2^30); Bool is read
/// as 0/1 and written as the int8 difference (-1, 0, 1).
void subtractInBox(io::DType Type, void *Out, const void *Base,
                   const std::vector<int64_t> &Strides, const ChunkBox &Box);

/// Out[i] = From[i] for every element i of Box (--keep-scenarios).
void copyInBox(size_t ElemBytes, void *Out, const void *From,
               const std::vector<int64_t> &Strides, const ChunkBox &Box);

} // namespace aimz::run

#endif // AIMZ_RUN_EFFECTDIFFERENCE_H
