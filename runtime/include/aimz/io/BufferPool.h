//===- BufferPool.h - Bounded pool of reusable chunk buffers ----*- C++ -*-===//
//
// Chunk buffers are allocated on first use, at most MaxBuffers of them, and
// then recycled forever: memory stays flat however long the run, fresh pages
// are faulted in only once, and a producer that gets ahead of the writers
// blocks in acquire() instead of growing the heap.
//
//===----------------------------------------------------------------------===//

#ifndef AIMZ_IO_BUFFERPOOL_H
#define AIMZ_IO_BUFFERPOOL_H

#include "aimz/io/PageBuffer.h"

#include "llvm/Support/Error.h"

#include <condition_variable>
#include <cstddef>
#include <mutex>
#include <vector>

namespace aimz::io {

class BufferPool;

/// A buffer on loan from a BufferPool; returns itself when destroyed.
class PooledBuffer {
public:
  PooledBuffer() = default;
  PooledBuffer(PooledBuffer &&O) noexcept
      : Pool(O.Pool), Buf(std::move(O.Buf)) {
    O.Pool = nullptr;
  }
  PooledBuffer &operator=(PooledBuffer &&O) noexcept;
  ~PooledBuffer() { release(); }

  uint8_t *data() { return Buf.data(); }
  const uint8_t *data() const { return Buf.data(); }
  /// The pool's buffer size.
  size_t size() const { return Buf.size(); }
  explicit operator bool() const { return Pool != nullptr; }

  /// Returns the buffer to its pool early.
  void release();

private:
  friend class BufferPool;
  PooledBuffer(BufferPool *Pool, PageBuffer Buf)
      : Pool(Pool), Buf(std::move(Buf)) {}

  BufferPool *Pool = nullptr;
  PageBuffer Buf;
};

class BufferPool {
public:
  /// The pool must outlive every buffer it lends.
  BufferPool(size_t BufferBytes, size_t MaxBuffers);
  BufferPool(const BufferPool &) = delete;
  BufferPool &operator=(const BufferPool &) = delete;

  /// Lends a buffer, allocating one if fewer than MaxBuffers exist, else
  /// blocking until one is returned. Fails only if allocation fails.
  llvm::Expected<PooledBuffer> acquire();

  size_t bufferBytes() const { return BufferBytes; }
  size_t maxBuffers() const { return MaxBuffers; }
  /// Buffers allocated so far (never decreases).
  size_t allocated() const;
  /// Buffers currently on loan.
  size_t inUse() const;

private:
  friend class PooledBuffer;
  void giveBack(PageBuffer Buf);

  size_t BufferBytes;
  size_t MaxBuffers;
  mutable std::mutex Mutex;
  std::condition_variable Returned;
  std::vector<PageBuffer> Free;
  size_t Allocated = 0;
};

} // namespace aimz::io

#endif // AIMZ_IO_BUFFERPOOL_H
