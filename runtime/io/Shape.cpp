//===- Shape.cpp - Overflow-checked shape arithmetic ----------------------===//

#include "aimz/io/Shape.h"

namespace aimz::io {

std::optional<uint64_t> checkedNumElements(llvm::ArrayRef<uint64_t> Shape) {
  uint64_t N = 1;
  for (uint64_t D : Shape)
    if (__builtin_mul_overflow(N, D, &N))
      return std::nullopt;
  return N;
}

std::optional<uint64_t> checkedNumBytes(llvm::ArrayRef<uint64_t> Shape,
                                        uint64_t ElementSize) {
  std::optional<uint64_t> N = checkedNumElements(Shape);
  uint64_t Bytes;
  if (!N || __builtin_mul_overflow(*N, ElementSize, &Bytes))
    return std::nullopt;
  return Bytes;
}

std::string formatShape(llvm::ArrayRef<uint64_t> Shape) {
  std::string S = "(";
  for (size_t I = 0; I < Shape.size(); ++I) {
    if (I)
      S += ", ";
    S += std::to_string(Shape[I]);
  }
  if (Shape.size() == 1)
    S += ",";
  return S + ")";
}

} // namespace aimz::io
