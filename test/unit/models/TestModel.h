//===- TestModel.h - Load a compiled model.so and call its entry points ---===//
//
// A small harness for tests that dlopen models compiled by aimzc:
//  - CompiledModel: dlopen, abi version check, manifest (nlohmann::json),
//    the three entry points;
//  - Array: a host array (C-contiguous by default, any element strides),
//    whose view is the {data, strides} pair of abi.h;
//  - Request / Results / run(): fill an aimz_call for a rectangle of draws x
//    observations and run an entry point with the scratch protocol (first
//    call with no scratch returns 1 and says how much it needs).
//
// Only abi.h is shared with the code under test; everything else here is
// written from the ABI's description.
//
//===----------------------------------------------------------------------===//
#ifndef AIMZ_TEST_MODELS_TESTMODEL_H
#define AIMZ_TEST_MODELS_TESTMODEL_H

#include "aimz/abi.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <dlfcn.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <numeric>
#include <stdexcept>
#include <string>
#include <vector>

#ifndef AIMZ_TEST_MODEL_DIR
#error "AIMZ_TEST_MODEL_DIR must name the directory of the compiled models"
#endif

namespace aimz::test {

enum class DType { F32, F64, I32, I64, Bool };

inline DType parseDType(const std::string &S) {
  if (S == "f32") return DType::F32;
  if (S == "f64") return DType::F64;
  if (S == "i32") return DType::I32;
  if (S == "i64") return DType::I64;
  if (S == "bool") return DType::Bool;
  throw std::runtime_error("unknown dtype '" + S + "'");
}

inline int64_t byteWidth(DType T) {
  switch (T) {
  case DType::F32: case DType::I32: return 4;
  case DType::F64: case DType::I64: return 8;
  case DType::Bool: return 1;
  }
  return 0;
}

/// Storage aligned to 64 bytes, shared by an array and the views cut from it.
struct Storage {
  explicit Storage(size_t Bytes)
      : Size(Bytes),
        Ptr(static_cast<uint8_t *>(std::aligned_alloc(64, (Bytes + 63) / 64 * 64 + 64))) {}
  ~Storage() { std::free(Ptr); }
  Storage(const Storage &) = delete;
  Storage &operator=(const Storage &) = delete;
  size_t Size;
  uint8_t *Ptr;
};

/// A strided host array. Strides and the offset count elements.
class Array {
public:
  Array() = default;

  /// C-contiguous, every byte set to `Fill`.
  static Array make(DType T, std::vector<int64_t> Shape, uint8_t Fill = 0) {
    Array A;
    A.Type = T;
    A.Shape = std::move(Shape);
    A.Strides.assign(A.Shape.size(), 1);
    int64_t S = 1;
    for (int I = static_cast<int>(A.Shape.size()) - 1; I >= 0; --I) {
      A.Strides[I] = S;
      S *= std::max<int64_t>(A.Shape[I], 1);
    }
    A.Store = std::make_shared<Storage>(static_cast<size_t>(S * byteWidth(T)));
    std::memset(A.Store->Ptr, Fill, A.Store->Size);
    return A;
  }

  /// Arbitrary strides over a fresh buffer large enough for them
  /// (non-negative strides); unreachable bytes are set to `Fill`.
  static Array strided(DType T, std::vector<int64_t> Shape,
                       std::vector<int64_t> Strides, uint8_t Fill = 0) {
    Array A;
    A.Type = T;
    A.Shape = std::move(Shape);
    A.Strides = std::move(Strides);
    int64_t Last = 0;
    for (size_t I = 0; I < A.Shape.size(); ++I)
      Last += (A.Shape[I] - 1) * A.Strides[I];
    A.Store = std::make_shared<Storage>(static_cast<size_t>((Last + 1) * byteWidth(T)));
    std::memset(A.Store->Ptr, Fill, A.Store->Size);
    return A;
  }

  DType type() const { return Type; }
  const std::vector<int64_t> &shape() const { return Shape; }
  const std::vector<int64_t> &strides() const { return Strides; }
  int64_t rank() const { return static_cast<int64_t>(Shape.size()); }
  int64_t size() const {
    return std::accumulate(Shape.begin(), Shape.end(), int64_t{1},
                           std::multiplies<int64_t>());
  }
  explicit operator bool() const { return Store != nullptr; }

  void *data() const { return Store->Ptr + Offset * byteWidth(Type); }

  int64_t linear(const std::vector<int64_t> &Idx) const {
    int64_t O = 0;
    for (size_t I = 0; I < Idx.size(); ++I)
      O += Idx[I] * Strides[I];
    return O;
  }
  template <class T> T &at(const std::vector<int64_t> &Idx) const {
    return static_cast<T *>(data())[linear(Idx)];
  }
  /// The element at row-major position `Flat` of the logical shape.
  template <class T> T &flat(int64_t Flat) const {
    return static_cast<T *>(data())[linear(unflatten(Flat))];
  }
  /// An element as double (any dtype).
  double get(int64_t Flat) const {
    switch (Type) {
    case DType::F32: return flat<float>(Flat);
    case DType::F64: return flat<double>(Flat);
    case DType::I32: return flat<int32_t>(Flat);
    case DType::I64: return static_cast<double>(flat<int64_t>(Flat));
    case DType::Bool: return flat<uint8_t>(Flat);
    }
    return 0;
  }
  void set(int64_t Flat, double V) const {
    switch (Type) {
    case DType::F32: flat<float>(Flat) = static_cast<float>(V); break;
    case DType::F64: flat<double>(Flat) = V; break;
    case DType::I32: flat<int32_t>(Flat) = static_cast<int32_t>(V); break;
    case DType::I64: flat<int64_t>(Flat) = static_cast<int64_t>(V); break;
    case DType::Bool: flat<uint8_t>(Flat) = V != 0; break;
    }
  }
  std::vector<int64_t> unflatten(int64_t Flat) const {
    std::vector<int64_t> Idx(Shape.size());
    for (int I = static_cast<int>(Shape.size()) - 1; I >= 0; --I) {
      Idx[I] = Flat % Shape[I];
      Flat /= Shape[I];
    }
    return Idx;
  }

  /// A view of [Begin, End) along `Axis` (shares the storage).
  Array slice(int64_t Axis, int64_t Begin, int64_t End) const {
    Array V = *this;
    V.Offset += Begin * Strides[Axis];
    V.Shape[Axis] = End - Begin;
    return V;
  }
  /// A C-contiguous copy.
  Array copy() const {
    Array C = make(Type, Shape);
    int64_t W = byteWidth(Type);
    for (int64_t I = 0, N = size(); I < N; ++I)
      std::memcpy(static_cast<uint8_t *>(C.data()) + I * W,
                  static_cast<uint8_t *>(data()) + linear(unflatten(I)) * W, W);
    return C;
  }
  /// The logical elements' bytes in row-major order.
  std::vector<uint8_t> bytes() const {
    Array C = copy();
    auto *P = static_cast<uint8_t *>(C.data());
    return std::vector<uint8_t>(P, P + C.size() * byteWidth(Type));
  }

  /// The abi.h view: the pointer and the strides (kept alive by the array).
  aimz_view view() const { return aimz_view{data(), Strides.data()}; }

private:
  DType Type = DType::F32;
  std::vector<int64_t> Shape, Strides;
  std::shared_ptr<Storage> Store;
  int64_t Offset = 0;
};

enum class EntryKind { Predict, LogLikelihood, Prior };

inline const char *entryName(EntryKind K) {
  switch (K) {
  case EntryKind::Predict: return "aimz_predict";
  case EntryKind::LogLikelihood: return "aimz_log_likelihood";
  case EntryKind::Prior: return "aimz_prior_predictive";
  }
  return "";
}

using EntryFn = int32_t (*)(aimz_call *);

/// A dlopen'ed model.so.
class CompiledModel {
public:
  /// Loads AIMZ_TEST_MODEL_DIR/<Name>.so; on failure Error says why.
  explicit CompiledModel(const std::string &Name) {
    Path = std::string(AIMZ_TEST_MODEL_DIR) + "/" + Name + ".so";
    Handle = dlopen(Path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!Handle) {
      Error = std::string("dlopen failed: ") + dlerror();
      return;
    }
    auto *Version = static_cast<const int64_t *>(dlsym(Handle, "aimz_abi_version"));
    auto *Manifest = static_cast<const char *>(dlsym(Handle, "aimz_manifest"));
    if (!Version || !Manifest) {
      Error = "aimz_abi_version or aimz_manifest is not exported";
      return;
    }
    AbiVersion = *Version;
    if (AbiVersion != AIMZ_ABI_VERSION) {
      Error = "abi version " + std::to_string(AbiVersion) + ", expected " +
              std::to_string(AIMZ_ABI_VERSION);
      return;
    }
    try {
      Json = nlohmann::json::parse(Manifest);
    } catch (const std::exception &E) {
      Error = std::string("manifest is not JSON: ") + E.what();
      return;
    }
    for (EntryKind K : {EntryKind::Predict, EntryKind::LogLikelihood, EntryKind::Prior}) {
      auto F = reinterpret_cast<EntryFn>(dlsym(Handle, entryName(K)));
      if (!F) {
        Error = std::string(entryName(K)) + " is not exported";
        return;
      }
      Entries[static_cast<int>(K)] = F;
    }
  }
  ~CompiledModel() {
    if (Handle)
      dlclose(Handle);
  }
  CompiledModel(const CompiledModel &) = delete;
  CompiledModel &operator=(const CompiledModel &) = delete;

  bool ok() const { return Error.empty(); }
  const std::string &error() const { return Error; }
  const std::string &path() const { return Path; }
  const nlohmann::json &manifest() const { return Json; }
  int64_t abiVersion() const { return AbiVersion; }
  EntryFn entry(EntryKind K) const { return Entries[static_cast<int>(K)]; }

  std::string obsDim() const { return Json.at("obs_dim").get<std::string>(); }
  const nlohmann::json &sites() const { return Json.at("sites"); }
  const nlohmann::json &inputs() const { return Json.at("inputs"); }
  int64_t numSites() const { return static_cast<int64_t>(sites().size()); }
  int64_t numInputs() const { return static_cast<int64_t>(inputs().size()); }

  /// Index of a site / input by name, -1 when absent.
  int64_t siteIndex(const std::string &Name) const {
    for (size_t I = 0; I < sites().size(); ++I)
      if (sites()[I].at("name") == Name)
        return static_cast<int64_t>(I);
    return -1;
  }
  int64_t inputIndex(const std::string &Name) const {
    for (size_t I = 0; I < inputs().size(); ++I)
      if (inputs()[I].at("name") == Name)
        return static_cast<int64_t>(I);
    return -1;
  }
  const nlohmann::json &site(const std::string &Name) const {
    return sites().at(static_cast<size_t>(siteIndex(Name)));
  }
  std::string outputName() const {
    return Json.at("outputs").at(0).at("name").get<std::string>();
  }
  /// The floating precision the spec asks for: f64 when the output or a
  /// floating input is f64 (computed from the manifest's dtypes, not read
  /// from its "precision" field).
  DType specPrecision() const {
    bool F64 = Json.at("outputs").at(0).at("dtype") == "f64";
    for (const auto &In : inputs())
      F64 |= In.at("dtype") == "f64";
    return F64 ? DType::F64 : DType::F32;
  }

  /// A manifest shape with its dims resolved; the observation axis gets
  /// `ObsExtent`.
  std::vector<int64_t> resolve(const nlohmann::json &Shape,
                               const std::map<std::string, int64_t> &Dims,
                               int64_t ObsExtent) const {
    std::vector<int64_t> R;
    for (const auto &D : Shape) {
      if (D.is_number_integer()) {
        R.push_back(D.get<int64_t>());
      } else if (D.get<std::string>() == obsDim()) {
        R.push_back(ObsExtent);
      } else {
        R.push_back(Dims.at(D.get<std::string>()));
      }
    }
    return R;
  }
  /// Position of the observation axis in a manifest shape, -1 when absent.
  int obsAxis(const nlohmann::json &Shape) const {
    for (size_t I = 0; I < Shape.size(); ++I)
      if (Shape[I].is_string() && Shape[I].get<std::string>() == obsDim())
        return static_cast<int>(I);
    return -1;
  }

private:
  std::string Path, Error;
  void *Handle = nullptr;
  int64_t AbiVersion = 0;
  nlohmann::json Json;
  EntryFn Entries[3] = {nullptr, nullptr, nullptr};
};

/// Loads a model or fails the current test (use with ASSERT_NO_FATAL_FAILURE
/// or check the pointer).
inline std::unique_ptr<CompiledModel> loadModel(const std::string &Name) {
  auto M = std::make_unique<CompiledModel>(Name);
  if (!M->ok()) {
    ADD_FAILURE() << M->path() << ": " << M->error();
    return nullptr;
  }
  return M;
}

/// What the caller provides: dims, inputs (rows from absolute observation
/// InputObsOrigin on), the observed output, and posterior draws (site ->
/// [draws, ...site shape], absolute draw 0 at index 0).
struct Request {
  std::map<std::string, int64_t> Dims;
  std::map<std::string, Array> Inputs;
  Array Observed;
  std::map<std::string, Array> Posterior;
  int64_t InputObsOrigin = 0;
};

/// The rectangle of work and the knobs of one call.
struct Rect {
  int64_t DrawBegin = 0, DrawEnd = 1, ObsBegin = 0, ObsEnd = 1;
  int64_t ObsBlock = 0;
  uint64_t Seed = 0;
};

/// Result arrays: site -> [draws, ...site shape]; element 0 is absolute
/// (DrawOrigin, ObsOrigin). Sites absent from the map are not wanted.
struct Results {
  std::map<std::string, Array> Sites;
  int64_t DrawOrigin = 0, ObsOrigin = 0;
};

/// Allocates result arrays for `Names` (every site when empty) covering
/// `Draws` draws and `Obs` observations, filled with the byte `Fill`. For the
/// log-likelihood the output site holds densities in the model's precision.
inline Results makeResults(const CompiledModel &M, EntryKind K,
                           const std::map<std::string, int64_t> &Dims,
                           int64_t Draws, int64_t Obs, int64_t DrawOrigin,
                           int64_t ObsOrigin,
                           std::vector<std::string> Names = {},
                           uint8_t Fill = 0xA5) {
  Results R;
  R.DrawOrigin = DrawOrigin;
  R.ObsOrigin = ObsOrigin;
  if (Names.empty())
    for (const auto &S : M.sites())
      Names.push_back(S.at("name"));
  for (const std::string &N : Names) {
    const auto &S = M.site(N);
    DType T = parseDType(S.at("dtype"));
    if (K == EntryKind::LogLikelihood && N == M.outputName())
      T = M.specPrecision();
    std::vector<int64_t> Shape = {Draws};
    for (int64_t D : M.resolve(S.at("shape"), Dims, Obs))
      Shape.push_back(D);
    R.Sites[N] = Array::make(T, Shape, Fill);
  }
  return R;
}

/// The outcome of one entry-point call.
struct CallOutcome {
  int32_t FirstStatus = -1; // the call without scratch
  int32_t Status = -1;      // the final status
  int64_t ScratchNeeded = -1;
};

/// Fills an aimz_call (the caller keeps the vectors alive).
struct CallBuilder {
  std::vector<int64_t> DimValues;
  std::vector<aimz_view> Inputs, Posterior, ResultViews;
  aimz_view ObservedView{nullptr, nullptr};
  aimz_call Call{};

  CallBuilder(const CompiledModel &M, const Request &Q, const Rect &Rc,
              const Results &R) {
    for (const auto &D : M.manifest().at("dims")) {
      auto It = Q.Dims.find(D.get<std::string>());
      if (It == Q.Dims.end())
        throw std::runtime_error("dim " + D.get<std::string>() + " missing");
      DimValues.push_back(It->second);
    }
    for (const auto &In : M.inputs()) {
      auto It = Q.Inputs.find(In.at("name"));
      if (It == Q.Inputs.end())
        throw std::runtime_error("input " + In.at("name").get<std::string>() + " missing");
      Inputs.push_back(It->second.view());
    }
    for (const auto &S : M.sites()) {
      auto P = Q.Posterior.find(S.at("name"));
      Posterior.push_back(P == Q.Posterior.end() ? aimz_view{nullptr, nullptr}
                                                 : P->second.view());
      auto O = R.Sites.find(S.at("name"));
      ResultViews.push_back(O == R.Sites.end() ? aimz_view{nullptr, nullptr}
                                               : O->second.view());
    }
    if (Q.Observed)
      ObservedView = Q.Observed.view();
    Call.abi_version = AIMZ_ABI_VERSION;
    Call.draw_begin = Rc.DrawBegin;
    Call.draw_end = Rc.DrawEnd;
    Call.obs_begin = Rc.ObsBegin;
    Call.obs_end = Rc.ObsEnd;
    Call.input_obs_origin = Q.InputObsOrigin;
    Call.seed = Rc.Seed;
    Call.dims = DimValues.data();
    Call.inputs = Inputs.empty() ? nullptr : Inputs.data();
    Call.observed = Q.Observed ? &ObservedView : nullptr;
    Call.posterior = Posterior.empty() ? nullptr : Posterior.data();
    Call.results = ResultViews.empty() ? nullptr : ResultViews.data();
    Call.scratch = nullptr;
    Call.scratch_bytes = 0;
    Call.obs_block = Rc.ObsBlock;
    Call.scratch_needed = -1;
    Call.result_draw_origin = R.DrawOrigin;
    Call.result_obs_origin = R.ObsOrigin;
  }
};

/// Runs an entry point over a rectangle with the scratch protocol: a first
/// call with no scratch (which must ask for it with status 1 unless it needs
/// none), then a call with exactly scratch_needed bytes.
inline CallOutcome run(const CompiledModel &M, EntryKind K, const Request &Q,
                       const Rect &Rc, const Results &R) {
  CallBuilder CB(M, Q, Rc, R);
  CallOutcome Out;
  EntryFn F = M.entry(K);
  Out.FirstStatus = F(&CB.Call);
  Out.ScratchNeeded = CB.Call.scratch_needed;
  if (Out.FirstStatus != AIMZ_SCRATCH_TOO_SMALL) {
    Out.Status = Out.FirstStatus;
    return Out;
  }
  Storage Scratch(static_cast<size_t>(std::max<int64_t>(Out.ScratchNeeded, 1)));
  CB.Call.scratch = Scratch.Ptr;
  CB.Call.scratch_bytes = Out.ScratchNeeded;
  Out.Status = F(&CB.Call);
  return Out;
}

/// run() that expects success.
inline ::testing::AssertionResult runOk(const CompiledModel &M, EntryKind K,
                                        const Request &Q, const Rect &Rc,
                                        const Results &R) {
  CallOutcome O = run(M, K, Q, Rc, R);
  if (O.Status != AIMZ_OK)
    return ::testing::AssertionFailure()
           << entryName(K) << " returned " << O.Status << " (first call "
           << O.FirstStatus << ", scratch_needed " << O.ScratchNeeded << ")";
  if (O.FirstStatus == AIMZ_OK && O.ScratchNeeded != 0)
    return ::testing::AssertionFailure()
           << "first call without scratch succeeded yet asked for "
           << O.ScratchNeeded << " bytes";
  return ::testing::AssertionSuccess();
}

} // namespace aimz::test

#endif // AIMZ_TEST_MODELS_TESTMODEL_H
