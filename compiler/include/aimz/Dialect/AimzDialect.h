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

#endif // AIMZ_DIALECT_AIMZDIALECT_H
