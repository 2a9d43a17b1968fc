//===- Runner.cpp - Shard a model's work over devices, stream results -----===//
#include "aimz/run/Runner.h"
#include "aimz/run/RunPlan.h"
#include "RunError.h"
#include "RunRecord.h"
#include "aimz/run/EffectDifference.h"
#include "aimz/run/NonFiniteResults.h"
#include "aimz/run/WorkSplit.h"
#include "aimz/gpu/GpuDevice.h"
#include "aimz/run/ProgressBar.h"
#include "aimz/run/ResultSink.h"
#include "aimz/run/RunGroup.h"
#include "aimz/io/RecordDifferences.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <ctime>
#include <functional>
#include <mutex>
#include <new>
#include <thread>

namespace aimz::run {

std::atomic<bool> InterruptRequested{false};

namespace {

/// One thread per device, each with its own reused scratch buffer; run()
/// hands every device a task and waits for all of them.
class DevicePool {
public:
  explicit DevicePool(unsigned N) : Scratch(N), Errors(N) {
    for (unsigned I = 0; I < N; ++I)
      Threads.emplace_back([this, I] { loop(I); });
  }
  ~DevicePool() {
    {
      std::lock_guard<std::mutex> L(M);
      Stop = true;
    }
    Wake.notify_all();
    for (auto &T : Threads)
      T.join();
  }
  unsigned size() const { return static_cast<unsigned>(Threads.size()); }

  /// Runs Task(device, scratch) on every device; returns the first error.
  llvm::Error run(std::function<llvm::Error(unsigned, std::vector<uint8_t> &)> T) {
    {
      std::unique_lock<std::mutex> L(M);
      Task = std::move(T);
      Pending = size();
      ++Generation;
    }
    Wake.notify_all();
    std::unique_lock<std::mutex> L(M);
    Done.wait(L, [&] { return Pending == 0; });
    for (auto &E : Errors)
      if (E)
        return error(*std::exchange(E, std::nullopt));
    return llvm::Error::success();
  }

private:
  void loop(unsigned I) {
    uint64_t Seen = 0;
    while (true) {
      std::function<llvm::Error(unsigned, std::vector<uint8_t> &)> T;
      {
        std::unique_lock<std::mutex> L(M);
        Wake.wait(L, [&] { return Stop || Generation != Seen; });
        if (Stop)
          return;
        Seen = Generation;
        T = Task;
      }
      if (llvm::Error E = T(I, Scratch[I]))
        Errors[I] = llvm::toString(std::move(E));
      std::lock_guard<std::mutex> L(M);
      if (--Pending == 0)
        Done.notify_all();
    }
  }

  std::vector<std::thread> Threads;
  std::vector<std::vector<uint8_t>> Scratch;
  std::vector<std::optional<std::string>> Errors;
  std::mutex M;
  std::condition_variable Wake, Done;
  std::function<llvm::Error(unsigned, std::vector<uint8_t> &)> Task;
  unsigned Pending = 0;
  uint64_t Generation = 0;
  bool Stop = false;
};

/// InferenceData's observed_data and coordinates: an array of the data or
/// the posterior, ChunkRows rows per chunk.
llvm::Error writeRows(ResultSink &Sink, size_t I, const OutputArray &O,
                          const HostArray &H) {
  uint64_t Rows = H.Shape.empty() ? 1 : H.Shape[0];
  uint64_t RowBytes = io::dtypeSize(H.Type);
  for (size_t K = 1; K < H.Shape.size(); ++K)
    RowBytes *= H.Shape[K];
  if (RowBytes == 0 || Rows == 0)
    return llvm::Error::success(); // no chunks
  const auto *From = static_cast<const uint8_t *>(H.Data);
  for (uint64_t Row = 0, C = 0; Row < Rows; Row += O.ChunkRows, ++C) {
    uint64_t N = std::min(O.ChunkRows, Rows - Row);
    auto P = Sink.buffer(I, static_cast<int64_t>(C));
    if (!P)
      return P.takeError();
    std::memcpy(*P, From + Row * RowBytes, N * RowBytes);
    std::vector<uint64_t> Coords(O.Chunk.size(), 0);
    if (!Coords.empty())
      Coords[0] = C;
    if (llvm::Error E = Sink.commit(I, static_cast<int64_t>(C), Coords))
      return E;
  }
  return llvm::Error::success();
}

/// --with-posterior: the posterior's draws of a site, chain by chain,
/// ChunkRows draws per chunk (an intervened site repeats its one draw).
llvm::Error writePosterior(ResultSink &Sink, size_t I, const OutputArray &O,
                           const HostArray &H) {
  const uint64_t Chains = O.Shape[0], PerChain = O.Shape[1];
  uint64_t DrawBytes = io::dtypeSize(H.Type);
  for (uint64_t X : O.Extents)
    DrawBytes *= X;
  if (DrawBytes == 0 || PerChain == 0)
    return llvm::Error::success(); // no chunks
  const auto *From = static_cast<const uint8_t *>(H.Data);
  int64_t Chunk = 0;
  for (uint64_t C = 0; C < Chains; ++C)
    for (uint64_t D0 = 0, Block = 0; D0 < PerChain;
         D0 += O.ChunkRows, ++Block, ++Chunk) {
      auto P = Sink.buffer(I, Chunk);
      if (!P)
        return P.takeError();
      for (uint64_t K = 0; K < std::min(O.ChunkRows, PerChain - D0); ++K) {
        uint64_t Draw = H.DrawBroadcast ? 0 : C * PerChain + D0 + K;
        std::memcpy(static_cast<uint8_t *>(*P) + K * DrawBytes,
                    From + Draw * DrawBytes, DrawBytes);
      }
      std::vector<uint64_t> Coords(O.Chunk.size(), 0);
      Coords[0] = C;
      Coords[1] = Block;
      if (llvm::Error E = Sink.commit(I, Chunk, Coords))
        return E;
    }
  return llvm::Error::success();
}

/// The elements of O's chunk that draws [D0, D1) x observations [O0, O1)
/// of the chunk fill (every element of axes other than the two).
ChunkBox rectangleBox(const OutputArray &O, int64_t D0, int64_t D1,
                      int64_t O0, int64_t O1) {
  ChunkBox Box;
  Box.Lo.assign(O.KernelChunk.size(), 0);
  Box.Hi.assign(O.KernelChunk.begin(), O.KernelChunk.end());
  Box.Lo[0] = D0;
  Box.Hi[0] = D1;
  if (O.ObsAxis >= 0) {
    Box.Lo[O.ObsAxis + 1] = O0;
    Box.Hi[O.ObsAxis + 1] = O1;
  }
  return Box;
}

/// What the run tells about the NaN and infinities it computed (summed over
/// the processes of Group, a collective): an error under Strict, else
/// warnings.
llvm::Error reportNonFinite(const RunPlan &Plan, const RunOptions &Opts,
                            std::vector<NonFiniteTally> Tally,
                            RunGroup &Group, Warnings &W) {
  std::vector<int64_t> Counts;
  for (const NonFiniteTally &T : Tally)
    Counts.insert(Counts.end(), {T.NaN, T.PosInf, T.NegInf});
  Group.sumOverGroup(Counts);
  std::vector<int64_t> First;
  for (const NonFiniteTally &T : Tally)
    First.push_back(T.FirstDraw < 0 ? Plan.Draws : T.FirstDraw);
  Group.minOverGroup(First);
  std::vector<std::string> Lines;
  for (size_t I = 0; I < Tally.size(); ++I) {
    NonFiniteTally T{Counts[3 * I], Counts[3 * I + 1], Counts[3 * I + 2],
                     First[I]};
    uint64_t Values = 1;
    for (uint64_t E : Plan.Outs[I].Shape)
      Values *= E;
    std::string L = describeNonFinite(
        Plan.Outs[I].Path, T, Values,
        Opts.Kind == EntryKind::LogLikelihood && !Opts.BaselinePost);
    if (!L.empty())
      Lines.push_back(L);
  }
  if (Lines.empty())
    return llvm::Error::success();
  const std::string Why =
      "; a parameter outside its distribution's support (a scale of 0 or "
      "below, a probability outside [0, 1], ...) gives NaN and a value "
      "beyond the model's precision an infinity: check the posterior, the "
      "interventions and the data";
  if (Opts.Strict)
    return error("non-finite results: " + llvm::join(Lines, "; ") + Why +
                 "; --strict refuses them, so nothing was written");
  W.push_back("non-finite results: " + llvm::join(Lines, "; ") + Why +
              " (--strict makes this an error)");
  return llvm::Error::success();
}

/// The process's signal (the CLI's Ctrl-C), or this run's own stop (one
/// Python thread's run, whose progress callback raised).
bool stopRequested(const RunOptions &Opts) {
  return InterruptRequested.load(std::memory_order_relaxed) ||
         (Opts.Stop && Opts.Stop->load(std::memory_order_relaxed));
}

/// Grows a device's scratch to what the kernel asked for; a size no
/// machine has (a dimension set far too large) is an error, not an
/// exception in a worker thread.
llvm::Error growScratch(std::vector<uint8_t> &Scratch, int64_t Needed) {
  // Past half the memory the allocation may succeed and the first touch
  // summon the OOM killer (a joint site's N x N kernel with a large N).
  const uint64_t Memory = physicalMemory();
  if (Needed > 0 && Memory && static_cast<uint64_t>(Needed) > Memory / 2)
    return error("the model's kernel needs " + std::to_string(Needed) +
                 " bytes of scratch memory per device thread, more than "
                 "half of this machine's " + std::to_string(Memory) +
                 " bytes; check the dimensions (--dim, the data, the "
                 "posterior), or for a joint site (an N x N covariance) use "
                 "fewer observations or fewer devices (--devices)");
  try {
    if (Needed < 0 || static_cast<uint64_t>(Needed) > Scratch.max_size())
      throw std::bad_alloc();
    Scratch.resize(static_cast<size_t>(Needed));
  } catch (const std::bad_alloc &) {
    return error("the model's kernel needs " + std::to_string(Needed) +
                 " bytes of scratch memory per device, more than can be "
                 "allocated; check the dimensions (--dim, the data, the "
                 "posterior)");
  }
  return llvm::Error::success();
}

/// The devices of a run: GPU ordinals first, then CPU worker threads.
struct DevicePlan {
  std::vector<int> Gpus;
  unsigned Cpus = 0;
  unsigned size() const { return Gpus.size() + Cpus; }
};

llvm::Expected<DevicePlan> planDevices(DeviceChoice Choice, unsigned Max) {
  DevicePlan P;
  unsigned Threads = std::max(1u, std::thread::hardware_concurrency());
  std::vector<int> Present;
  std::string Why;
  if (Choice != DeviceChoice::CPU) {
    auto Driver = gpu::CudaDriver::get();
    if (Driver) {
      for (const gpu::GpuInfo &G : Driver->devices())
        Present.push_back(G.Ordinal);
    } else {
      Why = llvm::toString(Driver.takeError());
    }
  }
  if (Choice == DeviceChoice::GPU && Present.empty())
    return error("no GPU to run on: " + Why +
                 "; use --device cpu to run on the CPU");
  bool UseGpus = Choice == DeviceChoice::GPU || Choice == DeviceChoice::All ||
                 (Choice == DeviceChoice::Default && !Present.empty());
  bool UseCpus = Choice == DeviceChoice::CPU || Choice == DeviceChoice::All ||
                 (Choice == DeviceChoice::Default && Present.empty());
  if (UseGpus)
    P.Gpus = Present;
  if (Max && P.Gpus.size() > Max)
    P.Gpus.resize(Max);
  if (UseCpus) {
    unsigned Room = Max ? Max - P.Gpus.size() : Threads;
    P.Cpus = std::min(Room, Max ? Max : Threads);
    if (P.Gpus.empty())
      P.Cpus = std::max(1u, P.Cpus);
  }
  return P;
}

} // namespace

llvm::Expected<std::vector<std::string>> describeDevices(DeviceChoice Choice,
                                                         unsigned Max) {
  auto P = planDevices(Choice, Max);
  if (!P)
    return P.takeError();
  std::vector<std::string> Lines;
  if (!P->Gpus.empty()) {
    auto Driver = gpu::CudaDriver::get();
    for (int G : P->Gpus)
      Lines.push_back("gpu:" + std::to_string(G) + "  " +
                      Driver->devices()[G].describe());
  }
  for (unsigned I = 0; I < P->Cpus; ++I)
    Lines.push_back("cpu:" + std::to_string(I) + "  CPU worker thread");
  return Lines;
}

namespace {

/// Collective: whether this process's run record equals rank 0's, so that
/// no process writes chunks of another run (another seed, data, batch size,
/// codec, format or command) into the shared store.
llvm::Error sameRunAsRankZero(RunGroup &Group, const nlohmann::json &Record) {
  const std::string Mine = Record.dump();
  const std::string Zero = Group.fromRankZero(Mine);
  if (Zero == Mine)
    return llvm::Error::success();
  nlohmann::json Theirs = nlohmann::json::parse(Zero, nullptr, false);
  return error("the processes of this run disagree: it differs from rank "
               "0's in " +
               io::recordDifferences(Theirs, Record, "on rank 0", "here") +
               "; start every rank with the same command, options and "
               "files; nothing was written");
}

/// runModel for one process of Group. Agreed is set at the group's first
/// agreement: an error returned before it has not reached the others yet.
llvm::Expected<RunReport> runInGroup(const ModelLibrary &Lib,
                                     const DataSet &Data, const Posterior *Post,
                                     const RunOptions &Opts, Warnings &W,
                                     RunGroup &Group, bool &Agreed) {
  const Manifest &M = Lib.manifest();
  const bool Effect = Opts.BaselinePost != nullptr;
  const DataSet &BaseData = Opts.BaselineData ? *Opts.BaselineData : Data;
  // effect runs on CPU threads: a GPU keeps one posterior resident per run.
  if (Effect && Opts.Device == DeviceChoice::GPU)
    return error("effect runs on CPU threads only; drop --device gpu");
  auto Devs = planDevices(Effect ? DeviceChoice::CPU : Opts.Device,
                          Opts.Devices);
  if (!Devs)
    return Devs.takeError();
  const unsigned Devices = Devs->size();
  auto PlanOr = planRun(M, Data, Post, Opts, Devices, W);
  if (!PlanOr)
    return PlanOr.takeError();
  const RunPlan &Plan = *PlanOr;
  const std::vector<OutputArray> &Outs = Plan.Outs;
  const bool ObsPlan = Plan.ObsPlan;
  const int64_t N = Plan.Observations, D = Plan.Draws;

  // GPU devices run the model's PTX through the CUDA driver.
  std::vector<std::unique_ptr<gpu::GpuDevice>> Gpus;
  if (!Devs->Gpus.empty() && Lib.ptx().empty())
    return error("model '" + Lib.path() +
                 "' has no GPU code (it was compiled without CUDA); "
                 "recompile it, or use --device cpu");
  for (int Ordinal : Devs->Gpus) {
    std::string P80 = Lib.ptx().str(), P90 = Lib.ptxSm90().str();
    auto G = gpu::GpuDevice::create(Ordinal, P80.c_str(), P90.c_str());
    if (!G)
      return G.takeError();
    for (const std::string &N : (*G)->notes())
      W.push_back("gpu:" + std::to_string(Ordinal) + ": " + N);
    Gpus.push_back(std::move(*G));
  }
  RunReport R;
  R.Plan = ObsPlan ? "obs" : "draw";
  R.DeviceNames = (Gpus.empty() ? "" : std::to_string(Gpus.size()) + " GPU" +
                                           (Gpus.size() == 1 ? "" : "s")) +
                  (Gpus.empty() || !Devs->Cpus ? "" : " + ") +
                  (Devs->Cpus ? std::to_string(Devs->Cpus) + " CPU thread" +
                                    (Devs->Cpus == 1 ? "" : "s")
                              : "");
  const int64_t B = Plan.BatchSize, Batches = Plan.Batches;
  R.Draws = D;
  R.Observations = N;
  R.BatchSize = B;
  R.Batches = Batches;
  R.Devices = Devices;

  // The sink.
  std::vector<SinkArray> SinkArrays;
  for (const OutputArray &O : Outs) {
    if (!O.copied())
      R.Sites.push_back(O.Name);
    SinkArray A;
    A.Name = O.Path;
    A.Type = O.Type;
    A.Shape = O.Shape;
    A.Chunk = O.Chunk;
    A.DimNames = O.DimNames;
    A.ChunkBytes = O.ChunkBytes;
    SinkArrays.push_back(std::move(A));
  }
  bool ToNpz = llvm::StringRef(Opts.OutPath).ends_with(".npz");
  if (ToNpz && Opts.Resume)
    return error("--resume continues a Zarr store; an .npz output is "
                 "written whole at the end and has nothing to resume");
  const bool Shared = Group.size() > 1;
  if (ToNpz && Shared)
    return error("an .npz output is written whole by one process; give a "
                 "Zarr store (a directory) as --out for a run of " +
                 std::to_string(Group.size()) + " processes");
  nlohmann::json Record;
  if (!ToNpz) {
    auto Rec = runRecord(Lib, Data, Post, Opts, Plan);
    if (!Rec)
      return Rec.takeError();
    Record = std::move(*Rec);
  }
  // Every process is ready. Process 0 starts the store (lock, partial
  // store, metadata); then the others join it.
  Agreed = true;
  if (llvm::Error E = Group.agree(llvm::Error::success()))
    return std::move(E);
  if (Shared)
    if (llvm::Error E = Group.agree(sameRunAsRankZero(Group, Record)))
      return std::move(E);
  const bool Creator = Group.rank() == 0;
  std::unique_ptr<ResultSink> Sink;
  auto startSink = [&](SinkStart Start) -> llvm::Error {
    auto S = ToNpz ? createNpzSink(Opts.OutPath, SinkArrays, Opts.Sync)
                   : createZarrSink(Opts.OutPath, Opts.Format, Opts.Codec,
                                    SinkArrays, Plan.Groups, Plan.Attrs,
                                    Devices, Opts.Sync, Record, Start);
    if (!S)
      return S.takeError();
    Sink = std::move(*S);
    W.insert(W.end(), Sink->Notes.begin(), Sink->Notes.end());
    return llvm::Error::success();
  };
  if (llvm::Error E = Group.agree(
          Creator ? startSink(Opts.Resume ? SinkStart::Resume
                                          : SinkStart::Create)
                  : llvm::Error::success()))
    return std::move(E);
  if (llvm::Error E = Group.agree(Creator ? llvm::Error::success()
                                          : startSink(SinkStart::Attach))) {
    if (Creator)
      Sink->abandon();
    return std::move(E);
  }
  // From here on every failure goes through one last agreement, so that
  // no process waits for one that stopped.
  llvm::Error RunErr = llvm::Error::success();
  // InferenceData's observed_data: copied from the data, chunk by chunk.
  for (size_t I = 0; Creator && I < Outs.size() && !RunErr; ++I)
    if (Outs[I].Observed)
      RunErr = writeRows(*Sink, I, Outs[I],
                         *Data.Observed[Outs[I].ObservedOutput]);
    else if (Outs[I].Coordinate)
      RunErr = writeRows(*Sink, I, Outs[I], Post->Coords.at(Outs[I].Name));
    else if (Outs[I].FromPosterior)
      RunErr = writePosterior(*Sink, I, Outs[I], *Post->Sites[Outs[I].Site]);

  // Views that do not change between calls.
  std::vector<std::vector<int64_t>> InStrides, PostStrides(M.Sites.size());
  std::vector<aimz_view> InViews, PostViews(M.Sites.size(), aimz_view{nullptr, nullptr});
  for (const HostArray &H : Data.Inputs)
    InStrides.push_back(H.strides());
  for (size_t I = 0; I < Data.Inputs.size(); ++I)
    InViews.push_back({const_cast<void *>(Data.Inputs[I].Data), InStrides[I].data()});
  // One view per output (the log-likelihood reads them all).
  std::vector<std::vector<int64_t>> ObservedStrides(M.Outputs.size());
  std::vector<aimz_view> ObservedViews(M.Outputs.size(),
                                       aimz_view{nullptr, nullptr});
  for (size_t O = 0; O < Data.Observed.size() && O < M.Outputs.size(); ++O)
    if (Data.Observed[O]) {
      ObservedStrides[O] = Data.Observed[O]->strides();
      ObservedViews[O] = {const_cast<void *>(Data.Observed[O]->Data),
                          ObservedStrides[O].data()};
    }
  if (Post && Opts.Kind != EntryKind::PriorPredictive)
    for (size_t S = 0; S < M.Sites.size(); ++S)
      if (Post->has(S)) {
        PostStrides[S] = Post->Sites[S]->strides();
        PostViews[S] = {const_cast<void *>(Post->Sites[S]->Data),
                        PostStrides[S].data()};
      }
  // The baseline's views (effect): its inputs and its posterior.
  std::vector<std::vector<int64_t>> BaseInStrides, BasePostStrides(M.Sites.size());
  std::vector<aimz_view> BaseInViews, BasePostViews(M.Sites.size(), aimz_view{nullptr, nullptr});
  if (Effect) {
    for (const HostArray &H : BaseData.Inputs)
      BaseInStrides.push_back(H.strides());
    for (size_t I = 0; I < BaseData.Inputs.size(); ++I)
      BaseInViews.push_back({const_cast<void *>(BaseData.Inputs[I].Data),
                             BaseInStrides[I].data()});
    for (size_t S = 0; S < M.Sites.size(); ++S)
      if (Opts.BaselinePost->has(S)) {
        BasePostStrides[S] = Opts.BaselinePost->Sites[S]->strides();
        BasePostViews[S] = {const_cast<void *>(Opts.BaselinePost->Sites[S]->Data),
                            BasePostStrides[S].data()};
      }
  }
  std::vector<int64_t> Dims;
  for (const std::string &Sym : M.Dims)
    Dims.push_back(Data.Bindings.at(Sym));
  EntryFn Entry = Lib.entry(Opts.Kind);

  // What a GPU must copy for a rectangle: every array's bytes and rank.
  auto ArrayBytes = [](const HostArray &H) {
    return static_cast<int64_t>(H.numElements() * io::dtypeSize(H.Type));
  };
  auto gpuLayout = [&](const std::vector<aimz_view> &Res) {
    gpu::RectangleLayout L;
    L.NumDims = static_cast<int64_t>(Dims.size());
    for (const HostArray &H : Data.Inputs)
      L.Inputs.push_back({ArrayBytes(H), static_cast<int>(H.Shape.size()), true});
    if (Data.anyObserved())
      for (const auto &H : Data.Observed)
        L.Observed.push_back({H ? ArrayBytes(*H) : 0,
                              H ? static_cast<int>(H->Shape.size()) : 0,
                              true});
    for (size_t S = 0; S < M.Sites.size(); ++S) {
      int Rank = 1 + static_cast<int>(M.Sites[S].Shape.size());
      bool Has = Post && Opts.Kind != EntryKind::PriorPredictive && Post->has(S);
      L.Posterior.push_back({Has ? ArrayBytes(*Post->Sites[S]) : 0, Rank, true});
      gpu::ResultLayout RL;
      if (Res[S].data) {
        for (const OutputArray &O : Outs)
          if (O.Site == static_cast<int>(S)) {
            RL.ElemBytes = static_cast<int64_t>(io::dtypeSize(O.Type));
            RL.Extents.assign(O.Extents.begin(), O.Extents.end());
            RL.ObsAxis = O.ObsAxis;
          }
      }
      L.Results.push_back(std::move(RL));
    }
    return L;
  };

  DevicePool Pool(Devices);
  // effect: each device's copies of the baseline's chunks, reused by every
  // batch (chunks have the same size in every batch).
  std::vector<std::vector<std::vector<uint8_t>>> BaseChunksOf(
      Devices, std::vector<std::vector<uint8_t>>(Outs.size()));
  // Each device's count of the NaN and infinities it computed, per array.
  std::vector<std::vector<NonFiniteTally>> TallyOf(
      Devices, std::vector<NonFiniteTally>(Outs.size()));
  ProgressBar Bar(Opts.Progress, Batches,
                  static_cast<double>(D) * static_cast<double>(N));
  auto Start = std::chrono::steady_clock::now();

  // Draws per kernel call. The draw plan takes one at a time. The obs plan
  // starts with 16, then sizes each CPU call to about CallSeconds from the
  // device's last one: calls short enough to notice Ctrl-C quickly, and few
  // enough that what a call does once for all its draws (packing an input's
  // rows for X @ beta) is not repeated many times per chunk. The values do
  // not depend on the split (the same streams and sums in any call).
  const int64_t DrawStep = ObsPlan ? 16 : 1;
  constexpr double CallSeconds = 0.02;
  std::vector<int64_t> DrawStepOf(Devices, DrawStep);
  // A resumed run skips the batches the interrupted one finished: those
  // whose chunks are all in the store.
  auto Finished = [&](int64_t Batch) {
    bool Any = false;
    for (size_t I = 0; I < Outs.size(); ++I) {
      if (!Plan.fills(I, Batch))
        continue;
      if (!Sink->hasChunk(I, Plan.chunkCoords(I, Batch)))
        return false;
      Any = true;
    }
    return Any;
  };
  if (Opts.Resume && Creator) {
    int64_t Done = 0;
    for (int64_t Batch = 0; Batch < Batches; ++Batch)
      Done += Finished(Batch);
    R.ResumedBatches = Done;
  }
  // Batches come from the group's counter: with one process, in order.
  for (int64_t Batch = RunErr ? Batches : Group.claimBatch(); Batch < Batches;
       Batch = Group.claimBatch()) {
    const BatchRect Rect = Plan.batch(Batch);
    if (Opts.Resume && Finished(Batch)) {
      Bar.update(Batch + 1, 0); // done before: no part of this run's rate
      if (Opts.OnBatch)
        Opts.OnBatch(Batch + 1, Batches);
      continue;
    }
    // The batch is split over devices along the plan's axis.
    const int64_t U0 = ObsPlan ? Rect.Obs0 : Rect.Draw0;
    const int64_t U1 = ObsPlan ? Rect.Obs1 : Rect.Draw1;
    // Chunk buffers for this batch.
    std::vector<void *> Buffers(Outs.size(), nullptr);
    for (size_t I = 0; I < Outs.size() && !RunErr; ++I) {
      if (!Plan.fills(I, Batch))
        continue;
      auto P = Sink->buffer(I, Batch);
      if (!P)
        RunErr = P.takeError();
      else
        Buffers[I] = *P;
    }
    if (RunErr)
      break;
    const int64_t ChunkDraw0 = Plan.chunkDraw0(Batch);
    const int64_t ChunkObs0 = Plan.chunkObs0(Batch);

    auto Work = [&](unsigned Dev, std::vector<uint8_t> &Scratch) -> llvm::Error {
      // This device's share of the batch.
      auto [P0, P1] = deviceShare(U0, U1, Dev, Devices);
      if (P0 == P1)
        return llvm::Error::success();
      int64_t Dr0 = ObsPlan ? 0 : P0, Dr1 = ObsPlan ? D : P1;
      int64_t Ob0 = ObsPlan ? P0 : 0, Ob1 = ObsPlan ? P1 : N;
      std::vector<aimz_view> Results(M.Sites.size(), aimz_view{nullptr, nullptr});
      for (size_t I = 0; I < Outs.size(); ++I)
        if (Buffers[I] && !Outs[I].Scenario &&
            writesArray(ObsPlan, Outs[I].ObsAxis >= 0, Dev, Devices))
          Results[Outs[I].Site] = {Buffers[I], Outs[I].ChunkStrides.data()};
      aimz_call Call{};
      Call.abi_version = AIMZ_ABI_VERSION;
      Call.obs_begin = Ob0;
      Call.obs_end = Ob1;
      Call.input_obs_origin = 0;
      Call.seed = Opts.Seed;
      Call.dims = Dims.data();
      Call.inputs = InViews.data();
      Call.observed = ObservedViews.data();
      Call.posterior = PostViews.data();
      Call.results = Results.data();
      Call.result_draw_origin = ChunkDraw0;
      Call.result_obs_origin = ChunkObs0;
      // One CPU call of the entry point, growing the scratch when asked.
      auto callEntry = [&](aimz_call &C) -> llvm::Error {
        C.scratch = Scratch.data();
        C.scratch_bytes = static_cast<int64_t>(Scratch.size());
        int32_t RC = Entry(&C);
        if (RC == AIMZ_SCRATCH_TOO_SMALL) {
          if (llvm::Error E = growScratch(Scratch, C.scratch_needed))
            return E;
          C.scratch = Scratch.data();
          C.scratch_bytes = C.scratch_needed;
          RC = Entry(&C);
        }
        if (RC == AIMZ_INDEX_OUT_OF_RANGE)
          return error("an index computed by the model is outside its "
                       "dimension (observations " + std::to_string(Ob0) +
                       ".." + std::to_string(Ob1 - 1) +
                       "; indices count from 0 and negative ones are not "
                       "wrapped around); check the index expressions and "
                       "their inputs");
        if (RC == AIMZ_NEEDS_ALL_OBSERVATIONS)
          return error("internal error: the model has a joint site but was "
                       "called over observations " + std::to_string(Ob0) +
                       ".." + std::to_string(Ob1 - 1) + " of " +
                       std::to_string(N));
        if (RC != AIMZ_OK)
          return error("the model's kernel failed with status " +
                       std::to_string(RC));
        return llvm::Error::success();
      };
      // effect: the baseline's chunk copies, laid out like the chunks.
      std::vector<std::vector<uint8_t>> &BaseChunks = BaseChunksOf[Dev];
      std::vector<aimz_view> BaseResults(M.Sites.size(), aimz_view{nullptr, nullptr});
      if (Effect)
        for (size_t I = 0; I < Outs.size(); ++I)
          if (Results[Outs[I].Site].data && !Outs[I].Scenario) {
            BaseChunks[I].resize(Outs[I].ChunkBytes);
            BaseResults[Outs[I].Site] = {BaseChunks[I].data(),
                                         Outs[I].ChunkStrides.data()};
          }
      gpu::GpuDevice *Gpu = Dev < Gpus.size() ? Gpus[Dev].get() : nullptr;
      gpu::RectangleLayout Layout;
      // A joint site: one block of every observation (one GPU thread per
      // draw); else small blocks on the GPU, one thread each, and the
      // model's default on the CPU.
      Call.obs_block = M.JointObservations ? std::max<int64_t>(N, 1)
                       : Gpu                ? 32
                                            : 0;
      if (Gpu) {
        Layout = gpuLayout(Results);
        auto Scratch = gpu::scratchBytesPerThread(Entry, Call);
        if (!Scratch)
          return Scratch.takeError();
        Layout.ScratchBytes = *Scratch;
      }
      // This device's draws per CPU call, carried from batch to batch.
      int64_t &Step = DrawStepOf[Dev];
      // Each call ends where the next begins (draw_end).
      for (int64_t G = Dr0; G < Dr1; G = Call.draw_end) {
        if (stopRequested(Opts))
          return llvm::Error::success();
        if (Gpu) {
          // Queued back to back: a rectangle's copy-back overlaps the next
          // one's kernel; finish() below waits for the last.
          Call.draw_begin = G;
          Call.draw_end = std::min(Dr1, G + DrawStep);
          if (llvm::Error E =
                  Gpu->submit(static_cast<int>(Opts.Kind), Call, Layout)) {
            llvm::consumeError(Gpu->finish());
            return E;
          }
          continue;
        }
        Call.draw_begin = G;
        Call.draw_end = std::min(Dr1, G + Step);
        const auto CallStart = std::chrono::steady_clock::now();
        if (llvm::Error E = callEntry(Call))
          return E;
        if (ObsPlan) {
          const double Took = std::chrono::duration<double>(
                                  std::chrono::steady_clock::now() - CallStart)
                                  .count();
          const double Drawn = static_cast<double>(Call.draw_end - G);
          // Grows at most 8x per call (a first call slowed by page faults
          // does not make the next one huge), never below the start.
          Step = std::clamp<int64_t>(
              static_cast<int64_t>(Drawn * CallSeconds /
                                   std::max(Took, 1e-6)),
              DrawStep, 8 * Step);
        }
        if (!Effect)
          continue;
        // The baseline over the same rectangle (same seed, same streams),
        // into a copy of the chunk; the chunk keeps the difference.
        aimz_call Base = Call;
        Base.inputs = BaseInViews.data();
        Base.posterior = BasePostViews.data();
        Base.results = BaseResults.data();
        if (llvm::Error E = callEntry(Base))
          return E;
        // The chunk elements of this call's draws and observations.
        auto BoxOf = [&](const OutputArray &O) {
          return rectangleBox(O, Call.draw_begin - ChunkDraw0,
                              Call.draw_end - ChunkDraw0, Ob0 - ChunkObs0,
                              Ob1 - ChunkObs0);
        };
        // --keep-scenarios: copy both scenarios out before the difference.
        for (size_t J = 0; J < Outs.size(); ++J) {
          size_t I = Outs[J].EffectOf;
          if (!Outs[J].Scenario || !Results[Outs[I].Site].data)
            continue;
          const void *From = Outs[J].Scenario == 1
                                 ? Buffers[I]
                                 : static_cast<const void *>(BaseChunks[I].data());
          copyInBox(io::dtypeSize(Outs[J].Type), Buffers[J], From,
                    Outs[J].ChunkStrides, BoxOf(Outs[J]));
        }
        for (size_t I = 0; I < Outs.size(); ++I) {
          if (Outs[I].Scenario || !Results[Outs[I].Site].data)
            continue;
          subtractInBox(Outs[I].Type, Buffers[I], BaseChunks[I].data(),
                        Outs[I].ChunkStrides, BoxOf(Outs[I]));
        }
      }
      if (Gpu)
        if (llvm::Error E = Gpu->finish())
          return E;
      // The non-finite values of this device's rectangle.
      for (size_t I = 0; I < Outs.size(); ++I)
        if (Buffers[I] && !Outs[I].Scenario && Results[Outs[I].Site].data) {
          ChunkBox Box = rectangleBox(Outs[I], Dr0 - ChunkDraw0,
                                      Dr1 - ChunkDraw0, Ob0 - ChunkObs0,
                                      Ob1 - ChunkObs0);
          TallyOf[Dev][I].add(countNonFiniteInBox(
              Outs[I].Type, Buffers[I], Outs[I].ChunkStrides, Box,
              ChunkDraw0));
        }
      return llvm::Error::success();
    };
    if (llvm::Error E = Pool.run(Work)) {
      RunErr = std::move(E);
      break;
    }
    if (stopRequested(Opts))
      break;
    for (size_t I = 0; I < Outs.size() && !RunErr; ++I)
      if (Buffers[I])
        RunErr = Sink->commit(I, Batch, Plan.chunkCoords(I, Batch));
    if (RunErr)
      break;
    double Pairs = static_cast<double>(U1 - U0) * (ObsPlan ? D : N);
    Bar.update(Batch + 1, Pairs);
    if (Opts.OnBatch)
      Opts.OnBatch(Batch + 1, Batches);
  }
  const bool Interrupted = stopRequested(Opts);
  if (!RunErr && Interrupted)
    RunErr = error("interrupted; " + Sink->suspendNote());
  {
    std::vector<NonFiniteTally> Tally(Outs.size());
    for (const auto &OfDevice : TallyOf)
      for (size_t I = 0; I < Outs.size(); ++I)
        Tally[I].add(OfDevice[I]);
    llvm::Error E = reportNonFinite(Plan, Opts, std::move(Tally), Group, W);
    if (!RunErr)
      RunErr = std::move(E);
    else
      llvm::consumeError(std::move(E));
  }
  // Every chunk of this process is in the store before the others hear
  // that it is done.
  if (!RunErr)
    RunErr = Sink->drain();
  if (llvm::Error E = Group.agree(std::move(RunErr))) {
    // An interrupted run, and any run of several processes, stays
    // resumable; otherwise nothing is left behind.
    if (Interrupted || Shared) {
      std::string Note = Sink->suspendNote();
      Sink->suspend();
      std::string Msg = llvm::toString(std::move(E));
      if (Shared && Msg.find("--resume") == std::string::npos)
        Msg += "; " + Note;
      return error(Msg);
    }
    Sink->abandon();
    return std::move(E);
  }
  llvm::Error Published = Creator ? Sink->finish() : llvm::Error::success();
  if (Creator && Published)
    Sink->abandon();
  if (llvm::Error E = Group.agree(std::move(Published)))
    return std::move(E);
  Bar.finish();
  R.Seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                            Start)
                  .count();
  return R;
}

} // namespace

llvm::Expected<RunReport> runModel(const ModelLibrary &Lib,
                                   const DataSet &Data, const Posterior *Post,
                                   const RunOptions &Opts, Warnings &W) {
  RunGroup Alone;
  RunGroup &Group = Opts.Group ? *Opts.Group : Alone;
  bool Agreed = false;
  auto R = runInGroup(Lib, Data, Post, Opts, W, Group, Agreed);
  if (Agreed || R)
    return R;
  // Failed before the first agreement: the other processes learn it there.
  return Group.agree(R.takeError());
}

} // namespace aimz::run
