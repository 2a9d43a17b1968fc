//===- AimzDialect.h - The aimz dialect -------------------------*- C++ -*-===//
#ifndef AIMZ_DIALECT_AIMZDIALECT_H
#define AIMZ_DIALECT_AIMZDIALECT_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "aimz/Dialect/AimzDialect.h.inc"
#include "aimz/Dialect/AimzEnums.h.inc"

#define GET_TYPEDEF_CLASSES
#include "aimz/Dialect/AimzTypes.h.inc"

#define GET_OP_CLASSES
#include "aimz/Dialect/AimzOps.h.inc"

namespace aimz {
namespace ir {

/// The operands of aimz.sample, aimz.observe and aimz.log_prob: the base
/// distribution's names and values, then the value map's (one group per
/// word of `value_map`, ValueTransforms.def).
struct DistOperands {
  mlir::ArrayAttr Names;
  mlir::ValueRange Params;
  mlir::ArrayAttr Map;
  mlir::ValueRange MapParams;
};
/// Null Names when the map names an unknown transform or the operands are
/// too few for it (the verifier reports it).
DistOperands splitDistOperands(mlir::ArrayAttr Names, mlir::ValueRange Params,
                               mlir::ArrayAttr Map);
template <typename OpT> DistOperands distOperands(OpT Op) {
  return splitDistOperands(Op.getParamNames(), Op.getParams(),
                           Op.getValueMap());
}

} // namespace ir
} // namespace aimz

#endif // AIMZ_DIALECT_AIMZDIALECT_H
