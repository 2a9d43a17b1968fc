//===- ValueTransforms.h - Elementwise bijections of a value ---*- C++ -*-===//
//
// The table of ValueTransforms.def: what Sema accepts in a
// TransformedDistribution's transforms, and how many operands each adds
// to the op that carries it.
//
//===----------------------------------------------------------------------===//
#ifndef AIMZ_VALUETRANSFORMS_H
#define AIMZ_VALUETRANSFORMS_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <array>

namespace aimz {

struct ValueTransform {
  const char *Kind;  // the value_map word: "affine"
  const char *Class; // NumPyro's class: "AffineTransform"
  unsigned Arity;
  std::array<const char *, 2> Params; // NumPyro's names, in its order
};

llvm::ArrayRef<ValueTransform> valueTransforms();
/// By NumPyro's class name, or null.
const ValueTransform *valueTransformByClass(llvm::StringRef Class);
/// By the value_map word, or null.
const ValueTransform *valueTransformByKind(llvm::StringRef Kind);

} // namespace aimz

#endif // AIMZ_VALUETRANSFORMS_H
