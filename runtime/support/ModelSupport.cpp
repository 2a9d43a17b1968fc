//===- ModelSupport.cpp - Functions every compiled model calls ------------===//
//
// Compiled to LLVM bitcode when aimzc is built and linked into each model
// before optimization, so these small functions inline into the kernels.
// One C symbol per distribution, variant and precision keeps the generated
// calls simple: samplers take (seed, site, draw, obs, elem, a, b, c), log
// densities (x, a, b, c); unused parameters are ignored.
//
//===----------------------------------------------------------------------===//
// The same file builds twice: for the host CPU (with OpenBLAS), and as CUDA
// device code for the PTX kernels (no BLAS; libdevice maths).
#ifdef __CUDACC__
#define AIMZ_MATH_FN __host__ __device__ inline
#define AIMZ_DEVICE __device__
#define AIMZ_SUPPORT extern "C" __device__
#define AIMZ_NOINLINE __noinline__
#else
#define AIMZ_NOINLINE __attribute__((noinline))
#define AIMZ_DEVICE
#define AIMZ_SUPPORT extern "C" __attribute__((visibility("hidden")))
#endif

#include "aimz/abi.h"
#include "aimz/math/Elementary.h"
#include "aimz/math/Math.h"

#include <cstdint>
#ifndef __CUDA_ARCH__
#include <algorithm>
#include <cblas.h>
#include <cstdlib>
#endif

using aimz::math::RandomStream;
namespace m = aimz::math;

// Samplers -----------------------------------------------------------------

// Samplers stay out of line: each is a Philox block plus a transform with
// scalar libm calls, so inlining them would only multiply code size (and
// compile time) without letting the loops vectorize.
#define AIMZ_SAMPLER(NAME, RET, T, SUFFIX, CALL)                              \
  AIMZ_SUPPORT AIMZ_NOINLINE RET aimz_rt_sample_##NAME##_##SUFFIX(            \
      uint64_t seed, uint64_t site, uint64_t draw, uint64_t obs,              \
      uint64_t elem, T a, T b, T c) {                                         \
    (void)a;                                                                  \
    (void)b;                                                                  \
    (void)c;                                                                  \
    RandomStream s(seed, static_cast<uint32_t>(site), draw, obs, elem);       \
    return CALL;                                                              \
  }

#define AIMZ_SAMPLERS(T, SUFFIX)                                              \
  AIMZ_SAMPLER(normal, T, T, SUFFIX, m::normal_sample<T>(s, a, b))            \
  AIMZ_SAMPLER(halfnormal, T, T, SUFFIX, m::half_normal_sample<T>(s, a))      \
  AIMZ_SAMPLER(lognormal, T, T, SUFFIX, m::log_normal_sample<T>(s, a, b))     \
  AIMZ_SAMPLER(exponential, T, T, SUFFIX, m::exponential_sample<T>(s, a))     \
  AIMZ_SAMPLER(gamma, T, T, SUFFIX, m::gamma_sample<T>(s, a, b))              \
  AIMZ_SAMPLER(beta, T, T, SUFFIX, m::beta_sample<T>(s, a, b))                \
  AIMZ_SAMPLER(uniform, T, T, SUFFIX, m::uniform_sample<T>(s, a, b))          \
  AIMZ_SAMPLER(cauchy, T, T, SUFFIX, m::cauchy_sample<T>(s, a, b))            \
  AIMZ_SAMPLER(halfcauchy, T, T, SUFFIX, m::half_cauchy_sample<T>(s, a))      \
  AIMZ_SAMPLER(studentt, T, T, SUFFIX, m::student_t_sample<T>(s, a, b, c))    \
  AIMZ_SAMPLER(bernoulli_probs, int32_t, T, SUFFIX,                           \
               m::bernoulli_sample<T>(s, a))                                  \
  AIMZ_SAMPLER(bernoulli_logits, int32_t, T, SUFFIX,                          \
               m::bernoulli_logits_sample<T>(s, a))                           \
  AIMZ_SAMPLER(binomial_probs, int32_t, T, SUFFIX,                            \
               m::binomial_sample<T>(s, a, b))                                \
  AIMZ_SAMPLER(binomial_logits, int32_t, T, SUFFIX,                           \
               m::binomial_logits_sample<T>(s, a, b))                         \
  AIMZ_SAMPLER(poisson, int32_t, T, SUFFIX, m::poisson_sample<T>(s, a))

AIMZ_SAMPLERS(float, f32)
AIMZ_SAMPLERS(double, f64)

// Log densities --------------------------------------------------------------

#define AIMZ_LOGP(NAME, T, SUFFIX, CALL)                                      \
  AIMZ_SUPPORT T aimz_rt_logp_##NAME##_##SUFFIX(T x, T a, T b, T c) {         \
    (void)a;                                                                  \
    (void)b;                                                                  \
    (void)c;                                                                  \
    return CALL;                                                              \
  }

#define AIMZ_LOGPS(T, SUFFIX)                                                 \
  AIMZ_LOGP(normal, T, SUFFIX, m::normal_log_prob<T>(x, a, b))                \
  AIMZ_LOGP(halfnormal, T, SUFFIX, m::half_normal_log_prob<T>(x, a))          \
  AIMZ_LOGP(lognormal, T, SUFFIX, m::log_normal_log_prob<T>(x, a, b))         \
  AIMZ_LOGP(exponential, T, SUFFIX, m::exponential_log_prob<T>(x, a))         \
  AIMZ_LOGP(gamma, T, SUFFIX, m::gamma_log_prob<T>(x, a, b))                  \
  AIMZ_LOGP(beta, T, SUFFIX, m::beta_log_prob<T>(x, a, b))                    \
  AIMZ_LOGP(uniform, T, SUFFIX, m::uniform_log_prob<T>(x, a, b))              \
  AIMZ_LOGP(cauchy, T, SUFFIX, m::cauchy_log_prob<T>(x, a, b))                \
  AIMZ_LOGP(halfcauchy, T, SUFFIX, m::half_cauchy_log_prob<T>(x, a))          \
  AIMZ_LOGP(studentt, T, SUFFIX, m::student_t_log_prob<T>(x, a, b, c))        \
  AIMZ_LOGP(bernoulli_probs, T, SUFFIX, (m::bernoulli_log_prob<T, T>(x, a)))  \
  AIMZ_LOGP(bernoulli_logits, T, SUFFIX,                                      \
            (m::bernoulli_logits_log_prob<T, T>(x, a)))                       \
  AIMZ_LOGP(binomial_probs, T, SUFFIX,                                        \
            (m::binomial_log_prob<T, T>(x, a, b)))                            \
  AIMZ_LOGP(binomial_logits, T, SUFFIX,                                       \
            (m::binomial_logits_log_prob<T, T>(x, a, b)))                     \
  AIMZ_LOGP(poisson, T, SUFFIX, (m::poisson_log_prob<T, T>(x, a)))

AIMZ_LOGPS(float, f32)
AIMZ_LOGPS(double, f64)

// Elementary functions ------------------------------------------------------
//
// The generated loops call these (not libm) so that they vectorize and give
// the same bits in every lane, remainder loop and device.

#define AIMZ_ELEMENTARY(NAME)                                                 \
  AIMZ_SUPPORT float aimz_rt_##NAME##_f32(float X) {                          \
    return aimz::math::elementary::NAME(X);                                   \
  }                                                                           \
  AIMZ_SUPPORT double aimz_rt_##NAME##_f64(double X) {                        \
    return aimz::math::elementary::NAME(X);                                   \
  }

AIMZ_ELEMENTARY(exp)
AIMZ_ELEMENTARY(log)
AIMZ_ELEMENTARY(log1p)
AIMZ_ELEMENTARY(tanh)

// Matrix products ------------------------------------------------------------
//
// C[b, m, n] = sum_k A[b, m, k] * B[b, k, n] with arbitrary element strides.
// `Origin` is the absolute index of batch element 0 (the observation, when
// the batch runs along the observation axis), used to place rows in BLAS
// calls the same way whatever the split.

namespace {

#ifndef __CUDA_ARCH__
template <class T>
void gemmBlas(int64_t Rows, int64_t N, int64_t K, const T *A, int64_t RsA,
              int64_t SAk, const T *B, int64_t SBk, int64_t SBn, T *C,
              int64_t RsC);

template <>
void gemmBlas<float>(int64_t Rows, int64_t N, int64_t K, const float *A,
                     int64_t RsA, int64_t SAk, const float *B, int64_t SBk,
                     int64_t SBn, float *C, int64_t RsC) {
  bool TA = SAk != 1, TB = SBn != 1;
  cblas_sgemm(CblasRowMajor, TA ? CblasTrans : CblasNoTrans,
              TB ? CblasTrans : CblasNoTrans, Rows, N, K, 1.0f, A,
              TA ? SAk : RsA, B, TB ? SBn : SBk, 0.0f, C, RsC);
}

template <>
void gemmBlas<double>(int64_t Rows, int64_t N, int64_t K, const double *A,
                      int64_t RsA, int64_t SAk, const double *B, int64_t SBk,
                      int64_t SBn, double *C, int64_t RsC) {
  bool TA = SAk != 1, TB = SBn != 1;
  cblas_dgemm(CblasRowMajor, TA ? CblasTrans : CblasNoTrans,
              TB ? CblasTrans : CblasNoTrans, Rows, N, K, 1.0, A,
              TA ? SAk : RsA, B, TB ? SBn : SBk, 0.0, C, RsC);
}

/// BLAS takes a matrix when one of its strides is 1 and the other covers
/// the contiguous extent.
bool blasLayout(int64_t Outer, int64_t Inner, int64_t SOuter, int64_t SInner) {
  return (SInner == 1 && SOuter >= std::max<int64_t>(1, Inner)) ||
         (SOuter == 1 && SInner >= std::max<int64_t>(1, Outer));
}

/// Rows per BLAS call. OpenBLAS rounds a row differently depending on where
/// it sits in the call (its micro-kernels treat rows unevenly) and on how
/// many rows there are, so every call has exactly GemmRows rows and a batch
/// element always sits at the same place: rows are grouped by their
/// absolute index (the observation, when the batch is the observation axis)
/// in aligned groups, short groups padded through per-thread buffers. A
/// row's value then never depends on how the work was split.
constexpr int64_t GemmRows = 256;

template <class T>
void gemmAligned(int64_t Batch, int64_t Origin, int64_t M, int64_t N,
                 int64_t K, const T *A, int64_t SAb, int64_t SAm, int64_t SAk,
                 const T *B, int64_t SBk, int64_t SBn, T *C, int64_t SCb,
                 int64_t SCm, int64_t SCn) {
  // Per-thread buffers, grown once (plain pointers: model.so does not
  // depend on the C++ runtime; a thread's buffers live as long as it does).
  thread_local T *PadA = nullptr, *PadC = nullptr;
  thread_local int64_t CapA = 0, CapC = 0;
  const int64_t Group = std::max<int64_t>(1, GemmRows / M); // batch elements
  const int64_t Rows = Group * M;
  // A whole group can go straight from the caller's memory when its rows
  // are evenly spaced with unit inner strides.
  const bool Direct = SAk == 1 && SCn == 1 && (M == 1 || (SAb == M * SAm &&
                                                          SCb == M * SCm));
  const int64_t RsA = M == 1 ? SAb : SAm, RsC = M == 1 ? SCb : SCm;
  int64_t First = Origin - ((Origin % Group) + Group) % Group;
  for (int64_t G0 = First; G0 < Origin + Batch; G0 += Group) {
    int64_t Lo = std::max(G0, Origin), Hi = std::min(G0 + Group, Origin + Batch);
    const T *Ag = A + (Lo - Origin) * SAb;
    T *Cg = C + (Lo - Origin) * SCb;
    if (Direct && Lo == G0 && Hi == G0 + Group && RsA >= K && RsC >= N) {
      gemmBlas<T>(Rows, N, K, Ag, RsA, 1, B, SBk, SBn, Cg, RsC);
      continue;
    }
    if (CapA < Rows * K) {
      std::free(PadA);
      PadA = static_cast<T *>(std::calloc(Rows * K, sizeof(T)));
      CapA = Rows * K;
    }
    if (CapC < Rows * N) {
      std::free(PadC);
      PadC = static_cast<T *>(std::malloc(Rows * N * sizeof(T)));
      CapC = Rows * N;
    }
    int64_t Skip = (Lo - G0) * M; // rows of the group before this batch
    for (int64_t E = 0; E < Hi - Lo; ++E)
      for (int64_t I = 0; I < M; ++I)
        for (int64_t Kk = 0; Kk < K; ++Kk)
          PadA[(Skip + E * M + I) * K + Kk] = Ag[E * SAb + I * SAm + Kk * SAk];
    gemmBlas<T>(Rows, N, K, PadA, K, 1, B, SBk, SBn, PadC, N);
    for (int64_t E = 0; E < Hi - Lo; ++E)
      for (int64_t I = 0; I < M; ++I)
        for (int64_t Nn = 0; Nn < N; ++Nn)
          Cg[E * SCb + I * SCm + Nn * SCn] = PadC[(Skip + E * M + I) * N + Nn];
  }
}
#endif

template <class T>
AIMZ_DEVICE T dot(int64_t K, const T *A, int64_t SAk, const T *B, int64_t SBk) {
  // Eight partial sums in a fixed order: vectorizes, and is the same for
  // every row whatever the batch.
  T Acc[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  int64_t K8 = K - K % 8;
  if (SAk == 1 && SBk == 1) {
    for (int64_t k = 0; k < K8; k += 8)
      for (int L = 0; L < 8; ++L)
        Acc[L] += A[k + L] * B[k + L];
  } else {
    for (int64_t k = 0; k < K8; k += 8)
      for (int L = 0; L < 8; ++L)
        Acc[L] += A[(k + L) * SAk] * B[(k + L) * SBk];
  }
  for (int64_t k = K8; k < K; ++k)
    Acc[k - K8] += A[k * SAk] * B[k * SBk];
  return ((Acc[0] + Acc[1]) + (Acc[2] + Acc[3])) +
         ((Acc[4] + Acc[5]) + (Acc[6] + Acc[7]));
}

template <class T>
AIMZ_DEVICE void matmul(int64_t Batch, int64_t Origin, int64_t M, int64_t N,
                        int64_t K, const T *A, int64_t SAb, int64_t SAm,
                        int64_t SAk, const T *B, int64_t SBb, int64_t SBk,
                        int64_t SBn, T *C, int64_t SCb, int64_t SCm,
                        int64_t SCn) {
#ifndef __CUDA_ARCH__
  // Products with several columns go to BLAS, rows aligned on Origin when
  // the right side is shared by the whole batch, else one element at a time
  // (each call then has the same rows, whatever the split).
  if (N > 1 && K > 0 && blasLayout(K, N, SBk, SBn)) {
    if (SBb == 0) {
      gemmAligned<T>(Batch, Origin, M, N, K, A, SAb, SAm, SAk, B, SBk, SBn, C,
                     SCb, SCm, SCn);
      return;
    }
    for (int64_t b = 0; b < Batch; ++b)
      gemmAligned<T>(1, 0, M, N, K, A + b * SAb, 0, SAm, SAk, B + b * SBb,
                     SBk, SBn, C + b * SCb, 0, SCm, SCn);
    return;
  }
#endif
  // One column (or a dot): a fixed-order loop per output element.
  for (int64_t b = 0; b < Batch; ++b)
    for (int64_t i = 0; i < M; ++i)
      for (int64_t n = 0; n < N; ++n)
        C[b * SCb + i * SCm + n * SCn] =
            dot<T>(K, A + b * SAb + i * SAm, SAk, B + b * SBb + n * SBn, SBk);
}

template <class T>
AIMZ_DEVICE void matmulInt(int64_t Batch, int64_t Origin, int64_t M, int64_t N, int64_t K, const T *A,
               int64_t SAb, int64_t SAm, int64_t SAk, const T *B, int64_t SBb,
               int64_t SBk, int64_t SBn, T *C, int64_t SCb, int64_t SCm,
               int64_t SCn) {
  for (int64_t b = 0; b < Batch; ++b)
    for (int64_t i = 0; i < M; ++i)
      for (int64_t n = 0; n < N; ++n) {
        T Acc = 0;
        for (int64_t k = 0; k < K; ++k)
          Acc += A[b * SAb + i * SAm + k * SAk] * B[b * SBb + k * SBk + n * SBn];
        C[b * SCb + i * SCm + n * SCn] = Acc;
      }
}

} // namespace

#define AIMZ_MATMUL(SUFFIX, T, IMPL)                                          \
  AIMZ_SUPPORT void aimz_rt_matmul_##SUFFIX(                                  \
      int64_t Batch, int64_t Origin, int64_t M, int64_t N, int64_t K,         \
      const T *A, int64_t SAb, int64_t SAm, int64_t SAk, const T *B,          \
      int64_t SBb, int64_t SBk, int64_t SBn, T *C, int64_t SCb, int64_t SCm,  \
      int64_t SCn) {                                                          \
    IMPL<T>(Batch, Origin, M, N, K, A, SAb, SAm, SAk, B, SBb, SBk, SBn, C,    \
            SCb, SCm, SCn);                                                   \
  }

AIMZ_MATMUL(f32, float, matmul)
AIMZ_MATMUL(f64, double, matmul)
AIMZ_MATMUL(i32, int32_t, matmulInt)
AIMZ_MATMUL(i64, int64_t, matmulInt)

#ifdef __CUDA_ARCH__
// GPU kernels ----------------------------------------------------------------
//
// One thread per (draw, observation block) of the call's rectangle, each
// running the generated entry point on its own sub-rectangle with its own
// slice of scratch (`scratch_bytes` per thread). Results land where the
// host-side kernel would put them: the views are absolute, so any split
// gives the same bytes.

extern "C" __device__ int32_t aimz_predict(aimz_call *Call);
extern "C" __device__ int32_t aimz_log_likelihood(aimz_call *Call);
extern "C" __device__ int32_t aimz_prior_predictive(aimz_call *Call);

template <int32_t (*Entry)(aimz_call *)>
__device__ void runThread(const aimz_call *Call, int32_t *Status) {
  int64_t Tid = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  int64_t Block = Call->obs_block > 0 ? Call->obs_block : 256;
  int64_t Blocks = (Call->obs_end - Call->obs_begin + Block - 1) / Block;
  int64_t Threads = (Call->draw_end - Call->draw_begin) * Blocks;
  if (Tid >= Threads)
    return;
  aimz_call Local = *Call;
  Local.draw_begin = Call->draw_begin + Tid / Blocks;
  Local.draw_end = Local.draw_begin + 1;
  Local.obs_begin = Call->obs_begin + (Tid % Blocks) * Block;
  Local.obs_end = Local.obs_begin + Block < Call->obs_end
                      ? Local.obs_begin + Block
                      : Call->obs_end;
  Local.scratch = static_cast<uint8_t *>(Call->scratch) + Tid * Call->scratch_bytes;
  Status[Tid] = Entry(&Local);
}

extern "C" __global__ void aimz_predict_kernel(const aimz_call *Call,
                                               int32_t *Status) {
  runThread<aimz_predict>(Call, Status);
}
extern "C" __global__ void aimz_log_likelihood_kernel(const aimz_call *Call,
                                                      int32_t *Status) {
  runThread<aimz_log_likelihood>(Call, Status);
}
extern "C" __global__ void aimz_prior_predictive_kernel(const aimz_call *Call,
                                                        int32_t *Status) {
  runThread<aimz_prior_predictive>(Call, Status);
}
#endif
