//===- ModelSupport.cpp - Functions every compiled model calls ------------===//
//
// Compiled to LLVM bitcode when aimzc is built and linked into each model
// before optimization, so these small functions inline into the kernels.
// One C symbol per distribution, variant and precision keeps the generated
// calls simple: samplers take (seed, site, draw, obs, elem, a, b, c, d, e), log
// densities (x, a, b, c, d, e); unused parameters are ignored.
//
//===----------------------------------------------------------------------===//
// The same file builds twice: for the host CPU, and as CUDA device code for
// the PTX kernels (libdevice maths).
#ifdef __CUDACC__
#define AIMZ_MATH_FN __host__ __device__ inline
#define AIMZ_DEVICE __device__
#define AIMZ_SUPPORT extern "C" __device__
#define AIMZ_NOINLINE __noinline__
#define AIMZ_ALWAYS_INLINE __forceinline__
#else
#define AIMZ_NOINLINE __attribute__((noinline))
#define AIMZ_ALWAYS_INLINE inline __attribute__((always_inline))
#define AIMZ_DEVICE
#define AIMZ_SUPPORT extern "C" __attribute__((visibility("hidden")))
#endif

#include "aimz/abi.h"
#include "aimz/math/Elementary.h"
#include "aimz/math/SpecialFunctions.h"
#include "aimz/math/Math.h"
#include "aimz/math/Sort.h"

#include <cstdint>
#ifndef __CUDA_ARCH__
#include "aimz/math/BlockedCholesky.h"
#include "aimz/math/Gemm.h"
#endif

using aimz::math::RandomStream;
namespace m = aimz::math;

// Samplers -----------------------------------------------------------------

// Samplers stay out of line: most are rejection loops that would only
// multiply code size if inlined. The straight-line ones also have row
// functions (below) whose loops vectorize.
#define AIMZ_SAMPLER(NAME, RET, T, SUFFIX, CALL)                              \
  AIMZ_SUPPORT AIMZ_NOINLINE RET aimz_rt_sample_##NAME##_##SUFFIX(            \
      uint64_t seed, uint64_t site, uint64_t draw, uint64_t obs,              \
      uint64_t elem, T a, T b, T c, T d, T e) {                               \
    (void)a, (void)b, (void)c, (void)d, (void)e;                              \
    RandomStream s(seed, static_cast<uint32_t>(site), draw, obs, elem);       \
    return CALL;                                                              \
  }

// Log densities --------------------------------------------------------------

// aimz_rt_<FAMILY>_<NAME>_<SUFFIX>(x, a, ..., e): a log density, log CDF
// or log survival function at x (unused parameters ignored).
#define AIMZ_SCALAR_FN(FAMILY, NAME, T, SUFFIX, CALL)                         \
  AIMZ_SUPPORT T aimz_rt_##FAMILY##_##NAME##_##SUFFIX(T x, T a, T b, T c,     \
                                                      T d, T e) {             \
    (void)a, (void)b, (void)c, (void)d, (void)e;                              \
    return CALL;                                                              \
  }
#define AIMZ_LOGP(NAME, T, SUFFIX, CALL)                                      \
  AIMZ_SCALAR_FN(logp, NAME, T, SUFFIX, CALL)

// Both, for every row of the distribution list, in f32 and f64.
#define AIMZ_ARGS_0 m::NoParam{}
#define AIMZ_ARGS_1 a
#define AIMZ_ARGS_2 a, b
#define AIMZ_ARGS_3 a, b, c
#define AIMZ_ARGS_4 a, b, c, d
#define AIMZ_ARGS_5 a, b, c, d, e
#define AIMZ_RET_CONTINUOUS(T) T
#define AIMZ_RET_DISCRETE(T) int32_t
#define AIMZ_LOGP_TARGS_CONTINUOUS(T) T
#define AIMZ_LOGP_TARGS_DISCRETE(T) T, T
#define AIMZ_DISTRIBUTION(SYM, KIND, ARITY, SAMPLE, LOG_PROB)                 \
  AIMZ_SAMPLER(SYM, AIMZ_RET_##KIND(float), float, f32,                       \
               m::SAMPLE<float>(s, AIMZ_ARGS_##ARITY))                        \
  AIMZ_SAMPLER(SYM, AIMZ_RET_##KIND(double), double, f64,                     \
               m::SAMPLE<double>(s, AIMZ_ARGS_##ARITY))                       \
  AIMZ_LOGP(SYM, float, f32,                                                  \
            (m::LOG_PROB<AIMZ_LOGP_TARGS_##KIND(float)>(x, AIMZ_ARGS_##ARITY))) \
  AIMZ_LOGP(SYM, double, f64,                                                 \
            (m::LOG_PROB<AIMZ_LOGP_TARGS_##KIND(double)>(x, AIMZ_ARGS_##ARITY)))
#include "aimz/math/Distributions.def"

// log P(X <= x) and log P(X > x), as the log densities are called.
#define AIMZ_CDF(SYM, KIND, ARITY, CDF)                                       \
  AIMZ_SCALAR_FN(lcdf, SYM, float, f32,                                       \
                 m::log_cdf_of<float>(m::CDF<float>(AIMZ_ARGS_##ARITY), x))   \
  AIMZ_SCALAR_FN(lcdf, SYM, double, f64,                                      \
                 m::log_cdf_of<double>(m::CDF<double>(AIMZ_ARGS_##ARITY), x)) \
  AIMZ_SCALAR_FN(lccdf, SYM, float, f32,                                      \
                 m::log_ccdf_of<float>(m::CDF<float>(AIMZ_ARGS_##ARITY), x))  \
  AIMZ_SCALAR_FN(lccdf, SYM, double, f64,                                     \
                 m::log_ccdf_of<double>(m::CDF<double>(AIMZ_ARGS_##ARITY), x))
#include "aimz/math/CdfDistributions.def"

// Row samplers ----------------------------------------------------------------
//
// out[i * os] for i < n: element i draws from stream (seed, site, draw,
// obs0 + i * obs_step, elem0 + i * elem_step) with parameters a[i * as],
// b[i * bs], ..., e[i * es] (stride 0 repeats one value; unused ones are
// null). The same values as n calls of the scalar sampler; the loop
// vectorizes when the model is optimized for its CPU (the support bitcode
// itself is compiled without vectorizing).

#define AIMZ_ROW_ARGS_1 a[i * as]
#define AIMZ_ROW_ARGS_2 a[i * as], b[i * bs]
#define AIMZ_ROW_ARGS_3 a[i * as], b[i * bs], c[i * cs]
#define AIMZ_ROW_ARGS_4 a[i * as], b[i * bs], c[i * cs], d[i * ds]
#define AIMZ_ROW_ARGS_5 a[i * as], b[i * bs], c[i * cs], d[i * ds], e[i * es]
// The row functions' parameters, the loop's signature (row_<name>_<sfx>,
// inlined into both entries below), and element i's stream.
#define AIMZ_ROW_PARAMS(RET, T)                                               \
  uint64_t seed, uint64_t site, uint64_t draw, uint64_t obs0,                 \
      uint64_t obs_step, uint64_t elem0, uint64_t elem_step, int64_t n,       \
      RET *out, int64_t os, const T *a, int64_t as, const T *b, int64_t bs,   \
      const T *c, int64_t cs, const T *d, int64_t ds, const T *e, int64_t es
#define AIMZ_ROW_SIGNATURE(NAME, SUFFIX, RET, T)                              \
  static AIMZ_ALWAYS_INLINE AIMZ_DEVICE void row_##NAME##_##SUFFIX(          \
      AIMZ_ROW_PARAMS(RET, T))
#define AIMZ_ROW_STREAM(s)                                                    \
  RandomStream s(seed, static_cast<uint32_t>(site), draw,                     \
                 obs0 + i * obs_step, elem0 + i * elem_step)
#define AIMZ_ROW_SAMPLER(NAME, RET, ARITY, SAMPLE, T, SUFFIX)                 \
  AIMZ_ROW_SIGNATURE(NAME, SUFFIX, RET, T) {                                  \
    (void)b, (void)bs, (void)c, (void)cs, (void)d, (void)ds, (void)e, (void)es;                                     \
    for (int64_t i = 0; i < n; ++i) {                                         \
      AIMZ_ROW_STREAM(s);                                                     \
      out[i * os] = m::SAMPLE<T>(s, AIMZ_ROW_ARGS_##ARITY);                   \
    }                                                                         \
  }
#define AIMZ_VECTOR_SAMPLER(NAME, KIND, ARITY, SAMPLE)                        \
  AIMZ_ROW_SAMPLER(NAME, AIMZ_RET_##KIND(float), ARITY, SAMPLE, float, f32)   \
  AIMZ_ROW_SAMPLER(NAME, AIMZ_RET_##KIND(double), ARITY, SAMPLE, double, f64)
// Rejection samplers: the row's first attempts in vector lanes, then the
// full sampler (from the stream's start: the same words, the same bits)
// for the few elements whose first attempt was rejected (NaN, or
// kUnfinishedCount for counts). Invalid parameters give NaN (or -1).
#define AIMZ_SPLIT_ROW_SAMPLER(NAME, RET, ARITY, FIRST, SAMPLE, T, SUFFIX)    \
  AIMZ_ROW_SIGNATURE(NAME, SUFFIX, RET, T) {                                  \
    (void)b, (void)bs, (void)c, (void)cs, (void)d, (void)ds, (void)e, (void)es;                                     \
    for (int64_t i = 0; i < n; ++i) {                                         \
      AIMZ_ROW_STREAM(s);                                                     \
      out[i * os] = m::FIRST<T>(s, AIMZ_ROW_ARGS_##ARITY);                    \
    }                                                                         \
    for (int64_t i = 0; i < n; ++i)                                           \
      if (m::first_attempt_rejected(out[i * os])) {                           \
        AIMZ_ROW_STREAM(s);                                                   \
        out[i * os] = m::SAMPLE<T>(s, AIMZ_ROW_ARGS_##ARITY);                 \
      }                                                                       \
  }
#define AIMZ_SPLIT_SAMPLER(NAME, KIND, ARITY, FIRST, SAMPLE)                  \
  AIMZ_SPLIT_ROW_SAMPLER(NAME, AIMZ_RET_##KIND(float), ARITY, FIRST, SAMPLE,  \
                         float, f32)                                          \
  AIMZ_SPLIT_ROW_SAMPLER(NAME, AIMZ_RET_##KIND(double), ARITY, FIRST, SAMPLE, \
                         double, f64)
#include "aimz/math/Distributions.def"

// The row functions: aimz_rt_sample_row_*, which inlines into the model
// (rows of observations) and specializes to its strides, and
// aimz_rt_sample_rows_*, out of line and precompiled, for the rows of a
// site without an observation axis: drawn once per draw, where a row
// function inlined at every site only multiplied the code (and the compile
// time) of models with many vector latents. Its usual row, a contiguous
// buffer with every parameter one number (Normal(0, 1)[k]), is a copy of
// the loop with those strides constant, so that it vectorizes as the
// inlined one does; any other layout takes the general loop.
#define AIMZ_ROW_ENTRIES(NAME, RET, T, SUFFIX)                                \
  AIMZ_SUPPORT void aimz_rt_sample_row_##NAME##_##SUFFIX(                     \
      AIMZ_ROW_PARAMS(RET, T)) {                                              \
    row_##NAME##_##SUFFIX(seed, site, draw, obs0, obs_step, elem0, elem_step, \
                          n, out, os, a, as, b, bs, c, cs, d, ds, e, es);     \
  }                                                                           \
  AIMZ_SUPPORT AIMZ_NOINLINE void aimz_rt_sample_rows_##NAME##_##SUFFIX(      \
      AIMZ_ROW_PARAMS(RET, T)) {                                              \
    if (os == 1 && obs_step == 0 && elem_step == 1 &&                        \
        (as | bs | cs | ds | es) == 0)                                        \
      row_##NAME##_##SUFFIX(seed, site, draw, obs0, 0, elem0, 1, n, out, 1,   \
                            a, 0, b, 0, c, 0, d, 0, e, 0);                    \
    else                                                                      \
      row_##NAME##_##SUFFIX(seed, site, draw, obs0, obs_step, elem0,          \
                            elem_step, n, out, os, a, as, b, bs, c, cs, d,    \
                            ds, e, es);                                       \
  }
#define AIMZ_VECTOR_SAMPLER(NAME, KIND, ARITY, SAMPLE)                        \
  AIMZ_ROW_ENTRIES(NAME, AIMZ_RET_##KIND(float), float, f32)                  \
  AIMZ_ROW_ENTRIES(NAME, AIMZ_RET_##KIND(double), double, f64)
#include "aimz/math/Distributions.def"
#undef AIMZ_ROW_ENTRIES

// Event distributions ---------------------------------------------------------
//
// Parameters and values are strided views (EventDistributions.def has the
// calling convention): six parameter slots, of which a distribution reads
// its first ARITY.

#define AIMZ_EV_PARAM(T, N) const T *N, int64_t N##0, int64_t N##1
#define AIMZ_EV_PARAMS(T)                                                     \
  AIMZ_EV_PARAM(T, pa), AIMZ_EV_PARAM(T, pb), AIMZ_EV_PARAM(T, pc),           \
      AIMZ_EV_PARAM(T, pd), AIMZ_EV_PARAM(T, pe), AIMZ_EV_PARAM(T, pf)
#define AIMZ_EV_UNUSED                                                        \
  (void)pa, (void)pa0, (void)pa1, (void)pb, (void)pb0, (void)pb1, (void)pc,   \
      (void)pc0, (void)pc1, (void)pd, (void)pd0, (void)pd1, (void)pe,         \
      (void)pe0, (void)pe1, (void)pf, (void)pf0, (void)pf1
#define AIMZ_EV_VIEW(T, N) m::EventView<const T>{N, N##0, N##1}
#define AIMZ_EV_ARGS_1(T) AIMZ_EV_VIEW(T, pa)
#define AIMZ_EV_ARGS_2(T) AIMZ_EV_VIEW(T, pa), AIMZ_EV_VIEW(T, pb)
#define AIMZ_EV_ARGS_3(T)                                                     \
  AIMZ_EV_VIEW(T, pa), AIMZ_EV_VIEW(T, pb), AIMZ_EV_VIEW(T, pc)
#define AIMZ_EV_ARGS_4(T) AIMZ_EV_ARGS_3(T), AIMZ_EV_VIEW(T, pd)
#define AIMZ_EV_ARGS_5(T) AIMZ_EV_ARGS_4(T), AIMZ_EV_VIEW(T, pe)
#define AIMZ_EV_ARGS_6(T) AIMZ_EV_ARGS_5(T), AIMZ_EV_VIEW(T, pf)
// The value a log density scores: a number (VALUE_RANK 0) or a view.
#define AIMZ_EV_X_0(T) x[0]
#define AIMZ_EV_X_1(T) m::EventView<T>{x, x0, x1}
#define AIMZ_EV_X_2(T) m::EventView<T>{x, x0, x1}
#define AIMZ_EV_TARGS_0(T) T, T
#define AIMZ_EV_TARGS_1(T) T
#define AIMZ_EV_TARGS_2(T) T

#define AIMZ_EV_SAMPLER(NAME, T, SUFFIX, BODY)                                \
  AIMZ_SUPPORT AIMZ_NOINLINE void aimz_rt_vsample_##NAME##_##SUFFIX(          \
      uint64_t seed, uint64_t site, uint64_t draw, uint64_t obs,              \
      uint64_t elem, int64_t K, void *out, int64_t o0, int64_t o1,            \
      AIMZ_EV_PARAMS(T)) {                                                    \
    AIMZ_EV_UNUSED;                                                           \
    RandomStream s(seed, static_cast<uint32_t>(site), draw, obs, elem);       \
    BODY;                                                                     \
  }
#define AIMZ_EV_LOGP(NAME, T, SUFFIX, BODY)                                   \
  AIMZ_SUPPORT T aimz_rt_vlogp_##NAME##_##SUFFIX(                             \
      T *x, int64_t x0, int64_t x1, int64_t K, AIMZ_EV_PARAMS(T)) {           \
    AIMZ_EV_UNUSED;                                                           \
    (void)x0, (void)x1;                                                       \
    return BODY;                                                              \
  }
#define AIMZ_EV_OUT(KIND, T)                                                  \
  m::EventView<AIMZ_RET_##KIND(T)>{static_cast<AIMZ_RET_##KIND(T) *>(out), o0, \
                                   o1}

#define AIMZ_EVENT_BOTH(SYM, KIND, ARITY, RANK, SAMPLE, LOG_PROB, T, SUFFIX)  \
  AIMZ_EV_SAMPLER(SYM, T, SUFFIX,                                             \
                  m::SAMPLE<T>(s, K, AIMZ_EV_OUT(KIND, T),                    \
                               AIMZ_EV_ARGS_##ARITY(T)))                      \
  AIMZ_EV_LOGP(SYM, T, SUFFIX,                                                \
               (m::LOG_PROB<AIMZ_EV_TARGS_##RANK(T)>(                         \
                   AIMZ_EV_X_##RANK(T), K, AIMZ_EV_ARGS_##ARITY(T))))
#define AIMZ_EVENT_DISTRIBUTION(SYM, KIND, ARITY, RANK, SAMPLE, LOG_PROB)     \
  AIMZ_EVENT_BOTH(SYM, KIND, ARITY, RANK, SAMPLE, LOG_PROB, float, f32)       \
  AIMZ_EVENT_BOTH(SYM, KIND, ARITY, RANK, SAMPLE, LOG_PROB, double, f64)
// A matrix value [R, K] with rows of their own: R follows K.
#define AIMZ_ROWS_EVENT_BOTH(SYM, KIND, ARITY, SAMPLE, LOG_PROB, T, SUFFIX)   \
  AIMZ_SUPPORT AIMZ_NOINLINE void aimz_rt_vsample_##SYM##_##SUFFIX(           \
      uint64_t seed, uint64_t site, uint64_t draw, uint64_t obs,              \
      uint64_t elem, int64_t K, int64_t R, void *out, int64_t o0, int64_t o1, \
      AIMZ_EV_PARAMS(T)) {                                                    \
    AIMZ_EV_UNUSED;                                                           \
    RandomStream s(seed, static_cast<uint32_t>(site), draw, obs, elem);       \
    m::SAMPLE<T>(s, K, R, AIMZ_EV_OUT(KIND, T), AIMZ_EV_ARGS_##ARITY(T));     \
  }                                                                           \
  AIMZ_SUPPORT T aimz_rt_vlogp_##SYM##_##SUFFIX(T *x, int64_t x0, int64_t x1, \
                                                int64_t K, int64_t R,         \
                                                AIMZ_EV_PARAMS(T)) {          \
    AIMZ_EV_UNUSED;                                                           \
    return m::LOG_PROB<T>(m::EventView<T>{x, x0, x1}, K, R,                   \
                          AIMZ_EV_ARGS_##ARITY(T));                           \
  }
#define AIMZ_ROWS_EVENT_DISTRIBUTION(SYM, KIND, ARITY, SAMPLE, LOG_PROB)      \
  AIMZ_ROWS_EVENT_BOTH(SYM, KIND, ARITY, SAMPLE, LOG_PROB, float, f32)        \
  AIMZ_ROWS_EVENT_BOTH(SYM, KIND, ARITY, SAMPLE, LOG_PROB, double, f64)
#include "aimz/math/EventDistributions.def"

// Composites over every scalar distribution: MixtureSameFamily (slot a the
// mixing logits, slots b.. the component parameters along the component
// axis) and an ordered vector (TransformedDistribution with
// OrderedTransform; continuous bases, slots a.. along the vector).
#define AIMZ_MIX_ARGS_0 m::NoParam{}
#define AIMZ_MIX_ARGS_1 pb[k * pb1]
#define AIMZ_MIX_ARGS_2 pb[k * pb1], pc[k * pc1]
#define AIMZ_MIX_ARGS_3 pb[k * pb1], pc[k * pc1], pd[k * pd1]
#define AIMZ_MIX_ARGS_4 pb[k * pb1], pc[k * pc1], pd[k * pd1], pe[k * pe1]
#define AIMZ_MIX_ARGS_5                                                       \
  pb[k * pb1], pc[k * pc1], pd[k * pd1], pe[k * pe1], pf[k * pf1]
#define AIMZ_ORD_ARGS_0 m::NoParam{}
#define AIMZ_ORD_ARGS_1 pa[k * pa1]
#define AIMZ_ORD_ARGS_2 pa[k * pa1], pb[k * pb1]
#define AIMZ_ORD_ARGS_3 pa[k * pa1], pb[k * pb1], pc[k * pc1]
#define AIMZ_ORD_ARGS_4 pa[k * pa1], pb[k * pb1], pc[k * pc1], pd[k * pd1]
#define AIMZ_ORD_ARGS_5                                                       \
  pa[k * pa1], pb[k * pb1], pc[k * pc1], pd[k * pd1], pe[k * pe1]

#define AIMZ_MIXTURE(SYM, KIND, ARITY, SAMPLE, LOG_PROB, T, SUFFIX)           \
  AIMZ_EV_SAMPLER(mixture_##SYM, T, SUFFIX,                                   \
                  m::mixture_sample<T>(s, K, AIMZ_EV_OUT(KIND, T),            \
                                       AIMZ_EV_VIEW(T, pa),                   \
                                       [&](RandomStream &s2, int64_t k) {     \
                                         return m::SAMPLE<T>(                 \
                                             s2, AIMZ_MIX_ARGS_##ARITY);      \
                                       }))                                    \
  AIMZ_EV_LOGP(mixture_##SYM, T, SUFFIX,                                      \
               m::mixture_log_prob<T>(K, AIMZ_EV_VIEW(T, pa), [&](int64_t k) { \
                 return m::LOG_PROB<AIMZ_LOGP_TARGS_##KIND(T)>(                \
                     x[0], AIMZ_MIX_ARGS_##ARITY);                            \
               }))
#define AIMZ_ORDERED_DISCRETE(SYM, ARITY, SAMPLE, T, SUFFIX)
#define AIMZ_ORDERED_CONTINUOUS(SYM, ARITY, SAMPLE, T, SUFFIX)                \
  AIMZ_EV_SAMPLER(ordered_##SYM, T, SUFFIX,                                   \
                  m::ordered_sample<T>(s, K, m::EventView<T>{static_cast<T *>(out), o0, o1}, \
                                       [&](RandomStream &s2, int64_t k) {     \
                                         return m::SAMPLE<T>(                 \
                                             s2, AIMZ_ORD_ARGS_##ARITY);      \
                                       }))
#define AIMZ_DISTRIBUTION(SYM, KIND, ARITY, SAMPLE, LOG_PROB)                 \
  AIMZ_MIXTURE(SYM, KIND, ARITY, SAMPLE, LOG_PROB, float, f32)                \
  AIMZ_MIXTURE(SYM, KIND, ARITY, SAMPLE, LOG_PROB, double, f64)               \
  AIMZ_ORDERED_##KIND(SYM, ARITY, SAMPLE, float, f32)                         \
  AIMZ_ORDERED_##KIND(SYM, ARITY, SAMPLE, double, f64)
#include "aimz/math/Distributions.def"

#ifndef __CUDA_ARCH__
/// The model CPU's widest SIMD vector in bytes (64 with AVX-512, 32 with
/// AVX2, else 16): aimzc defines it as a constant before optimizing the
/// model, so only the matching register tile's code remains.
extern "C" const int32_t aimz_rt_vector_bytes;

namespace {
/// Fn(S{}) with S the register tile that fits the model's CPU (the GEMM's
/// and the blocked Cholesky's).
template <class F> void withTargetTile(F &&Fn) {
  namespace g = aimz::math::gemm;
  if (aimz_rt_vector_bytes >= 64)
    Fn(g::Avx512Tile{});
  else if (aimz_rt_vector_bytes == 32)
    Fn(g::Avx2Tile{});
  else
    Fn(g::SseTile{});
}
} // namespace
#endif

namespace {
/// The Cholesky factor: blocked on the CPU from a few dozen rows (the same
/// bits as the unblocked loop, BlockedCholesky.h), else the loop itself.
template <class T>
AIMZ_DEVICE void choleskyFactor(int64_t K, m::EventView<const T> a,
                                m::EventView<T> l) {
#ifndef __CUDA_ARCH__
  if (K > m::cholesky_detail::Block && l.s1 == 1) {
    withTargetTile([&](auto S) {
      m::cholesky_blocked<T, decltype(S)>(K, a, l);
    });
    return;
  }
#endif
  m::cholesky<T>(K, a, l);
}
} // namespace

// covariance_matrix= arrives as its Cholesky factor.
#define AIMZ_CHOLESKY(T, SUFFIX)                                              \
  AIMZ_SUPPORT AIMZ_NOINLINE void aimz_rt_cholesky_##SUFFIX(                  \
      int64_t K, const T *a, int64_t a0, int64_t a1, T *l, int64_t l0,        \
      int64_t l1) {                                                           \
    choleskyFactor<T>(K, m::EventView<const T>{a, a0, a1},                    \
                      m::EventView<T>{l, l0, l1});                            \
  }
AIMZ_CHOLESKY(float, f32)
AIMZ_CHOLESKY(double, f64)

// inverse(A), eliminating on w (scratch of A's shape).
#define AIMZ_INVERSE(T, SUFFIX)                                               \
  AIMZ_SUPPORT AIMZ_NOINLINE void aimz_rt_inverse_##SUFFIX(                   \
      int64_t K, const T *a, int64_t a0, int64_t a1, T *v, int64_t v0,        \
      int64_t v1, T *w, int64_t w0, int64_t w1) {                             \
    m::inverse<T>(K, m::EventView<const T>{a, a0, a1},                        \
                  m::EventView<T>{v, v0, v1}, m::EventView<T>{w, w0, w1});    \
  }
AIMZ_INVERSE(float, f32)
AIMZ_INVERSE(double, f64)

// sort / argsort of one vector: (K, in, out, positions, merge buffer), each
// (pointer, unused, stride).
#define AIMZ_SORTS(T, SUFFIX)                                                 \
  AIMZ_SUPPORT AIMZ_NOINLINE void aimz_rt_sort_##SUFFIX(                      \
      int64_t K, const T *x, int64_t, int64_t xs, T *out, int64_t,            \
      int64_t os, int64_t *p, int64_t, int64_t ps, int64_t *t, int64_t,       \
      int64_t ts) {                                                           \
    m::StridedVector<const T> X{x, xs};                                       \
    m::stable_order<T>(K, X, {p, ps}, {t, ts});                               \
    for (int64_t i = 0; i < K; ++i)                                           \
      out[i * os] = X[p[i * ps]];                                             \
  }                                                                           \
  AIMZ_SUPPORT AIMZ_NOINLINE void aimz_rt_argsort_##SUFFIX(                   \
      int64_t K, const T *x, int64_t, int64_t xs, int64_t *out, int64_t,      \
      int64_t os, int64_t *p, int64_t, int64_t ps, int64_t *t, int64_t,       \
      int64_t ts) {                                                           \
    m::stable_order<T>(K, {x, xs}, {p, ps}, {t, ts});                         \
    for (int64_t i = 0; i < K; ++i)                                           \
      out[i * os] = p[i * ps];                                                \
  }
AIMZ_SORTS(float, f32)
AIMZ_SORTS(double, f64)
AIMZ_SORTS(int32_t, i32)
AIMZ_SORTS(int64_t, i64)

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

// log|Gamma(x)| (jax.scipy.special.gammaln / Stan's lgamma) and the standard
// normal CDF (probit links). Scalar: they never run in vector lanes.
AIMZ_SUPPORT AIMZ_NOINLINE float aimz_rt_lgamma_f32(float X) {
  return m::log_gamma(X);
}
AIMZ_SUPPORT AIMZ_NOINLINE double aimz_rt_lgamma_f64(double X) {
  return m::log_gamma(X);
}
// In double: x / sqrt(2) rounded in float costs ~1e-5 of Phi's far tail.
AIMZ_SUPPORT float aimz_rt_phi_f32(float X) {
  return static_cast<float>(0.5 * std::erfc(static_cast<double>(X) * -0.70710678118654752440));
}
AIMZ_SUPPORT double aimz_rt_phi_f64(double X) {
  return 0.5 * std::erfc(X * -0.70710678118654752440);
}

// Special functions (SpecialFunctions.h, and libm's erfc and tgamma):
// computed in double, rounded once. Scalar calls.
#define AIMZ_SPECIAL(NAME, FN)                                                \
  AIMZ_SUPPORT AIMZ_NOINLINE float aimz_rt_##NAME##_f32(float X) {            \
    return static_cast<float>(FN(static_cast<double>(X)));                    \
  }                                                                           \
  AIMZ_SUPPORT AIMZ_NOINLINE double aimz_rt_##NAME##_f64(double X) {          \
    return FN(X);                                                             \
  }
AIMZ_SPECIAL(digamma, m::special::digamma)
AIMZ_SPECIAL(trigamma, m::special::trigamma)
AIMZ_SPECIAL(ndtri, m::special::ndtri)
AIMZ_SPECIAL(i0, m::special::i0)
AIMZ_SPECIAL(i0e, m::special::i0e)
AIMZ_SPECIAL(i1, m::special::i1)
AIMZ_SPECIAL(i1e, m::special::i1e)
AIMZ_SPECIAL(erfc, std::erfc)
AIMZ_SPECIAL(tgamma, std::tgamma)
#undef AIMZ_SPECIAL
// Of two arguments: hypot (no overflow or underflow in between), log B and
// log(n choose k) (stable for large arguments).
#define AIMZ_SPECIAL2(NAME, FN)                                               \
  AIMZ_SUPPORT AIMZ_NOINLINE float aimz_rt_##NAME##_f32(float X, float Y) {   \
    return static_cast<float>(                                                \
        FN(static_cast<double>(X), static_cast<double>(Y)));                  \
  }                                                                           \
  AIMZ_SUPPORT AIMZ_NOINLINE double aimz_rt_##NAME##_f64(double X, double Y) { \
    return FN(X, Y);                                                          \
  }
AIMZ_SPECIAL2(hypot, std::hypot)
AIMZ_SPECIAL2(lbeta, m::special::lbeta)
AIMZ_SPECIAL2(lchoose, m::special::lchoose)
// Owen's T and the modified Bessel function of real order (Stan, SciPy).
AIMZ_SPECIAL2(owens_t, m::special::owens_t)
AIMZ_SPECIAL2(log_bessel_i, m::special::log_bessel_i)
AIMZ_SPECIAL2(ive, m::special::ive)
AIMZ_SPECIAL2(iv, m::special::iv)
#undef AIMZ_SPECIAL2

// A scalar site's bookkeeping ----------------------------------------------
//
// A site without axes reads its value from posterior[site] when given (a
// posterior draw or an intervention) and writes it to results[site] when
// asked. Inline, these loads and null checks were most of a global latent's
// code, so compile time grew with them; one call each keeps a site to a few
// instructions. Bits are copied as they are, by the value's width in bytes
// (1: a boolean, 4, 8).
#define AIMZ_SITE_SCALAR(BYTES, T)                                             \
  AIMZ_SUPPORT AIMZ_NOINLINE int32_t aimz_rt_site_given_b##BYTES(              \
      const aimz_call *c, int64_t site, int64_t draw, T *out) {                \
    const aimz_view &v = c->posterior[site];                                   \
    if (!v.data)                                                               \
      return 0;                                                                \
    *out = static_cast<const T *>(v.data)[draw * v.strides[0]];                \
    return 1;                                                                  \
  }                                                                            \
  AIMZ_SUPPORT AIMZ_NOINLINE void aimz_rt_site_emit_b##BYTES(                  \
      const aimz_call *c, int64_t site, int64_t draw, const T *value) {        \
    const aimz_view &v = c->results[site];                                     \
    if (v.data)                                                                \
      static_cast<T *>(                                                        \
          v.data)[(draw - c->result_draw_origin) * v.strides[0]] = *value;     \
  }
AIMZ_SITE_SCALAR(1, uint8_t)
AIMZ_SITE_SCALAR(4, uint32_t)
AIMZ_SITE_SCALAR(8, uint64_t)
#undef AIMZ_SITE_SCALAR

// The same for an array of rank 1 to 3 without an observation axis: the
// site's buffer is contiguous (sizes n0, n1, n2; 1 past the rank), the
// posterior's and the results' views have their own strides after the
// draw's.
namespace {
struct SiteShape {
  int64_t N[3];
  int64_t S[3];
  AIMZ_DEVICE SiteShape(const int64_t *Strides, int64_t Rank, int64_t N0,
                        int64_t N1, int64_t N2)
      : N{N0, N1, N2}, S{0, 0, 0} {
    for (int64_t A = 0; A < Rank; ++A)
      S[A] = Strides[A];
  }
  /// F(offset in the view, index in the buffer) for every element.
  template <class F> AIMZ_DEVICE void each(F &&Fn) const {
    int64_t K = 0;
    for (int64_t I = 0; I < N[0]; ++I)
      for (int64_t J = 0; J < N[1]; ++J)
        for (int64_t L = 0; L < N[2]; ++L)
          Fn(I * S[0] + J * S[1] + L * S[2], K++);
  }
};
} // namespace

#define AIMZ_SITE_ARRAY(BYTES, T)                                              \
  AIMZ_SUPPORT AIMZ_NOINLINE int32_t aimz_rt_site_given_array_b##BYTES(        \
      const aimz_call *c, int64_t site, int64_t draw, T *out, int64_t rank,    \
      int64_t n0, int64_t n1, int64_t n2) {                                    \
    const aimz_view &v = c->posterior[site];                                   \
    if (!v.data)                                                               \
      return 0;                                                                \
    const T *p = static_cast<const T *>(v.data) + draw * v.strides[0];         \
    SiteShape(v.strides + 1, rank, n0, n1, n2)                                 \
        .each([&](int64_t At, int64_t K) { out[K] = p[At]; });                 \
    return 1;                                                                  \
  }                                                                            \
  AIMZ_SUPPORT AIMZ_NOINLINE void aimz_rt_site_emit_array_b##BYTES(            \
      const aimz_call *c, int64_t site, int64_t draw, const T *value,          \
      int64_t rank, int64_t n0, int64_t n1, int64_t n2) {                      \
    const aimz_view &v = c->results[site];                                     \
    if (!v.data)                                                               \
      return;                                                                  \
    T *p = static_cast<T *>(v.data) +                                          \
           (draw - c->result_draw_origin) * v.strides[0];                      \
    SiteShape(v.strides + 1, rank, n0, n1, n2)                                 \
        .each([&](int64_t At, int64_t K) { p[At] = value[K]; });               \
  }
AIMZ_SITE_ARRAY(1, uint8_t)
AIMZ_SITE_ARRAY(4, uint32_t)
AIMZ_SITE_ARRAY(8, uint64_t)
#undef AIMZ_SITE_ARRAY

// Matrix products ------------------------------------------------------------
//
// C[b, m, n] = sum_k A[b, m, k] * B[b, k, n] with arbitrary element strides.
// Every element is a fixed-order sum over k, so its bits never depend on
// how the batch was split or which thread computed it (no BLAS: OpenBLAS
// rounds a row by its place in a call, and Debian's serial build is not
// safe to call from several threads at once).

namespace {

/// C[r] = sum_k A[r, k] * B[k] for Rows rows, each an in-order sum over k
/// (the same bits for a row in a vector lane or in the remainder): blocks of
/// 16 rows whose lanes the model's optimizer vectorizes.
constexpr int64_t kRowTile = AIMZ_ROW_TILE;

template <class T>
AIMZ_DEVICE void rowsTimesVector(int64_t Rows, int64_t K, const T *A,
                                 int64_t SAr, int64_t SAk, const T *B,
                                 int64_t SBk, T *C, int64_t SCr) {
  constexpr int64_t W = kRowTile;
  int64_t Full = Rows - Rows % W;
  for (int64_t r0 = 0; r0 < Full; r0 += W) {
    T Acc[W];
    for (int64_t l = 0; l < W; ++l)
      Acc[l] = 0;
    for (int64_t k = 0; k < K; ++k) {
      const T Bk = B[k * SBk];
      for (int64_t l = 0; l < W; ++l)
        Acc[l] += A[(r0 + l) * SAr + k * SAk] * Bk;
    }
    for (int64_t l = 0; l < W; ++l)
      C[(r0 + l) * SCr] = Acc[l];
  }
  for (int64_t r = Full; r < Rows; ++r) {
    T Acc = 0;
    for (int64_t k = 0; k < K; ++k)
      Acc += A[r * SAr + k * SAk] * B[k * SBk];
    C[r * SCr] = Acc;
  }
}

/// Row tiles for rowTilesTimesVector: rows [0, Rows) of A (strides SAr,
/// SAk) in blocks of Block rows (block j at j * ceil(Block / W) * W * K
/// elements), each block as tiles of W rows stored column by column (lane l
/// of column k of tile t at (t * K + k) * W + l), zero-padded. The model
/// packs a draw-invariant input once per call, so the products of every
/// draw load whole vectors instead of gathering one row per lane.
template <class T>
AIMZ_DEVICE void packRowTiles(int64_t Rows, int64_t Block, int64_t K,
                              const T *A, int64_t SAr, int64_t SAk, T *P) {
  constexpr int64_t W = kRowTile;
  int64_t BlockTiles = (Block + W - 1) / W;
  for (int64_t b0 = 0; b0 < Rows; b0 += Block) {
    T *PB = P + (b0 / Block) * BlockTiles * W * K;
    int64_t Len = Rows - b0 < Block ? Rows - b0 : Block;
    for (int64_t t = 0; t * W < Len; ++t)
      for (int64_t l = 0; l < W; ++l) {
        int64_t r = t * W + l;
        for (int64_t k = 0; k < K; ++k)
          PB[(t * K + k) * W + l] = r < Len ? A[(b0 + r) * SAr + k * SAk] : T(0);
      }
  }
}

/// C[r] = sum_k A[r, k] * B[k] for the Rows rows of one packed block: the
/// same in-order sums (the same bits) as rowsTimesVector.
template <class T>
AIMZ_DEVICE void rowTilesTimesVector(int64_t Rows, int64_t K, const T *P,
                                     const T *B, int64_t SBk, T *C,
                                     int64_t SCr) {
  constexpr int64_t W = kRowTile;
  for (int64_t t = 0; t * W < Rows; ++t) {
    T Acc[W];
    for (int64_t l = 0; l < W; ++l)
      Acc[l] = 0;
    const T *PT = P + t * K * W;
    for (int64_t k = 0; k < K; ++k) {
      const T Bk = B[k * SBk];
      for (int64_t l = 0; l < W; ++l)
        Acc[l] += PT[k * W + l] * Bk;
    }
    int64_t Len = Rows - t * W < W ? Rows - t * W : W;
    if (Len == W && SCr == 1) {
      for (int64_t l = 0; l < W; ++l)
        C[t * W + l] = Acc[l];
    } else {
      for (int64_t l = 0; l < Len; ++l)
        C[(t * W + l) * SCr] = Acc[l];
    }
  }
}

/// Each element's sum over k in order, one element at a time: integers,
/// and the GPU's products (the same sums as the CPU's register tiles).
template <class T>
AIMZ_DEVICE void matmulInOrder(int64_t Batch, int64_t M, int64_t N, int64_t K,
                               const T *A, int64_t SAb, int64_t SAm,
                               int64_t SAk, const T *B, int64_t SBb,
                               int64_t SBk, int64_t SBn, T *C, int64_t SCb,
                               int64_t SCm, int64_t SCn) {
  for (int64_t b = 0; b < Batch; ++b)
    for (int64_t i = 0; i < M; ++i)
      for (int64_t n = 0; n < N; ++n) {
        T Acc = 0;
        for (int64_t k = 0; k < K; ++k)
          Acc += A[b * SAb + i * SAm + k * SAk] * B[b * SBb + k * SBk + n * SBn];
        C[b * SCb + i * SCm + n * SCn] = Acc;
      }
}

#ifndef __CUDA_ARCH__
/// C rows = A rows @ B in the register tile that fits the model's CPU.
template <class T>
void gemmForTarget(int64_t Rows, int64_t N, int64_t K,
                   aimz::math::gemm::RowSpace<const T> A, int64_t SAk,
                   const T *B, int64_t SBk, int64_t SBn,
                   aimz::math::gemm::RowSpace<T> C, int64_t SCn) {
  withTargetTile([&](auto S) {
    aimz::math::gemm::gemm<T, decltype(S)>(Rows, N, K, A, SAk, B, SBk, SBn, C,
                                           SCn);
  });
}
#endif

template <class T>
AIMZ_DEVICE void matmul(int64_t Batch, int64_t M, int64_t N, int64_t K,
                        const T *A, int64_t SAb, int64_t SAm, int64_t SAk,
                        const T *B, int64_t SBb, int64_t SBk, int64_t SBn,
                        T *C, int64_t SCb, int64_t SCm, int64_t SCn) {
  // Several columns: register-tiled products, one GEMM over every row of
  // the batch when the right side is shared, else one per batch element.
  if (N > 1) {
#ifndef __CUDA_ARCH__
    namespace g = aimz::math::gemm;
    if (SBb == 0) {
      gemmForTarget<T>(Batch * M, N, K, g::RowSpace<const T>{A, M, SAb, SAm},
                       SAk, B, SBk, SBn, g::RowSpace<T>{C, M, SCb, SCm}, SCn);
      return;
    }
    for (int64_t b = 0; b < Batch; ++b)
      gemmForTarget<T>(M, N, K, g::RowSpace<const T>{A + b * SAb, M, 0, SAm},
                       SAk, B + b * SBb, SBk, SBn,
                       g::RowSpace<T>{C + b * SCb, M, 0, SCm}, SCn);
#else
    matmulInOrder<T>(Batch, M, N, K, A, SAb, SAm, SAk, B, SBb, SBk, SBn, C,
                     SCb, SCm, SCn);
#endif
    return;
  }
  // One column (X @ beta): each element's sum over k in order, rows in
  // vector lanes (the batch's rows when the right side is shared).
  if (M == 1 && SBb == 0) {
    rowsTimesVector<T>(Batch, K, A, SAb, SAk, B, SBk, C, SCb);
    return;
  }
  for (int64_t b = 0; b < Batch; ++b)
    rowsTimesVector<T>(M, K, A + b * SAb, SAm, SAk, B + b * SBb, SBk,
                       C + b * SCb, SCm);
}

} // namespace

#define AIMZ_MATMUL(SUFFIX, T, IMPL)                                          \
  AIMZ_SUPPORT void aimz_rt_matmul_##SUFFIX(                                  \
      int64_t Batch, int64_t M, int64_t N, int64_t K,                         \
      const T *A, int64_t SAb, int64_t SAm, int64_t SAk, const T *B,          \
      int64_t SBb, int64_t SBk, int64_t SBn, T *C, int64_t SCb, int64_t SCm,  \
      int64_t SCn) {                                                          \
    IMPL<T>(Batch, M, N, K, A, SAb, SAm, SAk, B, SBb, SBk, SBn, C, SCb, SCm, \
            SCn);                                                             \
  }

#define AIMZ_ROW_TILES(SUFFIX, T)                                              \
  AIMZ_SUPPORT void aimz_rt_pack_row_tiles_##SUFFIX(                          \
      int64_t Rows, int64_t Block, int64_t K, const T *A, int64_t SAr,        \
      int64_t SAk, T *P) {                                                    \
    packRowTiles<T>(Rows, Block, K, A, SAr, SAk, P);                          \
  }                                                                           \
  AIMZ_SUPPORT void aimz_rt_row_tiles_times_vector_##SUFFIX(                  \
      int64_t Rows, int64_t K, const T *P, const T *B, int64_t SBk, T *C,     \
      int64_t SCr) {                                                          \
    rowTilesTimesVector<T>(Rows, K, P, B, SBk, C, SCr);                       \
  }
AIMZ_ROW_TILES(f32, float)
AIMZ_ROW_TILES(f64, double)

AIMZ_MATMUL(f32, float, matmul)
AIMZ_MATMUL(f64, double, matmul)
AIMZ_MATMUL(i32, int32_t, matmulInOrder)
AIMZ_MATMUL(i64, int64_t, matmulInOrder)

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

// One kernel per entry point: <entry>_kernel (AbiSymbols.def).
#define AIMZ_ENTRY_POINT(ID, SYMBOL)                                          \
  extern "C" __global__ void SYMBOL##_kernel(const aimz_call *Call,           \
                                             int32_t *Status) {               \
    runThread<SYMBOL>(Call, Status);                                          \
  }
#include "aimz/AbiSymbols.def"
#endif
