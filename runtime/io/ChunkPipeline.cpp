//===- ChunkPipeline.cpp - Bounded compress-and-write thread pool ---------===//

#include "aimz/io/ChunkPipeline.h"
#include "aimz/io/Zarr.h"

#include "Errors.h"

#include <system_error>

using namespace llvm;

namespace aimz::io {

ChunkPipeline::ChunkPipeline(ChunkSink Sink, size_t QueueDepth,
                             size_t BufferBytes, size_t MaxBuffers)
    : Sink(std::move(Sink)), QueueDepth(QueueDepth),
      Pool(BufferBytes, MaxBuffers) {}

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
  std::unique_ptr<ChunkPipeline> P(new ChunkPipeline(
      std::move(Sink), O.QueueDepth, O.BufferBytes, O.MaxBuffers));
  try {
    for (unsigned I = 0; I < O.Threads; ++I)
      P->Workers.emplace_back([Raw = P.get()] { Raw->work(); });
  } catch (const std::system_error &E) {
    // The destructor joins the workers that did start.
    return ioError("cannot start " + Twine(O.Threads) +
                   " chunk writer threads: " + E.what());
  }
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

ChunkPipeline::~ChunkPipeline() {
  {
    std::unique_lock<std::mutex> L(Mutex);
    Stopping = true;
  }
  NotEmpty.notify_all();
  for (std::thread &T : Workers)
    T.join();
}

Error ChunkPipeline::failure() const { return ioError(*FirstError); }

Expected<PooledBuffer> ChunkPipeline::acquireBuffer() {
  {
    std::lock_guard<std::mutex> L(Mutex);
    if (FirstError)
      return failure();
  }
  // After a failure queued jobs are dropped, which returns their buffers,
  // so a producer blocked here wakes up and sees the error below.
  Expected<PooledBuffer> B = Pool.acquire();
  if (!B)
    return B.takeError();
  std::lock_guard<std::mutex> L(Mutex);
  if (FirstError)
    return failure();
  return B;
}

Error ChunkPipeline::submit(StringRef Array, ArrayRef<uint64_t> Coords,
                            PooledBuffer Buffer, size_t Bytes) {
  if (!Buffer)
    return ioError("submitted chunk " + Array + " has no buffer");
  if (Bytes > Buffer.size())
    return ioError("submitted chunk of '" + Array + "' claims " + Twine(Bytes) +
                   " bytes but its buffer holds " + Twine(Buffer.size()));
  std::unique_lock<std::mutex> L(Mutex);
  NotFull.wait(L, [&] { return FirstError || Queue.size() < QueueDepth; });
  if (FirstError)
    return failure();
  Queue.push_back(
      ChunkJob{Array.str(), Coords.vec(), std::move(Buffer), Bytes});
  L.unlock();
  NotEmpty.notify_one();
  return Error::success();
}

Error ChunkPipeline::drain() {
  std::unique_lock<std::mutex> L(Mutex);
  Idle.wait(L, [&] { return Queue.empty() && Running == 0; });
  if (FirstError)
    return failure();
  return Error::success();
}

void ChunkPipeline::work() {
  std::unique_lock<std::mutex> L(Mutex);
  while (true) {
    NotEmpty.wait(L, [&] { return Stopping || !Queue.empty(); });
    if (Queue.empty())
      return; // Stopping, and nothing left to do.
    ChunkJob Job = std::move(Queue.front());
    Queue.pop_front();
    ++Running;
    L.unlock();
    NotFull.notify_one();

    Error E = Error::success();
    try {
      E = Sink(Job);
    } catch (const std::exception &X) {
      // A throwing sink (e.g. std::bad_alloc) must not take the process down.
      E = ioError("chunk " + Job.Array + " failed: " + X.what());
    }
    Job.Buffer.release();

    L.lock();
    --Running;
    if (E) {
      std::string Msg = toString(std::move(E));
      if (!FirstError) {
        FirstError = std::move(Msg);
        // Stop early: the store will not be finished anyway.
        Queue.clear();
        NotFull.notify_all();
      }
    }
    if (Queue.empty() && Running == 0)
      Idle.notify_all();
  }
}

} // namespace aimz::io
