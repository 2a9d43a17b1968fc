//===- StanCsvTest.cpp - CmdStan CSV posteriors ---------------------------===//
#include "aimz/run/StanCsv.h"

#include "FileFixture.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>

using namespace aimz;
using namespace aimz::run;

namespace {

class StanCsvTest : public test::FileFixture {
protected:
  std::string error(const std::vector<std::string> &Files) {
    auto R = readStanCsv(Files);
    if (R)
      return "";
    return llvm::toString(R.takeError());
  }
};

double at(const io::NpyArray &A, uint64_t I) {
  return static_cast<const double *>(A.data())[I];
}

// CmdStan's layout: configuration comments, the header, saved warmup draws,
// the adaptation comments, the draws, the timing. A 2x2 matrix is written
// column-major (L.1.1, L.2.1, L.1.2, L.2.2).
const char *Chain1 = "# model = m\n"
                     "#     num_warmup = 2\n"
                     "#     save_warmup = 1\n"
                     "lp__,accept_stat__,sigma,L.1.1,L.2.1,L.1.2,L.2.2\n"
                     "0,0,99,99,99,99,99\n"
                     "0,0,99,99,99,99,99\n"
                     "# Adaptation terminated\n"
                     "# Step size = 0.4\n"
                     "-3.5,0.9,1.5,11,21,12,22\n"
                     "-3.1,0.8,inf,-11,-21,-12,-22\n"
                     "\n"
                     "#  Elapsed Time: 0.01 seconds (Warm-up)\n";

TEST_F(StanCsvTest, ReadsDrawsIntoRowMajorArrays) {
  auto R = readStanCsv({write("a.csv", Chain1)});
  ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
  EXPECT_EQ(R->Draws, 2);
  EXPECT_EQ(R->Chains, 1);
  ASSERT_EQ(R->Names, (std::vector<std::string>{"sigma", "L"}));
  const io::NpyArray &L = R->Arrays.at("L");
  EXPECT_EQ(std::vector<uint64_t>(L.shape().begin(), L.shape().end()),
            (std::vector<uint64_t>{2, 2, 2}));
  EXPECT_EQ(L.dtype(), io::DType::Float64);
  // Row-major: L[d][i][j] = (i+1)(j+1) in draw 0.
  EXPECT_EQ(at(L, 0), 11);
  EXPECT_EQ(at(L, 1), 12);
  EXPECT_EQ(at(L, 2), 21);
  EXPECT_EQ(at(L, 3), 22);
  EXPECT_EQ(at(L, 5), -12);
  const io::NpyArray &S = R->Arrays.at("sigma");
  EXPECT_EQ(S.shape().size(), 1u);
  EXPECT_EQ(at(S, 0), 1.5);
  EXPECT_TRUE(std::isinf(at(S, 1)));
}

TEST_F(StanCsvTest, ChainsConcatenateInOrderAndCrlfIsFine) {
  std::string C2 = "lp__,sigma\r\n# Adaptation terminated\r\n-1,7\r\n-1,8\r\n";
  std::string C3 = "lp__,sigma\n# Adaptation terminated\n-1,9\n";
  auto R = readStanCsv({write("b.csv", C2), write("c.csv", C3)});
  ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
  EXPECT_EQ(R->Chains, 0); // 2 and 1 draws: no (chain, draw) grid
  EXPECT_EQ(R->Draws, 3);
  auto Even = readStanCsv({write("d.csv", C2), write("e.csv", C2)});
  ASSERT_TRUE(bool(Even)) << llvm::toString(Even.takeError());
  EXPECT_EQ(Even->Chains, 2);
  const io::NpyArray &S = R->Arrays.at("sigma");
  EXPECT_EQ(at(S, 0), 7);
  EXPECT_EQ(at(S, 1), 8);
  EXPECT_EQ(at(S, 2), 9);
}

TEST_F(StanCsvTest, WarmupWithoutAdaptationUsesNumWarmup) {
  // fixed_param: no adaptation comment; num_warmup counts the saved ones.
  std::string C = "#  num_warmup = 1\n#  save_warmup = true\nlp__,a\n0,5\n0,6\n";
  auto R = readStanCsv({write("f.csv", C)});
  ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
  EXPECT_EQ(R->Draws, 1);
  EXPECT_EQ(at(R->Arrays.at("a"), 0), 6);
}

TEST_F(StanCsvTest, ErrorsNameTheFileAndLine) {
  EXPECT_NE(error({write("r.csv", "lp__,a,b\n0,1\n")}).find("line 2 has 2 "
                                                              "values for 3"),
            std::string::npos);
  EXPECT_NE(error({write("n.csv", "lp__,a\n0,one\n")}).find("column 'a': "
                                                            "'one' is not a "
                                                            "number"),
            std::string::npos);
  EXPECT_NE(error({write("e.csv", "# only comments\n")}).find("no header"),
            std::string::npos);
  EXPECT_NE(error({write("m.csv", "lp__,b.1.1,b.2.2\n0,1,2\n")})
                .find("some entries are missing"),
            std::string::npos);
  EXPECT_NE(error({write("d.csv", "lp__,b.1,b.1\n0,1,2\n")})
                .find("appears twice"),
            std::string::npos);
  EXPECT_NE(error({write("z.csv", "lp__,b.0\n0,1\n")})
                .find("1-based indices"),
            std::string::npos);
  EXPECT_NE(error({write("x.csv", "lp__,a\n0,1\n"),
                   write("y.csv", "lp__,b\n0,1\n")})
                .find("other columns"),
            std::string::npos);
  EXPECT_NE(error({(std::string(Dir) + "/absent.csv")}).find("cannot read"),
            std::string::npos);
}

TEST_F(StanCsvTest, PosteriorArguments) {
  EXPECT_TRUE(isStanCsvArgument("fit-*.csv"));
  EXPECT_TRUE(isStanCsvArgument("fit.CSV"));
  EXPECT_FALSE(isStanCsvArgument("post.npz"));
  write("fit-2.csv", "a\n1\n");
  write("fit-1.csv", "a\n1\n");
  auto F = expandPosteriorFiles(std::string(Dir) + "/fit-*.csv");
  ASSERT_TRUE(bool(F));
  ASSERT_EQ(F->size(), 2u);
  EXPECT_NE((*F)[0].find("fit-1.csv"), std::string::npos);
  auto None = expandPosteriorFiles(std::string(Dir) + "/none-*.csv");
  ASSERT_FALSE(bool(None));
  EXPECT_NE(llvm::toString(None.takeError()).find("matches no file"),
            std::string::npos);
}

} // namespace
