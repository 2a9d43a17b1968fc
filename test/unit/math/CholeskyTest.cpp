//===- CholeskyTest.cpp - The factor's order, values and failures ---------===//
//
// cholesky() sums each entry's dot product in dot_lanes's fixed order (64
// bytes of partial sums, combined pairwise), so that it vectorizes and yet
// gives the same bits whatever the strides and the CPU. These tests compare
// the bits of a strided factor with a contiguous one, the values with a
// long-double factor, and check the failure and the zeroed upper triangle.
//
//===----------------------------------------------------------------------===//
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

TEST(Cholesky, MatchesLongDoubleAcrossLaneEdges) {
  // Sizes around the 8 (f64) and 16 (f32) partial sums and their tails.
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

TEST(Cholesky, DotLanesAddsPartialSumsPairwise) {
  // 19 float terms: element k into sum k mod 16, then the 16 sums pairwise.
  std::vector<float> A(19), B(19, 1.0f);
  for (int K = 0; K < 19; ++K)
    A[K] = K == 0 ? 1e8f : (K == 16 ? -1e8f : 1.0f);
  // Sum 0 holds 1e8 + (-1e8) = 0 exactly; an in-order sum would lose the
  // ones between them to rounding (1e8 + 1 == 1e8 in float).
  EXPECT_EQ(m::detail::dot_lanes<float>(19, A.data(), 1, B.data(), 1), 17.0f);
  EXPECT_EQ(m::detail::dot_lanes<float>(0, A.data(), 1, B.data(), 1), 0.0f);
}

} // namespace
