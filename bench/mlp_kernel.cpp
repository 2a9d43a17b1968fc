//===- mlp_kernel.cpp - The MLP kernel's throughput next to OpenBLAS ------===//
//
// Runs the compiled MLP example's posterior predictive kernel on one core
// (every weight given, so the time is the network and the Bernoulli draw)
// and, on the same shapes, the bare OpenBLAS sgemm/sgemv calls that do the
// same matrix work. Prints draw-observation pairs per second for both and
// their ratio. Usage: aimz-bench-mlp-kernel mlp.so [draws] [observations]
//
//===----------------------------------------------------------------------===//
#include "aimz/abi.h"

#include <cblas.h>
#include <dlfcn.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

namespace {

double now() {
  return std::chrono::duration<double>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

/// Best of `Reps` timings of F, in seconds.
template <class F> double best(int Reps, F &&Fn) {
  double Best = 1e30;
  for (int I = 0; I < Reps; ++I) {
    double T0 = now();
    Fn();
    Best = std::min(Best, now() - T0);
  }
  return Best;
}

} // namespace

int main(int argc, char **argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s mlp.so [draws] [observations]\n", argv[0]);
    return 2;
  }
  const int64_t D = argc > 2 ? std::atoll(argv[2]) : 20;
  const int64_t N = argc > 3 ? std::atoll(argv[3]) : 20000;
  const int64_t In = 100, H = 128;
  void *Lib = dlopen(argv[1], RTLD_NOW);
  if (!Lib) {
    std::fprintf(stderr, "cannot load %s: %s\n", argv[1], dlerror());
    return 1;
  }
  auto Predict = reinterpret_cast<int32_t (*)(aimz_call *)>(
      dlsym(Lib, "aimz_predict"));

  std::mt19937 Rng(1);
  std::normal_distribution<float> Normal(0.f, 0.1f);
  auto Fill = [&](std::vector<float> &V, size_t Count) {
    V.resize(Count);
    for (float &X : V)
      X = Normal(Rng);
  };
  std::vector<float> X, W1, B1, W2, B2, W3, B3, W4, B4;
  Fill(X, N * In);
  Fill(W1, D * In * H), Fill(B1, D * H), Fill(W2, D * H * H), Fill(B2, D * H);
  Fill(W3, D * H * H), Fill(B3, D * H), Fill(W4, D * H), Fill(B4, D);
  std::vector<int32_t> Y(D * N);

  // Sites in the manifest's order: w1 b1 w2 b2 w3 b3 w4 b4 y.
  int64_t SW1[] = {In * H, H, 1}, SB[] = {H, 1}, SW2[] = {H * H, H, 1},
          SW4[] = {H, 1}, SB4[] = {1}, SY[] = {N, 1}, SX[] = {In, 1};
  aimz_view Post[9] = {{W1.data(), SW1}, {B1.data(), SB}, {W2.data(), SW2},
                       {B2.data(), SB},  {W3.data(), SW2}, {B3.data(), SB},
                       {W4.data(), SW4}, {B4.data(), SB4}, {nullptr, nullptr}};
  aimz_view Results[9] = {};
  Results[8] = {Y.data(), SY};
  aimz_view Inputs[1] = {{X.data(), SX}};
  int64_t Dims[] = {N, In};
  aimz_call Call{};
  Call.abi_version = AIMZ_ABI_VERSION;
  Call.draw_end = D;
  Call.obs_end = N;
  Call.dims = Dims;
  Call.inputs = Inputs;
  Call.posterior = Post;
  Call.results = Results;
  Call.obs_block = 512;
  Predict(&Call);
  std::vector<uint8_t> Scratch(Call.scratch_needed);
  Call.scratch = Scratch.data();
  Call.scratch_bytes = Call.scratch_needed;
  if (Predict(&Call) != AIMZ_OK) {
    std::fprintf(stderr, "kernel failed\n");
    return 1;
  }
  double Kernel = best(3, [&] { Predict(&Call); });

  // The same matrix work with OpenBLAS directly: per draw and block of 512
  // observations, three GEMMs and one GEMV.
  const int64_t Blk = 512;
  std::vector<float> H1(Blk * H), H2(Blk * H), Out(Blk);
  double Blas = best(3, [&] {
    for (int64_t d = 0; d < D; ++d)
      for (int64_t o = 0; o < N; o += Blk) {
        int64_t M = std::min(Blk, N - o);
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, M, H, In, 1.f,
                    &X[o * In], In, &W1[d * In * H], H, 0.f, H1.data(), H);
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, M, H, H, 1.f,
                    H1.data(), H, &W2[d * H * H], H, 0.f, H2.data(), H);
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, M, H, H, 1.f,
                    H2.data(), H, &W3[d * H * H], H, 0.f, H1.data(), H);
        cblas_sgemv(CblasRowMajor, CblasNoTrans, M, H, 1.f, H1.data(), H,
                    &W4[d * H], 1, 0.f, Out.data(), 1);
      }
  });
  double Pairs = static_cast<double>(D) * N;
  double Flops = Pairs * 2.0 * (In * H + 2 * H * H + H);
  std::printf("MLP 100-128-128-128-1, %lld draws x %lld observations, one core\n",
              static_cast<long long>(D), static_cast<long long>(N));
  std::printf("  aimz kernel     %10.3f s  %12.4g pairs/s  %7.2f GFLOP/s\n",
              Kernel, Pairs / Kernel, Flops / Kernel * 1e-9);
  std::printf("  OpenBLAS alone  %10.3f s  %12.4g pairs/s  %7.2f GFLOP/s\n",
              Blas, Pairs / Blas, Flops / Blas * 1e-9);
  std::printf("  ratio (aimz / OpenBLAS throughput): %.2f\n", Blas / Kernel);
  return 0;
}
