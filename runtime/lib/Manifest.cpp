//===- Manifest.cpp - A compiled model's self-description -----------------===//
#include "aimz/run/Manifest.h"
#include "aimz/DimExpr.h"
#include "aimz/ManifestSchema.h"

#include <nlohmann/json.hpp>

namespace aimz::run {

static llvm::Error bad(const llvm::Twine &Why) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 "the model's manifest is malformed: " + Why);
}

static llvm::Expected<io::DType> dtypeOf(const std::string &Name) {
  if (Name == "f32")
    return io::DType::Float32;
  if (Name == "f64")
    return io::DType::Float64;
  if (Name == "i32")
    return io::DType::Int32;
  if (Name == "i64")
    return io::DType::Int64;
  if (Name == "bool")
    return io::DType::Bool;
  return bad("unknown dtype '" + Name + "'");
}

static llvm::Error readArray(const nlohmann::json &J, ManifestArray &A) {
  if (!J.is_object() || !J.contains(manifest::Name) || !J.contains(manifest::DType) ||
      !J.contains(manifest::Shape))
    return bad("an array lacks name, dtype or shape");
  A.Name = J[manifest::Name].get<std::string>();
  A.TypeName = J[manifest::DType].get<std::string>();
  auto T = dtypeOf(A.TypeName);
  if (!T)
    return T.takeError();
  A.Type = *T;
  for (const auto &D : J[manifest::Shape]) {
    if (D.is_string())
      A.Shape.push_back(D.get<std::string>());
    else if (D.is_number_integer())
      A.Shape.push_back(D.get<int64_t>());
    else
      return bad("a dimension is neither a name nor an integer");
  }
  return llvm::Error::success();
}

/// A site's "plates": a name or null per axis. Optional: a model compiled
/// before the key existed names no plates.
static llvm::Error readPlates(const nlohmann::json &J, ManifestSite &S) {
  auto It = J.find(manifest::Plates);
  if (It == J.end())
    return llvm::Error::success();
  if (!It->is_array() || It->size() != S.Shape.size())
    return bad("site '" + S.Name + "' needs a plate (or null) per axis");
  for (const auto &P : *It) {
    if (!P.is_null() && !P.is_string())
      return bad("site '" + S.Name + "' has a plate that is not a name");
    S.Plates.push_back(P.is_null() ? "" : P.get<std::string>());
  }
  return llvm::Error::success();
}

/// One entry of "sites" (a JSON error throws to Manifest::parse).
static llvm::Error readSite(const nlohmann::json &S, const Manifest &M,
                           ManifestSite &Site) {
  if (auto E = readArray(S, Site))
    return E;
  std::string Kind = S.at(manifest::Kind).get<std::string>();
  Site.Kind = Kind == "latent"          ? SiteKind::Latent
              : Kind == "deterministic" ? SiteKind::Deterministic
              : Kind == "factor"        ? SiteKind::Factor
                                        : SiteKind::Observed;
  Site.Class = S.value(manifest::Class, "");
  Site.Dist = S.value(manifest::Dist, "");
  Site.Support = S.value(manifest::Support, "");
  Site.EventRank = S.value(manifest::EventRank, 0u);
  Site.ScoreOnly = S.value(manifest::ScoreOnly, false);
  if (Site.EventRank > Site.Shape.size())
    return bad("site '" + Site.Name + "' has more event axes than axes");
  if (auto E = readPlates(S, Site))
    return E;
  Site.ObsAligned = M.obsAxis(Site.Shape) >= 0;
  return llvm::Error::success();
}

llvm::Expected<Manifest> Manifest::parse(llvm::StringRef Text) {
  nlohmann::json J = nlohmann::json::parse(Text.begin(), Text.end(), nullptr,
                                           /*allow_exceptions=*/false);
  if (J.is_discarded() || !J.is_object())
    return bad("not a JSON object");
  Manifest M;
  try {
    M.Model = J.at(manifest::Model).get<std::string>();
    M.ObsDim = J.at(manifest::ObsDim).get<std::string>();
    M.Plan = J.at(manifest::Plan).get<std::string>();
    M.PlanReason = J.at(manifest::PlanReason).get<std::vector<std::string>>();
    M.JointObservations = J.value(manifest::JointObservations, false);
    M.Dims = J.at(manifest::Dims).get<std::vector<std::string>>();
    M.PosteriorDims = J.value(manifest::PosteriorDims, std::vector<std::string>());
    for (const auto &U : J.value(manifest::IndexInputs, nlohmann::json::array())) {
      Manifest::IndexUse Use;
      Use.Input = U.at(manifest::IndexInput).get<std::string>();
      const auto &D = U.at(manifest::IndexDim);
      if (D.is_string())
        Use.Extent = D.get<std::string>();
      else
        Use.Extent = D.get<int64_t>();
      M.IndexInputs.push_back(std::move(Use));
    }
    for (const auto &C : J.value(manifest::DimChecks, nlohmann::json::array()))
      M.DimChecks.push_back({C.at(manifest::CheckExpr).get<std::string>(),
                             C.at(manifest::CheckWhat).get<std::string>()});
    auto P = dtypeOf(J.at(manifest::Precision).get<std::string>());
    if (!P)
      return P.takeError();
    M.Precision = *P;
    for (const auto &I : J.at(manifest::Inputs)) {
      ManifestArray A;
      if (auto E = readArray(I, A))
        return std::move(E);
      M.Inputs.push_back(std::move(A));
    }
    for (const auto &I : J.value(manifest::DerivedInputs,
                                 nlohmann::json::array())) {
      Manifest::DerivedInput D;
      if (auto E = readArray(I, D))
        return std::move(E);
      D.Op = I.at(manifest::DerivedOp).get<std::string>();
      if (I.contains(manifest::DerivedArgument)) {
        nlohmann::json A = I.at(manifest::DerivedArgument);
        A[manifest::Name] = D.Name;
        if (auto E = readArray(A, D.Argument))
          return std::move(E);
        D.ArgumentSlot = A.at(manifest::ArgumentSlot).get<int>();
        D.Round = I.at(manifest::DerivedRound).get<int>();
      } else {
        D.Input = I.at(manifest::DerivedOf).get<std::string>();
      }
      D.AllAxes = I.at(manifest::DerivedAxis).is_string();
      M.DerivedInputs.push_back(std::move(D));
    }
    if (!J.contains(manifest::Outputs) && J.contains("output"))
      return llvm::createStringError(
          llvm::inconvertibleErrorCode(),
          "the model was compiled by an older aimzc (its manifest has one "
          "'output', not 'outputs'); recompile it with this aimzc");
    for (const auto &O : J.at(manifest::Outputs)) {
      ManifestArray A;
      if (auto E = readArray(O, A))
        return std::move(E);
      M.Outputs.push_back(std::move(A));
    }
    for (const auto &S : J.at(manifest::Sites)) {
      ManifestSite Site;
      if (auto E = readSite(S, M, Site))
        return std::move(E);
      M.Sites.push_back(std::move(Site));
    }
  } catch (const nlohmann::json::exception &E) {
    return bad(E.what());
  }
  if (M.Outputs.empty())
    return bad("the model has no output");
  for (size_t I = 0; I < M.Outputs.size(); ++I)
    if (M.outputSiteIndex(I) < 0 ||
        M.Sites[M.outputSiteIndex(I)].Kind != SiteKind::Observed)
      return bad("the site of output '" + M.Outputs[I].Name + "' is missing");
  return M;
}

int Manifest::siteIndex(llvm::StringRef Name) const {
  for (size_t I = 0; I < Sites.size(); ++I)
    if (Sites[I].Name == Name)
      return static_cast<int>(I);
  return -1;
}

std::string Manifest::outputNames() const {
  std::string S;
  for (const ManifestArray &O : Outputs)
    S += (S.empty() ? "'" : ", '") + O.Name + "'";
  return S;
}

int Manifest::obsAxis(const std::vector<ManifestDim> &Shape) const {
  for (size_t I = 0; I < Shape.size(); ++I)
    if (const auto *S = std::get_if<std::string>(&Shape[I]); S && *S == ObsDim)
      return static_cast<int>(I);
  return -1;
}

bool isDerivedDim(const std::string &Text) {
  auto P = DimPoly::parse(Text);
  return P && !P->isSymbol();
}

std::optional<int64_t> dimValue(const std::string &Text,
                                const std::map<std::string, int64_t> &Bindings) {
  if (auto It = Bindings.find(Text); It != Bindings.end())
    return It->second;
  auto P = DimPoly::parse(Text);
  if (!P || P->isSymbol())
    return std::nullopt;
  return P->evaluate([&](const std::string &N) -> std::optional<int64_t> {
    auto It = Bindings.find(N);
    return It == Bindings.end() ? std::nullopt
                                : std::optional<int64_t>(It->second);
  });
}

llvm::Expected<std::vector<uint64_t>>
resolveShape(const std::vector<ManifestDim> &Shape,
             const std::map<std::string, int64_t> &Bindings) {
  std::vector<uint64_t> Out;
  for (const ManifestDim &D : Shape) {
    if (const auto *E = std::get_if<int64_t>(&D)) {
      Out.push_back(static_cast<uint64_t>(*E));
      continue;
    }
    const std::string &Name = std::get<std::string>(D);
    auto V = dimValue(Name, Bindings);
    if (!V)
      return llvm::createStringError(
          llvm::inconvertibleErrorCode(),
          "dimension '" + Name + "' is not bound by any input");
    if (*V < 0)
      return llvm::createStringError(
          llvm::inconvertibleErrorCode(),
          "dimension '" + Name + "' is " + std::to_string(*V) +
              ", below 0, with the dimensions the data gives");
    Out.push_back(static_cast<uint64_t>(*V));
  }
  return Out;
}

std::string shapeString(const std::vector<ManifestDim> &Shape) {
  std::string S = "[";
  for (size_t I = 0; I < Shape.size(); ++I) {
    if (I)
      S += ", ";
    if (const auto *N = std::get_if<std::string>(&Shape[I]))
      S += *N;
    else
      S += std::to_string(std::get<int64_t>(Shape[I]));
  }
  return S + "]";
}

} // namespace aimz::run
