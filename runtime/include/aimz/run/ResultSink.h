//===- ResultSink.h - Where a run's chunks go ------------------*- C++ -*-===//
#ifndef AIMZ_RUN_RESULTSINK_H
#define AIMZ_RUN_RESULTSINK_H

#include "aimz/io/Codec.h"
#include "aimz/io/DType.h"
#include "aimz/io/Zarr.h"

#include <nlohmann/json.hpp>

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace aimz::run {

/// One output array: its full shape and the chunk each batch fills.
struct SinkArray {
  std::string Name;
  io::DType Type;
  std::vector<uint64_t> Shape, Chunk;
  std::vector<std::string> DimNames;
  uint64_t ChunkBytes = 0;
  uint32_t TextWidth = 0; // text labels (io::ZarrArraySpec::TextWidth)
};

class ResultSink {
public:
  virtual ~ResultSink() = default;
  /// A chunk-shaped buffer for array `Array` in batch `Batch`, to be filled
  /// by the kernels and then committed.
  virtual llvm::Expected<void *> buffer(size_t Array, int64_t Batch) = 0;
  /// Hands a filled buffer on (compression happens in the background).
  virtual llvm::Error commit(size_t Array, int64_t Batch,
                             llvm::ArrayRef<uint64_t> Coords) = 0;
  /// Waits until every committed chunk is written.
  virtual llvm::Error drain() { return llvm::Error::success(); }
  /// Waits for outstanding work and makes the output appear, atomically.
  virtual llvm::Error finish() = 0;
  /// Drops everything; no output appears.
  virtual void abandon() = 0;
  /// What abandon() left behind, for the user.
  virtual std::string abandonNote() const = 0;
  /// Whether the chunk of array `Array` at Coords is in the output already
  /// (written by the interrupted run a resumed sink continues).
  virtual bool hasChunk(size_t Array, llvm::ArrayRef<uint64_t> Coords) {
    return false;
  }
  /// Stops, keeping what a later run can resume (an interrupted run);
  /// outputs that cannot resume are dropped as by abandon().
  virtual void suspend() { abandon(); }
  /// What suspend() left behind, for the user.
  virtual std::string suspendNote() const { return abandonNote(); }
  /// What the user should know about how the sink started (damaged chunks
  /// of a resumed store that are computed again).
  std::vector<std::string> Notes;
};

/// How a Zarr sink starts its store.
enum class SinkStart {
  Create, ///< afresh, replacing a stale partial store
  Resume, ///< the partial store of an interrupted run with an equal record
  Attach  ///< the partial store another process of this run created
};

/// A chunk a resumed run keeps (SinkArray index, chunk coordinates, its
/// decoded bytes in C order over the array's chunk shape).
using KeptChunkFn = std::function<void(size_t Array,
                                       llvm::ArrayRef<uint64_t> Coords,
                                       const void *Data)>;

/// A Zarr group at Dir, chunks compressed by `Threads` workers; arrays
/// named "group/name" go into the subgroups `Groups` declares (with their
/// attributes). Holds the output lock from creation on (unless attached);
/// with Sync, durable before it appears. RunRecord (what determines the
/// bytes) is kept in the partial store for a later resume.
llvm::Expected<std::unique_ptr<ResultSink>> createZarrSink(
    const std::string &Dir, io::ZarrFormat Format,
    const io::CodecOptions &Codec, const std::vector<SinkArray> &Arrays,
    const std::vector<std::pair<std::string, nlohmann::json>> &Groups,
    const nlohmann::json &GroupAttrs, unsigned Threads, bool Sync,
    const nlohmann::json &RunRecord, SinkStart Start,
    const KeptChunkFn &OnKept = nullptr);

/// One .npz written at finish(); the whole result is held in memory. Holds
/// the output lock from creation on.
llvm::Expected<std::unique_ptr<ResultSink>>
createNpzSink(const std::string &Path, const std::vector<SinkArray> &Arrays,
              bool Sync);

} // namespace aimz::run

#endif // AIMZ_RUN_RESULTSINK_H
