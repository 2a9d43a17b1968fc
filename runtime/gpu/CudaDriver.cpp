//===- CudaDriver.cpp - The CUDA driver API, loaded at run time -----------===//
#include "aimz/gpu/CudaDriver.h"

#include <cstdlib>

#include "llvm/Support/FormatVariadic.h"

#include <dlfcn.h>

#include <mutex>

namespace aimz::gpu {

namespace {

llvm::Error error(const llvm::Twine &Msg) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), Msg);
}

/// Resolves `Name` into `Fn`; remembers the first missing required symbol.
template <class Fn>
void resolve(void *Handle, Fn &Slot, const char *Name, std::string &Missing,
             bool Required = true) {
  Slot = reinterpret_cast<Fn>(dlsym(Handle, Name));
  if (!Slot && Required && Missing.empty())
    Missing = Name;
}

} // namespace

std::string GpuInfo::describe() const {
  return llvm::formatv("{0} (sm_{1}{2}, {3:f1} GiB, {4} SMs)", Name, CcMajor,
                       CcMinor, static_cast<double>(TotalMemory) / (1ull << 30),
                       Multiprocessors)
      .str();
}

llvm::Expected<CudaDriver &> CudaDriver::get() {
  // Loaded once; the driver stays loaded for the life of the process (NVIDIA
  // advises against unloading libcuda), so the object is never destroyed.
  static CudaDriver *Loaded = nullptr;
  static std::string Failure;
  static std::once_flag Once;
  std::call_once(Once, [] {
    // AIMZ_CUDA_DRIVER names another driver library: tests point it at a
    // checking stand-in that runs kernels on the CPU (test/unit/gpu).
    const char *Override = std::getenv("AIMZ_CUDA_DRIVER");
    auto D = open(Override && *Override ? Override : "libcuda.so.1");
    if (D)
      Loaded = D->release();
    else
      Failure = llvm::toString(D.takeError());
  });
  if (!Loaded)
    return error(Failure);
  return *Loaded;
}

llvm::Expected<std::unique_ptr<CudaDriver>>
CudaDriver::open(const std::string &Library) {
  void *H = dlopen(Library.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!H) {
    // A missing library is the common case and needs no detail; a library
    // that exists but cannot load (wrong architecture, missing dependency)
    // says why.
    const char *E = dlerror();
    std::string Detail = E ? E : "";
    if (Detail.empty() ||
        Detail.find("No such file") != std::string::npos ||
        Detail.find("cannot open shared object file") != std::string::npos)
      return error("no NVIDIA driver (" + Library + ") found");
    return error("no NVIDIA driver (" + Library + ") found: " + Detail);
  }
  std::unique_ptr<CudaDriver> D(new CudaDriver());
  D->Handle = H;
  D->Library = Library;
  std::string Missing = D->resolveSymbols(H);
  if (!Missing.empty())
    return error("the NVIDIA driver (" + Library + ") lacks " + Missing +
                 "; it is too old for aimz-run (CUDA 11.8 or newer is needed)");
  if (llvm::Error E = D->listDevices())
    return std::move(E);
  return std::move(D);
}

/// The driver functions used, by name (the versioned symbol where cuda.h's
/// macros bind one); the names of the missing required ones, joined.
std::string CudaDriver::resolveSymbols(void *H) {
  std::string Missing;
  resolve(H, Init, "cuInit", Missing);
  resolve(H, DriverGetVersion, "cuDriverGetVersion", Missing);
  resolve(H, DeviceGetCount, "cuDeviceGetCount", Missing);
  resolve(H, DeviceGet, "cuDeviceGet", Missing);
  resolve(H, DeviceGetName, "cuDeviceGetName", Missing);
  resolve(H, DeviceGetAttribute, "cuDeviceGetAttribute", Missing);
  resolve(H, DeviceTotalMem, "cuDeviceTotalMem_v2", Missing);
  resolve(H, DevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain", Missing);
  resolve(H, DevicePrimaryCtxRelease, "cuDevicePrimaryCtxRelease_v2", Missing);
  resolve(H, CtxCreate, "cuCtxCreate_v2", Missing, /*Required=*/false);
  resolve(H, CtxSetCurrent, "cuCtxSetCurrent", Missing);
  resolve(H, CtxSynchronize, "cuCtxSynchronize", Missing);
  resolve(H, MemGetInfo, "cuMemGetInfo_v2", Missing);
  resolve(H, MemAlloc, "cuMemAlloc_v2", Missing);
  resolve(H, MemFree, "cuMemFree_v2", Missing);
  resolve(H, MemHostAlloc, "cuMemHostAlloc", Missing);
  resolve(H, MemFreeHost, "cuMemFreeHost", Missing);
  resolve(H, MemcpyHtoDAsync, "cuMemcpyHtoDAsync_v2", Missing);
  resolve(H, MemcpyDtoHAsync, "cuMemcpyDtoHAsync_v2", Missing);
  resolve(H, ModuleLoadDataEx, "cuModuleLoadDataEx", Missing);
  resolve(H, ModuleUnload, "cuModuleUnload", Missing);
  resolve(H, ModuleGetFunction, "cuModuleGetFunction", Missing);
  resolve(H, LaunchKernel, "cuLaunchKernel", Missing);
  resolve(H, StreamCreate, "cuStreamCreate", Missing);
  resolve(H, StreamDestroy, "cuStreamDestroy_v2", Missing);
  resolve(H, StreamSynchronize, "cuStreamSynchronize", Missing);
  resolve(H, EventCreate, "cuEventCreate", Missing);
  resolve(H, EventDestroy, "cuEventDestroy_v2", Missing);
  resolve(H, EventRecord, "cuEventRecord", Missing);
  resolve(H, EventSynchronize, "cuEventSynchronize", Missing);
  resolve(H, EventQuery, "cuEventQuery", Missing);
  resolve(H, GetErrorString, "cuGetErrorString", Missing);
  resolve(H, GetErrorName, "cuGetErrorName", Missing);
  return Missing;
}

/// cuInit, then every GPU's description.
llvm::Error CudaDriver::listDevices() {
  cu::Result R = Init(0);
  if (R == cu::ErrorNoDevice)
    return error("the NVIDIA driver found no GPU");
  if (R != cu::Success)
    return error("the NVIDIA driver failed to initialize: " + errorText(R));
  if (DriverGetVersion(&DriverVersion) != cu::Success)
    DriverVersion = 0;
  int Count = 0;
  R = DeviceGetCount(&Count);
  if (R == cu::ErrorNoDevice || (R == cu::Success && Count <= 0))
    return error("the NVIDIA driver found no GPU");
  if (R != cu::Success)
    return error("the NVIDIA driver cannot count its GPUs: " + errorText(R));
  for (int I = 0; I < Count; ++I) {
    auto G = describe(I);
    if (!G)
      return G.takeError();
    Devices.push_back(std::move(*G));
  }
  return llvm::Error::success();
}

/// GPU I's name, compute capability, multiprocessors and memory.
llvm::Expected<GpuInfo> CudaDriver::describe(int I) {
  cu::Device Dev = 0;
  if (llvm::Error E =
          check(DeviceGet(&Dev, I), "cuDeviceGet(" + llvm::Twine(I) + ")"))
    return std::move(E);
  GpuInfo G;
  G.Ordinal = I;
  char Name[256] = {0};
  if (DeviceGetName(Name, sizeof Name - 1, Dev) == cu::Success)
    G.Name = Name;
  else
    G.Name = "GPU " + std::to_string(I);
  if (llvm::Error E = check(
          DeviceGetAttribute(&G.CcMajor, cu::AttrComputeCapabilityMajor, Dev),
          "cuDeviceGetAttribute(compute capability)"))
    return std::move(E);
  if (llvm::Error E = check(
          DeviceGetAttribute(&G.CcMinor, cu::AttrComputeCapabilityMinor, Dev),
          "cuDeviceGetAttribute(compute capability)"))
    return std::move(E);
  if (DeviceGetAttribute(&G.Multiprocessors, cu::AttrMultiprocessorCount,
                         Dev) != cu::Success)
    G.Multiprocessors = 0;
  size_t Total = 0;
  if (DeviceTotalMem(&Total, Dev) == cu::Success)
    G.TotalMemory = Total;
  return std::move(G);
}

CudaDriver::~CudaDriver() = default; // the library stays loaded (see get())

std::string CudaDriver::errorText(cu::Result R) const {
  const char *Text = nullptr, *Name = nullptr;
  if (GetErrorString && GetErrorString(R, &Text) != cu::Success)
    Text = nullptr;
  if (GetErrorName && GetErrorName(R, &Name) != cu::Success)
    Name = nullptr;
  std::string S = Text ? Text : "CUDA error " + std::to_string(R);
  if (Name)
    S += std::string(" (") + Name + ")";
  return S;
}

llvm::Error CudaDriver::check(cu::Result R, const llvm::Twine &What) const {
  if (R == cu::Success)
    return llvm::Error::success();
  return error(What + ": " + errorText(R));
}

} // namespace aimz::gpu
