//===- SquareTranspose.h - 16 x 16 squares transposed in registers --------===//
//
// The blocked Cholesky reads the lower triangle of its input into U's
// upper one and moves U back down at the end: two transpositions of an
// N x N matrix. Element by element they cost a third of a large factor's
// time (one scalar load and store per entry); here a square of 16 x 16 is
// loaded as 16 row vectors, transposed by four rounds of two-source
// shuffles (each swaps the off-diagonal blocks of 8, 4, 2 and then 1 rows
// inside every square of twice that size) and stored as 16 rows again.
//
// GCC and Clang vector extensions: the target's widest registers carry
// the rows (one zmm per f32 row on AVX-512, two ymm on AVX2).
// Host code only.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstdint>
#include <cstring>
#include <utility>

namespace aimz::math::square {

constexpr int Side = 16;

template <class T> struct Square {
  typedef T Row __attribute__((vector_size(Side * sizeof(T))));
  Row R[Side];

  /// Rows r of the square at P, row stride Ld (elements).
  void load(const T *P, int64_t Ld) {
    for (int r = 0; r < Side; ++r)
      std::memcpy(&R[r], P + r * Ld, sizeof(Row));
  }
  void store(T *P, int64_t Ld) const {
    for (int r = 0; r < Side; ++r)
      std::memcpy(P + r * Ld, &R[r], sizeof(Row));
  }
  /// Row r as 16 scalars.
  const T *row(int r) const { return reinterpret_cast<const T *>(&R[r]); }
  T *row(int r) { return reinterpret_cast<T *>(&R[r]); }

  /// R[r][c] becomes R[c][r].
  void transpose() {
    // Round B pairs rows r and r + B (r & B == 0): entries in columns with
    // bit B clear stay in row r, the others come from row r + B, B columns
    // left; row r + B gets the rest. After the rounds B = 8, 4, 2, 1 every
    // bit of the row index has traded places with the column's.
    Lanes Idx;
    round<8>(Idx);
    round<4>(Idx);
    round<2>(Idx);
    round<1>(Idx);
  }

private:
  using Lanes = std::make_integer_sequence<int, Side>;

  /// Lane c of a round's first (or second) row, as an index into the pair
  /// of rows (the second's lanes count from Side): a column with bit B
  /// clear keeps the first row's entry (the second takes the first's,
  /// B columns right); with bit B set, the second row's, B columns left
  /// (the second keeps its own).
  static constexpr int lane(int B, bool Second, int c) {
    return Second ? ((c & B) ? Side + c : c + B)
                  : ((c & B) ? Side + c - B : c);
  }

  template <int B, int... C> void round(std::integer_sequence<int, C...>) {
    for (int r = 0; r < Side; ++r)
      if (!(r & B)) {
        const Row A = R[r], D = R[r + B];
        R[r] = __builtin_shufflevector(A, D, lane(B, false, C)...);
        R[r + B] = __builtin_shufflevector(A, D, lane(B, true, C)...);
      }
  }
};

} // namespace aimz::math::square
