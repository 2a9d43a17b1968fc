//===- CoordinateArrays.cpp - A result's labels as coordinate variables ---===//
#include "CoordinateArrays.h"
#include "RunError.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"

#include <map>
#include <set>

namespace aimz::run {

namespace {

using GroupDim = std::pair<std::string, std::string>; // group, dim name

/// The dims the result's arrays have, by group, with their extents and the
/// first array that has each (for messages); and which model dim (a
/// manifest symbol or constant extent) each axis of a site's array is.
struct DimUses {
  std::map<GroupDim, uint64_t> Extent;
  std::map<GroupDim, std::string> Array;
  std::vector<std::pair<ManifestDim, GroupDim>> OfModelDim;
};

DimUses dimUses(const Manifest &M, const RunPlan &P) {
  DimUses U;
  for (const OutputArray &O : P.Outs) {
    const std::string G = O.group();
    for (size_t I = 0; I < O.DimNames.size() && I < O.Shape.size(); ++I) {
      U.Extent.emplace(GroupDim{G, O.DimNames[I]}, O.Shape[I]);
      U.Array.emplace(GroupDim{G, O.DimNames[I]}, O.Path);
    }
    if (O.Site < 0 || O.DimNames.size() != O.Shape.size())
      continue;
    // A log-likelihood leaves out a site's event axes: the leading ones
    // remain, in order.
    const std::vector<ManifestDim> &Shape = M.Sites[O.Site].Shape;
    const size_t Lead = O.Shape.size() - O.Extents.size();
    for (size_t I = 0; I < O.Extents.size() && I < Shape.size(); ++I)
      U.OfModelDim.emplace_back(Shape[I], GroupDim{G, O.DimNames[Lead + I]});
  }
  return U;
}

std::string dimString(const ManifestDim &D) {
  if (const auto *S = std::get_if<std::string>(&D))
    return *S;
  return std::to_string(std::get<int64_t>(D));
}

std::string describe(const DimLabels &L, const std::string &Fallback) {
  return L.From.empty() ? Fallback : L.From;
}

/// Labels for the model's dim D (an index input's, the observations'):
/// checked against D's extent, then given to every name the result has
/// for D. A constant extent that two plates share (plate a(8), plate b(8))
/// does not say which one the labels are for: those are left out, with a
/// warning.
llvm::Error labelModelDim(const Manifest &M, const DataSet &Data,
                          const ManifestDim &D, const DimLabels &L,
                          const std::string &What, const DimUses &U,
                          std::map<GroupDim, const DimLabels *> &Chosen,
                          Warnings &W) {
  std::set<std::string> Plates; // the model's plates of extent D
  for (const ManifestSite &S : M.Sites)
    for (size_t I = 0; I < S.Shape.size(); ++I)
      if (S.Shape[I] == D && !S.plate(I).empty())
        Plates.insert(S.plate(I).str());
  std::optional<int64_t> Extent;
  if (const auto *N = std::get_if<int64_t>(&D))
    Extent = *N;
  else if (auto B = Data.Bindings.find(std::get<std::string>(D));
           B != Data.Bindings.end())
    Extent = B->second;
  if (Extent && static_cast<uint64_t>(*Extent) != L.size()) {
    std::string Dim = std::holds_alternative<std::string>(D)
                          ? "dim " + dimString(D) + " of model '" + M.Model + "'"
                          : "a dim of model '" + M.Model + "'";
    if (!Plates.empty())
      Dim += " (plate " + llvm::join(Plates.begin(), Plates.end(), ", ") + ")";
    return error(What + " are " + std::to_string(L.size()) +
                 " labels, but they label " + Dim + ", which has " +
                 std::to_string(*Extent) + " elements: the codes would "
                 "select elements other than their labels name; give every "
                 "label of the fit, in the fit's order (pandas: "
                 "pd.Categorical(values, categories=fit_categories))");
  }
  if (std::holds_alternative<int64_t>(D) && Plates.size() > 1) {
    W.push_back(What + " are left out: plates " +
                llvm::join(Plates.begin(), Plates.end(), " and ") +
                " both have " + dimString(D) + " elements, so which one " +
                "they label is ambiguous; give coords={plate: labels}");
    return llvm::Error::success();
  }
  for (const auto &[Of, K] : U.OfModelDim)
    if (Of == D)
      Chosen[K] = &L;
  return llvm::Error::success();
}

/// The user's labels of Dim by name, on every group that has the dim.
llvm::Error labelNamedDim(const std::string &Dim, const DimLabels &L,
                          const DimUses &U,
                          std::map<GroupDim, const DimLabels *> &Chosen,
                          Warnings &W) {
  bool Found = false;
  for (const auto &[K, Extent] : U.Extent) {
    if (K.second != Dim)
      continue;
    Found = true;
    if (Extent != L.size())
      return error(describe(L, "coords '" + Dim + "'") + " gives " +
                   std::to_string(L.size()) + " labels, but " +
                   "dim '" + Dim + "' of '" + U.Array.at(K) + "' has " +
                   std::to_string(Extent) + " elements; give one label "
                   "per element");
    Chosen[K] = &L;
  }
  if (!Found) {
    std::set<std::string> Dims;
    for (const auto &[K, Extent] : U.Extent)
      Dims.insert(K.second);
    W.push_back("coords '" + Dim + "' labels no dim of the result; its "
                "dims are " + llvm::join(Dims.begin(), Dims.end(), ", "));
  }
  return llvm::Error::success();
}

/// Which labels each (group, dim) gets, the posterior's first so that the
/// user's replace them (the posterior's never label the observations).
llvm::Expected<std::map<GroupDim, const DimLabels *>>
chooseLabels(const Manifest &M, const DataSet &Data, const Posterior *Post,
             const RunOptions &Opts, const DimUses &U, Warnings &W) {
  std::map<GroupDim, const DimLabels *> Chosen;
  // The observations' labels are the data's, not the fit's: new data of
  // the fit's size must not take the fit's row names.
  std::set<GroupDim> Observations;
  for (const auto &[Of, K] : U.OfModelDim)
    if (!M.ObsDim.empty() && Of == ManifestDim(M.ObsDim))
      Observations.insert(K);
  if (Post && Opts.Kind != EntryKind::PriorPredictive)
    for (const auto &[K, Extent] : U.Extent)
      if (auto C = Post->Coords.find(K.second);
          C != Post->Coords.end() && C->second.size() == Extent &&
          !Observations.count(K))
        Chosen[K] = &C->second;
  if (Opts.ObsLabels && !M.ObsDim.empty())
    if (llvm::Error E = labelModelDim(
            M, Data, ManifestDim(M.ObsDim), *Opts.ObsLabels,
            describe(*Opts.ObsLabels, "the observations' labels"), U, Chosen,
            W))
      return std::move(E);
  for (const auto &[Input, L] : Opts.IndexLabels) {
    auto Use = llvm::find_if(M.IndexInputs, [&](const Manifest::IndexUse &I) {
      return I.Input == Input;
    });
    if (Use == M.IndexInputs.end())
      continue; // a categorical input used as a number: no dim to label
    if (llvm::Error E = labelModelDim(
            M, Data, Use->Extent, L,
            describe(L, "the labels of index input '" + Input + "'"), U,
            Chosen, W))
      return std::move(E);
  }
  for (const auto &[Dim, L] : Opts.Coords)
    if (llvm::Error E = labelNamedDim(Dim, L, U, Chosen, W))
      return std::move(E);
  return Chosen;
}

} // namespace

llvm::Error addCoordinateArrays(const Manifest &M, const DataSet &Data,
                                const Posterior *Post, const RunOptions &Opts,
                                RunPlan &P, Warnings &W) {
  const DimUses U = dimUses(M, P);
  auto Chosen = chooseLabels(M, Data, Post, Opts, U, W);
  if (!Chosen)
    return Chosen.takeError();
  std::set<std::string> Paths;
  for (const OutputArray &O : P.Outs)
    Paths.insert(O.Path);
  for (const auto &[K, L] : *Chosen) {
    OutputArray O;
    O.Name = K.second;
    O.Path = K.first.empty() ? K.second : K.first + "/" + K.second;
    if (Paths.count(O.Path))
      continue; // an array of that name is there already
    O.Type = L->Values.Type;
    O.Coordinate = true;
    O.Labels = L->Values;
    O.TextWidth = L->TextWidth;
    O.Extents = O.Shape = {L->size()};
    O.ChunkRows = std::max<uint64_t>(L->size(), 1);
    O.Chunk = {O.ChunkRows};
    O.DimNames = {K.second};
    O.KernelChunk = O.Chunk;
    if (O.TextWidth)
      O.KernelChunk.push_back(O.TextWidth);
    O.setKernelStrides();
    P.Outs.push_back(std::move(O));
  }
  return llvm::Error::success();
}

} // namespace aimz::run
