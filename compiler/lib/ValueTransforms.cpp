//===- ValueTransforms.cpp - Elementwise bijections of a value -----------===//
#include "aimz/ValueTransforms.h"

#include "llvm/ADT/STLExtras.h"

namespace aimz {
namespace {

constexpr ValueTransform Table[] = {
#define AIMZ_VALUE_TRANSFORM(KIND, CLASS, ARITY, P0, P1)                       \
  {#KIND, #CLASS, ARITY, {P0, P1}},
#include "aimz/ValueTransforms.def"
};

} // namespace

llvm::ArrayRef<ValueTransform> valueTransforms() { return Table; }

const ValueTransform *valueTransformByClass(llvm::StringRef Class) {
  const auto *It = llvm::find_if(
      Table, [&](const ValueTransform &T) { return Class == T.Class; });
  return It == std::end(Table) ? nullptr : It;
}

const ValueTransform *valueTransformByKind(llvm::StringRef Kind) {
  const auto *It = llvm::find_if(
      Table, [&](const ValueTransform &T) { return Kind == T.Kind; });
  return It == std::end(Table) ? nullptr : It;
}

} // namespace aimz
