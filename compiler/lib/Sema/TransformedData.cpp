//===- TransformedData.cpp - Values computed from the data alone ----------===//
//
// `transformed xc = x - mean(x);` declares a value of the data (Stan's
// `transformed data`, brms's centred predictors). It may use inputs,
// constants, dimensions and earlier transformed values, and reduce an input
// along the observation axis (sum mean min max sd logsumexp): such a
// reduction is a derived input that the runtime computes once, from every
// observation, before the run, so a shard's values do not depend on the
// partition. Everything else in the expression is ordinary per-observation
// arithmetic.
//
//===----------------------------------------------------------------------===//
#include "Analyzer.h"
#include "aimz/Builtins.h"

namespace aimz {
namespace sema {

void Analyzer::analyzeTransformed(AssignStmt &S) {
  if (!Blocks.empty()) {
    Diags.report(diag::E_TRANSFORMED_IN_BLOCK, S.NameLoc)
        << Blocks.back().Block->Name;
    poison(S);
    return;
  }
  InTransformed = true;
  unsigned Errors = Diags.errorCount();
  bool Ok = analyzeExpr(*S.Value) && (!S.Inlined || checkDeclaredType(S));
  noteInlinedCall(S, Errors);
  InTransformed = false;
  if (!Ok) {
    poison(S);
    return;
  }
  define(S, {Symbol::Kind::Transformed, S.Value->Ty.Type, S.Value->Ty.Dims,
             S.NameLoc});
}

/// `mean(X[:, 1:], axis=0)`, `sd(X[:, 2])`: a statistic along the
/// observation axis of a view of an input that keeps that axis whole is the
/// view of the input's statistic, `mean(X, axis=0)[1:]` (brms's centring
/// of the design matrix without its intercept column). Nullopt when `E` is
/// not such a call.
std::optional<bool> Analyzer::viewOfDataReduction(CallExpr &E,
                                                  const Builtin &Fn) {
  auto *View = llvm::dyn_cast<IndexExpr>(E.Args[0].Value.get());
  if (!View || View->Basic.empty() || View->Indices.empty())
    return std::nullopt;
  auto *First = llvm::dyn_cast<AxisExpr>(View->Indices.front().get());
  auto *Input = llvm::dyn_cast<NameExpr>(View->Base.get());
  bool ColumnWise = E.Axis || View->Ty.Dims.size() == 1;
  if (!First || First->NewAxis || !Input || !ColumnWise ||
      llvm::any_of(View->Indices, [](const ExprPtr &I) {
        auto *A = llvm::dyn_cast<AxisExpr>(I.get());
        return A && A->NewAxis;
      }))
    return std::nullopt;
  auto Stat = std::make_shared<CallExpr>(
      E.Loc, E.Callee, std::vector<Arg>{{"", Input->Loc, View->Base}});
  Stat->Axis = 0;
  if (!analyzeDataReduction(*Stat, Fn))
    return false;
  std::vector<ExprPtr> Rest(View->Indices.begin() + 1, View->Indices.end());
  auto Out = std::make_shared<IndexExpr>(View->Loc, Stat, std::move(Rest));
  if (!analyzeSlices(*Out))
    return false;
  E.Ty = Out->Ty;
  E.Args.clear();
  E.Desugared = Out;
  return true;
}

bool Analyzer::analyzeDataReduction(CallExpr &E, const Builtin &Fn) {
  if (auto Done = viewOfDataReduction(E, Fn))
    return *Done;
  const Expr &Arg = *E.Args[0].Value;
  const auto *N = llvm::dyn_cast<NameExpr>(&Arg);
  auto It = N ? Names.find(N->Name) : Names.end();
  if (It == Names.end() || It->second.K != Symbol::Kind::Input) {
    Diags.report(diag::E_DATA_REDUCTION_NOT_INPUT, Arg.Loc)
        << E.Callee << Info.ObsDim;
    return false;
  }
  const std::string Op = Fn.Name == "log_sum_exp" ? "logsumexp"
                                                   : Fn.Name.str();
  if (Op != "sum" && Op != "mean" && Op != "min" && Op != "max" &&
      Op != "sd" && Op != "logsumexp") {
    Diags.report(diag::E_NOT_A_DATA_STATISTIC, E.Loc) << E.Callee;
    return false;
  }
  const ExprType &A = Arg.Ty;
  if (!isNumeric(A.Type) && Op != "sum" && Op != "mean") {
    Diags.report(diag::E_DATA_REDUCTION_BOOL, Arg.Loc) << E.Callee;
    return false;
  }
  ModelInfo::DerivedInput D;
  D.Op = Op;
  D.Input = N->Name;
  D.AllAxes = !E.Axis;
  D.Name = Op + "(" + N->Name + (D.AllAxes ? "" : ", axis=0") + ")";
  if (D.AllAxes) {
    D.Dims = {};
  } else {
    D.Dims = A.Dims;
    D.Dims.erase(D.Dims.begin() + *E.Axis);
  }
  // Statistics in the model's precision; a sum or extreme keeps an integer
  // input's type (bool sums count, as i32).
  D.Type = (Op == "sum" || Op == "min" || Op == "max") && !isFloat(A.Type)
               ? (A.Type == DType::Bool ? DType::I32 : A.Type)
               : Info.Precision;
  int Slot = -1;
  for (size_t I = 0; I < Info.DerivedInputs.size(); ++I)
    if (Info.DerivedInputs[I].Name == D.Name)
      Slot = static_cast<int>(I);
  if (Slot < 0) {
    Slot = static_cast<int>(Info.DerivedInputs.size());
    Info.DerivedInputs.push_back(D);
  }
  E.DerivedInput = Slot;
  E.Ty = {D.Type, D.Dims, false};
  return true;
}

void Analyzer::noteTransformedData(const CallExpr &E) {
  const auto *N = llvm::dyn_cast<NameExpr>(E.Args[0].Value.get());
  auto It = N ? Names.find(N->Name) : Names.end();
  if (InTransformed || It == Names.end() ||
      It->second.K != Symbol::Kind::Input)
    return;
  Diags.report(diag::N_TRANSFORMED_DATA, E.Loc)
      << E.Callee << N->Name + (E.Axis ? ", axis=0" : "");
}

} // namespace sema
} // namespace aimz
