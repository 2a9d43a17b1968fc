#include "aimz/Shape.h"

#include <gtest/gtest.h>

using namespace aimz;

TEST(Shape, BroadcastsLikeNumPy) {
  Shape NK = {Dim::symbol("n"), Dim::symbol("k")};
  Shape K = {Dim::symbol("k")};
  auto B = broadcastShapes(NK, K);
  ASSERT_TRUE(B);
  EXPECT_EQ(shapeStr(*B), "[n, k]");
  EXPECT_EQ(shapeStr(*broadcastShapes({}, K)), "[k]");
  EXPECT_EQ(shapeStr(*broadcastShapes({Dim::known(1)}, K)), "[k]");
  EXPECT_EQ(shapeStr(*broadcastShapes({Dim::symbol("k"), Dim::known(1)},
                                      {Dim::known(3)})),
            "[k, 3]");
}

TEST(Shape, DistinctSymbolsDoNotBroadcast) {
  EXPECT_FALSE(broadcastShapes({Dim::symbol("n")}, {Dim::symbol("k")}));
  EXPECT_FALSE(broadcastShapes({Dim::known(2)}, {Dim::known(3)}));
  EXPECT_FALSE(broadcastsTo({Dim::symbol("k")}, {}));
  EXPECT_TRUE(broadcastsTo({}, {Dim::symbol("k")}));
}

TEST(Shape, Mentions) {
  Shape S = {Dim::symbol("G"), Dim::known(4)};
  EXPECT_TRUE(mentions(S, "G"));
  EXPECT_FALSE(mentions(S, "n"));
}
