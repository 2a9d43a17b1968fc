//===- Data.cpp - Inputs and posteriors, checked against a manifest -------===//
#include "aimz/run/Data.h"
#include "aimz/DimExpr.h"
#include "RunError.h"
#include "aimz/run/InferenceDataNetcdf.h"
#include "aimz/run/RunPlan.h"
#include "aimz/run/StanCsv.h"

#include "aimz/io/Npz.h"
#include "aimz/io/Shape.h"
#include "aimz/io/ZarrReader.h"

#include "llvm/ADT/StringExtras.h"

#include <algorithm>
#include <cstdlib>
#include <functional>
#include <optional>
#include <cstring>
#include "llvm/Support/FileSystem.h"

namespace aimz::run {

static std::string names(const std::vector<ManifestArray> &As) {
  std::vector<std::string> N;
  for (const auto &A : As)
    N.push_back(A.Name);
  return N.empty() ? "(none)" : llvm::join(N, ", ");
}

/// Binds the symbols of `Decl`'s shape from `Actual`, checking known extents
/// and earlier bindings.
static llvm::Error bindShape(const ManifestArray &Decl,
                        llvm::ArrayRef<uint64_t> Actual,
                        const std::string &What, const std::string &ObsDim,
                        std::map<std::string, int64_t> &Bindings,
                        std::map<std::string, std::string> &BoundBy) {
  std::string Declared = Decl.TypeName + shapeString(Decl.Shape);
  if (Actual.size() != Decl.Shape.size())
    return error(What + " has shape " + io::formatShape(Actual) +
                 " but the model declares " + Decl.Name + ": " + Declared);
  for (size_t I = 0; I < Actual.size(); ++I) {
    int64_t V = static_cast<int64_t>(Actual[I]);
    if (const auto *E = std::get_if<int64_t>(&Decl.Shape[I])) {
      if (*E != V)
        return error(What + " has shape " + io::formatShape(Actual) +
                     " but the model declares " + Decl.Name + ": " +
                     Declared);
      continue;
    }
    const std::string &Sym = std::get<std::string>(Decl.Shape[I]);
    if (isDerivedDim(Sym))
      continue; // `K + 1`: checked once every name is bound
    auto [It, New] = Bindings.emplace(Sym, V);
    if (!New && It->second != V)
      return error("dimension '" + Sym + "'" +
                   (Sym == ObsDim ? " (the observation axis)" : "") + " is " +
                   std::to_string(It->second) + " in " + BoundBy[Sym] +
                   " but " + std::to_string(V) + " in " + What);
    if (New)
      BoundBy[Sym] = What;
  }
  return llvm::Error::success();
}

/// Each arithmetic dimension of `Decl` (`K + 1`) against the data's
/// extent, once the names it uses are bound (unbound: left to the
/// posterior's check).
static llvm::Error
checkDerivedExtents(const ManifestArray &Decl,
                    llvm::ArrayRef<uint64_t> Actual, const std::string &What,
                    const std::map<std::string, int64_t> &Bindings) {
  for (size_t I = 0; I < Decl.Shape.size() && I < Actual.size(); ++I) {
    const auto *Sym = std::get_if<std::string>(&Decl.Shape[I]);
    if (!Sym || !isDerivedDim(*Sym))
      continue;
    auto Want = dimValue(*Sym, Bindings);
    if (Want && *Want != static_cast<int64_t>(Actual[I]))
      return error(What + " has shape " + io::formatShape(Actual) +
                   " but the model declares " + Decl.Name + ": " +
                   Decl.TypeName + shapeString(Decl.Shape) + " (" + *Sym +
                   " = " + std::to_string(*Want) + ")");
  }
  return llvm::Error::success();
}

/// Decoded inputs stay in memory up to a quarter of the tightest memory
/// limit (AIMZ_INPUT_MEMORY_BYTES sets another bound), and are spilled to a
/// file past it; a chunk decoded in memory must fit in half of it, as
/// scratch must.
static llvm::Expected<io::InputMemory> inputMemory() {
  const MemoryLimit Limit = memoryLimit();
  io::InputMemory Mem;
  Mem.ArrayBytes = Limit.Bytes ? Limit.Bytes / 4 : UINT64_MAX;
  if (const char *E = std::getenv("AIMZ_INPUT_MEMORY_BYTES"))
    if (llvm::StringRef(E).getAsInteger(10, Mem.ArrayBytes))
      return error("AIMZ_INPUT_MEMORY_BYTES='" + std::string(E) +
                   "' is not a number of bytes");
  Mem.ChunkBytes = Limit.Bytes / 2;
  Mem.What = "half of " + Limit.What;
  return Mem;
}

/// The array of `--data NAME=FILE`: a .npy file, a variable of a netCDF
/// file (FILE.nc:VARIABLE) or an array of a Zarr store (STORE.zarr:ARRAY),
/// the input's own name when none is given.
static llvm::Expected<io::NpyArray> openInputFile(const std::string &Name,
                                                  const std::string &File) {
  std::string Path = File, Var = Name;
  const size_t Colon = File.rfind(':');
  if (Colon != std::string::npos) {
    llvm::StringRef Before = llvm::StringRef(File).take_front(Colon);
    if (isNetcdfArgument(Before) || io::isZarrStore(Before)) {
      Path = Before.str();
      Var = File.substr(Colon + 1);
    }
  }
  const bool Netcdf = isNetcdfArgument(Path);
  if (!Netcdf && !io::isZarrStore(Path))
    return io::NpyArray::open(File); // memory-mapped, not read
  auto Mem = inputMemory();
  if (!Mem)
    return Mem.takeError();
  return Netcdf ? readNetcdfInput(Path, Var, *Mem)
                : io::readZarrArray(Path, Var, *Mem);
}

llvm::Expected<DataSet> loadData(const Manifest &M,
                                 const std::vector<std::string> &Args,
                                 ObservedUse Observed, Warnings &W,
                                 int64_t NumObservations) {
  // Collect name -> array from every argument.
  std::map<std::string, io::NpyArray> Given;
  std::map<std::string, std::string> GivenBy; // name -> the --data argument
  auto Add = [&](const std::string &Name, io::NpyArray Arr,
                 const std::string &Arg) -> llvm::Error {
    auto [It, New] = GivenBy.emplace(Name, Arg);
    if (!New)
      return error("input '" + Name + "' is given twice (by --data " +
                   It->second + " and by --data " + Arg +
                   "); give each input once");
    Given.emplace(Name, std::move(Arr));
    return llvm::Error::success();
  };
  for (const std::string &A : Args) {
    auto Eq = A.find('=');
    if (Eq == std::string::npos) {
      if (!llvm::StringRef(A).ends_with(".npz"))
        return error("--data '" + A +
                     "': give NAME=FILE.npy, NAME=FILE.nc[:VARIABLE], "
                     "NAME=STORE.zarr[:ARRAY] or an "
                     ".npz file holding arrays named after the inputs (" +
                     names(M.Inputs) + ")");
      auto Z = io::NpzArchive::open(A);
      if (!Z)
        return Z.takeError();
      for (const std::string &N : Z->names()) {
        auto Arr = Z->array(N);
        if (!Arr)
          return Arr.takeError();
        if (llvm::Error E = Add(N, std::move(*Arr), A))
          return std::move(E);
      }
      continue;
    }
    std::string Name = A.substr(0, Eq), File = A.substr(Eq + 1);
    auto Arr = openInputFile(Name, File);
    if (!Arr)
      return Arr.takeError();
    if (llvm::Error E = Add(Name, std::move(*Arr), A))
      return std::move(E);
  }

  return dataFromArrays(M, std::move(Given), Observed, W,
                        NumObservations);
}

namespace {

/// Which argument bound each dimension (for messages).
using BoundByMap = std::map<std::string, std::string>;

/// Every input of the model from Given, its dimensions bound into D.
llvm::Error readInputs(const Manifest &M,
                       std::map<std::string, io::NpyArray> &Given, DataSet &D,
                       BoundByMap &BoundBy) {
  for (const ManifestArray &In : M.Inputs) {
    auto It = Given.find(In.Name);
    if (It == Given.end())
      return error("input '" + In.Name + "' is missing; pass --data " +
                   In.Name + "=" + In.Name + ".npy (the model's inputs: " +
                   names(M.Inputs) + ")");
    std::string What = "input '" + In.Name + "'";
    if (auto E = bindShape(In, It->second.shape(), What, M.ObsDim, D.Bindings,
                      BoundBy))
      return E;
    auto H = asHostArray(It->second, In.Type, What, Conversion::Widening);
    if (!H)
      return H.takeError();
    D.Inputs.push_back(std::move(*H));
    llvm::consumeError(It->second.adviseSequential());
  }
  return llvm::Error::success();
}

/// The observed outputs Given holds, as Observed asks: required, read when
/// given, or ignored (with a warning).
llvm::Error readObserved(const Manifest &M,
                         std::map<std::string, io::NpyArray> &Given,
                         ObservedUse Observed, DataSet &D, BoundByMap &BoundBy,
                         Warnings &W) {
  D.Observed.resize(M.Outputs.size());
  for (size_t O = 0; O < M.Outputs.size(); ++O) {
    const ManifestArray &OutArray = M.Outputs[O];
    auto Out = Given.find(OutArray.Name);
    if (Out == Given.end()) {
      if (Observed == ObservedUse::Require)
        return error("log-likelihood needs the observed output '" +
                     OutArray.Name + "': pass --data " + OutArray.Name + "=" +
                     OutArray.Name + ".npy" +
                     (M.Outputs.size() > 1
                          ? " (the model observes " + M.outputNames() +
                                "; each is scored)"
                          : std::string()));
      continue;
    }
    if (Observed == ObservedUse::Ignore) {
      W.push_back("ignoring --data " + OutArray.Name +
                  ": the output is sampled, not read, by this command");
      continue;
    }
    std::string What = "observed output '" + OutArray.Name + "'";
    if (auto E = bindShape(OutArray, Out->second.shape(), What, M.ObsDim,
                           D.Bindings, BoundBy))
      return E;
    auto H =
        asHostArray(Out->second, OutArray.Type, What, Conversion::Widening);
    if (!H)
      return H.takeError();
    D.Observed[O] = std::move(*H);
  }
  return llvm::Error::success();
}

/// The latents with the observation axis: a posterior holding one of them
/// says how many observations there are.
std::vector<std::string> obsLatents(const Manifest &M) {
  std::vector<std::string> Names;
  for (const ManifestSite &S : M.Sites)
    if (S.Kind == SiteKind::Latent && M.obsAxis(S.Shape) >= 0)
      Names.push_back(S.Name);
  return Names;
}

std::string unknownObservations(const Manifest &M) {
  return "the number of observations is unknown: no input has the "
         "observation axis '" + M.ObsDim + "'";
}

/// The observation count: bound by the data or NumObservations (which
/// must agree), and every arithmetic extent checked now that its names are
/// bound.
llvm::Error bindObservations(const Manifest &M, int64_t NumObservations,
                             bool NeedObserved, DataSet &D,
                             BoundByMap &BoundBy) {
  if (NumObservations > 0) {
    auto [It, New] = D.Bindings.emplace(M.ObsDim, NumObservations);
    if (New)
      D.ObsBoundBy = "--num-observations";
    if (!New && It->second != NumObservations)
      return error("--num-observations " + std::to_string(NumObservations) +
                   " but " + BoundBy[M.ObsDim] + " has " +
                   std::to_string(It->second) + " observations");
  }
  // Dimensions written as arithmetic (`x: f32[n, K + 1]`), now that every
  // name they use is bound.
  for (size_t I = 0; I < M.Inputs.size(); ++I)
    if (auto E = checkDerivedExtents(M.Inputs[I], D.Inputs[I].Shape,
                                     "input '" + M.Inputs[I].Name + "'",
                                     D.Bindings))
      return E;
  for (size_t O = 0; O < M.Outputs.size(); ++O)
    if (D.Observed[O])
      if (auto E = checkDerivedExtents(
              M.Outputs[O], D.Observed[O]->Shape,
              "observed output '" + M.Outputs[O].Name + "'", D.Bindings))
        return E;
  auto N = D.Bindings.find(M.ObsDim);
  if (N == D.Bindings.end() && !NeedObserved && !obsLatents(M).empty()) {
    D.ObsFromPosterior = true; // the posterior's per-observation latent
    return llvm::Error::success();
  }
  if (N == D.Bindings.end())
    return error(unknownObservations(M) +
                 (NeedObserved ? std::string()
                               : "; give it with --num-observations N"));
  if (N->second == 0)
    return error("the data has no observations (the observation axis '" +
                 M.ObsDim + "' is 0)");
  D.NumObs = N->second;
  return llvm::Error::success();
}

} // namespace

llvm::Expected<DataSet> dataFromArrays(const Manifest &M,
                                       std::map<std::string, io::NpyArray> Given,
                                       ObservedUse Observed, Warnings &W,
                                       int64_t NumObservations) {
  DataSet D;
  BoundByMap BoundBy;
  if (llvm::Error E = readInputs(M, Given, D, BoundBy))
    return std::move(E);
  if (llvm::Error E = readObserved(M, Given, Observed, D, BoundBy, W))
    return std::move(E);
  for (const auto &[Name, A] : Given)
    if (!M.isOutputSite(M.siteIndex(Name)) &&
        std::none_of(M.Inputs.begin(), M.Inputs.end(),
                     [&](const ManifestArray &I) { return I.Name == Name; }))
      W.push_back("ignoring '" + Name + "' from --data: the model has no "
                  "such input (its inputs: " + names(M.Inputs) + ")");
  if (llvm::Error E =
          bindObservations(M, NumObservations,
                           Observed == ObservedUse::Require, D, BoundBy))
    return std::move(E);
  if (auto E = addDerivedInputs(M, D))
    return std::move(E);
  return D;
}

void keepCoordinates(
    const Manifest &M, Coordinates Coords,
    const std::map<std::string, std::vector<std::string>> &SiteDims,
    Posterior &P) {
  P.Coords = std::move(Coords);
  P.SiteDims.resize(M.Sites.size());
  for (const auto &[Name, Dims] : SiteDims) {
    int S = M.siteIndex(Name);
    if (S >= 0 && P.has(S) && P.Sites[S]->Shape.size() == Dims.size() + 1)
      P.SiteDims[S] = Dims;
  }
}

llvm::Expected<Posterior> loadPosterior(const Manifest &M,
                                        const std::string &Path,
                                        DataSet &Data, bool RequireAll,
                                        Warnings &W, bool Strict) {
  // The named arrays: an .npz, or CmdStan CSV files (one per chain).
  std::vector<std::string> Names;
  PosteriorArrayFn ArrayOf;
  std::optional<io::NpzArchive> Z;
  std::optional<StanCsvDraws> Stan;
  std::optional<InferenceDataDraws> Idata;
  int64_t Chains = 0;
  if (isNetcdfArgument(Path)) {
    auto I = readInferenceDataNetcdf(Path);
    if (!I)
      return I.takeError();
    Idata.emplace(std::move(*I));
    Names = Idata->Names;
    Chains = Idata->Chains;
    ArrayOf = Idata->Read;
  } else if (isStanCsvArgument(Path)) {
    auto Files = expandPosteriorFiles(Path);
    if (!Files)
      return Files.takeError();
    auto S = readStanCsv(*Files);
    if (!S)
      return S.takeError();
    Stan.emplace(std::move(*S));
    Names = Stan->Names;
    Chains = Stan->Chains;
    ArrayOf = [&](const std::string &N) -> llvm::Expected<io::NpyArray> {
      return Stan->Arrays.at(N);
    };
  } else {
    auto Archive = io::NpzArchive::open(Path);
    if (!Archive)
      return Archive.takeError();
    Z.emplace(std::move(*Archive));
    Names = Z->names();
    ArrayOf = [&](const std::string &N) { return Z->array(N); };
  }
  auto P = posteriorFromArrays(M, Names, ArrayOf, Path, Data, RequireAll, W,
                               Strict);
  if (!P)
    return P.takeError();
  P->Chains = Chains;
  if (Idata)
    keepCoordinates(M, std::move(Idata->Coords), Idata->Dims, *P);
  return P;
}

namespace {

/// The site a posterior array named Name is read into, or -1 (with a
/// warning) for a name that is no latent of the model.
int posteriorSite(const Manifest &M, const std::string &Name,
                  const std::string &Origin, Warnings &W) {
  int S = M.siteIndex(Name);
  if (S < 0) {
    W.push_back("posterior '" + Origin + "' has '" + Name +
                "', which is not a site of model '" + M.Model +
                "'; ignoring it");
    return -1;
  }
  const ManifestSite &Site = M.Sites[S];
  if (Site.Kind == SiteKind::Observed) {
    W.push_back("dropping '" + Name + "' from the posterior: it is an "
                "output of the model, which is sampled, not conditioned "
                "on");
    return -1;
  }
  if (Site.Kind == SiteKind::Deterministic || Site.Kind == SiteKind::Factor) {
    // NumPyro's get_samples() holds them: not an error, but not read.
    W.push_back("'" + Name + "' in the posterior is " +
                (Site.Kind == SiteKind::Factor ? "a factor" :
                                                 "a deterministic site") +
                ", recomputed from the latents; its values there are not "
                "read (to set it, intervene: --intervene " + Name +
                "=...)");
    return -1;
  }
  return S;
}

/// Checks a posterior array's shape against its site's: (draws, ...the
/// site's shape), binding the dimensions only the posterior binds.
llvm::Error checkPosteriorShape(const Manifest &M, const ManifestSite &Site,
                                const io::NpyArray &A, const std::string &What,
                                DataSet &Data) {
  // A dimension only the posterior binds takes this array's extent the
  // first time it is seen; later arrays must agree (checked below).
  if (A.shape().size() == Site.Shape.size() + 1)
    for (size_t I = 0; I < Site.Shape.size(); ++I)
      if (const auto *Sym = std::get_if<std::string>(&Site.Shape[I])) {
        if (llvm::is_contained(M.PosteriorDims, *Sym))
          Data.Bindings.emplace(*Sym, static_cast<int64_t>(A.shape()[I + 1]));
        if (*Sym == M.ObsDim && Data.ObsFromPosterior && !Data.NumObs &&
            A.shape()[I + 1] > 0) {
          Data.NumObs = static_cast<int64_t>(A.shape()[I + 1]);
          Data.Bindings.emplace(*Sym, Data.NumObs);
          Data.ObsBoundBy = What;
        }
      }
  auto Want = resolveShape(Site.Shape, Data.Bindings);
  if (!Want)
    return Want.takeError();
  llvm::ArrayRef<uint64_t> Got = A.shape();
  if (Got.empty())
    return error(What + " is a scalar; a posterior holds one value per "
                 "draw (leading axis = draws)");
  std::vector<uint64_t> Expect = {Got[0]};
  Expect.insert(Expect.end(), Want->begin(), Want->end());
  if (std::vector<uint64_t>(Got.begin(), Got.end()) == Expect)
    return llvm::Error::success();
  std::string Msg = What + " has shape " + io::formatShape(Got) +
                    " but the model needs (draws, " +
                    shapeString(Site.Shape).substr(1);
  Msg.back() = ')';
  Msg += " = " + io::formatShape(Expect);
  int Axis = M.obsAxis(Site.Shape);
  if (Axis >= 0 && Got.size() == Expect.size() &&
      Got[Axis + 1] != Expect[Axis + 1])
    Msg += "; it holds " + std::to_string(Got[Axis + 1]) +
           " observations but " +
           (Data.ObsBoundBy.empty() ? "the data" : Data.ObsBoundBy) +
           " gives " + std::to_string(Data.NumObs);
  return error(Msg);
}

/// NaN or infinities in a posterior array: an error under Strict, else a
/// warning.
llvm::Error checkFinite(const HostArray &H, const io::NpyArray &A,
                        const std::string &What, bool Strict, Warnings &W) {
  const uint64_t Draws = A.shape()[0];
  uint64_t PerDraw = Draws ? A.numElements() / Draws : 1;
  NonFinite NF = countNonFinite(H, A.numElements());
  if (!NF.Count)
    return llvm::Error::success();
  std::string Msg = What + " holds " + std::to_string(NF.Count) +
                    " NaN or infinite value" + (NF.Count > 1 ? "s" : "") +
                    " (the first at draw " +
                    std::to_string(NF.First / std::max<uint64_t>(1, PerDraw)) +
                    ")";
  if (Strict)
    return error(Msg + "; --strict refuses it: fix or drop those draws");
  W.push_back(Msg + "; results computed from those draws will be NaN "
                    "(--strict refuses such a posterior)");
  return llvm::Error::success();
}

/// ImproperUniform(support=positive): the posterior's values must be > 0.
llvm::Error checkPositiveSupport(const Manifest &M, const Posterior &P) {
  for (size_t S = 0; S < M.Sites.size(); ++S) {
    const ManifestSite &Site = M.Sites[S];
    if (!P.Sites[S] || Site.Support != "positive")
      continue;
    const HostArray &H = *P.Sites[S];
    uint64_t N = H.numElements();
    uint64_t PerDraw = P.NumDraws ? N / P.NumDraws : 1;
    for (uint64_t I = 0; I < N; ++I) {
      double V = readAsDouble(H.Data, H.Type, I);
      if (!(V > 0))
        return error("posterior '" + Site.Name + "' holds " +
                     std::to_string(V) + " at draw " +
                     std::to_string(I / std::max<uint64_t>(1, PerDraw)) +
                     ", outside its support: the model declares "
                     "ImproperUniform(support=positive)");
    }
  }
  return llvm::Error::success();
}

/// What the posterior must hold beyond its arrays' own checks: every
/// latent with a flat prior, values in an ImproperUniform's support, every
/// latent for log-likelihood (RequireAll), and some draws.
llvm::Error checkPosteriorComplete(const Manifest &M, const Posterior &P,
                                   const std::string &Origin,
                                   bool RequireAll) {
  std::vector<std::string> Missing, Flat;
  for (size_t S = 0; S < M.Sites.size(); ++S)
    if (M.Sites[S].Kind == SiteKind::Latent && !P.Sites[S]) {
      Missing.push_back(M.Sites[S].Name);
      if (M.Sites[S].improper())
        Flat.push_back(M.Sites[S].Name);
    }
  if (!Flat.empty())
    return error("'" + Origin + "' lacks " + llvm::join(Flat, ", ") +
                 ", with a flat prior (ImproperUniform), which has no "
                 "draws: every such latent must be in the posterior");
  if (llvm::Error E = checkPositiveSupport(M, P))
    return E;
  if (RequireAll && !Missing.empty())
    return error("log-likelihood needs every latent in the posterior; '" +
                 Origin + "' lacks " + llvm::join(Missing, ", "));
  if (P.NumDraws == 0)
    return error("posterior '" + Origin + "' holds none of the model's latents "
                 "or has zero draws");
  return llvm::Error::success();
}

} // namespace

llvm::Expected<Posterior>
posteriorFromArrays(const Manifest &M, const std::vector<std::string> &Names,
                    const PosteriorArrayFn &ArrayOf, const std::string &Origin,
                    DataSet &Data, bool RequireAll, Warnings &W, bool Strict) {
  Posterior P;
  P.Sites.resize(M.Sites.size());
  std::string DrawsFrom;
  // Sites whose shapes bind dimensions plainly (mu[T]) before those that
  // only derive from them (beta[T - 1]), whatever order the file has.
  std::vector<std::string> Ordered(Names);
  std::stable_partition(Ordered.begin(), Ordered.end(), [&](const auto &N) {
    int S = M.siteIndex(N);
    return S < 0 || llvm::none_of(M.Sites[S].Shape, [](const ManifestDim &D) {
             const auto *T = std::get_if<std::string>(&D);
             return T && isDerivedDim(*T);
           });
  });
  for (const std::string &Name : Ordered) {
    int S = posteriorSite(M, Name, Origin, W);
    if (S < 0)
      continue;
    const ManifestSite &Site = M.Sites[S];
    auto A = ArrayOf(Name);
    if (!A)
      return A.takeError();
    std::string What = "posterior '" + Name + "'";
    if (llvm::Error E = checkPosteriorShape(M, Site, *A, What, Data))
      return std::move(E);
    const int64_t Draws = static_cast<int64_t>(A->shape()[0]);
    if (DrawsFrom.empty()) {
      P.NumDraws = Draws;
      DrawsFrom = Name;
    } else if (P.NumDraws != Draws) {
      return error("the posterior's sites disagree on the number of draws: '" +
                   DrawsFrom + "' has " + std::to_string(P.NumDraws) +
                   " but '" + Name + "' has " + std::to_string(Draws));
    }
    auto H = asHostArray(*A, Site.Type, What, Conversion::FloatPrecision);
    if (!H)
      return H.takeError();
    if (llvm::Error E = checkFinite(*H, *A, What, Strict, W))
      return std::move(E);
    P.Sites[S] = std::move(*H);
  }
  if (llvm::Error E = checkPosteriorComplete(M, P, Origin, RequireAll))
    return std::move(E);
  if (Data.ObsFromPosterior && !Data.NumObs)
    return error(unknownObservations(M) + ", and posterior '" + Origin +
                 "' holds none of the latents that have it (" +
                 llvm::join(obsLatents(M), ", ") +
                 "); give it with --num-observations N");
  return P;
}

llvm::Error checkInputNames(const Manifest &M,
                            const std::vector<std::string> &Names,
                            const std::string &Option, bool OutputToo) {
  for (const std::string &Name : Names) {
    if (OutputToo && M.isOutputSite(M.siteIndex(Name)))
      continue;
    if (std::none_of(M.Inputs.begin(), M.Inputs.end(),
                     [&](const ManifestArray &I) { return I.Name == Name; }))
      return error(Option + " " + Name + ": the model '" + M.Model +
                   "' has no input '" + Name + "' (its inputs: " +
                   names(M.Inputs) + "); an input it does not read would "
                   "change nothing");
  }
  return llvm::Error::success();
}

llvm::Error checkSameDims(const DataSet &Scenario, const DataSet &Baseline,
                          const std::string &Option) {
  for (const auto &[Dim, Value] : Baseline.Bindings) {
    auto It = Scenario.Bindings.find(Dim);
    if (It != Scenario.Bindings.end() && It->second != Value)
      return error(Option + ": the baseline's inputs give " + Dim + " = " +
                   std::to_string(Value) + " but the scenario's (--data) " +
                   "give " + Dim + " = " + std::to_string(It->second) +
                   "; both scenarios need inputs of the same shapes");
  }
  return llvm::Error::success();
}

llvm::Error bindDimArgs(const Manifest &M,
                        const std::vector<std::string> &Args, DataSet &Data) {
  for (const std::string &A : Args) {
    auto Eq = A.find('=');
    std::string Name = A.substr(0, Eq);
    long long V = 0;
    if (Eq == std::string::npos ||
        llvm::StringRef(A).substr(Eq + 1).getAsInteger(10, V) || V <= 0)
      return error("--dim '" + A + "': give NAME=N with a positive integer N");
    if (!llvm::is_contained(M.PosteriorDims, Name))
      return error("--dim " + Name + ": the model has no dimension '" + Name +
                   "' set at run time" +
                   (M.PosteriorDims.empty()
                        ? std::string(" (its dimensions come from the data)")
                        : " (those are: " + llvm::join(M.PosteriorDims, ", ") +
                              ")"));
    auto [It, New] = Data.Bindings.emplace(Name, V);
    if (!New && It->second != V)
      return error("--dim " + Name + "=" + std::to_string(V) +
                   " but the posterior's arrays give " +
                   std::to_string(It->second));
  }
  return llvm::Error::success();
}

llvm::Error checkIndexInputs(const Manifest &M, const DataSet &Data) {
  for (const Manifest::IndexUse &U : M.IndexInputs) {
    auto At = std::find_if(M.Inputs.begin(), M.Inputs.end(),
                           [&](const ManifestArray &I) { return I.Name == U.Input; });
    if (At == M.Inputs.end() ||
        static_cast<size_t>(At - M.Inputs.begin()) >= Data.Inputs.size())
      continue;
    const HostArray &H = Data.Inputs[At - M.Inputs.begin()];
    int64_t Extent;
    std::string DimName;
    if (const auto *Sym = std::get_if<std::string>(&U.Extent)) {
      auto B = dimValue(*Sym, Data.Bindings);
      if (!B)
        continue; // unbound: checkDimsBound reports it
      Extent = *B;
      DimName = "dimension " + *Sym + " = " + std::to_string(Extent);
    } else {
      Extent = std::get<int64_t>(U.Extent);
      DimName = "a dimension of " + std::to_string(Extent);
    }
    uint64_t N = H.numElements();
    uint64_t PerRow = H.Shape.empty() || H.Shape[0] == 0 ? 1 : N / H.Shape[0];
    if (H.Type != io::DType::Int32 && H.Type != io::DType::Int64)
      continue; // not an integer input: Sema refuses it as an index
    for (uint64_t I = 0; I < N; ++I) {
      int64_t V = readAsInt(H.Data, H.Type, I);
      if (V >= 0 && V < Extent)
        continue;
      std::string Hint =
          V < 0 ? "; negative indices are not wrapped around"
          : V == Extent ? "; indices count from 0 (1-based indices from Stan "
                          "or R need 1 subtracted)"
                        : "";
      return error("index input '" + U.Input + "' holds " + std::to_string(V) +
                   " at row " + std::to_string(I / PerRow) +
                   ", outside [0, " + std::to_string(Extent) + ") for " +
                   DimName + Hint);
    }
  }
  return llvm::Error::success();
}

llvm::Error checkDimsBound(const Manifest &M, const DataSet &Data) {
  for (const std::string &D : M.Dims) {
    if (Data.Bindings.count(D))
      continue;
    std::vector<std::string> Carriers;
    for (const ManifestSite &S : M.Sites)
      for (const ManifestDim &X : S.Shape)
        if (const auto *Sym = std::get_if<std::string>(&X); Sym && *Sym == D)
          Carriers.push_back(S.Name);
    return error("dimension '" + D + "' is set by the posterior's arrays (" +
                 llvm::join(Carriers, ", ") +
                 "), and none of them was read; pass them in --posterior or "
                 "give the dimension with --dim " + D + "=N");
  }
  // Dimension arithmetic (`K - 1`, a slice's bounds) must not go below 0.
  for (const Manifest::DimCheck &C : M.DimChecks) {
    auto V = dimValue(C.Expr, Data.Bindings);
    if (!V || *V >= 0)
      continue;
    std::string With;
    if (auto P = DimPoly::parse(C.Expr))
      for (const std::string &N : P->names())
        With += (With.empty() ? "" : ", ") + N + " = " +
                std::to_string(Data.Bindings.at(N));
    return error("the model's " + C.What + " needs " + C.Expr +
                 " >= 0, but it is " + std::to_string(*V) + " with " + With +
                 " from the data");
  }
  return llvm::Error::success();
}

} // namespace aimz::run
