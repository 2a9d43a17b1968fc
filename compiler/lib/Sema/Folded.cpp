//===- Folded.cpp - NumPyro's FoldedDistribution --------------------------===//
//
// FoldedDistribution(base) is |X| for X drawn from a univariate base on the
// whole real line: the base's parameters go to the runtime's
// folded_<base> row (FoldedDistributions.def), whose density at x >= 0 is
// f(x) + f(-x) and whose draw is the base's, reflected.
//
//===----------------------------------------------------------------------===//
#include "Analyzer.h"

namespace aimz {
namespace sema {

std::optional<Analyzer::BoundCall> Analyzer::bindFolded(SampleStmt &S) {
  auto NB = bindNumberBase(S);
  if (!NB)
    return std::nullopt;
  if (NB->Symbol.empty() || !isFoldable(NB->Symbol)) {
    Diags.report(diag::E_FOLDED_BASE, NB->Call->Loc)
        << llvm::join(foldableBases(), ", ") << NB->Call->Callee;
    return std::nullopt;
  }
  BoundCall R = NB->Bound;
  R.Dist = compositeName(DistKind::FoldedDistribution, NB->Spec->canonical().Name);
  return R;
}

} // namespace sema
} // namespace aimz
