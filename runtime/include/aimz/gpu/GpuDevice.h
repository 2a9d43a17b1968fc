//===- GpuDevice.h - Run a compiled model's PTX kernels on one GPU -*- C++ -*-===//
//
// A GpuDevice runs rectangles of work (draws x observations, as the host
// entry points of abi.h do) with the PTX kernels a model.so embeds:
//
//   auto Dev = GpuDevice::create(0, aimz_ptx, aimz_ptx_sm90);
//   RectangleLayout L = ...;             // byte sizes and ranks (see below)
//   L.ScratchBytes = *scratchBytesPerThread(aimz_predict, Call);
//   Dev->submit(EntryPredict, Call, L);  // Call: an aimz_call of HOST pointers
//   Dev->submit(EntryPredict, Call2, L); // overlaps with the first
//   Dev->finish();                       // results are in host memory now
//
// The caller describes each rectangle exactly as for the CPU entry point,
// with host pointers; the device builds its own device-side aimz_call:
//  - inputs, observed and posterior arrays are uploaded once and stay
//    resident, cached by host data pointer (ArrayLayout::Resident; the
//    caller must not change such an array's bytes while the device lives,
//    or must call forgetResident first); non-resident arrays are copied
//    with every rectangle;
//  - results are computed into a compact device buffer covering just the
//    rectangle, copied back through pinned memory and scattered into the
//    host views (any strides), so several devices can fill disjoint parts
//    of one chunk buffer;
//  - one thread per (draw, observation block) (runtime/support/
//    ModelSupport.cpp), blocks of 128 threads; a rectangle larger than the
//    scratch budget allows is split into several launches.
// Two slots (each with its own stream, device buffers and pinned staging)
// alternate: a rectangle's copy-back overlaps the next one's kernel, and
// submit() only waits for the rectangle submitted two calls earlier. Device
// and pinned buffers grow and are reused, never shrunk.
//
// A GpuDevice is used by one host thread at a time; each call makes the
// device's (primary) context current on the calling thread.
//
//===----------------------------------------------------------------------===//
#ifndef AIMZ_GPU_GPUDEVICE_H
#define AIMZ_GPU_GPUDEVICE_H

#include "aimz/abi.h"
#include "aimz/gpu/CudaDriver.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"

#include <array>
#include <cstdint>
#include <memory>
#include <unordered_map>
#include <vector>

namespace aimz::gpu {

/// The kernels, in the order of abi.h's entry points.
enum EntryIndex : int {
  EntryPredict = 0,
  EntryLogLikelihood = 1,
  EntryPriorPredictive = 2
};

/// An array an aimz_call points to (an input, the observed values, a
/// posterior site).
struct ArrayLayout {
  /// Bytes reachable from the view's data pointer: from it through the last
  /// element (spanBytes() computes it; strides must be non-negative). 0 for
  /// an absent array (NULL data) or an empty one.
  int64_t Bytes = 0;
  /// Entries of the view's strides array (an input: its rank; a posterior
  /// site: 1 + the site's rank).
  int Rank = 0;
  /// Upload once and keep on the GPU, keyed by the host data pointer; false:
  /// copy with every rectangle (for arrays whose contents change).
  bool Resident = true;
};

/// A site's slot in the results.
struct ResultLayout {
  /// Bytes per element (the manifest's dtype; the model's precision for the
  /// output site of a log-likelihood). 0: not wanted (the view's data must
  /// be NULL).
  int64_t ElemBytes = 0;
  /// The site's shape without the draw axis. The entry at ObsAxis is
  /// ignored: the rectangle's observation count takes its place.
  std::vector<int64_t> Extents;
  /// Position of the observation axis in Extents; -1 for a global site.
  int ObsAxis = -1;
};

/// What the device must know about an aimz_call beyond its pointers: one
/// entry per manifest input and per site, in manifest order.
struct RectangleLayout {
  int64_t NumDims = 0; // entries of call.dims
  std::vector<ArrayLayout> Inputs;
  /// Log-likelihood: one per output (aimz_call::observed[]); empty for
  /// the other entry points.
  std::vector<ArrayLayout> Observed;
  std::vector<ArrayLayout> Posterior; // one per site
  std::vector<ResultLayout> Results;  // one per site
  /// Scratch per thread: the host entry point's scratch_needed for the same
  /// dims and obs_block (scratchBytesPerThread()).
  int64_t ScratchBytes = 0;
};

struct GpuOptions {
  int ThreadsPerBlock = 128;
  /// Upper bound of threads in one launch.
  int64_t MaxThreadsPerLaunch = int64_t(1) << 20;
  /// Scratch memory per slot (two slots); 0: min(1/5 of the GPU's memory,
  /// 24 GiB). Bounds the threads of one launch to budget / scratch per
  /// thread (the MLP needs 1.3 MiB per thread at obs_block 256, 250 KiB at
  /// 16: small blocks keep a large GPU busy).
  int64_t ScratchBudgetBytes = 0;
  /// Size of each of the two pinned buffers resident uploads go through.
  int64_t UploadChunkBytes = int64_t(16) << 20;
  /// Force the sm_80 PTX even on compute capability 9.x.
  bool PreferSm80 = false;
};

struct GpuStats {
  uint64_t Rectangles = 0, Launches = 0, Threads = 0;
  uint64_t ResidentUploads = 0, ResidentBytes = 0; // uploads of resident arrays
  uint64_t BytesToDevice = 0, BytesFromDevice = 0; // per-rectangle traffic
  double UploadSeconds = 0; // host time spent uploading resident arrays
  double WaitSeconds = 0;   // host time spent waiting for rectangles
  double ScatterSeconds = 0; // host time copying results out of pinned memory
};

class GpuDevice {
public:
  /// Opens GPU `Ordinal` of the process-wide driver (CudaDriver::get()) and
  /// JIT-compiles the model's PTX for it: `PtxSm90` on compute capability
  /// 9.0 or newer when not empty (falling back to `PtxSm80` if the driver
  /// rejects it), else `PtxSm80`. A JIT failure reports the driver's log.
  static llvm::Expected<std::unique_ptr<GpuDevice>>
  create(int Ordinal, const char *PtxSm80, const char *PtxSm90,
         const GpuOptions &Opts = {});
  /// The same with a given driver (which must outlive the device).
  static llvm::Expected<std::unique_ptr<GpuDevice>>
  create(CudaDriver &Driver, int Ordinal, const char *PtxSm80,
         const char *PtxSm90, const GpuOptions &Opts = {});

  ~GpuDevice();
  GpuDevice(const GpuDevice &) = delete;
  GpuDevice &operator=(const GpuDevice &) = delete;

  const GpuInfo &info() const { return Info; }
  /// 90 or 80: which PTX the kernels came from.
  int ptxArch() const { return PtxArch; }
  /// Notes worth a warning (e.g. the sm_90 PTX failed and sm_80 was used).
  const std::vector<std::string> &notes() const { return Notes; }
  const GpuStats &stats() const { return Stats; }

  /// Runs one rectangle and waits for it: submit() then finish().
  llvm::Error run(int Entry, const aimz_call &HostCall, const RectangleLayout &L);

  /// Queues one rectangle (Entry: EntryPredict, EntryLogLikelihood or
  /// EntryPriorPredictive). Everything HostCall points to is read before
  /// submit() returns, except the results' host memory, which is written by
  /// a later submit() or by finish() and must stay valid until then. May
  /// wait for (and report the failure of) the rectangle submitted two calls
  /// earlier; on an error, this rectangle was not queued. A rectangle with
  /// no draws does nothing; one with draws but no observations is refused
  /// (the kernels run one thread per observation block, so nothing would
  /// compute its global sites: run it with the host entry point).
  llvm::Error submit(int Entry, const aimz_call &HostCall,
                     const RectangleLayout &L);
  /// Waits for every queued rectangle and copies its results into host
  /// memory; returns the first failure (a kernel status names the draw and
  /// observations of the thread that failed).
  llvm::Error finish();

  /// Drops the resident copy of the array at `HostData` (waits for queued
  /// rectangles first, which may report their failure).
  llvm::Error forgetResident(const void *HostData);
  llvm::Error forgetAllResident();

private:
  struct DeviceBuffer {
    cu::DevicePtr Ptr = 0;
    size_t Size = 0;
  };
  struct PinnedBuffer {
    void *Ptr = nullptr;
    size_t Size = 0;
  };
  struct Launch {
    int64_t DrawBegin, DrawEnd, ObsBegin, ObsEnd;
    int64_t Threads, FirstThread;
  };
  struct SiteCopy {
    uint8_t *HostBase;              // the host element of the rectangle's origin
    std::vector<int64_t> HostStrides, DevStrides, Counts; // elements
    int64_t ElemBytes;
    size_t DevOffset;               // in the results buffer
  };
  struct Slot {
    cu::Stream Stream = nullptr;
    cu::Event Done = nullptr;
    DeviceBuffer Block, Results, Scratch;
    PinnedBuffer BlockStage, ResultStage;
    bool Busy = false;
    int Entry = 0;
    // What retiring the queued rectangle needs.
    int64_t DrawBegin = 0, DrawEnd = 0, ObsBegin = 0, ObsEnd = 0, ObsBlock = 0;
    std::vector<Launch> Launches;
    size_t StatusOffset = 0; // in Block / BlockStage
    int64_t Threads = 0;
    size_t ResultBytes = 0;
    std::vector<SiteCopy> Sites;
  };
  struct Resident {
    cu::DevicePtr Ptr = 0;
    int64_t Bytes = 0;
  };
  /// A rectangle's call block: where each part lies (byte offsets;
  /// SIZE_MAX: absent) and where each array is on the device.
  struct CallBlock {
    size_t Calls = 0, Dims = 0, InViews = 0, ObsView = 0, PostViews = 0,
           ResViews = 0, Status = 0, Bytes = 0;
    std::vector<size_t> InStrides, PostStrides, ResStrides, ObsStrides;
    /// A streamed array, copied into the block at Off.
    struct Piece {
      const void *Src;
      size_t Bytes, Off;
    };
    std::vector<Piece> Streamed;
    /// Resident arrays' device addresses; streamed ones' pieces.
    std::vector<cu::DevicePtr> InPtr, PostPtr;
    std::vector<size_t> InPiece, PostPiece;
    std::vector<cu::DevicePtr> ObsPtr;
    std::vector<size_t> ObsPiece;
  };
  /// Where a rectangle's wanted sites lie in the results buffer.
  struct ResultCopies {
    std::vector<SiteCopy> Sites;
    std::vector<size_t> SiteOf; // per site: index into Sites, or SIZE_MAX
    size_t Bytes = 0;
  };

  GpuDevice(CudaDriver &D) : Drv(D) {}
  llvm::Error init(int Ordinal, const char *PtxSm80, const char *PtxSm90,
                   const GpuOptions &Opts);
  /// init's steps: the GPU and which PTX it runs (Try90), the module
  /// and its kernels, the streams and events.
  llvm::Error chooseDevice(int Ordinal, const char *PtxSm80,
                           const char *PtxSm90, bool &Try90);
  llvm::Error loadPtx(const char *Ptx, int Arch);
  llvm::Error loadModule(const char *PtxSm80, const char *PtxSm90, bool Try90);
  llvm::Error createStreams();
  llvm::Error makeCurrent();
  llvm::Error retire(Slot &S);
  // submit()'s steps.
  /// Checks a call against its layout; false: no draws, nothing to run.
  llvm::Expected<bool> checkCall(int Entry, const aimz_call &C,
                                 const RectangleLayout &L) const;
  std::vector<Launch> planLaunches(const aimz_call &C, int64_t Block,
                                   int64_t PerThread) const;
  /// Lays out the call block and places the arrays (uploading resident
  /// ones not on the device yet).
  llvm::Expected<CallBlock> layoutCallBlock(const aimz_call &C,
                                            const RectangleLayout &L,
                                            size_t NumLaunches,
                                            int64_t Threads);
  static ResultCopies resultCopies(const aimz_call &C,
                                   const RectangleLayout &L);
  void fillCallBlock(const Slot &S, const aimz_call &C,
                     const RectangleLayout &L, const CallBlock &B,
                     const std::vector<Launch> &Launches,
                     const ResultCopies &R, int64_t PerThread,
                     int64_t Threads) const;
  llvm::Error enqueue(Slot &S, int Entry, const CallBlock &B,
                      const std::vector<Launch> &Launches, size_t ResultBytes,
                      int64_t Threads);
  llvm::Error grow(DeviceBuffer &B, size_t Need, const char *What);
  llvm::Error grow(PinnedBuffer &B, size_t Need, const char *What);
  void release(DeviceBuffer &B);
  void release(PinnedBuffer &B);
  llvm::Expected<cu::DevicePtr> resident(const void *Host, int64_t Bytes,
                                         const char *What);
  llvm::Error upload(cu::DevicePtr Dst, const void *Src, size_t Bytes);
  std::string where() const; // "GPU 0 (NVIDIA H200)"

  CudaDriver &Drv;
  GpuOptions Opts;
  GpuInfo Info;
  int PtxArch = 0;
  cu::Device Dev = 0;
  cu::Context Ctx = nullptr;
  cu::Module Mod = nullptr;
  std::array<cu::Function, 3> Kernels{};
  std::array<Slot, 2> Slots;
  unsigned NextSlot = 0;
  cu::Stream UploadStream = nullptr;
  std::array<cu::Event, 2> UploadDone{};
  std::array<PinnedBuffer, 2> UploadStage;
  DeviceBuffer Dummy; // non-NULL data for empty arrays
  std::unordered_map<const void *, Resident> ResidentArrays;
  std::vector<std::string> Notes;
  GpuStats Stats;
};

/// Scratch bytes per GPU thread for `HostCall`'s dims and obs_block: runs
/// the model's host entry point on a copy of the rectangle with no draws (no
/// work, nothing written; the observation range kept, which a joint site's
/// one block is sized from) and returns the scratch_needed it reports.
llvm::Expected<int64_t> scratchBytesPerThread(int32_t (*HostEntry)(aimz_call *),
                                              const aimz_call &HostCall);

/// Bytes from a strided array's first element through its last (element
/// strides, all non-negative); 0 when any extent is 0.
int64_t spanBytes(llvm::ArrayRef<int64_t> Shape, llvm::ArrayRef<int64_t> Strides,
                  int64_t ElemBytes);

/// Copies a `Counts`-shaped block of `ElemBytes`-byte elements between two
/// strided layouts (element strides, any sign); the GPU results' scatter.
void copyStrided(uint8_t *Dst, llvm::ArrayRef<int64_t> DstStrides,
                 const uint8_t *Src, llvm::ArrayRef<int64_t> SrcStrides,
                 llvm::ArrayRef<int64_t> Counts, int64_t ElemBytes);

} // namespace aimz::gpu

#endif // AIMZ_GPU_GPUDEVICE_H
