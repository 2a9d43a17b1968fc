//===- RunPlan.cpp - What a run computes and where each batch goes --------===//
#include "aimz/run/RunPlan.h"
#include "CoordinateArrays.h"
#include "RunError.h"

#include "aimz/io/Shape.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <ctime>
#include <map>
#include <set>

#include <sys/resource.h>
#include <unistd.h>

namespace aimz::run {

std::string OutputArray::group() const {
  size_t Slash = Path.rfind('/');
  return Slash == std::string::npos ? "" : Path.substr(0, Slash);
}

void OutputArray::setKernelStrides() {
  ChunkStrides.assign(KernelChunk.size(), 1);
  for (size_t I = KernelChunk.size() - 1; I-- > 0;)
    ChunkStrides[I] = ChunkStrides[I + 1] * KernelChunk[I + 1];
  ChunkBytes = io::dtypeSize(Type);
  for (uint64_t X : KernelChunk)
    ChunkBytes *= X;
}

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

std::string isoTimeNow() {
  std::time_t T = std::time(nullptr);
  char Buf[32];
  std::strftime(Buf, sizeof Buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&T));
  return Buf;
}

/// The plan: compiled in, honoured, and overridden only where it cannot
/// work (observation-aligned latents in the posterior need 'draw').
bool chooseObsPlan(const Manifest &M, const Posterior *Post,
                   const RunOptions &Opts, Warnings &W) {
  std::vector<std::string> LocalGiven;
  if (Post && Opts.Kind != EntryKind::PriorPredictive)
    for (size_t S = 0; S < M.Sites.size(); ++S)
      if ((M.Sites[S].Kind == SiteKind::Latent ||
           M.Sites[S].Kind == SiteKind::Deterministic) &&
          M.Sites[S].ObsAligned &&
          (Post->has(S) || (Opts.BaselinePost && Opts.BaselinePost->has(S))))
        LocalGiven.push_back(M.Sites[S].Name);
  switch (Opts.Axis) {
  case ShardAxis::Auto:
    return M.Plan == "obs";
  case ShardAxis::Obs:
    if (M.JointObservations) {
      W.push_back("--shard-axis obs cannot split the observations of the "
                  "joint site(s) " + llvm::join(M.PlanReason, ", ") +
                  ", whose density couples them all; running with "
                  "--shard-axis draw (pass --shard-axis draw to silence this "
                  "warning)");
      return false;
    }
    if (LocalGiven.empty())
      return true;
    W.push_back("--shard-axis obs cannot split the posterior's "
                "observation-aligned latent(s) " +
                llvm::join(LocalGiven, ", ") +
                " across devices; running with --shard-axis draw (pass "
                "--shard-axis draw to silence this warning)");
    return false;
  case ShardAxis::Draw:
    return false;
  }
  return false;
}

/// The manifest indices of the sites to write, in order.
llvm::Expected<std::vector<int>> chooseSites(const Manifest &M,
                                             const RunOptions &Opts) {
  std::vector<int> Sites;
  // An output scored only by factors has nothing to draw it from.
  if (Opts.Kind != EntryKind::LogLikelihood)
    for (const ManifestSite &S : M.Sites)
      if (S.ScoreOnly)
        return error(
            "model '" + M.Model + "' scores its output '" + S.Name +
            "' only with factor terms (it has no '" + S.Name +
            " ~ ...' statement), so there is no distribution to draw it "
            "from: only log-likelihood runs it. To predict, give '" + S.Name +
            "' its distribution: a hurdle is HurdlePoisson(...) or "
            "HurdleDistribution(...), a zero-inflated count "
            "ZeroInflatedPoisson(...), a truncation TruncatedDistribution(...), "
            "a censoring RightCensoredDistribution(...) or Censored(...)");
  // The log-likelihood's terms: the observed sites and every factor; a
  // score-only output's terms are the factors that read it.
  auto IsTerm = [&](int S) {
    return (M.isOutputSite(S) && !M.Sites[S].ScoreOnly) ||
           M.Sites[S].Kind == SiteKind::Factor;
  };
  if (Opts.ReturnSites.empty()) {
    for (size_t O = 0; O < M.Outputs.size(); ++O)
      if (!M.Sites[M.outputSiteIndex(O)].ScoreOnly)
        Sites.push_back(M.outputSiteIndex(O));
    for (size_t S = 0; S < M.Sites.size(); ++S)
      if (M.Sites[S].Kind == (Opts.Kind == EntryKind::LogLikelihood
                                  ? SiteKind::Factor
                                  : SiteKind::Deterministic))
        Sites.push_back(S);
    return Sites;
  }
  for (const std::string &Name : Opts.ReturnSites) {
    int S = M.siteIndex(Name);
    if (S < 0) {
      std::vector<std::string> Known;
      for (const auto &Si : M.Sites)
        Known.push_back(Si.Name);
      return error("--return-sites: model '" + M.Model + "' has no site '" +
                   Name + "' (its sites: " + llvm::join(Known, ", ") + ")");
    }
    if (Opts.Kind == EntryKind::LogLikelihood && M.Sites[S].ScoreOnly)
      return error("--return-sites: the output '" + Name + "' is scored "
                   "only by factor terms; ask for those factors");
    if (Opts.Kind == EntryKind::LogLikelihood && !IsTerm(S))
      return error("--return-sites: log-likelihood returns the output "
                   "sites (" + M.outputNames() + ") and the factors only");
    if (Opts.Kind != EntryKind::LogLikelihood &&
        M.Sites[S].Kind == SiteKind::Factor)
      return error("--return-sites: '" + Name + "' is a factor, which only "
                   "log-likelihood returns");
    if (!llvm::is_contained(Sites, S))
      Sites.push_back(S);
  }
  return Sites;
}

/// InferenceData's group for a site's draws.
std::string groupOf(const Manifest &M, const RunOptions &Opts, int Site) {
  switch (Opts.Kind) {
  case EntryKind::Predict:
    return Opts.OutOfSample ? "predictions" : "posterior_predictive";
  case EntryKind::LogLikelihood:
    return "log_likelihood";
  case EntryKind::PriorPredictive:
    // Draws of the observed variable, and of latents and deterministics.
    return M.isOutputSite(Site) ? "prior_predictive" : "prior";
  }
  return "";
}

/// The group an array is written to ("" at the root).
/// Appends the names of each array's own axes to its DimNames (which hold
/// the leading chain/draw): the plate an axis lies in, as ArviZ names
/// NumPyro's, else `<array>_dim_<i>`. A plate's name is kept out of a group
/// where xarray could not open it: when it names a leading dim or an array
/// there (a variable named like its dim becomes a coordinate), or when two
/// of its axes there differ in extent (a dim has one size per Dataset).
void nameSiteDims(const Manifest &M, std::vector<OutputArray> &Outs) {
  using Key = std::pair<std::string, std::string>; // group, name
  std::set<Key> Taken;
  std::map<Key, uint64_t> Extent;
  for (const OutputArray &O : Outs) {
    std::string G = O.group();
    Taken.insert({G, O.Name});
    for (const std::string &D : O.DimNames)
      Taken.insert({G, D});
  }
  for (const OutputArray &O : Outs)
    for (size_t I = 0; I < O.Extents.size(); ++I) {
      llvm::StringRef Plate = M.Sites[O.Site].plate(I);
      if (Plate.empty())
        continue;
      auto [It, New] = Extent.emplace(Key{O.group(), Plate}, O.Extents[I]);
      if (!New && It->second != O.Extents[I])
        Taken.insert(It->first);
    }
  for (OutputArray &O : Outs) {
    if (O.DimNames.size() == O.Shape.size())
      continue; // named by the posterior it came from
    std::string G = O.group();
    for (size_t I = 0; I < O.Extents.size(); ++I) {
      std::string Plate = M.Sites[O.Site].plate(I).str();
      O.DimNames.push_back(!Plate.empty() && !Taken.count({G, Plate})
                               ? Plate
                               : O.Name + "_dim_" + std::to_string(I));
    }
  }
}

/// --with-posterior: the posterior's draws of every latent it gives, as
/// ArviZ's posterior group, so the result is a whole InferenceData
/// (az.loo(result) needs the posterior's chains and draws).
llvm::Error addPosteriorArrays(const Manifest &M, const Posterior *Post,
                               const RunOptions &Opts, RunPlan &P) {
  if (!P.InferenceData)
    return error("--with-posterior adds ArviZ's posterior group: use it "
                 "with --layout inference-data");
  if (!Post || Opts.Kind == EntryKind::PriorPredictive)
    return error("--with-posterior copies the posterior the run reads; "
                 "prior-predictive reads none");
  const uint64_t Chains = P.Chains, PerChain = P.DrawsPerChain;
  for (size_t S = 0; S < M.Sites.size(); ++S) {
    if (!Post->has(S) || M.Sites[S].Kind != SiteKind::Latent)
      continue;
    const HostArray &H = *Post->Sites[S];
    OutputArray O;
    O.Site = static_cast<int>(S);
    O.Name = M.Sites[S].Name;
    O.Path = "posterior/" + O.Name;
    O.Type = H.Type;
    O.FromPosterior = true;
    O.Extents.assign(H.Shape.begin() + 1, H.Shape.end());
    uint64_t DrawBytes = io::dtypeSize(H.Type);
    for (uint64_t X : O.Extents)
      DrawBytes *= X;
    O.ChunkRows = std::clamp<uint64_t>(
        Opts.ChunkBudgetBytes / std::max<uint64_t>(1, DrawBytes), 1,
        std::max<uint64_t>(PerChain, 1));
    O.Shape = {Chains, PerChain};
    O.Shape.insert(O.Shape.end(), O.Extents.begin(), O.Extents.end());
    O.Chunk = {1, O.ChunkRows};
    O.Chunk.insert(O.Chunk.end(), O.Extents.begin(), O.Extents.end());
    for (uint64_t &C : O.Chunk)
      C = std::max<uint64_t>(C, 1);
    O.DimNames = {"chain", "draw"};
    if (S < Post->SiteDims.size() && !Post->SiteDims[S].empty())
      llvm::append_range(O.DimNames, Post->SiteDims[S]);
    O.KernelChunk = O.Chunk;
    O.setKernelStrides();
    P.Outs.push_back(std::move(O));
  }
  return llvm::Error::success();
}

/// Refuses a site a kernel must hold whole for one draw (its axes other
/// than the observation axis, which kernels take in blocks) whose bytes
/// overflow or pass half the machine's memory: --dim J=2^62 must be an
/// error up front, never a scratch size that wraps around in the kernel
/// (a segfault) or one the kernel cannot get (the OOM killer).
llvm::Error checkSiteSizes(const Manifest &M, const DataSet &Data) {
  const MemoryLimit Limit = memoryLimit();
  const uint64_t Memory = Limit.Bytes;
  for (const ManifestSite &S : M.Sites) {
    auto E = resolveShape(S.Shape, Data.Bindings);
    if (!E)
      return E.takeError();
    const int Obs = M.obsAxis(S.Shape);
    uint64_t Bytes = std::max<size_t>(io::dtypeSize(S.Type), 8);
    bool Over = false;
    for (size_t I = 0; I < E->size(); ++I)
      if (static_cast<int>(I) != Obs)
        Over |= __builtin_mul_overflow(Bytes, (*E)[I], &Bytes);
    if (Over || (Memory && Bytes > Memory / 2))
      return error("site '" + S.Name + "' of shape " + shapeString(S.Shape) +
                   " = " + io::formatShape(*E) + " needs " +
                   (Over ? std::string("more than 2^64")
                         : std::to_string(Bytes)) +
                   " bytes for one draw, more than half of " + Limit.What +
                   "; check the dimensions (--dim, the data, the "
                   "posterior)");
  }
  return llvm::Error::success();
}

/// Refuses outputs whose size overflows, or whose smallest chunk (a batch
/// of one observation or draw) cannot fit in memory: a dimension set to
/// 2^40 by --dim must be an error up front, never a failed allocation in a
/// worker thread.
llvm::Error checkOutputSizes(const std::vector<OutputArray> &Outs, int64_t D,
                             int64_t N, bool ObsPlan) {
  const MemoryLimit Limit = memoryLimit();
  const uint64_t Memory = Limit.Bytes;
  for (const OutputArray &O : Outs) {
    uint64_t PerDraw = io::dtypeSize(O.Type), All = 0;
    bool Over = false;
    for (uint64_t X : O.Extents)
      Over |= __builtin_mul_overflow(PerDraw, X, &PerDraw);
    Over |= __builtin_mul_overflow(PerDraw, static_cast<uint64_t>(D), &All);
    std::string Shape = "(" + std::to_string(D) + ", " +
                        llvm::join(llvm::map_range(O.Extents, [](uint64_t X) {
                          return std::to_string(X);
                        }), ", ") + ")";
    if (Over)
      return error("the output '" + O.Name + "' of shape " + Shape +
                   " would hold more than 2^64 bytes; check the dimensions "
                   "(--dim, the data, the posterior)");
    uint64_t MinChunk = ObsPlan ? (O.ObsAxis >= 0 && N > 0 ? All / N : All)
                                : PerDraw;
    if (Memory && MinChunk > Memory / 2)
      return error("the output '" + O.Name + "' of shape " + Shape +
                   " needs chunks of at least " + std::to_string(MinChunk) +
                   " bytes (one " + (ObsPlan ? "observation" : "draw") +
                   " each), more than half of " + Limit.What +
                   "; check the dimensions (--dim, the data, the posterior) "
                   "or write fewer sites (--return-sites)");
  }
  return llvm::Error::success();
}

} // namespace

uint64_t physicalMemory() {
  long Pages = ::sysconf(_SC_PHYS_PAGES), Page = ::sysconf(_SC_PAGESIZE);
  return Pages > 0 && Page > 0 ? uint64_t(Pages) * uint64_t(Page) : 0;
}

namespace {
/// A cgroup limit file's number ("max", absent or unreadable: 0).
uint64_t cgroupLimit(const char *Path) {
  std::ifstream In(Path);
  std::string Text;
  if (!(In >> Text) || Text == "max")
    return 0;
  char *End = nullptr;
  unsigned long long V = std::strtoull(Text.c_str(), &End, 10);
  return End && *End == '\0' ? V : 0;
}
} // namespace

MemoryLimit memoryLimit() {
  MemoryLimit L;
  auto Consider = [&](uint64_t Bytes, std::string What) {
    if (Bytes && (!L.Bytes || Bytes < L.Bytes))
      L = {Bytes, What + " of " + std::to_string(Bytes) + " bytes"};
  };
  Consider(physicalMemory(), "this machine's memory");
  Consider(cgroupLimit("/sys/fs/cgroup/memory.max"),
           "the cgroup's memory limit (memory.max)");
  // cgroup v1 reports "no limit" as a huge number: above physical memory,
  // it is never the tightest.
  Consider(cgroupLimit("/sys/fs/cgroup/memory/memory.limit_in_bytes"),
           "the cgroup's memory limit (memory.limit_in_bytes)");
  struct rlimit R;
  if (::getrlimit(RLIMIT_AS, &R) == 0 && R.rlim_cur != RLIM_INFINITY)
    Consider(uint64_t(R.rlim_cur), "the address-space limit (ulimit -v)");
  return L;
}

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

BatchRect RunPlan::batch(int64_t B) const {
  BatchRect R;
  if (ObsPlan) {
    R.Draw1 = Draws;
    R.Obs0 = B * BatchSize;
    R.Obs1 = std::min(Observations, R.Obs0 + BatchSize);
    return R;
  }
  // Blocks of BatchSize draws within each chain.
  int64_t PerChain = (DrawsPerChain + BatchSize - 1) / BatchSize;
  int64_t Chain = B / PerChain, Block = B % PerChain;
  R.Draw0 = Chain * DrawsPerChain + Block * BatchSize;
  R.Draw1 = Chain * DrawsPerChain +
            std::min(DrawsPerChain, (Block + 1) * BatchSize);
  R.Obs1 = Observations;
  return R;
}

bool RunPlan::fills(size_t I, int64_t B) const {
  const OutputArray &O = Outs[I];
  if (O.copied() || llvm::is_contained(O.Shape, uint64_t(0)))
    return false;
  return !(ObsPlan && O.ObsAxis < 0 && B > 0);
}

std::vector<uint64_t> RunPlan::chunkCoords(size_t I, int64_t B) const {
  const OutputArray &O = Outs[I];
  std::vector<uint64_t> Coords(O.Chunk.size(), 0);
  const size_t Lead = InferenceData ? 2 : 1; // (chain,) draw
  if (ObsPlan) {
    if (O.ObsAxis >= 0)
      Coords[O.ObsAxis + Lead] = B;
    return Coords;
  }
  int64_t PerChain = (DrawsPerChain + BatchSize - 1) / BatchSize;
  if (InferenceData)
    Coords[0] = B / PerChain;
  Coords[Lead - 1] = B % PerChain;
  return Coords;
}

int64_t RunPlan::chunkDraw0(int64_t B) const {
  return ObsPlan ? 0 : batch(B).Draw0;
}

int64_t RunPlan::chunkObs0(int64_t B) const {
  return ObsPlan ? batch(B).Obs0 : 0;
}

namespace {

/// The checks of the request against the model and the data that need no
/// geometry.
llvm::Error checkRequest(const Manifest &M, const DataSet &Data,
                         const RunOptions &Opts) {
  if (Opts.Kind == EntryKind::PriorPredictive)
    for (const ManifestSite &S : M.Sites)
      if (S.improper())
        return error("prior-predictive: latent '" + S.Name +
                     "' has a flat prior (ImproperUniform), which has no "
                     "draws; give it a proper prior to sample the prior "
                     "predictive");
  if (Data.ObsFromPosterior && !Data.NumObs) // no posterior to take it from
    return error("the number of observations is unknown: no input has the "
                 "observation axis '" + M.ObsDim + "'; give it with "
                 "--num-observations N");
  if (llvm::Error E = checkDimsBound(M, Data))
    return E;
  if (llvm::Error E = checkIndexInputs(M, Data))
    return E;
  return checkSiteSizes(M, Data);
}

/// effect and the InferenceData layout: what they combine with.
llvm::Error checkScenariosAndLayout(const DataSet &Data, const Posterior *Post,
                                    const RunOptions &Opts, int64_t D) {
  const int64_t N = Data.NumObs;
  const bool Effect = Opts.isEffect();
  if (Effect) {
    const DataSet &BaseData = Opts.BaselineData ? *Opts.BaselineData : Data;
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
  const bool InferenceData = Opts.Layout == OutputLayout::InferenceData;
  if (InferenceData && Opts.toNpz())
    return error("--layout inference-data writes a Zarr store; give --out "
                 "a directory (e.g. out.zarr), not an .npz");
  if (InferenceData && Effect)
    return error("effect writes the flat layout (an effect is not one of "
                 "ArviZ's groups); drop --layout inference-data");
  if (Opts.OutOfSample && !(InferenceData && Opts.Kind == EntryKind::Predict))
    return error("--out-of-sample names the InferenceData group of "
                 "predictive draws; use it with predict and --layout "
                 "inference-data");
  return llvm::Error::success();
}

/// The bytes of every computed array per unit of each plan's axis (one
/// observation of every draw; one draw of every observation): the default
/// batch comes from them.
struct UnitBytes {
  uint64_t PerObsAllDraws = 0, PerDrawAllObs = 0;
};

/// The arrays the kernels compute: the sites, and for effect
/// --keep-scenarios both scenarios' values beside each effect.
llvm::Error addComputedArrays(const Manifest &M, const DataSet &Data,
                              const RunOptions &Opts,
                              const std::vector<int> &Sites, RunPlan &P,
                              UnitBytes &Bytes) {
  const int64_t N = P.Observations, D = P.Draws;
  const bool Effect = Opts.isEffect();
  std::vector<OutputArray> &Outs = P.Outs;
  auto Add = [&](OutputArray O) {
    uint64_t Elem = io::dtypeSize(O.Type);
    for (uint64_t X : O.Extents)
      Elem *= X;
    if (O.ObsAxis >= 0)
      Bytes.PerObsAllDraws += Elem / N * D;
    Bytes.PerDrawAllObs += Elem;
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
    if (Opts.Kind == EntryKind::LogLikelihood && M.isOutputSite(S))
      Shape.resize(Shape.size() - Si.EventRank);
    auto E = resolveShape(Shape, Data.Bindings);
    if (!E)
      return E.takeError();
    O.Extents = *E;
    O.ObsAxis = M.obsAxis(Shape);
    O.CountDraws = !Effect && Opts.Kind != EntryKind::LogLikelihood &&
                   !Si.Dist.empty() && !Si.improper() &&
                   O.Type == io::DType::Int32;
    Add(std::move(O));
  }
  if (!Effect || !Opts.KeepScenarios)
    return llvm::Error::success();
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
  return llvm::Error::success();
}

/// The batch size: the one asked for, or from the chunk budget rounded to
/// the devices; one in-memory pass for an .npz; within a chain under
/// 'draw'.
int64_t chooseBatchSize(const RunPlan &P, const RunOptions &Opts,
                        const UnitBytes &Bytes, unsigned Devices,
                        Warnings &W) {
  const int64_t Total = P.ObsPlan ? P.Observations : P.Draws;
  int64_t B = Opts.BatchSize;
  if (B <= 0) {
    uint64_t PerUnit = P.ObsPlan ? Bytes.PerObsAllDraws : Bytes.PerDrawAllObs;
    B = static_cast<int64_t>(Opts.ChunkBudgetBytes /
                             std::max<uint64_t>(1, PerUnit));
    B = std::max<int64_t>(B, 1);
    if (B >= static_cast<int64_t>(Devices))
      B -= B % Devices;
  } else if (B % Devices != 0) {
    W.push_back(llvm::formatv("--batch-size {0} is not a multiple of the {1} "
                              "devices; some devices get less work per batch",
                              B, Devices)
                    .str());
  }
  if (Opts.toNpz())
    B = Total; // one in-memory pass
  // A batch of the 'draw' plan stays within a chain.
  return std::min(B, P.ObsPlan ? Total : P.DrawsPerChain);
}

/// Each computed array's chunk, as the kernels see it and in the store.
void layOutChunks(const Manifest &M, const RunOptions &Opts, RunPlan &P) {
  const int64_t B = P.BatchSize, D = P.Draws;
  for (OutputArray &O : P.Outs) {
    O.KernelChunk = {static_cast<uint64_t>(D)};
    O.KernelChunk.insert(O.KernelChunk.end(), O.Extents.begin(),
                         O.Extents.end());
    if (P.ObsPlan) {
      if (O.ObsAxis >= 0)
        O.KernelChunk[O.ObsAxis + 1] = B;
    } else {
      O.KernelChunk[0] = B;
    }
    // Zarr needs chunk extents of at least 1, even for an empty dimension.
    for (uint64_t &C : O.KernelChunk)
      C = std::max<uint64_t>(C, 1);
    O.setKernelStrides();
    std::vector<uint64_t> Lead = {static_cast<uint64_t>(D)};
    std::vector<uint64_t> LeadChunk = {O.KernelChunk[0]};
    O.DimNames = {"draw"};
    O.Path = O.Name;
    if (P.InferenceData) {
      Lead = {static_cast<uint64_t>(P.Chains),
              static_cast<uint64_t>(P.DrawsPerChain)};
      // 'obs': every draw of every chain; 'draw': a block of one chain.
      LeadChunk = P.ObsPlan ? Lead
                            : std::vector<uint64_t>{1, O.KernelChunk[0]};
      O.DimNames = {"chain", "draw"};
      O.Path = groupOf(M, Opts, O.Site) + "/" + O.Name;
    }
    O.Shape = Lead;
    O.Shape.insert(O.Shape.end(), O.Extents.begin(), O.Extents.end());
    O.Chunk = LeadChunk;
    O.Chunk.insert(O.Chunk.end(), O.KernelChunk.begin() + 1,
                   O.KernelChunk.end());
    for (uint64_t &C : O.Chunk)
      C = std::max<uint64_t>(C, 1);
  }
}

/// InferenceData: the observed values beside the draws.
void addObservedArrays(const Manifest &M, const DataSet &Data,
                       const RunOptions &Opts, RunPlan &P) {
  for (size_t Ob = 0; Ob < Data.Observed.size(); ++Ob) {
    if (!P.InferenceData || !Data.Observed[Ob] || Opts.OutOfSample)
      continue;
    const HostArray &H = *Data.Observed[Ob];
    OutputArray O;
    O.Site = M.outputSiteIndex(Ob);
    O.Name = M.Outputs[Ob].Name;
    O.ObservedOutput = Ob;
    O.Path = "observed_data/" + O.Name;
    O.Type = H.Type;
    O.Extents = H.Shape;
    O.Shape = H.Shape;
    O.Observed = true;
    uint64_t RowBytes = io::dtypeSize(H.Type);
    for (size_t I = 1; I < H.Shape.size(); ++I)
      RowBytes *= H.Shape[I];
    O.ChunkRows = std::max<uint64_t>(
        1, std::min<uint64_t>(H.Shape.empty() ? 1 : H.Shape[0],
                              Opts.ChunkBudgetBytes /
                                  std::max<uint64_t>(1, RowBytes)));
    O.Chunk = H.Shape;
    if (!O.Chunk.empty())
      O.Chunk[0] = O.ChunkRows;
    for (uint64_t &C : O.Chunk)
      C = std::max<uint64_t>(C, 1);
    O.KernelChunk = O.Chunk;
    O.setKernelStrides();
    P.Outs.push_back(std::move(O));
  }
}

/// {site: value as given} of interventions, as the attributes record them.
nlohmann::json interventionsRecord(const std::vector<Intervention> &Given) {
  nlohmann::json Do = nlohmann::json::object();
  for (const Intervention &I : Given)
    Do[I.Site] = I.Value;
  return Do;
}

/// The store's attributes, and InferenceData's groups with ArviZ's.
void setAttributes(const Manifest &M, const Posterior *Post,
                   const RunOptions &Opts, RunPlan &P) {
  const bool Effect = Opts.isEffect();
  P.Attrs = {{"computed", Effect ? "effect" : computedName(Opts.Kind)},
             {"model", M.Model},
             {"plan", P.ObsPlan ? "obs" : "draw"},
             {"seed", Opts.Seed},
             {"batch_size", P.BatchSize},
             {"num_draws", P.Draws},
             {"num_observations", P.Observations},
             {"created", isoTimeNow()},
             {"tool", "aimz-run " + Opts.ToolVersion}};
  if (Post && Post->Chains > 0 && Opts.Kind != EntryKind::PriorPredictive)
    P.Attrs["num_chains"] = Post->Chains;
  if (!Opts.Interventions.empty())
    P.Attrs["interventions"] = interventionsRecord(Opts.Interventions);
  if (Effect) {
    P.Attrs["baseline_interventions"] =
        interventionsRecord(Opts.BaselineInterventions);
    P.Attrs["baseline_data"] = Opts.BaselineData != nullptr;
  }
  if (!P.InferenceData)
    return;
  P.Attrs["layout"] = "inference-data";
  // ArviZ's group attributes.
  nlohmann::json GroupAttrs = {
      {"created_at", P.Attrs["created"]},
      {"inference_library", "aimzc"},
      {"inference_library_version", Opts.ToolVersion}};
  for (const OutputArray &O : P.Outs) {
    std::string Group = O.Path.substr(0, O.Path.find('/'));
    if (std::none_of(P.Groups.begin(), P.Groups.end(),
                     [&](const auto &G) { return G.first == Group; }))
      P.Groups.emplace_back(Group, GroupAttrs);
  }
}

} // namespace

llvm::Expected<RunPlan> planRun(const Manifest &M, const DataSet &Data,
                                const Posterior *Post, const RunOptions &Opts,
                                unsigned Devices, Warnings &W) {
  if (llvm::Error E = checkRequest(M, Data, Opts))
    return std::move(E);
  RunPlan P;
  const int64_t N = Data.NumObs;
  const int64_t D =
      Opts.Kind == EntryKind::PriorPredictive ? Opts.NumSamples : Post->NumDraws;
  if (D <= 0)
    return error("the number of draws must be positive");
  if (llvm::Error E = checkScenariosAndLayout(Data, Post, Opts, D))
    return std::move(E);
  P.InferenceData = Opts.Layout == OutputLayout::InferenceData;
  P.ObsPlan = chooseObsPlan(M, Post, Opts, W);
  P.Draws = D;
  P.Observations = N;
  // Unknown chains (an .npz, CmdStan chains of unequal lengths): one.
  P.Chains = 1;
  if (P.InferenceData && Post && Post->Chains > 1 &&
      Opts.Kind != EntryKind::PriorPredictive && D % Post->Chains == 0)
    P.Chains = Post->Chains;
  P.DrawsPerChain = D / P.Chains;

  auto Sites = chooseSites(M, Opts);
  if (!Sites)
    return Sites.takeError();
  UnitBytes Bytes;
  if (llvm::Error E = addComputedArrays(M, Data, Opts, *Sites, P, Bytes))
    return std::move(E);
  if (llvm::Error E = checkOutputSizes(P.Outs, D, N, P.ObsPlan))
    return std::move(E);
  P.BatchSize = chooseBatchSize(P, Opts, Bytes, Devices, W);
  const int64_t B = P.BatchSize;
  P.Batches = P.ObsPlan ? (N + B - 1) / B
                        : P.Chains * ((P.DrawsPerChain + B - 1) / B);
  layOutChunks(M, Opts, P);
  addObservedArrays(M, Data, Opts, P);
  if (Opts.WithPosterior)
    if (llvm::Error E = addPosteriorArrays(M, Post, Opts, P))
      return std::move(E);
  nameSiteDims(M, P.Outs);
  if (Opts.toNpz() && !Opts.Coords.empty())
    return error("coords label the dims of a Zarr store, and an .npz output "
                 "has none; write a store (a directory) to keep the labels");
  if (!Opts.toNpz())
    if (llvm::Error E = addCoordinateArrays(M, Data, Post, Opts, P, W))
      return std::move(E);
  setAttributes(M, Post, Opts, P);
  return P;
}

} // namespace aimz::run
