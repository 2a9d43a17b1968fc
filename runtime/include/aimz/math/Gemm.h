//===- Gemm.h - Matrix products whose bits never depend on the split -------===//
//
// C[r, n] = sum_k A[r, k] * B[k, n] for rows r given by (batch element,
// row) pairs with arbitrary strides, computed on the CPU without a BLAS.
//
// Every output element is one accumulator that adds A[r, k] * B[k, n] for
// k = 0, 1, ..., K - 1 in that order (a multiply-add the target fuses or
// not, the same way in every lane), so an element's value depends only on
// its row of A and its column of B: not on how many rows a call has, where
// a row sits in a tile, the thread that computes it or the CPU's BLAS
// tables. Rows and columns beyond the edges are computed on padding and
// dropped, so edge tiles run exactly the same instructions as inner ones.
//
// All state lives on the caller's stack (a 32 KiB panel of B and the
// tile): safe to run on any number of threads at once.
//
// The register tile's shape follows the target's registers (TileShape):
// with AVX-512, 8 rows x 2 vectors of 64 bytes (sixteen of the 32 zmm
// registers accumulate); with AVX2 or SSE, 6 rows x 2 vectors of 32 or 16
// bytes (twelve of the 16 ymm/xmm registers). The shape changes which
// elements share an instruction, never an element's sum, so every shape
// gives the same bits.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstdint>
#include <cstring>

namespace aimz::math::gemm {

/// A register tile: Rows rows x Vectors SIMD vectors of Bytes bytes each.
template <int Bytes, int Rows, int Vectors> struct TileShape {
  static constexpr int VectorBytes = Bytes;
  static constexpr int MR = Rows;    ///< rows per register tile
  static constexpr int NV = Vectors; ///< vectors per register tile row
};
using Avx512Tile = TileShape<64, 8, 2>; ///< 16 of 32 zmm registers
using Avx2Tile = TileShape<32, 6, 2>;   ///< 12 of 16 ymm registers
using SseTile = TileShape<16, 6, 2>;    ///< 12 of 16 xmm registers

/// One SIMD vector of T of S::VectorBytes bytes (GCC/Clang extension).
template <class T, class S> struct Vec {
  typedef T Type __attribute__((vector_size(S::VectorBytes)));
  static constexpr int Lanes = S::VectorBytes / sizeof(T);
  static constexpr int Width = S::NV * Lanes; ///< columns per tile row
};

/// Where the rows of one side live: row r = (r / M, r % M) as (batch
/// element, row within it).
template <class T> struct RowSpace {
  T *Base;
  int64_t M, SB, SM;
  T *row(int64_t R) const { return Base + (R / M) * SB + (R % M) * SM; }
};

/// Packs columns [Col0, Col0 + W) of the K x N matrix B into K consecutive
/// tile rows of W elements, zero beyond N.
template <class T, int W>
inline void packPanel(int64_t K, int64_t N, const T *B, int64_t SBk,
                      int64_t SBn, int64_t Col0, T *Panel) {
  const int64_t Cols = N - Col0 < W ? N - Col0 : W;
  // Whole contiguous tile rows, the common case, as fixed-size copies: a
  // copy whose length is known only at run time is a libc call per row.
  if (SBn == 1 && Cols == W) {
    for (int64_t k = 0; k < K; ++k)
      std::memcpy(Panel + k * W, B + k * SBk + Col0, W * sizeof(T));
    return;
  }
  for (int64_t k = 0; k < K; ++k) {
    T *Dst = Panel + k * W;
    const T *Src = B + k * SBk + Col0 * SBn;
    int64_t j = 0;
    if (SBn == 1) {
      std::memcpy(Dst, Src, Cols * sizeof(T));
      j = Cols;
    }
    for (; j < Cols; ++j)
      Dst[j] = Src[j * SBn];
    for (; j < W; ++j)
      Dst[j] = T(0);
  }
}

/// One register tile: Acc[r][v] += ARow[r][k * SAk] * Panel[k * SP + v] (or
/// -=, Subtract) for k = 0 .. K - 1 in order.
template <class T, class S, bool Subtract = false>
inline void tile(int64_t K, const T *const ARow[S::MR], int64_t SAk,
                 const T *Panel, int64_t SP,
                 typename Vec<T, S>::Type Acc[S::MR][S::NV]) {
  using V = typename Vec<T, S>::Type;
  constexpr int MR = S::MR, NV = S::NV;
  for (int64_t k = 0; k < K; ++k) {
    V Bk[NV];
    std::memcpy(Bk, Panel + k * SP, sizeof(Bk));
    for (int R = 0; R < MR; ++R) {
      T A = ARow[R][k * SAk];
      for (int J = 0; J < NV; ++J) {
        if constexpr (Subtract)
          Acc[R][J] -= A * Bk[J];
        else
          Acc[R][J] += A * Bk[J];
      }
    }
  }
}

/// Inner-dimension steps per packed panel: a panel (KC x NV vectors, at
/// most 32 KiB) lives on the stack and in L1. A longer K continues from the
/// partial sums stored in C, which is the same sum in the same order.
constexpr int64_t KC = 256;

/// C rows = A rows @ B for Rows rows sharing one K x N right side, in
/// register tiles of shape S. Subtract: C rows -= A rows @ B, each element
/// starting from its value in C and subtracting A[r, k] * B[k, n] for k in
/// order (a blocked Cholesky's update: the same sequence of operations as
/// its unblocked loops). DirectB: whole tile rows of a row-major B (SBn ==
/// 1) are read in place rather than packed, for few rows of C against a
/// wide B (packing would copy B once per few tiles).
template <class T, class S = Avx512Tile, bool Subtract = false,
          bool DirectB = false>
void gemm(int64_t Rows, int64_t N, int64_t K, RowSpace<const T> A,
          int64_t SAk, const T *B, int64_t SBk, int64_t SBn, RowSpace<T> C,
          int64_t SCn) {
  using V = typename Vec<T, S>::Type;
  constexpr int W = Vec<T, S>::Width;
  constexpr int MR = S::MR, NV = S::NV;
  alignas(S::VectorBytes) T Panel[KC * W];
  const T *ARow[MR];
  T *CRow[MR];
  V Acc[MR][NV];
  T Lane[MR][W];
  for (int64_t Col0 = 0; Col0 < N; Col0 += W) {
    const int64_t Cols = N - Col0 < W ? N - Col0 : W;
    for (int64_t K0 = 0; K0 == 0 || K0 < K; K0 += KC) {
      const int64_t KHere = K - K0 < KC ? K - K0 : KC;
      const bool InPlace = DirectB && SBn == 1 && Cols == W;
      const T *P = InPlace ? B + K0 * SBk + Col0 : Panel;
      const int64_t SP = InPlace ? SBk : W;
      if (!InPlace)
        packPanel<T, W>(KHere, N, B + K0 * SBk, SBk, SBn, Col0, Panel);
      for (int64_t R0 = 0; R0 < Rows; R0 += MR) {
        const int64_t Here = Rows - R0 < MR ? Rows - R0 : MR;
        // Rows past the edge repeat the last one; their results are dropped.
        for (int R = 0; R < MR; ++R) {
          int64_t Row = R0 + (R < Here ? R : Here - 1);
          ARow[R] = A.row(Row) + K0 * SAk;
          CRow[R] = C.row(Row) + Col0 * SCn;
        }
        if (K0 == 0 && !Subtract) {
          for (int R = 0; R < MR; ++R)
            for (int J = 0; J < NV; ++J)
              Acc[R][J] = V{};
        } else if (SCn == 1 && Cols == W) {
          for (int R = 0; R < MR; ++R)
            std::memcpy(Acc[R], CRow[R], sizeof(Acc[R]));
        } else {
          for (int R = 0; R < MR; ++R) {
            for (int64_t j = 0; j < W; ++j)
              Lane[R][j] = j < Cols ? CRow[R][j * SCn] : T(0);
            std::memcpy(Acc[R], Lane[R], sizeof(Lane[R]));
          }
        }
        tile<T, S, Subtract>(KHere, ARow, SAk, P, SP, Acc);
        for (int R = 0; R < Here; ++R) {
          if (SCn == 1 && Cols == W) { // whole vectors, stored as they are
            std::memcpy(CRow[R], Acc[R], sizeof(Acc[R]));
            continue;
          }
          std::memcpy(Lane[R], Acc[R], sizeof(Lane[R]));
          if (SCn == 1) {
            std::memcpy(CRow[R], Lane[R], Cols * sizeof(T));
          } else {
            for (int64_t j = 0; j < Cols; ++j)
              CRow[R][j * SCn] = Lane[R][j];
          }
        }
      }
    }
  }
}

} // namespace aimz::math::gemm
