//===- Shape.cpp - Symbolic array shapes ----------------------------------===//
#include "aimz/Shape.h"

#include <algorithm>

namespace aimz {

std::string Dim::str() const {
  return isSymbol() ? Symbol : std::to_string(Extent);
}

std::string shapeStr(const Shape &S) {
  std::string Out = "[";
  for (size_t I = 0; I < S.size(); ++I) {
    if (I)
      Out += ", ";
    Out += S[I].str();
  }
  return Out + "]";
}

std::optional<Shape> broadcastShapes(const Shape &A, const Shape &B) {
  size_t Rank = std::max(A.size(), B.size());
  Shape Out(Rank);
  for (size_t I = 0; I < Rank; ++I) {
    // Align from the right, as NumPy does.
    const Dim *DA = I < Rank - A.size() ? nullptr : &A[I - (Rank - A.size())];
    const Dim *DB = I < Rank - B.size() ? nullptr : &B[I - (Rank - B.size())];
    if (!DA || DA->isOne())
      Out[I] = DB ? *DB : *DA;
    else if (!DB || DB->isOne() || *DA == *DB)
      Out[I] = *DA;
    else
      return std::nullopt;
  }
  return Out;
}

bool broadcastsTo(const Shape &From, const Shape &To) {
  auto B = broadcastShapes(From, To);
  return B && *B == To;
}

bool mentions(const Shape &S, const std::string &Name) {
  return std::any_of(S.begin(), S.end(),
                     [&](const Dim &D) { return D.Symbol == Name; });
}

} // namespace aimz
