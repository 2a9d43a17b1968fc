//===- Runner.cpp - Shard a model's work over devices, stream results -----===//
//
// The executor: one process's part of a run. It plans the run and its
// devices, opens the sink with the other processes of the group, then
// claims batches (BatchClaims.h), has every device compute its share of
// each (Device.h) and commits the chunks; last it reports what the results
// hold and publishes the store.
//
//===----------------------------------------------------------------------===//
#include "aimz/run/Runner.h"
#include "BatchClaims.h"
#include "CopiedArrays.h"
#include "CpuDevice.h"
#include "CudaDevice.h"
#include "DevicePlan.h"
#include "DevicePool.h"
#include "RunError.h"
#include "RunRecord.h"
#include "ScenarioViews.h"
#include "aimz/io/RecordDifferences.h"
#include "aimz/run/NonFiniteResults.h"
#include "aimz/run/ProgressBar.h"
#include "aimz/run/ResultSink.h"
#include "aimz/run/RunGroup.h"
#include "aimz/run/RunPlan.h"
#include "aimz/run/WorkSplit.h"

#include "llvm/ADT/StringExtras.h"

#include <chrono>
#include <optional>

namespace aimz::run {

std::atomic<bool> InterruptRequested{false};

bool KernelContext::stopRequested() const {
  return InterruptRequested.load(std::memory_order_relaxed) ||
         (Stop && Stop->load(std::memory_order_relaxed));
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


/// One process's run of a group. Agreed is set at the group's first
/// agreement: an error returned before it has not reached the others yet.
class Executor {
public:
  Executor(const ModelLibrary &Lib, const DataSet &Data, const Posterior *Post,
           const RunOptions &Opts, Warnings &W, RunGroup &Group)
      : Lib(Lib), M(Lib.manifest()), Data(Data), Post(Post), Opts(Opts),
        W(W), Group(Group), Shared(Group.size() > 1),
        Creator(Group.rank() == 0) {}

  llvm::Expected<RunReport> run(bool &Agreed);

private:
  llvm::Error plan();
  llvm::Error createDevices();
  void describeRun();
  llvm::Error openSink(bool &Agreed);
  llvm::Error startSink(SinkStart Start, const nlohmann::json &Record);
  llvm::Error runBatches();
  llvm::Error computeBatch(int64_t Batch, const std::vector<void *> &Buffers);
  void prepareTask(DeviceTask &Task, unsigned Dev, int64_t Batch) const;
  void tallyNonFinite(unsigned Dev, const DeviceTask &Task);
  void tallyKeptChunk(size_t I, llvm::ArrayRef<uint64_t> Coords,
                      const void *Data);
  bool committed(int64_t Batch) const;
  void reportBatch(int64_t Batch, double Pairs);
  llvm::Error reportNonFinite();
  llvm::Expected<RunReport> finish(llvm::Error RunErr);

  const ModelLibrary &Lib;
  const Manifest &M;
  const DataSet &Data;
  const Posterior *Post;
  const RunOptions &Opts;
  Warnings &W;
  RunGroup &Group;
  const bool Shared, Creator;

  DevicePlan DevPlan;
  std::optional<RunPlan> Plan;
  std::optional<KernelContext> Ctx;
  std::vector<std::unique_ptr<Device>> Devices;
  std::unique_ptr<ResultSink> Sink;
  std::vector<int64_t> Dims;
  std::optional<ScenarioViews> Views, BaselineViews;
  /// Each device's count of the NaN and infinities it computed, per array.
  std::vector<std::vector<NonFiniteTally>> TallyOf;
  std::optional<DevicePool> Pool;
  std::optional<ProgressBar> Bar;
  RunReport R;
};

llvm::Error Executor::plan() {
  const bool Effect = Opts.isEffect();
  // effect runs on CPU threads: a GPU keeps one posterior resident per run.
  if (Effect && Opts.Device == DeviceChoice::GPU)
    return error("effect runs on CPU threads only; drop --device gpu");
  auto Devs = planDevices(Effect ? DeviceChoice::CPU : Opts.Device,
                          Opts.Devices);
  if (!Devs)
    return Devs.takeError();
  DevPlan = std::move(*Devs);
  auto P = planRun(M, Data, Post, Opts, DevPlan.size(), W);
  if (!P)
    return P.takeError();
  Plan.emplace(std::move(*P));
  Ctx.emplace(KernelContext{M, Lib.entry(Opts.Kind), Opts.Kind, *Plan, Data,
                            Post, Opts.Stop});
  return llvm::Error::success();
}

/// GPUs first (they run the model's PTX through the CUDA driver), then the
/// CPU worker threads, each with its own copy of an effect's baseline.
llvm::Error Executor::createDevices() {
  if (!DevPlan.Gpus.empty() && Lib.ptx().empty())
    return error("model '" + Lib.path() +
                 "' has no GPU code (it was compiled without CUDA); "
                 "recompile it, or use --device cpu");
  for (int Ordinal : DevPlan.Gpus) {
    std::string P80 = Lib.ptx().str(), P90 = Lib.ptxSm90().str();
    auto G = gpu::GpuDevice::create(Ordinal, P80.c_str(), P90.c_str());
    if (!G)
      return G.takeError();
    for (const std::string &N : (*G)->notes())
      W.push_back("gpu:" + std::to_string(Ordinal) + ": " + N);
    Devices.push_back(std::make_unique<CudaDevice>(*Ctx, std::move(*G)));
  }
  Views.emplace(M, Data, Opts.Kind != EntryKind::PriorPredictive ? Post
                                                                 : nullptr);
  if (Opts.isEffect())
    BaselineViews.emplace(
        M, Opts.BaselineData ? *Opts.BaselineData : Data, Opts.BaselinePost);
  Ctx->CpuThreads = DevPlan.Cpus;
  for (unsigned I = 0; I < DevPlan.Cpus; ++I) {
    std::optional<EffectCombiner> Effect;
    if (BaselineViews)
      Effect.emplace(Plan->Outs, *BaselineViews, M.Sites.size());
    Devices.push_back(std::make_unique<CpuDevice>(*Ctx, std::move(Effect)));
  }
  for (const std::string &Sym : M.Dims)
    Dims.push_back(Data.Bindings.at(Sym));
  return llvm::Error::success();
}

void Executor::describeRun() {
  R.Plan = Plan->ObsPlan ? "obs" : "draw";
  R.DeviceNames = DevPlan.describe();
  R.Draws = Plan->Draws;
  R.Observations = Plan->Observations;
  R.BatchSize = Plan->BatchSize;
  R.Batches = Plan->Batches;
  R.Devices = DevPlan.size();
  for (const OutputArray &O : Plan->Outs)
    if (!O.copied())
      R.Sites.push_back(O.Name);
}

llvm::Error Executor::startSink(SinkStart Start, const nlohmann::json &Record) {
  std::vector<SinkArray> Arrays;
  for (const OutputArray &O : Plan->Outs)
    Arrays.push_back({O.Path, O.Type, O.Shape, O.Chunk, O.DimNames,
                      O.ChunkBytes, O.TextWidth});
  // A resumed run reports what the uninterrupted one would: the kept
  // chunks' non-finite values count as this run's own.
  KeptChunkFn OnKept = [&](size_t I, llvm::ArrayRef<uint64_t> Coords,
                           const void *Data) { tallyKeptChunk(I, Coords, Data); };
  auto S = Opts.toNpz()
               ? createNpzSink(Opts.OutPath, Arrays, Opts.Sync)
               : createZarrSink(Opts.OutPath, Opts.Format, Opts.Codec, Arrays,
                                Plan->Groups, Plan->Attrs, DevPlan.size(),
                                Opts.Sync, Record, Start, OnKept);
  if (!S)
    return S.takeError();
  Sink = std::move(*S);
  W.insert(W.end(), Sink->Notes.begin(), Sink->Notes.end());
  return llvm::Error::success();
}

/// Checks the output against the group, then process 0 starts the store
/// (lock, partial store, metadata) and the others join it.
llvm::Error Executor::openSink(bool &Agreed) {
  const bool ToNpz = Opts.toNpz();
  if (ToNpz && Opts.Resume)
    return error("--resume continues a Zarr store; an .npz output is "
                 "written whole at the end and has nothing to resume");
  if (ToNpz && Shared)
    return error("an .npz output is written whole by one process; give a "
                 "Zarr store (a directory) as --out for a run of " +
                 std::to_string(Group.size()) + " processes");
  nlohmann::json Record;
  if (!ToNpz) {
    auto Rec = runRecord(Lib, Data, Post, Opts, *Plan);
    if (!Rec)
      return Rec.takeError();
    Record = std::move(*Rec);
  }
  // Every process is ready.
  Agreed = true;
  if (llvm::Error E = Group.agree(llvm::Error::success()))
    return E;
  if (Shared)
    if (llvm::Error E = Group.agree(sameRunAsRankZero(Group, Record)))
      return E;
  if (llvm::Error E = Group.agree(
          Creator ? startSink(Opts.Resume ? SinkStart::Resume
                                          : SinkStart::Create,
                              Record)
                  : llvm::Error::success()))
    return E;
  if (llvm::Error E = Group.agree(Creator ? llvm::Error::success()
                                          : startSink(SinkStart::Attach,
                                                      Record))) {
    if (Creator)
      Sink->abandon();
    return E;
  }
  return llvm::Error::success();
}

/// A resumed run skips the batches the interrupted one finished: those
/// whose chunks are all in the store.
bool Executor::committed(int64_t Batch) const {
  bool Any = false;
  for (size_t I = 0; I < Plan->Outs.size(); ++I) {
    if (!Plan->fills(I, Batch))
      continue;
    if (!Sink->hasChunk(I, Plan->chunkCoords(I, Batch)))
      return false;
    Any = true;
  }
  return Any;
}

void Executor::reportBatch(int64_t Batch, double Pairs) {
  Bar->update(Batch + 1, Pairs);
  if (Opts.OnBatch)
    Opts.OnBatch(Batch + 1, Plan->Batches);
}

/// Device Dev's share of Batch (the batch split along the plan's axis).
void Executor::prepareTask(DeviceTask &Task, unsigned Dev,
                           int64_t Batch) const {
  const bool ObsPlan = Plan->ObsPlan;
  const unsigned N = static_cast<unsigned>(Devices.size());
  const BatchRect Rect = Plan->batch(Batch);
  auto [P0, P1] = ObsPlan ? deviceShare(Rect.Obs0, Rect.Obs1, Dev, N)
                          : deviceShare(Rect.Draw0, Rect.Draw1, Dev, N);
  Task.Draw0 = ObsPlan ? 0 : P0;
  Task.Draw1 = ObsPlan ? Plan->Draws : P1;
  const std::vector<OutputArray> &Outs = Plan->Outs;
  const std::vector<void *> &Buffers = *Task.Buffers;
  Task.Results.assign(M.Sites.size(), aimz_view{nullptr, nullptr});
  for (size_t I = 0; I < Outs.size(); ++I)
    if (Buffers[I] && !Outs[I].Scenario &&
        writesArray(ObsPlan, Outs[I].ObsAxis >= 0, Dev, N))
      Task.Results[Outs[I].Site] = {Buffers[I], Outs[I].ChunkStrides.data()};
  aimz_call &Call = Task.Call;
  Call.abi_version = AIMZ_ABI_VERSION;
  Call.obs_begin = ObsPlan ? P0 : 0;
  Call.obs_end = ObsPlan ? P1 : Plan->Observations;
  Call.input_obs_origin = 0;
  Call.seed = Opts.Seed;
  Call.dims = Dims.data();
  Call.inputs = Views->inputs();
  Call.observed = Views->observed();
  Call.posterior = Views->posterior();
  Call.results = Task.Results.data();
  Call.result_draw_origin = Plan->chunkDraw0(Batch);
  Call.result_obs_origin = Plan->chunkObs0(Batch);
}

/// The non-finite values of Task's rectangle.
void Executor::tallyNonFinite(unsigned Dev, const DeviceTask &Task) {
  const aimz_call &C = Task.Call;
  const std::vector<OutputArray> &Outs = Plan->Outs;
  for (size_t I = 0; I < Outs.size(); ++I) {
    void *Buffer = (*Task.Buffers)[I];
    if (!Buffer || Outs[I].Scenario || !Task.Results[Outs[I].Site].data)
      continue;
    ChunkBox Box = rectangleBox(
        Outs[I], Task.Draw0 - C.result_draw_origin,
        Task.Draw1 - C.result_draw_origin, C.obs_begin - C.result_obs_origin,
        C.obs_end - C.result_obs_origin);
    TallyOf[Dev][I].add(countNonFiniteInBox(
        Outs[I].Type, Buffer, Outs[I].ChunkStrides, Box, C.result_draw_origin,
        Outs[I].CountDraws));
  }
}

/// The non-finite values of a chunk the interrupted run committed: the
/// part of it inside the array, (chain,) draw leading.
void Executor::tallyKeptChunk(size_t I, llvm::ArrayRef<uint64_t> Coords,
                              const void *Data) {
  const OutputArray &O = Plan->Outs[I];
  if (O.copied() || O.Scenario)
    return;
  const size_t Rank = O.Chunk.size();
  std::vector<int64_t> Strides(Rank, 1);
  for (size_t A = Rank - 1; A > 0; --A)
    Strides[A - 1] = Strides[A] * static_cast<int64_t>(O.Chunk[A]);
  auto Extent = [&](size_t A) {
    return static_cast<int64_t>(
        std::min(O.Chunk[A], O.Shape[A] - Coords[A] * O.Chunk[A]));
  };
  const size_t Lead = Plan->InferenceData ? 2 : 1;
  ChunkBox Box;
  for (size_t A = Lead - 1; A < Rank; ++A) {
    Box.Lo.push_back(0);
    Box.Hi.push_back(Extent(A));
  }
  std::vector<int64_t> Inner(Strides.begin() + (Lead - 1), Strides.end());
  const size_t W = io::dtypeSize(O.Type);
  // Each chain's rows (one row without chains): its draws start at Draw0.
  const int64_t Chains = Lead == 2 ? Extent(0) : 1;
  for (int64_t C = 0; C < Chains; ++C) {
    int64_t Draw0 = static_cast<int64_t>(Coords[Lead - 1] * O.Chunk[Lead - 1]);
    if (Lead == 2)
      Draw0 += static_cast<int64_t>(Coords[0] * O.Chunk[0] + C) *
               Plan->DrawsPerChain;
    const auto *P = static_cast<const uint8_t *>(Data) + C * Strides[0] * W;
    TallyOf[0][I].add(countNonFiniteInBox(O.Type, Lead == 2 ? P : Data, Inner,
                                          Box, Draw0, O.CountDraws));
  }
}

llvm::Error Executor::computeBatch(int64_t Batch,
                                   const std::vector<void *> &Buffers) {
  return Pool->run([&](unsigned Dev) -> llvm::Error {
    DeviceTask Task;
    Task.Buffers = &Buffers;
    prepareTask(Task, Dev, Batch);
    const bool Empty = Plan->ObsPlan ? Task.Call.obs_begin == Task.Call.obs_end
                                     : Task.Draw0 == Task.Draw1;
    if (Empty)
      return llvm::Error::success();
    if (llvm::Error E = Devices[Dev]->compute(Task))
      return E;
    // A stopped device may have left its rectangle part done.
    if (!Ctx->stopRequested())
      tallyNonFinite(Dev, Task);
    return llvm::Error::success();
  });
}

/// Claims batches until none is left, computes each on every device and
/// commits its chunks.
llvm::Error Executor::runBatches() {
  GroupClaims FromGroup(Group);
  std::optional<ResumeClaims> Resumed;
  BatchClaims *Claims = &FromGroup;
  if (Opts.Resume)
    Claims = &Resumed.emplace(
        FromGroup, Plan->Batches,
        [&](int64_t B) { return committed(B); },
        // Done before: no part of this run's rate.
        [&](int64_t B) { reportBatch(B, 0); });
  const std::vector<OutputArray> &Outs = Plan->Outs;
  for (int64_t Batch = Claims->next(); Batch < Plan->Batches;
       Batch = Claims->next()) {
    std::vector<void *> Buffers(Outs.size(), nullptr);
    for (size_t I = 0; I < Outs.size(); ++I) {
      if (!Plan->fills(I, Batch))
        continue;
      auto P = Sink->buffer(I, Batch);
      if (!P)
        return P.takeError();
      Buffers[I] = *P;
    }
    if (llvm::Error E = computeBatch(Batch, Buffers))
      return E;
    if (Ctx->stopRequested())
      break;
    for (size_t I = 0; I < Outs.size(); ++I)
      if (Buffers[I])
        if (llvm::Error E = Sink->commit(I, Batch, Plan->chunkCoords(I, Batch)))
          return E;
    const BatchRect Rect = Plan->batch(Batch);
    reportBatch(Batch, Plan->ObsPlan ? double(Rect.Obs1 - Rect.Obs0) * Plan->Draws
                                     : double(Rect.Draw1 - Rect.Draw0) *
                                           Plan->Observations);
  }
  return llvm::Error::success();
}

/// What the run tells about the NaN and infinities it computed (summed over
/// the processes of Group, a collective): an error under Strict, else
/// warnings.
llvm::Error Executor::reportNonFinite() {
  std::vector<NonFiniteTally> Tally(Plan->Outs.size());
  for (const auto &OfDevice : TallyOf)
    for (size_t I = 0; I < Tally.size(); ++I)
      Tally[I].add(OfDevice[I]);
  std::vector<int64_t> Counts;
  for (const NonFiniteTally &T : Tally)
    Counts.insert(Counts.end(), {T.NaN, T.PosInf, T.NegInf, T.Invalid});
  Group.sumOverGroup(Counts);
  std::vector<int64_t> First;
  for (const NonFiniteTally &T : Tally)
    First.push_back(T.FirstDraw < 0 ? Plan->Draws : T.FirstDraw);
  Group.minOverGroup(First);
  // Statistics of the data the model computes with, then its results.
  std::vector<std::string> Lines = Data.NonFiniteStatistics;
  for (size_t I = 0; I < Tally.size(); ++I) {
    NonFiniteTally T{Counts[4 * I], Counts[4 * I + 1], Counts[4 * I + 2],
                     First[I], Counts[4 * I + 3]};
    uint64_t Values = 1;
    for (uint64_t E : Plan->Outs[I].Shape)
      Values *= E;
    std::string L = describeNonFinite(
        Plan->Outs[I].Path, T, Values,
        Opts.Kind == EntryKind::LogLikelihood && !Opts.BaselinePost);
    if (!L.empty())
      Lines.push_back(L);
  }
  if (Lines.empty())
    return llvm::Error::success();
  const std::string Why =
      "; a parameter outside its distribution's support (a scale of 0 or "
      "below, a probability outside [0, 1], ...) gives NaN (-1 for a count "
      "distribution's draw) and a value beyond the model's precision an "
      "infinity: check the posterior, the interventions and the data";
  if (Opts.Strict)
    return error("non-finite results: " + llvm::join(Lines, "; ") + Why +
                 "; --strict refuses them, so nothing was written");
  W.push_back("non-finite results: " + llvm::join(Lines, "; ") + Why +
              " (--strict makes this an error)");
  return llvm::Error::success();
}


/// The group's last agreements: an interrupted or shared run stays
/// resumable, a failed one leaves nothing; a good one is published.
llvm::Expected<RunReport> Executor::finish(llvm::Error RunErr) {
  const bool Interrupted = Ctx->stopRequested();
  if (!RunErr && Interrupted)
    RunErr = error("interrupted; " + Sink->suspendNote());
  if (llvm::Error E = reportNonFinite()) {
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
  Bar->finish();
  return R;
}

llvm::Expected<RunReport> Executor::run(bool &Agreed) {
  if (llvm::Error E = plan())
    return std::move(E);
  if (llvm::Error E = createDevices())
    return std::move(E);
  describeRun();
  // Before the sink: a resumed store's kept chunks are counted as it opens.
  TallyOf.assign(DevPlan.size(),
                 std::vector<NonFiniteTally>(Plan->Outs.size()));
  if (llvm::Error E = openSink(Agreed))
    return std::move(E);
  // From here on every failure goes through one last agreement, so that
  // no process waits for one that stopped.
  llvm::Error RunErr = Creator ? writeCopiedArrays(*Sink, *Plan, Data, Post)
                               : llvm::Error::success();
  Pool.emplace(DevPlan.size());
  Bar.emplace(Opts.Progress, Plan->Batches,
              static_cast<double>(Plan->Draws) *
                  static_cast<double>(Plan->Observations));
  const auto Start = std::chrono::steady_clock::now();
  if (Opts.Resume && Creator)
    for (int64_t Batch = 0; Batch < Plan->Batches; ++Batch)
      R.ResumedBatches += committed(Batch);
  if (!RunErr)
    RunErr = runBatches();
  auto Report = finish(std::move(RunErr));
  if (Report)
    Report->Seconds = std::chrono::duration<double>(
                          std::chrono::steady_clock::now() - Start)
                          .count();
  return Report;
}

} // namespace

llvm::Expected<RunReport> runModel(const ModelLibrary &Lib,
                                   const DataSet &Data, const Posterior *Post,
                                   const RunOptions &Opts, Warnings &W) {
  RunGroup Alone;
  RunGroup &Group = Opts.Group ? *Opts.Group : Alone;
  bool Agreed = false;
  auto R = Executor(Lib, Data, Post, Opts, W, Group).run(Agreed);
  if (Agreed || R)
    return R;
  // Failed before the first agreement: the other processes learn it there.
  return Group.agree(R.takeError());
}

} // namespace aimz::run
