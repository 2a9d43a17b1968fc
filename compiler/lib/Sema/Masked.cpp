//===- Masked.cpp - NumPyro's MaskedDistribution --------------------------===//
//
// MaskedDistribution(base, mask), NumPyro's `base.mask(m)`: a value scores
// the base's log density where the mask is true and 0 where it is false
// (a missing observation contributes nothing, whatever is stored there);
// draws are the base's. The base is any distribution of numbers, composites
// over numbers included: its bound call is kept whole and the mask is
// passed last ("Masked(<base's dist>)"), so the lowering calls the base's
// row and selects.
//
//===----------------------------------------------------------------------===//
#include "Analyzer.h"

namespace aimz {
namespace sema {

std::optional<Analyzer::BoundCall> Analyzer::bindMasked(SampleStmt &S,
                                                        bool IsOutput) {
  const CallExpr *BaseCall = distributionArg(S, 0, "a distribution call");
  if (!BaseCall)
    return std::nullopt;
  const DistSpec *Base = lookupDistribution(BaseCall->Callee);
  bool Numbers = !Base->hasEvent() && !Base->Improper &&
                 Base->Kind != DistKind::MaskedDistribution &&
                 Base->Kind != DistKind::MixtureSameFamily &&
                 Base->Kind != DistKind::TransformedDistribution;
  if (!Numbers) {
    Diags.report(diag::E_MASKED_BASE, BaseCall->Loc) << BaseCall->Callee;
    return std::nullopt;
  }
  SampleStmt Site(BaseCall->Loc, S.Name, BaseCall->Loc, BaseCall->Callee,
                  BaseCall->Loc, BaseCall->Args, std::nullopt);
  Site.Spec = Base;
  auto R = bindSampleCall(Site, *Base, IsOutput);
  if (!R || !R->Ok || !R->Batch)
    return std::nullopt;
  ExprPtr Mask = compositeArg(S, 1);
  if (!Mask) {
    Diags.report(diag::E_COMPOSITE_MISSING, S.DistLoc) << S.Spec->Name
                                                        << "mask";
    return std::nullopt;
  }
  R->Dist = "Masked(" + R->Dist + ")";
  // A bool or a number (non-zero: scored), broadcast to the site's batch.
  if (!bindTrailingParam("mask", Mask, *R, {}))
    return std::nullopt;
  return R;
}

} // namespace sema
} // namespace aimz
