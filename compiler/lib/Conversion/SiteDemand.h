//===- SiteDemand.h - Which recorded sites need each op --------*- C++ -*-===//
//
// Private to lib/Conversion. A run asks for some sites (--return-sites, or
// only the log-likelihood's observed sites); an op whose value reaches none
// of them is work thrown away. For every op of a model body this finds the
// sites it feeds, so an entry point can run the op only when one of them is
// asked for: exp(mu) for an unrequested `deterministic eta`, or a whole
// branch of the model that only an unrequested site reads.
//
// Random draws are addressed by (site, draw, observation, element), never
// by a running state, so skipping one site's draws changes no other site's.
//
//===----------------------------------------------------------------------===//
#ifndef AIMZ_CONVERSION_SITEDEMAND_H
#define AIMZ_CONVERSION_SITEDEMAND_H

#include "mlir/IR/Operation.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"

namespace aimz {
namespace lowering {

enum class Entry;

/// The recorded sites (result slots) an op's value flows into.
struct SiteDemand {
  /// Needed whatever is asked: its failure is reported (an index out of
  /// range), or its value is not in scratch, or it feeds too many sites
  /// for a cheap test.
  bool Always = false;
  /// Sorted, unique site ids; empty (and not Always): needed by nothing.
  llvm::SmallVector<int64_t, 4> Sites;
};

/// The demand of every op in Body (a model body, in order) for entry Kind.
llvm::DenseMap<mlir::Operation *, SiteDemand>
computeSiteDemand(mlir::Block &Body, Entry Kind);

} // namespace lowering
} // namespace aimz

#endif // AIMZ_CONVERSION_SITEDEMAND_H
