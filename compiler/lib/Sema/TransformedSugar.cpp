//===- TransformedSugar.cpp - Transformed distributions that are named ones ===//
//
// NumPyro's TransformedDistribution(base, transforms) over elementwise
// bijections whose result is a distribution of the table: the call is
// rewritten into it before it is bound, so its draws and density are that
// distribution's. The transforms apply left to right, as NumPyro's list:
//
//   AffineTransform(a, b) of Normal, StudentT, Cauchy, Laplace, Logistic
//       the same family at loc a + b loc, scale |b| scale (each is
//       symmetric, so a negative b reflects it onto itself)
//   ExpTransform() of Normal(loc, scale)       LogNormal(loc, scale)
//   SigmoidTransform() of Normal(loc, scale)   LogitNormal(loc, scale)
//
// `TransformedDistribution(Normal(0, 1), AffineTransform(mu, tau))`, a
// non-centred hierarchy's prior, is Normal(mu, tau); a site's base with a
// shape, `Normal(0, 1)[k]` or NumPyro's `Normal(0, 1).expand([k])`, gives
// the site that shape. OrderedTransform is
// Composites.cpp's; another transform is an error that lists these.
//
//===----------------------------------------------------------------------===//
#include "Analyzer.h"
#include "SyntaxBuilders.h"
#include "aimz/Distributions.h"

namespace aimz {
namespace sema {
namespace {

/// Where a symmetric location-scale family keeps loc and scale.
std::optional<std::pair<size_t, size_t>> locScale(DistKind K) {
  switch (K) {
  case DistKind::Normal:
  case DistKind::Cauchy:
  case DistKind::Laplace:
  case DistKind::Logistic:
    return std::pair<size_t, size_t>{0, 1};
  case DistKind::StudentT:
    return std::pair<size_t, size_t>{1, 2};
  default:
    return std::nullopt;
  }
}

/// `Spec(p0=..., p1=...)` with the parameters in its order.
ExprPtr namedCall(const DistSpec &Spec, const std::vector<ExprPtr> &P,
                  SMLoc Loc) {
  std::vector<Arg> Args;
  for (size_t I = 0; I < P.size(); ++I)
    Args.push_back(Arg{Spec.Params[I].Name, Loc, P[I]});
  return call(Loc, Spec.Name, std::move(Args));
}

} // namespace

bool isOrderedTransform(const ExprPtr &Transforms) {
  auto Named = [](const ExprPtr &E) {
    const auto *C = llvm::dyn_cast_or_null<CallExpr>(E.get());
    return C && C->Callee == "OrderedTransform";
  };
  if (const auto *L = llvm::dyn_cast_or_null<ArrayExpr>(Transforms.get()))
    return llvm::any_of(L->Elements, Named);
  return Named(Transforms);
}

/// A site's TransformedDistribution(Base(...)[dims], T) or
/// (Base(...).expand(dims), T) other than an ordering: the site takes the
/// shape, the base stays a call.
void Analyzer::liftTransformedShape(SampleStmt &S) {
  if (S.Dist != "TransformedDistribution" || S.ExplicitShape)
    return;
  for (size_t I = 0; I < S.Args.size(); ++I) {
    Arg &A = S.Args[I];
    if (!(A.Keyword == "base_distribution" || (A.Keyword.empty() && I == 0)))
      continue;
    if (isOrderedTransform(argumentAt(S.Args, 1, "transforms")))
      return;
    std::vector<DimSyntax> Shape;
    ExprPtr Call;
    if (auto *Ix = llvm::dyn_cast<IndexExpr>(A.Value.get())) {
      Call = Ix->Base;
      for (const ExprPtr &D : Ix->Indices)
        Shape.push_back(dimSyntaxOf(D));
    } else if (auto *C = llvm::dyn_cast<CallExpr>(A.Value.get());
               C && C->Callee == "expand" && C->Args.size() == 2) {
      Call = C->Args[0].Value;
      Shape = shapeSyntaxOf(C->Args[1].Value);
    }
    if (!Call || !llvm::isa<CallExpr>(Call.get()))
      return;
    S.ExplicitShape = std::move(Shape);
    A.Value = Call;
    return;
  }
}

bool Analyzer::rewriteTransformed(std::string &Dist, std::vector<Arg> &Args,
                                  SMLoc Loc) {
  if (Dist != "TransformedDistribution")
    return true;
  ExprPtr BaseE = argumentAt(Args, 0, "base_distribution");
  ExprPtr TE = argumentAt(Args, 1, "transforms");
  const auto *Base = llvm::dyn_cast_or_null<CallExpr>(BaseE.get());
  if (!Base || !TE)
    return true; // the composite's own checks say what is missing
  std::vector<ExprPtr> TEs = {TE};
  if (const auto *L = llvm::dyn_cast<ArrayExpr>(TE.get()))
    TEs = L->Elements;
  std::vector<const CallExpr *> Ts;
  for (const ExprPtr &E : TEs)
    Ts.push_back(llvm::dyn_cast<CallExpr>(E.get()));
  if (llvm::is_contained(Ts, nullptr) || isOrderedTransform(TE))
    return true;
  const DistSpec *Spec = lookupDistribution(Base->Callee);
  if (!Spec)
    return true;
  Spec = &Spec->canonical();
  // The base's parameters in its order, defaults filled in.
  std::vector<ExprPtr> P;
  for (size_t I = 0; I < Spec->Params.size(); ++I) {
    ExprPtr E = argumentAt(Base->Args, I, Spec->Params[I].Name);
    if (!E && Spec->Params[I].Default)
      E = number(Base->Loc, *Spec->Params[I].Default);
    if (!E) {
      Diags.report(diag::E_MISSING_PARAMETER, Base->Loc)
          << Spec->Name << Spec->Params[I].Name;
      return false;
    }
    P.push_back(E);
  }
  for (size_t K = 0; K < Ts.size(); ++K) {
    const CallExpr *T = Ts[K];
    auto LS = locScale(Spec->Kind);
    const DistSpec *Next = nullptr;
    if (T->Callee == "AffineTransform" && LS) {
      ExprPtr A = argumentAt(T->Args, 0, "loc");
      ExprPtr B = argumentAt(T->Args, 1, "scale");
      if (!A || !B) {
        Diags.report(diag::E_COMPOSITE_MISSING, T->Loc)
            << "AffineTransform" << (A ? "scale" : "loc");
        return false;
      }
      P[LS->first] = binary(BinaryOp::Add, A, binary(BinaryOp::Mul, B, P[LS->first]));
      P[LS->second] = binary(BinaryOp::Mul, call(T->Loc, "abs", {Arg{"", T->Loc, B}}),
                             P[LS->second]);
      continue;
    }
    if (Spec->Kind == DistKind::Normal && T->Args.empty())
      Next = T->Callee == "ExpTransform"       ? lookupDistribution("LogNormal")
             : T->Callee == "SigmoidTransform" ? lookupDistribution("LogitNormal")
                                               : nullptr;
    if (!Next) {
      // From here the transforms map the values (Transformed.cpp), over
      // the base the ones before have made.
      if (K == 0)
        return true;
      std::vector<ExprPtr> Rest(TEs.begin() + K, TEs.end());
      Args = {Arg{"base_distribution", Loc, namedCall(*Spec, P, Base->Loc)},
              Arg{"transforms", Loc,
                  std::make_shared<ArrayExpr>(Ts[K]->Loc, std::move(Rest))}};
      return true;
    }
    Spec = Next;
  }
  Dist = Spec->Name;
  Args = std::static_pointer_cast<CallExpr>(namedCall(*Spec, P, Loc))->Args;
  return true;
}

} // namespace sema
} // namespace aimz
