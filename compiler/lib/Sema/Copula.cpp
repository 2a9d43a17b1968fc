//===- Copula.cpp - NumPyro's GaussianCopula ------------------------------===//
//
// GaussianCopula(marginal_dist, correlation_matrix= | correlation_cholesky=):
// a vector whose coordinates follow the marginal (its last batch axis is
// the event axis, or its parameters broadcast along it), coupled by a
// multivariate normal of that correlation. The marginal is any continuous
// distribution of numbers with a CDF (the censorable bases); the runtime's
// copula_<base> takes the base's parameters along the event, then the
// correlation's Cholesky factor (a correlation_matrix is factored).
// GaussianCopulaBeta is GaussianCopula(Beta(...), ...) (DistributionSugar).
//
//===----------------------------------------------------------------------===//
#include "Analyzer.h"

namespace aimz {
namespace sema {

/// The correlation argument: exactly one of the two, a square matrix (its
/// size K, its leading axes a batch), passed as its Cholesky factor.
std::optional<SampleStmt::LoweredParam>
Analyzer::bindCorrelation(SampleStmt &S, const char *&Name, Dim &K,
                          Shape &Batch) {
  const DistSpec &Spec = *S.Spec;
  ExprPtr Matrix = compositeArg(S, 1), Factor = compositeArg(S, 2);
  if (!Matrix == !Factor) {
    Diags.report(diag::E_EXACTLY_ONE_OF, S.DistLoc)
        << Spec.Name << "correlation_matrix" << "correlation_cholesky"
        << (Matrix ? "; both were given" : "");
    return std::nullopt;
  }
  ExprPtr E = Matrix ? Matrix : Factor;
  Name = Matrix ? "correlation_matrix" : "correlation_cholesky";
  if (!analyzeExpr(*E))
    return std::nullopt;
  const Shape &D = E->Ty.Dims;
  if (!isNumeric(E->Ty.Type) || D.size() < 2 ||
      D[D.size() - 1] != D[D.size() - 2]) {
    Diags.report(diag::E_PARAMETER_NOT_MATRIX, E->Loc)
        << Name << Spec.Name << shapeStr(D) << "K, K";
    return std::nullopt;
  }
  Batch.assign(D.begin(), D.end() - 2);
  K = D.back();
  using Fn = SampleStmt::LoweredParam::Transform;
  return SampleStmt::LoweredParam{"scale_tril", E, Shape(2, Dim()),
                                  Matrix ? Fn::Cholesky : Fn::None};
}

std::optional<Analyzer::BoundCall> Analyzer::bindCopula(SampleStmt &S) {
  const DistSpec &Spec = *S.Spec;
  auto NB = bindNumberBase(S);
  if (!NB)
    return std::nullopt;
  if (NB->Symbol.empty() || !isCensorable(NB->Symbol) || NB->Spec->Discrete) {
    Diags.report(diag::E_CENSORED_BASE, NB->Call->Loc)
        << Spec.Name << "continuous distribution of numbers with a CDF"
        << cdfBaseList(/*ContinuousOnly=*/true) << NB->Call->Callee;
    return std::nullopt;
  }
  const char *Name = nullptr;
  Dim K;
  Shape MatrixBatch;
  auto Factor = bindCorrelation(S, Name, K, MatrixBatch);
  if (!Factor)
    return std::nullopt;
  BoundCall R;
  R.Dist = compositeName(Spec.Kind, NB->Name);
  R.ValueEventRank = 1;
  R.EventSize = K;
  if (!bindEventComposite(S, *NB, std::move(*Factor), Name, MatrixBatch, R))
    return std::nullopt;
  return R;
}

} // namespace sema
} // namespace aimz
