//===- Manifest.cpp - The model's self-description ------------------------===//
#include "aimz/Manifest.h"
#include "aimz/ManifestSchema.h"
#include "aimz/Distributions.h"
#include "aimz/Sema.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstring>

namespace aimz {
namespace {

using Json = nlohmann::ordered_json;

Json shapeJSON(const Shape &S) {
  Json Out = Json::array();
  for (const Dim &D : S)
    if (D.isSymbol())
      Out.push_back(D.Symbol);
    else
      Out.push_back(D.Extent);
  return Out;
}

Json arrayJSON(const TypedArray &A) {
  return Json{{manifest::Name, A.Name},
              {manifest::DType, dtypeName(A.Type)},
              {manifest::Shape, shapeJSON(A.Dims)}};
}

/// A plate's name per axis, null where the axis lies in none.
Json platesJSON(const std::vector<std::string> &Plates) {
  Json Out = Json::array();
  for (const std::string &P : Plates)
    Out.push_back(P.empty() ? Json(nullptr) : Json(P));
  return Out;
}

/// The distribution a sampled site's row names.
std::string distLabel(const Site &S) {
  return S.DistLabel.empty() ? std::string(S.Dist->Name) : S.DistLabel;
}

} // namespace

std::string manifestJSON(const ModelInfo &Info) {
  Json M;
  M[manifest::Model] = Info.Name;
  M[manifest::ObsDim] = Info.ObsDim;
  M[manifest::Plan] = planName(Info.ChosenPlan);
  M[manifest::PlanReason] = Info.PlanReason;
  if (Info.JointObservations)
    M[manifest::JointObservations] = true;
  M[manifest::Precision] = dtypeName(Info.Precision);
  M[manifest::Dims] = Info.Symbols;
  if (!Info.PosteriorDims.empty())
    M[manifest::PosteriorDims] = Info.PosteriorDims;
  Json Inputs = Json::array();
  for (const TypedArray &I : Info.Inputs)
    Inputs.push_back(arrayJSON(I));
  M[manifest::Inputs] = Inputs;
  Json Outputs = Json::array();
  for (const TypedArray &O : Info.Outputs)
    Outputs.push_back(arrayJSON(O));
  M[manifest::Outputs] = Outputs;
  Json Sites = Json::array();
  for (const Site &S : Info.Sites) {
    Json J;
    J[manifest::Name] = S.Name;
    J[manifest::Kind] = siteKindName(S.Kind);
    J[manifest::Class] = siteClassName(S.Class);
    if (S.Dist)
      J[manifest::Dist] = distLabel(S);
    if (!S.Support.empty())
      J[manifest::Support] = S.Support;
    if (S.EventRank)
      J[manifest::EventRank] = S.EventRank;
    if (S.ScoreOnly)
      J[manifest::ScoreOnly] = true;
    J[manifest::DType] = dtypeName(S.Type);
    J[manifest::Shape] = shapeJSON(S.Dims);
    J[manifest::Plates] = platesJSON(S.Plates);
    Sites.push_back(J);
  }
  M[manifest::Sites] = Sites;
  if (!Info.DerivedInputs.empty()) {
    Json Derived = Json::array();
    for (const ModelInfo::DerivedInput &D : Info.DerivedInputs) {
      Json J = arrayJSON({D.Name, D.Type, D.Dims});
      J[manifest::DerivedOp] = D.Op;
      if (D.Argument) {
        Json A = arrayJSON({D.Name, D.ArgumentType, D.ArgumentDims});
        A.erase(manifest::Name);
        A[manifest::ArgumentSlot] = D.ArgumentSlot;
        J[manifest::DerivedArgument] = A;
        J[manifest::DerivedRound] = D.Round;
      } else {
        J[manifest::DerivedOf] = D.Input;
      }
      J[manifest::DerivedAxis] = D.AllAxes ? Json("all") : Json(0);
      Derived.push_back(J);
    }
    M[manifest::DerivedInputs] = Derived;
  }
  if (!Info.IndexInputs.empty()) {
    Json Uses = Json::array();
    for (const ModelInfo::IndexUse &U : Info.IndexInputs)
      Uses.push_back({{manifest::IndexInput, U.Input}, {manifest::IndexDim, shapeJSON({U.Extent})[0]}});
    M[manifest::IndexInputs] = Uses;
  }
  if (!Info.DimChecks.empty()) {
    Json Checks = Json::array();
    for (const ModelInfo::DimCheck &C : Info.DimChecks)
      Checks.push_back({{manifest::CheckExpr, C.Expr},
                        {manifest::CheckWhat, C.What}});
    M[manifest::DimChecks] = Checks;
  }
  return M.dump();
}

void printSiteTable(const ModelInfo &Info, llvm::raw_ostream &OS) {
  OS << "model " << Info.Name << "    observation axis: " << Info.ObsDim
     << "    plan: " << planName(Info.ChosenPlan);
  if (!Info.PlanReason.empty()) {
    OS << " (forced by";
    for (const std::string &R : Info.PlanReason)
      OS << " " << R;
    OS << ")";
  }
  OS << "    precision: " << dtypeName(Info.Precision) << "\n";
  // The dist column fits the longest name (at least 12 wide).
  size_t DistWidth = 12;
  for (const Site &S : Info.Sites)
    if (S.Dist)
      DistWidth = std::max(DistWidth, distLabel(S).size() + 1);
  OS << llvm::left_justify("site", 16) << llvm::left_justify("kind", 15)
     << llvm::left_justify("class", 13) << llvm::left_justify("dist", DistWidth)
     << llvm::left_justify("dtype", 7) << "shape\n";
  for (const Site &S : Info.Sites)
    OS << llvm::left_justify(S.Name, 15) << " "
       << llvm::left_justify(siteKindName(S.Kind), 15)
       << llvm::left_justify(siteClassName(S.Class), 13)
       << llvm::left_justify(S.Dist ? distLabel(S) : "-", DistWidth)
       << llvm::left_justify(dtypeName(S.Type), 7) << shapeStr(S.Dims)
       << "\n";
}

} // namespace aimz
