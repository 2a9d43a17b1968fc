//===- NonFiniteResultsTest.cpp - Counting NaN and inf in chunk boxes -----===//
#include "aimz/run/NonFiniteResults.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

using namespace aimz;
using namespace aimz::run;

namespace {

// A (4 draws, 3, 5) chunk of float, with element strides (15, 5, 1).
const std::vector<int64_t> Strides = {15, 5, 1};

ChunkBox box(std::vector<int64_t> Lo, std::vector<int64_t> Hi) {
  return ChunkBox{std::move(Lo), std::move(Hi)};
}

TEST(NonFiniteResults, CountsOnlyInsideTheBox) {
  std::vector<float> C(60, 1.0f);
  const float Inf = std::numeric_limits<float>::infinity();
  C[0 * 15 + 1 * 5 + 2] = std::nanf("");  // draw 0, inside
  C[2 * 15 + 2 * 5 + 4] = -Inf;           // draw 2, inside
  C[3 * 15 + 0 * 5 + 1] = Inf;            // draw 3, inside
  C[1 * 15 + 0 * 5 + 0] = std::nanf("");  // column 0: outside the box
  NonFiniteTally T = countNonFiniteInBox(io::DType::Float32, C.data(),
                                         Strides, box({0, 0, 1}, {4, 3, 5}),
                                         /*Draw0=*/100);
  EXPECT_EQ(T.NaN, 1);
  EXPECT_EQ(T.NegInf, 1);
  EXPECT_EQ(T.PosInf, 1);
  EXPECT_EQ(T.FirstDraw, 100);
  // Draws 1..3 only: the first is draw 2 (102).
  T = countNonFiniteInBox(io::DType::Float32, C.data(), Strides,
                          box({1, 0, 1}, {4, 3, 5}), 100);
  EXPECT_EQ(T.total(), 2);
  EXPECT_EQ(T.FirstDraw, 102);
}

TEST(NonFiniteResults, DoublesAndOtherTypes) {
  std::vector<double> C(60, -2.5);
  C[59] = std::nan("");
  C[30] = -std::numeric_limits<double>::infinity();
  NonFiniteTally T = countNonFiniteInBox(io::DType::Float64, C.data(),
                                         Strides, box({0, 0, 0}, {4, 3, 5}), 0);
  EXPECT_EQ(T.NaN, 1);
  EXPECT_EQ(T.NegInf, 1);
  EXPECT_EQ(T.FirstDraw, 2);
  // Largest finite values and denormals are finite.
  std::vector<float> F(60, std::numeric_limits<float>::max());
  F[7] = std::numeric_limits<float>::denorm_min();
  F[8] = -std::numeric_limits<float>::max();
  EXPECT_EQ(countNonFiniteInBox(io::DType::Float32, F.data(), Strides,
                                box({0, 0, 0}, {4, 3, 5}), 0)
                .total(),
            0);
  // Integers hold none, whatever their bits.
  std::vector<int32_t> I(60, 0x7fc00000);
  EXPECT_EQ(countNonFiniteInBox(io::DType::Int32, I.data(), Strides,
                                box({0, 0, 0}, {4, 3, 5}), 0)
                .total(),
            0);
}

// A count distribution's draws: -1 marks an invalid one (kInvalidCount);
// other integers, and -1 in arrays that are not such draws, count nothing.
TEST(NonFiniteResults, InvalidCountMarkers) {
  const std::vector<int64_t> Strides = {15, 5, 1};
  std::vector<int32_t> I(60, 3);
  I[7] = -1;   // draw 0
  I[31] = -1;  // draw 2
  I[59] = -2;  // not the marker
  NonFiniteTally T = countNonFiniteInBox(io::DType::Int32, I.data(), Strides,
                                         box({0, 0, 0}, {4, 3, 5}), 10, true);
  EXPECT_EQ(T.Invalid, 2);
  EXPECT_EQ(T.total(), 2);
  EXPECT_EQ(T.FirstDraw, 10);
  // Outside the box: not counted.
  EXPECT_EQ(countNonFiniteInBox(io::DType::Int32, I.data(), Strides,
                                box({1, 0, 0}, {2, 3, 5}), 0, true)
                .total(),
            0);
  EXPECT_EQ(countNonFiniteInBox(io::DType::Int32, I.data(), Strides,
                                box({0, 0, 0}, {4, 3, 5}), 0, false)
                .total(),
            0);
  EXPECT_EQ(describeNonFinite("y", T, 60, false),
            "'y' holds 2 invalid draws (-1) among its 60 values (from draw 10)");
}

TEST(NonFiniteResults, Messages) {
  NonFiniteTally T;
  EXPECT_EQ(describeNonFinite("y", T, 10, false), "");
  T.NaN = 3;
  T.NegInf = 2;
  T.FirstDraw = 4;
  EXPECT_EQ(describeNonFinite("y", T, 10, false),
            "'y' holds 3 NaN and 2 -inf among its 10 values (from draw 4)");
  // A log-likelihood's -inf is a value (an impossible observation).
  EXPECT_EQ(describeNonFinite("y", T, 10, true),
            "'y' holds 3 NaN among its 10 values (from draw 4)");
  T.NaN = 0;
  EXPECT_EQ(describeNonFinite("y", T, 10, true), "");
  NonFiniteTally A, B;
  A.NaN = 1;
  A.FirstDraw = 7;
  B.PosInf = 2;
  B.FirstDraw = 3;
  A.add(B);
  EXPECT_EQ(A.total(), 3);
  EXPECT_EQ(A.FirstDraw, 3);
}

} // namespace
