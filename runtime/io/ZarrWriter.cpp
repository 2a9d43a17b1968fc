//===- ZarrWriter.cpp - Zarr v2/v3 directory-store writer -----------------===//

#include "aimz/io/PageBuffer.h"
#include "aimz/io/Shape.h"
#include "aimz/io/Zarr.h"
#include "aimz/io/RecordDifferences.h"
#include "aimz/io/RegularFile.h"

#include "CommitQueue.h"
#include "Errors.h"
#include "OutputFile.h"
#include "StoreTree.h"
#include "ZarrMetadata.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <mutex>
#include <set>

using namespace llvm;
using json = nlohmann::json;

namespace aimz::io {

namespace {
bool isZarrStore(const std::string &Dir) {
  for (const char *Marker : {"/.zgroup", "/.zarray", "/zarr.json"})
    if (sys::fs::exists(Dir + Marker))
      return true;
  return false;
}

/// An existing Dir may be replaced only when it is a Zarr store holding
/// nothing but store entries: replacing deletes it.
Error checkReplaceable(const std::string &Dir) {
  if (Error E = checkNotSymlink(Dir))
    return E;
  if (!sys::fs::exists(Dir))
    return Error::success();
  if (!sys::fs::is_directory(Dir) || !isZarrStore(Dir))
    return ioError("refusing to write the Zarr store '" + Dir +
                   "': the path exists and is not a Zarr store; remove it "
                   "or choose another output path");
  if (Error E = checkStoreTree(Dir))
    return ioError("refusing to replace the Zarr store '" + Dir +
                   "': " + toString(std::move(E)));
  return Error::success();
}

/// Per-thread scratch, reused across chunks so steady-state writing does not
/// allocate (or fault in fresh pages).
struct Scratch {
  PageBuffer Padded;
  PageBuffer Encoded;
};
Scratch &threadScratch() {
  thread_local Scratch S;
  return S;
}

/// Copies the in-bounds part of a chunk from Src (laid out with SrcExtents)
/// into Dst (laid out with the full chunk shape), which already holds fill.
void copyValid(uint8_t *Dst, const uint8_t *Src, ArrayRef<uint64_t> Chunk,
               ArrayRef<uint64_t> SrcExtents, ArrayRef<uint64_t> Valid,
               size_t ElemSize) {
  size_t Rank = Chunk.size();
  if (Rank == 0) {
    std::memcpy(Dst, Src, ElemSize);
    return;
  }
  for (uint64_t V : Valid)
    if (V == 0)
      return;
  // Byte strides of both layouts; the last dimension is copied as a run.
  std::vector<uint64_t> DstStride(Rank), SrcStride(Rank);
  uint64_t DS = ElemSize, SS = ElemSize;
  for (size_t I = Rank; I-- > 0;) {
    DstStride[I] = DS;
    SrcStride[I] = SS;
    DS *= Chunk[I];
    SS *= SrcExtents[I];
  }
  uint64_t Run = Valid[Rank - 1] * ElemSize;
  std::vector<uint64_t> Idx(Rank, 0);
  while (true) {
    uint64_t DO = 0, SO = 0;
    for (size_t I = 0; I + 1 < Rank; ++I) {
      DO += Idx[I] * DstStride[I];
      SO += Idx[I] * SrcStride[I];
    }
    std::memcpy(Dst + DO, Src + SO, Run);
    // Odometer over all but the last dimension.
    size_t D = Rank - 1;
    while (D-- > 0) {
      if (++Idx[D] < Valid[D])
        break;
      Idx[D] = 0;
    }
    if (D == size_t(-1))
      return;
  }
}

void fillPattern(uint8_t *Dst, uint64_t Bytes, ArrayRef<uint8_t> Fill) {
  bool AllZero =
      std::all_of(Fill.begin(), Fill.end(), [](uint8_t B) { return B == 0; });
  if (AllZero) {
    std::memset(Dst, 0, Bytes);
    return;
  }
  for (uint64_t I = 0; I < Bytes; I += Fill.size())
    std::memcpy(Dst + I, Fill.data(), Fill.size());
}
} // namespace

ZarrWriter::ZarrWriter(std::string D, ZarrFormat F, CodecOptions C, bool S)
    : Dir(std::move(D)), Partial(Dir + ".partial"), Format(F),
      Codec(std::move(C)), Sync(S) {}

Error ZarrWriter::commitInBackground() {
  if (!Sync || Commits)
    return Error::success();
  // The queue's threads only wait for the disk: a few let several syncs
  // be in flight; the bound keeps dirty pages and descriptors in check.
  Expected<std::unique_ptr<CommitQueue>> Q =
      CommitQueue::create(/*Threads=*/4, /*MaxPending=*/16);
  if (!Q)
    return Q.takeError();
  Commits = std::move(*Q);
  return Error::success();
}

Error ZarrWriter::flushChunks() {
  return Commits ? Commits->drain() : Error::success();
}

Expected<std::unique_ptr<ZarrWriter>>
ZarrWriter::create(StringRef DirArg, ZarrFormat Format, CodecOptions Codec,
                   bool Sync) {
  return open(DirArg, Format, std::move(Codec), Sync, nullptr);
}

Expected<std::unique_ptr<ZarrWriter>>
ZarrWriter::resume(StringRef DirArg, ZarrFormat Format, CodecOptions Codec,
                   bool Sync, const json &Record) {
  return open(DirArg, Format, std::move(Codec), Sync, &Record);
}

namespace {
/// The run record's name in a partial store (a store file, see StoreTree).
constexpr const char *RunRecordFile = ".aimz-run.json";

} // namespace

Expected<std::unique_ptr<ZarrWriter>>
ZarrWriter::open(StringRef DirArg, ZarrFormat Format, CodecOptions Codec,
                 bool Sync, const json *ResumeRecord) {
  std::string Dir = DirArg.rtrim('/').str();
  if (Dir.empty())
    return ioError("the Zarr store path is empty");
  if (Error E = validateCodec(Codec))
    return ioError("cannot write '" + Dir + "': " + toString(std::move(E)));
  if (Error E = checkNotSymlink(Dir))
    return {std::move(E)};
  // Nothing is touched before the lock is ours: another run may be writing.
  Expected<std::unique_ptr<OutputLock>> Lock = OutputLock::acquire(Dir);
  if (!Lock)
    return Lock.takeError();
  if (Error E = checkReplaceable(Dir))
    return {std::move(E)};
  std::unique_ptr<ZarrWriter> W(
      new ZarrWriter(Dir, Format, std::move(Codec), Sync));
  W->Abandoned = true; // Until the partial store is ours to clean up.
  if (ResumeRecord) {
    if (Error E = checkNotSymlink(W->Partial))
      return {std::move(E)};
    if (!sys::fs::is_directory(W->Partial))
      return ioError("nothing to resume at '" + Dir + "': there is no "
                     "partial store '" + W->Partial + "' (a run that fails "
                     "with an error or completes leaves none); run without "
                     "--resume");
    std::string RecordPath = W->Partial + "/" + RunRecordFile;
    if (Error E = requireRegularFile(RecordPath, "cannot resume: the run "
                                     "record", "run without --resume to "
                                     "start over"))
      return std::move(E);
    auto Text = MemoryBuffer::getFile(RecordPath);
    json Then = Text ? json::parse((*Text)->getBuffer(), nullptr,
                                   /*allow_exceptions=*/false)
                     : json();
    if (!Then.is_object())
      return ioError("cannot resume '" + W->Partial + "': its run record '" +
                     RecordPath + "' is " +
                     (Text ? "not a JSON object" : "missing") +
                     "; run without --resume to start over");
    std::string Diff = recordDifferences(Then, *ResumeRecord, "then", "now");
    if (!Diff.empty())
      return ioError("cannot resume '" + W->Partial + "': this run differs "
                     "from the interrupted one in " + Diff + "; run it as "
                     "before, or without --resume to start over");
    // Checks the tree (nothing foreign, no links), then removes the
    // temporaries of chunks being written when the run was killed.
    if (Error E = removeStoreTemporaries(W->Partial))
      return ioError("refusing to resume into '" + W->Partial + "': " +
                     toString(std::move(E)));
  } else {
    // With the lock held, a leftover partial store is stale: its run is
    // gone.
    if (Error E = removeStoreTree(W->Partial))
      return ioError("cannot replace the stale partial store '" + W->Partial +
                     "' of an interrupted run: " + toString(std::move(E)));
    if (::mkdir(W->Partial.c_str(), 0777) != 0)
      return errnoError("cannot create", W->Partial, errno);
  }
  W->Abandoned = false;
  W->Lock = std::move(*Lock);
  return W;
}

Expected<std::unique_ptr<ZarrWriter>>
ZarrWriter::attach(StringRef DirArg, ZarrFormat Format, CodecOptions Codec,
                   bool Sync) {
  std::string Dir = DirArg.rtrim('/').str();
  if (Error E = validateCodec(Codec))
    return ioError("cannot write '" + Dir + "': " + toString(std::move(E)));
  std::unique_ptr<ZarrWriter> W(
      new ZarrWriter(Dir, Format, std::move(Codec), Sync));
  if (Error E = checkNotSymlink(W->Partial))
    return {std::move(E)};
  if (!sys::fs::is_directory(W->Partial))
    return ioError("cannot join the run writing '" + Dir + "': its partial "
                   "store '" + W->Partial + "' is not there; is the output "
                   "directory on a filesystem every process shares?");
  W->Attached = true;
  return W;
}

Error ZarrWriter::setRunRecord(const json &Record) {
  if (Error E = checkUsable())
    return E;
  if (Attached)
    return ioError("the run record of '" + Dir + "' is the creator's");
  if (!Record.is_object())
    return ioError("the run record of '" + Dir + "' must be a JSON object");
  return writeMetadataFile(RunRecordFile, Record);
}

uint64_t ZarrWriter::chunkIndex(const Array &A, ArrayRef<uint64_t> Coords) {
  uint64_t Index = 0;
  for (size_t I = 0; I < Coords.size(); ++I)
    Index = Index * A.Grid[I] + Coords[I];
  return Index;
}

bool ZarrWriter::isWritten(const Array &A, uint64_t Index) {
  return A.WrittenBits[Index / 64].load() & (uint64_t(1) << (Index % 64));
}

bool ZarrWriter::markWritten(Array &A, uint64_t Index) {
  uint64_t Bit = uint64_t(1) << (Index % 64);
  if (A.WrittenBits[Index / 64].fetch_or(Bit) & Bit)
    return false;
  A.Written.fetch_add(1, std::memory_order_relaxed);
  return true;
}

bool ZarrWriter::hasChunk(StringRef Name, ArrayRef<uint64_t> Coords) {
  Array *A = find(Name);
  if (!A || Coords.size() != A->Grid.size())
    return false;
  for (size_t I = 0; I < Coords.size(); ++I)
    if (Coords[I] >= A->Grid[I])
      return false;
  const uint64_t Index = chunkIndex(*A, Coords);
  if (isWritten(*A, Index))
    return true;
  // Not by this writer: by another process of a shared run, or by the run
  // this one resumes.
  std::string Path =
      Partial + "/" + Name.str() + "/" + zarr::chunkKey(Format, Coords);
  if (!sys::fs::is_regular_file(Path))
    return false;
  markWritten(*A, Index);
  return true;
}

Expected<std::vector<std::string>>
ZarrWriter::checkKeptChunks(const KeptChunkFn &OnKept) {
  if (Error E = checkUsable())
    return std::move(E);
  std::vector<std::string> Notes;
  std::vector<uint8_t> Decoded;
  std::shared_lock<std::shared_mutex> L(Mutex);
  for (const auto &[Name, A] : Arrays) {
    const ZarrArraySpec &S = A->Spec;
    Decoded.resize(*checkedNumBytes(S.Chunks, elementBytes(S)));
    uint64_t Damaged = 0;
    std::string First;
    std::vector<uint64_t> Coords(A->Grid.size(), 0);
    for (uint64_t Index = 0; Index < A->NumChunks; ++Index) {
      uint64_t Rest = Index;
      for (size_t I = A->Grid.size(); I-- > 0;) {
        Coords[I] = Rest % A->Grid[I];
        Rest /= A->Grid[I];
      }
      std::string Key = Name + "/" + zarr::chunkKey(Format, Coords);
      std::string Path = Partial + "/" + Key;
      if (!sys::fs::is_regular_file(Path))
        continue;
      auto File = MemoryBuffer::getFile(Path, /*IsText=*/false,
                                        /*RequiresNullTerminator=*/false);
      Error Bad = File ? decodeChunk(Codec,
                                     arrayRefFromStringRef((*File)->getBuffer()),
                                     Decoded)
                       : ioError("cannot read it: " +
                                 File.getError().message());
      if (!Bad) {
        markWritten(*A, Index);
        if (OnKept)
          OnKept(Name, Coords, Decoded.data());
        continue;
      }
      if (First.empty())
        First = Key + ": " + toString(std::move(Bad));
      else
        consumeError(std::move(Bad));
      if (std::error_code EC = sys::fs::remove(Path))
        return ioError("cannot remove the damaged chunk '" + Path +
                       "' of the interrupted run: " + EC.message());
      ++Damaged;
    }
    if (Damaged)
      Notes.push_back(std::to_string(Damaged) + " chunk" +
                      (Damaged == 1 ? "" : "s") + " of '" + Name +
                      "' left by the interrupted run did not decode (" +
                      First + ") and " + (Damaged == 1 ? "is" : "are") +
                      " computed again");
  }
  return Notes;
}

ZarrWriter::~ZarrWriter() {
  if (!Finished)
    abandon();
  // Before the arrays its callbacks mark.
  Commits.reset();
}

void ZarrWriter::abandon() {
  if (Abandoned || Finished)
    return;
  Abandoned = true;
  if (Commits)
    Commits->cancel();
  if (!Attached) // The creator removes it.
    consumeError(removeStoreTree(Partial));
  Lock.reset();
}

void ZarrWriter::suspend() {
  if (Abandoned || Finished)
    return;
  Abandoned = true;
  // Chunks not yet synced are dropped: the resumed run writes them again.
  if (Commits)
    Commits->cancel();
  Lock.reset();
}

Error ZarrWriter::checkUsable() const {
  if (Finished)
    return ioError("the Zarr store '" + Dir + "' is already finished");
  if (Abandoned)
    return ioError("the Zarr store '" + Dir + "' was abandoned");
  return Error::success();
}

ZarrWriter::Array *ZarrWriter::find(StringRef Name) const {
  std::shared_lock<std::shared_mutex> L(Mutex);
  auto It = Arrays.find(Name);
  return It == Arrays.end() ? nullptr : It->second.get();
}

Error ZarrWriter::writeMetadataFile(StringRef RelPath, const json &J) {
  std::string Path = Partial + "/" + RelPath.str();
  Expected<OutputFile> Out = OutputFile::create(Path, ".tmp");
  if (!Out)
    return Out.takeError();
  if (Error E = Out->write(J.dump(4) + "\n"))
    return E;
  // Synced beside the chunks, off this thread: a store's half-dozen
  // metadata files would otherwise wait for the disk one after another
  // (a millisecond or more each). finish() flushes them before the
  // directories are synced.
  if (Commits)
    return Commits->submit(std::move(*Out), [] {});
  return Out->commit(Sync);
}

Error ZarrWriter::addArray(StringRef Name, DType Type, ArrayRef<uint64_t> Shape,
                           ArrayRef<uint64_t> Chunks,
                           ArrayRef<std::string> DimNames, const json &Attrs) {
  ZarrArraySpec S;
  S.Name = Name.str();
  S.Type = Type;
  S.Shape = Shape.vec();
  S.Chunks = Chunks.vec();
  S.DimNames = DimNames.vec();
  S.Attrs = Attrs;
  return addArray(S);
}

Error ZarrWriter::addArray(const ZarrArraySpec &Spec) {
  if (Error E = checkUsable())
    return E;
  if (Error E = zarr::validateSpec(Spec))
    return ioError("cannot add to '" + Dir + "': " + toString(std::move(E)));
  if (find(Spec.Name) || Groups.count(Spec.Name))
    return ioError("the Zarr store '" + Dir + "' already has a node '" +
                   Spec.Name + "'");
  if (Error E = checkParentGroup(Spec.Name))
    return E;
  auto A = std::make_unique<Array>();
  A->Spec = Spec;
  A->Fill = zarr::fillBytes(Spec);
  for (size_t I = 0; I < Spec.Shape.size(); ++I)
    A->Grid.push_back((Spec.Shape[I] + Spec.Chunks[I] - 1) / Spec.Chunks[I]);
  A->NumChunks = *checkedNumElements(A->Grid); // Bounded by the shape's.
  size_t Words = (A->NumChunks + 63) / 64;
  A->WrittenBits.reset(new (std::nothrow) std::atomic<uint64_t>[Words]);
  if (!A->WrittenBits && Words)
    return ioError("out of memory tracking the " + Twine(A->NumChunks) +
                   " chunks of array '" + Spec.Name + "'");
  for (size_t I = 0; I < Words; ++I)
    A->WrittenBits[I].store(0, std::memory_order_relaxed);
  std::string ArrayDir = Partial + "/" + Spec.Name;
  if (std::error_code EC = sys::fs::create_directories(ArrayDir))
    return ioError("cannot create '" + ArrayDir + "': " + EC.message());
  // An attached writer's metadata is the creator's to write.
  if (Format == ZarrFormat::V2) {
    A->Meta = zarr::v2ArrayMeta(Spec, Codec);
    A->Attrs = zarr::v2ArrayAttrs(Spec);
    if (!Attached) {
      if (Error E = writeMetadataFile(Spec.Name + "/.zarray", A->Meta))
        return E;
      if (Error E = writeMetadataFile(Spec.Name + "/.zattrs", A->Attrs))
        return E;
    }
  } else {
    A->Meta = zarr::v3ArrayMeta(Spec, Codec);
    if (!Attached)
      if (Error E = writeMetadataFile(Spec.Name + "/zarr.json", A->Meta))
        return E;
  }
  std::unique_lock<std::shared_mutex> L(Mutex);
  Arrays.emplace(Spec.Name, std::move(A));
  return Error::success();
}

Error ZarrWriter::checkParentGroup(StringRef Path) const {
  size_t Slash = Path.rfind('/');
  if (Slash == StringRef::npos || Groups.count(Path.take_front(Slash)))
    return Error::success();
  return ioError("cannot add '" + Path + "' to '" + Dir + "': its group '" +
                 Path.take_front(Slash) + "' was not declared (addGroup)");
}

Error ZarrWriter::addGroup(StringRef Path, const json &Attrs) {
  if (Error E = checkUsable())
    return E;
  if (!zarr::validNodePath(Path))
    return ioError("invalid Zarr group name '" + Path +
                   "': use '/'-separated non-empty names without '\\' or "
                   "a leading '.'");
  if (!Attrs.is_object())
    return ioError("attributes of group '" + Path + "' must be a JSON "
                   "object, got " + Attrs.dump());
  if (find(Path) || Groups.count(Path))
    return ioError("the Zarr store '" + Dir + "' already has a node '" +
                   Path + "'");
  if (Error E = checkParentGroup(Path))
    return E;
  std::string GroupDir = Partial + "/" + Path.str();
  if (std::error_code EC = sys::fs::create_directories(GroupDir))
    return ioError("cannot create '" + GroupDir + "': " + EC.message());
  Groups.emplace(Path.str(), Attrs);
  return Error::success();
}

Error ZarrWriter::setGroupAttrs(const json &Attrs) {
  if (Error E = checkUsable())
    return E;
  if (!Attrs.is_object())
    return ioError("group attributes of '" + Dir +
                   "' must be a JSON object, got " + Attrs.dump());
  GroupAttrs = Attrs;
  return Error::success();
}

Expected<ChunkGeometry> ZarrWriter::chunkGeometry(StringRef Name,
                                                  ArrayRef<uint64_t> Coords) {
  const Array *A = find(Name);
  if (!A)
    return ioError("the Zarr store '" + Dir + "' has no array '" + Name +
                   "'; call addArray first");
  const ZarrArraySpec &S = A->Spec;
  if (Coords.size() != S.Shape.size())
    return ioError("array '" + Name + "' in '" + Dir + "' has rank " +
                   Twine(S.Shape.size()) + " but chunk coordinates " +
                   formatShape(Coords) + " have " + Twine(Coords.size()));
  ChunkGeometry G;
  for (size_t I = 0; I < Coords.size(); ++I) {
    uint64_t Grid = (S.Shape[I] + S.Chunks[I] - 1) / S.Chunks[I];
    if (Coords[I] >= Grid) {
      std::vector<uint64_t> GridShape;
      for (size_t J = 0; J < Coords.size(); ++J)
        GridShape.push_back((S.Shape[J] + S.Chunks[J] - 1) / S.Chunks[J]);
      return ioError("chunk " + formatShape(Coords) + " of array '" + Name +
                     "' in '" + Dir + "' is outside the chunk grid " +
                     formatShape(GridShape) + " (shape " +
                     formatShape(S.Shape) + ", chunks " +
                     formatShape(S.Chunks) + ")");
    }
    G.Valid.push_back(
        std::min(S.Chunks[I], S.Shape[I] - Coords[I] * S.Chunks[I]));
  }
  uint64_t E = elementBytes(S);
  G.FullBytes = *checkedNumBytes(S.Chunks, E);
  G.ValidBytes = *checkedNumBytes(G.Valid, E);
  return G;
}

Error ZarrWriter::writeChunk(StringRef Name, ArrayRef<uint64_t> Coords,
                             const void *Data, size_t Bytes) {
  if (Error E = checkUsable())
    return E;
  Expected<ChunkGeometry> G = chunkGeometry(Name, Coords);
  if (!G)
    return G.takeError();
  Array &A = *find(Name); // chunkGeometry found it.
  const ZarrArraySpec &S = A.Spec;
  bool Edge = G->Valid != S.Chunks;
  if (Bytes != G->FullBytes && Bytes != G->ValidBytes) {
    std::string Want = std::to_string(G->FullBytes) + " (the whole chunk " +
                       formatShape(S.Chunks) + " of " +
                       zarr::dtypeName(S) + ")";
    if (Edge)
      Want += " or " + std::to_string(G->ValidBytes) + " (its in-bounds part " +
              formatShape(G->Valid) + ")";
    return ioError("chunk " + formatShape(Coords) + " of array '" + Name +
                   "' in '" + Dir + "': got " + Twine(Bytes) +
                   " bytes, expected " + Want);
  }
  if (G->FullBytes != 0 && !Data)
    return ioError("chunk " + formatShape(Coords) + " of array '" + Name +
                   "': no data");

  Scratch &Scr = threadScratch();
  ArrayRef<uint8_t> Raw(static_cast<const uint8_t *>(Data), G->FullBytes);
  if (Edge) {
    // Zarr chunks are always whole; pad with the fill value, never with
    // whatever the caller's buffer held past the edge.
    if (Error E = Scr.Padded.reserve(G->FullBytes))
      return E;
    fillPattern(Scr.Padded.data(), G->FullBytes, A.Fill);
    copyValid(Scr.Padded.data(), static_cast<const uint8_t *>(Data), S.Chunks,
              Bytes == G->FullBytes ? ArrayRef<uint64_t>(S.Chunks)
                                    : ArrayRef<uint64_t>(G->Valid),
              G->Valid, elementBytes(S));
    Raw = ArrayRef<uint8_t>(Scr.Padded.data(), G->FullBytes);
  }
  Expected<size_t> N = encodeChunk(Codec, S.Type, Raw, Scr.Encoded);
  if (!N)
    return ioError("chunk " + formatShape(Coords) + " of array '" + Name +
                   "' in '" + Dir + "': " + toString(N.takeError()));

  return writeEncodedChunk(A, Coords,
                           ArrayRef<uint8_t>(Scr.Encoded.data(), *N));
}

Error ZarrWriter::writeEncodedChunk(Array &A, ArrayRef<uint64_t> Coords,
                                    ArrayRef<uint8_t> Encoded) {
  std::string Key = zarr::chunkKey(Format, Coords);
  std::string Path = Partial + "/" + A.Spec.Name + "/" + Key;
  if (Format == ZarrFormat::V3 && !Coords.empty()) {
    StringRef Parent = sys::path::parent_path(Path);
    if (std::error_code EC = sys::fs::create_directories(Parent))
      return ioError("cannot create '" + Parent + "': " + EC.message());
  }
  Expected<OutputFile> Out = OutputFile::create(Path, ".tmp");
  if (!Out)
    return Out.takeError();
  // A synced store writes chunks past the page cache: the sync then waits
  // for little, and no dirty pages are left behind for later work.
  if (Error E = Sync ? Out->writeDirect(Encoded.data(), Encoded.size())
                     : Out->write(Encoded.data(), Encoded.size()))
    return E;
  // A chunk counts as written once it is under its name (and, with Sync,
  // durable there).
  const uint64_t Index = chunkIndex(A, Coords);
  if (Commits)
    return Commits->submit(std::move(*Out),
                           [&A, Index] { markWritten(A, Index); });
  if (Error E = Out->commit(Sync))
    return E;
  markWritten(A, Index);
  return Error::success();
}

Error ZarrWriter::fillUnwrittenChunks(Array &A) {
  if (A.Written.load() == A.NumChunks)
    return Error::success();
  // Every missing chunk has the same bytes: encode one, write it many times.
  const ZarrArraySpec &S = A.Spec;
  uint64_t Bytes = *checkedNumBytes(S.Chunks, elementBytes(S));
  Expected<PageBuffer> Raw = PageBuffer::allocate(Bytes);
  if (!Raw)
    return Raw.takeError();
  fillPattern(Raw->data(), Bytes, A.Fill);
  PageBuffer Encoded;
  Expected<size_t> N = encodeChunk(
      Codec, S.Type, ArrayRef<uint8_t>(Raw->data(), Bytes), Encoded);
  if (!N)
    return N.takeError();
  std::vector<uint64_t> Coords(A.Grid.size(), 0);
  for (uint64_t Index = 0; Index < A.NumChunks; ++Index) {
    if (!isWritten(A, Index)) {
      uint64_t Rest = Index;
      for (size_t I = A.Grid.size(); I-- > 0;) {
        Coords[I] = Rest % A.Grid[I];
        Rest /= A.Grid[I];
      }
      // Another process of the run, or the interrupted run this one
      // resumed, may have written it.
      if (hasChunk(A.Spec.Name, Coords))
        continue;
      if (Error E = writeEncodedChunk(A, Coords,
                                      ArrayRef<uint8_t>(Encoded.data(), *N)))
        return E;
    }
  }
  return Error::success();
}

uint64_t ZarrWriter::chunksWritten(StringRef Name) const {
  const Array *A = find(Name);
  return A ? A->Written.load(std::memory_order_relaxed) : 0;
}

Error ZarrWriter::finish() {
  if (Error E = checkUsable())
    return E;
  if (Attached)
    return ioError("the store '" + Dir + "' is finished by the process that "
                   "created it");
  if (Error E = flushChunks())
    return E;
  if (Error E = writeGroupMetadata())
    return E;
  // Every metadata file under its name (and synced) before the record goes
  // and the directories are synced.
  if (Error E = flushChunks())
    return E;
  // The run record is for resuming the partial store, not part of the
  // store.
  std::string RecordPath = Partial + "/" + RunRecordFile;
  if (std::error_code EC = sys::fs::remove(RecordPath))
    return ioError("cannot remove '" + RecordPath + "': " + EC.message());
  // Every chunk and metadata file was synced as it was committed; the
  // directories holding them are synced before the store can appear.
  if (Sync)
    if (Error E = syncStoreDirectories(Partial))
      return E;
  return moveIntoPlace();
}

/// The groups' metadata (v2: with the consolidated .zmetadata, after the
/// unwritten chunks of arrays without a fill value are written as zeros).
Error ZarrWriter::writeGroupMetadata() {
  if (Format == ZarrFormat::V2) {
    {
      std::shared_lock<std::shared_mutex> L(Mutex);
      for (auto &Entry : Arrays)
        if (zarr::v2FillIsNull(Entry.second->Spec))
          if (Error E = fillUnwrittenChunks(*Entry.second))
            return E;
    }
    if (Error E = flushChunks())
      return E;
    if (Error E = writeMetadataFile(".zgroup", {{"zarr_format", 2}}))
      return E;
    if (Error E = writeMetadataFile(".zattrs", GroupAttrs))
      return E;
    // Consolidated metadata lets xarray open the store with one read and
    // without warning about its absence.
    json Meta = {{".zgroup", {{"zarr_format", 2}}}, {".zattrs", GroupAttrs}};
    for (const auto &[Path, Attrs] : Groups) {
      if (Error E = writeMetadataFile(Path + "/.zgroup", {{"zarr_format", 2}}))
        return E;
      if (Error E = writeMetadataFile(Path + "/.zattrs", Attrs))
        return E;
      Meta[Path + "/.zgroup"] = {{"zarr_format", 2}};
      Meta[Path + "/.zattrs"] = Attrs;
    }
    {
      std::shared_lock<std::shared_mutex> L(Mutex);
      for (const auto &[Name, A] : Arrays) {
        Meta[Name + "/.zarray"] = A->Meta;
        Meta[Name + "/.zattrs"] = A->Attrs;
      }
    }
    if (Error E =
            writeMetadataFile(".zmetadata", {{"zarr_consolidated_format", 1},
                                             {"metadata", Meta}}))
      return E;
  } else {
    if (Error E = writeMetadataFile("zarr.json", zarr::v3GroupMeta(GroupAttrs)))
      return E;
    for (const auto &[Path, Attrs] : Groups)
      if (Error E = writeMetadataFile(Path + "/zarr.json",
                                      zarr::v3GroupMeta(Attrs)))
        return E;
  }

  return Error::success();
}

/// Renames the finished partial store to Dir, replacing a store there
/// atomically where the filesystem can, then publishes it.
Error ZarrWriter::moveIntoPlace() {
  // Re-check: something may have appeared at Dir while we were writing.
  if (Error E = checkReplaceable(Dir))
    return E;
  if (!sys::fs::exists(Dir)) {
    if (::rename(Partial.c_str(), Dir.c_str()) != 0)
      return errnoError("cannot rename '" + Partial + "' to", Dir, errno);
  } else if (::renameat2(AT_FDCWD, Partial.c_str(), AT_FDCWD, Dir.c_str(),
                         RENAME_EXCHANGE) == 0) {
    // Swapped atomically; Partial now holds the old store.
    Finished = true;
    Error Old = removeStoreTree(Partial);
    if (Error E = publish()) {
      consumeError(std::move(Old));
      return E;
    }
    return Old;
  } else {
    // No RENAME_EXCHANGE on this filesystem: move the old store aside
    // first, accepting a short window in which Dir is absent.
    std::string Old = Dir + ".old";
    if (Error E = removeStoreTree(Old))
      return E;
    if (::rename(Dir.c_str(), Old.c_str()) != 0)
      return errnoError("cannot move the old store aside to", Old, errno);
    if (::rename(Partial.c_str(), Dir.c_str()) != 0) {
      int E = errno;
      (void)::rename(Old.c_str(), Dir.c_str()); // Put the old store back.
      return errnoError("cannot rename '" + Partial + "' to", Dir, E);
    }
    Finished = true;
    Error OldE = removeStoreTree(Old);
    if (Error E = publish()) {
      consumeError(std::move(OldE));
      return E;
    }
    return OldE;
  }
  Finished = true;
  return publish();
}

Error ZarrWriter::publish() {
  Error E = Sync ? syncParentDirectory(Dir) : Error::success();
  Lock.reset();
  return E;
}

} // namespace aimz::io
