/*===- abi.h - The C interface of a compiled model (model.so) ------------===*
 *
 * A compiled model exports three entry points, each computing a rectangle of
 * work (a range of draws times a range of observations), plus its manifest.
 * The runtime slices rectangles; it never knows a model's maths.
 *
 * Layout rules (all strides count elements, not bytes):
 *  - inputs[i] (the manifest's inputs, then its derived_inputs: statistics
 *    of the data the runtime computes before the run), observed[o]: data
 *    points at input row 0, which is absolute
 *    observation `input_obs_origin`; strides[j] is the stride of dim j of the
 *    input's manifest shape (dim 0 is the observation axis).
 *  - posterior[s] (one per manifest site, NULL data = draw it from its prior):
 *    data points at absolute draw 0; strides[0] is the draw stride and
 *    strides[1 + j] that of dim j of the site's shape, indexed absolutely
 *    along the observation axis.
 *  - results[s] (NULL data = not wanted): data points at the element of
 *    draw result_draw_origin and observation result_obs_origin (usually the
 *    rectangle's origin); strides as for the posterior. For log-likelihood
 *    the slot of each output's site receives its pointwise log density.
 * Element types are the manifest's dtypes (bool is one byte); latents and
 * log densities use the manifest's precision.
 *===----------------------------------------------------------------------===*/
#ifndef AIMZ_ABI_H
#define AIMZ_ABI_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define AIMZ_ABI_VERSION 1

/* Rows per tile of an input packed by aimz_rt_pack_row_tiles: the compiler
   sizes the packed scratch with it, the support library fills it. */
#define AIMZ_ROW_TILE 16

typedef struct aimz_view {
  void *data;
  const int64_t *strides;
} aimz_view;

/* Every field is 8 bytes wide so generated code can address them by index. */
typedef struct aimz_call {
  int64_t abi_version;        /* must be AIMZ_ABI_VERSION */
  int64_t draw_begin;         /* absolute draw range [draw_begin, draw_end) */
  int64_t draw_end;
  int64_t obs_begin;          /* absolute observation range */
  int64_t obs_end;
  int64_t input_obs_origin;   /* absolute observation of input row 0 */
  uint64_t seed;
  const int64_t *dims;        /* values of the manifest's "dims", in order */
  const aimz_view *inputs;    /* one per manifest input */
  const aimz_view *observed;  /* one per manifest output, in order: the
                                 observed values (log-likelihood only) */
  const aimz_view *posterior; /* one per manifest site */
  const aimz_view *results;   /* one per manifest site */
  void *scratch;              /* caller-owned, reused across calls */
  int64_t scratch_bytes;
  int64_t obs_block;          /* observations per inner block; 0: default;
                                 all of them for joint observations */
  int64_t scratch_needed;     /* out: bytes of scratch this call needs */
  int64_t result_draw_origin; /* absolute draw at results[s].data */
  int64_t result_obs_origin;  /* absolute observation at results[s].data */
} aimz_call;

/* Return values of the entry points. */
enum {
  AIMZ_OK = 0,
  AIMZ_SCRATCH_TOO_SMALL = 1, /* scratch_needed says how much to provide */
  AIMZ_INDEX_OUT_OF_RANGE = 2,/* an index input is outside its dimension */
  AIMZ_BAD_ABI_VERSION = 3,
  /* a model with joint observations (manifest "joint_observations") was
     called over part of them: it needs obs_begin = 0, obs_end = every
     observation */
  AIMZ_NEEDS_ALL_OBSERVATIONS = 4
};

/* The entry points, named in AbiSymbols.def (so the compiler and the
 * runtime spell them from one list):
 *   aimz_predict           posterior predictive: latents from the posterior
 *                          where given, otherwise drawn from their priors;
 *                          the output and deterministic sites sampled
 *   aimz_log_likelihood    pointwise log-likelihood of `observed` under
 *                          every draw
 *   aimz_prior_predictive  every latent drawn from its prior
 *   aimz_prepass           (CPU, only where transformed data needs it) the
 *                          rows of each statistic's argument, draw 0 */
#define AIMZ_ENTRY_POINT(ID, SYMBOL) int32_t SYMBOL(aimz_call *call);
#define AIMZ_HOST_ENTRY_POINT(ID, SYMBOL) int32_t SYMBOL(aimz_call *call);
#include "aimz/AbiSymbols.def"

/* Exported data symbols. */
extern const char aimz_manifest[];   /* the manifest JSON, NUL-terminated */
extern const int64_t aimz_abi_version;
/* PTX of the kernels (aimz_predict_kernel, ...; see runtime/support/
 * ModelSupport.cpp), NUL-terminated, empty when the compiler had no CUDA:
 * aimz_ptx targets sm_80 (and runs on newer GPUs through the driver's JIT),
 * aimz_ptx_sm90 targets sm_90. */
extern const char aimz_ptx[];
extern const char aimz_ptx_sm90[];

#ifdef __cplusplus
}
#endif

#endif /* AIMZ_ABI_H */
