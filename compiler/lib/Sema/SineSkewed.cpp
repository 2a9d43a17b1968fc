//===- SineSkewed.cpp - NumPyro's SineSkewed ------------------------------===//
//
// SineSkewed(base_dist, skewness): a distribution on the K-torus, the base's
// density times 1 + sum_i skewness_i sin(x_i - loc_i). The base is a
// VonMises whose last batch axis (or broadcast parameters) is the torus
// (NumPyro's VonMises(...).to_event(1)), or a SineBivariateVonMises (the
// 2-torus, loc its (phi_loc, psi_loc); NumPyro's example of protein
// dihedral angles); skewness's last axis is K, and NumPyro asks that its
// absolute values sum to at most 1 (NaN otherwise). The runtime's
// sineskewed_vonmises takes the base's parameters along the event, then
// the skewness; sineskewed_sinebivariatevonmises_* the base's (batch)
// parameters, then the skewness.
//
//===----------------------------------------------------------------------===//
#include "Analyzer.h"

namespace aimz {
namespace sema {

std::optional<Analyzer::BoundCall> Analyzer::bindSineSkewed(SampleStmt &S) {
  const DistSpec &Spec = *S.Spec;
  auto NB = bindNumberBase(S);
  if (!NB)
    return std::nullopt;
  const DistKind BaseKind = NB->Spec->canonical().Kind;
  if (BaseKind != DistKind::VonMises &&
      BaseKind != DistKind::SineBivariateVonMises) {
    Diags.report(diag::E_COMPOSITE_ARG_KIND, NB->Call->Loc)
        << Spec.Name << "base_dist"
        << "a VonMises over the torus's angles or a SineBivariateVonMises; "
           "got " + NB->Call->Callee;
    return std::nullopt;
  }
  ExprPtr Skew = compositeArg(S, 1);
  if (!Skew) {
    Diags.report(diag::E_COMPOSITE_MISSING, S.DistLoc) << Spec.Name
                                                        << "skewness";
    return std::nullopt;
  }
  if (!analyzeExpr(*Skew))
    return std::nullopt;
  const Shape &D = Skew->Ty.Dims;
  if (!isNumeric(Skew->Ty.Type) || D.empty()) {
    Diags.report(diag::E_COMPOSITE_ARG_KIND, Skew->Loc)
        << Spec.Name << "skewness"
        << "a vector of numbers, one per angle of the torus (shape [..., "
           "K]); got shape " + shapeStr(D);
    return std::nullopt;
  }
  BoundCall R;
  R.Dist = compositeName(Spec.Kind, NB->Spec->canonical().Name);
  R.ValueEventRank = 1;
  R.EventSize = D.back();
  SampleStmt::LoweredParam Skewness{"skewness", Skew, Shape(1, Dim()),
                                    SampleStmt::LoweredParam::Transform::None};
  if (BaseKind == DistKind::SineBivariateVonMises)
    return bindBivariateSkewed(S, *NB, std::move(Skewness), R) ? std::optional(R)
                                                              : std::nullopt;
  if (!bindEventComposite(S, *NB,
                          {"skewness", Skew, Shape(1, Dim()),
                           SampleStmt::LoweredParam::Transform::None},
                          "skewness", Shape(D.begin(), D.end() - 1), R))
    return std::nullopt;
  return R;
}

/// SineSkewed over a SineBivariateVonMises: the pair is the event, so
/// skewness's last axis is 2 and the base's parameters stay batch.
bool Analyzer::bindBivariateSkewed(SampleStmt &S, const NumberBase &NB,
                                   SampleStmt::LoweredParam Skewness,
                                   BoundCall &R) {
  const Shape &D = Skewness.Value->Ty.Dims;
  if (D.back() != Dim::known(2)) {
    Diags.report(diag::E_PARAMETER_EVENT_MISMATCH, Skewness.Value->Loc)
        << "skewness" << S.Spec->Name << shapeStr({D.back()})
        << "the SineBivariateVonMises's pair of angles [2]";
    return false;
  }
  R.Params = NB.Bound.Params;
  R.Params.push_back(std::move(Skewness));
  const Shape SkewBatch(D.begin(), D.end() - 1);
  R.Batch = broadcastShapes(*NB.Bound.Batch, SkewBatch);
  if (!R.Batch) {
    Diags.report(diag::E_PARAMETER_BATCH_MISMATCH, S.DistLoc)
        << "skewness" << S.Spec->Name << "batch shape" << shapeStr(SkewBatch)
        << shapeStr(*NB.Bound.Batch);
    return false;
  }
  return true;
}

} // namespace sema
} // namespace aimz
