//===- GpuBench.cpp - MLP predict on one GPU through GpuDevice -----------===//
//
// The GPU part of issue 6's benchmark, before aimz-run drives GPUs: the MLP
// (dsl-examples/mlp.aimz) posterior predictive for D draws x N observations
// under the 'obs' plan, every draw against observation batches, results
// copied back into (D, batch) int32 chunk buffers as aimz-run's store would
// receive them. No compression or store: that part is aimz-run's.
//
//   aimz_gpu_bench [--model mlp.so] [--draws 1000] [--obs 1000000]
//                  [--batch-obs 65536] [--obs-blocks 256,64,16]
//                  [--probe-obs 32768] [--max-seconds 120] [--scratch-gib 32]
//
// 1. JIT (cuModuleLoadDataEx) and resident uploads are timed on their own.
// 2. Probe: each observation block size on D x probe-obs; the fastest wins.
// 3. Main run: D x N in batches (two in flight), stopped after max-seconds
//    and extrapolated if it would take longer.
// 4. Spot check: two draws x 512 observations against the host entry point
//    (integers: must be identical).
// Prints one "RESULT key=value ..." line per phase.
//
//===----------------------------------------------------------------------===//
#include "GpuTestModel.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <sstream>

using namespace aimz::gpu;
using namespace aimz::gputest;

namespace {

double now() {
  return std::chrono::duration<double>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

struct Args {
  std::string ModelPath = modelDir() + "/mlp.so";
  int64_t Draws = 1000, Obs = 1000000, BatchObs = 65536, ProbeObs = 32768;
  std::vector<int64_t> Blocks = {256, 64, 16};
  double MaxSeconds = 120;
  int64_t ScratchGiB = 32;
};

Args parse(int argc, char **argv) {
  Args A;
  for (int I = 1; I + 1 < argc; I += 2) {
    std::string K = argv[I], V = argv[I + 1];
    if (K == "--model") A.ModelPath = V;
    else if (K == "--draws") A.Draws = std::stoll(V);
    else if (K == "--obs") A.Obs = std::stoll(V);
    else if (K == "--batch-obs") A.BatchObs = std::stoll(V);
    else if (K == "--probe-obs") A.ProbeObs = std::stoll(V);
    else if (K == "--max-seconds") A.MaxSeconds = std::stod(V);
    else if (K == "--scratch-gib") A.ScratchGiB = std::stoll(V);
    else if (K == "--obs-blocks") {
      A.Blocks.clear();
      std::stringstream S(V);
      std::string X;
      while (std::getline(S, X, ','))
        A.Blocks.push_back(std::stoll(X));
    } else {
      std::cerr << "unknown option " << K << "\n";
      std::exit(2);
    }
  }
  return A;
}

/// Cheap deterministic normals (the values only need to be reasonable).
struct Rng {
  uint64_t S;
  double uniform() {
    S ^= S << 13;
    S ^= S >> 7;
    S ^= S << 17;
    return (static_cast<double>(S >> 11) + 0.5) / 9007199254740992.0;
  }
  double normal() { // sum of uniforms, close enough for benchmark inputs
    double T = 0;
    for (int I = 0; I < 4; ++I)
      T += uniform();
    return (T - 2.0) * 1.7320508;
  }
};

/// The obs-plan rectangle [0, D) x [O0, O1) into a (D, Batch) int32 chunk
/// whose first column is observation O0.
struct MlpCall {
  std::vector<aimz_view> In, Post, Res;
  aimz_view Observed{nullptr, nullptr};
  int64_t ChunkStrides[2];
  aimz_call C{};
  RectangleLayout L;
};

void buildCall(MlpCall &K, const Model &M, Problem &P, int32_t *Chunk, int64_t Batch,
               int64_t D0, int64_t D1, int64_t O0, int64_t O1, int64_t ObsBlock) {
  K.In.clear();
  K.Post.clear();
  K.Res.clear();
  K.L = RectangleLayout();
  K.L.NumDims = static_cast<int64_t>(P.DimValues.size());
  for (Arr &A : P.Inputs) {
    K.In.push_back(A.view());
    K.L.Inputs.push_back({A.bytes(), static_cast<int>(A.Shape.size()), true});
  }
  K.ChunkStrides[0] = Batch;
  K.ChunkStrides[1] = 1;
  const int Out = M.outputSite();
  for (size_t S = 0; S < M.sites().size(); ++S) {
    Arr &A = P.Posterior[S];
    bool Given = !A.Store.empty();
    K.Post.push_back(Given ? A.view() : aimz_view{nullptr, nullptr});
    K.L.Posterior.push_back(Given ? ArrayLayout{A.bytes(), static_cast<int>(A.Shape.size()), true}
                                  : ArrayLayout{});
    ResultLayout R;
    if (static_cast<int>(S) == Out) {
      K.Res.push_back(aimz_view{Chunk, K.ChunkStrides});
      R.ElemBytes = 4;
      R.Extents = {P.N};
      R.ObsAxis = 0;
    } else {
      K.Res.push_back(aimz_view{nullptr, nullptr});
    }
    K.L.Results.push_back(R);
  }
  aimz_call &C = K.C;
  C.abi_version = AIMZ_ABI_VERSION;
  C.draw_begin = D0;
  C.draw_end = D1;
  C.obs_begin = O0;
  C.obs_end = O1;
  C.seed = 2024;
  C.dims = P.DimValues.data();
  C.inputs = K.In.data();
  C.observed = &K.Observed;
  C.posterior = K.Post.data();
  C.results = K.Res.data();
  C.obs_block = ObsBlock;
  C.result_draw_origin = 0;
  C.result_obs_origin = O0 - O0 % Batch; // the chunk's first observation
}

} // namespace

int main(int argc, char **argv) {
  Args A = parse(argc, argv);
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  setenv("AIMZ_GPU_TEST_MODEL_DIR", A.ModelPath.substr(0, A.ModelPath.rfind('/')).c_str(), 1);
  std::string Name = A.ModelPath.substr(A.ModelPath.rfind('/') + 1);
  Name = Name.substr(0, Name.rfind('.'));
  Model M(Name);
  if (!M.Error.empty()) {
    std::cerr << M.Path << ": " << M.Error << "\n";
    return 1;
  }
  if (M.outputSite() < 0 || M.Manifest.at("outputs").at(0).at("dtype") != "i32") {
    std::cerr << "the benchmark expects a model with an i32 output (mlp)\n";
    return 1;
  }
  auto Drv = CudaDriver::get();
  if (!Drv) {
    std::cerr << "SKIP: " << llvm::toString(Drv.takeError()) << "\n";
    return 77;
  }

  // Data: X ~ N(0, 1), posterior draws scaled by 0.1 (moderate logits).
  double T0 = now();
  std::map<std::string, int64_t> Dims;
  for (const auto &D : M.Manifest.at("dims"))
    if (D.get<std::string>() != M.obsDim())
      Dims[D.get<std::string>()] = 100;
  Problem P(M, Dims, /*N=*/1, A.Draws, 3, 0.1); // posterior; X made below
  P.N = A.Obs;
  P.Dims[M.obsDim()] = A.Obs;
  P.DimValues.clear();
  for (const auto &D : M.Manifest.at("dims"))
    P.DimValues.push_back(P.Dims.at(D.get<std::string>()));
  P.Inputs.clear();
  Rng R{0x9E3779B97F4A7C15ull};
  for (const auto &In : M.inputs()) {
    Arr X = Arr::make(In.at("dtype"), M.resolve(In.at("shape"), P.Dims, A.Obs));
    auto *F = reinterpret_cast<float *>(X.data());
    for (int64_t I = 0; I < X.size(); ++I)
      F[I] = static_cast<float>(R.normal());
    P.Inputs.push_back(std::move(X));
  }
  std::printf("RESULT phase=data draws=%lld obs=%lld seconds=%.2f\n",
              static_cast<long long>(A.Draws), static_cast<long long>(A.Obs), now() - T0);

  GpuOptions O;
  O.ScratchBudgetBytes = A.ScratchGiB << 30;
  double J0 = now();
  auto G = GpuDevice::create(*Drv, 0, M.Ptx80, M.Ptx90, O);
  if (!G) {
    std::cerr << llvm::toString(G.takeError()) << "\n";
    return 1;
  }
  GpuDevice &Dev = **G;
  std::printf("RESULT phase=jit gpu=\"%s\" ptx=sm_%d seconds=%.2f\n",
              Dev.info().describe().c_str(), Dev.ptxArch(), now() - J0);
  for (const std::string &N : Dev.notes())
    std::printf("note: %s\n", N.c_str());

  const int64_t Batch = std::min(A.BatchObs, A.Obs);
  // Three chunk buffers: two rectangles in flight, one being "written".
  std::vector<std::vector<int32_t>> Chunks(3, std::vector<int32_t>(
                                                  static_cast<size_t>(A.Draws * Batch)));
  MlpCall K;
  auto RunObs = [&](int64_t ObsTotal, int64_t Block, double Budget,
                    int64_t &Done) -> llvm::Error {
    Done = 0;
    double S0 = now();
    for (int64_t O0 = 0, B = 0; O0 < ObsTotal; O0 += Batch, ++B) {
      int64_t O1 = std::min(ObsTotal, O0 + Batch);
      buildCall(K, M, P, Chunks[B % 3].data(), Batch, 0, A.Draws, O0, O1, Block);
      if (K.L.ScratchBytes == 0) {
        auto S = scratchBytesPerThread(M.Entries[EntryPredict], K.C);
        if (!S)
          return S.takeError();
        K.L.ScratchBytes = *S;
      }
      if (llvm::Error E = Dev.submit(EntryPredict, K.C, K.L))
        return E;
      Done = O1;
      if (now() - S0 > Budget)
        break;
    }
    return Dev.finish();
  };

  // Warm-up: resident uploads of X and the posterior, first launches.
  {
    double W0 = now();
    int64_t Done = 0;
    if (llvm::Error E = RunObs(std::min<int64_t>(Batch, 4096), 256, 1e9, Done)) {
      std::cerr << llvm::toString(std::move(E)) << "\n";
      return 1;
    }
    std::printf("RESULT phase=warmup resident_bytes=%llu upload_seconds=%.3f "
                "seconds=%.3f\n",
                static_cast<unsigned long long>(Dev.stats().ResidentBytes),
                Dev.stats().UploadSeconds, now() - W0);
  }

  // Probe the observation block.
  int64_t Best = A.Blocks.front();
  double BestRate = 0;
  for (int64_t Block : A.Blocks) {
    double S0 = now();
    int64_t Done = 0;
    if (llvm::Error E = RunObs(std::min(A.ProbeObs, A.Obs), Block, A.MaxSeconds / 4, Done)) {
      std::cerr << llvm::toString(std::move(E)) << "\n";
      return 1;
    }
    double Secs = now() - S0;
    double Rate = static_cast<double>(A.Draws) * Done / Secs;
    std::printf("RESULT phase=probe obs_block=%lld draws=%lld obs=%lld seconds=%.3f "
                "pairs_per_second=%.4g\n",
                static_cast<long long>(Block), static_cast<long long>(A.Draws),
                static_cast<long long>(Done), Secs, Rate);
    if (Rate > BestRate) {
      BestRate = Rate;
      Best = Block;
    }
  }

  // The main run.
  GpuStats Before = Dev.stats();
  double S0 = now();
  int64_t Done = 0;
  if (llvm::Error E = RunObs(A.Obs, Best, A.MaxSeconds, Done)) {
    std::cerr << llvm::toString(std::move(E)) << "\n";
    return 1;
  }
  double Secs = now() - S0;
  GpuStats After = Dev.stats();
  double Full = Secs * static_cast<double>(A.Obs) / std::max<int64_t>(Done, 1);
  std::printf("RESULT phase=main obs_block=%lld draws=%lld obs_done=%lld obs_total=%lld "
              "seconds=%.3f full_run_seconds%s=%.3f pairs_per_second=%.4g "
              "wait_seconds=%.3f scatter_seconds=%.3f launches=%llu "
              "bytes_from_device=%llu\n",
              static_cast<long long>(Best), static_cast<long long>(A.Draws),
              static_cast<long long>(Done), static_cast<long long>(A.Obs), Secs,
              Done < A.Obs ? "_extrapolated" : "", Full,
              static_cast<double>(A.Draws) * Done / Secs,
              After.WaitSeconds - Before.WaitSeconds,
              After.ScatterSeconds - Before.ScatterSeconds,
              static_cast<unsigned long long>(After.Launches - Before.Launches),
              static_cast<unsigned long long>(After.BytesFromDevice - Before.BytesFromDevice));

  // Spot check against the host: draws {0, D-1} x observations [0, 512).
  {
    const int64_t SpotObs = std::min<int64_t>(512, A.Obs);
    std::vector<int32_t> Gpu(static_cast<size_t>(A.Draws * Batch), -7),
        Host(static_cast<size_t>(A.Draws * Batch), -7);
    int64_t Mismatch = 0;
    for (int64_t D : {int64_t(0), A.Draws - 1}) {
      MlpCall HK, GK;
      buildCall(HK, M, P, Host.data(), Batch, D, D + 1, 0, SpotObs, Best);
      if (runHost(M, EntryPredict, HK.C) != AIMZ_OK) {
        std::cerr << "host entry point failed\n";
        return 1;
      }
      buildCall(GK, M, P, Gpu.data(), Batch, D, D + 1, 0, SpotObs, Best);
      GK.L.ScratchBytes = *scratchBytesPerThread(M.Entries[EntryPredict], GK.C);
      if (llvm::Error E = Dev.run(EntryPredict, GK.C, GK.L)) {
        std::cerr << llvm::toString(std::move(E)) << "\n";
        return 1;
      }
    }
    for (size_t I = 0; I < Gpu.size(); ++I)
      Mismatch += Gpu[I] != Host[I];
    std::printf("RESULT phase=spot_check elements=%lld mismatches=%lld\n",
                static_cast<long long>(2 * SpotObs), static_cast<long long>(Mismatch));
    return Mismatch ? 1 : 0;
  }
}
