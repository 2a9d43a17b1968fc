//===- TransformedData.cpp - Values computed from the data alone ----------===//
//
// `transformed xc = x - mean(x);` declares a value of the data (Stan's
// `transformed data`, brms's centred predictors). It may use inputs,
// constants, dimensions and earlier transformed values, and reduce an input
// along the observation axis (sum mean min max sd logsumexp): such a
// reduction is a derived input that the runtime computes once, from every
// observation, before the run, so a shard's values do not depend on the
// partition. The statistic of an input (or of a view of one) is read from
// the input itself; that of any other expression of the data is computed
// from the rows the compiled pre-pass writes (MLIRGen's prepass model).
// Everything else in the expression is ordinary per-observation
// arithmetic.
//
//===----------------------------------------------------------------------===//
#include "Analyzer.h"
#include "SyntaxBuilders.h"
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
  Symbol Sym{Symbol::Kind::Transformed, S.Value->Ty.Type, S.Value->Ty.Dims,
             S.NameLoc};
  Sym.Round = dataRound(*S.Value);
  define(S, Sym);
}

int Analyzer::dataRound(const Expr &E) const {
  int Round = 0;
  if (const auto *C = llvm::dyn_cast<CallExpr>(&E)) {
    if (C->DerivedInput >= 0) {
      const ModelInfo::DerivedInput &D = Info.DerivedInputs[C->DerivedInput];
      return D.Argument ? D.Round + 1 : 0; // an input's: before the pre-pass
    }
  } else if (const auto *N = llvm::dyn_cast<NameExpr>(&E)) {
    auto It = Names.find(N->Name);
    return It != Names.end() ? It->second.Round : 0;
  }
  forEachChild(E, [&](const ExprPtr &C) {
    if (C)
      Round = std::max(Round, dataRound(*C));
  });
  return Round;
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
  const auto *N = llvm::dyn_cast<NameExpr>(&Arg);
  auto It = N ? Names.find(N->Name) : Names.end();
  if (It == Names.end() || It->second.K != Symbol::Kind::Input)
    return analyzeDataReductionOfExpr(E, Op);
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
  E.DerivedInput = addDerivedInput(std::move(D));
  E.Ty = {Info.DerivedInputs[E.DerivedInput].Type,
          Info.DerivedInputs[E.DerivedInput].Dims, false};
  return true;
}

/// `mean(log(x))`, `sd(x - mean(x))`, `sum(X[:, :, None] * X[:, None, :],
/// axis=0)`: the argument is computed row by row by the pre-pass, so its
/// rows must be the observations (the axis first, and only there).
bool Analyzer::analyzeDataReductionOfExpr(CallExpr &E, const std::string &Op) {
  const ExprPtr &Arg = E.Args[0].Value;
  const ExprType &A = Arg->Ty;
  const Dim Obs = Dim::symbol(Info.ObsDim);
  if (A.Dims.empty() || A.Dims[0] != Obs ||
      std::count(A.Dims.begin(), A.Dims.end(), Obs) != 1) {
    Diags.report(diag::E_DATA_REDUCTION_NOT_ROWS, Arg->Loc)
        << E.Callee << Info.ObsDim << shapeStr(A.Dims);
    return false;
  }
  ModelInfo::DerivedInput D;
  D.Op = Op;
  D.AllAxes = !E.Axis;
  D.Name = Op + "(" + sourceText(*Arg) + (D.AllAxes ? "" : ", axis=0") + ")";
  D.Dims = D.AllAxes ? Shape{} : Shape(A.Dims.begin() + 1, A.Dims.end());
  D.Type = (Op == "sum" || Op == "min" || Op == "max") && !isFloat(A.Type)
               ? (A.Type == DType::Bool ? DType::I32 : A.Type)
               : Info.Precision;
  D.Argument = Arg;
  D.ArgumentType = A.Type;
  D.ArgumentDims = A.Dims;
  D.Round = dataRound(*Arg);
  E.DerivedInput = addDerivedInput(std::move(D));
  E.Ty = {Info.DerivedInputs[E.DerivedInput].Type,
          Info.DerivedInputs[E.DerivedInput].Dims, false};
  return true;
}

/// The slot of `D` among the derived inputs, added unless one of the same
/// name is there (the same statistic written twice is computed once).
int Analyzer::addDerivedInput(ModelInfo::DerivedInput D) {
  for (size_t I = 0; I < Info.DerivedInputs.size(); ++I)
    if (Info.DerivedInputs[I].Name == D.Name)
      return static_cast<int>(I);
  if (D.Argument) {
    D.ArgumentSlot = 0;
    for (const ModelInfo::DerivedInput &Other : Info.DerivedInputs)
      D.ArgumentSlot += Other.Argument != nullptr;
  }
  Info.DerivedInputs.push_back(std::move(D));
  return static_cast<int>(Info.DerivedInputs.size() - 1);
}

bool Analyzer::analyzeDataMatMul(BinaryExpr &E, const ExprPtr &L,
                                 const ExprPtr &R) {
  const size_t RankL = E.LHS->Ty.Dims.size(), RankR = E.RHS->Ty.Dims.size();
  // Each operand's rows: L's observation axis is its last.
  ExprPtr Rows = RankL == 2 ? call(L->Loc, "transpose", {Arg{"", L->Loc, L}})
                            : L;
  ExprPtr Product;
  if (RankL == 2 && RankR == 2)
    Product = binary(BinaryOp::Mul, axes(Rows, "::N"), axes(R, ":N:"));
  else if (RankL == 2)
    Product = binary(BinaryOp::Mul, Rows, axes(R, ":N"));
  else if (RankR == 2)
    Product = binary(BinaryOp::Mul, axes(Rows, ":N"), R);
  else
    Product = binary(BinaryOp::Mul, Rows, R);
  std::vector<Arg> Args{{"", E.Loc, Product}};
  if (RankL == 2 || RankR == 2)
    Args.push_back({"axis", E.Loc, std::make_shared<NumberExpr>(E.Loc, 0, true)});
  auto Sum = std::static_pointer_cast<CallExpr>(
      call(E.Loc, "sum", std::move(Args)));
  if (!analyzeExpr(*Sum))
    return false;
  if (Sum->DerivedInput >= 0) { // named as written: "X.T @ X", once
    const std::string Name = sourceText(E);
    for (size_t I = 0; I < Info.DerivedInputs.size(); ++I)
      if (Info.DerivedInputs[I].Name == Name &&
          Sum->DerivedInput + 1 == static_cast<int>(Info.DerivedInputs.size())) {
        Info.DerivedInputs.pop_back();
        Sum->DerivedInput = static_cast<int>(I);
        break;
      }
    Info.DerivedInputs[Sum->DerivedInput].Name = Name;
  }
  E.Ty = Sum->Ty;
  E.Desugared = Sum;
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
