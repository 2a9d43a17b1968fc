//===- RecordDifferencesTest.cpp - What two run records disagree on -------===//
#include "aimz/io/RecordDifferences.h"

#include <gtest/gtest.h>

using aimz::io::recordDifferences;
using nlohmann::json;

namespace {

TEST(RecordDifferences, EqualRecordsHaveNone) {
  json A = {{"seed", 3}, {"inputs", {{"X", "<f4 (10, 2) ab"}}}};
  EXPECT_EQ(recordDifferences(A, A, "then", "now"), "");
}

TEST(RecordDifferences, NamesEachKeyWithShortValues) {
  json A = {{"seed", 3}, {"plan", "obs"}, {"codec", {{"level", 1}}}};
  json B = {{"seed", 4}, {"plan", "obs"}, {"zarr_format", 3},
            {"codec", {{"level", 1}}}};
  EXPECT_EQ(recordDifferences(A, B, "on rank 0", "here"),
            "seed (3 on rank 0, 4 here), zarr_format (none on rank 0, 3 "
            "here)");
}

TEST(RecordDifferences, ObjectsListTheirDifferingMembers) {
  json A = {{"inputs", {{"X", "h1"}, {"g", "h2"}, {"z", "h3"}}}};
  json B = {{"inputs", {{"X", "h9"}, {"g", "h2"}, {"w", "h4"}}}};
  EXPECT_EQ(recordDifferences(A, B, "then", "now"), "inputs [X, w, z]");
}

TEST(RecordDifferences, LongValuesAreNamedOnly) {
  json A = {{"model_library", std::string(60, 'a')}};
  json B = {{"model_library", std::string(60, 'b')}};
  EXPECT_EQ(recordDifferences(A, B, "then", "now"), "model_library");
}

} // namespace
