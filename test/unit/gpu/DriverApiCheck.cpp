//===- DriverApiCheck.cpp - CudaDriver's stand-in types against cuda.h ----===//
//
// Compiled only where CUDA's headers are installed (never linked against
// CUDA): checks at compile time that every function pointer CudaDriver
// resolves has the signature cuda.h declares for the symbol it resolves
// (enums and integers compared by size, handles by identity), that the
// names are the ones cuda.h's versioning macros bind, and that the
// constants match.
//
//===----------------------------------------------------------------------===//
#include <cuda.h>

#include "aimz/gpu/CudaDriver.h"

#include <gtest/gtest.h>

#include <type_traits>

namespace {

template <size_t N> struct Int {};
struct Opaque {};

// ABI-level normal form of a type: integers and enums by size, structs
// opaque, pointers and function pointers structurally, cv dropped.
template <class T, bool Num = std::is_enum_v<T> || std::is_integral_v<T>,
          bool Cls = std::is_class_v<T>>
struct Norm {
  using type = T;
};
template <class T> using N = typename Norm<std::remove_cv_t<T>>::type;
template <class T> struct Norm<T, true, false> {
  using type = Int<sizeof(T)>;
};
template <class T> struct Norm<T, false, true> {
  using type = Opaque;
};
template <class T> struct Norm<T *, false, false> {
  using type = N<T> *;
};
template <class R, class... A> struct Norm<R (*)(A...), false, false> {
  using type = N<R> (*)(N<A>...);
};

using aimz::gpu::CudaDriver;

#define AIMZ_CHECK_FN(Member, Official)                                        \
  static_assert(std::is_same_v<N<decltype(CudaDriver::Member)>,                \
                               N<decltype(&Official)>>,                        \
                "CudaDriver::" #Member " does not match cuda.h's " #Official)

AIMZ_CHECK_FN(Init, cuInit);
AIMZ_CHECK_FN(DriverGetVersion, cuDriverGetVersion);
AIMZ_CHECK_FN(DeviceGetCount, cuDeviceGetCount);
AIMZ_CHECK_FN(DeviceGet, cuDeviceGet);
AIMZ_CHECK_FN(DeviceGetName, cuDeviceGetName);
AIMZ_CHECK_FN(DeviceGetAttribute, cuDeviceGetAttribute);
AIMZ_CHECK_FN(DeviceTotalMem, cuDeviceTotalMem_v2);
AIMZ_CHECK_FN(DevicePrimaryCtxRetain, cuDevicePrimaryCtxRetain);
AIMZ_CHECK_FN(DevicePrimaryCtxRelease, cuDevicePrimaryCtxRelease_v2);
AIMZ_CHECK_FN(CtxSetCurrent, cuCtxSetCurrent);
AIMZ_CHECK_FN(CtxSynchronize, cuCtxSynchronize);
AIMZ_CHECK_FN(MemGetInfo, cuMemGetInfo_v2);
AIMZ_CHECK_FN(MemAlloc, cuMemAlloc_v2);
AIMZ_CHECK_FN(MemFree, cuMemFree_v2);
AIMZ_CHECK_FN(MemHostAlloc, cuMemHostAlloc);
AIMZ_CHECK_FN(MemFreeHost, cuMemFreeHost);
AIMZ_CHECK_FN(MemcpyHtoDAsync, cuMemcpyHtoDAsync_v2);
AIMZ_CHECK_FN(MemcpyDtoHAsync, cuMemcpyDtoHAsync_v2);
AIMZ_CHECK_FN(ModuleLoadDataEx, cuModuleLoadDataEx);
AIMZ_CHECK_FN(ModuleUnload, cuModuleUnload);
AIMZ_CHECK_FN(ModuleGetFunction, cuModuleGetFunction);
AIMZ_CHECK_FN(LaunchKernel, cuLaunchKernel);
AIMZ_CHECK_FN(StreamCreate, cuStreamCreate);
AIMZ_CHECK_FN(StreamDestroy, cuStreamDestroy_v2);
AIMZ_CHECK_FN(StreamSynchronize, cuStreamSynchronize);
AIMZ_CHECK_FN(EventCreate, cuEventCreate);
AIMZ_CHECK_FN(EventDestroy, cuEventDestroy_v2);
AIMZ_CHECK_FN(EventRecord, cuEventRecord);
AIMZ_CHECK_FN(EventSynchronize, cuEventSynchronize);
AIMZ_CHECK_FN(EventQuery, cuEventQuery);
AIMZ_CHECK_FN(GetErrorString, cuGetErrorString);
AIMZ_CHECK_FN(GetErrorName, cuGetErrorName);
// cuCtxCreate_v2 is declared by cuda.h only for the driver's own build
// (cuCtxCreate is cuCtxCreate_v4 in CUDA 13); its documented signature is
// (CUcontext *, unsigned int, CUdevice).
static_assert(std::is_same_v<N<decltype(CudaDriver::CtxCreate)>,
                             N<CUresult (*)(CUcontext *, unsigned, CUdevice)>>);

// The symbols CudaDriver.cpp resolves are the ones cuda.h's macros bind.
constexpr bool same(const char *A, const char *B) {
  return *A == *B && (*A == 0 || same(A + 1, B + 1));
}
#define AIMZ_STR(X) #X
#define AIMZ_XSTR(X) AIMZ_STR(X)
#define AIMZ_CHECK_NAME(Api, Symbol)                                           \
  static_assert(same(AIMZ_XSTR(Api), Symbol), #Api " is not " Symbol " in cuda.h")
AIMZ_CHECK_NAME(cuDeviceTotalMem, "cuDeviceTotalMem_v2");
AIMZ_CHECK_NAME(cuMemGetInfo, "cuMemGetInfo_v2");
AIMZ_CHECK_NAME(cuMemAlloc, "cuMemAlloc_v2");
AIMZ_CHECK_NAME(cuMemFree, "cuMemFree_v2");
AIMZ_CHECK_NAME(cuMemcpyHtoDAsync, "cuMemcpyHtoDAsync_v2");
AIMZ_CHECK_NAME(cuMemcpyDtoHAsync, "cuMemcpyDtoHAsync_v2");
AIMZ_CHECK_NAME(cuStreamDestroy, "cuStreamDestroy_v2");
AIMZ_CHECK_NAME(cuEventDestroy, "cuEventDestroy_v2");
AIMZ_CHECK_NAME(cuDevicePrimaryCtxRelease, "cuDevicePrimaryCtxRelease_v2");
AIMZ_CHECK_NAME(cuMemHostAlloc, "cuMemHostAlloc");
AIMZ_CHECK_NAME(cuModuleLoadDataEx, "cuModuleLoadDataEx");
AIMZ_CHECK_NAME(cuLaunchKernel, "cuLaunchKernel");
AIMZ_CHECK_NAME(cuStreamCreate, "cuStreamCreate");
AIMZ_CHECK_NAME(cuStreamSynchronize, "cuStreamSynchronize");
AIMZ_CHECK_NAME(cuEventRecord, "cuEventRecord");
AIMZ_CHECK_NAME(cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain");

// Handles are cuda.h's very types; the rest by size.
namespace cu = aimz::gpu::cu;
static_assert(std::is_same_v<cu::Context, CUcontext>);
static_assert(std::is_same_v<cu::Module, CUmodule>);
static_assert(std::is_same_v<cu::Function, CUfunction>);
static_assert(std::is_same_v<cu::Stream, CUstream>);
static_assert(std::is_same_v<cu::Event, CUevent>);
static_assert(std::is_same_v<cu::DevicePtr, CUdeviceptr>);
static_assert(std::is_same_v<cu::Device, CUdevice>);
static_assert(sizeof(cu::Result) == sizeof(CUresult));
static_assert(sizeof(cu::JitOption) == sizeof(CUjit_option));
static_assert(sizeof(cu::DeviceAttribute) == sizeof(CUdevice_attribute));

static_assert(cu::Success == CUDA_SUCCESS);
static_assert(cu::ErrorNotInitialized == CUDA_ERROR_NOT_INITIALIZED);
static_assert(cu::ErrorNoDevice == CUDA_ERROR_NO_DEVICE);
static_assert(cu::ErrorInvalidPtx == CUDA_ERROR_INVALID_PTX);
static_assert(cu::ErrorNotReady == CUDA_ERROR_NOT_READY);
static_assert(cu::AttrMultiprocessorCount == CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
static_assert(cu::AttrComputeCapabilityMajor == CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
static_assert(cu::AttrComputeCapabilityMinor == CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
static_assert(cu::JitInfoLogBuffer == CU_JIT_INFO_LOG_BUFFER);
static_assert(cu::JitInfoLogBufferSizeBytes == CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES);
static_assert(cu::JitErrorLogBuffer == CU_JIT_ERROR_LOG_BUFFER);
static_assert(cu::JitErrorLogBufferSizeBytes == CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES);
static_assert(cu::JitLogVerbose == CU_JIT_LOG_VERBOSE);
static_assert(cu::StreamNonBlocking == CU_STREAM_NON_BLOCKING);
static_assert(cu::EventDisableTiming == CU_EVENT_DISABLE_TIMING);
static_assert(cu::MemHostAllocPortable == CU_MEMHOSTALLOC_PORTABLE);

TEST(DriverApi, StandInTypesMatchCudaH) {
  // Everything is checked at compile time; this records that it was.
  SUCCEED() << "checked against cuda.h " << CUDA_VERSION;
}

} // namespace
