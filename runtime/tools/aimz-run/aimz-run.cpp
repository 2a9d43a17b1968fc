//===- aimz-run.cpp - Run compiled models over data and posteriors --------===//
#include "MpiRunGroup.h"

#include "aimz/gpu/CudaDriver.h"
#include "aimz/run/Data.h"
#include "aimz/run/ModelLibrary.h"
#include "aimz/run/RunGroup.h"
#include "aimz/run/Runner.h"
#include "aimz/run/Scenario.h"
#include "aimz/run/Version.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>

using namespace aimz;
using namespace aimz::run;
namespace cl = llvm::cl;

namespace {

cl::SubCommand PredictCmd("predict", "Posterior predictive samples");
cl::SubCommand LogLikCmd("log-likelihood",
                         "Pointwise log-likelihood of observed data");
cl::SubCommand PriorCmd("prior-predictive", "Prior predictive samples");
cl::SubCommand EffectCmd("effect",
                         "Scenario minus baseline predictive draws, with "
                         "common random numbers");
cl::SubCommand InfoCmd("info", "Describe a compiled model");
cl::SubCommand DevicesCmd("devices", "List the devices a run shards over");

cl::OptionCategory RunCat("aimz-run options");

#define RUN_SUBS                                                              \
  cl::sub(PredictCmd), cl::sub(LogLikCmd), cl::sub(PriorCmd), cl::sub(EffectCmd)

cl::opt<std::string> ModelPath(cl::Positional, cl::desc("<model.so>"),
                               RUN_SUBS, cl::sub(InfoCmd), cl::cat(RunCat));
cl::opt<bool> InfoJson("json",
                       cl::desc("Print the manifest that aimzc embedded (JSON: "
                                "inputs, sites, dims, plan), as "
                                "'aimzc --emit=manifest' prints it"),
                       cl::sub(InfoCmd), cl::cat(RunCat));
cl::list<std::string>
    DataArgs("data",
             cl::desc("An input: NAME=FILE.npy, NAME=FILE.nc[:VARIABLE], "
                      "NAME=STORE.zarr[:ARRAY], or an .npz of named arrays"),
             cl::value_desc("NAME=FILE"), RUN_SUBS, cl::cat(RunCat));
cl::list<std::string>
    DimArgs("dim",
            cl::desc("A dimension the posterior's arrays set (a group count), "
                     "for runs without them: NAME=N"),
            cl::value_desc("NAME=N"), RUN_SUBS, cl::cat(RunCat));
cl::list<std::string>
    CoordsArgs("coords",
               cl::desc("Labels of a dim of the result (a plate, chain, "
                        "draw): DIM=FILE, a text file with one label per "
                        "line or a .npy of numbers; a Zarr store writes "
                        "them beside every array that has the dim"),
               cl::value_desc("DIM=FILE"), RUN_SUBS, cl::cat(RunCat));
cl::opt<int64_t> NumObservations(
    "num-observations",
    cl::desc("Observations to generate, for a model whose inputs do not have "
             "the observation axis (or that has none)"),
    cl::init(0), RUN_SUBS, cl::cat(RunCat));
cl::opt<std::string> PosteriorPath(
    "posterior",
    cl::desc("Posterior draws: an .npz (one array per latent, leading axis "
             "= draws), an ArviZ InferenceData netCDF (its posterior group, "
             "chains one after the other), or CmdStan CSV files, one per "
             "chain ('fit-*.csv', chains in sorted order; warmup and sampler "
             "columns skipped)"),
    cl::value_desc("post.npz|fit.nc|fit-*.csv"), cl::sub(PredictCmd), cl::sub(LogLikCmd),
    cl::sub(EffectCmd),
    cl::cat(RunCat));
cl::opt<std::string>
    OutPath("out", cl::desc("Output: a Zarr store directory, or FILE.npz for "
                            "one in-memory pass"),
            cl::value_desc("path"), RUN_SUBS, cl::cat(RunCat));
cl::opt<int64_t> NumSamples("num-samples",
                            cl::desc("Prior draws (default 1000)"),
                            cl::init(1000), cl::sub(PriorCmd),
                            cl::cat(RunCat));
cl::opt<ShardAxis> Axis(
    "shard-axis", cl::desc("How to split work across devices"),
    cl::values(clEnumValN(ShardAxis::Auto, "auto",
                          "the plan compiled into the model (default)"),
               clEnumValN(ShardAxis::Obs, "obs",
                          "each device takes a slice of observations"),
               clEnumValN(ShardAxis::Draw, "draw",
                          "each device takes chunks of draws")),
    cl::init(ShardAxis::Auto), RUN_SUBS, cl::cat(RunCat));
cl::opt<int64_t> BatchSize(
    "batch-size",
    cl::desc("Observations (plan obs) or draws (plan draw) per batch and "
             "chunk (default: from an 8 MiB chunk budget)"),
    cl::init(0), RUN_SUBS, cl::cat(RunCat));
cl::opt<DeviceChoice> Device(
    "device", cl::desc("Which devices to use"),
    cl::values(clEnumValN(DeviceChoice::Default, "auto",
                          "GPUs when present, else CPU threads (default)"),
               clEnumValN(DeviceChoice::CPU, "cpu", "CPU worker threads"),
               clEnumValN(DeviceChoice::GPU, "gpu", "NVIDIA GPUs only"),
               clEnumValN(DeviceChoice::All, "all", "GPUs and CPU threads")),
    cl::init(DeviceChoice::Default), RUN_SUBS, cl::sub(DevicesCmd),
    cl::cat(RunCat));
cl::opt<unsigned> DeviceCount("devices",
                              cl::desc("Use at most N devices (default: all)"),
                              cl::init(0), RUN_SUBS, cl::sub(DevicesCmd),
                              cl::cat(RunCat));
cl::opt<uint64_t> Seed("seed", cl::desc("Random seed (default 0)"),
                       cl::init(0), RUN_SUBS, cl::cat(RunCat));
cl::list<std::string> ReturnSites(
    "return-sites",
    cl::desc("Sites to write (default: the output and deterministic sites)"),
    cl::CommaSeparated, cl::value_desc("a,b"), RUN_SUBS, cl::cat(RunCat));
cl::opt<unsigned> ZarrFormat("zarr-format",
                             cl::desc("Zarr format, 2 or 3 (default 2)"),
                             cl::init(2), RUN_SUBS, cl::cat(RunCat));
cl::opt<OutputLayout> Layout(
    "layout", cl::desc("How the store is organized"),
    cl::values(clEnumValN(OutputLayout::Flat, "flat",
                          "one group, dims (draw, then each axis's plate or "
                          "<site>_dim_<i>), as aimz writes (default)"),
               clEnumValN(OutputLayout::InferenceData, "inference-data",
                          "ArviZ's InferenceData schema: a group per kind "
                          "(posterior_predictive, log_likelihood, "
                          "prior_predictive, observed_data, ...), dims "
                          "(chain, draw, ...)")),
    cl::init(OutputLayout::Flat), cl::sub(PredictCmd), cl::sub(LogLikCmd),
    cl::sub(PriorCmd), cl::cat(RunCat));
cl::opt<bool> OutOfSample(
    "out-of-sample",
    cl::desc("--layout inference-data: the data are new observations; "
             "write the draws to the 'predictions' group"),
    cl::sub(PredictCmd), cl::cat(RunCat));
cl::opt<bool> WithPosterior(
    "with-posterior",
    cl::desc("--layout inference-data: also copy the posterior's latents "
             "into the 'posterior' group, so the store is a whole "
             "InferenceData (az.loo(store) alone works)"),
    cl::sub(PredictCmd), cl::sub(LogLikCmd), cl::cat(RunCat));
cl::opt<int> CompressionLevel(
    "compression-level", cl::desc("zstd level (default 1)"), cl::init(1),
    RUN_SUBS, cl::cat(RunCat));
cl::opt<std::string> Codec(
    "codec",
    cl::desc("Chunk codec: none, zstd[:LEVEL] or "
             "blosc[:INNER[:LEVEL[:SHUFFLE[:BLOCKSIZE]]]] (default "
             "blosc:zstd:1:auto)"),
    cl::init(""), RUN_SUBS, cl::cat(RunCat));
cl::opt<bool> Progress("progress",
                       cl::desc("Show a progress bar (default: when stderr "
                                "is a terminal)"),
                       RUN_SUBS, cl::cat(RunCat));
cl::opt<bool> NoProgress("no-progress", cl::desc("Hide the progress bar"),
                         RUN_SUBS, cl::cat(RunCat));
cl::opt<bool> Quiet("quiet", cl::desc("Print only errors"), RUN_SUBS,
                    cl::cat(RunCat));
cl::opt<bool> NoSync(
    "no-sync",
    cl::desc("Publish the output without waiting for it to reach the disk "
             "(faster; a power loss may then leave a damaged store)"),
    RUN_SUBS, cl::cat(RunCat));
cl::opt<bool> Resume(
    "resume",
    cl::desc("Continue the run that was interrupted (a signal, a killed "
             "process, a lost node) from its '<out>.partial' store, "
             "skipping the batches it finished; the same command otherwise. "
             "Refused when anything that determines the output differs"),
    RUN_SUBS, cl::cat(RunCat));
cl::list<std::string> Intervene(
    "intervene",
    cl::desc("do(SITE = VALUE): the latent or deterministic site takes the "
             "value in every draw, and everything computed from it sees it; "
             "VALUE is a number or a .npy file of the site's shape "
             "(repeatable)"),
    cl::value_desc("SITE=VALUE|SITE=FILE.npy"), cl::sub(PredictCmd),
    cl::sub(EffectCmd), cl::cat(RunCat));
cl::list<std::string> BaselineIntervene(
    "baseline-intervene",
    cl::desc("effect: an intervention of the baseline scenario (as "
             "--intervene; default: none)"),
    cl::value_desc("SITE=VALUE|SITE=FILE.npy"), cl::sub(EffectCmd),
    cl::cat(RunCat));
cl::opt<bool> KeepScenarios(
    "keep-scenarios",
    cl::desc("effect: also write each site's scenario and baseline values "
             "(<site>_scenario, <site>_baseline)"),
    cl::sub(EffectCmd), cl::cat(RunCat));
cl::list<std::string> BaselineDataArgs(
    "baseline-data",
    cl::desc("effect: an input of the baseline scenario, replacing the "
             "--data input of that name (NAME=FILE.npy)"),
    cl::value_desc("NAME=FILE"), cl::sub(EffectCmd), cl::cat(RunCat));
cl::opt<bool> Strict("strict",
                     cl::desc("Refuse a posterior holding NaN or infinite "
                              "values, and results holding them (a "
                              "parameter outside its support); default: "
                              "warn"),
                     RUN_SUBS, cl::cat(RunCat));

/// Messages quote file names and contents: control bytes (an ESC sequence
/// in a hostile file) are shown escaped, never sent to the terminal.
std::string printable(llvm::StringRef S) {
  std::string Out;
  for (unsigned char C : S) {
    if (C < 0x20 || C == 0x7f) {
      char Buf[8];
      std::snprintf(Buf, sizeof Buf, "\\x%02x", C);
      Out += Buf;
    } else {
      Out += static_cast<char>(C);
    }
  }
  return Out;
}

/// The MPI ranks sharing this run (null without mpirun), this process's
/// rank, and whether the ranks have agreed on the run's outcome yet.
RunGroup *Group = nullptr;
int Rank = 0;
bool Agreed = false;

/// Prints an error once: under mpirun, rank 0 prints the lowest failing
/// rank's error after the ranks agree on it (which the others wait for).
int fail(const llvm::Twine &Msg) {
  std::string Text = Msg.str();
  if (Group && !Agreed) {
    Agreed = true;
    Text = llvm::toString(Group->agree(
        llvm::createStringError(llvm::inconvertibleErrorCode(), Text)));
  }
  if (Rank == 0)
    llvm::WithColor::error(llvm::errs(), "aimz-run") << printable(Text)
                                                     << "\n";
  return 1;
}

/// The files a run reads: --out must be none of them.
std::vector<std::string> inputFiles() {
  std::vector<std::string> Files = {ModelPath, PosteriorPath};
  for (const std::string &A : BaselineDataArgs) {
    auto Eq = A.find('=');
    Files.push_back(Eq == std::string::npos ? A : A.substr(Eq + 1));
  }
  for (const std::string &A : DataArgs) {
    auto Eq = A.find('=');
    Files.push_back(Eq == std::string::npos ? A : A.substr(Eq + 1));
  }
  return Files;
}

/// Refuses an --out that is (a link to) one of the run's inputs: writing
/// it would destroy the input.
std::optional<std::string> outputIsAnInput() {
  struct stat Out;
  if (::stat(OutPath.c_str(), &Out) != 0)
    return std::nullopt;
  for (const std::string &F : inputFiles()) {
    struct stat In;
    if (!F.empty() && ::stat(F.c_str(), &In) == 0 && In.st_dev == Out.st_dev &&
        In.st_ino == Out.st_ino)
      return F;
  }
  return std::nullopt;
}

int fail(llvm::Error E) { return fail(llvm::toString(std::move(E))); }

void onSignal(int) {
  if (InterruptRequested.exchange(true))
    _exit(130); // a second Ctrl-C: leave now
}


std::string platesString(const std::vector<std::string> &Plates) {
  std::string S;
  for (const std::string &P : Plates)
    S += (S.empty() ? "" : ", ") + (P.empty() ? std::string("-") : P);
  return S;
}

int info() {
  auto Lib = ModelLibrary::open(ModelPath);
  if (!Lib)
    return fail(Lib.takeError());
  if (InfoJson) {
    llvm::outs() << (*Lib)->manifestText() << "\n";
    return 0;
  }
  const Manifest &M = (*Lib)->manifest();
  llvm::outs() << "model " << M.Model << " (" << (*Lib)->path()
               << ", ABI version " << AIMZ_ABI_VERSION << ")\n"
               << "observation axis: " << M.ObsDim
               << "\nplan: " << M.Plan;
  if (!M.PlanReason.empty())
    llvm::outs() << " (forced by " << llvm::join(M.PlanReason, ", ") << ")";
  llvm::outs() << "\nprecision: "
               << (M.Precision == io::DType::Float64 ? "f64" : "f32")
               << "\ninputs:";
  for (const ManifestArray &I : M.Inputs)
    llvm::outs() << " " << I.Name << ": " << I.TypeName << shapeString(I.Shape);
  if (!M.DerivedInputs.empty()) {
    llvm::outs() << "\ntransformed data (computed before the run):";
    for (const Manifest::DerivedInput &D : M.DerivedInputs)
      llvm::outs() << " " << D.Name << ": " << D.TypeName
                   << shapeString(D.Shape);
  }
  llvm::outs() << (M.Outputs.size() > 1 ? "\noutputs:" : "\noutput:");
  for (const ManifestArray &O : M.Outputs)
    llvm::outs() << " " << O.Name << ": " << O.TypeName
                 << shapeString(O.Shape);
  llvm::outs() << "\nsites:\n";
  auto KindOf = [](const ManifestSite &S) {
    return S.Kind == SiteKind::Latent          ? "latent"
           : S.Kind == SiteKind::Deterministic ? "deterministic"
           : S.Kind == SiteKind::Factor        ? "factor"
                                               : "observed";
  };
  auto DistOf = [](const ManifestSite &S) {
    return S.Dist.empty() ? std::string("-") : S.Dist;
  };
  // Columns as wide as their widest entry, and one space apart at least
  // ("TruncatedDistribution" never runs into the type).
  size_t NameW = 13, ClassW = 11, DistW = 11;
  for (const ManifestSite &S : M.Sites) {
    NameW = std::max(NameW, S.Name.size());
    ClassW = std::max(ClassW, S.Class.size());
    DistW = std::max(DistW, DistOf(S).size());
  }
  for (const ManifestSite &S : M.Sites) {
    llvm::outs() << "  " << llvm::left_justify(S.Name, NameW + 1) << " "
                 << llvm::left_justify(KindOf(S), 14)
                 << llvm::left_justify(S.Class, ClassW + 1)
                 << llvm::left_justify(DistOf(S), DistW + 1)
                 << S.TypeName << shapeString(S.Shape);
    // The plates name the result's dims (`-`: an axis in none).
    if (llvm::any_of(S.Plates, [](const std::string &P) { return !P.empty(); }))
      llvm::outs() << "  plates [" << platesString(S.Plates) << "]";
    llvm::outs() << "\n";
  }
  llvm::outs() << "gpu kernels: "
               << ((*Lib)->ptx().empty() ? "none" : "PTX embedded") << "\n";
  return 0;
}

int devices() {
  auto Lines = describeDevices(Device, DeviceCount);
  if (!Lines)
    return fail(Lines.takeError());
  for (const std::string &L : *Lines)
    llvm::outs() << L << "\n";
  if (Device == DeviceChoice::Default || Device == DeviceChoice::CPU) {
    auto Driver = gpu::CudaDriver::get();
    if (!Driver)
      llvm::outs() << "no GPU: " << llvm::toString(Driver.takeError())
                   << "\n";
  }
  return 0;
}

/// The checks of a run's command line that read no file: the first
/// problem's message, or none.
std::optional<std::string> badRunArguments(EntryKind Kind, bool Effect) {
  if (ModelPath.empty())
    return "give the compiled model: aimz-run <command> model.so ...";
  if (OutPath.empty())
    return "--out is required: a directory for a Zarr store, or a file "
           "name ending in .npz";
  if (ZarrFormat != 2 && ZarrFormat != 3)
    return "--zarr-format must be 2 or 3";
  if (BatchSize < 0 || (BatchSize.getNumOccurrences() && BatchSize == 0))
    return "--batch-size must be a positive integer";
  if (Kind == EntryKind::PriorPredictive && NumSamples <= 0)
    return "--num-samples must be a positive integer";
  if (Effect && Intervene.empty() && BaselineIntervene.empty() &&
      BaselineDataArgs.empty())
    return "effect compares two scenarios: give --intervene (the scenario), "
           "--baseline-intervene or --baseline-data (the baseline); with "
           "none the effect is zero everywhere";
  if (Kind != EntryKind::PriorPredictive && PosteriorPath.empty())
    return std::string(Effect                        ? "effect"
                       : Kind == EntryKind::Predict ? "predict"
                                                    : "log-likelihood") +
           " needs --posterior post.npz (for draws from the prior, use "
           "prior-predictive)";
  if (auto In = outputIsAnInput())
    return "--out '" + OutPath + "' is the input '" + *In +
           "' of this run; writing it would destroy the input, so choose "
           "another output path";
  return std::nullopt;
}

/// --data's inputs.
InputSource dataSource() {
  InputSource In;
  In.Files.assign(DataArgs.begin(), DataArgs.end());
  return In;
}

/// The scenario --data, --dim, --posterior and --intervene give (the
/// interventions parsed, not applied yet).
llvm::Error loadScenario(const Manifest &M, EntryKind Kind, Warnings &W,
                         Scenario &S) {
  // InferenceData keeps the observed output, when given, as observed_data.
  ObservedUse Observed = Kind == EntryKind::LogLikelihood ? ObservedUse::Require
                         : Layout == OutputLayout::InferenceData && !OutOfSample
                             ? ObservedUse::IfGiven
                             : ObservedUse::Ignore;
  auto Data = dataSource().load(M, Observed, W, NumObservations);
  if (!Data)
    return Data.takeError();
  S.Data = std::move(*Data);
  if (auto E = bindDimArgs(M, DimArgs, S.Data))
    return E;
  if (Kind != EntryKind::PriorPredictive) {
    auto P = loadPosterior(M, PosteriorPath, S.Data,
                           Kind == EntryKind::LogLikelihood, W, Strict);
    if (!P)
      return P.takeError();
    S.Post = std::move(*P);
  }
  auto Interventions = parseInterventions(
      std::vector<std::string>(Intervene.begin(), Intervene.end()));
  if (!Interventions)
    return Interventions.takeError();
  S.Interventions = std::move(*Interventions);
  return llvm::Error::success();
}

/// effect's baseline flags.
llvm::Expected<BaselineArgs> baselineArgs() {
  BaselineArgs B;
  B.Data.Files.assign(BaselineDataArgs.begin(), BaselineDataArgs.end());
  auto BI = parseInterventions(std::vector<std::string>(
      BaselineIntervene.begin(), BaselineIntervene.end()));
  if (!BI)
    return BI.takeError();
  B.Interventions = std::move(*BI);
  B.DataOption = "--baseline-data";
  B.InterventionOption = "--baseline-intervene";
  return B;
}

/// The command line's options as the runtime's request (Base: effect's
/// baseline, else null).
llvm::Expected<RunOptions> runOptions(EntryKind Kind, const Scenario &S,
                                      const Scenario *Base) {
  RunOptions O;
  O.Kind = Kind;
  O.Axis = Axis;
  O.BatchSize = BatchSize;
  O.Device = Device;
  O.Devices = DeviceCount;
  O.Seed = Seed;
  O.ReturnSites.assign(ReturnSites.begin(), ReturnSites.end());
  static_cast<ScenarioSpec &>(O) =
      scenarioSpec(S, Base, !BaselineDataArgs.empty(), KeepScenarios);
  O.NumSamples = NumSamples;
  O.OutPath = OutPath;
  O.Format = ZarrFormat == 3 ? io::ZarrFormat::V3 : io::ZarrFormat::V2;
  O.Layout = Layout;
  O.OutOfSample = OutOfSample;
  O.WithPosterior = WithPosterior;
  auto Coords = parseCoordsArgs(CoordsArgs);
  if (!Coords)
    return Coords.takeError();
  O.Coords = std::move(*Coords);
  if (!Codec.empty()) {
    auto C = io::CodecOptions::parse(Codec);
    if (!C)
      return C.takeError();
    O.Codec = *C;
  }
  if (CompressionLevel.getNumOccurrences())
    O.Codec.Level = CompressionLevel;
  bool Tty = llvm::sys::Process::StandardErrIsDisplayed();
  O.Progress = !Quiet && !NoProgress && (Progress || Tty) && Rank == 0;
  O.Group = Group;
  O.ToolVersion = AIMZ_RUN_VERSION;
  O.Sync = !NoSync;
  O.Resume = Resume;
  O.Strict = Strict;
  return O;
}

/// What a finished run says on stdout.
void printSummary(const RunReport &R) {
  llvm::outs() << "wrote " << OutPath << ": " << llvm::join(R.Sites, ", ")
               << " for " << R.Draws << " draws x " << R.Observations
               << " observations in " << llvm::format("%.2f", R.Seconds)
               << " s (plan " << R.Plan << ", " << R.DeviceNames
               << ", batch " << R.BatchSize << ")\n";
  if (Resume)
    llvm::outs() << "resumed: " << R.ResumedBatches << " of " << R.Batches
                 << " batches were written by the interrupted run\n";
  const bool Npz = llvm::StringRef(OutPath).ends_with(".npz");
  if (!Npz && Layout == OutputLayout::InferenceData)
    llvm::outs() << "open it with: python3 -c \"import xarray as xr; "
                    "print(xr.open_datatree('"
                 << OutPath << "', engine='zarr'))\" (xarray >= 2024.10; "
                 << "arviz.InferenceData.from_datatree takes the tree)\n";
  else if (!Npz)
    llvm::outs() << "open it with: /usr/bin/python3 -c \"import xarray as "
                    "xr; print(xr.open_zarr('"
                 << OutPath << "'))\"\n";
}

int runCommand(EntryKind Kind, bool Effect = false) {
  if (auto Bad = badRunArguments(Kind, Effect))
    return fail(*Bad);
  auto Lib = ModelLibrary::open(ModelPath);
  if (!Lib)
    return fail(Lib.takeError());
  const Manifest &M = (*Lib)->manifest();
  Warnings W;
  auto Report = [&] {
    if (!Quiet && Rank == 0)
      for (const std::string &S : W)
        llvm::WithColor::warning(llvm::errs(), "aimz-run") << printable(S)
                                                           << "\n";
    W.clear();
  };
  if (NumObservations.getNumOccurrences() && NumObservations <= 0)
    return fail("--num-observations must be a positive integer");
  std::optional<BaselineArgs> BaseArgs;
  if (Effect) {
    auto B = baselineArgs();
    if (!B)
      return fail(B.takeError());
    BaseArgs = std::move(*B);
    if (auto E = checkEffectInputNames(M, dataSource(), "--data", *BaseArgs))
      return fail(std::move(E));
  }
  Scenario S, Base;
  if (auto E = loadScenario(M, Kind, W, S))
    return Report(), fail(std::move(E));
  if (Effect) {
    auto B = loadBaseline(M, S, dataSource(), *BaseArgs, NumObservations, W);
    if (!B)
      return Report(), fail(B.takeError());
    Base = std::move(*B);
  }
  if (S.Post)
    if (auto E = applyInterventions(M, S.Interventions, S.Data, *S.Post))
      return Report(), fail(std::move(E));
  auto O = runOptions(Kind, S, Effect ? &Base : nullptr);
  if (!O)
    return fail(O.takeError());

  std::signal(SIGINT, onSignal);
  std::signal(SIGTERM, onSignal);
  auto R = runModel(**Lib, S.Data, S.Post ? &*S.Post : nullptr, *O, W);
  Agreed = true; // runModel's outcome is the group's
  Report();
  if (!R) {
    int Code = InterruptRequested ? 130 : 1;
    fail(R.takeError());
    return Code;
  }
  if (!Quiet && Rank == 0)
    printSummary(*R);
  return 0;
}

} // namespace

int main(int argc, char **argv) {
  cl::HideUnrelatedOptions(RunCat);
  cl::SetVersionPrinter([](llvm::raw_ostream &OS) {
    OS << "aimz-run " << AIMZ_RUN_VERSION << " (model ABI "
       << AIMZ_ABI_VERSION
#ifdef AIMZ_HAVE_MPI
       << ", MPI"
#endif
       << ")\n";
  });
  cl::ParseCommandLineOptions(
      argc, argv,
      "aimz-run: run a compiled model over data and a posterior\n\n"
      "  aimz-run predict model.so --data X=X.npy --posterior post.npz "
      "--out pred.zarr\n"
      "  aimz-run log-likelihood model.so --data X=X.npy --data y=y.npy "
      "--posterior post.npz --out ll.zarr\n"
      "  aimz-run prior-predictive model.so --data X=X.npy --num-samples "
      "1000 --out prior.zarr\n"
      "  aimz-run effect model.so --data X=X.npy --posterior post.npz "
      "--intervene beta=0 --out effect.zarr   (a latent or deterministic "
      "site)\n"
      "  aimz-run effect model.so --data X=X.npy --data treat=t1.npy "
      "--posterior post.npz --baseline-data treat=t0.npy --out "
      "effect.zarr   (an input)\n"
      "  aimz-run info model.so\n"
      "  aimz-run devices\n");
  // Under mpirun, the ranks share the run (docs/scale-out.md).
  std::unique_ptr<RunGroup> Mpi;
  if ((PredictCmd || LogLikCmd || PriorCmd || EffectCmd) && launchedByMpi()) {
#ifdef AIMZ_HAVE_MPI
    Mpi = joinMpiRun();
    Group = Mpi.get();
    Rank = Group->rank();
#else
    const char *Size = std::getenv("OMPI_COMM_WORLD_SIZE");
    if (Size && std::atoi(Size) > 1)
      return fail("this aimz-run was built without MPI, so its processes "
                  "cannot share a run; install libopenmpi-dev and rebuild, "
                  "or run one process");
#endif
  }
  if (PredictCmd)
    return runCommand(EntryKind::Predict);
  if (LogLikCmd)
    return runCommand(EntryKind::LogLikelihood);
  if (PriorCmd)
    return runCommand(EntryKind::PriorPredictive);
  if (EffectCmd)
    return runCommand(EntryKind::Predict, /*Effect=*/true);
  if (InfoCmd) {
    if (ModelPath.empty())
      return fail("give the compiled model: aimz-run info model.so");
    return info();
  }
  if (DevicesCmd)
    return devices();
  return fail("give a command: predict, log-likelihood, prior-predictive, "
              "effect, info or devices (see --help)");
}
