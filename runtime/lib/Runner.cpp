//===- Runner.cpp - Shard a model's work over devices, stream results -----===//
#include "aimz/run/Runner.h"
#include "RunError.h"
#include "aimz/run/EffectDifference.h"
#include "aimz/run/WorkSplit.h"
#include "aimz/gpu/GpuDevice.h"
#include "aimz/run/ProgressBar.h"
#include "aimz/run/ResultSink.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <ctime>
#include <functional>
#include <mutex>
#include <thread>

namespace aimz::run {

std::atomic<bool> InterruptRequested{false};

namespace {

const char *computedName(EntryKind K) {
  switch (K) {
  case EntryKind::Predict:
    return "posterior_predictive";
  case EntryKind::LogLikelihood:
    return "log_likelihood";
  case EntryKind::PriorPredictive:
    return "prior_predictive";
  }
  return "";
}

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

/// A returned site's geometry in the output.
struct OutputArray {
  int Site;                       // manifest index
  std::string Name;
  io::DType Type;
  std::vector<uint64_t> Extents;  // the site's own shape
  int ObsAxis;                    // within Extents, or -1
  std::vector<uint64_t> Shape;    // (draws, ...Extents)
  std::vector<uint64_t> Chunk;
  std::vector<int64_t> ChunkStrides; // elements, C order of Chunk
  uint64_t ChunkBytes = 0;
  /// effect --keep-scenarios: 1 or 2 for the scenario's or the baseline's
  /// copy of the effect array Outs[EffectOf] (0: computed by the model).
  int Scenario = 0;
  size_t EffectOf = 0;
};

std::string isoTimeNow() {
  std::time_t T = std::time(nullptr);
  char Buf[32];
  std::strftime(Buf, sizeof Buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&T));
  return Buf;
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

llvm::Expected<RunReport> runModel(const ModelLibrary &Lib,
                                   const DataSet &Data, const Posterior *Post,
                                   const RunOptions &Opts, Warnings &W) {
  const Manifest &M = Lib.manifest();
  if (Opts.Kind == EntryKind::PriorPredictive)
    for (const ManifestSite &S : M.Sites)
      if (S.improper())
        return error("prior-predictive: latent '" + S.Name +
                     "' has a flat prior (ImproperUniform), which has no "
                     "draws; give it a proper prior to sample the prior "
                     "predictive");
  if (llvm::Error E = checkDimsBound(M, Data))
    return std::move(E);
  if (llvm::Error E = checkIndexInputs(M, Data))
    return std::move(E);
  RunReport R;
  const int64_t N = Data.NumObs;
  const int64_t D =
      Opts.Kind == EntryKind::PriorPredictive ? Opts.NumSamples : Post->NumDraws;
  if (D <= 0)
    return error("the number of draws must be positive");
  // aimz-run effect: a second, baseline pass over every rectangle.
  const bool Effect = Opts.BaselinePost != nullptr;
  const DataSet &BaseData = Opts.BaselineData ? *Opts.BaselineData : Data;
  if (Effect) {
    if (Opts.Kind != EntryKind::Predict || !Post)
      return error("internal error: effect runs the predictive entry point");
    if (BaseData.NumObs != N || BaseData.Bindings != Data.Bindings)
      return error("the baseline data (--baseline-data) must have the same "
                   "observations and dimensions as --data (" +
                   std::to_string(BaseData.NumObs) + " vs " +
                   std::to_string(N) + " observations)");
    if (Opts.BaselinePost->NumDraws != D)
      return error("internal error: the baseline's draws differ");
  }

  // The plan: compiled in, honoured, and overridden only where it cannot
  // work (observation-aligned latents in the posterior need 'draw').
  bool PostHasLocal = false;
  std::vector<std::string> LocalGiven;
  if (Post && Opts.Kind != EntryKind::PriorPredictive)
    for (size_t S = 0; S < M.Sites.size(); ++S)
      if ((M.Sites[S].Kind == SiteKind::Latent ||
           M.Sites[S].Kind == SiteKind::Deterministic) &&
          M.Sites[S].ObsAligned &&
          (Post->has(S) || (Effect && Opts.BaselinePost->has(S)))) {
        PostHasLocal = true;
        LocalGiven.push_back(M.Sites[S].Name);
      }
  bool ObsPlan;
  switch (Opts.Axis) {
  case ShardAxis::Auto:
    ObsPlan = M.Plan == "obs";
    break;
  case ShardAxis::Obs:
    ObsPlan = !PostHasLocal;
    if (PostHasLocal)
      W.push_back("--shard-axis obs cannot split the posterior's "
                  "observation-aligned latent(s) " +
                  llvm::join(LocalGiven, ", ") +
                  " across devices; running with --shard-axis draw (pass "
                  "--shard-axis draw to silence this warning)");
    break;
  case ShardAxis::Draw:
    ObsPlan = false;
    break;
  }
  R.Plan = ObsPlan ? "obs" : "draw";

  // Which sites to write.
  std::vector<int> Sites;
  int OutSite = M.outputSiteIndex();
  // The log-likelihood's terms: the observed site and every factor.
  auto IsTerm = [&](int S) {
    return S == OutSite || M.Sites[S].Kind == SiteKind::Factor;
  };
  if (Opts.ReturnSites.empty()) {
    Sites.push_back(OutSite);
    for (size_t S = 0; S < M.Sites.size(); ++S)
      if (M.Sites[S].Kind == (Opts.Kind == EntryKind::LogLikelihood
                                  ? SiteKind::Factor
                                  : SiteKind::Deterministic))
        Sites.push_back(S);
  } else {
    for (const std::string &Name : Opts.ReturnSites) {
      int S = M.siteIndex(Name);
      if (S < 0) {
        std::vector<std::string> Known;
        for (const auto &Si : M.Sites)
          Known.push_back(Si.Name);
        return error("--return-sites: model '" + M.Model +
                     "' has no site '" + Name + "' (its sites: " +
                     llvm::join(Known, ", ") + ")");
      }
      if (Opts.Kind == EntryKind::LogLikelihood && !IsTerm(S))
        return error("--return-sites: log-likelihood returns the output "
                     "site '" + M.Output.Name + "' and the factors only");
      if (Opts.Kind != EntryKind::LogLikelihood &&
          M.Sites[S].Kind == SiteKind::Factor)
        return error("--return-sites: '" + Name + "' is a factor, which only "
                     "log-likelihood returns");
      if (!llvm::is_contained(Sites, S))
        Sites.push_back(S);
    }
  }

  // Geometry and the default batch from the chunk budget.
  std::vector<OutputArray> Outs;
  uint64_t BytesPerObsAllDraws = 0, BytesPerDrawAllObs = 0;
  auto Add = [&](OutputArray O) {
    uint64_t Elem = io::dtypeSize(O.Type);
    for (uint64_t X : O.Extents)
      Elem *= X;
    if (O.ObsAxis >= 0)
      BytesPerObsAllDraws += Elem / N * D;
    BytesPerDrawAllObs += Elem;
    Outs.push_back(std::move(O));
  };
  for (int S : Sites) {
    const ManifestSite &Si = M.Sites[S];
    OutputArray O;
    O.Site = S;
    O.Name = Si.Name;
    O.Type = Opts.Kind == EntryKind::LogLikelihood ? M.Precision : Si.Type;
    // An effect on a bool site is -1, 0 or 1.
    if (Effect && O.Type == io::DType::Bool)
      O.Type = io::DType::Int8;
    // A vector-valued output's log-likelihood: one number per vector.
    std::vector<ManifestDim> Shape = Si.Shape;
    if (Opts.Kind == EntryKind::LogLikelihood && S == OutSite)
      Shape.resize(Shape.size() - Si.EventRank);
    auto E = resolveShape(Shape, Data.Bindings);
    if (!E)
      return E.takeError();
    O.Extents = *E;
    O.ObsAxis = M.obsAxis(Shape);
    Add(std::move(O));
  }
  // effect --keep-scenarios: both scenarios' values beside each effect.
  if (Effect && Opts.KeepScenarios) {
    size_t Count = Outs.size();
    for (size_t I = 0; I < Count; ++I)
      for (int Role : {1, 2}) {
        OutputArray O = Outs[I];
        O.Name += Role == 1 ? "_scenario" : "_baseline";
        if (M.siteIndex(O.Name) >= 0)
          return error("--keep-scenarios would name an array '" + O.Name +
                       "', which is also a site of the model");
        O.Type = M.Sites[O.Site].Type;
        O.Scenario = Role;
        O.EffectOf = I;
        Add(std::move(O));
      }
  }
  // effect runs on CPU threads: a GPU keeps one posterior resident per run.
  if (Effect && Opts.Device == DeviceChoice::GPU)
    return error("effect runs on CPU threads only; drop --device gpu");
  auto Plan = planDevices(Effect ? DeviceChoice::CPU : Opts.Device,
                          Opts.Devices);
  if (!Plan)
    return Plan.takeError();
  // GPU devices run the model's PTX through the CUDA driver.
  std::vector<std::unique_ptr<gpu::GpuDevice>> Gpus;
  if (!Plan->Gpus.empty() && Lib.ptx().empty())
    return error("model '" + Lib.path() +
                 "' has no GPU code (it was compiled without CUDA); "
                 "recompile it, or use --device cpu");
  for (int Ordinal : Plan->Gpus) {
    std::string P80 = Lib.ptx().str(), P90 = Lib.ptxSm90().str();
    auto G = gpu::GpuDevice::create(Ordinal, P80.c_str(), P90.c_str());
    if (!G)
      return G.takeError();
    for (const std::string &N : (*G)->notes())
      W.push_back("gpu:" + std::to_string(Ordinal) + ": " + N);
    Gpus.push_back(std::move(*G));
  }
  unsigned Devices = Plan->size();
  R.DeviceNames = (Gpus.empty() ? "" : std::to_string(Gpus.size()) + " GPU" +
                                           (Gpus.size() == 1 ? "" : "s")) +
                  (Gpus.empty() || !Plan->Cpus ? "" : " + ") +
                  (Plan->Cpus ? std::to_string(Plan->Cpus) + " CPU thread" +
                                    (Plan->Cpus == 1 ? "" : "s")
                              : "");
  int64_t Total = ObsPlan ? N : D;
  int64_t B = Opts.BatchSize;
  if (B <= 0) {
    uint64_t PerUnit = ObsPlan ? BytesPerObsAllDraws : BytesPerDrawAllObs;
    B = static_cast<int64_t>(Opts.ChunkBudgetBytes / std::max<uint64_t>(1, PerUnit));
    B = std::max<int64_t>(B, 1);
    if (B >= static_cast<int64_t>(Devices))
      B -= B % Devices;
  } else if (B % Devices != 0) {
    W.push_back(llvm::formatv("--batch-size {0} is not a multiple of the {1} "
                              "devices; some devices get less work per batch",
                              B, Devices)
                    .str());
  }
  bool ToNpz = llvm::StringRef(Opts.OutPath).ends_with(".npz");
  if (ToNpz)
    B = Total; // one in-memory pass
  B = std::min(B, Total);
  int64_t Batches = (Total + B - 1) / B;
  R.Draws = D;
  R.Observations = N;
  R.BatchSize = B;
  R.Batches = Batches;
  R.Devices = Devices;

  for (OutputArray &O : Outs) {
    O.Shape = {static_cast<uint64_t>(D)};
    O.Shape.insert(O.Shape.end(), O.Extents.begin(), O.Extents.end());
    O.Chunk = O.Shape;
    if (ObsPlan) {
      if (O.ObsAxis >= 0)
        O.Chunk[O.ObsAxis + 1] = B;
    } else {
      O.Chunk[0] = B;
    }
    // Zarr needs chunk extents of at least 1, even for an empty dimension.
    for (uint64_t &C : O.Chunk)
      C = std::max<uint64_t>(C, 1);
    O.ChunkStrides.assign(O.Chunk.size(), 1);
    for (size_t I = O.Chunk.size() - 1; I-- > 0;)
      O.ChunkStrides[I] = O.ChunkStrides[I + 1] * O.Chunk[I + 1];
    O.ChunkBytes = io::dtypeSize(O.Type);
    for (uint64_t X : O.Chunk)
      O.ChunkBytes *= X;
    R.Sites.push_back(O.Name);
  }

  // The sink.
  nlohmann::json Attrs = {
      {"computed", Effect ? "effect" : computedName(Opts.Kind)},
      {"model", M.Model},
      {"plan", R.Plan},
      {"seed", Opts.Seed},
      {"batch_size", B},
      {"num_draws", D},
      {"num_observations", N},
      {"created", isoTimeNow()},
      {"tool", "aimz-run " + Opts.ToolVersion}};
  if (Post && Post->Chains > 0 && Opts.Kind != EntryKind::PriorPredictive)
    Attrs["num_chains"] = Post->Chains;
  if (!Opts.Interventions.empty()) {
    nlohmann::json Do = nlohmann::json::object();
    for (const Intervention &I : Opts.Interventions)
      Do[I.Site] = I.Value;
    Attrs["interventions"] = Do;
  }
  if (Effect) {
    nlohmann::json Do = nlohmann::json::object();
    for (const Intervention &I : Opts.BaselineInterventions)
      Do[I.Site] = I.Value;
    Attrs["baseline_interventions"] = Do;
    Attrs["baseline_data"] = Opts.BaselineData != nullptr;
  }
  std::vector<SinkArray> SinkArrays;
  for (const OutputArray &O : Outs) {
    SinkArray A;
    A.Name = O.Name;
    A.Type = O.Type;
    A.Shape = O.Shape;
    A.Chunk = O.Chunk;
    A.DimNames.push_back("draw");
    for (size_t I = 0; I < O.Extents.size(); ++I)
      A.DimNames.push_back(O.Name + "_dim_" + std::to_string(I));
    A.ChunkBytes = O.ChunkBytes;
    SinkArrays.push_back(std::move(A));
  }
  auto Sink = ToNpz ? createNpzSink(Opts.OutPath, SinkArrays, Opts.Sync)
                    : createZarrSink(Opts.OutPath, Opts.Format, Opts.Codec,
                                     SinkArrays, Attrs, Devices, Opts.Sync);
  if (!Sink)
    return Sink.takeError();

  // Views that do not change between calls.
  std::vector<std::vector<int64_t>> InStrides, PostStrides(M.Sites.size());
  std::vector<aimz_view> InViews, PostViews(M.Sites.size(), aimz_view{nullptr, nullptr});
  for (const HostArray &H : Data.Inputs)
    InStrides.push_back(H.strides());
  for (size_t I = 0; I < Data.Inputs.size(); ++I)
    InViews.push_back({const_cast<void *>(Data.Inputs[I].Data), InStrides[I].data()});
  std::vector<int64_t> ObservedStrides;
  aimz_view ObservedView{nullptr, nullptr};
  if (Data.Observed) {
    ObservedStrides = Data.Observed->strides();
    ObservedView = {const_cast<void *>(Data.Observed->Data), ObservedStrides.data()};
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
    if (Data.Observed)
      L.Observed = {ArrayBytes(*Data.Observed),
                    static_cast<int>(Data.Observed->Shape.size()), true};
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
  ProgressBar Bar(Opts.Progress, Batches,
                  static_cast<double>(D) * static_cast<double>(N));
  auto Start = std::chrono::steady_clock::now();

  // Draws per kernel call: small enough to notice Ctrl-C quickly.
  const int64_t DrawStep = ObsPlan ? 16 : 1;
  for (int64_t Batch = 0; Batch < Batches; ++Batch) {
    int64_t U0 = Batch * B, U1 = std::min(Total, U0 + B);
    // Chunk buffers for this batch (globals under 'obs': first batch only).
    std::vector<void *> Buffers(Outs.size(), nullptr);
    for (size_t I = 0; I < Outs.size(); ++I) {
      if (ObsPlan && Outs[I].ObsAxis < 0 && Batch > 0)
        continue;
      // An array with an empty dimension has no chunks at all.
      if (llvm::is_contained(Outs[I].Shape, uint64_t(0)))
        continue;
      auto P = (*Sink)->buffer(I, Batch);
      if (!P)
        return P.takeError();
      Buffers[I] = *P;
    }
    int64_t ChunkDraw0 = ObsPlan ? 0 : U0, ChunkObs0 = ObsPlan ? U0 : 0;

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
      Call.observed = &ObservedView;
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
          Scratch.resize(C.scratch_needed);
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
      if (Gpu) {
        // Small observation blocks: one GPU thread each, and less scratch.
        Call.obs_block = 32;
        Layout = gpuLayout(Results);
        auto Scratch = gpu::scratchBytesPerThread(Entry, Call);
        if (!Scratch)
          return Scratch.takeError();
        Layout.ScratchBytes = *Scratch;
      }
      for (int64_t G = Dr0; G < Dr1; G += DrawStep) {
        if (InterruptRequested.load(std::memory_order_relaxed))
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
        Call.draw_end = std::min(Dr1, G + DrawStep);
        if (llvm::Error E = callEntry(Call))
          return E;
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
          ChunkBox Box;
          Box.Lo.assign(O.Chunk.size(), 0);
          Box.Hi.assign(O.Chunk.begin(), O.Chunk.end());
          Box.Lo[0] = Call.draw_begin - ChunkDraw0;
          Box.Hi[0] = Call.draw_end - ChunkDraw0;
          if (O.ObsAxis >= 0) {
            Box.Lo[O.ObsAxis + 1] = Ob0 - ChunkObs0;
            Box.Hi[O.ObsAxis + 1] = Ob1 - ChunkObs0;
          }
          return Box;
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
      return Gpu ? Gpu->finish() : llvm::Error::success();
    };
    if (llvm::Error E = Pool.run(Work)) {
      (*Sink)->abandon();
      return std::move(E);
    }
    if (InterruptRequested.load()) {
      (*Sink)->abandon();
      return error("interrupted; " + (*Sink)->abandonNote());
    }
    for (size_t I = 0; I < Outs.size(); ++I) {
      if (!Buffers[I])
        continue;
      std::vector<uint64_t> Coords(Outs[I].Chunk.size(), 0);
      if (ObsPlan) {
        if (Outs[I].ObsAxis >= 0)
          Coords[Outs[I].ObsAxis + 1] = Batch;
      } else {
        Coords[0] = Batch;
      }
      if (llvm::Error E = (*Sink)->commit(I, Batch, Coords)) {
        (*Sink)->abandon();
        return std::move(E);
      }
    }
    double Pairs = static_cast<double>(U1 - U0) * (ObsPlan ? D : N);
    Bar.update(Batch + 1, Pairs);
    if (Opts.OnBatch)
      Opts.OnBatch(Batch + 1, Batches);
  }
  if (llvm::Error E = (*Sink)->finish()) {
    (*Sink)->abandon();
    return std::move(E);
  }
  Bar.finish();
  R.Seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                            Start)
                  .count();
  return R;
}

} // namespace aimz::run
