//===- BlockedCholesky.h - The Cholesky factor of large matrices, blocked -===//
//
// The CPU's factor of matrices from a few dozen rows up (a Gaussian
// process's N x N kernel, a CAR precision, a joint site's covariance).
// It factors U = L^T, stored in the output's upper triangle, so that every
// step runs along contiguous rows: left-looking, in blocks of OuterBlock
// rows of U, each in sub-blocks of Block rows. For each block,
//
//   1. its rows, from the diagonal right, lose the products of the rows
//      already factored, through the register-tiled GEMM (Gemm.h,
//      C -= A B, B read in place), and so does each sub-block with the
//      block's earlier sub-blocks;
//   2. a sub-block's rows are finished one after another, each a vector
//      of the row's entries less the sub-block's earlier rows, divided by
//      the diagonal entry (the divisions run in vector lanes);
//
// and at the end U is moved into the lower triangle (the output's layout)
// and zeros are written above it. The input is read once, by squares, and
// tested for symmetry on the way.
//
// Every entry follows the sequence of operations of math::cholesky
// (EventDistributions.h): a(i, j) less l(i, t) l(j, t) for t in order, then
// divided by l(j, j). The GEMM subtracts in k order from C's value, the
// rows continue in t order, and every multiply-add is fused or not the
// same way in scalar and vector code, so the factor's bits are the
// unblocked loop's: independent of the block size, the target's vector
// width and the matrix's size (a leading square factors alike alone).
// Host code: the GPU runs math::cholesky.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "aimz/math/EventDistributions.h"
#include "aimz/math/Gemm.h"
#include "aimz/math/SquareTranspose.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>

namespace aimz::math {

namespace cholesky_detail {

/// Rows of U per block: the GEMM streams the rows above a block once per
/// block (past the caches for large matrices: an N = 4000 f32 factor is
/// memory-bound with blocks of 32), and a block's rows are finished in
/// sub-blocks of Block rows, each updated by the GEMM from the earlier
/// ones.
constexpr int OuterBlock = 256;
constexpr int Block = 32;
/// Columns a row's step keeps in registers (four 64-byte vectors of f32).
constexpr int Chunk = 64;
/// Side of the squares the transpositions move (stays in L1).
constexpr int64_t Tile = 16;

/// One whole square of copyTransposed, rows I0.. and columns J0.. of a
/// (contiguous rows): transposed in registers into U's rows J0.. at
/// column I0, each pair tested as detail::nearly_equal does (vector
/// lanes, no branch).
template <class T>
bool copySquare(EventView<const T> a, T *U, int64_t Ld, int64_t I0,
                int64_t J0, T Tol) {
  square::Square<T> X, Y;
  X.load(&a(I0, J0), a.s0);
  Y.load(&a(J0, I0), a.s0); // read before U (maybe a) is written
  X.transpose();
  bool Ok = true;
  for (int c = 0; c < Tile; ++c) {
    const T *x = X.row(c), *y = Y.row(c);
    bool RowOk = true;
    for (int r = 0; r < Tile; ++r)
      RowOk &= detail::nearly_equal<T>(x[r], y[r], Tol);
    Ok &= RowOk;
  }
  X.store(U + J0 * Ld + I0, Ld);
  return Ok;
}

/// One whole square of moveToLower: U's rows J0.. at column I0, transposed
/// into rows I0.. at column J0, zeros left behind (a diagonal square keeps
/// its diagonal and zeros above it).
template <class T> void moveSquare(T *L, int64_t Ld, int64_t I0, int64_t J0) {
  square::Square<T> V;
  V.load(L + J0 * Ld + I0, Ld);
  V.transpose();
  if (I0 == J0) {
    for (int r = 0; r < Tile; ++r)
      for (int c = r + 1; c < Tile; ++c)
        V.row(r)[c] = T(0);
  } else {
    for (int r = 0; r < Tile; ++r)
      std::memset(L + (J0 + r) * Ld + I0, 0, Tile * sizeof(T));
  }
  V.store(L + I0 * Ld + J0, Ld);
}

/// U's upper triangle (row stride Ld) from a's lower: U[j][i] = a(i, j)
/// for i >= j, by squares of Tile x Tile; with it detail::symmetric's test
/// of each pair (one pass, reading a by squares rather than down its
/// columns). U may be a itself: a(j, i) is read before U[j][i] replaces it.
/// Whole squares of a matrix with contiguous rows move in registers
/// (copySquare); U's entries below its diagonal inside a diagonal square
/// then hold a's upper ones, which nothing reads before moveToLower.
template <class T>
bool copyTransposed(int64_t K, EventView<const T> a, T *U, int64_t Ld) {
  static_assert(Tile == square::Side);
  const T Tol = detail::symmetry_tolerance<T>();
  bool Ok = true;
  for (int64_t J0 = 0; J0 < K; J0 += Tile)
    for (int64_t I0 = J0; I0 < K; I0 += Tile) {
      if (a.s1 == 1 && I0 + Tile <= K) {
        Ok &= copySquare<T>(a, U, Ld, I0, J0, Tol);
        continue;
      }
      const int64_t J1 = std::min(K, J0 + Tile), I1 = std::min(K, I0 + Tile);
      for (int64_t j = J0; j < J1; ++j)
        for (int64_t i = std::max(I0, j); i < I1; ++i) {
          const T X = a(i, j), Y = a(j, i);
          Ok &= detail::nearly_equal<T>(X, Y, Tol); // no branch per entry
          U[j * Ld + i] = X;
        }
    }
  return Ok;
}

/// The lower triangle from U's upper (L[i][j] = U[j][i]), zeros above.
template <class T> void moveToLower(int64_t K, T *L, int64_t Ld) {
  for (int64_t I0 = 0; I0 < K; I0 += Tile)
    for (int64_t J0 = 0; J0 <= I0; J0 += Tile) {
      if (I0 + Tile <= K) {
        moveSquare<T>(L, Ld, I0, J0);
        continue;
      }
      const int64_t I1 = std::min(K, I0 + Tile), J1 = std::min(K, J0 + Tile);
      for (int64_t i = I0; i < I1; ++i)
        for (int64_t j = J0; j < std::min(J1, i); ++j) {
          L[i * Ld + j] = L[j * Ld + i];
          L[j * Ld + i] = T(0);
        }
    }
}

/// Columns [C0, C0 + W) of row j of U: each entry less U[t][j] U[t][c]
/// for the block's earlier rows t = J0 .. j - 1 in order, divided by the
/// diagonal entry D.
template <class T, int W>
inline void finishColumns(T *U, int64_t Ld, int64_t J0, int64_t j, int64_t C0,
                          T D) {
  T Acc[W];
  T *Row = U + j * Ld + C0;
  for (int q = 0; q < W; ++q)
    Acc[q] = Row[q];
  for (int64_t t = J0; t < j; ++t) {
    const T M = U[t * Ld + j];
    const T *Rt = U + t * Ld + C0;
    for (int q = 0; q < W; ++q)
      Acc[q] -= M * Rt[q];
  }
  for (int q = 0; q < W; ++q)
    Row[q] = Acc[q] / D;
}

/// Rows J0 .. J0 + Jb of U, which have lost every row before J0: each
/// row's diagonal entry, then its entries to the right. False when a
/// diagonal entry is not positive and finite.
template <class T>
bool finishBlock(int64_t K, T *U, int64_t Ld, int64_t J0, int Jb) {
  for (int64_t j = J0; j < J0 + Jb; ++j) {
    T d = U[j * Ld + j];
    for (int64_t t = J0; t < j; ++t)
      d -= U[t * Ld + j] * U[t * Ld + j];
    if (!(d > T(0) && std::isfinite(d)))
      return false;
    const T D = std::sqrt(d);
    U[j * Ld + j] = D;
    int64_t C0 = j + 1;
    for (; C0 + Chunk <= K; C0 += Chunk)
      finishColumns<T, Chunk>(U, Ld, J0, j, C0, D);
    for (; C0 < K; ++C0)
      finishColumns<T, 1>(U, Ld, J0, j, C0, D);
  }
  return true;
}

/// Rows R0 .. R0 + Rows of U, from column R0 right, less rows T0 .. T1:
/// C[r][n] -= sum_k U[T0 + k][R0 + r] U[T0 + k][R0 + n], k in order.
template <class T, class S>
void update(int64_t K, T *U, int64_t Ld, int64_t R0, int64_t Rows, int64_t T0,
            int64_t T1) {
  if (T1 > T0)
    gemm::gemm<T, S, true, true>(
        Rows, K - R0, T1 - T0, gemm::RowSpace<const T>{U + T0 * Ld + R0, K, 0, 1},
        Ld, U + T0 * Ld + R0, Ld, 1,
        gemm::RowSpace<T>{U + R0 * Ld + R0, K, 0, Ld}, 1);
}

} // namespace cholesky_detail

/// math::cholesky's factor, blocked, for a factor whose rows are contiguous
/// (l.s1 == 1); S is the GEMM's register tile for the target.
template <class T, class S>
void cholesky_blocked(int64_t K, EventView<const T> a, EventView<T> l) {
  namespace cd = cholesky_detail;
  T *U = l.p;
  const int64_t Ld = l.s0;
  bool ok = cd::copyTransposed<T>(K, a, U, Ld);
  for (int64_t J0 = 0; J0 < K && ok; J0 += cd::OuterBlock) {
    const int64_t J1 = std::min<int64_t>(K, J0 + cd::OuterBlock);
    cd::update<T, S>(K, U, Ld, J0, J1 - J0, 0, J0);
    for (int64_t S0 = J0; S0 < J1 && ok; S0 += cd::Block) {
      const int Sb = int(std::min<int64_t>(cd::Block, J1 - S0));
      cd::update<T, S>(K, U, Ld, S0, Sb, J0, S0);
      ok = cd::finishBlock<T>(K, U, Ld, S0, Sb);
    }
  }
  if (ok) {
    cd::moveToLower<T>(K, U, Ld);
    return;
  }
  for (int64_t i = 0; i < K; ++i)
    for (int64_t j = 0; j < K; ++j)
      U[i * Ld + j] = detail::nan<T>();
}

} // namespace aimz::math
