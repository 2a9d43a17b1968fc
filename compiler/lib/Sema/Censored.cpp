//===- Censored.cpp - Censored likelihoods --------------------------------===//
//
// Survival analysis scores a value known only to lie beyond a point by the
// base's tail there:
//
//   RightCensoredDistribution(base, censored=c)   NumPyro: log S(y) where c
//   LeftCensoredDistribution(base, censored=c)    is non-zero (log F(y) for
//                                                 the left), else log f(y)
//   Censored(dist, lower=, upper=)                PyMC: a value at a bound
//                                                 is censored there
//   IntervalCensoredDistribution(base,            NumPyro: the value is
//       left_censored=l, right_censored=r)        (lower, upper): log F(upper)
//                                                 where only l, log S(lower)
//                                                 where only r, the mass
//                                                 outside where both, inside
//                                                 (a point's density) where
//                                                 neither
//
// over the bases with a CDF (runtime CdfDistributions.def): the continuous
// ones and the counts (Poisson, NegativeBinomial2, Binomial), whose value
// is then a count, PyMC's upper bound scored P(X >= upper). The
// runtime's censored_<base> / flagged_<base> / interval_<base> take the
// base's parameters and then two more: lower and upper, or the left and
// right indicators. Predictive draws are PyMC's clipped base draws, NumPyro's
// base draws, and for an interval the point interval (x, x) of a base draw.
//
//===----------------------------------------------------------------------===//
#include "Analyzer.h"

namespace aimz {
namespace sema {

std::optional<Analyzer::BoundCall> Analyzer::bindCensored(SampleStmt &S) {
  const DistSpec &Spec = *S.Spec;
  auto NB = bindNumberBase(S);
  if (!NB)
    return std::nullopt;
  const CallExpr *BaseCall = NB->Call;
  const DistSpec *Base = NB->Spec;
  if (NB->Symbol.empty() || !isCensorable(NB->Symbol)) {
    // Every truncatable base has a CDF, and every base with one censors.
    Diags.report(diag::E_CENSORED_BASE, BaseCall->Loc)
        << Spec.Name << "distribution of numbers with a CDF"
        << cdfBaseList(/*ContinuousOnly=*/false) << BaseCall->Callee;
    return std::nullopt;
  }
  BoundCall R;
  R.Dist = compositeName(Spec.Kind, NB->Name);
  R.Discrete = Base->Discrete; // a censored count is a count
  R.Params = NB->Bound.Params;
  R.Batch = NB->Bound.Batch;
  ExprPtr First, Second;
  const char *Names[2] = {"left", "right"};
  if (Spec.Kind == DistKind::Censored) {
    First = compositeArg(S, 1);
    Second = compositeArg(S, 2);
    Names[0] = "lower";
    Names[1] = "upper";
  } else if (Spec.Kind == DistKind::IntervalCensoredDistribution) {
    // Both indicators are required, as in NumPyro.
    First = compositeArg(S, 1);
    Second = compositeArg(S, 2);
    for (size_t I : {1, 2})
      if (!(I == 1 ? First : Second)) {
        Diags.report(diag::E_COMPOSITE_MISSING, S.DistLoc)
            << Spec.Name << Spec.Params[I].Name;
        return std::nullopt;
      }
    R.EventSize = Dim::known(2);
    R.ValueEventRank = 1;
  } else {
    ExprPtr Flag = compositeArg(S, 1);
    (Spec.Kind == DistKind::LeftCensoredDistribution ? First : Second) = Flag;
  }
  bool Ok = true;
  bool IsFlag = Spec.Kind != DistKind::Censored;
  for (int I = 0; I < 2; ++I) {
    ExprPtr E = I == 0 ? First : Second;
    if (!E) {
      E = precisionLiteral(S.DistLoc,
                           IsFlag ? 0.0 : I == 0 ? -HUGE_VAL : HUGE_VAL);
      R.Params.push_back({Names[I], E, Shape(),
                          SampleStmt::LoweredParam::Transform::None});
      continue;
    }
    auto NotNumber = [&, Name = Names[I]] {
      Diags.report(diag::E_CENSORED_PARAM, E->Loc)
          << Spec.Name << Name << "a number";
    };
    // An indicator may be a bool; a bound is a number.
    using Report = llvm::function_ref<void()>;
    Ok &= bindTrailingParam(Names[I], E, R,
                            IsFlag ? Report() : Report(NotNumber));
  }
  if (Ok && !IsFlag) {
    auto Lo = literalValue(*R.Params[R.Params.size() - 2].Value);
    auto Hi = literalValue(*R.Params.back().Value);
    if (Lo && Hi && !(*Lo < *Hi)) {
      Diags.report(diag::E_CENSORED_PARAM, S.DistLoc)
          << Spec.Name << "lower"
          << "below its 'upper'; got " + formatNumber(*Lo) + " and " +
                 formatNumber(*Hi);
      Ok = false;
    }
  }
  if (!Ok)
    return std::nullopt;
  return R;
}

} // namespace sema
} // namespace aimz
