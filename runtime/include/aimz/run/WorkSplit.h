//===- WorkSplit.h - Which device computes and writes what ------*- C++ -*-===//
//
// A batch is split over devices along the plan's axis (observations under
// 'obs', draws under 'draw'). Every output element must be written by
// exactly one device: two devices writing the same bytes at once is a data
// race even when the bytes agree. These two rules are the whole contract,
// kept here so that they are tested on their own (test/unit/run).
//
//===----------------------------------------------------------------------===//
#ifndef AIMZ_RUN_WORKSPLIT_H
#define AIMZ_RUN_WORKSPLIT_H

#include <cstdint>
#include <utility>

namespace aimz::run {

/// [Begin, End) of the batch [U0, U1) that device Dev of Devices computes:
/// contiguous, disjoint, covering the batch, sizes differing by at most one;
/// the last device's share is empty only when the batch is.
inline std::pair<int64_t, int64_t> deviceShare(int64_t U0, int64_t U1,
                                               unsigned Dev, unsigned Devices) {
  int64_t Len = U1 - U0;
  return {U0 + Len * Dev / Devices, U0 + Len * (Dev + 1) / Devices};
}

/// Whether device Dev writes an output array. Under 'obs' an array without
/// an observation axis (a global site) holds all draws, which every device
/// computes; only the last device writes it. Otherwise each device writes
/// its own share.
inline bool writesArray(bool ObsPlan, bool ObsAligned, unsigned Dev,
                        unsigned Devices) {
  return !ObsPlan || ObsAligned || Dev + 1 == Devices;
}

} // namespace aimz::run

#endif // AIMZ_RUN_WORKSPLIT_H
