//===- LowerValueMaps.cpp - A TransformedDistribution's transforms --------===//
//
// A site or log_prob whose `value_map` lists elementwise bijections
// (ValueTransforms.def) of a base distribution of numbers, applied left to
// right as NumPyro's list: a draw is the base's draw through each forward
// map; a value y scores the base's log density at x = inverse(y) plus
// log |d inverse / dy|, summed over the transforms from the last back
// (NumPyro's log_prob less each transform's log_abs_det_jacobian). Every
// formula is in the parameters' precision, through the same elementwise
// functions as the model's own expressions (vector code on the CPU, the
// support library's device functions on the GPU).
//
//===----------------------------------------------------------------------===//
#include "EntryBuilder.h"

#include "aimz/ValueTransforms.h"

#include <cmath>

namespace aimz {
namespace lowering {
namespace {

/// Each transform of the map with the views of its parameters.
struct Step {
  StringRef Kind;
  SmallVector<View, 2> Params;
};

SmallVector<Step, 2> stepsOf(const ir::DistOperands &D,
                          function_ref<View(Value)> ViewOf) {
  SmallVector<Step, 2> Steps;
  size_t Next = 0;
  for (Attribute A : D.Map) {
    Step S{cast<StringAttr>(A).getValue(), {}};
    const ValueTransform *T = valueTransformByKind(S.Kind);
    for (unsigned I = 0; I < T->Arity; ++I)
      S.Params.push_back(ViewOf(D.MapParams[Next++]));
    Steps.push_back(std::move(S));
  }
  return Steps;
}

/// finfo(T).eps and .tiny, as NumPyro takes them.
double epsOf(FloatType T) {
  return std::ldexp(1.0, 1 - static_cast<int>(llvm::APFloat::semanticsPrecision(
                               T.getFloatSemantics())));
}
double tinyOf(FloatType T) {
  return llvm::APFloat::getSmallestNormalized(T.getFloatSemantics())
      .convertToDouble();
}

} // namespace

void EntryBuilder::applyValueMap(const ir::DistOperands &D, const View &Out,
                                 Type Prec) {
  SmallVector<Step, 2> Steps = stepsOf(D, [&](Value V) { return viewOf(V); });
  using ir::BinaryFn;
  using ir::UnaryFn;
  auto F = cast<FloatType>(Prec);
  const double Eps = epsOf(F), Tiny = tinyOf(F);
  // NumPyro's sigmoid keeps its draws inside (0, 1): [tiny, 1 - eps].
  auto clamp = [&](Value A, double Lo, double Hi) -> Value {
    auto K = [&](double V) -> Value {
      return B->create<arith::ConstantOp>(Loc, B->getFloatAttr(F, V));
    };
    return B->create<arith::MinimumFOp>(
        Loc, B->create<arith::MaximumFOp>(Loc, A, K(Lo)), K(Hi));
  };
  forEach(Out.Sizes, [&](ValueRange Ivs) {
    Value X = convert(load(Out, Ivs), Prec);
    for (const Step &S : Steps) {
      auto P = [&](unsigned I) { return load(S.Params[I], Ivs); };
      if (S.Kind == "affine")
        X = binary(BinaryFn::Add, P(0), binary(BinaryFn::Mul, P(1), X));
      else if (S.Kind == "exp")
        X = unary(UnaryFn::Exp, X);
      else if (S.Kind == "power")
        X = binary(BinaryFn::Pow, X, P(0));
      else if (S.Kind == "sigmoid")
        X = clamp(unary(UnaryFn::Sigmoid, X), Tiny, 1 - Eps);
      else if (S.Kind == "softplus")
        X = unary(UnaryFn::Softplus, X);
      else
        llvm_unreachable("a value transform without a forward map");
    }
    store(Out, Ivs, convert(X, cast<FloatType>(Out.Elem)));
  });
}

/// x = inverse(y), and LogDet = log |d inverse / dy| at y summed over the
/// transforms from the last to the first; Outside is true where y is not
/// in the map's open range (the density there is -inf, as outside any
/// distribution's support; NaN stays NaN).
Value EntryBuilder::invertValueMap(const ir::DistOperands &D, ValueRange Ivs,
                                   Value Y, Value &LogDet, Value &Outside) {
  SmallVector<Step, 2> Steps = stepsOf(D, [&](Value V) { return viewOf(V); });
  using ir::BinaryFn;
  using ir::UnaryFn;
  auto T = cast<FloatType>(Y.getType());
  auto C = [&](double V) -> Value {
    return B->create<arith::ConstantOp>(Loc, B->getFloatAttr(T, V));
  };
  auto Add = [&](Value A, Value Bv) { return binary(BinaryFn::Add, A, Bv); };
  auto Sub = [&](Value A, Value Bv) { return binary(BinaryFn::Sub, A, Bv); };
  auto Neg = [&](Value A) { return unary(UnaryFn::Neg, A); };
  auto Log = [&](Value A) { return unary(UnaryFn::Log, A); };
  auto AbsLog = [&](Value A) { return Log(unary(UnaryFn::Abs, A)); };
  // Where !(Lo <= y <= Hi) with y not NaN: an unordered compare is false.
  auto Beyond = [&](arith::CmpFPredicate P, Value A, double Bound) -> Value {
    return B->create<arith::CmpFOp>(Loc, P, A, C(Bound));
  };
  auto Or = [&](Value A, Value Bv) -> Value {
    return B->create<arith::OrIOp>(Loc, A, Bv);
  };
  Value Sum = C(0);
  Outside = B->create<arith::ConstantOp>(Loc, B->getBoolAttr(false));
  for (const Step &S : llvm::reverse(Steps)) {
    auto P = [&](unsigned I) { return load(S.Params[I], Ivs); };
    Value J; // log |d inverse / dy| at Y
    if (S.Kind == "affine") {
      J = Neg(AbsLog(P(1)));
      Y = binary(BinaryFn::Div, Sub(Y, P(0)), P(1));
    } else if (S.Kind == "exp") {
      Outside = Or(Outside, Beyond(arith::CmpFPredicate::OLE, Y, 0));
      Y = Log(Y);
      J = Neg(Y);
    } else if (S.Kind == "power") {
      // NumPyro's log |exponent * y / x| of the forward map, negated.
      Outside = Or(Outside, Beyond(arith::CmpFPredicate::OLE, Y, 0));
      Value X = binary(BinaryFn::Pow, Y, unary(UnaryFn::Inv, P(0)));
      J = Neg(Add(AbsLog(P(0)), Sub(Log(Y), Log(X))));
      Y = X;
    } else if (S.Kind == "sigmoid") {
      // 1 / (y (1 - y)), from y itself: exact where logit(y) is not.
      Outside = Or(Or(Outside, Beyond(arith::CmpFPredicate::OLE, Y, 0)),
                   Beyond(arith::CmpFPredicate::OGE, Y, 1));
      J = Neg(Add(Log(Y), unary(UnaryFn::Log1m, Y)));
      Y = unary(UnaryFn::Logit, Y);
    } else if (S.Kind == "softplus") {
      // x = log(expm1(y)) = y + log(1 - exp(-y)); dx/dy = 1 / (1 - exp(-y)).
      Outside = Or(Outside, Beyond(arith::CmpFPredicate::OLE, Y, 0));
      Value L = unary(UnaryFn::Log1mExp, Neg(Y));
      J = Neg(L);
      Y = Add(Y, L);
    } else {
      llvm_unreachable("a value transform without an inverse");
    }
    Sum = Add(Sum, J);
  }
  LogDet = Sum;
  return Y;
}

} // namespace lowering
} // namespace aimz
