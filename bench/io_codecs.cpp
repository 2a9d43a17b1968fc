//===- io_codecs.cpp - Compression ratio and speed of Zarr chunk codecs ---===//
//
// Measures every codec AimzIO can write on the two payloads that dominate
// aimz-run output: float32 normal draws (posterior samples) and int32
// Bernoulli outcomes (posterior predictive draws). docs/io.md quotes the
// results and picks the default from them.
//
// Usage: aimz-bench-io-codecs [MiB per payload, default 32]
//
//===----------------------------------------------------------------------===//

#include "aimz/io/ChunkPipeline.h"
#include "aimz/io/Codec.h"
#include "aimz/io/Zarr.h"

#include "llvm/Support/Error.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <unistd.h>
#include <vector>
#include <zstd.h>

using namespace aimz::io;
using Clock = std::chrono::steady_clock;

namespace {
constexpr size_t ChunkBytes = size_t(4) << 20; // A typical 1M-element chunk.

struct Payload {
  const char *Name;
  DType Type;
  std::vector<uint8_t> Bytes;
};

Payload normalDraws(size_t Bytes) {
  std::vector<float> V(Bytes / 4);
  std::mt19937_64 Rng(42);
  std::normal_distribution<float> N(0.0f, 1.0f);
  for (float &X : V)
    X = N(Rng);
  Payload P{"f32 normal draws", DType::Float32, std::vector<uint8_t>(Bytes)};
  std::memcpy(P.Bytes.data(), V.data(), Bytes);
  return P;
}

Payload bernoulli(size_t Bytes) {
  std::vector<int32_t> V(Bytes / 4);
  std::mt19937_64 Rng(7);
  std::bernoulli_distribution B(0.3);
  for (int32_t &X : V)
    X = B(Rng);
  Payload P{"i32 Bernoulli(0.3)", DType::Int32, std::vector<uint8_t>(Bytes)};
  std::memcpy(P.Bytes.data(), V.data(), Bytes);
  return P;
}

struct Result {
  double Ratio, EncMBs, DecMBs;
};

double seconds(Clock::time_point A, Clock::time_point B) {
  return std::chrono::duration<double>(B - A).count();
}

Result measure(const CodecOptions &O, const Payload &P) {
  size_t NChunks = P.Bytes.size() / ChunkBytes;
  std::vector<PageBuffer> Enc(NChunks);
  std::vector<size_t> Sizes(NChunks);
  std::vector<uint8_t> Out(ChunkBytes);
  size_t Total = 0;
  double Enc1 = 1e30, Dec1 = 1e30;
  // Best of three; the first pass also faults in the reused buffers.
  for (int Rep = 0; Rep < 3; ++Rep) {
    auto T0 = Clock::now();
    Total = 0;
    for (size_t I = 0; I < NChunks; ++I) {
      llvm::ArrayRef<uint8_t> In(P.Bytes.data() + I * ChunkBytes, ChunkBytes);
      Sizes[I] = llvm::cantFail(encodeChunk(O, P.Type, In, Enc[I]));
      Total += Sizes[I];
    }
    auto T1 = Clock::now();
    for (size_t I = 0; I < NChunks; ++I)
      llvm::cantFail(decodeChunk(
          O, llvm::ArrayRef<uint8_t>(Enc[I].data(), Sizes[I]), Out));
    auto T2 = Clock::now();
    Enc1 = std::min(Enc1, seconds(T0, T1));
    Dec1 = std::min(Dec1, seconds(T1, T2));
  }
  double MB = double(NChunks * ChunkBytes) / 1e6;
  return {double(NChunks * ChunkBytes) / double(Total), MB / Enc1, MB / Dec1};
}

/// Byte shuffle of the whole chunk, then one zstd frame: an upper bound on
/// what a numcodecs "shuffle" filter + "zstd" pipeline would give.
Result measureShuffleZstd(int Level, const Payload &P) {
  size_t NChunks = P.Bytes.size() / ChunkBytes;
  size_t E = dtypeSize(P.Type), N = ChunkBytes / E;
  std::vector<uint8_t> Tmp(ChunkBytes), Enc(ZSTD_compressBound(ChunkBytes));
  size_t Total = 0;
  auto T0 = Clock::now();
  for (size_t C = 0; C < NChunks; ++C) {
    const uint8_t *In = P.Bytes.data() + C * ChunkBytes;
    for (size_t I = 0; I < N; ++I)
      for (size_t B = 0; B < E; ++B)
        Tmp[B * N + I] = In[I * E + B];
    Total +=
        ZSTD_compress(Enc.data(), Enc.size(), Tmp.data(), ChunkBytes, Level);
  }
  auto T1 = Clock::now();
  double MB = double(NChunks * ChunkBytes) / 1e6;
  return {double(NChunks * ChunkBytes) / double(Total), MB / seconds(T0, T1),
          0.0};
}
/// End to end: the default codec through ChunkPipeline into a v2 store on
/// the local disk, as aimz-run writes it.
void measurePipeline(const Payload &P, unsigned Threads) {
  std::string Dir = "/tmp/aimz-bench-io-codecs-" + std::to_string(::getpid());
  auto W = llvm::cantFail(ZarrWriter::create(Dir, ZarrFormat::V2));
  uint64_t NChunks = P.Bytes.size() / ChunkBytes;
  uint64_t Elems = ChunkBytes / dtypeSize(P.Type);
  llvm::cantFail(W->addArray("x", P.Type, {NChunks * Elems}, {Elems}, {"i"}));
  auto T0 = Clock::now();
  auto Pipe =
      llvm::cantFail(ChunkPipeline::forWriter(*W, {Threads, 0, ChunkBytes}));
  for (uint64_t C = 0; C < NChunks; ++C) {
    PooledBuffer B = llvm::cantFail(Pipe->acquireBuffer());
    std::memcpy(B.data(), P.Bytes.data() + C * ChunkBytes, ChunkBytes);
    llvm::cantFail(Pipe->submit("x", {C}, std::move(B), ChunkBytes));
  }
  llvm::cantFail(Pipe->drain());
  Pipe.reset();
  llvm::cantFail(W->finish());
  double S = seconds(T0, Clock::now());
  std::printf("pipeline, %u threads, default codec, %s: %.0f MB/s\n", Threads,
              P.Name, double(P.Bytes.size()) / 1e6 / S);
  W.reset();
  llvm::sys::fs::remove_directories(Dir);
}
} // namespace

int main(int Argc, char **Argv) {
  size_t MiB = Argc > 1 ? std::strtoul(Argv[1], nullptr, 10) : 32;
  size_t Bytes = std::max<size_t>(1, MiB / 4) * ChunkBytes;
  Payload Payloads[] = {normalDraws(Bytes), bernoulli(Bytes)};
  // Blosc block size: ":0" lets Blosc choose, no suffix is our 1 MiB
  // default.
  const char *Specs[] = {
      "none",
      "zstd:1",
      "zstd:3",
      "zstd:9",
      "blosc:zstd:1:noshuffle",
      "blosc:zstd:1:shuffle:0",
      "blosc:zstd:1:shuffle:256K",
      "blosc:zstd:1:shuffle",
      "blosc:zstd:3:shuffle",
      "blosc:zstd:5:shuffle",
      "blosc:zstd:1:bitshuffle:0",
      "blosc:zstd:1:bitshuffle:256K",
      "blosc:zstd:1:bitshuffle",
      "blosc:zstd:3:bitshuffle",
      "blosc:zstd:5:bitshuffle",
      "blosc:lz4:5:shuffle",
      "blosc:lz4:5:bitshuffle",
      "blosc:zstd:1:auto",
  };
  std::printf("%zu MiB per payload, %zu MiB chunks, one thread\n", Bytes >> 20,
              ChunkBytes >> 20);
  for (const Payload &P : Payloads) {
    std::printf("\n%-30s %8s %12s %12s   (%s)\n", "codec", "ratio",
                "encode MB/s", "decode MB/s", P.Name);
    for (const char *S : Specs) {
      CodecOptions O = llvm::cantFail(CodecOptions::parse(S));
      Result R = measure(O, P);
      std::printf("%-30s %8.3f %12.0f %12.0f\n", S, R.Ratio, R.EncMBs,
                  R.DecMBs);
    }
    for (int L : {1, 3}) {
      Result R = measureShuffleZstd(L, P);
      std::printf(
          "%-30s %8.3f %12.0f %12s\n",
          ("(whole-chunk shuffle+zstd:" + std::to_string(L) + ")").c_str(),
          R.Ratio, R.EncMBs, "-");
    }
  }
  std::printf("\n");
  for (const Payload &P : Payloads)
    for (unsigned T : {1u, 2u})
      measurePipeline(P, T);
  return 0;
}
