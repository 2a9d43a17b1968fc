//===- AimzDialect.td - The aimz dialect -------------------*- tablegen -*-===//
#ifndef AIMZ_DIALECT_TD
#define AIMZ_DIALECT_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"

def Aimz_Dialect : Dialect {
  let name = "aimz";
  let cppNamespace = "::aimz::ir";
  let summary = "Probabilistic models over symbolically shaped arrays";
  let description = [{
    A model is a graph of array operations and sites. Every value carries
    its full symbolic shape: the dims of the plates it lives in, outermost
    first, then its own dims. Plates therefore vanish into shapes; ops that
    need them (matmul, reduce, gather) say how many leading dims are plate
    (batch) dims.
  }];
  let useDefaultTypePrinterParser = 1;
}

class Aimz_Type<string name, string typeMnemonic>
    : TypeDef<Aimz_Dialect, name> {
  let mnemonic = typeMnemonic;
}

def Aimz_ArrayType : Aimz_Type<"Array", "array"> {
  let summary = "An array with a symbolic shape";
  let description = [{
    `!aimz.array<["n", 128], f32>`: each dim is a symbol bound from the data
    at run time (a string) or a known extent (an integer). Booleans are i1.
  }];
  let parameters = (ins "::mlir::ArrayAttr":$dims, "::mlir::Type":$elementType);
  let assemblyFormat = "`<` $dims `,` $elementType `>`";
  let extraClassDeclaration = [{
    unsigned getRank() const { return getDims().size(); }
  }];
}

#endif // AIMZ_DIALECT_TD
