//===- ModelLibrary.cpp - A compiled model loaded with dlopen -------------===//
#include "aimz/run/ModelLibrary.h"

#include "aimz/io/RegularFile.h"
#include "aimz/AbiSymbols.h"

#include "llvm/Support/FileSystem.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <dlfcn.h>
#include <elf.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

namespace aimz::run {

static llvm::Error fail(const std::string &Path, const llvm::Twine &Why) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 "cannot load model '" + Path + "': " + Why);
}

/// Whether the ELF file at Path holds every byte its headers point at.
/// dlopen maps segments past the end of a cut-short file, and the first
/// touch of them is a SIGBUS that kills the process (and a Python
/// interpreter with it): a truncated model.so must be an error instead.
static llvm::Error checkElfExtents(const std::string &Path) {
  int FD = ::open(Path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (FD < 0)
    return fail(Path, std::strerror(errno));
  struct stat St;
  Elf64_Ehdr H;
  bool Read = ::fstat(FD, &St) == 0 && S_ISREG(St.st_mode) &&
              ::pread(FD, &H, sizeof H, 0) == static_cast<ssize_t>(sizeof H);
  auto Size = static_cast<uint64_t>(St.st_size);
  std::vector<Elf64_Phdr> Segments;
  if (Read && std::memcmp(H.e_ident, ELFMAG, SELFMAG) == 0 &&
      H.e_ident[EI_CLASS] == ELFCLASS64 && H.e_phentsize == sizeof(Elf64_Phdr) &&
      H.e_phoff <= Size && H.e_phnum * uint64_t(sizeof(Elf64_Phdr)) <= Size - H.e_phoff) {
    Segments.resize(H.e_phnum);
    Read = ::pread(FD, Segments.data(), H.e_phnum * sizeof(Elf64_Phdr),
                   static_cast<off_t>(H.e_phoff)) ==
           static_cast<ssize_t>(H.e_phnum * sizeof(Elf64_Phdr));
  } else if (Read) {
    Read = false;
  }
  ::close(FD);
  if (!S_ISREG(St.st_mode))
    return fail(Path, llvm::Twine("it is ") + io::fileKindName(St.st_mode) +
                          ", not a compiled model file");
  if (!Read)
    return fail(Path, "not a loadable shared library (not a 64-bit ELF "
                      "file); compile the model with 'aimzc model.aimz -o "
                      "model.so'");
  uint64_t Needed = H.e_shoff + uint64_t(H.e_shnum) * H.e_shentsize;
  for (const Elf64_Phdr &P : Segments)
    Needed = std::max<uint64_t>(Needed, P.p_offset + P.p_filesz);
  if (Needed > Size)
    return fail(Path, "the file is cut short (" + llvm::Twine(Size) +
                          " bytes; its headers need " + llvm::Twine(Needed) +
                          "): a copy or a write that stopped; compile or "
                          "copy it again");
  return llvm::Error::success();
}

llvm::Expected<std::unique_ptr<ModelLibrary>>
ModelLibrary::open(const std::string &Path) {
  if (!llvm::sys::fs::exists(Path))
    return fail(Path, "no such file");
  if (llvm::sys::fs::is_directory(Path))
    return fail(Path, "it is a directory");
  if (llvm::Error E = checkElfExtents(Path))
    return std::move(E);
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
      static_cast<const int64_t *>(dlsym(L->Handle, abi::name(abi::DataSymbol::AbiVersion)));
  auto *ManifestText =
      static_cast<const char *>(dlsym(L->Handle, abi::name(abi::DataSymbol::Manifest)));
  if (!Version || !ManifestText)
    return fail(Path, "a shared library, but not a compiled aimz model");
  L->ManifestText = ManifestText;
  if (*Version != AIMZ_ABI_VERSION)
    return fail(Path, "built for model ABI version " + llvm::Twine(*Version) +
                          ", this aimz-run speaks version " +
                          llvm::Twine(AIMZ_ABI_VERSION) +
                          "; recompile it with this release's aimzc");
  const auto &Names = abi::EntryPointNames;
  for (int I = 0; I < abi::NumEntryPoints; ++I) {
    L->Entries[I] = reinterpret_cast<EntryFn>(dlsym(L->Handle, Names[I]));
    if (!L->Entries[I])
      return fail(Path, llvm::Twine("the entry point ") + Names[I] +
                            " is missing");
  }
  if (auto *P = static_cast<const char *>(dlsym(L->Handle, abi::name(abi::DataSymbol::PtxSm80))))
    L->PTX = P;
  if (auto *P = static_cast<const char *>(dlsym(L->Handle, abi::name(abi::DataSymbol::PtxSm90))))
    L->PTX90 = P;
  auto M = Manifest::parse(ManifestText);
  if (!M)
    return fail(Path, llvm::toString(M.takeError()));
  L->Info = std::move(*M);
  if (llvm::any_of(L->Info.DerivedInputs,
                   [](const Manifest::DerivedInput &D) {
                     return D.ArgumentSlot >= 0;
                   })) {
    L->Info.Prepass =
        reinterpret_cast<EntryFn>(dlsym(L->Handle, abi::PrepassEntry));
    if (!L->Info.Prepass)
      return fail(Path, llvm::Twine("the entry point ") + abi::PrepassEntry +
                            " is missing (its transformed data needs it)");
  }
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
