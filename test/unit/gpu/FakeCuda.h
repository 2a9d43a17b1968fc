//===- FakeCuda.h - A stand-in for libcuda.so.1 that runs on the CPU -----===//
//
// libaimz_fake_cuda.so exports the driver functions CudaDriver resolves and
// emulates a GPU adversarially, so GpuDevice's bookkeeping is tested on
// machines without one:
//  - device memory is host memory, but every pointer the "kernel" receives
//    (the aimz_call, its tables, views, strides, scratch, status) must lie in
//    a live cuMemAlloc allocation, and the ranges it writes (status, each
//    thread's scratch) must fit in one: anything else is a violation;
//  - work queued on a stream runs only when the host synchronizes on that
//    stream or on an event recorded on it (the latest any GPU could run it),
//    so a missing wait, a pinned buffer refilled too early or a buffer freed
//    while queued work uses it shows up as wrong bytes or a violation;
//  - async copies must use pinned (cuMemHostAlloc) host memory;
//  - a launched kernel runs the model's HOST entry point thread by thread,
//    exactly as runThread() in runtime/support/ModelSupport.cpp maps threads
//    to (draw, observation block) and scratch slices;
//  - cuModuleLoadDataEx checks the PTX's .target against the device's
//    compute capability and can be told to fail, writing an error log.
// The configuration is set through aimz_fake_cuda_configure() after dlopen
// of the library and before CudaDriver::open() (which calls cuInit). A
// program that loads the fake as its libcuda.so.1 (a symbolic link of that
// name on LD_LIBRARY_PATH) configures it through the environment instead:
// AIMZ_FAKE_CUDA_MODEL=model.so (whose host code the kernels run) and
// AIMZ_FAKE_CUDA_CC=90 (the compute capability).
//
//===----------------------------------------------------------------------===//
#ifndef AIMZ_TEST_GPU_FAKECUDA_H
#define AIMZ_TEST_GPU_FAKECUDA_H

#include "aimz/abi.h"

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef int32_t (*aimz_fake_entry)(aimz_call *);

typedef struct aimz_fake_cuda_config {
  int devices;           /* 0: cuInit fails with CUDA_ERROR_NO_DEVICE */
  int cc_major, cc_minor;
  uint64_t total_memory;
  int fail_jit_sm90;     /* loading sm_90 PTX fails (CUDA_ERROR_INVALID_PTX) */
  int fail_jit_all;      /* loading any PTX fails */
  aimz_fake_entry entries[3]; /* predict, log-likelihood, prior (host code) */
  /* Counts the kernel's call tables are checked with. */
  int num_dims, num_inputs, num_sites;
} aimz_fake_cuda_config;

typedef struct aimz_fake_cuda_stats {
  int64_t live_device_allocations;
  int64_t live_pinned_allocations;
  int64_t live_contexts;      /* retained primary contexts */
  int64_t launches;
  int64_t threads_run;
  int64_t last_ptx_arch;      /* 80 or 90: the .target of the last loaded PTX */
  int64_t violations;
} aimz_fake_cuda_stats;

/* Replaces the configuration and clears the counters and violations (not
 * the allocations). */
void aimz_fake_cuda_configure(const aimz_fake_cuda_config *config);
void aimz_fake_cuda_get_stats(aimz_fake_cuda_stats *stats);
/* The violations so far, one per line (valid until the next call). */
const char *aimz_fake_cuda_violations(void);

#ifdef __cplusplus
}
#endif

#endif /* AIMZ_TEST_GPU_FAKECUDA_H */
