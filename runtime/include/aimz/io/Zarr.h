//===- Zarr.h - Zarr v2/v3 directory-store writer ---------------*- C++ -*-===//
//
// Writes one Zarr group with any number of arrays, directly in it or in
// subgroups declared with addGroup ("group/array"). Everything goes into
// "<dir>.partial/" and finish() renames it to "<dir>": a run that fails, is
// killed, or never calls finish() leaves no "<dir>" that reads as complete,
// and an existing store at "<dir>" is replaced only at that moment.
//
// Layout (see docs/io.md):
//   v2: .zgroup .zattrs .zmetadata, <array>/.zarray, <array>/.zattrs
//       (with _ARRAY_DIMENSIONS for xarray), chunks <array>/0.1
//   v3: zarr.json, <array>/zarr.json (with dimension_names), chunks
//       <array>/c/0/1
//
//===----------------------------------------------------------------------===//

#ifndef AIMZ_IO_ZARR_H
#define AIMZ_IO_ZARR_H

#include "aimz/io/Codec.h"
#include "aimz/io/OutputLock.h"
#include "aimz/io/DType.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <nlohmann/json.hpp>

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <shared_mutex>
#include <string>
#include <vector>

namespace aimz::io {

class CommitQueue;

enum class ZarrFormat { V2, V3 };

struct ZarrArraySpec {
  std::string Name;
  DType Type = DType::Float32;
  std::vector<uint64_t> Shape;
  std::vector<uint64_t> Chunks;
  /// One name per dimension (xarray requires them).
  std::vector<std::string> DimNames;
  /// User attributes; must be a JSON object.
  nlohmann::json Attrs = nlohmann::json::object();
  /// Value of unwritten elements and of edge-chunk padding. Defaults to NaN
  /// for floating types and 0 (false) otherwise.
  std::optional<double> FillValue;
  /// Text (a coordinate's labels): each element is a string of TextWidth
  /// UTF-32 code points, zero-padded, as NumPy's `<U{TextWidth}` holds it
  /// and xarray writes it (v2 dtype "<U{TextWidth}", v3 zarr-python's
  /// "fixed_length_utf32"). Type must then be UInt32: a chunk's bytes are
  /// those of a UInt32 array with one more axis of TextWidth. 0: numbers.
  uint32_t TextWidth = 0;
};

/// Bytes of one element of the array (4 * TextWidth for text).
uint64_t elementBytes(const ZarrArraySpec &Spec);

/// Geometry of one chunk, for producers that fill chunk buffers.
struct ChunkGeometry {
  /// Extents of the in-bounds part; equal to the chunk shape except at the
  /// upper edges of the array.
  std::vector<uint64_t> Valid;
  uint64_t FullBytes = 0;  ///< Bytes of a whole (padded) chunk.
  uint64_t ValidBytes = 0; ///< Bytes of the in-bounds part, packed.
};

class ZarrWriter {
public:
  /// Starts a store that will appear at Dir on finish(). Takes the output
  /// lock ("<Dir>.lock"; another run holding it is an error naming its
  /// pid), then removes a stale "<Dir>.partial" from an interrupted run.
  /// Fails if Dir is a symbolic link, or exists and is not a Zarr store
  /// holding only what a store holds, so a typo cannot replace unrelated
  /// data. With Sync (the default), finish() makes every chunk and
  /// directory durable before publishing the store.
  static llvm::Expected<std::unique_ptr<ZarrWriter>>
  create(llvm::StringRef Dir, ZarrFormat Format, CodecOptions Codec = {},
         bool Sync = true);

  /// Continues the partial store "<Dir>.partial" of an interrupted run:
  /// chunks already there stay (see hasChunk). Refuses, naming what
  /// differs, unless Record equals the run record the interrupted run
  /// stored with setRunRecord.
  static llvm::Expected<std::unique_ptr<ZarrWriter>>
  resume(llvm::StringRef Dir, ZarrFormat Format, CodecOptions Codec,
         bool Sync, const nlohmann::json &Record);

  /// Joins the partial store that another process of the same run created
  /// (and holds the lock of), to write chunks into it: arrays and groups
  /// are declared as by the creator, whose metadata stands; hasChunk sees
  /// every process's chunks; only the creator finishes or removes it.
  static llvm::Expected<std::unique_ptr<ZarrWriter>>
  attach(llvm::StringRef Dir, ZarrFormat Format, CodecOptions Codec,
         bool Sync);

  ZarrWriter(const ZarrWriter &) = delete;
  ZarrWriter &operator=(const ZarrWriter &) = delete;
  /// Without a successful finish(), deletes "<Dir>.partial".
  ~ZarrWriter();

  /// Declares a subgroup ("name", or "outer/name" below a declared group)
  /// with its attributes; its metadata is written by finish().
  llvm::Error addGroup(llvm::StringRef Path,
                       const nlohmann::json &Attrs = nlohmann::json::object());

  /// Declares an array and writes its metadata. A name is one path
  /// component, or "group/name" in a group declared with addGroup. Not
  /// thread-safe with respect to writeChunk().
  llvm::Error addArray(const ZarrArraySpec &Spec);
  llvm::Error addArray(llvm::StringRef Name, DType Type,
                       llvm::ArrayRef<uint64_t> Shape,
                       llvm::ArrayRef<uint64_t> Chunks,
                       llvm::ArrayRef<std::string> DimNames,
                       const nlohmann::json &Attrs = nlohmann::json::object());

  /// Stores Record (a JSON object: whatever determines the store's bytes)
  /// in the partial store, durably, for a later resume(); finish() removes
  /// it.
  llvm::Error setRunRecord(const nlohmann::json &Record);

  /// Whether chunk Coords of Array is in the store: written by this writer,
  /// by another writer attached to the store, or by the interrupted run a
  /// resumed store continues (a chunk's file appears under its key only
  /// once complete). Such a chunk counts as written.
  bool hasChunk(llvm::StringRef Array, llvm::ArrayRef<uint64_t> Coords);

  /// A resumed store: decodes every chunk the interrupted run left (after
  /// addArray has declared them all) and removes those that do not decode to
  /// a whole chunk (a file cut short by a power loss under --no-sync, or
  /// damaged since), so that the run computes them again. Returns a note per
  /// array that had damaged chunks; the chunks that decode count as written.
  /// OnKept, when given, sees each kept chunk decoded (C order over the
  /// array's chunk shape), so that the run can account for its values.
  using KeptChunkFn = std::function<void(
      llvm::StringRef Array, llvm::ArrayRef<uint64_t> Coords, const void *)>;
  llvm::Expected<std::vector<std::string>>
  checkKeptChunks(const KeptChunkFn &OnKept = nullptr);

  /// Replaces the group's attributes (a JSON object); written by finish().
  llvm::Error setGroupAttrs(const nlohmann::json &Attrs);

  /// Shape facts about one chunk of an array.
  llvm::Expected<ChunkGeometry> chunkGeometry(llvm::StringRef Array,
                                              llvm::ArrayRef<uint64_t> Coords);

  /// Compresses and writes one chunk (via "<key>.tmp" and a rename). Data is
  /// C-order and either a whole chunk (FullBytes; padding contents are
  /// ignored) or just the in-bounds part (ValidBytes). Padding is always
  /// written as the fill value. Safe to call concurrently for different
  /// chunks.
  llvm::Error writeChunk(llvm::StringRef Array, llvm::ArrayRef<uint64_t> Coords,
                         const void *Data, size_t Bytes);

  /// With Sync: from now on writeChunk hands each written chunk to threads
  /// that sync and rename it in the background, so that the threads that
  /// compress never wait for the disk. A chunk then appears under its key,
  /// and counts in chunksWritten, once flushChunks() or finish() returns.
  /// Without Sync, nothing changes.
  llvm::Error commitInBackground();

  /// Waits until every chunk written so far is under its key (durable, with
  /// Sync); the first error of a background commit, if one failed.
  llvm::Error flushChunks();

  /// Distinct chunks written so far to an array (0 for unknown arrays).
  uint64_t chunksWritten(llvm::StringRef Array) const;

  /// Writes group metadata and atomically moves the store to its final
  /// path, replacing an existing store there. In v2 stores, integer and bool
  /// arrays without a fill value get their unwritten chunks written as
  /// zeros first, since readers would otherwise return garbage for them.
  llvm::Error finish();

  /// Deletes everything written so far. The writer is unusable afterwards.
  void abandon();

  /// Stops writing and leaves the partial store for resume(); releases the
  /// lock. The writer is unusable afterwards.
  void suspend();

  const std::string &path() const { return Dir; }
  const std::string &partialPath() const { return Partial; }
  ZarrFormat format() const { return Format; }
  const CodecOptions &codec() const { return Codec; }

private:
  struct Array {
    ZarrArraySpec Spec;
    nlohmann::json Meta;        ///< .zarray or zarr.json.
    nlohmann::json Attrs;       ///< v2 .zattrs.
    std::vector<uint8_t> Fill;  ///< One element of fill value.
    std::vector<uint64_t> Grid; ///< Chunks per dimension.
    uint64_t NumChunks = 0;
    /// One bit per chunk (row-major over Grid): written yet?
    std::unique_ptr<std::atomic<uint64_t>[]> WrittenBits;
    std::atomic<uint64_t> Written{0};
  };

  ZarrWriter(std::string Dir, ZarrFormat Format, CodecOptions Codec,
             bool Sync);
  /// Arrays are heap-allocated and never removed, so the pointer stays valid.
  Array *find(llvm::StringRef Name) const;
  llvm::Error checkUsable() const;
  /// Path's parent is the root or a declared group.
  llvm::Error checkParentGroup(llvm::StringRef Path) const;
  llvm::Error writeMetadataFile(llvm::StringRef RelPath,
                                const nlohmann::json &J);
  llvm::Error writeEncodedChunk(Array &A, llvm::ArrayRef<uint64_t> Coords,
                                llvm::ArrayRef<uint8_t> Encoded);
  llvm::Error fillUnwrittenChunks(Array &A);
  /// Row-major index of chunk Coords (within the grid) of A.
  static uint64_t chunkIndex(const Array &A, llvm::ArrayRef<uint64_t> Coords);
  static bool isWritten(const Array &A, uint64_t Index);
  /// Marks chunk Index of A written; true when it was not yet.
  static bool markWritten(Array &A, uint64_t Index);
  /// create() and resume(): takes the lock, then starts or reopens Partial.
  static llvm::Expected<std::unique_ptr<ZarrWriter>>
  open(llvm::StringRef Dir, ZarrFormat Format, CodecOptions Codec, bool Sync,
       const nlohmann::json *ResumeRecord);
  /// finish()'s steps: the groups' metadata; the rename into place.
  llvm::Error writeGroupMetadata();
  llvm::Error moveIntoPlace();
  /// After the rename: makes it durable, releases the lock.
  llvm::Error publish();

  std::string Dir;
  std::string Partial;
  ZarrFormat Format;
  CodecOptions Codec;
  bool Sync;
  std::unique_ptr<OutputLock> Lock;
  std::unique_ptr<CommitQueue> Commits; ///< commitInBackground()'s.
  nlohmann::json GroupAttrs = nlohmann::json::object();
  /// Subgroups by path, with their attributes.
  std::map<std::string, nlohmann::json, std::less<>> Groups;
  mutable std::shared_mutex Mutex; ///< Guards Arrays' map structure.
  std::map<std::string, std::unique_ptr<Array>, std::less<>> Arrays;
  bool Finished = false;
  bool Abandoned = false;
  /// Made by attach(): another process's store.
  bool Attached = false;
};

} // namespace aimz::io

#endif // AIMZ_IO_ZARR_H
