//===- RegularFile.cpp - Refuse FIFOs, devices and directories ------------===//
#include "aimz/io/RegularFile.h"
#include "Errors.h"

#include <sys/stat.h>

namespace aimz::io {

const char *fileKindName(mode_t Mode) {
  return S_ISFIFO(Mode)   ? "a FIFO"
         : S_ISDIR(Mode)  ? "a directory"
         : S_ISCHR(Mode)  ? "a character device"
         : S_ISBLK(Mode)  ? "a block device"
         : S_ISSOCK(Mode) ? "a socket"
                          : "a special file";
}

llvm::Error requireRegularFile(llvm::StringRef Path, llvm::StringRef What,
                               llvm::StringRef Advice) {
  struct stat St;
  if (::stat(Path.str().c_str(), &St) != 0 || S_ISREG(St.st_mode))
    return llvm::Error::success();
  return ioError(What + " '" + Path + "' is not a regular file (" +
                 fileKindName(St.st_mode) + "); " + Advice);
}

} // namespace aimz::io
