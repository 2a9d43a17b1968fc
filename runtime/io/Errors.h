//===- Errors.h - Error helpers private to the I/O library ------*- C++ -*-===//
//
// Every failure leaves the library as an llvm::Error whose message names the
// file or array involved, so callers can print it verbatim.
//
//===----------------------------------------------------------------------===//

#ifndef AIMZ_IO_LIB_ERRORS_H
#define AIMZ_IO_LIB_ERRORS_H

#include "llvm/ADT/Twine.h"
#include "llvm/Support/Error.h"

#include <cerrno>
#include <cstring>
#include <system_error>

namespace aimz::io {

inline llvm::Error ioError(const llvm::Twine &Msg) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), Msg);
}

/// "<What> '<Path>': <strerror(Errno)>", keeping the errno as error code so
/// callers can still test for, e.g., ENOENT.
inline llvm::Error errnoError(const llvm::Twine &What, const llvm::Twine &Path,
                              int Errno) {
  return llvm::createStringError(
      std::error_code(Errno, std::generic_category()),
      What + " '" + Path + "': " + std::strerror(Errno));
}

} // namespace aimz::io

#endif // AIMZ_IO_LIB_ERRORS_H
