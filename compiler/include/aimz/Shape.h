//===- Shape.h - Symbolic array shapes --------------------------*- C++ -*-===//
//
// A dimension is either a symbol bound from the data at run time (`n`, `k`)
// or a known integer (a literal or a `const`). Two symbols are equal only
// when they have the same name; broadcasting follows NumPy with `1` as the
// only stretchable extent.
//
//===----------------------------------------------------------------------===//
#ifndef AIMZ_SHAPE_H
#define AIMZ_SHAPE_H

#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace aimz {

struct Dim {
  std::string Symbol; // empty for a known extent
  int64_t Extent = 0;

  static Dim symbol(std::string S) { return Dim{std::move(S), 0}; }
  static Dim known(int64_t E) { return Dim{"", E}; }
  bool isSymbol() const { return !Symbol.empty(); }
  bool isOne() const { return !isSymbol() && Extent == 1; }
  bool operator==(const Dim &O) const {
    return Symbol == O.Symbol && (isSymbol() || Extent == O.Extent);
  }
  bool operator!=(const Dim &O) const { return !(*this == O); }
  std::string str() const;
};

using Shape = std::vector<Dim>;

/// `[n, k]`, `[]` for a scalar.
std::string shapeStr(const Shape &S);

/// NumPy broadcasting of two shapes; std::nullopt when incompatible.
std::optional<Shape> broadcastShapes(const Shape &A, const Shape &B);

/// True when `From` broadcasts to exactly `To`.
bool broadcastsTo(const Shape &From, const Shape &To);

/// True when any dimension of `S` is the symbol `Name`.
bool mentions(const Shape &S, const std::string &Name);

} // namespace aimz

#endif // AIMZ_SHAPE_H
