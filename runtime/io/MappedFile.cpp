//===- MappedFile.cpp - Read-only memory map of a whole file --------------===//

#include "aimz/io/MappedFile.h"

#include "Errors.h"
#include "aimz/io/RegularFile.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace llvm;

namespace aimz::io {

Expected<std::shared_ptr<const MappedFile>> MappedFile::open(StringRef Path) {
  std::string P = Path.str();
  // Non-blocking, so that a FIFO is refused below instead of waiting for a
  // writer forever.
  int FD = ::open(P.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (FD < 0)
    return errnoError("cannot open", P, errno);
  struct stat St;
  if (::fstat(FD, &St) != 0) {
    int E = errno;
    ::close(FD);
    return errnoError("cannot stat", P, E);
  }
  if (!S_ISREG(St.st_mode)) {
    ::close(FD);
    return ioError("'" + P + "' is not a regular file (" +
                   fileKindName(St.st_mode) +
                   "); inputs are memory-mapped, so save the data to a file");
  }
  uint64_t Size = static_cast<uint64_t>(St.st_size);
  const uint8_t *Data = nullptr;
  // mmap rejects zero-length mappings; an empty file is simply no bytes.
  if (Size != 0) {
    void *M = ::mmap(nullptr, Size, PROT_READ, MAP_PRIVATE, FD, 0);
    if (M == MAP_FAILED) {
      int E = errno;
      ::close(FD);
      return errnoError("cannot memory-map", P, E);
    }
    Data = static_cast<const uint8_t *>(M);
  }
  // The mapping keeps the file alive; the descriptor is no longer needed.
  ::close(FD);
  return std::shared_ptr<const MappedFile>(new MappedFile(P, Data, Size));
}

MappedFile::~MappedFile() {
  if (Data)
    ::munmap(const_cast<uint8_t *>(Data), Size);
}

Error MappedFile::advise(Access A, uint64_t Offset, uint64_t Length) const {
  if (!Data || Offset >= Size)
    return Error::success();
  Length = std::min(Length, Size - Offset);
  // madvise wants a page-aligned start; widen the range down to the page.
  uint64_t Page = static_cast<uint64_t>(::sysconf(_SC_PAGESIZE));
  uint64_t Start = Offset - Offset % Page;
  Length += Offset - Start;
  int Advice = MADV_NORMAL;
  switch (A) {
  case Access::Normal:
    Advice = MADV_NORMAL;
    break;
  case Access::Sequential:
    Advice = MADV_SEQUENTIAL;
    break;
  case Access::Random:
    Advice = MADV_RANDOM;
    break;
  case Access::WillNeed:
    Advice = MADV_WILLNEED;
    break;
  case Access::DontNeed:
    Advice = MADV_DONTNEED;
    break;
  }
  if (::madvise(const_cast<uint8_t *>(Data) + Start, Length, Advice) != 0)
    return errnoError("madvise failed on", Path, errno);
  return Error::success();
}

} // namespace aimz::io
