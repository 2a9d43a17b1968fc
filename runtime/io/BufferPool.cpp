//===- BufferPool.cpp - Bounded pool of reusable chunk buffers ------------===//

#include "aimz/io/BufferPool.h"

#include "Errors.h"

using namespace llvm;

namespace aimz::io {

PooledBuffer &PooledBuffer::operator=(PooledBuffer &&O) noexcept {
  if (this != &O) {
    release();
    Pool = O.Pool;
    Buf = std::move(O.Buf);
    O.Pool = nullptr;
  }
  return *this;
}

void PooledBuffer::release() {
  if (Pool)
    Pool->giveBack(std::move(Buf));
  Pool = nullptr;
}

BufferPool::BufferPool(size_t BufferBytes, size_t MaxBuffers)
    : BufferBytes(BufferBytes), MaxBuffers(MaxBuffers ? MaxBuffers : 1) {
  // giveBack() must not allocate (it runs in destructors).
  Free.reserve(this->MaxBuffers);
}

Expected<PooledBuffer> BufferPool::acquire() {
  std::unique_lock<std::mutex> L(Mutex);
  Returned.wait(L, [&] { return !Free.empty() || Allocated < MaxBuffers; });
  if (!Free.empty()) {
    PageBuffer B = std::move(Free.back());
    Free.pop_back();
    return PooledBuffer(this, std::move(B));
  }
  ++Allocated;
  L.unlock();
  // Allocate outside the lock: mapping large buffers can take a while.
  Expected<PageBuffer> B = PageBuffer::allocate(BufferBytes);
  if (!B) {
    std::lock_guard<std::mutex> G(Mutex);
    --Allocated;
    Returned.notify_one();
    return B.takeError();
  }
  return PooledBuffer(this, std::move(*B));
}

void BufferPool::giveBack(PageBuffer Buf) {
  {
    std::lock_guard<std::mutex> L(Mutex);
    Free.push_back(std::move(Buf));
  }
  Returned.notify_one();
}

size_t BufferPool::allocated() const {
  std::lock_guard<std::mutex> L(Mutex);
  return Allocated;
}

size_t BufferPool::inUse() const {
  std::lock_guard<std::mutex> L(Mutex);
  return Allocated - Free.size();
}

} // namespace aimz::io
