//===- DistributionMethods.cpp - NumPyro's methods on a site's distribution ===//
//
// NumPyro shapes a distribution by methods on it; a site here takes the
// most used ones and rewrites itself by them before it is checked:
//
//   Normal(0, 1).expand([k])     the site's shape, as Normal(0, 1)[k]
//                                (NumPyro's batch shape: a tuple, a list
//                                or one size)
//   Normal(0, 1).to_event(1)     nothing for a latent (its draws and its
//                                value are the same); refused on an
//                                output, whose log-likelihood NumPyro
//                                would sum over those axes and aimz-run
//                                scores elementwise (E0453), so that the
//                                spelling never changes what a result means
//   Normal(mu, s).mask(m)        MaskedDistribution(Normal(mu, s), m)
//
//===----------------------------------------------------------------------===//
#include "Analyzer.h"
#include "SyntaxBuilders.h"

namespace aimz {
namespace sema {

namespace {

/// The one argument of a method (positional or under `Keyword`), or null.
const Arg *onlyArg(const DistMethod &M, llvm::StringRef Keyword) {
  if (M.Args.size() != 1)
    return nullptr;
  const Arg &A = M.Args.front();
  return A.Keyword.empty() || A.Keyword == Keyword ? &A : nullptr;
}

} // namespace

bool Analyzer::applyDistMethods(SampleStmt &S, bool IsOutput) {
  for (const DistMethod &M : S.Methods) {
    if (M.Name == "expand") {
      const Arg *A = onlyArg(M, "batch_shape");
      if (!A) {
        Diags.report(diag::E_DIST_METHOD_ARGS, M.Loc)
            << M.Name << "one shape, as .expand([k]) or .expand((n, k))";
        return false;
      }
      if (S.ExplicitShape) {
        Diags.report(diag::E_EXPAND_AND_SHAPE, M.Loc) << S.Name;
        return false;
      }
      S.ExplicitShape = shapeSyntaxOf(A->Value);
    } else if (M.Name == "to_event") {
      const Arg *A = onlyArg(M, "reinterpreted_batch_ndims");
      const auto *N = A ? llvm::dyn_cast<NumberExpr>(A->Value.get()) : nullptr;
      if (!M.Args.empty() && !(N && N->IsInteger && N->Value >= 0)) {
        Diags.report(diag::E_DIST_METHOD_ARGS, M.Loc)
            << M.Name << "a number of axes, a whole number, as .to_event(1)";
        return false;
      }
      if (IsOutput && !(N && N->Value == 0)) {
        Diags.report(diag::E_TO_EVENT_OUTPUT, M.Loc) << S.Name;
        return false;
      }
    } else if (M.Name == "mask") {
      const Arg *A = onlyArg(M, "mask");
      if (!A) {
        Diags.report(diag::E_DIST_METHOD_ARGS, M.Loc)
            << M.Name << "one mask, as .mask(observed)";
        return false;
      }
      auto Base = std::make_shared<CallExpr>(S.DistLoc, S.Dist,
                                             std::move(S.Args));
      S.Args = {Arg{"", S.DistLoc, Base}, *A};
      S.Dist = "MaskedDistribution";
    } else {
      Diags.report(diag::E_DIST_METHOD_UNKNOWN, M.Loc) << M.Name;
      return false;
    }
  }
  return true;
}

} // namespace sema
} // namespace aimz
