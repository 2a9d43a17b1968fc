//===- CopiedArrays.cpp - Arrays written from the inputs, not computed ----===//
#include "CopiedArrays.h"

#include <algorithm>
#include <cstring>

namespace aimz::run {

namespace {

/// InferenceData's observed_data and coordinates: an array of the data or
/// the posterior, ChunkRows rows per chunk.
llvm::Error writeRows(ResultSink &Sink, size_t I, const OutputArray &O,
                      const HostArray &H) {
  uint64_t Rows = H.Shape.empty() ? 1 : H.Shape[0];
  uint64_t RowBytes = io::dtypeSize(H.Type);
  for (size_t K = 1; K < H.Shape.size(); ++K)
    RowBytes *= H.Shape[K];
  if (RowBytes == 0 || Rows == 0)
    return llvm::Error::success(); // no chunks
  const auto *From = static_cast<const uint8_t *>(H.Data);
  for (uint64_t Row = 0, C = 0; Row < Rows; Row += O.ChunkRows, ++C) {
    uint64_t N = std::min(O.ChunkRows, Rows - Row);
    auto P = Sink.buffer(I, static_cast<int64_t>(C));
    if (!P)
      return P.takeError();
    std::memcpy(*P, From + Row * RowBytes, N * RowBytes);
    std::vector<uint64_t> Coords(O.Chunk.size(), 0);
    if (!Coords.empty())
      Coords[0] = C;
    if (llvm::Error E = Sink.commit(I, static_cast<int64_t>(C), Coords))
      return E;
  }
  return llvm::Error::success();
}

/// --with-posterior: the posterior's draws of a site, chain by chain,
/// ChunkRows draws per chunk (an intervened site repeats its one draw).
llvm::Error writePosterior(ResultSink &Sink, size_t I, const OutputArray &O,
                           const HostArray &H) {
  const uint64_t Chains = O.Shape[0], PerChain = O.Shape[1];
  uint64_t DrawBytes = io::dtypeSize(H.Type);
  for (uint64_t X : O.Extents)
    DrawBytes *= X;
  if (DrawBytes == 0 || PerChain == 0)
    return llvm::Error::success(); // no chunks
  const auto *From = static_cast<const uint8_t *>(H.Data);
  int64_t Chunk = 0;
  for (uint64_t C = 0; C < Chains; ++C)
    for (uint64_t D0 = 0, Block = 0; D0 < PerChain;
         D0 += O.ChunkRows, ++Block, ++Chunk) {
      auto P = Sink.buffer(I, Chunk);
      if (!P)
        return P.takeError();
      for (uint64_t K = 0; K < std::min(O.ChunkRows, PerChain - D0); ++K) {
        uint64_t Draw = H.DrawBroadcast ? 0 : C * PerChain + D0 + K;
        std::memcpy(static_cast<uint8_t *>(*P) + K * DrawBytes,
                    From + Draw * DrawBytes, DrawBytes);
      }
      std::vector<uint64_t> Coords(O.Chunk.size(), 0);
      Coords[0] = C;
      Coords[1] = Block;
      if (llvm::Error E = Sink.commit(I, Chunk, Coords))
        return E;
    }
  return llvm::Error::success();
}

} // namespace

llvm::Error writeCopiedArrays(ResultSink &Sink, const RunPlan &Plan,
                              const DataSet &Data, const Posterior *Post) {
  const std::vector<OutputArray> &Outs = Plan.Outs;
  llvm::Error Err = llvm::Error::success();
  for (size_t I = 0; I < Outs.size() && !Err; ++I)
    if (Outs[I].Observed)
      Err = writeRows(Sink, I, Outs[I], *Data.Observed[Outs[I].ObservedOutput]);
    else if (Outs[I].Coordinate)
      Err = writeRows(Sink, I, Outs[I], Post->Coords.at(Outs[I].Name));
    else if (Outs[I].FromPosterior)
      Err = writePosterior(Sink, I, Outs[I], *Post->Sites[Outs[I].Site]);
  return Err;
}

} // namespace aimz::run
