//===- DistributionSugar.cpp - Distributions that are others, reparameterized -===//
//
// NumPyro (and PyMC) classes that are another distribution of the table
// under other parameters: the call is rewritten into that distribution
// before it is bound, with NumPyro's own formulas, so its density and draws
// are the target's (NumPyro computes them the same way):
//
//   AsymmetricLaplaceQuantile(loc, scale, quantile)
//       AsymmetricLaplace(loc, scale * a / quantile, a),
//       a = (1 / (1 / quantile - 1)) ** 0.5
//   LeftTruncatedDistribution(base, low)    TruncatedDistribution(base, low=)
//   RightTruncatedDistribution(base, high)  TruncatedDistribution(base, high=)
//   TwoSidedTruncatedDistribution(base, low, high)
//                                 TruncatedDistribution(base, low=, high=)
//   PyMC's HalfStudentT(nu, sigma)
//       TruncatedDistribution(StudentT(nu, 0, sigma), low=0)
//   CAR(loc, correlation, conditional_precision, adj_matrix)
//       MultivariateNormal(loc, precision_matrix=conditional_precision *
//           (diag(sum(adj_matrix, axis=-1)) - correlation * adj_matrix))
//   GaussianCopulaBeta(concentration1, concentration0, correlation_...)
//       GaussianCopula(Beta(concentration1, concentration0), correlation_...)
//   LowRankMultivariateNormal(loc, cov_factor, cov_diag)
//       MultivariateNormal(loc, covariance_matrix=cov_factor @
//           transpose(cov_factor) + diag(cov_diag))
//   CirculantNormal(loc, covariance_row=|covariance_rfft=)
//       MultivariateNormal(loc, covariance_matrix=C), C the symmetric
//       circulant matrix of the spectrum (circulantCovariance)
// (the same densities NumPyro computes by other routes; the matrices
// without batch axes, as diag and transpose take them)
//
// and PyMC's keyword names (Normal(mu=, sigma=), MvNormal(mu=, cov=), ...)
// renamed to NumPyro's for the same parameters.
//
//===----------------------------------------------------------------------===//
#include "Analyzer.h"
#include "SyntaxBuilders.h"
#include "aimz/Distributions.h"

namespace aimz {
namespace sema {
namespace {

struct SugarParam {
  const char *Name;
  std::optional<double> Default; // nullopt: required
  /// A literal argument's domain: the rewrite computes from the argument,
  /// so the target's own check would not see it.
  Constraint Domain = Constraint::Real;
  /// NumPyro's None: left out of the rewritten call when not given.
  bool NoneDefault = false;
};

struct SugarForm {
  const char *Name;
  std::vector<SugarParam> Params;
  const char *Shown; // the call, for messages and the catalogue
  const char *Means;
  /// Parameters of which exactly one must be given (NumPyro's choice of
  /// parameterization), when the rewrite needs to know which.
  std::vector<const char *> ExactlyOneOf = {};
};

const SugarForm SugarForms[] = {
    {"AsymmetricLaplaceQuantile",
     {{"loc", 0.0},
      {"scale", 1.0, Constraint::Positive},
      {"quantile", 0.5, Constraint::OpenUnitInterval}},
     "AsymmetricLaplaceQuantile(loc=0.0, scale=1.0, quantile=0.5)",
     "AsymmetricLaplace(loc, scale * a / quantile, a), a = (1 / (1 / "
     "quantile - 1)) ** 0.5 (NumPyro's own construction)"},
    {"LeftTruncatedDistribution",
     {{"base_dist", std::nullopt}, {"low", 0.0}},
     "LeftTruncatedDistribution(base_dist, low=0.0)",
     "TruncatedDistribution(base_dist, low=low)"},
    {"RightTruncatedDistribution",
     {{"base_dist", std::nullopt}, {"high", 0.0}},
     "RightTruncatedDistribution(base_dist, high=0.0)",
     "TruncatedDistribution(base_dist, high=high)"},
    {"TwoSidedTruncatedDistribution",
     {{"base_dist", std::nullopt}, {"low", 0.0}, {"high", 1.0}},
     "TwoSidedTruncatedDistribution(base_dist, low=0.0, high=1.0)",
     "TruncatedDistribution(base_dist, low=low, high=high)"},
    // NumPyro's truncations of a Gamma base (its defaults; any truncatable
    // base is taken, as by TruncatedDistribution).
    {"LeftTruncatedGamma",
     {{"base_dist", std::nullopt}, {"low", 0.0}},
     "LeftTruncatedGamma(base_dist, low=0.0)",
     "TruncatedDistribution(base_dist, low=low)"},
    {"RightTruncatedGamma",
     {{"base_dist", std::nullopt}, {"high", 1.0}},
     "RightTruncatedGamma(base_dist, high=1.0)",
     "TruncatedDistribution(base_dist, high=high)"},
    {"TwoSidedTruncatedGamma",
     {{"base_dist", std::nullopt}, {"low", 0.0}, {"high", 1.0}},
     "TwoSidedTruncatedGamma(base_dist, low=0.0, high=1.0)",
     "TruncatedDistribution(base_dist, low=low, high=high)"},
    // NumPyro's classes behind ZeroInflatedDistribution and
    // HurdleDistribution, called directly.
    {"ZeroInflatedProbs",
     {{"base_dist", std::nullopt}, {"gate", std::nullopt, Constraint::UnitInterval}},
     "ZeroInflatedProbs(base_dist, gate)",
     "ZeroInflatedDistribution(base_dist, gate=gate)"},
    {"ZeroInflatedLogits",
     {{"base_dist", std::nullopt}, {"gate_logits", std::nullopt}},
     "ZeroInflatedLogits(base_dist, gate_logits)",
     "ZeroInflatedDistribution(base_dist, gate_logits=gate_logits)"},
    {"HurdleProbs",
     {{"base_dist", std::nullopt}, {"gate", std::nullopt, Constraint::UnitInterval}},
     "HurdleProbs(base_dist, gate)",
     "HurdleDistribution(base_dist, gate=gate)"},
    {"HurdleLogits",
     {{"base_dist", std::nullopt}, {"gate_logits", std::nullopt}},
     "HurdleLogits(base_dist, gate_logits)",
     "HurdleDistribution(base_dist, gate_logits=gate_logits)"},
    // PyMC's Truncated(dist, lower=None, upper=None): NumPyro's
    // TruncatedDistribution under PyMC's names.
    {"Truncated",
     {{"dist", std::nullopt},
      {"lower", std::nullopt, Constraint::Real, true},
      {"upper", std::nullopt, Constraint::Real, true}},
     "Truncated(dist, lower=None, upper=None) (PyMC's)",
     "TruncatedDistribution(dist, low=lower, high=upper)"},
    {"HalfStudentT",
     {{"nu", 1.0, Constraint::Positive}, {"sigma", 1.0, Constraint::Positive}},
     "HalfStudentT(nu=1.0, sigma=1.0) (PyMC's)",
     "TruncatedDistribution(StudentT(nu, 0.0, sigma), low=0.0)"},
    // Multivariate normals given by a structured matrix (is_sparse only
    // chooses NumPyro's algorithm: accepted, the density is the same).
    {"CAR",
     {{"loc", std::nullopt},
      {"correlation", std::nullopt},
      {"conditional_precision", std::nullopt, Constraint::Positive},
      {"adj_matrix", std::nullopt},
      {"is_sparse", 0.0}},
     "CAR(loc, correlation, conditional_precision, adj_matrix, is_sparse=False)",
     "MultivariateNormal(loc, precision_matrix=conditional_precision * "
     "(diag(sum(adj_matrix, axis=-1)) - correlation * adj_matrix))"},
    {"GaussianCopulaBeta",
     {{"concentration1", std::nullopt, Constraint::Positive},
      {"concentration0", std::nullopt, Constraint::Positive},
      {"correlation_matrix", std::nullopt, Constraint::Real, true},
      {"correlation_cholesky", std::nullopt, Constraint::Real, true}},
     "GaussianCopulaBeta(concentration1, concentration0, "
     "correlation_matrix=None, correlation_cholesky=None)",
     "GaussianCopula(Beta(concentration1, concentration0), "
     "correlation_matrix=, correlation_cholesky=)"},
    // Mixtures (MixtureSugar.cpp; listed here, rewritten there).
    {"Mixture",
     {{"mixing_distribution", std::nullopt},
      {"component_distributions", std::nullopt}},
     "Mixture(mixing_distribution, component_distributions), PyMC's "
     "Mixture(w, comp_dists)",
     "MixtureSameFamily(mixing_distribution, component_distributions), or "
     "MixtureGeneral for a list; PyMC's weights are Categorical(probs=w)"},
    {"NormalMixture",
     {{"w", std::nullopt}, {"mu", std::nullopt}, {"sigma", std::nullopt}},
     "NormalMixture(w, mu, sigma) (PyMC's)",
     "MixtureSameFamily(Categorical(probs=w), Normal(mu, sigma))"},
    {"LowRankMultivariateNormal",
     {{"loc", std::nullopt}, {"cov_factor", std::nullopt},
      {"cov_diag", std::nullopt}},
     "LowRankMultivariateNormal(loc, cov_factor, cov_diag)",
     "MultivariateNormal(loc, covariance_matrix=cov_factor @ "
     "transpose(cov_factor) + diag(cov_diag))"},
    {"CirculantNormal",
     {{"loc", std::nullopt},
      {"covariance_row", std::nullopt, Constraint::Real, true},
      {"covariance_rfft", std::nullopt, Constraint::Real, true}},
     "CirculantNormal(loc, covariance_row=None, covariance_rfft=None)",
     "MultivariateNormal(loc, covariance_matrix=C), C the circulant matrix "
     "whose eigenvalues are the real part of rfft(covariance_row), or "
     "covariance_rfft",
     {"covariance_row", "covariance_rfft"}},
};

/// PyMC's keyword names for a distribution of the table (the same
/// parameter, PyMC's spelling), and PyMC's class names for NumPyro's: a
/// PyMC model's `pm.Normal("a", mu=m, sigma=s)` is `Normal(mu=m, sigma=s)`.
/// Positions stay NumPyro's (PyMC's Weibull(alpha, beta) is NumPyro's
/// Weibull(concentration, scale) reversed: by keyword it is unambiguous).
struct PyMCKeywords {
  const char *Name;   // PyMC's class
  const char *Target; // the table's distribution
  std::vector<std::pair<const char *, const char *>> Keywords;
};

const PyMCKeywords PyMCForms[] = {
    {"Normal", "Normal", {{"mu", "loc"}, {"sigma", "scale"}}},
    {"HalfNormal", "HalfNormal", {{"sigma", "scale"}}},
    {"LogNormal", "LogNormal", {{"mu", "loc"}, {"sigma", "scale"}}},
    {"StudentT", "StudentT", {{"nu", "df"}, {"mu", "loc"}, {"sigma", "scale"}}},
    {"Cauchy", "Cauchy", {{"alpha", "loc"}, {"beta", "scale"}}},
    {"HalfCauchy", "HalfCauchy", {{"beta", "scale"}}},
    {"Laplace", "Laplace", {{"mu", "loc"}, {"b", "scale"}}},
    {"Logistic", "Logistic", {{"mu", "loc"}, {"s", "scale"}}},
    {"Gumbel", "Gumbel", {{"mu", "loc"}, {"beta", "scale"}}},
    {"Exponential", "Exponential", {{"lam", "rate"}}},
    {"Gamma", "Gamma", {{"alpha", "concentration"}, {"beta", "rate"}}},
    {"InverseGamma", "InverseGamma",
     {{"alpha", "concentration"}, {"beta", "rate"}}},
    {"Beta", "Beta", {{"alpha", "concentration1"}, {"beta", "concentration0"}}},
    {"Weibull", "Weibull", {{"alpha", "concentration"}, {"beta", "scale"}}},
    {"Pareto", "Pareto", {{"m", "scale"}}},
    {"Uniform", "Uniform", {{"lower", "low"}, {"upper", "high"}}},
    {"TruncatedNormal", "TruncatedNormal",
     {{"mu", "loc"}, {"sigma", "scale"}, {"lower", "low"}, {"upper", "high"}}},
    {"Poisson", "Poisson", {{"mu", "rate"}}},
    {"Bernoulli", "Bernoulli", {{"p", "probs"}, {"logit_p", "logits"}}},
    {"Binomial", "Binomial",
     {{"n", "total_count"}, {"p", "probs"}, {"logit_p", "logits"}}},
    {"Categorical", "Categorical", {{"p", "probs"}, {"logit_p", "logits"}}},
    {"Dirichlet", "Dirichlet", {{"a", "concentration"}}},
    {"Multinomial", "Multinomial", {{"n", "total_count"}, {"p", "probs"}}},
    {"Geometric", "Geometric", {{"p", "probs"}}},
    {"VonMises", "VonMises", {{"mu", "loc"}, {"kappa", "concentration"}}},
    {"DiscreteUniform", "DiscreteUniform", {{"lower", "low"}, {"upper", "high"}}},
    {"Kumaraswamy", "Kumaraswamy", {{"a", "concentration1"}, {"b", "concentration0"}}},
    {"ZeroSumNormal", "ZeroSumNormal", {{"sigma", "scale"}}},
    {"BetaBinomial", "BetaBinomial",
     {{"alpha", "concentration1"}, {"beta", "concentration0"}, {"n", "total_count"}}},
    {"MvNormal", "MultivariateNormal",
     {{"mu", "loc"},
      {"cov", "covariance_matrix"},
      {"chol", "scale_tril"},
      {"tau", "precision_matrix"}}},
    // PyMC's NegativeBinomial(mu, alpha) is NumPyro's NegativeBinomial2;
    // only these keywords say so (NumPyro's NegativeBinomial has others).
    {"NegativeBinomial", "NegativeBinomial2",
     {{"mu", "mean"}, {"alpha", "concentration"}}},
};

/// PyMC's keywords in `Args` renamed to the table's; `Dist` becomes the
/// table's class when PyMC's differs and one of its keywords says PyMC's
/// is meant (MvNormal always).
void renamePyMCKeywords(std::string &Dist, std::vector<Arg> &Args) {
  for (const PyMCKeywords &F : PyMCForms) {
    if (Dist != F.Name)
      continue;
    const DistSpec *Own = lookupDistribution(Dist);
    bool Renamed = false;
    // NumPyro's parameters the call gives by position or by keyword.
    std::vector<std::string> Given;
    size_t Positional = 0;
    for (const Arg &A : Args)
      if (!A.Keyword.empty())
        Given.push_back(A.Keyword);
      else if (Own && Positional < Own->Params.size())
        Given.push_back(Own->Params[Positional++].Name);
    for (Arg &A : Args) {
      if (A.Keyword.empty() ||
          (Own && llvm::any_of(Own->Params, [&](const DistParam &P) {
             return A.Keyword == P.Name;
           })))
        continue;
      // Renamed unless NumPyro's parameter is given too, by keyword or
      // position (then the PyMC one is reported as not a parameter).
      for (const auto &[PyMC, Ours] : F.Keywords)
        if (A.Keyword == PyMC && !llvm::is_contained(Given, Ours)) {
          A.Keyword = Ours;
          Renamed = true;
          break;
        }
    }
    if (!Own || Renamed)
      Dist = F.Target;
    return;
  }
}

/// `kw=None`: NumPyro and PyMC take the parameter's default for None, as
/// for one not given (PyMC's `Censored(dist, lower=None, upper=c)`).
void dropNoneKeywords(std::vector<Arg> &Args) {
  llvm::erase_if(Args, [](const Arg &A) {
    const auto *N = llvm::dyn_cast_or_null<NameExpr>(A.Value.get());
    return !A.Keyword.empty() && N && N->Name == "None";
  });
}

const SugarForm *sugarForm(llvm::StringRef Name) {
  for (const SugarForm &F : SugarForms)
    if (Name == F.Name)
      return &F;
  return nullptr;
}

/// The structured multivariate normals: MultivariateNormal with the
/// matrix built from the form's arguments.
void rewriteStructuredNormal(llvm::StringRef Name,
                             const std::vector<ExprPtr> &Bound, SMLoc Loc,
                             std::string &Dist, std::vector<Arg> &Args) {
  auto Pos = [](ExprPtr V) { return Arg{"", V->Loc, V}; };
  Dist = "MultivariateNormal";
  if (Name == "CAR") {
    const ExprPtr &W = Bound[3];
    ExprPtr Degrees = call(Loc, "sum",
                           {Pos(cloneExpr(*W)),
                            Arg{"axis", Loc, std::make_shared<NumberExpr>(Loc, -1, true)}});
    ExprPtr Precision = binary(
        BinaryOp::Mul, Bound[2],
        binary(BinaryOp::Sub, call(Loc, "diag", {Pos(Degrees)}),
               binary(BinaryOp::Mul, Bound[1], W)));
    Args = {Pos(Bound[0]), Arg{"precision_matrix", Loc, Precision}};
    return;
  }
  const ExprPtr &F = Bound[1];
  ExprPtr Cov = binary(
      BinaryOp::Add,
      binary(BinaryOp::MatMul, F, call(Loc, "transpose", {Pos(cloneExpr(*F))})),
      call(Loc, "diag", {Pos(Bound[2])}));
  Args = {Pos(Bound[0]), Arg{"covariance_matrix", Loc, Cov}};
}

/// CirculantNormal's covariance, NumPyro's: the symmetric circulant matrix
/// whose eigenvalues are lam_k = Re(rfft(covariance_row))_k, or
/// covariance_rfft. loc and the row or spectrum are vectors without batch
/// axes (as outer and take take them); n is loc's length.
///   From the row r: C[i, j] = (r[(j - i) mod n] + r[(i - j) mod n]) / 2,
///   gathered (the symmetric part of r, whose spectrum is Re(rfft(r))), so
///   that C holds r's own values in either precision.
///   From the half spectrum lam (k = 0..n/2), the inverse transform as
///   sums of cosines and sines, its terms other than k = 0 and k = n / 2
///   counted twice (the spectrum's mirror):
///     C = ((Ch * w lam) @ Ch^T + (Sh * w lam) @ Sh^T) / n,
///     Ch, Sh = cos, sin(2 pi ((i k) mod n) / n).
ExprPtr circulantCovariance(const std::vector<ExprPtr> &Bound, SMLoc Loc) {
  auto Pos = [](ExprPtr V) { return Arg{"", V->Loc, V}; };
  auto Clone = [](const ExprPtr &V) { return cloneExpr(*V); };
  auto Ones = [&](const ExprPtr &V) {
    return call(Loc, "ones_like", {Pos(Clone(V))});
  };
  // len(v) as an integer and as the model's real.
  auto Length = [&](const ExprPtr &V) {
    return call(Loc, "sum", {Pos(binary(BinaryOp::Gt, Ones(V), number(Loc, 0)))});
  };
  auto N = [&]() { return call(Loc, "sum", {Pos(Ones(Bound[0]))}); };
  if (Bound[1]) {
    // 0, 1, ..., n - 1 (argsort's stable order of equal values).
    auto Idx = [&]() {
      return call(Loc, "argsort", {Pos(call(Loc, "zeros_like", {Pos(Clone(Bound[0]))}))});
    };
    ExprPtr D = binary(BinaryOp::Sub, axes(Idx(), "N:"), axes(Idx(), ":N"));
    ExprPtr Wrapped = call(Loc, "where",
                           {Pos(binary(BinaryOp::Ge, D, number(Loc, 0))),
                            Pos(Clone(D)),
                            Pos(binary(BinaryOp::Add, Clone(D), Length(Bound[0])))});
    ExprPtr Ahead = call(Loc, "take", {Pos(Bound[1]), Pos(Wrapped)});
    ExprPtr Behind = call(Loc, "take", {Pos(Clone(Bound[1])),
                                        Pos(call(Loc, "transpose", {Pos(Clone(Wrapped))}))});
    return binary(BinaryOp::Mul, number(Loc, 0.5), binary(BinaryOp::Add, Ahead, Behind));
  }
  const ExprPtr &Lam = Bound[2];
  auto LastAxis = [&]() {
    return Arg{"axis", Loc, std::make_shared<NumberExpr>(Loc, -1, true)};
  };
  // 0, 1, ..., len(v) - 1 as the model's reals.
  auto Indices = [&](const ExprPtr &V) {
    return binary(BinaryOp::Sub, call(Loc, "cumsum", {Pos(Ones(V)), LastAxis()}),
                  number(Loc, 1));
  };
  auto Phase = [&](const char *Fn) {
    // (i k) mod n first: the angle stays below 2 pi, so that f32 keeps its
    // digits.
    ExprPtr Turns = call(
        Loc, "fmod",
        {Pos(call(Loc, "outer", {Pos(Indices(Bound[0])), Pos(Indices(Lam))})),
         Pos(N())});
    return call(Loc, Fn,
                {Pos(binary(BinaryOp::Mul, Turns,
                            binary(BinaryOp::Div, number(Loc, 6.283185307179586),
                                   N())))});
  };
  ExprPtr K = Indices(Lam);
  ExprPtr Edge = binary(BinaryOp::Eq, binary(BinaryOp::Mul, number(Loc, 2), K), N());
  ExprPtr W = call(Loc, "where",
                   {Pos(binary(BinaryOp::Eq, Clone(K), number(Loc, 0))),
                    Pos(number(Loc, 1)),
                    Pos(call(Loc, "where", {Pos(Edge), Pos(number(Loc, 1)),
                                            Pos(number(Loc, 2))}))});
  ExprPtr Weighted = binary(BinaryOp::Mul, W, Lam);
  auto Term = [&](const char *Fn) {
    return binary(BinaryOp::MatMul,
                  binary(BinaryOp::Mul, Phase(Fn), Clone(Weighted)),
                  call(Loc, "transpose", {Pos(Phase(Fn))}));
  };
  return binary(BinaryOp::Div, binary(BinaryOp::Add, Term("cos"), Term("sin")),
                N());
}

/// The form's distribution call, `Dist(Args)`, from its bound arguments
/// (`Bound`, in the form's parameter order, defaults filled in).
void rewriteSugarCall(const SugarForm &F, std::vector<ExprPtr> Bound,
                      SMLoc Loc, std::string &Dist, std::vector<Arg> &Args) {
  auto Kw = [&](const char *K, ExprPtr V) { return Arg{K, V->Loc, V}; };
  llvm::StringRef Name = F.Name;
  if (Name == "AsymmetricLaplaceQuantile") {
    auto Asymmetry = [&]() {
      ExprPtr Q = cloneExpr(*Bound[2]);
      ExprPtr Odds = binary(BinaryOp::Sub,
                            binary(BinaryOp::Div, number(Loc, 1), Q),
                            number(Loc, 1));
      return binary(BinaryOp::Pow, binary(BinaryOp::Div, number(Loc, 1), Odds),
                    number(Loc, 0.5));
    };
    ExprPtr Scale = binary(BinaryOp::Div,
                           binary(BinaryOp::Mul, Bound[1], Asymmetry()),
                           Bound[2]);
    Dist = "AsymmetricLaplace";
    Args = {Kw("loc", Bound[0]), Kw("scale", Scale),
            Kw("asymmetry", Asymmetry())};
    return;
  }
  if (Name == "CAR" || Name == "LowRankMultivariateNormal")
    return rewriteStructuredNormal(Name, Bound, Loc, Dist, Args);
  if (Name == "CirculantNormal") {
    Dist = "MultivariateNormal";
    Args = {Arg{"", Loc, Bound[0]},
            Arg{"covariance_matrix", Loc, circulantCovariance(Bound, Loc)}};
    return;
  }
  if (Name == "GaussianCopulaBeta") {
    std::vector<Arg> B{Arg{"", Loc, Bound[0]}, Arg{"", Loc, Bound[1]}};
    auto Base = std::make_shared<CallExpr>(Loc, "Beta", std::move(B));
    Base->Depth = std::max(Bound[0]->Depth, Bound[1]->Depth) + 1;
    Dist = "GaussianCopula";
    Args = {Arg{"", Loc, Base}};
    for (size_t I = 2; I < 4; ++I)
      if (Bound[I])
        Args.push_back(Kw(F.Params[I].Name, Bound[I]));
    return;
  }
  if (Name == "Truncated") {
    std::vector<Arg> T{Arg{"", Bound[0]->Loc, Bound[0]}};
    if (Bound[1])
      T.push_back(Kw("low", Bound[1]));
    if (Bound[2])
      T.push_back(Kw("high", Bound[2]));
    Dist = "TruncatedDistribution";
    Args = std::move(T);
    return;
  }
  if (Name == "HalfStudentT") {
    std::vector<Arg> T{Kw("df", Bound[0]), Kw("loc", number(Loc, 0)),
                       Kw("scale", Bound[1])};
    auto Base = std::make_shared<CallExpr>(Loc, "StudentT", std::move(T));
    Base->Depth = std::max(Bound[0]->Depth, Bound[1]->Depth) + 1;
    Dist = "TruncatedDistribution";
    Args = {Arg{"", Loc, Base}, Kw("low", number(Loc, 0))};
    return;
  }
  // The truncations and the gated classes: the base, then the rest by
  // name.
  std::vector<Arg> T{Arg{"", Bound[0]->Loc, Bound[0]}};
  for (size_t I = 1; I < Bound.size(); ++I)
    T.push_back(Kw(F.Params[I].Name, Bound[I]));
  Dist = Name.starts_with("ZeroInflated") ? "ZeroInflatedDistribution"
         : Name.starts_with("Hurdle")     ? "HurdleDistribution"
                                          : "TruncatedDistribution";
  Args = std::move(T);
}

} // namespace
} // namespace sema

bool isDistributionSugar(llvm::StringRef Name) {
  return sema::sugarForm(Name) != nullptr;
}

void printDistributionSugar(llvm::raw_ostream &OS) {
  for (const sema::SugarForm &F : sema::SugarForms)
    OS << "| `" << F.Shown << "` | `" << F.Means << "` |\n";
}

std::vector<std::string> distributionSpellings() {
  std::vector<std::string> Names;
  for (const DistSpec &D : allDistributions())
    Names.push_back(D.Name);
  for (const DistAlias &A : allDistributionAliases())
    Names.push_back(A.Name);
  for (const sema::SugarForm &F : sema::SugarForms)
    Names.push_back(F.Name);
  for (const sema::PyMCKeywords &F : sema::PyMCForms)
    Names.push_back(F.Name);
  Names.push_back("ZeroInflatedDistribution");
  Names.push_back("HurdleDistribution");
  return Names;
}

std::string closestDistribution(llvm::StringRef Name) {
  // Other libraries' names for a distribution here, which no edit
  // distance finds.
  static const std::pair<const char *, const char *> Synonyms[] = {
      {"gaussian", "Normal"},         {"inversegaussian", "Wald"},
      {"halft", "HalfStudentT"},      {"lognormal", "LogNormal"},
      {"exponentialmodifiednormal", "ExGaussian"},
      {"negativebinomial", "NegativeBinomial2"}};
  const std::string Lower = Name.lower();
  for (auto [Other, Ours] : Synonyms)
    if (Lower == Other)
      return Ours;
  std::string Best;
  unsigned BestDistance = std::max<unsigned>(2, Name.size() / 4) + 1;
  for (const std::string &S : distributionSpellings()) {
    const unsigned D = llvm::StringRef(Lower).edit_distance(
        llvm::StringRef(S).lower(), /*AllowReplacements=*/true, BestDistance);
    if (D < BestDistance) {
      BestDistance = D;
      Best = S;
    }
  }
  return Best;
}

void printPyMCKeywords(llvm::raw_ostream &OS) {
  for (const sema::PyMCKeywords &F : sema::PyMCForms) {
    OS << "| " << F.Name << " | " << F.Target << " | ";
    for (size_t I = 0; I < F.Keywords.size(); ++I)
      OS << (I ? ", " : "") << "`" << F.Keywords[I].first << "=` is `"
         << F.Keywords[I].second << "=`";
    OS << " |\n";
  }
}

namespace sema {

/// `Dist(Args)` rewritten into the distribution it is, when it is one of
/// the forms above; false after an error (reported).
bool Analyzer::rewriteDistributionSugar(std::string &Dist,
                                        std::vector<Arg> &Args, SMLoc Loc) {
  dropNoneKeywords(Args);
  renamePyMCKeywords(Dist, Args);
  // A distribution given to this one (PyMC's `Truncated(Normal.dist(mu=m,
  // sigma=s), ...)`) is spelled as its own call would be.
  static const std::vector<std::string> Spellings = distributionSpellings();
  for (Arg &A : Args)
    if (auto *C = llvm::dyn_cast<CallExpr>(A.Value.get());
        C && llvm::is_contained(Spellings, C->Callee) &&
        !rewriteDistributionSugar(C->Callee, C->Args, C->Loc))
      return false;
  if (!rewriteGatedComposite(Dist, Args, Loc) ||
      !rewriteTransformed(Dist, Args, Loc) || !rewriteMixture(Dist, Args, Loc))
    return false;
  const SugarForm *F = sugarForm(Dist);
  if (!F)
    return true;
  std::vector<ExprPtr> Bound(F->Params.size());
  auto Fail = [&](const std::string &What, SMLoc At) {
    Diags.report(diag::E_SUGAR_ARGS, At) << What << F->Shown;
    return false;
  };
  for (size_t I = 0; I < Args.size(); ++I) {
    size_t At = I;
    if (!Args[I].Keyword.empty()) {
      auto It = llvm::find_if(F->Params, [&](const SugarParam &P) {
        return Args[I].Keyword == P.Name;
      });
      if (It == F->Params.end())
        return Fail(Dist + " has no parameter '" + Args[I].Keyword + "'",
                    Args[I].Loc);
      At = It - F->Params.begin();
    } else if (I >= F->Params.size()) {
      return Fail("too many arguments to " + Dist, Args[I].Loc);
    }
    if (Bound[At])
      return Fail(std::string("argument '") + F->Params[At].Name +
                      "' given twice",
                  Args[I].Loc);
    Bound[At] = Args[I].Value;
  }
  for (size_t I = 0; I < Bound.size(); ++I) {
    auto V = Bound[I] ? literalValue(*Bound[I]) : std::nullopt;
    if (V && !satisfies(F->Params[I].Domain, *V)) {
      Diags.report(diag::E_PARAMETER_CONSTRAINT, Bound[I]->Loc)
          << F->Params[I].Name << Dist
          << constraintDescription(F->Params[I].Domain) << formatNumber(*V);
      return false;
    }
    if (Bound[I] || F->Params[I].NoneDefault)
      continue;
    if (!F->Params[I].Default)
      return Fail(std::string("missing argument '") + F->Params[I].Name + "'",
                  Loc);
    Bound[I] = number(Loc, *F->Params[I].Default);
  }
  if (!F->ExactlyOneOf.empty()) {
    size_t Given = 0;
    for (size_t I = 0; I < Bound.size(); ++I)
      Given += Bound[I] && llvm::is_contained(F->ExactlyOneOf,
                                              llvm::StringRef(F->Params[I].Name));
    if (Given != 1)
      return Fail(Dist + " needs exactly one of '" +
                      llvm::join(F->ExactlyOneOf, "=' or '") + "='" +
                      (Given ? "; both were given" : ""),
                  Loc);
  }
  rewriteSugarCall(*F, std::move(Bound), Loc, Dist, Args);
  // NumPyro's ZeroInflatedProbs is its ZeroInflatedDistribution.
  return rewriteGatedComposite(Dist, Args, Loc);
}

} // namespace sema
} // namespace aimz
