//===- RunError.h - The runtime library's error helper ----------*- C++ -*-===//
//
// Private to runtime/lib: every failure leaves the runtime as an
// llvm::Error whose message says what was wrong and what to do, printed
// verbatim by aimz-run and raised by the Python module.
//
//===----------------------------------------------------------------------===//
#ifndef AIMZ_RUN_LIB_RUNERROR_H
#define AIMZ_RUN_LIB_RUNERROR_H

#include "llvm/ADT/Twine.h"
#include "llvm/Support/Error.h"

namespace aimz::run {

inline llvm::Error error(const llvm::Twine &Msg) {
  return llvm::make_error<llvm::StringError>(Msg,
                                             llvm::inconvertibleErrorCode());
}

} // namespace aimz::run

#endif // AIMZ_RUN_LIB_RUNERROR_H
