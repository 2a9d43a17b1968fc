//===- PageBuffer.cpp - Large page-backed byte buffers --------------------===//

#include "aimz/io/PageBuffer.h"

#include "Errors.h"

#include <cstdlib>
#include <new>
#include <sys/mman.h>

using namespace llvm;

namespace aimz::io {

Expected<PageBuffer> PageBuffer::allocate(size_t Bytes) {
  PageBuffer B;
  if (Bytes == 0)
    return B;
  if (Bytes >= HugeThreshold) {
    // Round up to whole huge pages so the tail can be a huge page too.
    size_t Len = (Bytes + HugeThreshold - 1) / HugeThreshold * HugeThreshold;
    void *M = ::mmap(nullptr, Len, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (M == MAP_FAILED)
      return errnoError("cannot allocate a " + Twine(Bytes) + "-byte buffer",
                        "anonymous memory", errno);
    // Only a hint: without THP support the buffer still works.
    (void)::madvise(M, Len, MADV_HUGEPAGE);
    B.Data = static_cast<uint8_t *>(M);
    B.Mapped = Len;
  } else {
    B.Data = static_cast<uint8_t *>(std::malloc(Bytes));
    if (!B.Data)
      return ioError("out of memory allocating a " + Twine(Bytes) +
                     "-byte buffer");
  }
  B.Size = Bytes;
  return B;
}

PageBuffer &PageBuffer::operator=(PageBuffer &&O) noexcept {
  if (this != &O) {
    release();
    Data = O.Data;
    Size = O.Size;
    Mapped = O.Mapped;
    O.Data = nullptr;
    O.Size = O.Mapped = 0;
  }
  return *this;
}

Error PageBuffer::reserve(size_t Bytes) {
  if (Bytes <= Size)
    return Error::success();
  Expected<PageBuffer> B = allocate(Bytes);
  if (!B)
    return B.takeError();
  *this = std::move(*B);
  return Error::success();
}

void PageBuffer::release() {
  if (Mapped)
    ::munmap(Data, Mapped);
  else
    std::free(Data);
  Data = nullptr;
  Size = Mapped = 0;
}

} // namespace aimz::io
