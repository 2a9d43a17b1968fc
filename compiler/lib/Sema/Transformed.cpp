//===- Transformed.cpp - TransformedDistribution over a value map ---------===//
//
// NumPyro's TransformedDistribution(base, transforms) whose transforms do
// not make a named distribution (TransformedSugar.cpp rewrites those): a
// continuous base of numbers, then elementwise bijections from
// ValueTransforms.def (AffineTransform(loc, scale), ExpTransform(),
// PowerTransform(exponent), SigmoidTransform(), SoftplusTransform();
// IdentityTransform() is nothing). The site is bound as its base with a value map: the
// transforms' parameters follow the base's and broadcast with its batch
// shape (NumPyro's forward_shape), and the back end maps the draws and
// scores a value by the base's density at the inverse plus the inverse's
// log Jacobian (Conversion/LowerValueMaps.cpp).
//
//===----------------------------------------------------------------------===//
#include "Analyzer.h"
#include "aimz/ValueTransforms.h"

#include "llvm/ADT/StringExtras.h"

namespace aimz {
namespace sema {
namespace {

std::string transformList() {
  std::vector<std::string> Names;
  for (const ValueTransform &T : valueTransforms()) {
    std::string Params;
    for (unsigned I = 0; I < T.Arity; ++I)
      Params += std::string(I ? ", " : "") + T.Params[I];
    Names.push_back(std::string(T.Class) + "(" + Params + ")");
  }
  Names.push_back("IdentityTransform()");
  return llvm::join(Names, ", ");
}

} // namespace

std::optional<Analyzer::BoundCall> Analyzer::bindTransformed(SampleStmt &S,
                                                             bool IsOutput) {
  ExprPtr TE = compositeArg(S, 1);
  if (!TE || isOrderedTransform(TE))
    return bindOrdered(S, IsOutput);
  std::vector<ExprPtr> Ts = {TE};
  if (const auto *L = llvm::dyn_cast<ArrayExpr>(TE.get()))
    Ts = L->Elements;
  auto NB = bindNumberBase(S);
  if (!NB)
    return std::nullopt;
  if (NB->Symbol.empty() || NB->Spec->Discrete) {
    Diags.report(diag::E_TRANSFORMED_BASE, NB->Call->Loc) << NB->Call->Callee;
    return std::nullopt;
  }
  BoundCall R = std::move(NB->Bound);
  for (const ExprPtr &T : Ts) {
    const auto *C = llvm::dyn_cast<CallExpr>(T.get());
    if (!C) {
      Diags.report(diag::E_COMPOSITE_ARG_KIND, T->Loc)
          << "TransformedDistribution" << "transforms"
          << "a transform or a list of transforms";
      return std::nullopt;
    }
    if (!bindValueTransform(*C, R))
      return std::nullopt;
  }
  return R;
}

/// One transform of the list: its parameters bound by NumPyro's names and
/// appended to R's, its word to R's value map.
bool Analyzer::bindValueTransform(const CallExpr &T, BoundCall &R) {
  if (T.Callee == "IdentityTransform" && T.Args.empty())
    return true;
  const ValueTransform *VT = valueTransformByClass(T.Callee);
  if (!VT) {
    Diags.report(diag::E_TRANSFORM_NOT_NAMED, T.Loc)
        << T.Callee << transformList();
    return false;
  }
  std::vector<ExprPtr> Bound(VT->Arity);
  size_t Positional = 0;
  for (const Arg &A : T.Args) {
    size_t I = A.Keyword.empty() ? Positional++ : VT->Arity;
    for (unsigned J = 0; J < VT->Arity && !A.Keyword.empty(); ++J)
      if (A.Keyword == VT->Params[J])
        I = J;
    if (I >= VT->Arity || Bound[I]) {
      std::vector<std::string> Names(VT->Params.begin(),
                                     VT->Params.begin() + VT->Arity);
      Diags.report(diag::E_TRANSFORM_ARGS, A.Loc)
          << VT->Class
          << (Names.empty() ? std::string("no arguments")
                            : llvm::join(Names, " and "));
      return false;
    }
    Bound[I] = A.Value;
  }
  for (unsigned I = 0; I < VT->Arity; ++I) {
    if (!Bound[I]) {
      Diags.report(diag::E_COMPOSITE_MISSING, T.Loc)
          << VT->Class << std::string("parameter '") + VT->Params[I] + "'";
      return false;
    }
    std::string Shown = std::string(VT->Class) + "'s " + VT->Params[I];
    const ExprPtr &E = Bound[I];
    if (!bindTrailingParam(Shown.c_str(), E, R, [&] {
          Diags.report(diag::E_COMPOSITE_ARG_KIND, E->Loc)
              << VT->Class << VT->Params[I] << "a number";
        }))
      return false;
    R.Params.back().Name = std::string(VT->Kind) + "." + VT->Params[I];
  }
  R.ValueMap.push_back(VT->Kind);
  return true;
}

} // namespace sema
} // namespace aimz
