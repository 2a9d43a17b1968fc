//===- CopiedArrays.cpp - Arrays written from the inputs, not computed ----===//
#include "CopiedArrays.h"

#include <algorithm>
#include <cstring>

namespace aimz::run {

namespace {

/// Rows of H, RowBytes each, into chunks of O.ChunkRows rows: Groups
/// groups of PerGroup rows (a posterior's chains, whose chunks are indexed
/// (chain, block) when Chained; else one group, chunks indexed (block)).
/// A broadcast array (an intervened site) repeats its one row.
llvm::Error writeRowChunks(ResultSink &Sink, size_t I, const OutputArray &O,
                           const HostArray &H, uint64_t Groups,
                           uint64_t PerGroup, uint64_t RowBytes, bool Chained) {
  if (RowBytes == 0 || PerGroup == 0)
    return llvm::Error::success(); // no chunks
  const auto *From = static_cast<const uint8_t *>(H.Data);
  int64_t Chunk = 0;
  for (uint64_t G = 0; G < Groups; ++G)
    for (uint64_t R0 = 0, Block = 0; R0 < PerGroup;
         R0 += O.ChunkRows, ++Block, ++Chunk) {
      auto P = Sink.buffer(I, Chunk);
      if (!P)
        return P.takeError();
      const uint64_t N = std::min(O.ChunkRows, PerGroup - R0);
      auto *To = static_cast<uint8_t *>(*P);
      if (H.DrawBroadcast)
        for (uint64_t K = 0; K < N; ++K)
          std::memcpy(To + K * RowBytes, From, RowBytes);
      else
        std::memcpy(To, From + (G * PerGroup + R0) * RowBytes, N * RowBytes);
      std::vector<uint64_t> Coords(O.Chunk.size(), 0);
      if (Chained) {
        Coords[0] = G;
        Coords[1] = Block;
      } else if (!Coords.empty()) {
        Coords[0] = Block;
      }
      if (llvm::Error E = Sink.commit(I, Chunk, Coords))
        return E;
    }
  return llvm::Error::success();
}

/// InferenceData's observed_data and coordinates: an array of the data or
/// the posterior, ChunkRows rows per chunk.
llvm::Error writeRows(ResultSink &Sink, size_t I, const OutputArray &O,
                      const HostArray &H) {
  uint64_t RowBytes = io::dtypeSize(H.Type);
  for (size_t K = 1; K < H.Shape.size(); ++K)
    RowBytes *= H.Shape[K];
  return writeRowChunks(Sink, I, O, H, 1, H.Shape.empty() ? 1 : H.Shape[0],
                        RowBytes, /*Chained=*/false);
}

/// --with-posterior: the posterior's draws of a site, chain by chain,
/// ChunkRows draws per chunk (an intervened site repeats its one draw).
llvm::Error writePosterior(ResultSink &Sink, size_t I, const OutputArray &O,
                           const HostArray &H) {
  uint64_t DrawBytes = io::dtypeSize(H.Type);
  for (uint64_t X : O.Extents)
    DrawBytes *= X;
  return writeRowChunks(Sink, I, O, H, O.Shape[0], O.Shape[1], DrawBytes,
                        /*Chained=*/true);
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
      Err = writeRows(Sink, I, Outs[I], Outs[I].Labels);
    else if (Outs[I].FromPosterior)
      Err = writePosterior(Sink, I, Outs[I], *Post->Sites[Outs[I].Site]);
  return Err;
}

} // namespace aimz::run
