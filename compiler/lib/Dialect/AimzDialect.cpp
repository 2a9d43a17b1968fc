//===- AimzDialect.cpp - The aimz dialect ---------------------------------===//
#include "aimz/Dialect/AimzDialect.h"
#include "aimz/DimExpr.h"
#include "aimz/Distributions.h"
#include "aimz/ValueTransforms.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/IR/OpImplementation.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/TypeSwitch.h"

#include <limits>

using namespace mlir;
using namespace aimz::ir;

#include "aimz/Dialect/AimzDialect.cpp.inc"
#include "aimz/Dialect/AimzEnums.cpp.inc"

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

static bool isKnown(Attribute A, size_t N) {
  auto I = dyn_cast<IntegerAttr>(A);
  return I && I.getInt() == static_cast<int64_t>(N);
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

/// Functions with an integer form; every other one computes in floats.
static bool takesIntegers(UnaryFn Fn) {
  return Fn == UnaryFn::Neg || Fn == UnaryFn::Abs || Fn == UnaryFn::Relu ||
         Fn == UnaryFn::Square || Fn == UnaryFn::Sign;
}
static bool takesIntegers(BinaryFn Fn) {
  switch (Fn) {
  case BinaryFn::Div: // on integers, truncating (index arithmetic only)
  case BinaryFn::Add:
  case BinaryFn::Sub:
  case BinaryFn::Mul:
  case BinaryFn::Min:
  case BinaryFn::Max:
  case BinaryFn::Lt:
  case BinaryFn::Le:
  case BinaryFn::Gt:
  case BinaryFn::Ge:
  case BinaryFn::Eq:
  case BinaryFn::Ne:
    return true;
  default:
    return false;
  }
}

LogicalResult UnaryOp::verify() {
  if (getInput().getType().getDims() != getResult().getType().getDims())
    return emitOpError("operand and result shapes differ");
  if (!takesIntegers(getFn()) &&
      !isa<FloatType>(getInput().getType().getElementType()))
    return emitOpError("'") << stringifyUnaryFn(getFn())
                            << "' needs a floating operand";
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

/// A function of each square matrix after `BatchRank` dims, into the same
/// floating type (cholesky, inverse).
static LogicalResult verifySquareMatrices(Operation *Op, ArrayType In,
                                          int64_t Bt, ArrayType Result) {
  if (Bt < 0 || static_cast<int64_t>(In.getRank()) != Bt + 2)
    return Op->emitOpError("the input must have batch_rank + 2 dims");
  if (In.getDims()[Bt] != In.getDims()[Bt + 1])
    return Op->emitOpError("the matrices must be square");
  if (Result != In || !isa<FloatType>(In.getElementType()))
    return Op->emitOpError("the result must have the input's floating type");
  return success();
}

LogicalResult CholeskyOp::verify() {
  return verifySquareMatrices(*this, getInput().getType(), getBatchRank(),
                              getResult().getType());
}

LogicalResult SortOp::verify() {
  auto In = getInput().getType(), Out = getResult().getType();
  int64_t Bt = getBatchRank();
  if (Bt < 0 || static_cast<int64_t>(In.getRank()) != Bt + 1)
    return emitOpError("the input must have batch_rank + 1 dims");
  if (Out.getDims() != In.getDims())
    return emitOpError("the result must have the input's dims");
  Type Want = getIndices() ? Type(IntegerType::get(getContext(), 64))
                           : In.getElementType();
  if (Out.getElementType() != Want || In.getElementType().isInteger(1))
    return emitOpError("sorts numbers into their type, or into i64 "
                       "positions with `indices`");
  return success();
}

LogicalResult InverseOp::verify() {
  return verifySquareMatrices(*this, getInput().getType(), getBatchRank(),
                              getResult().getType());
}

DistOperands aimz::ir::splitDistOperands(ArrayAttr Names, ValueRange Params,
                                         ArrayAttr Map) {
  size_t Extra = 0;
  for (Attribute A : Map) {
    const aimz::ValueTransform *T =
        aimz::valueTransformByKind(cast<StringAttr>(A).getValue());
    if (!T)
      return {};
    Extra += T->Arity;
  }
  if (Extra > Params.size() || Names.size() != Params.size())
    return {};
  size_t Base = Params.size() - Extra;
  return {ArrayAttr::get(Names.getContext(), Names.getValue().take_front(Base)),
          Params.take_front(Base), Map, Params.drop_front(Base)};
}

/// The distribution and the parameters given must name runtime functions;
/// a value map, transforms of the table (ValueTransforms.def) with their
/// operands, of a continuous distribution of numbers.
static LogicalResult verifyDistribution(Operation *Op, StringRef Dist,
                                        ArrayAttr ParamNames,
                                        ValueRange AllParams,
                                        ArrayAttr Map = {}) {
  if (ParamNames.size() != AllParams.size())
    return Op->emitOpError("needs one name per parameter");
  if (!Map)
    Map = ArrayAttr::get(Op->getContext(), {});
  DistOperands D = splitDistOperands(ParamNames, AllParams, Map);
  if (!D.Names) {
    SmallVector<StringRef> Kinds;
    for (const aimz::ValueTransform &T : aimz::valueTransforms())
      Kinds.push_back(T.Kind);
    return Op->emitOpError("value_map needs transforms of the table (")
           << llvm::join(Kinds, ", ") << "), each with its operands";
  }
  SmallVector<StringRef> Names;
  for (Attribute A : D.Names)
    Names.push_back(cast<StringAttr>(A).getValue());
  if (Dist == "ImproperUniform")
    return Map.empty() ? success()
                       : Op->emitOpError("a flat prior has no value map");
  auto Call = aimz::runtimeCall(Dist, Names);
  if (!Call)
    return Op->emitOpError("unknown distribution '") << Dist << "'";
  if (!Map.empty() && (Call->Event || Call->ValueEventRank || Call->Masked ||
                       !Call->Components.empty() ||
                       !isa<FloatType>(cast<ArrayType>(
                                           Op->getResult(0).getType())
                                           .getElementType())))
    return Op->emitOpError("a value map needs a continuous distribution of "
                           "numbers; '")
           << Dist << "' is not one";
  return success();
}

LogicalResult SampleOp::verify() {
  return verifyDistribution(*this, getDist(), getParamNames(), getParams(),
                            getValueMap());
}

LogicalResult ObserveOp::verify() {
  return verifyDistribution(*this, getDist(), getParamNames(), getParams(),
                            getValueMap());
}

LogicalResult LogProbOp::verify() {
  if (failed(verifyDistribution(*this, getDist(), getParamNames(),
                                getParams(), getValueMap())))
    return failure();
  SmallVector<StringRef> Names;
  for (Attribute A : distOperands(*this).Names)
    Names.push_back(cast<StringAttr>(A).getValue());
  if (!getValueMap().empty() && getFn() != "log_prob")
    return emitOpError("a value map has no CDF here");
  if (getDist() == "ImproperUniform")
    return emitOpError("needs a distribution with a density; '")
           << getDist() << "' has none";
  const bool Event = aimz::runtimeCall(getDist(), Names)->Event;
  if (getFn() != "log_prob" &&
      !(getFn() == "log_cdf" || getFn() == "log_ccdf"))
    return emitOpError("fn must be log_prob, log_cdf or log_ccdf; got '")
           << getFn() << "'";
  if (getFn() != "log_prob" &&
      !aimz::hasRuntimeCdf(aimz::runtimeCall(getDist(), Names)->Symbol))
    return emitOpError("'") << getDist() << "' has no CDF in the support "
                            << "library";
  auto R = getResult().getType();
  if (!isa<FloatType>(R.getElementType()))
    return emitOpError("the result must be floating");
  // A vector distribution's value and parameters lead with the result's
  // dims and end in their event axes.
  auto Leads = [&](ArrayType T) {
    auto D = T.getDims().getValue(), RD = R.getDims().getValue();
    return Event ? D.size() >= RD.size() && D.take_front(RD.size()) == RD
                 : D == RD;
  };
  if (!Leads(getValue().getType()))
    return emitOpError("the value must have the result's dims");
  // A general mixture's logits (first) end in the component axis.
  const size_t Components =
      aimz::runtimeCall(getDist(), Names)->Components.size();
  for (auto [I, P] : llvm::enumerate(getParams())) {
    auto T = cast<ArrayType>(P.getType());
    auto D = T.getDims().getValue();
    bool Shaped = Components && I == 0
                      ? D.drop_back() == R.getDims().getValue() && !D.empty() &&
                            isKnown(D.back(), Components)
                      : Leads(T);
    if (!Shaped || T.getElementType() != R.getElementType())
      return emitOpError("every parameter must have the result's dims and "
                         "element type (a general mixture's logits and a "
                         "last axis of one per component)");
  }
  return success();
}

LogicalResult ReduceOp::verify() {
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
  if (getFn() == ReduceFn::LogSumExp && !isa<FloatType>(In.getElementType()))
    return emitOpError("logsumexp needs a floating input");
  return success();
}

LogicalResult ConcatOp::verify() {
  auto Out = getResult().getType();
  int64_t Axis = getAxis();
  if (getElements().empty() || Axis < 0 ||
      Axis >= static_cast<int64_t>(Out.getRank()))
    return emitOpError("needs elements and an axis of the result");
  for (Value V : getElements()) {
    auto T = cast<ArrayType>(V.getType());
    if (T.getElementType() != Out.getElementType() ||
        T.getRank() != Out.getRank())
      return emitOpError("every element must have the result's element type "
                         "and rank");
    for (int64_t D = 0; D < static_cast<int64_t>(T.getRank()); ++D)
      if (D != Axis && T.getDims()[D] != Out.getDims()[D])
        return emitOpError("elements differ from the result off the axis");
  }
  return success();
}

LogicalResult CumSumOp::verify() {
  auto In = getInput().getType();
  int64_t Axis = getAxis();
  if (Axis < 0 || Axis >= static_cast<int64_t>(In.getRank()))
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
  auto L = getLhs().getType(), R = getRhs().getType();
  if (L.getDims() != R.getDims() || L.getDims() != getResult().getType().getDims())
    return emitOpError("operands and result must have the same shape");
  if (L.getElementType() != R.getElementType())
    return emitOpError("operands must have the same element type");
  if (!takesIntegers(getFn()) && !isa<FloatType>(L.getElementType()))
    return emitOpError("'") << stringifyBinaryFn(getFn())
                            << "' needs floating operands";
  return success();
}

LogicalResult ModelOp::verify() {
  if (getPlan() != "obs" && getPlan() != "draw")
    return emitOpError("plan must be \"obs\" or \"draw\"; got \"")
           << getPlan() << "\"";
  auto Syms = getSymbols().getAsValueRange<StringAttr>();
  if (!llvm::is_contained(Syms, getObsDim()))
    return emitOpError("obs_dim '") << getObsDim()
                                    << "' must be one of the symbols";
  if (getJointObservations() && getPlan() != "draw")
    return emitOpError("a model with joint observations needs plan "
                       "\"draw\"");
  return success();
}

/// A model symbol, or arithmetic on symbols other than the observation
/// axis (DimExpr.h's canonical text); with joint observations, whose one
/// block is every observation, on the observation axis too.
static bool isDimensionOf(ModelOp Model, StringRef Text) {
  auto Syms = Model.getSymbols().getAsValueRange<StringAttr>();
  if (llvm::is_contained(Syms, Text))
    return true;
  auto P = aimz::DimPoly::parse(Text.str());
  if (!P || P->isSymbol())
    return false;
  for (const std::string &N : P->names())
    if ((N == Model.getObsDim() && !Model.getJointObservations()) ||
        !llvm::is_contained(Syms, N))
      return false;
  return true;
}

LogicalResult SliceOp::verify() {
  auto In = getInput().getType(), Out = getResult().getType();
  ArrayRef<bool> Dropped = getDropped();
  if (getStarts().size() != In.getRank() || Dropped.size() != In.getRank())
    return emitOpError("needs one start and one dropped flag per operand dim");
  if (In.getElementType() != Out.getElementType())
    return emitOpError("a slice cannot change the element type");
  auto Model = (*this)->getParentOfType<ModelOp>();
  unsigned Kept = 0;
  for (auto [I, Start] : llvm::enumerate(getStarts())) {
    auto N = dyn_cast<IntegerAttr>(Start);
    auto S = dyn_cast<StringAttr>(Start);
    if ((N && N.getInt() < 0) || (!N && !S) ||
        (S && Model && !isDimensionOf(Model, S.getValue())))
      return emitOpError("start ") << I << " must be a non-negative integer "
                                   << "or a dimension";
    auto D = dyn_cast<StringAttr>(In.getDims()[I]);
    bool IsObs = Model && !Model.getJointObservations() && D &&
                 D.getValue() == Model.getObsDim();
    if (IsObs && (Dropped[I] || !N || N.getInt() != 0 ||
                  Kept >= Out.getRank() || Out.getDims()[Kept] != D))
      return emitOpError("the observation axis cannot be cut");
    Kept += !Dropped[I];
  }
  if (Kept != Out.getRank())
    return emitOpError("the result must have one dim per kept operand dim");
  return success();
}

LogicalResult TransposeOp::verify() {
  auto In = getInput().getType(), Out = getResult().getType();
  ArrayRef<int64_t> P = getPermutation();
  if (P.size() != In.getRank() || Out.getRank() != In.getRank() ||
      In.getElementType() != Out.getElementType())
    return emitOpError("needs a permutation of the operand's dims and a "
                       "result of its rank and element type");
  SmallVector<bool> Seen(P.size(), false);
  for (auto [I, From] : llvm::enumerate(P)) {
    if (From < 0 || From >= static_cast<int64_t>(P.size()) || Seen[From])
      return emitOpError("permutation must list every dim once");
    Seen[From] = true;
    if (Out.getDims()[I] != In.getDims()[From])
      return emitOpError("result dim ") << I << " must be operand dim " << From;
  }
  return success();
}

LogicalResult IotaOp::verify() {
  auto T = getResult().getType();
  if (getAxis() >= T.getRank())
    return emitOpError("axis must be a dim of the result");
  if (!isa<IntegerType>(T.getElementType()) ||
      T.getElementType().isInteger(1))
    return emitOpError("the result must hold integers");
  return success();
}

LogicalResult DimOp::verify() {
  auto Model = (*this)->getParentOfType<ModelOp>();
  if (!Model)
    return emitOpError("must be inside an aimz.model");
  if (!isDimensionOf(Model, getName()))
    return emitOpError("'") << getName() << "' is not a dimension of the model";
  auto T = getResult().getType();
  if (T.getRank() != 0 || !T.getElementType().isInteger(64))
    return emitOpError("the result must be an i64 scalar");
  return success();
}

LogicalResult InputOp::verify() {
  auto Model = (*this)->getParentOfType<ModelOp>();
  if (!Model)
    return emitOpError("must be inside an aimz.model");
  if (getIndex() > static_cast<uint64_t>(std::numeric_limits<int32_t>::max()))
    return emitOpError("index out of range");
  return success();
}

LogicalResult ConstantOp::verify() {
  auto T = getResult().getType();
  if (T.getRank() != 0)
    return emitOpError("the result must be a scalar (rank 0); broadcast it");
  if (getValue().getType() != T.getElementType())
    return emitOpError("the value's type ")
           << getValue().getType() << " is not the result's element type "
           << T.getElementType();
  return success();
}

LogicalResult CastOp::verify() {
  if (getInput().getType().getDims() != getResult().getType().getDims())
    return emitOpError("operand and result shapes differ");
  return success();
}

/// NumPy's matmul after `batch_rank` equal leading dims: each side is a
/// vector or a matrix; the left's last dim contracts with the right's first.
LogicalResult MatMulOp::verify() {
  auto L = getLhs().getType(), R = getRhs().getType(),
       Out = getResult().getType();
  int64_t Bt = getBatchRank();
  int64_t LR = static_cast<int64_t>(L.getRank()) - Bt,
          RR = static_cast<int64_t>(R.getRank()) - Bt;
  if (Bt < 0 || LR < 1 || LR > 2 || RR < 1 || RR > 2)
    return emitOpError("each operand must be a vector or a matrix after "
                       "batch_rank dims");
  ArrayRef<Attribute> LD = L.getDims().getValue(), RD = R.getDims().getValue();
  if (LD.take_front(Bt) != RD.take_front(Bt))
    return emitOpError("the operands' batch dims differ");
  if (LD.back() != RD[Bt])
    return emitOpError("the contracted dims differ: ")
           << LD.back() << " and " << RD[Bt];
  SmallVector<Attribute> Want(LD.take_front(Bt));
  if (LR == 2)
    Want.push_back(LD[Bt]);
  if (RR == 2)
    Want.push_back(RD[Bt + 1]);
  if (Out.getDims().getValue() != ArrayRef<Attribute>(Want))
    return emitOpError("the result's dims must be the batch dims, the left's "
                       "rows and the right's columns");
  if (L.getElementType() != R.getElementType() ||
      L.getElementType() != Out.getElementType())
    return emitOpError("operands and result must have the same element type");
  return success();
}

/// base[batch..., i0, i1, ..., rest...]: every index has the result's
/// leading (batch ++ index) dims and an integer type.
LogicalResult GatherOp::verify() {
  auto Base = getBase().getType(), Out = getResult().getType();
  int64_t Bt = getBatchRank();
  int64_t N = static_cast<int64_t>(getIndices().size());
  int64_t Rest = static_cast<int64_t>(Base.getRank()) - Bt - N;
  if (N == 0 || Bt < 0 || Rest < 0)
    return emitOpError("needs one to rank - batch_rank indices");
  int64_t IdxRank = static_cast<int64_t>(Out.getRank()) - Bt - Rest;
  if (IdxRank < 0)
    return emitOpError("the result's rank is too small");
  ArrayRef<Attribute> OD = Out.getDims().getValue();
  for (Value I : getIndices()) {
    auto T = cast<ArrayType>(I.getType());
    if (!isa<IntegerType>(T.getElementType()) ||
        T.getElementType().isInteger(1))
      return emitOpError("indices must be integers");
    if (T.getDims().getValue() != OD.take_front(Bt + IdxRank))
      return emitOpError("every index must have the result's leading "
                         "(batch and index) dims");
  }
  ArrayRef<Attribute> BD = Base.getDims().getValue();
  if (BD.take_front(Bt) != OD.take_front(Bt) ||
      BD.take_back(Rest) != OD.take_back(Rest))
    return emitOpError("the result must keep the base's batch and trailing "
                       "dims");
  if (Base.getElementType() != Out.getElementType())
    return emitOpError("the result must have the base's element type");
  return success();
}

LogicalResult DeterministicOp::verify() {
  if (getValue().getType() != getResult().getType())
    return emitOpError("the result must have the value's type");
  return success();
}

LogicalResult FactorOp::verify() {
  if (getValue().getType() != getResult().getType())
    return emitOpError("the result must have the value's type");
  if (!isa<FloatType>(getValue().getType().getElementType()))
    return emitOpError("a log-density term must be floating point");
  return success();
}
