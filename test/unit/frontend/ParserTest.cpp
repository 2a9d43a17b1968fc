#include "aimz/Diagnostics.h"
#include "aimz/Parser.h"

#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

using namespace aimz;

namespace {

/// Parses `Src` and returns the AST dump, or the diagnostics on failure.
struct ParseResult {
  bool Ok;
  std::string Text;
};

ParseResult parse(const std::string &Src) {
  llvm::SourceMgr SM;
  SM.AddNewSourceBuffer(llvm::MemoryBuffer::getMemBufferCopy(Src, "t.aimz"),
                        llvm::SMLoc());
  llvm::StringRef Buf = SM.getMemoryBuffer(1)->getBuffer();
  std::string Errs;
  llvm::raw_string_ostream ES(Errs);
  Diagnostics D(SM, ES);
  auto M = parseModel(Buf, D);
  if (!M)
    return {false, Errs};
  std::string Out;
  llvm::raw_string_ostream OS(Out);
  dumpAST(*M, OS);
  return {true, Out};
}

std::string body(const std::string &Stmts) {
  return "model m(X: f32[n, k]) -> (y: f32[n]) {\n" + Stmts + "\n}\n";
}

} // namespace

TEST(Parser, Precedence) {
  auto R = parse(body("let a = 1 + 2 * 3 ^ 2 ^ 2 - -x @ w < 3;"));
  ASSERT_TRUE(R.Ok) << R.Text;
  EXPECT_NE(R.Text.find("let a = (< (- (+ 1 (* 2 (^ 3 (^ 2 2)))) (@ (neg x) "
                        "w)) 3)"),
            std::string::npos)
      << R.Text;
}

TEST(Parser, NegationBindsLooserThanPower) {
  auto R = parse(body("let a = -x ^ 2; let b = 2 ^ -x ^ 2;"));
  ASSERT_TRUE(R.Ok) << R.Text;
  EXPECT_NE(R.Text.find("let a = (neg (^ x 2))"), std::string::npos) << R.Text;
  EXPECT_NE(R.Text.find("let b = (^ 2 (neg (^ x 2)))"), std::string::npos)
      << R.Text;
}

TEST(Parser, KeywordArgumentsAndShapes) {
  auto R = parse(body("b ~ Bernoulli(logits=x == 1)[k, 3];"));
  ASSERT_TRUE(R.Ok) << R.Text;
  EXPECT_NE(R.Text.find("sample b ~ Bernoulli logits=(== x 1) shape [k, 3]"),
            std::string::npos)
      << R.Text;
}

TEST(Parser, CommentsAndIndexing) {
  auto R = parse(body("# a comment\nlet a = b[g, 2][0]; # trailing"));
  ASSERT_TRUE(R.Ok) << R.Text;
  EXPECT_NE(R.Text.find("let a = (index (index b g 2) 0)"), std::string::npos)
      << R.Text;
}

TEST(Parser, ReportsExpectedToken) {
  auto R = parse(body("let a = 1"));
  ASSERT_FALSE(R.Ok);
  EXPECT_NE(R.Text.find("t.aimz:3:1: error: expected ';'"), std::string::npos)
      << R.Text;
}

TEST(Parser, KeywordsAreNotIdentifiers) {
  auto R = parse(body("let plate = 1;"));
  ASSERT_FALSE(R.Ok);
  EXPECT_NE(R.Text.find("expected an identifier"), std::string::npos)
      << R.Text;
}

TEST(Parser, RejectsDeepNestingWithoutCrashing) {
  std::string Deep = "let a = " + std::string(5000, '(') + "1" +
                     std::string(5000, ')') + ";";
  auto R = parse(body(Deep));
  ASSERT_FALSE(R.Ok);
  EXPECT_NE(R.Text.find("nested deeper than"), std::string::npos) << R.Text;
}

TEST(Parser, RejectsLongChainsWithoutCrashing) {
  std::string Chain = "let a = 1";
  for (int I = 0; I < 20000; ++I)
    Chain += " + 1";
  auto R = parse(body(Chain + ";"));
  ASSERT_FALSE(R.Ok);
  EXPECT_NE(R.Text.find("expression nested deeper than"), std::string::npos)
      << R.Text;
}

TEST(Parser, RejectsOverflowingIntegers) {
  auto R = parse(body("const H = 99999999999999999999999;"));
  ASSERT_FALSE(R.Ok);
  EXPECT_NE(R.Text.find("does not fit in 64 bits"), std::string::npos)
      << R.Text;
}

TEST(Parser, EmptyInput) {
  auto R = parse("");
  ASSERT_FALSE(R.Ok);
  EXPECT_NE(R.Text.find("expected 'model'"), std::string::npos) << R.Text;
}
