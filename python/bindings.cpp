//===- bindings.cpp - The aimzc Python module's native part ---------------===//
//
// `aimzc._native`: a compiled model loaded in process, run over NumPy arrays
// handed over without copying (the buffer protocol; a dtype the model does
// not take is converted by the runtime as for .npy files), with the GIL
// released while the devices work. The Python package (aimzc/__init__.py)
// turns results into xarray Datasets.
//
//===----------------------------------------------------------------------===//
#include "aimz/Driver.h"
#include "aimz/io/Shape.h"
#include "aimz/run/Data.h"
#include "aimz/run/ModelLibrary.h"
#include "aimz/run/Runner.h"
#include "aimz/run/Scenario.h"
#include "aimz/run/StanCsv.h"
#include "aimz/run/Version.h"

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <atomic>
#include <chrono>
#include <future>
#include <mutex>
#include <thread>

namespace py = pybind11;
using namespace aimz;
using namespace aimz::run;
using aimz::DType;

namespace {

/// Raised for every error the CLI would print: its one-line message.
PyObject *AimzError = nullptr;

[[noreturn]] void raise(llvm::Error E) {
  std::string Msg = llvm::toString(std::move(E));
  PyErr_SetString(AimzError, Msg.c_str());
  throw py::error_already_set();
}

template <class T> T take(llvm::Expected<T> V) {
  if (!V)
    raise(V.takeError());
  return std::move(*V);
}

/// A C-contiguous, native-endian NumPy array as an NpyArray over the same
/// memory. The array stays referenced (through a GIL-taking deleter) for as
/// long as the runtime holds the view.
io::NpyArray viewOf(const std::string &Name, const py::array &A) {
  if (!(A.flags() & py::array::c_style))
    throw py::value_error("'" + Name + "' must be C-contiguous (pass "
                          "numpy.ascontiguousarray(...))");
  // The descriptor string ("<f4", "|b1") through the .npy reader's parser:
  // read as a Python attribute, since NumPy 2 moved fields of
  // PyArray_Descr that pybind11 2.10 reads directly.
  std::string Descr = py::str(A.dtype().attr("str"));
  auto T = io::parseDescr(Descr);
  if (!T)
    throw py::value_error("'" + Name + "' has dtype " +
                          std::string(py::str(A.dtype())) +
                          ", which a model cannot read: " +
                          llvm::toString(T.takeError()));
  std::vector<uint64_t> Shape(A.shape(), A.shape() + A.ndim());
  auto *Ref = new py::object(A);
  std::shared_ptr<const void> Owner(Ref, [](const py::object *O) {
    py::gil_scoped_acquire G;
    delete O;
  });
  return io::NpyArray::fromMemory(*T, std::move(Shape), A.data(), Name,
                                  std::move(Owner));
}

std::map<std::string, io::NpyArray> viewsOf(const py::dict &D) {
  std::map<std::string, io::NpyArray> Out;
  for (auto [K, V] : D) {
    std::string Name = py::str(K);
    Out.emplace(Name, viewOf(Name, py::reinterpret_borrow<py::array>(V)));
  }
  return Out;
}

/// Labels: a 1-D array of numbers, or of text (NumPy's <U or objects,
/// which Python made strings of). `What` names them in errors.
DimLabels labelsOf(const std::string &Dim, const py::object &V,
                   const std::string &What) {
  auto A = py::reinterpret_borrow<py::array>(V);
  char Kind = py::str(A.dtype().attr("kind")).cast<std::string>()[0];
  llvm::Expected<DimLabels> L = DimLabels();
  if (Kind == 'U' || Kind == 'O') {
    if (A.ndim() != 1)
      throw py::value_error(What + " must be 1-D, one label per element");
    std::vector<std::string> Text;
    for (py::handle H : V)
      Text.push_back(py::str(H));
    L = textLabels(Dim, Text);
  } else {
    L = numberLabels(Dim, viewOf(Dim, A));
  }
  if (!L)
    raise(L.takeError());
  L->From = What;
  return std::move(*L);
}

/// {name: labels} (see labelsOf); What(name) names each in errors.
template <typename WhatFn>
Coordinates labelsByName(const py::object &O, WhatFn What) {
  Coordinates Out;
  if (O.is_none())
    return Out;
  for (auto [K, V] : O.cast<py::dict>()) {
    std::string Name = py::str(K);
    Out.emplace(Name, labelsOf(Name, py::reinterpret_borrow<py::object>(V),
                               What(Name)));
  }
  return Out;
}

/// {site: number or array} as interventions (arrays used in place).
std::vector<Intervention> interventionsOf(const py::object &O) {
  std::vector<Intervention> Out;
  if (O.is_none())
    return Out;
  for (auto [K, V] : O.cast<py::dict>()) {
    Intervention I;
    I.Site = py::str(K);
    if (py::isinstance<py::bool_>(V) || py::isinstance<py::int_>(V) ||
        py::isinstance<py::float_>(V)) {
      I.Value = py::str(py::float_(py::reinterpret_borrow<py::object>(V)));
    } else {
      auto A = py::reinterpret_borrow<py::array>(V);
      I.Array = viewOf(I.Site, A);
      I.Value = "array" + io::formatShape(I.Array->shape());
    }
    Out.push_back(std::move(I));
  }
  return Out;
}

/// An integer keyword checked as the CLI checks its option: absent or None
/// gives Default; anything but an integer is a TypeError, a value outside
/// [Min, Max] a ValueError naming the keyword and Rule ("a positive
/// integer"). Never pybind11's "Unable to cast" naming nothing.
uint64_t integerKeyword(const py::dict &Options, const char *Key,
                        uint64_t Default, int64_t Min, uint64_t Max,
                        const char *Rule) {
  if (!Options.contains(Key) || Options[Key].is_none())
    return Default;
  py::object V = Options[Key];
  if (py::isinstance<py::bool_>(V) || !PyIndex_Check(V.ptr()))
    throw py::type_error(std::string(Key) + " must be " + Rule + ", got " +
                         std::string(py::repr(V)) + " (" +
                         std::string(py::str(V.get_type().attr("__name__"))) +
                         ")");
  py::int_ I = py::reinterpret_steal<py::int_>(PyNumber_Index(V.ptr()));
  // Compared as Python integers: 2**70 or -1 must not wrap around first.
  if (I < py::int_(Min) || I > py::int_(Max))
    throw py::value_error(std::string(Key) + "=" + std::string(py::repr(I)) +
                          ": must be " + Rule);
  return Min < 0 ? static_cast<uint64_t>(I.cast<int64_t>())
                 : I.cast<uint64_t>();
}

/// One of Allowed, or a ValueError listing them.
std::string choiceKeyword(const py::dict &Options, const char *Key,
                          const std::string &Default,
                          std::initializer_list<const char *> Allowed) {
  if (!Options.contains(Key) || Options[Key].is_none())
    return Default;
  py::object V = Options[Key];
  std::string Said = py::str(V);
  for (const char *A : Allowed)
    if (py::isinstance<py::str>(V) && Said == A)
      return Said;
  std::string List;
  for (const char *A : Allowed)
    List += (List.empty() ? "'" : ", '") + std::string(A) + "'";
  throw py::value_error(std::string(Key) + "=" + std::string(py::repr(V)) +
                        ": must be one of " + List);
}

constexpr uint64_t Int64Max = uint64_t(INT64_MAX);

/// What a keyword's value must be, for its message.
template <class T> const char *expectedType() {
  if constexpr (std::is_same_v<T, bool>)
    return "True or False";
  else if constexpr (std::is_integral_v<T>)
    return "an integer";
  else if constexpr (std::is_same_v<T, std::string>)
    return "a string";
  else if constexpr (std::is_same_v<T, std::vector<std::string>>)
    return "a list of strings";
  else
    return "a dict";
}

/// Whether V is a T itself, not something pybind11 would convert (1 is
/// not True, True is not 1, "ab" is not a list of strings).
template <class T> bool isExactly(const py::handle &V) {
  // NumPy's bools and integers count as theirs.
  const std::string TypeName = py::str(V.get_type().attr("__name__"));
  const bool IsBool = py::isinstance<py::bool_>(V) || TypeName == "bool_" ||
                      TypeName == "bool";
  if constexpr (std::is_same_v<T, bool>)
    return IsBool;
  else if constexpr (std::is_integral_v<T>)
    return !IsBool && (py::isinstance<py::int_>(V) || py::hasattr(V, "__index__"));
  else if constexpr (std::is_same_v<T, std::string>)
    return py::isinstance<py::str>(V);
  else if constexpr (std::is_same_v<T, std::vector<std::string>>) {
    if (!py::isinstance<py::list>(V) && !py::isinstance<py::tuple>(V))
      return false;
    for (const py::handle &E : V)
      if (!py::isinstance<py::str>(E))
        return false;
    return true;
  } else
    return py::isinstance<py::dict>(V);
}

/// A keyword of the run's options, or Default when absent or None; a value
/// of another type is a TypeError naming the keyword (pybind11's own said
/// "Unable to cast Python instance to C++ type" and named nothing).
template <class T>
T keyword(const py::dict &Options, const char *Key, T Default) {
  if (!Options.contains(Key) || Options[Key].is_none())
    return Default;
  py::object V = Options[Key];
  if (!isExactly<T>(V))
    throw py::type_error(std::string(Key) + "=" + std::string(py::repr(V)) +
                         ": must be " + expectedType<T>() + "; got " +
                         std::string(py::str(V.get_type().attr("__name__"))));
  return V.cast<T>();
}

/// A keyword's object, or None when absent.
py::object keywordObject(const py::dict &Options, const char *Key) {
  return Options.contains(Key) ? py::object(Options[Key])
                               : py::object(py::none());
}

class LoadedModel {
public:
  explicit LoadedModel(const std::string &Path)
      : Lib(take(ModelLibrary::open(Path))) {}

  std::string path() const { return Lib->path(); }
  std::string manifestJson() const { return Lib->manifestText().str(); }

  /// Runs one command; returns (report, warnings). `Data` is a dict of
  /// arrays or an .npz path; `Posterior` a dict of arrays, a path (.npz or
  /// CmdStan CSV) or None.
  py::tuple run(const std::string &Command, const py::object &Data,
                const py::object &PosteriorArg, const std::string &Out,
                const py::dict &Options) {
    const bool Effect = Command == "effect";
    EntryKind Kind = Command == "predict" || Effect ? EntryKind::Predict
                     : Command == "log_likelihood" ? EntryKind::LogLikelihood
                                                   : EntryKind::PriorPredictive;
    Warnings W;
    InputSource In = inputSource(Data);
    std::optional<BaselineArgs> BaseArgs;
    if (Effect) {
      BaseArgs = baselineArgs(Options);
      if (llvm::Error E =
              checkEffectInputNames(Lib->manifest(), In, "data", *BaseArgs))
        raise(std::move(E));
    }
    const int64_t NumObs = static_cast<int64_t>(integerKeyword(
        Options, "num_observations", 0, 1, Int64Max, "a positive integer"));
    Scenario S = loadScenario(Kind, In, NumObs, PosteriorArg, Options, W);
    std::optional<Scenario> Base;
    if (Effect) {
      if (S.Interventions.empty() && BaseArgs->Interventions.empty() &&
          !BaseArgs->hasData())
        throw py::value_error(
            "effect compares two scenarios: give intervention=, "
            "baseline_intervention= or baseline_data=; with none the effect "
            "is zero everywhere");
      Base = take(loadBaseline(Lib->manifest(), S, In, *BaseArgs, NumObs, W));
    }
    if (S.Post)
      if (llvm::Error E = applyInterventions(Lib->manifest(), S.Interventions,
                                             S.Data, *S.Post, "intervention"))
        raise(std::move(E));
    RunOptions O = runOptions(Kind, S, Base ? &*Base : nullptr, Out, Options);
    RunReport Rep = runWithoutGil(S, O, Options, W);
    return py::make_tuple(reportOf(Rep, S.Data), W);
  }

private:
  /// The inputs: a dict of arrays, or an .npz path read as --data reads it.
  static InputSource inputSource(const py::object &Data) {
    InputSource In;
    if (py::isinstance<py::dict>(Data))
      In.Arrays = viewsOf(Data.cast<py::dict>());
    else
      In.Files = {Data.cast<std::string>()};
    return In;
  }

  /// The scenario the data, dims, posterior and intervention keywords
  /// give (the interventions not applied yet).
  Scenario loadScenario(EntryKind Kind, const InputSource &In, int64_t NumObs,
                        const py::object &PosteriorArg, const py::dict &Options,
                        Warnings &W) const {
    const Manifest &M = Lib->manifest();
    Scenario S;
    // InferenceData keeps the observed output, when given, as observed_data.
    const bool InferenceData =
        keyword(Options, "layout", std::string("flat")) == "inference-data";
    const bool OutOfSample = keyword(Options, "out_of_sample", false);
    ObservedUse NeedY = Kind == EntryKind::LogLikelihood ? ObservedUse::Require
                        : InferenceData && !OutOfSample ? ObservedUse::IfGiven
                                                        : ObservedUse::Ignore;
    S.Data = take(In.load(M, NeedY, W, NumObs));
    std::vector<std::string> DimArgs;
    for (auto [K, V] : keyword(Options, "dims", py::dict()))
      DimArgs.push_back(std::string(py::str(K)) + "=" +
                        std::string(py::str(V)));
    if (llvm::Error E = bindDimArgs(M, DimArgs, S.Data))
      raise(std::move(E));
    if (Kind != EntryKind::PriorPredictive)
      S.Post = loadPosteriorArg(Kind, PosteriorArg, Options, S.Data, W);
    S.Interventions = interventionsOf(keywordObject(Options, "intervention"));
    return S;
  }

  /// The posterior: a dict of arrays, or a path as --posterior takes.
  Posterior loadPosteriorArg(EntryKind Kind, const py::object &PosteriorArg,
                             const py::dict &Options, DataSet &D,
                             Warnings &W) const {
    const Manifest &M = Lib->manifest();
    bool All = Kind == EntryKind::LogLikelihood;
    bool Strict = keyword(Options, "strict", false);
    if (!py::isinstance<py::dict>(PosteriorArg))
      return take(loadPosterior(M, PosteriorArg.cast<std::string>(), D, All,
                                W, Strict));
    auto Arrays = viewsOf(PosteriorArg.cast<py::dict>());
    std::vector<std::string> Names;
    for (const auto &[N, A] : Arrays)
      Names.push_back(N);
    PosteriorArrayFn Fn =
        [&](const std::string &N) -> llvm::Expected<io::NpyArray> {
      return Arrays.at(N);
    };
    Posterior Post = take(posteriorFromArrays(M, Names, Fn,
                                              "the posterior dict", D, All, W,
                                              Strict));
    // Draws chain-major from `chains` chains (the Python side flattened
    // a (chain, draw, ...) posterior).
    int64_t Chains = keyword(Options, "chains", int64_t(0));
    if (Chains > 0 && Post.NumDraws % Chains == 0)
      Post.Chains = Chains;
    // An xarray posterior's labels and dim names (aimzc/__init__.py).
    std::map<std::string, std::vector<std::string>> SiteDims;
    py::object Dims = keywordObject(Options, "site_dims");
    if (!Dims.is_none())
      SiteDims = Dims.cast<std::map<std::string, std::vector<std::string>>>();
    keepCoordinates(M,
                    labelsByName(keywordObject(Options, "posterior_coords"),
                                 [](const std::string &D) {
                                   return "the posterior's coords '" + D + "'";
                                 }),
                    SiteDims, Post);
    return Post;
  }

  /// effect's baseline keywords: its interventions and the inputs it
  /// replaces.
  static BaselineArgs baselineArgs(const py::dict &Options) {
    BaselineArgs B;
    B.Interventions =
        interventionsOf(keywordObject(Options, "baseline_intervention"));
    py::object BD = keywordObject(Options, "baseline_data");
    if (!BD.is_none())
      B.Data.Arrays = viewsOf(BD.cast<py::dict>());
    B.DataOption = "baseline_data";
    B.InterventionOption = "baseline_intervention";
    return B;
  }

  /// The keywords as the runtime's request (Base: effect's baseline).
  static RunOptions runOptions(EntryKind Kind, const Scenario &S,
                               const Scenario *Base, const std::string &Out,
                               const py::dict &Options) {
    RunOptions O;
    O.Kind = Kind;
    static_cast<ScenarioSpec &>(O) = scenarioSpec(
        S, Base, !keywordObject(Options, "baseline_data").is_none(),
        keyword(Options, "keep_scenarios", false));
    std::string Axis =
        choiceKeyword(Options, "shard_axis", "auto", {"auto", "obs", "draw"});
    O.Axis = Axis == "obs"    ? ShardAxis::Obs
             : Axis == "draw" ? ShardAxis::Draw
                              : ShardAxis::Auto;
    O.BatchSize = static_cast<int64_t>(integerKeyword(
        Options, "batch_size", 0, 1, Int64Max, "a positive integer"));
    O.Devices = static_cast<unsigned>(
        integerKeyword(Options, "devices", 0, 0, UINT32_MAX,
                       "a non-negative integer (0 or None: every device)"));
    O.Seed = integerKeyword(Options, "seed", 0, 0, UINT64_MAX,
                            "an integer from 0 to 2**64 - 1");
    O.ReturnSites =
        keyword(Options, "return_sites", std::vector<std::string>());
    O.NumSamples = static_cast<int64_t>(integerKeyword(
        Options, "num_samples", 1000, 1, Int64Max, "a positive integer"));
    O.OutPath = Out;
    O.Format = integerKeyword(Options, "zarr_format", 2, 2, 3, "2 or 3") == 3
                   ? io::ZarrFormat::V3
                   : io::ZarrFormat::V2;
    O.Layout = keyword(Options, "layout", std::string("flat")) ==
                       "inference-data"
                   ? OutputLayout::InferenceData
                   : OutputLayout::Flat;
    O.OutOfSample = keyword(Options, "out_of_sample", false);
    O.WithPosterior = keyword(Options, "include_posterior", false);
    O.Resume = keyword(Options, "resume", false);
    O.Strict = keyword(Options, "strict", false);
    // progress: True for the CLI's bar on stderr; a callable (a tqdm bar)
    // is called by runWithoutGil instead.
    O.Progress = keywordObject(Options, "on_progress").is_none() &&
                 keyword(Options, "progress", false);
    O.ToolVersion = AIMZ_RUN_VERSION;
    if (std::string C = keyword(Options, "codec", std::string()); !C.empty())
      O.Codec = take(io::CodecOptions::parse(C));
    O.Coords = labelsByName(keywordObject(Options, "coords"),
                            [](const std::string &D) {
                              return "coords=['" + D + "']";
                            });
    O.IndexLabels = labelsByName(
        keywordObject(Options, "index_labels"), [](const std::string &I) {
          return "the categories of column '" + I + "'";
        });
    if (py::object L = keywordObject(Options, "obs_labels"); !L.is_none())
      O.ObsLabels = labelsOf("obs", L, "the data frame's index");
    return O;
  }

  /// The run on its own thread, without the GIL; this thread wakes every
  /// 50 ms to let Python handle Ctrl-C, which stops the run within a
  /// rectangle and leaves no store behind, and to call on_progress with
  /// (done, total) batches.
  RunReport runWithoutGil(const Scenario &S, RunOptions &O,
                          const py::dict &Options, Warnings &W) const {
    py::object OnProgress = keywordObject(Options, "on_progress");
    std::atomic<int64_t> Done{0}, Total{0};
    if (!OnProgress.is_none())
      O.OnBatch = [&](int64_t D, int64_t T) {
        Total = T;
        Done = D;
      };
    // This run's own stop: another thread's run is not this one's business.
    std::atomic<bool> Stop{false};
    O.Stop = &Stop;
    llvm::Expected<RunReport> R = RunReport();
    bool Interrupted = false;
    std::optional<py::error_already_set> CallbackError;
    {
      py::gil_scoped_release NoGil;
      auto Finished = std::async(std::launch::async, [&] {
        R = runModel(*Lib, S.Data, S.Post ? &*S.Post : nullptr, O, W);
      });
      int64_t Shown = 0;
      auto Report = [&] {
        int64_t D = Done.load();
        if (OnProgress.is_none() || D == Shown)
          return;
        Shown = D;
        try {
          OnProgress(D, Total.load());
        } catch (py::error_already_set &E) {
          // A failing callback stops the run like Ctrl-C, then re-raises.
          CallbackError.emplace(std::move(E));
          Stop = true;
          OnProgress = py::none();
        }
      };
      while (Finished.wait_for(std::chrono::milliseconds(50)) !=
             std::future_status::ready) {
        py::gil_scoped_acquire G;
        if (PyErr_CheckSignals() != 0) {
          Stop = true;
          Interrupted = true;
          PyErr_Clear();
        }
        Report();
      }
      py::gil_scoped_acquire G;
      if (!Interrupted)
        Report();
    }
    if (CallbackError) {
      if (!R)
        llvm::consumeError(R.takeError());
      throw *CallbackError;
    }
    if (Interrupted) {
      if (!R)
        llvm::consumeError(R.takeError());
      PyErr_SetNone(PyExc_KeyboardInterrupt);
      throw py::error_already_set();
    }
    return take(std::move(R));
  }

  /// The run's report as the Python side reads it.
  py::dict reportOf(const RunReport &Rep, const DataSet &D) const {
    const Manifest &M = Lib->manifest();
    py::dict Report;
    Report["plan"] = Rep.Plan;
    Report["draws"] = Rep.Draws;
    Report["observations"] = Rep.Observations;
    Report["batch_size"] = Rep.BatchSize;
    Report["batches"] = Rep.Batches;
    Report["devices"] = Rep.DeviceNames;
    Report["seconds"] = Rep.Seconds;
    Report["sites"] = Rep.Sites;
    // Where the kernels read each input: the caller's own buffer when it
    // was used in place (tests compare it with the array's address).
    py::dict Addresses;
    for (size_t I = 0; I < M.Inputs.size() && I < D.Inputs.size(); ++I)
      Addresses[py::str(M.Inputs[I].Name)] =
          reinterpret_cast<uintptr_t>(D.Inputs[I].Data);
    Report["input_addresses"] = Addresses;
    return Report;
  }

  std::unique_ptr<ModelLibrary> Lib;
};

/// The compiler in process: Source (named Name in diagnostics) to the
/// library at Output. Returns the warnings' text; a model that does not
/// compile raises aimzc.Error carrying the diagnostics aimzc would print.
std::string compileLibrary(const std::string &Source, const std::string &Name,
                           const std::string &Output,
                           const std::string &TargetCPU,
                           const std::string &Precision, bool EmbedPTX) {
  CompileOptions O;
  O.OutputFile = Output;
  O.TargetCPU = TargetCPU;
  O.EmbedPTX = EmbedPTX;
  if (Precision == "f32")
    O.Precision = DType::F32;
  else if (Precision == "f64")
    O.Precision = DType::F64;
  else if (Precision != "auto")
    throw py::value_error("precision must be 'auto', 'f32' or 'f64', not '" +
                          Precision + "'");
  std::string Diags;
  bool Ok;
  {
    // LLVM's target set-up is global: one compile at a time.
    static std::mutex CompileMutex;
    py::gil_scoped_release NoGil;
    std::lock_guard<std::mutex> L(CompileMutex);
    llvm::raw_string_ostream Errs(Diags);
    Ok = compileSource(Source, Name, O, Errs);
  }
  if (!Ok) {
    PyErr_SetString(AimzError, Diags.empty() ? "the model did not compile"
                                             : Diags.c_str());
    throw py::error_already_set();
  }
  return Diags;
}

} // namespace

PYBIND11_MODULE(_native, Mod) {
  Mod.doc() = "aimzc's native part: compiled models run over NumPy arrays";
  AimzError = PyErr_NewException("aimzc.Error", PyExc_RuntimeError, nullptr);
  Mod.attr("Error") = py::handle(AimzError);
  Mod.attr("version") = AIMZ_RUN_VERSION;
  Mod.def("compile", &compileLibrary, py::arg("source"), py::arg("name"),
          py::arg("output"), py::arg("target_cpu") = "",
          py::arg("precision") = "auto", py::arg("embed_ptx") = true);
  py::class_<LoadedModel>(Mod, "Model")
      .def(py::init<const std::string &>(), py::arg("path"))
      .def_property_readonly("path", &LoadedModel::path)
      .def_property_readonly("manifest_json", &LoadedModel::manifestJson)
      .def("run", &LoadedModel::run, py::arg("command"), py::arg("data"),
           py::arg("posterior"), py::arg("out"), py::arg("options"));
}
