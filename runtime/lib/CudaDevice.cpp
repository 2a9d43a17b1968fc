//===- CudaDevice.cpp - A GPU as a device ---------------------------------===//
#include "CudaDevice.h"

#include <algorithm>

namespace aimz::run {

namespace {

int64_t bytesOf(const HostArray &H) {
  return static_cast<int64_t>(H.numElements() * io::dtypeSize(H.Type));
}

} // namespace

gpu::RectangleLayout CudaDevice::layout(const DeviceTask &Task) const {
  const Manifest &M = Ctx.M;
  const DataSet &Data = Ctx.Data;
  gpu::RectangleLayout L;
  L.NumDims = static_cast<int64_t>(M.Dims.size());
  for (const HostArray &H : Data.Inputs)
    L.Inputs.push_back({bytesOf(H), static_cast<int>(H.Shape.size()), true});
  if (Data.anyObserved())
    for (const auto &H : Data.Observed)
      L.Observed.push_back({H ? bytesOf(*H) : 0,
                            H ? static_cast<int>(H->Shape.size()) : 0, true});
  for (size_t S = 0; S < M.Sites.size(); ++S) {
    int Rank = 1 + static_cast<int>(M.Sites[S].Shape.size());
    bool Has = Ctx.Post && Ctx.Kind != EntryKind::PriorPredictive &&
               Ctx.Post->has(S);
    L.Posterior.push_back({Has ? bytesOf(*Ctx.Post->Sites[S]) : 0, Rank, true});
    gpu::ResultLayout RL;
    if (Task.Results[S].data) {
      for (const OutputArray &O : Ctx.Plan.Outs)
        if (O.Site == static_cast<int>(S)) {
          RL.ElemBytes = static_cast<int64_t>(io::dtypeSize(O.Type));
          RL.Extents.assign(O.Extents.begin(), O.Extents.end());
          RL.ObsAxis = O.ObsAxis;
        }
    }
    L.Results.push_back(std::move(RL));
  }
  return L;
}

llvm::Error CudaDevice::compute(DeviceTask &Task) {
  aimz_call &Call = Task.Call;
  // A joint site: one block of every observation (one GPU thread per
  // draw); else small blocks, one thread each.
  Call.obs_block = Ctx.M.JointObservations
                       ? std::max<int64_t>(Ctx.Plan.Observations, 1)
                       : 32;
  gpu::RectangleLayout Layout = layout(Task);
  auto Scratch = gpu::scratchBytesPerThread(Ctx.Entry, Call);
  if (!Scratch)
    return Scratch.takeError();
  Layout.ScratchBytes = *Scratch;
  const int64_t DrawStep = Ctx.Plan.ObsPlan ? 16 : 1;
  for (int64_t G = Task.Draw0; G < Task.Draw1; G = Call.draw_end) {
    if (Ctx.stopRequested())
      return llvm::Error::success();
    // Queued back to back: a rectangle's copy-back overlaps the next one's
    // kernel; finish() below waits for the last.
    Call.draw_begin = G;
    Call.draw_end = std::min(Task.Draw1, G + DrawStep);
    if (llvm::Error E =
            Gpu->submit(static_cast<int>(Ctx.Kind), Call, Layout)) {
      llvm::consumeError(Gpu->finish());
      return E;
    }
  }
  return Gpu->finish();
}

} // namespace aimz::run
