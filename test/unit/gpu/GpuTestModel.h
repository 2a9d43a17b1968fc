//===- GpuTestModel.h - Compiled models for the GPU device tests -*- C++ -*-===//
//
// Loads a model.so compiled by aimzc, makes deterministic inputs, posterior
// draws and observed values from its manifest, and builds the aimz_call (host
// pointers) and the RectangleLayout of a rectangle whose results land in
// whole-array "chunk" buffers, so the same rectangle can run on the CPU (the
// host entry point) and on a GpuDevice and the buffers be compared byte by
// byte (sentinel bytes outside the rectangle included).
//
//===----------------------------------------------------------------------===//
#ifndef AIMZ_TEST_GPU_GPUTESTMODEL_H
#define AIMZ_TEST_GPU_GPUTESTMODEL_H

#include "aimz/abi.h"
#include "aimz/gpu/GpuDevice.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <dlfcn.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#ifndef AIMZ_GPU_TEST_MODEL_DIR
#error "AIMZ_GPU_TEST_MODEL_DIR must name the directory of the compiled models"
#endif

namespace aimz::gputest {

using EntryFn = int32_t (*)(aimz_call *);

/// The directory of the compiled models (AIMZ_GPU_TEST_MODEL_DIR, or the
/// environment variable of that name for a relocated test binary).
inline std::string modelDir() {
  if (const char *E = std::getenv("AIMZ_GPU_TEST_MODEL_DIR"))
    return E;
  return AIMZ_GPU_TEST_MODEL_DIR;
}

inline int64_t dtypeBytes(const std::string &T) {
  if (T == "f32" || T == "i32") return 4;
  if (T == "f64" || T == "i64") return 8;
  if (T == "bool") return 1;
  throw std::runtime_error("unknown dtype " + T);
}
inline bool isFloat(const std::string &T) { return T == "f32" || T == "f64"; }

/// A C-contiguous host array (8-byte aligned storage).
struct Arr {
  std::string Type;
  std::vector<int64_t> Shape, Strides;
  std::vector<uint64_t> Store;

  static Arr make(const std::string &Type, std::vector<int64_t> Shape,
                  uint8_t Fill = 0) {
    Arr A;
    A.Type = Type;
    A.Shape = std::move(Shape);
    A.Strides.assign(A.Shape.size(), 1);
    int64_t N = 1;
    for (int I = static_cast<int>(A.Shape.size()) - 1; I >= 0; --I) {
      A.Strides[I] = N;
      N *= A.Shape[I];
    }
    A.Store.assign((static_cast<size_t>(N * dtypeBytes(Type)) + 7) / 8 + 1, 0);
    std::memset(A.Store.data(), Fill, A.Store.size() * 8);
    return A;
  }
  int64_t size() const {
    int64_t N = 1;
    for (int64_t X : Shape)
      N *= X;
    return N;
  }
  int64_t bytes() const { return size() * dtypeBytes(Type); }
  uint8_t *data() { return reinterpret_cast<uint8_t *>(Store.data()); }
  const uint8_t *data() const { return reinterpret_cast<const uint8_t *>(Store.data()); }
  void set(int64_t I, double V) {
    if (Type == "f32") reinterpret_cast<float *>(data())[I] = static_cast<float>(V);
    else if (Type == "f64") reinterpret_cast<double *>(data())[I] = V;
    else if (Type == "i32") reinterpret_cast<int32_t *>(data())[I] = static_cast<int32_t>(V);
    else if (Type == "i64") reinterpret_cast<int64_t *>(data())[I] = static_cast<int64_t>(V);
    else data()[I] = V != 0;
  }
  double get(int64_t I) const {
    if (Type == "f32") return reinterpret_cast<const float *>(data())[I];
    if (Type == "f64") return reinterpret_cast<const double *>(data())[I];
    if (Type == "i32") return reinterpret_cast<const int32_t *>(data())[I];
    if (Type == "i64") return static_cast<double>(reinterpret_cast<const int64_t *>(data())[I]);
    return data()[I];
  }
  aimz_view view() { return aimz_view{data(), Strides.data()}; }
};

/// A dlopen'ed model.so.
struct Model {
  std::string Name, Path, Error;
  void *Handle = nullptr;
  nlohmann::json Manifest;
  EntryFn Entries[3] = {nullptr, nullptr, nullptr};
  const char *Ptx80 = nullptr, *Ptx90 = nullptr;

  explicit Model(const std::string &N) : Name(N) {
    Path = modelDir() + "/" + N + ".so";
    Handle = dlopen(Path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!Handle) {
      const char *E = dlerror();
      Error = std::string("dlopen failed: ") + (E ? E : "?");
      return;
    }
    const char *Names[3] = {"aimz_predict", "aimz_log_likelihood", "aimz_prior_predictive"};
    for (int K = 0; K < 3; ++K)
      Entries[K] = reinterpret_cast<EntryFn>(dlsym(Handle, Names[K]));
    auto *M = static_cast<const char *>(dlsym(Handle, "aimz_manifest"));
    Ptx80 = static_cast<const char *>(dlsym(Handle, "aimz_ptx"));
    Ptx90 = static_cast<const char *>(dlsym(Handle, "aimz_ptx_sm90"));
    if (!M || !Entries[0] || !Entries[1] || !Entries[2]) {
      Error = "not an aimz model";
      return;
    }
    Manifest = nlohmann::json::parse(M);
  }
  ~Model() {
    if (Handle)
      dlclose(Handle);
  }
  bool hasPtx() const { return Ptx80 && *Ptx80; }
  const nlohmann::json &sites() const { return Manifest.at("sites"); }
  const nlohmann::json &inputs() const { return Manifest.at("inputs"); }
  std::string obsDim() const { return Manifest.at("obs_dim"); }
  std::string outputName() const { return Manifest.at("outputs").at(0).at("name"); }
  std::string precision() const { return Manifest.at("precision"); }
  int outputSite() const {
    for (size_t I = 0; I < sites().size(); ++I)
      if (sites()[I].at("name") == outputName())
        return static_cast<int>(I);
    return -1;
  }
  /// Shape with dims resolved; the observation axis gets `N`; `ObsAxis` is
  /// set to its position (-1 when absent).
  std::vector<int64_t> resolve(const nlohmann::json &Shape,
                               const std::map<std::string, int64_t> &Dims,
                               int64_t N, int *ObsAxis = nullptr) const {
    std::vector<int64_t> R;
    if (ObsAxis)
      *ObsAxis = -1;
    for (const auto &D : Shape) {
      if (D.is_number_integer()) {
        R.push_back(D.get<int64_t>());
      } else if (D.get<std::string>() == obsDim()) {
        if (ObsAxis)
          *ObsAxis = static_cast<int>(R.size());
        R.push_back(N);
      } else {
        R.push_back(Dims.at(D.get<std::string>()));
      }
    }
    return R;
  }
};

inline std::unique_ptr<Model> loadModel(const std::string &Name) {
  auto M = std::make_unique<Model>(Name);
  if (!M->Error.empty()) {
    ADD_FAILURE() << M->Path << ": " << M->Error;
    return nullptr;
  }
  return M;
}

/// Everything one model's runs read and write.
struct Problem {
  const Model *M = nullptr;
  std::map<std::string, int64_t> Dims; // including the observation dim
  int64_t N = 0, D = 0;
  std::vector<int64_t> DimValues;
  std::vector<Arr> Inputs;
  std::vector<Arr> Posterior;     // one per site; empty Store: not given
  Arr Observed;
  bool HasObserved = false;

  /// `Dims` must bind every dim but the observation dim; `Scale` scales
  /// the posterior draws; sites named in `Missing` are left out.
  Problem(const Model &Mod, std::map<std::string, int64_t> Ds, int64_t NumObs,
          int64_t NumDraws, uint64_t Seed = 1, double Scale = 1.0,
          const std::vector<std::string> &Missing = {}, int64_t IntHigh = 8)
      : M(&Mod), Dims(std::move(Ds)), N(NumObs), D(NumDraws) {
    Dims[M->obsDim()] = N;
    for (const auto &Name : M->Manifest.at("dims"))
      DimValues.push_back(Dims.at(Name.get<std::string>()));
    std::mt19937_64 Rng(Seed);
    std::normal_distribution<double> Normal(0, 1);
    for (const auto &In : M->inputs()) {
      Arr A = Arr::make(In.at("dtype"), M->resolve(In.at("shape"), Dims, N));
      std::uniform_int_distribution<int64_t> U(0, IntHigh - 1);
      for (int64_t I = 0; I < A.size(); ++I)
        A.set(I, isFloat(A.Type) ? Normal(Rng) : static_cast<double>(U(Rng)));
      Inputs.push_back(std::move(A));
    }
    for (const auto &S : M->sites()) {
      bool Latent = S.at("kind") == "latent";
      bool Skip = false;
      for (const auto &X : Missing)
        Skip |= S.at("name") == X;
      if (!Latent || Skip) {
        Posterior.emplace_back();
        continue;
      }
      std::vector<int64_t> Shape = {D};
      for (int64_t X : M->resolve(S.at("shape"), Dims, N))
        Shape.push_back(X);
      Arr A = Arr::make(S.at("dtype"), Shape);
      std::string Dist = S.value("dist", "");
      bool Positive = Dist == "HalfNormal" || Dist == "HalfCauchy" ||
                      Dist == "Exponential" || Dist == "Gamma" || Dist == "LogNormal";
      for (int64_t I = 0; I < A.size(); ++I) {
        double V = Scale * Normal(Rng);
        A.set(I, Positive ? 0.2 + std::fabs(V) : V);
      }
      Posterior.push_back(std::move(A));
    }
    // Observed values for the log-likelihood: floats ~ N(0, 1), integers
    // in {0, 1} (valid for Bernoulli and count outputs alike).
    const auto &Out = M->Manifest.at("outputs").at(0);
    Observed = Arr::make(Out.at("dtype"), M->resolve(Out.at("shape"), Dims, N));
    std::bernoulli_distribution B(0.5);
    for (int64_t I = 0; I < Observed.size(); ++I)
      Observed.set(I, isFloat(Observed.Type) ? Normal(Rng) : (B(Rng) ? 1.0 : 0.0));
  }

  /// Result buffers for every site (or `Only`), [D, ...site shape over all
  /// N observations], filled with the byte `Fill`; the log-likelihood's
  /// output slot has the model's precision.
  std::vector<Arr> makeResults(int Entry, const std::vector<std::string> &Only = {},
                               uint8_t Fill = 0xA5) const {
    std::vector<Arr> R;
    for (size_t I = 0; I < M->sites().size(); ++I) {
      const auto &S = M->sites()[I];
      bool Want = Only.empty();
      for (const auto &X : Only)
        Want |= S.at("name") == X;
      if (Entry == aimz::gpu::EntryLogLikelihood)
        Want = static_cast<int>(I) == M->outputSite();
      if (!Want) {
        R.emplace_back();
        continue;
      }
      std::string T = S.at("dtype");
      if (Entry == aimz::gpu::EntryLogLikelihood)
        T = M->precision();
      std::vector<int64_t> Shape = {D};
      for (int64_t X : M->resolve(S.at("shape"), Dims, N))
        Shape.push_back(X);
      R.push_back(Arr::make(T, Shape, Fill));
    }
    return R;
  }
};

/// An aimz_call over a rectangle of a Problem, results into `Results`
/// (element 0 = draw 0, observation 0), plus its RectangleLayout.
struct Call {
  std::vector<aimz_view> InViews, PostViews, ResViews;
  aimz_view ObsView{nullptr, nullptr};
  aimz_call C{};
  aimz::gpu::RectangleLayout L;

  Call(Problem &P, std::vector<Arr> &Results, int Entry, int64_t D0, int64_t D1,
       int64_t O0, int64_t O1, uint64_t Seed = 7, int64_t ObsBlock = 0,
       bool Resident = true) {
    const Model &M = *P.M;
    L.NumDims = static_cast<int64_t>(P.DimValues.size());
    for (Arr &A : P.Inputs) {
      InViews.push_back(A.view());
      L.Inputs.push_back({A.bytes(), static_cast<int>(A.Shape.size()), Resident});
    }
    for (size_t I = 0; I < M.sites().size(); ++I) {
      Arr &A = P.Posterior[I];
      bool Given = !A.Store.empty() && Entry != aimz::gpu::EntryPriorPredictive;
      PostViews.push_back(Given ? A.view() : aimz_view{nullptr, nullptr});
      L.Posterior.push_back(Given ? aimz::gpu::ArrayLayout{A.bytes(),
                                                           static_cast<int>(A.Shape.size()),
                                                           Resident}
                                  : aimz::gpu::ArrayLayout{});
      Arr &R = Results[I];
      aimz::gpu::ResultLayout RL;
      if (!R.Store.empty()) {
        ResViews.push_back(R.view());
        RL.ElemBytes = dtypeBytes(R.Type);
        RL.Extents = M.resolve(M.sites()[I].at("shape"), P.Dims, P.N, &RL.ObsAxis);
      } else {
        ResViews.push_back(aimz_view{nullptr, nullptr});
      }
      L.Results.push_back(RL);
    }
    if (Entry == aimz::gpu::EntryLogLikelihood) {
      ObsView = P.Observed.view();
      L.Observed = {{P.Observed.bytes(), static_cast<int>(P.Observed.Shape.size()), Resident}};
    }
    C.abi_version = AIMZ_ABI_VERSION;
    C.draw_begin = D0;
    C.draw_end = D1;
    C.obs_begin = O0;
    C.obs_end = O1;
    C.input_obs_origin = 0;
    C.seed = Seed;
    C.dims = P.DimValues.data();
    C.inputs = InViews.empty() ? nullptr : InViews.data();
    C.observed = &ObsView;
    C.posterior = PostViews.data();
    C.results = ResViews.data();
    C.obs_block = ObsBlock;
    C.result_draw_origin = 0;
    C.result_obs_origin = 0;
  }
  // C points into this object.
  Call(const Call &) = delete;
  Call &operator=(const Call &) = delete;
};

/// Runs the host entry point over the call's rectangle (scratch protocol).
inline int32_t runHost(const Model &M, int Entry, aimz_call C) {
  C.scratch = nullptr;
  C.scratch_bytes = 0;
  int32_t RC = M.Entries[Entry](&C);
  if (RC != AIMZ_SCRATCH_TOO_SMALL)
    return RC;
  std::vector<uint64_t> Scratch(static_cast<size_t>(C.scratch_needed) / 8 + 8);
  C.scratch = Scratch.data();
  C.scratch_bytes = C.scratch_needed;
  return M.Entries[Entry](&C);
}

/// Compares two sets of result buffers. Exact: byte-identical. Otherwise
/// integers byte-identical and floats within `Rel` relative (or `Abs`
/// absolute, for values near zero).
inline ::testing::AssertionResult sameResults(const Model &M,
                                              const std::vector<Arr> &Want,
                                              const std::vector<Arr> &Got,
                                              bool Exact, double Rel = 1e-5,
                                              double Abs = 1e-6) {
  for (size_t S = 0; S < Want.size(); ++S) {
    if (Want[S].Store.empty())
      continue;
    const std::string Site = M.sites()[S].at("name");
    const Arr &W = Want[S], &G = Got[S];
    if (Exact || !isFloat(W.Type)) {
      if (std::memcmp(W.data(), G.data(), static_cast<size_t>(W.bytes())) != 0) {
        int64_t Diff = 0, First = -1;
        const int64_t Eb = dtypeBytes(W.Type);
        for (int64_t I = 0; I < W.size(); ++I)
          if (std::memcmp(W.data() + I * Eb, G.data() + I * Eb, Eb) != 0) {
            Diff += 1;
            if (First < 0)
              First = I;
          }
        return ::testing::AssertionFailure()
               << "site " << Site << ": " << Diff << " of " << W.size()
               << " elements differ (first at flat index " << First << ": want "
               << W.get(First) << ", got " << G.get(First) << ")";
      }
      continue;
    }
    int64_t Bad = 0, First = -1;
    for (int64_t I = 0; I < W.size(); ++I) {
      double A = W.get(I), B = G.get(I);
      bool Ok = (std::isnan(A) && std::isnan(B)) || A == B ||
                std::fabs(A - B) <= Rel * std::max(std::fabs(A), std::fabs(B)) ||
                std::fabs(A - B) <= Abs;
      if (!Ok) {
        Bad += 1;
        if (First < 0)
          First = I;
      }
    }
    if (Bad)
      return ::testing::AssertionFailure()
             << "site " << Site << ": " << Bad << " of " << W.size()
             << " values differ beyond " << Rel << " relative (first at flat index "
             << First << ": want " << W.get(First) << ", got " << G.get(First) << ")";
  }
  return ::testing::AssertionSuccess();
}

} // namespace aimz::gputest

#endif // AIMZ_TEST_GPU_GPUTESTMODEL_H
