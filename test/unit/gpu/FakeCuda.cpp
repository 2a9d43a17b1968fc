//===- FakeCuda.cpp - A stand-in for libcuda.so.1 that runs on the CPU ---===//
//
// See FakeCuda.h. Only what aimz::gpu::CudaDriver resolves is here; the
// signatures are the driver API's (cuda.h), with handles as opaque pointers.
//
//===----------------------------------------------------------------------===//
#include "FakeCuda.h"

#include <dlfcn.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <vector>

namespace {

using Result = int;
using DevPtr = unsigned long long;

constexpr Result Success = 0;
constexpr Result InvalidValue = 1;
constexpr Result OutOfMemory = 2;
constexpr Result NotInitialized = 3;
constexpr Result NoDevice = 100;
constexpr Result InvalidDevice = 101;
constexpr Result InvalidContext = 201;
constexpr Result NoBinaryForGpu = 209;
constexpr Result InvalidPtx = 218;
constexpr Result InvalidHandle = 400;
constexpr Result NotFound = 500;
constexpr Result NotSupported = 801;

const char *const KernelNames[3] = {"aimz_predict_kernel",
                                    "aimz_log_likelihood_kernel",
                                    "aimz_prior_predictive_kernel"};

struct Alloc {
  size_t Size;
  bool Pinned;
};

struct Op {
  enum Kind { HtoD, DtoH, Launch } K;
  uint64_t Seq;
  uintptr_t Dst = 0, Src = 0;
  size_t N = 0;
  int Fn = 0;
  unsigned Grid = 0, Block = 0;
  uintptr_t Call = 0, Status = 0;
};

struct FakeStream {
  std::deque<Op> Q;
};
struct FakeEvent {
  FakeStream *S = nullptr;
  uint64_t Seq = 0;
};
struct FakeModule {
  int Arch = 0;
  std::string Ptx;
};
struct FakeFunction {
  FakeModule *M;
  int Index;
};
struct FakeContext {
  int Device = 0;
  int Retained = 0;
};

struct State {
  std::mutex M;
  aimz_fake_cuda_config Config{};
  bool Initialized = false;
  std::map<uintptr_t, Alloc> Allocs;
  size_t DeviceBytes = 0;
  std::set<FakeStream *> Streams;
  std::set<FakeEvent *> Events;
  std::set<FakeModule *> Modules;
  std::set<FakeFunction *> Functions;
  FakeContext Contexts[8];
  uint64_t Seq = 0;
  aimz_fake_cuda_stats Stats{};
  std::vector<std::string> Violations;
  std::string ViolationText;
};

State &state() {
  static State *S = [] {
    auto *S = new State();
    S->Config.devices = 1;
    S->Config.cc_major = 9;
    S->Config.cc_minor = 0;
    S->Config.total_memory = 80ull << 30;
    // Without aimz_fake_cuda_configure (a program that loads the fake as
    // its libcuda.so.1): the host code of the model named by the
    // environment, no table checks.
    if (const char *Path = std::getenv("AIMZ_FAKE_CUDA_MODEL")) {
      if (void *H = dlopen(Path, RTLD_NOW | RTLD_LOCAL)) {
        const char *Names[3] = {"aimz_predict", "aimz_log_likelihood",
                                "aimz_prior_predictive"};
        for (int K = 0; K < 3; ++K)
          S->Config.entries[K] = reinterpret_cast<aimz_fake_entry>(dlsym(H, Names[K]));
      }
    }
    if (const char *Cc = std::getenv("AIMZ_FAKE_CUDA_CC")) {
      int V = std::atoi(Cc);
      S->Config.cc_major = V / 10;
      S->Config.cc_minor = V % 10;
    }
    return S;
  }();
  return *S;
}

thread_local FakeContext *Current = nullptr;

void violation(State &S, const std::string &What) {
  S.Violations.push_back(What);
  S.Stats.violations += 1;
}

std::string hex(uintptr_t P) {
  char B[32];
  std::snprintf(B, sizeof B, "0x%llx", static_cast<unsigned long long>(P));
  return B;
}

/// Whether [P, P+N) lies in one live allocation of the given kind.
bool inAlloc(State &S, uintptr_t P, size_t N, bool Pinned) {
  auto It = S.Allocs.upper_bound(P);
  if (It == S.Allocs.begin())
    return false;
  --It;
  return It->second.Pinned == Pinned && P >= It->first &&
         P + N <= It->first + It->second.Size;
}

bool hasContext() { return Current && Current->Retained > 0; }

void checkDevice(State &S, uintptr_t P, size_t N, const std::string &What,
                 bool &Ok) {
  if (!inAlloc(S, P, std::max<size_t>(N, 1), false)) {
    violation(S, "kernel: " + What + " at " + hex(P) + " (" + std::to_string(N) +
                     " bytes) is not in one device allocation");
    Ok = false;
  }
}

void checkView(State &S, const aimz_view &V, const std::string &What, bool &Ok) {
  if (V.data)
    checkDevice(S, reinterpret_cast<uintptr_t>(V.data), 1, What + " data", Ok);
  if (V.strides)
    checkDevice(S, reinterpret_cast<uintptr_t>(V.strides), 8, What + " strides", Ok);
}

/// One launch, as runThread() in ModelSupport.cpp runs it.
void runKernel(State &S, const Op &O) {
  S.Stats.launches += 1;
  bool Ok = true;
  checkDevice(S, O.Call, sizeof(aimz_call), "the aimz_call", Ok);
  if (!Ok)
    return;
  const auto *Call = reinterpret_cast<const aimz_call *>(O.Call);
  const aimz_fake_cuda_config &C = S.Config;
  if (Call->abi_version != AIMZ_ABI_VERSION) {
    violation(S, "kernel: abi_version " + std::to_string(Call->abi_version));
    return;
  }
  if (C.num_dims > 0)
    checkDevice(S, reinterpret_cast<uintptr_t>(Call->dims), C.num_dims * 8, "dims", Ok);
  if (C.num_inputs > 0) {
    checkDevice(S, reinterpret_cast<uintptr_t>(Call->inputs),
                C.num_inputs * sizeof(aimz_view), "the inputs table", Ok);
    if (Ok)
      for (int I = 0; I < C.num_inputs; ++I)
        checkView(S, Call->inputs[I], "input " + std::to_string(I), Ok);
  }
  if (Call->observed) {
    checkDevice(S, reinterpret_cast<uintptr_t>(Call->observed), sizeof(aimz_view),
                "the observed view", Ok);
    if (Ok)
      checkView(S, *Call->observed, "observed", Ok);
  }
  if (C.num_sites > 0) {
    checkDevice(S, reinterpret_cast<uintptr_t>(Call->posterior),
                C.num_sites * sizeof(aimz_view), "the posterior table", Ok);
    checkDevice(S, reinterpret_cast<uintptr_t>(Call->results),
                C.num_sites * sizeof(aimz_view), "the results table", Ok);
    if (Ok)
      for (int I = 0; I < C.num_sites; ++I) {
        checkView(S, Call->posterior[I], "posterior " + std::to_string(I), Ok);
        checkView(S, Call->results[I], "results " + std::to_string(I), Ok);
      }
  }
  const int64_t Block = Call->obs_block > 0 ? Call->obs_block : 256;
  const int64_t Blocks = (Call->obs_end - Call->obs_begin + Block - 1) / Block;
  const int64_t Threads = (Call->draw_end - Call->draw_begin) * Blocks;
  const int64_t Launched = static_cast<int64_t>(O.Grid) * O.Block;
  const int64_t Run = std::min(Threads, Launched);
  if (Run > 0) {
    checkDevice(S, O.Status, static_cast<size_t>(Run) * 4, "the status words", Ok);
    checkDevice(S, reinterpret_cast<uintptr_t>(Call->scratch),
                static_cast<size_t>(Run * Call->scratch_bytes), "the scratch", Ok);
  }
  if (!Ok)
    return; // the status words stay as they were: the host sees the failure
  aimz_fake_entry Entry = C.entries[O.Fn];
  if (!Entry) {
    violation(S, std::string("kernel: no host entry configured for ") + KernelNames[O.Fn]);
    return;
  }
  auto *Status = reinterpret_cast<int32_t *>(O.Status);
  for (int64_t Tid = 0; Tid < Run; ++Tid) {
    aimz_call Local = *Call;
    Local.draw_begin = Call->draw_begin + Tid / Blocks;
    Local.draw_end = Local.draw_begin + 1;
    Local.obs_begin = Call->obs_begin + (Tid % Blocks) * Block;
    Local.obs_end = std::min(Local.obs_begin + Block, Call->obs_end);
    Local.scratch = static_cast<uint8_t *>(Call->scratch) + Tid * Call->scratch_bytes;
    Status[Tid] = Entry(&Local);
    S.Stats.threads_run += 1;
  }
}

void execute(State &S, const Op &O) {
  switch (O.K) {
  case Op::HtoD:
    if (!inAlloc(S, O.Dst, O.N, false) || !inAlloc(S, O.Src, O.N, true)) {
      violation(S, "HtoD copy of " + std::to_string(O.N) + " bytes from " +
                       hex(O.Src) + " to " + hex(O.Dst) +
                       " touches memory freed before the copy ran");
      return;
    }
    std::memcpy(reinterpret_cast<void *>(O.Dst), reinterpret_cast<void *>(O.Src), O.N);
    return;
  case Op::DtoH:
    if (!inAlloc(S, O.Src, O.N, false) || !inAlloc(S, O.Dst, O.N, true)) {
      violation(S, "DtoH copy of " + std::to_string(O.N) + " bytes from " +
                       hex(O.Src) + " to " + hex(O.Dst) +
                       " touches memory freed before the copy ran");
      return;
    }
    std::memcpy(reinterpret_cast<void *>(O.Dst), reinterpret_cast<void *>(O.Src), O.N);
    return;
  case Op::Launch:
    runKernel(S, O);
    return;
  }
}

/// Runs the stream's queued work up to and including sequence number `Upto`.
void drain(State &S, FakeStream *St, uint64_t Upto) {
  while (!St->Q.empty() && St->Q.front().Seq <= Upto) {
    Op O = St->Q.front();
    St->Q.pop_front();
    execute(S, O);
  }
}

/// Whether queued work anywhere still refers to [P, P+Size).
bool inUse(State &S, uintptr_t P, size_t Size) {
  auto Overlaps = [&](uintptr_t A, size_t N) { return A < P + Size && P < A + N; };
  for (FakeStream *St : S.Streams)
    for (const Op &O : St->Q) {
      if (O.K == Op::Launch) {
        if (Overlaps(O.Call, sizeof(aimz_call)) || Overlaps(O.Status, 4))
          return true;
        continue;
      }
      if (Overlaps(O.Dst, O.N) || Overlaps(O.Src, O.N))
        return true;
    }
  return false;
}

Result enqueueCopy(Op::Kind K, uintptr_t Dst, uintptr_t Src, size_t N, void *Stream) {
  State &S = state();
  std::lock_guard<std::mutex> L(S.M);
  if (!hasContext())
    return InvalidContext;
  auto *St = static_cast<FakeStream *>(Stream);
  if (!St || !S.Streams.count(St)) {
    violation(S, "async copy on the NULL or an unknown stream");
    return InvalidHandle;
  }
  uintptr_t Host = K == Op::HtoD ? Src : Dst, Dev = K == Op::HtoD ? Dst : Src;
  if (!inAlloc(S, Dev, N, false)) {
    violation(S, "async copy: device range " + hex(Dev) + " + " + std::to_string(N) +
                     " is not in one device allocation");
    return InvalidValue;
  }
  if (!inAlloc(S, Host, N, true)) {
    violation(S, "async copy: host range " + hex(Host) + " + " + std::to_string(N) +
                     " is not pinned memory from cuMemHostAlloc");
    return InvalidValue;
  }
  Op O{K, ++S.Seq};
  O.Dst = Dst;
  O.Src = Src;
  O.N = N;
  St->Q.push_back(O);
  return Success;
}

} // namespace

extern "C" {

void aimz_fake_cuda_configure(const aimz_fake_cuda_config *Config) {
  State &S = state();
  std::lock_guard<std::mutex> L(S.M);
  S.Config = *Config;
  S.Stats = aimz_fake_cuda_stats{};
  S.Violations.clear();
}

void aimz_fake_cuda_get_stats(aimz_fake_cuda_stats *Out) {
  State &S = state();
  std::lock_guard<std::mutex> L(S.M);
  *Out = S.Stats;
  Out->live_device_allocations = 0;
  Out->live_pinned_allocations = 0;
  for (auto &[P, A] : S.Allocs)
    (A.Pinned ? Out->live_pinned_allocations : Out->live_device_allocations) += 1;
  Out->live_contexts = 0;
  for (const FakeContext &C : S.Contexts)
    Out->live_contexts += C.Retained > 0;
}

const char *aimz_fake_cuda_violations(void) {
  State &S = state();
  std::lock_guard<std::mutex> L(S.M);
  S.ViolationText.clear();
  for (const std::string &V : S.Violations)
    S.ViolationText += V + "\n";
  return S.ViolationText.c_str();
}

// The driver API -------------------------------------------------------------

Result cuInit(unsigned Flags) {
  State &S = state();
  std::lock_guard<std::mutex> L(S.M);
  if (Flags != 0)
    return InvalidValue;
  if (S.Config.devices <= 0)
    return NoDevice;
  S.Initialized = true;
  return Success;
}

Result cuDriverGetVersion(int *V) {
  *V = 13000;
  return Success;
}

Result cuDeviceGetCount(int *Count) {
  State &S = state();
  std::lock_guard<std::mutex> L(S.M);
  if (!S.Initialized)
    return NotInitialized;
  *Count = std::min(S.Config.devices, 8);
  return Success;
}

Result cuDeviceGet(int *Dev, int Ordinal) {
  State &S = state();
  std::lock_guard<std::mutex> L(S.M);
  if (Ordinal < 0 || Ordinal >= std::min(S.Config.devices, 8))
    return InvalidDevice;
  *Dev = Ordinal;
  return Success;
}

Result cuDeviceGetName(char *Name, int Len, int Dev) {
  std::snprintf(Name, static_cast<size_t>(Len), "Fake GPU %d", Dev);
  return Success;
}

Result cuDeviceGetAttribute(int *V, int Attr, int Dev) {
  State &S = state();
  std::lock_guard<std::mutex> L(S.M);
  switch (Attr) {
  case 16: *V = 4; return Success;                       // SM count
  case 75: *V = S.Config.cc_major; return Success;
  case 76: *V = S.Config.cc_minor; return Success;
  default: return InvalidValue;
  }
}

Result cuDeviceTotalMem_v2(size_t *Bytes, int Dev) {
  *Bytes = state().Config.total_memory;
  return Success;
}

Result cuDevicePrimaryCtxRetain(void **Ctx, int Dev) {
  State &S = state();
  std::lock_guard<std::mutex> L(S.M);
  if (Dev < 0 || Dev >= 8)
    return InvalidDevice;
  S.Contexts[Dev].Device = Dev;
  S.Contexts[Dev].Retained += 1;
  *Ctx = &S.Contexts[Dev];
  return Success;
}

Result cuDevicePrimaryCtxRelease_v2(int Dev) {
  State &S = state();
  std::lock_guard<std::mutex> L(S.M);
  if (Dev < 0 || Dev >= 8 || S.Contexts[Dev].Retained <= 0)
    return InvalidContext;
  S.Contexts[Dev].Retained -= 1;
  return Success;
}

Result cuCtxCreate_v2(void **, unsigned, int) { return NotSupported; }

Result cuCtxSetCurrent(void *Ctx) {
  Current = static_cast<FakeContext *>(Ctx);
  return Success;
}

Result cuCtxSynchronize() {
  State &S = state();
  std::lock_guard<std::mutex> L(S.M);
  if (!hasContext())
    return InvalidContext;
  for (FakeStream *St : S.Streams)
    drain(S, St, UINT64_MAX);
  return Success;
}

Result cuMemGetInfo_v2(size_t *Free, size_t *Total) {
  State &S = state();
  std::lock_guard<std::mutex> L(S.M);
  *Total = S.Config.total_memory;
  *Free = S.Config.total_memory > S.DeviceBytes ? S.Config.total_memory - S.DeviceBytes : 0;
  return Success;
}

Result cuMemAlloc_v2(DevPtr *Ptr, size_t Bytes) {
  State &S = state();
  std::lock_guard<std::mutex> L(S.M);
  if (!hasContext())
    return InvalidContext;
  if (Bytes == 0)
    return InvalidValue;
  if (S.DeviceBytes + Bytes > S.Config.total_memory)
    return OutOfMemory;
  size_t Rounded = (Bytes + 255) / 256 * 256;
  void *P = std::aligned_alloc(256, Rounded);
  if (!P)
    return OutOfMemory;
  std::memset(P, 0xCD, Rounded); // fresh device memory is not zero
  S.Allocs[reinterpret_cast<uintptr_t>(P)] = {Bytes, false};
  S.DeviceBytes += Bytes;
  *Ptr = reinterpret_cast<uintptr_t>(P);
  return Success;
}

Result cuMemFree_v2(DevPtr Ptr) {
  State &S = state();
  std::lock_guard<std::mutex> L(S.M);
  if (!hasContext())
    return InvalidContext;
  auto It = S.Allocs.find(static_cast<uintptr_t>(Ptr));
  if (It == S.Allocs.end() || It->second.Pinned)
    return InvalidValue;
  if (inUse(S, It->first, It->second.Size))
    violation(S, "cuMemFree of " + hex(It->first) + " while queued work uses it");
  S.DeviceBytes -= It->second.Size;
  std::free(reinterpret_cast<void *>(It->first));
  S.Allocs.erase(It);
  return Success;
}

Result cuMemHostAlloc(void **Ptr, size_t Bytes, unsigned Flags) {
  State &S = state();
  std::lock_guard<std::mutex> L(S.M);
  if (!hasContext())
    return InvalidContext;
  if (Bytes == 0)
    return InvalidValue;
  size_t Rounded = (Bytes + 4095) / 4096 * 4096;
  void *P = std::aligned_alloc(4096, Rounded);
  if (!P)
    return OutOfMemory;
  std::memset(P, 0xAB, Rounded);
  S.Allocs[reinterpret_cast<uintptr_t>(P)] = {Bytes, true};
  *Ptr = P;
  return Success;
}

Result cuMemFreeHost(void *Ptr) {
  State &S = state();
  std::lock_guard<std::mutex> L(S.M);
  if (!hasContext())
    return InvalidContext;
  auto It = S.Allocs.find(reinterpret_cast<uintptr_t>(Ptr));
  if (It == S.Allocs.end() || !It->second.Pinned)
    return InvalidValue;
  if (inUse(S, It->first, It->second.Size))
    violation(S, "cuMemFreeHost of " + hex(It->first) + " while queued work uses it");
  std::free(Ptr);
  S.Allocs.erase(It);
  return Success;
}

Result cuMemcpyHtoDAsync_v2(DevPtr Dst, const void *Src, size_t N, void *Stream) {
  return enqueueCopy(Op::HtoD, static_cast<uintptr_t>(Dst),
                     reinterpret_cast<uintptr_t>(Src), N, Stream);
}

Result cuMemcpyDtoHAsync_v2(void *Dst, DevPtr Src, size_t N, void *Stream) {
  return enqueueCopy(Op::DtoH, reinterpret_cast<uintptr_t>(Dst),
                     static_cast<uintptr_t>(Src), N, Stream);
}

Result cuModuleLoadDataEx(void **Mod, const void *Image, unsigned NumOptions,
                          int *Options, void **Values) {
  State &S = state();
  std::lock_guard<std::mutex> L(S.M);
  if (!hasContext())
    return InvalidContext;
  char *Log = nullptr;
  size_t LogSize = 0;
  int SizeSlot = -1;
  for (unsigned I = 0; I < NumOptions; ++I) {
    if (Options[I] == 5)
      Log = static_cast<char *>(Values[I]);
    if (Options[I] == 6) {
      LogSize = reinterpret_cast<uintptr_t>(Values[I]);
      SizeSlot = static_cast<int>(I);
    }
  }
  auto Fail = [&](Result R, const std::string &Msg) {
    if (Log && LogSize > 0) {
      std::snprintf(Log, LogSize, "%s", Msg.c_str());
      if (SizeSlot >= 0)
        Values[SizeSlot] = reinterpret_cast<void *>(
            static_cast<uintptr_t>(std::min(Msg.size() + 1, LogSize)));
    }
    return R;
  };
  std::string Ptx(static_cast<const char *>(Image));
  if (Ptx.find(".version") == std::string::npos)
    return Fail(InvalidPtx, "ptxas fatal   : not PTX text");
  int Arch = 0;
  size_t T = Ptx.find(".target sm_");
  if (T != std::string::npos)
    Arch = std::atoi(Ptx.c_str() + T + 11);
  if (Arch <= 0)
    return Fail(InvalidPtx, "ptxas fatal   : no .target");
  const int DevArch = S.Config.cc_major * 10 + S.Config.cc_minor;
  if (Arch > DevArch)
    return Fail(NoBinaryForGpu, "ptxas fatal   : SM version specified by .target "
                                "is higher than default SM version assumed");
  if (S.Config.fail_jit_all || (S.Config.fail_jit_sm90 && Arch == 90))
    return Fail(InvalidPtx, "ptxas application ptx input, line 1; fatal   : "
                            "fake JIT failure for sm_" + std::to_string(Arch));
  auto *M = new FakeModule{Arch, std::move(Ptx)};
  S.Modules.insert(M);
  S.Stats.last_ptx_arch = Arch;
  *Mod = M;
  return Success;
}

Result cuModuleUnload(void *Mod) {
  State &S = state();
  std::lock_guard<std::mutex> L(S.M);
  auto *M = static_cast<FakeModule *>(Mod);
  if (!S.Modules.erase(M))
    return InvalidHandle;
  for (auto It = S.Functions.begin(); It != S.Functions.end();) {
    if ((*It)->M == M) {
      delete *It;
      It = S.Functions.erase(It);
    } else {
      ++It;
    }
  }
  delete M;
  return Success;
}

Result cuModuleGetFunction(void **F, void *Mod, const char *Name) {
  State &S = state();
  std::lock_guard<std::mutex> L(S.M);
  auto *M = static_cast<FakeModule *>(Mod);
  if (!S.Modules.count(M))
    return InvalidHandle;
  for (int I = 0; I < 3; ++I)
    if (std::strcmp(Name, KernelNames[I]) == 0 &&
        M->Ptx.find(std::string(".entry ") + Name + "(") != std::string::npos) {
      auto *Fn = new FakeFunction{M, I};
      S.Functions.insert(Fn);
      *F = Fn;
      return Success;
    }
  return NotFound;
}

Result cuLaunchKernel(void *F, unsigned GridX, unsigned GridY, unsigned GridZ,
                      unsigned BlockX, unsigned BlockY, unsigned BlockZ,
                      unsigned Shared, void *Stream, void **Params, void **Extra) {
  State &S = state();
  std::lock_guard<std::mutex> L(S.M);
  if (!hasContext())
    return InvalidContext;
  auto *Fn = static_cast<FakeFunction *>(F);
  auto *St = static_cast<FakeStream *>(Stream);
  if (!S.Functions.count(Fn) || !St || !S.Streams.count(St))
    return InvalidHandle;
  if (GridX == 0 || GridY != 1 || GridZ != 1 || BlockX == 0 || BlockX > 1024 ||
      BlockY != 1 || BlockZ != 1 || Shared != 0 || Extra || !Params)
    return InvalidValue;
  // The parameter values are read now, as the driver does.
  Op O{Op::Launch, ++S.Seq};
  O.Fn = Fn->Index;
  O.Grid = GridX;
  O.Block = BlockX;
  O.Call = static_cast<uintptr_t>(*static_cast<DevPtr *>(Params[0]));
  O.Status = static_cast<uintptr_t>(*static_cast<DevPtr *>(Params[1]));
  St->Q.push_back(O);
  return Success;
}

Result cuStreamCreate(void **Stream, unsigned Flags) {
  State &S = state();
  std::lock_guard<std::mutex> L(S.M);
  if (!hasContext())
    return InvalidContext;
  auto *St = new FakeStream();
  S.Streams.insert(St);
  *Stream = St;
  return Success;
}

Result cuStreamDestroy_v2(void *Stream) {
  State &S = state();
  std::lock_guard<std::mutex> L(S.M);
  auto *St = static_cast<FakeStream *>(Stream);
  if (!S.Streams.count(St))
    return InvalidHandle;
  drain(S, St, UINT64_MAX); // the driver lets queued work finish
  S.Streams.erase(St);
  for (FakeEvent *E : S.Events)
    if (E->S == St)
      E->S = nullptr;
  delete St;
  return Success;
}

Result cuStreamSynchronize(void *Stream) {
  State &S = state();
  std::lock_guard<std::mutex> L(S.M);
  if (!hasContext())
    return InvalidContext;
  auto *St = static_cast<FakeStream *>(Stream);
  if (!S.Streams.count(St))
    return InvalidHandle;
  drain(S, St, UINT64_MAX);
  return Success;
}

Result cuEventCreate(void **Event, unsigned Flags) {
  State &S = state();
  std::lock_guard<std::mutex> L(S.M);
  if (!hasContext())
    return InvalidContext;
  auto *E = new FakeEvent();
  S.Events.insert(E);
  *Event = E;
  return Success;
}

Result cuEventDestroy_v2(void *Event) {
  State &S = state();
  std::lock_guard<std::mutex> L(S.M);
  auto *E = static_cast<FakeEvent *>(Event);
  if (!S.Events.erase(E))
    return InvalidHandle;
  delete E;
  return Success;
}

Result cuEventRecord(void *Event, void *Stream) {
  State &S = state();
  std::lock_guard<std::mutex> L(S.M);
  if (!hasContext())
    return InvalidContext;
  auto *E = static_cast<FakeEvent *>(Event);
  auto *St = static_cast<FakeStream *>(Stream);
  if (!S.Events.count(E) || !S.Streams.count(St))
    return InvalidHandle;
  E->S = St;
  E->Seq = ++S.Seq;
  return Success;
}

Result cuEventSynchronize(void *Event) {
  State &S = state();
  std::lock_guard<std::mutex> L(S.M);
  if (!hasContext())
    return InvalidContext;
  auto *E = static_cast<FakeEvent *>(Event);
  if (!S.Events.count(E))
    return InvalidHandle;
  if (E->S)
    drain(S, E->S, E->Seq);
  return Success;
}

Result cuEventQuery(void *Event) {
  return cuEventSynchronize(Event);
}

Result cuGetErrorString(Result R, const char **Text) {
  switch (R) {
  case Success: *Text = "no error"; return Success;
  case InvalidValue: *Text = "invalid argument"; return Success;
  case OutOfMemory: *Text = "out of memory"; return Success;
  case NotInitialized: *Text = "initialization error"; return Success;
  case NoDevice: *Text = "no CUDA-capable device is detected"; return Success;
  case InvalidDevice: *Text = "invalid device ordinal"; return Success;
  case InvalidContext: *Text = "invalid device context"; return Success;
  case NoBinaryForGpu: *Text = "no kernel image is available for execution on the device"; return Success;
  case InvalidPtx: *Text = "a PTX JIT compilation failed"; return Success;
  case InvalidHandle: *Text = "invalid resource handle"; return Success;
  case NotFound: *Text = "named symbol not found"; return Success;
  case NotSupported: *Text = "operation not supported"; return Success;
  default: *Text = nullptr; return InvalidValue;
  }
}

Result cuGetErrorName(Result R, const char **Text) {
  switch (R) {
  case Success: *Text = "CUDA_SUCCESS"; return Success;
  case InvalidValue: *Text = "CUDA_ERROR_INVALID_VALUE"; return Success;
  case OutOfMemory: *Text = "CUDA_ERROR_OUT_OF_MEMORY"; return Success;
  case NotInitialized: *Text = "CUDA_ERROR_NOT_INITIALIZED"; return Success;
  case NoDevice: *Text = "CUDA_ERROR_NO_DEVICE"; return Success;
  case InvalidDevice: *Text = "CUDA_ERROR_INVALID_DEVICE"; return Success;
  case InvalidContext: *Text = "CUDA_ERROR_INVALID_CONTEXT"; return Success;
  case NoBinaryForGpu: *Text = "CUDA_ERROR_NO_BINARY_FOR_GPU"; return Success;
  case InvalidPtx: *Text = "CUDA_ERROR_INVALID_PTX"; return Success;
  case InvalidHandle: *Text = "CUDA_ERROR_INVALID_HANDLE"; return Success;
  case NotFound: *Text = "CUDA_ERROR_NOT_FOUND"; return Success;
  case NotSupported: *Text = "CUDA_ERROR_NOT_SUPPORTED"; return Success;
  default: *Text = nullptr; return InvalidValue;
  }
}

} // extern "C"
