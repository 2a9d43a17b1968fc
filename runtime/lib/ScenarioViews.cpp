//===- ScenarioViews.cpp - A scenario's arrays as the kernels see them ----===//
#include "ScenarioViews.h"

namespace aimz::run {

ScenarioViews::ScenarioViews(const Manifest &M, const DataSet &Data,
                             const Posterior *Posterior)
    : ObservedStrides(M.Outputs.size()), PostStrides(M.Sites.size()),
      Observed(M.Outputs.size(), aimz_view{nullptr, nullptr}),
      Post(M.Sites.size(), aimz_view{nullptr, nullptr}) {
  for (const HostArray &H : Data.Inputs)
    InStrides.push_back(H.strides());
  for (size_t I = 0; I < Data.Inputs.size(); ++I)
    Inputs.push_back(
        {const_cast<void *>(Data.Inputs[I].Data), InStrides[I].data()});
  for (size_t O = 0; O < Data.Observed.size() && O < M.Outputs.size(); ++O)
    if (Data.Observed[O]) {
      ObservedStrides[O] = Data.Observed[O]->strides();
      Observed[O] = {const_cast<void *>(Data.Observed[O]->Data),
                     ObservedStrides[O].data()};
    }
  if (!Posterior)
    return;
  for (size_t S = 0; S < M.Sites.size(); ++S)
    if (Posterior->has(S)) {
      PostStrides[S] = Posterior->Sites[S]->strides();
      Post[S] = {const_cast<void *>(Posterior->Sites[S]->Data),
                 PostStrides[S].data()};
    }
}

} // namespace aimz::run
