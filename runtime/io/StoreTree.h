//===- StoreTree.h - Check and remove Zarr stores without following links -===//
//
// Removing a store must never delete what the run did not write: a user's
// file placed inside it, or whatever a symbolic link points to. These walk
// the tree through directory descriptors (openat with O_NOFOLLOW, unlinkat),
// so a link is never followed, and accept only entries a Zarr store holds:
// metadata files, chunk keys, this library's temporaries, and directories of
// those.
//
//===----------------------------------------------------------------------===//

#ifndef AIMZ_IO_LIB_STORETREE_H
#define AIMZ_IO_LIB_STORETREE_H

#include "llvm/Support/Error.h"

#include <string>

namespace aimz::io {

/// Fails, naming the first offending entry, unless the directory at Path
/// holds only store entries (no links, devices, FIFOs or foreign files).
llvm::Error checkStoreTree(const std::string &Path);

/// Checks as above, then removes the whole tree; nothing is removed when
/// the check fails. A missing Path is not an error.
llvm::Error removeStoreTree(const std::string &Path);

/// Checks as above, then removes the temporaries ("<name>.<random>.tmp")
/// that writers killed mid-write left in the tree.
llvm::Error removeStoreTemporaries(const std::string &Path);

/// fsyncs every directory of the tree (after its files were synced), so
/// that a power loss cannot drop entries of a published store.
llvm::Error syncStoreDirectories(const std::string &Path);

/// fsyncs the directory holding Path, making a rename there durable.
llvm::Error syncParentDirectory(const std::string &Path);

} // namespace aimz::io

#endif // AIMZ_IO_LIB_STORETREE_H
