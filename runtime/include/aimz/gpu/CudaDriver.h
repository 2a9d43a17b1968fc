//===- CudaDriver.h - The CUDA driver API, loaded at run time ----*- C++ -*-===//
//
// aimz-run has no link-time dependency on CUDA: libcuda.so.1 is dlopen'ed the
// first time a GPU is asked for, and the few driver functions the runtime
// uses are resolved by name (the versioned `_v2` symbols where the driver API
// has them, as cuda.h's macros would pick). The types below are minimal
// stand-ins for cuda.h's, with the same sizes and calling conventions;
// test/unit/gpu/DriverApiCheck.cpp checks them against cuda.h wherever the
// CUDA headers are installed.
//
// Members are named without the `cu` prefix (`MemAlloc`, not `cuMemAlloc`)
// so that a translation unit that also includes cuda.h, whose macros rename
// `cuMemAlloc` to `cuMemAlloc_v2`, still compiles.
//
//===----------------------------------------------------------------------===//
#ifndef AIMZ_GPU_CUDADRIVER_H
#define AIMZ_GPU_CUDADRIVER_H

#include "llvm/ADT/Twine.h"
#include "llvm/Support/Error.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

// The driver's opaque handle types, with cuda.h's struct names, so that
// pointers to them are the very types cuda.h declares.
struct CUctx_st;
struct CUmod_st;
struct CUfunc_st;
struct CUstream_st;
struct CUevent_st;

namespace aimz::gpu {

namespace cu {
using Result = int;                  // CUresult (an enum of int size)
using Device = int;                  // CUdevice
using DevicePtr = unsigned long long; // CUdeviceptr (64-bit)
using Context = ::CUctx_st *;         // CUcontext
using Module = ::CUmod_st *;          // CUmodule
using Function = ::CUfunc_st *;       // CUfunction
using Stream = ::CUstream_st *;       // CUstream
using Event = ::CUevent_st *;         // CUevent
using JitOption = int;               // CUjit_option
using DeviceAttribute = int;         // CUdevice_attribute

// The constants the runtime uses (values from cuda.h).
constexpr Result Success = 0;
constexpr Result ErrorNotInitialized = 3;
constexpr Result ErrorNoDevice = 100;
constexpr Result ErrorInvalidPtx = 218;
constexpr Result ErrorNotReady = 600;
constexpr DeviceAttribute AttrMultiprocessorCount = 16;
constexpr DeviceAttribute AttrComputeCapabilityMajor = 75;
constexpr DeviceAttribute AttrComputeCapabilityMinor = 76;
constexpr JitOption JitInfoLogBuffer = 3;
constexpr JitOption JitInfoLogBufferSizeBytes = 4;
constexpr JitOption JitErrorLogBuffer = 5;
constexpr JitOption JitErrorLogBufferSizeBytes = 6;
constexpr JitOption JitLogVerbose = 12;
constexpr unsigned StreamNonBlocking = 0x1;
constexpr unsigned EventDisableTiming = 0x2;
constexpr unsigned MemHostAllocPortable = 0x1;
} // namespace cu

/// One GPU as the driver describes it.
struct GpuInfo {
  int Ordinal = 0;
  std::string Name;
  int CcMajor = 0, CcMinor = 0; // compute capability
  uint64_t TotalMemory = 0;     // bytes
  int Multiprocessors = 0;
  /// "NVIDIA H200 (sm_90, 139.8 GiB)"
  std::string describe() const;
};

/// The loaded driver: function pointers and the devices it sees.
class CudaDriver {
public:
  /// The process-wide driver, loaded (and cuInit'ed) on first use. Fails
  /// with one clear line: "no NVIDIA driver (libcuda.so.1) found" when the
  /// library is missing, "the NVIDIA driver found no GPU" when it sees no
  /// device, or what else went wrong (a driver too old for a symbol, cuInit
  /// failing). The outcome is remembered: later calls return the same.
  static llvm::Expected<CudaDriver &> get();

  /// Loads the driver from `Library` (a name for dlopen or a path); get()
  /// is open("libcuda.so.1"). Tests use this to load a stand-in.
  static llvm::Expected<std::unique_ptr<CudaDriver>> open(const std::string &Library);

  ~CudaDriver();
  CudaDriver(const CudaDriver &) = delete;
  CudaDriver &operator=(const CudaDriver &) = delete;

  /// The GPUs, in ordinal order (never empty for a driver open() returned).
  const std::vector<GpuInfo> &devices() const { return Devices; }
  /// cuDriverGetVersion: 1000 * major + 10 * minor (12040 is CUDA 12.4).
  int version() const { return DriverVersion; }
  const std::string &library() const { return Library; }

  /// "cuMemAlloc: out of memory (CUDA_ERROR_OUT_OF_MEMORY)" style text.
  std::string errorText(cu::Result R) const;
  /// success() when R is cu::Success, else an error "<What>: <errorText>".
  llvm::Error check(cu::Result R, const llvm::Twine &What) const;

  // The driver API (see cuda.h for each function's contract).
  cu::Result (*Init)(unsigned Flags) = nullptr;
  cu::Result (*DriverGetVersion)(int *Version) = nullptr;
  cu::Result (*DeviceGetCount)(int *Count) = nullptr;
  cu::Result (*DeviceGet)(cu::Device *Dev, int Ordinal) = nullptr;
  cu::Result (*DeviceGetName)(char *Name, int Len, cu::Device Dev) = nullptr;
  cu::Result (*DeviceGetAttribute)(int *Value, cu::DeviceAttribute Attr,
                                   cu::Device Dev) = nullptr;
  cu::Result (*DeviceTotalMem)(size_t *Bytes, cu::Device Dev) = nullptr; // _v2
  cu::Result (*DevicePrimaryCtxRetain)(cu::Context *Ctx, cu::Device Dev) = nullptr;
  cu::Result (*DevicePrimaryCtxRelease)(cu::Device Dev) = nullptr; // _v2
  /// cuCtxCreate_v2; optional (null when the driver lacks it): the runtime
  /// uses the primary context.
  cu::Result (*CtxCreate)(cu::Context *Ctx, unsigned Flags, cu::Device Dev) = nullptr;
  cu::Result (*CtxSetCurrent)(cu::Context Ctx) = nullptr;
  cu::Result (*CtxSynchronize)() = nullptr;
  cu::Result (*MemGetInfo)(size_t *Free, size_t *Total) = nullptr; // _v2
  cu::Result (*MemAlloc)(cu::DevicePtr *Ptr, size_t Bytes) = nullptr; // _v2
  cu::Result (*MemFree)(cu::DevicePtr Ptr) = nullptr; // _v2
  cu::Result (*MemHostAlloc)(void **Ptr, size_t Bytes, unsigned Flags) = nullptr;
  cu::Result (*MemFreeHost)(void *Ptr) = nullptr;
  cu::Result (*MemcpyHtoDAsync)(cu::DevicePtr Dst, const void *Src, size_t Bytes,
                                cu::Stream S) = nullptr; // _v2
  cu::Result (*MemcpyDtoHAsync)(void *Dst, cu::DevicePtr Src, size_t Bytes,
                                cu::Stream S) = nullptr; // _v2
  cu::Result (*ModuleLoadDataEx)(cu::Module *Mod, const void *Image,
                                 unsigned NumOptions, cu::JitOption *Options,
                                 void **OptionValues) = nullptr;
  cu::Result (*ModuleUnload)(cu::Module Mod) = nullptr;
  cu::Result (*ModuleGetFunction)(cu::Function *F, cu::Module Mod,
                                  const char *Name) = nullptr;
  cu::Result (*LaunchKernel)(cu::Function F, unsigned GridX, unsigned GridY,
                             unsigned GridZ, unsigned BlockX, unsigned BlockY,
                             unsigned BlockZ, unsigned SharedBytes, cu::Stream S,
                             void **Params, void **Extra) = nullptr;
  cu::Result (*StreamCreate)(cu::Stream *S, unsigned Flags) = nullptr;
  cu::Result (*StreamDestroy)(cu::Stream S) = nullptr; // _v2
  cu::Result (*StreamSynchronize)(cu::Stream S) = nullptr;
  cu::Result (*EventCreate)(cu::Event *E, unsigned Flags) = nullptr;
  cu::Result (*EventDestroy)(cu::Event E) = nullptr; // _v2
  cu::Result (*EventRecord)(cu::Event E, cu::Stream S) = nullptr;
  cu::Result (*EventSynchronize)(cu::Event E) = nullptr;
  cu::Result (*EventQuery)(cu::Event E) = nullptr;
  cu::Result (*GetErrorString)(cu::Result R, const char **Text) = nullptr;
  cu::Result (*GetErrorName)(cu::Result R, const char **Text) = nullptr;

private:
  CudaDriver() = default;
  /// open()'s steps: the functions resolved, the GPUs listed.
  std::string resolveSymbols(void *H);
  llvm::Error listDevices();
  llvm::Expected<GpuInfo> describe(int I);
  void *Handle = nullptr;
  std::string Library;
  int DriverVersion = 0;
  std::vector<GpuInfo> Devices;
};

} // namespace aimz::gpu

#endif // AIMZ_GPU_CUDADRIVER_H
