//===- Classification.cpp - Site classes and the plan --------------------===//
//
// Decided from the model alone, before anything runs: where aimz finds
// out at run time that a posterior cannot be sharded by observation, the
// plan here is part of the compiled model.
//
//===----------------------------------------------------------------------===//
#include "Analyzer.h"

namespace aimz {
namespace sema {

/// A site is joint when the observation axis is one of its `EventRank`
/// trailing (event) axes, observation-aligned when its shape has the axis
/// elsewhere, else global; an observed output that is not joint is classed
/// where it is recorded.
SiteClass Analyzer::classify(const Shape &Full, unsigned EventRank) const {
  Shape Event(Full.end() - std::min<size_t>(EventRank, Full.size()),
              Full.end());
  if (mentions(Event, Info.ObsDim))
    return SiteClass::Joint;
  return mentions(Full, Info.ObsDim) ? SiteClass::ObsAligned
                                     : SiteClass::Global;
}

/// `obs` when every latent is global: each shard needs only its rows and
/// the whole posterior. A latent with the observation axis has a value per
/// observation per draw, so only splitting the draws keeps shards apart:
/// `draw`, with the latents that force it as the reason. A joint site needs
/// every observation of a draw in one call: `draw` as well.
void Analyzer::choosePlan() {
  for (const Site &S : Info.Sites)
    if ((S.Kind == SiteKind::Latent && S.Class == SiteClass::ObsAligned) ||
        S.Class == SiteClass::Joint)
      Info.PlanReason.push_back(S.Name);
  Info.ChosenPlan = Info.PlanReason.empty() ? Plan::Obs : Plan::Draw;
}

} // namespace sema
} // namespace aimz
