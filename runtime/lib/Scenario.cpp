//===- Scenario.cpp - One scenario's inputs, posterior, interventions -----===//
#include "aimz/run/Scenario.h"
#include "RunError.h"

#include "llvm/ADT/STLExtras.h"

namespace aimz::run {
namespace {

std::string nameOf(const std::string &Arg) {
  return Arg.substr(0, Arg.find('='));
}

/// Data's inputs with Replacing's in place of those of the same name.
llvm::Expected<InputSource> mergedInputs(const InputSource &Data,
                                         const InputSource &Replacing,
                                         const std::string &Option) {
  InputSource Out;
  if (Replacing.Arrays) {
    if (!Data.Arrays)
      return error(Option + " needs the scenario's data as arrays "
                            "(a dict), not a file");
    Out.Arrays = *Data.Arrays;
    for (const auto &[Name, A] : *Replacing.Arrays)
      Out.Arrays->insert_or_assign(Name, A);
    return Out;
  }
  if (Data.Arrays && !Replacing.Files.empty())
    return error(Option + " names files, and the scenario's data are "
                          "arrays: give both the same way");
  Out = Data;
  llvm::erase_if(Out.Files, [&](const std::string &A) {
    return llvm::any_of(Replacing.Files, [&](const std::string &B) {
      return nameOf(B) == nameOf(A);
    });
  });
  Out.Files.insert(Out.Files.end(), Replacing.Files.begin(),
                   Replacing.Files.end());
  return Out;
}

} // namespace

std::vector<std::string> InputSource::names() const {
  std::vector<std::string> Names;
  if (Arrays)
    for (const auto &[Name, A] : *Arrays)
      Names.push_back(Name);
  for (const std::string &F : Files)
    if (F.find('=') != std::string::npos)
      Names.push_back(nameOf(F));
  return Names;
}

llvm::Expected<DataSet> InputSource::load(const Manifest &M,
                                          ObservedUse Observed, Warnings &W,
                                          int64_t NumObservations) const {
  if (Arrays)
    return dataFromArrays(M, *Arrays, Observed, W, NumObservations);
  return loadData(M, Files, Observed, W, NumObservations);
}

llvm::Error checkEffectInputNames(const Manifest &M, const InputSource &Data,
                                  const std::string &DataOption,
                                  const BaselineArgs &Base) {
  if (auto E = checkInputNames(M, Data.names(), DataOption,
                               /*OutputToo=*/true))
    return E;
  return checkInputNames(M, Base.Data.names(), Base.DataOption,
                         /*OutputToo=*/false);
}

llvm::Expected<Scenario> loadBaseline(const Manifest &M, const Scenario &S,
                                      const InputSource &Data,
                                      const BaselineArgs &Base,
                                      int64_t NumObservations, Warnings &W) {
  if (!S.Post)
    return error("internal error: effect's scenario has no posterior");
  auto Inputs = mergedInputs(Data, Base.Data, Base.DataOption);
  if (!Inputs)
    return Inputs.takeError();
  Warnings Own;
  auto BD = Inputs->load(M, ObservedUse::Ignore, Own, NumObservations);
  if (!BD)
    return error(Base.DataOption + ": " + llvm::toString(BD.takeError()));
  for (std::string &Line : Own)
    if (!llvm::is_contained(W, Line))
      W.push_back(std::move(Line));
  Scenario B;
  B.Data = std::move(*BD);
  if (auto E = checkSameDims(S.Data, B.Data, Base.DataOption))
    return std::move(E);
  // The dims the scenario's posterior or --dim bound: the same draws
  // bind them for the baseline.
  for (const auto &[Dim, Value] : S.Data.Bindings)
    B.Data.Bindings.emplace(Dim, Value);
  B.Post = *S.Post;
  B.Interventions = Base.Interventions;
  if (auto E = applyInterventions(M, B.Interventions, B.Data, *B.Post,
                                  Base.InterventionOption))
    return std::move(E);
  return B;
}

ScenarioSpec scenarioSpec(const Scenario &S, const Scenario *Base,
                          bool BaselineHasData, bool KeepScenarios) {
  ScenarioSpec Spec;
  Spec.Interventions = S.Interventions;
  if (Base) {
    // Recorded as baseline_data: whether the baseline has inputs of its
    // own (otherwise it reads the scenario's, as Base->Data does).
    Spec.BaselineData = BaselineHasData ? &Base->Data : nullptr;
    Spec.BaselinePost = &*Base->Post;
    Spec.BaselineInterventions = Base->Interventions;
    Spec.KeepScenarios = KeepScenarios;
  }
  return Spec;
}

} // namespace aimz::run
