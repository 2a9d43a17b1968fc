//===- SiteDemand.cpp - Which recorded sites need each op ----------------===//
#include "SiteDemand.h"
#include "EntryBuilder.h"

#include <algorithm>
#include <optional>

namespace aimz {
namespace lowering {

/// A test of more sites than this costs more than it saves.
static constexpr size_t MaxTestedSites = 16;

/// The result slot Op writes in entry Kind, if any.
static std::optional<int64_t> recordedSite(Operation *Op, Entry Kind) {
  if (auto S = dyn_cast<ir::SampleOp>(Op))
    return S.getSiteId();
  if (auto O = dyn_cast<ir::ObserveOp>(Op))
    return O.getSiteId();
  if (auto F = dyn_cast<ir::FactorOp>(Op))
    return Kind == Entry::LogLikelihood ? std::optional<int64_t>(F.getSiteId())
                                        : std::nullopt;
  if (auto D = dyn_cast<ir::DeterministicOp>(Op))
    return Kind == Entry::LogLikelihood ? std::nullopt
                                        : std::optional<int64_t>(D.getSiteId());
  return std::nullopt;
}

/// Ops that must run whatever is asked for.
static bool alwaysRuns(Operation *Op, Entry Kind) {
  // A gather reports indices out of range; the log-likelihood's observed
  // value is a view of the caller's data, not of scratch.
  return isa<ir::GatherOp>(Op) ||
         (Kind == Entry::LogLikelihood && isa<ir::ObserveOp>(Op));
}

DenseMap<Operation *, SiteDemand> computeSiteDemand(Block &Body, Entry Kind) {
  DenseMap<Operation *, SiteDemand> Demand;
  // Users come after their operands in a model body: one backward sweep.
  for (Operation &Op : llvm::reverse(Body)) {
    SiteDemand D;
    D.Always = alwaysRuns(&Op, Kind);
    if (std::optional<int64_t> S = recordedSite(&Op, Kind))
      D.Sites.push_back(*S);
    for (Value R : Op.getResults())
      for (Operation *U : R.getUsers()) {
        auto It = Demand.find(U);
        if (It == Demand.end()) {
          D.Always = true; // A user outside the body: be safe.
          continue;
        }
        D.Always |= It->second.Always;
        D.Sites.append(It->second.Sites.begin(), It->second.Sites.end());
      }
    llvm::sort(D.Sites);
    D.Sites.erase(std::unique(D.Sites.begin(), D.Sites.end()), D.Sites.end());
    if (D.Sites.size() > MaxTestedSites)
      D.Always = true;
    if (D.Always)
      D.Sites.clear();
    Demand[&Op] = std::move(D);
  }
  return Demand;
}

} // namespace lowering
} // namespace aimz
