//===- AimzDialect.cpp - The aimz dialect ---------------------------------===//
#include "aimz/Dialect/AimzDialect.h"
#include "aimz/Distributions.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/IR/OpImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace aimz::ir;

#include "aimz/Dialect/AimzDialect.cpp.inc"

#define GET_TYPEDEF_CLASSES
#include "aimz/Dialect/AimzTypes.cpp.inc"

#define GET_OP_CLASSES
#include "aimz/Dialect/AimzOps.cpp.inc"

void AimzDialect::initialize() {
  addTypes<
#define GET_TYPEDEF_LIST
#include "aimz/Dialect/AimzTypes.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "aimz/Dialect/AimzOps.cpp.inc"
      >();
}

static bool isKnownOne(Attribute A) {
  auto I = dyn_cast<IntegerAttr>(A);
  return I && I.getInt() == 1;
}

LogicalResult BroadcastOp::verify() {
  auto In = cast<ArrayType>(getInput().getType());
  auto Out = cast<ArrayType>(getResult().getType());
  ArrayRef<int64_t> Map = getDimMap();
  if (Map.size() != In.getRank())
    return emitOpError("dim_map has ") << Map.size() << " entries for an operand of rank " << In.getRank();
  int64_t Prev = -1;
  for (auto [I, To] : llvm::enumerate(Map)) {
    if (To <= Prev || To >= static_cast<int64_t>(Out.getRank()))
      return emitOpError("dim_map must increase and stay below the result rank");
    Prev = To;
    Attribute From = In.getDims()[I], Dst = Out.getDims()[To];
    if (From != Dst && !isKnownOne(From))
      return emitOpError("operand dim ") << I << " (" << From << ") cannot become result dim " << To << " (" << Dst << ")";
  }
  if (In.getElementType() != Out.getElementType())
    return emitOpError("broadcast cannot change the element type");
  return success();
}

LogicalResult UnaryOp::verify() {
  static const char *Fns[] = {
      "neg",      "exp",         "log",    "log1p", "expm1", "sqrt",
      "abs",      "tanh",        "sigmoid", "relu", "softplus",
      "log_sigmoid", "lgamma",   "erf",    "Phi",   "sin",   "cos"};
  if (!llvm::is_contained(Fns, getFn()))
    return emitOpError("unknown function '") << getFn() << "'";
  if (getInput().getType().getDims() != getResult().getType().getDims())
    return emitOpError("operand and result shapes differ");
  return success();
}

LogicalResult StackOp::verify() {
  auto Out = getResult().getType();
  int64_t Axis = getAxis();
  if (getElements().empty() || Axis < 0 ||
      Axis >= static_cast<int64_t>(Out.getRank()))
    return emitOpError("needs elements and an axis of the result");
  auto N = dyn_cast<IntegerAttr>(Out.getDims()[Axis]);
  if (!N || N.getInt() != static_cast<int64_t>(getElements().size()))
    return emitOpError("the stacked dim must equal the number of elements");
  SmallVector<Attribute> Elem(Out.getDims().getValue());
  Elem.erase(Elem.begin() + Axis);
  for (Value V : getElements()) {
    auto T = cast<ArrayType>(V.getType());
    if (T.getElementType() != Out.getElementType() ||
        T.getDims().getValue() != ArrayRef<Attribute>(Elem))
      return emitOpError("every element must have the result's type without "
                         "the stacked dim");
  }
  return success();
}

LogicalResult CholeskyOp::verify() {
  auto In = getInput().getType();
  int64_t Bt = getBatchRank();
  if (Bt < 0 || static_cast<int64_t>(In.getRank()) != Bt + 2)
    return emitOpError("the input must have batch_rank + 2 dims");
  if (In.getDims()[Bt] != In.getDims()[Bt + 1])
    return emitOpError("the matrices must be square");
  if (getResult().getType() != In || !isa<FloatType>(In.getElementType()))
    return emitOpError("the result must have the input's floating type");
  return success();
}

/// The distribution and the parameters given must name runtime functions.
static LogicalResult verifyDistribution(Operation *Op, StringRef Dist,
                                        ArrayAttr ParamNames,
                                        ValueRange Params) {
  if (ParamNames.size() != Params.size())
    return Op->emitOpError("needs one name per parameter");
  SmallVector<StringRef> Names;
  for (Attribute A : ParamNames)
    Names.push_back(cast<StringAttr>(A).getValue());
  if (Dist == "ImproperUniform")
    return success();
  if (!aimz::runtimeCall(Dist, Names))
    return Op->emitOpError("unknown distribution '") << Dist << "'";
  return success();
}

LogicalResult SampleOp::verify() {
  return verifyDistribution(*this, getDist(), getParamNames(), getParams());
}

LogicalResult ObserveOp::verify() {
  return verifyDistribution(*this, getDist(), getParamNames(), getParams());
}

LogicalResult ReduceOp::verify() {
  static const char *Fns[] = {"sum", "mean", "min", "max", "logsumexp"};
  if (!llvm::is_contained(Fns, getFn()))
    return emitOpError("unknown reduction '") << getFn() << "'";
  int64_t Bt = getBatchRank();
  auto In = getInput().getType(), Out = getResult().getType();
  if (Bt < 0 || Bt > static_cast<int64_t>(In.getRank()))
    return emitOpError("batch_rank exceeds the input's rank");
  if (auto Axis = getAxis()) {
    int64_t A = *Axis;
    SmallVector<Attribute> Kept(In.getDims().getValue());
    if (A < Bt || A >= static_cast<int64_t>(In.getRank()))
      return emitOpError("axis must be a dim after the batch dims");
    Kept.erase(Kept.begin() + A);
    if (Out.getDims().getValue() != ArrayRef<Attribute>(Kept))
      return emitOpError("the result must have the input's dims without "
                         "axis");
  } else if (static_cast<int64_t>(Out.getRank()) != Bt ||
             !llvm::equal(In.getDims().getValue().take_front(Bt),
                          Out.getDims().getValue())) {
    return emitOpError("the result must have the input's first batch_rank "
                       "dims");
  }
  if (getFn() == "logsumexp" && !isa<FloatType>(In.getElementType()))
    return emitOpError("logsumexp needs a floating input");
  return success();
}

LogicalResult CumSumOp::verify() {
  auto In = getInput().getType();
  if (getAxis() < 0 || getAxis() >= static_cast<int64_t>(In.getRank()))
    return emitOpError("axis must be a dim of the input");
  if (getResult().getType() != In)
    return emitOpError("the result must have the input's type");
  return success();
}

LogicalResult SelectOp::verify() {
  auto C = getCond().getType(), L = getLhs().getType(), R = getRhs().getType();
  auto Res = getResult().getType();
  if (C.getDims() != Res.getDims() || L.getDims() != Res.getDims() ||
      R.getDims() != Res.getDims())
    return emitOpError("condition, operands and result must have the same "
                       "shape");
  if (!C.getElementType().isInteger(1))
    return emitOpError("the condition must be bool (i1)");
  if (L.getElementType() != R.getElementType() ||
      L.getElementType() != Res.getElementType())
    return emitOpError("operands and result must have the same element type");
  return success();
}

LogicalResult BinaryOp::verify() {
  static const char *Fns[] = {"add", "sub", "mul", "div", "pow", "min", "max",
                              "lt",  "le",  "gt",  "ge",  "eq",  "ne"};
  if (!llvm::is_contained(Fns, getFn()))
    return emitOpError("unknown operator '") << getFn() << "'";
  auto L = getLhs().getType(), R = getRhs().getType();
  if (L.getDims() != R.getDims() || L.getDims() != getResult().getType().getDims())
    return emitOpError("operands and result must have the same shape");
  if (L.getElementType() != R.getElementType())
    return emitOpError("operands must have the same element type");
  return success();
}
