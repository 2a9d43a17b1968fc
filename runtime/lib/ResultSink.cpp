//===- ResultSink.cpp - Where a run's chunks go ---------------------------===//
#include "aimz/run/ResultSink.h"

#include "aimz/io/ChunkPipeline.h"
#include "aimz/io/Npz.h"
#include "aimz/io/OutputLock.h"

#include <map>

namespace aimz::run {
namespace {

class ZarrSink : public ResultSink {
public:
  std::unique_ptr<io::ZarrWriter> Writer;
  std::unique_ptr<io::ChunkPipeline> Pipeline;
  std::vector<SinkArray> Arrays;
  std::map<size_t, io::PooledBuffer> Pending;

  llvm::Expected<void *> buffer(size_t Array, int64_t) override {
    auto B = Pipeline->acquireBuffer();
    if (!B)
      return B.takeError();
    void *P = B->data();
    Pending[Array] = std::move(*B);
    return P;
  }
  llvm::Error commit(size_t Array, int64_t,
                     llvm::ArrayRef<uint64_t> Coords) override {
    auto It = Pending.find(Array);
    io::PooledBuffer B = std::move(It->second);
    Pending.erase(It);
    return Pipeline->submit(Arrays[Array].Name, Coords, std::move(B),
                            Arrays[Array].ChunkBytes);
  }
  llvm::Error drain() override {
    if (llvm::Error E = Pipeline->drain())
      return E;
    return Writer->flushChunks();
  }
  llvm::Error finish() override {
    if (llvm::Error E = Pipeline->drain())
      return E;
    return Writer->finish();
  }
  void abandon() override {
    Pending.clear();
    Pipeline.reset();
    Writer->abandon();
  }
  std::string abandonNote() const override {
    return "no store was written at '" + Writer->path() +
           "' (the partial output was removed)";
  }
  bool hasChunk(size_t Array, llvm::ArrayRef<uint64_t> Coords) override {
    return Writer->hasChunk(Arrays[Array].Name, Coords);
  }
  void suspend() override {
    Pending.clear();
    Pipeline.reset();
    Writer->suspend();
  }
  std::string suspendNote() const override {
    return "no store was written at '" + Writer->path() +
           "'; the partial store '" + Writer->partialPath() +
           "' was kept: run the same command with --resume to finish it";
  }
};

class NpzSink : public ResultSink {
public:
  std::string Path;
  bool Sync = true;
  std::unique_ptr<io::OutputLock> Lock;
  std::vector<SinkArray> Arrays;
  std::vector<std::vector<uint8_t>> Data;

  llvm::Expected<void *> buffer(size_t Array, int64_t) override {
    return Data[Array].data();
  }
  llvm::Error commit(size_t, int64_t, llvm::ArrayRef<uint64_t>) override {
    return llvm::Error::success();
  }
  llvm::Error finish() override {
    std::vector<io::NpzMember> Members;
    for (size_t I = 0; I < Arrays.size(); ++I)
      Members.push_back({Arrays[I].Name, Arrays[I].Type, Arrays[I].Shape,
                         Data[I].data()});
    io::NpzWriteOptions O;
    O.Sync = Sync;
    llvm::Error E = io::writeNpz(Path, Members, O);
    Lock.reset();
    return E;
  }
  void abandon() override {
    Data.clear();
    Lock.reset();
  }
  std::string abandonNote() const override {
    return "'" + Path + "' was not written";
  }
};

} // namespace

llvm::Expected<std::unique_ptr<ResultSink>> createZarrSink(
    const std::string &Dir, io::ZarrFormat Format,
    const io::CodecOptions &Codec, const std::vector<SinkArray> &Arrays,
    const std::vector<std::pair<std::string, nlohmann::json>> &Groups,
    const nlohmann::json &GroupAttrs, unsigned Threads, bool Sync,
    const nlohmann::json &RunRecord, SinkStart Start,
    const KeptChunkFn &OnKept) {
  auto S = std::make_unique<ZarrSink>();
  auto W = Start == SinkStart::Resume
               ? io::ZarrWriter::resume(Dir, Format, Codec, Sync, RunRecord)
           : Start == SinkStart::Attach
               ? io::ZarrWriter::attach(Dir, Format, Codec, Sync)
               : io::ZarrWriter::create(Dir, Format, Codec, Sync);
  if (!W)
    return W.takeError();
  S->Writer = std::move(*W);
  // Syncing chunks off the compressor threads (a no-op without Sync).
  if (llvm::Error E = S->Writer->commitInBackground())
    return std::move(E);
  if (Start == SinkStart::Create)
    if (llvm::Error E = S->Writer->setRunRecord(RunRecord))
      return std::move(E);
  S->Arrays = Arrays;
  for (const auto &[Path, Attrs] : Groups)
    if (llvm::Error E = S->Writer->addGroup(Path, Attrs))
      return std::move(E);
  uint64_t MaxChunk = 1;
  for (const SinkArray &A : Arrays) {
    io::ZarrArraySpec Spec;
    Spec.Name = A.Name;
    Spec.Type = A.Type;
    Spec.Shape = A.Shape;
    Spec.Chunks = A.Chunk;
    Spec.DimNames = A.DimNames;
    Spec.TextWidth = A.TextWidth;
    if (llvm::Error E = S->Writer->addArray(Spec))
      return std::move(E);
    MaxChunk = std::max(MaxChunk, A.ChunkBytes);
  }
  if (Start != SinkStart::Attach)
    if (llvm::Error E = S->Writer->setGroupAttrs(GroupAttrs))
      return std::move(E);
  if (Start == SinkStart::Resume) {
    io::ZarrWriter::KeptChunkFn ByName;
    if (OnKept)
      ByName = [&](llvm::StringRef Name, llvm::ArrayRef<uint64_t> Coords,
                   const void *Data) {
        for (size_t I = 0; I < Arrays.size(); ++I)
          if (Arrays[I].Name == Name)
            OnKept(I, Coords, Data);
      };
    auto Notes = S->Writer->checkKeptChunks(ByName);
    if (!Notes)
      return Notes.takeError();
    S->Notes = std::move(*Notes);
  }
  io::PipelineOptions P;
  P.Threads = Threads;
  P.BufferBytes = MaxChunk;
  P.QueueDepth = 2 * Arrays.size() + Threads;
  // A batch's chunks, those being compressed, and those queued.
  P.MaxBuffers = P.QueueDepth + Threads + Arrays.size() + 1;
  auto Pipe = io::ChunkPipeline::forWriter(*S->Writer, P);
  if (!Pipe)
    return Pipe.takeError();
  S->Pipeline = std::move(*Pipe);
  return std::unique_ptr<ResultSink>(std::move(S));
}

llvm::Expected<std::unique_ptr<ResultSink>>
createNpzSink(const std::string &Path, const std::vector<SinkArray> &Arrays,
              bool Sync) {
  auto S = std::make_unique<NpzSink>();
  S->Path = Path;
  S->Sync = Sync;
  if (llvm::Error E = io::checkNotSymlink(Path))
    return std::move(E);
  auto Lock = io::OutputLock::acquire(Path);
  if (!Lock)
    return Lock.takeError();
  S->Lock = std::move(*Lock);
  S->Arrays = Arrays;
  for (const SinkArray &A : Arrays)
    S->Data.emplace_back(A.ChunkBytes);
  return std::unique_ptr<ResultSink>(std::move(S));
}

} // namespace aimz::run
