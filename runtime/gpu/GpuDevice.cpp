//===- GpuDevice.cpp - Run a compiled model's PTX kernels on one GPU ------===//
//
// Per rectangle, one "call block" carries everything the kernels read that is
// not resident: the device-side aimz_call of each launch, the dims, the view
// tables, every strides array, the status words (pre-set to "did not run")
// and any non-resident arrays. It is assembled in pinned memory and goes to
// the GPU in one copy; results come back into pinned memory in one copy and
// are scattered into the host views when the rectangle is retired.
//
//===----------------------------------------------------------------------===//
#include "aimz/gpu/GpuDevice.h"
#include "aimz/AbiSymbols.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <chrono>
#include <cstring>

namespace aimz::gpu {

namespace {

llvm::Error error(const llvm::Twine &Msg) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), Msg);
}

/// The observation block of runThread() in runtime/support/ModelSupport.cpp
/// when the call's obs_block is 0.
constexpr int64_t DefaultObsBlock = 256;
/// Alignment of the pieces of the call block and of the results buffer.
constexpr size_t PieceAlign = 256;
/// What the status words hold before the kernel writes them.
constexpr int32_t StatusNotRun = -1;

using abi::KernelNames;
const char *const EntryNames[3] = {"predict", "log-likelihood",
                                   "prior-predictive"};

size_t alignUp(size_t X, size_t A) { return (X + A - 1) / A * A; }

double since(std::chrono::steady_clock::time_point T0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - T0)
      .count();
}

std::string statusText(int32_t S) {
  switch (S) {
  case AIMZ_SCRATCH_TOO_SMALL:
    return "status 1: the scratch per thread is smaller than the model needs";
  case AIMZ_INDEX_OUT_OF_RANGE:
    return "status 2: an integer index input is outside its dimension; check "
           "the index arrays against the model's dimensions";
  case AIMZ_BAD_ABI_VERSION:
    return "status 3: the call's ABI version is not the model's";
  case AIMZ_NEEDS_ALL_OBSERVATIONS:
    return "status 4: the model has a joint site and was called over part "
           "of the observations";
  case StatusNotRun:
    return "a thread of the rectangle did not run";
  default:
    return "status " + std::to_string(S);
  }
}

void *hostPtr(cu::DevicePtr P) {
  return reinterpret_cast<void *>(static_cast<uintptr_t>(P));
}

std::string bytesText(uint64_t B) {
  if (B >= (1ull << 30))
    return llvm::formatv("{0:f2} GiB", static_cast<double>(B) / (1ull << 30)).str();
  if (B >= (1ull << 20))
    return llvm::formatv("{0:f1} MiB", static_cast<double>(B) / (1ull << 20)).str();
  return std::to_string(B) + " bytes";
}

} // namespace

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

int64_t spanBytes(llvm::ArrayRef<int64_t> Shape, llvm::ArrayRef<int64_t> Strides,
                  int64_t ElemBytes) {
  int64_t Last = 0;
  for (size_t I = 0; I < Shape.size(); ++I) {
    if (Shape[I] <= 0)
      return 0;
    Last += (Shape[I] - 1) * Strides[I];
  }
  return (Last + 1) * ElemBytes;
}

void copyStrided(uint8_t *Dst, llvm::ArrayRef<int64_t> DstStrides,
                 const uint8_t *Src, llvm::ArrayRef<int64_t> SrcStrides,
                 llvm::ArrayRef<int64_t> Counts, int64_t ElemBytes) {
  struct Dim {
    int64_t N, D, S;
  };
  llvm::SmallVector<Dim, 8> Dims;
  for (size_t I = 0; I < Counts.size(); ++I) {
    if (Counts[I] <= 0)
      return;
    if (Counts[I] == 1)
      continue;
    Dim X{Counts[I], DstStrides[I], SrcStrides[I]};
    // Fold into the outer dim when both layouts are contiguous across them.
    if (!Dims.empty() && Dims.back().D == X.D * X.N && Dims.back().S == X.S * X.N)
      Dims.back() = {Dims.back().N * X.N, X.D, X.S};
    else
      Dims.push_back(X);
  }
  if (Dims.empty()) {
    std::memcpy(Dst, Src, ElemBytes);
    return;
  }
  const Dim In = Dims.pop_back_val();
  const bool Contiguous = In.D == 1 && In.S == 1;
  llvm::SmallVector<int64_t, 8> Idx(Dims.size(), 0);
  while (true) {
    int64_t DOff = 0, SOff = 0;
    for (size_t K = 0; K < Dims.size(); ++K) {
      DOff += Idx[K] * Dims[K].D;
      SOff += Idx[K] * Dims[K].S;
    }
    uint8_t *D = Dst + DOff * ElemBytes;
    const uint8_t *S = Src + SOff * ElemBytes;
    if (Contiguous) {
      std::memcpy(D, S, static_cast<size_t>(In.N * ElemBytes));
    } else {
      for (int64_t J = 0; J < In.N; ++J)
        std::memcpy(D + J * In.D * ElemBytes, S + J * In.S * ElemBytes,
                    static_cast<size_t>(ElemBytes));
    }
    int K = static_cast<int>(Dims.size()) - 1;
    for (; K >= 0; --K) {
      if (++Idx[K] < Dims[K].N)
        break;
      Idx[K] = 0;
    }
    if (K < 0)
      break;
  }
}

llvm::Expected<int64_t> scratchBytesPerThread(int32_t (*HostEntry)(aimz_call *),
                                              const aimz_call &HostCall) {
  // No draws: the entry point sizes its scratch from the dims, obs_block
  // and the observation range up front, then has nothing to do. The range
  // stays: a model with a joint site sizes its one block from it, and
  // refuses a call over part of the observations.
  aimz_call C = HostCall;
  C.draw_end = C.draw_begin;
  C.scratch = nullptr;
  C.scratch_bytes = 0;
  C.scratch_needed = -1;
  int32_t RC = HostEntry(&C);
  if (RC != AIMZ_OK && RC != AIMZ_SCRATCH_TOO_SMALL)
    return error("sizing the GPU scratch: the model's host entry point "
                 "returned " + statusText(RC));
  if (C.scratch_needed < 0)
    return error("sizing the GPU scratch: the model's host entry point did "
                 "not report scratch_needed");
  return C.scratch_needed;
}

//===----------------------------------------------------------------------===//
// Set-up and tear-down
//===----------------------------------------------------------------------===//

llvm::Expected<std::unique_ptr<GpuDevice>>
GpuDevice::create(int Ordinal, const char *PtxSm80, const char *PtxSm90,
                  const GpuOptions &Opts) {
  auto D = CudaDriver::get();
  if (!D)
    return D.takeError();
  return create(*D, Ordinal, PtxSm80, PtxSm90, Opts);
}

llvm::Expected<std::unique_ptr<GpuDevice>>
GpuDevice::create(CudaDriver &Driver, int Ordinal, const char *PtxSm80,
                  const char *PtxSm90, const GpuOptions &Opts) {
  std::unique_ptr<GpuDevice> G(new GpuDevice(Driver));
  if (llvm::Error E = G->init(Ordinal, PtxSm80, PtxSm90, Opts))
    return std::move(E); // the destructor releases what init() took
  return std::move(G);
}

std::string GpuDevice::where() const {
  return "GPU " + std::to_string(Info.Ordinal) + " (" + Info.Name + ")";
}

llvm::Error GpuDevice::makeCurrent() {
  return Drv.check(Drv.CtxSetCurrent(Ctx), where() + ": cuCtxSetCurrent");
}

llvm::Error GpuDevice::init(int Ordinal, const char *PtxSm80,
                            const char *PtxSm90, const GpuOptions &O) {
  Opts = O;
  Opts.ThreadsPerBlock = std::clamp(Opts.ThreadsPerBlock, 32, 1024);
  Opts.MaxThreadsPerLaunch = std::max<int64_t>(Opts.MaxThreadsPerLaunch, 1);
  Opts.UploadChunkBytes = std::max<int64_t>(Opts.UploadChunkBytes, 1 << 16);
  bool Try90 = false;
  if (llvm::Error E = chooseDevice(Ordinal, PtxSm80, PtxSm90, Try90))
    return E;
  if (llvm::Error E =
          Drv.check(Drv.DeviceGet(&Dev, Ordinal), where() + ": cuDeviceGet"))
    return E;
  cu::Context C = nullptr;
  if (llvm::Error E = Drv.check(Drv.DevicePrimaryCtxRetain(&C, Dev),
                                where() + ": cuDevicePrimaryCtxRetain"))
    return E;
  Ctx = C;
  if (llvm::Error E = makeCurrent())
    return E;
  if (llvm::Error E = loadModule(PtxSm80, PtxSm90, Try90))
    return E;
  if (llvm::Error E = createStreams())
    return E;
  return grow(Dummy, PieceAlign, "an empty array's stand-in");
}

llvm::Error GpuDevice::chooseDevice(int Ordinal, const char *PtxSm80,
                                    const char *PtxSm90, bool &Try90) {
  const auto &Devs = Drv.devices();
  if (Ordinal < 0 || Ordinal >= static_cast<int>(Devs.size()))
    return error("GPU " + std::to_string(Ordinal) + " does not exist (the "
                 "NVIDIA driver sees " + std::to_string(Devs.size()) +
                 " GPU" + (Devs.size() == 1 ? "" : "s") + ")");
  Info = Devs[Ordinal];
  if (Opts.ScratchBudgetBytes <= 0)
    Opts.ScratchBudgetBytes =
        Info.TotalMemory ? std::min<int64_t>(Info.TotalMemory / 5, int64_t(24) << 30)
                         : int64_t(1) << 30;

  const bool Has80 = PtxSm80 && *PtxSm80, Has90 = PtxSm90 && *PtxSm90;
  if (!Has80 && !Has90)
    return error("the model has no PTX (its aimzc was built without CUDA's "
                 "headers); recompile it with an aimzc built where "
                 "/usr/local/cuda is installed");
  if (Info.CcMajor < 8)
    return error(llvm::formatv("{0} has compute capability {1}.{2}; the "
                               "model's kernels need 8.0 (sm_80) or newer",
                               where(), Info.CcMajor, Info.CcMinor)
                     .str());
  Try90 = Has90 && Info.CcMajor >= 9 && !Opts.PreferSm80;
  if (!Try90 && !Has80)
    return error(llvm::formatv("the model has only sm_90 PTX, which {0} "
                               "(compute capability {1}.{2}) cannot run",
                               where(), Info.CcMajor, Info.CcMinor)
                     .str());
  return llvm::Error::success();
}

llvm::Error GpuDevice::loadPtx(const char *Ptx, int Arch) {
  // JIT-compile the PTX for this GPU (the driver caches the result in its
  // compute cache, ~/.nv/ComputeCache, so later runs load it quickly).
  std::vector<char> Log(1 << 16, 0);
  cu::JitOption Options[] = {cu::JitErrorLogBuffer,
                             cu::JitErrorLogBufferSizeBytes};
  void *Values[] = {Log.data(), reinterpret_cast<void *>(
                                    static_cast<uintptr_t>(Log.size() - 1))};
  cu::Module M = nullptr;
  cu::Result R = Drv.ModuleLoadDataEx(&M, Ptx, 2, Options, Values);
  if (R == cu::Success) {
    Mod = M;
    PtxArch = Arch;
    return llvm::Error::success();
  }
  Log.back() = 0;
  std::string Text(Log.data());
  while (!Text.empty() && (Text.back() == '\n' || Text.back() == ' '))
    Text.pop_back();
  return error(llvm::formatv("{0}: JIT compilation of the model's sm_{1} "
                             "PTX failed: {2}{3}{4}",
                             where(), Arch, Drv.errorText(R),
                             Text.empty() ? "" : "\n", Text)
                   .str());
}

llvm::Error GpuDevice::loadModule(const char *PtxSm80, const char *PtxSm90,
                                  bool Try90) {
  const bool Has80 = PtxSm80 && *PtxSm80;
  if (Try90) {
    llvm::Error E = loadPtx(PtxSm90, 90);
    if (E && Has80) {
      std::string First = llvm::toString(std::move(E));
      if (llvm::Error E80 = loadPtx(PtxSm80, 80))
        return error(First + "\n" + llvm::toString(std::move(E80)));
      Notes.push_back(First + "\n(using the sm_80 PTX instead)");
    } else if (E) {
      return E;
    }
  } else if (llvm::Error E = loadPtx(PtxSm80, 80)) {
    return E;
  }
  for (int K = 0; K < 3; ++K)
    if (llvm::Error E = Drv.check(
            Drv.ModuleGetFunction(&Kernels[K], Mod, KernelNames[K]),
            where() + ": the model's PTX has no kernel " + KernelNames[K]))
      return E;
  return llvm::Error::success();
}

llvm::Error GpuDevice::createStreams() {
  // Streams that do not synchronize with the legacy default stream.
  for (Slot &S : Slots) {
    if (llvm::Error E = Drv.check(Drv.StreamCreate(&S.Stream, cu::StreamNonBlocking),
                                  where() + ": cuStreamCreate"))
      return E;
    if (llvm::Error E = Drv.check(Drv.EventCreate(&S.Done, cu::EventDisableTiming),
                                  where() + ": cuEventCreate"))
      return E;
  }
  if (llvm::Error E = Drv.check(Drv.StreamCreate(&UploadStream, cu::StreamNonBlocking),
                                where() + ": cuStreamCreate"))
    return E;
  for (cu::Event &Ev : UploadDone)
    if (llvm::Error E = Drv.check(Drv.EventCreate(&Ev, cu::EventDisableTiming),
                                  where() + ": cuEventCreate"))
      return E;
  return llvm::Error::success();
}

GpuDevice::~GpuDevice() {
  if (!Ctx)
    return;
  // Unfinished rectangles are waited for, their results dropped.
  Drv.CtxSetCurrent(Ctx);
  for (Slot &S : Slots)
    if (S.Stream)
      Drv.StreamSynchronize(S.Stream);
  if (UploadStream)
    Drv.StreamSynchronize(UploadStream);
  for (auto &[Host, R] : ResidentArrays)
    Drv.MemFree(R.Ptr);
  ResidentArrays.clear();
  for (Slot &S : Slots) {
    release(S.Block);
    release(S.Results);
    release(S.Scratch);
    release(S.BlockStage);
    release(S.ResultStage);
    if (S.Done)
      Drv.EventDestroy(S.Done);
    if (S.Stream)
      Drv.StreamDestroy(S.Stream);
  }
  for (PinnedBuffer &B : UploadStage)
    release(B);
  for (cu::Event Ev : UploadDone)
    if (Ev)
      Drv.EventDestroy(Ev);
  if (UploadStream)
    Drv.StreamDestroy(UploadStream);
  release(Dummy);
  if (Mod)
    Drv.ModuleUnload(Mod);
  Drv.CtxSetCurrent(nullptr);
  Drv.DevicePrimaryCtxRelease(Dev);
}

//===----------------------------------------------------------------------===//
// Memory
//===----------------------------------------------------------------------===//

llvm::Error GpuDevice::grow(DeviceBuffer &B, size_t Need, const char *What) {
  if (B.Size >= Need)
    return llvm::Error::success();
  // Grow by at least half again, so a slowly growing need reallocates
  // rarely; large buffers round to MiB.
  size_t Want = std::max(Need, B.Size + B.Size / 2);
  Want = alignUp(Want, Want >= (1u << 20) ? (1u << 20) : PieceAlign);
  release(B);
  cu::DevicePtr P = 0;
  cu::Result R = Drv.MemAlloc(&P, Want);
  if (R != cu::Success && Want > Need) {
    Want = alignUp(Need, PieceAlign);
    R = Drv.MemAlloc(&P, Want);
  }
  if (R != cu::Success) {
    size_t Free = 0, Total = 0;
    std::string Mem;
    if (Drv.MemGetInfo(&Free, &Total) == cu::Success)
      Mem = " (" + bytesText(Free) + " free of " + bytesText(Total) + ")";
    return error(where() + ": cannot allocate " + bytesText(Need) + " for " +
                 What + Mem + ": " + Drv.errorText(R));
  }
  B.Ptr = P;
  B.Size = Want;
  return llvm::Error::success();
}

llvm::Error GpuDevice::grow(PinnedBuffer &B, size_t Need, const char *What) {
  if (B.Size >= Need)
    return llvm::Error::success();
  size_t Want = std::max(Need, B.Size + B.Size / 2);
  Want = alignUp(Want, Want >= (1u << 20) ? (1u << 20) : PieceAlign);
  release(B);
  void *P = nullptr;
  cu::Result R = Drv.MemHostAlloc(&P, Want, 0);
  if (R != cu::Success && Want > Need) {
    Want = alignUp(Need, PieceAlign);
    R = Drv.MemHostAlloc(&P, Want, 0);
  }
  if (R != cu::Success)
    return error(where() + ": cannot allocate " + bytesText(Need) +
                 " of pinned host memory for " + What + ": " + Drv.errorText(R));
  B.Ptr = P;
  B.Size = Want;
  return llvm::Error::success();
}

void GpuDevice::release(DeviceBuffer &B) {
  if (B.Ptr)
    Drv.MemFree(B.Ptr);
  B = DeviceBuffer();
}

void GpuDevice::release(PinnedBuffer &B) {
  if (B.Ptr)
    Drv.MemFreeHost(B.Ptr);
  B = PinnedBuffer();
}

llvm::Error GpuDevice::upload(cu::DevicePtr Dst, const void *Src, size_t Bytes) {
  // Two pinned buffers in turn: the host fills one while the other's copy
  // runs. A buffer is refilled only after the copy from it has finished.
  const size_t Chunk = std::min<size_t>(Opts.UploadChunkBytes, Bytes);
  for (PinnedBuffer &B : UploadStage)
    if (llvm::Error E = grow(B, Chunk, "upload staging"))
      return E;
  const auto *S = static_cast<const uint8_t *>(Src);
  size_t K = 0;
  for (size_t Off = 0; Off < Bytes; Off += Chunk, ++K) {
    const size_t N = std::min(Chunk, Bytes - Off);
    PinnedBuffer &Stage = UploadStage[K % 2];
    if (K >= 2)
      if (llvm::Error E = Drv.check(Drv.EventSynchronize(UploadDone[K % 2]),
                                    where() + ": uploading an array"))
        return E;
    std::memcpy(Stage.Ptr, S + Off, N);
    if (llvm::Error E = Drv.check(
            Drv.MemcpyHtoDAsync(Dst + Off, Stage.Ptr, N, UploadStream),
            where() + ": cuMemcpyHtoDAsync"))
      return E;
    if (llvm::Error E = Drv.check(Drv.EventRecord(UploadDone[K % 2], UploadStream),
                                  where() + ": cuEventRecord"))
      return E;
  }
  return Drv.check(Drv.StreamSynchronize(UploadStream),
                   where() + ": uploading an array");
}

llvm::Expected<cu::DevicePtr> GpuDevice::resident(const void *Host, int64_t Bytes,
                                                  const char *What) {
  auto It = ResidentArrays.find(Host);
  if (It != ResidentArrays.end()) {
    if (It->second.Bytes >= Bytes)
      return It->second.Ptr;
    // Larger than the copy cached under the same address: queued kernels
    // may still read the old copy, so wait for them before replacing it.
    if (llvm::Error E = finish())
      return std::move(E);
    Drv.MemFree(It->second.Ptr);
    Stats.ResidentBytes -= It->second.Bytes;
    ResidentArrays.erase(It);
  }
  auto T0 = std::chrono::steady_clock::now();
  cu::DevicePtr P = 0;
  cu::Result R = Drv.MemAlloc(&P, static_cast<size_t>(Bytes));
  if (R != cu::Success) {
    size_t Free = 0, Total = 0;
    std::string Mem;
    if (Drv.MemGetInfo(&Free, &Total) == cu::Success)
      Mem = " (" + bytesText(Free) + " free of " + bytesText(Total) + ")";
    return error(where() + ": cannot keep " + What + " (" + bytesText(Bytes) +
                 ") on the GPU" + Mem + ": " + Drv.errorText(R));
  }
  if (llvm::Error E = upload(P, Host, static_cast<size_t>(Bytes))) {
    Drv.MemFree(P);
    return std::move(E);
  }
  ResidentArrays[Host] = {P, Bytes};
  Stats.ResidentUploads += 1;
  Stats.ResidentBytes += Bytes;
  Stats.UploadSeconds += since(T0);
  return P;
}

llvm::Error GpuDevice::forgetResident(const void *HostData) {
  llvm::Error E = finish();
  auto It = ResidentArrays.find(HostData);
  if (It != ResidentArrays.end()) {
    Drv.MemFree(It->second.Ptr);
    Stats.ResidentBytes -= It->second.Bytes;
    ResidentArrays.erase(It);
  }
  return E;
}

llvm::Error GpuDevice::forgetAllResident() {
  llvm::Error E = finish();
  for (auto &[Host, R] : ResidentArrays)
    Drv.MemFree(R.Ptr);
  ResidentArrays.clear();
  Stats.ResidentBytes = 0;
  return E;
}

//===----------------------------------------------------------------------===//
// Rectangles
//===----------------------------------------------------------------------===//

llvm::Error GpuDevice::run(int Entry, const aimz_call &HostCall,
                           const RectangleLayout &L) {
  if (llvm::Error E = submit(Entry, HostCall, L)) {
    llvm::consumeError(finish());
    return E;
  }
  return finish();
}

llvm::Expected<bool> GpuDevice::checkCall(int Entry, const aimz_call &C,
                                          const RectangleLayout &L) const {
  if (Entry < 0 || Entry > 2)
    return error("GpuDevice::submit: entry " + std::to_string(Entry) +
                 " is not 0 (predict), 1 (log-likelihood) or 2 (prior)");
  if (C.abi_version != AIMZ_ABI_VERSION)
    return error("GpuDevice::submit: the call's abi_version is " +
                 std::to_string(C.abi_version));
  const int64_t Draws = C.draw_end - C.draw_begin;
  const int64_t ObsN = C.obs_end - C.obs_begin;
  if (Draws < 0 || ObsN < 0)
    return error("GpuDevice::submit: an empty or reversed rectangle");
  if (Draws == 0)
    return false;
  if (ObsN == 0)
    return error(llvm::formatv(
                     "{0}: draws {1}..{2} with no observations cannot run on "
                     "the GPU (its kernels run one thread per observation "
                     "block); run this rectangle with the host entry point",
                     where(), C.draw_begin, C.draw_end - 1)
                     .str());
  const size_t NI = L.Inputs.size(), NS = L.Results.size();
  if (L.Posterior.size() != NS)
    return error("GpuDevice::submit: the layout has " +
                 std::to_string(L.Posterior.size()) + " posterior entries and " +
                 std::to_string(NS) + " result entries (one per site each)");
  if ((L.NumDims > 0 && !C.dims) || (NI > 0 && !C.inputs) ||
      (NS > 0 && (!C.posterior || !C.results)))
    return error("GpuDevice::submit: the call lacks dims, inputs, posterior or "
                 "results tables its layout describes");
  if (L.ScratchBytes < 0)
    return error("GpuDevice::submit: negative scratch size");
  auto CheckView = [&](const aimz_view &V, const ArrayLayout &A,
                       const std::string &What) -> llvm::Error {
    if (A.Bytes > 0 && !V.data)
      return error("GpuDevice::submit: " + What + " has " +
                   std::to_string(A.Bytes) + " bytes but no data");
    if (A.Bytes < 0 || A.Rank < 0)
      return error("GpuDevice::submit: " + What + ": negative size or rank");
    if (V.data && A.Rank > 0 && !V.strides)
      return error("GpuDevice::submit: " + What + " has no strides");
    return llvm::Error::success();
  };
  for (size_t I = 0; I < NI; ++I)
    if (llvm::Error E = CheckView(C.inputs[I], L.Inputs[I], "input " + std::to_string(I)))
      return std::move(E);
  if (C.observed)
    for (size_t O = 0; O < L.Observed.size(); ++O)
      if (llvm::Error E = CheckView(C.observed[O], L.Observed[O],
                                    "observed array " + std::to_string(O)))
        return std::move(E);
  if (!C.observed && !L.Observed.empty())
    return error("GpuDevice::submit: the layout has observed values, the call none");
  for (size_t S = 0; S < NS; ++S) {
    if (llvm::Error E = CheckView(C.posterior[S], L.Posterior[S],
                                  "posterior site " + std::to_string(S)))
      return std::move(E);
    const ResultLayout &R = L.Results[S];
    if (!C.results[S].data)
      continue;
    if (R.ElemBytes <= 0 || !C.results[S].strides || R.ObsAxis < -1 ||
        R.ObsAxis >= static_cast<int>(R.Extents.size()))
      return error("GpuDevice::submit: result site " + std::to_string(S) +
                   " is wanted but its layout (element size, strides or "
                   "observation axis) is incomplete");
  }
  return true;
}

std::vector<GpuDevice::Launch>
GpuDevice::planLaunches(const aimz_call &C, int64_t Block,
                        int64_t PerThread) const {
  // Whole rows of observation blocks per launch, as many draws as the
  // per-launch thread bound allows; a single draw's row is cut into
  // launches at block boundaries if it alone is too wide.
  const int64_t Blocks = (C.obs_end - C.obs_begin + Block - 1) / Block;
  int64_t MaxT = Opts.MaxThreadsPerLaunch;
  if (PerThread > 0)
    MaxT = std::min(MaxT, std::max<int64_t>(1, Opts.ScratchBudgetBytes / PerThread));
  std::vector<Launch> Launches;
  int64_t First = 0;
  if (Blocks <= MaxT) {
    const int64_t Step = std::max<int64_t>(1, MaxT / Blocks);
    for (int64_t D = C.draw_begin; D < C.draw_end; D += Step) {
      int64_t DE = std::min(C.draw_end, D + Step);
      Launches.push_back({D, DE, C.obs_begin, C.obs_end, (DE - D) * Blocks, First});
      First += (DE - D) * Blocks;
    }
  } else {
    const int64_t Span = MaxT * Block;
    for (int64_t D = C.draw_begin; D < C.draw_end; ++D)
      for (int64_t O = C.obs_begin; O < C.obs_end; O += Span) {
        int64_t OE = std::min(C.obs_end, O + Span);
        int64_t T = (OE - O + Block - 1) / Block;
        Launches.push_back({D, D + 1, O, OE, T, First});
        First += T;
      }
  }
  return Launches;
}

llvm::Expected<GpuDevice::CallBlock>
GpuDevice::layoutCallBlock(const aimz_call &C, const RectangleLayout &L,
                           size_t NumLaunches, int64_t Threads) {
  const size_t NI = L.Inputs.size(), NS = L.Results.size(),
               NO = C.observed ? L.Observed.size() : 0;
  CallBlock B;
  size_t Off = 0;
  auto Reserve = [&](size_t Bytes, size_t Align = 8) {
    Off = alignUp(Off, Align);
    size_t At = Off;
    Off += Bytes;
    return At;
  };
  B.Calls = Reserve(NumLaunches * sizeof(aimz_call), 16);
  B.Dims = Reserve(static_cast<size_t>(L.NumDims) * 8);
  B.InViews = Reserve(NI * sizeof(aimz_view));
  B.ObsView = Reserve(std::max<size_t>(NO, 1) * sizeof(aimz_view));
  B.PostViews = Reserve(NS * sizeof(aimz_view));
  B.ResViews = Reserve(NS * sizeof(aimz_view));
  auto StridesOf = [&](const aimz_view &V, int Rank) -> size_t {
    return V.data && V.strides && Rank > 0 ? Reserve(static_cast<size_t>(Rank) * 8)
                                           : SIZE_MAX;
  };
  B.InStrides.resize(NI);
  B.PostStrides.resize(NS);
  B.ResStrides.assign(NS, SIZE_MAX);
  for (size_t I = 0; I < NI; ++I)
    B.InStrides[I] = StridesOf(C.inputs[I], L.Inputs[I].Rank);
  B.ObsStrides.resize(NO);
  for (size_t O = 0; O < NO; ++O)
    B.ObsStrides[O] = StridesOf(C.observed[O], L.Observed[O].Rank);
  for (size_t I = 0; I < NS; ++I)
    B.PostStrides[I] = StridesOf(C.posterior[I], L.Posterior[I].Rank);
  for (size_t I = 0; I < NS; ++I)
    if (C.results[I].data)
      B.ResStrides[I] = Reserve((1 + L.Results[I].Extents.size()) * 8);
  B.Status = Reserve(static_cast<size_t>(Threads) * 4, PieceAlign);

  // Array placement: resident arrays are looked up (or uploaded now);
  // streamed ones get a piece of the call block.
  B.InPtr.assign(NI, 0);
  B.PostPtr.assign(NS, 0);
  B.InPiece.assign(NI, SIZE_MAX);
  B.PostPiece.assign(NS, SIZE_MAX);
  auto Place = [&](const aimz_view &V, const ArrayLayout &A, cu::DevicePtr &Ptr,
                   size_t &Piece, const std::string &What) -> llvm::Error {
    if (!V.data)
      return llvm::Error::success(); // stays NULL
    if (A.Bytes == 0) {
      Ptr = Dummy.Ptr;
      return llvm::Error::success();
    }
    if (!A.Resident) {
      Piece = Reserve(static_cast<size_t>(A.Bytes), PieceAlign);
      B.Streamed.push_back({V.data, static_cast<size_t>(A.Bytes), Piece});
      return llvm::Error::success();
    }
    auto P = resident(V.data, A.Bytes, What.c_str());
    if (!P)
      return P.takeError();
    Ptr = *P;
    return llvm::Error::success();
  };
  for (size_t I = 0; I < NI; ++I)
    if (llvm::Error E = Place(C.inputs[I], L.Inputs[I], B.InPtr[I], B.InPiece[I],
                              "input " + std::to_string(I)))
      return std::move(E);
  B.ObsPtr.assign(NO, 0);
  B.ObsPiece.assign(NO, SIZE_MAX);
  for (size_t O = 0; O < NO; ++O)
    if (llvm::Error E = Place(C.observed[O], L.Observed[O], B.ObsPtr[O],
                              B.ObsPiece[O],
                              "observed values " + std::to_string(O)))
      return std::move(E);
  for (size_t I = 0; I < NS; ++I)
    if (llvm::Error E = Place(C.posterior[I], L.Posterior[I], B.PostPtr[I],
                              B.PostPiece[I], "posterior site " + std::to_string(I)))
      return std::move(E);
  B.Bytes = Off;
  return B;
}

GpuDevice::ResultCopies GpuDevice::resultCopies(const aimz_call &C,
                                                const RectangleLayout &L) {
  // Each wanted site compact over the rectangle in the results buffer.
  const size_t NS = L.Results.size();
  const int64_t Draws = C.draw_end - C.draw_begin;
  const int64_t ObsN = C.obs_end - C.obs_begin;
  ResultCopies Out;
  Out.SiteOf.assign(NS, SIZE_MAX);
  for (size_t I = 0; I < NS; ++I) {
    const aimz_view &V = C.results[I];
    if (!V.data)
      continue;
    const ResultLayout &R = L.Results[I];
    SiteCopy SC;
    SC.ElemBytes = R.ElemBytes;
    SC.Counts.push_back(Draws);
    for (size_t J = 0; J < R.Extents.size(); ++J)
      SC.Counts.push_back(static_cast<int>(J) == R.ObsAxis ? ObsN : R.Extents[J]);
    SC.DevStrides.assign(SC.Counts.size(), 1);
    for (size_t J = SC.Counts.size() - 1; J-- > 0;)
      SC.DevStrides[J] = SC.DevStrides[J + 1] * std::max<int64_t>(SC.Counts[J + 1], 1);
    int64_t Elems = 1;
    for (int64_t N : SC.Counts)
      Elems *= std::max<int64_t>(N, 0);
    SC.HostStrides.assign(V.strides, V.strides + SC.Counts.size());
    int64_t HostOff = (C.draw_begin - C.result_draw_origin) * SC.HostStrides[0];
    if (R.ObsAxis >= 0)
      HostOff += (C.obs_begin - C.result_obs_origin) * SC.HostStrides[1 + R.ObsAxis];
    SC.HostBase = static_cast<uint8_t *>(V.data) + HostOff * R.ElemBytes;
    SC.DevOffset = Out.Bytes;
    Out.Bytes = alignUp(Out.Bytes + static_cast<size_t>(Elems * R.ElemBytes), PieceAlign);
    Out.SiteOf[I] = Out.Sites.size();
    Out.Sites.push_back(std::move(SC));
  }
  return Out;
}

void GpuDevice::fillCallBlock(const Slot &S, const aimz_call &C,
                              const RectangleLayout &L, const CallBlock &B,
                              const std::vector<Launch> &Launches,
                              const ResultCopies &R, int64_t PerThread,
                              int64_t Threads) const {
  // In pinned memory, with device addresses.
  const size_t NI = L.Inputs.size(), NS = L.Results.size();
  uint8_t *P = static_cast<uint8_t *>(S.BlockStage.Ptr);
  const cu::DevicePtr Base = S.Block.Ptr;
  auto DevAt = [&](size_t O) { return O == SIZE_MAX ? cu::DevicePtr(0) : Base + O; };
  auto PutView = [&](size_t At, cu::DevicePtr Data, size_t StridesOff) {
    aimz_view V{hostPtr(Data), static_cast<const int64_t *>(hostPtr(DevAt(StridesOff)))};
    std::memcpy(P + At, &V, sizeof V);
  };
  auto PutStrides = [&](size_t At, const int64_t *Src, size_t N) {
    if (At != SIZE_MAX)
      std::memcpy(P + At, Src, N * 8);
  };
  if (L.NumDims > 0)
    std::memcpy(P + B.Dims, C.dims, static_cast<size_t>(L.NumDims) * 8);
  for (size_t I = 0; I < NI; ++I) {
    cu::DevicePtr D = B.InPiece[I] != SIZE_MAX ? DevAt(B.InPiece[I]) : B.InPtr[I];
    PutStrides(B.InStrides[I], C.inputs[I].strides, L.Inputs[I].Rank);
    PutView(B.InViews + I * sizeof(aimz_view), D, B.InStrides[I]);
  }
  // A call with an observed table but no observed arrays (predict) still
  // gets a table of one null view.
  if (C.observed && B.ObsPtr.empty())
    PutView(B.ObsView, 0, SIZE_MAX);
  for (size_t O = 0; O < B.ObsPtr.size(); ++O) {
    cu::DevicePtr D =
        B.ObsPiece[O] != SIZE_MAX ? DevAt(B.ObsPiece[O]) : B.ObsPtr[O];
    PutStrides(B.ObsStrides[O], C.observed[O].strides, L.Observed[O].Rank);
    PutView(B.ObsView + O * sizeof(aimz_view), D, B.ObsStrides[O]);
  }
  for (size_t I = 0; I < NS; ++I) {
    cu::DevicePtr D = B.PostPiece[I] != SIZE_MAX ? DevAt(B.PostPiece[I]) : B.PostPtr[I];
    PutStrides(B.PostStrides[I], C.posterior[I].strides, L.Posterior[I].Rank);
    PutView(B.PostViews + I * sizeof(aimz_view), D, B.PostStrides[I]);
    if (R.SiteOf[I] == SIZE_MAX) {
      PutView(B.ResViews + I * sizeof(aimz_view), 0, SIZE_MAX);
    } else {
      const SiteCopy &SC = R.Sites[R.SiteOf[I]];
      PutStrides(B.ResStrides[I], SC.DevStrides.data(), SC.DevStrides.size());
      PutView(B.ResViews + I * sizeof(aimz_view), S.Results.Ptr + SC.DevOffset,
              B.ResStrides[I]);
    }
  }
  for (size_t K = 0; K < Launches.size(); ++K) {
    const Launch &La = Launches[K];
    aimz_call D = C;
    D.draw_begin = La.DrawBegin;
    D.draw_end = La.DrawEnd;
    D.obs_begin = La.ObsBegin;
    D.obs_end = La.ObsEnd;
    D.dims = static_cast<const int64_t *>(C.dims ? hostPtr(DevAt(B.Dims)) : nullptr);
    D.inputs = static_cast<const aimz_view *>(C.inputs ? hostPtr(DevAt(B.InViews)) : nullptr);
    D.observed = static_cast<const aimz_view *>(C.observed ? hostPtr(DevAt(B.ObsView)) : nullptr);
    D.posterior = static_cast<const aimz_view *>(C.posterior ? hostPtr(DevAt(B.PostViews)) : nullptr);
    D.results = static_cast<const aimz_view *>(C.results ? hostPtr(DevAt(B.ResViews)) : nullptr);
    D.scratch = hostPtr(S.Scratch.Ptr);
    D.scratch_bytes = PerThread;
    D.scratch_needed = 0;
    D.result_draw_origin = C.draw_begin; // the compact results' origin
    D.result_obs_origin = C.obs_begin;
    std::memcpy(P + B.Calls + K * sizeof(aimz_call), &D, sizeof D);
  }
  std::memset(P + B.Status, 0xFF, static_cast<size_t>(Threads) * 4); // StatusNotRun
  static_assert(StatusNotRun == -1, "status words are preset with 0xFF bytes");
  for (const CallBlock::Piece &A : B.Streamed)
    std::memcpy(P + A.Off, A.Src, A.Bytes);
}

llvm::Error GpuDevice::enqueue(Slot &S, int Entry, const CallBlock &B,
                               const std::vector<Launch> &Launches,
                               size_t ResultBytes, int64_t Threads) {
  // Call block in, kernels, results and status out, event.
  uint8_t *P = static_cast<uint8_t *>(S.BlockStage.Ptr);
  const cu::DevicePtr Base = S.Block.Ptr;
  auto Fail = [&](llvm::Error E) {
    Drv.StreamSynchronize(S.Stream); // leave no copy reading our buffers
    return E;
  };
  if (llvm::Error E = Drv.check(Drv.MemcpyHtoDAsync(Base, P, B.Bytes, S.Stream),
                                where() + ": cuMemcpyHtoDAsync"))
    return Fail(std::move(E));
  const int64_t TPB = Opts.ThreadsPerBlock;
  for (size_t K = 0; K < Launches.size(); ++K) {
    const Launch &La = Launches[K];
    cu::DevicePtr CallPtr = Base + B.Calls + K * sizeof(aimz_call);
    cu::DevicePtr StatusPtr = Base + B.Status + static_cast<size_t>(La.FirstThread) * 4;
    void *Params[] = {&CallPtr, &StatusPtr};
    const unsigned Grid = static_cast<unsigned>((La.Threads + TPB - 1) / TPB);
    if (llvm::Error E = Drv.check(
            Drv.LaunchKernel(Kernels[Entry], Grid, 1, 1, static_cast<unsigned>(TPB),
                             1, 1, 0, S.Stream, Params, nullptr),
            where() + ": launching " + KernelNames[Entry]))
      return Fail(std::move(E));
  }
  if (ResultBytes > 0)
    if (llvm::Error E = Drv.check(Drv.MemcpyDtoHAsync(S.ResultStage.Ptr, S.Results.Ptr,
                                                      ResultBytes, S.Stream),
                                  where() + ": cuMemcpyDtoHAsync"))
      return Fail(std::move(E));
  if (llvm::Error E = Drv.check(Drv.MemcpyDtoHAsync(P + B.Status, Base + B.Status,
                                                    static_cast<size_t>(Threads) * 4,
                                                    S.Stream),
                                where() + ": cuMemcpyDtoHAsync"))
    return Fail(std::move(E));
  if (llvm::Error E = Drv.check(Drv.EventRecord(S.Done, S.Stream),
                                where() + ": cuEventRecord"))
    return Fail(std::move(E));
  return llvm::Error::success();
}

llvm::Error GpuDevice::submit(int Entry, const aimz_call &C,
                              const RectangleLayout &L) {
  auto Runs = checkCall(Entry, C, L);
  if (!Runs)
    return Runs.takeError();
  if (!*Runs)
    return llvm::Error::success();
  if (llvm::Error E = makeCurrent())
    return E;
  Slot &S = Slots[NextSlot];
  if (llvm::Error E = retire(S))
    return E;

  const int64_t Block = C.obs_block > 0 ? C.obs_block : DefaultObsBlock;
  const int64_t Threads =
      (C.draw_end - C.draw_begin) * ((C.obs_end - C.obs_begin + Block - 1) / Block);
  const int64_t PerThread = static_cast<int64_t>(alignUp(L.ScratchBytes, 64));
  std::vector<Launch> Launches = planLaunches(C, Block, PerThread);
  int64_t Widest = 0;
  for (const Launch &La : Launches)
    Widest = std::max(Widest, La.Threads);
  auto B = layoutCallBlock(C, L, Launches.size(), Threads);
  if (!B)
    return B.takeError();
  ResultCopies R = resultCopies(C, L);

  // Buffers (grow-only; this slot is idle, so growing is safe).
  const size_t ScratchBytes =
      std::max<size_t>(static_cast<size_t>(Widest * PerThread), PieceAlign);
  if (llvm::Error E = grow(S.Block, B->Bytes, "the call block"))
    return E;
  if (llvm::Error E = grow(S.BlockStage, B->Bytes, "the call block"))
    return E;
  if (llvm::Error E = grow(S.Results, std::max(R.Bytes, PieceAlign), "results"))
    return E;
  if (llvm::Error E = grow(S.ResultStage, std::max(R.Bytes, PieceAlign), "results"))
    return E;
  if (llvm::Error E = grow(S.Scratch, ScratchBytes, "scratch"))
    return E;

  fillCallBlock(S, C, L, *B, Launches, R, PerThread, Threads);
  if (llvm::Error E = enqueue(S, Entry, *B, Launches, R.Bytes, Threads))
    return E;

  S.Busy = true;
  S.Entry = Entry;
  S.DrawBegin = C.draw_begin;
  S.DrawEnd = C.draw_end;
  S.ObsBegin = C.obs_begin;
  S.ObsEnd = C.obs_end;
  S.ObsBlock = Block;
  S.Launches = std::move(Launches);
  S.StatusOffset = B->Status;
  S.Threads = Threads;
  S.ResultBytes = R.Bytes;
  S.Sites = std::move(R.Sites);
  NextSlot ^= 1;
  Stats.Rectangles += 1;
  Stats.Launches += S.Launches.size();
  Stats.Threads += static_cast<uint64_t>(Threads);
  Stats.BytesToDevice += B->Bytes;
  Stats.BytesFromDevice += R.Bytes + static_cast<uint64_t>(Threads) * 4;
  return llvm::Error::success();
}

llvm::Error GpuDevice::retire(Slot &S) {
  if (!S.Busy)
    return llvm::Error::success();
  S.Busy = false;
  const std::string Rect =
      llvm::formatv("{0} rectangle draws {1}..{2} x observations {3}..{4}",
                    EntryNames[S.Entry], S.DrawBegin, S.DrawEnd - 1, S.ObsBegin,
                    S.ObsEnd - 1)
          .str();
  auto T0 = std::chrono::steady_clock::now();
  cu::Result R = Drv.EventSynchronize(S.Done);
  Stats.WaitSeconds += since(T0);
  if (R != cu::Success)
    return error(where() + ": " + Rect + ": " + Drv.errorText(R));

  const auto *Status = reinterpret_cast<const int32_t *>(
      static_cast<const uint8_t *>(S.BlockStage.Ptr) + S.StatusOffset);
  int64_t Bad = -1, NumBad = 0;
  for (int64_t T = 0; T < S.Threads; ++T)
    if (Status[T] != AIMZ_OK) {
      if (Bad < 0)
        Bad = T;
      ++NumBad;
    }
  if (Bad >= 0) {
    const Launch *La = &S.Launches.front();
    for (const Launch &X : S.Launches)
      if (X.FirstThread <= Bad)
        La = &X;
    const int64_t Blocks = (La->ObsEnd - La->ObsBegin + S.ObsBlock - 1) / S.ObsBlock;
    const int64_t T = Bad - La->FirstThread;
    const int64_t Draw = La->DrawBegin + T / Blocks;
    const int64_t O0 = La->ObsBegin + (T % Blocks) * S.ObsBlock;
    const int64_t O1 = std::min(O0 + S.ObsBlock, La->ObsEnd);
    std::string More = NumBad > 1 ? llvm::formatv(" ({0} threads failed)", NumBad).str() : "";
    return error(llvm::formatv("{0}: {1}: the {2} kernel failed at draw {3}, "
                               "observations {4}..{5}{6}: {7}",
                               where(), Rect, EntryNames[S.Entry], Draw, O0,
                               O1 - 1, More, statusText(Status[Bad]))
                     .str());
  }

  auto T1 = std::chrono::steady_clock::now();
  const auto *Src = static_cast<const uint8_t *>(S.ResultStage.Ptr);
  for (const SiteCopy &SC : S.Sites)
    copyStrided(SC.HostBase, SC.HostStrides, Src + SC.DevOffset, SC.DevStrides,
                SC.Counts, SC.ElemBytes);
  Stats.ScatterSeconds += since(T1);
  S.Sites.clear();
  return llvm::Error::success();
}

llvm::Error GpuDevice::finish() {
  if (!Ctx)
    return llvm::Error::success();
  if (llvm::Error E = makeCurrent())
    return E;
  // Oldest first: the slot the next submit would use.
  llvm::Error First = retire(Slots[NextSlot]);
  llvm::Error Second = retire(Slots[NextSlot ^ 1]);
  if (First) {
    llvm::consumeError(std::move(Second));
    return First;
  }
  return Second;
}

} // namespace aimz::gpu
