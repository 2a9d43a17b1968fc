//===- cholesky.cpp - The blocked Cholesky factor next to LAPACK's --------===//
//
// GFLOP/s (N^3 / 3 per factor) of math::cholesky_blocked, the factor every
// model's covariance, precision and cholesky() use on the CPU, beside
// OpenBLAS's LAPACK spotrf / dpotrf on the same matrices, one core each.
// Built by LLVM 19's clang at -O3 for this CPU, as aimzc optimizes a model.
// Before timing it checks that the blocked factor has the unblocked loop's
// bits (with this CPU's fused multiply-adds) and agrees with LAPACK's.
//
// Usage: aimz-bench-cholesky [N ...]   (default 250 500 1000 2000 4000)
//        aimz-bench-cholesky --gemm    (the GEMM kernel's f32 GFLOP/s on
//                                       1000 x 1000 x 1000, one core: the
//                                       FLOP bound bench/gp.py quotes)
//
//===----------------------------------------------------------------------===//
#include "aimz/math/BlockedCholesky.h"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>

extern "C" {
void spotrf_(const char *Uplo, const int *N, float *A, const int *Lda,
             int *Info);
void dpotrf_(const char *Uplo, const int *N, double *A, const int *Lda,
             int *Info);
}

namespace {

namespace m = aimz::math;
#if defined(__AVX512F__)
using Tile = m::gemm::Avx512Tile;
#elif defined(__AVX2__)
using Tile = m::gemm::Avx2Tile;
#else
using Tile = m::gemm::SseTile;
#endif

double now() {
  return std::chrono::duration<double>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

/// A squared-exponential kernel plus noise on sorted inputs: the Gaussian
/// process's matrix, row-major.
template <class T> std::vector<T> kernel(int64_t N) {
  std::mt19937 Rng(3);
  std::uniform_real_distribution<double> U(-3, 3);
  std::vector<double> X(N);
  for (double &V : X)
    V = U(Rng);
  std::vector<T> A(N * N);
  for (int64_t I = 0; I < N; ++I)
    for (int64_t J = 0; J < N; ++J)
      A[I * N + J] = T(std::exp(-0.5 * (X[I] - X[J]) * (X[I] - X[J])) +
                       (I == J ? 0.1 : 0.0));
  return A;
}

/// The factor as LAPACK computes it: column-major upper is row-major lower.
template <class T> int lapackFactor(int N, T *A) {
  int Info = 0;
  if constexpr (sizeof(T) == 4)
    spotrf_("U", &N, A, &N, &Info);
  else
    dpotrf_("U", &N, A, &N, &Info);
  return Info;
}

/// Best of Reps timings of one factor of A.
template <class T, class F>
double best(int Reps, const std::vector<T> &A, std::vector<T> &Work, F &&Fn) {
  double Best = 1e30;
  for (int R = 0; R < Reps; ++R) {
    Work = A;
    double T0 = now();
    Fn(Work.data());
    Best = std::min(Best, now() - T0);
  }
  return Best;
}

template <class T> bool run(int64_t N, const char *Name) {
  std::vector<T> A = kernel<T>(N), Ours(N * N), Ref(N * N), Work;
  m::cholesky_blocked<T, Tile>(N, m::EventView<const T>{A.data(), N, 1},
                               m::EventView<T>{Ours.data(), N, 1});
  // The bits of the unblocked loop (only where it is quick enough).
  if (N <= 1000) {
    m::cholesky<T>(N, m::EventView<const T>{A.data(), N, 1},
                   m::EventView<T>{Ref.data(), N, 1});
    if (std::memcmp(Ours.data(), Ref.data(), N * N * sizeof(T)) != 0) {
      std::fprintf(stderr, "%s N = %lld: the blocked factor's bits differ "
                   "from the unblocked loop's\n", Name, (long long)N);
      return false;
    }
  }
  Ref = A;
  if (lapackFactor<T>(int(N), Ref.data()) != 0) {
    std::fprintf(stderr, "%s N = %lld: LAPACK failed\n", Name, (long long)N);
    return false;
  }
  double Worst = 0;
  for (int64_t I = 0; I < N; ++I)
    for (int64_t J = 0; J <= I; ++J)
      Worst = std::max(Worst, std::fabs(double(Ours[I * N + J]) -
                                        double(Ref[I * N + J])));
  const int Reps = N <= 1000 ? 5 : 2;
  double TOurs = best(Reps, A, Work, [&](T *P) {
    m::cholesky_blocked<T, Tile>(N, m::EventView<const T>{A.data(), N, 1},
                                 m::EventView<T>{P, N, 1});
  });
  double TLapack = best(Reps, A, Work, [&](T *P) { lapackFactor<T>(int(N), P); });
  const double Flops = double(N) * N * N / 3;
  std::printf("%-4s %6lld %10.2f ms %8.1f GFLOP/s %10.2f ms %8.1f GFLOP/s "
              "%6.2f   %.1e\n",
              Name, (long long)N, TOurs * 1e3, Flops / TOurs * 1e-9,
              TLapack * 1e3, Flops / TLapack * 1e-9, TLapack / TOurs, Worst);
  return true;
}

/// GFLOP/s of the GEMM kernel (f32, C = A B, N x N x N), best of 3.
double gemmGflops(int64_t N) {
  std::vector<float> A(N * N), B(N * N), C(N * N);
  std::mt19937 Rng(5);
  std::uniform_real_distribution<float> U(-1, 1);
  for (float &V : A)
    V = U(Rng);
  for (float &V : B)
    V = U(Rng);
  std::vector<float> Unused;
  double T = best(3, C, Unused, [&](float *) {
    m::gemm::gemm<float, Tile>(N, N, N, {A.data(), N, 0, N}, 1, B.data(), N,
                               1, {C.data(), N, 0, N}, 1);
  });
  return 2.0 * N * N * N / T * 1e-9;
}

} // namespace

int main(int argc, char **argv) {
  if (argc == 2 && std::strcmp(argv[1], "--gemm") == 0) {
    std::printf("%.1f GFLOP/s (GEMM kernel, f32, 1000^3, one core)\n",
                gemmGflops(1000));
    return 0;
  }
  std::vector<int64_t> Sizes;
  for (int I = 1; I < argc; ++I)
    Sizes.push_back(std::atoll(argv[I]));
  if (Sizes.empty())
    Sizes = {250, 500, 1000, 2000, 4000};
  std::printf("Cholesky factor, one core: aimz (blocked, %d-byte tiles) and "
              "OpenBLAS LAPACK\n", Tile::VectorBytes);
  std::printf("type      N       aimz                     LAPACK          "
              "   LAPACK/aimz time  max |diff|\n");
  bool Ok = true;
  for (int64_t N : Sizes)
    Ok = run<float>(N, "f32") && Ok;
  for (int64_t N : Sizes)
    Ok = run<double>(N, "f64") && Ok;
  return Ok ? 0 : 1;
}
