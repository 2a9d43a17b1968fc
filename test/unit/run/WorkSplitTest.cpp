//===- WorkSplitTest.cpp - Every output element has exactly one writer ----===//
#include "aimz/run/WorkSplit.h"

#include <gtest/gtest.h>

#include <vector>

using namespace aimz::run;

namespace {

TEST(WorkSplit, SharesPartitionTheBatch) {
  for (unsigned Devices = 1; Devices <= 8; ++Devices)
    for (int64_t U0 : {0, 7, 1000})
      for (int64_t Len = 0; Len <= 40; ++Len) {
        int64_t Next = U0, Min = Len, Max = 0;
        for (unsigned Dev = 0; Dev < Devices; ++Dev) {
          auto [B, E] = deviceShare(U0, U0 + Len, Dev, Devices);
          ASSERT_EQ(B, Next) << Devices << " devices, length " << Len;
          ASSERT_LE(B, E);
          Next = E;
          Min = std::min(Min, E - B);
          Max = std::max(Max, E - B);
        }
        EXPECT_EQ(Next, U0 + Len);
        EXPECT_LE(Max - Min, 1);
        auto [B, E] = deviceShare(U0, U0 + Len, Devices - 1, Devices);
        EXPECT_EQ(E - B == 0, Len == 0) << "the last share is empty";
      }
}

TEST(WorkSplit, EachArrayHasExactlyOneWriterPerElement) {
  for (unsigned Devices = 1; Devices <= 8; ++Devices)
    for (bool ObsPlan : {false, true})
      for (bool ObsAligned : {false, true}) {
        // Writers of one element of the array: under 'obs', an element of a
        // global array is computed by every device; an obs-aligned element
        // (and every element under 'draw') only by its share's device.
        bool Shared = ObsPlan && !ObsAligned;
        unsigned Writers = 0;
        for (unsigned Dev = 0; Dev < Devices; ++Dev)
          Writers += writesArray(ObsPlan, ObsAligned, Dev, Devices);
        if (Shared) {
          EXPECT_EQ(Writers, 1u) << Devices << " devices";
        } else {
          EXPECT_EQ(Writers, Devices) << "each writes its own share";
        }
        if (Shared) { // the writer: the device whose share is never empty
          EXPECT_TRUE(writesArray(true, false, Devices - 1, Devices));
        }
      }
}

} // namespace
