//===- DimLabelsTest.cpp - Labels of a dim: text and numbers --------------===//
#include "aimz/run/DimLabels.h"

#include "FileFixture.h"

using namespace aimz;
using namespace aimz::run;

namespace {

std::vector<uint32_t> codePoints(const DimLabels &L) {
  const auto *P = static_cast<const uint32_t *>(L.Values.Data);
  return std::vector<uint32_t>(P, P + L.size() * L.TextWidth);
}

TEST(DimLabels, TextIsFixedWidthUtf32) {
  auto L = textLabels("county", {"ab", "\xc3\xa9", ""}); // "é"
  ASSERT_TRUE(static_cast<bool>(L)) << llvm::toString(L.takeError());
  EXPECT_EQ(L->TextWidth, 2u);
  EXPECT_EQ(L->size(), 3u);
  EXPECT_EQ(L->Values.Type, io::DType::UInt32);
  EXPECT_EQ(codePoints(*L), std::vector<uint32_t>({'a', 'b', 0xe9, 0, 0, 0}));
  // Empty labels only: one code point wide (NumPy has no <U0 to read).
  auto E = textLabels("d", {"", ""});
  ASSERT_TRUE(static_cast<bool>(E));
  EXPECT_EQ(E->TextWidth, 1u);
}

TEST(DimLabels, InvalidUtf8NamesTheLabel) {
  auto L = textLabels("county", {"ok", "bad\xff"});
  ASSERT_FALSE(static_cast<bool>(L));
  std::string M = llvm::toString(L.takeError());
  EXPECT_NE(M.find("label 1 of coordinate 'county'"), std::string::npos) << M;
}

using LabelsFile = test::FileFixture;

TEST_F(LabelsFile, OneLabelPerLineCrlfToo) {
  auto C = parseCoordsArgs({"g=" + write("g.txt", "Aitkin\r\nBig Stone\r\n")});
  ASSERT_TRUE(static_cast<bool>(C)) << llvm::toString(C.takeError());
  const DimLabels &L = C->at("g");
  EXPECT_EQ(L.size(), 2u);
  EXPECT_EQ(L.TextWidth, 9u);
  EXPECT_EQ(codePoints(L)[9], uint32_t('B'));
  EXPECT_EQ(L.From, "--coords g=" + std::string(Dir) + "/g.txt");
}

TEST_F(LabelsFile, Refusals) {
  std::string F = write("f.txt", "a\n");
  for (auto [Arg, Want] : std::vector<std::pair<std::string, std::string>>{
           {"g", "expected DIM=FILE"},
           {"=" + F, "expected DIM=FILE"},
           {"g=" + write("nul.txt", std::string("a\0b\n", 4)), "NUL bytes"},
           {"g=" + std::string(Dir), "not a regular file"},
           {"g=" + std::string(Dir) + "/none.txt", "cannot read"}}) {
    auto C = parseCoordsArgs({Arg});
    ASSERT_FALSE(static_cast<bool>(C)) << Arg;
    std::string M = llvm::toString(C.takeError());
    EXPECT_NE(M.find(Want), std::string::npos) << Arg << ": " << M;
  }
  auto Twice = parseCoordsArgs({"g=" + F, "g=" + F});
  ASSERT_FALSE(static_cast<bool>(Twice));
  EXPECT_NE(llvm::toString(Twice.takeError()).find("twice"), std::string::npos);
}

} // namespace
