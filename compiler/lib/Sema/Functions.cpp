//===- Functions.cpp - User-defined functions, inlined before analysis ----===//
//
// `def name(a: f32[K], s = 1.0) -> f32[K] { let ...; return expr; }` declares
// a pure function of values before the model (Stan's `functions` block, a
// Python helper of a NumPyro model). Every call is expanded here, on the
// syntax tree, before semantic analysis: each argument and each `let` of the
// body becomes a statement of the caller's kind (`let`, or `transformed` in
// transformed data) placed just before the statement that makes the call,
// under names no user can write ("f#1.a"). Analysis then checks the body at
// each call with the call's shapes: a declared type is checked against the
// argument's value, its dimension names bound per call (InlinedFrom).
//
// A function sees only its parameters, the dimension names of their types
// and its own `let` values, and calls only functions defined above it, so
// expansion terminates and no name of the caller leaks in.
//
//===----------------------------------------------------------------------===//
#include "aimz/Builtins.h"
#include "aimz/Diagnostics.h"
#include "aimz/Distributions.h"
#include "aimz/Sema.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/Casting.h"

#include <cmath>
#include <limits>

#include <map>
#include <set>

namespace aimz {
namespace {

/// Statements that expansion may create before giving up: a chain of
/// functions each calling the previous twice doubles the code per level.
constexpr size_t MaxInlinedStatements = 100000;

/// A deep copy of `E`'s syntax; a name found in `Subst` becomes a copy of
/// its replacement.
using Substitution = std::map<std::string, ExprPtr>;

ExprPtr clone(const Expr &E, const Substitution &Subst);

std::vector<ExprPtr> cloneAll(const std::vector<ExprPtr> &Es,
                              const Substitution &Subst) {
  std::vector<ExprPtr> R;
  for (const ExprPtr &X : Es)
    R.push_back(X ? clone(*X, Subst) : nullptr);
  return R;
}

ExprPtr cloneNode(const Expr &E, const Substitution &Subst) {
  switch (E.K) {
  case Expr::Kind::Number: {
    const auto &N = static_cast<const NumberExpr &>(E);
    auto R = std::make_shared<NumberExpr>(N.Loc, N.Value, N.IsInteger);
    R->IntValue = N.IntValue;
    return R;
  }
  case Expr::Kind::Bool:
    return std::make_shared<BoolExpr>(
        E.Loc, static_cast<const BoolExpr &>(E).Value);
  case Expr::Kind::Name: {
    const auto &N = static_cast<const NameExpr &>(E);
    if (auto It = Subst.find(N.Name); It != Subst.end())
      return clone(*It->second, {});
    return std::make_shared<NameExpr>(N.Loc, N.Name);
  }
  case Expr::Kind::Unary:
    return std::make_shared<UnaryExpr>(
        E.Loc, clone(*static_cast<const UnaryExpr &>(E).Operand, Subst));
  case Expr::Kind::Binary: {
    const auto &B = static_cast<const BinaryExpr &>(E);
    return std::make_shared<BinaryExpr>(B.Loc, B.Op, clone(*B.LHS, Subst),
                                        clone(*B.RHS, Subst));
  }
  case Expr::Kind::Call: {
    const auto &C = static_cast<const CallExpr &>(E);
    std::vector<Arg> Args;
    for (const Arg &A : C.Args)
      Args.push_back({A.Keyword, A.Loc, clone(*A.Value, Subst)});
    return std::make_shared<CallExpr>(C.Loc, C.Callee, std::move(Args));
  }
  case Expr::Kind::Index: {
    const auto &I = static_cast<const IndexExpr &>(E);
    return std::make_shared<IndexExpr>(I.Loc, clone(*I.Base, Subst),
                                       cloneAll(I.Indices, Subst));
  }
  case Expr::Kind::Array:
    return std::make_shared<ArrayExpr>(
        E.Loc, cloneAll(static_cast<const ArrayExpr &>(E).Elements, Subst));
  case Expr::Kind::Axis:
    return std::make_shared<AxisExpr>(
        E.Loc, static_cast<const AxisExpr &>(E).NewAxis,
        static_cast<const AxisExpr &>(E).Ellipsis);
  case Expr::Kind::Slice: {
    const auto &S = static_cast<const SliceExpr &>(E);
    return std::make_shared<SliceExpr>(
        S.Loc, S.Start ? clone(*S.Start, Subst) : nullptr,
        S.Stop ? clone(*S.Stop, Subst) : nullptr);
  }
  case Expr::Kind::Attr: {
    const auto &A = static_cast<const AttrExpr &>(E);
    return std::make_shared<AttrExpr>(A.Loc, clone(*A.Base, Subst), A.Name);
  }
  }
  return nullptr;
}

ExprPtr clone(const Expr &E, const Substitution &Subst) {
  ExprPtr R = cloneNode(E, Subst);
  R->Depth = E.Depth;
  return R;
}

/// Calls `Fn` on every sub-expression of `E`, `E` included, parents first.
template <typename Fn> void forEachExpr(const Expr &E, Fn &&F) {
  F(E);
  forEachChild(E, [&](const ExprPtr &K) {
    if (K)
      forEachExpr(*K, F);
  });
}

/// A declared type with its dimension names replaced through `Subst`.
TypeSyntax renameDims(const TypeSyntax &T, const Substitution &Subst) {
  TypeSyntax R = T;
  for (DimSyntax &D : R.Dims)
    if (auto It = Subst.find(D.Name); !D.Name.empty() && It != Subst.end())
      D.Name = static_cast<const NameExpr &>(*It->second).Name;
  return R;
}

/// NumPy's constants as bare names (`pi`, `inf`, `nan`, `euler_gamma`) and
/// Stan's as calls without arguments (`pi()`, `e()`, `sqrt2()`, `log2()`,
/// `log10()`, `positive_infinity()`, `negative_infinity()`,
/// `not_a_number()`, `machine_precision()`).
std::optional<double> namedConstant(llvm::StringRef Name, bool Called) {
  const double Inf = std::numeric_limits<double>::infinity();
  if (Name == "pi")
    return M_PI;
  if (!Called)
    return llvm::StringSwitch<std::optional<double>>(Name)
        .Case("inf", Inf)
        .Case("nan", std::numeric_limits<double>::quiet_NaN())
        .Case("euler_gamma", 0.57721566490153286061)
        .Default(std::nullopt);
  return llvm::StringSwitch<std::optional<double>>(Name)
      .Case("e", M_E)
      .Case("sqrt2", M_SQRT2)
      .Case("log2", M_LN2)
      .Case("log10", M_LN10)
      .Case("positive_infinity", Inf)
      .Case("negative_infinity", -Inf)
      .Case("not_a_number", std::numeric_limits<double>::quiet_NaN())
      .Case("machine_precision", std::numeric_limits<double>::epsilon())
      .Default(std::nullopt);
}

class Inliner {
public:
  Inliner(Model &M, Diagnostics &D) : M(M), Diags(D) {}

  bool run() {
    bool Ok = true;
    for (size_t I = 0; I < M.Functions.size(); ++I)
      Ok &= checkFunction(I);
    if (!Ok)
      return false;
    collectDefined(M.Body);
    expandBody(M.Body, Ok);
    return Ok;
  }

private:
  Model &M;
  Diagnostics &Diags;
  std::map<std::string, size_t> Index; // a function's position
  std::map<std::string, unsigned> CallCount;
  size_t Inlined = 0;
  bool TooMany = false;
  /// Every name the model defines: a model's own `pi` is not the constant.
  std::set<std::string> Defined;

  void collectDefined(const std::vector<StmtPtr> &Body) {
    for (const Param &P : M.Inputs)
      Defined.insert(P.Name);
    for (const Param &P : M.Outputs)
      Defined.insert(P.Name);
    for (const StmtPtr &S : Body) {
      Defined.insert(S->Name);
      if (auto *B = llvm::dyn_cast<BlockStmt>(S.get()))
        collectDefined(B->Body);
    }
  }

  bool checkFunction(size_t Pos);
  void checkNames(const FunctionDef &F, const Expr &E, size_t Pos,
                  const std::set<std::string> &Visible, bool &Ok);
  void expandBody(std::vector<StmtPtr> &Body, bool &Ok);
  void expand(ExprPtr &E, Stmt::Kind Kind, std::vector<StmtPtr> &Out,
              const std::shared_ptr<const InlinedFrom> &Caller, bool &Ok);
  bool bindArguments(const FunctionDef &F, const CallExpr &Call,
                     std::vector<ExprPtr> &Bound);
  ExprPtr inlineCall(const CallExpr &Call, const FunctionDef &F,
                     Stmt::Kind Kind, std::vector<StmtPtr> &Out,
                     const std::shared_ptr<const InlinedFrom> &Caller,
                     bool &Ok);
  void emit(std::vector<StmtPtr> &Out, Stmt::Kind Kind, std::string Name,
            SMLoc Loc, ExprPtr Value, std::shared_ptr<const InlinedFrom> From,
            bool &Ok);
};

/// The function's name is free, its parameters and dimension names are
/// distinct, and every name in its body is its own.
bool Inliner::checkFunction(size_t Pos) {
  const FunctionDef &F = M.Functions[Pos];
  bool Ok = true;
  if (auto [It, New] = Index.emplace(F.Name, Pos); !New) {
    Diags.report(diag::E_FN_REDEFINED, F.NameLoc) << F.Name;
    Diags.report(diag::N_PREVIOUS_DEFINITION,
                 M.Functions[It->second].NameLoc);
    Ok = false;
  }
  const char *Taken = lookupBuiltin(F.Name) ? "a builtin function"
                      : lookupDistribution(F.Name) ||
                              lookupDistributionAlias(F.Name)
                          ? "a distribution"
                          : nullptr;
  if (Taken) {
    Diags.report(diag::E_FN_SHADOWS_BUILTIN, F.NameLoc) << F.Name << Taken;
    Ok = false;
  }
  std::set<std::string> Visible;
  auto Declare = [&](const std::string &Name, SMLoc Loc) {
    if (!Visible.insert(Name).second) {
      Diags.report(diag::E_FN_DEFINE_IN_FUNCTION, Loc) << Name << F.Name;
      Ok = false;
    }
  };
  std::set<std::string> DimNames;
  auto DeclareDims = [&](const TypeSyntax &T) {
    for (const DimSyntax &D : T.Dims) {
      if (D.Arith) {
        Diags.report(diag::E_FN_DIM_NOT_NAME, D.Loc) << F.Name;
        Ok = false;
      } else if (!D.Name.empty() && DimNames.insert(D.Name).second) {
        Declare(D.Name, D.Loc); // a name repeats within types, as [N, N]
      }
    }
  };
  std::set<std::string> ParamNames;
  for (const FunctionParam &P : F.Params) {
    if (!ParamNames.insert(P.Name).second) {
      Diags.report(diag::E_FN_DUPLICATE_PARAM, P.Loc) << F.Name << P.Name;
      Ok = false;
    } else {
      Declare(P.Name, P.Loc);
    }
    if (P.Type)
      DeclareDims(*P.Type);
    if (P.Default) // evaluated at the call, so it may name nothing
      checkNames(F, *P.Default, Pos, {}, Ok);
  }
  if (F.Result)
    DeclareDims(*F.Result);
  for (const StmtPtr &S : F.Body) {
    checkNames(F, *static_cast<const AssignStmt &>(*S).Value, Pos, Visible,
               Ok);
    Declare(S->Name, S->NameLoc);
  }
  checkNames(F, *F.Return, Pos, Visible, Ok);
  return Ok;
}

void Inliner::checkNames(const FunctionDef &F, const Expr &E, size_t Pos,
                         const std::set<std::string> &Visible, bool &Ok) {
  forEachExpr(E, [&](const Expr &X) {
    if (auto *N = llvm::dyn_cast<NameExpr>(&X)) {
      if (!Visible.count(N->Name) && !namedConstant(N->Name, false)) {
        Diags.report(diag::E_FN_UNKNOWN_NAME, N->Loc) << N->Name << F.Name;
        Ok = false;
      }
    } else if (auto *C = llvm::dyn_cast<CallExpr>(&X)) {
      if (C->Callee == F.Name) {
        Diags.report(diag::E_FN_RECURSIVE, C->Loc) << F.Name;
        Ok = false;
      } else if (auto It = Index.find(C->Callee); It == Index.end()) {
        for (size_t J = Pos + 1; J < M.Functions.size(); ++J)
          if (M.Functions[J].Name == C->Callee) {
            Diags.report(diag::E_FN_CALLS_LATER, C->Loc)
                << F.Name << C->Callee;
            Ok = false;
            break;
          }
      }
    }
  });
}

void Inliner::expandBody(std::vector<StmtPtr> &Body, bool &Ok) {
  std::vector<StmtPtr> Out;
  for (StmtPtr &S : Body) {
    if (auto *A = llvm::dyn_cast<AssignStmt>(S.get())) {
      Stmt::Kind Kind = A->K == Stmt::Kind::Transformed
                            ? Stmt::Kind::Transformed
                            : Stmt::Kind::Let;
      expand(A->Value, Kind, Out, nullptr, Ok);
    } else if (auto *Sa = llvm::dyn_cast<SampleStmt>(S.get())) {
      for (Arg &Ar : Sa->Args)
        expand(Ar.Value, Stmt::Kind::Let, Out, nullptr, Ok);
    } else if (auto *B = llvm::dyn_cast<BlockStmt>(S.get())) {
      expandBody(B->Body, Ok);
    }
    Out.push_back(std::move(S));
  }
  Body = std::move(Out);
}

/// Replaces every call of a user-defined function in `E` (innermost first)
/// by its inlined body: statements appended to `Out`, the result in place.
void Inliner::expand(ExprPtr &E, Stmt::Kind Kind, std::vector<StmtPtr> &Out,
                     const std::shared_ptr<const InlinedFrom> &Caller,
                     bool &Ok) {
  if (!E || TooMany)
    return;
  forEachChild(*E, [&](ExprPtr &K) { expand(K, Kind, Out, Caller, Ok); });
  // NumPy's and Stan's named constants: `pi`, `inf`, Stan's `pi()`.
  if (auto *N = llvm::dyn_cast<NameExpr>(E.get())) {
    if (Caller || !Defined.count(N->Name))
      if (auto V = namedConstant(N->Name, /*Called=*/false))
        E = std::make_shared<NumberExpr>(N->Loc, *V, false);
    return;
  }
  auto *C = llvm::dyn_cast<CallExpr>(E.get());
  if (!C)
    return;
  auto It = Index.find(C->Callee);
  if (It == Index.end()) {
    if (auto V = C->Args.empty() ? namedConstant(C->Callee, true)
                                 : std::nullopt)
      E = std::make_shared<NumberExpr>(C->Loc, *V, false);
    return;
  }
  if (ExprPtr R = inlineCall(*C, M.Functions[It->second], Kind, Out, Caller,
                             Ok))
    E = R;
}

/// The call's arguments in parameter order (defaults filled in); false
/// after an error.
bool Inliner::bindArguments(const FunctionDef &F, const CallExpr &Call,
                            std::vector<ExprPtr> &Bound) {
  Bound.assign(F.Params.size(), nullptr);
  size_t Positional = 0;
  bool Ok = true;
  for (const Arg &A : Call.Args) {
    size_t I = Positional;
    if (A.Keyword.empty()) {
      if (Positional++ >= F.Params.size()) {
        size_t Given = llvm::count_if(
            Call.Args, [](const Arg &X) { return X.Keyword.empty(); });
        Diags.report(diag::E_FN_TOO_MANY_ARGS, A.Loc)
            << F.Name << F.Params.size() << Given;
        return false;
      }
    } else {
      auto P = llvm::find_if(
          F.Params, [&](const FunctionParam &Q) { return Q.Name == A.Keyword; });
      if (P == F.Params.end()) {
        std::string Names;
        for (const FunctionParam &Q : F.Params)
          Names += (Names.empty() ? "'" : ", '") + Q.Name + "'";
        Diags.report(diag::E_FN_UNKNOWN_KEYWORD, A.Loc)
            << F.Name << A.Keyword << (Names.empty() ? "none" : Names);
        Ok = false;
        continue;
      }
      I = P - F.Params.begin();
    }
    if (Bound[I]) {
      Diags.report(diag::E_FN_ARG_TWICE, A.Loc) << F.Name << F.Params[I].Name;
      Ok = false;
    }
    Bound[I] = A.Value;
  }
  for (size_t I = 0; Ok && I < F.Params.size(); ++I) {
    if (Bound[I])
      continue;
    if (!F.Params[I].Default) {
      Diags.report(diag::E_FN_MISSING_ARG, Call.Loc)
          << F.Name << F.Params[I].Name;
      Ok = false;
    } else {
      Bound[I] = clone(*F.Params[I].Default, {});
    }
  }
  return Ok;
}

void Inliner::emit(std::vector<StmtPtr> &Out, Stmt::Kind Kind,
                   std::string Name, SMLoc Loc, ExprPtr Value,
                   std::shared_ptr<const InlinedFrom> From, bool &Ok) {
  if (++Inlined > MaxInlinedStatements) {
    if (!TooMany)
      Diags.report(diag::E_FN_TOO_DEEP, From->CallLoc) << MaxInlinedStatements;
    TooMany = true;
    Ok = false;
    return;
  }
  auto S = std::make_shared<AssignStmt>(Kind, Loc, std::move(Name), Loc,
                                        std::move(Value));
  S->Inlined = std::move(From);
  Out.push_back(std::move(S));
}

ExprPtr Inliner::inlineCall(const CallExpr &Call, const FunctionDef &F,
                            Stmt::Kind Kind, std::vector<StmtPtr> &Out,
                            const std::shared_ptr<const InlinedFrom> &Caller,
                            bool &Ok) {
  std::vector<ExprPtr> Bound;
  if (!bindArguments(F, Call, Bound)) {
    Ok = false;
    return nullptr;
  }
  const std::string Prefix =
      F.Name + "#" + std::to_string(++CallCount[F.Name]) + ".";
  auto Local = [&](const std::string &Name, SMLoc Loc) {
    return std::make_shared<NameExpr>(Loc, Prefix + Name);
  };
  auto From = [&](std::optional<TypeSyntax> T, std::string What) {
    auto R = std::make_shared<InlinedFrom>();
    R->Function = F.Name;
    R->CallLoc = Call.Loc;
    R->Declared = std::move(T);
    R->What = std::move(What);
    R->Caller = Caller;
    return std::shared_ptr<const InlinedFrom>(std::move(R));
  };
  // Dimension names first: a parameter's type refers to them.
  Substitution Subst;
  auto AddDims = [&](const TypeSyntax &T) {
    for (const DimSyntax &D : T.Dims)
      if (!D.Name.empty() && !Subst.count(D.Name))
        Subst[D.Name] = Local(D.Name, D.Loc);
  };
  for (const FunctionParam &P : F.Params)
    if (P.Type)
      AddDims(*P.Type);
  if (F.Result)
    AddDims(*F.Result);
  auto Body = From(std::nullopt, "");
  for (size_t I = 0; I < F.Params.size(); ++I) {
    const FunctionParam &P = F.Params[I];
    ExprPtr A = Bound[I];
    // A name or a literal stands for itself: no copy, and transformed
    // data still sees the input it reduces.
    if (!P.Type && (llvm::isa<NameExpr>(*A) || llvm::isa<NumberExpr>(*A))) {
      Subst[P.Name] = A;
      continue;
    }
    std::optional<TypeSyntax> T;
    if (P.Type)
      T = renameDims(*P.Type, Subst);
    emit(Out, Kind, Prefix + P.Name, P.Loc, A,
         From(std::move(T), "parameter '" + P.Name + "'"), Ok);
    Subst[P.Name] = Local(P.Name, P.Loc);
  }
  for (const StmtPtr &S : F.Body) {
    ExprPtr V = clone(*static_cast<const AssignStmt &>(*S).Value, Subst);
    expand(V, Kind, Out, Body, Ok);
    emit(Out, Kind, Prefix + S->Name, S->NameLoc, V, Body, Ok);
    Subst[S->Name] = Local(S->Name, S->NameLoc);
  }
  ExprPtr R = clone(*F.Return, Subst);
  expand(R, Kind, Out, Body, Ok);
  // Transformed data keeps the result in place, so that a reduction of it
  // sees the expression; elsewhere a statement of its own carries the
  // call's note when the result is in error.
  if (!F.Result && Kind == Stmt::Kind::Transformed)
    return R;
  std::optional<TypeSyntax> T;
  if (F.Result)
    T = renameDims(*F.Result, Subst);
  emit(Out, Kind, Prefix + "return", F.Return->Loc, R,
       From(std::move(T), "the result"), Ok);
  return Local("return", Call.Loc);
}

} // namespace

bool inlineFunctions(Model &M, Diagnostics &Diags) {
  return Inliner(M, Diags).run();
}

ExprPtr cloneExpr(const Expr &E) { return clone(E, {}); }

} // namespace aimz
