//===- PageBuffer.h - Large page-backed byte buffers ------------*- C++ -*-===//
//
// Chunk buffers are megabytes each and are filled once per chunk. Faulting in
// fresh 4 KiB pages costs ~12 us apiece on our hosts, so large buffers are
// mapped with a transparent-huge-page hint and are meant to be allocated once
// and reused (see BufferPool), never per chunk.
//
//===----------------------------------------------------------------------===//

#ifndef AIMZ_IO_PAGEBUFFER_H
#define AIMZ_IO_PAGEBUFFER_H

#include "llvm/Support/Error.h"

#include <cstddef>
#include <cstdint>

namespace aimz::io {

class PageBuffer {
public:
  /// Buffers at least this large are mmap'ed with MADV_HUGEPAGE.
  static constexpr size_t HugeThreshold = size_t(2) << 20;

  PageBuffer() = default;
  /// Allocates Bytes bytes (contents unspecified). Fails, rather than
  /// throwing, when memory is exhausted.
  static llvm::Expected<PageBuffer> allocate(size_t Bytes);

  PageBuffer(PageBuffer &&O) noexcept { *this = std::move(O); }
  PageBuffer &operator=(PageBuffer &&O) noexcept;
  PageBuffer(const PageBuffer &) = delete;
  PageBuffer &operator=(const PageBuffer &) = delete;
  ~PageBuffer() { release(); }

  uint8_t *data() { return Data; }
  const uint8_t *data() const { return Data; }
  size_t size() const { return Size; }

  /// Grows to at least Bytes, keeping nothing; a no-op when already large
  /// enough, so scratch buffers settle at their high-water mark.
  llvm::Error reserve(size_t Bytes);

private:
  void release();

  uint8_t *Data = nullptr;
  size_t Size = 0;
  size_t Mapped = 0; ///< Length of the mmap, or 0 for heap memory.
};

} // namespace aimz::io

#endif // AIMZ_IO_PAGEBUFFER_H
