//===- RegularFile.h - Refuse FIFOs, devices and directories ----*- C++ -*-===//
//
// Every file a run reads whole (a posterior, a run record, a model library)
// must be a regular file: a FIFO would block the read forever, /dev/zero
// would fill memory, a directory has no bytes. Checked before any read.
//
//===----------------------------------------------------------------------===//
#ifndef AIMZ_IO_REGULARFILE_H
#define AIMZ_IO_REGULARFILE_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <sys/types.h>

namespace aimz::io {

/// "a FIFO", "a directory", ...: what a non-regular st_mode is.
const char *fileKindName(mode_t Mode);

/// Success when Path (links followed) is a regular file; otherwise an error
/// "<What> '<Path>' is not a regular file (a FIFO); <Advice>". A missing
/// file is left to the caller's own open, which names it.
llvm::Error requireRegularFile(llvm::StringRef Path, llvm::StringRef What,
                               llvm::StringRef Advice);

} // namespace aimz::io

#endif // AIMZ_IO_REGULARFILE_H
