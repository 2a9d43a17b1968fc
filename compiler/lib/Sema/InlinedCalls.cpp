//===- InlinedCalls.cpp - Checks of statements from user functions -------===//
//
// Functions.cpp expands each call of a `def` into statements before the
// call. Here each such statement is checked as its call sees it: a declared
// parameter or result type against the value (its element kind, rank and
// dimensions; a dimension name binds at its first use in the call and must
// agree after), and an error inside the body gets a note at the call.
//
//===----------------------------------------------------------------------===//
#include "Analyzer.h"

namespace aimz {
namespace sema {
namespace {

/// A function's own name for a mangled one ("f#1.K" is "K").
std::string userName(const std::string &Mangled) {
  size_t Dot = Mangled.find('.');
  return Dot == std::string::npos ? Mangled : Mangled.substr(Dot + 1);
}

std::string declaredText(const TypeSyntax &T) {
  std::string S = dtypeName(T.Type);
  if (T.Dims.empty())
    return S;
  S += "[";
  for (size_t I = 0; I < T.Dims.size(); ++I) {
    const DimSyntax &D = T.Dims[I];
    S += (I ? ", " : "") +
         (D.Name.empty() ? std::to_string(D.Value) : userName(D.Name));
  }
  return S + "]";
}

/// Whether a value of type `Value` may be passed where `Declared` is
/// written: a float type takes any number (integers promote, as Stan's int
/// to real), an integer type integers, bool booleans.
bool acceptsType(DType Declared, DType Value) {
  if (isFloat(Declared))
    return isNumeric(Value);
  if (isInteger(Declared))
    return isInteger(Value);
  return Value == DType::Bool;
}

} // namespace

bool Analyzer::checkDeclaredType(const AssignStmt &A) {
  const InlinedFrom &F = *A.Inlined;
  if (!F.Declared)
    return true;
  const TypeSyntax &T = *F.Declared;
  const ExprType &V = A.Value->Ty;
  std::string Have = std::string(dtypeName(V.Type)) +
                     (V.Dims.empty() ? "" : shapeStr(V.Dims));
  if (!acceptsType(T.Type, V.Type)) {
    Diags.report(diag::E_FN_TYPE_DTYPE, A.Value->Loc)
        << F.What << F.Function << declaredText(T) << Have;
    return false;
  }
  bool Ok = T.Dims.size() == V.Dims.size();
  for (size_t I = 0; Ok && I < T.Dims.size(); ++I)
    if (T.Dims[I].Name.empty())
      Ok = V.Dims[I] == Dim::known(T.Dims[I].Value);
  if (!Ok) {
    Diags.report(diag::E_FN_TYPE_RANK, A.Value->Loc)
        << F.What << F.Function << declaredText(T) << Have;
    return false;
  }
  for (size_t I = 0; I < T.Dims.size(); ++I) {
    const std::string &Name = T.Dims[I].Name;
    if (Name.empty())
      continue;
    auto [It, New] = FunctionDims.emplace(Name, V.Dims[I]);
    if (!New && It->second != V.Dims[I]) {
      Diags.report(diag::E_FN_TYPE_DIM, A.Value->Loc)
          << F.What << F.Function << userName(Name) << V.Dims[I].str()
          << It->second.str();
      return false;
    }
  }
  return true;
}

void Analyzer::noteInlinedCall(const AssignStmt &A, unsigned ErrorsBefore) {
  if (Diags.errorCount() == ErrorsBefore)
    return;
  for (const InlinedFrom *F = A.Inlined.get(); F; F = F->Caller.get())
    Diags.report(diag::N_IN_FUNCTION_CALL, F->CallLoc) << F->Function;
}

} // namespace sema
} // namespace aimz
