//===- SineSkewed.cpp - NumPyro's SineSkewed ------------------------------===//
//
// SineSkewed(base_dist, skewness): a distribution on the K-torus, the base's
// density times 1 + sum_i skewness_i sin(x_i - loc_i). The base is a
// VonMises whose last batch axis (or broadcast parameters) is the torus
// (NumPyro's VonMises(...).to_event(1)); skewness's last axis is K, and
// NumPyro asks that its absolute values sum to at most 1 (NaN otherwise).
// The runtime's sineskewed_vonmises takes the base's parameters along the
// event, then the skewness.
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
  if (NB->Spec->canonical().Kind != DistKind::VonMises) {
    Diags.report(diag::E_COMPOSITE_ARG_KIND, NB->Call->Loc)
        << Spec.Name << "base_dist"
        << "a VonMises over the torus's angles; got " + NB->Call->Callee;
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
  if (!bindEventComposite(S, *NB,
                          {"skewness", Skew, Shape(1, Dim()),
                           SampleStmt::LoweredParam::Transform::None},
                          "skewness", Shape(D.begin(), D.end() - 1), R))
    return std::nullopt;
  return R;
}

} // namespace sema
} // namespace aimz
