//===- GemmTest.cpp - Register-tiled products: order, edges, splits -------===//
//
// The matrix-product kernel promises that every element is the in-order sum
// over k of A[r, k] * B[k, n], whatever the tile, edge or split. Each test
// compares bits with a scalar in-order loop built by the same compiler, and
// values with a long-double reference.
//
//===----------------------------------------------------------------------===//
#include "aimz/math/Gemm.h"

#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <thread>
#include <vector>

namespace g = aimz::math::gemm;

namespace {

template <class T> struct Problem {
  int64_t Rows, N, K;
  // Strides in elements: A rows/columns, B rows/columns, C rows/columns.
  int64_t SAr, SAk, SBk, SBn, SCr, SCn;
  std::vector<T> A, B;

  Problem(int64_t Rows, int64_t N, int64_t K, bool Strided, uint32_t Seed)
      : Rows(Rows), N(N), K(K) {
    SAk = Strided ? 3 : 1;
    SAr = Strided ? K * SAk + 5 : K;
    SBn = Strided ? K + 2 : 1; // B stored column-major when strided
    SBk = Strided ? 1 : N;
    SCn = Strided ? 2 : 1;
    SCr = Strided ? N * SCn + 7 : N;
    std::mt19937 Rng(Seed);
    std::normal_distribution<double> D(0, 1);
    A.resize(Rows * SAr + 1);
    B.resize(Strided ? N * SBn + 1 : K * N + 1);
    for (T &X : A)
      X = static_cast<T>(D(Rng));
    for (T &X : B)
      X = static_cast<T>(D(Rng));
  }

  /// Rows [R0, R1) through the kernel with register tiles of shape S, into
  /// C (laid out with SCr/SCn).
  template <class S = g::Avx512Tile>
  void run(int64_t R0, int64_t R1, std::vector<T> &C) const {
    g::gemm<T, S>(R1 - R0, N, K, g::RowSpace<const T>{A.data() + R0 * SAr, 1, SAr, 0},
               SAk, B.data(), SBk, SBn,
               g::RowSpace<T>{C.data() + R0 * SCr, 1, SCr, 0}, SCn);
  }
  std::vector<T> output() const {
    return std::vector<T>(Rows * SCr + 1, T(-7));
  }
  /// The in-order sum, one element at a time.
  T inOrder(int64_t R, int64_t Col) const {
    T Acc = 0;
    for (int64_t k = 0; k < K; ++k)
      Acc += A[R * SAr + k * SAk] * B[k * SBk + Col * SBn];
    return Acc;
  }
  long double exact(int64_t R, int64_t Col) const {
    long double Acc = 0;
    for (int64_t k = 0; k < K; ++k)
      Acc += static_cast<long double>(A[R * SAr + k * SAk]) *
             B[k * SBk + Col * SBn];
    return Acc;
  }
};

template <class T> void checkAll(const Problem<T> &P, const std::vector<T> &C) {
  for (int64_t R = 0; R < P.Rows; ++R)
    for (int64_t Col = 0; Col < P.N; ++Col) {
      T Got = C[R * P.SCr + Col * P.SCn];
      T Want = P.inOrder(R, Col);
      ASSERT_EQ(0, std::memcmp(&Got, &Want, sizeof(T)))
          << "row " << R << " col " << Col << ": " << Got << " vs in-order "
          << Want;
      long double Tol = (sizeof(T) == 4 ? 1e-5L : 1e-13L) * (P.K + 1);
      ASSERT_NEAR(static_cast<long double>(Got), P.exact(R, Col), Tol);
    }
  // Padding between strided elements is untouched.
  if (P.SCn > 1) {
    for (int64_t R = 0; R < P.Rows; ++R)
      ASSERT_EQ(C[R * P.SCr + 1], T(-7)) << "row " << R;
  }
}

template <class T, class S> void shapes(bool Strided) {
  // Rows and columns around every tile's sizes, K across the panel depth.
  const int64_t RowsList[] = {1, 5, 6, 7, 8, 9, 13, 23};
  const int64_t NList[] = {2, 7, 8, 9, 15, 16, 17, 24, 33, 64, 70};
  const int64_t KList[] = {0, 1, 5, 100, 256, 257, 600};
  uint32_t Seed = 1;
  for (int64_t Rows : RowsList)
    for (int64_t N : NList)
      for (int64_t K : KList) {
        SCOPED_TRACE(testing::Message() << Rows << "x" << K << " @ " << K
                                        << "x" << N);
        Problem<T> P(Rows, N, K, Strided, Seed++);
        std::vector<T> C = P.output();
        P.template run<S>(0, Rows, C);
        checkAll(P, C);
        if (testing::Test::HasFatalFailure())
          return;
      }
}

TEST(Gemm, FloatInOrderAtEveryEdge) {
  shapes<float, g::Avx512Tile>(false);
  shapes<float, g::Avx2Tile>(false);
  shapes<float, g::SseTile>(false);
}
TEST(Gemm, DoubleInOrderAtEveryEdge) {
  shapes<double, g::Avx512Tile>(false);
  shapes<double, g::Avx2Tile>(false);
  shapes<double, g::SseTile>(false);
}
TEST(Gemm, FloatStridedOperands) {
  shapes<float, g::Avx512Tile>(true);
  shapes<float, g::Avx2Tile>(true);
}
TEST(Gemm, DoubleStridedOperands) {
  shapes<double, g::Avx512Tile>(true);
  shapes<double, g::SseTile>(true);
}

TEST(Gemm, EveryTileShapeGivesTheSameBits) {
  // A model compiled for an AVX-512 CPU and one compiled for AVX2 must
  // write the same draws: the tile decides the grouping, not the sums.
  Problem<float> P(37, 130, 300, false, 11);
  std::vector<float> Wide = P.output(), Avx2 = P.output(), Sse = P.output();
  P.run<g::Avx512Tile>(0, P.Rows, Wide);
  P.run<g::Avx2Tile>(0, P.Rows, Avx2);
  P.run<g::SseTile>(0, P.Rows, Sse);
  EXPECT_EQ(0, std::memcmp(Wide.data(), Avx2.data(), Wide.size() * 4));
  EXPECT_EQ(0, std::memcmp(Wide.data(), Sse.data(), Wide.size() * 4));
}

TEST(Gemm, RowsSplitAnyWayGiveTheSameBits) {
  Problem<float> P(61, 40, 130, false, 99);
  std::vector<float> Whole = P.output();
  P.run(0, P.Rows, Whole);
  for (int64_t Step : {1, 3, 5, 8, 13}) {
    std::vector<float> Split = P.output();
    for (int64_t R0 = 0; R0 < P.Rows; R0 += Step)
      P.run(R0, std::min(R0 + Step, P.Rows), Split);
    EXPECT_EQ(Whole, Split) << "rows in steps of " << Step;
  }
}

TEST(Gemm, BatchOfMatricesAddressesEveryRow) {
  // Rows given as (batch element, row) pairs: 5 elements of 3 rows each.
  const int64_t Batch = 5, M = 3, K = 20, N = 18;
  std::vector<double> A(Batch * M * K), B(K * N), C(Batch * M * N, -1);
  std::mt19937 Rng(4);
  std::normal_distribution<double> D(0, 1);
  for (double &X : A)
    X = D(Rng);
  for (double &X : B)
    X = D(Rng);
  g::gemm<double>(Batch * M, N, K, g::RowSpace<const double>{A.data(), M, M * K, K},
                  1, B.data(), N, 1, g::RowSpace<double>{C.data(), M, M * N, N},
                  1);
  for (int64_t R = 0; R < Batch * M; ++R)
    for (int64_t Col = 0; Col < N; ++Col) {
      double Want = 0;
      for (int64_t k = 0; k < K; ++k)
        Want += A[R * K + k] * B[k * N + Col];
      EXPECT_EQ(C[R * N + Col], Want) << R << ", " << Col;
    }
}

TEST(Gemm, ConcurrentCallsGiveTheOneThreadBits) {
  // Several threads multiplying at once (the way devices do) must not
  // disturb one another.
  Problem<float> P(512, 128, 100, false, 7);
  std::vector<float> Ref = P.output();
  P.run(0, P.Rows, Ref);
  std::vector<std::vector<float>> Out(4, P.output());
  std::vector<std::thread> Threads;
  for (int T = 0; T < 4; ++T)
    Threads.emplace_back([&, T] {
      for (int Rep = 0; Rep < 20; ++Rep)
        for (int64_t R0 = T * 8; R0 < P.Rows; R0 += 64)
          P.run(R0, std::min<int64_t>(R0 + 64, P.Rows), Out[T]);
    });
  for (std::thread &T : Threads)
    T.join();
  for (int T = 0; T < 4; ++T)
    for (int64_t R = T * 8; R < P.Rows; ++R)
      ASSERT_EQ(0, std::memcmp(&Out[T][R * P.SCr], &Ref[R * P.SCr],
                               P.N * sizeof(float)))
          << "thread " << T << " row " << R;
}

} // namespace
