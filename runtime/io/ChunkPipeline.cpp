//===- ChunkPipeline.cpp - Bounded compress-and-write thread pool ---------===//

#include "aimz/io/ChunkPipeline.h"
#include "aimz/io/Zarr.h"

#include "Errors.h"

#include <algorithm>
#include <exception>

using namespace llvm;

namespace aimz::io {

ChunkPipeline::ChunkPipeline(size_t QueueDepth, size_t BufferBytes,
                             size_t MaxBuffers)
    : QueueDepth(QueueDepth), Pool(BufferBytes, MaxBuffers),
      Jobs({QueueDepth, /*CountsRunning=*/false}) {}

Expected<std::unique_ptr<ChunkPipeline>>
ChunkPipeline::create(ChunkSink Sink, PipelineOptions O) {
  if (!Sink)
    return ioError("the chunk pipeline needs a sink");
  if (O.BufferBytes == 0)
    return ioError("the chunk pipeline needs PipelineOptions::BufferBytes, "
                   "the size of the largest chunk in bytes");
  if (O.Threads == 0)
    O.Threads = std::max(1u, std::thread::hardware_concurrency());
  if (O.QueueDepth == 0)
    O.QueueDepth = 2 * size_t(O.Threads);
  if (O.MaxBuffers == 0)
    O.MaxBuffers = O.QueueDepth + O.Threads + 1;
  std::unique_ptr<ChunkPipeline> P(
      new ChunkPipeline(O.QueueDepth, O.BufferBytes, O.MaxBuffers));
  auto Handle = [Sink = std::move(Sink)](ChunkJob &J) -> Error {
    try {
      return Sink(J);
    } catch (const std::exception &X) {
      // A throwing sink (e.g. std::bad_alloc) must not take the process
      // down.
      return ioError("chunk " + J.Array + " failed: " + X.what());
    }
  };
  if (Error E = P->Jobs.start(O.Threads, std::move(Handle), "chunk writer"))
    return std::move(E);
  return P;
}

Expected<std::unique_ptr<ChunkPipeline>>
ChunkPipeline::forWriter(ZarrWriter &W, PipelineOptions O) {
  return create(
      [&W](const ChunkJob &J) {
        return W.writeChunk(J.Array, J.Coords, J.Buffer.data(), J.Bytes);
      },
      O);
}

ChunkPipeline::~ChunkPipeline() = default;

Expected<PooledBuffer> ChunkPipeline::acquireBuffer() {
  if (std::optional<std::string> E = Jobs.firstError())
    return ioError(*E);
  // After a failure queued jobs are dropped, which returns their buffers,
  // so a producer blocked here wakes up and sees the error below.
  Expected<PooledBuffer> B = Pool.acquire();
  if (!B)
    return B.takeError();
  if (std::optional<std::string> E = Jobs.firstError())
    return ioError(*E);
  return B;
}

Error ChunkPipeline::submit(StringRef Array, ArrayRef<uint64_t> Coords,
                            PooledBuffer Buffer, size_t Bytes) {
  if (!Buffer)
    return ioError("submitted chunk " + Array + " has no buffer");
  if (Bytes > Buffer.size())
    return ioError("submitted chunk of '" + Array + "' claims " + Twine(Bytes) +
                   " bytes but its buffer holds " + Twine(Buffer.size()));
  return Jobs.submit(
      ChunkJob{Array.str(), Coords.vec(), std::move(Buffer), Bytes});
}

Error ChunkPipeline::drain() { return Jobs.drain(); }

} // namespace aimz::io
