//===- ModelLibrary.h - A compiled model loaded with dlopen -----*- C++ -*-===//
#ifndef AIMZ_RUN_MODELLIBRARY_H
#define AIMZ_RUN_MODELLIBRARY_H

#include "aimz/abi.h"
#include "aimz/run/Manifest.h"

#include "llvm/Support/Error.h"

#include <memory>
#include <string>

namespace aimz::run {

enum class EntryKind { Predict, LogLikelihood, PriorPredictive };

using EntryFn = int32_t (*)(aimz_call *);

class ModelLibrary {
public:
  /// Loads a model.so; fails with one clear line for a missing file, a file
  /// that is not a shared library, a library that is not an aimz model, or
  /// one built for another ABI version.
  static llvm::Expected<std::unique_ptr<ModelLibrary>>
  open(const std::string &Path);
  ~ModelLibrary();

  const Manifest &manifest() const { return Info; }
  /// The manifest as embedded (JSON).
  llvm::StringRef manifestText() const { return ManifestText; }
  EntryFn entry(EntryKind K) const;
  /// PTX for sm_80 and sm_90; empty when the model has none.
  llvm::StringRef ptx() const { return PTX; }
  llvm::StringRef ptxSm90() const { return PTX90; }
  const std::string &path() const { return Path; }

private:
  ModelLibrary() = default;
  void *Handle = nullptr;
  std::string Path;
  Manifest Info;
  EntryFn Entries[3] = {nullptr, nullptr, nullptr};
  llvm::StringRef PTX, PTX90;
  llvm::StringRef ManifestText;
};

} // namespace aimz::run

#endif // AIMZ_RUN_MODELLIBRARY_H
