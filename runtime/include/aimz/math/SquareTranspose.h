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
#define AIMZ_SQUARE_LANES(...) __VA_ARGS__
#define AIMZ_SQUARE_ROUND(B, FIRST, SECOND)                                    \
  for (int r = 0; r < Side; ++r)                                               \
    if (!(r & B)) {                                                            \
      const Row A = R[r], C = R[r + B];                                        \
      R[r] = __builtin_shufflevector(A, C, AIMZ_SQUARE_LANES FIRST);           \
      R[r + B] = __builtin_shufflevector(A, C, AIMZ_SQUARE_LANES SECOND);      \
    }
    // The second row of each round: columns with bit B set stay, the
    // others come from the first row, B columns right.
    AIMZ_SQUARE_ROUND(8, (0, 1, 2, 3, 4, 5, 6, 7, 16, 17, 18, 19, 20, 21, 22,
                          23),
                      (8, 9, 10, 11, 12, 13, 14, 15, 24, 25, 26, 27, 28, 29, 30,
                       31))
    AIMZ_SQUARE_ROUND(4, (0, 1, 2, 3, 16, 17, 18, 19, 8, 9, 10, 11, 24, 25, 26,
                          27),
                      (4, 5, 6, 7, 20, 21, 22, 23, 12, 13, 14, 15, 28, 29, 30,
                       31))
    AIMZ_SQUARE_ROUND(2, (0, 1, 16, 17, 4, 5, 20, 21, 8, 9, 24, 25, 12, 13, 28,
                          29),
                      (2, 3, 18, 19, 6, 7, 22, 23, 10, 11, 26, 27, 14, 15, 30,
                       31))
    AIMZ_SQUARE_ROUND(1, (0, 16, 2, 18, 4, 20, 6, 22, 8, 24, 10, 26, 12, 28, 14,
                          30),
                      (1, 17, 3, 19, 5, 21, 7, 23, 9, 25, 11, 27, 13, 29, 15,
                       31))
#undef AIMZ_SQUARE_ROUND
#undef AIMZ_SQUARE_LANES
  }
};

} // namespace aimz::math::square
