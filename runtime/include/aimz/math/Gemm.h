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
// The register tile is MR rows x NV vectors of 64 bytes (8 x 32 floats,
// 8 x 16 doubles): sixteen zmm accumulators with AVX-512; narrower targets
// split each vector.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstdint>
#include <cstring>

namespace aimz::math::gemm {

/// One 64-byte SIMD vector of T (GCC/Clang vector extension).
template <class T> struct Vec {
  typedef T Type __attribute__((vector_size(64)));
  static constexpr int Lanes = 64 / sizeof(T);
};

constexpr int MR = 8; ///< rows per register tile
constexpr int NV = 2; ///< vectors per register tile row

/// Where the rows of one side live: row r = (r / M, r % M) as (batch
/// element, row within it).
template <class T> struct RowSpace {
  T *Base;
  int64_t M, SB, SM;
  T *row(int64_t R) const { return Base + (R / M) * SB + (R % M) * SM; }
};

/// Packs columns [Col0, Col0 + NV * Lanes) of the K x N matrix B into
/// K consecutive tile rows, zero beyond N.
template <class T>
inline void packPanel(int64_t K, int64_t N, const T *B, int64_t SBk,
                      int64_t SBn, int64_t Col0, T *Panel) {
  constexpr int W = NV * Vec<T>::Lanes;
  const int64_t Cols = N - Col0 < W ? N - Col0 : W;
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

/// One register tile: Acc[r][v] += ARow[r][k * SAk] * Panel[k][v] for
/// k = 0 .. K - 1 in order.
template <class T>
inline void tile(int64_t K, const T *const ARow[MR], int64_t SAk,
                 const T *Panel, typename Vec<T>::Type Acc[MR][NV]) {
  using V = typename Vec<T>::Type;
  for (int64_t k = 0; k < K; ++k) {
    V Bk[NV];
    std::memcpy(Bk, Panel + k * NV * Vec<T>::Lanes, sizeof(Bk));
    for (int R = 0; R < MR; ++R) {
      T A = ARow[R][k * SAk];
      for (int J = 0; J < NV; ++J)
        Acc[R][J] += A * Bk[J];
    }
  }
}

/// Inner-dimension steps per packed panel: a panel (KC x 64 * NV bytes,
/// 32 KiB) lives on the stack and in L1. A longer K continues from the
/// partial sums stored in C, which is the same sum in the same order.
constexpr int64_t KC = 256;

/// C rows = A rows @ B for Rows rows sharing one K x N right side.
template <class T>
void gemm(int64_t Rows, int64_t N, int64_t K, RowSpace<const T> A,
          int64_t SAk, const T *B, int64_t SBk, int64_t SBn, RowSpace<T> C,
          int64_t SCn) {
  using V = typename Vec<T>::Type;
  constexpr int W = NV * Vec<T>::Lanes;
  alignas(64) T Panel[KC * W];
  const T *ARow[MR];
  T *CRow[MR];
  V Acc[MR][NV];
  T Lane[MR][W];
  for (int64_t Col0 = 0; Col0 < N; Col0 += W) {
    const int64_t Cols = N - Col0 < W ? N - Col0 : W;
    for (int64_t K0 = 0; K0 == 0 || K0 < K; K0 += KC) {
      const int64_t KHere = K - K0 < KC ? K - K0 : KC;
      packPanel<T>(KHere, N, B + K0 * SBk, SBk, SBn, Col0, Panel);
      for (int64_t R0 = 0; R0 < Rows; R0 += MR) {
        const int64_t Here = Rows - R0 < MR ? Rows - R0 : MR;
        // Rows past the edge repeat the last one; their results are dropped.
        for (int R = 0; R < MR; ++R) {
          int64_t Row = R0 + (R < Here ? R : Here - 1);
          ARow[R] = A.row(Row) + K0 * SAk;
          CRow[R] = C.row(Row) + Col0 * SCn;
        }
        if (K0 == 0) {
          for (int R = 0; R < MR; ++R)
            for (int J = 0; J < NV; ++J)
              Acc[R][J] = V{};
        } else {
          for (int R = 0; R < MR; ++R) {
            for (int64_t j = 0; j < W; ++j)
              Lane[R][j] = j < Cols ? CRow[R][j * SCn] : T(0);
            std::memcpy(Acc[R], Lane[R], sizeof(Lane[R]));
          }
        }
        tile<T>(KHere, ARow, SAk, Panel, Acc);
        for (int R = 0; R < Here; ++R) {
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
