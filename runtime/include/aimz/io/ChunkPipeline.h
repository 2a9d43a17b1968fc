//===- ChunkPipeline.h - Bounded compress-and-write thread pool -*- C++ -*-===//
//
// Producers (the model kernels) fill chunk buffers and submit them; worker
// threads compress and write them (a WorkQueue). Both the queue and the
// buffer pool are bounded, so a producer that outpaces the disk blocks
// rather than growing memory. The first failure is kept: queued work is
// dropped (returning its buffers), later submits and acquires fail fast,
// and drain() reports it.
//
//===----------------------------------------------------------------------===//

#ifndef AIMZ_IO_CHUNKPIPELINE_H
#define AIMZ_IO_CHUNKPIPELINE_H

#include "aimz/io/BufferPool.h"
#include "aimz/io/WorkQueue.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace aimz::io {

class ZarrWriter;

/// One unit of work: Bytes valid bytes of Buffer make chunk Coords of Array.
struct ChunkJob {
  std::string Array;
  std::vector<uint64_t> Coords;
  PooledBuffer Buffer;
  size_t Bytes = 0;
};

/// Consumes a job (compresses and writes it). Called from worker threads,
/// concurrently for different jobs.
using ChunkSink = std::function<llvm::Error(const ChunkJob &)>;

struct PipelineOptions {
  /// Worker threads; 0 means one per hardware thread.
  unsigned Threads = 0;
  /// Jobs that may wait in the queue; 0 means 2 per worker.
  size_t QueueDepth = 0;
  /// Size of each pooled buffer (the largest chunk, in bytes).
  size_t BufferBytes = 0;
  /// Pooled buffers; 0 means QueueDepth + Threads + 1, enough to keep every
  /// worker busy with one chunk being filled.
  size_t MaxBuffers = 0;
};

class ChunkPipeline {
public:
  static llvm::Expected<std::unique_ptr<ChunkPipeline>>
  create(ChunkSink Sink, PipelineOptions Options);
  /// A pipeline whose sink is Writer.writeChunk; Writer must outlive it.
  static llvm::Expected<std::unique_ptr<ChunkPipeline>>
  forWriter(ZarrWriter &Writer, PipelineOptions Options);

  ChunkPipeline(const ChunkPipeline &) = delete;
  ChunkPipeline &operator=(const ChunkPipeline &) = delete;
  /// Finishes queued work and joins the workers. Call drain() first to
  /// learn about errors; the destructor discards them.
  ~ChunkPipeline();

  /// A buffer to fill; blocks while all buffers are in use.
  llvm::Expected<PooledBuffer> acquireBuffer();

  /// Queues a filled buffer; blocks while the queue is full. Fails at once,
  /// dropping the buffer, if an earlier job failed.
  llvm::Error submit(llvm::StringRef Array, llvm::ArrayRef<uint64_t> Coords,
                     PooledBuffer Buffer, size_t Bytes);

  /// Waits until every submitted job is done; returns the first error, if
  /// any (every call reports it again). The pipeline stays usable if none.
  llvm::Error drain();

  unsigned threads() const { return Jobs.threads(); }
  size_t queueDepth() const { return QueueDepth; }
  BufferPool &pool() { return Pool; }

private:
  ChunkPipeline(size_t QueueDepth, size_t BufferBytes, size_t MaxBuffers);

  size_t QueueDepth;
  // Declared before Jobs: the queue's jobs hold pooled buffers, so the
  // pool must outlive it.
  BufferPool Pool;
  WorkQueue<ChunkJob> Jobs;
};

} // namespace aimz::io

#endif // AIMZ_IO_CHUNKPIPELINE_H
