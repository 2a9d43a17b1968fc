//===- ModelLibrary.cpp - A compiled model loaded with dlopen -------------===//
#include "aimz/run/ModelLibrary.h"

#include "llvm/Support/FileSystem.h"

#include <dlfcn.h>

namespace aimz::run {

static llvm::Error fail(const std::string &Path, const llvm::Twine &Why) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 "cannot load model '" + Path + "': " + Why);
}

llvm::Expected<std::unique_ptr<ModelLibrary>>
ModelLibrary::open(const std::string &Path) {
  if (!llvm::sys::fs::exists(Path))
    return fail(Path, "no such file");
  if (llvm::sys::fs::is_directory(Path))
    return fail(Path, "it is a directory");
  // dlopen searches the library path for names without a slash.
  std::string Name = Path.find('/') == std::string::npos ? "./" + Path : Path;
  std::unique_ptr<ModelLibrary> L(new ModelLibrary());
  L->Path = Path;
  L->Handle = dlopen(Name.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!L->Handle) {
    const char *Why = dlerror();
    return fail(Path, llvm::Twine("not a loadable shared library (") +
                          (Why ? Why : "unknown reason") +
                          "); compile the model with 'aimzc model.aimz -o "
                          "model.so'");
  }
  auto *Version =
      static_cast<const int64_t *>(dlsym(L->Handle, "aimz_abi_version"));
  auto *ManifestText =
      static_cast<const char *>(dlsym(L->Handle, "aimz_manifest"));
  if (!Version || !ManifestText)
    return fail(Path, "a shared library, but not a compiled aimz model");
  L->ManifestText = ManifestText;
  if (*Version != AIMZ_ABI_VERSION)
    return fail(Path, "built for model ABI version " + llvm::Twine(*Version) +
                          ", this aimz-run speaks version " +
                          llvm::Twine(AIMZ_ABI_VERSION) +
                          "; recompile it with this release's aimzc");
  const char *Names[] = {"aimz_predict", "aimz_log_likelihood",
                         "aimz_prior_predictive"};
  for (int I = 0; I < 3; ++I) {
    L->Entries[I] = reinterpret_cast<EntryFn>(dlsym(L->Handle, Names[I]));
    if (!L->Entries[I])
      return fail(Path, llvm::Twine("the entry point ") + Names[I] +
                            " is missing");
  }
  if (auto *P = static_cast<const char *>(dlsym(L->Handle, "aimz_ptx")))
    L->PTX = P;
  if (auto *P = static_cast<const char *>(dlsym(L->Handle, "aimz_ptx_sm90")))
    L->PTX90 = P;
  auto M = Manifest::parse(ManifestText);
  if (!M)
    return fail(Path, llvm::toString(M.takeError()));
  L->Info = std::move(*M);
  return std::move(L);
}

ModelLibrary::~ModelLibrary() {
  if (Handle)
    dlclose(Handle);
}

EntryFn ModelLibrary::entry(EntryKind K) const {
  return Entries[static_cast<int>(K)];
}

} // namespace aimz::run
