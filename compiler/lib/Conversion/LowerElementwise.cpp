//===- LowerElementwise.cpp - Elementwise ops ----------------------------===//
//
// cast, unary, binary and select: scalar code inside one loop over the
// result, so LLVM vectorizes it; exp/log/log1p/tanh come from the
// support library (branch-free: the same bits in every lane).
//
//===----------------------------------------------------------------------===//
#include "EntryBuilder.h"

#include "mlir/IR/Matchers.h"

#include <cmath>
#include <limits>
#include <optional>

namespace aimz {
namespace lowering {

Value EntryBuilder::convert(Value X, Type To) {
  Type From = X.getType();
  if (From == To)
    return X;
  bool FF = isa<FloatType>(From), FT = isa<FloatType>(To);
  if (FF && FT)
    return From.getIntOrFloatBitWidth() < To.getIntOrFloatBitWidth()
               ? Value(B->create<arith::ExtFOp>(Loc, To, X))
               : Value(B->create<arith::TruncFOp>(Loc, To, X));
  if (!FF && FT)
    return From.isInteger(1) ? Value(B->create<arith::UIToFPOp>(Loc, To, X))
                             : Value(B->create<arith::SIToFPOp>(Loc, To, X));
  if (FF && !FT)
    return B->create<arith::FPToSIOp>(Loc, To, X);
  unsigned WF = From.getIntOrFloatBitWidth(), WT = To.getIntOrFloatBitWidth();
  if (WF < WT)
    return From.isInteger(1) ? Value(B->create<arith::ExtUIOp>(Loc, To, X))
                             : Value(B->create<arith::ExtSIOp>(Loc, To, X));
  return B->create<arith::TruncIOp>(Loc, To, X);
}

/// exp, log, log1p, tanh from the support library: branch-free, so loops
/// vectorize and every lane and remainder gives the same bits.
Value EntryBuilder::elementary(StringRef Fn, Value X) {
  Type T = X.getType();
  std::string Name = abi::supportFunction(abi::SupportFamily::Elementary,
                                          Fn.str(), precisionSuffix(T));
  func::FuncOp Callee = runtimeFunction(Name, {T}, {T});
  return B->create<func::CallOp>(Loc, Callee, ValueRange{X}).getResult(0);
}

Value EntryBuilder::elementary2(StringRef Fn, Value X, Value Y) {
  Type T = X.getType();
  std::string Name = abi::supportFunction(abi::SupportFamily::Elementary,
                                          Fn.str(), precisionSuffix(T));
  func::FuncOp Callee = runtimeFunction(Name, {T, T}, {T});
  return B->create<func::CallOp>(Loc, Callee, ValueRange{X, Y}).getResult(0);
}

Value EntryBuilder::unary(ir::UnaryFn Fn, Value X) {
  using ir::UnaryFn;
  Type T = X.getType();
  bool F = isa<FloatType>(T);
  auto FConst = [&](double V) {
    return B->create<arith::ConstantOp>(Loc, B->getFloatAttr(T, V));
  };
  auto IConst = [&](int64_t V) {
    return B->create<arith::ConstantOp>(Loc, B->getIntegerAttr(T, V));
  };
  switch (Fn) {
  case UnaryFn::Neg:
    return F ? Value(B->create<arith::NegFOp>(Loc, X))
             : Value(B->create<arith::SubIOp>(Loc, IConst(0), X));
  case UnaryFn::Abs: {
    if (F)
      return B->create<math::AbsFOp>(Loc, X);
    // In arith: math.absi has no libm call, so the libm conversion, which
    // takes every math op, refused it. abs(INT_MIN) wraps, as in NumPy.
    Value Negative =
        B->create<arith::CmpIOp>(Loc, arith::CmpIPredicate::slt, X, IConst(0));
    return B->create<arith::SelectOp>(
        Loc, Negative, B->create<arith::SubIOp>(Loc, IConst(0), X), X);
  }
  case UnaryFn::Relu:
    return F ? Value(B->create<arith::MaximumFOp>(Loc, X, FConst(0)))
             : Value(B->create<arith::MaxSIOp>(Loc, X, IConst(0)));
  case UnaryFn::Exp:
  case UnaryFn::Log:
  case UnaryFn::Log1p:
  case UnaryFn::Tanh:
    return elementary(ir::stringifyUnaryFn(Fn), X);
  case UnaryFn::Sqrt:
    return B->create<math::SqrtOp>(Loc, X);
  case UnaryFn::Sigmoid: {
    Value E = elementary("exp", B->create<arith::NegFOp>(Loc, X));
    return B->create<arith::DivFOp>(Loc, FConst(1),
                                   B->create<arith::AddFOp>(Loc, FConst(1), E));
  }
  case UnaryFn::LogSigmoid: { // min(x, 0) - log1p(exp(-|x|))
    Value A = B->create<math::AbsFOp>(Loc, X);
    Value L = elementary("log1p",
                         elementary("exp", B->create<arith::NegFOp>(Loc, A)));
    return B->create<arith::SubFOp>(
        Loc, B->create<arith::MinimumFOp>(Loc, X, FConst(0)), L);
  }
  case UnaryFn::Softplus: { // max(x, 0) + log1p(exp(-|x|)), stable both ways
    Value A = B->create<math::AbsFOp>(Loc, X);
    Value L = elementary("log1p",
                         elementary("exp", B->create<arith::NegFOp>(Loc, A)));
    return B->create<arith::AddFOp>(
        Loc, B->create<arith::MaximumFOp>(Loc, X, FConst(0)), L);
  }
  // libm through MathToLibm (scalar calls: the same bits in every lane and
  // remainder); libdevice on the GPU.
  case UnaryFn::Expm1:
    return B->create<math::ExpM1Op>(Loc, X);
  case UnaryFn::Erf:
    return B->create<math::ErfOp>(Loc, X);
  case UnaryFn::Sin:
    return B->create<math::SinOp>(Loc, X);
  case UnaryFn::Cos:
    return B->create<math::CosOp>(Loc, X);
  // From the support library (log|Gamma| by our own Special.h; the normal
  // CDF through erfc).
  case UnaryFn::Lgamma:
    return elementary("lgamma", X);
  case UnaryFn::Phi:
    return elementary("phi", X);
  case UnaryFn::Square:
    return F ? Value(B->create<arith::MulFOp>(Loc, X, X))
             : Value(B->create<arith::MulIOp>(Loc, X, X));
  case UnaryFn::Log1m: // log1p(-x): exact near 0
    return elementary("log1p", B->create<arith::NegFOp>(Loc, X));
  case UnaryFn::Log1mExp:
    return log1mExp(X);
  case UnaryFn::Logit: // log(x) - log1p(-x)
    return B->create<arith::SubFOp>(
        Loc, elementary("log", X),
        elementary("log1p", B->create<arith::NegFOp>(Loc, X)));
  case UnaryFn::Log1mInvLogit: // log(1 - sigmoid(x)) = log_sigmoid(-x)
    return unary(UnaryFn::LogSigmoid, B->create<arith::NegFOp>(Loc, X));
  // libm (libdevice on the GPU) through MathToLibm / MathToLLVM.
  case UnaryFn::Tan:
    return B->create<math::TanOp>(Loc, X);
  case UnaryFn::Asin:
    return B->create<math::AsinOp>(Loc, X);
  case UnaryFn::Acos:
    return B->create<math::AcosOp>(Loc, X);
  case UnaryFn::Atan:
    return B->create<math::AtanOp>(Loc, X);
  case UnaryFn::Sinh:
    return B->create<math::SinhOp>(Loc, X);
  case UnaryFn::Cosh:
    return B->create<math::CoshOp>(Loc, X);
  case UnaryFn::Asinh:
    return B->create<math::AsinhOp>(Loc, X);
  case UnaryFn::Acosh:
    return B->create<math::AcoshOp>(Loc, X);
  case UnaryFn::Atanh:
    return B->create<math::AtanhOp>(Loc, X);
  case UnaryFn::Cbrt:
    return B->create<math::CbrtOp>(Loc, X);
  case UnaryFn::Exp2:
    return B->create<math::Exp2Op>(Loc, X);
  case UnaryFn::Log2:
    return B->create<math::Log2Op>(Loc, X);
  case UnaryFn::Log10:
    return B->create<math::Log10Op>(Loc, X);
  case UnaryFn::Floor:
    return B->create<math::FloorOp>(Loc, X);
  case UnaryFn::Ceil:
    return B->create<math::CeilOp>(Loc, X);
  case UnaryFn::Round: // NumPy's: halves to even
    return B->create<math::RoundEvenOp>(Loc, X);
  case UnaryFn::Trunc:
    return B->create<math::TruncOp>(Loc, X);
  case UnaryFn::Sign: { // -1, 0 or 1 (NaN stays NaN)
    Value Zero = F ? Value(FConst(0)) : Value(IConst(0));
    Value Pos = F ? Value(FConst(1)) : Value(IConst(1));
    Value Neg = F ? Value(FConst(-1)) : Value(IConst(-1));
    Value Gt = F ? Value(B->create<arith::CmpFOp>(Loc, arith::CmpFPredicate::OGT, X, Zero))
                 : Value(B->create<arith::CmpIOp>(Loc, arith::CmpIPredicate::sgt, X, Zero));
    Value Lt = F ? Value(B->create<arith::CmpFOp>(Loc, arith::CmpFPredicate::OLT, X, Zero))
                 : Value(B->create<arith::CmpIOp>(Loc, arith::CmpIPredicate::slt, X, Zero));
    Value Rest = F ? Value(B->create<arith::MulFOp>(Loc, X, Zero)) : Zero; // 0 or NaN
    return B->create<arith::SelectOp>(
        Loc, Gt, Pos, B->create<arith::SelectOp>(Loc, Lt, Neg, Rest));
  }
  // The support library's (SpecialFunctions.h; libm's erfc and tgamma).
  case UnaryFn::Erfc:
  case UnaryFn::Tgamma:
  case UnaryFn::Digamma:
  case UnaryFn::Trigamma:
  case UnaryFn::Ndtri:
  case UnaryFn::I0:
  case UnaryFn::I0e:
  case UnaryFn::I1:
  case UnaryFn::I1e:
    return elementary(ir::stringifyUnaryFn(Fn), X);
  case UnaryFn::Inv:
    return B->create<arith::DivFOp>(Loc, FConst(1), X);
  case UnaryFn::InvSqrt:
    return B->create<arith::DivFOp>(Loc, FConst(1), B->create<math::SqrtOp>(Loc, X));
  case UnaryFn::InvSquare:
    return B->create<arith::DivFOp>(Loc, FConst(1), B->create<arith::MulFOp>(Loc, X, X));
  case UnaryFn::Step: // Stan's: 0 below 0, else 1 (NaN stays NaN)
  case UnaryFn::IntStep: { // Stan's: 1 above 0, else 0
    bool Int = Fn == UnaryFn::IntStep;
    Value C = B->create<arith::CmpFOp>(Loc, Int ? arith::CmpFPredicate::OGT : arith::CmpFPredicate::OLT, X,
                                       FConst(0));
    Value R = Int ? Value(B->create<arith::SelectOp>(Loc, C, FConst(1), FConst(0)))
                  : Value(B->create<arith::SelectOp>(Loc, C, FConst(0), FConst(1)));
    Value IsNaN = B->create<arith::CmpFOp>(Loc, arith::CmpFPredicate::UNO, X, X);
    return B->create<arith::SelectOp>(Loc, IsNaN, X, R);
  }
  case UnaryFn::PhiApprox: { // Stan's: inv_logit(0.07056 x^3 + 1.5976 x)
    Value X3 = B->create<arith::MulFOp>(Loc, B->create<arith::MulFOp>(Loc, X, X), X);
    Value A = B->create<arith::AddFOp>(Loc, B->create<arith::MulFOp>(Loc, FConst(0.07056), X3),
                                       B->create<arith::MulFOp>(Loc, FConst(1.5976), X));
    return unary(UnaryFn::Sigmoid, A);
  }
  }
  llvm_unreachable("unknown unary function");
}

/// log(1 - exp(x)) for x <= 0 (Maechler's two branches, both computed so
/// the loop stays branch-free): -inf at 0, NaN above.
Value EntryBuilder::log1mExp(Value X) {
  Type T = X.getType();
  Value LogHalf = B->create<arith::ConstantOp>(Loc, B->getFloatAttr(T, -M_LN2));
  Value Near = B->create<math::LogOp>(
      Loc, B->create<arith::NegFOp>(Loc, B->create<math::ExpM1Op>(Loc, X)));
  Value Far = elementary(
      "log1p", B->create<arith::NegFOp>(Loc, elementary("exp", X)));
  Value IsNear =
      B->create<arith::CmpFOp>(Loc, arith::CmpFPredicate::OGT, X, LogHalf);
  return B->create<arith::SelectOp>(Loc, IsNear, Near, Far);
}

/// log(exp(x) + exp(y)) = max + log1p(exp(-|x - y|)); -inf when both are
/// (where x - y is NaN).
Value EntryBuilder::logAddExp(Value X, Value Y) {
  Type T = X.getType();
  Value M = B->create<arith::MaximumFOp>(Loc, X, Y);
  Value D = B->create<math::AbsFOp>(Loc, B->create<arith::SubFOp>(Loc, X, Y));
  Value L = elementary("log1p",
                       elementary("exp", B->create<arith::NegFOp>(Loc, D)));
  Value NegInf = B->create<arith::ConstantOp>(
      Loc, B->getFloatAttr(T, -std::numeric_limits<double>::infinity()));
  Value BothNegInf =
      B->create<arith::CmpFOp>(Loc, arith::CmpFPredicate::OEQ, M, NegInf);
  return B->create<arith::SelectOp>(Loc, BothNegInf, NegInf,
                                   B->create<arith::AddFOp>(Loc, M, L));
}

/// The value of Y when it is computed from constants alone, as the
/// lowering leaves a literal: `2` cast to the float type, `-2` as 0 - 2.
static std::optional<double> constantValue(Value Y) {
  Attribute A;
  if (matchPattern(Y, m_Constant(&A))) {
    if (auto F = dyn_cast<FloatAttr>(A))
      return F.getValueAsDouble();
    if (auto I = dyn_cast<IntegerAttr>(A))
      return static_cast<double>(I.getValue().getSExtValue());
    return std::nullopt;
  }
  Operation *Op = Y.getDefiningOp();
  if (!Op)
    return std::nullopt;
  if (isa<arith::SIToFPOp, arith::ExtFOp, arith::TruncFOp>(Op))
    return constantValue(Op->getOperand(0));
  if (isa<arith::NegFOp>(Op))
    if (auto X = constantValue(Op->getOperand(0)))
      return -*X;
  if (isa<arith::SubIOp, arith::SubFOp>(Op))
    if (auto X = constantValue(Op->getOperand(0)))
      if (auto Z = constantValue(Op->getOperand(1)))
        return *X - *Z;
  return std::nullopt;
}

/// The exponent when Y is a constant integer of modest size (x ** 2).
static std::optional<int64_t> integerExponent(Value Y) {
  std::optional<double> V = constantValue(Y);
  if (!V || *V != std::trunc(*V) || std::fabs(*V) > 64)
    return std::nullopt;
  return static_cast<int64_t>(*V);
}

/// x ** n for a constant integer n by repeated squaring, in JAX's order
/// (lax.integer_pow, which `x ** 2` in a NumPyro model runs): the same bits
/// as the model's author gets there, a multiply instead of a libm powf
/// call, and vector code. A negative n is 1 / x ** -n; n = 0 is 1.
Value EntryBuilder::integerPow(Value X, int64_t N) {
  Type T = X.getType();
  auto One = [&] {
    return B->create<arith::ConstantOp>(Loc, B->getFloatAttr(T, 1.0));
  };
  if (N == 0)
    return One();
  const bool Reciprocal = N < 0;
  uint64_t Y = Reciprocal ? -static_cast<uint64_t>(N) : N;
  Value Acc;
  while (Y > 0) {
    if (Y & 1)
      Acc = Acc ? Value(B->create<arith::MulFOp>(Loc, Acc, X)) : X;
    Y >>= 1;
    if (Y > 0)
      X = B->create<arith::MulFOp>(Loc, X, X);
  }
  return Reciprocal ? Value(B->create<arith::DivFOp>(Loc, One(), Acc)) : Acc;
}

Value EntryBuilder::binary(ir::BinaryFn Fn, Value X, Value Y) {
  using ir::BinaryFn;
  bool F = isa<FloatType>(X.getType());
  auto Compare = [&](arith::CmpFPredicate FP, arith::CmpIPredicate IP) {
    return F ? Value(B->create<arith::CmpFOp>(Loc, FP, X, Y))
             : Value(B->create<arith::CmpIOp>(Loc, IP, X, Y));
  };
  switch (Fn) {
  case BinaryFn::Add:
    return F ? Value(B->create<arith::AddFOp>(Loc, X, Y))
             : Value(B->create<arith::AddIOp>(Loc, X, Y));
  case BinaryFn::Sub:
    return F ? Value(B->create<arith::SubFOp>(Loc, X, Y))
             : Value(B->create<arith::SubIOp>(Loc, X, Y));
  case BinaryFn::Mul:
    return F ? Value(B->create<arith::MulFOp>(Loc, X, Y))
             : Value(B->create<arith::MulIOp>(Loc, X, Y));
  case BinaryFn::Div: // integers only in index arithmetic (repeat, tile)
    return F ? Value(B->create<arith::DivFOp>(Loc, X, Y))
             : Value(B->create<arith::DivSIOp>(Loc, X, Y));
  case BinaryFn::Pow:
    if (std::optional<int64_t> N = integerExponent(Y))
      return integerPow(X, *N);
    return B->create<math::PowFOp>(Loc, X, Y);
  case BinaryFn::Min:
    return F ? Value(B->create<arith::MinimumFOp>(Loc, X, Y))
             : Value(B->create<arith::MinSIOp>(Loc, X, Y));
  case BinaryFn::Max:
    return F ? Value(B->create<arith::MaximumFOp>(Loc, X, Y))
             : Value(B->create<arith::MaxSIOp>(Loc, X, Y));
  case BinaryFn::Lt:
    return Compare(arith::CmpFPredicate::OLT, arith::CmpIPredicate::slt);
  case BinaryFn::Le:
    return Compare(arith::CmpFPredicate::OLE, arith::CmpIPredicate::sle);
  case BinaryFn::Gt:
    return Compare(arith::CmpFPredicate::OGT, arith::CmpIPredicate::sgt);
  case BinaryFn::Ge:
    return Compare(arith::CmpFPredicate::OGE, arith::CmpIPredicate::sge);
  case BinaryFn::Eq:
    return Compare(arith::CmpFPredicate::OEQ, arith::CmpIPredicate::eq);
  case BinaryFn::Ne:
    return Compare(arith::CmpFPredicate::UNE, arith::CmpIPredicate::ne);
  case BinaryFn::LogSumExp:
    return logAddExp(X, Y);
  case BinaryFn::Atan2:
    return B->create<math::Atan2Op>(Loc, X, Y);
  case BinaryFn::Hypot:
    return elementary2("hypot", X, Y);
  case BinaryFn::Fmod: // C's fmod (NumPy's fmod): the dividend's sign
    return B->create<arith::RemFOp>(Loc, X, Y);
  case BinaryFn::Fmin: // NaN only when both are
    return B->create<arith::MinNumFOp>(Loc, X, Y);
  case BinaryFn::Fmax:
    return B->create<arith::MaxNumFOp>(Loc, X, Y);
  case BinaryFn::Fdim: { // max(x - y, 0), NaN from either
    Type T = X.getType();
    Value Zero = B->create<arith::ConstantOp>(Loc, B->getFloatAttr(T, 0.0));
    return B->create<arith::MaximumFOp>(Loc, B->create<arith::SubFOp>(Loc, X, Y), Zero);
  }
  case BinaryFn::LogAddExp2: { // log2(2^x + 2^y) = logaddexp(x ln2, y ln2) / ln2
    Type T = X.getType();
    Value Ln2 = B->create<arith::ConstantOp>(Loc, B->getFloatAttr(T, M_LN2));
    Value L = logAddExp(B->create<arith::MulFOp>(Loc, X, Ln2), B->create<arith::MulFOp>(Loc, Y, Ln2));
    return B->create<arith::DivFOp>(Loc, L, Ln2);
  }
  case BinaryFn::XLogY:   // 0 where x is 0 (and y is not NaN), as SciPy
  case BinaryFn::XLog1pY: {
    Type T = X.getType();
    Value Zero = B->create<arith::ConstantOp>(Loc, B->getFloatAttr(T, 0.0));
    Value L = elementary(Fn == BinaryFn::XLogY ? "log" : "log1p", Y);
    Value P = B->create<arith::MulFOp>(Loc, X, L);
    Value XZero = B->create<arith::CmpFOp>(Loc, arith::CmpFPredicate::OEQ, X, Zero);
    Value YNaN = B->create<arith::CmpFOp>(Loc, arith::CmpFPredicate::UNO, Y, Y);
    Value UseZero = B->create<arith::AndIOp>(
        Loc, XZero, B->create<arith::XOrIOp>(Loc, YNaN,
                                             B->create<arith::ConstantOp>(Loc, B->getBoolAttr(true))));
    return B->create<arith::SelectOp>(Loc, UseZero, Zero, P);
  }
  case BinaryFn::LogInvLogitDiff: {
    // log(sigmoid(x) - sigmoid(y)) = log_sigmoid(x) + log1m_exp(y - x) -
    // softplus(y); Stan's x - softplus(x) cancels for large x.
    Value D = log1mExp(B->create<arith::SubFOp>(Loc, Y, X));
    Value A = unary(ir::UnaryFn::LogSigmoid, X);
    return B->create<arith::SubFOp>(Loc, B->create<arith::AddFOp>(Loc, A, D),
                                    unary(ir::UnaryFn::Softplus, Y));
  }
  case BinaryFn::LogDiffExp: // x + log1m_exp(y - x); -inf when y = -inf
    return B->create<arith::AddFOp>(
        Loc, X, log1mExp(B->create<arith::SubFOp>(Loc, Y, X)));
  // The support library's, in double without cancellation
  // (SpecialFunctions.h): lbeta(3, 1e10) lost six digits as a sum of
  // lgammas.
  case BinaryFn::LBeta:
    return elementary2("lbeta", X, Y);
  case BinaryFn::LChoose:
    return elementary2("lchoose", X, Y);
  case BinaryFn::OwensT:
    return elementary2("owens_t", X, Y);
  case BinaryFn::LogBesselI:
    return elementary2("log_bessel_i", X, Y);
  case BinaryFn::Ive:
    return elementary2("ive", X, Y);
  case BinaryFn::Iv:
    return elementary2("iv", X, Y);
  }
  llvm_unreachable("unknown binary operator");
}

static bool isElementwise(Operation *Op) {
  return isa<ir::CastOp, ir::UnaryOp, ir::BinaryOp, ir::SelectOp>(Op);
}

/// An elementwise op whose one user is elementwise over the same dims, or
/// a reduction of it, is computed inside the user's loop, element by
/// element, instead of into scratch: a chain such as
/// exp(-0.5 * ((x[:, None] - x[None, :]) / l) ** 2) becomes one loop nest
/// with no N x N temporary per operator, and sum((a - b) ** 2, axis=-1)
/// never holds the differences; an iota (eye, arange) is its index there.
/// The same scalar operations run in the same order, so the bits do not
/// change.
/// A fused chain is generated by recursion (elementAt), one frame per op:
/// past this many ops the chain's value is stored and a new chain starts
/// (20,000 chained lets overflowed the stack; the values are the same).
constexpr unsigned MaxFusedChain = 64;

DenseSet<Operation *> EntryBuilder::chooseFused(Block &Body, StringRef ObsDim) {
  DenseSet<Operation *> Fused;
  DenseMap<Operation *, unsigned> Chain; // fused ops up to and with Op
  for (Operation &Op : Body) {
    if (!(isElementwise(&Op) || isa<ir::IotaOp>(Op)) ||
        !Op.getResult(0).hasOneUse())
      continue;
    unsigned Depth = 1;
    for (Value V : Op.getOperands())
      if (Operation *Def = V.getDefiningOp(); Def && Fused.contains(Def))
        Depth = std::max(Depth, Chain.lookup(Def) + 1);
    if (Depth > MaxFusedChain)
      continue;
    Chain[&Op] = Depth;
    Operation *User = *Op.getResult(0).getUsers().begin();
    if (isObsOp(&Op, ObsDim) != isObsOp(User, ObsDim))
      continue;
    auto Dims = [](Operation *O) {
      return cast<ir::ArrayType>(O->getResult(0).getType()).getDims();
    };
    if ((isElementwise(User) && Dims(User) == Dims(&Op)) ||
        isa<ir::ReduceOp>(User))
      Fused.insert(&Op);
  }
  return Fused;
}

/// One element of cast, unary, binary or select from its operands'.
Value EntryBuilder::elementOf(Operation *Op, ArrayRef<Value> Xs) {
  if (isa<ir::CastOp>(Op))
    return convert(
        Xs[0],
        cast<ir::ArrayType>(Op->getResult(0).getType()).getElementType());
  if (auto U = dyn_cast<ir::UnaryOp>(Op))
    return unary(U.getFn(), Xs[0]);
  if (isa<ir::SelectOp>(Op))
    return B->create<arith::SelectOp>(Loc, Xs[0], Xs[1], Xs[2]);
  auto Bin = cast<ir::BinaryOp>(Op);
  // x ** n with n an integer literal: its exact value, whatever its size.
  if (std::optional<int64_t> N = Bin.getExponent())
    return integerPow(Xs[0], *N);
  return binary(Bin.getFn(), Xs[0], Xs[1]);
}

/// A scalar read inside the loop is read from memory the loop's stores may
/// alias, as far as LLVM can tell: loaded there, it keeps the loop from
/// being vectorized (a GP's kernel: exp(-0.5 * ((x_i - x_j) / l) ** 2)
/// with l a sample site). Loaded once before the loop, it is a register.
void EntryBuilder::hoistInvariantLeaves(Value Original) {
  Operation *Def = Original.getDefiningOp();
  if (Def && Fused.contains(Def)) {
    if (!isa<ir::IotaOp>(Def))
      for (Value O : Def->getOperands())
        hoistInvariantLeaves(O);
    return;
  }
  if (Hoisted.count(Original))
    return;
  View V = viewOf(Original);
  if (V.Scalar || !llvm::all_of(V.Strides, [](Value S) {
        std::optional<int64_t> C = getConstantIntValue(S);
        return C && *C == 0;
      }))
    return;
  Hoisted[Original] = load(V, V.Strides); // every index 0
}

Value EntryBuilder::elementAt(Value Original, ValueRange Ivs) {
  if (Value H = Hoisted.lookup(Original))
    return H;
  Operation *Def = Original.getDefiningOp();
  if (!Def || !Fused.contains(Def))
    return load(viewOf(Original), Ivs);
  if (auto Iota = dyn_cast<ir::IotaOp>(Def)) // eye(N), arange(K)
    return B->create<arith::IndexCastOp>(
        Loc, Iota.getResult().getType().getElementType(),
        Ivs[Iota.getAxis()]);
  SmallVector<Value> Xs;
  for (Value O : Def->getOperands())
    Xs.push_back(elementAt(O, Ivs));
  return elementOf(Def, Xs);
}

/// Cast, unary, binary and select: one loop over the result's elements,
/// with the fused operands' chains computed in it.
View EntryBuilder::lowerElementwise(Operation *Op) {
  auto T = cast<ir::ArrayType>(Op->getResult(0).getType());
  View Out = buffer(Op, T);
  for (Value O : Op->getOperands())
    hoistInvariantLeaves(O);
  forEach(Out.Sizes, [&](ValueRange Ivs) {
    SmallVector<Value> Xs;
    for (Value O : Op->getOperands())
      Xs.push_back(elementAt(O, Ivs));
    store(Out, Ivs, elementOf(Op, Xs));
  });
  Hoisted.clear(); // defined before this loop only
  return Out;
}

void populateElementwiseLowering(RewritePatternSet &Patterns,
                                 EntryBuilder &E) {
  addLowering<ir::CastOp>(Patterns, E, &EntryBuilder::lowerElementwise);
  addLowering<ir::UnaryOp>(Patterns, E, &EntryBuilder::lowerElementwise);
  addLowering<ir::BinaryOp>(Patterns, E, &EntryBuilder::lowerElementwise);
  addLowering<ir::SelectOp>(Patterns, E, &EntryBuilder::lowerElementwise);
}

} // namespace lowering
} // namespace aimz
