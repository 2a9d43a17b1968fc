//===- RunRecord.cpp - What determines a run's output bytes ---------------===//
#include "RunRecord.h"
#include "RunError.h"

#include "aimz/io/DType.h"
#include "aimz/io/Shape.h"

#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/xxhash.h"

namespace aimz::run {
namespace {

std::string hex(uint64_t H) {
  char Buf[17];
  std::snprintf(Buf, sizeof Buf, "%016llx", static_cast<unsigned long long>(H));
  return Buf;
}

/// "<f4 (100, 3) 0123456789abcdef": an array's type, shape and contents.
std::string fingerprint(const HostArray &H) {
  size_t Bytes = H.numElements() * io::dtypeSize(H.Type);
  uint64_t Hash = llvm::xxh3_64bits(llvm::ArrayRef<uint8_t>(
      static_cast<const uint8_t *>(H.Data), Bytes));
  return io::dtypeDescr(H.Type).str() + " " + io::formatShape(H.Shape) +
         (H.DrawBroadcast ? " broadcast " : " ") + hex(Hash);
}

/// Keyed by the model's names, not by file: the same bytes given as
/// X=./X.npy or X=/abs/X.npy are the same run.
nlohmann::json fingerprints(const Manifest &M, const DataSet &Data) {
  nlohmann::json J = nlohmann::json::object();
  for (size_t I = 0; I < Data.Inputs.size(); ++I)
    J[I < M.Inputs.size() ? M.Inputs[I].Name : Data.Inputs[I].Name] =
        fingerprint(Data.Inputs[I]);
  for (size_t O = 0; O < Data.Observed.size() && O < M.Outputs.size(); ++O)
    if (Data.Observed[O])
      J["(observed) " + M.Outputs[O].Name] = fingerprint(*Data.Observed[O]);
  return J;
}

nlohmann::json fingerprints(const Manifest &M, const Posterior &P) {
  nlohmann::json J = nlohmann::json::object();
  for (size_t S = 0; S < M.Sites.size(); ++S)
    if (P.has(S))
      J[M.Sites[S].Name] = fingerprint(*P.Sites[S]);
  return J;
}

} // namespace

llvm::Expected<nlohmann::json> runRecord(const ModelLibrary &Lib,
                                         const DataSet &Data,
                                         const Posterior *Post,
                                         const RunOptions &Opts,
                                         const RunPlan &Plan) {
  const Manifest &M = Lib.manifest();
  auto File = llvm::MemoryBuffer::getFile(Lib.path(), /*IsText=*/false,
                                          /*RequiresNullTerminator=*/false);
  if (!File)
    return error("cannot read the model library '" + Lib.path() +
                 "' to fingerprint it: " + File.getError().message());
  nlohmann::json R = Plan.Attrs;
  R.erase("created");
  R["model_library"] = hex(llvm::xxh3_64bits(llvm::ArrayRef<uint8_t>(
      reinterpret_cast<const uint8_t *>((*File)->getBufferStart()),
      (*File)->getBufferSize())));
  R["inputs"] = fingerprints(M, Data);
  if (Post && Opts.Kind != EntryKind::PriorPredictive)
    R["posterior"] = fingerprints(M, *Post);
  if (Opts.BaselineData)
    R["baseline_inputs"] = fingerprints(M, *Opts.BaselineData);
  if (Opts.BaselinePost)
    R["baseline_posterior"] = fingerprints(M, *Opts.BaselinePost);
  nlohmann::json Arrays = nlohmann::json::object();
  for (const OutputArray &O : Plan.Outs)
    Arrays[O.Path] = (O.TextWidth ? "<U" + std::to_string(O.TextWidth)
                                  : io::dtypeDescr(O.Type).str()) +
                     " shape " +
                     io::formatShape(O.Shape) + " chunks " +
                     io::formatShape(O.Chunk);
  R["arrays"] = Arrays;
  R["zarr_format"] = Opts.Format == io::ZarrFormat::V3 ? 3 : 2;
  const io::CodecOptions &C = Opts.Codec;
  R["codec"] = {{"kind", static_cast<int>(C.Kind)},
                {"level", C.Level},
                {"shuffle", static_cast<int>(C.Shuffling)},
                {"inner", C.BloscCompressor},
                {"block_size", C.BloscBlockSize}};
  return R;
}

} // namespace aimz::run
