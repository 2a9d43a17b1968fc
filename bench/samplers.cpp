//===- samplers.cpp - ns per value of every sampler ----------------------===//
//
// aimz-bench-samplers [values]: for every distribution of
// Distributions.def, nanoseconds per value of the scalar sampler (one
// out-of-line call per value, as a model calls the rejection samplers) and,
// for the straight-line ones, of the row sampler (one call per row: the
// loop vectorizes for this CPU, as it does inside a model). Built by clang
// with -O3 -march=native, as a model's code is optimized. f32, one
// thread, best of three passes; each stream is addressed (seed, site, draw,
// observation) exactly as a model addresses it. The parameters are typical
// values, listed below. A third column runs each row sampler with
// parameters that differ from element to element (as a regression's rates
// do): with one value for the whole row the compiler can hoist work that
// depends only on the parameters out of the lanes, which flatters the row.
//
//===----------------------------------------------------------------------===//
#include "aimz/math/Math.h"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <initializer_list>
#include <map>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace m = aimz::math;
using aimz::math::RandomStream;

namespace {

using Clock = std::chrono::steady_clock;

struct Params {
  float A = 0, B = 0, C = 0, D = 0, E = 0;
};

// Typical parameters, in the order of the compiler's distribution table
// (NumPyro's parameter order).
Params paramsFor(const char *Sym) {
  struct Row {
    const char *Sym;
    std::initializer_list<float> Values;
  };
  static const Row Rows[] = {
      {"normal", {0.5f, 2.0f}},
      {"halfnormal", {2.0f}},
      {"lognormal", {0.5f, 0.8f}},
      {"exponential", {1.5f}},
      {"gamma", {2.5f, 1.5f}},
      {"beta", {2.0f, 3.0f}},
      {"uniform", {-1.0f, 2.0f}},
      {"cauchy", {0.0f, 1.0f}},
      {"halfcauchy", {1.0f}},
      {"studentt", {4.0f, 0.0f, 1.0f}},
      {"laplace", {0.0f, 1.0f}},
      {"logistic", {0.0f, 1.0f}},
      {"gumbel", {0.0f, 1.0f}},
      {"inversegamma", {3.0f, 2.0f}},
      {"pareto", {1.0f, 3.0f}},
      {"weibull", {1.0f, 1.5f}},
      {"truncatednormal", {0.0f, 1.0f, -1.0f, 2.0f}},
      {"truncated_cauchy", {0.0f, 1.0f, -1.0f, 2.0f}},
      {"truncated_laplace", {0.0f, 1.0f, -1.0f, 2.0f}},
      {"truncated_logistic", {0.0f, 1.0f, -1.0f, 2.0f}},
      {"truncated_studentt", {4.0f, 0.0f, 1.0f, -1.0f, 2.0f}},
      {"bernoulli_probs", {0.3f}},
      {"bernoulli_logits", {-0.5f}},
      {"binomial_probs", {10.0f, 0.3f}},
      {"binomial_logits", {10.0f, -0.5f}},
      {"poisson", {4.0f}},
      {"gammapoisson", {2.0f, 0.5f}},
      {"negativebinomial2", {4.0f, 2.0f}},
      {"negativebinomialprobs", {5.0f, 0.3f}},
      {"negativebinomiallogits", {5.0f, -0.5f}},
      {"zeroinflatedpoisson_gate", {0.2f, 4.0f}},
      {"zeroinflatedpoisson_gate_logits", {4.0f, -1.0f}},
      {"zeroinflatednegativebinomial2_gate", {4.0f, 2.0f, 0.2f}},
      {"zeroinflatednegativebinomial2_gate_logits", {4.0f, 2.0f, -1.0f}},
      {"betabinomial", {2.0f, 3.0f, 10.0f}},
  };
  for (const Row &R : Rows)
    if (std::strcmp(R.Sym, Sym) == 0) {
      Params P;
      float *Slots[] = {&P.A, &P.B, &P.C, &P.D, &P.E};
      size_t I = 0;
      for (float V : R.Values)
        *Slots[I++] = V;
      return P;
    }
  std::fprintf(stderr, "aimz-bench-samplers: no parameters for '%s'\n", Sym);
  std::exit(1);
}

double nsPerValue(const std::vector<double> &Passes, int64_t N) {
  return *std::min_element(Passes.begin(), Passes.end()) * 1e9 / double(N);
}

/// Per-element parameters around P, one array per slot (as a model's
/// strided parameter rows): integers of 1 or more step by 0-3 (counts stay
/// counts), everything else is scaled by 1 + (i mod 16) / 64.
struct ParamRows {
  std::vector<float> A, B, C, D, E;
  ParamRows(const Params &P, int64_t N) : A(N), B(N), C(N), D(N), E(N) {
    auto Vary = [](float V, int64_t I) {
      if (V >= 1 && V == static_cast<float>(static_cast<int64_t>(V)))
        return V + static_cast<float>(I % 4);
      return V * (1.0f + static_cast<float>(I % 16) / 64.0f);
    };
    for (int64_t I = 0; I < N; ++I) {
      A[I] = Vary(P.A, I);
      B[I] = Vary(P.B, I);
      C[I] = Vary(P.C, I);
      D[I] = Vary(P.D, I);
      E[I] = Vary(P.E, I);
    }
  }
};

// Keeps results observable without a per-value store in the timed loop.
volatile double Sink;

#define AIMZ_ARGS_1 P.A
#define AIMZ_ARGS_0 m::NoParam{}
#define AIMZ_ARGS_2 P.A, P.B
#define AIMZ_ARGS_3 P.A, P.B, P.C
#define AIMZ_ARGS_4 P.A, P.B, P.C, P.D
#define AIMZ_ARGS_5 P.A, P.B, P.C, P.D, P.E

// One out-of-line function per scalar sampler, as the support library has.
#define AIMZ_DISTRIBUTION(SYM, KIND, ARITY, SAMPLE, LOG_PROB)                 \
  __attribute__((noinline)) double scalar_##SYM(uint64_t Draw, uint64_t Obs, \
                                                const Params &P) {            \
    RandomStream S(1, 7, Draw, Obs, 0);                                       \
    return static_cast<double>(m::SAMPLE<float>(S, AIMZ_ARGS_##ARITY));       \
  }
#include "aimz/math/Distributions.def"

// Row samplers: the support library's loops, compiled for this CPU (a
// rejection sampler's row: first attempts in vector lanes, then the full
// sampler where they were rejected).
#define AIMZ_OUT_CONTINUOUS float
#define AIMZ_OUT_DISCRETE int32_t
// ParamsOf(I) gives element I's parameters: the same for every element, or
// read from a ParamRows.
#define AIMZ_VECTOR_SAMPLER(SYM, KIND, ARITY, SAMPLE)                         \
  template <class ParamsOf>                                                   \
  __attribute__((noinline)) void row_##SYM(uint64_t Draw, int64_t N,         \
                                           AIMZ_OUT_##KIND *Dst,              \
                                           ParamsOf Of) {                     \
    for (int64_t I = 0; I < N; ++I) {                                         \
      RandomStream S(1, 7, Draw, static_cast<uint64_t>(I), 0);                \
      const Params P = Of(I);                                                 \
      Dst[I] = m::SAMPLE<float>(S, AIMZ_ARGS_##ARITY);                        \
    }                                                                         \
  }
#define AIMZ_SPLIT_SAMPLER(SYM, KIND, ARITY, FIRST, SAMPLE)                   \
  template <class ParamsOf>                                                   \
  __attribute__((noinline)) void row_##SYM(uint64_t Draw, int64_t N,         \
                                           AIMZ_OUT_##KIND *Dst,              \
                                           ParamsOf Of) {                     \
    for (int64_t I = 0; I < N; ++I) {                                         \
      RandomStream S(1, 7, Draw, static_cast<uint64_t>(I), 0);                \
      const Params P = Of(I);                                                 \
      Dst[I] = m::FIRST<float>(S, AIMZ_ARGS_##ARITY);                         \
    }                                                                         \
    for (int64_t I = 0; I < N; ++I)                                           \
      if (m::first_attempt_rejected(Dst[I])) {                                \
        RandomStream S(1, 7, Draw, static_cast<uint64_t>(I), 0);              \
        const Params P = Of(I);                                               \
        Dst[I] = m::SAMPLE<float>(S, AIMZ_ARGS_##ARITY);                      \
      }                                                                       \
  }
#include "aimz/math/Distributions.def"

/// A sampler given invalid parameters returns NaN (or a negative count);
/// timing that would time the error path.
void checkValid(const char *Sym, double V) {
  if (!(V == V) || V < -1e30 || (V < 0 && std::strstr(Sym, "binomial")) ||
      (V < 0 && std::strstr(Sym, "poisson"))) {
    std::fprintf(stderr,
                 "aimz-bench-samplers: the parameters of '%s' are invalid "
                 "(a draw gave %g); fix paramsFor()\n",
                 Sym, V);
    std::exit(1);
  }
}

/// Values per pass: N, or fewer for a sampler slower than 0.2 s per pass.
int64_t valuesFor(double NsPerValue, int64_t N) {
  double Fit = 0.2e9 / std::max(NsPerValue, 1e-3);
  return std::max<int64_t>(1024, std::min<int64_t>(N, int64_t(Fit)));
}

template <class Fn> std::vector<double> timePasses(Fn F) {
  std::vector<double> Passes;
  for (int Pass = 0; Pass < 3; ++Pass) {
    auto T0 = Clock::now();
    F();
    Passes.push_back(std::chrono::duration<double>(Clock::now() - T0).count());
  }
  return Passes;
}

} // namespace

int main(int Argc, char **Argv) {
  int64_t N = Argc > 1 ? std::strtoll(Argv[1], nullptr, 10) : 1 << 20;
  if (N <= 0) {
    std::fprintf(stderr, "usage: aimz-bench-samplers [values > 0]\n");
    return 1;
  }
  std::printf("%lld values per sampler, f32, one thread, best of 3\n",
              static_cast<long long>(N));
  std::printf("%-44s %14s %14s %14s\n", "distribution", "scalar ns/value",
              "row ns/value", "row, varying");
  std::vector<float> F(N);
  std::vector<int32_t> I(N);
  // The row samplers, by symbol: Distributions.def says which exist.
  // ns per value with one set of parameters, and with per-element ones.
  std::map<std::string,
           std::function<std::pair<double, double>(const Params &)>>
      Rows;
#define AIMZ_VECTOR_SAMPLER(SYM, KIND, ARITY, SAMPLE)                         \
  Rows[#SYM] = [&](const Params &P) {                                         \
    auto *Dst = static_cast<AIMZ_OUT_##KIND *>(                               \
        std::is_same_v<AIMZ_OUT_##KIND, float> ? static_cast<void *>(F.data()) \
                                               : static_cast<void *>(I.data())); \
    double Same = nsPerValue(timePasses([&] {                                 \
                               row_##SYM(3, N, Dst,                           \
                                         [&](int64_t) { return P; });         \
                             }),                                              \
                             N);                                              \
    const ParamRows Q(P, N);                                                  \
    double Varying = nsPerValue(timePasses([&] {                              \
                                  row_##SYM(3, N, Dst, [&](int64_t J) {       \
                                    return Params{Q.A[J], Q.B[J], Q.C[J],     \
                                                  Q.D[J], Q.E[J]};            \
                                  });                                         \
                                }),                                           \
                                N);                                           \
    Sink = F[N / 2] + I[N / 2];                                               \
    return std::make_pair(Same, Varying);                                     \
  };
#define AIMZ_OUT_CONTINUOUS float
#define AIMZ_OUT_DISCRETE int32_t
#include "aimz/math/Distributions.def"
#define AIMZ_DISTRIBUTION(SYM, KIND, ARITY, SAMPLE, LOG_PROB)                 \
  {                                                                           \
    Params P = paramsFor(#SYM);                                               \
    checkValid(#SYM, scalar_##SYM(3, 0, P));                                  \
    double Acc = 0;                                                           \
    auto Scalar = [&](int64_t Count) {                                        \
      return timePasses([&] {                                                 \
        for (int64_t J = 0; J < Count; ++J)                                   \
          Acc += scalar_##SYM(3, static_cast<uint64_t>(J), P);                \
      });                                                                     \
    };                                                                        \
    /* Slow samplers get fewer values: about 0.2 s per pass at most. */       \
    int64_t Count = valuesFor(nsPerValue(Scalar(1024), 1024), N);             \
    auto Passes = Scalar(Count);                                              \
    Sink = Acc;                                                               \
    auto Row = Rows.find(#SYM);                                               \
    if (Row == Rows.end()) {                                                  \
      std::printf("%-44s %14.2f %14s %14s\n", #SYM,                          \
                  nsPerValue(Passes, Count), "-", "-");                       \
    } else {                                                                  \
      auto [Same, Varying] = Row->second(P);                                  \
      std::printf("%-44s %14.2f %14.2f %14.2f\n", #SYM,                      \
                  nsPerValue(Passes, Count), Same, Varying);                  \
    }                                                                         \
  }
#include "aimz/math/Distributions.def"
  return 0;
}
