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

/// The correlation argument: exactly one of the two, a square matrix; its
/// factor becomes the last parameter, its leading axes a batch.
bool Analyzer::bindCorrelation(SampleStmt &S, BoundCall &R, Shape &Batch) {
  const DistSpec &Spec = *S.Spec;
  ExprPtr Matrix = compositeArg(S, 1), Factor = compositeArg(S, 2);
  if (!Matrix == !Factor) {
    Diags.report(diag::E_EXACTLY_ONE_OF, S.DistLoc)
        << Spec.Name << "correlation_matrix" << "correlation_cholesky"
        << (Matrix ? "; both were given" : "");
    return false;
  }
  ExprPtr E = Matrix ? Matrix : Factor;
  const char *Name = Matrix ? "correlation_matrix" : "correlation_cholesky";
  if (!analyzeExpr(*E))
    return false;
  const Shape &D = E->Ty.Dims;
  if (!isNumeric(E->Ty.Type) || D.size() < 2 || D[D.size() - 1] != D[D.size() - 2]) {
    Diags.report(diag::E_PARAMETER_NOT_MATRIX, E->Loc)
        << Name << Spec.Name << shapeStr(D);
    return false;
  }
  Batch.assign(D.begin(), D.end() - 2);
  R.EventSize = D.back();
  using Fn = SampleStmt::LoweredParam::Transform;
  R.Params.push_back({"scale_tril", E, Shape(2, Dim()),
                      Matrix ? Fn::Cholesky : Fn::None});
  return true;
}

std::optional<Analyzer::BoundCall> Analyzer::bindCopula(SampleStmt &S) {
  const DistSpec &Spec = *S.Spec;
  auto NB = bindNumberBase(S);
  if (!NB)
    return std::nullopt;
  if (NB->Symbol.empty() || !isCensorable(NB->Symbol)) {
    std::vector<std::string> Names;
    for (const char *B : truncatableBases())
      if (const DistSpec *D = lookupDistribution(B); D && !D->Discrete)
        Names.push_back(B);
    Diags.report(diag::E_CENSORED_BASE, NB->Call->Loc)
        << Spec.Name << llvm::join(Names, ", ") << NB->Call->Callee;
    return std::nullopt;
  }
  BoundCall R;
  R.Dist = compositeName(Spec.Kind, NB->Spec->canonical().Name);
  R.ValueEventRank = 1;
  for (SampleStmt::LoweredParam P : NB->Bound.Params) {
    P.Target = Shape(1, Dim()); // along the event
    R.Params.push_back(P);
  }
  Shape MatrixBatch;
  if (!bindCorrelation(S, R, MatrixBatch))
    return std::nullopt;
  // The marginal's last batch axis is the event (NumPyro's rule); a
  // marginal without one broadcasts along it.
  Shape Marginal = *NB->Bound.Batch;
  if (!Marginal.empty()) {
    if (Marginal.back() != *R.EventSize && !Marginal.back().isOne()) {
      Diags.report(diag::E_PARAMETER_EVENT_MISMATCH, NB->Call->Loc)
          << "marginal_dist" << Spec.Name
          << shapeStr({Marginal.back()})
          << "the correlation's event size " + shapeStr({*R.EventSize});
      return std::nullopt;
    }
    Marginal.pop_back();
  }
  R.Batch = broadcastShapes(Marginal, MatrixBatch);
  if (!R.Batch) {
    Diags.report(diag::E_PARAMETER_BATCH_MISMATCH, S.DistLoc)
        << "marginal_dist" << Spec.Name << "batch shape" << shapeStr(Marginal)
        << shapeStr(MatrixBatch);
    return std::nullopt;
  }
  return R;
}

} // namespace sema
} // namespace aimz
