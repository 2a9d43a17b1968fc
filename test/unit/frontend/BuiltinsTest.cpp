//===- BuiltinsTest.cpp - Builtins.def against the dialect's enums --------===//
//
// The surface functions (Builtins.def) and the ops' function kinds
// (AimzEnums.td) are two lists; this ties them: every builtin names an
// existing op function, and every op function a model can reach is named.
//
//===----------------------------------------------------------------------===//
#include "aimz/Builtins.h"
#include "aimz/Dialect/AimzDialect.h"

#include <gtest/gtest.h>

#include <set>

using namespace aimz;

namespace {

TEST(Builtins, EveryBuiltinNamesAnOpFunction) {
  for (const Builtin &B : allBuiltins()) {
    SCOPED_TRACE(B.Name.str());
    switch (B.Family) {
    case BuiltinFamily::Elementwise:
      EXPECT_TRUE(ir::symbolizeUnaryFn(B.IrName));
      EXPECT_EQ(B.MinArgs, 1u);
      break;
    case BuiltinFamily::Pair:
    case BuiltinFamily::Clip:
      EXPECT_TRUE(ir::symbolizeBinaryFn(B.IrName));
      break;
    case BuiltinFamily::Reduction:
      // sd is a statistic of the data only (transformed data: the runtime
      // computes it), never an op.
      EXPECT_TRUE(B.Name == "sd" ? B.IrName == "none"
                                 : bool(ir::symbolizeReduceFn(B.IrName)));
      // With two arguments min/max are the elementwise operator.
      if (B.MaxArgs == 2) {
        EXPECT_TRUE(ir::symbolizeBinaryFn(B.IrName));
      }
      break;
    case BuiltinFamily::Softmax:
      EXPECT_TRUE(B.IrName == "none" || ir::symbolizeUnaryFn(B.IrName));
      break;
    case BuiltinFamily::Where:
    case BuiltinFamily::CumSum:
    case BuiltinFamily::Constructor:
    case BuiltinFamily::Transpose:
    case BuiltinFamily::Diag:
    case BuiltinFamily::VecToTril:
    case BuiltinFamily::LogProb:
    case BuiltinFamily::Join:
    case BuiltinFamily::Pad:
    case BuiltinFamily::BroadcastTo:
    case BuiltinFamily::Reorder:
      EXPECT_EQ(B.IrName, "none");
      break;
    case BuiltinFamily::Outer:
      EXPECT_TRUE(ir::symbolizeBinaryFn(B.IrName));
      break;
    case BuiltinFamily::Factorization:
      // MLIRGen picks aimz.cholesky or aimz.inverse by this name.
      EXPECT_TRUE(B.IrName == "cholesky" || B.IrName == "inverse");
      break;
    case BuiltinFamily::Sort:
      // argsort is the op with `indices`; its result is positions.
      EXPECT_TRUE(B.IrName == "sort" || B.IrName == "argsort");
      EXPECT_EQ(B.IrName == "argsort", B.Result == BuiltinResult::Index);
      break;
    }
    EXPECT_LE(B.MinArgs, B.MaxArgs);
    EXPECT_EQ(lookupBuiltin(B.Name), &B);
  }
}

TEST(Builtins, EveryUnaryFunctionButNegationIsCallable) {
  std::set<std::string> Reached;
  for (const Builtin &B : allBuiltins())
    if (B.Family == BuiltinFamily::Elementwise)
      Reached.insert(B.IrName.str());
  for (uint32_t I = 0; I <= ir::getMaxEnumValForUnaryFn(); ++I) {
    auto Fn = ir::symbolizeUnaryFn(I);
    ASSERT_TRUE(Fn);
    if (*Fn == ir::UnaryFn::Neg) // unary minus, not a call
      continue;
    EXPECT_TRUE(Reached.count(ir::stringifyUnaryFn(*Fn).str()))
        << ir::stringifyUnaryFn(*Fn).str() << " has no builtin";
  }
}

TEST(Builtins, EveryReductionIsCallable) {
  for (uint32_t I = 0; I <= ir::getMaxEnumValForReduceFn(); ++I) {
    auto Fn = ir::symbolizeReduceFn(I);
    ASSERT_TRUE(Fn);
    const Builtin *B = lookupBuiltin(ir::stringifyReduceFn(*Fn));
    ASSERT_NE(B, nullptr) << ir::stringifyReduceFn(*Fn).str();
    EXPECT_EQ(B->Family, BuiltinFamily::Reduction);
  }
}

TEST(Builtins, UnknownNamesAreNotBuiltins) {
  EXPECT_EQ(lookupBuiltin("cosine"), nullptr);
  EXPECT_NE(lookupBuiltin("cosh"), nullptr);
  EXPECT_EQ(lookupBuiltin("neg"), nullptr);
  EXPECT_EQ(lookupBuiltin(""), nullptr);
  EXPECT_NE(builtinNameList().find("log_softmax"), std::string::npos);
}

} // namespace
