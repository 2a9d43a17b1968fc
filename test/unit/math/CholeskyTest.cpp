//===- CholeskyTest.cpp - The factor's order, values and failures ---------===//
//
// cholesky() gives each entry one sequence of operations (a(i, j) less the
// products for t in order), and cholesky_blocked() runs that sequence in
// blocks through the GEMM, so both give the same bits whatever the strides,
// the register tile and the size. These tests compare the bits of a strided
// factor and of the blocked factor (every tile shape, sizes across block
// and GEMM edges, in place) with the unblocked contiguous one, the values
// with a long-double factor, and check the failures and the zeroed upper
// triangle.
//
//===----------------------------------------------------------------------===//
#include "aimz/math/BlockedCholesky.h"
#include "aimz/math/EventDistributions.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

namespace m = aimz::math;

namespace {

/// A well-conditioned SPD matrix: B B^T / K + I, row-major.
std::vector<double> spd(int64_t K, uint32_t Seed) {
  std::mt19937 Rng(Seed);
  std::normal_distribution<double> D(0, 1);
  std::vector<double> B(K * K), A(K * K);
  for (double &X : B)
    X = D(Rng);
  for (int64_t I = 0; I < K; ++I)
    for (int64_t J = 0; J < K; ++J) {
      long double S = 0;
      for (int64_t L = 0; L < K; ++L)
        S += (long double)B[I * K + L] * B[J * K + L];
      A[I * K + J] = double(S / K) + (I == J ? 1.0 : 0.0);
    }
  return A;
}

std::vector<long double> referenceFactor(const std::vector<double> &A,
                                         int64_t K) {
  std::vector<long double> L(K * K, 0);
  for (int64_t J = 0; J < K; ++J) {
    long double D = A[J * K + J];
    for (int64_t X = 0; X < J; ++X)
      D -= L[J * K + X] * L[J * K + X];
    L[J * K + J] = std::sqrt(D);
    for (int64_t I = J + 1; I < K; ++I) {
      long double V = A[I * K + J];
      for (int64_t X = 0; X < J; ++X)
        V -= L[I * K + X] * L[J * K + X];
      L[I * K + J] = V / L[J * K + J];
    }
  }
  return L;
}

template <class T> void checkFactor(int64_t K, double Tol) {
  SCOPED_TRACE("K = " + std::to_string(K));
  std::vector<double> A64 = spd(K, 7 + uint32_t(K));
  std::vector<T> A(A64.begin(), A64.end()), L(K * K, T(-1));
  m::cholesky<T>(K, m::EventView<const T>{A.data(), K, 1},
                 m::EventView<T>{L.data(), K, 1});
  std::vector<long double> Ref = referenceFactor(A64, K);
  for (int64_t I = 0; I < K; ++I)
    for (int64_t J = 0; J < K; ++J) {
      if (J > I) {
        EXPECT_EQ(L[I * K + J], T(0)) << I << "," << J;
        continue;
      }
      EXPECT_NEAR(double(L[I * K + J]), double(Ref[I * K + J]), Tol)
          << I << "," << J;
    }
  // The same matrix and factor stored column-major (strides K and 1
  // swapped for the input; a padded, transposed output): the dot products
  // take the strided path and must give the same bits.
  std::vector<T> At(K * K), Lt((K + 3) * K, T(-1));
  for (int64_t I = 0; I < K; ++I)
    for (int64_t J = 0; J < K; ++J)
      At[J * K + I] = A[I * K + J];
  m::cholesky<T>(K, m::EventView<const T>{At.data(), 1, K},
                 m::EventView<T>{Lt.data(), 1, K + 3});
  for (int64_t I = 0; I < K; ++I)
    for (int64_t J = 0; J <= I; ++J) {
      T X = Lt[J * (K + 3) + I];
      ASSERT_EQ(std::memcmp(&X, &L[I * K + J], sizeof(T)), 0)
          << I << "," << J;
    }
}

TEST(Cholesky, MatchesLongDouble) {
  for (int64_t K : {1, 2, 7, 8, 9, 15, 16, 17, 33, 100}) {
    checkFactor<double>(K, 1e-13);
    checkFactor<float>(K, 2e-5);
  }
}

TEST(Cholesky, NotPositiveDefiniteIsNaNEverywhere) {
  const int64_t K = 20;
  std::vector<double> A = spd(K, 3);
  A[5 * K + 5] = -1; // breaks positive definiteness at column 5
  std::vector<double> L(K * K, 0);
  m::cholesky<double>(K, m::EventView<const double>{A.data(), K, 1},
                      m::EventView<double>{L.data(), K, 1});
  for (double X : L)
    ASSERT_TRUE(std::isnan(X));
}

/// The blocked factor of the matrix in a padded row-major buffer (row
/// stride K + 5), in place when asked, must equal the unblocked one's bits.
template <class T, class S> void checkBlocked(int64_t K, bool InPlace) {
  SCOPED_TRACE("K = " + std::to_string(K) + (InPlace ? ", in place" : ""));
  std::vector<double> A64 = spd(K, 11 + uint32_t(K));
  std::vector<T> A(A64.begin(), A64.end()), L(K * K);
  m::cholesky<T>(K, m::EventView<const T>{A.data(), K, 1},
                 m::EventView<T>{L.data(), K, 1});
  const int64_t Ld = K + 5;
  std::vector<T> Out(K * Ld, T(-7));
  if (InPlace)
    for (int64_t I = 0; I < K; ++I)
      std::copy(&A[I * K], &A[I * K] + K, &Out[I * Ld]);
  m::cholesky_blocked<T, S>(
      K, InPlace ? m::EventView<const T>{Out.data(), Ld, 1}
                 : m::EventView<const T>{A.data(), K, 1},
      m::EventView<T>{Out.data(), Ld, 1});
  for (int64_t I = 0; I < K; ++I)
    for (int64_t J = 0; J < K; ++J) {
      T X = Out[I * Ld + J];
      ASSERT_EQ(std::memcmp(&X, &L[I * K + J], sizeof(T)), 0)
          << I << "," << J << ": " << X << " vs " << L[I * K + J];
    }
}

template <class S> void checkBlockedSizes() {
  // One block and less, block edges (32), the GEMM's inner-chunk edge
  // (256 columns before a block), and a size past several chunks.
  for (int64_t K : {1, 5, 31, 32, 33, 64, 97, 256, 289, 300, 700}) {
    checkBlocked<double, S>(K, false);
    checkBlocked<float, S>(K, K % 2 == 1);
  }
}

TEST(Cholesky, BlockedGivesTheUnblockedBitsWithAvx512Tiles) {
  checkBlockedSizes<m::gemm::Avx512Tile>();
}
TEST(Cholesky, BlockedGivesTheUnblockedBitsWithAvx2Tiles) {
  checkBlockedSizes<m::gemm::Avx2Tile>();
}
TEST(Cholesky, BlockedGivesTheUnblockedBitsWithSseTiles) {
  checkBlockedSizes<m::gemm::SseTile>();
}

/// The forward substitution row by row, as it was before rows went in
/// groups: (x_i - loc_i) less L_ij y_j for j in order, divided by L_ii.
template <class T>
T rowByRowLogProb(std::vector<T> x, const std::vector<T> &Loc,
                  const std::vector<T> &L, int64_t K) {
  T Quad = 0, LogDet = 0;
  for (int64_t I = 0; I < K; ++I) {
    T R = x[I] - Loc[I];
    for (int64_t J = 0; J < I; ++J)
      R -= L[I * K + J] * x[J];
    x[I] = R / L[I * K + I];
    Quad += x[I] * x[I];
    LogDet += std::log(L[I * K + I]);
  }
  return T(-0.5) * Quad - LogDet - T(K) * T(m::detail::kLnSqrt2Pi);
}

template <class T> void checkGroupedSolve(int64_t K) {
  SCOPED_TRACE("K = " + std::to_string(K));
  std::vector<double> A64 = spd(K, 3 + uint32_t(K));
  std::vector<T> A(A64.begin(), A64.end()), L(K * K), x(K), Loc(K);
  m::cholesky<T>(K, m::EventView<const T>{A.data(), K, 1},
                 m::EventView<T>{L.data(), K, 1});
  std::mt19937 Rng{uint32_t(K)};
  std::normal_distribution<double> D(0, 2);
  for (int64_t I = 0; I < K; ++I) {
    x[I] = T(D(Rng));
    Loc[I] = T(D(Rng));
  }
  T Want = rowByRowLogProb<T>(x, Loc, L, K);
  std::vector<T> Work = x;
  T Got = m::multivariate_normal_log_prob<T>(
      m::EventView<T>{Work.data(), 0, 1}, K,
      m::EventView<const T>{Loc.data(), 0, 1},
      m::EventView<const T>{L.data(), K, 1});
  EXPECT_EQ(std::memcmp(&Got, &Want, sizeof(T)), 0) << Got << " vs " << Want;
}

TEST(Cholesky, GroupedForwardSubstitutionKeepsTheRowOrder) {
  // Less than one group of 8 rows, whole groups, and a partial last group.
  for (int64_t K : {1, 3, 7, 8, 9, 16, 21, 50}) {
    checkGroupedSolve<double>(K);
    checkGroupedSolve<float>(K);
  }
}

template <class T> void checkSquareTranspose() {
  m::square::Square<T> Sq;
  for (int R = 0; R < 16; ++R)
    for (int C = 0; C < 16; ++C)
      Sq.row(R)[C] = T(R * 16 + C);
  Sq.transpose();
  for (int R = 0; R < 16; ++R)
    for (int C = 0; C < 16; ++C)
      ASSERT_EQ(Sq.row(R)[C], T(C * 16 + R)) << R << "," << C;
}

TEST(Cholesky, SquaresTransposeInRegisters) {
  checkSquareTranspose<float>();
  checkSquareTranspose<double>();
}

TEST(Cholesky, BlockedFailuresAreNaNEverywhere) {
  const int64_t K = 150;
  // Not positive definite in the second block's diagonal square, in a
  // later block's rows, and not symmetric.
  // Asymmetry in an off-diagonal and a diagonal square moved in
  // registers, and in the last rows' partial squares; a NaN in one.
  for (int Case = 0; Case < 6; ++Case) {
    SCOPED_TRACE(Case);
    std::vector<double> A = spd(K, 5), L(K * K, 0);
    if (Case == 0)
      A[40 * K + 40] = -1;
    else if (Case == 1)
      A[140 * K + 140] = 1e-3; // below the sum of its row's squares
    else if (Case == 2)
      A[3 * K + 100] += 1;
    else if (Case == 3)
      A[20 * K + 27] *= 1.001;
    else if (Case == 4)
      A[2 * K + 146] -= 1e-3;
    else
      A[70 * K + 65] = std::nan("");
    m::cholesky_blocked<double, m::gemm::Avx2Tile>(
        K, m::EventView<const double>{A.data(), K, 1},
        m::EventView<double>{L.data(), K, 1});
    for (double X : L)
      ASSERT_TRUE(std::isnan(X));
  }
}

} // namespace
