//===- StoreTree.cpp - Check and remove Zarr stores without following links ===//

#include "StoreTree.h"

#include "Errors.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Path.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <vector>

using namespace llvm;

namespace aimz::io {
namespace {

constexpr int MaxDepth = 64;

/// Metadata files, chunk keys ("0", "3.1.0", v3's "c/0/1" components, "c"
/// alone for a scalar), a partial store's run record and this library's
/// temporaries ("<name>.<random>.tmp").
bool isStoreFile(StringRef Name) {
  if (Name == ".zgroup" || Name == ".zattrs" || Name == ".zarray" ||
      Name == ".zmetadata" || Name == "zarr.json" || Name == "c" ||
      Name == ".aimz-run.json")
    return true;
  if (Name.ends_with(".tmp"))
    return true;
  return !Name.empty() && isdigit(static_cast<unsigned char>(Name[0])) &&
         Name.find_first_not_of("0123456789.") == StringRef::npos;
}

int openDir(int At, const char *Name) {
  return ::openat(At, Name,
                  O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
}

struct Entry {
  std::string Name;
  bool Dir;
};

/// The entries of an open directory, each checked; Dir is not closed.
Expected<std::vector<Entry>> listChecked(int Dir, const std::string &Label) {
  int Copy = ::dup(Dir);
  if (Copy < 0)
    return errnoError("cannot read", Label, errno);
  DIR *D = ::fdopendir(Copy);
  if (!D) {
    int E = errno;
    ::close(Copy);
    return errnoError("cannot read", Label, E);
  }
  ::rewinddir(D);
  std::vector<Entry> Out;
  Error Err = Error::success();
  while (struct dirent *De = ::readdir(D)) {
    StringRef Name = De->d_name;
    if (Name == "." || Name == "..")
      continue;
    std::string Path = Label + "/" + Name.str();
    struct stat St;
    if (::fstatat(Dir, De->d_name, &St, AT_SYMLINK_NOFOLLOW) != 0) {
      Err = errnoError("cannot inspect", Path, errno);
      break;
    }
    if (S_ISDIR(St.st_mode)) {
      Out.push_back({Name.str(), true});
    } else if (S_ISREG(St.st_mode) && isStoreFile(Name)) {
      Out.push_back({Name.str(), false});
    } else {
      Err = ioError("'" + Path + "' is " +
                    (S_ISLNK(St.st_mode)   ? "a symbolic link, which"
                     : S_ISREG(St.st_mode) ? "a file that"
                                           : "a special file, which") +
                    " a Zarr store written by aimz-run does not contain; "
                    "aimz-run removes or replaces only its own stores: "
                    "move it away or choose another --out");
      break;
    }
  }
  ::closedir(D);
  if (Err)
    return std::move(Err);
  return Out;
}

enum class WalkMode { Check, RemoveAll, RemoveTemporaries };

/// Checks (and removes, by Mode) the contents of Dir.
Error walk(int Dir, const std::string &Label, WalkMode Mode, int Depth) {
  if (Depth > MaxDepth)
    return ioError("'" + Label + "' is nested deeper than a Zarr store is");
  Expected<std::vector<Entry>> Entries = listChecked(Dir, Label);
  if (!Entries)
    return Entries.takeError();
  for (const Entry &E : *Entries) {
    std::string Path = Label + "/" + E.Name;
    if (E.Dir) {
      int Sub = openDir(Dir, E.Name.c_str());
      if (Sub < 0)
        return errnoError("cannot open", Path, errno);
      Error Inner = walk(Sub, Path, Mode, Depth + 1);
      ::close(Sub);
      if (Inner)
        return Inner;
    }
    bool Remove = Mode == WalkMode::RemoveAll ||
                  (Mode == WalkMode::RemoveTemporaries && !E.Dir &&
                   StringRef(E.Name).ends_with(".tmp"));
    if (Remove &&
        ::unlinkat(Dir, E.Name.c_str(), E.Dir ? AT_REMOVEDIR : 0) != 0)
      return errnoError("cannot remove", Path, errno);
  }
  return Error::success();
}

/// Opens the top of a tree; a link or a non-directory there is refused.
Expected<int> openTop(const std::string &Path) {
  int FD = openDir(AT_FDCWD, Path.c_str());
  if (FD >= 0)
    return FD;
  int E = errno;
  struct stat St;
  if (::lstat(Path.c_str(), &St) == 0 && S_ISLNK(St.st_mode))
    return ioError("'" + Path +
                   "' is a symbolic link, not a store written by aimz-run; "
                   "it is left alone: remove it or choose another --out");
  if (E == ENOTDIR)
    return ioError("'" + Path +
                   "' is not a directory, so not a Zarr store written by "
                   "aimz-run; remove it or choose another --out");
  return errnoError("cannot open", Path, E);
}

Error walkTop(const std::string &Path, WalkMode Mode) {
  Expected<int> FD = openTop(Path);
  if (!FD)
    return FD.takeError();
  Error E = walk(*FD, Path, Mode, 0);
  ::close(*FD);
  return E;
}

Error fsyncPath(int At, const char *Name, const std::string &Label) {
  int FD = ::openat(At, Name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (FD < 0)
    return errnoError("cannot open", Label, errno);
  int Rc = ::fsync(FD);
  int E = errno;
  ::close(FD);
  if (Rc != 0)
    return errnoError("cannot sync", Label, E);
  return Error::success();
}

Error syncWalk(int Dir, const std::string &Label, int Depth) {
  Expected<std::vector<Entry>> Entries = listChecked(Dir, Label);
  if (!Entries)
    return Entries.takeError();
  for (const Entry &E : *Entries) {
    if (!E.Dir || Depth > MaxDepth)
      continue;
    std::string Path = Label + "/" + E.Name;
    int Sub = openDir(Dir, E.Name.c_str());
    if (Sub < 0)
      return errnoError("cannot open", Path, errno);
    Error Inner = syncWalk(Sub, Path, Depth + 1);
    ::close(Sub);
    if (Inner)
      return Inner;
  }
  if (::fsync(Dir) != 0)
    return errnoError("cannot sync", Label, errno);
  return Error::success();
}

} // namespace

Error checkStoreTree(const std::string &Path) {
  return walkTop(Path, WalkMode::Check);
}

Error removeStoreTemporaries(const std::string &Path) {
  if (Error E = walkTop(Path, WalkMode::Check))
    return E;
  return walkTop(Path, WalkMode::RemoveTemporaries);
}

Error removeStoreTree(const std::string &Path) {
  struct stat St;
  if (::lstat(Path.c_str(), &St) != 0 && errno == ENOENT)
    return Error::success();
  if (Error E = walkTop(Path, WalkMode::Check))
    return E;
  if (Error E = walkTop(Path, WalkMode::RemoveAll))
    return E;
  if (::rmdir(Path.c_str()) != 0)
    return errnoError("cannot remove", Path, errno);
  return Error::success();
}

Error syncStoreDirectories(const std::string &Path) {
  Expected<int> FD = openTop(Path);
  if (!FD)
    return FD.takeError();
  Error E = syncWalk(*FD, Path, 0);
  ::close(*FD);
  return E;
}

Error syncParentDirectory(const std::string &Path) {
  std::string Parent = sys::path::parent_path(Path).str();
  if (Parent.empty())
    Parent = ".";
  return fsyncPath(AT_FDCWD, Parent.c_str(), Parent);
}

} // namespace aimz::io
