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
  const CallExpr *BaseCall = distributionArg(S, 0, "a distribution call");
  if (!BaseCall)
    return std::nullopt;
  const DistSpec *Base = lookupDistribution(BaseCall->Callee);
  auto C = bindCall(*Base, BaseCall->Args, BaseCall->Loc);
  if (!C || !C->Ok || !C->Batch)
    return std::nullopt;
  std::vector<llvm::StringRef> Given;
  for (const SampleStmt::LoweredParam &P : C->Params)
    Given.push_back(P.Name);
  bool Numbers = !Base->hasEvent() && !Base->isComposite() && !Base->Improper;
  if (!Numbers || !isFoldable(runtimeSymbol(Base->canonical(), Given))) {
    Diags.report(diag::E_FOLDED_BASE, BaseCall->Loc)
        << llvm::join(foldableBases(), ", ") << BaseCall->Callee;
    return std::nullopt;
  }
  BoundCall R;
  R.Dist = compositeName(DistKind::FoldedDistribution, Base->canonical().Name);
  R.Params = C->Params;
  R.Batch = C->Batch;
  return R;
}

} // namespace sema
} // namespace aimz
